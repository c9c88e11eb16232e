/* flamegraph-build: find the project's manifest, build the chosen target
 * with debug info and frame pointers, profile it, write the graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/memory.h"
#include "cli/common/gate.h"
#include "cli/common/signals.h"
#include "cli/common/opts.h"
#include "cli/common/profile_opts.h"
#include "flamegraph/build.h"
#include "flamegraph/error.h"
#include "flamegraph/manifest.h"
#include "flamegraph/pipeline.h"

static struct {
	const char *bin, *example, *test, *bench, *unit_test, *manifest;
	const char *profile, *perfdata, *list_names;
	bool unit_test_given, dev, release, list;
	fg_strlist features, defines;
} o;
static fg_profile_cli pc = FG_PROFILE_CLI_INIT;
static fg_project_opts proj = FG_PROJECT_OPTS_INIT;            /* the rows fill */
static fg_pipeline_compare_opts cmp = FG_PIPELINE_COMPARE_OPTS_INIT; /* these two */
static fg_gate_cli gate = FG_GATE_CLI_INIT;                     /* --compare's gate */
static long long repeat = -1;                                   /* -1: not given */

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
	FG_OPT_STRING('p', "package", &proj.package, "NAME", "only the targets of sub-project NAME (CMake: an add_subdirectory project(); Meson: a subproject)"),
	FG_OPT_STRING(0, "manifest-path", &o.manifest, "PATH",
		      "flamegraph.toml, CMakeLists.txt, meson.build, configure(.ac), Makefile or compile_commands.json, or a folder holding one (a Meson build folder too)"),
	FG_OPT_BOOL(0, "list", &o.list, "list the targets by kind and exit"),
	FG_OPT_CHOICE(0, "list-names", &o.list_names, "KIND", "bin|test|bench|example|unit-test|feature|profile",
		      "print the project's names of KIND, one per line (for scripts and completions), and exit"),
	FG_OPT_GROUP("Build"),
	FG_OPT_LIST_NAMED('f', "features", &o.features, "A,B", "feature", "features to enable (CMake: BOOL options; Meson: boolean and feature options; autotools: --enable-A)"),
	FG_OPT_BOOL(0, "no-default-features", &proj.no_default_features, "turn the default features off"),
	FG_OPT_BOOL(0, "all-features", &proj.all_features, "turn every feature on"),
	FG_OPT_BOOL(0, "dev", &o.dev, "build with the dev profile (-O0 -g)"),
	FG_OPT_NAMED(0, "profile", &o.profile, "NAME", "profile", "build with profile NAME (default: release)"),
	FG_OPT_BOOL('r', "release", &o.release, "build with the release profile (the default)"),
	FG_OPT_STRING(0, "build-dir", &proj.build_dir, "DIR", "build here (default: build/flamegraph/PROFILE)"),
	FG_OPT_LIST('D', "define", &o.defines, "NAME=VALUE", "set a CMake cache entry, Meson option or configure option --NAME=VALUE (repeatable)"),
	FG_OPT_GROUP("Output"),
	FG_PROFILE_CLI_OUTPUT_ROWS(pc),
	FG_OPT_STRING(0, "perfdata", &o.perfdata, "FILE",
		      "render a kept recording (--perfdata-out) with new graph options; nothing is built or run"),
	FG_OPT_STRING(0, "compare", &cmp.rev, "REV",
		      "also build and profile git revision REV; write a differential graph (red: grew, blue: shrank)"),
	FG_OPT_BOOL(0, "compare-outputs", &cmp.side_outputs,
		    "with --compare, also write the plain graphs OUTPUT.before.svg and OUTPUT.after.svg"),
	FG_GATE_CLI_ROWS(gate),
	FG_OPT_INT(0, "repeat", &repeat, "N", "with --compare, profile each side N times, interleaved (before, after, before...) (default: 5 with --fail-above, else 1; 1 with --alloc)"),
	FG_OPT_GROUP("Recording"),
	FG_PROFILE_CLI_RECORD_ROWS(pc),
	FG_OPT_GROUP("Graph"),
	FG_PROFILE_CLI_RENDER_ROWS(pc),
	FG_OPT_END(),
};

