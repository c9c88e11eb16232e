/* The recording read: natively (perfdata.h), or `perf script` streamed
 * (through the off-CPU filter in those modes) into the collapser, or a
 * text input fed to it; the folded stacks then post-processed into
 * r->stacks. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "flamegraph/recorder.h"
#include "flamegraph/perfdata.h"
#include "lib/run/capture_notes.h"
#include "lib/run/run.h"
#include "util/input.h"
#include "util/interrupt.h"
#include "util/process.h"
#include "util/strvec.h"
#include "util/banned.h"

/* perf script output is read in chunks this big: large enough that the
 * per-chunk costs vanish, small enough to stay in cache. */
#define FG_SCRIPT_CHUNK (256u * 1024u)

/* Fewer samples than this get a warning (the run still writes its graph). */
#define FEW_SAMPLES 10

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
	double t0 = fg_run_now();
	int err = r->offcpu ? fg_offcpu_feed(r->offcpu, buf, len) :
			      fg_collapser_feed(r->collapser, buf, len);

	r->res->seconds_collapse += fg_run_now() - t0;
	r->res->script_bytes += len;
	count_samples(r, buf, len);
	fg_run_emit(r, FG_PROFILE_PROGRESS, NULL, (double)r->res->script_bytes);
	if (t0 - r->last_status >= 0.1) {
		r->last_status = t0;
		fg_run_status(r, FG_STAGE_PROCESSING, t0 - r->processing_start, r->res->script_bytes);
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
	double t0 = fg_run_now();
	int err;

	if (!fg_record_script_command(&argv, &r->rec, r->perfdata.buf, r->o->no_inline))
		fg_run_emit_cmd(r, argv);
	fg_argv_free(argv);
	err = fg_record_script_stream(&r->rec, r->perfdata.buf, r->o->no_inline, feed_sink, r,
				      fg_run_on_record_event, r);
	if (err == FG_ENOTFOUND)
		err = fg_run_fail_tool_missing(r->rec.tool ? r->rec.tool :
					       fg_recorder_tool(r->rec.recorder), &r->rec);
	if (err == FG_EINTR) {
		r->res->interrupted = true;
		r->res->interrupt_signal = fg_interrupt_signal();
	}
	fg_run_emit(r, FG_PROFILE_PROGRESS_END, NULL, (double)r->res->script_bytes);
	fg_run_status(r, FG_STAGE_DONE, 0, 0);
	r->res->seconds_script = fg_run_now() - t0 - r->res->seconds_collapse;
	fg_run_emit(r, FG_PROFILE_TIMING, "script", r->res->seconds_script);
	return err;
}

/* Opens the recording for the native reader. *out stays NULL (and the
 * caller runs perf script) when it cannot be read natively: a note says
 * why when the recording holds what the reader does not support, or when
 * perf recorded as root and the file is not readable here. */
void fg_run_perfdata_opts(const run *r, fg_perfdata_opts *opts)
{
	fg_perfdata_opts init = FG_PERFDATA_OPTS_INIT;

	*opts = init;
	opts->inline_frames = !r->o->no_inline;
	opts->lines = r->o->lines;
	opts->buildid_dir = r->o->buildid_dir;
	opts->cache_dir = r->o->debug_cache_dir;
	/* the program started held before its exec (where it cannot be
	 * held after it) and exec'd under perf's eyes: what ran before the
	 * exec is our own launcher */
	opts->from_exec = fg_run_attaches(r) && !fg_hold_after_exec();
}

void fg_run_unsupported_note(fg_strbuf *note, const char *path, const char *why)
{
	fg_strbuf_addf(note, "%s holds %s, which the native reader does not read yet: "
		       "using perf script", path, why);
}

static int open_native(run *r, fg_perfdata **out)
{
	fg_perfdata_opts opts;
	fg_strbuf note = FG_STRBUF_INIT;
	const char *why;
	int err;

	*out = NULL;
	fg_run_perfdata_opts(r, &opts);
	if ((err = fg_perfdata_open(out, r->perfdata.buf, &opts))) {
		if (err != FG_EIO || !r->rec.root)
			return err;
		/* a recording made through sudo may be root's alone */
		fg_strbuf_addf(&note, "%s is not readable here (%s): reading it with perf script "
			       "through sudo", r->perfdata.buf, fg_error_last());
		fg_error_clear();
	} else if ((why = fg_perfdata_unsupported(*out))) {
		fg_run_unsupported_note(&note, r->perfdata.buf, why);
		fg_perfdata_free(*out);
		*out = NULL;
	}
	if (note.len)
		fg_run_emit(r, FG_PROFILE_NOTE, note.buf, 0);
	fg_strbuf_release(&note);
	return 0;
}

