#include <stdlib.h>
#include <string.h>
#include "stress.h"

struct entry {
	char key[32];
	size_t len;
	uint64_t hits;
};

struct table {
	struct entry *slots;
	size_t n;
};

struct table *table_new(size_t slots)
{
	struct table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->slots = calloc(slots, sizeof(*t->slots));
	t->n = slots;
	return t;
}

void table_free(struct table *t)
{
	if (t)
		free(t->slots);
	free(t);
}

void table_insert(struct table *t, const char *key, size_t len)
{
	size_t i = hash_bytes(key, len) % t->n;
	if (len > sizeof(t->slots[0].key))
		len = sizeof(t->slots[0].key);
	while (t->slots[i].len && (t->slots[i].len != len || memcmp(t->slots[i].key, key, len)))
		i = (i + 1) % t->n;
	memcpy(t->slots[i].key, key, len);
	t->slots[i].len = len;
	t->slots[i].hits++;
}

uint64_t table_lookup_all(const struct table *t, unsigned rounds)
{
	uint64_t sum = 0;
	for (unsigned r = 0; r < rounds; r++)
		for (size_t i = 0; i < t->n; i++)
			if (t->slots[i].len)
				sum += hash_bytes(t->slots[i].key, t->slots[i].len) % 7;
	return sum;
}

#ifdef STRESS_CHECKSUM
/* Only compiled with ENABLE_CHECKSUM (on by default). */
uint64_t checksum_block(const struct table *t)
{
	uint64_t a = 1, b = 0;
	for (size_t i = 0; i < t->n; i++)
		for (size_t j = 0; j < sizeof(t->slots[i].key); j++) {
			a = (a + (unsigned char)t->slots[i].key[j]) % 65521;
			b = (b + a) % 65521;
		}
	return (b << 16) | a;
}
#endif
