/* Shared options of the profiling programs: validation, progress display
 * and the mapping of pipeline results to messages and exit codes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/common/diag.h"
#include "cli/common/perfdata_cli.h"
#include "cli/common/profile_opts.h"
#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "util/process.h"
#include "util/strvec.h"
#include "util/banned.h"

int fg_profile_cli_root_cb(const fg_option *opt, const char *arg, void *target)
{
	fg_profile_root *root = target;

	(void)opt;
	root->on = true;
	root->flags = arg;
	return 0;
}

int fg_profile_cli_per_thread_cb(const fg_option *opt, const char *arg, void *target)
{
	fg_profile_per_thread *pt = target;

	(void)opt;
	if (arg && strcmp(arg, "name") && strcmp(arg, "tid")) {
		fg_errorf("--per-thread=%s: give --per-thread (a root per thread, NAME-TID) or "
			  "--per-thread=name (a root per thread name)", arg);
		return -1;
	}
	pt->on = true;
	pt->by_name = arg && !strcmp(arg, "name");
	return 0;
}

/* -z, -zN, -z N, --compression-level[=N]: cargo-flamegraph's level 1
 * when none is given. */
int fg_profile_cli_compression_cb(const fg_option *opt, const char *arg, void *target)
{
	long long level = 0;

	(void)opt;
	for (const char *p = arg ? arg : "1"; *p; p++) {
		if (*p < '0' || *p > '9' || level > 22 || (level = level * 10 + (*p - '0')) > 22) {
			fg_errorf("-z/--compression-level %s: give a zstd level from 1 to 22, or 0 for none (-z "
				  "alone: 1)", arg);
			return -1;
		}
	}
	if (arg && !*arg) {
		fg_errorf("%s", "--compression-level=: give a zstd level from 1 to 22, or leave out =");
		return -1;
	}
	*(long long *)target = level;
	return 0;
}

int fg_profile_cli_alloc_cb(const fg_option *opt, const char *arg, void *target)
{
	fg_profile_alloc *a = target;

	(void)opt;
	a->view = FG_ALLOC_BYTES;
	if (arg && fg_alloc_view_parse(&a->view, arg)) {
		fg_errorf("--alloc=%s: give --alloc (bytes allocated) or --alloc=bytes, count, "
			  "leaked or peak", arg);
		return -1;
	}
	a->on = true;
	return 0;
}

/* The allocation interposer: beside the program (the build tree), else
 * where the install puts it (PREFIX/lib/flamegraph-build beside
 * PREFIX/bin). NULL when neither is there (the library says so). */
static const char *alloc_lib(void)
{
	static char found[4096];
	static const char *const where[] = { "/", "/../lib/flamegraph-build/" };
	char self[3072];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	if (!(slash = strrchr(self, '/')))
		return NULL;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(found, sizeof(found), "%s%slibflamegraph-alloc.so", self, where[i]);
		if (access(found, R_OK) == 0) {
			char *real = realpath(found, NULL);
			if (real) {
				snprintf(found, sizeof(found), "%s", real);
				free(real);
			}
			return found;
		}
	}
	snprintf(found, sizeof(found), "%s/../lib/flamegraph-build/libflamegraph-alloc.so", self);
	return found;
}

static int apply_alloc(fg_profile_opts *po, const fg_profile_cli *pc)
{
	const char *with = pc->cmd ? "-c/--cmd" : pc->off_cpu ? "--off-cpu" : pc->hot_cold ? "--hot-cold" :
		pc->perf_script ? "--perf-script" : pc->stream ? "--stream" : pc->root.on ? "--root" :
		pc->freq ? "-F/--freq" : pc->call_graph ? "--call-graph" :
		pc->per_thread.on ? "--per-thread" : NULL;

	if (!pc->alloc.on) {
		if (pc->alloc_sample || pc->alloc_unwind) {
			fg_errorf("%s goes with an allocation graph — add --alloc",
				  pc->alloc_sample ? "--alloc-sample" : "--alloc-unwind");
			return FG_EXIT_USAGE;
		}
		return 0;
	}
	if (pc->alloc_unwind)
		po->alloc_unwind = !strcmp(pc->alloc_unwind, "eh") ? FG_ALLOC_UNWIND_EH : FG_ALLOC_UNWIND_FP;
	if (pc->alloc_sample && (fg_record_parse_size(&po->alloc_sample, pc->alloc_sample) ||
				 !po->alloc_sample || po->alloc_sample > (1ull << 40))) {
		fg_errorf("--alloc-sample %s: give the mean bytes between samples, from 1 to 1T, "
			  "e.g. 512K", pc->alloc_sample);
		return FG_EXIT_USAGE;
	}
	if (with) {
		fg_errorf("--alloc conflicts with %s: an allocation graph records every allocation "
			  "itself, without perf — drop one of the two", with);
		return FG_EXIT_USAGE;
	}
	po->alloc = pc->alloc.view;
	po->alloc_lib = alloc_lib();
	po->alloc_preload = getenv("LD_PRELOAD");
	return 0;
}

