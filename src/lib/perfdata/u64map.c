/* pd_u64map: an open-addressing hash map from 64-bit keys to 64-bit
 * values (see internal.h), for the reader's caches keyed by an address
 * or a DIE offset: no key bytes to hash or compare, as a string map has. */
#include <stdlib.h>

#include "flamegraph/error.h"
#include "lib/perfdata/internal.h"
#include "util/banned.h"

static size_t slot_of(uint64_t key, size_t mask)
{
	uint64_t h = (key ^ key >> 31) * 0x9e3779b97f4a7c15u;

	return (size_t)(h ^ h >> 29) & mask;
}

uint64_t *pd_u64map_get(const pd_u64map *m, uint64_t key)
{
	size_t mask, k;

	if (!m->alloc)
		return NULL;
	mask = m->alloc - 1;
	for (k = slot_of(key, mask); m->slots[k].used; k = (k + 1) & mask)
		if (m->slots[k].key == key)
			return &m->slots[k].value;
	return NULL;
}

/* A free slot for key (the map has one, and not key). */
static struct pd_u64slot *free_slot(pd_u64map *m, uint64_t key)
{
	size_t mask = m->alloc - 1, k;

	for (k = slot_of(key, mask); m->slots[k].used; k = (k + 1) & mask)
		;
	return &m->slots[k];
}

int pd_u64map_put(pd_u64map *m, uint64_t key, uint64_t **value)
{
	struct pd_u64slot *old = m->slots, *s;
	size_t n = m->alloc, i;

	if ((*value = pd_u64map_get(m, key)))
		return 0;
	/* at most half full */
	if ((m->count + 1) * 2 > n) {
		if (!(m->slots = fg_calloc(n ? n * 2 : 256, sizeof(*m->slots)))) {
			m->slots = old;
			return FG_ENOMEM;
		}
		m->alloc = n ? n * 2 : 256;
		for (i = 0; i < n; i++)
			if (old[i].used)
				*free_slot(m, old[i].key) = old[i];
		free(old);
	}
	s = free_slot(m, key);
	s->used = true;
	s->key = key;
	s->value = 0;
	m->count++;
	*value = &s->value;
	return 0;
}

void pd_u64map_release(pd_u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->alloc = m->count = 0;
}
