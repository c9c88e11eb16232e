/* Unit tests of the Meson reader (src/lib/project/meson/read.c): targets,
 * tests and benchmarks from introspection JSON held in memory, the
 * arguments of the configure step (profiles, flags, the user's options,
 * --features), packages, and discovery of meson.build and build folders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/manifest.h"
#include "lib/project/meson/meson.h"
#include "lib/project/system.h"
#include "lib/project/project.h"
#include "util/strvec.h"

#define B "/src/w/build/flamegraph/release"

static const char targets_json[] =
	"[{\"name\": \"tool\", \"id\": \"a1@@tool@exe\", \"type\": \"executable\","
	"  \"filename\": [\"" B "/src/tool\"], \"installed\": true, \"subproject\": null},"
	" {\"name\": \"tool\", \"id\": \"a2@@tool@sha\", \"type\": \"shared library\","
	"  \"filename\": [\"" B "/lib/libtool.so\"], \"installed\": true, \"subproject\": null},"
	" {\"name\": \"unit\", \"id\": \"t1@@unit@exe\", \"type\": \"executable\","
	"  \"filename\": [\"" B "/tests/unit\"], \"installed\": false, \"subproject\": null},"
	" {\"name\": \"unit\", \"id\": \"t2@@unit@exe\", \"type\": \"executable\","
	"  \"filename\": [\"" B "/more/unit\"], \"installed\": false, \"subproject\": null},"
	" {\"name\": \"speed-benchmark\", \"id\": \"b1@@speed-benchmark@exe\", \"type\": \"executable\","
	"  \"filename\": [\"" B "/bench/speed-benchmark\"], \"installed\": false, \"subproject\": null},"
	" {\"name\": \"gen\", \"id\": \"c1@@gen@cus\", \"type\": \"custom\","
	"  \"filename\": [\"" B "/data/gen.h\"], \"installed\": false, \"subproject\": null},"
	" {\"name\": \"subtool\", \"id\": \"s1@@subtool@exe\", \"type\": \"executable\","
	"  \"filename\": [\"" B "/subprojects/zz/subtool\"], \"installed\": false, \"subproject\": \"zz\"}]";

static const char tests_json[] =
	"[{\"name\": \"unit suite\", \"cmd\": [\"" B "/tests/unit\", \"--case\", \"hash\"],"
	"  \"env\": {\"SCALE\": \"3\", \"DATA\": \"/src/w/tests/data\"}, \"workdir\": \"/src/w/tests\","
	"  \"suite\": [\"wordy\", \"wordy:fast\"], \"depends\": [\"t1@@unit@exe\", \"c1@@gen@cus\"]},"
	" {\"name\": \"smoke\", \"cmd\": [\"" B "/src/tool\", \"1\"], \"env\": {}, \"workdir\": null,"
	"  \"suite\": [\"wordy\"], \"depends\": [\"a1@@tool@exe\"]},"
	" {\"name\": \"script\", \"cmd\": [\"/src/w/tests/run.sh\"], \"env\": {\"TOOL\": \"" B "/src/tool\"},"
	"  \"workdir\": null, \"suite\": [\"wordy\"], \"depends\": []},"
	" {\"name\": \"subtest\", \"cmd\": [\"" B "/subprojects/zz/subtool\"], \"env\": {},"
	"  \"workdir\": null, \"suite\": [\"zz\"], \"depends\": [\"s1@@subtool@exe\"]},"
	" {\"name\": \"no command\", \"cmd\": [], \"suite\": [\"wordy\"]}]";

static const char benchmarks_json[] =
	"[{\"name\": \"speed\", \"cmd\": [\"" B "/bench/speed-benchmark\", \"--words\", \"10\"],"
	"  \"env\": {\"REPEAT\": \"5\"}, \"workdir\": null, \"suite\": [\"wordy\"],"
	"  \"depends\": [\"b1@@speed-benchmark@exe\"]}]";

static const char options_json[] =
	"[{\"name\": \"buildtype\", \"value\": \"debugoptimized\", \"section\": \"core\", \"type\": \"combo\","
	"  \"choices\": [\"plain\", \"debug\", \"debugoptimized\", \"release\", \"minsize\", \"custom\"]},"
	" {\"name\": \"default_library\", \"value\": \"static\", \"section\": \"core\", \"type\": \"combo\","
	"  \"choices\": [\"shared\", \"static\", \"both\"]},"
	" {\"name\": \"c_args\", \"value\": [\"-DUSER=1\", \"-DMSG=a b\"], \"section\": \"compiler\", \"type\": \"array\"},"
	" {\"name\": \"fast_hash\", \"value\": false, \"section\": \"user\", \"type\": \"boolean\"},"
	" {\"name\": \"simd\", \"value\": \"auto\", \"section\": \"user\", \"type\": \"combo\","
	"  \"choices\": [\"enabled\", \"disabled\", \"auto\"]},"
	" {\"name\": \"mode\", \"value\": \"fast\", \"section\": \"user\", \"type\": \"combo\","
	"  \"choices\": [\"fast\", \"small\"]},"
	" {\"name\": \"levels\", \"value\": [\"x\", \"it's\"], \"section\": \"user\", \"type\": \"array\"},"
	" {\"name\": \"zz:opt\", \"value\": true, \"section\": \"user\", \"type\": \"boolean\"}]";

static const char projectinfo_json[] =
	"{\"version\": \"1.0\", \"descriptive_name\": \"wordy\", \"subprojects\": [{\"name\": \"zz\"}]}";

static fg_project *new_project(const fg_project_opts *opts)
{
	fg_project *p = fg_calloc(1, sizeof(*p));

	assert_non_null(p);
	p->opts = *opts;
	p->loc.type = FG_MANIFEST_MESON;
	p->system = fg_build_system_of(FG_MANIFEST_MESON);
	p->loc.file = fg_strdup("/src/w/meson.build");
	p->loc.root = fg_strdup("/src/w");
	p->build_dir = fg_strdup(B);
	p->name = fg_strdup("w");
	p->profile = fg_strdup(opts->build_profile ? opts->build_profile : "release");
	return p;
}

static int read_all(fg_project *p)
{
	const fg_meson_file files[] = {
		{ "intro-targets.json", targets_json, sizeof(targets_json) - 1 },
		{ "intro-tests.json", tests_json, sizeof(tests_json) - 1 },
		{ "intro-benchmarks.json", benchmarks_json, sizeof(benchmarks_json) - 1 },
		{ "intro-buildoptions.json", options_json, sizeof(options_json) - 1 },
		{ "intro-projectinfo.json", projectinfo_json, sizeof(projectinfo_json) - 1 },
	};
	return fg_meson_read_intro(p, files, 5);
}

static const struct fg_target *find(const fg_project *p, const char *name, bool run)
{
	for (size_t i = 0; i < p->ntargets; i++)
		if (!strcmp(p->targets[i].name, name) && p->targets[i].ctest == run)
			return &p->targets[i];
	return NULL;
}

static const fg_strvec *compile_list(const fg_project *p, const struct fg_target *t)
{
	const fg_meson_state *st = p->state;
	size_t i = (size_t)(t - p->targets);
	assert_true(i < st->ncompile);
	return &st->compile[i];
}

static char *joined(const fg_strvec *v)
{
	static char buf[2048];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < v->n; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "|" : "", v->v[i]);
	return buf;
}

static void targets_by_meson_names(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = new_project(&opts);
	const struct fg_target *t;

	(void)state;
	assert_int_equal(read_all(p), 0);
	assert_string_equal(p->name, "wordy");
	/* installed: a bin even though the test smoke runs it */
	assert_non_null(t = find(p, "tool", false));
	assert_int_equal(t->kind, FG_TARGET_BIN);
	assert_string_equal(t->exe, B "/src/tool");
	assert_string_equal(t->build_name, "tool");
	/* a library of the same name does not make the name ambiguous */
	assert_string_equal(joined(compile_list(p, t)), "tool:executable");
	/* two executables called unit: each built by its folder */
	assert_non_null(t = find(p, "unit", false));
	assert_int_equal(t->kind, FG_TARGET_TEST);
	assert_string_equal(joined(compile_list(p, t)), "tests/unit:executable");
	assert_non_null(t = find(p, "speed-benchmark", false));
	assert_int_equal(t->kind, FG_TARGET_BENCH);
	assert_non_null(find(p, "subtool", false));
	assert_null(find(p, "gen", false));
	assert_null(find(p, "no command", true));
	fg_project_free(p);
}

