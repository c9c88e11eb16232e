/* Unit tests of the flamegraph.toml schema reader: every schema mistake
 * is an error at file:line:col that says what to write instead, and a
 * good manifest becomes the expected targets, features and profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/builder.h"
#include "flamegraph/error.h"
#include "flamegraph/manifest.h"

static char root[256], file[300];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* the scratch folder goes with the tests */
static int teardown(void **state)
{
	(void)state;
	return nftw(root, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "%s/fgtomlXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	snprintf(file, sizeof(file), "%s/flamegraph.toml", root);
	return 0;
}

static int open_text(fg_project **p, const char *text, const fg_project_opts *opts)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	loc.type = FG_MANIFEST_TOML;
	loc.file = file;
	loc.root = root;
	return fg_project_open(p, &loc, opts);
}

#define PKG "[package]\nname = \"demo\"\n"

static const struct bad_case {
	const char *text;
	int code;
	const char *where;   /* ":line:col:" expected after the file name, or NULL */
	const char *message; /* a substring of the error */
} bad_cases[] = {
	{ "[build]\ncc = \"cc\"\n", FG_EPARSE, ":1:1:", "no [package] table" },
	{ "[package]\nversion = \"1\"\n", FG_EPARSE, ":1:1:", "has no `name`" },
	{ "[package]\nname = 3\n", FG_EPARSE, ":2:8:", "`name` must be a string, not a integer" },
	{ "colour = 1\n" PKG, FG_EPARSE, ":1:1:", "unknown key `colour` in flamegraph.toml — valid keys: package" },
	{ PKG "[build]\ncflgs = []\n", FG_EPARSE, ":4:1:", "unknown key `cflgs` in [build] — valid keys: system, cc, cflags" },
	{ PKG "[build]\nsystem = \"ninja\"\n", FG_EPARSE, ":4:10:", "unknown build system \"ninja\"" },
	{ PKG "[build]\ncflags = \"-O3\"\n", FG_EPARSE, ":4:10:", "`cflags` must be an array of strings" },
	{ PKG "[build]\nlibs = [\"m\", 3]\n", FG_EPARSE, ":4:14:", "must hold strings only" },
	{ PKG "[build]\nsystem = \"command\"\n", FG_EPARSE, ":3:1:", "needs `command`" },
	{ PKG "[bin]\nname = \"a\"\n", FG_EPARSE, ":3:1:", "write [[bin]]" },
	{ PKG "[[bin]]\nsources = [\"a.c\"]\n", FG_EPARSE, ":3:1:", "has no `name`" },
	{ PKG "[[bin]]\nname = \"a\"\n", FG_EPARSE, ":3:1:", "bin 'a' has no sources" },
	{ PKG "[[bin]]\nname = \"a\"\nsources = [\"a.c\"]\nfilter = \"{}\"\n", FG_EPARSE, ":6:1:",
	  "unknown key `filter` in [[bin]]" },
	{ PKG "[[test]]\nname = \"t\"\nsources = [\"a.c\"]\nfilter = \"--only\"\n", FG_EPARSE, ":6:10:",
	  "has no {}" },
	{ PKG "[[test]]\nname = \"t\"\nsources = [\"a.c\"]\nenv = [\"A=1\"]\n", FG_EPARSE, ":6:7:",
	  "`env` must be a table" },
	{ PKG "[[bin]]\nname = \"a\"\nsources = [\"a.c\"]\n[[bin]]\nname = \"a\"\nsources = [\"b.c\"]\n",
	  FG_EPARSE, ":7:8:", "a second bin named 'a'" },
	{ PKG "[build]\nsystem = \"command\"\ncommand = \"make\"\n[[bin]]\nname = \"a\"\n", FG_EPARSE,
	  ":6:1:", "has no `path`" },
	{ PKG "[features]\ndefault = [\"fast\"]\n", FG_EPARSE, ":4:12:",
	  "unknown feature \"fast\" — declared features: (none declared)" },
	{ PKG "[features]\nfast = { defines = [\"F\"], colour = 1 }\n", FG_EPARSE, ":4:27:",
	  "unknown key `colour` in feature `fast` — valid keys: defines" },
	{ PKG "[features]\nfast = 1\n", FG_EPARSE, ":4:8:", "must be a table" },
	{ PKG "[features]\nfast = [\"simd\"]\n", FG_EPARSE, ":4:9:", "unknown feature \"simd\"" },
	{ PKG "[profile.quick]\ninherits = \"fastest\"\n", FG_EPARSE, ":4:12:",
	  "profile 'quick' inherits unknown profile 'fastest' — known profiles: release, dev, quick" },
	{ PKG "[profile.a]\ninherits = \"b\"\n[profile.b]\ninherits = \"a\"\n", FG_EPARSE, ":4:12:",
	  "inherits itself" },
	{ PKG "[profile.release]\ninherits = \"dev\"\n", FG_EPARSE, ":4:12:", "cannot inherit" },
	{ PKG "[profile.dev]\nopt-level = 7\n", FG_EPARSE, ":4:13:", "opt-level must be 0, 1, 2, 3" },
	{ PKG "[profile.dev]\ncflags = \"-O1\"\n", FG_EPARSE, ":4:10:", "must be an array of strings" },
	{ PKG "[profile.dev]\ndebug = true\n", FG_EPARSE, ":4:1:", "unknown key `debug` in [profile.dev]" },
	{ PKG "[cmake]\nargs = [\"-DA=1\"]\ngenerator = \"x\"\n", FG_EPARSE, ":5:1:", "unknown key `generator` in [cmake]" },
	{ PKG "[[bin]]\nname = \"a\"\nsources = [\"a.c\"]\nrequired-features = [\"simd\"]\n", FG_EPARSE,
	  ":6:22:", "required feature \"simd\" is not declared in [features]" },
	{ PKG "[[bin]]\nname = \"a\"\nsources = [\"a.c\"]\nrequired-features = \"simd\"\n", FG_EPARSE,
	  ":6:21:", "`required-features` must be an array" },
	{ PKG "[package\n", FG_EPARSE, ":3:", "" },
};

