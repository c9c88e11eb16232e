/* A recording streamed from perf (perf record -o -) through a pipe into
 * the native reader while the workload runs (fg_profile_opts.stream):
 * nothing is written to disk, and the stacks are folded as the records
 * come, so the graph is ready soon after the workload's end. The reader
 * runs in a thread of its own; the recording
 * itself (capture.c) runs as it does for a file, with perf's stdout the
 * pipe's write end.
 *
 * A second thread, the pump, drains the pipe into memory as perf fills
 * it, so that perf never waits for the reader; it reads until the
 * pipe's end, also once the reader has stopped (on an error: then it
 * drops what it reads), so that perf can always finish or be stopped.
 *
 * The native recorder (flamegraph/recorder.h) needs no pipe: it runs in
 * this process and pushes its bytes into the same queue itself
 * (fg_run_stream_push), with no pump. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/run/capture_notes.h"
#include "lib/run/run.h"
#include "util/process.h"
#include "util/banned.h"

/* the pipe's size asked for (the kernel may give less) */
#define PIPE_SIZE (1 << 20)
/* the pipe is drained into blocks of this size ... */
#define BLOCK ((size_t)256 << 10)
/* ... of which at most this much waits for the reader; beyond it perf
 * waits, and its ring buffer fills as it would on a slow disk */
#define MAX_BACKLOG ((size_t)1 << 30)

struct block {
	struct block *next;
	size_t head, tail;        /* the bytes not read yet: data[head, tail) */
	unsigned char data[BLOCK];
};

struct fg_run_stream {
	pthread_t pump, reader;
	bool pump_started, reader_started;
	int read_fd, write_fd;
	_Atomic uint64_t bytes;
	fg_perfdata_opts opts;
	fg_collapser *collapser;
	fg_offcpu *offcpu;        /* the native recorder's off-CPU modes */
	const fg_perfdata_sched_switch *sched;
	/* what the pump read and the reader has not: blocks, oldest first */
	pthread_mutex_t mu;
	pthread_cond_t cond;
	struct block *first, *last;
	size_t backlog;
	bool eof;                 /* the pump is done (or the pushing) */
	bool pushed;              /* the native recorder pushes: no pipe */
	bool discard;             /* the reader is done: drop what comes */
	bool oom;                 /* a block could not be had: the reader
				     stops, the pump drops what comes */
	/* the reader's results, read once it has ended */
	fg_perfdata_stats stats;
	int err;
	char msg[1024];
	char debug_note[1024];    /* a library without its debug file, or "" */
	char cut_note[512];       /* stack copies too short, or "" */
	double t_end;             /* when it ended */
};

/* The pump: reads the pipe as fast as perf writes it, so that perf
 * never waits for the reader (which, when it meets a new module, spends
 * some time on its symbols and DWARF before it reads on). */
static void *pump_main(void *arg)
{
	struct fg_run_stream *s = arg;
	unsigned char scratch[4096];
	struct block *b;
	bool fresh;
	ssize_t n;

	/* as perf itself: ahead of the workload where allowed, else perf
	 * waits on a full pipe for this thread to get a CPU */
	fg_sched_ahead();

	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->backlog >= MAX_BACKLOG && !s->discard)
			pthread_cond_wait(&s->cond, &s->mu);
		b = s->discard ? NULL : s->last && s->last->tail < BLOCK ? s->last : NULL;
		fresh = !b && !s->discard;
		pthread_mutex_unlock(&s->mu);
		if (fresh && !(b = fg_malloc(sizeof(*b)))) {
			pthread_mutex_lock(&s->mu);
			s->oom = true;
			s->discard = true;
			pthread_cond_broadcast(&s->cond);
			pthread_mutex_unlock(&s->mu);
			continue;
		}
		if (fresh) {
			b->next = NULL;
			b->head = b->tail = 0;
		}
		/* bytes past a block's tail are the pump's alone: read unlocked */
		do
			n = b ? read(s->read_fd, b->data + b->tail, BLOCK - b->tail) :
				read(s->read_fd, scratch, sizeof(scratch));
		while (n < 0 && errno == EINTR);
		if (n > 0)
			atomic_fetch_add(&s->bytes, (uint64_t)n);
		pthread_mutex_lock(&s->mu);
		if (fresh) {
			if (s->last)
				s->last->next = b;
			else
				s->first = b;
			s->last = b;
		}
		if (b && n > 0) {
			b->tail += (size_t)n;
			s->backlog += (size_t)n;
		}
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->mu);
		if (n <= 0)
			break;
	}
	pthread_mutex_lock(&s->mu);
	s->eof = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* The reader's input: what the pump has queued, waited for. */
