/* flamegraph-build: find the project's manifest, build the chosen target
 * with debug info and frame pointers, profile it, write the graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common/diag.h"
#include "cli/common/opts.h"
#include "cli/common/profile_opts.h"
#include "flamegraph/build.h"
#include "flamegraph/error.h"
#include "flamegraph/git.h"
#include "flamegraph/manifest.h"
#include "flamegraph/profile.h"

static struct {
	const char *bin, *example, *test, *bench, *unit_test, *package, *manifest;
	const char *profile, *build_dir;
	bool unit_test_given, no_default, all_features, dev, release, list;
	fg_strlist features, defines;
} o;
static fg_profile_cli pc = FG_PROFILE_CLI_INIT;

static int unit_test_cb(const fg_option *opt, const char *arg, void *target)
{
	(void)opt;
	o.unit_test_given = true;
	*(const char **)target = arg;
	return 0;
}

static const fg_option options[] = {
	FG_OPT_GROUP("Target selection"),
	FG_OPT_STRING('b', "bin", &o.bin, "NAME", "profile the bin target NAME"),
	FG_OPT_STRING(0, "example", &o.example, "NAME", "profile the example NAME"),
	FG_OPT_STRING(0, "test", &o.test, "NAME", "profile the CTest test or test executable NAME"),
	FG_OPT_STRING(0, "bench", &o.bench, "NAME", "profile the bench NAME"),
	{ FG_OPT_CALLBACK_, 0, "unit-test", &o.unit_test, "NAME",
	  "run test executable NAME directly; arguments after -- are its test filter",
	  FG_OPTF_OPTARG, unit_test_cb, NULL },
	FG_OPT_STRING('p', "package", &o.package, "NAME", "the sub-project to use"),
	FG_OPT_STRING(0, "manifest-path", &o.manifest, "PATH",
		      "flamegraph.toml, CMakeLists.txt, compile_commands.json or a folder"),
	FG_OPT_BOOL(0, "list", &o.list, "list the targets by kind and exit"),
	FG_OPT_GROUP("Build"),
	FG_OPT_LIST('f', "features", &o.features, "A,B", "features to enable (CMake: BOOL options)"),
	FG_OPT_BOOL(0, "no-default-features", &o.no_default, "turn the default features off"),
	FG_OPT_BOOL(0, "all-features", &o.all_features, "turn every feature on"),
	FG_OPT_BOOL(0, "dev", &o.dev, "build with the dev profile (-O0 -g)"),
	FG_OPT_STRING(0, "profile", &o.profile, "NAME", "build with profile NAME (default: release)"),
	FG_OPT_BOOL('r', "release", &o.release, "build with the release profile (the default)"),
	FG_OPT_STRING(0, "build-dir", &o.build_dir, "DIR", "build here (default: build/flamegraph/PROFILE)"),
	FG_OPT_LIST('D', "define", &o.defines, "NAME=VALUE", "set a CMake cache entry (repeatable)"),
	FG_OPT_GROUP("Output"),
	FG_PROFILE_CLI_OUTPUT_ROWS(pc),
	FG_OPT_GROUP("Recording"),
	FG_PROFILE_CLI_RECORD_ROWS(pc),
	FG_OPT_GROUP("Graph"),
	FG_PROFILE_CLI_RENDER_ROWS(pc),
	FG_OPT_END(),
};

static const fg_cli cli = {
	"flamegraph-build", "[OPTIONS] [--bin NAME | --test NAME | ...] [-- ARGS...]",
	"Builds a target of the C project around the current directory (CMake, "
	"flamegraph.toml or compile_commands.json) with debug info and frame "
	"pointers, profiles it with perf and writes flamegraph.svg.",
	"Examples:\n  flamegraph-build --bin stress2 -- --rounds 20\n"
	"  flamegraph-build --unit-test unit_tests -- hash\n  flamegraph-build --list\n",
	options, true, false,
};

static void note(void *ctx, const char *line)
{
	(void)ctx;
	fg_notef("%s", line);
}

/* --features a,b -f c: split at commas into one list. */
static void split_features(fg_strlist *out, char **keep)
{
	for (size_t i = 0; i < o.features.count; i++) {
		char *copy = strdup(o.features.items[i]), *s = copy, *comma;
		keep[i] = copy;
		for (; s && *s; s = comma ? comma + 1 : NULL) {
			if ((comma = strchr(s, ',')))
				*comma = '\0';
			if (*s)
				fg_strlist_push(out, s);
		}
	}
}

static int select_target(const fg_target **t, const fg_project *p)
{
	if (o.bin) return fg_project_select(t, p, FG_TARGET_BIN, o.bin);
	if (o.example) return fg_project_select(t, p, FG_TARGET_EXAMPLE, o.example);
	if (o.bench) return fg_project_select(t, p, FG_TARGET_BENCH, o.bench);
	if (o.test) return fg_project_select(t, p, FG_TARGET_TEST, o.test);
	if (o.unit_test_given) return fg_project_select_unit(t, p, o.unit_test);
	return fg_project_select(t, p, FG_TARGET_BIN, NULL);
}

/* Output paths given relative to where the user ran us, made absolute
 * before moving into the test's working directory. */
