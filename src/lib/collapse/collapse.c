/* The collapser: buffers input into chunks that end where the parser
 * holds no state, parses them (in worker threads when nthreads > 1) into
 * per-worker stack maps, and merges the maps at the end.
 *
 * Why the output does not depend on the thread count: chunk boundaries
 * depend only on the bytes; every chunk starts from a clean parser state;
 * the only state carried across a stream (perf's default event type, the
 * first one seen) is decided by the reading thread before a chunk is
 * handed out; counts are summed, and the output is sorted. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/collapse/internal.h"
#include "util/input.h"
#include "util/version.h"
#include "util/banned.h"

/* Fuzzing builds shrink blocks (-DFG_COLLAPSE_CHUNK_SIZE=4096) so small
 * inputs cross block boundaries and each run stays cheap. */
#ifdef FG_COLLAPSE_CHUNK_SIZE
#define CHUNK_SIZE ((size_t)FG_COLLAPSE_CHUNK_SIZE)
#else
#define CHUNK_SIZE ((size_t)4 << 20)
#endif
#define READ_SIZE ((size_t)256 << 10)
/* the chunk size for input produced piece by piece (see
 * fg_collapser_small_pieces) */
#define SMALL_CHUNK ((size_t)256 << 10)
#define GUESS_MIN ((size_t)64 << 10)
#define GUESS_MAX ((size_t)1 << 20)
#define MAX_THREADS 64

struct chunk {
	char *buf;
	size_t len, alloc;    /* alloc == 0: borrowed from a mapped file */
	uint64_t seq;
	const char *event;   /* perf event type decided when it was handed out */
	size_t event_len;
	uint64_t pre_lines;  /* lines dropped just before buf (a stack too big) */
	bool dropped;        /* buf starts with the rest of that stack */
	bool end_input;      /* line formats: an input (file) ends with buf */
	struct chunk *next;
};

struct worker_ctx {
	fg_collapser *c;
	unsigned idx;
};

struct fg_collapser {
	fg_format format;
	fg_cshared sh;
	char *event_store;      /* the default event type, once decided */
	struct chunk *cur;      /* being filled */
	size_t scan_from;       /* cur has no boundary before this offset */
	size_t line_start;      /* where cur's last (unfinished) line starts */
	bool in_long_line;      /* dropping the rest of a line over the cap */
	bool dropping;          /* cur's stack passed FG_CMAX_STACK */
	uint64_t dropped_lines; /* lines of it dropped so far */
	uint64_t merge_saturated; /* stacks whose counts overflowed while merging */
	size_t guessed_at;      /* cur->len at the last undecided guess */
	size_t chunk_size;      /* input cut for a worker at about this size */
	uint64_t next_seq, bytes;
	unsigned nthreads;
	fg_cworker *workers;
	pthread_t *threads;
	struct worker_ctx *ctx;
	unsigned nstarted;
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_done;
	struct chunk *qhead, *qtail, *free_chunks;
	size_t inflight;
	bool closing, finished;
	uint64_t *lines_by_seq; /* lines in each chunk, for warning line numbers */
	size_t alines;
	fg_strmap *result;
	fg_strmap_entry **sorted;
	int error;
	struct mapping { const char *addr; size_t len; } *maps; /* unmapped by free */
	size_t nmaps;
	const fg_lformat *lf;   /* line formats: how to read a line */
	void *lstate;           /* its state, carried from chunk to chunk */
	uint64_t input_line;    /* lines of the current input read so far */
	bool input_open;        /* bytes fed since the last input ended */
	bool samples;           /* fed samples as data (fg_collapser_add_sample) */
	uint64_t sample_seq;    /* their chunk number, for warnings */
	uint64_t sample_lines;  /* the lines of their text so far */
	fg_strbuf sample_text;  /* the text of one that is not plain */
};

static const char *const warn_text[FG_CWARN_KINDS] = {
	[FG_CWARN_EVENT] = "lines where a perf event header was expected (their events skipped)",
	[FG_CWARN_STACK] = "perf stack lines not of the form ADDRESS SYMBOL (MODULE) (skipped)",
	[FG_CWARN_UTF8] = "lines with invalid UTF-8 (bytes shown as U+FFFD)",
	[FG_CWARN_NUL] = "lines with NUL bytes, binary data? (bytes shown as U+FFFD)",
	[FG_CWARN_NOCOUNT] = "DTrace stacks cut off at the end of the input without a count (dropped)",
	[FG_CWARN_COUNT] = "DTrace counts too large for 64 bits (stacks dropped)",
	[FG_CWARN_BADCOUNT] = "DTrace stacks whose count line is not a whole number (stacks dropped)",
	[FG_CWARN_PERIOD] = "perf sample periods too large for 64 bits (events dropped)",
	[FG_CWARN_LONGNAME] = "frame names longer than 64 KiB (cut to 64 KiB, ending in " FG_COLLAPSE_TRUNCATED ")",
	[FG_CWARN_LONGLINE] = "lines longer than 16 MiB (their stacks dropped)",
	[FG_CWARN_SATURATED] = "stacks whose counts sum past 2^64 - 1 (held at 18446744073709551615)",
	[FG_CWARN_BIGSTACK] = "stacks of more than 64 MiB of text, never ended by an empty or count line (dropped)",
	[FG_CWARN_NOSTART] = "inputs that end before their stacks start (nothing read from them)",
	[FG_CWARN_BADLINE] = "lines that are not of this format (skipped)",
};

