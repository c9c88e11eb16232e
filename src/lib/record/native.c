/* fg_record_run for the native recorder: its options taken from the
 * record stage's, its stream written where perf's would go (the output
 * file, or the recorder's stdout for "-"), its events told as perf's. */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/elfcheck.h"
#include "flamegraph/error.h"
#include "flamegraph/recorder.h"
#include "lib/record/native.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/banned.h"

typedef struct sink {
	int fd;
	const char *name;
	const fg_record_run_opts *o;
} sink;

static int write_all(void *ctx, const void *buf, size_t len)
{
	sink *s = ctx;
	const char *p = buf;

	while (len) {
		ssize_t n = write(s->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fg_error_set(FG_EIO, "cannot write the recording to %s: %s", s->name,
					    strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void relay(void *ctx, fg_recorder_event kind, const char *msg, double elapsed, uint64_t bytes)
{
	const sink *s = ctx;

	if (!s->o->on_event)
		return;
	s->o->on_event(s->o->event_ctx, kind == FG_RECORDER_TICK ? FG_RECORD_TICK :
			kind == FG_RECORDER_CAPPED ? FG_RECORD_CAPPED : FG_RECORD_WARNING,
			msg, elapsed, bytes);
}

/* Whether the program at path only starts another one (a shell, time,
 * env...): the copy is then that program's to need, which cannot be told
 * before it runs. */
static bool launcher(const char *path)
{
	static const char *const names[] = { "sh",    "bash",    "dash",   "zsh",   "ksh",
					     "env",   "time",    "nice",   "ionice", "taskset",
					     "chrt",  "timeout", "nohup",  "stdbuf", "setsid",
					     "xargs", "sudo",    "runuser" };
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(base, names[i]))
			return true;
	return false;
}

size_t fg_record_native_stack(fg_call_graph mode, const char *path)
{
	fg_elfcheck_report rep;

	if (mode != FG_CALL_GRAPH_DWARF || !path || launcher(path) ||
	    fg_elfcheck_file(path, &rep) != 0)
		return 0;
	return rep.is_elf && rep.frame_pointers == FG_FP_OMITTED ? 65528 : 0;
}

/* The stack copy for the command (fg_record_native_stack), said in a
 * note when it is a whole one. */
static size_t stack_bytes(const fg_record_run_opts *opts, sink *s)
{
	const fg_record_opts *rec = &opts->rec;
	fg_strbuf path = FG_STRBUF_INIT, msg = FG_STRBUF_INIT;
	char *found = NULL;
	size_t bytes = 0;

	if (rec->call_graph != FG_CALL_GRAPH_DWARF || !rec->argc || !rec->argv[0])
		return 0;
	if (strchr(rec->argv[0], '/') && rec->argv[0][0] != '/' && rec->cwd)
		fg_strbuf_addf(&path, "%s/%s", rec->cwd, rec->argv[0]);
	else if ((found = fg_which(rec->argv[0])))
		fg_strbuf_addstr(&path, found);
	if (path.len && (bytes = fg_record_native_stack(rec->call_graph, path.buf))) {
		fg_record_native_stack_note(&msg, rec->argv[0]);
		if (msg.len)
			relay(s, FG_RECORDER_NOTE, msg.buf, 0, 0);
	}
	free(found);
	fg_strbuf_release(&path);
	fg_strbuf_release(&msg);
	return bytes;
}

void fg_record_native_stack_note(fg_strbuf *out, const char *program)
{
	fg_strbuf_addf(out, "%s was built without frame pointers: the native recorder copies 64 KB "
		       "of the stack with each sample (its stacks then come from the copy alone, as "
		       "perf's dwarf call graphs do)", program);
}

int fg_record_run_native(const fg_record_run_opts *opts, fg_record_outcome *out)
{
	const fg_record_opts *rec = &opts->rec;
	fg_recorder_opts no = FG_RECORDER_OPTS_INIT;
	fg_recorder_result res;
	bool to_stdout = rec->output && !strcmp(rec->output, "-");
	sink s = { -1, to_stdout ? "the recorder's stdout" : rec->output, opts };
	int err;

	if (!rec->output || (to_stdout && opts->recorder_stdout < 0))
		return fg_error_set(FG_EINVAL, "the native recorder needs an output file in "
				    "fg_record_opts.output (or \"-\" with a recorder_stdout)");
	if ((s.fd = to_stdout ? opts->recorder_stdout :
		    open(rec->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return fg_error_set(FG_EIO, "cannot write the recording to %s: %s", rec->output,
				    strerror(errno));
	no.pids = rec->pids;
	no.npids = rec->npids;
	no.argv = rec->argv;
	no.argc = rec->argc;
	no.env = rec->env;
	no.nenv = rec->nenv;
	no.cwd = rec->cwd;
	no.workload_stdout = opts->workload_stdout;
	no.freq = fg_record_freq(rec);
	no.frame_pointers = rec->call_graph == FG_CALL_GRAPH_FP;
	no.stack_bytes = stack_bytes(opts, &s);
	no.buffer_bytes = rec->buffer_bytes;
	no.max_size = rec->max_size;
	no.continue_at_max = opts->continue_at_max;
	no.write = write_all;
	no.write_ctx = &s;
	no.on_event = relay;
	no.event_ctx = &s;
	err = fg_recorder_run(&no, &res);
	if (!to_stdout && close(s.fd) != 0 && !err)
		err = fg_error_set(FG_EIO, "cannot write the recording to %s: %s", rec->output,
				   strerror(errno));
	out->workload_code = res.workload_code;
	out->workload_signal = res.workload_signal;
	out->workload_known = true;
	out->interrupted = res.interrupted;
	out->capped = res.capped;
	out->seconds = res.seconds;
	out->seconds_at_cap = res.seconds_at_cap;
	out->seconds_workload = res.seconds_workload;
	out->bytes = res.bytes;
	return err;
}