static void tests_keep_command_env_and_folder(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = new_project(&opts);
	const struct fg_target *t = NULL;
	fg_run_spec spec = FG_RUN_SPEC_INIT;
	const char *extra[] = { "--verbose" };

	(void)state;
	assert_int_equal(read_all(p), 0);
	assert_int_equal(fg_project_select((const fg_target **)&t, p, FG_TARGET_TEST, "unit suite"), 0);
	assert_true(t->ctest);
	assert_string_equal(t->build_name, "unit");
	assert_string_equal(joined(compile_list(p, t)), "tests/unit:executable|gen:custom");
	assert_int_equal(fg_target_run_spec(&spec, t, extra, 1, false), 0);
	assert_int_equal(spec.argc, 4);
	assert_string_equal(spec.argv[0], B "/tests/unit");
	assert_string_equal(spec.argv[2], "hash");
	assert_string_equal(spec.argv[3], "--verbose");
	assert_int_equal(spec.nenv, 2);
	assert_string_equal(spec.env[0], "SCALE=3");
	assert_string_equal(spec.env[1], "DATA=/src/w/tests/data");
	assert_string_equal(spec.cwd, "/src/w/tests");
	fg_run_spec_release(&spec);

	/* no workdir: the build folder, where `meson test` runs it */
	assert_int_equal(fg_project_select((const fg_target **)&t, p, FG_TARGET_TEST, "smoke"), 0);
	assert_string_equal(t->cwd, B);
	/* a script: nothing of ours is its program, nothing listed to build */
	assert_int_equal(fg_project_select((const fg_target **)&t, p, FG_TARGET_TEST, "script"), 0);
	assert_null(t->build_name);
	assert_int_equal(compile_list(p, t)->n, 0);
	assert_string_equal(t->env.v[0], "TOOL=" B "/src/tool");

	/* --bench by the benchmark's name wins over its program's */
	assert_int_equal(fg_project_select((const fg_target **)&t, p, FG_TARGET_BENCH, "speed"), 0);
	assert_true(t->ctest);
	assert_string_equal(t->env.v[0], "REPEAT=5");
	assert_int_equal(fg_project_select((const fg_target **)&t, p, FG_TARGET_BENCH, "speed-benchmark"), 0);
	assert_false(t->ctest);

	/* a program of another kind: the right flag */
	assert_int_equal(fg_project_select((const fg_target **)&t, p, FG_TARGET_BIN, "speed"), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "'speed' is a bench, not a bin: use --bench speed"));
	assert_int_equal(fg_project_select((const fg_target **)&t, p, FG_TARGET_TEST, "smok"), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "did you mean 'smoke'"));

	char *text = fg_project_describe(p);
	assert_non_null(strstr(text, "unit suite (meson test)"));
	assert_non_null(strstr(text, "speed (meson benchmark)"));
	free(text);
	fg_project_free(p);
}

