/* The options shared by `flamegraph` and `flamegraph-build` (those of
 * cargo-flamegraph, and more), as option-table rows, plus the glue that turns
 * them into fg_profile_opts, reports progress and maps the result to an
 * exit code.
 *
 *   static fg_profile_cli pc = FG_PROFILE_CLI_INIT;
 *   fg_option options[] = {
 *       FG_PROFILE_CLI_OUTPUT_ROWS(pc),
 *       ... program-specific rows ...
 *       FG_PROFILE_CLI_RECORD_ROWS(pc),
 *       FG_PROFILE_CLI_RENDER_ROWS(pc),
 *       FG_OPT_END(),
 *   };
 *   ... fg_opts_parse ...
 *   fg_profile_opts po = FG_PROFILE_OPTS_INIT;
 *   if ((code = fg_profile_cli_apply(&po, &pc)))
 *       return code;
 *   po.argv = ...;
 *   return fg_profile_cli_run(&po, &pc);
 */
#ifndef FG_CLI_COMMON_PROFILE_OPTS_H
#define FG_CLI_COMMON_PROFILE_OPTS_H

#include <stdbool.h>

#include "cli/common/opts.h"
#include "cli/common/render_cli.h"
#include "flamegraph/pipeline.h"
#include "flamegraph/profile.h"

typedef struct fg_profile_root {
	bool on;
	const char *flags;  /* extra sudo flags, or NULL */
} fg_profile_root;

typedef struct fg_profile_per_thread {
	bool on;
	bool by_name;       /* =name */
} fg_profile_per_thread;

typedef struct fg_profile_alloc {
	bool on;
	fg_alloc_view view;
} fg_profile_alloc;

typedef struct fg_profile_cli {
	const char *output;
	bool open;
	long long freq;          /* 0: not given (FG_RECORD_DEFAULT_FREQ) */
	const char *cmd;         /* -c */
	const char *call_graph;  /* NULL: dwarf */
	const char *recorder;    /* --recorder NAME; NULL: the platform's */
	fg_profile_root root;
	long long compression;   /* -1: not given */
	bool ignore_status, no_inline, lines, perf_script, stream, no_stream, verbose;
	fg_profile_per_thread per_thread; /* --per-thread[=name] */
	bool off_cpu, hot_cold;  /* --off-cpu, --hot-cold */
	fg_strlist skip_after;
	const char *post_process, *folded, *perfdata_out, *format;
	const char *title, *subtitle, *notes, *palette;
	bool deterministic, inverted, reverse, flamechart;
	fg_cli_min_width min_width;
	long long image_width;   /* 0: not given */
	const char *max_size;    /* --max-size SIZE|none */
	const char *buffer_size; /* --buffer-size SIZE */
	bool keep_running;       /* --keep-running */
	fg_profile_alloc alloc;  /* --alloc[=VIEW] */
	const char *alloc_sample; /* --alloc-sample BYTES */
	const char *alloc_unwind; /* --alloc-unwind fp|eh */
	/* filled by fg_profile_cli_apply */
	const char *tool_env;    /* $PERF / $DTRACE as given */
} fg_profile_cli;

#define FG_PROFILE_CLI_INIT { .compression = -1, .skip_after = FG_STRLIST_INIT }

int fg_profile_cli_root_cb(const fg_option *opt, const char *arg, void *target);
int fg_profile_cli_per_thread_cb(const fg_option *opt, const char *arg, void *target);
int fg_profile_cli_compression_cb(const fg_option *opt, const char *arg, void *target);
int fg_profile_cli_alloc_cb(const fg_option *opt, const char *arg, void *target);