typedef struct printer {
	bool verbose, tty;
	double last;
	unsigned tick;
	bool spinning;
	const char *what;  /* the profiled program, for the status line */
	int stage;         /* of the last line drawn (-1: none yet) */
} printer;

static printer the_printer = { .stage = -1 };

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void clear_line(printer *p)
{
	if (p->spinning)
		fputs("\r\033[K", stderr);
	p->spinning = false;
}

/* The live status line: on a terminal only, redrawn at most ten times a
 * second, erased before any other message and at the end. */
static void on_status(void *ctx, const fg_profile_status *st)
{
	static const char frames[] = "|/-\\";
	printer *p = ctx;
	char size[32];
	double t = mono();

	if (!p->tty)
		return;
	if (st->stage == FG_STAGE_DONE) {
		clear_line(p);
		return;
	}
	/* a new stage is shown at once, the same one a few times a second */
	if (t - p->last < 0.1 && (int)st->stage == p->stage)
		return;
	p->last = t;
	p->stage = (int)st->stage;
	p->spinning = true;
	fg_record_format_size(size, sizeof(size), st->bytes);
	fprintf(stderr, "\r\033[K%c ", frames[p->tick++ % 4]);
	if (st->stage == FG_STAGE_RECORDING)
		fprintf(stderr, "recording %s: %.1f s, %s", p->what ? p->what : "", st->elapsed, size);
	else if (st->stage == FG_STAGE_CAPPED)
		fprintf(stderr, "size cap reached (%s); %s runs on unrecorded: %.1f s", size,
			p->what ? p->what : "the program", st->elapsed);
	else if (st->total && st->samples <= st->total)
		fprintf(stderr, "reading the recording: %.0f%% (%llu of %llu samples), %.1f s",
			100.0 * (double)st->samples / (double)st->total, (unsigned long long)st->samples,
			(unsigned long long)st->total, st->elapsed);
	else
		fprintf(stderr, "reading the recording: %llu samples, %.1f s",
			(unsigned long long)st->samples, st->elapsed);
	fflush(stderr);
}

static void on_event(void *ctx, fg_profile_event kind, const char *msg, double value)
{
	printer *p = ctx;

	if (kind != FG_PROFILE_PROGRESS)
		clear_line(p);
	switch (kind) {
	case FG_PROFILE_COMMAND:
		if (p->verbose)
			fg_notef("running: %s", msg);
		break;
	case FG_PROFILE_TIMING:
		if (p->verbose)
			fg_notef("timing: %s took %.3f s", msg, value);
		break;
	case FG_PROFILE_WARNING:
		fg_warnf("%s", msg);
		break;
	case FG_PROFILE_NOTE:
		fg_notef("%s", msg);
		break;
	case FG_PROFILE_PROGRESS:
	case FG_PROFILE_PROGRESS_END:
		break; /* on_status draws the status line */
	}
}

static int usage(const char *fmt, const char *what)
{
	fg_errorf(fmt, what);
	return FG_EXIT_USAGE;
}

static bool env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

#if !defined(__linux__) || defined(__x86_64__)
static bool on_path(const char *tool)
{
	char *path = fg_which(tool);

	free(path);
	return path != NULL;
}
#endif

#if !defined(__linux__)
/* macOS, BSD: DTrace when it can run (root, or --root), else Instruments'
 * xctrace, which needs no root (fg_record_choose). */
static fg_recorder choose_recorder(const fg_profile_cli *pc)
{
	fg_record_host host = {
		.dtrace_named = env_set("DTRACE"), .xctrace_named = env_set("XCTRACE"),
		.privileged = geteuid() == 0 || pc->root.on,
	};

	host.dtrace_found = host.dtrace_named || on_path("dtrace");
	host.xctrace_found = host.xctrace_named || on_path("xctrace");
	return fg_record_choose(&host);
}
#endif

