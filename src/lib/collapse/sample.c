/* macOS `sample` reports. After the "Call graph:" line, each thread is a
 * tree written one frame a line:
 *
 *     825 Thread_15758535
 *     + 825 thread_start  (in libsystem_pthread.dylib) + 13  [0x7fff739c240d]
 *     +   825 _pthread_start  (in libsystem_pthread.dylib) + 66  [0x7fff739c6249]
 *     +   ! 12 read  (in libsystem_kernel.dylib) + 10  [0x7fff73905ef2]
 *
 * four spaces, then two characters of " +|:!" per level, the samples in
 * the frame and below it, the function, "(in MODULE)". The tree ends at
 * the "Total number in stack" line. A frame with nothing below it is a
 * stack, weighed by its own count; stacks whose leaf is a known wait
 * (read, __ulock_wait, kevent...: a waiting thread, not work) are left
 * out, and of equal stacks (one function reached from different offsets
 * of the same callers) the last one's count is kept, as inferno's
 * collapse-sample does. */
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

enum { BEFORE, TREE, AFTER };

struct sample_state {
	int phase;
	fg_lstack stack;
	uint64_t leaf_count;   /* samples of the frame on top of the stack */
};

static const char *const waits[] = {
	"__psynch_cvwait", "__select", "__semwait_signal", "__ulock_wait", "__wait4",
	"__workq_kernreturn", "kevent", "mach_msg_trap", "read", "semaphore_wait_trap",
};

static bool starts_with(fg_view v, const char *s)
{
	size_t n = strlen(s);
	return v.len >= n && !memcmp(v.ptr, s, n);
}

/* The function of the top frame, after its "module`". */
static bool leaf_is_wait(const fg_lstack *s)
{
	size_t start = s->depth > 1 ? s->ends[s->depth - 2] : 0, i;
	const char *p = s->names.buf + start, *tick;
	size_t n = s->ends[s->depth - 1] - start;

	if ((tick = memrchr(p, '`', n))) {
		n -= (size_t)(tick + 1 - p);
		p = tick + 1;
	}
	for (i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		if (strlen(waits[i]) == n && !memcmp(waits[i], p, n))
			return true;
	return false;
}

static void write_leaf(fg_lctx *x, struct sample_state *st)
{
	if (!st->stack.depth || leaf_is_wait(&st->stack))
		return;
	x->w->replace = true;
	fg_lstack_emit(x, &st->stack, st->leaf_count);
}

/* The length of the indentation that starts v. */
static size_t strspn_view(fg_view v)
{
	size_t i = 0;

	while (i < v.len && memchr(" +|:!", v.ptr[i], 5))
		i++;
	return i;
}

/* "COUNT function  (in module) + 13  [0x...]" into its parts. */
static int frame(fg_lctx *x, struct sample_state *st, fg_view rest)
{
	const char *sp = memchr(rest.ptr, ' ', rest.len), *paren, *in, *close;
	unsigned long long count;
	fg_view func, mod = { NULL, 0 };

	size_t tok = sp ? (size_t)(sp - rest.ptr) : rest.len;

	if (fg_parse_u64(fg_view_of(rest.ptr, tok), &count))
		return fg_lctx_fail(x, "'%.*s' is not a sample count — a `sample` call graph line is "
				    "INDENT COUNT FUNCTION (in MODULE)", (int)(tok > 60 ? 60 : tok), rest.ptr);
	func = sp ? fg_view_of(sp + 1, (size_t)(rest.ptr + rest.len - sp - 1)) : fg_view_of("", 0);
	if ((paren = memchr(func.ptr, '(', func.len)))
		func.len = (size_t)(paren - func.ptr);
	func = fg_view_trim(func);
	if (!x->sh->opts.no_modules && (in = memmem(rest.ptr, rest.len, "(in ", 4))) {
		const char *e = rest.ptr + rest.len, *last = in;
		while ((in = memmem(last + 4, (size_t)(e - last - 4), "(in ", 4)))
			last = in;
		if ((close = memchr(last + 4, ')', (size_t)(e - last - 4)))) {
			mod = fg_view_of(last + 4, (size_t)(close - last - 4));
			if (mod.len > 6 && !memcmp(mod.ptr + mod.len - 6, ".dylib", 6))
				mod.len -= 6;
		}
	}
	func = fg_cworker_fix_rust(x->w, func);
	st->leaf_count = count;
	return fg_lstack_push(&st->stack, mod, func);
}

static int tree_line(fg_lctx *x, struct sample_state *st, fg_view line)
{
	size_t indent, depth;
	fg_view body;

	if (!starts_with(line, "    "))
		return fg_lctx_fail(x, "a call graph line that does not start with four spaces — "
				    "is the report complete and unedited?");
	body = fg_view_of(line.ptr + 4, line.len - 4);
	indent = strspn_view(body);
	if (indent == body.len)
		return fg_lctx_fail(x, "a call graph line with nothing but indentation");
	if (indent % 2)
		return fg_lctx_fail(x, "an odd number of indentation characters (%zu): each level "
				    "is two", indent);
	depth = indent / 2 + 1;
	if (depth > st->stack.depth + 1)
		return fg_lctx_fail(x, "the indentation skips a level (%zu after %zu)", depth - 1,
				    st->stack.depth ? st->stack.depth - 1 : 0);
	if (depth <= st->stack.depth) {
		write_leaf(x, st);
		fg_lstack_cut(&st->stack, depth - 1);
	}
	return frame(x, st, fg_view_of(body.ptr + indent, body.len - indent));
}

static int sample_line(fg_lctx *x, void *state, fg_view line)
{
	struct sample_state *st = state;

	switch (st->phase) {
	case BEFORE:
		if (starts_with(line, "Call graph:"))
			st->phase = TREE;
		return 0;
	case TREE:
		while (line.len && line.ptr[line.len - 1] == ' ')
			line.len--;
		if (!line.len)
			return 0;
		if (starts_with(line, "Total number in stack")) {
			write_leaf(x, st);
			st->phase = AFTER;
			return 0;
		}
		return tree_line(x, st, line);
	default:
		return 0;
	}
}

static int sample_end(fg_lctx *x, void *state)
{
	struct sample_state *st = state;

	if (st->phase == BEFORE) {
		fg_cworker_warn(x->w, FG_CWARN_NOSTART, x->seq, x->line);
		return 0;
	}
	if (st->phase == TREE)
		return fg_lctx_fail(x, "the input ends inside the call graph, before its 'Total number "
				    "in stack' line — a cut-off report?");
	return 0;
}

static void sample_release(void *state)
{
	fg_lstack_release(&((struct sample_state *)state)->stack);
}

const fg_lformat fg_lformat_sample = {
	sizeof(struct sample_state), sample_line, sample_end, sample_release,
};
