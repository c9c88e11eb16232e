/* The recording step with the native recorder (flamegraph/recorder.h):
 * its stream goes straight into the reader's queue (stream.c), or into
 * the temporary perf.data (pipe form) that is read, or kept, after it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "flamegraph/recorder.h"
#include "lib/run/run.h"
#include "util/strvec.h"
#include "util/banned.h"

typedef struct native_file {
	int fd;
	const char *path;
} native_file;

static int write_file(void *ctx, const void *buf, size_t len)
{
	native_file *f = ctx;
	const char *p = buf;

	while (len) {
		ssize_t n = write(f->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fg_error_set(FG_EIO, "cannot write the recording to %s: %s", f->path,
					    strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void on_event(void *ctx, fg_recorder_event kind, const char *msg, double elapsed,
		     uint64_t bytes)
{
	run *r = ctx;

	switch (kind) {
	case FG_RECORDER_TICK:
		fg_run_on_record_event(r, FG_RECORD_TICK, NULL, elapsed, bytes);
		break;
	case FG_RECORDER_CAPPED:
		fg_run_on_record_event(r, FG_RECORD_CAPPED, NULL, elapsed, bytes);
		break;
	case FG_RECORDER_NOTE:
		fg_run_emit(r, FG_PROFILE_NOTE, msg, 0);
		break;
	}
}

static void set_opts(run *r, fg_recorder_opts *no)
{
	const fg_record_opts *rec = &r->rec;

	no->pids = rec->pids;
	no->npids = rec->npids;
	no->argv = rec->argv;
	no->argc = rec->argc;
	no->env = rec->env;
	no->nenv = rec->nenv;
	no->cwd = rec->cwd;
	no->workload_stdout = r->o->workload_stdout_to_stderr ? STDERR_FILENO : -1;
	no->freq = fg_record_freq(rec);
	no->frame_pointers = rec->call_graph == FG_CALL_GRAPH_FP;
	if (rec->argc && (no->stack_bytes = fg_record_native_stack(rec->call_graph,
								   r->program_path)))
		fg_run_emit(r, FG_PROFILE_NOTE, "the program was built without frame pointers: the "
			    "native recorder copies 64 KB of the stack with each sample (its stacks "
			    "then come from the copy alone, as perf's dwarf call graphs do)", 0);
	no->buffer_bytes = rec->buffer_bytes;
	no->max_size = rec->max_size;
	no->continue_at_max = r->o->continue_at_max;
	no->mode = rec->mode == FG_RECORD_HOT_COLD ? FG_RECORDER_HOT_COLD :
		   rec->mode == FG_RECORD_OFF_CPU ? FG_RECORDER_OFF_CPU : FG_RECORDER_ON_CPU;
	no->on_event = on_event;
	no->event_ctx = r;
}

static void outcome(run *r, const fg_recorder_result *res)
{
	fg_record_outcome out = FG_RECORD_OUTCOME_INIT;

	out.workload_code = res->workload_code;
	out.workload_signal = res->workload_signal;
	out.workload_known = true;
	out.interrupted = res->interrupted;
	out.capped = res->capped;
	out.seconds = res->seconds;
	out.seconds_at_cap = res->seconds_at_cap;
	out.seconds_workload = res->seconds_workload;
	out.bytes = res->bytes;
	fg_run_take_outcome(r, &out);
}

/* The program run, for -v as perf's command line is (no perf runs). */
static void show_command(run *r)
{
	fg_strvec sv = FG_STRVEC_INIT;
	fg_strbuf sb = FG_STRBUF_INIT;

	if (r->rec.argc && !fg_strvec_pushv(&sv, r->rec.argv, r->rec.argc)) {
		fg_strvec_join_quoted(&sv, &sb);
		if (!fg_strbuf_failed(&sb))
			fg_run_emit(r, FG_PROFILE_COMMAND, sb.buf, 0);
	}
	fg_strbuf_release(&sb);
	fg_strvec_clear(&sv);
}

int fg_run_record_native(run *r)
{
	fg_recorder_opts no = FG_RECORDER_OPTS_INIT;
	fg_recorder_result res;
	native_file f = { -1, r->perfdata.buf };
	bool empty = false;
	int err;

	set_opts(r, &no);
	if (r->stream) {
		no.write = fg_run_stream_push;
		no.write_ctx = r;
	} else if ((f.fd = open(r->perfdata.buf, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0) {
		return fg_error_set(FG_EIO, "cannot write the recording to %s: %s", r->perfdata.buf,
				    strerror(errno));
	} else {
		no.write = write_file;
		no.write_ctx = &f;
	}
	show_command(r);
	err = fg_recorder_run(&no, &res);
	if (f.fd >= 0 && close(f.fd) != 0 && !err)
		err = fg_error_set(FG_EIO, "cannot write the recording to %s: %s", r->perfdata.buf,
				   strerror(errno));
	fg_run_status(r, FG_STAGE_DONE, 0, 0);
	outcome(r, &res);
	fg_run_emit(r, FG_PROFILE_TIMING, "record", r->res->seconds_record);
	if (err)
		return err;
	r->res->recorded = true;
	if (r->stream && !(err = fg_run_stream_finish(r, &empty)) && empty) {
		fg_exit_status st = { res.workload_code, res.workload_signal };
		return fg_run_record_failed(r, &st);
	}
	return err;
}
