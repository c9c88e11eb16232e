/* The regression gate: inclusive cost and share per function in the runs
 * of two profiles, Welch's test per function, Holm's adjustment over the
 * judged ones; the whole program's own test, and its growth taken out of
 * each function's change. One function table serves every run; a stamp per function
 * (the serial number of the last stack that counted it) makes a recursive
 * function count once per stack. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "flamegraph/regress.h"
#include "lib/fold/stats.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/version.h"
#include "util/banned.h"

struct fg_regress {
	fg_strmap names;       /* name -> index + 1 into stamps */
	uint64_t *stamps;      /* per function: last stack counted, + 1 */
	size_t nfuncs, astamps;
	uint64_t *counts;      /* nfuncs x nruns: weight of each run */
	size_t acounts;
	uint64_t *totals;      /* per run */
	size_t nb, na, nruns;  /* runs before, after; before come first */
	fg_regress_row *rows;
	fg_regress_total total;
	double drift;          /* the whole program's growth, percent, when
				  significant; else 0 */
	size_t nrows, failures, judged;
	uint64_t serial;
	fg_regress_opts o;
};

/* The index of a function, added with zero counts when new; SIZE_MAX
 * when out of memory. */
static size_t func_of(fg_regress *r, const char *name, size_t len)
{
	fg_strmap_entry *e = fg_strmap_put(&r->names, name, len);

	if (!e)
		return SIZE_MAX;
	if (!e->value.u) {
		if (FG_ALLOC_GROW(r->stamps, r->nfuncs + 1, r->astamps, 256) ||
		    FG_ALLOC_GROW(r->counts, (r->nfuncs + 1) * r->nruns, r->acounts, 256 * r->nruns))
			return SIZE_MAX;
		r->stamps[r->nfuncs] = 0;
		memset(&r->counts[r->nfuncs * r->nruns], 0, r->nruns * sizeof(*r->counts));
		e->value.u = ++r->nfuncs;
	}
	return e->value.u - 1;
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

/* Adds the counts of one run. */
static int add_run(fg_regress *r, const fg_folded *f, size_t run)
{
	fg_folded_list *l = NULL;
	int err = fg_folded_list_new(&l, f, FG_FOLDED_SORTED);

	r->totals[run] = fg_folded_total(f).n;
	for (size_t i = 0; !err && i < fg_folded_list_len(l); i++) {
		const fg_folded_stack *st = fg_folded_list_at(l, i);
		const char *p = first_counted(st->stack, st->len, r->o.from), *end = st->stack + st->len;
		uint64_t stamp = ++r->serial;

		while (p <= end) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *stop = semi ? semi : end;
			size_t fn = func_of(r, p, (size_t)(stop - p));

			if (fn == SIZE_MAX) {
				err = fg_error_set(FG_ENOMEM, "out of memory comparing profiles");
				break;
			}
			if (r->stamps[fn] != stamp) {
				r->stamps[fn] = stamp;
				r->counts[fn * r->nruns + run] += st->count;
			}
			p = stop + 1;
		}
	}
	fg_folded_list_free(l);
	return err;
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

static bool several(const fg_regress *r)
{
	return r->nb > 1 && r->na > 1;
}

/* The change in absolute terms: cost per run, or percentage points. */
static double abs_change(const fg_regress *r, const fg_regress_row *row)
{
	return r->o.measure == FG_REGRESS_TIME ? row->after_cost - row->before_cost :
						 row->after - row->before;
}

/* The whole program's weight per run, tested on its own. */
static void judge_total(fg_regress *r, double *t)
{
	fg_regress_total *tt = &r->total;
	fg_welch w;

	for (size_t i = 0; i < r->nruns; i++)
		t[i] = (double)r->totals[i];
	fg_stats_welch(&w, t, r->nb, t + r->nb, r->na, 1.0 - r->o.alpha);
	tt->before = w.mean_before;
	tt->after = w.mean_after;
	tt->change = tt->lo = tt->hi = NAN;
	if (w.mean_before > 0) {
		tt->change = 100.0 * w.diff / w.mean_before;
		tt->lo = 100.0 * w.lo / w.mean_before;
		tt->hi = 100.0 * w.hi / w.mean_before;
	}
	tt->p = w.p;
	tt->significant = !several(r) || tt->p < r->o.alpha;
	tt->over = r->o.total_above >= 0 && tt->change > r->o.total_above && tt->significant;
	r->failures += tt->over;
	r->drift = tt->change > 0 && tt->significant ? tt->change : 0;
}

/* Whether a row is nearly the whole program (main): the rest under
 * min_share on both sides. */
static bool whole(const fg_regress *r, const fg_regress_row *row)
{
	return 100.0 - row->before < r->o.min_share && 100.0 - row->after < r->o.min_share;
}

/* Whether a row's time can say how much the machine drifted. */
static bool measures_drift(const fg_regress *r, const fg_regress_row *row)
{
	return r->o.measure == FG_REGRESS_TIME && row->judged && row->before_cost > 0 &&
	       !isinf(row->change) && !whole(r, row);
}

/* The most a row's time may have grown, in percent: the upper end of its
 * confidence interval (with one run a side, its change). */
static double at_most(const fg_regress *r, const fg_regress_row *row)
{
	return several(r) ? row->hi : row->change;
}

/* A function's change in time once a drift of the machine is taken out:
 * the after runs are divided by a growth factor and tested again (+10%
 * in a program that got 2% slower is +7.8%). A machine that got slower
 * between the sides hits every function alike, so the factor is the
 * whole program's growth when that is significant, but never more than
 * the rest of the program (all the weight but the function's own) nor
 * any other judged function may have grown (the upper ends of their
 * confidence intervals): a function that alone got slower leaves the
 * others as they were, and little is taken out. A function that is
 * nearly the whole program (main) has no rest to speak of: 0, untested;
 * the whole program's line judges it. `others` is the least any other
 * function may have grown (INFINITY: no other); cost holds the
 * function's values per run, rest has room for nruns. */
static void fill_rel(const fg_regress *r, fg_regress_row *row, double *cost, double *rest,
		     double others)
{
	fg_welch w;
	double grew = r->drift < others ? r->drift : others, hi;

	row->rel_change = row->change;
	row->rel_p = row->p;
	if (!measures_drift(r, row)) {
		if (r->o.measure == FG_REGRESS_TIME && whole(r, row))
			row->rel_change = 0, row->rel_p = NAN;
		return;
	}
	for (size_t i = 0; i < r->nruns && grew > 0; i++)
		rest[i] = (double)r->totals[i] - cost[i];
	if (grew > 0) {
		fg_stats_welch(&w, rest, r->nb, rest + r->nb, r->na, 1.0 - r->o.alpha);
		hi = w.mean_before > 0 ? 100.0 * (several(r) ? w.hi : w.diff) / w.mean_before : 0;
		grew = hi < grew ? hi : grew;
	}
	if (!(grew > 0))
		return;
	for (size_t i = r->nb; i < r->nruns; i++)
		cost[i] /= 1.0 + grew / 100.0;
	fg_stats_welch(&w, cost, r->nb, cost + r->nb, r->na, 1.0 - r->o.alpha);
	row->rel_change = 100.0 * w.diff / w.mean_before;
	row->rel_p = w.p;
}

/* The change of every row beyond the machine's drift (fill_rel); fn
 * holds each row's function. */
static void fill_rels(fg_regress *r, const size_t *fn, double *cost)
{
	double min1 = INFINITY, min2 = INFINITY;
	size_t arg = SIZE_MAX;

	for (size_t i = 0; i < r->nrows; i++) {
		double m = at_most(r, &r->rows[i]);

		if (!measures_drift(r, &r->rows[i]) || isnan(m))
			continue;
		if (m < min1)
			min2 = min1, min1 = m, arg = i;
		else if (m < min2)
			min2 = m;
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const uint64_t *c = &r->counts[fn[i] * r->nruns];

		for (size_t j = 0; j < r->nruns; j++)
			cost[j] = (double)c[j];
		fill_rel(r, &r->rows[i], cost, cost + r->nruns, i == arg ? min2 : min1);
	}
}

/* One function's means, change and test; cost and share hold the
 * function's values per run (room for nruns each). */
static void fill_row(const fg_regress *r, fg_regress_row *row, size_t fn, double *cost, double *share)
{
	const uint64_t *c = &r->counts[fn * r->nruns];
	bool time = r->o.measure == FG_REGRESS_TIME;
	double conf = 1.0 - r->o.alpha;
	fg_welch ws, wt;

	for (size_t i = 0; i < r->nruns; i++) {
		cost[i] = (double)c[i];
		share[i] = r->totals[i] ? 100.0 * (double)c[i] / (double)r->totals[i] : 0.0;
	}
	fg_stats_welch(&wt, cost, r->nb, cost + r->nb, r->na, conf);
	fg_stats_welch(&ws, share, r->nb, share + r->nb, r->na, conf);
	row->before_cost = wt.mean_before;
	row->after_cost = wt.mean_after;
	row->before = ws.mean_before;
	row->after = ws.mean_after;
	if (!time) {
		row->change = ws.diff, row->lo = ws.lo, row->hi = ws.hi, row->p = ws.p;
	} else if (wt.mean_before > 0) {
		row->change = 100.0 * wt.diff / wt.mean_before;
		row->lo = 100.0 * wt.lo / wt.mean_before;
		row->hi = 100.0 * wt.hi / wt.mean_before;
		row->p = wt.p;
	} else {
		/* new in after: no percentage says how much it grew */
		row->change = wt.diff > 0 ? INFINITY : 0;
		row->lo = row->hi = NAN;
		row->p = wt.p;
	}
	row->judged = watched(&r->o, row->func) &&
		      (row->before >= r->o.min_share || row->after >= r->o.min_share);
	if (!row->judged)
		row->p = NAN;
}

/* Holm over the judged rows (the change, and apart the change beyond the
 * whole program's growth), then each row's verdict. */
static int judge(fg_regress *r)
{
	size_t n = r->nrows ? r->nrows : 1;
	double *p = fg_calloc(2 * n, sizeof(*p)), *q = p ? p + n : NULL;

	if (p)
		for (size_t i = 0; i < r->nrows; i++)
			p[i] = r->rows[i].p, q[i] = r->rows[i].rel_p;
	if (!p || fg_stats_holm(p, r->nrows) || fg_stats_holm(q, r->nrows)) {
		free(p);
		return fg_error_set(FG_ENOMEM, "out of memory comparing profiles");
	}
	for (size_t i = 0; i < r->nrows; i++) {
		fg_regress_row *row = &r->rows[i];
		bool exceeds = row->judged && r->o.fail_above >= 0 && row->change > r->o.fail_above;
		bool beyond = row->rel_change > r->o.fail_above &&
			      (!several(r) || (!isnan(q[i]) && q[i] < r->o.alpha));

		row->p = p[i];
		row->rel_p = q[i];
		row->significant = row->judged && !isnan(row->p) && row->p < r->o.alpha;
		row->noise = exceeds && several(r) && !row->significant;
		row->over = exceeds && (!several(r) || row->significant);
		row->drift = row->over && !beyond;
		row->over = row->over && !row->drift;
		r->failures += row->over;
		r->judged += row->judged;
	}
	free(p);
	return 0;
}

static const fg_regress *sort_ctx;

static int by_change(const void *a, const void *b)
{
	const fg_regress_row *x = a, *y = b;
	double dx = abs_change(sort_ctx, x), dy = abs_change(sort_ctx, y);

	if (x->over != y->over)
		return x->over ? -1 : 1;
	if (x->over && x->change != y->change)
		return x->change > y->change ? -1 : 1;
	if (fabs(dx) != fabs(dy))
		return fabs(dx) > fabs(dy) ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->func, y->func);
}