#if defined(__linux__)
/* Linux without --recorder: the native recorder, except where only perf
 * records what is asked (or $PERF names the perf to run), and for the
 * off-CPU modes where perf is installed. */
static fg_recorder linux_recorder(const fg_profile_cli *pc)
{
#if !defined(__x86_64__)
	(void)pc;
	return FG_RECORDER_PERF;
#else
	if (env_set("PERF") || pc->cmd || pc->root.on || pc->compression != -1 || pc->perf_script ||
	    (pc->call_graph && !strcmp(pc->call_graph, "lbr")))
		return FG_RECORDER_PERF;
	/* the off-CPU modes as perf records them where it is installed */
	if ((pc->off_cpu || pc->hot_cold) && on_path("perf"))
		return FG_RECORDER_PERF;
	return FG_RECORDER_NATIVE;
#endif
}
#endif

static int apply_record(fg_record_opts *rec, fg_profile_cli *pc)
{
	static const char *const env_names[] = { "PERF", "DTRACE", "XCTRACE" };
	const char *env;

#if defined(__linux__)
	rec->recorder = !pc->recorder ? linux_recorder(pc) :
			!strcmp(pc->recorder, "native") ? FG_RECORDER_NATIVE : FG_RECORDER_PERF;
#else
	if (pc->recorder && !strcmp(pc->recorder, "native"))
		return usage("%s", "--recorder native records on Linux only — leave --recorder out");
	rec->recorder = pc->recorder && !strcmp(pc->recorder, "perf") ? FG_RECORDER_PERF :
			choose_recorder(pc);
#endif
	env = rec->recorder < 3 ? getenv(env_names[rec->recorder]) : NULL;
	if (env && *env) {
		rec->tool = pc->tool_env = env;
		rec->tool_origin = env_names[rec->recorder];
	}
	if (rec->recorder == FG_RECORDER_XCTRACE && pc->freq)
		return usage("%s", "-F/--freq: xctrace's Time Profiler samples at its own rate (1 kHz) "
			     "— leave -F out, or record with DTrace as root (--root)");
	if (pc->cmd && pc->freq)
		return usage("%s", "-c/--cmd and -F/--freq conflict: -c replaces all the recorder "
			     "arguments — put -F in the -c string");
	if (pc->freq < 0 || pc->freq > 1000000)
		return usage("-F/--freq %s: give a frequency from 1 to 1000000 Hz", "value out of range");
	rec->freq = (unsigned)pc->freq; /* 0: not given, the default */
	rec->custom = pc->cmd;
	if (pc->call_graph && fg_call_graph_parse(&rec->call_graph, pc->call_graph))
		return usage("%s", fg_error_last());
	if (pc->off_cpu && pc->hot_cold)
		return usage("%s", "--off-cpu and --hot-cold conflict: --hot-cold already shows "
			     "the off-CPU time, beside the on-CPU time");
	if ((pc->off_cpu || pc->hot_cold) && pc->cmd)
		return usage("%s", "-c/--cmd conflicts with --off-cpu and --hot-cold, which choose "
			     "the events themselves");
	if (rec->recorder == FG_RECORDER_NATIVE && (pc->cmd || pc->root.on || pc->compression != -1))
		return usage("--recorder native conflicts with %s, which perf record alone takes — "
			     "drop it, or use --recorder perf", pc->cmd ? "-c/--cmd" : pc->root.on ?
			     "--root" : "-z/--compression-level");
	if (rec->recorder == FG_RECORDER_NATIVE && rec->call_graph == FG_CALL_GRAPH_LBR)
		return usage("%s", "--call-graph lbr is recorded by perf — use --recorder perf, or "
			     "--call-graph dwarf or fp");
	if ((pc->off_cpu || pc->hot_cold) && rec->recorder != FG_RECORDER_PERF &&
	    rec->recorder != FG_RECORDER_NATIVE)
		return usage("%s", "--off-cpu and --hot-cold need Linux's scheduler events — use "
			     "--recorder perf or --recorder native");
	rec->mode = pc->hot_cold ? FG_RECORD_HOT_COLD : pc->off_cpu ? FG_RECORD_OFF_CPU :
		    FG_RECORD_ON_CPU;
	rec->root = pc->root.on;
	rec->sudo_flags = pc->root.flags;
	if (pc->compression != -1 && (pc->compression < 0 || pc->compression > 22))
		return usage("%s", "-z/--compression-level wants a level from 0 to 22");
	rec->compression_level = (int)pc->compression;
	if (pc->max_size && !strcmp(pc->max_size, "none"))
		rec->max_size = UINT64_MAX;
	else if (pc->max_size && (fg_record_parse_size(&rec->max_size, pc->max_size) || !rec->max_size))
		return usage("--max-size: %s", *fg_error_last() ? fg_error_last() :
			     "give a size above 0, e.g. 2G, or none");
	if (pc->buffer_size && (fg_record_parse_size(&rec->buffer_bytes, pc->buffer_size) ||
				rec->buffer_bytes < 8192 || rec->buffer_bytes > (1ull << 32)))
		return usage("--buffer-size: %s", *fg_error_last() ? fg_error_last() :
			     "give a size from 8K to 4G, e.g. 64M");
	return 0;
}

