/* The run as a whole (fg_profile_run) and its recording step; the other
 * steps are in preflight.c, read_recording.c and outputs.c (run.h). */
#include <stdarg.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/run/run.h"
#include "util/cleanup.h"
#include "util/interrupt.h"
#include "util/outfile.h"
#include "util/process.h"
#include "util/strvec.h"
#include "util/version.h"
#include "util/banned.h"

double fg_run_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void fg_run_emit(run *r, fg_profile_event kind, const char *msg, double value)
{
	if (kind == FG_PROFILE_WARNING)
		r->res->nwarnings++;
	if (r->o->on_event)
		r->o->on_event(r->o->event_ctx, kind, msg, value);
}

void fg_run_emitf(run *r, fg_profile_event kind, const char *fmt, ...)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	fg_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (!fg_strbuf_failed(&sb))
		fg_run_emit(r, kind, sb.buf, 0);
	fg_strbuf_release(&sb);
}

void fg_run_emit_cmd(run *r, char **argv)
{
	fg_strvec sv = { .v = argv };
	fg_strbuf sb = FG_STRBUF_INIT;

	while (argv[sv.n])
		sv.n++;
	fg_strvec_join_quoted(&sv, &sb);
	fg_run_emit(r, FG_PROFILE_COMMAND, sb.buf, 0);
	fg_strbuf_release(&sb);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* An xctrace recording is a folder (a .trace bundle) that xctrace makes
 * itself: it goes into a temporary folder of ours, as recording.trace. */
static int make_trace_dir(run *r)
{
	if (!mkdtemp(r->perfdata.buf))
		return fg_error_set(FG_EIO, "cannot create a temporary folder for the xctrace "
				    "recording in %s: %s", r->o->perfdata_out ? "the folder of "
				    "`opts.perfdata_out`" : "the temporary folder", strerror(errno));
	/* xctrace may run the program elsewhere (its cwd): an absolute path */
	r->xctrace_dir = r->perfdata.buf[0] == '/' ? NULL : realpath(r->perfdata.buf, NULL);
	if (!r->xctrace_dir && !(r->xctrace_dir = fg_strdup(r->perfdata.buf))) {
		rmdir(r->perfdata.buf);
		return FG_ENOMEM;
	}
	fg_strbuf_reset(&r->perfdata);
	fg_strbuf_addstr(&r->perfdata, r->xctrace_dir);
	fg_cleanup_add_path(r->xctrace_dir, true);
	fg_strbuf_addstr(&r->perfdata, "/recording.trace");
	return 0;
}

/* Removes what an xctrace run left in its temporary folder (the bundle,
 * unless it was kept) and the folder. */
static void remove_trace_dir(run *r)
{
	if (!r->xctrace_dir)
		return;
	if (r->perfdata_is_temp)
		nftw(r->perfdata.buf, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	r->perfdata_is_temp = false;
	rmdir(r->xctrace_dir);
	fg_cleanup_remove_path(r->xctrace_dir);
	free(r->xctrace_dir);
	r->xctrace_dir = NULL;
}

/* A temporary perf.data: beside the file --perfdata-out leads to (so
 * that keeping it is a rename), else in tmpdir (a device or FIFO is
 * written from there). */
static int make_perfdata(run *r)
{
	const char *keep = r->o->perfdata_out;
	bool trace = r->rec.recorder == FG_RECORDER_XCTRACE, beside = false;
	int fd;

	if (keep && (fd = fg_outfile_temp_folder(&r->perfdata, &beside, keep, trace)))
		return fd;
	if (!beside)
		fg_strbuf_addf(&r->perfdata, "%s/", r->o->tmpdir && *r->o->tmpdir ? r->o->tmpdir : "/tmp");
	fg_strbuf_addstr(&r->perfdata, trace ? ".flamegraph-xctrace.XXXXXX" : ".flamegraph-perf.XXXXXX");
	if (trace) {
		if ((fd = make_trace_dir(r)))
			return fd;
	} else if ((fd = mkstemp(r->perfdata.buf)) < 0)
		return fg_error_set(FG_EIO, "cannot create a temporary perf.data in %s: %s",
				    beside ? "the folder of `opts.perfdata_out`" : "the temporary folder",
				    strerror(errno));
	else
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
	if (!trace)
		fg_cleanup_add_path(r->perfdata.buf, false);
	return 0;
}

/* The recorder ran but left nothing: DTrace, a custom perf command or a
 * process list ended before writing anything. */
int fg_run_record_failed(run *r, const fg_exit_status *st)
{
	fg_strbuf how = FG_STRBUF_INIT;
	int err;

	if (st->signal)
		fg_strbuf_addf(&how, "was killed by signal %d", st->signal);
	else
		fg_strbuf_addf(&how, "exited with status %d", st->code);
	if (r->rec.recorder == FG_RECORDER_NATIVE)
		err = fg_error_set(FG_ERECORD, "the native recorder wrote nothing: the program %s "
				   "before it could record", how.buf);
	else
		err = fg_error_set(FG_ERECORD, "%s %s and wrote no data — see its message above",
				   r->rec.recorder == FG_RECORDER_PERF ? "perf record" :
				   fg_recorder_tool(r->rec.recorder), how.buf);
	fg_strbuf_release(&how);
	return err;
}

static bool file_has_data(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0;
}

void fg_run_status(run *r, fg_profile_stage stage, double elapsed, uint64_t bytes)
{
	fg_profile_status st = { stage, elapsed, bytes, r->samples_read, r->recorded_samples };

	if (r->o->on_status)
		r->o->on_status(r->o->event_ctx, &st);
}

void fg_run_on_record_event(void *ctx, fg_record_event kind, const char *msg, double elapsed,
			    uint64_t bytes)
{
	run *r = ctx;
	fg_strbuf sb = FG_STRBUF_INIT;

	switch (kind) {
	case FG_RECORD_TICK:
		fg_run_status(r, r->res->capped ? FG_STAGE_CAPPED : FG_STAGE_RECORDING, elapsed, bytes);
		break;
	case FG_RECORD_CAPPED:
		r->res->capped = true;
		break;
	case FG_RECORD_WARNING:
		fg_strbuf_addf(&sb, "perf: %s", msg);
		fg_run_emit(r, FG_PROFILE_WARNING, sb.buf, 0);
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
		fg_run_emit_cmd(r, argv);
	}
	fg_argv_free(argv);
	fg_error_clear();
}

void fg_run_take_outcome(run *r, const fg_record_outcome *out)
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
	bool empty;
	int err;

	if (r->rec.recorder == FG_RECORDER_NATIVE)
		return fg_run_record_native(r);
	/* a stream: perf writes the recording to its stdout, our pipe */
	r->rec.output = r->stream ? "-" : r->perfdata.buf;
	ro.rec = r->rec;
	if (r->stream) {
		ro.recorder_stdout = fg_run_stream_fd(r);
		ro.output_bytes = fg_run_stream_bytes;
	}
	/* perf runs the workload itself only for a custom command (whose
	 * arguments may not allow attaching) and for DTrace */
	ro.attach = fg_run_attaches(r);
	ro.continue_at_max = r->o->continue_at_max;
	ro.workload_stdout = r->o->workload_stdout_to_stderr ? STDERR_FILENO : -1;
	ro.tmpdir = r->o->tmpdir;
	ro.on_event = fg_run_on_record_event;
	ro.event_ctx = r;
	show_record_command(r, &ro);
	err = fg_record_run(&ro, &out);
	fg_run_status(r, FG_STAGE_DONE, 0, 0);
	fg_run_take_outcome(r, &out);
	fg_run_emit(r, FG_PROFILE_TIMING, "record", r->res->seconds_record);
	if (err && out.recorder_missing)
		return fg_run_fail_tool_missing(r->rec.tool ? r->rec.tool : fg_recorder_tool(r->rec.recorder), &r->rec);
	if (err)
		return err;
	r->res->recorded = true;
	if (r->stream) {
		if (!(err = fg_run_stream_finish(r, &empty)) && empty) {
			fg_exit_status st = { out.workload_code, out.workload_signal };
			return fg_run_record_failed(r, &st);
		}
		return err;
	}
	if (!file_has_data(r->perfdata.buf)) {
		fg_exit_status st = { out.workload_code, out.workload_signal };
		return fg_run_record_failed(r, &st);
	}
	return 0;
}

static int keep_perfdata(run *r)
{
	if (!r->o->perfdata_out || !r->res->recorded)
		return 0;
	int err = fg_outfile_install(r->o->perfdata_out, r->perfdata.buf,
				     r->rec.recorder == FG_RECORDER_XCTRACE);

	if (err)
		return err;
	r->perfdata_is_temp = false;
	fg_cleanup_remove_path(r->perfdata.buf);
	return 0;
}

static void count_lost(run *r)
{
	fg_perfdata_counts c;

	/* a stream's reader counted them */
	if (r->stream)
		return;
	if (!fg_run_records_perfdata(r->rec.recorder) || fg_perfdata_count(r->perfdata.buf, &c) != 0) {
		fg_error_clear();
		return;
	}
	r->recorded_samples = c.samples;
	r->res->lost = c.lost;
	r->res->lost_known = c.complete;
}

static int pipeline(run *r)
{
	const fg_profile_opts *o = r->o;
	int err;

	if (o->alloc) {
		if ((err = fg_run_check_opts(o)) || (err = fg_run_alloc(r)) || (err = fg_run_build_stacks(r)) ||
		    (err = fg_run_make_subtitle(r)))
			return err;
		return fg_run_write_outputs(r);
	}
	if ((err = fg_run_check_opts(o)) || (err = fg_run_open_outputs(r)))
		return err;
	if (o->perfdata) {
		struct stat st;
		if (stat(o->perfdata, &st) == 0 && S_ISDIR(st.st_mode) && fg_run_is_alloc_dir(o->perfdata))
			return fg_error_set(FG_EINVAL, "%s holds allocation recordings (kept by `opts.alloc` "
					    "`opts.perfdata_out`) — add `opts.alloc=VIEW` to graph them", o->perfdata);
		if (access(o->perfdata, R_OK) != 0)
			return fg_error_set(errno == ENOENT ? FG_ENOTFOUND : FG_EIO,
					    "cannot read %s: %s — give the perf.data to render",
					    o->perfdata, strerror(errno));
		fg_strbuf_addstr(&r->perfdata, o->perfdata);
		r->program = o->perfdata;
		if (fg_run_records_perfdata(r->rec.recorder) && fg_run_is_perf_data(o->perfdata)) {
			if (r->rec.recorder == FG_RECORDER_PERF && (err = fg_run_check_tool(r)))
				return err;
			count_lost(r);
		}
	} else {
		if ((err = o->npids ? fg_run_check_pids(r) : fg_run_check_command(r)) ||
		    (r->rec.recorder != FG_RECORDER_NATIVE && (err = fg_run_check_tool(r))) ||
		    (err = fg_run_plan_recording(r)) ||
		    (err = fg_run_streams(o) ? fg_run_stream_start(r) : make_perfdata(r)) ||
		    (err = do_record(r)))
			return err;
		r->interrupts_seen = fg_interrupt_count();
		count_lost(r);
	}
	r->processing_start = fg_run_now();
	if ((err = fg_run_collapse(r)) || (err = fg_run_build_stacks(r)) || (err = fg_run_make_subtitle(r)) ||
	    (err = fg_run_write_outputs(r)))
		return err;
	return keep_perfdata(r);
}

FG_OPTS_INIT_FUNCTION(fg_profile_opts, FG_PROFILE_OPTS_VERSION, FG_PROFILE_OPTS_INIT)

int fg_profile_run(const fg_profile_opts *opts, fg_profile_result *res)
{
	fg_profile_result scratch = FG_PROFILE_RESULT_INIT;
	fg_profile_result init = FG_PROFILE_RESULT_INIT;
	run r;
	int err;

	if (res)
		*res = init;
	if (fg_opts_version_check("fg_profile_opts", opts->version, FG_PROFILE_OPTS_VERSION))
		return FG_EINVAL;
	memset(&r, 0, sizeof(r));
	r.o = opts;
	r.res = res ? res : &scratch;
	*r.res = init;
	r.rec = opts->record;
	r.rec.script_lines = opts->lines;
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
	fg_strbuf_init(&r.title, 0);
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

	fg_run_stream_release(&r);
	fg_outfile_abort(r.out);
	fg_outfile_abort(r.folded);
	remove_trace_dir(&r);
	if (r.perfdata_is_temp) {
		unlink(r.perfdata.buf);
		fg_cleanup_remove_path(r.perfdata.buf);
	}
	fg_strbuf_release(&r.subtitle);
	fg_strbuf_release(&r.title);
	fg_collapser_free(r.collapser);
	fg_offcpu_free(r.offcpu);
	fg_folded_free(r.stacks);
	fg_folded_free(r.companion);
	fg_strbuf_release(&r.perfdata);
	fg_strbuf_release(&r.post);
	free(r.program_path);
	free(r.tool_path);
	return err;
}
