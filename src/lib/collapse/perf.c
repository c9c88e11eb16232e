/* `perf script` text -> folded stacks.
 *
 * An event is a header line ("comm pid/tid [cpu] time: period event:")
 * followed by stack lines ("ADDR SYMBOL+OFF (MODULE)", leaf first) and an
 * empty line. Frames are kept as views into the chunk; only rewritten
 * names ([unknown] replaced by the module, ';' made ':') are copied, into
 * the worker's arena, which lives as long as the chunk. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lib/collapse/internal.h"
#include "util/banned.h"

/* State of the event being parsed; reset at every empty line. */
struct perf_event {
	bool in_event;    /* a header was seen */
	bool skip;        /* drop this event (bad header, other event type) */
	bool skip_rest;   /* a --skip-after frame was reached: ignore callers */
	bool java;        /* comm is "java": tidy JVM class names */
	uint64_t count;
	size_t line_frame; /* frames[line_frame - 1] was pushed last and may
			      get the source line under it (0: none) */
	size_t cached;     /* frames pushed from the line cache (their lines'
			      ids in w->chain) */
	bool changed;      /* a frame was renamed after it was pushed */
};

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline fg_view trim_start(fg_view v)
{
	while (v.len && is_space(v.ptr[0])) {
		v.ptr++;
		v.len--;
	}
	return v;
}

static inline fg_view trim_end(fg_view v)
{
	while (v.len && (is_space(v.ptr[v.len - 1]) || v.ptr[v.len - 1] == '\n'))
		v.len--;
	return v;
}

static const char *find_last(const char *p, size_t n, char c)
{
	return n ? memrchr(p, c, n) : NULL;
}

#ifdef __SSE2__
static inline unsigned eq_mask(__m128i v, char c)
{
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
}
#endif

#ifdef __SSE2__
/* The bytes of v from 9 to 13 ('\t' '\n' '\v' '\f' '\r'). */
static inline unsigned low_mask(__m128i v)
{
	__m128i t = _mm_sub_epi8(v, _mm_set1_epi8(9));

	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(4)), t));
}
#endif

/* find_last(p, n, ' ') for the module of a stack line, a few bytes from
 * the end: inline, as a call costs more than the search. */
static inline const char *last_space(const char *p, size_t n)
{
#ifdef __SSE2__
	for (; n >= 16; n -= 16) {
		unsigned m = eq_mask(_mm_loadu_si128((const __m128i *)(p + n - 16)), ' ');
		if (m)
			return p + n - 16 + (31 - __builtin_clz(m));
	}
#endif
	while (n--)
		if (p[n] == ' ')
			return p + n;
	return NULL;
}

/* Splits a chunk into lines. With SSE2 it keeps a bit mask of the
 * newlines of 64 bytes at a time, so a line costs a few bit operations
 * rather than a memchr call (lines are ~80 bytes). */
/* Hands out the lines of a buffer. The same pass over the bytes that
 * finds the newlines tells whether a line may hold a NUL byte or a byte
 * >= 0x80 (then it needs fg_cworker_clean_line); it is exact to the 64-byte
 * block, so a plain line next to such bytes is sometimes cleaned for
 * nothing, never the other way round. */
struct lines {
	const char *end;
#ifdef __SSE2__
	const char *block;     /* the 64 bytes described by mask; NULL: tail */
	uint64_t mask;         /* its newlines not handed out yet */
	bool block_dirty;      /* the block has NUL or high bytes */
	bool line_dirty;       /* so has a block the current line touches */
#endif
};

#ifdef __SSE2__
/* The block's newlines, one bit per byte; *dirty: it holds a NUL or a
 * byte >= 0x80 (a high bit, after OR-ing each byte with its ==0 mask). */
static inline uint64_t newline_mask(const char *b, bool *dirty)
{
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	__m128i v0 = _mm_loadu_si128((const __m128i *)b), v1 = _mm_loadu_si128((const __m128i *)(b + 16));
	__m128i v2 = _mm_loadu_si128((const __m128i *)(b + 32)), v3 = _mm_loadu_si128((const __m128i *)(b + 48));
	uint64_t m0 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v0, nl));
	uint64_t m1 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v1, nl));
	uint64_t m2 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v2, nl));
	uint64_t m3 = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v3, nl));
	__m128i any = _mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3));
	__m128i nul = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v0, zero), _mm_cmpeq_epi8(v1, zero)),
				   _mm_or_si128(_mm_cmpeq_epi8(v2, zero), _mm_cmpeq_epi8(v3, zero)));
	*dirty = _mm_movemask_epi8(_mm_or_si128(any, nul)) != 0;
	return m0 | m1 << 16 | m2 << 32 | m3 << 48;
}
#endif

static inline void lines_init(struct lines *it, const char *buf, size_t len)
{
	it->end = buf + len;
#ifdef __SSE2__
	it->block = len >= 64 ? buf : NULL;
	it->block_dirty = false;
	it->mask = len >= 64 ? newline_mask(buf, &it->block_dirty) : 0;
	it->line_dirty = it->block_dirty;
#endif
}

/* The first newline at or after p (the start of the next line), or NULL;
 * *dirty as described above, for the line [p, newline). */
static inline const char *lines_next(struct lines *it, const char *p, bool *dirty)
{
#ifdef __SSE2__
	while (it->block) {
		if (it->mask) {
			const char *q = it->block + __builtin_ctzll(it->mask);
			it->mask &= it->mask - 1;
			*dirty = it->line_dirty;
			/* the next line starts in this block */
			it->line_dirty = it->block_dirty;
			return q;
		}
		it->block += 64;
		if (it->end - it->block < 64) {
			it->block = NULL; /* every newline before here was handed out */
		} else {
			it->mask = newline_mask(it->block, &it->block_dirty);
			it->line_dirty |= it->block_dirty;
		}
	}
#endif
	const char *q = memchr(p, '\n', (size_t)(it->end - p));
	*dirty = !fg_bytes_plain(p, (size_t)((q ? q : it->end) - p));
	return q;
}