const fg_lformat *fg_lformat_of(fg_format f)
{
	switch (f) {
	case FG_FORMAT_RECURSIVE: return &fg_lformat_recursive;
	case FG_FORMAT_SAMPLE: return &fg_lformat_sample;
	case FG_FORMAT_VTUNE: return &fg_lformat_vtune;
	case FG_FORMAT_VSPROF: return &fg_lformat_vsprof;
	case FG_FORMAT_GHCPROF: return &fg_lformat_ghcprof;
	case FG_FORMAT_XCTRACE: return &fg_lformat_xctrace;
	default: return NULL;
	}
}

/* Line formats read in order by one worker, with their state. */
static int use_format(fg_collapser *c, fg_format f)
{
	c->format = f;
	if (!(c->lf = fg_lformat_of(f)))
		return 0;
	if (!(c->lstate = fg_calloc(1, c->lf->state_size)))
		return FG_ENOMEM;
	return 0;
}

static void reset_state(fg_collapser *c)
{
	c->lf->release(c->lstate);
	memset(c->lstate, 0, c->lf->state_size);
	c->input_line = 0;
}

static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

FG_OPTS_INIT_FUNCTION(fg_collapse_opts, FG_COLLAPSE_OPTS_VERSION, FG_COLLAPSE_OPTS_INIT)

int fg_collapser_new(fg_collapser **out, fg_format format, const fg_collapse_opts *opts)
{
	fg_collapse_opts defaults = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	unsigned i;

	*out = NULL;
	if (opts &&
	    fg_opts_version_check("fg_collapse_opts", opts->version, FG_COLLAPSE_OPTS_VERSION))
		return FG_EINVAL;
	if (format != FG_FORMAT_UNKNOWN && format != FG_FORMAT_PERF && format != FG_FORMAT_DTRACE &&
	    !fg_lformat_of(format))
		return fg_error_set(FG_EINVAL, "unknown input format %d", (int)format);
	if (!(c = fg_calloc(1, sizeof(*c))))
		return FG_ENOMEM;
	if (use_format(c, format)) {
		free(c);
		return FG_ENOMEM;
	}
	c->sh.opts = opts ? *opts : defaults;
	if (c->sh.opts.event_filter && *c->sh.opts.event_filter) {
		c->sh.event = c->sh.opts.event_filter;
		c->sh.event_len = strlen(c->sh.event);
	}
	c->nthreads = c->sh.opts.nthreads ? c->sh.opts.nthreads : default_threads();
	if (c->sh.opts.keep_order)
		c->nthreads = 1; /* one worker sees the chunks in input order */
	if (c->nthreads > MAX_THREADS)
		c->nthreads = MAX_THREADS;
	c->workers = fg_calloc(c->nthreads, sizeof(*c->workers));
	c->threads = fg_calloc(c->nthreads, sizeof(*c->threads));
	c->ctx = fg_calloc(c->nthreads, sizeof(*c->ctx));
	if (!c->workers || !c->threads || !c->ctx) {
		free(c->workers);
		free(c->threads);
		free(c->ctx);
		free(c);
		return FG_ENOMEM;
	}
	for (i = 0; i < c->nthreads; i++)
		fg_cworker_init(&c->workers[i]);
	c->workers[0].keep_order = c->sh.opts.keep_order;
	{
		fg_strbuf empty = FG_STRBUF_INIT;
		c->sample_text = empty;
	}
	c->chunk_size = CHUNK_SIZE;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv_work, NULL);
	pthread_cond_init(&c->cv_done, NULL);
	*out = c;
	return 0;
}

/* --- chunks ------------------------------------------------------------ */

static struct chunk *chunk_get(fg_collapser *c)
{
	struct chunk *ch;

	pthread_mutex_lock(&c->mu);
	ch = c->free_chunks;
	if (ch)
		c->free_chunks = ch->next;
	pthread_mutex_unlock(&c->mu);
	if (!ch && (ch = fg_calloc(1, sizeof(*ch)))) {
		ch->alloc = c->chunk_size + READ_SIZE;
		if (!(ch->buf = fg_malloc(ch->alloc))) {
			free(ch);
			ch = NULL;
		}
	}
	if (ch) {
		ch->len = 0;
		ch->next = NULL;
		ch->pre_lines = 0;
		ch->dropped = false;
		ch->end_input = false;
	}
	return ch;
}

static void chunk_free(struct chunk *ch)
{
	if (ch) {
		if (ch->alloc)
			free(ch->buf);
		free(ch);
	}
}

