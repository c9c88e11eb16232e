/* bench_hash: hashes a buffer repeatedly and prints MB/s. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "stress.h"

__attribute__((noinline)) static uint64_t hash_buffer_loop(const char *buf, size_t len, unsigned reps)
{
	uint64_t acc = 0;
	for (unsigned r = 0; r < reps; r++)
		for (size_t off = 0; off + 64 <= len; off += 64)
			acc += hash_bytes(buf + off, 64);
	return acc;
}

int main(int argc, char **argv)
{
	size_t len = 1 << 20;
	unsigned reps = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000;
	char *buf = malloc(len);
	struct timespec a, b;

	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 131u);
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t acc = hash_buffer_loop(buf, len, reps);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("hash: %.1f MB/s (%llu)\n", (double)len * reps / 1e6 / s, (unsigned long long)acc);
	free(buf);
	return 0;
}
