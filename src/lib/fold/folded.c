/* The folded-stack reader: "a;b;c COUNT" (or "a;b;c BEFORE AFTER") lines
 * merged into one table of distinct stacks.
 *
 * This is the render stage's hot path: every input byte passes through
 * feed_lines() once. Lines are split with memchr, the count is parsed by
 * hand from the end of the line (no strtod, no copies), and the stack is
 * hashed and looked up in place; only a stack never seen before is copied
 * (into the map's arena). A mapped file's lines are gathered instead and
 * merged by one sort once it is read (gather, settle), unless they turn
 * out to be mostly repeats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/folded.h"
#include "lib/fold/internal.h"
#include "util/input.h"
#include "util/strbuf.h"
#include "util/banned.h"

static const char *const warn_what[FG_FW_NKINDS] = {
	"lines without a sample count at the end",
	"lines with a count but no stack",
	"lines whose count is 2^64 or more",
	"lines whose count takes the total to 2^64 samples or more",
	"lines longer than 16 MiB",
	("frame names longer than 64 KiB, cut to 64 KiB and marked " FG_FOLDED_CUT_MARK),
};

int fg_folded_new_ex(fg_folded **out, unsigned flags)
{
	fg_folded *f = fg_calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return FG_ENOMEM;
	f->keep_order = (flags & FG_FOLDED_KEEP_ORDER) != 0;
	f->source = fg_strdup("<input>");
	if (!f->source) {
		free(f);
		return FG_ENOMEM;
	}
	*out = f;
	return 0;
}

int fg_folded_new(fg_folded **out)
{
	return fg_folded_new_ex(out, 0);
}

void fg_folded_free(fg_folded *f)
{
	if (!f)
		return;
	fg_strmap_release(&f->map);
	for (size_t i = 0; i < f->nmapped; i++)
		fg_input_unmap(f->mapped[i].data, f->mapped[i].len);
	free(f->mapped);
	free(f->recs);
	free(f->fracs);
	free(f->nexts);
	free(f->loose);
	fg_strmap_release(&f->sampled);
	free(f->keys);
	free(f->shared);
	free(f->seq);
	free(f->source);
	fg_strbuf_release(&f->carry);
	fg_strbuf_release(&f->scratch);
	free(f);
}

int fg_folded_set_source(fg_folded *f, const char *name)
{
	char *copy = fg_strdup(name ? name : "<input>");

	if (!copy)
		return FG_ENOMEM;
	free(f->source);
	f->source = copy;
	f->lineno = 0;
	return 0;
}

static void warn(fg_folded *f, enum fg_folded_warn_kind kind)
{
	struct fg_folded_warn *w = &f->warn[kind];

	if (kind != FG_FW_LONGNAME)
		f->skipped++;
	/* the first one's location is where a user should look */
	if (w->count++ == 0)
		snprintf(w->where, sizeof(w->where), "%s:%llu", f->source,
			 (unsigned long long)f->lineno);
}

/* Grows the fractions beside the records to the records' capacity;
 * the first call allocates them, zero for the records already there. */
static int grow_fracs(fg_folded *f)
{
	size_t from = f->fracs ? f->nrecs : 0;
	struct fg_folded_frac *v = fg_realloc_array(f->fracs, f->arecs, sizeof(*v));

	if (!v)
		return FG_ENOMEM;
	memset(v + from, 0, (f->arecs - from) * sizeof(*v));
	f->fracs = v;
	return 0;
}

/* The lines after which the prediction is judged, and dropped unless
 * half of them were predicted. */
#define FG_FOLDED_PREDICT_TRIAL 65536

static void predict_stop(fg_folded *f)
{
	free(f->nexts);
	f->nexts = NULL;
	f->predict_off = true;
	f->prev = 0;
}

static int push_rec(fg_folded *f, fg_strmap_entry *e)
{
	size_t had = f->arecs;

	if (FG_ALLOC_GROW(f->recs, f->nrecs + 1, f->arecs, 1024))
		return FG_ENOMEM;
	if (f->fracs && f->arecs != had && grow_fracs(f))
		return FG_ENOMEM;
	if (!f->predict_off && (f->arecs != had || !f->nexts)) {
		struct fg_folded_next *v = fg_realloc_array(f->nexts, f->arecs, sizeof(*v));

		if (!v)
			return FG_ENOMEM;
		f->nexts = v;
	}
	if (f->nexts) {
		f->nexts[f->nrecs].key = e->key;
		f->nexts[f->nrecs].len = e->len;
		f->nexts[f->nrecs].next = 0;
	}
	f->recs[f->nrecs].count = 0;
	f->recs[f->nrecs].before = 0;
	e->value.u = ++f->nrecs;
	return 0;
}

/* *n + *frac/ONE += c (frac may be NULL when c has no fraction). The
 * caller has checked that the sum fits: no part of a total can overflow
 * once the total does not. */
