/* The pipeline behind `flamegraph` and `flamegraph-build`: checks, record,
 * perf script streamed into the collapser, post-processing, outputs. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flamegraph/collapse.h"
#include "flamegraph/elfcheck.h"
#include "flamegraph/error.h"
#include "flamegraph/pprof.h"
#include "flamegraph/profile.h"
#include "lib/profile/capture_notes.h"
#include "util/cleanup.h"
#include "util/input.h"
#include "util/interrupt.h"
#include "util/outfile.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* perf script output is read in chunks this big: large enough that the
 * per-chunk costs vanish, small enough to stay in cache. */
#define FG_SCRIPT_CHUNK (256u * 1024u)

typedef struct run {
	const fg_profile_opts *o;
	fg_profile_result *res;
	fg_record_opts rec;
	const char *program;       /* what is profiled, for messages */
	char *program_path;        /* argv[0] resolved on PATH */
	fg_strbuf perfdata;        /* the perf.data being recorded/read */
	bool perfdata_is_temp;
	fg_outfile *out, *folded;
	fg_collapser *collapser;
	fg_offcpu *offcpu;         /* off-CPU modes: between perf script and
				      the collapser */
	fg_folded *stacks;
	fg_strbuf post;            /* post-processed folded text */
	int interrupts_seen;       /* interrupt requests the recording handled */
	uint64_t recorded_samples; /* samples in the recording (perf.data) */
	fg_render_opts render;     /* o->render with the subtitle extended */
	fg_strbuf subtitle;
	double processing_start, last_status;
	uint64_t samples_read;     /* samples in the text read so far */
	char last_fed;             /* the last byte of the text fed */
} run;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Fewer samples than this get a warning (the run still writes its graph). */
#define FEW_SAMPLES 10

static void emit(run *r, fg_profile_event kind, const char *msg, double value)
{
	if (kind == FG_PROFILE_WARNING)
		r->res->nwarnings++;
	if (r->o->on_event)
		r->o->on_event(r->o->event_ctx, kind, msg, value);
}

static void emit_cmd(run *r, char **argv)
{
	fg_strvec sv = { argv, 0, 0 };
	fg_strbuf sb = FG_STRBUF_INIT;

	while (argv[sv.n])
		sv.n++;
	fg_strvec_join_quoted(&sv, &sb);
	emit(r, FG_PROFILE_COMMAND, sb.buf, 0);
	fg_strbuf_release(&sb);
}

int fg_output_format_parse(fg_output_format *out, const char *name)
{
	static const char *const names[] = { "svg", "folded", "json", "pprof" };
	unsigned i;

	for (i = 0; name && i < 4; i++) {
		if (!strcmp(name, names[i])) {
			*out = (fg_output_format)i;
			return 0;
		}
	}
	return fg_error_set(FG_EINVAL, "unknown output format '%s' — use svg, folded, json or pprof",
			    name ? name : "");
}

const char *fg_output_default_name(fg_output_format format)
{
	switch (format) {
	case FG_OUTPUT_FOLDED: return "stacks.folded";
	case FG_OUTPUT_JSON: return "profile.speedscope.json";
	case FG_OUTPUT_PPROF: return "profile.pb.gz";
	case FG_OUTPUT_NONE: return NULL;
	default: return "flamegraph.svg";
	}
}

/* The graph's file ("-": stdout), or NULL when none is written. */
static const char *graph_path(const fg_profile_opts *o)
{
	if (o->format == FG_OUTPUT_NONE)
		return NULL;
	return o->output ? o->output : fg_output_default_name(o->format);
}

static int fail_tool_missing(const char *tool, const fg_record_opts *rec)
{
	if (rec->tool_origin && rec->tool && *rec->tool)
		return fg_error_set(FG_ERECORD, "%s names '%s', which is not an executable program — "
				    "fix the path, or unset %s to use the %s on PATH", rec->tool_origin,
				    tool, rec->tool_origin,
				    rec->recorder == FG_RECORDER_DTRACE ? "dtrace" : "perf");
	if (rec->recorder == FG_RECORDER_DTRACE)
		return fg_error_set(FG_ERECORD, "%s was not found — install DTrace (macOS and FreeBSD "
				    "ship it; illumos too) or set DTRACE to its path", tool);
	return fg_error_set(FG_ERECORD, "%s was not found — install perf: Debian: apt install "
			    "linux-perf; Ubuntu: apt install linux-tools-common linux-tools-generic; "
			    "Fedora/RHEL: dnf install perf; Arch: pacman -S perf; openSUSE: zypper "
			    "install perf; or set PERF to its path", tool);
}