static ssize_t read_queued(void *ctx, void *buf, size_t cap)
{
	struct fg_run_stream *s = ctx;
	struct block *b;
	size_t n = 0;

	pthread_mutex_lock(&s->mu);
	while ((!s->first || s->first->head == s->first->tail) && !s->eof && !s->oom)
		pthread_cond_wait(&s->cond, &s->mu);
	if (s->oom) {
		pthread_mutex_unlock(&s->mu);
		return fg_error_set(FG_ENOMEM, "out of memory for perf's stream");
	}
	if ((b = s->first) && b->head < b->tail) {
		n = b->tail - b->head < cap ? b->tail - b->head : cap;
		memcpy(buf, b->data + b->head, n);
		b->head += n;
		s->backlog -= n;
		/* a full block read to its end is the pump's no more */
		if (b->head == BLOCK) {
			s->first = b->next;
			if (!s->first)
				s->last = NULL;
			free(b);
		}
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->mu);
	return (ssize_t)n;
}

/* Frees the blocks before the last; the last (which the pump may be
 * reading into) is kept, as read to its end. Called with s->mu held, or
 * once the pump has ended. */
static void drop_queue(struct fg_run_stream *s)
{
	struct block *b, *next;

	for (b = s->first; b && b != s->last; b = next) {
		next = b->next;
		free(b);
	}
	s->first = s->last;
	if (s->last)
		s->last->head = s->last->tail;
	s->backlog = 0;
}

/* Drops the queue and what the pump reads from now on. */
static void discard(struct fg_run_stream *s)
{
	pthread_mutex_lock(&s->mu);
	s->discard = true;
	drop_queue(s);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
}

static void *reader_main(void *arg)
{
	struct fg_run_stream *s = arg;
	fg_perfdata *pd = NULL;
	const char *why;
	int err;

	err = fg_perfdata_open_stream(&pd, "perf's stream", read_queued, s, &s->opts);
	if (!err && (why = fg_perfdata_unsupported(pd)))
		err = fg_error_set(FG_EINVAL, "the recording holds %s, which the native reader "
				   "does not read yet — record without `opts.stream`", why);
	if (!err && s->offcpu)
		err = fg_perfdata_collapse_offcpu(pd, s->offcpu, s->sched, NULL, NULL);
	else if (!err)
		err = fg_perfdata_collapse(pd, s->collapser);
	if (pd)
		fg_perfdata_reader_stats(pd, &s->stats);
	if (!err) {
		/* said by the run once the reader has ended */
		fg_strbuf note = FG_STRBUF_INIT;
		fg_capture_note_debug(&note, pd);
		snprintf(s->debug_note, sizeof(s->debug_note), "%s", note.len ? note.buf : "");
		fg_strbuf_reset(&note);
		fg_capture_note_cut(&note, pd);
		snprintf(s->cut_note, sizeof(s->cut_note), "%s", note.len ? note.buf : "");
		fg_strbuf_release(&note);
	}
	if (err) {
		s->err = err;
		snprintf(s->msg, sizeof(s->msg), "%s", fg_error_last());
	}
	discard(s);
	fg_perfdata_free(pd);
	s->t_end = fg_run_now();
	return NULL;
}