static inline void count_add(uint64_t *n, uint64_t *frac, fg_count c)
{
	*n += c.n;
	if (c.frac) {
		*frac += c.frac;
		if (*frac >= FG_COUNT_FRAC_ONE) {
			*frac -= FG_COUNT_FRAC_ONE;
			++*n;
		}
	}
}

/* Whether total + c stays below 2^64. */
static inline bool count_fits(fg_count total, fg_count c)
{
	uint64_t room = UINT64_MAX - total.n;
	bool carry = c.frac && total.frac + c.frac >= FG_COUNT_FRAC_ONE;

	return carry ? c.n < room : c.n <= room;
}

static int push_seq(fg_folded *f, const char *key, size_t len, fg_count count,
		    fg_count before)
{
	fg_folded_stack *q;

	if (!f->nseq || f->seq[f->nseq - 1].stack != key) {
		if (FG_ALLOC_GROW(f->seq, f->nseq + 1, f->aseq, 1024))
			return FG_ENOMEM;
		q = &f->seq[f->nseq++];
		q->stack = key;
		q->len = len;
		q->count = q->before = 0;
		f->seq_frac.count = f->seq_frac.before = 0;
	}
	/* consecutive equal lines are one box in a flame chart too */
	q = &f->seq[f->nseq - 1];
	count_add(&q->count, &f->seq_frac.count, count);
	count_add(&q->before, &f->seq_frac.before, before);
	return 0;
}

/* Whether any ';'-separated frame of the stack is longer than the cap.
 * Only called for stacks longer than the cap, so the common case costs
 * one comparison. */
static bool has_long_frame(const char *p, size_t len)
{
	const char *e = p + len, *semi;

	for (; p < e; p = semi + 1) {
		if (!(semi = memchr(p, ';', (size_t)(e - p))))
			semi = e;
		if ((size_t)(semi - p) > FG_FOLDED_MAX_FRAME)
			return true;
	}
	return false;
}

/* A cut at most max bytes into s that does not split a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t max)
{
	size_t k = max;

	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	return k ? k : max;
}

/* Copies the stack into f->scratch with every over-long frame name cut
 * and marked. */
static int cut_long_frames(fg_folded *f, const char *p, size_t len)
{
	const char *e = p + len, *semi;
	int err = 0;

	fg_strbuf_reset(&f->scratch);
	for (; p <= e && !err; p = semi + 1) {
		size_t n;
		if (!(semi = memchr(p, ';', (size_t)(e - p))))
			semi = e;
		n = (size_t)(semi - p);
		if (n > FG_FOLDED_MAX_FRAME) {
			err = fg_strbuf_add(&f->scratch, p, utf8_cut(p, FG_FOLDED_MAX_FRAME));
			if (!err)
				err = fg_strbuf_addstr(&f->scratch, FG_FOLDED_CUT_MARK);
		} else {
			err = fg_strbuf_add(&f->scratch, p, n);
		}
		if (!err && semi < e)
			err = fg_strbuf_addch(&f->scratch, ';');
	}
	return err;
}

/* Counts into record i, whose key is key. */
static int add_to(fg_folded *f, size_t i, const char *key, size_t len, fg_count count,
		  fg_count before)
{
	int err;

	if ((count.frac || before.frac) && !f->fracs && (err = grow_fracs(f)))
		return err;
	count_add(&f->recs[i].count, f->fracs ? &f->fracs[i].count : NULL, count);
	count_add(&f->recs[i].before, f->fracs ? &f->fracs[i].before : NULL, before);
	count_add(&f->total.n, &f->total.frac, count);
	count_add(&f->total_before.n, &f->total_before.frac, before);
	f->added = i + 1;
	if (f->keep_order)
		return push_seq(f, key, len, count, before);
	return 0;
}

/* Makes a settled fg_folded's map again, so that stacks can be added. */
static int map_back(fg_folded *f)
{
	struct fg_folded_key *k = f->keys;
	size_t i;
	int err;

	/* reserved: no put below can fail */
	if ((err = fg_strmap_reserve(&f->map, f->nrecs)))
		return err;
	for (i = 0; i < f->nrecs; i++)
		fg_strmap_put_borrowed(&f->map, k[i].key, k[i].len,
				       fg_hash_long(k[i].key, k[i].len))->value.u = i + 1;
	f->keys = NULL;
	free(k);
	free(f->shared);
	f->shared = NULL;
	return 0;
}

static int add_hashed(fg_folded *f, const char *stack, size_t len, uint64_t hash,
		      fg_count count, fg_count before)
{
	fg_strmap_entry *e;
	int err;

	if (f->keys && (err = map_back(f)))
		return err;
	if (!count_fits(f->total, count) || !count_fits(f->total_before, before)) {
		warn(f, FG_FW_SUM);
		return 0;
	}
	if (len > FG_FOLDED_MAX_FRAME && has_long_frame(stack, len)) {
		if ((err = cut_long_frames(f, stack, len)))
			return err;
		warn(f, FG_FW_LONGNAME);
		stack = f->scratch.buf;
		len = f->scratch.len;
		hash = fg_hash_long(stack, len);
		e = fg_strmap_put_hashed(&f->map, stack, len, hash);
	} else if (f->borrow) {
		e = fg_strmap_put_borrowed(&f->map, stack, len, hash);
	} else {
		e = fg_strmap_put_hashed(&f->map, stack, len, hash);
	}
	if (!e)
		return FG_ENOMEM;
	if (!e->value.u) {
		if ((err = push_rec(f, e)))
			return err;
		f->key_bytes += len;
	}
	return add_to(f, e->value.u - 1, e->key, e->len, count, before);
}

