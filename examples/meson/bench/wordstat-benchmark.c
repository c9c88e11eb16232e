#define _POSIX_C_SOURCE 199309L
/* wordstat-benchmark --words N: hashes the words of a generated text
 * $WORDSTAT_BENCH_REPEAT times and prints MB/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wordstat.h"

int main(int argc, char **argv)
{
	const char *rep = getenv("WORDSTAT_BENCH_REPEAT");
	long words = 0, repeat = rep ? strtol(rep, NULL, 10) : 1;
	struct timespec a, b;
	uint64_t h = 0;
	size_t len;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--words"))
			words = strtol(argv[i + 1], NULL, 10);
	if (words < 1 || repeat < 1) {
		fprintf(stderr, "wordstat-benchmark: needs --words N\n");
		return 1;
	}
	char *text = ws_make_text((size_t)words, 3, &len);
	if (!text)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long r = 0; r < repeat; r++)
		for (size_t i = 0; i + 8 <= len; i += 4)
			h += ws_hash(text + i, 8 + (i & 7));
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("hash: %.1f MB/s (%llx)\n", (double)len * (double)repeat / s / 1e6, (unsigned long long)h);
	free(text);
	return 0;
}
