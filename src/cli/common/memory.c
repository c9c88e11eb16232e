/* See memory.h. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/common/memory.h"

/* the heap is made this large up front (address space, not memory:
 * pages are only taken when touched) */
#define HEAP_AHEAD ((size_t)96 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

void fg_cli_tune_memory(void)
{
	char *start, *end;
	void *p;

	/* blocks up to this size come from the heap rather than mappings of
	 * their own; the heap keeps what is freed and grows 64 MB at a time */
	mallopt(M_MMAP_THRESHOLD, (int)(HEAP_AHEAD + ((size_t)16 << 20)));
	mallopt(M_TRIM_THRESHOLD, (int)((size_t)512 << 20));
	mallopt(M_TOP_PAD, (int)((size_t)64 << 20));
	start = sbrk(0);
	if (start == (char *)-1 || !(p = malloc(HEAP_AHEAD)))
		return;
	end = sbrk(0);
	/* a malloc that does not use the heap (a sanitizer's) leaves it be */
	if ((char *)p >= start && (char *)p < end) {
		char *from = (char *)(((uintptr_t)start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
		if (from < end)
			madvise(from, (size_t)(end - from), MADV_HUGEPAGE);
	}
	free(p);
}
