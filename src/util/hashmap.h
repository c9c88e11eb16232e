/* fg_strmap: an open-addressing hash map from byte strings to a 64-bit
 * value, with keys copied into the map's own arena. Used for stack counts
 * and string interning; lookups never allocate. */
#ifndef FG_UTIL_HASHMAP_H
#define FG_UTIL_HASHMAP_H

#include <stdint.h>
#include <stddef.h>

#include "util/arena.h"

typedef union fg_value {
	uint64_t u;
	int64_t i;
	double d;
	void *p;
} fg_value;

typedef struct fg_strmap_entry {
	const char *key;   /* NUL-terminated copy in the map's arena, or the
			    * caller's bytes (fg_strmap_put_borrowed) */
	size_t len;
	uint64_t hash;
	fg_value value;
} fg_strmap_entry;

typedef struct fg_strmap {
	fg_strmap_entry *slots;
	size_t cap;    /* power of two, or 0 */
	size_t count;
	fg_arena keys;
} fg_strmap;

#define FG_STRMAP_INIT { NULL, 0, 0, FG_ARENA_INIT }

/* A fast, well-mixed 64-bit hash of n bytes. */
uint64_t fg_hash_bytes(const void *p, size_t n);
/* Another, faster on long keys (hundreds of bytes: folded stacks), for a
 * map whose every entry is put with it (fg_strmap_put_hashed); not the
 * same values as fg_hash_bytes from 64 bytes on. */
uint64_t fg_hash_long(const void *p, size_t n);

/* Finds the entry for key, or NULL. */
fg_strmap_entry *fg_strmap_get(const fg_strmap *m, const char *key, size_t len);
/* Finds or inserts (value zeroed) the entry for key; NULL on FG_ENOMEM.
 * Entry pointers stay valid until the next insertion. */
fg_strmap_entry *fg_strmap_put(fg_strmap *m, const char *key, size_t len);
/* Same, with the hash already computed by fg_hash_bytes. */
fg_strmap_entry *fg_strmap_put_hashed(fg_strmap *m, const char *key, size_t len,
				      uint64_t hash);
/* Same, but a new entry's key is key itself, not a copy: the caller keeps
 * those bytes unchanged for the map's lifetime; they need no NUL. */
fg_strmap_entry *fg_strmap_put_borrowed(fg_strmap *m, const char *key, size_t len,
					uint64_t hash);
/* The entry whose key is the very pointer key (as an entry's key field
 * held it), found from its hash without comparing bytes; NULL when no
 * entry of m has it. */
fg_strmap_entry *fg_strmap_find_stored(const fg_strmap *m, const char *key, uint64_t hash);
/* Makes room for n entries in all, so that filling the map to n rehashes
 * nothing; 0 or FG_ENOMEM. */
int fg_strmap_reserve(fg_strmap *m, size_t n);
/* Returns a stable interned copy of key (same pointer for equal keys). */
const char *fg_strmap_intern(fg_strmap *m, const char *key, size_t len);

/* Iteration: `for (i = 0; (e = fg_strmap_next(m, &i)); )`. */
fg_strmap_entry *fg_strmap_next(const fg_strmap *m, size_t *iter);
/* An array of pointers to all entries sorted bytewise by key (free() it). */
fg_strmap_entry **fg_strmap_sorted(const fg_strmap *m);

void fg_strmap_release(fg_strmap *m);
/* Empties the map but keeps the keys it copied where they are: pointers
 * to them stay valid until fg_strmap_release. */
void fg_strmap_clear_keep_keys(fg_strmap *m);

#endif
