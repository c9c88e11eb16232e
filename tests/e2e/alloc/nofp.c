/* Allocates from a chain of calls built without frame pointers (the test
 * compiles it -O2 -fomit-frame-pointer): main -> level1 -> level2 ->
 * leaf, which calls malloc 10 times. A frame-pointer walk loses the
 * chain; the .eh_frame walk reaches main. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile size_t sink;

__attribute__((noinline)) static char *leaf(size_t n)
{
	char *p = malloc(n);
	if (p)
		memset(p, 1, n);
	sink += n;
	return p;
}

__attribute__((noinline)) static size_t level2(size_t n)
{
	char *p = leaf(n);
	size_t r = p ? (size_t)p[0] + n : 0;
	free(p);
	return r + sink;
}

__attribute__((noinline)) static size_t level1(size_t n)
{
	size_t r = 0;
	for (int i = 0; i < 10; i++)
		r += level2(n + (size_t)i);
	return r * 3 + sink;
}

int main(void)
{
	printf("%zu\n", level1(100));
	return 0;
}
