/* The stacks a worker has counted, by the cached lines they were read
 * from (see fg_cstacks in internal.h). A stack's key is as long as the
 * text of its frames, a few KB for deep stacks: assembling, hashing and
 * comparing it for every event cost a fifth of collapsing perf script
 * text. Its lines' ids are a few bytes each. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/collapse/internal.h"
#include "util/banned.h"

/* The budget: past it the cache is emptied between chunks. Fuzzing
 * builds (small chunks) shrink it, so that small inputs reach that. */
#ifdef FG_COLLAPSE_CHUNK_SIZE
#define MAX_STACKS ((size_t)16)
#define MAX_BYTES ((size_t)4096)
#else
#define MAX_STACKS ((size_t)1 << 15)
#define MAX_BYTES ((size_t)4 << 20)
#endif

uint64_t fg_cstacks_hash(fg_view pname, const uint32_t *ids, size_t n)
{
	return fg_hash_bytes(ids, n * sizeof(*ids)) ^
	       fg_hash_bytes(pname.ptr, pname.len) * 0x9e3779b97f4a7c15ULL;
}

const fg_cstack *fg_cstacks_find(const fg_cstacks *s, uint64_t hash, fg_view pname,
				 const uint32_t *ids, size_t n)
{
	size_t mask = s->cap - 1, i;

	if (!s->cap)
		return NULL;
	for (i = hash & mask;; i = (i + 1) & mask) {
		const fg_cstack *e = &s->slots[i];
		if (!e->pname)
			return NULL;
		/* (ids and pname.ptr may be NULL when their length is 0) */
		if (e->hash == hash && e->n == n && e->plen == pname.len &&
		    (!n || !memcmp(e->ids, ids, n * sizeof(*ids))) &&
		    (!pname.len || !memcmp(e->pname, pname.ptr, pname.len)))
			return e;
	}
}

static int grow(fg_cstacks *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024, i, j;
	fg_cstack *slots = fg_calloc(cap, sizeof(*slots));

	if (!slots)
		return FG_ENOMEM;
	for (i = 0; i < s->cap; i++) {
		if (!s->slots[i].pname)
			continue;
		for (j = s->slots[i].hash & (cap - 1); slots[j].pname; j = (j + 1) & (cap - 1))
			;
		slots[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

int fg_cstacks_add(fg_cstacks *s, uint64_t hash, fg_view pname, const uint32_t *ids, size_t n,
		   const fg_strmap_entry *e)
{
	size_t bytes = n * sizeof(*ids) + pname.len, i;
	fg_cstack *slot;
	char *copy;

	if (s->count >= MAX_STACKS || s->bytes >= MAX_BYTES || n > UINT32_MAX ||
	    pname.len > UINT32_MAX)
		return 0; /* full until the next chunk */
	if (s->count + 1 > s->cap / 2 && grow(s))
		return FG_ENOMEM;
	/* the ids first: the arena aligns the block for them */
	if (!(copy = fg_arena_alloc(&s->arena, bytes ? bytes : 1)))
		return FG_ENOMEM;
	if (n)
		memcpy(copy, ids, n * sizeof(*ids));
	if (pname.len)
		memcpy(copy + n * sizeof(*ids), pname.ptr, pname.len);
	for (i = hash & (s->cap - 1); s->slots[i].pname; i = (i + 1) & (s->cap - 1))
		;
	slot = &s->slots[i];
	slot->ids = (const uint32_t *)(void *)copy;
	slot->pname = copy + n * sizeof(*ids);
	slot->plen = (uint32_t)pname.len;
	slot->n = (uint32_t)n;
	slot->hash = hash;
	slot->key = e->key;
	slot->key_hash = e->hash;
	s->count++;
	s->bytes += bytes + 2 * sizeof(*slot);
	return 0;
}

void fg_cstacks_chunk(fg_cstacks *s, bool lines_emptied)
{
	if (!s->count || (!lines_emptied && s->count < MAX_STACKS && s->bytes < MAX_BYTES))
		return;
	memset(s->slots, 0, s->cap * sizeof(*s->slots));
	fg_arena_release(&s->arena);
	s->count = s->bytes = 0;
}

void fg_cstacks_release(fg_cstacks *s)
{
	free(s->slots);
	fg_arena_release(&s->arena);
	memset(s, 0, sizeof(*s));
}
