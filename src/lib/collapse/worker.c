/* Per-thread parser state shared by the perf and DTrace parsers: the
 * frame list of the current stack, the stack map and bad-line counts. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/collapse/internal.h"
#include "util/banned.h"

static const struct {
	const char *text;
	size_t len;
} suffixes[] = {
	{ "", 0 }, { "_[k]", 4 }, { "_[j]", 4 }, { "_[i]", 4 },
};

void fg_cworker_init(fg_cworker *w)
{
	memset(w, 0, sizeof(*w));
	fg_strbuf_init(&w->key, 0);
	fg_strbuf_init(&w->pname, 0);
	fg_strbuf_init(&w->order, 0);
	w->last = SIZE_MAX;
}

void fg_cworker_release(fg_cworker *w)
{
	fg_strmap_release(&w->map);
	fg_strbuf_release(&w->key);
	fg_strbuf_release(&w->pname);
	fg_strbuf_release(&w->order);
	fg_arena_release(&w->arena);
	fg_clines_release(&w->clines);
	fg_cstacks_release(&w->cstacks);
	free(w->chain);
	w->chain = NULL;
	w->nchain = w->achain = 0;
	free(w->frames);
	w->frames = NULL;
	w->nframes = w->aframes = 0;
}

void fg_cworker_warn(fg_cworker *w, int kind, uint64_t seq, uint64_t line)
{
	if (!w->warn_count[kind]++ || seq < w->warn_seq[kind] ||
	    (seq == w->warn_seq[kind] && line < w->warn_line[kind])) {
		w->warn_seq[kind] = seq;
		w->warn_line[kind] = line;
	}
}

void fg_cworker_skip_too_big(fg_cworker *w, const char *buf, size_t len, uint64_t *lineno,
			     bool rest)
{
	const char *p = buf, *end = buf + len;

	fg_cworker_warn(w, FG_CWARN_BIGSTACK, w->seq, rest ? 1 : *lineno + 1);
	for (; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		++*lineno;
	if (len && end[-1] != '\n')
		++*lineno; /* a last line without its newline */
}

const char *fg_last_nl(const char *lo, const char *hi)
{
	size_t win = 256;
	const char *q;

	while (hi > lo) {
		const char *from = (size_t)(hi - lo) > win ? hi - win : lo;
		if ((q = memrchr(from, '\n', (size_t)(hi - from))))
			return q;
		hi = from;
		if (win < ((size_t)1 << 20))
			win *= 2;
	}
	return NULL;
}

size_t fg_utf8_cut(const char *buf, size_t len, size_t cap)
{
	size_t n;

	if (len <= cap)
		return len;
	/* back up over continuation bytes to the start of the character that
	 * straddles the cut (at most 3 of them in valid UTF-8) */
	for (n = cap; n > 0 && cap - n < 4 && ((unsigned char)buf[n] & 0xc0) == 0x80; n--)
		;
	return cap - n < 4 ? n : cap;
}

bool fg_cworker_push(fg_cworker *w, const char *ptr, size_t len, int suffix)
{
	bool truncated = false;
	fg_cframe *f;

	size_t extra = suffixes[suffix & 0x0f].len;

	if (FG_ALLOC_GROW(w->frames, w->nframes + 1, w->aframes, 64)) {
		w->error = FG_ENOMEM;
		return false;
	}
	if (len + extra > FG_CMAX_FRAME) {
		/* a name this long is garbage or an attack; a graph can show
		 * neither, and keeping it whole would let one line blow up every
		 * key it is part of */
		len = fg_utf8_cut(ptr, len, FG_CMAX_FRAME - extra - (sizeof(FG_COLLAPSE_TRUNCATED) - 1));
		truncated = true;
		fg_cworker_warn(w, FG_CWARN_LONGNAME, w->seq, w->lineno);
	}
	f = &w->frames[w->nframes++];
	f->ptr = ptr;
	f->len = (uint32_t)len;
	f->suffix = (uint8_t)(suffix & 0x0f);
	f->semi = (suffix & FG_FRAME_SEMI) != 0;
	f->truncated = truncated;
	return true;
}

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Copies n bytes, ';' made ':': ';' separates frames, so one inside a
 * name (Java's "Ljava/lang/Object;") must not. A third of the frames of a
 * Java profile have one: done 16 bytes at a time while copying (reading
 * back what memcpy just wrote stalls on store forwarding). */
static inline void copy_semi_to_colon(char *dst, const char *src, size_t n)
{
#ifdef __SSE2__
	if (n >= 16) {
		const __m128i semi = _mm_set1_epi8(';'), colon = _mm_set1_epi8(':');
		size_t i, at;
		for (i = 0;; i += 16) {
			/* the last block overlaps the one before: same bytes again */
			at = i + 16 <= n ? i : n - 16;
			__m128i v = _mm_loadu_si128((const __m128i *)(src + at));
			__m128i m = _mm_cmpeq_epi8(v, semi);
			v = _mm_or_si128(_mm_andnot_si128(m, v), _mm_and_si128(m, colon));
			_mm_storeu_si128((__m128i *)(dst + at), v);
			if (i + 16 >= n)
				break;
		}
		return;
	}
#endif
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i] == ';' ? ':' : src[i];
}