static const fg_count no_count = { 0, 0 };

/* Gathering samples one line in 1 << GATHER_SAMPLE_BITS; when more than
 * half of a window of GATHER_WINDOW samples were seen before, the lines
 * are mostly repeats: a file of repeats is told after about 2 000 lines.
 * (One in 16 made the sample's map 1 MB for 200 000 distinct lines, and
 * its lookups cost more than telling repeats 1 500 lines sooner saves.) */
#define GATHER_SAMPLE_BITS 6
#define GATHER_WINDOW 32

/* One gathered line in 1 << GATHER_SAMPLE_BITS is sampled, by its last bytes. */
static bool sampled_line(const char *p, size_t len)
{
	uint64_t t = 0;

	memcpy(&t, p + (len >= 8 ? len - 8 : 0), len >= 8 ? 8 : len);
	return ((t ^ len) * 0x9e3779b97f4a7c15ULL) >> (64 - GATHER_SAMPLE_BITS) == 0;
}

/* Ends the gathering: the lines gathered so far go through the map, as
 * the rest of the input will. */
static int ungather(fg_folded *f)
{
	struct fg_folded_slot *l = f->loose;
	const size_t n = f->nloose;
	size_t i, guess = f->sampled.count << GATHER_SAMPLE_BITS;
	int err;

	f->loose = NULL;
	f->loose_moved = false;
	f->nloose = f->aloose = 0;
	f->gather = false;
	/* what follows is mostly repeats too: new stacks copied, pages let go */
	f->borrow = false;
	f->prev = 0;
	fg_strmap_release(&f->sampled);
	err = fg_strmap_reserve(&f->map, f->map.count + (guess < n ? guess : n));
	for (i = 0; i < n && !err; i++) {
		fg_count c = { l[i].count, 0 };

		f->total.n -= c.n; /* counted again by add_hashed */
		err = add_hashed(f, l[i].key, l[i].len, fg_hash_long(l[i].key, l[i].len), c,
				 no_count);
	}
	free(l);
	return err;
}

/* A line kept as it is, its stack still in the caller's bytes, to be
 * merged with its equals by settle(). */
static int gather(fg_folded *f, const char *p, size_t len, fg_count count, fg_count before)
{
	struct fg_folded_slot *l;

	/* fractional and differential counts are rare: through the map, so
	 * that a gathered line is a slot of the sort (no room for fractions);
	 * so is a name to cut (a copy) */
	if (count.frac || before.n || before.frac || count.n > FG_FOLDED_SLOT_MAX ||
	    (len > FG_FOLDED_MAX_FRAME && has_long_frame(p, len)))
		return add_hashed(f, p, len, fg_hash_long(p, len), count, before);
	if (!count_fits(f->total, count)) {
		warn(f, FG_FW_SUM);
		return 0;
	}
	if (FG_ALLOC_GROW(f->loose, f->nloose + 1, f->aloose, 4096))
		return FG_ENOMEM;
	l = &f->loose[f->nloose++];
	l->key = p;
	l->len = (uint32_t)len; /* a line is at most FG_FOLDED_MAX_LINE */
	l->count = (uint32_t)count.n;
	fg_folded_slot_digit(l, 0);
	f->total.n += count.n;
	if (sampled_line(p, len)) {
		fg_strmap_entry *e = fg_strmap_put_borrowed(&f->sampled, p, len,
							    fg_hash_long(p, len));

		if (!e)
			return FG_ENOMEM;
		f->window_seen += e->value.u != 0;
		e->value.u = 1;
		if (++f->window == GATHER_WINDOW) {
			bool repeats = f->window_seen * 2 > f->window;

			f->window = f->window_seen = 0;
			if (repeats)
				return ungather(f);
		}
	}
	return 0;
}

int fg_folded_fill_slots(const fg_folded *f, struct fg_folded_slot *v, bool counts)
{
	size_t i, it = 0, len, idx;
	const char *key;

	for (i = 0; i < f->nloose; i++) {
		v[i].key = f->loose[i].key;
		v[i].len = f->loose[i].len;
		if (counts)
			v[i].count = f->loose[i].count;
		else
			v[i].idx = (uint32_t)i;
	}
	while (i < f->nloose + f->nrecs && fg_folded_next_stack(f, &it, &key, &len, &idx)) {
		uint64_t value = counts ? f->recs[idx].count : f->nloose + idx;

		if (len > FG_FOLDED_SLOT_MAX || value > FG_FOLDED_SLOT_MAX)
			return 1;
		v[i].key = key;
		v[i].len = (uint32_t)len;
		if (counts)
			v[i++].count = (uint32_t)value;
		else
			v[i++].idx = (uint32_t)value;
	}
	return 0;
}