static void packages(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p;

	(void)state;
	opts.package = "zz";
	p = new_project(&opts);
	assert_int_equal(read_all(p), 0);
	assert_int_equal(p->ntargets, 2);
	assert_non_null(find(p, "subtool", false));
	assert_non_null(find(p, "subtest", true));
	fg_project_free(p);

	opts.package = "wordy";
	p = new_project(&opts);
	assert_int_equal(read_all(p), 0);
	assert_null(find(p, "subtool", false));
	assert_null(find(p, "subtest", true));
	assert_non_null(find(p, "unit suite", true));
	fg_project_free(p);

	opts.package = "nope";
	p = new_project(&opts);
	assert_int_equal(read_all(p), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "no package 'nope'"));
	assert_non_null(strstr(fg_error_last(), "wordy, zz"));
	fg_project_free(p);
}

static void bad_introspection(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = new_project(&opts);
	const fg_meson_file bad[] = { { "intro-targets.json", "[{\"name\": ", 10 } };
	const fg_meson_file none[] = { { "intro-tests.json", "[]", 2 } };

	(void)state;
	assert_int_equal(fg_meson_read_intro(p, bad, 1), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "intro-targets.json: not valid JSON"));
	fg_project_free(p);
	p = new_project(&opts);
	assert_int_equal(fg_meson_read_intro(p, none, 1), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "intro-targets.json"));
	fg_project_free(p);
	/* odd shapes are skipped, not trusted */
	p = new_project(&opts);
	const fg_meson_file odd[] = {
		{ "intro-targets.json", "[1, {\"name\": 2}, {\"type\": \"executable\"}]", 42 },
		{ "intro-tests.json", "{\"cmd\": 1}", 10 },
	};
	assert_int_equal(fg_meson_read_intro(p, odd, 2), 0);
	assert_int_equal(p->ntargets, 0);
	fg_project_free(p);
}

