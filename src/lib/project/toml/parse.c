/* A strict TOML 1.0 reader: one pass over the text, building a tree whose
 * nodes, keys and strings all live in one arena per document.
 *
 * The input is checked for valid UTF-8 once up front, so the scanners below
 * only have to care about ASCII structure; runs of ordinary bytes are copied
 * in one go rather than byte by byte. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/toml/toml.h"
#include "lib/project/toml/tree.h"
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Arrays and inline tables nest by recursion; hostile input must not be
 * able to exhaust the stack. */
#define TOML_MAX_DEPTH 256

/* ------------------------------------------------------------------------
 * The parser */

struct key_seg {
	const char *s; /* bare keys point into the input, quoted ones are decoded */
	size_t len;
	unsigned line, col;
};

struct parser {
	const char *p, *end;
	const char *line_start;
	unsigned line;
	/* column cache: counting characters from the line start every time
	 * would make a long single line quadratic */
	const char *col_line, *col_pos;
	unsigned col_val;
	const char *filename;
	fg_arena *arena;
	fg_toml_value *root;
	fg_toml_value *cur; /* the table the last [header] opened */
	fg_strbuf sb;       /* scratch for decoding strings */
	struct key_seg *keys;
	size_t nkeys, keys_cap;
	unsigned depth;
	locale_t c_locale; /* floats parse the same whatever setlocale() says */
};

static unsigned col_of(struct parser *p, const char *at)
{
	const char *q;

	if (p->col_line != p->line_start || !p->col_pos || p->col_pos > at) {
		p->col_line = p->line_start;
		p->col_pos = p->line_start;
		p->col_val = 1;
	}
	for (q = p->col_pos; q < at; q++)
		if (((unsigned char)*q & 0xc0) != 0x80)
			p->col_val++;
	p->col_pos = at;
	return p->col_val;
}

