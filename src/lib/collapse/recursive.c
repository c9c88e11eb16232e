/* Folded stacks with direct recursion folded: "main;f;f;f;g 3" becomes
 * "main;f;g 3" (a frame equal to its caller is dropped), and stacks made
 * equal by that are summed. Each line stands alone. */
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

static int recursive_line(fg_lctx *x, void *state, fg_view line)
{
	const char *sp, *p, *end, *q;
	unsigned long long count;
	fg_view prev = { NULL, 0 };

	(void)state;
	line = fg_view_trim(line);
	if (!line.len)
		return 0;
	sp = memrchr(line.ptr, ' ', line.len);
	if (!sp || sp == line.ptr ||
	    fg_parse_u64(fg_view_of(sp + 1, (size_t)(line.ptr + line.len - sp - 1)), &count)) {
		fg_cworker_warn(x->w, FG_CWARN_BADLINE, x->seq, x->line);
		return 0;
	}
	/* leaf first into the worker, each frame unless it equals the one
	 * pushed before it (its callee) */
	p = line.ptr;
	end = sp;
	while (end > p) {
		q = end;
		while (q > p && q[-1] != ';')
			q--;
		if (!(prev.ptr && prev.len == (size_t)(end - q) && !memcmp(prev.ptr, q, prev.len))) {
			if (!fg_cworker_push(x->w, q, (size_t)(end - q), FG_SUFFIX_NONE))
				return x->w->error;
			prev = fg_view_of(q, (size_t)(end - q));
		}
		end = q > p ? q - 1 : p;
	}
	fg_cworker_emit(x->w, "", 0, count);
	x->w->samples++;
	x->w->nframes = 0;
	return 0;
}

static int recursive_end(fg_lctx *x, void *state)
{
	(void)x;
	(void)state;
	return 0;
}

static void recursive_release(void *state)
{
	(void)state;
}

const fg_lformat fg_lformat_recursive = {
	1, recursive_line, recursive_end, recursive_release,
};