static int chunk_reserve(struct chunk *ch, size_t extra)
{
	size_t need, n;
	char *grown;

	if (!fg_add_size(ch->len, extra, &need))
		return fg_error_set(FG_ENOMEM, "input too large");
	if (need <= ch->alloc)
		return 0;
	n = ch->alloc * 2 > need ? ch->alloc * 2 : need;
	if (!(grown = fg_realloc_array(ch->buf, n, 1)))
		return FG_ENOMEM;
	ch->buf = grown;
	ch->alloc = n;
	return 0;
}

/* Grows the per-chunk line table; called with c->mu held. */
static bool record_lines(fg_collapser *c, uint64_t seq, uint64_t lines)
{
	if (seq >= c->alines) {
		size_t n = c->alines ? c->alines * 2 : 64;
		uint64_t *grown;
		while (n <= seq)
			n *= 2;
		if (!(grown = fg_realloc_array(c->lines_by_seq, n, sizeof(*grown))))
			return false;
		memset(grown + c->alines, 0, (n - c->alines) * sizeof(*grown));
		c->lines_by_seq = grown;
		c->alines = n;
	}
	c->lines_by_seq[seq] = lines;
	return true;
}

/* Drops the pages of a parsed block of a mapped file from our resident
 * set, so memory stays independent of the input size. Only whole pages
 * inside the block: its neighbours may still be being parsed. */