/* The counts of slot idx of settle(): a loose line, or (from nloose on)
 * a record. */
static void counts_of(const fg_folded *f, size_t idx, fg_count *count, fg_count *before)
{
	if (idx < f->nloose) {
		count->n = f->loose[idx].count;
		count->frac = before->n = before->frac = 0;
	} else {
		*count = fg_folded_count_of(f, idx - f->nloose, false);
		*before = fg_folded_count_of(f, idx - f->nloose, true);
	}
}

/* Merges the gathered lines and the map's stacks into records in
 * bytewise order (f is then settled: keys[] instead of the map). Sorting
 * once is cheaper than a map lookup per line when most stacks are new, as
 * the stacks are sorted for drawing anyway. Nothing changes on
 * FG_ENOMEM. */
static int settle(fg_folded *f)
{
	const size_t n = f->nloose + f->nrecs;
	struct fg_folded_slot *v = NULL;
	struct fg_folded_rec *recs = fg_calloc(n ? n : 1, sizeof(*recs));
	struct fg_folded_key *keys = fg_malloc((n ? n : 1) * sizeof(*keys));
	size_t *lcp = fg_malloc((n ? n : 1) * sizeof(*lcp));
	struct fg_folded_frac *fracs = NULL;
	const bool need_fracs = f->fracs != NULL;
	size_t i, m = 0;
	uint64_t key_bytes = 0;
	int err = FG_ENOMEM;

	if (!recs || !keys || !lcp || (need_fracs && !(fracs = fg_calloc(n, sizeof(*fracs)))) ||
	    !(v = fg_malloc((n ? n : 1) * sizeof(*v))))
		goto fail;
	if (fg_folded_fill_slots(f, v, false)) {
		err = fg_folded_slot_limit();
		goto fail;
	}
	if ((err = fg_folded_sort_slots(v, lcp, n)))
		goto fail;
	for (i = 0; i < n; i++) {
		fg_count c, b;

		/* equal to the one before when it shares all of both */
		if (!m || lcp[i] != v[i].len || lcp[i] != keys[m - 1].len) {
			keys[m].key = v[i].key;
			keys[m].len = v[i].len;
			lcp[m] = lcp[i]; /* i >= m: read before written */
			key_bytes += v[i].len;
			m++;
		}
		counts_of(f, v[i].idx, &c, &b);
		count_add(&recs[m - 1].count, fracs ? &fracs[m - 1].count : NULL, c);
		count_add(&recs[m - 1].before, fracs ? &fracs[m - 1].before : NULL, b);
	}
	free(v);
	predict_stop(f);
	fg_strmap_clear_keep_keys(&f->map);
	free(f->recs);
	free(f->fracs);
	free(f->loose);
	f->loose = NULL;
	f->loose_moved = false;
	f->nloose = f->aloose = 0;
	fg_strmap_release(&f->sampled);
	f->window = f->window_seen = 0;
	f->recs = recs;
	f->fracs = fracs;
	f->keys = keys;
	free(f->shared);
	f->shared = lcp;
	f->nrecs = m;
	f->arecs = n ? n : 1;
	f->key_bytes = key_bytes;
	return 0;
fail:
	free(v);
	free(recs);
	free(keys);
	free(lcp);
	free(fracs);
	return err;
}

int fg_folded_settled(const fg_folded *f)
{
	/* only how f holds its stacks changes, not what they are: readers
	 * take f as const. An fg_folded is made by fg_folded_new, never
	 * defined const, so writing through the cast is sound. */
	return f->nloose ? settle((fg_folded *)f) : 0;
}

int fg_folded_add(fg_folded *f, const char *stack, size_t len, uint64_t count)
{
	fg_count c = { count, 0 };

	return add_hashed(f, stack, len, fg_hash_long(stack, len), c, no_count);
}

int fg_folded_add_count(fg_folded *f, const char *stack, size_t len, fg_count count)
{
	if (count.frac >= FG_COUNT_FRAC_ONE)
		return fg_error_set(FG_EINVAL, "a sample count's fraction must be below %llu",
				    FG_COUNT_FRAC_ONE);
	return add_hashed(f, stack, len, fg_hash_long(stack, len), count, no_count);
}

int fg_folded_add_diff(fg_folded *f, const char *stack, size_t len, fg_count before,
		       fg_count after)
{
	if (before.frac >= FG_COUNT_FRAC_ONE || after.frac >= FG_COUNT_FRAC_ONE)
		return fg_error_set(FG_EINVAL, "a sample count's fraction must be below %llu",
				    FG_COUNT_FRAC_ONE);
	f->differential = true;
	return add_hashed(f, stack, len, fg_hash_long(stack, len), after, before);
}