/* The parts of an event header. */
struct perf_header {
	fg_view comm, pid, tid;   /* pid.len == 0: perf printed only the TID */
	fg_view event;            /* base name ("cycles" of "cycles:u"); may be empty */
	fg_view event_full;       /* "cycles:u" */
	fg_view inline_frame;     /* a stack frame printed on the header line */
	uint64_t period;          /* 0: none printed */
	bool period_overflow;     /* printed, but 2^64 or more */
};

/* Finds the first all-digit word after the command name, which may
 * itself contain spaces ("V8 WorkerThread 24636/25607 [000] ..."). The
 * word may end the line: `perf script -F comm,pid,tid,ip,sym` prints
 * nothing after it. */
static bool split_comm(fg_view line, struct perf_header *h, fg_view *rest)
{
	size_t i, word = 0, slash = 0;
	bool digits = false, last_space = false;

	for (i = 0; i <= line.len; i++) {
		char c = i < line.len ? line.ptr[i] : ' ';
		if (c == ' ') {
			if (digits && !last_space) {
				h->comm = trim_end(trim_start(fg_view_of(line.ptr, word - 1)));
				if (slash) {
					h->pid = fg_view_of(line.ptr + word, slash - word);
					h->tid = fg_view_of(line.ptr + slash + 1, i - slash - 1);
				} else {
					h->pid = fg_view_of(NULL, 0);
					h->tid = fg_view_of(line.ptr + word, i - word);
				}
				*rest = fg_view_of(line.ptr + i, line.len - i);
				return true;
			}
			word = i + 1;
			digits = true;
			slash = 0;
		} else if (c == '/') {
			if (digits)
				slash = i;
		} else if (!is_digit(c)) {
			digits = false;
			slash = 0;
		}
		last_space = c == ' ';
	}
	return false;
}

static bool is_timestamp(fg_view t)
{
	size_t i;

	if (t.len < 2 || t.ptr[t.len - 1] != ':')
		return false;
	for (i = 0; i + 1 < t.len; i++)
		if (!is_digit(t.ptr[i]) && t.ptr[i] != '.')
			return false;
	return true;
}

static bool all_digits(fg_view t)
{
	size_t i;

	for (i = 0; i < t.len; i++)
		if (!is_digit(t.ptr[i]))
			return false;
	return t.len > 0;
}

/* After comm and pid: "[cpu] time: period event: [frame]", every part
 * optional. The event is the first word ending in ':' that is not a
 * time stamp. Without an event (-F without `event`), a period is the
 * last word, all digits: pid and tid are taken, the cpu is bracketed
 * and a time ends in ':'. */
static void parse_event(fg_view rest, struct perf_header *h)
{
	fg_view prev = { NULL, 0 }, tok;
	const char *p = rest.ptr, *end = rest.ptr + rest.len;

	while (p < end) {
		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		tok.ptr = p;
		while (p < end && !is_space(*p))
			p++;
		tok.len = (size_t)(p - tok.ptr);
		if (tok.ptr[0] == '[' || is_timestamp(tok) || tok.ptr[tok.len - 1] != ':') {
			prev = tok;
			continue;
		}
		h->event_full = fg_view_of(tok.ptr, tok.len - 1);
		h->event = fg_view_of(tok.ptr, (size_t)((const char *)memchr(tok.ptr, ':', tok.len) - tok.ptr));
		if (all_digits(prev)) {
			unsigned long long v;
			if (!fg_parse_u64(prev, &v))
				h->period = v;
			else
				h->period_overflow = true;
		}
		h->inline_frame = trim_end(trim_start(fg_view_of(p, (size_t)(end - p))));
		return;
	}
	if (all_digits(prev) && prev.ptr + prev.len == end) {
		unsigned long long v;
		if (!fg_parse_u64(prev, &v))
			h->period = v;
		else
			h->period_overflow = true;
	}
}

bool fg_perf_header_split(fg_view line, fg_view *comm, fg_view *pid, fg_view *tid, fg_view *rest)
{
	struct perf_header h;

	memset(&h, 0, sizeof(h));
	if (!split_comm(line, &h, rest))
		return false;
	*comm = h.comm;
	*pid = h.pid;
	*tid = h.tid;
	return true;
}

bool fg_perf_header_ok(fg_view line)
{
	struct perf_header h;
	fg_view rest;

	memset(&h, 0, sizeof(h));
	return split_comm(line, &h, &rest);
}

/* perf prints addresses as bare hex digits. */
static bool is_address(fg_view t)
{
	size_t i;

	for (i = 0; i < t.len; i++)
		if (!is_hex(t.ptr[i]))
			return false;
	return t.len > 0;
}

#ifdef __SSE2__
/* The address of a stack line as perf prints it ("\t    7f183b22aec7 sym
 * (mod)": blanks, up to 16 hex digits, a space) found in its first 32
 * bytes with a few vector compares instead of a loop per byte. False when
 * it is not there (then the plain loops decide). */
static inline bool find_address(fg_view line, fg_view *pc)
{
	__m128i a, b;
	uint32_t spaces, blanks, start, after;

	if (line.len < 32)
		return false;
	a = _mm_loadu_si128((const __m128i *)line.ptr);
	b = _mm_loadu_si128((const __m128i *)(line.ptr + 16));
	spaces = eq_mask(a, ' ') | eq_mask(b, ' ') << 16;
	/* trim_start's blanks: ' ' and '\t' '\v' '\f' '\r', which with
	 * '\n' (not in a line) are 9 to 13: c - 9 <= 4, unsigned */
	blanks = spaces | low_mask(a) | low_mask(b) << 16;
	if (blanks == UINT32_MAX)
		return false;
	start = (uint32_t)__builtin_ctz(~blanks);
	after = start == 31 ? 0 : spaces & (UINT32_MAX << (start + 1));
	if (!after)
		return false;
	*pc = fg_view_of(line.ptr + start, (size_t)__builtin_ctz(after) - start);
	return true;
}
#endif