static int apply_render(fg_render_opts *ro, const fg_profile_cli *pc)
{
	ro->title = pc->title;
	ro->subtitle = pc->subtitle;
	ro->notes = pc->notes;
	ro->palette = pc->palette;
	ro->deterministic = pc->deterministic;
	ro->inverted = pc->inverted;
	ro->reverse = pc->reverse;
	ro->flamechart = pc->flamechart;
	fg_cli_min_width_apply(ro, &pc->min_width);
	/* the range is checked once, by the library, before anything runs */
	if (pc->image_width && fg_opt_to_unsigned(&ro->image_width, pc->image_width, "--image-width"))
		return FG_EXIT_USAGE;
	return 0;
}

int fg_profile_cli_apply(fg_profile_opts *po, fg_profile_cli *pc)
{
	int code;

	if ((code = apply_record(&po->record, pc)) || (code = apply_render(&po->render, pc)) ||
	    (code = apply_alloc(po, pc)))
		return code;
	if (pc->format && fg_output_format_parse(&po->format, pc->format))
		return usage("%s", fg_error_last());
	po->output = pc->output; /* NULL: the library's default for the format */
	po->folded_out = pc->folded;
	po->perfdata_out = pc->perfdata_out;
	po->tmpdir = getenv("TMPDIR");
	po->no_inline = pc->no_inline;
	po->lines = pc->lines;
	po->perf_script = pc->perf_script;
	if (pc->stream && pc->no_stream)
		return usage("%s", "give only one of --stream and --no-stream");
	po->stream = pc->stream ? FG_STREAM_ON : pc->no_stream ? FG_STREAM_OFF : FG_STREAM_AUTO;
	po->buildid_dir = fg_cli_buildid_dir();
	po->debug_cache_dir = fg_cli_debug_cache_dir();
	po->words = fg_cli_words; /* the graph's advice in our flags */
	po->per_thread = pc->per_thread.on;
	po->per_thread_name = pc->per_thread.by_name;
	po->skip_after = pc->skip_after.items;
	po->nskip_after = pc->skip_after.count;
	po->post_process = pc->post_process;
	po->ignore_status = pc->ignore_status;
	po->continue_at_max = pc->keep_running;
	/* the graph on stdout: the program's own output goes to stderr */
	po->workload_stdout_to_stderr = pc->output && !strcmp(pc->output, "-");
	the_printer.verbose = pc->verbose;
	the_printer.tty = isatty(STDERR_FILENO);
	po->on_event = on_event;
	po->on_status = on_status;
	po->event_ctx = &the_printer;
	return 0;
}

int fg_profile_cli_open(const char *path)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status st;
	const char *browser = getenv("BROWSER");
	int err;

	if (browser && *browser)
		err = fg_strvec_split(&cmd.argv, browser);
	else
#if defined(__APPLE__)
		err = fg_strvec_push(&cmd.argv, "open");
#else
		err = fg_strvec_push(&cmd.argv, "xdg-open");
#endif
	if (!err && !cmd.argv.n)
		err = fg_error_set(FG_EINVAL, "BROWSER is empty");
	if (!err)
		err = fg_strvec_push(&cmd.argv, path);
	if (!err)
		err = fg_cmd_run(&cmd, &st);
	if (!err && (st.code != 0 || st.signal))
		err = fg_error_set(FG_ECHILD, "%s exited with status %d", cmd.argv.v[0], st.code);
	if (err)
		fg_warnf("could not open %s: %s — open it in a browser yourself, or set BROWSER",
			 path, fg_error_last());
	fg_cmd_clear(&cmd);
	return err ? -1 : 0;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	default: return "a signal";
	}
}

