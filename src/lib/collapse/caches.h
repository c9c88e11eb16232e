/* The perf parser's caches, one pair per worker: the stack lines read
 * before (linecache.c) and the stacks counted before (stackcache.c). A
 * profile repeats a few thousand distinct lines and stacks for its
 * whole length; with these most lines are neither split nor tidied
 * again, and most stacks not assembled, hashed and compared as keys of a
 * few KB. See stack_line and emit_cached in perf.c for when they are
 * used, and docs/design-notes.md ("The collapser"). */
#ifndef FG_LIB_COLLAPSE_CACHES_H
#define FG_LIB_COLLAPSE_CACHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/hashmap.h"
#include "util/strbuf.h"

struct fg_cframe; /* internal.h */

/* A worker's memory of the stack lines it has read (linecache.c): the
 * text of a line after its address -> the frames that line pushed, with
 * their names in the cache's own arena (they outlive the chunk). Only
 * lines whose frames depend on nothing but that text and the event's
 * "java" flag are kept: see stack_line in perf.c. */
enum {
	FG_CLINE_JAVA = 1,    /* read in an event of comm "java" (part of the key) */
	FG_CLINE_HEX_PC = 2,  /* valid only where the address is hex digits */
	FG_CLINE_NOFRAME = 4, /* a process name, not a frame: nothing pushed */
};

typedef struct fg_cline {
	const char *key;
	uint32_t len;
	uint8_t flags;
	uint16_t nframes;
	uint64_t hash;
	const struct fg_cframe *frames;
	uint32_t id;           /* 0, 1, 2 ... in the order added (anew once emptied) */
	struct fg_cline *next; /* the line that followed it last time, or NULL */
} fg_cline;

typedef struct fg_clines {
	fg_cline **slots;      /* entries in the arena (NULL: an empty slot) */
	size_t cap, count, bytes;
	fg_arena arena;
	fg_cline *prev;        /* the last line of the event being read, if cached */
	bool off;              /* not to be used in this chunk: lines rarely repeat */
	unsigned rest, backoff; /* chunks it stays off; how many the next time */
	uint64_t lookups, hits; /* in this chunk */
} fg_clines;

/* The entry for key read with these flags (FG_CLINE_JAVA or 0), or
 * NULL; *hash gets key's hash, for fg_clines_add. Counted, to tell
 * whether the cache pays (off: see linecache.c). */
const fg_cline *fg_clines_find(fg_clines *c, fg_view key, unsigned flags, uint64_t *hash);
/* Remembers that key gave frames[0..n) (copied, with their names), the
 * new entry in *out; nothing (*out NULL) when the cache is full. 0 or
 * FG_ENOMEM. */
int fg_clines_add(fg_clines *c, fg_view key, uint64_t hash, unsigned flags,
		  const struct fg_cframe *frames, size_t n, const fg_cline **out);
/* At the start of an event: its first line follows no line. */
static inline void fg_clines_new_event(fg_clines *c)
{
	c->prev = NULL;
}
/* At the start of a chunk, where no frame of the cache is in use:
 * decides whether it is used in this chunk, and empties it when full
 * (true: its ids start again). */
bool fg_clines_chunk(fg_clines *c);
void fg_clines_release(fg_clines *c);

/* A worker's memory of the stacks it has counted (stackcache.c): an
 * event's command (the stack's first frame) and the ids of the cached
 * lines its frames came from -> the key of its entry in the stack map,
 * so that a stack seen before is counted without being assembled,
 * hashed and compared again. Valid as long as the line cache keeps its
 * ids: emptied with it. */
typedef struct fg_cstack {
	const char *pname;     /* NULL: an empty slot */
	uint32_t plen, n;
	const uint32_t *ids;
	uint64_t hash;         /* fg_cstacks_hash of pname and ids */
	const char *key;       /* the map entry's key, as stored */
	uint64_t key_hash;
} fg_cstack;

typedef struct fg_cstacks {
	fg_cstack *slots;
	size_t cap, count, bytes;
	fg_arena arena;
} fg_cstacks;

uint64_t fg_cstacks_hash(fg_view pname, const uint32_t *ids, size_t n);
/* The stack of pname and ids[0..n) (hash: fg_cstacks_hash of them), or
 * NULL. */
const fg_cstack *fg_cstacks_find(const fg_cstacks *s, uint64_t hash, fg_view pname,
				 const uint32_t *ids, size_t n);
/* Remembers that pname and ids[0..n) are counted in the map entry e
 * (nothing when full). 0 or FG_ENOMEM. */
int fg_cstacks_add(fg_cstacks *s, uint64_t hash, fg_view pname, const uint32_t *ids, size_t n,
		   const fg_strmap_entry *e);
/* At the start of a chunk: empties the cache when full, or when the line
 * cache was emptied (lines_emptied). */
void fg_cstacks_chunk(fg_cstacks *s, bool lines_emptied);
void fg_cstacks_release(fg_cstacks *s);

#endif