/* A stack line's first word (the address, for perf) and what follows
 * the space after it; false when there is no such space. */
static inline __attribute__((always_inline)) bool split_address(fg_view line, fg_view *pc,
								 fg_view *rest)
{
	const char *sp;

#ifdef __SSE2__
	if (find_address(line, pc)) {
		line = fg_view_of(pc->ptr, line.len - (size_t)(pc->ptr - line.ptr));
		sp = pc->ptr + pc->len;
	} else
#endif
	{
		line = trim_start(line);
		/* the address is short: a plain loop beats a memchr call */
		for (sp = line.ptr; sp < line.ptr + line.len && *sp != ' '; sp++)
			;
		if (sp == line.ptr + line.len)
			return false;
		*pc = fg_view_of(line.ptr, (size_t)(sp - line.ptr));
	}
	*rest = fg_view_of(sp + 1, line.len - pc->len - 1);
	return true;
}

/* "ADDR SYMBOL (MODULE)": the address is the first word, the module the
 * last; the symbol is what lies between (it may contain spaces). Without
 * `dso` in perf script's -F there is no module: "ADDR SYMBOL", and *mod
 * is empty. split_rest takes the address and the rest as split_address
 * gives them; what it finds depends on the rest alone, except that the
 * form without a module (*bare) needs the address to be hex. */
static bool split_rest(fg_view pc, fg_view rest, fg_view *func, fg_view *mod, bool *bare)
{
	const char *last;

	*bare = false;
	last = last_space(rest.ptr, rest.len);
	*mod = last ? fg_view_of(last + 1, (size_t)(rest.ptr + rest.len - last - 1)) : rest;
	if (mod->len >= 2 && mod->ptr[0] == '(' && mod->ptr[mod->len - 1] == ')') {
		*mod = fg_view_of(mod->ptr + 1, mod->len - 2);
	} else if (!last || !mod->len || mod->ptr[mod->len - 1] != ')') {
		/* no module: all of it is the symbol ("ADDR SYM"), and the
		 * address must be one, or any two words would pass */
		*func = trim_end(trim_start(rest));
		*mod = fg_view_of("", 0);
		*bare = true;
		return func->len && is_address(pc);
	}
	if (!last)
		return false;
	*func = trim_end(trim_start(fg_view_of(rest.ptr, (size_t)(last - rest.ptr))));
	if (!func->len)
		*func = fg_view_of(" ", 1); /* "ADDR  (MODULE)": as stackcollapse-perf.pl */
	return true;
}

static bool split_stack_line(fg_view line, fg_view *pc, fg_view *func, fg_view *mod)
{
	fg_view rest;
	bool bare;

	return split_address(line, pc, &rest) && split_rest(*pc, rest, func, mod, &bare);
}

bool fg_perf_stack_ok(fg_view line)
{
	fg_view pc, func, mod;

	return split_stack_line(line, &pc, &func, &mod);
}

/* Drops a "+0x1f" symbol offset (printed by default since Linux 4.8). */
static fg_view strip_offset(fg_view f)
{
	size_t n = f.len;

	while (n && is_hex(f.ptr[n - 1]))
		n--;
	if (n >= 3 && f.ptr[n - 3] == '+' && f.ptr[n - 2] == '0' && f.ptr[n - 1] == 'x')
		f.len = n - 3;
	return f;
}

static bool is_kernel_module(fg_view m)
{
	if (fg_view_eq(m, "[unknown]"))
		return false;
	return (m.len && m.ptr[0] == '[') || memmem(m.ptr, m.len, "vmlinux", 7) ||
	       fg_view_ends_with(m, ".ko");
}

static bool is_jit_module(fg_view m)
{
	if (fg_view_starts_with(m, "/tmp/perf-") && fg_view_ends_with(m, ".map"))
		return true;
	return memmem(m.ptr, m.len, "/jitted-", 8) && fg_view_ends_with(m, ".so");
}

/* "[unknown]" becomes the module's file name in brackets, with the
 * address when --addrs is given. */
static fg_view unknown_name(fg_cworker *w, const fg_cshared *sh, fg_view pc, fg_view mod)
{
	fg_view name = fg_view_of("unknown", 7);
	const char *slash;
	size_t n;
	char *p;

	if (mod.len && !fg_view_eq(mod, "[unknown]")) {
		slash = find_last(mod.ptr, mod.len, '/');
		name = slash ? fg_view_of(slash + 1, (size_t)(mod.ptr + mod.len - slash - 1)) : mod;
	}
	n = name.len + 2 + (sh->opts.include_addrs ? pc.len + 3 : 0);
	if (!(p = fg_arena_alloc(&w->arena, n))) {
		w->error = FG_ENOMEM;
		return fg_view_of("[unknown]", 9);
	}
	p[0] = '[';
	memcpy(p + 1, name.ptr, name.len);
	if (sh->opts.include_addrs) {
		memcpy(p + 1 + name.len, " <", 2);
		memcpy(p + 3 + name.len, pc.ptr, pc.len);
		p[n - 2] = '>';
	}
	p[n - 1] = ']';
	return fg_view_of(p, n);
}

/* The next byte of p[0..end) that args_paren looks at: one of "<>(-". */
static inline const char *next_bracket(const char *p, const char *end)
{
#ifdef __SSE2__
	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		unsigned m = eq_mask(v, '<') | eq_mask(v, '>') | eq_mask(v, '(') | eq_mask(v, '-');
		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	for (; p < end; p++)
		if (*p == '<' || *p == '>' || *p == '(' || *p == '-')
			return p;
	return end;
}

