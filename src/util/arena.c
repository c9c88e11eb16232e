#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "util/arena.h"
#include "util/strbuf.h"
#include "util/banned.h"

struct fg_arena_block {
	struct fg_arena_block *next;
	size_t size, used;
	max_align_t data[];
};

void *fg_arena_alloc(fg_arena *a, size_t n)
{
	const size_t align = sizeof(max_align_t);
	struct fg_arena_block *b = a->head;
	size_t rounded, size;

	if (!fg_add_size(n, align - 1, &rounded)) {
		fg_error_set(FG_ENOMEM, "arena allocation overflow");
		return NULL;
	}
	rounded &= ~(align - 1);
	if (!b || b->size - b->used < rounded) {
		size = a->block_size ? a->block_size : 64 * 1024;
		if (size < rounded)
			size = rounded;
		if (!fg_add_size(size, sizeof(*b), &n)) {
			fg_error_set(FG_ENOMEM, "arena allocation overflow");
			return NULL;
		}
		if (!(b = malloc(n))) {
			fg_nomem(n);
			return NULL;
		}
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
		if (a->block_size < 1024 * 1024)
			a->block_size = size * 2; /* fewer blocks for big inputs */
	}
	a->used_bytes += rounded;
	b->used += rounded;
	return (char *)b->data + b->used - rounded;
}

char *fg_arena_strndup(fg_arena *a, const char *s, size_t n)
{
	size_t total;
	char *p;

	if (!fg_add_size(n, 1, &total) || !(p = fg_arena_alloc(a, total)))
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void fg_arena_release(fg_arena *a)
{
	struct fg_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
	a->block_size = 0;
	a->used_bytes = 0;
}
