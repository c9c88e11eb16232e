/* The regression gate: inclusive shares per function in two profiles.
 * One function table serves both profiles; a stamp per function (the
 * serial number of the last stack that counted it) makes a recursive
 * function count once per stack. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/regress.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/banned.h"

struct func {
	uint64_t count[2]; /* samples of the stacks it is in: before, after */
	uint64_t stamp;    /* last stack counted, + 1 */
};

struct fg_regress {
	fg_strmap names;       /* name -> index into funcs */
	struct func *funcs;
	size_t nfuncs, afuncs;
	fg_regress_row *rows;
	size_t nrows, failures;
	uint64_t serial;
	double fail_above;
};

static struct func *func_of(fg_regress *r, const char *name, size_t len, const char **key)
{
	fg_strmap_entry *e = fg_strmap_put(&r->names, name, len);

	if (!e)
		return NULL;
	if (!e->value.u) {
		if (FG_ALLOC_GROW(r->funcs, r->nfuncs + 1, r->afuncs, 256))
			return NULL;
		memset(&r->funcs[r->nfuncs], 0, sizeof(*r->funcs));
		e->value.u = ++r->nfuncs;
	}
	*key = e->key;
	return &r->funcs[e->value.u - 1];
}

/* Where counting starts in a stack: at its first frame named `from`,
 * else at its root. */
static const char *first_counted(const char *stack, size_t len, const char *from)
{
	size_t n = from ? strlen(from) : 0;
	const char *p = stack, *end = stack + len;

	while (n && p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *stop = semi ? semi : end;

		if ((size_t)(stop - p) == n && !memcmp(p, from, n))
			return p;
		p = stop + 1;
	}
	return stack;
}

/* Adds the counts of one profile (side 0: before, 1: after). */
static int add_profile(fg_regress *r, const fg_folded *f, int side, const char *from)
{
	fg_folded_list *l = NULL;
	int err = fg_folded_list_new(&l, f, FG_FOLDED_SORTED);

	for (size_t i = 0; !err && i < fg_folded_list_len(l); i++) {
		const fg_folded_stack *st = fg_folded_list_at(l, i);
		const char *p = first_counted(st->stack, st->len, from), *end = st->stack + st->len, *key;
		uint64_t stamp = ++r->serial;

		while (p <= end) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *stop = semi ? semi : end;
			struct func *fn = func_of(r, p, (size_t)(stop - p), &key);

			if (!fn) {
				err = fg_error_set(FG_ENOMEM, "out of memory comparing profiles");
				break;
			}
			if (fn->stamp != stamp) {
				fn->stamp = stamp;
				fn->count[side] += st->count;
			}
			p = stop + 1;
		}
	}
	fg_folded_list_free(l);
	return err;
}

static double change(const fg_regress_row *row)
{
	return row->after - row->before;
}

static int by_change(const void *a, const void *b)
{
	const fg_regress_row *x = a, *y = b;
	double dx = change(x), dy = change(y);

	if (fabs(dx) != fabs(dy))
		return fabs(dx) > fabs(dy) ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->func, y->func);
}

static bool watched(const fg_regress_opts *o, const char *name)
{
	if (!o->watch)
		return true;
	for (size_t i = 0; i < o->nwatch; i++)
		if (!strcmp(o->watch[i], name))
			return true;
	return false;
}

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static int make_rows(fg_regress *r, const fg_regress_opts *o, uint64_t tb, uint64_t ta)
{
	fg_strmap_entry *e;
	size_t it = 0;

	r->rows = fg_calloc(r->nfuncs ? r->nfuncs : 1, sizeof(*r->rows));
	if (!r->rows)
		return fg_error_set(FG_ENOMEM, "out of memory comparing profiles");
	while ((e = fg_strmap_next(&r->names, &it))) {
		const struct func *fn = &r->funcs[e->value.u - 1];
		fg_regress_row *row = &r->rows[r->nrows++];

		row->func = e->key;
		row->before = share(fn->count[0], tb);
		row->after = share(fn->count[1], ta);
		row->over = o->fail_above >= 0 && change(row) > o->fail_above && watched(o, row->func);
		r->failures += row->over;
	}
	qsort(r->rows, r->nrows, sizeof(*r->rows), by_change);
	return 0;
}

/* A watched name found in neither profile, with the nearest one. */
static int unknown_watch(const fg_regress *r, const char *name)
{
	const char **names = fg_calloc(r->nrows ? r->nrows : 1, sizeof(*names));
	const char *near = NULL;
	int err;

	if (names) {
		for (size_t i = 0; i < r->nrows; i++)
			names[i] = r->rows[i].func;
		near = fg_suggest(name, names, r->nrows);
	}
	if (near)
		err = fg_error_set(FG_ENOTFOUND, "the watched function '%s' is in neither profile — "
				   "did you mean '%s'?", name, near);
	else
		err = fg_error_set(FG_ENOTFOUND, "the watched function '%s' is in neither profile — "
				   "check its name in the folded stacks", name);
	free(names);
	return err;
}