/* The first '(' outside template brackets that is not "(anonymous
 * namespace)", or NULL. "operator<<" and "->" do not open brackets. Jumps
 * from bracket to bracket: most of a symbol is letters. */
static const char *args_paren(const char *start, const char *end)
{
	const char *p = start;
	int depth = 0;

	for (; (p = next_bracket(p, end)) < end; p++) {
		if (*p != '(' && p - start >= 8 && !memcmp(p - 8, "operator", 8)) {
			/* operator<, operator<<=, operator->* ...: not brackets */
			while (p + 1 < end && strchr("<>=-*", p[1]))
				p++;
			continue;
		}
		switch (*p) {
		case '<':
			depth++;
			break;
		case '>':
			if (depth)
				depth--;
			break;
		case '(':
			if ((size_t)(end - p) >= 21 && !memcmp(p, "(anonymous namespace)", 21))
				p += 20;
			else if (!depth)
				return p;
			break;
		}
	}
	return NULL;
}

/* Bits of a symbol's bytes that need work, found in one pass. */
enum { CLS_PAREN = 1, CLS_SEMI = 2, CLS_GT = 4 };
static const unsigned char byte_class[256] = {
	['('] = CLS_PAREN, [';'] = CLS_SEMI, ['>'] = CLS_GT,
};

static unsigned classify(fg_view f)
{
	unsigned cls = 0;
	size_t i = 0;

#ifdef __SSE2__
	/* symbols are mostly 20-100 bytes: 16 at a time, the last block
	 * overlapping the previous one; the matches are or-ed up and looked
	 * at once, at the end */
	if (f.len >= 16) {
		__m128i paren = _mm_setzero_si128(), semi = paren, gt = paren, v;
		for (;; i += 16) {
			v = _mm_loadu_si128((const __m128i *)(f.ptr + (i + 16 <= f.len ? i : f.len - 16)));
			paren = _mm_or_si128(paren, _mm_cmpeq_epi8(v, _mm_set1_epi8('(')));
			semi = _mm_or_si128(semi, _mm_cmpeq_epi8(v, _mm_set1_epi8(';')));
			gt = _mm_or_si128(gt, _mm_cmpeq_epi8(v, _mm_set1_epi8('>')));
			if (i + 16 >= f.len)
				break;
		}
		if (_mm_movemask_epi8(paren))
			cls |= CLS_PAREN;
		if (_mm_movemask_epi8(semi))
			cls |= CLS_SEMI;
		if (_mm_movemask_epi8(gt))
			cls |= CLS_GT;
		return cls;
	}
#endif
	for (; i < f.len; i++)
		cls |= byte_class[(unsigned char)f.ptr[i]];
	return cls;
}

/* Removes argument lists ("foo(int)" -> "foo", "f<int (int)>()" ->
 * "f<int (int)>") except Go method receivers ("pkg.(*T).m"). */
static fg_view tidy(fg_view f, unsigned cls)
{
	const char *paren;

	if ((cls & CLS_PAREN) && (paren = args_paren(f.ptr, f.ptr + f.len)) &&
	    !(paren > f.ptr && paren[-1] == '.'))
		f.len = (size_t)(paren - f.ptr);
	return f;
}

/* Compares as the frame will be printed: its ';' become ':'. */
static bool skip_after_match(const fg_cshared *sh, fg_view f)
{
	size_t i, k;

	for (i = 0; i < sh->opts.nskip_after; i++) {
		const char *s = sh->opts.skip_after[i];
		if (strlen(s) != f.len)
			continue;
		for (k = 0; k < f.len && (f.ptr[k] == s[k] || (f.ptr[k] == ';' && s[k] == ':')); k++)
			;
		if (k == f.len)
			return true;
	}
	return false;
}

/* One symbol (of possibly several joined by "->" for inlined Java
 * frames, caller first). */
static void add_frame(fg_cworker *w, const fg_cshared *sh, struct perf_event *ev,
		      fg_view f, fg_view pc, fg_view mod, bool inlined, unsigned cls)
{
	int suffix = FG_SUFFIX_NONE;

	if (f.len == 9 && !memcmp(f.ptr, "[unknown]", 9)) {
		f = unknown_name(w, sh, pc, mod);
		cls = classify(f);
	} else if (f.len > 19 && f.ptr[f.len - 19] == ':') {
		fg_view fixed = fg_cworker_fix_rust(w, f);
		if (fixed.ptr != f.ptr)
			cls = classify(fixed);
		f = fixed;
	}
	f = tidy(f, cls);
	if (ev->java && f.len > 1 && f.ptr[0] == 'L' && memchr(f.ptr, '/', f.len)) {
		f.ptr++;
		f.len--;
	}
	if (inlined)
		suffix = FG_SUFFIX_INLINE;
	else if (sh->opts.annotate_kernel && is_kernel_module(mod))
		suffix = FG_SUFFIX_KERNEL;
	else if (sh->opts.annotate_jit && is_jit_module(mod))
		suffix = FG_SUFFIX_JIT;
	if (cls & CLS_SEMI)
		suffix |= FG_FRAME_SEMI;
	fg_cworker_push(w, f.ptr, f.len, suffix);
	if (sh->opts.nskip_after && skip_after_match(sh, f))
		ev->skip_rest = true;
}

static const char *find_arrow_back(const char *p, const char *end)
{
	const char *q;

	while (end - p >= 2 && (q = find_last(p + 1, (size_t)(end - p - 1), '>'))) {
		if (q[-1] == '-')
			return q - 1;
		end = q;
	}
	return NULL;
}