int fg_run_stream_start(run *r)
{
	struct fg_run_stream *s;
	pthread_mutexattr_t ma;
	int fds[2], err;

	if ((err = fg_run_new_collapser(r, FG_FORMAT_PERF)))
		return err;
	if (!(s = r->stream = fg_calloc(1, sizeof(*s))))
		return FG_ENOMEM;
	s->read_fd = s->write_fd = -1;
	s->collapser = r->collapser;
	/* the off-CPU weighing of the native recorder's switches, set up
	 * (the tracepoint's layout read) before anything runs */
	if (r->rec.recorder == FG_RECORDER_NATIVE && (err = fg_run_new_offcpu(r)))
		return err;
	s->offcpu = r->offcpu;
	s->sched = &r->sched;
	/* the reader holds the lock while it copies; where the pump runs
	 * ahead of the workload and the reader does not, a reader holding
	 * it while the workload has its CPU would stall the pump (and perf
	 * behind it): the lock lends the pump's priority to its holder */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&s->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_cond_init(&s->cond, NULL);
	fg_run_perfdata_opts(r, &s->opts);
	if ((s->pushed = r->rec.recorder == FG_RECORDER_NATIVE))
		goto reader;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return fg_error_set(FG_EIO, "cannot make a pipe for perf's stream: %s", strerror(errno));
	s->read_fd = fds[0];
	s->write_fd = fds[1];
	(void)fcntl(s->write_fd, F_SETPIPE_SZ, PIPE_SIZE);
	if ((err = pthread_create(&s->pump, NULL, pump_main, s)))
		return fg_error_set(FG_ENOMEM, "cannot start the stream's reader: %s", strerror(err));
	s->pump_started = true;
reader:
	if ((err = pthread_create(&s->reader, NULL, reader_main, s)))
		return fg_error_set(FG_ENOMEM, "cannot start the stream's reader: %s", strerror(err));
	s->reader_started = true;
	return 0;
}

int fg_run_stream_push(void *ctx, const void *buf, size_t len)
{
	struct fg_run_stream *s = ((run *)ctx)->stream;
	const unsigned char *p = buf;
	int err = 0;

	atomic_fetch_add(&s->bytes, (uint64_t)len);
	pthread_mutex_lock(&s->mu);
	while (len && !s->discard) {
		struct block *b = s->last;
		size_t n;
		if (s->backlog >= MAX_BACKLOG) {
			pthread_cond_wait(&s->cond, &s->mu);
			continue;
		}
		if (!b || b->tail == BLOCK) {
			if (!(b = fg_malloc(sizeof(*b)))) {
				s->oom = s->discard = true;
				err = FG_ENOMEM;
				break;
			}
			b->next = NULL;
			b->head = b->tail = 0;
			if (s->last)
				s->last->next = b;
			else
				s->first = b;
			s->last = b;
		}
		n = BLOCK - b->tail < len ? BLOCK - b->tail : len;
		memcpy(b->data + b->tail, p, n);
		b->tail += n;
		s->backlog += n;
		p += n;
		len -= n;
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mu);
	/* a reader that stopped says why once the recording ends */
	return err;
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

/* Closes our write end (perf has its own) and waits for the pump and
 * the reader. */
static void join(struct fg_run_stream *s)
{
	if (s->write_fd >= 0)
		close(s->write_fd);
	s->write_fd = -1;
	if (s->pushed) {
		pthread_mutex_lock(&s->mu);
		s->eof = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->mu);
	}
	/* the pump alone: nothing takes what it queues */
	if (!s->reader_started)
		discard(s);
	if (s->pump_started)
		pthread_join(s->pump, NULL);
	if (s->reader_started)
		pthread_join(s->reader, NULL);
	s->pump_started = s->reader_started = false;
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
	if (s->debug_note[0])
		fg_run_emit(r, FG_PROFILE_NOTE, s->debug_note, 0);
	if (s->cut_note[0])
		fg_run_emit(r, FG_PROFILE_NOTE, s->cut_note, 0);
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
	drop_queue(s);
	free(s->last);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cond);
	free(s);
	r->stream = NULL;
}
