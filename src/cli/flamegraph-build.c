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
#include "flamegraph/error.h"
#include "flamegraph/pipeline.h"

static struct {
	const char *bin, *example, *test, *bench, *unit_test, *unit_bench, *manifest;
	const char *profile, *perfdata, *list_names;
	const char *tests, *benches; /* --tests[=REGEX], --benches[=REGEX] */
	bool unit_test_given, unit_bench_given, dev, release, list, tests_given, benches_given;
	fg_strlist features, defines;
} o;
static fg_profile_cli pc = FG_PROFILE_CLI_INIT;
static fg_build_and_profile_opts bo;                            /* the rows fill its
								   project and compare */
static fg_gate_cli gate = FG_GATE_CLI_INIT;                     /* --compare's gate */
static long long repeat = -1;                                   /* -1: not given */
static long long max_repeat = -1;                               /* -1: not given */

static int unit_test_cb(const fg_option *opt, const char *arg, void *target)
{
	(void)opt;
	o.unit_test_given = true;
	*(const char **)target = arg;
	return 0;
}

static int unit_bench_cb(const fg_option *opt, const char *arg, void *target)
{
	(void)opt;
	o.unit_bench_given = true;
	*(const char **)target = arg;
	return 0;
}

/* --tests[=REGEX], --benches[=REGEX]: given, with or without a pattern */
static int suite_cb(const fg_option *opt, const char *arg, void *target)
{
	if (target == &o.tests)
		o.tests_given = true;
	else
		o.benches_given = true;
	(void)opt;
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
	{ FG_OPT_CALLBACK_, 0, "unit-bench", &o.unit_bench, "NAME",
	  "run bench executable NAME directly; arguments after -- are its filter",
	  FG_OPTF_OPTARG, unit_bench_cb, NULL, "unit-bench" },
	{ FG_OPT_CALLBACK_, 0, "tests", &o.tests, "REGEX",
	  "profile every test (whose name matches REGEX) in turn into one folder: -o DIR "
	  "(default flamegraph-tests) gets a graph per test, all.svg, index.html and summary.json",
	  FG_OPTF_OPTARG, suite_cb, NULL, "test" },
	{ FG_OPT_CALLBACK_, 0, "benches", &o.benches, "REGEX",
	  "the same for every bench (Meson: benchmark) whose name matches REGEX",
	  FG_OPTF_OPTARG, suite_cb, NULL, "bench" },
	FG_OPT_STRING('p', "package", &bo.project.package, "NAME", "only the targets of sub-project NAME (CMake: an add_subdirectory project(); Meson: a subproject)"),
	FG_OPT_STRING(0, "manifest-path", &o.manifest, "PATH",
		      "flamegraph.toml, CMakeLists.txt, meson.build, configure(.ac), Makefile or compile_commands.json, or a folder holding one (a Meson build folder too)"),
	FG_OPT_BOOL(0, "list", &o.list, "list the targets by kind and exit"),
	FG_OPT_CHOICE(0, "list-names", &o.list_names, "KIND", "bin|test|bench|example|unit-test|unit-bench|feature|profile",
		      "print the project's names of KIND, one per line (for scripts and completions), and exit"),
	FG_OPT_GROUP("Build"),
	FG_OPT_LIST_NAMED('f', "features", &o.features, "A,B", "feature", "features to enable (CMake: BOOL options; Meson: boolean and feature options; autotools: --enable-A)"),
	FG_OPT_BOOL(0, "no-default-features", &bo.project.no_default_features, "turn the default features off"),
	FG_OPT_BOOL(0, "all-features", &bo.project.all_features, "turn every feature on"),
	FG_OPT_BOOL(0, "dev", &o.dev, "build with the dev profile (-O0 -g)"),
	FG_OPT_NAMED(0, "profile", &o.profile, "NAME", "profile", "build with profile NAME (default: release)"),
	FG_OPT_BOOL('r', "release", &o.release, "build with the release profile (the default)"),
	FG_OPT_STRING(0, "build-dir", &bo.project.build_dir, "DIR", "build here (default: build/flamegraph/PROFILE, or SYSTEM/PROFILE when another build system is found first)"),
	FG_OPT_LIST('D', "define", &o.defines, "NAME=VALUE", "set a CMake cache entry, Meson option, configure option --NAME=VALUE or plain-Make variable (repeatable)"),
	FG_OPT_GROUP("Output"),
	FG_PROFILE_CLI_OUTPUT_ROWS(pc),
	FG_OPT_STRING(0, "perfdata", &o.perfdata, "FILE",
		      "render a kept recording (--perfdata-out) with new graph options; nothing is built or run"),
	FG_OPT_STRING(0, "compare", &bo.compare.rev, "REV",
		      "also build and profile git revision REV; write a differential graph (red: grew, blue: shrank)"),
	FG_OPT_BOOL(0, "compare-outputs", &bo.compare.side_outputs,
		    "with --compare, also write the plain graphs OUTPUT.before.svg and OUTPUT.after.svg beside -o's file (not stdout, a device or FIFO)"),
	FG_GATE_CLI_ROWS(gate),
	FG_OPT_INT(0, "repeat", &repeat, "N", "with --compare, profile each side N times, interleaved (before, after, before...) (default: 5 with --fail-above, else 1; 1 with --alloc, unless sampled). N runs a side see a change of X% in a function whose time varies by cv a run when X > 4*cv*sqrt(2/N): 5 runs of 0.3 s (cv 2%) catch 15% at --fail-above 5 and pass an unchanged tree at 2%"),
	FG_OPT_INT(0, "max-repeat", &max_repeat, "N", "with --fail-above, when the runs cannot yet tell a change over the threshold from noise (its p-value between 0.001 and 0.2), run --repeat more a side, up to N a side in all, and judge again (default: twice --repeat; the same as --repeat: judge the first runs only)"),
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
	"(with the kernel's perf events, or perf; DTrace on macOS/BSD) and writes "
	"flamegraph.svg.",
	FG_BUILD_CLI_EXIT_HELP
	"\nExamples:\n  flamegraph-build --bin stress2 -- --rounds 20\n"
	"  flamegraph-build --unit-test unit_tests -- hash\n"
	"  flamegraph-build --unit-bench bench_hash -- 3   (its filter, after its own arguments)\n"
	"  flamegraph-build --list\n"
	"  flamegraph-build --test table_suite    (a CTest or Meson test: its command, env, folder)\n"
	"  flamegraph-build --tests -o suite      (every test: suite/index.html, a graph each)\n"
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

/* --list, --list-names: the library's words said with our flags */
static void print_text(void *ctx, const char *text)
{
	char *said = fg_cli_words(text);

	(void)ctx;
	fputs(said ? said : text, stdout);
	free(said);
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
	if (o.unit_bench_given)
		return (fg_pipeline_target){ .kind = FG_TARGET_BENCH, .name = o.unit_bench,
					     .unit_bench = true };
	return (fg_pipeline_target){ .kind = FG_TARGET_BIN, .name = o.unit_test,
				     .unit_test = o.unit_test_given };
}

/* Two of --bin, --example, --bench, --test, --unit-test and --unit-bench
 * name two targets: a usage error (0 or the exit code). */
static int check_one_target(void)
{
	const struct { bool given; const char *flag; } k[] = {
		{ o.bin != NULL, "--bin" }, { o.example != NULL, "--example" },
		{ o.bench != NULL, "--bench" }, { o.test != NULL, "--test" },
		{ o.unit_test_given, "--unit-test" }, { o.unit_bench_given, "--unit-bench" },
		{ o.tests_given, "--tests" }, { o.benches_given, "--benches" },
	};
	const char *first = NULL;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (!k[i].given)
			continue;
		if (first) {
			fg_errorf("%s and %s name two targets — give one of them", first, k[i].flag);
			return FG_EXIT_USAGE;
		}
		first = k[i].flag;
	}
	return 0;
}