/* Appends "stack COUNT" to the input-order records, or adds COUNT to the
 * last record when it holds the same stack. */
static void record_in_order(fg_cworker *w, const char *key, size_t len, uint64_t count)
{
	fg_strbuf *o = &w->order;
	uint64_t c;
	uint32_t n = (uint32_t)len;

	if (w->last != SIZE_MAX) {
		memcpy(&n, o->buf + w->last + 8, 4);
		if (n == len && !memcmp(o->buf + w->last + 12, key, len)) {
			memcpy(&c, o->buf + w->last, 8);
			fg_add_count(&c, count);
			memcpy(o->buf + w->last, &c, 8);
			return;
		}
	}
	n = (uint32_t)len;
	if (fg_strbuf_grow(o, 12 + len)) {
		w->error = FG_ENOMEM;
		return;
	}
	w->last = o->len;
	memcpy(o->buf + o->len, &count, 8);
	memcpy(o->buf + o->len + 8, &n, 4);
	memcpy(o->buf + o->len + 12, key, len);
	o->len += 12 + len; /* filled in place after fg_strbuf_grow */
}

const fg_strmap_entry *fg_cworker_emit(fg_cworker *w, const char *prefix, size_t plen,
				       uint64_t count)
{
	fg_strbuf *k = &w->key;
	size_t total = plen, i;
	fg_strmap_entry *e;
	char *p;

	for (i = 0; i < w->nframes; i++)
		total += 1 + w->frames[i].len + suffixes[w->frames[i].suffix].len +
			 (w->frames[i].truncated ? sizeof(FG_COLLAPSE_TRUNCATED) - 1 : 0);
	fg_strbuf_reset(k);
	if (fg_strbuf_grow(k, total)) {
		w->error = FG_ENOMEM;
		return NULL;
	}
	p = k->buf;
	memcpy(p, prefix, plen);
	p += plen;
	/* Frames were collected leaf first; folded stacks are root first. A
	 * stack without a prefix (DTrace) has no leading ';'. */
	for (i = w->nframes; i-- > 0;) {
		const fg_cframe *f = &w->frames[i];
		if (p != k->buf)
			*p++ = ';';
		if (f->semi)
			copy_semi_to_colon(p, f->ptr, f->len);
		else
			memcpy(p, f->ptr, f->len);
		p += f->len;
		if (f->truncated) {
			memcpy(p, FG_COLLAPSE_TRUNCATED, sizeof(FG_COLLAPSE_TRUNCATED) - 1);
			p += sizeof(FG_COLLAPSE_TRUNCATED) - 1;
		}
		memcpy(p, suffixes[f->suffix].text, suffixes[f->suffix].len);
		p += suffixes[f->suffix].len;
	}
	k->len = (size_t)(p - k->buf); /* filled in place after fg_strbuf_grow */
	if (!k->len)
		return NULL;
	e = fg_strmap_put_hashed(&w->map, k->buf, k->len, fg_hash_bytes(k->buf, k->len));
	if (!e) {
		w->error = FG_ENOMEM;
		return NULL;
	}
	if (w->replace)
		e->value.u = count;
	else if (!fg_add_count(&e->value.u, count))
		fg_cworker_warn(w, FG_CWARN_SATURATED, w->seq, w->lineno);
	if (w->keep_order)
		record_in_order(w, k->buf, k->len, count);
	return e;
}

