#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/common/collapse_cli.h"
#include "cli/common/diag.h"
#include "cli/common/signals.h"
#include "cli/common/opts.h"
#include "cli/common/perfdata_cli.h"
#include "flamegraph/error.h"
#include "util/input.h"
#include "util/outfile.h"

struct collapse_args {
	fg_collapse_opts opts;
	bool all, no_inline, quiet, verbose, perf_script, ticks, bytes;
	long long nthreads;
	const char *output;
	fg_strlist skip_after;
};

#define PERF_OPTIONS(a) \
	FG_OPT_BOOL(0, "pid", &(a)->opts.include_pid, "prefix stacks with the process: comm-PID"), \
	FG_OPT_BOOL(0, "tid", &(a)->opts.include_tid, "prefix stacks with process and thread: comm-PID/TID"), \
	FG_OPT_BOOL(0, "per-thread", &(a)->opts.per_thread, "each thread under its own root frame: NAME-TID"), \
	FG_OPT_BOOL(0, "kernel", &(a)->opts.annotate_kernel, "mark kernel frames with _[k]"), \
	FG_OPT_BOOL(0, "jit", &(a)->opts.annotate_jit, "mark JIT-compiled frames (perf maps, jitdump) with _[j]"), \
	FG_OPT_BOOL(0, "all", &(a)->all, "all annotations: --kernel --jit"), \
	FG_OPT_BOOL(0, "addrs", &(a)->opts.include_addrs, "keep the address of frames whose symbol is unknown: [module <ADDR>]"), \
	FG_OPT_STRING(0, "event-filter", &(a)->opts.event_filter, "EVENT", "keep only samples of EVENT (default: the first event type seen)"), \
	FG_OPT_LIST(0, "skip-after", &(a)->skip_after, "FUNC", "drop the callers of FUNC: stacks start at FUNC (repeatable)"), \
	FG_OPT_BOOL(0, "perf-script", &(a)->perf_script, "read a perf.data FILE through `perf script` instead of natively"), \
	FG_OPT_BOOL(0, "lines", &(a)->opts.lines, "name frames FUNCTION:FILE:LINE: the sampled line, the line of each call (of an inlined call too), from a perf.data's DWARF line tables or perf script -F +srcline text")

#define DTRACE_OPTIONS(a) \
	FG_OPT_BOOL(0, "includeoffset", &(a)->opts.include_offset, "keep +0x offsets of caller frames (DTrace)")

#define MODULE_OPTIONS(a) \
	FG_OPT_BOOL(0, "no-modules", &(a)->opts.no_modules, "function names without their module (sample, VTune): f, not libfoo`f")

#define GHC_OPTIONS(a) \
	FG_OPT_BOOL(0, "ticks", &(a)->ticks, "weigh stacks by ticks (default: the report's %time)"), \
	FG_OPT_BOOL(0, "bytes", &(a)->bytes, "weigh stacks by bytes allocated")

/* the formats read line by line, in order: no --no-inline, -n accepted
 * (scripts pass it) though one thread reads them */
#define LINE_OPTIONS(a) \
	FG_OPT_INT('n', "nthreads", &(a)->nthreads, "N", "accepted for the other collapsers' command lines: this format is read in order, by one thread"), \
	FG_OPT_STRING('o', "output", &(a)->output, "FILE", "write to FILE (default: stdout): a file atomically, a device or FIFO in place"), \
	FG_OPT_BOOL('q', "quiet", &(a)->quiet, "do not warn about skipped lines"), \
	FG_OPT_BOOL('v', "verbose", &(a)->verbose, "say how many stacks and samples were read")

#define COMMON_OPTIONS(a) \
	FG_OPT_BOOL(0, "no-inline", &(a)->no_inline, "drop inlined frames (written as caller->inlined)"), \
	FG_OPT_INT('n', "nthreads", &(a)->nthreads, "N", "worker threads (default: all cores); output is the same for any N"), \
	FG_OPT_STRING('o', "output", &(a)->output, "FILE", "write to FILE (default: stdout): a file atomically, a device or FIFO in place"), \
	FG_OPT_BOOL('q', "quiet", &(a)->quiet, "do not warn about skipped lines")

/* the exit statuses, for --help (the man pages' EXIT STATUS lists the
 * same); the perf.data readers run perf script, which may fail: 3 */
#define EXIT_HELP_OK_USAGE \
	"Exit status:\n  0 written (also for empty input), 1 usage, unreadable or bad input, or out\n" \
	"  of memory"
