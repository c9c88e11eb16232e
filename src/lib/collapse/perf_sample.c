/* Samples handed over as data (fg_collapser_add_sample): the text perf
 * script prints for one, and whether the parser's reading of that text
 * can be had without making it.
 *
 * The text, with the PID beside the TID as `perf script -F +pid`:
 *
 *   COMM PID/TID PERIOD EVENT:
 *   \tADDR SYMBOL (MODULE)
 *     FILE:LINE[ (inlined)]       (under a frame whose file is known)
 *   ...
 *   (empty line)
 *
 * A sample is plain when every name in it is printable ASCII and the
 * parser would split each of its lines back into the very parts it was
 * made of (fg_perf_sample_plain says which rule each check stands for);
 * fg_perf_fold_sample (perf.c) then folds the parts themselves. Any other
 * sample goes through its text, so the two roads always meet. */
#include <string.h>

#include "lib/collapse/internal.h"
#include "util/banned.h"

static size_t dec_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static size_t hex_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 16) {
		v >>= 4;
		n++;
	}
	return n;
}

static bool is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* perf script prints "+0xOFFSET" after every symbol; the parser trims
 * white space off a symbol's end and then drops one "+0xHEX". A name
 * ending in either (a JIT's names can) comes out as perf script's only
 * with an offset after it. */
static bool needs_offset(const char *sym, size_t len)
{
	char c = len ? sym[len - 1] : 'x';

	if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f')
		return true;
	while (len && is_hex_digit(sym[len - 1]))
		len--;
	return len >= 3 && !memcmp(sym + len - 3, "+0x", 3);
}

#define ONES 0x0101010101010101u
#define HIGHS 0x8080808080808080u

/* The bytes of w that are not printable ASCII (below 0x20, or 0x7f and
 * up) or, with no_space, are a space, as their high bits; the sums of
 * the low seven bits never carry into the next byte. */
static uint64_t unprintable(uint64_t w, bool no_space)
{
	uint64_t low = w & ~HIGHS;
	uint64_t bad = w | ((low + ONES) & HIGHS) | ~(low + 0x60 * ONES);

	if (no_space) {
		uint64_t x = w ^ 0x20 * ONES;
		bad |= ~(((x & ~HIGHS) + 0x7f * ONES) | x);
	}
	return bad & HIGHS;
}

/* Printable ASCII (no tab, newline or other control byte, nothing the
 * parser would clean), and, with no_space, no space; its length in *len.
 * Eight bytes are looked at a time. */
static bool plain(const char *s, bool no_space, size_t *len)
{
	size_t n = strlen(s), i = 0;
	uint64_t w;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		if (unprintable(w, no_space))
			return false;
	}
	if (i < n) {
		w = 0x41 * ONES; /* "A": printable, not a space */
		memcpy(&w, s + i, n - i);
		if (unprintable(w, no_space))
			return false;
	}
	*len = n;
	return n > 0 && n <= FG_CMAX_LINE / 4;
}

/* True when every byte of s is one of chars. */
static bool only(const char *s, const char *chars)
{
	return s[strspn(s, chars)] == '\0';
}

bool fg_perf_sample_plain(const fg_sample *s, uint64_t *text_len)
{
	size_t len, i, mod_len = 0;
	const char *mod = NULL; /* the module looked at last, mod_len long */
	uint64_t total;

	/* the header: the command is the first word, which is not a PID/TID
	 * word, and not a comment; the event is one word that is neither a
	 * time stamp nor a CPU */
	if (s->pid < 0 || s->tid < 0 || !plain(s->comm, true, &len) || s->comm[0] == '#' ||
	    only(s->comm, "0123456789/"))
		return false;
	total = len + 1 + dec_len((uint64_t)s->pid) + 1 + dec_len((uint64_t)s->tid) + 1 +
		dec_len(s->period) + 1;
	if (!plain(s->event, true, &len) || s->event[0] == '[' || only(s->event, "0123456789."))
		return false;
	total += len + 2;
	for (i = 0; i < s->nframes; i++) {
		const fg_sample_frame *f = &s->frames[i];
		/* the symbol: trimmed at its start by the parser, and a "(" there
		 * would make the frame a process name */
		if (f->sym) {
			if (!plain(f->sym, false, &len) || f->sym[0] == ' ' || f->sym[0] == '(')
				return false;
			total += len + (needs_offset(f->sym, len) ? 4 : 0);
		} else {
			total += 9;
		}
		/* the module: the last word of the line */
		if (f->inlined)
			len = 7;
		else if (!f->module)
			len = 9;
		else if (f->module == mod)
			len = mod_len; /* the frames of a module share its name */
		else if (!plain(f->module, true, &len))
			return false;
		if (f->module && !f->inlined) {
			mod = f->module;
			mod_len = len;
		}
		total += 1 + hex_len(f->addr) + 1 + 2 + len + 2;
		/* the source line: one word FILE:LINE whose file has a name */
		if (f->file) {
			if (!plain(f->file, true, &len) || f->file[len - 1] == '/')
				return false;
			total += 2 + len + 1 + dec_len(f->line) + (f->inlined ? 10 : 0) + 1;
		}
	}
	total += 1;
	if (total > FG_CMAX_STACK / 2)
		return false;
	*text_len = total;
	return true;
}

static int add_dec(fg_strbuf *b, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		fg_strbuf_addch(b, tmp[--n]);
	return fg_strbuf_check(b);
}

static int add_signed(fg_strbuf *b, int32_t v)
{
	if (v < 0) {
		fg_strbuf_addch(b, '-');
		return add_dec(b, (uint64_t)-(int64_t)v);
	}
	return add_dec(b, (uint64_t)v);
}

int fg_sample_text(fg_strbuf *b, const fg_sample *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	fg_strbuf_addstr(b, s->comm);
	fg_strbuf_addch(b, ' ');
	add_signed(b, s->pid);
	fg_strbuf_addch(b, '/');
	add_signed(b, s->tid);
	fg_strbuf_addch(b, ' ');
	add_dec(b, s->period);
	fg_strbuf_addch(b, ' ');
	fg_strbuf_addstr(b, s->event);
	fg_strbuf_addstr(b, ":\n");
	for (i = 0; i < s->nframes; i++) {
		const fg_sample_frame *f = &s->frames[i];
		char tmp[16];
		int n = 0;
		uint64_t a = f->addr;

		fg_strbuf_addch(b, '\t');
		do
			tmp[n++] = hex[a & 15];
		while ((a >>= 4));
		while (n)
			fg_strbuf_addch(b, tmp[--n]);
		fg_strbuf_addch(b, ' ');
		fg_strbuf_addstr(b, f->sym ? f->sym : "[unknown]");
		if (f->sym && needs_offset(f->sym, strlen(f->sym)))
			fg_strbuf_addstr(b, "+0x0");
		fg_strbuf_addstr(b, " (");
		fg_strbuf_addstr(b, f->inlined ? "inlined" : f->module ? f->module : "[unknown]");
		fg_strbuf_addstr(b, ")\n");
		if (f->file) {
			fg_strbuf_addstr(b, "  ");
			fg_strbuf_addstr(b, f->file);
			fg_strbuf_addch(b, ':');
			add_dec(b, f->line);
			if (f->inlined)
				fg_strbuf_addstr(b, " (inlined)");
			fg_strbuf_addch(b, '\n');
		}
	}
	fg_strbuf_addch(b, '\n');
	return fg_strbuf_check(b);
}