static int check_tool(run *r)
{
	const char *tool = r->rec.tool && *r->rec.tool ? r->rec.tool :
			   r->rec.recorder == FG_RECORDER_DTRACE ? "dtrace" : "perf";
	char *path = fg_which(tool);

	if (!path)
		return fail_tool_missing(tool, &r->rec);
	free(path);
	if (r->rec.root) {
		if (!(path = fg_which("sudo")))
			return fg_error_set(FG_ERECORD, "--root needs sudo, which was not found — "
					    "install sudo or run as root without --root");
		free(path);
	}
	return 0;
}

static void elf_warn(void *ctx, const char *msg)
{
	emit(ctx, FG_PROFILE_WARNING, msg, 0);
}

static void check_program(run *r, const char *path, const char *shown)
{
	fg_elfcheck_report rep;

	if (!r->o->check_elf || fg_elfcheck_file(path, &rep) != 0)
		return;
	fg_elfcheck_warnings(&rep, shown, r->rec.call_graph == FG_CALL_GRAPH_FP && !r->rec.custom,
			     r->o->fix_style, elf_warn, r);
}

static int check_pids(run *r)
{
	size_t i;
	fg_strbuf exe = FG_STRBUF_INIT;

	for (i = 0; i < r->o->npids; i++) {
		const char *s = r->o->pids[i];
		unsigned long long pid;
		if (fg_parse_u64(fg_view_cstr(s), &pid) || pid == 0 || pid > 0x7fffffff)
			return fg_error_set(FG_EINVAL, "'%s' is not a PID — give process ids as "
					    "numbers, e.g. --pid 1234,5678", s);
		if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			fg_strbuf_release(&exe);
			return fg_error_set(FG_ENOTFOUND, "no process with PID %llu is running — "
					    "check the PID with ps or pgrep", pid);
		}
		fg_strbuf_reset(&exe);
		fg_strbuf_addf(&exe, "/proc/%llu/exe", pid);
		check_program(r, exe.buf, s);
	}
	fg_strbuf_release(&exe);
	r->program = r->o->npids == 1 ? r->o->pids[0] : "the processes";
	return 0;
}

static int check_command(run *r)
{
	const char *prog = r->o->argv[0];
	fg_strbuf in_cwd = FG_STRBUF_INIT;

	/* a relative path names a file where the command runs */
	if (r->o->cwd && prog[0] != '/' && strchr(prog, '/')) {
		fg_strbuf_addf(&in_cwd, "%s/%s", r->o->cwd, prog);
		r->program_path = fg_which(in_cwd.buf);
	} else {
		r->program_path = fg_which(prog);
	}
	fg_strbuf_release(&in_cwd);
	if (!r->program_path)
		return fg_error_set(FG_ENOTFOUND, "program '%s' was not found%s — check the name, "
				    "or give its path (./%s)", prog,
				    strchr(prog, '/') ? " or is not executable" : " on PATH", prog);
	r->program = prog;
	check_program(r, r->program_path, prog);
	return 0;
}

/* A temporary perf.data: beside --perfdata-out (so that keeping it is a
 * rename), else in tmpdir. */
static int make_perfdata(run *r)
{
	const char *keep = r->o->perfdata_out;
	const char *slash = keep ? strrchr(keep, '/') : NULL;
	int fd;

	if (keep && slash)
		fg_strbuf_add(&r->perfdata, keep, (size_t)(slash - keep) + 1);
	else if (!keep)
		fg_strbuf_addf(&r->perfdata, "%s/", r->o->tmpdir && *r->o->tmpdir ? r->o->tmpdir : "/tmp");
	fg_strbuf_addstr(&r->perfdata, ".flamegraph-perf.XXXXXX");
	if ((fd = mkstemp(r->perfdata.buf)) < 0)
		return fg_error_set(FG_EIO, "cannot create a temporary perf.data in %s: %s",
				    keep ? "the folder of --perfdata-out" : "the temporary folder",
				    strerror(errno));
	close(fd);
	/* a recorder that runs the command in its own folder (DTrace, -c)
	 * must find the recording from there */
	if (r->o->cwd && r->perfdata.buf[0] != '/') {
		char *abs = realpath(r->perfdata.buf, NULL);
		if (abs) {
			fg_strbuf_reset(&r->perfdata);
			fg_strbuf_addstr(&r->perfdata, abs);
			free(abs);
		}
	}
	r->perfdata_is_temp = true;
	fg_cleanup_add_path(r->perfdata.buf, false);
	return 0;
}

/* The recorder ran but left nothing: DTrace, a custom perf command or a
 * process list ended before writing anything. */
static int record_failed(run *r, const fg_exit_status *st)
{
	fg_strbuf how = FG_STRBUF_INIT;
	int err;

	if (st->signal)
		fg_strbuf_addf(&how, "was killed by signal %d", st->signal);
	else
		fg_strbuf_addf(&how, "exited with status %d", st->code);
	err = fg_error_set(FG_ERECORD, "%s %s and wrote no data — see its message above",
			   r->rec.recorder == FG_RECORDER_DTRACE ? "dtrace" : "perf record", how.buf);
	fg_strbuf_release(&how);
	return err;
}

