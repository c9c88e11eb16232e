/* Visual Studio's CallTreeSummary CSV (the profiler's call tree report):
 *
 *   Level,Function Name,Number of Calls,Elapsed Inclusive Time %,...,Module Name,
 *   0,"Raytracer.exe",0,100.00,...
 *   1,"Raytracer.Tracer.<TraceImage>b__5_0(int32)",471,91.25,...
 *   2,"Raytracer.Primitives.IPrimitive.Intersect(class Raytracer.Ray&,bool&)","2,893,824",...
 *
 * the depth, the function (always quoted) and how often it was called
 * (quoted, with thousands separators, from 1,000 on). Stacks are weighed
 * by calls, as inferno's collapse-vsprof weighs them: a row deeper than
 * the open stack calls from it; a row at the stack's depth or above it
 * ends the stack on top (written with its calls) and, going up, each
 * caller is written with the calls its callee did not account for (its
 * own minus the callee's, when that is smaller than its own; not again
 * when they are equal). The row of depth 0 (the program) is replaced by
 * the first row of depth 1, and of equal stacks the last one's weight is
 * kept, as there. */
#include <stdlib.h>
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

#define HEADER "Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive " \
	"Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,"

struct vsprof_state {
	bool header_seen;
	fg_lstack stack;
	uint64_t *calls;       /* calls[i]: of frame i */
	size_t acalls;
};

/* A number at the start of *v (after one leading ','), plain or quoted
 * with ',' thousands separators; *v moves past it (and its ','). */
static bool next_number(fg_view *v, uint64_t *out)
{
	const char *p = v->ptr, *end = v->ptr + v->len, *stop;
	uint64_t n = 0;
	bool quoted, digits = false;

	if (p < end && *p == ',')
		p++;
	quoted = p < end && *p == '"';
	if (quoted)
		p++;
	stop = memchr(p, quoted ? '"' : ',', (size_t)(end - p));
	if (!stop)
		return false;
	for (; p < stop; p++) {
		if (*p == ',' && quoted)
			continue;
		if (*p < '0' || *p > '9' || __builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, (uint64_t)(*p - '0'), &n))
			return false;
		digits = true;
	}
	p = stop + 1;
	if (quoted && p < end && *p == ',')
		p++;
	*v = fg_view_of(p, (size_t)(end - p));
	*out = n;
	return digits;
}

static void write_top(fg_lctx *x, struct vsprof_state *st)
{
	if (st->stack.depth && st->calls[st->stack.depth - 1] > 0) {
		x->w->replace = true;
		fg_lstack_emit(x, &st->stack, st->calls[st->stack.depth - 1]);
	}
}

static void pop(struct vsprof_state *st)
{
	fg_lstack_cut(&st->stack, st->stack.depth - 1);
}

static int push(struct vsprof_state *st, fg_view name, uint64_t calls)
{
	if (st->stack.depth == st->acalls) {
		size_t n = st->acalls ? st->acalls * 2 : 64;
		uint64_t *grown = fg_realloc_array(st->calls, n, sizeof(*grown));
		if (!grown)
			return FG_ENOMEM;
		st->calls = grown;
		st->acalls = n;
	}
	st->calls[st->stack.depth] = calls;
	return fg_lstack_push(&st->stack, fg_view_of("", 0), name);
}

/* Up from the top to a row of `depth`: see the comment at the top. */
static void unwind(fg_lctx *x, struct vsprof_state *st, uint64_t depth)
{
	uint64_t k = st->stack.depth - depth + 1, prev = 0;

	while (k-- && st->stack.depth) {
		if (prev != st->calls[st->stack.depth - 1])
			write_top(x, st);
		prev = st->calls[st->stack.depth - 1];
		pop(st);
		if (!st->stack.depth)
			break;
		if (prev < st->calls[st->stack.depth - 1])
			st->calls[st->stack.depth - 1] -= prev;
	}
}

static int row(fg_lctx *x, struct vsprof_state *st, fg_view line)
{
	fg_view rest = line, name;
	uint64_t depth, calls;
	const char *close;

	if (!next_number(&rest, &depth))
		return fg_lctx_fail(x, "the Level field is not a whole number");
	if (!rest.len || rest.ptr[0] != '"')
		return fg_lctx_fail(x, "no function name: Function Name must be the second field, "
				    "in double quotes");
	if (!(close = memchr(rest.ptr + 1, '"', rest.len - 1)))
		return fg_lctx_fail(x, "the function name has no closing double quote");
	name = fg_view_of(rest.ptr + 1, (size_t)(close - rest.ptr - 1));
	rest = fg_view_of(close + 1, (size_t)(rest.ptr + rest.len - close - 1));
	if (!next_number(&rest, &calls))
		return fg_lctx_fail(x, "the Number of Calls field is not a whole number");
	if (st->stack.depth < depth) {
		/* deeper: a call */
	} else if (st->stack.depth == depth) {
		write_top(x, st);
		if (st->stack.depth)
			pop(st);
	} else {
		unwind(x, st, depth);
	}
	return push(st, name, calls);
}

static int vsprof_line(fg_lctx *x, void *state, fg_view line)
{
	struct vsprof_state *st = state;
	fg_view t;

	if (!st->header_seen) {
		st->header_seen = true;
		t = fg_view_trim(line);
		if (t.len >= 3 && !memcmp(t.ptr, "\xEF\xBB\xBF", 3))
			t = fg_view_of(t.ptr + 3, t.len - 3);
		if (t.len != strlen(HEADER) || memcmp(t.ptr, HEADER, t.len))
			return fg_lctx_fail(x, "not the header of a Visual Studio CallTreeSummary CSV "
					    "(Level,Function Name,Number of Calls,...)");
		return 0;
	}
	while (line.len && (line.ptr[line.len - 1] == ' ' || line.ptr[line.len - 1] == '\t'))
		line.len--;
	return line.len ? row(x, st, line) : 0;
}

static int vsprof_end(fg_lctx *x, void *state)
{
	struct vsprof_state *st = state;

	if (!st->header_seen)
		fg_cworker_warn(x->w, FG_CWARN_NOSTART, x->seq, x->line);
	write_top(x, st);
	return 0;
}

static void vsprof_release(void *state)
{
	struct vsprof_state *st = state;

	fg_lstack_release(&st->stack);
	free(st->calls);
}

const fg_lformat fg_lformat_vsprof = {
	sizeof(struct vsprof_state), vsprof_line, vsprof_end, vsprof_release,
};
