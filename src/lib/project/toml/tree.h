/* Internal to the TOML reader: the tree's layout, shared by the parser
 * (parse.c) and the tree builders and accessors (tree.c). */
#ifndef FG_LIB_PROJECT_TOML_TREE_H
#define FG_LIB_PROJECT_TOML_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/project/toml/toml.h"
#include "util/arena.h"

/* Table flags: how a table came to exist decides what may extend it later. */
enum {
	TF_DEFINED = 1,  /* by its own [header], or an inline table */
	TF_DOTTED = 2,   /* created by a dotted key (a.b = 1 creates a) */
	TF_FROZEN = 4,   /* an inline table: complete once its `}` is read */
	TF_AOT_ELEM = 8, /* an element of an array of tables */
};
/* Array flag: made by [[header]], so further [[header]]s may append. */
#define AF_TABLES 1

struct toml_entry {
	const char *key;
	size_t len;
	unsigned line, col;
	fg_toml_value *value;
};

struct fg_toml_value {
	unsigned char type, flags;
	unsigned line, col;
	union {
		struct {
			const char *s;
			size_t len;
		} str; /* strings and the four date/time kinds */
		int64_t i;
		double d;
		bool b;
		struct {
			struct toml_entry *items;
			size_t len, cap;
			unsigned *index; /* entry number + 1, 0 = empty slot */
			size_t index_cap;
		} tab;
		struct {
			fg_toml_value **items;
			size_t len, cap;
		} arr;
	} u;
};

struct fg_toml {
	fg_arena arena;
	fg_toml_value *root;
	char *filename;
};

/* A new value of `type` at line:col, zeroed; NULL on FG_ENOMEM. */
fg_toml_value *fg_toml__value_new(fg_arena *a, int type, unsigned line,
				  unsigned col);
/* The entry number of key in table t, or (size_t)-1. */
size_t fg_toml__table_find(const fg_toml_value *t, const char *key, size_t len);
/* Appends a key (copied into the arena) whose value the caller sets;
 * returns the entry number or a negative FG_E* code. */
long fg_toml__table_add(fg_arena *a, fg_toml_value *t, const char *key,
			size_t len, unsigned line, unsigned col);
/* Appends v to an array; 0 or FG_ENOMEM. */
int fg_toml__array_push(fg_arena *a, fg_toml_value *arr, fg_toml_value *v);

#endif