static bool file_has_data(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0;
}

static void status(run *r, fg_profile_stage stage, double elapsed, uint64_t bytes)
{
	fg_profile_status st = { stage, elapsed, bytes, r->samples_read, r->recorded_samples };

	if (r->o->on_status)
		r->o->on_status(r->o->event_ctx, &st);
}

static void on_record_event(void *ctx, fg_record_event kind, const char *msg, double elapsed,
			    uint64_t bytes)
{
	run *r = ctx;
	fg_strbuf sb = FG_STRBUF_INIT;

	switch (kind) {
	case FG_RECORD_TICK:
		status(r, r->res->capped ? FG_STAGE_CAPPED : FG_STAGE_RECORDING, elapsed, bytes);
		break;
	case FG_RECORD_CAPPED:
		r->res->capped = true;
		break;
	case FG_RECORD_WARNING:
		fg_strbuf_addf(&sb, "perf: %s", msg);
		emit(r, FG_PROFILE_WARNING, sb.buf, 0);
		fg_strbuf_release(&sb);
		break;
	}
}

static void show_record_command(run *r, const fg_record_run_opts *ro)
{
	fg_record_opts shown = ro->rec;
	char **argv = NULL;

	if (ro->attach) {
		/* the real PID and fifos are only known once they exist */
		shown.attach_pid = 1;
		shown.control_ctl = "CTL";
		shown.control_ack = "ACK";
	}
	if (!fg_record_command(&argv, &shown)) {
		for (size_t i = 0; ro->attach && argv[i] && argv[i + 1]; i++) {
			char *pid;
			if (strcmp(argv[i], "-p") || !(pid = fg_strdup("PID")))
				continue;
			free(argv[i + 1]);
			argv[i + 1] = pid;
		}
		emit_cmd(r, argv);
	}
	fg_argv_free(argv);
	fg_error_clear();
}

static void take_outcome(run *r, const fg_record_outcome *out)
{
	fg_profile_result *res = r->res;

	res->seconds_record = out->seconds;
	res->seconds_run = out->seconds_workload > 0 ? out->seconds_workload : out->seconds;
	res->record_bytes = out->bytes;
	res->capped = out->capped;
	res->seconds_at_cap = out->seconds_at_cap;
	res->exit_code = out->workload_code;
	res->signal = out->workload_signal;
	res->interrupted = out->interrupted != 0 || out->workload_signal == SIGINT ||
			   (!out->workload_known && out->workload_code == 128 + SIGINT);
	res->interrupt_signal = out->interrupted ? out->interrupted : res->interrupted ? SIGINT : 0;
	/* a workload that we stopped (interrupt, size cap) did not fail */
	res->workload_failed = !res->interrupted && !(out->capped && out->workload_signal == SIGTERM) &&
			       (out->workload_signal != 0 || out->workload_code != 0);
}

static int do_record(run *r)
{
	fg_record_run_opts ro = FG_RECORD_RUN_OPTS_INIT;
	fg_record_outcome out;
	int err;

	r->rec.output = r->perfdata.buf;
	ro.rec = r->rec;
	/* perf runs the workload itself only for a custom command (whose
	 * arguments may not allow attaching) and for DTrace */
	ro.attach = r->rec.recorder == FG_RECORDER_PERF && !r->rec.custom && r->o->argc > 0;
	ro.continue_at_max = r->o->continue_at_max;
	ro.workload_stdout = r->o->workload_stdout_to_stderr ? STDERR_FILENO : -1;
	ro.tmpdir = r->o->tmpdir;
	ro.on_event = on_record_event;
	ro.event_ctx = r;
	show_record_command(r, &ro);
	err = fg_record_run(&ro, &out);
	status(r, FG_STAGE_DONE, 0, 0);
	take_outcome(r, &out);
	emit(r, FG_PROFILE_TIMING, "record", r->res->seconds_record);
	if (err && out.recorder_missing)
		return fail_tool_missing(r->rec.tool ? r->rec.tool : "perf", &r->rec);
	if (err)
		return err;
	r->res->recorded = true;
	if (!file_has_data(r->perfdata.buf)) {
		fg_exit_status st = { out.workload_code, out.workload_signal };
		return record_failed(r, &st);
	}
	return 0;
}

/* An interrupt once the recording is over abandons the run: the user
 * wants out, and there is no partial graph worth writing. */
static int check_interrupt(run *r)
{
	if (fg_interrupt_count() == r->interrupts_seen)
		return 0;
	fg_interrupt_drain();
	r->res->interrupted = true;
	r->res->interrupt_signal = fg_interrupt_signal();
	return fg_error_set(FG_EINTR, "interrupted while reading the recording: nothing was written");
}

/* perf script separates samples with a blank line: counting "\n\n" (also
 * across chunks) gives the progress through the recording, for the
 * status line, at memchr speed. */