static int make_rows(fg_regress *r)
{
	fg_strmap_entry *e;
	size_t it = 0;
	double *cost = fg_calloc(2 * r->nruns, sizeof(*cost));
	size_t *fn = fg_calloc(r->nfuncs ? r->nfuncs : 1, sizeof(*fn));
	int err;

	r->rows = fg_calloc(r->nfuncs ? r->nfuncs : 1, sizeof(*r->rows));
	if (!r->rows || !cost || !fn) {
		free(cost);
		free(fn);
		return fg_error_set(FG_ENOMEM, "out of memory comparing profiles");
	}
	judge_total(r, cost);
	while ((e = fg_strmap_next(&r->names, &it))) {
		fg_regress_row *row = &r->rows[r->nrows];

		fn[r->nrows++] = e->value.u - 1;
		row->func = e->key;
		fill_row(r, row, e->value.u - 1, cost, cost + r->nruns);
	}
	fill_rels(r, fn, cost);
	free(cost);
	free(fn);
	if ((err = judge(r)))
		return err;
	/* qsort has no context argument in C11; the gate is not run from
	 * several threads at once */
	sort_ctx = r;
	qsort(r->rows, r->nrows, sizeof(*r->rows), by_change);
	sort_ctx = NULL;
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

static int check_opts(const fg_regress_opts *o, size_t nb, size_t na)
{
	if (!isfinite(o->fail_above))
		return fg_error_set(FG_EINVAL, "the threshold must be a number, not %g", o->fail_above);
	if (!(o->alpha > 0 && o->alpha < 1))
		return fg_error_set(FG_EINVAL, "the significance level must be between 0 and 1, not %g",
				    o->alpha);
	if (!nb || !na)
		return fg_error_set(FG_EINVAL, "a comparison needs at least one run a side");
	return 0;
}

FG_OPTS_INIT_FUNCTION(fg_regress_opts, FG_REGRESS_OPTS_VERSION, FG_REGRESS_OPTS_INIT)

int fg_regress_compare_runs(fg_regress **out, const fg_folded *const *before, size_t nb,
			    const fg_folded *const *after, size_t na, const fg_regress_opts *opts)
{
	fg_regress *r;
	int err;

	*out = NULL;
	if ((err = fg_opts_version_check("fg_regress_opts", opts->version,
					 FG_REGRESS_OPTS_VERSION)))
		return err;
	if ((err = check_opts(opts, nb, na)))
		return err;
	if (!(r = fg_calloc(1, sizeof(*r))))
		return FG_ENOMEM;
	r->o = *opts;
	r->nb = nb;
	r->na = na;
	r->nruns = nb + na;
	if (!(r->totals = fg_calloc(r->nruns, sizeof(*r->totals)))) {
		err = FG_ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < r->nruns; i++)
		if ((err = add_run(r, i < nb ? before[i] : after[i - nb], i)))
			goto fail;
	if ((err = make_rows(r)))
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

int fg_regress_compare(fg_regress **out, const fg_folded *before, const fg_folded *after,
		       const fg_regress_opts *opts)
{
	return fg_regress_compare_runs(out, &before, 1, &after, 1, opts);
}

void fg_regress_free(fg_regress *r)
{
	if (!r)
		return;
	fg_strmap_release(&r->names);
	free(r->stamps);
	free(r->counts);
	free(r->totals);
	free(r->rows);
	free(r);
}

size_t fg_regress_count(const fg_regress *r) { return r->nrows; }
const fg_regress_row *fg_regress_row_at(const fg_regress *r, size_t i) { return &r->rows[i]; }
size_t fg_regress_failures(const fg_regress *r) { return r->failures; }
const fg_regress_total *fg_regress_total_of(const fg_regress *r) { return &r->total; }

/* A change over its threshold whose p-value is between `level` and
 * `futile`: more runs could still tell it from noise. */
static bool open_question(double change, double above, double p, double level, double futile)
{
	return above >= 0 && change > above && p >= level && p < futile;
}

/* A row fails only when its change and its change beyond the whole
 * program's growth are both over: one that is not over either way is
 * decided (main, whose change beyond is 0, is judged by the whole
 * program's line). */
static bool row_undecided(const fg_regress *r, const fg_regress_row *row, double level,
			  double futile)
{
	double above = r->o.fail_above;

	if (!row->judged || above < 0 || !(row->change > above) || !(row->rel_change > above))
		return false;
	/* over only when both are significant: open while neither is futile
	 * and one is not yet under the level */
	return row->p < futile && row->rel_p < futile && (row->p >= level || row->rel_p >= level);
}

bool fg_regress_undecided(const fg_regress *r, char *what, size_t what_size)
{
	double level = FG_REGRESS_FIRST_LOOK_LEVEL(r->o.alpha);
	double futile = FG_REGRESS_FUTILE_LEVEL(r->o.alpha);

	if (!several(r))
		return false;
	for (size_t i = 0; i < r->nrows; i++)
		if (row_undecided(r, &r->rows[i], level, futile)) {
			snprintf(what, what_size, "`%s`", r->rows[i].func);
			return true;
		}
	if (open_question(r->total.change, r->o.total_above, r->total.p, level, futile)) {
		snprintf(what, what_size, "the whole program");
		return true;
	}
	return false;
}

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

/* "5.00%" or "5.00 percentage points" */
static void threshold(const fg_regress *r, fg_strbuf *sb)
{
	if (r->o.measure == FG_REGRESS_TIME)
		fg_strbuf_addf(sb, "%.2f%%", r->o.fail_above);
	else
		fg_strbuf_addf(sb, "%.2f percentage points", r->o.fail_above);
}

enum which { ROWS_OVER, ROWS_NOISE, ROWS_DRIFT };

static bool row_is(const fg_regress_row *row, enum which w)
{
	return w == ROWS_OVER ? row->over : w == ROWS_NOISE ? row->noise : row->drift;
}

static size_t count_rows(const fg_regress *r, enum which w)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nrows; i++)
		n += row_is(&r->rows[i], w);
	return n;
}

