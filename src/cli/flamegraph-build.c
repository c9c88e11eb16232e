/* flamegraph-build: find the project's manifest, build the chosen target
 * with debug info and frame pointers, profile it, write the graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/signals.h"
#include "cli/common/opts.h"
#include "cli/common/profile_opts.h"
#include "cli/common/target_run.h"
#include "flamegraph/build.h"
#include "flamegraph/error.h"
#include "flamegraph/manifest.h"

static struct {
	const char *bin, *example, *test, *bench, *unit_test, *package, *manifest;
	const char *profile, *build_dir, *compare, *perfdata, *list_names;
	bool unit_test_given, no_default, all_features, dev, release, list, compare_outputs;
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
	FG_OPT_NAMED('b', "bin", &o.bin, "NAME", "bin", "profile the bin target NAME"),
	FG_OPT_NAMED(0, "example", &o.example, "NAME", "example", "profile the example NAME"),
	FG_OPT_NAMED(0, "test", &o.test, "NAME", "test", "profile the CTest or Meson test, or test executable, NAME"),
	FG_OPT_NAMED(0, "bench", &o.bench, "NAME", "bench", "profile the bench (Meson: benchmark) NAME"),
	{ FG_OPT_CALLBACK_, 0, "unit-test", &o.unit_test, "NAME",
	  "run test executable NAME directly; arguments after -- are its test filter",
	  FG_OPTF_OPTARG, unit_test_cb, NULL, "unit-test" },
	FG_OPT_STRING('p', "package", &o.package, "NAME", "only the targets of sub-project NAME (CMake: an add_subdirectory project(); Meson: a subproject)"),
	FG_OPT_STRING(0, "manifest-path", &o.manifest, "PATH",
		      "flamegraph.toml, CMakeLists.txt, meson.build or compile_commands.json, or a folder holding one (a Meson build folder too)"),
	FG_OPT_BOOL(0, "list", &o.list, "list the targets by kind and exit"),
	FG_OPT_CHOICE(0, "list-names", &o.list_names, "KIND", "bin|test|bench|example|unit-test|feature|profile",
		      "print the project's names of KIND, one per line (for scripts and completions), and exit"),
	FG_OPT_GROUP("Build"),
	FG_OPT_LIST_NAMED('f', "features", &o.features, "A,B", "feature", "features to enable (CMake: BOOL options; Meson: boolean and feature options)"),
	FG_OPT_BOOL(0, "no-default-features", &o.no_default, "turn the default features off"),
	FG_OPT_BOOL(0, "all-features", &o.all_features, "turn every feature on"),
	FG_OPT_BOOL(0, "dev", &o.dev, "build with the dev profile (-O0 -g)"),
	FG_OPT_NAMED(0, "profile", &o.profile, "NAME", "profile", "build with profile NAME (default: release)"),
	FG_OPT_BOOL('r', "release", &o.release, "build with the release profile (the default)"),
	FG_OPT_STRING(0, "build-dir", &o.build_dir, "DIR", "build here (default: build/flamegraph/PROFILE)"),
	FG_OPT_LIST('D', "define", &o.defines, "NAME=VALUE", "set a CMake cache entry or Meson option (repeatable)"),
	FG_OPT_GROUP("Output"),
	FG_PROFILE_CLI_OUTPUT_ROWS(pc),
	FG_OPT_STRING(0, "perfdata", &o.perfdata, "FILE",
		      "render a kept recording (--perfdata-out) with new graph options; nothing is built or run"),
	FG_OPT_STRING(0, "compare", &o.compare, "REV",
		      "also build and profile git revision REV; write a differential graph (red: grew, blue: shrank)"),
	FG_OPT_BOOL(0, "compare-outputs", &o.compare_outputs,
		    "with --compare, also write the plain graphs OUTPUT.before.svg and OUTPUT.after.svg"),
	FG_OPT_GROUP("Recording"),
	FG_PROFILE_CLI_RECORD_ROWS(pc),
	FG_OPT_GROUP("Graph"),
	FG_PROFILE_CLI_RENDER_ROWS(pc),
	FG_OPT_END(),
};

static const fg_cli cli = {
	"flamegraph-build", "[OPTIONS] [--bin NAME | --test NAME | ...] [-- ARGS...]",
	"Builds a target of the C project around the current directory (CMake, "
	"Meson, flamegraph.toml or compile_commands.json) with debug info and frame "
	"pointers, profiles it with perf and writes flamegraph.svg.",
	FG_PROFILE_CLI_EXIT_HELP
	"\nExamples:\n  flamegraph-build --bin stress2 -- --rounds 20\n"
	"  flamegraph-build --unit-test unit_tests -- hash\n  flamegraph-build --list\n"
	"  flamegraph-build --test table_suite    (a CTest or Meson test: its command, env, folder)\n"
	"  flamegraph-build --compare main --bin stress2 -o diff.svg\n"
	"  flamegraph-build --bin stress2 --perfdata-out run.data\n"
	"  flamegraph-build --perfdata run.data --reverse -o reversed.svg\n",
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

/* --perfdata: the graph of a kept recording; no manifest, no build. */
static int render_perfdata(void)
{
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	int code;

	if (o.compare || o.list) {
		fg_errorf("--perfdata renders a recording; it cannot be combined with --%s",
			  o.compare ? "compare" : "list");
		return FG_EXIT_USAGE;
	}
	if ((code = fg_profile_cli_apply(&po, &pc)))
		return code;
	po.perfdata = o.perfdata;
	return fg_profile_cli_run(&po, &pc);
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

int cmd_flamegraph_build(int argc, char **argv)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_project_opts po = FG_PROJECT_OPTS_INIT;
	fg_project *p = NULL;
	const fg_target *t = NULL;
	fg_build_result br = FG_BUILD_RESULT_INIT;
	fg_strlist feats = FG_STRLIST_INIT;
	fg_target_run tr = { &pc, false, NULL, 0, select_target };
	char *keep[64] = { 0 };
	int npos = 0, dashdash = 0, r, code = 0;

	fg_diag_init(cli.prog);
	fg_cli_signals_init();
	if ((r = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)))
		return r == FG_OPTS_EXIT ? 0 : FG_EXIT_USAGE;
	if (o.unit_test_given && !o.unit_test && dashdash == 1)
		o.unit_test = argv[0];
	else if (dashdash > 0) {
		fg_errorf("unexpected argument '%s' — program arguments go after --", argv[0]);
		return FG_EXIT_USAGE;
	}
	if (o.perfdata) {
		if (dashdash > 0 || npos > 0) {
			fg_errorf("--perfdata renders a recording: program arguments ('%s') have no use",
				  argv[0]);
			return FG_EXIT_USAGE;
		}
		code = render_perfdata();
		fg_profile_cli_release(&pc);
		return code;
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
	if (o.list || o.list_names) {
		char *text = o.list_names ? fg_project_names(p, o.list_names) : fg_project_describe(p);
		if (!text)
			code = fg_die_lib(FG_ENOMEM);
		fputs(text ? text : "", stdout);
		free(text);
		goto done;
	}
	if ((r = select_target(&t, p)) || (r = fg_project_build(p, t, &br))) {
		code = fg_die_lib(r);
		goto done;
	}
	tr.args = argv + dashdash;
	tr.nargs = npos - dashdash;
	tr.unit_test = o.unit_test_given;
	if (o.compare)
		code = fg_target_run_compare(&tr, &(fg_compare_req){ o.compare, o.compare_outputs,
				o.build_dir }, p, t, &loc, &po);
	else
		code = fg_target_run_profile(&tr, p, t, &(fg_run_out){ 0 });
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
