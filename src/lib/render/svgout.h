/* Output helpers for the SVG writer: a large buffer flushed to the FILE in
 * big writes, fast number formatting and XML/JS escaping. */
#ifndef FG_LIB_RENDER_SVGOUT_H
#define FG_LIB_RENDER_SVGOUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/bytes.h"
#include "util/strbuf.h"

typedef struct fg_svgout {
	fg_strbuf buf;
	FILE *out;
	int err;          /* first error; later writes are no-ops */
} fg_svgout;

/* Flushes when the buffer holds more than this many bytes. */
#define FG_SVGOUT_FLUSH (1u << 20)

void fg_svgout_flush(fg_svgout *o);
/* fg_svgout_room when the buffer lacks room (or after an error). */
char *fg_svgout_room_slow(fg_svgout *o, size_t n);

/* Where to write up to n bytes, NULL after an error (nothing is written
 * then); fg_svgout_wrote(o, end) keeps what was written up to end. A
 * frame is written this way, its room asked for once. */
static inline char *fg_svgout_room(fg_svgout *o, size_t n)
{
	if (o->buf.alloc - o->buf.len > n)
		return o->buf.buf + o->buf.len;
	return fg_svgout_room_slow(o, n);
}

static inline void fg_svgout_wrote(fg_svgout *o, char *end)
{
	o->buf.len = (size_t)(end - o->buf.buf);
}

/* The header is written in many small pieces: inline, a literal's length
 * known when compiling. The buffer keeps room for a NUL, as an fg_strbuf
 * does, but is not terminated: only fg_svgout_flush reads it. */
static inline void fg_svgout_add(fg_svgout *o, const char *s, size_t n)
{
	char *p = fg_svgout_room(o, n);

	if (p)
		fg_svgout_wrote(o, fg_put_bytes(p, s, n));
}

static inline void fg_svgout_str(fg_svgout *o, const char *s)
{
	fg_svgout_add(o, s, strlen(s));
}
void fg_svgout_u64(fg_svgout *o, uint64_t v);
/* v with exactly `decimals` digits after the point (0..6). */
void fg_svgout_fixed(fg_svgout *o, double v, int decimals);
/* XML character data or attribute value: & < > " ' escaped, control
 * characters and invalid UTF-8 replaced with U+FFFD, so the document stays
 * well-formed whatever bytes a symbol name holds. */
void fg_svgout_xml(fg_svgout *o, const char *s, size_t n);

/* The same, written at p (room for what the comment of each says);
 * each returns the end of what it wrote. */
#define FG_PUT_NUMBER_MAX 480        /* any number below */
#define FG_PUT_XML_MAX(n) (6 * (n)) /* "&quot;" for '"' */
#define FG_PUT_LIT(p, lit) ((char *)memcpy((p), (lit), sizeof(lit) - 1) + sizeof(lit) - 1)
char *fg_put_u64(char *p, uint64_t v);
char *fg_put_fixed(char *p, double v, int decimals);
/* An unsigned integer with thousands separators ("1,234,567"). */
char *fg_put_grouped(char *p, uint64_t v);
/* v * factor rounded to a whole number, with thousands separators: exact
 * for factor 1, never "0" for a product too large for a double. */
char *fg_put_scaled(char *p, uint64_t v, double factor);
char *fg_put_xml(char *p, const char *s, size_t n);
/* The body of a JSON string: quotes, backslash, < > & and control
 * characters as \u00XX, invalid UTF-8 as \ufffd; at most
 * FG_PUT_JSON_MAX(n) bytes. Safe inside an HTML <script> element. */
#define FG_PUT_JSON_MAX(n) (6 * (n))
char *fg_put_json(char *p, const char *s, size_t n);
/* The same with its quotes, into o. */
void fg_svgout_json(fg_svgout *o, const char *s, size_t n);
/* The body of a JavaScript string literal, safe inside CDATA. */
void fg_svgout_js(fg_svgout *o, const char *s);

/* Length of the longest prefix of s[0..n) that is at most max bytes and
 * does not end inside a UTF-8 sequence. */
size_t fg_utf8_prefix(const char *s, size_t n, size_t max);
/* Number of characters (UTF-8 lead bytes) in s[0..n). */
size_t fg_utf8_chars(const char *s, size_t n);

#endif