static void name_rows(const fg_regress *r, fg_strbuf *sb, enum which w)
{
	for (size_t i = 0, n = 0; i < r->nrows; i++)
		if (row_is(&r->rows[i], w))
			fg_strbuf_addf(sb, "%s %s", n++ ? "," : "", r->rows[i].func);
	fg_strbuf_addch(sb, '\n');
}

/* "whole program: 274.22 ms -> 281.10 ms a run, +2.5% [+1.0%, +4.0%], p 0.0031" */
static void cost(const fg_regress *r, double v, char *buf, size_t n);

static void total_line(const fg_regress *r, enum fg_regress_format fmt, fg_strbuf *sb)
{
	const fg_regress_total *t = &r->total;
	const char *bold = fmt == FG_REGRESS_MARKDOWN && t->over ? "**" : "";
	char b[48], a[48];

	if (isnan(t->change) || (r->o.measure != FG_REGRESS_TIME && r->o.total_above < 0))
		return;
	cost(r, t->before, b, sizeof(b));
	cost(r, t->after, a, sizeof(a));
	fg_strbuf_addf(sb, "whole program: %s -> %s a run, %s%+.1f%%%s", b, a, bold, t->change, bold);
	if (several(r)) {
		fg_strbuf_addf(sb, " [%+.1f%%, %+.1f%%]", t->lo, t->hi);
		if (t->p < 0.0001)
			fg_strbuf_addstr(sb, ", p <0.0001");
		else
			fg_strbuf_addf(sb, ", p %.4f", t->p);
	}
	if (t->over)
		fg_strbuf_addf(sb, ": over %.2f%%", r->o.total_above);
	else if (r->o.total_above >= 0)
		fg_strbuf_addf(sb, ": not over %.2f%%", r->o.total_above);
	else if (r->o.measure == FG_REGRESS_TIME)
		fg_strbuf_addstr(sb, " (taken out of each function's change when significant: "
				 "what hits all alike fails only a threshold for the whole program)");
	fg_strbuf_addstr(sb, fmt == FG_REGRESS_MARKDOWN ? "\n\n" : "\n");
}