/* The graph's file name, for messages; NULL when no graph is written. */
static const char *graph_name(const fg_profile_opts *po)
{
	if (po->format == FG_OUTPUT_NONE)
		return NULL;
	return po->output ? po->output : fg_output_default_name(po->format);
}

static int report_workload(const fg_profile_opts *po, const fg_profile_result *res, const char *what)
{
	const char *out = graph_name(po) ? graph_name(po) : "the profile";

	if (res->interrupted) {
		fg_notef("interrupted: the graph covers the first %.1f s of %s", res->seconds_run, what);
		return FG_EXIT_SIGNAL_BASE + (res->interrupt_signal ? res->interrupt_signal : SIGINT);
	}
	if (!res->workload_failed || po->ignore_status)
		return FG_EXIT_OK;
	if (res->signal)
		fg_errorf("%s was killed by %s (signal %d: %s); the graph was still written to %s — "
			  "pass --ignore-status to exit 0 anyway", what, signame(res->signal),
			  res->signal, strsignal(res->signal), out);
	else
		fg_errorf("%s exited with status %d; the graph was still written to %s — pass "
			  "--ignore-status to exit 0 anyway", what, res->exit_code, out);
	return FG_EXIT_WORKLOAD;
}

/* One line at the end: samples, lost, duration, size, where it went. */
static void summary(const fg_profile_opts *po, const fg_profile_result *res)
{
	char size[32];
	const char *out = graph_name(po);

	/* one side of a comparison writes no graph of its own */
	out = !out ? "no graph" : strcmp(out, "-") ? out : "stdout";
	if (po->alloc) {
		char bytes[32], leaked[32], peak[32], tracker[32];
		const fg_alloc_totals *t = &res->alloc;
		fg_record_format_size(bytes, sizeof(bytes), t->bytes);
		fg_record_format_size(leaked, sizeof(leaked), t->leaked_bytes);
		fg_record_format_size(peak, sizeof(peak), t->peak_bytes);
		fg_record_format_size(tracker, sizeof(tracker), t->tracker_bytes);
		fg_notef("wrote %s (%s%s: %llu allocations, %s allocated, %s leaked in %llu blocks, "
			 "peak %s; %llu stacks, %llu process%s, %.1f s; tracking used %s)", out,
			 fg_alloc_view_name(po->alloc), t->sample_bytes ? ", estimated from samples" : "",
			 (unsigned long long)t->allocations, bytes,
			 leaked, (unsigned long long)t->leaked_blocks, peak,
			 (unsigned long long)res->stacks, (unsigned long long)t->processes,
			 t->processes == 1 ? "" : "es", res->seconds_run, tracker);
		return;
	}
	if (!res->recorded) {
		fg_notef("wrote %s (%llu samples, %llu stacks)", out, (unsigned long long)res->samples,
			 (unsigned long long)res->stacks);
		return;
	}
	fg_record_format_size(size, sizeof(size), res->record_bytes);
	if (po->record.mode != FG_RECORD_ON_CPU) {
		char on[48] = "";
		if (po->record.mode == FG_RECORD_HOT_COLD)
			snprintf(on, sizeof(on), "%llu on-CPU samples, ",
				 (unsigned long long)res->on_cpu_samples);
		fg_notef("wrote %s (%s%llu wait%s, %.1f ms off CPU, %llu lost, %llu stacks; %.1f s "
			 "recorded, %s)", out, on, (unsigned long long)res->off_cpu_waits,
			 res->off_cpu_waits == 1 ? "" : "s", (double)res->off_cpu_us / 1000.0,
			 (unsigned long long)res->lost, (unsigned long long)res->stacks,
			 res->seconds_run, size);
	} else if (!graph_name(po))
		fg_notef("recorded %llu samples, %llu stacks (%.1f s, %s)",
			 (unsigned long long)res->samples, (unsigned long long)res->stacks,
			 res->seconds_run, size);
	else if (res->lost_known)
		fg_notef("wrote %s (%llu samples, %llu lost, %llu stacks; %.1f s recorded, %s)", out,
			 (unsigned long long)res->samples, (unsigned long long)res->lost,
			 (unsigned long long)res->stacks, res->seconds_run, size);
	else
		fg_notef("wrote %s (%llu samples, %llu stacks; %.1f s recorded, %s)", out,
			 (unsigned long long)res->samples, (unsigned long long)res->stacks,
			 res->seconds_run, size);
	if (res->capped) {
		fg_record_format_size(size, sizeof(size), res->max_size);
		fg_warnf("the recording reached its %s cap after %.1f s: the graph covers only that "
			 "part — raise it with --max-size", size, res->seconds_at_cap);
	}
	if (res->lost_known && res->lost)
		fg_warnf("%llu samples were lost (the ring buffer overflowed) — record with "
			 "--call-graph fp, a lower -F or a bigger --buffer-size",
			 (unsigned long long)res->lost);
}