static void schema_errors(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		fg_project_opts opts = FG_PROJECT_OPTS_INIT;
		fg_project *p = NULL;
		int err = open_text(&p, c->text, &opts);
		const char *msg = fg_error_last();
		if (err != c->code || !strstr(msg, file) || (c->where && !strstr(msg, c->where)) ||
		    !strstr(msg, c->message))
			print_error("case %zu: got %d '%s', want %d '%s' '%s'\n", i, err, msg, c->code,
				 c->where ? c->where : "", c->message);
		assert_null(p);
		bad += err != c->code || !strstr(msg, c->message) || (c->where && !strstr(msg, c->where));
	}
	assert_int_equal(bad, 0);
}

static const char *const good =
	PKG
	"[build]\ncflags = [\"-Wall\"]\ninclude = [\"inc\"]\ndefines = [\"X=1\"]\nlibs = [\"m\"]\n"
	"[[bin]]\nname = \"app\"\nsources = [\"src/app.c\"]\nargs = [\"-n\", \"3\"]\n"
	"env = { LC_ALL = \"C\" }\ncwd = \"data\"\n"
	"[[test]]\nname = \"unit\"\nsources = [\"t.c\"]\nfilter = \"--only={}\"\n"
	"[[bench]]\nname = \"b\"\nsources = [\"b.c\"]\n"
	"[[example]]\nname = \"e\"\nsources = [\"e.c\"]\n"
	"[features]\ndefault = [\"base\"]\nbase = { defines = [\"BASE\"] }\n"
	"extra = { defines = [\"EXTRA\"] }\nall = [\"base\", \"extra\"]\n"
	"[profile.quick]\ninherits = \"dev\"\nopt-level = 1\n";

static void good_manifest(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	const fg_target *t = NULL;
	fg_run_spec spec = FG_RUN_SPEC_INIT;
	const char *extra[] = { "hash" };
	char want[512];

	(void)state;
	assert_int_equal(open_text(&p, good, &opts), 0);
	assert_string_equal(fg_project_name(p), "demo");
	assert_int_equal(fg_project_target_count(p), 4);
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_BIN, NULL), 0);
	assert_string_equal(fg_target_name(t), "app");
	snprintf(want, sizeof(want), "%s/build/flamegraph/release/bin/app", root);
	assert_string_equal(fg_target_exe(t), want);
	/* the manifest's args when none are given; given ones replace them */
	assert_int_equal(fg_target_run_spec(&spec, t, NULL, 0, false), 0);
	assert_int_equal(spec.argc, 3);
	assert_string_equal(spec.argv[1], "-n");
	assert_string_equal(spec.argv[2], "3");
	fg_run_spec_release(&spec);
	assert_int_equal(fg_target_run_spec(&spec, t, extra, 1, false), 0);
	assert_int_equal(spec.argc, 2);
	assert_string_equal(spec.argv[1], "hash");
	assert_int_equal(spec.nenv, 1);
	assert_string_equal(spec.env[0], "LC_ALL=C");
	snprintf(want, sizeof(want), "%s/data", root);
	assert_string_equal(spec.cwd, want);
	fg_run_spec_release(&spec);

	assert_int_equal(fg_project_select_unit(&t, p, NULL), 0);
	assert_string_equal(fg_target_filter(t), "--only={}");
	assert_int_equal(fg_target_run_spec(&spec, t, extra, 1, true), 0);
	assert_string_equal(spec.argv[1], "--only=hash");
	fg_run_spec_release(&spec);
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_EXAMPLE, "e"), 0);
	snprintf(want, sizeof(want), "%s/build/flamegraph/release/examples/e", root);
	assert_string_equal(fg_target_exe(t), want);
	fg_project_free(p);
}