static void verdict(const fg_regress *r, enum fg_regress_format fmt, fg_strbuf *sb)
{
	const char *bold = fmt == FG_REGRESS_MARKDOWN ? "**" : "";
	const char *what = r->o.measure == FG_REGRESS_TIME ? "inclusive time" : "share";
	const char *em = fmt == FG_REGRESS_MARKDOWN ? "*" : "";
	size_t over = count_rows(r, ROWS_OVER);

	total_line(r, fmt, sb);
	if (r->o.fail_above < 0 && !r->total.over) {
		fg_strbuf_addstr(sb, "no threshold set: nothing is judged\n");
		return;
	}
	if (r->total.over)
		fg_strbuf_addf(sb, "%sgate failed%s: the whole program's time grew by more than %.2f%%%s\n",
			       bold, bold, r->o.total_above, several(r) ? ", significantly" : "");
	if (over) {
		fg_strbuf_addf(sb, "%sgate failed%s: %zu function%s grew by more than ", bold, bold,
			       over, over == 1 ? "" : "s");
		threshold(r, sb);
		fg_strbuf_addstr(sb, several(r) ? ", significantly:" : ":");
		name_rows(r, sb, ROWS_OVER);
	} else if (r->o.fail_above >= 0 && !r->total.over) {
		fg_strbuf_addf(sb, "%sgate passed%s: no function's %s grew by more than ", bold, bold, what);
		threshold(r, sb);
		fg_strbuf_addf(sb, "%s\n", several(r) ? " significantly" : "");
	}
	if (count_rows(r, ROWS_NOISE)) {
		fg_strbuf_addf(sb, "%snot significant%s (noise at %zu + %zu runs):", em, em, r->nb, r->na);
		name_rows(r, sb, ROWS_NOISE);
	}
	if (count_rows(r, ROWS_DRIFT)) {
		fg_strbuf_addf(sb, "%swith the whole program%s (not over once its growth is taken out):", em, em);
		name_rows(r, sb, ROWS_DRIFT);
	}
	if (fmt == FG_REGRESS_MARKDOWN)
		fg_strbuf_addch(sb, '\n');
	if (several(r))
		fg_strbuf_addf(sb, "significance: Welch's t-test over %zu + %zu runs, p adjusted (Holm) over "
			       "%zu judged functions, significant below %g; %g%% confidence intervals%s\n",
			       r->nb, r->na, r->judged, r->o.alpha, 100.0 * (1.0 - r->o.alpha),
			       r->o.measure == FG_REGRESS_TIME ? "; a function fails when its time grew "
			       "beyond the whole program's significant growth too" : "");
	else
		fg_strbuf_addstr(sb, "one run a side: no significance test — several runs a side tell "
				 "a change from noise\n");
}

