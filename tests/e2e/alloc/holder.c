/* A library that holds a block for its whole life, freed in its
 * destructor (tests/e2e/alloc/leaks.c). */
#include <stdlib.h>

static void *held;

__attribute__((constructor)) static void hold(void)
{
	held = malloc(5000);
}

__attribute__((destructor)) static void release(void)
{
	free(held);
}

void holder_touch(void)
{
}