static int perr_at(struct parser *p, unsigned line, unsigned col,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int perr_at(struct parser *p, unsigned line, unsigned col,
		   const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fg_error_set(FG_EPARSE, "%s:%u:%u: %s", p->filename, line, col, msg);
}

#define perr(p, at, ...) perr_at((p), (p)->line, col_of((p), (at)), __VA_ARGS__)

/* "end of file", "a newline" or 'x', for "expected ..., found ..." */
static const char *found(struct parser *p, char *buf, size_t n)
{
	unsigned char c;

	if (p->p >= p->end)
		return "end of file";
	c = (unsigned char)*p->p;
	if (c == '\n' || c == '\r')
		return "a newline";
	if (c < 0x20 || c == 0x7f)
		snprintf(buf, n, "control character U+%04X", c);
	else if (c >= 0x80)
		snprintf(buf, n, "a non-ASCII character");
	else
		snprintf(buf, n, "'%c'", c);
	return buf;
}

static bool is_ctrl(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static bool is_bare(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool at_newline(const struct parser *p)
{
	return p->p < p->end && (*p->p == '\n' || *p->p == '\r');
}

/* Consumes \n or \r\n; a lone \r is not a TOML newline. */
static int eat_newline(struct parser *p)
{
	if (*p->p == '\r') {
		if (p->p + 1 >= p->end || p->p[1] != '\n')
			return perr(p, p->p, "carriage return not followed by a line feed");
		p->p++;
	}
	p->p++;
	p->line++;
	p->line_start = p->p;
	return 0;
}

static void skip_ws(struct parser *p)
{
	while (p->p < p->end && (*p->p == ' ' || *p->p == '\t'))
		p->p++;
}

static int skip_comment(struct parser *p)
{
	for (p->p++; p->p < p->end; p->p++) {
		unsigned char c = (unsigned char)*p->p;

		if (c == '\n' || c == '\r')
			break;
		if (is_ctrl(c))
			return perr(p, p->p, "control character U+%04X is not allowed in a comment", c);
	}
	return 0;
}

/* After a key/value pair or a header only a comment may follow. */
static int end_of_line(struct parser *p, const char *what)
{
	char buf[48];
	int ret;

	skip_ws(p);
	if (p->p < p->end && *p->p == '#' && (ret = skip_comment(p)) < 0)
		return ret;
	if (p->p >= p->end)
		return 0;
	if (at_newline(p))
		return eat_newline(p);
	return perr(p, p->p, "expected a newline after %s, found %s", what,
		    found(p, buf, sizeof(buf)));
}

/* Whitespace, comments and newlines, as allowed between array elements. */
static int skip_ws_comment_nl(struct parser *p)
{
	int ret;

	for (;;) {
		skip_ws(p);
		if (p->p >= p->end)
			return 0;
		if (*p->p == '#') {
			if ((ret = skip_comment(p)) < 0)
				return ret;
		} else if (at_newline(p)) {
			if ((ret = eat_newline(p)) < 0)
				return ret;
		} else {
			return 0;
		}
	}
}

static int check_utf8(struct parser *p)
{
	const unsigned char *s = (const unsigned char *)p->p;
	const unsigned char *e = (const unsigned char *)p->end;

	while (s < e) {
		unsigned c = *s, n, cp, i;

		if (c < 0x80) {
			if (c == '\n') {
				p->line++;
				p->line_start = (const char *)s + 1;
			}
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			goto bad;
		if ((size_t)(e - s) <= n)
			goto bad;
		for (i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				goto bad;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			goto bad;
		s += n + 1;
	}
	return 0;
bad:
	return perr(p, (const char *)s,
		    "invalid UTF-8 (byte 0x%02X); TOML files must be UTF-8", *s);
}

static int put_utf8(fg_strbuf *sb, unsigned long cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	}
	return fg_strbuf_add(sb, b, n);
}

/* p->p is just past the backslash. */
static int parse_escape(struct parser *p, bool multiline)
{
	const char *at = p->p - 1;
	unsigned long cp = 0;
	int i, digits;
	char c;

	if (p->p >= p->end)
		return perr(p, at, "unterminated string");
	c = *p->p;
	if (multiline && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
		/* line-ending backslash: drop the newline and the whitespace
		 * after it, but only if nothing but whitespace precedes it */
		skip_ws(p);
		if (!at_newline(p))
			return perr(p, at, "a backslash followed by spaces must end the line (or escape it as \\\\)");
		while (p->p < p->end) {
			int ret;

			if (at_newline(p)) {
				if ((ret = eat_newline(p)) < 0)
					return ret;
			} else if (*p->p == ' ' || *p->p == '\t') {
				p->p++;
			} else {
				break;
			}
		}
		return 0;
	}
	p->p++;
	switch (c) {
	case 'b': return fg_strbuf_addch(&p->sb, '\b');
	case 't': return fg_strbuf_addch(&p->sb, '\t');
	case 'n': return fg_strbuf_addch(&p->sb, '\n');
	case 'f': return fg_strbuf_addch(&p->sb, '\f');
	case 'r': return fg_strbuf_addch(&p->sb, '\r');
	case '"': return fg_strbuf_addch(&p->sb, '"');
	case '\\': return fg_strbuf_addch(&p->sb, '\\');
	case 'u': digits = 4; break;
	case 'U': digits = 8; break;
	default:
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
			return perr(p, at, "invalid escape sequence in string");
		return perr(p, at, "invalid escape sequence \\%c (valid: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)", c);
	}
	for (i = 0; i < digits; i++, p->p++) {
		char h = p->p < p->end ? *p->p : 0;
		int d;

		if (is_digit(h))
			d = h - '0';
		else if (h >= 'a' && h <= 'f')
			d = h - 'a' + 10;
		else if (h >= 'A' && h <= 'F')
			d = h - 'A' + 10;
		else
			return perr(p, at, "\\%c needs %d hexadecimal digits", c, digits);
		cp = cp * 16 + (unsigned long)d;
	}
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return perr(p, at, "\\%c%0*lX is not a Unicode scalar value", c, digits, cp);
	return put_utf8(&p->sb, cp);
}

/* Appends the run of bytes that need no attention in a string. */
static int copy_run(struct parser *p, char quote)
{
	const char *s = p->p;

	while (p->p < p->end) {
		unsigned char c = (unsigned char)*p->p;

		if (c == (unsigned char)quote || c == '\\' || c == '\n' ||
		    c == '\r' || is_ctrl(c))
			break;
		p->p++;
	}
	return fg_strbuf_add(&p->sb, s, (size_t)(p->p - s));
}

/* Single-line basic ("...") or literal ('...') string into p->sb. */
static int parse_string_line(struct parser *p)
{
	const char *open = p->p;
	char quote = *p->p++;
	int ret;

	fg_strbuf_reset(&p->sb);
	for (;;) {
		unsigned char c;

		if ((ret = copy_run(p, quote)) < 0)
			return ret;
		if (p->p >= p->end || at_newline(p))
			return perr(p, open, "unterminated string (strings end on the same line unless written with %s)",
				    quote == '"' ? "\"\"\"" : "'''");
		c = (unsigned char)*p->p;
		if (c == (unsigned char)quote) {
			p->p++;
			return 0;
		}
		if (c == '\\' && quote == '"') {
			p->p++;
			if ((ret = parse_escape(p, false)) < 0)
				return ret;
		} else if (c == '\\') {
			p->p++;
			if ((ret = fg_strbuf_addch(&p->sb, '\\')) < 0)
				return ret;
		} else {
			return perr(p, p->p, "control character U+%04X must be escaped in a string", c);
		}
	}
}

/* Multi-line basic ("""...""") or literal ('''...''') string into p->sb. */
static int parse_string_multi(struct parser *p)
{
	const char *open = p->p;
	unsigned open_line = p->line, open_col = col_of(p, open);
	char quote = *p->p;
	int ret;

	fg_strbuf_reset(&p->sb);
	p->p += 3;
	if (at_newline(p) && (ret = eat_newline(p)) < 0) /* first newline is trimmed */
		return ret;
	for (;;) {
		unsigned char c;

		if ((ret = copy_run(p, quote)) < 0)
			return ret;
		if (p->p >= p->end)
			return perr_at(p, open_line, open_col, "unterminated multi-line string");
		c = (unsigned char)*p->p;
		if (c == (unsigned char)quote) {
			size_t run = 0;

			while (p->p + run < p->end && p->p[run] == quote)
				run++;
			if (run >= 3) {
				/* up to two quotes may sit right before the closing three */
				if (run > 5)
					return perr(p, p->p + 5, "too many quotes at the end of a multi-line string");
				p->p += run;
				return fg_strbuf_add(&p->sb, p->p - run, run - 3);
			}
			if ((ret = fg_strbuf_add(&p->sb, p->p, run)) < 0)
				return ret;
			p->p += run;
		} else if (c == '\n' || c == '\r') {
			if ((ret = eat_newline(p)) < 0 ||
			    (ret = fg_strbuf_addch(&p->sb, '\n')) < 0)
				return ret;
		} else if (c == '\\') {
			p->p++;
			ret = quote == '"' ? parse_escape(p, true)
					   : fg_strbuf_addch(&p->sb, '\\');
			if (ret < 0)
				return ret;
		} else {
			return perr(p, p->p, "control character U+%04X must be escaped in a string", c);
		}
	}
}

static bool starts3(const struct parser *p, char q)
{
	return p->end - p->p >= 3 && p->p[0] == q && p->p[1] == q && p->p[2] == q;
}

/* ------------------------------------------------------------------------
 * Keys */

static int push_key(struct parser *p, const char *s, size_t len,
		    unsigned line, unsigned col)
{
	struct key_seg *k;

	if (p->nkeys == p->keys_cap) {
		size_t cap = p->keys_cap ? p->keys_cap * 2 : 16;
		struct key_seg *keys = fg_realloc_array(p->keys, cap, sizeof(*keys));

		if (!keys)
			return FG_ENOMEM;
		p->keys = keys;
		p->keys_cap = cap;
	}
	k = &p->keys[p->nkeys++];
	k->s = s;
	k->len = len;
	k->line = line;
	k->col = col;
	return 0;
}

/* Parses a (possibly dotted) key, pushing its parts onto p->keys. */
static int parse_key(struct parser *p)
{
	char buf[48];
	int ret;

	for (;;) {
		const char *start = p->p;
		unsigned col = col_of(p, start);

		if (p->p < p->end && is_bare((unsigned char)*p->p)) {
			while (p->p < p->end && is_bare((unsigned char)*p->p))
				p->p++;
			ret = push_key(p, start, (size_t)(p->p - start), p->line, col);
		} else if (p->p < p->end && (*p->p == '"' || *p->p == '\'')) {
			char *s;

			if (starts3(p, *p->p))
				return perr(p, start, "multi-line strings cannot be used as keys");
			if ((ret = parse_string_line(p)) < 0)
				return ret;
			if (!(s = fg_arena_strndup(p->arena, p->sb.buf, p->sb.len)))
				return FG_ENOMEM;
			ret = push_key(p, s, p->sb.len, p->line, col);
		} else {
			return perr(p, start, "expected a key, found %s (bare keys may only use A-Z a-z 0-9 _ -; quote others)",
				    found(p, buf, sizeof(buf)));
		}
		if (ret < 0)
			return ret;
		skip_ws(p);
		if (p->p >= p->end || *p->p != '.')
			return 0;
		p->p++;
		skip_ws(p);
	}
}

/* "a.b.c" for messages about the first n parts starting at base */
static const char *key_text(struct parser *p, size_t base, size_t n,
			    char *buf, size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = base; i < base + n && used + 1 < size; i++) {
		int w = snprintf(buf + used, size - used, "%s%.*s", i > base ? "." : "",
				 (int)p->keys[i].len, p->keys[i].s);
		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* ------------------------------------------------------------------------
 * Values */

static fg_toml_value *parse_value(struct parser *p);

static fg_toml_value *string_value(struct parser *p, unsigned line, unsigned col,
				   int type)
{
	fg_toml_value *v = fg_toml__value_new(p->arena, type, line, col);

	if (!v || !(v->u.str.s = fg_arena_strndup(p->arena, p->sb.buf, p->sb.len)))
		return NULL;
	v->u.str.len = p->sb.len;
	return v;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* n digits at s as a number, or -1 */
static int digits(const char *s, size_t avail, size_t n)
{
	int v = 0;
	size_t i;

	if (avail < n)
		return -1;
	for (i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* HH:MM:SS[.frac] at the start of s; returns bytes used or <= 0 with
 * *why set. */
static size_t parse_time(const char *s, size_t n, const char **why)
{
	int h = digits(s, n, 2), m, sec;
	size_t i;

	if (h < 0 || n < 3 || s[2] != ':' || (m = digits(s + 3, n - 3, 2)) < 0) {
		*why = "expected a time as HH:MM:SS";
		return 0;
	}
	if (n < 6 || s[5] != ':' || (sec = digits(s + 6, n - 6, 2)) < 0) {
		*why = "seconds are required (HH:MM:SS)";
		return 0;
	}
	if (h > 23 || m > 59 || sec > 60) {
		*why = h > 23 ? "hour out of range (00-23)" : m > 59 ?
		       "minute out of range (00-59)" : "second out of range (00-60)";
		return 0;
	}
	i = 8;
	if (i < n && s[i] == '.') {
		for (i++; i < n && is_digit(s[i]); i++)
			;
		if (i == 9) {
			*why = "a decimal point must be followed by digits";
			return 0;
		}
	}
	return i;
}

static fg_toml_value *parse_datetime(struct parser *p, const char *tok, size_t n,
				     unsigned line, unsigned col)
{
	const char *why = "not a valid date or time";
	int type, y, mo, d;
	size_t i = 0, t;
	char *norm;
	fg_toml_value *v;

	if (n >= 3 && tok[2] == ':') {
		t = parse_time(tok, n, &why);
		if (!t || t != n) {
			if (t)
				why = "local times take no offset";
			goto bad;
		}
		type = FG_TOML_TIME_LOCAL;
		goto make;
	}
	y = digits(tok, n, 4);
	if (y < 0 || n < 10 || tok[4] != '-' || (mo = digits(tok + 5, n - 5, 2)) < 0 ||
	    tok[7] != '-' || (d = digits(tok + 8, n - 8, 2)) < 0) {
		why = "expected a date as YYYY-MM-DD";
		goto bad;
	}
	if (mo < 1 || mo > 12) {
		why = "month out of range (01-12)";
		goto bad;
	}
	if (d < 1 || d > days_in_month(y, mo)) {
		why = "day out of range for the month";
		goto bad;
	}
	if (n == 10) {
		type = FG_TOML_DATE_LOCAL;
		goto make;
	}
	if (tok[10] != 'T' && tok[10] != 't' && tok[10] != ' ') {
		why = "expected T or a space between date and time";
		goto bad;
	}
	if (!(t = parse_time(tok + 11, n - 11, &why)))
		goto bad;
	i = 11 + t;
	if (i == n) {
		type = FG_TOML_DATETIME_LOCAL;
		goto make;
	}
	type = FG_TOML_DATETIME;
	if ((tok[i] == 'Z' || tok[i] == 'z') && i + 1 == n)
		goto make;
	if ((tok[i] == '+' || tok[i] == '-') && n - i == 6 && tok[i + 3] == ':') {
		int oh = digits(tok + i + 1, 2, 2), om = digits(tok + i + 4, 2, 2);

		if (oh >= 0 && om >= 0 && oh <= 23 && om <= 59)
			goto make;
	}
	why = "expected Z or an offset +HH:MM / -HH:MM after the time";
	goto bad;
make:
	if (!(v = fg_toml__value_new(p->arena, type, line, col)) ||
	    !(norm = fg_arena_strndup(p->arena, tok, n)))
		return NULL;
	if (n > 10 && tok[4] == '-')
		norm[10] = 'T';
	if (norm[n - 1] == 'z')
		norm[n - 1] = 'Z';
	v->u.str.s = norm;
	v->u.str.len = n;
	return v;
bad:
	perr_at(p, line, col, "invalid date/time `%.*s%s`: %s", (int)(n > 40 ? 40 : n),
		tok, n > 40 ? "..." : "", why);
	return NULL;
}

/* Digits of `base` with single underscores between digits, into sb.
 * Returns the number of characters used (0 when there is no digit). */
static size_t scan_digits(const char *s, size_t n, int base, fg_strbuf *sb,
			  const char **why)
{
	size_t i = 0;

	for (; i < n; i++) {
		char c = s[i];
		bool ok = base == 16 ? (is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
				     : (c >= '0' && c < '0' + base);

		if (ok) {
			fg_strbuf_addch(sb, c);
		} else if (c == '_') {
			if (i == 0 || i + 1 >= n || s[i - 1] == '_') {
				*why = "underscores must sit between two digits";
				return 0;
			}
		} else {
			break;
		}
	}
	if (i > 0 && s[i - 1] == '_') {
		*why = "underscores must sit between two digits";
		return 0;
	}
	if (i == 0)
		*why = "expected a digit";
	return i;
}

/* Digits (already checked for the base) to an int64 value; false when the
 * number does not fit. */
static bool digits_to_int(const char *digs, int base, bool neg, int64_t *out)
{
	unsigned long long acc = 0, limit = neg ? 9223372036854775808ULL
						: 9223372036854775807ULL;

	for (; *digs; digs++) {
		char c = *digs;
		unsigned d = is_digit(c) ? (unsigned)(c - '0')
			     : (unsigned)((c | 0x20) - 'a' + 10);

		if (acc > (limit - d) / (unsigned)base)
			return false;
		acc = acc * (unsigned)base + d;
	}
	*out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return true;
}

static fg_toml_value *int_value(struct parser *p, int64_t i, unsigned line,
				unsigned col)
{
	fg_toml_value *v = fg_toml__value_new(p->arena, FG_TOML_INTEGER, line, col);

	if (v)
		v->u.i = i;
	return v;
}

static fg_toml_value *parse_number(struct parser *p, const char *tok, size_t n,
				   unsigned line, unsigned col)
{
	const char *why = "not a valid number", *s = tok;
	size_t k, rest = n;
	bool neg = false, sign = false, is_float = false;
	fg_toml_value *v;
	int64_t ival;
	double d;
	char *end;

	fg_strbuf_reset(&p->sb);
	/* the digits copied below never outgrow the token */
	if (fg_strbuf_grow(&p->sb, n + 2) < 0)
		return NULL;
	if (*s == '+' || *s == '-') {
		neg = *s == '-';
		sign = true;
		fg_strbuf_addch(&p->sb, *s);
		s++, rest--;
	}
	if (rest == 3 && (memcmp(s, "inf", 3) == 0 || memcmp(s, "nan", 3) == 0)) {
		if (!(v = fg_toml__value_new(p->arena, FG_TOML_FLOAT, line, col)))
			return NULL;
		v->u.d = s[0] == 'i' ? (neg ? -HUGE_VAL : HUGE_VAL) : (neg ? -NAN : NAN);
		return v;
	}
	if (rest > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
		int base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;

		if (sign) {
			why = "hexadecimal, octal and binary integers take no sign";
			goto bad;
		}
		fg_strbuf_reset(&p->sb);
		k = scan_digits(s + 2, rest - 2, base, &p->sb, &why);
		if ((!k && s[2] != '_') || (k && k != rest - 2))
			why = base == 16 ? "invalid digit for a hexadecimal number"
			      : base == 8 ? "invalid digit for an octal number (0-7)"
					  : "invalid digit for a binary number (0-1)";
		if (!k || k != rest - 2)
			goto bad;
		if (!digits_to_int(p->sb.buf, base, false, &ival))
			goto overflow;
		return int_value(p, ival, line, col);
	}
	if (!(k = scan_digits(s, rest, 10, &p->sb, &why)))
		goto bad;
	if (s[0] == '0' && k > 1) {
		why = "leading zeros are not allowed";
		goto bad;
	}
	s += k, rest -= k;
	if (rest && *s == '.') {
		fg_strbuf_addch(&p->sb, '.');
		s++, rest--;
		if (!(k = scan_digits(s, rest, 10, &p->sb, &why))) {
			why = "a decimal point must have digits on both sides";
			goto bad;
		}
		s += k, rest -= k;
		is_float = true;
	}
	if (rest && (*s == 'e' || *s == 'E')) {
		fg_strbuf_addch(&p->sb, 'e');
		s++, rest--;
		if (rest && (*s == '+' || *s == '-')) {
			fg_strbuf_addch(&p->sb, *s);
			s++, rest--;
		}
		if (!(k = scan_digits(s, rest, 10, &p->sb, &why)))
			goto bad;
		s += k, rest -= k;
		is_float = true;
	}
	if (rest)
		goto bad;
	if (!is_float) {
		if (!digits_to_int(p->sb.buf + sign, 10, neg, &ival))
			goto overflow;
		return int_value(p, ival, line, col);
	}
	if (!p->c_locale && !(p->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0))) {
		fg_error_set(FG_ENOMEM, "cannot create the C locale");
		return NULL;
	}
	errno = 0;
	d = strtod_l(p->sb.buf, &end, p->c_locale);
	if (errno == ERANGE && isinf(d)) {
		why = "float out of range";
		goto bad;
	}
	if (!(v = fg_toml__value_new(p->arena, FG_TOML_FLOAT, line, col)))
		return NULL;
	v->u.d = d;
	return v;
overflow:
	why = "integer does not fit in 64 bits";
bad:
	perr_at(p, line, col, "invalid number `%.*s%s`: %s", (int)(n > 40 ? 40 : n),
		tok, n > 40 ? "..." : "", why);
	return NULL;
}

static bool is_token_char(char c)
{
	return is_bare((unsigned char)c) || c == '+' || c == '.' || c == ':';
}

/* Numbers, inf/nan and date-times: scan the whole token, then decide. */
static fg_toml_value *parse_scalar_token(struct parser *p, unsigned line,
					 unsigned col)
{
	const char *tok = p->p;
	size_t n;

	while (p->p < p->end && is_token_char(*p->p))
		p->p++;
	n = (size_t)(p->p - tok);
	/* a date, a space, then a time is one date-time */
	if (n == 10 && tok[4] == '-' && tok[7] == '-' && p->end - p->p >= 4 &&
	    p->p[0] == ' ' && is_digit(p->p[1]) && is_digit(p->p[2]) && p->p[3] == ':') {
		for (p->p++; p->p < p->end && is_token_char(*p->p); p->p++)
			;
		n = (size_t)(p->p - tok);
	}
	if ((n >= 5 && is_digit(tok[0]) && tok[4] == '-' && is_digit(tok[1])) ||
	    (n >= 3 && is_digit(tok[0]) && tok[2] == ':'))
		return parse_datetime(p, tok, n, line, col);
	return parse_number(p, tok, n, line, col);
}

static fg_toml_value *parse_array(struct parser *p, unsigned line, unsigned col)
{
	fg_toml_value *arr = fg_toml__value_new(p->arena, FG_TOML_ARRAY, line, col), *v;
	char buf[48];

	if (!arr)
		return NULL;
	p->p++;
	for (;;) {
		if (skip_ws_comment_nl(p) < 0)
			return NULL;
		if (p->p < p->end && *p->p == ']')
			break;
		if (!(v = parse_value(p)) || fg_toml__array_push(p->arena, arr, v) < 0)
			return NULL;
		if (skip_ws_comment_nl(p) < 0)
			return NULL;
		if (p->p < p->end && *p->p == ',') {
			p->p++;
			continue;
		}
		if (p->p < p->end && *p->p == ']')
			break;
		perr(p, p->p, "expected ',' or ']' in the array that starts at %u:%u, found %s",
		     line, col, found(p, buf, sizeof(buf)));
		return NULL;
	}
	p->p++;
	return arr;
}

static int parse_keyval(struct parser *p, fg_toml_value *table);

static fg_toml_value *parse_inline_table(struct parser *p, unsigned line,
					 unsigned col)
{
	fg_toml_value *t = fg_toml__value_new(p->arena, FG_TOML_TABLE, line, col);
	char buf[48];

	if (!t)
		return NULL;
	p->p++;
	skip_ws(p);
	if (p->p < p->end && *p->p == '}')
		goto done;
	for (;;) {
		skip_ws(p);
		if (parse_keyval(p, t) < 0)
			return NULL;
		skip_ws(p);
		if (p->p < p->end && *p->p == '}')
			break;
		if (p->p < p->end && *p->p == ',') {
			p->p++;
			skip_ws(p);
			if (p->p < p->end && *p->p == '}') {
				perr(p, p->p, "trailing comma in an inline table (not allowed in TOML 1.0)");
				return NULL;
			}
			continue;
		}
		if (at_newline(p) || (p->p < p->end && *p->p == '#'))
			perr(p, p->p, "inline tables must be on one line (TOML 1.0); use a [table] for longer ones");
		else
			perr(p, p->p, "expected ',' or '}' in the inline table that starts at %u:%u, found %s",
			     line, col, found(p, buf, sizeof(buf)));
		return NULL;
	}
done:
	p->p++;
	t->flags = TF_DEFINED | TF_FROZEN;
	return t;
}

static fg_toml_value *parse_value(struct parser *p)
{
	unsigned line = p->line, col = col_of(p, p->p);
	fg_toml_value *v = NULL;
	char buf[48];
	char c;

	if (p->p >= p->end || at_newline(p)) {
		perr(p, p->p, "expected a value, found %s", found(p, buf, sizeof(buf)));
		return NULL;
	}
	c = *p->p;
	if (c == '"' || c == '\'') {
		int ret = starts3(p, c) ? parse_string_multi(p) : parse_string_line(p);

		return ret < 0 ? NULL : string_value(p, line, col, FG_TOML_STRING);
	}
	if (c == '[' || c == '{') {
		if (++p->depth > TOML_MAX_DEPTH) {
			perr(p, p->p, "arrays and inline tables nested deeper than %d", TOML_MAX_DEPTH);
			return NULL;
		}
		v = c == '[' ? parse_array(p, line, col) : parse_inline_table(p, line, col);
		p->depth--;
		return v;
	}
	if (p->end - p->p >= 4 && memcmp(p->p, "true", 4) == 0 &&
	    (p->end - p->p == 4 || !is_token_char(p->p[4]))) {
		p->p += 4;
		if ((v = fg_toml__value_new(p->arena, FG_TOML_BOOL, line, col)))
			v->u.b = true;
		return v;
	}
	if (p->end - p->p >= 5 && memcmp(p->p, "false", 5) == 0 &&
	    (p->end - p->p == 5 || !is_token_char(p->p[5]))) {
		p->p += 5;
		if ((v = fg_toml__value_new(p->arena, FG_TOML_BOOL, line, col)))
			v->u.b = false;
		return v;
	}
	if (is_digit(c) || c == '+' || c == '-' || c == 'i' || c == 'n')
		return parse_scalar_token(p, line, col);
	perr(p, p->p, "expected a value (string, number, boolean, date, array or inline table), found %s",
	     found(p, buf, sizeof(buf)));
	return NULL;
}

/* ------------------------------------------------------------------------
 * Key/value pairs and headers */

static struct toml_entry *lookup(fg_toml_value *t, const struct key_seg *k)
{
	size_t i = fg_toml__table_find(t, k->s, k->len);

	return i == (size_t)-1 ? NULL : &t->u.tab.items[i];
}

static fg_toml_value *add_table(struct parser *p, fg_toml_value *t,
				const struct key_seg *k, int flags)
{
	fg_toml_value *sub = fg_toml__value_new(p->arena, FG_TOML_TABLE, k->line, k->col);
	long idx;

	if (!sub || (idx = fg_toml__table_add(p->arena, t, k->s, k->len, k->line, k->col)) < 0)
		return NULL;
	sub->flags = (unsigned char)flags;
	t->u.tab.items[idx].value = sub;
	return sub;
}

/* a.b = 1: walks (creating) the tables the leading parts of a dotted key
 * name. Only tables made by dotted keys in this same table can be walked
 * into; a [header] table or an inline table is closed to them. */
static fg_toml_value *dotted_descend(struct parser *p, fg_toml_value *t,
				     size_t base, size_t i)
{
	const struct key_seg *k = &p->keys[i];
	struct toml_entry *e = lookup(t, k);
	char name[256];

	if (!e)
		return add_table(p, t, k, TF_DOTTED);
	key_text(p, base, i - base + 1, name, sizeof(name));
	if (e->value->type != FG_TOML_TABLE)
		perr_at(p, k->line, k->col, "`%s` is already a%s %s (set at line %u), not a table",
			name, e->value->type == FG_TOML_ARRAY || e->value->type == FG_TOML_INTEGER ? "n" : "",
			fg_toml_type_name(e->value->type), e->value->line);
	else if (e->value->flags & TF_FROZEN)
		perr_at(p, k->line, k->col, "cannot add keys to `%s`: inline tables are complete once closed (line %u)",
			name, e->value->line);
	else if (!(e->value->flags & TF_DOTTED))
		perr_at(p, k->line, k->col, "cannot add keys to table `%s` with a dotted key: it is defined by a [header] (line %u)",
			name, e->value->line);
	else
		return e->value;
	return NULL;
}

static int parse_keyval(struct parser *p, fg_toml_value *table)
{
	size_t base = p->nkeys, i;
	fg_toml_value *t = table, *v;
	const struct toml_entry *e;
	const struct key_seg *k;
	char buf[48], name[256];
	long idx;
	int ret;

	if ((ret = parse_key(p)) < 0)
		return ret;
	for (i = base; i + 1 < p->nkeys; i++)
		if (!(t = dotted_descend(p, t, base, i)))
			return fg_error_last_code();
	k = &p->keys[p->nkeys - 1];
	if ((e = lookup(t, k)))
		return perr_at(p, k->line, k->col, "duplicate key `%s` (first set at line %u)",
			       key_text(p, base, p->nkeys - base, name, sizeof(name)), e->line);
	if ((idx = fg_toml__table_add(p->arena, t, k->s, k->len, k->line, k->col)) < 0)
		return (int)idx;
	p->nkeys = base; /* the value may hold keys of its own */
	skip_ws(p);
	if (p->p >= p->end || *p->p != '=')
		return perr(p, p->p, "expected '=' after a key, found %s", found(p, buf, sizeof(buf)));
	p->p++;
	skip_ws(p);
	if (!(v = parse_value(p)))
		return fg_error_last_code();
	t->u.tab.items[idx].value = v;
	return 0;
}

/* [a.b.c] and [[a.b.c]]: walk to the parent, then define or append. */
static int parse_header(struct parser *p)
{
	const char *open = p->p;
	unsigned line = p->line, col = col_of(p, open);
	bool aot = p->end - p->p >= 2 && p->p[1] == '[';
	fg_toml_value *t = p->root;
	const struct key_seg *k;
	struct toml_entry *e;
	char name[256];
	size_t i;
	int ret;

	p->p += aot ? 2 : 1;
	p->nkeys = 0;
	skip_ws(p);
	if ((ret = parse_key(p)) < 0)
		return ret;
	skip_ws(p);
	if (p->p >= p->end || *p->p != ']' || (aot && (p->end - p->p < 2 || p->p[1] != ']')))
		return perr(p, p->p, "expected '%s' to close the table header", aot ? "]]" : "]");
	p->p += aot ? 2 : 1;
	key_text(p, 0, p->nkeys, name, sizeof(name));
	for (i = 0; i + 1 < p->nkeys; i++) {
		k = &p->keys[i];
		if (!(e = lookup(t, k))) {
			if (!(t = add_table(p, t, k, 0)))
				return FG_ENOMEM;
			continue;
		}
		t = e->value;
		if (t->type == FG_TOML_ARRAY && (t->flags & AF_TABLES)) {
			t = t->u.arr.items[t->u.arr.len - 1];
		} else if (t->type != FG_TOML_TABLE) {
			return perr_at(p, k->line, k->col, "cannot define [%s]: `%.*s` is a%s %s (line %u), not a table",
				       name, (int)k->len, k->s, t->type == FG_TOML_ARRAY || t->type == FG_TOML_INTEGER ? "n" : "",
				       fg_toml_type_name(t->type), t->line);
		} else if (t->flags & TF_FROZEN) {
			return perr_at(p, k->line, k->col, "cannot define [%s]: `%.*s` is an inline table (line %u), complete once closed",
				       name, (int)k->len, k->s, t->line);
		}
	}
	k = &p->keys[p->nkeys - 1];
	e = lookup(t, k);
	if (aot) {
		fg_toml_value *arr, *elem;

		if (!e) {
			long idx = fg_toml__table_add(p->arena, t, k->s, k->len, k->line, k->col);

			if (idx < 0 || !(arr = fg_toml__value_new(p->arena, FG_TOML_ARRAY, line, col)))
				return FG_ENOMEM;
			arr->flags = AF_TABLES;
			t->u.tab.items[idx].value = arr;
		} else if (e->value->type != FG_TOML_ARRAY || !(e->value->flags & AF_TABLES)) {
			return perr_at(p, line, col, "cannot define [[%s]]: `%s` is already a%s %s (line %u), not an array of tables",
				       name, name, e->value->type == FG_TOML_ARRAY || e->value->type == FG_TOML_INTEGER ? "n" : "",
				       fg_toml_type_name(e->value->type), e->value->line);
		} else {
			arr = e->value;
		}
		if (!(elem = fg_toml__value_new(p->arena, FG_TOML_TABLE, line, col)) ||
		    fg_toml__array_push(p->arena, arr, elem) < 0)
			return FG_ENOMEM;
		elem->flags = TF_DEFINED | TF_AOT_ELEM;
		p->cur = elem;
		return 0;
	}
	if (!e) {
		if (!(p->cur = add_table(p, t, k, TF_DEFINED)))
			return FG_ENOMEM;
		p->cur->line = line;
		p->cur->col = col;
		return 0;
	}
	t = e->value;
	if (t->type != FG_TOML_TABLE)
		return perr_at(p, line, col, "cannot define [%s]: it is already a%s %s (line %u)",
			       name, t->type == FG_TOML_ARRAY || t->type == FG_TOML_INTEGER ? "n" : "",
			       fg_toml_type_name(t->type), t->line);
	if (t->flags & TF_DOTTED)
		return perr_at(p, line, col, "cannot define [%s]: dotted keys already made it a table (line %u)",
			       name, t->line);
	if (t->flags & TF_DEFINED)
		return perr_at(p, line, col, "table [%s] is defined twice (first at line %u)",
			       name, t->line);
	t->flags |= TF_DEFINED;
	t->line = line;
	t->col = col;
	p->cur = t;
	return 0;
}

static int parse_document(struct parser *p)
{
	int ret;

	for (;;) {
		skip_ws(p);
		if (p->p >= p->end)
			return 0;
		if (*p->p == '[') {
			if ((ret = parse_header(p)) < 0 ||
			    (ret = end_of_line(p, "a table header")) < 0)
				return ret;
		} else if (*p->p == '#' || at_newline(p)) {
			if ((ret = end_of_line(p, "a comment")) < 0)
				return ret;
		} else {
			p->nkeys = 0;
			if ((ret = parse_keyval(p, p->cur)) < 0 ||
			    (ret = end_of_line(p, "a value")) < 0)
				return ret;
		}
	}
}

int fg_toml_parse(fg_toml **out, const char *data, size_t len,
		  const char *filename)
{
	struct parser p;
	fg_toml *doc = NULL;
	int ret;

	*out = NULL;
	memset(&p, 0, sizeof(p));
	fg_strbuf_init(&p.sb, 0);
	if (!(doc = fg_calloc(1, sizeof(*doc))) ||
	    !(doc->filename = fg_strdup(filename ? filename : "<input>")) ||
	    !(doc->root = fg_toml__value_new(&doc->arena, FG_TOML_TABLE, 1, 1))) {
		ret = FG_ENOMEM;
		goto done;
	}
	doc->root->flags = TF_DEFINED;
	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		data += 3, len -= 3;
	p.p = p.line_start = data;
	p.end = data + len;
	p.line = 1;
	p.filename = doc->filename;
	p.arena = &doc->arena;
	p.root = p.cur = doc->root;
	if ((ret = check_utf8(&p)) < 0)
		goto done;
	p.line = 1;
	p.line_start = data;
	if ((ret = parse_document(&p)) < 0)
		goto done;
	*out = doc;
	doc = NULL;
done:
	if (ret == FG_ENOMEM && fg_error_last_code() != FG_ENOMEM)
		fg_error_set(FG_ENOMEM, "out of memory while reading %s",
			     filename ? filename : "TOML");
	if (p.c_locale)
		freelocale(p.c_locale);
	free(p.keys);
	fg_strbuf_release(&p.sb);
	fg_toml_free(doc);
	return ret;
}


/* ------------------------------------------------------------------------
 * Path lookup reuses the key grammar */

const fg_toml_value *fg_toml_table_get_path(const fg_toml_value *table,
					    const char *path)
{
	fg_arena arena = FG_ARENA_INIT;
	const fg_toml_value *t = table;
	struct parser p;
	size_t i;

	memset(&p, 0, sizeof(p));
	fg_strbuf_init(&p.sb, 0);
	p.p = p.line_start = path;
	p.end = path + strlen(path);
	p.line = 1;
	p.filename = "<key path>";
	p.arena = &arena;
	skip_ws(&p);
	if (parse_key(&p) < 0 || p.p != p.end) {
		t = NULL;
		goto done;
	}
	for (i = 0; t && i < p.nkeys; i++)
		t = fg_toml_get_n(t, p.keys[i].s, p.keys[i].len);
done:
	free(p.keys);
	fg_strbuf_release(&p.sb);
	fg_arena_release(&arena);
	return t;
}
