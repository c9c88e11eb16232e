/* What the line formats share: errors with their input line, and the
 * stack of open frames a call tree keeps while it is read. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

int fg_lctx_fail(const fg_lctx *x, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fg_error_set(FG_EPARSE, "input line %llu: %s", (unsigned long long)x->input_line, msg);
}

void fg_lstack_cut(fg_lstack *s, size_t depth)
{
	if (depth < s->depth) {
		s->depth = depth;
		s->names.len = depth ? s->ends[depth - 1] : 0;
	}
}

int fg_lstack_push(fg_lstack *s, fg_view mod, fg_view name)
{
	if (s->depth == s->alloc) {
		size_t n = s->alloc ? s->alloc * 2 : 64;
		size_t *grown = fg_realloc_array(s->ends, n, sizeof(*grown));
		if (!grown)
			return FG_ENOMEM;
		s->ends = grown;
		s->alloc = n;
	}
	if ((mod.len && (fg_strbuf_add(&s->names, mod.ptr, mod.len) ||
			 fg_strbuf_add(&s->names, "`", 1))) ||
	    fg_strbuf_add(&s->names, name.ptr, name.len))
		return FG_ENOMEM;
	s->ends[s->depth++] = s->names.len;
	return 0;
}

void fg_lstack_emit(fg_lctx *x, const fg_lstack *s, uint64_t count)
{
	size_t i;

	for (i = s->depth; i-- > 0;) {
		size_t start = i ? s->ends[i - 1] : 0;
		const char *p = s->names.buf + start;
		size_t n = s->ends[i] - start;
		if (!fg_cworker_push(x->w, p, n, memchr(p, ';', n) ? FG_FRAME_SEMI : FG_SUFFIX_NONE))
			break;
	}
	fg_cworker_emit(x->w, "", 0, count);
	x->w->samples++;
	x->w->nframes = 0;
}

void fg_lstack_release(fg_lstack *s)
{
	fg_strbuf_release(&s->names);
	free(s->ends);
	memset(s, 0, sizeof(*s));
}