/* The native reader's progress: the status line, and an interrupt
 * heard while it reads. */
static int native_progress(void *ctx, uint64_t samples)
{
	run *r = ctx;
	double t = fg_run_now();

	r->samples_read = samples;
	if (t - r->last_status >= 0.1) {
		r->last_status = t;
		fg_run_status(r, FG_STAGE_PROCESSING, t - r->processing_start, 0);
	}
	return check_interrupt(r);
}

/* The recording read natively, straight into the collapser. *done is
 * false when it is to be read through perf script instead. */
static int do_native(run *r, bool *done)
{
	fg_perfdata *pd = NULL;
	fg_perfdata_stats st;
	double t0 = fg_run_now();
	int err;

	*done = false;
	if ((err = open_native(r, &pd)) || !pd)
		return err;
	*done = true;
	r->samples_read = 0;
	fg_run_status(r, FG_STAGE_PROCESSING, 0, 0);
	if (r->offcpu)
		err = fg_perfdata_collapse_offcpu(pd, r->offcpu, &r->sched, native_progress, r);
	else
		err = fg_perfdata_collapse_progress(pd, r->collapser, native_progress, r);
	fg_perfdata_reader_stats(pd, &st);
	if (!err) {
		fg_strbuf note = FG_STRBUF_INIT;
		fg_capture_note_debug(&note, pd);
		if (note.len)
			fg_run_emit(r, FG_PROFILE_NOTE, note.buf, 0);
		fg_strbuf_reset(&note);
		fg_capture_note_cut(&note, pd);
		if (note.len)
			fg_run_emit(r, FG_PROFILE_NOTE, note.buf, 0);
		fg_strbuf_release(&note);
	}
	fg_run_status(r, FG_STAGE_DONE, 0, 0);
	fg_perfdata_free(pd);
	r->samples_read = st.samples;
	/* a compressed recording is not counted before it is read (-z):
	 * the reader, which decompressed it all, knows what was lost */
	if (!err && !r->res->lost_known && r->res->recorded) {
		r->res->lost = st.lost;
		r->res->lost_known = true;
	}
	r->res->read_natively = true;
	r->res->seconds_read = fg_run_now() - t0;
	fg_run_emit(r, FG_PROFILE_TIMING, "read", r->res->seconds_read);
	return err ? err : check_interrupt(r);
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
	fg_run_emit(r, FG_PROFILE_PROGRESS_END, NULL, (double)r->res->script_bytes);
done:
	free(buf);
	fg_input_close(in);
	return err;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fg_run_is_perf_data(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 8 && fg_perfdata_magic(magic, (size_t)n);
}

static int offcpu_sink(void *ctx, const char *buf, size_t len)
{
	run *r = ctx;

	return fg_collapser_feed(r->collapser, buf, len);
}

/* Off-CPU modes: waits (and on-CPU samples) weighed in microseconds
 * before the collapser sees them. */
int fg_run_new_offcpu(run *r)
{
	unsigned freq = fg_record_freq(&r->rec);

	int err;

	if (r->rec.mode == FG_RECORD_ON_CPU)
		return 0;
	/* the native recorder's switches are read as data */
	if (r->rec.recorder == FG_RECORDER_NATIVE)
		return (err = fg_recorder_sched_switch(&r->sched)) ? err :
			fg_offcpu_new_samples(&r->offcpu, r->rec.mode == FG_RECORD_HOT_COLD,
					      (1000000 + freq / 2) / freq, r->collapser);
	return fg_offcpu_new(&r->offcpu, r->rec.mode == FG_RECORD_HOT_COLD,
			     (1000000 + freq / 2) / freq, offcpu_sink, r);
}

int fg_run_new_collapser(run *r, fg_format fmt)
{
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;

	co.skip_after = r->o->skip_after;
	co.nskip_after = r->o->nskip_after;
	co.inline_frames = !r->o->no_inline;
	co.lines = r->o->lines;
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
		fg_run_emit(r, FG_PROFILE_WARNING, sb.buf, 0);
	}
	fg_strbuf_release(&sb);
	r->res->samples = st.samples;
	r->res->stacks = st.stacks;
}