/* The options that contradict each other or need another; 0 or the exit
 * code after a usage error. */
static int check_usage(int npos, int dashdash, char **argv)
{
	if (o.perfdata && (bo.compare.rev || o.list || dashdash > 0 || npos > 0)) {
		fg_errorf(dashdash > 0 || npos > 0 ? "--perfdata renders a recording: program "
			  "arguments ('%s') have no use" : "--perfdata renders a recording; it cannot "
			  "be combined with --%s", dashdash > 0 || npos > 0 ? argv[0] :
			  bo.compare.rev ? "compare" : "list");
		return FG_EXIT_USAGE;
	}
	if (o.perfdata)
		return 0;
	if (o.release && (o.dev || (o.profile && strcmp(o.profile, "release")))) {
		fg_errorf("-r/--release and %s%s ask for two profiles — give one of them",
			  o.dev ? "--dev" : "--profile ", o.dev ? "" : o.profile);
		return FG_EXIT_USAGE;
	}
	return 0;
}

/* What a suite's run cannot take: 0 or the exit code after a usage
 * error. */
static int check_suite(int npos, int dashdash)
{
	const char *flag = o.tests_given ? "--tests" : "--benches";
	const char *bad = o.list || o.list_names ? "--list" : o.perfdata ? "--perfdata" :
			  pc.perfdata_out ? "--perfdata-out" : pc.folded ? "--folded" :
			  pc.open ? "--open" : pc.format && strcmp(pc.format, "svg") && strcmp(pc.format, "html") ?
			  "--format" : NULL;

	if (!o.tests_given && !o.benches_given)
		return 0;
	if (bad) {
		fg_errorf("%s writes a graph and folded stacks per test into one folder: it cannot be "
			  "combined with %s", flag, bad);
		return FG_EXIT_USAGE;
	}
	if (npos - dashdash > 0) {
		fg_errorf("%s runs each test as its build system does: program arguments have no "
			  "use — give one test (--test NAME -- ARGS) to pass them", flag);
		return FG_EXIT_USAGE;
	}
	if (pc.output && !strcmp(pc.output, "-")) {
		fg_errorf("%s writes a folder: -o - (stdout) cannot hold it — give -o DIR", flag);
		return FG_EXIT_USAGE;
	}
	return 0;
}