static inline bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* 10^(18 - k): scales k fraction digits to units of 10^-18. */
static const uint64_t frac_scale[19] = {
	1000000000000000000ull, 100000000000000000ull, 10000000000000000ull,
	1000000000000000ull, 100000000000000ull, 10000000000000ull, 1000000000000ull,
	100000000000ull, 10000000000ull, 1000000000ull, 100000000ull, 10000000ull,
	1000000ull, 100000ull, 10000ull, 1000ull, 100ull, 10ull, 1ull,
};

/* Parses the number that ends at `end` (digits with at most one '.'),
 * scanning backwards; returns its first byte, or NULL when the bytes
 * before `end` are not a count: a count starts the line or follows a
 * blank (a name ending in digits, "fn_12", is no count). A whole part of
 * 2^64 or more sets *huge; fraction digits past the 18th are ignored. */
static const char *parse_count_back(const char *start, const char *end, fg_count *out,
				    bool *huge)
{
	const char *p = end, *dot = NULL, *q;
	uint64_t ip = 0, fp = 0;
	unsigned nf = 0;

	while (p > start && (is_digit(p[-1]) || (p[-1] == '.' && !dot))) {
		p--;
		if (*p == '.')
			dot = p;
	}
	if (p == end || (dot == p && p + 1 == end) || (p > start && !is_blank(p[-1])))
		return NULL;
	*huge = false;
	for (q = p; q < (dot ? dot : end); q++)
		if (__builtin_mul_overflow(ip, 10, &ip) ||
		    __builtin_add_overflow(ip, (uint64_t)(*q - '0'), &ip))
			*huge = true;
	if (dot)
		for (q = dot + 1; q < end && nf < 18; q++, nf++)
			fp = fp * 10 + (uint64_t)(*q - '0');
	out->n = ip;
	out->frac = fp * frac_scale[nf];
	return p;
}

/* A line's stack: the one that followed the last line's stack before
 * when it is the same (fg_folded_next), else through the map; then
 * remembered as what followed. */
static int add_line(fg_folded *f, const char *p, size_t len, fg_count count, fg_count before)
{
	size_t prev = f->prev, nx = prev ? f->nexts[prev - 1].next : 0;
	int err;

	if (f->gather && f->borrow)
		return gather(f, p, len, count, before);
	f->added = 0;
	if (nx && f->nexts[nx - 1].len == len && !memcmp(f->nexts[nx - 1].key, p, len) &&
	    count_fits(f->total, count) && count_fits(f->total_before, before)) {
		f->predicted++;
		err = add_to(f, nx - 1, f->nexts[nx - 1].key, len, count, before);
	} else {
		err = add_hashed(f, p, len, fg_hash_long(p, len), count, before);
	}
	if (err || f->predict_off)
		return err;
	if (prev && f->added)
		f->nexts[prev - 1].next = f->added;
	f->prev = f->added;
	if (++f->fed == FG_FOLDED_PREDICT_TRIAL && f->predicted < FG_FOLDED_PREDICT_TRIAL / 2)
		predict_stop(f);
	return 0;
}

/* One line, without its '\n'. */
static int feed_line(fg_folded *f, const char *p, const char *e)
{
	fg_count count, before = { 0, 0 };
	const char *num, *num2;
	bool diff = false, huge = false, huge2 = false;

	f->lineno++;
	if ((size_t)(e - p) > FG_FOLDED_MAX_LINE) {
		f->lines++;
		warn(f, FG_FW_LONGLINE);
		return 0;
	}
	while (e > p && is_blank(e[-1]))
		e--;
	while (p < e && is_blank(*p))
		p++;
	/* blank lines and '#' comments (austin and others write headers) */
	if (p == e || *p == '#')
		return 0;
	f->lines++;
	num = parse_count_back(p, e, &count, &huge);
	if (!num) {
		warn(f, FG_FW_NOCOUNT);
		return 0;
	}
	e = num;
	while (e > p && is_blank(e[-1]))
		e--;
	/* a second number before the first: differential "before after" */
	num2 = parse_count_back(p, e, &before, &huge2);
	if (num2 && num2 > p) {
		diff = true;
		e = num2;
		while (e > p && is_blank(e[-1]))
			e--;
	} else {
		before = no_count;
	}
	if (e == p) {
		warn(f, FG_FW_EMPTY);
		return 0;
	}
	if (huge || (diff && huge2)) {
		warn(f, FG_FW_HUGE);
		return 0;
	}
	if (diff)
		f->differential = true;
	return add_line(f, p, (size_t)(e - p), count, before);
}

static int feed_lines(fg_folded *f, const char *buf, size_t len, size_t *used)
{
	const char *p = buf, *end = buf + len, *nl;
	int err;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if ((err = feed_line(f, p, nl)))
			return err;
		p = nl + 1;
	}
	*used = (size_t)(p - buf);
	return 0;
}

/* The end of a line longer than the cap: counted, warned about, and
 * never buffered. */
static void end_long_line(fg_folded *f)
{
	f->discarding = false;
	f->lineno++;
	f->lines++;
	warn(f, FG_FW_LONGLINE);
}

/* Keeps the unfinished line at the end of a buffer, unless that would
 * hold more than the cap: then the line is dropped as it streams by. */