int fg_regress_compare(fg_regress **out, const fg_folded *before, const fg_folded *after,
		       const fg_regress_opts *opts)
{
	fg_regress *r;
	int err;

	*out = NULL;
	if (!isfinite(opts->fail_above))
		return fg_error_set(FG_EINVAL, "the threshold must be a number of percentage points, "
				    "not %g", opts->fail_above);
	if (!(r = fg_calloc(1, sizeof(*r))))
		return FG_ENOMEM;
	r->fail_above = opts->fail_above;
	if ((err = add_profile(r, before, 0, opts->from)) || (err = add_profile(r, after, 1, opts->from)) ||
	    (err = make_rows(r, opts, fg_folded_total(before).n, fg_folded_total(after).n)))
		goto fail;
	for (size_t i = 0; i < opts->nwatch; i++)
		if (!fg_strmap_get(&r->names, opts->watch[i], strlen(opts->watch[i]))) {
			err = unknown_watch(r, opts->watch[i]);
			goto fail;
		}
	*out = r;
	return 0;
fail:
	fg_regress_free(r);
	return err;
}

void fg_regress_free(fg_regress *r)
{
	if (!r)
		return;
	fg_strmap_release(&r->names);
	free(r->funcs);
	free(r->rows);
	free(r);
}

size_t fg_regress_count(const fg_regress *r) { return r->nrows; }
const fg_regress_row *fg_regress_row_at(const fg_regress *r, size_t i) { return &r->rows[i]; }
size_t fg_regress_failures(const fg_regress *r) { return r->failures; }

/* A function name inside a Markdown table cell: in a code span, with the
 * characters that would end the span or the cell replaced. */
static void md_name(fg_strbuf *sb, const char *s)
{
	fg_strbuf_addch(sb, '`');
	for (; *s; s++) {
		if (*s == '|')
			fg_strbuf_addstr(sb, "\\|");
		else
			fg_strbuf_addch(sb, *s == '`' ? '\'' : *s);
	}
	fg_strbuf_addch(sb, '`');
}

static void verdict(const fg_regress *r, enum fg_regress_format fmt, fg_strbuf *sb)
{
	const char *bold = fmt == FG_REGRESS_MARKDOWN ? "**" : "";

	if (r->fail_above < 0) {
		fg_strbuf_addstr(sb, "no threshold set: nothing is judged\n");
		return;
	}
	if (!r->failures) {
		fg_strbuf_addf(sb, "%sgate passed%s: no function's share grew by more than %.2f "
			       "percentage points\n", bold, bold, r->fail_above);
		return;
	}
	fg_strbuf_addf(sb, "%sgate failed%s: %zu function%s grew by more than %.2f percentage points:",
		       bold, bold, r->failures, r->failures == 1 ? "" : "s", r->fail_above);
	for (size_t i = 0, n = 0; i < r->nrows; i++)
		if (r->rows[i].over)
			fg_strbuf_addf(sb, "%s %s", n++ ? "," : "", r->rows[i].func);
	fg_strbuf_addch(sb, '\n');
}

static void table(const fg_regress *r, enum fg_regress_format fmt, size_t top, fg_strbuf *sb)
{
	size_t n = top && top < r->nrows ? top : r->nrows;

	if (fmt == FG_REGRESS_MARKDOWN)
		fg_strbuf_addstr(sb, "| function | before | after | change |\n|---|---:|---:|---:|\n");
	else
		fg_strbuf_addf(sb, "%-40s %8s %8s %10s\n", "function", "before", "after", "change");
	for (size_t i = 0; i < n; i++) {
		const fg_regress_row *row = &r->rows[i];

		if (fmt == FG_REGRESS_MARKDOWN) {
			fg_strbuf_addstr(sb, "| ");
			md_name(sb, row->func);
			fg_strbuf_addf(sb, " | %.2f%% | %.2f%% | %s%+.2f pp%s |\n", row->before, row->after,
				       row->over ? "**" : "", change(row), row->over ? "** over" : "");
		} else {
			fg_strbuf_addf(sb, "%-40s %7.2f%% %7.2f%% %+7.2f pp%s\n", row->func, row->before,
				       row->after, change(row), row->over ? "  over" : "");
		}
	}
}

int fg_regress_report(const fg_regress *r, enum fg_regress_format fmt, size_t top, FILE *out)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	int err = 0;

	table(r, fmt, top, &sb);
	if (fmt == FG_REGRESS_MARKDOWN)
		fg_strbuf_addch(&sb, '\n');
	verdict(r, fmt, &sb);
	if (fwrite(sb.buf, 1, sb.len, out) != sb.len || fflush(out) != 0)
		err = fg_error_set(FG_EIO, "cannot write the report: %s", strerror(errno));
	fg_strbuf_release(&sb);
	return err;
}
