/* The folded-stack reader: "a;b;c COUNT" (or "a;b;c BEFORE AFTER") lines
 * merged into one table of distinct stacks.
 *
 * This is the render stage's hot path: every input byte passes through
 * feed_lines() once. Lines are split with memchr, the count is parsed by
 * hand from the end of the line (no strtod, no copies), and the stack is
 * hashed and looked up in place; only a stack never seen before is copied
 * (into the map's arena). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "folded_impl.h"
#include "util/input.h"
#include "util/strbuf.h"
#include "util/banned.h"

enum warn_kind {
	W_NOCOUNT,
	W_EMPTY,
	W_HUGE,
	W_NKINDS,
};

static const char *const warn_what[W_NKINDS] = {
	"lines without a sample count at the end",
	"lines with a count but no stack",
	"lines whose count has more than 19 digits (over 2^64 samples)",
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
	free(f->recs);
	free(f->seq);
	free(f->source);
	fg_strbuf_release(&f->carry);
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

static void warn(fg_folded *f, enum warn_kind kind)
{
	struct fg_folded_warn *w = &f->warn[kind];

	f->skipped++;
	/* the first one's location is where a user should look */
	if (w->count++ == 0)
		snprintf(w->where, sizeof(w->where), "%s:%llu", f->source,
			 (unsigned long long)f->lineno);
}

static int push_rec(fg_folded *f, fg_strmap_entry *e)
{
	if (f->nrecs == f->arecs) {
		size_t n = f->arecs ? f->arecs * 2 : 1024;
		struct fg_folded_rec *r = fg_realloc_array(f->recs, n, sizeof(*r));
		if (!r)
			return FG_ENOMEM;
		f->recs = r;
		f->arecs = n;
	}
	f->recs[f->nrecs].key = e->key;
	f->recs[f->nrecs].len = e->len;
	f->recs[f->nrecs].count = 0;
	f->recs[f->nrecs].before = 0;
	e->value.u = ++f->nrecs;
	return 0;
}

static int push_seq(fg_folded *f, size_t idx, double count, double before)
{
	if (f->nseq && f->seq[f->nseq - 1].idx == idx) {
		/* consecutive equal lines are one box in a flame chart too */
		f->seq[f->nseq - 1].count += count;
		f->seq[f->nseq - 1].before += before;
		return 0;
	}
	if (f->nseq == f->aseq) {
		size_t n = f->aseq ? f->aseq * 2 : 1024;
		struct fg_folded_seq *s = fg_realloc_array(f->seq, n, sizeof(*s));
		if (!s)
			return FG_ENOMEM;
		f->seq = s;
		f->aseq = n;
	}
	f->seq[f->nseq].idx = idx;
	f->seq[f->nseq].count = count;
	f->seq[f->nseq].before = before;
	f->nseq++;
	return 0;
}

static int add_hashed(fg_folded *f, const char *stack, size_t len, uint64_t hash,
		      double count, double before)
{
	fg_strmap_entry *e = fg_strmap_put_hashed(&f->map, stack, len, hash);
	struct fg_folded_rec *r;
	int err;

	if (!e)
		return FG_ENOMEM;
	if (!e->value.u && (err = push_rec(f, e)))
		return err;
	r = &f->recs[e->value.u - 1];
	r->count += count;
	r->before += before;
	f->total += count;
	if (f->keep_order)
		return push_seq(f, e->value.u - 1, count, before);
	return 0;
}

int fg_folded_add(fg_folded *f, const char *stack, size_t len, double count, double after)
{
	if (!(count >= 0))
		return fg_error_set(FG_EINVAL, "negative sample count %g", count);
	if (after >= 0) {
		f->differential = true;
		return add_hashed(f, stack, len, fg_hash_bytes(stack, len), after, count);
	}
	return add_hashed(f, stack, len, fg_hash_bytes(stack, len), count, 0);
}

static inline bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const double pow10_neg[19] = {
	1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10,
	1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18,
};

/* Parses the number that ends at `end` (digits with at most one '.'),
 * scanning backwards; returns its first byte, or NULL when the bytes
 * before `end` are not a count. A whole part of more than 19 digits
 * (2^64 and beyond) sets *huge; fraction digits past the 18th are
 * ignored. */
static const char *parse_count_back(const char *start, const char *end, double *out,
				    bool *huge)
{
	const char *p = end, *dot = NULL, *q;
	uint64_t ip = 0, fp = 0;
	unsigned nd = 0, nf = 0;

	while (p > start && (is_digit(p[-1]) || (p[-1] == '.' && !dot))) {
		p--;
		if (*p == '.')
			dot = p;
	}
	if (p == end || (dot == p && p + 1 == end))
		return NULL;
	for (q = p; q < (dot ? dot : end); q++)
		if (nd++ < 19)
			ip = ip * 10 + (uint64_t)(*q - '0');
	*huge = nd > 19;
	if (dot)
		for (q = dot + 1; q < end && nf < 18; q++, nf++)
			fp = fp * 10 + (uint64_t)(*q - '0');
	*out = (double)ip + (nf ? (double)fp * pow10_neg[nf] : 0.0);
	return p;
}