/* perf script -F +srcline writes under each frame, indented, where it
 * is: "FILE:LINE", "FILE:LINE (inlined)", "??:0" or ":0" when not known, or
 * "MODULE[ADDR]" / "MODULE[+ADDR]" for code without line tables. On a
 * match *file and *lineno get FILE (without its folder) and LINE, or an
 * empty file when there is no line to show. */
static bool srcline_split(fg_view line, fg_view *file, fg_view *lineno)
{
	fg_view t = trim_start(line);
	const char *colon;

	*file = *lineno = fg_view_of("", 0);
	if (!t.len || t.len == line.len)
		return false;
	if (t.ptr[t.len - 1] == ']') {
		/* MODULE[ADDR] or MODULE[+ADDR], ADDR in hex: one word */
		const char *open = find_last(t.ptr, t.len, '['), *h;
		if (!open || open == t.ptr)
			return false;
		for (size_t i = 0; i < t.len; i++)
			if (is_space(t.ptr[i]))
				return false;
		h = open + 1 + (open[1] == '+');
		if (h + 2 < t.ptr + t.len && h[0] == '0' && h[1] == 'x')
			h += 2;
		if (h >= t.ptr + t.len - 1)
			return false;
		for (; h < t.ptr + t.len - 1; h++)
			if (!is_hex(*h))
				return false;
		return true;
	}
	if (t.len > 10 && !memcmp(t.ptr + t.len - 10, " (inlined)", 10))
		t.len -= 10;
	if (!(colon = find_last(t.ptr, t.len, ':')) || colon == t.ptr + t.len - 1)
		return false;
	/* ":0": a line of no file (perf at the first instruction of ld.so) */
	if (colon == t.ptr && !(t.len == 2 && (t.ptr[1] == '0' || t.ptr[1] == '?')))
		return false;
	*lineno = fg_view_of(colon + 1, (size_t)(t.ptr + t.len - colon - 1));
	if (!(lineno->len == 1 && lineno->ptr[0] == '?') && !all_digits(*lineno))
		return false;
	*file = fg_view_of(t.ptr, (size_t)(colon - t.ptr));
	/* perf's words for "not known" */
	if ((file->len == 2 && !memcmp(file->ptr, "??", 2)) || lineno->ptr[0] == '?' ||
	    (lineno->len == 1 && lineno->ptr[0] == '0')) {
		*file = fg_view_of("", 0);
		return true;
	}
	for (const char *s = file->ptr + file->len; s > file->ptr; s--)
		if (s[-1] == '/') {
			*file = fg_view_of(s, (size_t)(file->ptr + file->len - s));
			break;
		}
	return file->len > 0;
}

/* FUNCTION becomes FUNCTION:FILE:LINE (in the worker's arena). */
static void add_line(fg_cworker *w, fg_cframe *f, fg_view file, fg_view lineno)
{
	size_t len = (size_t)f->len + 1 + file.len + 1 + lineno.len;
	char *p;

	if (f->truncated || len > FG_CMAX_FRAME - 8)
		return;
	if (!(p = fg_arena_alloc(&w->arena, len))) {
		w->error = FG_ENOMEM;
		return;
	}
	memcpy(p, f->ptr, f->len);
	p[f->len] = ':';
	memcpy(p + f->len + 1, file.ptr, file.len);
	p[f->len + 1 + file.len] = ':';
	memcpy(p + f->len + 2 + file.len, lineno.ptr, lineno.len);
	if (memchr(file.ptr, ';', file.len))
		f->semi = true;
	f->ptr = p;
	f->len = (uint32_t)len;
}

/* The source line under the frame pushed last (FILE without its
 * folder; empty: not known). */
static void srcline(fg_cworker *w, const fg_cshared *sh, struct perf_event *ev, fg_view file,
		    fg_view at)
{
	if (sh->opts.lines && ev->line_frame && file.len) {
		add_line(w, &w->frames[ev->line_frame - 1], file, at);
		ev->changed = true;
	}
	ev->line_frame = 0;
}

/* A frame's symbol (without its offset), address and module, as a stack
 * line gives them: its frames (more than one for Java's "->" inlined
 * frames) pushed. Inlined into its two callers: as a call of its own, on
 * every stack line, it cost 4% of collapsing perf script text. */
static inline __attribute__((always_inline)) void
frame(fg_cworker *w, const fg_cshared *sh, struct perf_event *ev, fg_view pc, fg_view func,
      fg_view mod)
{
	const char *end = func.ptr + func.len, *arrow;
	unsigned cls;

	cls = classify(func);
	if (!(cls & CLS_GT)) {
		add_frame(w, sh, ev, func, pc, mod, false, cls);
		ev->line_frame = w->nframes;
		return;
	}
	/* Callee first into the leaf-first frame list: walk back from the end. */
	while ((arrow = find_arrow_back(func.ptr, end)) && !ev->skip_rest) {
		if (sh->opts.inline_frames)
			add_frame(w, sh, ev, fg_view_of(arrow + 2, (size_t)(end - arrow - 2)), pc, mod, true, cls);
		end = arrow;
	}
	if (!ev->skip_rest)
		add_frame(w, sh, ev, fg_view_of(func.ptr, (size_t)(end - func.ptr)), pc, mod, false, cls);
	ev->line_frame = w->nframes;
}

/* Notes that the event's frames from the line's on came from the line
 * cache's entry e. */
static void chain(fg_cworker *w, struct perf_event *ev, const fg_cline *e)
{
	if (FG_ALLOC_GROW(w->chain, w->nchain + 1, w->achain, 64)) {
		w->error = FG_ENOMEM;
		return;
	}
	w->chain[w->nchain++] = e->id;
	ev->cached += e->nframes;
}

