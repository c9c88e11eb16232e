/* Intel VTune top-down tree exported as CSV (`vtune -report top-down
 * -format csv -csv-delimiter comma`):
 *
 *   Function Stack,CPU Time:Self,Module
 *   Total,0.0,[Unknown]
 *    RtlUserThreadStart,0.0,ntdll.dll
 *     "f<int, char>",0.031,app.exe
 *
 * one space of indentation per level, the function (quoted when it holds
 * a comma or a space), its own CPU time in seconds and its module. Every
 * frame with own time is a stack, weighed in milliseconds (rounded); of
 * equal stacks the last one's weight is kept, as inferno's collapse-vtune
 * does. Lines before the header are skipped. */
#include <math.h>
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

#define HEADER "Function Stack,CPU Time:Self,Module"

struct vtune_state {
	bool in_tree;
	fg_lstack stack;
};

/* `func,time,module` (func possibly quoted) into its parts. */
static bool split_row(fg_view row, fg_view *func, fg_view *time, fg_view *mod)
{
	const char *p = row.ptr, *end = row.ptr + row.len, *comma;

	if (row.len && *p == '"') {
		const char *q = memmem(p + 1, (size_t)(end - p - 1), "\",", 2);
		if (!q)
			return false;
		*func = fg_view_of(p + 1, (size_t)(q - p - 1));
		p = q + 2;
	} else {
		if (!(comma = memchr(p, ',', (size_t)(end - p))))
			return false;
		*func = fg_view_of(p, (size_t)(comma - p));
		p = comma + 1;
	}
	comma = memchr(p, ',', (size_t)(end - p));
	*time = fg_view_of(p, (size_t)((comma ? comma : end) - p));
	*mod = comma ? fg_view_of(comma + 1, (size_t)(end - comma - 1)) : fg_view_of("", 0);
	return comma != NULL;
}

static int row_line(fg_lctx *x, struct vtune_state *st, fg_view line)
{
	size_t spaces = 0, depth;
	fg_view func, time, mod;
	double secs;
	int err;

	while (spaces < line.len && line.ptr[spaces] == ' ')
		spaces++;
	if (spaces == line.len)
		return 0;
	depth = spaces + 1;
	if (depth > st->stack.depth + 1)
		return fg_lctx_fail(x, "the indentation skips a level (%zu after %zu) — is the CSV "
				    "a top-down tree export?", depth - 1,
				    st->stack.depth ? st->stack.depth - 1 : 0);
	fg_lstack_cut(&st->stack, depth - 1);
	if (!split_row(fg_view_of(line.ptr + spaces, line.len - spaces), &func, &time, &mod))
		return fg_lctx_fail(x, "not a row of the tree — expected FUNCTION,CPU TIME,MODULE");
	if (fg_parse_double(fg_view_trim(time), &secs) || !isfinite(secs) || secs > 1e12)
		return fg_lctx_fail(x, "the CPU Time:Self field '%.*s' is not a number of seconds",
				    (int)(time.len > 40 ? 40 : time.len), time.ptr);
	if (x->sh->opts.no_modules)
		mod.len = 0;
	if ((err = fg_lstack_push(&st->stack, mod, func)))
		return err;
	if (secs * 1000.0 >= 0.5) {
		x->w->replace = true;
		fg_lstack_emit(x, &st->stack, (uint64_t)llround(secs * 1000.0));
	}
	return 0;
}

static int vtune_line(fg_lctx *x, void *state, fg_view line)
{
	struct vtune_state *st = state;

	if (!st->in_tree) {
		if (line.len >= 3 && !memcmp(line.ptr, "\xEF\xBB\xBF", 3))
			line = fg_view_of(line.ptr + 3, line.len - 3);
		st->in_tree = line.len >= strlen(HEADER) && !memcmp(line.ptr, HEADER, strlen(HEADER));
		return 0;
	}
	while (line.len && (line.ptr[line.len - 1] == ' ' || line.ptr[line.len - 1] == '\t'))
		line.len--;
	return line.len ? row_line(x, st, line) : 0;
}

static int vtune_end(fg_lctx *x, void *state)
{
	if (!((struct vtune_state *)state)->in_tree)
		fg_cworker_warn(x->w, FG_CWARN_NOSTART, x->seq, x->line);
	return 0;
}

static void vtune_release(void *state)
{
	fg_lstack_release(&((struct vtune_state *)state)->stack);
}

const fg_lformat fg_lformat_vtune = {
	sizeof(struct vtune_state), vtune_line, vtune_end, vtune_release,
};