static char *setup_args(fg_project *p, const char *user, const char *defaults, int *err)
{
	fg_strvec args = FG_STRVEC_INIT;
	static char buf[2048];

	*err = fg_meson_setup_args(p, "-fno-omit-frame-pointer", user, options_json, defaults, &args);
	snprintf(buf, sizeof(buf), "%s", joined(&args));
	fg_strvec_clear(&args);
	return buf;
}

static void configure_arguments(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	const char *features[] = { "Fast-Hash" };
	const char *defines[] = { "c_args=-DMINE", "mode=small" };
	fg_project *p;
	int err;

	(void)state;
	p = new_project(&opts);
	assert_string_equal(setup_args(p, NULL, "fast_hash=false\nsimd=auto\n", &err),
			    "-Dbuildtype=debugoptimized|-Dc_args=-fno-omit-frame-pointer|"
			    "-Dcpp_args=-fno-omit-frame-pointer|-Dc_link_args=|-Dcpp_link_args=|"
			    "-Dfast_hash=false|-Dsimd=auto");
	assert_int_equal(err, 0);
	fg_project_free(p);

	/* --features by a near spelling; the user's -D last, c_args merged */
	opts.features = features;
	opts.nfeatures = 1;
	opts.defines = defines;
	opts.ndefines = 2;
	opts.cflags = "-DENV";
	p = new_project(&opts);
	assert_string_equal(setup_args(p, NULL, "fast_hash=false\nsimd=auto\n", &err),
			    "-Dbuildtype=debugoptimized|-Dc_args=-DMINE -fno-omit-frame-pointer|"
			    "-Dcpp_args=-fno-omit-frame-pointer|-Dc_link_args=|-Dcpp_link_args=|"
			    "-Dfast_hash=true|-Dsimd=auto|-Dmode=small");
	fg_project_free(p);

	/* the user's build folder: its project options and flags carried */
	opts.nfeatures = 0;
	opts.ndefines = 0;
	opts.all_features = true;
	p = new_project(&opts);
	assert_string_equal(setup_args(p, options_json, NULL, &err),
			    "-Dbuildtype=debugoptimized|-Dc_args=-DUSER=1 '-DMSG=a b' -fno-omit-frame-pointer|"
			    "-Dcpp_args=-fno-omit-frame-pointer|-Dc_link_args=|-Dcpp_link_args=|"
			    "-Ddefault_library=static|-Dfast_hash=false|"
			    "-Dsimd=auto|-Dmode=fast|-Dlevels=['x', 'it\\'s']|-Dzz:opt=true|"
			    "-Dfast_hash=true|-Dsimd=enabled");
	fg_project_free(p);

	opts.all_features = false;
	opts.no_default_features = true;
	opts.build_profile = "dev";
	p = new_project(&opts);
	p->no_rosegment = true;
	assert_string_equal(setup_args(p, NULL, NULL, &err),
			    "-Dbuildtype=debug|-Dc_args=-DENV -fno-omit-frame-pointer|"
			    "-Dcpp_args=-fno-omit-frame-pointer|-Dc_link_args=-Wl,--no-rosegment|"
			    "-Dcpp_link_args=-Wl,--no-rosegment|-Dfast_hash=false|-Dsimd=disabled");
	fg_project_free(p);

	opts.no_default_features = false;
	opts.build_profile = "minsize";
	p = new_project(&opts);
	assert_string_equal(setup_args(p, NULL, NULL, &err),
			    "-Dbuildtype=minsize|-Ddebug=true|-Dc_args=-DENV -fno-omit-frame-pointer|"
			    "-Dcpp_args=-fno-omit-frame-pointer|-Dc_link_args=|-Dcpp_link_args=");
	fg_project_free(p);
}