static int carry_add(fg_folded *f, const char *p, size_t n)
{
	if (f->carry.len + n > FG_FOLDED_MAX_LINE) {
		fg_strbuf_release(&f->carry);
		f->discarding = true;
		return 0;
	}
	return fg_strbuf_add(&f->carry, p, n);
}

int fg_folded_feed(fg_folded *f, const char *buf, size_t len)
{
	size_t used = 0;
	int err;

	if (f->discarding) {
		const char *nl = memchr(buf, '\n', len);
		if (!nl)
			return 0;
		end_long_line(f);
		len -= (size_t)(nl + 1 - buf);
		buf = nl + 1;
	}
	if (f->carry.len) {
		const char *nl = memchr(buf, '\n', len);
		size_t take = nl ? (size_t)(nl - buf) : len;

		if ((err = carry_add(f, buf, take)))
			return err;
		if (!nl)
			return 0;
		if (f->discarding) {
			end_long_line(f);
		} else {
			bool borrow = f->borrow;

			/* the carried line is a copy: its key must be too */
			f->borrow = false;
			err = feed_line(f, f->carry.buf, f->carry.buf + f->carry.len);
			f->borrow = borrow;
			fg_strbuf_reset(&f->carry);
			if (err)
				return err;
		}
		buf += take + 1;
		len -= take + 1;
	}
	if ((err = feed_lines(f, buf, len, &used)))
		return err;
	if (used < len)
		return carry_add(f, buf + used, len - used);
	return 0;
}

int fg_folded_finish(fg_folded *f)
{
	int err = 0;

	if (f->discarding) {
		end_long_line(f);
	} else if (f->carry.len) {
		err = feed_line(f, f->carry.buf, f->carry.buf + f->carry.len);
		fg_strbuf_reset(&f->carry);
	}
	return err;
}

/* Feeds a mapped file, whose bytes f keeps until it is freed. Its lines
 * are gathered, keys pointing into the mapping, to be merged by sorting
 * (settle): a real profile's folded file is mostly distinct stacks. When a
 * sample of them shows mostly repeats (ungather), the lines go through the
 * map instead, the few new stacks are copied and the pages behind the
 * parser are let go, so memory does not grow with the file. A listing in
 * input order needs the map: then a first slice tells how many distinct
 * stacks come per byte (and sizes the map for the whole file: no
 * rehashing a dozen times) and whether they are most of the input. */
static int feed_mapped(fg_folded *f, const char *data, size_t len)
{
	const size_t block = (size_t)4 << 20, slice = (size_t)16 << 20;
	size_t first = len / 8 < slice ? len / 8 : slice, had, off, n;
	uint64_t had_bytes;
	double per_byte;
	int err;

	/* the first slice's estimates count the map's stacks */
	if (f->keys && (err = map_back(f)))
		return err;
	had = f->map.count;
	had_bytes = f->key_bytes;
	if (FG_ALLOC_GROW(f->mapped, f->nmapped + 1, f->amapped, 4))
		return FG_ENOMEM;
	f->mapped[f->nmapped].data = data;
	f->mapped[f->nmapped++].len = len;
	/* lines carried between feeds are copied (fg_folded_feed) */
	f->borrow = true;
	if (!f->keep_order) {
		first = 0;
		f->gather = true;
		f->window = f->window_seen = 0;
	} else {
		fg_input_prefault(data, first);
		if ((err = fg_folded_feed(f, data, first)))
			goto done;
		per_byte = first ? (double)(f->map.count - had) / (double)first : 0;
		f->borrow = (f->key_bytes - had_bytes) * 2 >= first;
		if ((err = fg_strmap_reserve(&f->map, f->map.count +
					     (size_t)(per_byte * (double)(len - first)))))
			goto done;
	}
	for (off = first; off < len && !err; off += n) {
		n = len - off < block ? len - off : block;
		/* a block ends with a whole line where it can: a line carried
		 * over is copied and goes through the map */
		if (off + n < len && f->borrow) {
			const char *nl = memrchr(data + off, '\n', n);
			if (nl)
				n = (size_t)(nl + 1 - (data + off));
		}
		/* kept pages are worth mapping in at once; pages let go
		 * behind the parser are not (measured: slower on repeats) */
		if (f->borrow)
			fg_input_prefault(data + off, n);
		err = fg_folded_feed(f, data + off, n);
		if (!f->borrow)
			fg_input_release(data + off, n);
		/* a file cut short reads as zeros from there on */
		if (!err)
			err = fg_input_map_check(data);
	}
	if (!err)
		err = fg_input_map_check(data);
done:
	f->borrow = false;
	f->gather = false;
	return err;
}