/* The suite's outcome as an exit status (man page, EXIT STATUS). */
static int suite_done(int r, const fg_suite_result *res)
{
	if (r < 0)
		return fg_die_lib(r);
	fg_notef("%zu %s%s%s: %zu passed, %zu failed, %zu too short to sample, %zu not profiled; "
		 "the index: %s/index.html", res->tests, o.tests_given ? "test" : "bench",
		 res->tests == 1 ? "" : o.tests_given ? "s" : "es",
		 res->interrupted ? " (interrupted)" : "", res->passed,
		 res->failed, res->no_samples, res->errors, pc.output ? pc.output : "flamegraph-tests");
	if (res->interrupted)
		return 128 + res->interrupt_signal;
	if (res->errors)
		return FG_EXIT_BUILD;
	if (res->failed)
		return FG_EXIT_WORKLOAD;
	return res->gate_failed ? FG_EXIT_REGRESSION : FG_EXIT_OK;
}

/* --compare's gate as the options say (after fg_gate_cli_apply): the
 * table to stderr or --report-out. */
static void gate_opts(void)
{
	bo.gate = fg_gate_cli_wanted(&gate);
	bo.gate_opts = gate.opts;
	bo.report_format =
	    gate.report && !strcmp(gate.report, "md") ? FG_REGRESS_MARKDOWN : FG_REGRESS_TEXT;
	bo.report_top = (size_t)gate.top;
	bo.report_out = gate.report_out;
	bo.report_stream = stderr;
}

static int check_compare(void)
{
	if ((fg_gate_cli_wanted(&gate) || repeat != -1 || max_repeat != -1) && !bo.compare.rev) {
		fg_errorf("--fail-above, --gate-on, --watch, --report, --repeat and --max-repeat need a "
			  "comparison — add --compare REV");
		return FG_EXIT_USAGE;
	}
	if (repeat != -1 && (repeat < 1 || repeat > 1000)) {
		fg_errorf("--repeat: %lld is not a number of runs — give 1 to 1000 (5 is the default "
			  "with --fail-above)", repeat);
		return FG_EXIT_USAGE;
	}
	if (max_repeat != -1 && (max_repeat < 1 || max_repeat > 1000)) {
		fg_errorf("--max-repeat: %lld is not a number of runs — give 1 to 1000 (twice "
			  "--repeat is the default)", max_repeat);
		return FG_EXIT_USAGE;
	}
	if (max_repeat != -1 && repeat != -1 && max_repeat < repeat) {
		fg_errorf("--max-repeat %lld is under --repeat %lld — give at least as many (the same "
			  "number judges the first runs only)", max_repeat, repeat);
		return FG_EXIT_USAGE;
	}
	return fg_gate_cli_apply(&gate) ? FG_EXIT_USAGE : 0;
}