static void cost(const fg_regress *r, double v, char *buf, size_t n)
{
	if (r->o.unit_name)
		snprintf(buf, n, "%.2f %s", v * r->o.unit_scale, r->o.unit_name);
	else
		snprintf(buf, n, "%.0f", v);
}

static void change_text(const fg_regress *r, double v, char *buf, size_t n)
{
	if (isinf(v))
		snprintf(buf, n, "new");
	else if (r->o.measure == FG_REGRESS_TIME)
		snprintf(buf, n, "%+.1f%%", v);
	else
		snprintf(buf, n, "%+.2f pp", v);
}

/* The cells of one row but the name. */
struct cells {
	char before[48], after[48], shares[48], change[48], ci[112], p[32];
	const char *note;
};

static void cells_of(const fg_regress *r, const fg_regress_row *row, struct cells *c)
{
	char lo[48], hi[48];

	cost(r, row->before_cost, c->before, sizeof(c->before));
	cost(r, row->after_cost, c->after, sizeof(c->after));
	snprintf(c->shares, sizeof(c->shares), "%.2f%% -> %.2f%%", row->before, row->after);
	change_text(r, row->change, c->change, sizeof(c->change));
	change_text(r, row->lo, lo, sizeof(lo));
	change_text(r, row->hi, hi, sizeof(hi));
	if (isnan(row->lo))
		snprintf(c->ci, sizeof(c->ci), "-");
	else
		snprintf(c->ci, sizeof(c->ci), "[%s, %s]", lo, hi);
	if (isnan(row->p))
		snprintf(c->p, sizeof(c->p), "-");
	else if (row->p < 0.0001)
		snprintf(c->p, sizeof(c->p), "<0.0001");
	else
		snprintf(c->p, sizeof(c->p), "%.4f", row->p);
	c->note = row->over ? "over" : row->noise ? "not significant" :
		  row->drift ? "with the whole program" : "";
}

