/* The stack lines a worker has read, and the frames each gave (see
 * fg_clines in internal.h). A profile repeats a few thousand distinct
 * lines for its whole length, so most lines are found here and pushed
 * as they were, without being split and tidied again. A line's caller
 * is most often the caller it had before: each entry points to the line
 * that followed it last time, which is tried first. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/collapse/internal.h"
#include "util/banned.h"

/* The budget: past it the cache is emptied between chunks, so that input
 * of ever new lines costs bounded memory. Fuzzing builds (small chunks)
 * shrink it, so that small inputs reach the emptying too. */
#ifdef FG_COLLAPSE_CHUNK_SIZE
#define MAX_LINES ((size_t)16)
#define MAX_BYTES ((size_t)4096)
#else
#define MAX_LINES ((size_t)1 << 15)
#define MAX_BYTES ((size_t)4 << 20)
#endif

/* Whether the cache pays is judged on the first WINDOW lookups of a
 * chunk: a miss costs about twice what a hit saves, so below 2/3 hits it
 * is left off for the rest of the chunk, then for 1, 2, 4 ... up to
 * MAX_BACKOFF chunks while that goes on. Input of ever new lines then
 * costs a few percent more than without a cache, not twice as much. */
#define WINDOW 8192
#define MAX_BACKOFF 16

static fg_cline *lookup(const fg_clines *c, fg_view key, uint64_t hash, unsigned flags)
{
	size_t mask = c->cap - 1, i;

	if (!c->cap)
		return NULL;
	for (i = hash & mask;; i = (i + 1) & mask) {
		fg_cline *e = c->slots[i];
		if (!e)
			return NULL;
		if (e->hash == hash && e->len == key.len && (e->flags & FG_CLINE_JAVA) == flags &&
		    !memcmp(e->key, key.ptr, key.len))
			return e;
	}
}

/* e follows the line before it (c->prev) in the event being read */
static inline void follow(fg_clines *c, fg_cline *e)
{
	if (c->prev)
		c->prev->next = e;
	c->prev = e;
}

const fg_cline *fg_clines_find(fg_clines *c, fg_view key, unsigned flags, uint64_t *hash)
{
	fg_cline *e = c->prev ? c->prev->next : NULL;

	/* the line that followed the line before last time, most often: no
	 * hash, no probe */
	if (!e || e->len != key.len || (e->flags & FG_CLINE_JAVA) != flags ||
	    memcmp(e->key, key.ptr, key.len))
		e = lookup(c, key, *hash = fg_hash_bytes(key.ptr, key.len), flags);
	if (e)
		follow(c, e);
	c->hits += e != NULL;
	if (++c->lookups == WINDOW && c->hits < WINDOW / 3 * 2)
		c->off = true;
	return e;
}

static int grow(fg_clines *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024, i, j;
	fg_cline **slots = fg_calloc(cap, sizeof(*slots));

	if (!slots)
		return FG_ENOMEM;
	for (i = 0; i < c->cap; i++) {
		if (!c->slots[i])
			continue;
		for (j = c->slots[i]->hash & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
			;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->cap = cap;
	return 0;
}

static bool within(fg_cframe f, fg_view key)
{
	uintptr_t p = (uintptr_t)f.ptr, k = (uintptr_t)key.ptr;

	return p >= k && p + f.len <= k + key.len;
}

int fg_clines_add(fg_clines *c, fg_view key, uint64_t hash, unsigned flags,
		  const fg_cframe *frames, size_t n, const fg_cline **out)
{
	size_t i, bytes = key.len;
	fg_cframe *f = NULL;
	fg_cline *e;
	char *text;

	fg_cline *prev = c->prev;

	*out = NULL;
	c->prev = NULL; /* unless added below */
	if (c->count >= MAX_LINES || c->bytes >= MAX_BYTES || n > UINT16_MAX ||
	    key.len > UINT32_MAX)
		return 0; /* full until the next chunk */
	if (c->count + 1 > c->cap / 2 && grow(c))
		return FG_ENOMEM;
	/* frames that are part of the key point into its copy; others (names
	 * rewritten in the worker's arena) are copied after it */
	for (i = 0; i < n; i++)
		if (!within(frames[i], key))
			bytes += frames[i].len;
	if (!(e = fg_arena_alloc(&c->arena, sizeof(*e))) ||
	    !(text = fg_arena_alloc(&c->arena, bytes ? bytes : 1)) ||
	    (n && !(f = fg_arena_alloc(&c->arena, n * sizeof(*f)))))
		return FG_ENOMEM;
	memcpy(text, key.ptr, key.len);
	bytes = key.len;
	for (i = 0; i < n; i++) {
		f[i] = frames[i];
		if (within(frames[i], key)) {
			f[i].ptr = text + (frames[i].ptr - key.ptr);
		} else {
			memcpy(text + bytes, frames[i].ptr, frames[i].len);
			f[i].ptr = text + bytes;
			bytes += frames[i].len;
		}
	}
	e->key = text;
	e->len = (uint32_t)key.len;
	e->hash = hash;
	e->flags = (uint8_t)flags;
	e->nframes = (uint16_t)n;
	e->frames = f;
	e->next = NULL;
	e->id = (uint32_t)c->count++;
	for (i = hash & (c->cap - 1); c->slots[i]; i = (i + 1) & (c->cap - 1))
		;
	c->slots[i] = e;
	c->bytes += bytes + n * sizeof(*f) + sizeof(*e) + 2 * sizeof(e);
	c->prev = prev;
	follow(c, e);
	*out = e;
	return 0;
}

bool fg_clines_chunk(fg_clines *c)
{
	c->prev = NULL;
	if (c->lookups >= WINDOW) {
		/* judged in the chunk before */
		if (!c->off)
			c->backoff = 0;
		else if (!c->backoff)
			c->backoff = 1;
		else if (c->backoff < MAX_BACKOFF)
			c->backoff *= 2;
		if (c->off)
			c->rest = c->backoff;
	}
	c->lookups = c->hits = 0;
	c->off = c->rest > 0;
	if (c->rest)
		c->rest--;
	if (c->count < MAX_LINES && c->bytes < MAX_BYTES)
		return false;
	memset(c->slots, 0, c->cap * sizeof(*c->slots));
	fg_arena_release(&c->arena);
	c->count = c->bytes = 0;
	return true;
}

void fg_clines_release(fg_clines *c)
{
	free(c->slots);
	fg_arena_release(&c->arena);
	memset(c, 0, sizeof(*c));
}