static const fg_cli cli = {
	"flamegraph-build", "[OPTIONS] [--bin NAME | --test NAME | ...] [-- ARGS...]",
	"Builds a target of the C project around the current directory (found in "
	"this order: flamegraph.toml, CMake, Meson, autotools, a plain Makefile, "
	"compile_commands.json) with debug info and frame pointers, profiles it "
	"with perf and writes flamegraph.svg.",
	FG_PROFILE_CLI_EXIT_HELP
	"\nExamples:\n  flamegraph-build --bin stress2 -- --rounds 20\n"
	"  flamegraph-build --unit-test unit_tests -- hash\n  flamegraph-build --list\n"
	"  flamegraph-build --test table_suite    (a CTest or Meson test: its command, env, folder)\n"
	"  flamegraph-build --compare main --bin stress2 -o diff.svg\n"
	"  flamegraph-build --compare main --fail-above 5 --report md --report-out gate.md --bin stress2\n"
	"  flamegraph-build --bin stress2 --alloc=peak -o heap.svg   (memory, no perf)\n"
	"  flamegraph-build --bin stress2 --perfdata-out run.data\n"
	"  flamegraph-build --perfdata run.data --reverse -o reversed.svg\n",
	options, true, false,
};

static void note(void *ctx, const char *line)
{
	(void)ctx;
	fg_notef("%s", line);
}

/* --perfdata: the graph of a kept recording; no manifest, no build. */
static int render_perfdata(int npos, int dashdash, char **argv)
{
	fg_profile_opts po = FG_PROFILE_OPTS_INIT;
	int code;

	if (cmp.rev || o.list || dashdash > 0 || npos > 0) {
		fg_errorf(dashdash > 0 || npos > 0 ? "--perfdata renders a recording: program "
			  "arguments ('%s') have no use" : "--perfdata renders a recording; it cannot "
			  "be combined with --%s", dashdash > 0 || npos > 0 ? argv[0] :
			  cmp.rev ? "compare" : "list");
		return FG_EXIT_USAGE;
	}
	if ((code = fg_profile_cli_apply(&po, &pc)))
		return code;
	po.perfdata = o.perfdata;
	return fg_profile_cli_run(&po, &pc);
}