#define EXIT_HELP EXIT_HELP_OK_USAGE "\n"
#define EXIT_HELP_PERF EXIT_HELP_OK_USAGE ", 3 perf script failed on a perf.data FILE read through it\n"

static void report(const fg_collapser *c, const struct collapse_args *a)
{
	fg_collapse_stats st;
	size_t i;

	fg_collapser_stats(c, &st);
	if (a->quiet)
		return;
	for (i = 0; i < st.nwarnings; i++) {
		if (st.warnings[i].first_line)
			fg_warnf("%llu %s, first at input line %llu — check that the input is what "
				 "this program reads",
				 (unsigned long long)st.warnings[i].count, st.warnings[i].what,
				 (unsigned long long)st.warnings[i].first_line);
		else
			fg_warnf("%llu %s — check that the input is what this program reads",
				 (unsigned long long)st.warnings[i].count, st.warnings[i].what);
	}
	if (a->verbose)
		fg_notef("read %llu bytes: %llu stacks, %llu distinct", (unsigned long long)st.bytes,
			 (unsigned long long)st.samples, (unsigned long long)st.stacks);
	if (st.filtered && !a->opts.event_filter)
		fg_notef("kept only '%s' samples; skipped %llu of other event types — choose one with "
			 "--event-filter EVENT",
			 st.event, (unsigned long long)st.filtered);
}

/* Refuses an -o that cannot be right before reading any input: a folder,
 * or one of the inputs (the atomic rename would replace it). Returns the
 * exit code, FG_EXIT_OK when the output is fine. */
static int check_output(const char *output, int npos, char **files)
{
	struct stat st;

	if (!strcmp(output, "-"))
		return FG_EXIT_OK;
	if (!stat(output, &st) && S_ISDIR(st.st_mode)) {
		fg_errorf("-o %s is a directory — give a file name, such as %s/out.folded", output,
			  output);
		return FG_EXIT_USAGE;
	}
	if (fg_outfile_check_inputs(output, (const char *const *)files, (size_t)npos)) {
		fg_errorf("-o %s", fg_error_last());
		return FG_EXIT_USAGE;
	}
	return FG_EXIT_OK;
}

static int collapse(struct collapse_args *a, fg_format format, int npos, char **files)
{
	fg_collapser *c = NULL;
	fg_outfile *of = NULL;
	int err, i;

	/* the output first: an unwritable one fails before the work */
	if ((err = fg_outfile_open(&of, a->output)) || (err = fg_collapser_new(&c, format, &a->opts)))
		goto done;
	for (i = 0; i < (npos ? npos : 1); i++) {
		const char *in = npos ? files[i] : "-";
		/* a recording (perf.data) rather than text */
		bool perf = format == FG_FORMAT_PERF || format == FG_FORMAT_UNKNOWN;
		if (perf && !strcmp(in, "-"))
			err = fg_cli_collapse_stdin(c, &a->opts, a->perf_script, a->quiet);
		else if (perf && fg_cli_is_perfdata(in))
			err = fg_cli_collapse_perfdata(c, in, &a->opts, a->perf_script, a->quiet);
		else
			err = fg_collapse_file(c, in);
		if (err)
			goto done;
	}
	if ((err = fg_collapser_finish(c)) || (err = fg_cli_check_memory()))
		goto done;
	report(c, a);
	if ((err = fg_collapser_write(c, fg_outfile_stream(of))))
		goto done;
	err = fg_outfile_commit(of);
	of = NULL;
done:
	fg_outfile_abort(of);
	fg_collapser_free(c);
	return err;
}

