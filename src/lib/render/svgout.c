#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "flamegraph/error.h"
#include "svgout.h"
#include "util/banned.h"

void fg_svgout_flush(fg_svgout *o)
{
	if (!o->err && o->buf.len &&
	    fwrite(o->buf.buf, 1, o->buf.len, o->out) != o->buf.len)
		o->err = fg_error_set(FG_EIO, "could not write the SVG: %s", strerror(errno));
	fg_strbuf_reset(&o->buf);
}

char *fg_svgout_room_slow(fg_svgout *o, size_t n)
{
	if (o->err)
		return NULL;
	if (o->buf.alloc - o->buf.len < n + 1) {
		if (o->buf.len >= FG_SVGOUT_FLUSH)
			fg_svgout_flush(o);
		if (fg_strbuf_grow(&o->buf, n + FG_SVGOUT_FLUSH)) {
			o->err = FG_ENOMEM;
			return NULL;
		}
	}
	return o->buf.buf + o->buf.len;
}

static const char two_digits[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Writes v's digits to end backwards; returns where they start. */
static char *digits_back(char *end, uint64_t v)
{
	while (v >= 100) {
		end -= 2;
		memcpy(end, two_digits + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, two_digits + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* Copies the few bytes [from, end) to p: a loop, not a call. */
static char *put_short(char *p, const char *from, const char *end)
{
	while (from < end)
		*p++ = *from++;
	return p;
}

/* n's last k digits (k <= 6), leading zeros kept, at p. */
static char *put_decimals(char *p, uint64_t n, int k)
{
	for (int d = k - 1; d >= 0; d--) {
		p[d] = (char)('0' + n % 10);
		n /= 10;
	}
	return p + k;
}

char *fg_put_u64(char *p, uint64_t v)
{
	char tmp[24];

	return put_short(p, digits_back(tmp + sizeof(tmp), v), tmp + sizeof(tmp));
}

char *fg_put_fixed(char *p, double v, int decimals)
{
	static const double scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	/* DBL_MAX prints as 309 digits, plus sign, point and 6 decimals */
	char tmp[330], *t;
	double a;
	uint64_t n, whole, frac;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	a = fabs(v) * scale[decimals];
	if (!isfinite(v) || fabs(v) > 1e15 || !(a < 9007199254740992.0)) { /* 2^53 */
		/* huge --factor or --total values; keep the output valid */
		int len = snprintf(tmp, sizeof(tmp), "%.*f", decimals, isfinite(v) ? v : 0.0);
		if (len <= 0)
			return p;
		return fg_put_bytes(p, tmp, (size_t)len < sizeof(tmp) ? (size_t)len : sizeof(tmp) - 1);
	}
	/* rounded half away from zero, as llround: a - n is exact here */
	n = (uint64_t)a;
	n += a - (double)n >= 0.5;
	if (v < 0 && n) /* no "-0.00" */
		*p++ = '-';
	/* constant divisors: a multiplication each, not a division */
	switch (decimals) {
	case 0: whole = n; frac = 0; break;
	case 1: whole = n / 10; frac = n % 10; break;
	case 2: whole = n / 100; frac = n % 100; break;
	case 3: whole = n / 1000; frac = n % 1000; break;
	case 4: whole = n / 10000; frac = n % 10000; break;
	case 5: whole = n / 100000; frac = n % 100000; break;
	default: whole = n / 1000000; frac = n % 1000000; break;
	}
	t = digits_back(tmp + 24, whole);
	p = put_short(p, t, tmp + 24);
	if (!decimals)
		return p;
	*p++ = '.';
	return put_decimals(p, frac, decimals);
}

/* Decimal digits (with an optional leading '-') with thousands separators. */
static char *group_digits(char *p, const char *s, size_t n)
{
	size_t i;

	if (n && *s == '-') {
		*p++ = *s++;
		n--;
	}
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			*p++ = ',';
		*p++ = s[i];
	}
	return p;
}

char *fg_put_grouped(char *p, uint64_t v)
{
	char tmp[24], *t = digits_back(tmp + sizeof(tmp), v);

	return group_digits(p, t, (size_t)(tmp + sizeof(tmp) - t));
}

char *fg_put_scaled(char *p, uint64_t v, double factor)
{
	char tmp[340];
	double d = (double)v * factor;
	int len;

	if (factor == 1)
		return fg_put_grouped(p, v);
	if (isfinite(d) && d < 9007199254740992.0) /* 2^53 */
		return fg_put_grouped(p, (uint64_t)round(d));
	/* past 2^53 (or past DBL_MAX with a huge --factor): long double has
	 * the range (and on x86 the precision) a double lacks */
	len = snprintf(tmp, sizeof(tmp), "%.0Lf", (long double)v * (long double)factor);
	if (len <= 0 || (size_t)len >= sizeof(tmp) || !strchr("0123456789", tmp[0]))
		return (char *)memcpy(p, "inf", 3) + 3;
	return group_digits(p, tmp, (size_t)len);
}

void fg_svgout_u64(fg_svgout *o, uint64_t v)
{
	char *p = fg_svgout_room(o, FG_PUT_NUMBER_MAX);

	if (p)
		fg_svgout_wrote(o, fg_put_u64(p, v));
}

void fg_svgout_fixed(fg_svgout *o, double v, int decimals)
{
	char *p = fg_svgout_room(o, FG_PUT_NUMBER_MAX);

	if (p)
		fg_svgout_wrote(o, fg_put_fixed(p, v, decimals));
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. XML 1.0
 * also forbids U+FFFE and U+FFFF, so they count as invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *e)
{
	unsigned char c = p[0];
	size_t n, i;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if ((size_t)(e - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	if (c == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
		return 0;
	return n;
}

/* 1: the byte can be copied as is. */
static const unsigned char plain[256] = {
	['\t'] = 1,
	[' '] = 1, ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['('] = 1,
	[')'] = 1, ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1,
	['/'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
	['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1,
	[';'] = 1, ['='] = 1, ['?'] = 1, ['@'] = 1, ['['] = 1, ['\\'] = 1,
	[']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['{'] = 1, ['|'] = 1,
	['}'] = 1, ['~'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

char *fg_put_xml(char *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n, *run = p;

	while (p < e) {
		const char *rep;
		size_t len;

		if (plain[*p]) {
			p++;
			continue;
		}
		if (*p >= 0x80 && (len = utf8_len(p, e))) {
			p += len;
			continue;
		}
		out = fg_put_bytes(out, run, (size_t)(p - run));
		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default: rep = "\xEF\xBF\xBD"; break; /* U+FFFD */
		}
		out = fg_put_bytes(out, rep, strlen(rep));
		run = ++p;
	}
	return fg_put_bytes(out, run, (size_t)(p - run));
}

char *fg_put_json(char *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *e = p + n, *run = p;

	while (p < e) {
		size_t len;

		if (plain[*p] && *p != '\\' && *p != '\t') {
			p++;
			continue;
		}
		if (*p >= 0x80 && (len = utf8_len(p, e))) {
			p += len;
			continue;
		}
		out = fg_put_bytes(out, run, (size_t)(p - run));
		if (*p >= 0x80) {
			out = FG_PUT_LIT(out, "\\ufffd");
		} else {
			/* quotes, backslash, <, >, & and controls as \u00XX:
			 * no way to end the string or the script element */
			char esc[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
			out = fg_put_bytes(out, esc, sizeof(esc));
		}
		run = ++p;
	}
	return fg_put_bytes(out, run, (size_t)(p - run));
}

void fg_svgout_json(fg_svgout *o, const char *s, size_t n)
{
	char *p = fg_svgout_room(o, FG_PUT_JSON_MAX(n) + 2);

	if (p) {
		*p++ = '"';
		p = fg_put_json(p, s, n);
		*p++ = '"';
		fg_svgout_wrote(o, p);
	}
}

void fg_svgout_xml(fg_svgout *o, const char *s, size_t n)
{
	char *p = fg_svgout_room(o, FG_PUT_XML_MAX(n));

	if (p)
		fg_svgout_wrote(o, fg_put_xml(p, s, n));
}

void fg_svgout_js(fg_svgout *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p >= 0x80 || (plain[*p] && *p != '\\' && *p != '\t')) {
			fg_svgout_add(o, (const char *)p, 1);
		} else {
			/* quotes, <, >, & and controls as \u00XX: no way to end
			 * the string, the CDATA block or the script */
			char esc[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
			fg_svgout_add(o, esc, sizeof(esc));
		}
	}
}

size_t fg_utf8_prefix(const char *s, size_t n, size_t max)
{
	size_t k;

	if (n <= max)
		return n;
	k = max;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	return k;
}

size_t fg_utf8_chars(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}
