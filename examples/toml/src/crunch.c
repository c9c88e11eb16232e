/* crunch: multiplies matrices (and checksums them with the default
 * `checksum` feature). Usage: crunch [--rounds N] [--size N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

int main(int argc, char **argv)
{
	size_t n = 220, rounds = 6;
	double *a, *b, *c, acc = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rounds"))
			rounds = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--size"))
			n = strtoul(argv[i + 1], NULL, 10);
		else {
			fprintf(stderr, "crunch: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	a = malloc(n * n * sizeof(*a));
	b = malloc(n * n * sizeof(*b));
	c = malloc(n * n * sizeof(*c));
	if (!a || !b || !c)
		return 1;
	for (size_t r = 0; r < rounds; r++) {
		fill_matrix(a, n, (unsigned)r);
		fill_matrix(b, n, (unsigned)r + 7);
		multiply(c, a, b, n);
		acc += c[(r * 31) % (n * n)];
#ifdef WITH_CHECKSUM
		acc += (double)(checksum_rows(c, n) & 0xff);
#endif
	}
	printf("crunch %s: %zu rounds of %zux%zu, result %.1f\n", CRUNCH_VERSION, rounds, n, n, acc);
	free(a);
	free(b);
	free(c);
	return 0;
}