void fg_profile_cli_before(const fg_profile_opts *po)
{
	the_printer.what = po->argc ? po->argv[0] : po->npids ? "the process" : po->perfdata;
}

int fg_profile_cli_report(const fg_profile_opts *po, const fg_profile_cli *pc,
			  const fg_profile_result *res, int err)
{
	const char *what = the_printer.what;
	int code;

	clear_line(&the_printer);
	if (err) {
		if (res->recorded && res->workload_failed && res->signal && res->signal != SIGINT)
			fg_warnf("%s was killed by %s (signal %d: %s)", what, signame(res->signal),
				 res->signal, strsignal(res->signal));
		else if (res->recorded && res->workload_failed && !res->signal)
			fg_warnf("%s exited with status %d", what, res->exit_code);
		code = fg_die_lib(err);
		if (err == FG_EINTR && res->interrupt_signal)
			code = FG_EXIT_SIGNAL_BASE + res->interrupt_signal;
		/* a program that failed before its first sample: its failure is
		 * the news, as when it fails after a graph was written */
		else if (err == FG_ENODATA && res->recorded && res->workload_failed &&
			 !po->ignore_status)
			code = FG_EXIT_WORKLOAD;
		return code;
	}
	code = report_workload(po, res, what);
	summary(po, res);
	fg_profile_cli_open_graph(po, pc);
	return code;
}

void fg_profile_cli_open_graph(const fg_profile_opts *po, const fg_profile_cli *pc)
{
	const char *out = graph_name(po);

	if (pc->open && out && strcmp(out, "-") != 0)
		fg_profile_cli_open(out);
}

int fg_profile_cli_run(const fg_profile_opts *po, const fg_profile_cli *pc)
{
	fg_profile_result res = FG_PROFILE_RESULT_INIT;
	int err;

	fg_profile_cli_before(po);
	err = fg_profile_run(po, &res);
	/* the outputs are written by then: no exit 0 for a graph that may
	 * lack what a failed allocation held */
	if (!err)
		err = fg_cli_check_memory();
	return fg_profile_cli_report(po, pc, &res, err);
}

static void before_run(void *ctx, const fg_profile_opts *po)
{
	(void)ctx;
	fg_profile_cli_before(po);
}

/* Each side of a comparison is reported as a run of its own; the graph
 * is opened once, at the end. */
static int after_run(void *ctx, const fg_profile_opts *po, const fg_profile_result *res, int err)
{
	fg_profile_cli side = *(const fg_profile_cli *)ctx;

	side.open = false;
	return fg_profile_cli_report(po, &side, res, err);
}

/* Whether the last run of fg_build_and_profile wrote its graph: a
 * workload that failed still has one to open. */
static bool graph_written;

static int after_build_run(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			   int err)
{
	graph_written = !err && res->output_written;
	return after_run(ctx, po, res, err);
}

void fg_profile_cli_build_hooks(fg_build_and_profile_opts *bo, const fg_profile_cli *pc)
{
	bo->before_run = before_run;
	bo->after_run = after_build_run;
	bo->run_ctx = (void *)pc;
}

int fg_profile_cli_build_done(const fg_build_and_profile_opts *bo, const fg_profile_cli *pc,
			      const fg_build_and_profile_result *res, int r)
{
	if (r < 0)
		return fg_die_lib(r);
	if (!bo->list && (r == 0 || (!bo->compare.rev && graph_written)))
		fg_profile_cli_open_graph(&bo->run.profile, pc);
	return r ? r : res->gate_failed ? FG_EXIT_REGRESSION : FG_EXIT_OK;
}

void fg_profile_cli_release(fg_profile_cli *pc)
{
	fg_strlist_release(&pc->skip_after);
}
