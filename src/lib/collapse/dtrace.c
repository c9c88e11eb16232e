/* DTrace ustack()/stack() aggregation output -> folded stacks.
 *
 * After a header (the lines before the first empty line: "CPU ID
 * FUNCTION:NAME" and the probe), each stack is a list of frames, leaf
 * first, ended by a line holding only its count. */
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

static fg_view trim(fg_view v)
{
	while (v.len && is_space(v.ptr[0])) {
		v.ptr++;
		v.len--;
	}
	while (v.len && is_space(v.ptr[v.len - 1]))
		v.len--;
	return v;
}

static bool is_count(fg_view t)
{
	size_t i;

	for (i = 0; i < t.len; i++)
		if (t.ptr[i] < '0' || t.ptr[i] > '9')
			return false;
	return t.len > 0;
}

/* A line meant as a count that is not a whole number ("1.5", "-3",
 * "1,024", "2e6"): digits with signs, points, commas or exponents. No
 * frame looks like that (addresses are "0x..." or "module`func+0x..."). */
static bool is_bad_count(fg_view t)
{
	size_t i;

	if (!t.len || !((t.ptr[0] >= '0' && t.ptr[0] <= '9') ||
			(t.len > 1 && (t.ptr[0] == '-' || t.ptr[0] == '+') &&
			 t.ptr[1] >= '0' && t.ptr[1] <= '9')))
		return false;
	for (i = 0; i < t.len; i++)
		if (!memchr("0123456789.,+-eE", t.ptr[i], 16))
			return false;
	return true;
}

/* Removes arguments and templates after the first "::": everything from
 * the last '(' or '<' on ("ns::f(int)" -> "ns::f"). */
static fg_view uncpp(fg_view f)
{
	const char *scope = memmem(f.ptr, f.len, "::", 2);
	size_t i;

	if (!scope)
		return f;
	for (i = f.len; i > (size_t)(scope - f.ptr) + 2; i--)
		if (f.ptr[i - 1] == '(' || f.ptr[i - 1] == '<')
			return fg_view_of(f.ptr, i - 1);
	return f;
}

static void push_piece(fg_cworker *w, fg_view f, bool inlined)
{
	int flags = inlined ? FG_SUFFIX_INLINE : FG_SUFFIX_NONE;

	if (memchr(f.ptr, ';', f.len))
		flags |= FG_FRAME_SEMI;
	fg_cworker_push(w, f.ptr, f.len, flags);
}

/* With --includeoffset, a Rust name is cleaned as without it and its
 * "+0x..." offset put back after it: name and offset joined in the arena. */
static fg_view fix_rust_keep_offset(fg_cworker *w, fg_view f)
{
	const char *plus = memrchr(f.ptr, '+', f.len);
	fg_view name, fixed;
	char *out;

	if (!plus || f.ptr + f.len - plus < 3 || plus[1] != '0' || plus[2] != 'x')
		return fg_cworker_fix_rust(w, f);
	name = fg_view_of(f.ptr, (size_t)(plus - f.ptr));
	fixed = fg_cworker_fix_rust(w, name);
	if (fixed.ptr == name.ptr && fixed.len == name.len)
		return f;
	if (!(out = fg_arena_alloc(&w->arena, fixed.len + (size_t)(f.ptr + f.len - plus)))) {
		w->error = FG_ENOMEM;
		return f;
	}
	memcpy(out, fixed.ptr, fixed.len);
	memcpy(out + fixed.len, plus, (size_t)(f.ptr + f.len - plus));
	return fg_view_of(out, fixed.len + (size_t)(f.ptr + f.len - plus));
}

static void frame_line(fg_cworker *w, const fg_cshared *sh, fg_view f)
{
	const char *plus, *end, *q;

	if (!sh->opts.include_offset && (plus = memrchr(f.ptr, '+', f.len)))
		f.len = (size_t)(plus - f.ptr);
	f = uncpp(f);
	while (f.len && is_space(f.ptr[f.len - 1]))
		f.len--;
	if (!f.len)
		f = fg_view_of("-", 1);
	f = sh->opts.include_offset ? fix_rust_keep_offset(w, f) : fg_cworker_fix_rust(w, f);
	/* "caller->inlined->...": callee first into the leaf-first list */
	end = f.ptr + f.len;
	for (q = end; q - f.ptr >= 2; q--) {
		if (q[-1] == '>' && q[-2] == '-') {
			if (sh->opts.inline_frames)
				push_piece(w, fg_view_of(q, (size_t)(end - q)), true);
			end = q - 2;
			q = end + 1;
		}
	}
	push_piece(w, fg_view_of(f.ptr, (size_t)(end - f.ptr)), false);
}

