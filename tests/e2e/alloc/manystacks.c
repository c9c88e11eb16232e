/* 2^DEPTH distinct allocating stacks: a binary recursion through two call
 * sites, one malloc of 10 bytes at each leaf (freed at once). Usage:
 * manystacks [DEPTH] (default 10); prints "manystacks: N allocations". */
#include <stdio.h>
#include <stdlib.h>

static int count;
static void *volatile sink;
static void walk(int depth);

__attribute__((noinline)) static void left(int depth)
{
	walk(depth - 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void right(int depth)
{
	walk(depth - 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void walk(int depth)
{
	if (depth == 0) {
		sink = malloc(10);
		free(sink);
		count++;
		return;
	}
	left(depth);
	right(depth);
}

int main(int argc, char **argv)
{
	walk(argc > 1 ? atoi(argv[1]) : 10);
	printf("manystacks: %d allocations\n", count);
	return 0;
}