int fg_run_collapse(run *r)
{
	bool perf_data = fg_run_records_perfdata(r->rec.recorder) &&
			 (r->res->recorded || fg_run_is_perf_data(r->perfdata.buf));
	/* an xctrace recording (a .trace bundle) is read back by xctrace
	 * export, streamed as perf script is */
	bool exported = r->rec.recorder == FG_RECORDER_XCTRACE &&
			(r->res->recorded || is_dir(r->perfdata.buf));
	fg_format fmt = r->res->recorded ?
		(r->rec.recorder == FG_RECORDER_DTRACE ? FG_FORMAT_DTRACE :
		 exported ? FG_FORMAT_XCTRACE : FG_FORMAT_PERF) :
		perf_data ? FG_FORMAT_PERF : exported ? FG_FORMAT_XCTRACE : FG_FORMAT_UNKNOWN;

	/* a stream was read as it was recorded */
	bool native = r->stream != NULL;
	double t0;
	int err;

	if ((!r->collapser && (err = fg_run_new_collapser(r, fmt))) ||
	    (perf_data && !native && (err = fg_run_new_offcpu(r))))
		return err;
	/* the off-CPU filter reads perf script's text of the scheduler events */
	if (perf_data && !native && (!r->offcpu || r->rec.recorder == FG_RECORDER_NATIVE) &&
	    !r->o->perf_script &&
	    (err = do_native(r, &native)))
		return err;
	if (!native)
		err = perf_data || exported ? do_script(r) : do_read_text(r);
	if (err)
		return err;
	t0 = fg_run_now();
	if (r->offcpu)
		err = fg_offcpu_finish(r->offcpu);
	if (!err)
		err = fg_collapser_finish(r->collapser);
	r->res->seconds_collapse += fg_run_now() - t0;
	fg_run_emit(r, FG_PROFILE_TIMING, "collapse", r->res->seconds_collapse);
	if (err)
		return err;
	warn_skipped(r);
	if (r->offcpu) {
		fg_offcpu_stats os;
		fg_offcpu_filter_stats(r->offcpu, &os);
		r->res->off_cpu_waits = os.waits;
		r->res->off_cpu_us = os.off_us;
		r->res->on_cpu_samples = os.on_samples;
		if ((r->res->samples == 0 || r->res->stacks == 0) && !r->res->recorded)
			return fg_error_set(FG_ENODATA, "%s holds no off-CPU waits — it needs the "
					    "scheduler events of an off-CPU recording (`opts.record.mode=off_cpu` or "
					    "`opts.record.mode=hot_cold` with `opts.perfdata_out`)", r->perfdata.buf);
		if (r->res->samples == 0 || r->res->stacks == 0)
			return fg_error_set(FG_ENODATA, "no off-CPU time was recorded — %s never "
					    "blocked (no sleep, I/O or lock wait) while recorded; "
					    "an on-CPU graph (without `opts.record.mode=off_cpu`) shows where it "
					    "computes", r->program ? r->program : "the program");
	}
	if (r->res->samples == 0 || r->res->stacks == 0) {
		/* a short test at 997 Hz is the usual case: name the two ways
		 * out, with a frequency that samples every ~50 us */
		if (r->res->recorded && r->res->lost_known && r->res->lost)
			return fg_error_set(FG_ENODATA, "no samples were recorded — all %llu were lost "
					    "because perf's ring buffer was full; give it a bigger "
					    "buffer (`opts.record.buffer_bytes`), record with `opts.record.call_graph=fp`, or "
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
					    fg_record_freq(&r->o->record));
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
		fg_run_emit(r, FG_PROFILE_WARNING, sb.buf, 0);
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
		err = fg_error_set(FG_EINVAL, "`opts.post_process`: %s", fg_error_last());
		goto done;
	}
	if (!cmd.argv.n) {
		err = fg_error_set(FG_EINVAL, "`opts.post_process` needs a command");
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
	fg_run_emit_cmd(r, cmd.argv.v);
	if ((err = fg_runner_capture(r->rec.runner, &cmd, &r->post, &st))) {
		if (err == FG_ENOTFOUND)
			err = fg_error_set(FG_ECHILD, "`opts.post_process`: '%s' was not found — check "
					   "the command", cmd.argv.v[0]);
		goto done;
	}
	if (st.code != 0 || st.signal)
		err = fg_error_set(FG_ECHILD, "`opts.post_process` command '%s' failed (%s %d) — the "
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

int fg_run_build_stacks(run *r)
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
		return fg_error_set(FG_ENODATA, "`opts.post_process` '%s' left no stacks — check its "
				    "output format (\"a;b;c COUNT\" lines)", r->o->post_process);
	return 0;
}