int cmd_flamegraph_build(int argc, char **argv)
{
	fg_build_and_profile_result res;
	fg_strlist feats = FG_STRLIST_INIT;
	int npos = 0, dashdash = 0, r, code = 0;

	fg_diag_init(cli.prog);
	fg_cli_signals_init();
	if (fg_build_and_profile_opts_init(&bo, FG_BUILD_AND_PROFILE_OPTS_VERSION))
		return fg_die_lib(FG_EINVAL);
	if ((r = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)))
		return r == FG_OPTS_EXIT ? 0 : FG_EXIT_USAGE;
	if ((r = check_one_target()))
		return r;
	if (o.unit_test_given && !o.unit_test && dashdash == 1) {
		o.unit_test = argv[0];
	} else if (o.unit_bench_given && !o.unit_bench && dashdash == 1) {
		o.unit_bench = argv[0];
	} else if (dashdash > 0) {
		fg_errorf("unexpected argument '%s' — program arguments go after --", argv[0]);
		return FG_EXIT_USAGE;
	}
	if ((code = check_usage(npos, dashdash, argv)) || (code = check_suite(npos, dashdash)) ||
	    (code = fg_profile_cli_apply(&bo.run.profile, &pc)) ||
	    (!o.perfdata && (code = check_compare())))
		goto done;
	if (fg_strlist_split_commas(&feats, &o.features)) {
		code = fg_die_lib(FG_ENOMEM);
		goto done;
	}
	bo.manifest_path = o.manifest;
	bo.project.build_profile = o.profile ? o.profile : o.dev ? "dev" : "release";
	bo.project.features = feats.items;
	bo.project.nfeatures = feats.count;
	bo.project.defines = o.defines.items;
	bo.project.ndefines = o.defines.count;
	bo.project.cc = getenv("CC");
	bo.project.cflags = getenv("CFLAGS");
	bo.project.ldflags = getenv("LDFLAGS");
	bo.project.verbose = pc.verbose;
	bo.project.note = note;
	bo.list = o.list_names ? o.list_names : o.list ? "" : NULL;
	bo.on_text = print_text;
	bo.run.profile.perfdata = o.perfdata;
	bo.run.target = chosen();
	bo.run.args = (const char *const *)argv + dashdash;
	bo.run.nargs = (size_t)(npos - dashdash);
	/* a gate judges several runs a side, but allocation counts are the
	 * same every run: one is enough (sampled ones vary: five, as for
	 * CPU time) */
	bo.compare.repeat = repeat > 0 ? (size_t)repeat :
		gate.fail_above && (!pc.alloc.on || pc.alloc_sample) ? 5 : 1;
	/* a second look when the first runs cannot tell yet (one run a side
	 * has no test to ask) */
	bo.compare.max_repeat = max_repeat > 0 ? (size_t)max_repeat :
		bo.compare.repeat > 1 ? 2 * bo.compare.repeat : 0;
	gate_opts();
	fg_profile_cli_build_hooks(&bo, &pc);
	if (o.tests_given || o.benches_given) {
		fg_suite_opts so;
		fg_suite_result sr;
		if (fg_suite_opts_init(&so, FG_SUITE_OPTS_VERSION)) {
			code = fg_die_lib(FG_EINVAL);
			goto done;
		}
		so.kind = o.tests_given ? FG_TARGET_TEST : FG_TARGET_BENCH;
		so.pattern = o.tests_given ? o.tests : o.benches;
		so.out_dir = pc.output;
		code = suite_done(fg_build_and_profile_suite(&bo, &so, &sr), &sr);
		goto done;
	}
	code = fg_profile_cli_build_done(&bo, &pc, &res, fg_build_and_profile(&bo, &res));
done:
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