static void count_samples(run *r, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	if (!len)
		return;
	if (r->last_fed == '\n' && *p == '\n')
		r->samples_read++;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) && ++p < end)
		if (*p == '\n')
			r->samples_read++;
	r->last_fed = end[-1];
}

static int feed_timed(run *r, const char *buf, size_t len)
{
	double t0 = now();
	int err = r->offcpu ? fg_offcpu_feed(r->offcpu, buf, len) :
			      fg_collapser_feed(r->collapser, buf, len);

	r->res->seconds_collapse += now() - t0;
	r->res->script_bytes += len;
	count_samples(r, buf, len);
	emit(r, FG_PROFILE_PROGRESS, NULL, (double)r->res->script_bytes);
	if (t0 - r->last_status >= 0.1) {
		r->last_status = t0;
		status(r, FG_STAGE_PROCESSING, t0 - r->processing_start, r->res->script_bytes);
	}
	return err ? err : check_interrupt(r);
}

static int feed_sink(void *ctx, const char *buf, size_t len)
{
	return feed_timed(ctx, buf, len);
}

/* `perf script` streamed into the collapser. */
static int do_script(run *r)
{
	char **argv = NULL;
	double t0 = now();
	int err;

	if (!fg_record_script_command(&argv, &r->rec, r->perfdata.buf, r->o->no_inline))
		emit_cmd(r, argv);
	fg_argv_free(argv);
	err = fg_record_script_stream(&r->rec, r->perfdata.buf, r->o->no_inline, feed_sink, r,
				      on_record_event, r);
	if (err == FG_ENOTFOUND)
		err = fail_tool_missing(r->rec.tool ? r->rec.tool : "perf", &r->rec);
	if (err == FG_EINTR) {
		r->res->interrupted = true;
		r->res->interrupt_signal = fg_interrupt_signal();
	}
	emit(r, FG_PROFILE_PROGRESS_END, NULL, (double)r->res->script_bytes);
	status(r, FG_STAGE_DONE, 0, 0);
	r->res->seconds_script = now() - t0 - r->res->seconds_collapse;
	emit(r, FG_PROFILE_TIMING, "script", r->res->seconds_script);
	return err;
}

/* Text input (DTrace output, or perf script text given as --perfdata):
 * straight into the collapser. */
static int do_read_text(run *r)
{
	fg_input *in = NULL;
	char *buf = NULL;
	ssize_t n;
	int err;

	if ((err = fg_input_open(&in, r->perfdata.buf)))
		return err;
	if (!(buf = fg_malloc(FG_SCRIPT_CHUNK))) {
		err = FG_ENOMEM;
		goto done;
	}
	while ((n = fg_input_read(in, buf, FG_SCRIPT_CHUNK)) > 0)
		if ((err = feed_timed(r, buf, (size_t)n)))
			goto done;
	if (n < 0)
		err = (int)n;
	emit(r, FG_PROFILE_PROGRESS_END, NULL, (double)r->res->script_bytes);
done:
	free(buf);
	fg_input_close(in);
	return err;
}

static bool is_perf_data(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 8 && !memcmp(magic, "PERFILE2", 8);
}

static int offcpu_sink(void *ctx, const char *buf, size_t len)
{
	run *r = ctx;

	return fg_collapser_feed(r->collapser, buf, len);
}

/* Off-CPU modes: waits (and on-CPU samples) weighed in microseconds
 * before the collapser sees them. */
static int new_offcpu(run *r)
{
	unsigned freq = r->rec.freq ? r->rec.freq : 997;

	if (r->rec.mode == FG_RECORD_ON_CPU)
		return 0;
	return fg_offcpu_new(&r->offcpu, r->rec.mode == FG_RECORD_HOT_COLD,
			     (1000000 + freq / 2) / freq, offcpu_sink, r);
}

static int new_collapser(run *r, fg_format fmt)
{
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;

	co.skip_after = r->o->skip_after;
	co.nskip_after = r->o->nskip_after;
	co.inline_frames = !r->o->no_inline;
	co.per_thread = r->o->per_thread && !r->o->per_thread_name;
	/* a flame chart's x axis is time: the samples stay in order */
	co.keep_order = r->o->render.flamechart;
	return fg_collapser_new(&r->collapser, fmt, &co);
}

static void warn_skipped(run *r)
{
	fg_collapse_stats st;
	fg_strbuf sb = FG_STRBUF_INIT;
	size_t i;

	fg_collapser_stats(r->collapser, &st);
	for (i = 0; i < st.nwarnings && i < FG_COLLAPSE_MAX_WARNINGS; i++) {
		fg_strbuf_reset(&sb);
		fg_strbuf_addf(&sb, "skipped %llu %s (first at line %llu of the profiler output)",
			       (unsigned long long)st.warnings[i].count, st.warnings[i].what,
			       (unsigned long long)st.warnings[i].first_line);
		emit(r, FG_PROFILE_WARNING, sb.buf, 0);
	}
	fg_strbuf_release(&sb);
	r->res->samples = st.samples;
	r->res->stacks = st.stacks;
}