static void configure_errors(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	const char *features[] = { "fasthash" };
	const char *defines[] = { "novalue" };
	fg_project *p;
	int err;

	(void)state;
	opts.features = features;
	opts.nfeatures = 1;
	p = new_project(&opts);
	setup_args(p, NULL, NULL, &err);
	assert_int_equal(err, FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "unknown feature 'fasthash' — did you mean 'fast_hash'? "
				"w's boolean and feature options are: fast_hash, simd"));
	fg_project_free(p);

	opts.nfeatures = 0;
	opts.build_profile = "debugoptimised";
	p = new_project(&opts);
	setup_args(p, NULL, NULL, &err);
	assert_int_equal(err, FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "no profile 'debugoptimised' for a Meson project — "
				"did you mean 'debugoptimized'?"));
	fg_project_free(p);

	opts.build_profile = "release";
	opts.defines = defines;
	opts.ndefines = 1;
	p = new_project(&opts);
	setup_args(p, NULL, NULL, &err);
	assert_int_equal(err, FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "-D novalue: a Meson option is set as -D NAME=VALUE"));
	fg_project_free(p);
}

/* ---- discovery ---------------------------------------------------------- */

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0777);
		*s = '/';
	}
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static const char *at(const char *rel)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "%s/fgmesonXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void discovery(void **state)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	char json[600];

	(void)state;
	/* a subdir()'s meson.build calls no project(): the top one is it */
	put("m/meson.build", "# comment\n\nproject('m', 'c')\nsubdir('src')\n");
	put("m/src/meson.build", "executable('x', 'x.c')\n");
	put("m/build/compile_commands.json", "[]");
	assert_int_equal(fg_manifest_find(&loc, at("m/src"), false), 0);
	assert_int_equal(loc.type, FG_MANIFEST_MESON);
	assert_string_equal(loc.root, at("m"));
	assert_string_equal(loc.file, at("m/meson.build"));
	fg_manifest_loc_release(&loc);
	/* --manifest-path at the subfolder's file climbs too */
	assert_int_equal(fg_manifest_find(&loc, at("m/src/meson.build"), true), 0);
	assert_string_equal(loc.root, at("m"));
	fg_manifest_loc_release(&loc);

	/* a Meson build folder anywhere names its source tree */
	snprintf(json, sizeof(json), "{\"directories\": {\"source\": \"%s\", \"build\": \"%s\"}}",
		 at("m"), "/elsewhere");
	put("out/meson-info/meson-info.json", json);
	put("out/compile_commands.json", "[]");
	assert_int_equal(fg_manifest_find(&loc, at("out"), true), 0);
	assert_int_equal(loc.type, FG_MANIFEST_MESON);
	assert_string_equal(loc.root, at("m"));
	assert_string_equal(loc.file, at("out/meson-info/meson-info.json"));
	fg_manifest_loc_release(&loc);
	assert_int_equal(fg_manifest_find(&loc, at("out/meson-info/meson-info.json"), true), 0);
	assert_string_equal(loc.root, at("m"));
	fg_manifest_loc_release(&loc);

	/* CMake comes first in one folder, flamegraph.toml before both */
	put("both/CMakeLists.txt", "project(both C)\n");
	put("both/meson.build", "project('both', 'c')\n");
	assert_int_equal(fg_manifest_find(&loc, at("both"), false), 0);
	assert_int_equal(loc.type, FG_MANIFEST_CMAKE);
	fg_manifest_loc_release(&loc);
	assert_int_equal(fg_manifest_find(&loc, at("both/meson.build"), true), 0);
	assert_int_equal(loc.type, FG_MANIFEST_MESON);
	fg_manifest_loc_release(&loc);
	put("tm/meson.build", "project('tm', 'c')\n");
	put("tm/flamegraph.toml", "[package]\nname = \"tm\"\n");
	assert_int_equal(fg_manifest_find(&loc, at("tm"), false), 0);
	assert_int_equal(loc.type, FG_MANIFEST_TOML);
	fg_manifest_loc_release(&loc);

	assert_true(fg_meson_calls_project(at("m")));
	assert_false(fg_meson_calls_project(at("m/src")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(targets_by_meson_names),
		cmocka_unit_test(tests_keep_command_env_and_folder),
		cmocka_unit_test(packages),
		cmocka_unit_test(bad_introspection),
		cmocka_unit_test(configure_arguments),
		cmocka_unit_test(configure_errors),
		cmocka_unit_test(discovery),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
