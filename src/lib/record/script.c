/* `perf script` streamed into a sink: stdout in big chunks, stderr sorted
 * (its "lost chunks" warnings are ours to count, not to repeat), an
 * interrupt request ends it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "lib/record/capture_msgs.h"
#include "util/interrupt.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/banned.h"

/* Large enough that the per-chunk costs vanish, small enough to stay in
 * cache. */
#define CHUNK (256u * 1024u)

typedef struct stream {
	fg_child child;
	fg_capture_msgs msgs;
	char *buf;
	int requests;
	int (*sink)(void *ctx, const char *buf, size_t len);
	void *sink_ctx;
} stream;

static void drain_stderr(stream *st)
{
	fg_capture_msgs_read(&st->msgs, &st->child.err_fd);
}

/* Reads stdout until EOF; 0, the sink's error, FG_EINTR or FG_EIO. */
static int pump(stream *st)
{
	for (;;) {
		struct pollfd fds[3] = { { st->child.out_fd, POLLIN, 0 }, { st->child.err_fd, POLLIN, 0 },
					 { fg_interrupt_fd(), POLLIN, 0 } };
		ssize_t n;
		int err;
		if (poll(fds, 3, -1) < 0 && errno != EINTR)
			return fg_error_set(FG_EIO, "waiting for perf script: %s", strerror(errno));
		if (fg_interrupt_count() != st->requests)
			return fg_error_set(FG_EINTR, "interrupted while reading the recording: nothing "
					    "was written");
		if (fds[1].revents)
			drain_stderr(st);
		if (!fds[0].revents)
			continue;
		n = read(st->child.out_fd, st->buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fg_error_set(FG_EIO, "reading perf script output: %s", strerror(errno));
		if (n == 0)
			return 0;
		if ((err = st->sink(st->sink_ctx, st->buf, (size_t)n)))
			return err;
	}
}

static void warn_line(void *ctx, const char *line)
{
	void **cb = ctx;
	fg_record_event_cb on_event = (fg_record_event_cb)(uintptr_t)cb[0];

	if (on_event)
		on_event(cb[1], FG_RECORD_WARNING, line, 0, 0);
}

int fg_record_script_stream(const fg_record_opts *rec, const char *perfdata, bool no_inline,
			    int (*sink)(void *ctx, const char *buf, size_t len), void *sink_ctx,
			    fg_record_event_cb on_event, void *event_ctx)
{
	void *cb[2] = { (void *)(uintptr_t)on_event, event_ctx };
	fg_cmd cmd = FG_CMD_INIT;
	fg_exit_status es = { 0, 0 };
	stream st;
	char **argv = NULL;
	int err, werr;

	if ((err = fg_opts_version_check("fg_record_opts", rec->version, FG_RECORD_OPTS_VERSION)))
		return err;
	memset(&st, 0, sizeof(st));
	st.sink = sink;
	st.sink_ctx = sink_ctx;
	fg_capture_msgs_init(&st.msgs, warn_line, cb);
	if ((err = fg_interrupt_init()) ||
	    (err = fg_record_script_command(&argv, rec, perfdata, no_inline)))
		goto done;
	cmd.argv.v = argv;
	while (argv[cmd.argv.n])
		cmd.argv.n++;
	cmd.argv.alloc = cmd.argv.n + 1;
	argv = NULL;
	cmd.pipe_stdout = cmd.pipe_stderr = true;
	st.requests = fg_interrupt_count();
	if (!(st.buf = fg_malloc(CHUNK))) {
		err = FG_ENOMEM;
		goto done;
	}
	if ((err = fg_runner_spawn(rec->runner, &cmd, &st.child)))
		goto done;
	fcntl(st.child.err_fd, F_SETFL, O_NONBLOCK);
	err = pump(&st);
	close(st.child.out_fd);
	if (err)
		fg_runner_kill(rec->runner, &st.child, SIGTERM);
	else
		fcntl(st.child.err_fd, F_SETFL, 0); /* read the rest, to EOF */
	drain_stderr(&st);
	werr = fg_runner_wait(rec->runner, &st.child, &es);
	if (!err && werr)
		err = werr;
	if (!err && (es.code != 0 || es.signal) &&
	    !(err = fg_capture_msgs_no_kernel(&st.msgs, rec->tool && *rec->tool ? rec->tool : "perf"))) {
		/* its lines, joined into one */
		for (size_t i = 0; i < st.msgs.text.len; i++)
			if (st.msgs.text.buf[i] == '\n')
				st.msgs.text.buf[i] = i + 1 < st.msgs.text.len ? ';' : '\0';
		err = fg_error_set(FG_ERECORD, "perf script failed on %s (%s %d): %s", perfdata,
				   es.signal ? "signal" : "status", es.signal ? es.signal : es.code,
				   st.msgs.text.len ? st.msgs.text.buf : "it said nothing");
	} else if (!err) {
		fg_capture_msgs_flush(&st.msgs);
	}
done:
	if (st.child.err_fd >= 0)
		close(st.child.err_fd);
	free(st.buf);
	fg_argv_free(argv);
	fg_cmd_clear(&cmd);
	fg_capture_msgs_release(&st.msgs);
	return err;
}