/* Pushes the frames a line gave before (its entry in the line cache). */
static void replay(fg_cworker *w, struct perf_event *ev, const fg_cline *e)
{
	if (FG_ALLOC_GROW(w->frames, w->nframes + e->nframes, w->aframes, 64)) {
		w->error = FG_ENOMEM;
		return;
	}
	if (e->nframes) /* else e->frames may be NULL */
		memcpy(w->frames + w->nframes, e->frames, e->nframes * sizeof(*e->frames));
	w->nframes += e->nframes;
	ev->line_frame = e->flags & FG_CLINE_NOFRAME ? 0 : w->nframes;
	chain(w, ev, e);
}

/* Remembers what the line whose rest (after the address) is key pushed
 * from frames[first] on, unless it pushed a name cut short (the cut is
 * warned about at each line). */
static void remember(fg_cworker *w, struct perf_event *ev, fg_view key, uint64_t hash,
		     unsigned flags, size_t first)
{
	const fg_cline *e;
	size_t i;

	if (w->error)
		return;
	for (i = first; i < w->nframes; i++)
		if (w->frames[i].truncated)
			return;
	if (ev->line_frame == 0)
		flags |= FG_CLINE_NOFRAME;
	/* (w->frames may still be NULL when the line pushed nothing) */
	if (fg_clines_add(&w->clines, key, hash, flags, w->nframes > first ? w->frames + first : NULL,
			  w->nframes - first, &e))
		w->error = FG_ENOMEM;
	else if (e)
		chain(w, ev, e);
}

/* A line not in the line cache (split_address found pc and rest in it,
 * or not: has_rest). */
static __attribute__((noinline)) void
new_line(fg_cworker *w, const fg_cshared *sh, struct perf_event *ev, fg_view line, bool has_rest,
	 fg_view pc, fg_view rest, bool cache, unsigned flags, uint64_t hash, uint64_t seq,
	 uint64_t lineno)
{
	fg_view func, mod, file, at;
	size_t first = w->nframes;
	bool bare;

	if (!has_rest || !split_rest(pc, rest, &func, &mod, &bare)) {
		if (srcline_split(line, &file, &at))
			srcline(w, sh, ev, file, at);
		else
			fg_cworker_warn(w, FG_CWARN_STACK, seq, lineno);
		return;
	}
	ev->line_frame = 0;
	func = strip_offset(func);
	if (func.ptr[0] != '(') /* else a process name, not a frame */
		frame(w, sh, ev, pc, func, mod);
	if (cache)
		remember(w, ev, rest, hash, flags | (bare ? FG_CLINE_HEX_PC : 0), first);
}

/* A stack line's frames, from the line cache when the same text after
 * the address was read before. What a line gives depends on that text,
 * the event's java flag and the options; the address counts only for
 * the form without a module (it must be hex: FG_CLINE_HEX_PC) and with
 * include_addrs, and skip_after changes the event's state: with those
 * two options the cache is not used. Inline in the parser's loop: most
 * lines end here. */
static inline __attribute__((always_inline)) void
stack_line(fg_cworker *w, const fg_cshared *sh, struct perf_event *ev, fg_view line, uint64_t seq,
	   uint64_t lineno)
{
	fg_view pc, rest;
	const fg_cline *e;
	bool cache = !w->clines.off && !sh->opts.include_addrs && !sh->opts.nskip_after;
	bool has_rest = split_address(line, &pc, &rest);
	unsigned flags = ev->java ? FG_CLINE_JAVA : 0;
	uint64_t hash = 0;

	cache = cache && has_rest;
	if (cache) {
		e = fg_clines_find(&w->clines, rest, flags, &hash);
		if (e && (!(e->flags & FG_CLINE_HEX_PC) || is_address(pc))) {
			replay(w, ev, e);
			return;
		}
	}
	new_line(w, sh, ev, line, has_rest, pc, rest, cache, flags, hash, seq, lineno);
}

static bool set_pname(fg_cworker *w, const fg_cshared *sh, const struct perf_header *h)
{
	fg_strbuf *sb = &w->pname;
	size_t i;
	int err = 0;

	fg_strbuf_reset(sb);
	if ((err = fg_strbuf_add(sb, h->comm.ptr, h->comm.len)))
		goto done;
	for (i = 0; i < sb->len; i++)
		if (sb->buf[i] == ' ')
			sb->buf[i] = '_';
	if (sh->opts.include_pid || sh->opts.include_tid) {
		err |= fg_strbuf_addch(sb, '-');
		if (h->pid.len)
			err |= fg_strbuf_add(sb, h->pid.ptr, h->pid.len);
		else
			err |= fg_strbuf_addch(sb, '?');
	}
	if (sh->opts.include_tid) {
		err |= fg_strbuf_addch(sb, '/');
		err |= fg_strbuf_add(sb, h->tid.ptr, h->tid.len);
	} else if (sh->opts.per_thread && !sh->opts.include_pid) {
		err |= fg_strbuf_addch(sb, '-');
		err |= fg_strbuf_add(sb, h->tid.ptr, h->tid.len);
	}
	if (!err && sb->len > FG_CMAX_FRAME) {
		/* the process is the root frame: same cap as any frame */
		fg_strbuf_setlen(sb, fg_utf8_cut(sb->buf, sb->len, FG_CMAX_FRAME -
						 (sizeof(FG_COLLAPSE_TRUNCATED) - 1)));
		err = fg_strbuf_addstr(sb, FG_COLLAPSE_TRUNCATED);
		fg_cworker_warn(w, FG_CWARN_LONGNAME, w->seq, w->lineno);
	}
done:
	if (err)
		w->error = FG_ENOMEM;
	return !err;
}

static bool event_matches(const fg_cshared *sh, const struct perf_header *h)
{
	fg_view want = fg_view_of(sh->event, sh->event_len);

	if (!sh->event || !h->event_full.len)
		return true;
	return (h->event.len == want.len && !memcmp(h->event.ptr, want.ptr, want.len)) ||
	       (h->event_full.len == want.len && !memcmp(h->event_full.ptr, want.ptr, want.len));
}