static void release_pages(const char *buf, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)buf + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)buf + len) & ~(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Line formats: every line of ch in turn, then the input's end when ch
 * ends one. Runs on the calling thread; an error stops the collapser. */
static void parse_lines(fg_collapser *c, fg_cworker *w, struct chunk *ch, uint64_t *lines)
{
	fg_lctx x = { w, &c->sh, ch->seq, 0, 0 };
	const char *p = ch->buf, *end = ch->buf + ch->len, *nl;
	fg_view line;
	int err = 0;

	while (p < end && !err && !w->error) {
		nl = memchr(p, '\n', (size_t)(end - p));
		line = fg_view_of(p, (size_t)((nl ? nl : end) - p));
		p = nl ? nl + 1 : end;
		x.line = ++*lines;
		x.input_line = ++c->input_line;
		w->seq = ch->seq;
		w->lineno = x.line;
		if (line.len > FG_CMAX_LINE) {
			fg_cworker_warn(w, FG_CWARN_LONGLINE, ch->seq, x.line);
			continue;
		}
		if (line.len && line.ptr[line.len - 1] == '\r')
			line.len--;
		line = fg_cworker_clean_line(w, line, ch->seq, x.line);
		err = c->lf->line(&x, c->lstate, line);
	}
	if (!err && !w->error && ch->end_input) {
		err = c->lf->end(&x, c->lstate);
		reset_state(c);
	}
	if (err && !c->error)
		c->error = err;
	if (w->error && !c->error)
		c->error = w->error;
}

static void parse_chunk(fg_collapser *c, fg_cworker *w, struct chunk *ch)
{
	fg_cshared sh = c->sh;
	uint64_t lines = ch->pre_lines;

	sh.event = ch->event;
	sh.event_len = ch->event_len;
	if (c->lf)
		parse_lines(c, w, ch, &lines);
	else if (c->format == FG_FORMAT_DTRACE)
		fg_dtrace_parse(w, &sh, ch->buf, ch->len, ch->seq, ch->seq == 0, ch->dropped, &lines);
	else
		fg_perf_parse(w, &sh, ch->buf, ch->len, ch->seq, ch->dropped, &lines);
	/* rewritten frames live only as long as their chunk */
	fg_arena_release(&w->arena);
	if (!ch->alloc)
		release_pages(ch->buf, ch->len);
	pthread_mutex_lock(&c->mu);
	if (!record_lines(c, ch->seq, lines))
		w->error = FG_ENOMEM;
	if (ch->alloc) {
		ch->next = c->free_chunks;
		c->free_chunks = ch;
		ch = NULL;
	}
	pthread_mutex_unlock(&c->mu);
	free(ch); /* a borrowed view of a mapped file */
}

static void *worker_main(void *arg)
{
	struct worker_ctx *ctx = arg;
	fg_collapser *c = ctx->c;
	struct chunk *ch;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->qhead && !c->closing)
			pthread_cond_wait(&c->cv_work, &c->mu);
		if (!(ch = c->qhead))
			break;
		c->qhead = ch->next;
		if (!c->qhead)
			c->qtail = NULL;
		pthread_mutex_unlock(&c->mu);
		parse_chunk(c, &c->workers[ctx->idx], ch);
		pthread_mutex_lock(&c->mu);
		c->inflight--;
		pthread_cond_signal(&c->cv_done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static int start_threads(fg_collapser *c)
{
	unsigned i;

	for (i = c->nstarted; i < c->nthreads; i++) {
		c->ctx[i].c = c;
		c->ctx[i].idx = i;
		if (pthread_create(&c->threads[i], NULL, worker_main, &c->ctx[i]))
			break;
		c->nstarted++;
	}
	if (!c->nstarted)
		return fg_error_set(FG_ENOMEM, "cannot start collapse threads");
	return 0;
}

static int decide_event(fg_collapser *c, struct chunk *ch)
{
	fg_view ev;

	if (c->format != FG_FORMAT_PERF || c->sh.event)
		return 0;
	ev = fg_perf_first_event(ch->buf, ch->len, ch->dropped);
	if (!ev.ptr)
		return 0;
	if (!(c->event_store = fg_strndup(ev.ptr, ev.len)))
		return FG_ENOMEM;
	c->sh.event = c->event_store;
	c->sh.event_len = ev.len;
	return 0;
}

static int dispatch(fg_collapser *c, struct chunk *ch)
{
	int err;

	ch->seq = c->next_seq++;
	if ((err = decide_event(c, ch))) {
		chunk_free(ch);
		return err;
	}
	ch->event = c->sh.event;
	ch->event_len = c->sh.event_len;
	if (c->nthreads == 1 || c->lf) {
		parse_chunk(c, &c->workers[0], ch);
		return c->lf ? c->error : 0;
	}
	if (c->nstarted < c->nthreads && (err = start_threads(c))) {
		chunk_free(ch);
		return err;
	}
	pthread_mutex_lock(&c->mu);
	/* bounded: memory stays a few chunks per thread, whatever the input */
	while (c->inflight >= 2 * (size_t)c->nstarted)
		pthread_cond_wait(&c->cv_done, &c->mu);
	if (c->qtail)
		c->qtail->next = ch;
	else
		c->qhead = ch;
	c->qtail = ch;
	c->inflight++;
	pthread_cond_signal(&c->cv_work);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

/* The end of the last complete line of buf, or len when final. */
static size_t complete_len(const char *buf, size_t len, bool final)
{
	const char *nl;

	if (final || !len)
		return len;
	nl = memrchr(buf, '\n', len);
	return nl ? (size_t)(nl - buf) + 1 : 0;
}

static int guess(fg_collapser *c, bool final)
{
	size_t n = complete_len(c->cur->buf, c->cur->len, final);
	fg_format f = fg_guess_format(c->cur->buf, n);

	if (f != FG_FORMAT_UNKNOWN)
		return use_format(c, f);
	if (!final && c->cur->len < GUESS_MAX)
		return 0;
	if (final && !fg_view_trim(fg_view_of(c->cur->buf, c->cur->len)).len) {
		c->format = FG_FORMAT_PERF; /* empty input: nothing to collapse */
		return 0;
	}
	if (fg_guess_is_folded(c->cur->buf, n))
		return fg_error_set(FG_EPARSE,
				    "the input is folded stacks already: render them, or fold their "
				    "recursion with flamegraph-collapse-recursive");
	return fg_error_set(FG_EPARSE,
			    "cannot tell the input format: it is none of perf script, DTrace, sample, "
			    "VTune CSV, Visual Studio CSV, GHC .prof or xctrace XML — name it with "
			    "the collapser for it (flamegraph-collapse-FORMAT)");
}

/* Marks ch as the end of a dropped stack, when it is one. */
static void take_dropped(fg_collapser *c, struct chunk *ch)
{
	if (c->dropping) {
		ch->dropped = true;
		ch->pre_lines = c->dropped_lines;
		c->dropping = false;
		c->dropped_lines = 0;
	}
}

/* Where a chunk of buf may end (see fg_perf_boundary): line formats
 * after any line. */
static size_t boundary(const fg_collapser *c, const char *buf, size_t from, size_t len)
{
	const char *nl;

	if (c->lf) {
		nl = len > from ? fg_last_nl(buf + from, buf + len) : NULL;
		return nl ? (size_t)(nl - buf) + 1 : 0;
	}
	return c->format == FG_FORMAT_DTRACE ? fg_dtrace_boundary(buf, from, len)
					     : fg_perf_boundary(buf, from, len);
}

/* Hands out the part of cur that ends at the last boundary. */
static int cut(fg_collapser *c)
{
	struct chunk *ch = c->cur, *next;
	size_t b;

	if (c->format == FG_FORMAT_UNKNOWN)
		return 0;
	b = boundary(c, ch->buf, c->scan_from, ch->len);
	if (!b) {
		c->scan_from = ch->len;
		return 0;
	}
	if (!(next = chunk_get(c)))
		return FG_ENOMEM;
	if (chunk_reserve(next, ch->len - b)) {
		chunk_free(next);
		return FG_ENOMEM;
	}
	memcpy(next->buf, ch->buf + b, ch->len - b);
	next->len = ch->len - b;
	ch->len = b;
	c->cur = next;
	c->scan_from = 0;
	c->line_start -= b; /* b ends a line, so it is never past line_start */
	take_dropped(c, ch);
	return dispatch(c, ch);
}

/* A stack still unfinished after FG_CMAX_STACK bytes (cur holds
 * nothing else: everything before its start was cut off) is dropped as it
 * arrives, keeping only its last newline and what follows, where the next
 * boundary may begin. The chunk that ends it is parsed with `dropped`. */
static void drop_stack(fg_collapser *c)
{
	struct chunk *ch = c->cur;
	const char *p = ch->buf, *last;
	size_t keep;

	last = ch->len ? memrchr(ch->buf, '\n', ch->len) : NULL;
	if (!last)
		return; /* one line, held back by limit_line */
	for (; (p = memchr(p, '\n', (size_t)(last - p))); p++)
		c->dropped_lines++;
	keep = (size_t)(ch->buf + ch->len - last);
	memmove(ch->buf, last, keep);
	c->line_start -= ch->len - keep;
	ch->len = keep;
	c->scan_from = 0;
	c->dropping = true;
}

/* Keeps at most FG_CMAX_LINE + 1 bytes of any line in cur: enough for the
 * parser to see that the line is too long and skip it with its line
 * number, while the rest of it is dropped as it arrives. Every line is cut
 * the same way however the input arrives, so the size of a stack (see
 * drop_stack) does not depend on it either. `from` is where the bytes
 * just added start. */
static void limit_line(fg_collapser *c, size_t from)
{
	struct chunk *ch = c->cur;
	const char *nl;
	size_t s, keep;

	if (c->in_long_line) {
		if (!(nl = memchr(ch->buf + from, '\n', ch->len - from))) {
			ch->len = from;
			return;
		}
		ch->len -= (size_t)(nl - (ch->buf + from));
		memmove(ch->buf + from, nl, ch->len - from);
		c->in_long_line = false;
		c->line_start = from + 1;
	}
	/* from the first line not known to be short, a window of the cap at a
	 * time: a newline in it ends a short line (jump past the last one) */
	for (s = c->line_start; ch->len - s > FG_CMAX_LINE + 1;) {
		if ((nl = memrchr(ch->buf + s, '\n', FG_CMAX_LINE + 1))) {
			s = (size_t)(nl - ch->buf) + 1;
			continue;
		}
		keep = s + FG_CMAX_LINE + 1;
		if (!(nl = memchr(ch->buf + keep, '\n', ch->len - keep))) {
			ch->len = keep;
			c->in_long_line = true;
			break;
		}
		ch->len -= (size_t)(nl - (ch->buf + keep));
		memmove(ch->buf + keep, nl, ch->len - keep);
		s = keep + 1;
	}
	nl = ch->len > s ? memrchr(ch->buf + s, '\n', ch->len - s) : NULL;
	c->line_start = nl ? (size_t)(nl - ch->buf) + 1 : s;
}

/* Called after the bytes from `from` on were added to cur. */
static int after_append(fg_collapser *c, size_t from)
{
	int err;

	if (c->cur->len > from)
		c->input_open = true;
	limit_line(c, from);
	/* guess again only after another GUESS_MIN bytes: cheap even when
	 * fed a byte at a time */
	if (c->format == FG_FORMAT_UNKNOWN && c->cur->len >= c->guessed_at + GUESS_MIN) {
		c->guessed_at = c->cur->len;
		if ((err = guess(c, false)))
			return err;
	}
	if (c->cur->len >= c->chunk_size && (err = cut(c)))
		return err;
	/* after a cut cur holds only the stack being read */
	if (c->format != FG_FORMAT_UNKNOWN &&
	    (c->dropping ? c->cur->len >= CHUNK_SIZE : c->cur->len > FG_CMAX_STACK))
		drop_stack(c);
	return 0;
}

static int check_usable(fg_collapser *c)
{
	if (c->error)
		return c->error;
	if (c->finished)
		return fg_error_set(FG_EINVAL, "collapser already finished");
	if (!c->cur && !(c->cur = chunk_get(c)))
		return FG_ENOMEM;
	return 0;
}

void fg_collapser_small_pieces(fg_collapser *c)
{
	if (!c->bytes && c->chunk_size > SMALL_CHUNK)
		c->chunk_size = SMALL_CHUNK;
}

int fg_collapser_feed(fg_collapser *c, const char *buf, size_t len)
{
	int err;

	if ((err = check_usable(c)))
		return err;
	if (c->samples && len)
		return fg_error_set(FG_EINVAL, "a collapser fed samples as data takes no text");
	c->bytes += len;
	while (len) {
		struct chunk *ch = c->cur;
		size_t take = len, from = ch->len;
		/* bounded steps, so a line over the cap is cut before much of it
		 * is buffered */
		if (ch->len < c->chunk_size && take > c->chunk_size - ch->len)
			take = c->chunk_size - ch->len;
		else if (take > READ_SIZE)
			take = READ_SIZE;
		if ((err = chunk_reserve(ch, take)))
			return c->error = err;
		memcpy(ch->buf + ch->len, buf, take);
		ch->len += take;
		buf += take;
		len -= take;
		if ((err = after_append(c, from)))
			return c->error = err;
	}
	return 0;
}

/* Line formats: what cur holds is parsed, and the input ends there (its
 * state starts again for the next). */
/* The default event type (the first one seen), when not decided yet. */
static int set_event(fg_collapser *c, fg_view ev)
{
	if (c->sh.event || !ev.ptr)
		return 0;
	if (!(c->event_store = fg_strndup(ev.ptr, ev.len)))
		return FG_ENOMEM;
	c->sh.event = c->event_store;
	c->sh.event_len = ev.len;
	return 0;
}

/* The arena holds the names rewritten for one sample at a time; it is
 * emptied now and then rather than after each. */
#define SAMPLE_ARENA ((size_t)1 << 20)

int fg_collapser_add_sample(fg_collapser *c, const fg_sample *s)
{
	fg_cworker *w = &c->workers[0];
	uint64_t len;
	int err;

	if (c->error)
		return c->error;
	if (c->finished)
		return fg_error_set(FG_EINVAL, "collapser already finished");
	if (!c->samples) {
		if (c->bytes || (c->format != FG_FORMAT_PERF && c->format != FG_FORMAT_UNKNOWN))
			return fg_error_set(FG_EINVAL,
					    "samples as data go to a perf collapser fed no text");
		c->format = FG_FORMAT_PERF;
		c->samples = true;
		c->sample_seq = c->next_seq++;
	}
	if (fg_perf_sample_plain(s, &len)) {
		if (s->event[0] && (err = set_event(c, fg_view_of(s->event, strcspn(s->event, ":")))))
			return c->error = err;
		fg_perf_fold_sample(w, &c->sh, s, c->sample_seq, &c->sample_lines);
	} else {
		/* the text route: the same lines, parsed */
		fg_strbuf_reset(&c->sample_text);
		if ((err = fg_sample_text(&c->sample_text, s)))
			return c->error = err;
		len = c->sample_text.len;
		if ((err = set_event(c, fg_perf_first_event(c->sample_text.buf, len, false))))
			return c->error = err;
		fg_perf_parse(w, &c->sh, c->sample_text.buf, len, c->sample_seq, false,
			      &c->sample_lines);
	}
	c->bytes += len;
	if (w->arena.used_bytes > SAMPLE_ARENA)
		fg_arena_release(&w->arena);
	if (w->error)
		return c->error = w->error;
	return 0;
}

static int end_lines_input(fg_collapser *c)
{
	struct chunk *last = c->cur;
	int err;

	if (!c->input_open)
		return 0;
	if (!(c->cur = chunk_get(c))) {
		c->cur = last;
		return FG_ENOMEM;
	}
	c->scan_from = c->line_start = 0;
	c->input_open = false;
	last->end_input = true;
	take_dropped(c, last);
	if ((err = dispatch(c, last)))
		return err;
	return c->error;
}

/* Files are one stream, but a file's last line and event end with it. */
static int end_file(fg_collapser *c)
{
	struct chunk *ch = c->cur;
	size_t from = ch->len;
	int err;

	if (c->lf) {
		c->input_open = true; /* an empty file is an input too */
		return end_lines_input(c);
	}
	if (!ch->len || (err = chunk_reserve(ch, 2)))
		return 0;
	if (ch->buf[ch->len - 1] != '\n')
		ch->buf[ch->len++] = '\n';
	if (c->format != FG_FORMAT_DTRACE)
		ch->buf[ch->len++] = '\n';
	return after_append(c, from);
}

/* Hands out the blocks of a mapped file as borrowed chunks, without
 * copying them; what follows the last boundary goes to cur. */
static int feed_mapped(fg_collapser *c, const char *map, size_t size)
{
	size_t pos = 0, b, window, from;
	struct chunk *ch;
	int err;

	while (size - pos > CHUNK_SIZE) {
		b = 0;
		from = 0;
		/* a stack too big: the copying path drops it without holding it */
		for (window = CHUNK_SIZE; !b && from < size - pos && window <= FG_CMAX_STACK;
		     window *= 2) {
			size_t len = window < size - pos ? window : size - pos;
			b = boundary(c, map + pos, from, len);
			from = len;
		}
		if (!b)
			break;
		if (!(ch = fg_calloc(1, sizeof(*ch))))
			return FG_ENOMEM;
		ch->buf = (char *)map + pos;
		ch->len = b;
		c->input_open = true;
		if ((err = dispatch(c, ch)))
			return err;
		pos += b;
		/* a file cut short reads as zeros from there on */
		if ((err = fg_input_map_check(map)))
			return err;
	}
	c->bytes += pos;
	if ((err = fg_collapser_feed(c, map + pos, size - pos)))
		return err;
	return fg_input_map_check(map);
}

/* Large regular uncompressed files are mapped rather than read: no copy
 * through the kernel. Returns 1 when the file was handled this way. */
static int try_mapped(fg_collapser *c, const char *path)
{
	struct mapping *grown;
	const char *map;
	size_t len;
	int err;

	if (c->format == FG_FORMAT_UNKNOWN || c->cur->len || !path || !strcmp(path, "-"))
		return 0;
	if ((err = fg_input_map(path, 2 * CHUNK_SIZE, FG_INPUT_MAP_SEQUENTIAL, &map, &len)) != 1)
		return err; /* not mapped: read (gzip, small), or cannot be opened */
	if (!(grown = fg_realloc_array(c->maps, c->nmaps + 1, sizeof(*grown)))) {
		fg_input_unmap(map, len);
		return FG_ENOMEM;
	}
	c->maps = grown;
	c->maps[c->nmaps].addr = map;
	c->maps[c->nmaps++].len = len;
	if ((err = feed_mapped(c, map, len)))
		return c->error = err;
	return 1;
}

int fg_collapser_end_input(fg_collapser *c)
{
	int err;

	if ((err = check_usable(c)))
		return err;
	if ((err = end_file(c)))
		c->error = err;
	return err;
}

int fg_collapse_file(fg_collapser *c, const char *path)
{
	fg_input *in = NULL;
	ssize_t n;
	int err;

	if ((err = check_usable(c)))
		return err;
	if ((err = try_mapped(c, path)))
		return err < 0 ? err : end_file(c);
	if ((err = fg_input_open(&in, path)))
		return err;
	for (;;) {
		if ((err = chunk_reserve(c->cur, READ_SIZE)))
			break;
		size_t from = c->cur->len;
		n = fg_input_read(in, c->cur->buf + c->cur->len, READ_SIZE);
		if (n <= 0) {
			err = (int)n;
			break;
		}
		c->cur->len += (size_t)n;
		c->bytes += (uint64_t)n;
		if ((err = after_append(c, from)))
			break;
	}
	fg_input_close(in);
	if (!err)
		err = end_file(c);
	if (err && err != FG_EIO && err != FG_ENOTFOUND)
		c->error = err;
	return err;
}

/* --- finishing and results --------------------------------------------- */

static void stop_threads(fg_collapser *c)
{
	unsigned i;

	pthread_mutex_lock(&c->mu);
	c->closing = true;
	pthread_cond_broadcast(&c->cv_work);
	pthread_mutex_unlock(&c->mu);
	for (i = 0; i < c->nstarted; i++)
		pthread_join(c->threads[i], NULL);
	c->nstarted = 0;
}

static int merge(fg_collapser *c)
{
	unsigned i, base = 0;
	fg_strmap_entry *e, *d;
	size_t it;

	for (i = 0; i < c->nthreads; i++) {
		if (c->workers[i].error == FG_ENOMEM)
			return fg_error_set(FG_ENOMEM, "out of memory while collapsing stacks");
		if (c->workers[i].error)
			return c->workers[i].error;
		if (c->workers[i].map.count > c->workers[base].map.count)
			base = i;
	}
	c->result = &c->workers[base].map;
	for (i = 0; i < c->nthreads; i++) {
		if (i == base)
			continue;
		for (it = 0; (e = fg_strmap_next(&c->workers[i].map, &it));) {
			if (!(d = fg_strmap_put_hashed(c->result, e->key, e->len, e->hash)))
				return FG_ENOMEM;
			if (!fg_add_count(&d->value.u, e->value.u))
				c->merge_saturated++;
		}
		fg_strmap_release(&c->workers[i].map);
	}
	return 0;
}

int fg_collapser_finish(fg_collapser *c)
{
	int err = 0;

	if ((err = check_usable(c)))
		goto done;
	if (c->format == FG_FORMAT_UNKNOWN && (err = guess(c, true)))
		goto done;
	/* what remains ends at the end of the input: a last stack without its
	 * terminating empty or count line still counts */
	if (c->lf) {
		if ((err = end_lines_input(c)))
			goto done;
	} else if (c->cur->len) {
		struct chunk *last = c->cur;
		c->cur = NULL;
		take_dropped(c, last);
		err = dispatch(c, last);
	}
done:
	stop_threads(c);
	if (c->samples && !record_lines(c, c->sample_seq, c->sample_lines) && !err)
		err = FG_ENOMEM;
	/* the workers are done with the mapped files: were they whole? */
	for (size_t i = 0; i < c->nmaps && !err; i++)
		err = fg_input_map_check(c->maps[i].addr);
	if (!err && !c->error)
		err = merge(c);
	if (err && !c->error)
		c->error = err;
	c->finished = true;
	return c->error;
}

static int ensure_sorted(const fg_collapser *cc)
{
	fg_collapser *c = (fg_collapser *)cc; /* the sorted view is a cache */

	if (!c->finished || c->error)
		return c->error ? c->error
				: fg_error_set(FG_EINVAL, "fg_collapser_finish was not called");
	if (!c->sorted && c->result->count && !(c->sorted = fg_strmap_sorted(c->result)))
		return FG_ENOMEM;
	return 0;
}

/* keep_order: walks the input-order records of the one worker */
static int foreach_in_order(const fg_collapser *c, fg_stack_cb cb, void *ctx)
{
	const fg_strbuf *o = &c->workers[0].order;
	size_t off = 0;
	uint64_t count;
	uint32_t len;
	int err;

	if (!c->finished || c->error)
		return c->error ? c->error : fg_error_set(FG_EINVAL, "fg_collapser_finish was not called");
	while (off + 12 <= o->len) {
		memcpy(&count, o->buf + off, 8);
		memcpy(&len, o->buf + off + 8, 4);
		if ((err = cb(ctx, o->buf + off + 12, len, count)))
			return err;
		off += 12 + (size_t)len;
	}
	return 0;
}

int fg_collapser_foreach(const fg_collapser *c, fg_stack_cb cb, void *ctx)
{
	size_t i;
	int err;

	if (c->sh.opts.keep_order)
		return foreach_in_order(c, cb, ctx);
	if ((err = ensure_sorted(c)))
		return err;
	for (i = 0; i < c->result->count; i++)
		if ((err = cb(ctx, c->sorted[i]->key, c->sorted[i]->len, c->sorted[i]->value.u)))
			return err;
	return 0;
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

static int write_line(void *ctx, const char *stack, size_t len, uint64_t count)
{
	FILE *out = ctx;
	char num[24], *end = put_u64(num, count);

	*end++ = '\n';
	if (fwrite(stack, 1, len, out) != len || putc(' ', out) == EOF ||
	    fwrite(num, 1, (size_t)(end - num), out) != (size_t)(end - num))
		return fg_error_set(FG_EIO, "cannot write the folded stacks: %s", strerror(errno));
	return 0;
}

int fg_collapser_write(const fg_collapser *c, FILE *out)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	size_t i;
	int err;

	if (c->sh.opts.keep_order) {
		if ((err = foreach_in_order(c, write_line, out)))
			return err;
		return fflush(out) ? fg_error_set(FG_EIO, "cannot write the folded stacks: %s", strerror(errno)) : 0;
	}
	if ((err = ensure_sorted(c)))
		return err;
	for (i = 0; i < c->result->count; i++) {
		const fg_strmap_entry *e = c->sorted[i];
		if ((err = fg_strbuf_grow(&sb, e->len + 23)))
			goto done;
		char *p = sb.buf + sb.len;
		memcpy(p, e->key, e->len);
		p += e->len;
		*p++ = ' ';
		p = put_u64(p, e->value.u);
		*p++ = '\n';
		sb.len = (size_t)(p - sb.buf); /* filled in place after fg_strbuf_grow */
		if (sb.len >= 64 * 1024 || i + 1 == c->result->count) {
			if (fwrite(sb.buf, 1, sb.len, out) != sb.len) {
				err = fg_error_set(FG_EIO, "cannot write the folded stacks: %s", strerror(errno));
				goto done;
			}
			fg_strbuf_reset(&sb);
		}
	}
	if (fflush(out))
		err = fg_error_set(FG_EIO, "cannot write the folded stacks: %s", strerror(errno));
done:
	fg_strbuf_release(&sb);
	return err;
}

void fg_collapser_stats(const fg_collapser *c, fg_collapse_stats *out)
{
	uint64_t first_seq, first_line, prefix;
	unsigned i;
	int k;

	memset(out, 0, sizeof(*out));
	out->bytes = c->bytes;
	out->event = c->sh.event;
	for (i = 0; i < c->nthreads; i++) {
		out->samples += c->workers[i].samples;
		out->filtered += c->workers[i].filtered;
		out->stacks += c->workers[i].map.count;
	}
	if (c->result)
		out->stacks = c->result->count;
	for (k = 0; k < FG_CWARN_KINDS && out->nwarnings < FG_COLLAPSE_MAX_WARNINGS; k++) {
		uint64_t count = 0;
		first_seq = UINT64_MAX;
		first_line = 0;
		for (i = 0; i < c->nthreads; i++) {
			const fg_cworker *w = &c->workers[i];
			if (!w->warn_count[k])
				continue;
			count += w->warn_count[k];
			if (w->warn_seq[k] < first_seq ||
			    (w->warn_seq[k] == first_seq && w->warn_line[k] < first_line)) {
				first_seq = w->warn_seq[k];
				first_line = w->warn_line[k];
			}
		}
		if (k == FG_CWARN_SATURATED)
			count += c->merge_saturated;
		if (!count)
			continue;
		for (prefix = 0, i = 0; i < first_seq && i < c->alines; i++)
			prefix += c->lines_by_seq[i];
		out->warnings[out->nwarnings].what = warn_text[k];
		out->warnings[out->nwarnings].count = count;
		/* overflows found while merging threads have no line */
		out->warnings[out->nwarnings].first_line =
			first_seq == UINT64_MAX ? 0 : prefix + first_line;
		out->nwarnings++;
	}
}

void fg_collapser_free(fg_collapser *c)
{
	struct chunk *ch;
	unsigned i;

	if (!c)
		return;
	stop_threads(c);
	while ((ch = c->qhead)) {
		c->qhead = ch->next;
		chunk_free(ch);
	}
	while ((ch = c->free_chunks)) {
		c->free_chunks = ch->next;
		chunk_free(ch);
	}
	chunk_free(c->cur);
	for (i = 0; i < c->nthreads; i++)
		fg_cworker_release(&c->workers[i]);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv_work);
	pthread_cond_destroy(&c->cv_done);
	free(c->workers);
	free(c->threads);
	free(c->ctx);
	free(c->sorted);
	free(c->lines_by_seq);
	free(c->event_store);
	fg_strbuf_release(&c->sample_text);
	for (i = 0; i < c->nmaps; i++)
		fg_input_unmap(c->maps[i].addr, c->maps[i].len);
	free(c->maps);
	if (c->lf)
		c->lf->release(c->lstate);
	free(c->lstate);
	free(c);
}