int fg_collapse_cli_run(int argc, char **argv, const char *prog, fg_format format)
{
	struct collapse_args a;
	fg_collapse_opts defaults = FG_COLLAPSE_OPTS_INIT;
	int npos = 0, dashdash, err, rc;
	const fg_option perf_options[] = { PERF_OPTIONS(&a), COMMON_OPTIONS(&a), FG_OPT_END() };
	const fg_option dtrace_options[] = { DTRACE_OPTIONS(&a), COMMON_OPTIONS(&a), FG_OPT_END() };
	const fg_option guess_options[] = {
		FG_OPT_GROUP("perf script input"), PERF_OPTIONS(&a),
		FG_OPT_GROUP("DTrace input"), DTRACE_OPTIONS(&a),
		FG_OPT_GROUP("sample and VTune input"), MODULE_OPTIONS(&a),
		FG_OPT_GROUP("GHC .prof input"), GHC_OPTIONS(&a),
		FG_OPT_GROUP("Common"), COMMON_OPTIONS(&a),
		FG_OPT_BOOL('v', "verbose", &a.verbose, "say how many stacks and samples were read"),
		FG_OPT_END(),
	};
	const fg_option line_options[] = { LINE_OPTIONS(&a), FG_OPT_END() };
	const fg_option module_options[] = { MODULE_OPTIONS(&a), LINE_OPTIONS(&a), FG_OPT_END() };
	const fg_option ghc_options[] = { GHC_OPTIONS(&a), LINE_OPTIONS(&a), FG_OPT_END() };
	fg_cli cli = {
		prog, "[OPTIONS] [FILE...]", NULL, NULL, NULL, true, false,
	};

	memset(&a, 0, sizeof(a));
	a.opts = defaults;
	a.output = "-";
	switch (format) {
	case FG_FORMAT_PERF:
		cli.summary = "Folds `perf script` output into one 'frame;frame;... COUNT' line per distinct "
			      "stack (root first, counts from the sample periods), sorted, for flamegraph-render. "
			      "Reads the FILEs (gzip is detected) or stdin. A FILE that is a perf.data recording "
			      "is read natively, without perf script: frame-pointer call chains (perf record -g) "
			      "and dwarf call graphs (--call-graph dwarf, unwound here), compressed records (-z), "
			      "the pipe form (perf record -o -, saved to a file or piped into stdin), "
			      "symbols from ELF symbol tables, debug files and kallsyms, DWARF inlined frames, "
			      "JIT code named from /tmp/perf-PID.map (which must still exist), "
			      "the same stacks as perf script's text gives. Compressed DWARF is inflated once "
			      "into $XDG_CACHE_HOME/flamegraph-build/debug. Recordings it does not read yet (AUX "
			      "data, other architectures) go through perf script, with a note (from stdin: an "
			      "error, save the recording to a file).";
		cli.footer = EXIT_HELP_PERF "\nExamples:\n  perf script | " "flamegraph-collapse-perf --all > out.folded\n"
			     "  flamegraph-collapse-perf perf.data > out.folded\n";
		cli.options = perf_options;
		break;
	case FG_FORMAT_DTRACE:
		cli.summary = "Folds DTrace ustack()/stack() aggregation output into one 'frame;frame;... "
			      "COUNT' line per distinct stack, sorted, for flamegraph-render. Reads the FILEs "
			      "(gzip is detected) or stdin.";
		cli.footer = EXIT_HELP "\nExample:\n  dtrace -x ustackframes=100 -n 'profile-97 /pid == $target/ "
			     "{ @[ustack()] = count(); }' -c ./prog -o out.stacks\n"
			     "  flamegraph-collapse-dtrace out.stacks > out.folded\n";
		cli.options = dtrace_options;
		break;
	case FG_FORMAT_RECURSIVE:
		cli.summary = "Folds direct recursion in folded stacks: a frame equal to its caller is "
			      "dropped ('main;f;f;f;g 3' becomes 'main;f;g 3') and the stacks made equal are "
			      "summed, sorted. Reads the FILEs (gzip is detected) or stdin.";
		cli.footer = EXIT_HELP "\nExample:\n  flamegraph-collapse-perf perf.txt | flamegraph-collapse-recursive | "
			     "flamegraph-render -o out.svg\n";
		cli.options = line_options;
		break;
	case FG_FORMAT_SAMPLE:
		cli.summary = "Folds the call graph of a macOS `sample` report into one "
			      "'thread;module`function;... COUNT' line per stack, sorted. Stacks that end in "
			      "a wait (read, __ulock_wait, kevent, mach_msg_trap...) are left out, as inferno "
			      "does. Reads the FILEs (gzip is detected) or stdin.";
		cli.footer = EXIT_HELP "\nExample:\n  sample PID 10 -file out.sample.txt\n"
			     "  flamegraph-collapse-sample out.sample.txt | flamegraph-render -o out.svg\n";
		cli.options = module_options;
		break;
	case FG_FORMAT_VTUNE:
		cli.summary = "Folds an Intel VTune top-down tree exported as CSV (Function Stack,CPU "
			      "Time:Self,Module) into one 'module`function;... MS' line per stack with own "
			      "time, weighed in milliseconds, sorted. Reads the FILEs (gzip is detected) or "
			      "stdin.";
		cli.footer = EXIT_HELP "\nExample:\n  vtune -report top-down -call-stack-mode all -column=\"CPU Time:Self\",\"Module\" "
			     "-report-out result.csv -filter \"Function Stack\" -format csv "
			     "-csv-delimiter comma -r r000hs\n"
			     "  flamegraph-collapse-vtune result.csv | flamegraph-render -o out.svg\n";
		cli.options = module_options;
		break;
	case FG_FORMAT_VSPROF:
		cli.summary = "Folds a Visual Studio CallTreeSummary CSV (the profiler's call tree report) "
			      "into one 'function;function;... CALLS' line per stack, weighed by calls as "
			      "inferno-collapse-vsprof does, sorted. Reads the FILEs (gzip is detected) or "
			      "stdin.";
		cli.footer = EXIT_HELP "\nExample:\n  VSPerfReport /summary:calltree profile.vsp   (writes *_CallTreeSummary.csv)\n"
			     "  flamegraph-collapse-vsprof profile_CallTreeSummary.csv | flamegraph-render -o out.svg\n";
		cli.options = line_options;
		break;
	case FG_FORMAT_GHCPROF:
		cli.summary = "Folds the cost-centre tree of a GHC profiling report (+RTS -p, a .prof "
			      "file) into one 'Module.costcentre;... COST' line per cost centre, weighed "
			      "by its individual %time in tenths of a percent (or --ticks, --bytes; those "
			      "columns need +RTS -P), sorted. Reads the FILEs (gzip is detected) or stdin.";
		cli.footer = EXIT_HELP "\nExample:\n  ./prog +RTS -P -RTS\n"
			     "  flamegraph-collapse-ghcprof --ticks prog.prof | flamegraph-render -o out.svg\n";
		cli.options = ghc_options;
		break;
	case FG_FORMAT_XCTRACE:
		cli.summary = "Folds the Time Profiler data of an Instruments trace, exported as XML by "
			      "xctrace, into one 'frame;frame;... COUNT' line per backtrace (root first, a "
			      "count per sample row), sorted. Reads the FILEs (gzip is detected) or stdin.";
		cli.footer = EXIT_HELP "\nExample:\n  xctrace record --template 'Time Profiler' --output prof.trace --launch -- ./prog\n"
			     "  xctrace export --input prof.trace --xpath "
			     "'/trace-toc/*/run/data/table[@schema=\"time-profile\"]' > prof.xml\n"
			     "  flamegraph-collapse-xctrace prof.xml | flamegraph-render -o out.svg\n";
		cli.options = line_options;
		break;
	default:
		cli.summary = "Detects the input format — `perf script` output, DTrace stacks, a macOS "
			      "`sample` report, a VTune or Visual Studio CSV, a GHC .prof file or xctrace XML "
			      "— and folds it as the collapser for that format does. Reads the FILEs (gzip is "
			      "detected; together they are one input) or stdin. Folded stacks are not "
			      "guessed (flamegraph-collapse-recursive takes them).";
		cli.footer = EXIT_HELP_PERF "\nExample:\n  flamegraph-collapse-guess profile.txt.gz | flamegraph-render -o out.svg\n";
		cli.options = guess_options;
		break;
	}
	fg_diag_init(prog);
	fg_cli_signals_init();
	if ((err = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)) != FG_OPTS_OK) {
		rc = err == FG_OPTS_EXIT ? FG_EXIT_OK : FG_EXIT_USAGE;
		goto done;
	}
	if (a.nthreads < 0 || a.nthreads > 1024) {
		fg_errorf("--nthreads %lld is out of range — give 1 to 1024, or 0 for all cores",
			  a.nthreads);
		rc = FG_EXIT_USAGE;
		goto done;
	}
	a.opts.nthreads = (unsigned)a.nthreads;
	if (a.all)
		a.opts.annotate_kernel = a.opts.annotate_jit = true;
	if (a.ticks && a.bytes) {
		fg_errorf("--ticks and --bytes exclude each other — give one");
		rc = FG_EXIT_USAGE;
		goto done;
	}
	a.opts.ghc_source = a.ticks ? FG_GHC_TICKS : a.bytes ? FG_GHC_BYTES : FG_GHC_TIME;
	a.opts.inline_frames = !a.no_inline;
	a.opts.skip_after = a.skip_after.items;
	a.opts.nskip_after = a.skip_after.count;
	if ((rc = check_output(a.output, npos, argv)) != FG_EXIT_OK)
		goto done;
	err = collapse(&a, format, npos, argv);
	rc = err ? fg_die_lib(err) : FG_EXIT_OK;
done:
	fg_strlist_release(&a.skip_after);
	return rc;
}