static int collapse(run *r)
{
	bool perf_data = r->rec.recorder == FG_RECORDER_PERF &&
			 (r->res->recorded || is_perf_data(r->perfdata.buf));
	fg_format fmt = r->res->recorded ?
		(r->rec.recorder == FG_RECORDER_DTRACE ? FG_FORMAT_DTRACE : FG_FORMAT_PERF) :
		perf_data ? FG_FORMAT_PERF : FG_FORMAT_UNKNOWN;
	double t0;
	int err;

	if ((err = new_collapser(r, fmt)) || (perf_data && (err = new_offcpu(r))))
		return err;
	err = perf_data ? do_script(r) : do_read_text(r);
	if (err)
		return err;
	t0 = now();
	if (r->offcpu)
		err = fg_offcpu_finish(r->offcpu);
	if (!err)
		err = fg_collapser_finish(r->collapser);
	r->res->seconds_collapse += now() - t0;
	emit(r, FG_PROFILE_TIMING, "collapse", r->res->seconds_collapse);
	if (err)
		return err;
	warn_skipped(r);
	if (r->offcpu) {
		fg_offcpu_stats os;
		fg_offcpu_get_stats(r->offcpu, &os);
		r->res->off_cpu_waits = os.waits;
		r->res->off_cpu_us = os.off_us;
		r->res->on_cpu_samples = os.on_samples;
		if ((r->res->samples == 0 || r->res->stacks == 0) && !r->res->recorded)
			return fg_error_set(FG_ENODATA, "%s holds no off-CPU waits — it needs the "
					    "scheduler events of an off-CPU recording (--off-cpu or "
					    "--hot-cold with --perfdata-out)", r->perfdata.buf);
		if (r->res->samples == 0 || r->res->stacks == 0)
			return fg_error_set(FG_ENODATA, "no off-CPU time was recorded — %s never "
					    "blocked (no sleep, I/O or lock wait) while recorded; "
					    "an on-CPU graph (without --off-cpu) shows where it "
					    "computes", r->program ? r->program : "the program");
	}
	if (r->res->samples == 0 || r->res->stacks == 0) {
		/* a short test at 997 Hz is the usual case: name the two ways
		 * out, with a frequency that samples every ~50 us */
		if (r->res->recorded && r->res->lost_known && r->res->lost)
			return fg_error_set(FG_ENODATA, "no samples were recorded — all %llu were lost "
					    "because perf's ring buffer was full; give it a bigger "
					    "buffer (--buffer-size), record with --call-graph fp, or "
					    "sample less often (-F)", (unsigned long long)r->res->lost);
		if (r->res->recorded && r->o->record.custom)
			return fg_error_set(FG_ENODATA, "no samples were recorded — %s ended before "
					    "the first sample; give it more work (more rounds, a "
					    "bigger input) or sample more often in -c",
					    r->program ? r->program : "the program");
		if (r->res->recorded)
			return fg_error_set(FG_ENODATA, "no samples were recorded — %s ended before "
					    "the first sample at %u Hz; raise the frequency "
					    "(e.g. -F 20000) or give it more work (more rounds, a "
					    "bigger input)", r->program ? r->program : "the program",
					    r->o->record.freq ? r->o->record.freq : 997);
		return fg_error_set(FG_ENODATA, "%s holds no samples — record a longer run",
				    r->perfdata.buf);
	}
	/* a handful of samples makes a graph of noise: say how to get more */
	if (r->res->recorded && r->res->samples < FEW_SAMPLES && !r->offcpu) {
		fg_strbuf sb = FG_STRBUF_INIT;
		fg_strbuf_addf(&sb, "only %llu sample%s recorded — the graph shows little; %s or give "
			       "%s more work", (unsigned long long)r->res->samples,
			       r->res->samples == 1 ? " was" : "s were",
			       r->o->record.custom ? "sample more often in -c" :
			       "raise the frequency (e.g. -F 20000)",
			       r->program ? r->program : "the program");
		emit(r, FG_PROFILE_WARNING, sb.buf, 0);
		fg_strbuf_release(&sb);
	}
	return 0;
}

static int add_stack(void *ctx, const char *stack, size_t len, uint64_t count)
{
	return fg_folded_add(ctx, stack, len, count);
}

static int append_line(void *ctx, const char *stack, size_t len, uint64_t count)
{
	fg_strbuf *sb = ctx;
	int err = fg_strbuf_add(sb, stack, len);

	return err ? err : fg_strbuf_addf(sb, " %llu\n", (unsigned long long)count);
}

/* --post-process: the folded text goes to the command's stdin from a
 * temporary file (no pipe deadlock however much either side writes); its
 * stdout replaces the stacks. */
