/* textstat: generates text lines and hashes and sorts them.
 * Usage: textstat [--lines N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

static __attribute__((noinline)) void make_line(char *buf, size_t size, size_t i)
{
	snprintf(buf, size, "line %zu: the quick brown fox %zu jumps over %zu lazy dogs", i,
		 i * 7919 % 1000, i % 97);
}

int main(int argc, char **argv)
{
	size_t lines = 60000;
	int *keys;
	char buf[128];
	uint64_t h = 0;

	if (argc == 3 && !strcmp(argv[1], "--lines"))
		lines = strtoul(argv[2], NULL, 10);
	if (!(keys = malloc(lines * sizeof(*keys))))
		return 1;
	for (int round = 0; round < 25; round++) {
		for (size_t i = 0; i < lines; i++) {
			make_line(buf, sizeof(buf), i + (size_t)round);
			uint64_t x = hash_text(buf, strlen(buf));
			keys[i] = (int)(x >> 33);
			h ^= x;
		}
		sort_ints(keys, lines);
	}
	printf("textstat: %zu lines, %016llx\n", lines, (unsigned long long)h);
	free(keys);
	return 0;
}
