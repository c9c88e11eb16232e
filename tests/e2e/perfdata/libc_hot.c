/* A program that spends its time in the C library's hot routines
 * (memcpy, strlen, qsort with a comparison of its own, memchr), called
 * from functions with frame pointers: the stacks a frame-pointer chain
 * alone gets wrong. Runs for argv[1] seconds (default 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile size_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void copy_blocks(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < 64; i++)
		memcpy(dst + (i & 3) * len / 8, src + ((i + 1) & 3) * len / 8, len / 2);
}

__attribute__((noinline)) static size_t measure_lines(char **lines, size_t n)
{
	size_t i, total = 0;

	for (i = 0; i < n; i++)
		total += strlen(lines[i]);
	return total;
}

static int by_value(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* many short arrays (of 800 bytes, which qsort sorts with a buffer on
 * the stack), as programs sort small tables */
__attribute__((noinline)) static void sort_values(unsigned *v, size_t n, unsigned seed)
{
	size_t i, at;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = seed >> 8;
	}
	for (at = 0; at + 200 <= n; at += 200)
		qsort(v + at, 200, sizeof(*v), by_value);
}

__attribute__((noinline)) static size_t find_bytes(const char *buf, size_t len)
{
	size_t found = 0;
	const char *p = buf, *end = buf + len;

	while (p < end && (p = memchr(p, 'x', (size_t)(end - p)))) {
		found++;
		p++;
	}
	return found;
}

__attribute__((noinline)) static void round_of_work(char *a, char *b, size_t len, char **lines,
						    size_t nlines, unsigned *v, size_t nv,
						    unsigned seed)
{
	copy_blocks(a, b, len);
	sink += measure_lines(lines, nlines);
	sort_values(v, nv, seed);
	sink += find_bytes(a, len);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end;
	size_t len = 1 << 20, nlines = 4096, nv = 20000, i;
	char *a = malloc(len), *b = malloc(len), **lines = malloc(nlines * sizeof(*lines));
	unsigned *v = malloc(nv * sizeof(*v)), seed = 1;

	if (!a || !b || !lines || !v)
		return 1;
	memset(b, 'y', len);
	for (i = 0; i < len; i += 997)
		b[i] = 'x';
	for (i = 0; i < nlines; i++) {
		size_t n = 64 + (i * 37) % 900;
		if (!(lines[i] = malloc(n + 1)))
			return 1;
		memset(lines[i], 'a' + (int)(i % 26), n);
		lines[i][n] = '\0';
	}
	end = now() + secs;
	while (now() < end)
		round_of_work(a, b, len, lines, nlines, v, nv, seed++);
	printf("%zu\n", (size_t)sink);
	return 0;
}
