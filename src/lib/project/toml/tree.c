/* The TOML document tree: building tables and arrays in the document's
 * arena, and the public read-only accessors. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/project/toml/toml.h"
#include "lib/project/toml/tree.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* Tables up to this many keys are searched linearly; bigger ones get a
 * hash index so that a table with many keys does not parse in n^2. */
#define TOML_LINEAR_KEYS 8

/* ------------------------------------------------------------------------
 * Tree building */

fg_toml_value *fg_toml__value_new(fg_arena *a, int type, unsigned line,
				unsigned col)
{
	fg_toml_value *v = fg_arena_alloc(a, sizeof(*v));

	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = (unsigned char)type;
	v->line = line;
	v->col = col;
	return v;
}

size_t fg_toml__table_find(const fg_toml_value *t, const char *key, size_t len)
{
	size_t i, mask, slot;

	if (!t->u.tab.index) {
		for (i = 0; i < t->u.tab.len; i++) {
			const struct toml_entry *e = &t->u.tab.items[i];
			if (e->len == len && memcmp(e->key, key, len) == 0)
				return i;
		}
		return (size_t)-1;
	}
	mask = t->u.tab.index_cap - 1;
	for (slot = fg_hash_bytes(key, len) & mask;; slot = (slot + 1) & mask) {
		unsigned n = t->u.tab.index[slot];
		const struct toml_entry *e;

		if (!n)
			return (size_t)-1;
		e = &t->u.tab.items[n - 1];
		if (e->len == len && memcmp(e->key, key, len) == 0)
			return n - 1;
	}
}

static void index_insert(fg_toml_value *t, size_t entry)
{
	const struct toml_entry *e = &t->u.tab.items[entry];
	size_t mask = t->u.tab.index_cap - 1;
	size_t slot = fg_hash_bytes(e->key, e->len) & mask;

	while (t->u.tab.index[slot])
		slot = (slot + 1) & mask;
	t->u.tab.index[slot] = (unsigned)(entry + 1);
}

/* Keeps the index at most half full; old index arrays stay in the arena
 * (the total wasted is bounded by the final size). */
static int index_grow(fg_arena *a, fg_toml_value *t)
{
	size_t cap = t->u.tab.index_cap ? t->u.tab.index_cap * 2 : 32;
	size_t bytes, i;

	if (!fg_mul_size(cap, sizeof(unsigned), &bytes))
		return fg_error_set(FG_ENOMEM, "TOML table too large");
	if (!(t->u.tab.index = fg_arena_alloc(a, bytes)))
		return FG_ENOMEM;
	memset(t->u.tab.index, 0, bytes);
	t->u.tab.index_cap = cap;
	for (i = 0; i < t->u.tab.len; i++)
		index_insert(t, i);
	return 0;
}

/* Appends a key (copied into the arena) whose value is set by the caller;
 * returns the entry number or a negative error. */
long fg_toml__table_add(fg_arena *a, fg_toml_value *t, const char *key,
		      size_t len, unsigned line, unsigned col)
{
	struct toml_entry *e;
	size_t n = t->u.tab.len;

	if (n >= 0x7fffffff)
		return fg_error_set(FG_ELIMIT, "TOML table has too many keys");
	if (n == t->u.tab.cap) {
		size_t cap = n ? n * 2 : 4, bytes;
		struct toml_entry *items;

		if (!fg_mul_size(cap, sizeof(*items), &bytes) ||
		    !(items = fg_arena_alloc(a, bytes)))
			return fg_error_set(FG_ENOMEM, "out of memory (TOML table)");
		if (n)
			memcpy(items, t->u.tab.items, n * sizeof(*items));
		t->u.tab.items = items;
		t->u.tab.cap = cap;
	}
	e = &t->u.tab.items[n];
	if (!(e->key = fg_arena_strndup(a, key, len)))
		return FG_ENOMEM;
	e->len = len;
	e->line = line;
	e->col = col;
	e->value = NULL;
	t->u.tab.len = n + 1;
	if (t->u.tab.index || n + 1 > TOML_LINEAR_KEYS) {
		if ((n + 1) * 2 > t->u.tab.index_cap) {
			if (index_grow(a, t) < 0)
				return FG_ENOMEM;
		} else {
			index_insert(t, n);
		}
	}
	return (long)n;
}