static const char *absolute(const char *path, const char *here, char **keep)
{
	size_t n;

	if (!path || path[0] == '/' || !strcmp(path, "-") || !here)
		return path;
	n = strlen(here) + strlen(path) + 2;
	if (!(*keep = malloc(n)))
		return path;
	snprintf(*keep, n, "%s/%s", here, path);
	return *keep;
}

static int profile(const fg_project *p, const fg_target *t, char **args, int nargs)
{
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	fg_run_spec spec = FG_RUN_SPEC_INIT;
	fg_git_info gi = FG_GIT_INFO_INIT;
	char subtitle[512], *here = NULL, *keep[3] = { NULL, NULL, NULL };
	int err, code;

	/* a flamegraph.toml test says how it takes a filter; guessing would
	 * hand it an argument it may reject or misread */
	if (o.unit_test_given && nargs && !fg_target_filter(t) && fg_project_type(p) == FG_MANIFEST_TOML) {
		fg_errorf("test '%s' declares no filter — add filter = \"--filter={}\" (its own "
			  "syntax) to its [[test]] entry in flamegraph.toml, or run it without one",
			  fg_target_name(t));
		return FG_EXIT_USAGE;
	}
	if ((code = fg_profile_cli_apply(&po, &pc)))
		return code;
	if ((err = fg_target_run_spec(&spec, t, (const char *const *)args, (size_t)nargs, o.unit_test_given)))
		return fg_die_lib(err);
	if (fg_target_is_ctest(t))
		fg_notef("profiling CTest test %s: %s (perf follows its child processes)",
			 fg_target_name(t), spec.argv[0]);
	/* the workload runs where its test says, with its environment; the
	 * outputs stay where the user asked for them */
	if (spec.cwd) {
		here = realpath(".", NULL);
		po.output = absolute(po.output ? po.output : "flamegraph.svg", here, &keep[0]);
		po.folded_out = absolute(po.folded_out, here, &keep[1]);
		po.perfdata_out = absolute(po.perfdata_out, here, &keep[2]);
	}
	for (size_t i = 0; i < spec.nenv; i++) {
		char *eq = strchr(spec.env[i], '=');
		if (eq) {
			*eq = '\0';
			setenv(spec.env[i], eq + 1, 1);
			*eq = '=';
		}
	}
	if (spec.cwd && chdir(spec.cwd) != 0) {
		fg_errorf("cannot enter %s, the working directory of test %s — check its "
			  "WORKING_DIRECTORY", spec.cwd, fg_target_name(t));
		code = FG_EXIT_USAGE;
		goto done;
	}
	po.argv = (const char *const *)spec.argv;
	po.argc = spec.argc;
	if (!po.render.subtitle && fg_git_provenance(&gi, fg_project_root(p)) == 0) {
		fg_git_info_format(subtitle, sizeof(subtitle), &gi);
		po.render.subtitle = subtitle;
	}
	fg_error_clear();
	code = fg_profile_cli_run(&po, &pc);
done:
	fg_git_info_release(&gi);
	for (size_t i = 0; i < 3; i++)
		free(keep[i]);
	free(here);
	fg_run_spec_release(&spec);
	return code;
}

int cmd_flamegraph_build(int argc, char **argv)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project_opts po = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	const fg_target *t = NULL;
	fg_build_result br = FG_BUILD_RESULT_INIT;
	fg_strlist feats = FG_STRLIST_INIT;
	char *keep[64] = { 0 };
	int npos = 0, dashdash = 0, r, code = 0;

	fg_diag_init(cli.prog);
	if ((r = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)))
		return r == FG_OPTS_EXIT ? 0 : FG_EXIT_USAGE;
	if (o.unit_test_given && !o.unit_test && dashdash == 1)
		o.unit_test = argv[0];
	else if (dashdash > 0) {
		fg_errorf("unexpected argument '%s' — program arguments go after --", argv[0]);
		return FG_EXIT_USAGE;
	}
	if (o.features.count > 64) { fg_errorf("too many --features options"); return FG_EXIT_USAGE; }
	split_features(&feats, keep);
	po.profile = o.profile ? o.profile : o.dev ? "dev" : "release";
	po.build_dir = o.build_dir;
	po.package = o.package;
	po.features = feats.items;
	po.nfeatures = feats.count;
	po.no_default_features = o.no_default;
	po.all_features = o.all_features;
	po.defines = o.defines.items;
	po.ndefines = o.defines.count;
	po.cc = getenv("CC");
	po.cflags = getenv("CFLAGS");
	po.ldflags = getenv("LDFLAGS");
	po.verbose = pc.verbose;
	po.note = note;
	if ((r = fg_manifest_find(&loc, o.manifest ? o.manifest : ".", o.manifest != NULL)) ||
	    (r = fg_project_open(&p, &loc, &po))) {
		code = fg_die_lib(r);
		goto done;
	}
	if (o.list) {
		char *text = fg_project_describe(p);
		fputs(text ? text : "", stdout);
		free(text);
		goto done;
	}
	if ((r = select_target(&t, p)) || (r = fg_project_build(p, t, &br))) {
		code = fg_die_lib(r);
		goto done;
	}
	code = profile(p, t, argv + dashdash, npos - dashdash);
done:
	fg_project_free(p);
	fg_manifest_loc_release(&loc);
	fg_strlist_release(&feats);
	fg_profile_cli_release(&pc);
	for (size_t i = 0; i < 64; i++)
		free(keep[i]);
	return code;
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_build(argc, argv);
}