static void table(const fg_regress *r, enum fg_regress_format fmt, size_t top, fg_strbuf *sb)
{
	size_t n = top && top < r->nrows ? top : r->nrows;
	bool md = fmt == FG_REGRESS_MARKDOWN;
	int conf = (int)lround(100.0 * (1.0 - r->o.alpha));

	if (md)
		fg_strbuf_addf(sb, "| function | before | after | share | change | %d%% CI | p |\n"
			       "|---|---:|---:|---:|---:|---:|---:|\n", conf);
	else
		fg_strbuf_addf(sb, "%-36s %12s %12s %18s %9s %22s %8s\n", "function", "before", "after",
			       "share", "change", "CI", "p");
	for (size_t i = 0; i < n; i++) {
		const fg_regress_row *row = &r->rows[i];
		struct cells c;

		cells_of(r, row, &c);
		if (md) {
			fg_strbuf_addstr(sb, "| ");
			md_name(sb, row->func);
			fg_strbuf_addf(sb, " | %s | %s | %s | %s%s%s%s%s | %s | %s |\n", c.before, c.after,
				       c.shares, row->over ? "**" : "", c.change, row->over ? "**" : "",
				       *c.note ? " " : "", c.note, c.ci, c.p);
		} else {
			fg_strbuf_addf(sb, "%-36s %12s %12s %18s %9s %22s %8s%s%s\n", row->func, c.before,
				       c.after, c.shares, c.change, c.ci, c.p, *c.note ? "  " : "", c.note);
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