/* The target the selection options name (the first of them). */
static fg_pipeline_target chosen(void)
{
	const struct { const char *name; fg_target_kind kind; } k[] = {
		{ o.bin, FG_TARGET_BIN }, { o.example, FG_TARGET_EXAMPLE },
		{ o.bench, FG_TARGET_BENCH }, { o.test, FG_TARGET_TEST },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (k[i].name)
			return (fg_pipeline_target){ .kind = k[i].kind, .name = k[i].name };
	return (fg_pipeline_target){ .kind = FG_TARGET_BIN, .name = o.unit_test,
				     .unit_test = o.unit_test_given };
}

/* Whether the folded weights are nanoseconds of CPU time: perf's
 * cpu-clock, which a custom command or an off-CPU mode replaces. */
static bool weights_are_ns(const fg_profile_opts *po)
{
	return po->record.recorder == FG_RECORDER_PERF && !po->record.custom &&
	       po->record.mode == FG_RECORD_ON_CPU;
}

static int compare(const fg_pipeline_opts *pl, const fg_project *p, const fg_target *t,
		   const fg_manifest_loc *loc)
{
	fg_folded **before = NULL, **after = NULL;
	int r, code = 0;

	cmp.build_dir = proj.build_dir;
	cmp.loc = loc;
	cmp.project = &proj;
	/* a gate judges several runs a side, but allocation counts are the
	 * same every run: one is enough */
	cmp.repeat = repeat > 0 ? (size_t)repeat : gate.fail_above && !pc.alloc.on ? 5 : 1;
	if (fg_gate_cli_wanted(&gate)) {
		cmp.before_out = &before;
		cmp.after_out = &after;
	}
	fg_profile_cli_compare_hooks(&cmp, &pc);
	if ((r = fg_pipeline_compare(pl, &cmp, p, t)))
		return r > 0 ? r : fg_die_lib(r);
	fg_profile_cli_open_graph(&pl->profile, &pc);
	/* the gate judges the runs once the graph is written */
	if (before && after &&
	    (r = fg_gate_cli_run(&gate, before, cmp.repeat, after, cmp.repeat,
				 weights_are_ns(&pl->profile), &code)))
		code = fg_die_lib(r);
	fg_pipeline_runs_free(before, cmp.repeat);
	fg_pipeline_runs_free(after, cmp.repeat);
	return code;
}

static int profile(const fg_pipeline_opts *pl, const fg_project *p, const fg_target *t)
{
	fg_pipeline_job job = FG_PIPELINE_JOB_INIT;
	int r = fg_pipeline_job_init(&job, pl, p, t);
	int code = r ? fg_die_lib(r) : fg_profile_cli_run(&job.profile, &pc);

	fg_pipeline_job_release(&job);
	return code;
}

int cmd_flamegraph_build(int argc, char **argv)
{
	fg_manifest_loc loc = FG_MANIFEST_LOC_INIT;
	fg_pipeline_opts pl = FG_PIPELINE_OPTS_INIT;
	fg_project *p = NULL;
	const fg_target *t = NULL;
	fg_build_result br = FG_BUILD_RESULT_INIT;
	fg_strlist feats = FG_STRLIST_INIT;
	int npos = 0, dashdash = 0, r, code = 0;

	fg_diag_init(cli.prog);
	fg_cli_signals_init();
	if ((r = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)))
		return r == FG_OPTS_EXIT ? 0 : FG_EXIT_USAGE;
	if (o.unit_test_given && !o.unit_test && dashdash == 1) {
		o.unit_test = argv[0];
	} else if (dashdash > 0) {
		fg_errorf("unexpected argument '%s' — program arguments go after --", argv[0]);
		return FG_EXIT_USAGE;
	}
	if (o.perfdata) {
		code = render_perfdata(npos, dashdash, argv);
		goto done;
	}
	if (o.release && (o.dev || (o.profile && strcmp(o.profile, "release")))) {
		fg_errorf("-r/--release and %s%s ask for two profiles — give one of them",
			  o.dev ? "--dev" : "--profile ", o.dev ? "" : o.profile);
		code = FG_EXIT_USAGE;
		goto done;
	}
	if ((code = fg_profile_cli_apply(&pl.profile, &pc)))
		goto done;
	if ((fg_gate_cli_wanted(&gate) || repeat != -1) && !cmp.rev) {
		fg_errorf("--fail-above, --gate-on, --watch, --report and --repeat need a comparison — "
			  "add --compare REV");
		code = FG_EXIT_USAGE;
		goto done;
	}
	if (repeat != -1 && (repeat < 1 || repeat > 1000)) {
		fg_errorf("--repeat: %lld is not a number of runs — give 1 to 1000 (5 is the default "
			  "with --fail-above)", repeat);
		code = FG_EXIT_USAGE;
		goto done;
	}
	if (fg_gate_cli_apply(&gate)) {
		code = FG_EXIT_USAGE;
		goto done;
	}
	if (fg_strlist_split_commas(&feats, &o.features)) {
		code = fg_die_lib(FG_ENOMEM);
		goto done;
	}
	proj.profile = o.profile ? o.profile : o.dev ? "dev" : "release";
	proj.features = feats.items;
	proj.nfeatures = feats.count;
	proj.defines = o.defines.items;
	proj.ndefines = o.defines.count;
	proj.cc = getenv("CC");
	proj.cflags = getenv("CFLAGS");
	proj.ldflags = getenv("LDFLAGS");
	proj.verbose = pc.verbose;
	proj.note = note;
	pl.target = chosen();
	if ((r = fg_manifest_find(&loc, o.manifest ? o.manifest : ".", o.manifest != NULL)) ||
	    (r = fg_project_open(&p, &loc, &proj))) {
		code = fg_die_lib(r);
		goto done;
	}
	if (o.list || o.list_names) {
		char *text = o.list_names ? fg_project_names(p, o.list_names) : fg_project_describe(p);
		char *said = text ? fg_cli_words(text) : NULL;
		if (!said)
			code = fg_die_lib(FG_ENOMEM);
		fputs(said ? said : "", stdout);
		free(said);
		free(text);
		goto done;
	}
	if ((r = fg_pipeline_select(&t, p, &pl.target)) || (r = fg_project_build(p, t, &br))) {
		code = fg_die_lib(r);
		goto done;
	}
	pl.args = (const char *const *)argv + dashdash;
	pl.nargs = (size_t)(npos - dashdash);
	code = cmp.rev ? compare(&pl, p, t, &loc) : profile(&pl, p, t);
done:
	fg_project_free(p);
	fg_manifest_loc_release(&loc);
	fg_strlist_release(&feats);
	fg_profile_cli_release(&pc);
	fg_gate_cli_release(&gate);
	return code;
}

int main(int argc, char **argv)
{
	fg_cli_tune_memory();
	return cmd_flamegraph_build(argc, argv);
}