/* -o/--output, --open, --format, --folded, --perfdata-out */
#define FG_PROFILE_CLI_OUTPUT_ROWS(pc) \
	FG_OPT_STRING('o', "output", &(pc).output, "FILE", "write the graph to FILE (default flamegraph.svg, stacks.folded, profile.speedscope.json or profile.pb.gz by --format; - for stdout)"), \
	FG_OPT_CHOICE(0, "format", &(pc).format, "FMT", "svg|html|folded|json|pprof", "output format: svg, html (a canvas viewer in one page, fast for big profiles), folded stacks, json (speedscope) or pprof (gzipped profile.proto, for go tool pprof)"), \
	FG_OPT_STRING(0, "folded", &(pc).folded, "FILE", "also write the folded stacks to FILE"), \
	FG_OPT_STRING(0, "perfdata-out", &(pc).perfdata_out, "FILE", "keep the recording as FILE (default: none kept; streamed, no perf.data is written)"), \
	FG_OPT_BOOL(0, "open", &(pc).open, "open the graph when done ($BROWSER, else xdg-open or open)")

/* -F, -c, --max-size, --keep-running, --buffer-size, --call-graph,
 * --root, -z, --ignore-status, --no-inline, --perf-script, --stream,
 * --no-stream, --skip-after,
 * --per-thread,
 * --off-cpu, --alloc, --alloc-unwind, --alloc-sample, --hot-cold, --post-process, -v */
