/* GHC's time and allocation reports (`+RTS -p`, *.prof). The cost-centre
 * tree follows its header line:
 *
 *   COST CENTRE  MODULE  SRC  no.  entries  %time %alloc   %time %alloc  ticks  bytes
 *
 *   MAIN         MAIN    <built-in>  128  0   0.0  0.0   100.0 100.0  0  4688
 *    CAF         Main    <entire-module> 255  0  0.0  0.0   0.0  0.0  0  16
 *
 * one space of indentation per level; the columns are found by where
 * their titles are in the header (counted in characters: names may be
 * UTF-8). Every row is a stack, "Module.costcentre;...", weighed by its
 * individual %time (in tenths of a percent), ticks or bytes; equal stacks
 * (from different threads) are summed. The tree ends at the first empty
 * line after it. */
#include <math.h>
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

enum { BEFORE, GAP, TREE, AFTER };

struct ghc_state {
	int phase;
	size_t module_col, cost_col; /* in characters */
	fg_lstack stack;
};

static const char *const header[] = {
	"COST", "CENTRE", "MODULE", "SRC", "no.", "entries", "%time", "%alloc", "%time", "%alloc",
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next whitespace-separated word of *v, or an empty view. */
static fg_view next_word(fg_view *v)
{
	const char *p = v->ptr, *end = v->ptr + v->len, *w;

	while (p < end && is_blank(*p))
		p++;
	for (w = p; p < end && !is_blank(*p); p++)
		;
	*v = fg_view_of(p, (size_t)(end - p));
	return fg_view_of(w, (size_t)(p - w));
}

static bool is_header(fg_view line)
{
	size_t i;

	for (i = 0; i < sizeof(header) / sizeof(header[0]); i++)
		if (!fg_view_eq(next_word(&line), header[i]))
			return false;
	return true;
}

/* Byte offset just past the first or last `word` in line, or -1. */
static long find_word(fg_view line, const char *word, bool last, size_t *at)
{
	size_t n = strlen(word), i;
	long found = -1;

	for (i = 0; i + n <= line.len; i++)
		if (!memcmp(line.ptr + i, word, n)) {
			found = (long)i;
			if (!last)
				break;
		}
	if (found >= 0)
		*at = (size_t)found;
	return found;
}

static int header_line(fg_lctx *x, struct ghc_state *st, fg_view line)
{
	size_t at = 0;

	find_word(line, "MODULE", false, &st->module_col);
	switch (x->sh->opts.ghc_source) {
	case FG_GHC_TICKS:
		if (find_word(line, "%alloc", true, &at) < 0)
			return 0;
		st->cost_col = at + 6;
		if (find_word(line, "ticks", true, &at) < 0)
			return fg_lctx_fail(x, "`opts.ghc_source=ticks`: this report has no ticks column — profile "
					    "with +RTS -P, or leave out `opts.ghc_source=ticks`");
		break;
	case FG_GHC_BYTES:
		if (find_word(line, "ticks", true, &at) < 0 || find_word(line, "bytes", true, &at) < 0)
			return fg_lctx_fail(x, "`opts.ghc_source=bytes`: this report has no bytes column — profile "
					    "with +RTS -P, or leave out `opts.ghc_source=bytes`");
		find_word(line, "ticks", true, &at);
		st->cost_col = at + 5;
		break;
	default:
		find_word(line, "%time", false, &st->cost_col);
		break;
	}
	st->phase = GAP;
	return 0;
}

/* The word at or after character `col` of line (UTF-8). */
static fg_view word_at(fg_view line, size_t col)
{
	size_t i = 0, chars = 0;

	while (i < line.len && chars < col) {
		i++;
		while (i < line.len && ((unsigned char)line.ptr[i] & 0xC0) == 0x80)
			i++;
		chars++;
	}
	line = fg_view_of(line.ptr + i, line.len - i);
	return next_word(&line);
}

static int row(fg_lctx *x, struct ghc_state *st, fg_view line)
{
	size_t depth = 0;
	fg_view cost, func, mod;
	double v;
	int err;

	while (depth < line.len && line.ptr[depth] == ' ')
		depth++;
	if (depth > st->stack.depth)
		return fg_lctx_fail(x, "the indentation skips a level (%zu after %zu)", depth,
				    st->stack.depth ? st->stack.depth - 1 : 0);
	fg_lstack_cut(&st->stack, depth);
	cost = word_at(line, st->cost_col);
	if (fg_parse_double(cost, &v) || !(v >= 0) || v > 1e18)
		return fg_lctx_fail(x, "the cost field '%.*s' is not a number — is this a GHC "
				    ".prof report, unedited?", (int)(cost.len > 40 ? 40 : cost.len),
				    cost.ptr);
	func = word_at(line, 0);
	mod = word_at(line, st->module_col);
	/* "Module.costcentre" */
	if ((err = fg_lstack_push(&st->stack, fg_view_of("", 0), mod)) ||
	    (err = fg_strbuf_add(&st->stack.names, ".", 1)) ||
	    (err = fg_strbuf_add(&st->stack.names, func.ptr, func.len)))
		return err;
	st->stack.ends[st->stack.depth - 1] = st->stack.names.len;
	/* %time has one decimal: tenths of a percent (truncated, as inferno) */
	fg_lstack_emit(x, &st->stack,
		       (uint64_t)(x->sh->opts.ghc_source == FG_GHC_TIME ? v * 10.0 : v));
	return 0;
}

static int ghc_line(fg_lctx *x, void *state, fg_view line)
{
	struct ghc_state *st = state;

	while (line.len && is_blank(line.ptr[line.len - 1]))
		line.len--;
	switch (st->phase) {
	case BEFORE:
		return is_header(line) ? header_line(x, st, line) : 0;
	case GAP:
		st->phase = TREE; /* the line after the header */
		return 0;
	case TREE:
		if (!line.len) {
			st->phase = AFTER;
			return 0;
		}
		return row(x, st, line);
	default:
		return 0;
	}
}

static int ghc_end(fg_lctx *x, void *state)
{
	if (((struct ghc_state *)state)->phase == BEFORE)
		fg_cworker_warn(x->w, FG_CWARN_NOSTART, x->seq, x->line);
	return 0;
}

static void ghc_release(void *state)
{
	fg_lstack_release(&((struct ghc_state *)state)->stack);
}

const fg_lformat fg_lformat_ghcprof = {
	sizeof(struct ghc_state), ghc_line, ghc_end, ghc_release,
};
