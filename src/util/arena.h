/* fg_arena: a bump allocator for many small, same-lifetime objects (frame
 * names, stack keys). Everything is freed at once by fg_arena_release. */
#ifndef FG_UTIL_ARENA_H
#define FG_UTIL_ARENA_H

#include <stddef.h>

struct fg_arena_block;

typedef struct fg_arena {
	struct fg_arena_block *head;
	size_t block_size;  /* default size of new blocks */
	size_t used_bytes;  /* total handed out, for statistics */
} fg_arena;

#define FG_ARENA_INIT { NULL, 0, 0 }

/* Returns n bytes aligned for any type, or NULL (FG_ENOMEM set). */
void *fg_arena_alloc(fg_arena *a, size_t n);
/* Copies n bytes and a NUL into the arena. */
char *fg_arena_strndup(fg_arena *a, const char *s, size_t n);
void fg_arena_release(fg_arena *a);

#endif