/* One line, without its '\n'. */
static int feed_line(fg_folded *f, const char *p, const char *e)
{
	double count, before = 0;
	const char *num, *num2;
	bool diff = false, huge = false, huge2 = false;

	while (e > p && is_blank(e[-1]))
		e--;
	while (p < e && is_blank(*p))
		p++;
	f->lineno++;
	/* blank lines and '#' comments (austin and others write headers) */
	if (p == e || *p == '#')
		return 0;
	f->lines++;
	num = parse_count_back(p, e, &count, &huge);
	if (!num || (num > p && !is_blank(num[-1]))) {
		warn(f, W_NOCOUNT);
		return 0;
	}
	e = num;
	while (e > p && is_blank(e[-1]))
		e--;
	/* a second number before the first: differential "before after" */
	num2 = parse_count_back(p, e, &before, &huge2);
	if (num2 && num2 > p && is_blank(num2[-1])) {
		diff = true;
		e = num2;
		while (e > p && is_blank(e[-1]))
			e--;
	} else {
		before = 0;
	}
	if (e == p) {
		warn(f, W_EMPTY);
		return 0;
	}
	if (huge || (diff && huge2)) {
		warn(f, W_HUGE);
		return 0;
	}
	if (diff)
		f->differential = true;
	return add_hashed(f, p, (size_t)(e - p), fg_hash_bytes(p, (size_t)(e - p)),
			  count, before);
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

int fg_folded_feed(fg_folded *f, const char *buf, size_t len)
{
	size_t used = 0;
	int err;

	if (f->carry.len) {
		const char *nl = memchr(buf, '\n', len);
		size_t take = nl ? (size_t)(nl - buf) + 1 : len;

		if ((err = fg_strbuf_add(&f->carry, buf, take)))
			return err;
		if (!nl)
			return 0;
		err = feed_line(f, f->carry.buf, f->carry.buf + f->carry.len - 1);
		fg_strbuf_reset(&f->carry);
		if (err)
			return err;
		buf += take;
		len -= take;
	}
	if ((err = feed_lines(f, buf, len, &used)))
		return err;
	if (used < len)
		return fg_strbuf_add(&f->carry, buf + used, len - used);
	return 0;
}

int fg_folded_finish(fg_folded *f)
{
	int err = 0;

	if (f->carry.len) {
		err = feed_line(f, f->carry.buf, f->carry.buf + f->carry.len);
		fg_strbuf_reset(&f->carry);
	}
	return err;
}

int fg_folded_read_file(fg_folded *f, const char *path)
{
	const size_t chunk = 1 << 20;
	fg_input *in = NULL;
	char *buf = NULL;
	ssize_t n;
	int err;

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

double fg_folded_total(const fg_folded *f)
{
	return f->total;
}

size_t fg_folded_count(const fg_folded *f)
{
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

void fg_folded_stats(const fg_folded *f, fg_fold_stats *out)
{
	size_t k;

	memset(out, 0, sizeof(*out));
	out->lines = f->lines;
	out->skipped = f->skipped;
	for (k = 0; k < W_NKINDS; k++) {
		if (!f->warn[k].count)
			continue;
		out->warnings[out->nwarnings].what = warn_what[k];
		out->warnings[out->nwarnings].count = f->warn[k].count;
		memcpy(out->warnings[out->nwarnings].where, f->warn[k].where,
		       sizeof(f->warn[k].where));
		out->nwarnings++;
	}
}

static int cmp_recs(const void *a, const void *b)
{
	const struct fg_folded_rec *x = *(const struct fg_folded_rec *const *)a;
	const struct fg_folded_rec *y = *(const struct fg_folded_rec *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

const struct fg_folded_rec **fg_folded_sorted(const fg_folded *f)
{
	const struct fg_folded_rec **v = fg_calloc(f->nrecs, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < f->nrecs; i++)
		v[i] = &f->recs[i];
	qsort(v, f->nrecs, sizeof(*v), cmp_recs);
	return v;
}

int fg_folded_foreach(const fg_folded *f, fg_folded_cb cb, void *ctx)
{
	const struct fg_folded_rec **v = fg_folded_sorted(f);
	size_t i;
	int rc = 0;

	if (!v)
		return FG_ENOMEM;
	for (i = 0; i < f->nrecs && !rc; i++)
		rc = cb(ctx, v[i]->key, v[i]->len, v[i]->count, v[i]->before);
	free(v);
	return rc;
}