static void end_event(fg_cworker *w, struct perf_event *ev);

static void header_line(fg_cworker *w, const fg_cshared *sh, struct perf_event *ev,
			fg_view line, uint64_t seq, uint64_t lineno)
{
	struct perf_header h;
	fg_view rest;

	memset(&h, 0, sizeof(h));
	ev->in_event = true;
	if (!split_comm(line, &h, &rest)) {
		fg_cworker_warn(w, FG_CWARN_EVENT, seq, lineno);
		ev->skip = true;
		return;
	}
	parse_event(rest, &h);
	if (!event_matches(sh, &h)) {
		ev->skip = true;
		w->filtered++;
		return;
	}
	if (h.period_overflow) {
		/* counting it as 1 (no period) would be silently wrong */
		fg_cworker_warn(w, FG_CWARN_PERIOD, seq, lineno);
		ev->skip = true;
		return;
	}
	ev->count = h.period ? h.period : 1;
	ev->java = fg_view_eq(h.comm, "java");
	if (!set_pname(w, sh, &h))
		ev->skip = true;
	else if (h.inline_frame.len) {
		/* a one-frame stack printed on the header line: the event is
		 * complete (the next line may be the next header) */
		stack_line(w, sh, ev, h.inline_frame, seq, lineno);
		end_event(w, ev);
	}
}

/* Counts the event's stack through the stack cache when all its frames
 * came from the line cache as they were; false when they did not. */
static bool emit_cached(fg_cworker *w, struct perf_event *ev)
{
	fg_view pname = fg_view_of(w->pname.buf, w->pname.len);
	const fg_strmap_entry *added;
	const fg_cstack *s;
	fg_strmap_entry *e;
	uint64_t hash;

	if (ev->cached != w->nframes || ev->changed || ev->skip_rest || w->keep_order ||
	    w->replace)
		return false;
	hash = fg_cstacks_hash(pname, w->chain, w->nchain);
	s = fg_cstacks_find(&w->cstacks, hash, pname, w->chain, w->nchain);
	if (s && (e = fg_strmap_find_stored(&w->map, s->key, s->key_hash))) {
		if (!fg_add_count(&e->value.u, ev->count))
			fg_cworker_warn(w, FG_CWARN_SATURATED, w->seq, w->lineno);
		return true;
	}
	added = fg_cworker_emit(w, pname.ptr, pname.len, ev->count);
	if (added && !s && fg_cstacks_add(&w->cstacks, hash, pname, w->chain, w->nchain, added))
		w->error = FG_ENOMEM;
	return true;
}

static void end_event(fg_cworker *w, struct perf_event *ev)
{
	if (ev->in_event && !ev->skip) {
		/* a --skip-after frame starts the stack: no process frame
		 * above it either, as inferno's --skip-after */
		if (!emit_cached(w, ev))
			fg_cworker_emit(w, w->pname.buf, ev->skip_rest ? 0 : w->pname.len,
					ev->count);
		w->samples++;
	}
	w->nframes = 0;
	w->nchain = 0;
	fg_clines_new_event(&w->clines);
	memset(ev, 0, sizeof(*ev));
}

/* Parses the lines of buf[0..len); *lineno counts them. */
static void parse_span(fg_cworker *w, const fg_cshared *sh, const char *buf, size_t len,
		       uint64_t seq, uint64_t *lineno_io)
{
	const char *p = buf, *end = buf + len, *nl;
	struct perf_event ev;
	bool dirty;
	uint64_t lineno = *lineno_io;
	struct lines it;
	fg_view line;

	memset(&ev, 0, sizeof(ev));
	w->nframes = 0;
	w->nchain = 0;
	fg_clines_new_event(&w->clines);
	lines_init(&it, buf, len);
	while (p < end) {
		nl = lines_next(&it, p, &dirty);
		line = fg_view_of(p, (size_t)((nl ? nl : end) - p));
		p = nl ? nl + 1 : end;
		w->lineno = ++lineno;
		if (line.len > FG_CMAX_LINE) {
			/* the collapser keeps just enough of such a line to tell */
			fg_cworker_warn(w, FG_CWARN_LONGLINE, seq, lineno);
			ev.in_event = ev.skip = true;
			continue;
		}
		if (line.len && line.ptr[0] == '#')
			continue;
		if (dirty)
			line = fg_cworker_clean_line(w, line, seq, lineno);
		line = trim_end(line);
		if (!line.len)
			end_event(w, &ev);
		else if (!ev.in_event)
			header_line(w, sh, &ev, line, seq, lineno);
		else if (!ev.skip && !ev.skip_rest)
			stack_line(w, sh, &ev, line, seq, lineno);
	}
	/* A chunk ends at an empty line or at the end of the input, where a
	 * last event without its empty line still counts. */
	end_event(w, &ev);
	*lineno_io = lineno;
}

/* The end of the stretch of base[from..len) up to the first stateless
 * point (as fg_perf_boundary sees them), or len. */
static size_t region_end(const char *base, size_t from, size_t len)
{
	const char *p = base + from, *end = base + len, *q;

	while ((q = memchr(p, '\n', (size_t)(end - p)))) {
		if ((q > base && q[-1] == '\n') || (q > base + 1 && q[-1] == '\r' && q[-2] == '\n'))
			return (size_t)(q - base) + 1;
		p = q + 1;
	}
	return len;
}