static void unknown_feature_and_profile(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	const char *feats[] = { "turbo" };
	fg_project *p = NULL;

	(void)state;
	opts.features = feats;
	opts.nfeatures = 1;
	assert_int_equal(open_text(&p, good, &opts), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "unknown feature 'turbo' — the features of"));
	assert_non_null(strstr(fg_error_last(), "are: base, extra, all"));

	opts.nfeatures = 0;
	opts.build_profile = "fastest";
	assert_int_equal(open_text(&p, good, &opts), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "unknown profile 'fastest'"));
	assert_non_null(strstr(fg_error_last(), "release, dev, quick"));

	opts.build_profile = "quick";
	assert_int_equal(open_text(&p, good, &opts), 0);
	assert_non_null(strstr(fg_project_build_dir(p), "/build/flamegraph/quick"));
	fg_project_free(p);

	opts.build_profile = "release";
	opts.package = "other";
	assert_int_equal(open_text(&p, good, &opts), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "no package 'other'"));
}

static void command_system(void **state)
{
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	const fg_target *t = NULL;
	char want[512];

	(void)state;
	assert_int_equal(open_text(&p, PKG "[build]\nsystem = \"command\"\ncommand = \"make -j{jobs}\"\n"
					   "[[bin]]\nname = \"tool\"\npath = \"out/tool\"\n", &opts), 0);
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_BIN, "tool"), 0);
	snprintf(want, sizeof(want), "%s/out/tool", root);
	assert_string_equal(fg_target_exe(t), want);
	fg_project_free(p);
}

/* required-features, as in cargo: the target is listed with what it
 * needs, choosing it without the features says which to add, and with
 * them (or --all-features) it is chosen. */
static void required_features(void **state)
{
	static const char text[] = PKG
		"[[bin]]\nname = \"app\"\nsources = [\"app.c\"]\n"
		"[[bench]]\nname = \"fast\"\nsources = [\"f.c\"]\nrequired-features = [\"simd\", \"lto\"]\n"
		"[features]\nsimd = { defines = [\"SIMD\"] }\nlto = []\n";
	fg_project_opts opts = FG_PROJECT_OPTS_INIT;
	const char *simd[] = { "simd" }, *both[] = { "simd", "lto" };
	fg_project *p = NULL;
	const fg_target *t = NULL;
	char *list;

	(void)state;
	assert_int_equal(open_text(&p, text, &opts), 0);
	list = fg_project_describe(p);
	assert_non_null(strstr(list, "bench    fast (needs `opts.features` simd,lto)\n"));
	assert_non_null(strstr(list, "bin      app\n"));
	free(list);
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_BENCH, "fast"), FG_EINVAL);
	assert_null(t);
	assert_non_null(strstr(fg_error_last(), "bench 'fast' requires the features simd,lto"));
	assert_non_null(strstr(fg_error_last(), "add `opts.features` simd,lto"));
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_BIN, NULL), 0);
	fg_project_free(p);

	/* one of the two on: the other is still asked for */
	opts.features = simd;
	opts.nfeatures = 1;
	assert_int_equal(open_text(&p, text, &opts), 0);
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_BENCH, "fast"), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "requires the features lto,"));
	fg_project_free(p);

	opts.features = both;
	opts.nfeatures = 2;
	assert_int_equal(open_text(&p, text, &opts), 0);
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_BENCH, "fast"), 0);
	assert_string_equal(fg_target_name(t), "fast");
	fg_project_free(p);

	opts.features = NULL;
	opts.nfeatures = 0;
	opts.all_features = true;
	assert_int_equal(open_text(&p, text, &opts), 0);
	assert_int_equal(fg_project_select(&t, p, FG_TARGET_BENCH, NULL), 0);
	fg_project_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schema_errors),
		cmocka_unit_test(good_manifest),
		cmocka_unit_test(unknown_feature_and_profile),
		cmocka_unit_test(command_system),
		cmocka_unit_test(required_features),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