static inline bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static const struct {
	const char *esc;
	char c;
} rust_escapes[] = {
	{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
	{ "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* DTrace prints Rust's legacy symbols half demangled:
 * "_$LT$alloc..vec..Vec$LT$T$GT$$GT$::from::hf1c5bb9dd6c517cb". When the
 * trailing hash is there, finish the job: drop the hash, decode the
 * "$..$" escapes and ".." path separators. */
fg_view fg_cworker_fix_rust(fg_cworker *w, fg_view f)
{
	const char *p, *end;
	char *out, *o;
	size_t i;

	if (f.len < 19 || memcmp(f.ptr + f.len - 19, "::h", 3))
		return f;
	for (i = f.len - 16; i < f.len; i++)
		if (!is_lower_hex(f.ptr[i]))
			return f;
	f.len -= 19;
	if (!(out = fg_arena_alloc(&w->arena, f.len ? f.len : 1))) {
		w->error = FG_ENOMEM;
		return f;
	}
	o = out;
	p = f.ptr;
	end = f.ptr + f.len;
	while (p < end) {
		bool at_start = p == f.ptr || p[-1] == '`';
		size_t k;
		if (at_start && *p == '_' && p + 1 < end && p[1] == '$') {
			p++;
			continue;
		}
		if (*p == '.' && p + 1 < end && p[1] == '.') {
			*o++ = ':';
			*o++ = ':';
			p += 2;
			continue;
		}
		if (*p == '$') {
			for (k = 0; k < sizeof(rust_escapes) / sizeof(rust_escapes[0]); k++) {
				size_t n = strlen(rust_escapes[k].esc);
				if ((size_t)(end - p) >= n && !memcmp(p, rust_escapes[k].esc, n)) {
					*o++ = rust_escapes[k].c;
					p += n;
					break;
				}
			}
			if (k < sizeof(rust_escapes) / sizeof(rust_escapes[0]))
				continue;
			if (end - p >= 5 && p[1] == 'u' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0 &&
			    p[4] == '$') {
				*o++ = (char)(hexval(p[2]) * 16 + hexval(p[3]));
				p += 5;
				continue;
			}
		}
		*o++ = *p++;
	}
	return fg_view_of(out, (size_t)(o - out));
}

bool fg_bytes_plain(const char *buf, size_t len)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t acc = 0, v;
	size_t i = 0;

#ifdef __SSE2__
	{
		const __m128i zero = _mm_setzero_si128();
		__m128i bad = zero;
		for (; i + 64 <= len; i += 64) {
			__m128i a = _mm_loadu_si128((const __m128i *)(buf + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(buf + i + 16));
			__m128i c = _mm_loadu_si128((const __m128i *)(buf + i + 32));
			__m128i d = _mm_loadu_si128((const __m128i *)(buf + i + 48));
			/* high bits (>= 0x80) and zero bytes both end up in bit 7 */
			bad = _mm_or_si128(bad, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
			bad = _mm_or_si128(bad, _mm_or_si128(
				_mm_or_si128(_mm_cmpeq_epi8(a, zero), _mm_cmpeq_epi8(b, zero)),
				_mm_or_si128(_mm_cmpeq_epi8(c, zero), _mm_cmpeq_epi8(d, zero))));
		}
		if (_mm_movemask_epi8(bad))
			return false;
	}
#endif
	for (; i + 8 <= len; i += 8) {
		memcpy(&v, buf + i, 8);
		/* a high bit, or a zero byte (the classic haszero trick) */
		acc |= (((v - ones) & ~v) | v) & highs;
	}
	if (acc)
		return false;
	for (; i < len; i++)
		if (!buf[i] || (unsigned char)buf[i] >= 0x80)
			return false;
	return true;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1;
	else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < need + 1 || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i <= need; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return need + 1;
}

fg_view fg_cworker_clean_line(fg_cworker *w, fg_view line, uint64_t seq, uint64_t lineno)
{
	const unsigned char *s = (const unsigned char *)line.ptr;
	bool nul = false, bad = false;
	size_t i = 0, n, out_len = 0, cap;
	char *out;

	while (i < line.len) {
		n = s[i] ? utf8_seq(s + i, line.len - i) : 0;
		if (!n)
			*(s[i] ? &bad : &nul) = true;
		i += n ? n : 1;
	}
	if (!nul && !bad)
		return line;
	if (nul)
		fg_cworker_warn(w, FG_CWARN_NUL, seq, lineno);
	if (bad)
		fg_cworker_warn(w, FG_CWARN_UTF8, seq, lineno);
	if (!fg_mul_size(line.len, 3, &cap) || !(out = fg_arena_alloc(&w->arena, cap ? cap : 1))) {
		w->error = FG_ENOMEM;
		return fg_view_of(line.ptr, 0);
	}
	for (i = 0; i < line.len; i += n) {
		n = s[i] ? utf8_seq(s + i, line.len - i) : 0;
		if (n) {
			memcpy(out + out_len, s + i, n);
			out_len += n;
		} else {
			memcpy(out + out_len, "\xef\xbf\xbd", 3);
			out_len += 3;
			n = 1;
		}
	}
	return fg_view_of(out, out_len);
}
