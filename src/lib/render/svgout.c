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

static inline char *reserve(fg_svgout *o, size_t n)
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

void fg_svgout_add_slow(fg_svgout *o, const char *s, size_t n)
{
	char *p = reserve(o, n);

	if (!p)
		return;
	memcpy(p, s, n);
	o->buf.len += n;
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

void fg_svgout_u64(fg_svgout *o, uint64_t v)
{
	char tmp[24], *p = digits_back(tmp + sizeof(tmp), v);

	fg_svgout_add(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

void fg_svgout_fixed(fg_svgout *o, double v, int decimals)
{
	static const uint64_t scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	/* DBL_MAX prints as 309 digits, plus sign, point and 6 decimals */
	char tmp[330], *p = tmp + sizeof(tmp);
	double a;
	uint64_t n, frac;
	bool neg;
	int d;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	a = fabs(v) * (double)scale[decimals];
	if (!isfinite(v) || fabs(v) > 1e15 || !(a < 9007199254740992.0)) { /* 2^53 */
		/* huge --factor or --total values; keep the output valid */
		int len = snprintf(tmp, sizeof(tmp), "%.*f", decimals, isfinite(v) ? v : 0.0);
		if (len > 0)
			fg_svgout_add(o, tmp, (size_t)len < sizeof(tmp) ? (size_t)len : sizeof(tmp) - 1);
		return;
	}
	/* rounded half away from zero, as llround: a - n is exact here */
	n = (uint64_t)a;
	n += a - (double)n >= 0.5;
	neg = v < 0 && n; /* no "-0.00" */
	if (decimals) {
		frac = n % scale[decimals];
		n /= scale[decimals];
		for (d = 0; d < decimals; d++) {
			*--p = (char)('0' + frac % 10);
			frac /= 10;
		}
		*--p = '.';
	}
	p = digits_back(p, n);
	if (neg)
		*--p = '-';
	fg_svgout_add(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Decimal digits (with an optional leading '-') and thousands separators. */
static void group_digits(fg_svgout *o, const char *p, size_t n)
{
	size_t i;

	if (n && *p == '-') {
		fg_svgout_add(o, p++, 1);
		n--;
	}
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			fg_svgout_add(o, ",", 1);
		fg_svgout_add(o, p + i, 1);
	}
}

void fg_svgout_scaled(fg_svgout *o, uint64_t v, double factor)
{
	char tmp[340];
	double d = (double)v * factor;
	int len;

	if (factor == 1) {
		fg_svgout_grouped(o, v);
		return;
	}
	if (isfinite(d) && d < 9007199254740992.0) { /* 2^53 */
		fg_svgout_grouped(o, (uint64_t)round(d));
		return;
	}
	/* past 2^53 (or past DBL_MAX with a huge --factor): long double has
	 * the range (and on x86 the precision) a double lacks */
	len = snprintf(tmp, sizeof(tmp), "%.0Lf", (long double)v * (long double)factor);
	if (len <= 0 || (size_t)len >= sizeof(tmp) || !strchr("0123456789", tmp[0]))
		fg_svgout_str(o, "inf");
	else
		group_digits(o, tmp, (size_t)len);
}

void fg_svgout_grouped(fg_svgout *o, uint64_t v)
{
	char tmp[32];
	size_t i = sizeof(tmp);
	int k = 0;

	do {
		if (k && k % 3 == 0)
			tmp[--i] = ',';
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
		k++;
	} while (v);
	fg_svgout_add(o, tmp + i, sizeof(tmp) - i);
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

void fg_svgout_xml(fg_svgout *o, const char *s, size_t n)
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
		fg_svgout_add(o, (const char *)run, (size_t)(p - run));
		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default: rep = "\xEF\xBF\xBD"; break; /* U+FFFD */
		}
		fg_svgout_str(o, rep);
		run = ++p;
	}
	fg_svgout_add(o, (const char *)run, (size_t)(p - run));
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