int fg_folded_read_file(fg_folded *f, const char *path)
{
	const size_t chunk = 1 << 20;
	fg_input *in = NULL;
	char *buf = NULL;
	const char *data;
	size_t len;
	ssize_t n;
	int err;

	if ((err = fg_input_map(path, 0, 0, &data, &len)) < 0)
		return err;
	if (err == 1) {
		if ((err = fg_folded_set_source(f, path)) == 0)
			err = feed_mapped(f, data, len);
		if (err && (!f->nmapped || f->mapped[f->nmapped - 1].data != data))
			fg_input_unmap(data, len);
		/* the gathered lines stay as they are until a reader needs
		 * them merged (settled): a pruned listing never does */
		return err ? err : fg_folded_finish(f);
	}
	if ((err = fg_input_open(&in, path)))
		return err;
	if ((err = fg_folded_set_source(f, fg_input_name(in))))
		goto done;
	if (!(buf = fg_malloc(chunk))) {
		err = FG_ENOMEM;
		goto done;
	}
	while ((n = fg_input_read(in, buf, chunk)) > 0)
		if ((err = fg_folded_feed(f, buf, (size_t)n)))
			goto done;
	if (n < 0) {
		err = (int)n;
		goto done;
	}
	err = fg_folded_finish(f);
done:
	free(buf);
	fg_input_close(in);
	return err;
}

fg_count fg_folded_total(const fg_folded *f)
{
	return f->total;
}

size_t fg_folded_count(const fg_folded *f)
{
	if (fg_folded_settled(f))
		return SIZE_MAX;
	return f->nrecs;
}

uint64_t fg_folded_skipped(const fg_folded *f)
{
	return f->skipped;
}

bool fg_folded_is_differential(const fg_folded *f)
{
	return f->differential;
}

bool fg_folded_keeps_order(const fg_folded *f)
{
	return f->keep_order;
}

bool fg_folded_next_stack(const fg_folded *f, size_t *iter, const char **key, size_t *len,
			  size_t *idx)
{
	const fg_strmap_entry *e;

	if (f->keys) {
		if (*iter >= f->nrecs)
			return false;
		*key = f->keys[*iter].key;
		*len = f->keys[*iter].len;
		*idx = (*iter)++;
		return true;
	}
	if (!(e = fg_strmap_next(&f->map, iter)))
		return false;
	*key = e->key;
	*len = e->len;
	*idx = e->value.u - 1;
	return true;
}

fg_count fg_folded_count_of(const fg_folded *f, size_t i, bool before)
{
	fg_count c = { before ? f->recs[i].before : f->recs[i].count, 0 };

	if (f->fracs)
		c.frac = before ? f->fracs[i].before : f->fracs[i].count;
	return c;
}

void fg_folded_stats(const fg_folded *f, fg_fold_stats *out)
{
	size_t k;

	memset(out, 0, sizeof(*out));
	out->lines = f->lines;
	out->skipped = f->skipped;
	for (k = 0; k < FG_FW_NKINDS; k++) {
		if (!f->warn[k].count)
			continue;
		out->warnings[out->nwarnings].what = warn_what[k];
		out->warnings[out->nwarnings].count = f->warn[k].count;
		out->warnings[out->nwarnings].kept = k == FG_FW_LONGNAME;
		memcpy(out->warnings[out->nwarnings].where, f->warn[k].where,
		       sizeof(f->warn[k].where));
		out->nwarnings++;
	}
}

int fg_folded_foreach(const fg_folded *f, fg_folded_cb cb, void *ctx)
{
	struct fg_folded_slot *v;
	size_t i;
	int rc;

	if ((rc = fg_folded_settled(f)) || (rc = fg_folded_sort_stacks(f, &v, NULL)))
		return rc;
	for (i = 0; i < f->nrecs && !rc; i++)
		rc = cb(ctx, v[i].key, v[i].len, fg_folded_count_of(f, v[i].idx, false),
			fg_folded_count_of(f, v[i].idx, true));
	free(v);
	return rc;
}

/* ---- listings ---------------------------------------------------------- */

struct fg_folded_list {
	struct fg_folded_slot *sorted;        /* FG_FOLDED_SORTED, else NULL */
	size_t *shared;                       /* with sorted: what each shares */
	const fg_folded_stack *seq; /* FG_FOLDED_INPUT_ORDER: the fg_folded's runs */
	size_t n;
};

int fg_folded_list_new(fg_folded_list **out, const fg_folded *f, enum fg_folded_order order)
{
	fg_folded_list *l;
	size_t i;
	int err;

	*out = NULL;
	if (order == FG_FOLDED_INPUT_ORDER && !f->keep_order)
		return fg_error_set(FG_EINVAL, "the input order of the stacks was not kept "
				    "(FG_FOLDED_KEEP_ORDER)");
	if (order == FG_FOLDED_SORTED && fg_folded_settled(f))
		return FG_ENOMEM;
	if (!(l = fg_calloc(1, sizeof(*l))))
		return FG_ENOMEM;
	if (order == FG_FOLDED_INPUT_ORDER) {
		l->seq = f->seq;
		l->n = f->nseq;
		*out = l;
		return 0;
	}
	if ((err = fg_folded_sort_stacks(f, &l->sorted, &l->shared))) {
		free(l);
		return err;
	}
	l->n = f->nrecs;
	for (i = 0; i < l->n; i++) {
		const char *key = l->sorted[i].key;
		size_t len = l->sorted[i].len;
		const struct fg_folded_rec *r = &f->recs[l->sorted[i].idx];
		fg_folded_stack *o = &l->sorted[i].out;

		o->stack = key;
		o->len = len;
		o->count = r->count;
		o->before = r->before;
	}
	*out = l;
	return 0;
}

