/* A strict TOML 1.0 reader, for flamegraph.toml and friends.
 *
 *   fg_toml *doc;
 *   if (fg_toml_parse(&doc, text, len, "flamegraph.toml") < 0)
 *       ... fg_error_last() is "flamegraph.toml:12:8: what is wrong"
 *   const fg_toml_value *bins = fg_toml_get(fg_toml_root(doc), "bin");
 *   ...
 *   fg_toml_free(doc);
 *
 * Ownership: the document owns every value, key and string reachable from
 * it (all live in one arena); pointers handed out stay valid until
 * fg_toml_free(). The input buffer is not referenced after fg_toml_parse()
 * returns. A parsed document is read-only, so several threads may read it.
 *
 * Every value remembers where it was written (line and column, both
 * 1-based, the column counted in characters) so that a schema reader can
 * point at the offending value; fg_toml_error() formats such a message. */
#ifndef FG_LIB_PROJECT_TOML_TOML_H
#define FG_LIB_PROJECT_TOML_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fg_toml fg_toml;             /* a parsed document */
typedef struct fg_toml_value fg_toml_value; /* one node of its tree */

enum fg_toml_type {
	FG_TOML_TABLE,
	FG_TOML_ARRAY,
	FG_TOML_STRING,
	FG_TOML_INTEGER,
	FG_TOML_FLOAT,
	FG_TOML_BOOL,
	FG_TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
	FG_TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
	FG_TOML_DATE_LOCAL,     /* 1979-05-27 */
	FG_TOML_TIME_LOCAL,     /* 07:32:00.999 */
};

/* Parses `len` bytes of TOML (need not be NUL-terminated; a leading UTF-8
 * BOM is skipped). `filename` (may be NULL: "<input>") is only used in
 * error messages and is copied.
 * Returns 0 and sets *out (free with fg_toml_free), or:
 *   FG_EPARSE  the text is not valid TOML 1.0; fg_error_last() says
 *              "FILE:LINE:COL: what is wrong";
 *   FG_ENOMEM  out of memory.
 * On failure *out is NULL. */
int fg_toml_parse(fg_toml **out, const char *data, size_t len,
		  const char *filename);

/* Frees the document and everything in it; NULL is a no-op. */
void fg_toml_free(fg_toml *doc);

/* The top-level table (never NULL). */
const fg_toml_value *fg_toml_root(const fg_toml *doc);

/* The file name given to fg_toml_parse (owned by the document). */
const char *fg_toml_filename(const fg_toml *doc);

/* Sets the last error to FG_EPARSE with "FILE:LINE:COL: " and the
 * printf-style message, pointing at `v` (or at 1:1 when v is NULL), and
 * returns FG_EPARSE. For schema errors:
 *   return fg_toml_error(doc, v, "`sources` must be an array of strings"); */
int fg_toml_error(const fg_toml *doc, const fg_toml_value *v,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The value's type. v must not be NULL. */
enum fg_toml_type fg_toml_type(const fg_toml_value *v);

/* A lower-case name for a type, for messages: "table", "array", "string",
 * "integer", "float", "boolean", "offset date-time", "local date-time",
 * "local date", "local time". */
const char *fg_toml_type_name(enum fg_toml_type type);

/* Where the value starts in the document: 1-based line and column (in
 * characters). For a table this is its [header], its key for tables made
 * by dotted keys, or its `{` for inline tables; for an array its `[`. */
unsigned fg_toml_line(const fg_toml_value *v);
unsigned fg_toml_column(const fg_toml_value *v);

/* --- tables ------------------------------------------------------------ */

/* The value stored under `key` in `table`, or NULL when the key is absent
 * or `table` is NULL or not a table. Keys are compared bytewise. */
const fg_toml_value *fg_toml_get(const fg_toml_value *table, const char *key);
/* Same for a key of `len` bytes (keys may hold U+0000). */
const fg_toml_value *fg_toml_get_n(const fg_toml_value *table,
				   const char *key, size_t len);

/* Follows a dotted path written as a TOML key, e.g. "profile.release" or
 * `features."fast-hash"`, through nested tables. Returns NULL when a step
 * is missing or not a table, or when `path` is not a valid TOML key. */
const fg_toml_value *fg_toml_table_get_path(const fg_toml_value *table,
					    const char *path);

/* Number of keys in a table (0 if v is NULL or not a table). */
size_t fg_toml_table_size(const fg_toml_value *table);

/* The i-th key of a table in document order (the order keys were first
 * written), with its value and length. Returns NULL when i is out of range.
 * `value`, `len` may be NULL. The key is NUL-terminated and owned by the
 * document. Iterate with:
 *   for (i = 0; (key = fg_toml_table_key(t, i, &v, NULL)); i++) */
const char *fg_toml_table_key(const fg_toml_value *table, size_t i,
			      const fg_toml_value **value, size_t *len);

/* Where the i-th key of a table was written (1-based); false when i is out
 * of range. Useful for "unknown key" messages. */
bool fg_toml_table_key_pos(const fg_toml_value *table, size_t i,
			   unsigned *line, unsigned *column);

/* --- arrays ------------------------------------------------------------ */

/* Number of elements (0 if v is NULL or not an array). */
size_t fg_toml_array_len(const fg_toml_value *array);
/* The i-th element, or NULL when out of range or not an array. */
const fg_toml_value *fg_toml_array_at(const fg_toml_value *array, size_t i);

/* --- scalars --------------------------------------------------------------
 * Each getter returns false (and leaves *out alone) when v is NULL or of
 * another type; no conversions are made. */

/* A string's bytes (UTF-8, NUL-terminated, may hold U+0000 before `len`);
 * NULL if v is not a string. `len` may be NULL. */
const char *fg_toml_string(const fg_toml_value *v, size_t *len);
bool fg_toml_int(const fg_toml_value *v, int64_t *out);
bool fg_toml_float(const fg_toml_value *v, double *out);
bool fg_toml_bool(const fg_toml_value *v, bool *out);

/* The text of any of the four date/time kinds, as written but normalised:
 * an upper-case `T` between date and time (a space becomes `T`) and an
 * upper-case `Z`; fractional seconds kept as written. NULL for other
 * types. */
const char *fg_toml_datetime(const fg_toml_value *v);

#ifdef __cplusplus
}
#endif
#endif
