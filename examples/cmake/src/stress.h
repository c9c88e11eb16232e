#ifndef STRESS_H
#define STRESS_H
#include <stddef.h>
#include <stdint.h>

uint64_t hash_bytes(const void *p, size_t n);
uint64_t hash_fnv1a(const void *p, size_t n);
#ifdef STRESS_FAST_HASH
uint64_t hash_fast_mix(const void *p, size_t n);
#endif

struct table;
struct table *table_new(size_t slots);
void table_free(struct table *t);
void table_insert(struct table *t, const char *key, size_t len);
uint64_t table_lookup_all(const struct table *t, unsigned rounds);
#ifdef STRESS_CHECKSUM
uint64_t checksum_block(const struct table *t);
#endif

void sort_work(uint32_t *v, size_t n);
#endif
