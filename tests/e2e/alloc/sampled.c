/* A workload for sampled allocation graphs: many blocks of a few sizes,
 * from one function, some of them kept to the end (leaked). Prints, for
 * each size, "size SIZE BLOCKS KEPT", so that a test can compute what an
 * exact recording holds and how far a sampled one may stray from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *kept[1 << 16];
static size_t nkept;

__attribute__((noinline)) static void take_blocks(size_t size, size_t n, size_t keep_every)
{
	for (size_t i = 0; i < n; i++) {
		char *p = malloc(size);
		if (!p)
			exit(1);
		p[0] = (char)i;
		if (keep_every && i % keep_every == 0 && nkept < sizeof(kept) / sizeof(kept[0]))
			kept[nkept++] = p;
		else
			free(p);
	}
}

int main(int argc, char **argv)
{
	static const struct {
		size_t size, n, keep_every;
	} plan[] = {{32, 400000, 0}, {256, 200000, 0}, {4096, 50000, 10}, {65536, 2000, 0}};
	int scale = argc > 1 ? atoi(argv[1]) : 1;

	for (size_t k = 0; k < sizeof(plan) / sizeof(plan[0]); k++) {
		size_t before = nkept, n = plan[k].n * (size_t)(scale > 0 ? scale : 1);
		take_blocks(plan[k].size, n, plan[k].keep_every);
		printf("size %zu %zu %zu\n", plan[k].size, n, nkept - before);
	}
	return 0;
}