#define FG_PROFILE_CLI_RECORD_ROWS(pc) \
	FG_OPT_INT('F', "freq", &(pc).freq, "HZ", "sampling frequency (default " FG_OPT_STR(FG_RECORD_DEFAULT_FREQ) ")"), \
	FG_OPT_STRING('c', "cmd", &(pc).cmd, "ARGS", "custom perf record (or dtrace) arguments replacing the defaults, with or without the leading record: \"record -e cycles -g\" or \"-e cycles -g\" (conflicts with -F)"), \
	FG_OPT_STRING(0, "max-size", &(pc).max_size, "SIZE", "stop recording at SIZE, e.g. 2G (default: no cap when streamed, the default; half the free space where a perf.data file is written; none: no cap)"), \
	FG_OPT_BOOL(0, "keep-running", &(pc).keep_running, "when --max-size is reached, let the program run on unrecorded (default: stop it)"), \
	FG_OPT_STRING(0, "buffer-size", &(pc).buffer_size, "SIZE", "perf's ring buffer per CPU, e.g. 64M (default: sized for --call-graph and -F so that no sample is lost)"), \
	FG_OPT_CHOICE(0, "recorder", &(pc).recorder, "NAME", "perf|native", "what records: native (the default on Linux x86_64: the kernel's perf events opened by flamegraph itself, no perf needed) or perf (perf record; the default for -c, --root, -z, --perf-script, --call-graph lbr, for --off-cpu and --hot-cold where perf is installed, with $PERF set, and on Linux on other machines)"), \
	FG_OPT_CHOICE(0, "call-graph", &(pc).call_graph, "MODE", "fp|dwarf|lbr", "stack unwinding: dwarf (default, exact, large files), fp (frame pointers: the fast, small-file choice) or lbr"), \
	{ FG_OPT_CALLBACK_, 0, "root", &(pc).root, "SUDO_FLAGS", "run the recorder through sudo (with these sudo flags)", FG_OPTF_OPTARG, fg_profile_cli_root_cb, NULL, NULL }, \
	{ FG_OPT_CALLBACK_, 'z', "compression-level", &(pc).compression, "N", "compress the recording with zstd at level N (1 to 22; -z alone: 1), as perf record -z does", FG_OPTF_OPTARG | FG_OPTF_OPTNUM, fg_profile_cli_compression_cb, NULL, NULL }, \
	FG_OPT_BOOL(0, "ignore-status", &(pc).ignore_status, "exit 0 even when the program fails or crashes"), \
	FG_OPT_BOOL(0, "no-inline", &(pc).no_inline, "no inlined frames (faster)"), \
	FG_OPT_BOOL(0, "lines", &(pc).lines, "name frames FUNCTION:FILE:LINE: the sampled line, and the line of each call (of an inlined call too), from the DWARF line tables"), \
	FG_OPT_BOOL(0, "perf-script", &(pc).perf_script, "read the recording through perf script instead of natively"), \
	FG_OPT_BOOL(0, "stream", &(pc).stream, "read the recording as it is made (the native recorder's records as they come, or perf record -o - into a pipe), while the program runs: no perf.data on disk, the graph ready as the program ends (the default where it applies; an error where it does not)"), \
	FG_OPT_BOOL(0, "no-stream", &(pc).no_stream, "record to a temporary perf.data and read it once the recording is done"), \
	FG_OPT_LIST(0, "skip-after", &(pc).skip_after, "FUNC", "drop the callers above FUNC in every stack (repeatable)"), \
	{ FG_OPT_CALLBACK_, 0, "per-thread", &(pc).per_thread, "name", "each thread under its own root frame, NAME-TID (=name: one root per thread name); a speedscope profile per thread", FG_OPTF_OPTARG, fg_profile_cli_per_thread_cb, NULL, NULL }, \
	FG_OPT_BOOL(0, "off-cpu", &(pc).off_cpu, "off-CPU graph: where the threads wait (I/O, locks, sleep), weighted by microseconds off CPU (scheduler events; root, or kernel.perf_event_paranoid=-1)"), \
	{ FG_OPT_CALLBACK_, 0, "alloc", &(pc).alloc, "VIEW", "allocation graph instead of CPU time (no perf): the program runs with an allocation tracker preloaded; VIEW is bytes (allocated, the default), count (allocation calls), leaked (still allocated at exit) or peak (live at the largest heap)", FG_OPTF_OPTARG, fg_profile_cli_alloc_cb, "bytes|count|leaked|peak", NULL }, \
	FG_OPT_CHOICE(0, "alloc-unwind", &(pc).alloc_unwind, "HOW", "fp|eh", "with --alloc, how allocating stacks are walked: eh (each frame by its .eh_frame rule, the frame pointer's where the code has one: whole stacks through libc, libstdc++ and any code) or fp (frame pointers alone: a little cheaper; code built without them cuts stacks short) (default: eh)"), \
	FG_OPT_STRING(0, "alloc-sample", &(pc).alloc_sample, "BYTES", "with --alloc, for huge programs: record about one allocation per BYTES allocated (e.g. 512K), each weighted to unbiased estimates: approximate figures at a lower cost (default: every allocation, exact)"), \
	FG_OPT_BOOL(0, "hot-cold", &(pc).hot_cold, "on-CPU and off-CPU time in one graph, in microseconds; the off-CPU part in blues"), \
	FG_OPT_STRING(0, "post-process", &(pc).post_process, "CMD", "filter the folded stacks through CMD (stdin to stdout; no shell)"), \
	FG_OPT_BOOL('v', "verbose", &(pc).verbose, "print each command run and the time of each stage")

/* The exit statuses of flamegraph and of flamegraph-build, for their
 * --help: the same as their man pages' EXIT STATUS (tests/tools/check-docs
 * compares them). flamegraph builds nothing and has no gate: no 2, no 6. */
#define FG_PROFILE_CLI_EXIT_HELP \
	"Exit status:\n" \
	"  0 graph written, 1 usage, 3 recorder failed, 4 no samples, 5 program\n" \
	"  failed or crashed (graph written), 128+N interrupted by signal N (graph\n" \
	"  of what was recorded written)\n"
#define FG_BUILD_CLI_EXIT_HELP \
	"Exit status:\n" \
	"  0 graph written, 1 usage, 2 build failed, 3 recorder failed, 4 no samples,\n" \
	"  5 program failed or crashed (graph written), 6 the regression gate of a\n" \
	"  comparison failed, 128+N interrupted by signal N (graph of what was\n" \
	"  recorded written)\n"