static void count_line(fg_cworker *w, const fg_cshared *sh, fg_view t, uint64_t seq,
		       uint64_t lineno)
{
	unsigned long long count;

	if (fg_parse_u64(t, &count)) {
		fg_cworker_warn(w, FG_CWARN_COUNT, seq, lineno);
	} else if (w->nframes) {
		if (sh->opts.include_offset) {
			/* offsets are kept on callers, not on the leaf */
			fg_cframe *leaf = &w->frames[0];
			const char *plus = memrchr(leaf->ptr, '+', leaf->len);
			if (plus)
				leaf->len = (uint32_t)(plus - leaf->ptr);
		}
		fg_cworker_emit(w, "", 0, count);
		w->samples++;
	}
	w->nframes = 0;
}

/* The header is the lines before the first empty line, unless a count
 * line comes first (then there is none). Returns where stacks start. */
static size_t header_end(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	fg_view t;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		t = trim(fg_view_of(p, (size_t)((nl ? nl : end) - p)));
		p = nl ? nl + 1 : end;
		if (!t.len)
			return (size_t)(p - buf);
		if (is_count(t))
			return 0;
	}
	return len;
}

/* Parses the lines of buf[0..len) (`first`: it starts the input, with
 * its header); *lineno counts them. */
static void parse_span(fg_cworker *w, const fg_cshared *sh, const char *buf, size_t len,
		       uint64_t seq, bool first, uint64_t *lineno_io)
{
	const char *p = buf, *end = buf + len, *nl;
	bool plain = fg_bytes_plain(buf, len);
	uint64_t lineno = *lineno_io;
	size_t skip = first ? header_end(buf, len) : 0;
	bool drop = false; /* the stack had a line over the cap */
	fg_view t;

	w->nframes = 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		t = fg_view_of(p, (size_t)((nl ? nl : end) - p));
		p = nl ? nl + 1 : end;
		w->lineno = ++lineno;
		if ((size_t)(t.ptr - buf) < skip)
			continue;
		if (t.len > FG_CMAX_LINE) {
			fg_cworker_warn(w, FG_CWARN_LONGLINE, seq, lineno);
			drop = true;
			continue;
		}
		if (!plain)
			t = fg_cworker_clean_line(w, t, seq, lineno);
		t = trim(t);
		/* not an end of stack: stack() and ustack() keys of one entry
		 * are separated by an empty line */
		if (!t.len)
			continue;
		if (is_count(t)) {
			if (drop)
				w->nframes = 0;
			drop = false;
			count_line(w, sh, t, seq, lineno);
		} else if (is_bad_count(t)) {
			/* the stack is dropped, as for a count too large */
			if (w->nframes && !drop)
				fg_cworker_warn(w, FG_CWARN_BADCOUNT, seq, lineno);
			w->nframes = 0;
			drop = false;
		} else if (!drop) {
			frame_line(w, sh, t);
		}
	}
	/* Chunks end after a count line, so frames left over are a stack cut
	 * off at the end of the input. */
	if (w->nframes)
		fg_cworker_warn(w, FG_CWARN_NOCOUNT, seq, lineno);
	w->nframes = 0;
	*lineno_io = lineno;
}

/* The end of the stretch of buf[from..len) up to the end of its first
 * count line (a stateless point, as fg_dtrace_boundary sees them), or len. */
static size_t region_end(const char *buf, size_t from, size_t len)
{
	const char *p = buf + from, *end = buf + len, *q;

	while ((q = memchr(p, '\n', (size_t)(end - p)))) {
		if (is_count(trim(fg_view_of(p, (size_t)(q - p)))))
			return (size_t)(q - buf) + 1;
		p = q + 1;
	}
	return len;
}

void fg_dtrace_parse(fg_cworker *w, const fg_cshared *sh, const char *buf, size_t len,
		     uint64_t seq, bool first, bool dropped, uint64_t *nlines)
{
	size_t off, e;

	w->seq = seq;
	/* Only a chunk longer than the cap can hold a stack over it. */
	if (!dropped && len <= FG_CMAX_STACK) {
		parse_span(w, sh, buf, len, seq, first, nlines);
		return;
	}
	/* As in fg_perf_parse: the collapser's rule, on whole stacks. */
	for (off = 0; off < len; off = e) {
		e = region_end(buf, off, len);
		if ((dropped && !off) || e - off > FG_CMAX_STACK)
			fg_cworker_skip_too_big(w, buf + off, e - off, nlines, dropped && !off);
		else
			parse_span(w, sh, buf + off, e - off, seq, first && !off, nlines);
	}
}

size_t fg_dtrace_boundary(const char *buf, size_t from, size_t len)
{
	const char *lo = buf + from, *q, *prev, *start;

	q = fg_last_nl(lo, buf + len);
	while (q) {
		prev = fg_last_nl(buf, q);
		start = prev ? prev + 1 : buf;
		if (is_count(trim(fg_view_of(start, (size_t)(q - start)))))
			return (size_t)(q - buf) + 1;
		if (!prev || prev < lo)
			break;
		q = prev;
	}
	return 0;
}