static int post_process(run *r)
{
	fg_cmd cmd = FG_CMD_INIT;
	fg_strbuf text = FG_STRBUF_INIT;
	fg_exit_status st = { 0, 0 };
	fg_strbuf tmpl = FG_STRBUF_INIT;
	int fd = -1, err;

	if ((err = fg_strvec_split(&cmd.argv, r->o->post_process))) {
		err = fg_error_set(FG_EINVAL, "--post-process: %s", fg_error_last());
		goto done;
	}
	if (!cmd.argv.n) {
		err = fg_error_set(FG_EINVAL, "--post-process needs a command");
		goto done;
	}
	if ((err = fg_collapser_foreach(r->collapser, append_line, &text)))
		goto done;
	fg_strbuf_addf(&tmpl, "%s/.flamegraph-folded.XXXXXX",
		       r->o->tmpdir && *r->o->tmpdir ? r->o->tmpdir : "/tmp");
	if ((fd = mkstemp(tmpl.buf)) < 0) {
		err = fg_error_set(FG_EIO, "cannot create a temporary file: %s", strerror(errno));
		goto done;
	}
	unlink(tmpl.buf);
	if (write(fd, text.buf, text.len) != (ssize_t)text.len || lseek(fd, 0, SEEK_SET) != 0) {
		err = fg_error_set(FG_EIO, "cannot write a temporary file: %s", strerror(errno));
		goto done;
	}
	cmd.stdin_fd = fd;
	emit_cmd(r, cmd.argv.v);
	if ((err = fg_runner_capture(r->rec.runner, &cmd, &r->post, &st))) {
		if (err == FG_ENOTFOUND)
			err = fg_error_set(FG_ECHILD, "--post-process: '%s' was not found — check "
					   "the command", cmd.argv.v[0]);
		goto done;
	}
	if (st.code != 0 || st.signal)
		err = fg_error_set(FG_ECHILD, "--post-process command '%s' failed (%s %d) — the "
				   "graph was not written", cmd.argv.v[0], st.signal ? "signal" : "status",
				   st.signal ? st.signal : st.code);
done:
	if (fd >= 0)
		close(fd);
	fg_strbuf_release(&text);
	fg_strbuf_release(&tmpl);
	fg_cmd_clear(&cmd);
	return err;
}

static int build_stacks(run *r)
{
	int err;

	if ((err = fg_folded_new_ex(&r->stacks, r->o->render.flamechart ? FG_FOLDED_KEEP_ORDER : 0)))
		return err;
	if (!r->o->post_process)
		return fg_collapser_foreach(r->collapser, add_stack, r->stacks);
	if ((err = post_process(r)))
		return err;
	if ((err = fg_folded_feed(r->stacks, r->post.buf, r->post.len)) ||
	    (err = fg_folded_finish(r->stacks)))
		return err;
	if (!fg_folded_total(r->stacks).n && !fg_folded_total(r->stacks).frac)
		return fg_error_set(FG_ENODATA, "--post-process '%s' left no stacks — check its "
				    "output format (\"a;b;c COUNT\" lines)", r->o->post_process);
	return 0;
}

/* Folded text: the post-processed text when there is one, else straight
 * from the collapser. */
static int write_folded(run *r, FILE *fp)
{
	int err;

	if (r->o->post_process) {
		if (fwrite(r->post.buf, 1, r->post.len, fp) != r->post.len)
			return fg_error_set(FG_EIO, "cannot write the folded stacks: %s", strerror(errno));
		return 0;
	}
	err = fg_collapser_write(r->collapser, fp);
	return err;
}

static int write_json(run *r, FILE *fp)
{
	fg_speedscope_opts so = { .name = r->program ? r->program : "profile", .git = r->o->git };

	/* a thread's samples are a profile of their own */
	so.per_root = r->o->per_thread;
	if (r->rec.mode != FG_RECORD_ON_CPU)
		so.unit = "microseconds";
	return fg_speedscope_write_opts(fp, &so, r->stacks);
}

/* pprof: perf's default event is cpu-clock, whose sample periods are
 * nanoseconds of CPU time; another event (-c) is counted in samples. */
static int write_pprof(run *r, FILE *fp)
{
	fg_pprof_opts po = FG_PPROF_OPTS_INIT;
	const fg_record_opts *rec = &r->o->record;

	if (rec->recorder == FG_RECORDER_PERF && rec->mode != FG_RECORD_ON_CPU) {
		po.sample_type = rec->mode == FG_RECORD_OFF_CPU ? "off-cpu" : "time";
		po.sample_unit = "microseconds";
	} else if (rec->recorder == FG_RECORDER_PERF && !rec->custom) {
		po.sample_type = "cpu";
		po.sample_unit = "nanoseconds";
		/* a re-rendered recording may have had another rate */
		if (rec->freq && !r->o->perfdata)
			po.period = (int64_t)(1000000000u / rec->freq);
	}
	po.comment = r->program;
	return fg_pprof_write(r->stacks, &po, fp);
}