int fg_toml__array_push(fg_arena *a, fg_toml_value *arr, fg_toml_value *v)
{
	size_t n = arr->u.arr.len;

	if (n == arr->u.arr.cap) {
		size_t cap = n ? n * 2 : 4, bytes;
		fg_toml_value **items;

		if (!fg_mul_size(cap, sizeof(*items), &bytes) ||
		    !(items = fg_arena_alloc(a, bytes)))
			return fg_error_set(FG_ENOMEM, "out of memory (TOML array)");
		if (n)
			memcpy(items, arr->u.arr.items, n * sizeof(*items));
		arr->u.arr.items = items;
		arr->u.arr.cap = cap;
	}
	arr->u.arr.items[n] = v;
	arr->u.arr.len = n + 1;
	return 0;
}

void fg_toml_free(fg_toml *doc)
{
	if (!doc)
		return;
	fg_arena_release(&doc->arena);
	free(doc->filename);
	free(doc);
}

/* ------------------------------------------------------------------------
 * Accessors */

const fg_toml_value *fg_toml_root(const fg_toml *doc)
{
	return doc->root;
}

const char *fg_toml_filename(const fg_toml *doc)
{
	return doc->filename;
}

int fg_toml_error(const fg_toml *doc, const fg_toml_value *v,
		  const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fg_error_set(FG_EPARSE, "%s:%u:%u: %s", doc->filename,
			    v ? v->line : 1, v ? v->col : 1, msg);
}

enum fg_toml_type fg_toml_type(const fg_toml_value *v)
{
	return (enum fg_toml_type)v->type;
}

const char *fg_toml_type_name(enum fg_toml_type type)
{
	static const char *const names[] = {
		"table", "array", "string", "integer", "float", "boolean",
		"offset date-time", "local date-time", "local date", "local time",
	};

	if ((unsigned)type >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[type];
}

unsigned fg_toml_line(const fg_toml_value *v)
{
	return v->line;
}

unsigned fg_toml_column(const fg_toml_value *v)
{
	return v->col;
}

const fg_toml_value *fg_toml_get_n(const fg_toml_value *table,
				   const char *key, size_t len)
{
	size_t i;

	if (!table || table->type != FG_TOML_TABLE)
		return NULL;
	i = fg_toml__table_find(table, key, len);
	return i == (size_t)-1 ? NULL : table->u.tab.items[i].value;
}

const fg_toml_value *fg_toml_get(const fg_toml_value *table, const char *key)
{
	return fg_toml_get_n(table, key, strlen(key));
}


size_t fg_toml_table_size(const fg_toml_value *table)
{
	return table && table->type == FG_TOML_TABLE ? table->u.tab.len : 0;
}

const char *fg_toml_table_key(const fg_toml_value *table, size_t i,
			      const fg_toml_value **value, size_t *len)
{
	const struct toml_entry *e;

	if (i >= fg_toml_table_size(table))
		return NULL;
	e = &table->u.tab.items[i];
	if (value)
		*value = e->value;
	if (len)
		*len = e->len;
	return e->key;
}

bool fg_toml_table_key_pos(const fg_toml_value *table, size_t i,
			   unsigned *line, unsigned *column)
{
	if (i >= fg_toml_table_size(table))
		return false;
	*line = table->u.tab.items[i].line;
	*column = table->u.tab.items[i].col;
	return true;
}

size_t fg_toml_array_len(const fg_toml_value *array)
{
	return array && array->type == FG_TOML_ARRAY ? array->u.arr.len : 0;
}

const fg_toml_value *fg_toml_array_at(const fg_toml_value *array, size_t i)
{
	if (i >= fg_toml_array_len(array))
		return NULL;
	return array->u.arr.items[i];
}

const char *fg_toml_string(const fg_toml_value *v, size_t *len)
{
	if (!v || v->type != FG_TOML_STRING)
		return NULL;
	if (len)
		*len = v->u.str.len;
	return v->u.str.s;
}

bool fg_toml_int(const fg_toml_value *v, int64_t *out)
{
	if (!v || v->type != FG_TOML_INTEGER)
		return false;
	*out = v->u.i;
	return true;
}

bool fg_toml_float(const fg_toml_value *v, double *out)
{
	if (!v || v->type != FG_TOML_FLOAT)
		return false;
	*out = v->u.d;
	return true;
}

bool fg_toml_bool(const fg_toml_value *v, bool *out)
{
	if (!v || v->type != FG_TOML_BOOL)
		return false;
	*out = v->u.b;
	return true;
}

const char *fg_toml_datetime(const fg_toml_value *v)
{
	if (!v || v->type < FG_TOML_DATETIME || v->type > FG_TOML_TIME_LOCAL)
		return NULL;
	return v->u.str.s;
}