void fg_perf_parse(fg_cworker *w, const fg_cshared *sh, const char *buf, size_t len,
		   uint64_t seq, bool dropped, uint64_t *nlines)
{
	size_t off, e;

	w->seq = seq;
	fg_cstacks_chunk(&w->cstacks, fg_clines_chunk(&w->clines));
	/* Only a chunk longer than the cap can hold a stack over it. */
	if (!dropped && len <= FG_CMAX_STACK) {
		parse_span(w, sh, buf, len, seq, nlines);
		return;
	}
	/* Whether a stack is too big must not depend on where the collapser
	 * happened to cut its input: the same rule here, on whole stretches
	 * between stateless points, as the collapser's while reading. */
	for (off = 0; off < len; off = e) {
		e = region_end(buf, off, len);
		if ((dropped && !off) || e - off > FG_CMAX_STACK)
			fg_cworker_skip_too_big(w, buf + off, e - off, nlines, dropped && !off);
		else
			parse_span(w, sh, buf + off, e - off, seq, nlines);
	}
}

size_t fg_perf_boundary(const char *buf, size_t from, size_t len)
{
	const char *lo = buf + (from ? from - 1 : 0), *hi = buf + len, *q;

	while ((q = fg_last_nl(lo, hi))) {
		if (q > buf && q[-1] == '\n')
			return (size_t)(q - buf) + 1;
		if (q > buf + 1 && q[-1] == '\r' && q[-2] == '\n')
			return (size_t)(q - buf) + 1;
		hi = q;
	}
	return 0;
}

static fg_view first_event_in(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	bool in_event = false;
	struct perf_header h;
	fg_view line, rest;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		line = fg_view_of(p, (size_t)((nl ? nl : end) - p));
		p = nl ? nl + 1 : end;
		if (line.len > FG_CMAX_LINE) {
			/* as the parser: skipped with its event (the collapser may
			 * have cut it, so what it holds must not count) */
			in_event = true;
			continue;
		}
		line = trim_end(line);
		if (line.len && line.ptr[0] == '#')
			continue;
		if (!line.len) {
			in_event = false;
			continue;
		}
		if (in_event)
			continue;
		in_event = true;
		memset(&h, 0, sizeof(h));
		if (!split_comm(line, &h, &rest))
			continue;
		parse_event(rest, &h);
		if (h.event_full.len)
			return h.event;
		if (h.inline_frame.len)
			in_event = false; /* as header_line: the event ends here */
	}
	return fg_view_of(NULL, 0);
}

fg_view fg_perf_first_event(const char *buf, size_t len, bool dropped)
{
	size_t off, e;
	fg_view ev;

	if (!dropped && len <= FG_CMAX_STACK)
		return first_event_in(buf, len);
	/* stacks the parser skips as too big must not decide it either */
	for (off = 0; off < len; off = e) {
		e = region_end(buf, off, len);
		if ((dropped && !off) || e - off > FG_CMAX_STACK)
			continue;
		if ((ev = first_event_in(buf + off, e - off)).ptr)
			return ev;
	}
	return fg_view_of(NULL, 0);
}

/* ---- samples handed over as data ---- */

static size_t dec_text(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		p[i++] = tmp[--n];
	return i;
}

static size_t hex_text(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0, i = 0;

	do
		tmp[n++] = hex[v & 15];
	while ((v >>= 4));
	while (n)
		p[i++] = tmp[--n];
	return i;
}

static fg_view cstr(const char *s)
{
	return fg_view_of(s, strlen(s));
}

/* What the lines of the sample's text (fg_sample_text) give, without the
 * text: the header's parts, each frame line's address, symbol (without
 * the offset the text adds) and module, each source line's FILE and
 * LINE. The sample is plain (fg_perf_sample_plain), so they are exactly
 * what the parser would split out of those lines. */
void fg_perf_fold_sample(fg_cworker *w, const fg_cshared *sh, const fg_sample *s, uint64_t seq,
			 uint64_t *lineno_io)
{
	struct perf_event ev;
	struct perf_header h;
	char pid[20], tid[20], pc[16], at[20];
	uint64_t lineno = *lineno_io;
	size_t i;

	memset(&ev, 0, sizeof(ev));
	memset(&h, 0, sizeof(h));
	w->nframes = 0;
	w->nchain = 0;
	w->seq = seq;
	w->lineno = ++lineno;
	ev.in_event = true;
	h.comm = cstr(s->comm);
	h.pid = fg_view_of(pid, dec_text(pid, (uint64_t)s->pid));
	h.tid = fg_view_of(tid, dec_text(tid, (uint64_t)s->tid));
	h.event_full = cstr(s->event);
	h.event = fg_view_of(s->event, strcspn(s->event, ":"));
	h.period = s->period;
	if (!event_matches(sh, &h)) {
		ev.skip = true;
		w->filtered++;
	} else {
		ev.count = h.period ? h.period : 1;
		ev.java = fg_view_eq(h.comm, "java");
		if (!set_pname(w, sh, &h))
			ev.skip = true;
	}
	for (i = 0; i < s->nframes; i++) {
		const fg_sample_frame *f = &s->frames[i];
		w->lineno = ++lineno;
		if (!ev.skip && !ev.skip_rest) {
			fg_view mod = f->inlined ? fg_view_of("inlined", 7)
				      : f->module ? cstr(f->module)
						  : fg_view_of("[unknown]", 9);
			ev.line_frame = 0;
			frame(w, sh, &ev, fg_view_of(pc, hex_text(pc, f->addr)),
			      f->sym ? cstr(f->sym) : fg_view_of("[unknown]", 9), mod);
		}
		if (!f->file)
			continue;
		w->lineno = ++lineno;
		if (!ev.skip && !ev.skip_rest) {
			fg_view file = cstr(f->file);
			const char *slash = find_last(file.ptr, file.len, '/');
			if (!f->line || fg_view_eq(file, "??"))
				file = fg_view_of("", 0);
			else if (slash)
				file = fg_view_of(slash + 1, (size_t)(file.ptr + file.len - slash - 1));
			srcline(w, sh, &ev, file, fg_view_of(at, dec_text(at, f->line)));
		}
	}
	w->lineno = ++lineno; /* the empty line */
	end_event(w, &ev);
	*lineno_io = lineno;
}