static int write_outputs(run *r)
{
	double t0 = now();
	FILE *fp = r->out ? fg_outfile_stream(r->out) : NULL;
	int err = 0;

	switch (r->o->format) {
	case FG_OUTPUT_NONE:
		break;
	case FG_OUTPUT_FOLDED:
		err = write_folded(r, fp);
		break;
	case FG_OUTPUT_JSON:
		err = write_json(r, fp);
		break;
	case FG_OUTPUT_PPROF:
		err = write_pprof(r, fp);
		break;
	default:
		err = fg_render_svg(r->stacks, &r->render, fp);
		break;
	}
	if (!err && r->folded)
		err = write_folded(r, fg_outfile_stream(r->folded));
	r->res->seconds_render = now() - t0;
	emit(r, FG_PROFILE_TIMING, "render", r->res->seconds_render);
	if (err)
		return err;
	if (r->folded) {
		err = fg_outfile_commit(r->folded);
		r->folded = NULL;
		if (err)
			return err;
	}
	if (!r->out)
		return 0;
	err = fg_outfile_commit(r->out);
	r->out = NULL;
	if (!err)
		r->res->output_written = true;
	return err;
}

/* No output may land on the --perfdata input or on another output: the
 * atomic rename would replace the input, or one output the other. */
static int check_paths(const fg_profile_opts *o)
{
	const char *out = graph_path(o);
	const struct { const char *path, *what; } files[] = {
		{ o->perfdata, "the --perfdata input" },
		{ out && strcmp(out, "-") ? out : NULL, "the output (-o)" },
		{ o->folded_out, "the --folded output" },
		{ o->perfdata_out, "the --perfdata-out file" },
	};
	size_t n = sizeof(files) / sizeof(files[0]);

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (files[i].path && files[j].path && fg_same_path(files[i].path, files[j].path))
				return fg_error_set(FG_EINVAL, "%s is both %s and %s — writing it would "
						    "%s; give each its own file name", files[j].path,
						    files[i].what, files[j].what,
						    i == 0 ? "destroy the input" : "lose one of them");
	return 0;
}

static int check_opts(const fg_profile_opts *o)
{
	int targets = (o->argc > 0) + (o->npids > 0) + (o->perfdata != NULL);

	if (targets != 1)
		return fg_error_set(FG_EINVAL, targets ? "give only one of a command, --pid or --perfdata"
					       : "nothing to profile — give a command, --pid PID or --perfdata FILE");
	if (o->record.custom && o->record.freq && o->record.freq != 997)
		return fg_error_set(FG_EINVAL, "-c/--cmd replaces the perf arguments, so it cannot be "
				    "combined with -F — put -F in the -c string");
	/* bad graph options fail before a recording, not after it */
	if (o->format == FG_OUTPUT_SVG) {
		int err = fg_render_opts_check(&o->render);
		if (err)
			return err;
	}
	return check_paths(o);
}

static int open_outputs(run *r)
{
	int err;

	if (graph_path(r->o) && (err = fg_outfile_open(&r->out, graph_path(r->o))))
		return err;
	if (r->o->folded_out && (err = fg_outfile_open(&r->folded, r->o->folded_out)))
		return err;
	return 0;
}

static int keep_perfdata(run *r)
{
	if (!r->o->perfdata_out || !r->res->recorded)
		return 0;
	if (rename(r->perfdata.buf, r->o->perfdata_out) != 0)
		return fg_error_set(FG_EIO, "cannot keep perf.data as %s: %s", r->o->perfdata_out,
				    strerror(errno));
	r->perfdata_is_temp = false;
	fg_cleanup_remove_path(r->perfdata.buf);
	return 0;
}

/* The folder the recording goes to: beside --perfdata-out, else tmpdir. */
static void record_dir(const run *r, fg_strbuf *dir)
{
	const char *keep = r->o->perfdata_out, *slash = keep ? strrchr(keep, '/') : NULL;

	if (keep && slash)
		fg_strbuf_add(dir, keep, slash == keep ? 1 : (size_t)(slash - keep));
	else if (keep)
		fg_strbuf_addstr(dir, ".");
	else
		fg_strbuf_addstr(dir, r->o->tmpdir && *r->o->tmpdir ? r->o->tmpdir : "/tmp");
}

/* Limits before anything runs: the kernel's sampling limit, the size cap,
 * the ring buffer. */