/* The render options. */
#define FG_PROFILE_CLI_RENDER_ROWS(pc) \
	FG_OPT_STRING(0, "title", &(pc).title, "TEXT", "graph title"), \
	FG_OPT_STRING(0, "subtitle", &(pc).subtitle, "TEXT", "second line under the title"), \
	FG_OPT_STRING(0, "notes", &(pc).notes, "TEXT", "notes embedded in the SVG"), \
	FG_OPT_BOOL(0, "deterministic", &(pc).deterministic, "same function, same colour, in every graph"), \
	FG_OPT_BOOL('i', "inverted", &(pc).inverted, "icicle graph (roots at the top)"), \
	FG_OPT_BOOL(0, "reverse", &(pc).reverse, "reverse the stacks (leaf first)"), \
	FG_OPT_BOOL(0, "flamechart", &(pc).flamechart, "flame chart: x is time, stacks not merged"), \
	FG_OPT_MIN_WIDTH(&(pc).min_width, "omit frames narrower than PX pixels (default " FG_OPT_STR(FG_RENDER_DEFAULT_MIN_WIDTH) "), or than N% of the width"), \
	FG_OPT_INT(0, "image-width", &(pc).image_width, "PX", "width of the SVG (default " FG_OPT_STR(FG_RENDER_DEFAULT_IMAGE_WIDTH) ")"), \
	FG_OPT_CHOICE(0, "palette", &(pc).palette, "NAME", fg_render_palettes, "colour palette (default hot)"), \
	FG_ALIAS_CHOICE(0, "colors", &(pc).palette, "NAME", fg_render_palettes, "= --palette"), \
	FG_ALIAS_INT(0, "width", &(pc).image_width, "PX", "= --image-width"), \
	FG_ALIAS_CALLBACK(0, "minwidth", &(pc).min_width, "N", "= --min-width N% (a percentage, with or without %)", fg_cli_minwidth_pct_cb)

/* Validates the shared options and fills po (record, outputs, render
 * options, tool paths from $PERF/$DTRACE, $TMPDIR, event printer).
 * Returns 0, or the exit code after printing a usage error. */
int fg_profile_cli_apply(fg_profile_opts *po, fg_profile_cli *pc);

/* Runs the pipeline and reports: warnings, the workload's fate, where the
 * graph went; opens it with --open. Returns the exit code (FG_EXIT_*). */
int fg_profile_cli_run(const fg_profile_opts *po, const fg_profile_cli *pc);

/* The two halves of fg_profile_cli_run, for runs the library starts
 * itself (--compare): before names the program on the status line;
 * report prints the outcome of fg_profile_run (err, res) and returns the
 * exit code. */
void fg_profile_cli_before(const fg_profile_opts *po);
int fg_profile_cli_report(const fg_profile_opts *po, const fg_profile_cli *pc,
			  const fg_profile_result *res, int err);

/* Opens path with $BROWSER, else xdg-open (open on macOS). Returns 0 or
 * prints a warning and returns -1. */
int fg_profile_cli_open(const char *path);


/* Reports the runs of fg_build_and_profile as fg_profile_cli_run reports
 * one (a failed run of a comparison stops it with its exit code); pc must
 * outlive the call. */
void fg_profile_cli_build_hooks(fg_build_and_profile_opts *bo, const fg_profile_cli *pc);
/* The exit code of fg_build_and_profile's return r (an error printed) and
 * result: FG_EXIT_REGRESSION for a failed gate; with --open, opens the
 * graph written. */
int fg_profile_cli_build_done(const fg_build_and_profile_opts *bo, const fg_profile_cli *pc,
			      const fg_build_and_profile_result *res, int r);

/* With --open, opens the graph po wrote (not stdout). */
void fg_profile_cli_open_graph(const fg_profile_opts *po, const fg_profile_cli *pc);

void fg_profile_cli_release(fg_profile_cli *pc);

#endif
