/* A recording streamed from perf (perf record -o -) through a pipe into
 * the native reader while the workload runs (fg_profile_opts.stream):
 * nothing is written to disk, and the stacks are folded as the records
 * come, so the graph is ready soon after the workload's end. The reader
 * runs in a thread of its own, on the pipe's read end; the recording
 * itself (capture.c) runs as it does for a file, with perf's stdout the
 * pipe's write end.
 *
 * The thread reads until the pipe's end, also after an error of its own
 * (then discarding): perf never blocks on a full pipe, so it can always
 * finish or be stopped. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/profile/run.h"
#include "util/banned.h"

/* the pipe's size asked for: room for a burst of dwarf samples while
 * the reader resolves a new module's symbols (the kernel may give less) */
#define PIPE_SIZE (1 << 20)

struct fg_run_stream {
	pthread_t thread;
	bool started;
	int read_fd, write_fd;
	_Atomic uint64_t bytes;
	fg_perfdata_opts opts;
	fg_collapser *collapser;
	/* the thread's results, read once it has ended */
	fg_perfdata_stats stats;
	int err;
	char msg[1024];
	double t_end;             /* when it ended */
};

static ssize_t read_pipe(void *ctx, void *buf, size_t cap)
{
	struct fg_run_stream *s = ctx;
	ssize_t n;

	do
		n = read(s->read_fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fg_error_set(FG_EIO, "reading perf's stream: %s", strerror(errno));
	atomic_fetch_add(&s->bytes, (uint64_t)n);
	return n;
}

static void *reader_main(void *arg)
{
	struct fg_run_stream *s = arg;
	fg_perfdata *pd = NULL;
	const char *why;
	char sink[64 << 10];
	int err;

	err = fg_perfdata_open_stream(&pd, "perf's stream", read_pipe, s, &s->opts);
	if (!err && (why = fg_perfdata_unsupported(pd)))
		err = fg_error_set(FG_EINVAL, "the recording holds %s, which the native reader "
				   "does not read yet — record without --stream", why);
	if (!err)
		err = fg_perfdata_collapse(pd, s->collapser);
	if (pd)
		fg_perfdata_stats_get(pd, &s->stats);
	if (err) {
		s->err = err;
		snprintf(s->msg, sizeof(s->msg), "%s", fg_error_last());
	}
	while (read_pipe(s, sink, sizeof(sink)) > 0)
		;
	fg_perfdata_free(pd);
	s->t_end = fg_run_now();
	return NULL;
}

int fg_run_stream_start(run *r)
{
	struct fg_run_stream *s;
	int fds[2], err;

	if ((err = fg_run_new_collapser(r, FG_FORMAT_PERF)))
		return err;
	if (!(s = r->stream = fg_calloc(1, sizeof(*s))))
		return FG_ENOMEM;
	s->read_fd = s->write_fd = -1;
	s->collapser = r->collapser;
	fg_run_perfdata_opts(r, &s->opts);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return fg_error_set(FG_EIO, "cannot make a pipe for perf's stream: %s", strerror(errno));
	s->read_fd = fds[0];
	s->write_fd = fds[1];
	(void)fcntl(s->write_fd, F_SETPIPE_SZ, PIPE_SIZE);
	if ((err = pthread_create(&s->thread, NULL, reader_main, s)))
		return fg_error_set(FG_ENOMEM, "cannot start the stream's reader: %s", strerror(err));
	s->started = true;
	return 0;
}

int fg_run_stream_fd(const run *r)
{
	return r->stream ? r->stream->write_fd : -1;
}

uint64_t fg_run_stream_bytes(void *ctx)
{
	const run *r = ctx;

	return r->stream ? atomic_load(&r->stream->bytes) : 0;
}

/* Closes our write end (perf has its own) and waits for the reader. */
static void join(struct fg_run_stream *s)
{
	if (s->write_fd >= 0)
		close(s->write_fd);
	s->write_fd = -1;
	if (s->started)
		pthread_join(s->thread, NULL);
	s->started = false;
}

int fg_run_stream_finish(run *r, bool *empty)
{
	struct fg_run_stream *s = r->stream;
	double t0 = fg_run_now();

	join(s);
	*empty = atomic_load(&s->bytes) == 0;
	r->recorded_samples = s->stats.samples;
	r->samples_read = s->stats.samples;
	r->res->lost = s->stats.lost;
	r->res->lost_known = !s->err;
	r->res->read_natively = true;
	r->res->streamed = true;
	/* what waiting for the graph costs after the recording */
	r->res->seconds_read = s->t_end > t0 ? s->t_end - t0 : 0;
	fg_run_emit(r, FG_PROFILE_TIMING, "read", r->res->seconds_read);
	if (s->err && !*empty)
		return fg_error_set(s->err, "%s", s->msg);
	return 0;
}

void fg_run_stream_release(run *r)
{
	struct fg_run_stream *s = r->stream;

	if (!s)
		return;
	join(s);
	if (s->read_fd >= 0)
		close(s->read_fd);
	free(s);
	r->stream = NULL;
}
