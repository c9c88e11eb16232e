#ifndef WORDSTAT_H
#define WORDSTAT_H

#include <stddef.h>
#include <stdint.h>

uint64_t ws_hash(const char *s, size_t n);

typedef struct ws_table ws_table;
ws_table *ws_table_new(size_t slots);
void ws_table_free(ws_table *t);
/* Counts every word (letters only) of text. */
void ws_count_text(ws_table *t, const char *text, size_t len);
size_t ws_distinct(const ws_table *t);
uint64_t ws_checksum(const ws_table *t);

/* `words` pseudo-random words from a small vocabulary, malloc'd. */
char *ws_make_text(size_t words, unsigned seed, size_t *len);

#endif