static int plan_recording(run *r)
{
	fg_record_plan plan;
	fg_strbuf dir = FG_STRBUF_INIT, note = FG_STRBUF_INIT;
	int err;

	if (r->rec.recorder != FG_RECORDER_PERF)
		return 0;
	record_dir(r, &dir);
	snprintf(r->res->record_dir, sizeof(r->res->record_dir), "%s", dir.buf);
	if (!(err = fg_record_plan_make(&plan, &r->rec, dir.buf))) {
		r->rec.max_size = plan.max_size;
		r->res->max_size = plan.max_size;
		if (!r->rec.custom)
			r->rec.buffer_bytes = plan.buffer_bytes;
		fg_capture_note_plan(&note, &plan, &r->rec, dir.buf);
		if (note.len)
			emit(r, FG_PROFILE_NOTE, note.buf, 0);
	}
	fg_strbuf_release(&dir);
	fg_strbuf_release(&note);
	return err;
}

static void count_lost(run *r)
{
	fg_perfdata_counts c;

	if (r->rec.recorder != FG_RECORDER_PERF || fg_perfdata_count(r->perfdata.buf, &c) != 0) {
		fg_error_clear();
		return;
	}
	r->recorded_samples = c.samples;
	r->res->lost = c.lost;
	r->res->lost_known = c.complete;
}

/* The graph's subtitle tells what it does not cover. */
static int make_subtitle(run *r)
{
	fg_capture_subtitle(&r->subtitle, r->o->render.subtitle, r->res, r->recorded_samples);
	r->render = r->o->render;
	if (r->subtitle.len)
		r->render.subtitle = r->subtitle.buf;
	if (r->rec.mode != FG_RECORD_ON_CPU) {
		bool hot_cold = r->rec.mode == FG_RECORD_HOT_COLD;
		if (!r->render.title)
			r->render.title = hot_cold ? "Hot/Cold Flame Graph" : "Off-CPU Time Flame Graph";
		if (!r->render.count_name)
			r->render.count_name = "us";
		if (hot_cold)
			r->render.cold_root = FG_OFFCPU_ROOT;
	}
	return 0;
}

static int pipeline(run *r)
{
	const fg_profile_opts *o = r->o;
	int err;

	if ((err = check_opts(o)) || (err = open_outputs(r)))
		return err;
	if (o->perfdata) {
		if (access(o->perfdata, R_OK) != 0)
			return fg_error_set(errno == ENOENT ? FG_ENOTFOUND : FG_EIO,
					    "cannot read %s: %s — give the perf.data to render",
					    o->perfdata, strerror(errno));
		fg_strbuf_addstr(&r->perfdata, o->perfdata);
		r->program = o->perfdata;
		if (r->rec.recorder == FG_RECORDER_PERF && is_perf_data(o->perfdata)) {
			if ((err = check_tool(r)))
				return err;
			count_lost(r);
		}
	} else {
		if ((err = o->npids ? check_pids(r) : check_command(r)) || (err = check_tool(r)) ||
		    (err = plan_recording(r)) || (err = make_perfdata(r)) || (err = do_record(r)))
			return err;
		r->interrupts_seen = fg_interrupt_count();
		count_lost(r);
	}
	r->processing_start = now();
	if ((err = collapse(r)) || (err = build_stacks(r)) || (err = make_subtitle(r)) ||
	    (err = write_outputs(r)))
		return err;
	return keep_perfdata(r);
}

int fg_profile_run(const fg_profile_opts *opts, fg_profile_result *res)
{
	fg_profile_result scratch = FG_PROFILE_RESULT_INIT;
	fg_profile_result init = FG_PROFILE_RESULT_INIT;
	run r;
	int err;

	memset(&r, 0, sizeof(r));
	r.o = opts;
	r.res = res ? res : &scratch;
	*r.res = init;
	r.rec = opts->record;
	r.rec.argv = opts->argv;
	r.rec.argc = opts->argc;
	r.rec.pids = opts->pids;
	r.rec.npids = opts->npids;
	r.rec.env = opts->env;
	r.rec.nenv = opts->nenv;
	r.rec.cwd = opts->cwd;
	fg_strbuf_init(&r.perfdata, 0);
	fg_strbuf_init(&r.post, 0);
	fg_strbuf_init(&r.subtitle, 0);
	r.render = opts->render;
	if ((err = fg_interrupt_init()))
		return err;
	fg_interrupt_reset();
	fg_interrupt_set_active(true);

	err = pipeline(&r);
	fg_interrupt_set_active(false);
	if (!err && opts->stacks_out) {
		*opts->stacks_out = r.stacks;
		r.stacks = NULL;
	}

	fg_outfile_abort(r.out);
	fg_outfile_abort(r.folded);
	if (r.perfdata_is_temp) {
		unlink(r.perfdata.buf);
		fg_cleanup_remove_path(r.perfdata.buf);
	}
	fg_strbuf_release(&r.subtitle);
	fg_collapser_free(r.collapser);
	fg_offcpu_free(r.offcpu);
	fg_folded_free(r.stacks);
	fg_strbuf_release(&r.perfdata);
	fg_strbuf_release(&r.post);
	free(r.program_path);
	return err;
}