/* The length of key's leading frames that end at or before byte keep;
 * len when the first frame goes past it (an empty stack would draw an
 * empty name). */
static size_t frames_upto(const char *key, size_t keep, size_t len)
{
	size_t i = keep;

	if (keep >= len || (keep > 0 && key[keep] == ';'))
		return keep < len ? keep : len;
	while (i > 0 && key[i - 1] != ';')
		i--;
	return i > 1 ? i - 1 : len;
}

int fg_folded_list_new_pruned(fg_folded_list **out, const fg_folded *f, double min)
{
	const size_t n = f->nloose + f->nrecs;
	/* loose lines alone are sorted where they are (their order is not
	 * f's content); with records, a copy holds both */
	const bool copy = f->nrecs > 0;
	struct fg_folded_slot *v = NULL, *entries = NULL;
	size_t *lcp = NULL, i, m = 0;
	fg_folded_list *l;

	*out = NULL;
	/* settled stacks are in order already; fractions and differential
	 * counts are not drawn from summed whole samples; no stacks: no
	 * array of them */
	if (!(min > 0) || !n || f->keys || f->fracs || f->differential)
		return fg_folded_list_new(out, f, FG_FOLDED_SORTED);
	if (!(l = fg_calloc(1, sizeof(*l))) || !(lcp = fg_malloc(n * sizeof(*lcp))))
		goto fail;
	if (!copy) {
		v = (struct fg_folded_slot *)f->loose;
		/* pages of entries that are never written cost nothing */
		if (!(entries = fg_malloc(n * sizeof(*entries))))
			goto fail;
	} else if (!(entries = v = fg_malloc(n * sizeof(*v)))) {
		goto fail;
	} else if (fg_folded_fill_slots(f, v, true)) {
		/* rare: not worth a wider slot for all */
		free(entries);
		free(lcp);
		free(l);
		return fg_folded_list_new(out, f, FG_FOLDED_SORTED);
	}
	if (fg_folded_sort_pruned(v, lcp, n, min, !copy && !f->loose_moved))
		goto fail;
	if (!copy) /* only how f holds its stacks: see fg_folded_settled */
		((fg_folded *)f)->loose_moved = true;
	/* equal stacks, and the parts left unsorted, are one entry each */
	for (i = 0; i < n; i++) {
		const char *key = v[i].key;
		size_t len = v[i].len, shared = lcp[i];
		uint64_t count = v[i].count;
		fg_folded_stack *o;

		if (m && (shared == FG_FOLDED_PRUNED ||
			  (shared == len && len == entries[m - 1].out.len))) {
			entries[m - 1].out.count += count;
			continue;
		}
		lcp[m] = shared; /* i >= m: read before written */
		o = &entries[m++].out;
		o->stack = key;
		o->len = len;
		o->count = count;
		o->before = 0;
	}
	/* an entry's frames that end past the longer of what it shares with
	 * its two neighbours are its own (or, for an unsorted part, its
	 * stacks'): with fewer than min samples, too narrow to draw; cut
	 * away, the walk over the listing does not open them */
	for (i = 0; i < m; i++) {
		fg_folded_stack *o = &entries[i].out;
		size_t keep = i + 1 < m && lcp[i + 1] > lcp[i] ? lcp[i + 1] : lcp[i];

		if ((double)o->count < min)
			o->len = frames_upto(o->stack, keep, o->len);
	}
	for (i = 1; i < m; i++) {
		size_t shorter = entries[i - 1].out.len < entries[i].out.len ?
					 entries[i - 1].out.len : entries[i].out.len;
		if (lcp[i] > shorter)
			lcp[i] = shorter;
	}
	l->sorted = entries;
	l->shared = lcp;
	l->n = m;
	*out = l;
	return 0;
fail:
	free(entries);
	free(lcp);
	free(l);
	return FG_ENOMEM;
}

size_t fg_folded_list_len(const fg_folded_list *l)
{
	return l->n;
}

const fg_folded_stack *fg_folded_list_at(const fg_folded_list *l, size_t i)
{
	return l->sorted ? &l->sorted[i].out : &l->seq[i];
}

size_t fg_folded_list_shared(const fg_folded_list *l, size_t i)
{
	const fg_folded_stack *a, *b;
	size_t n, k = 0;

	if (l->sorted)
		return l->shared[i];
	if (!i)
		return 0;
	a = &l->seq[i - 1];
	b = &l->seq[i];
	n = a->len < b->len ? a->len : b->len;
	while (k < n && a->stack[k] == b->stack[k])
		k++;
	return k;
}

void fg_folded_list_free(fg_folded_list *l)
{
	if (!l)
		return;
	free(l->sorted);
	free(l->shared);
	free(l);
}
