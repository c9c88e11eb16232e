/* The workloads: small, deliberately un-inlined so each shows up as its
 * own frame in a flame graph. */
#include <stdlib.h>
#include <string.h>

#include "work.h"

#define NOINLINE __attribute__((noinline))

void fill_matrix(double *m, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n * n; i++) {
		seed = seed * 1103515245u + 12345u;
		m[i] = (double)(seed >> 16 & 0xff) / 16.0;
	}
}

#ifdef WITH_UNROLLED
static NOINLINE double dot_unrolled(const double *a, const double *b, size_t n, size_t stride)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t k = 0;

	for (; k + 4 <= n; k += 4) {
		s0 += a[k] * b[k * stride];
		s1 += a[k + 1] * b[(k + 1) * stride];
		s2 += a[k + 2] * b[(k + 2) * stride];
		s3 += a[k + 3] * b[(k + 3) * stride];
	}
	for (; k < n; k++)
		s0 += a[k] * b[k * stride];
	return s0 + s1 + s2 + s3;
}
#define DOT dot_unrolled
#else
static NOINLINE double dot_plain(const double *a, const double *b, size_t n, size_t stride)
{
	double s = 0;

	for (size_t k = 0; k < n; k++)
		s += a[k] * b[k * stride];
	return s;
}
#define DOT dot_plain
#endif

NOINLINE void multiply(double *c, const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			c[i * n + j] = DOT(a + i * n, b + j, n, n);
}

NOINLINE uint64_t checksum_rows(const double *m, size_t n)
{
	uint64_t sum = 0;

	for (size_t r = 0; r < 40; r++)
		for (size_t i = 0; i < n * n; i++) {
			uint64_t bits;
			memcpy(&bits, &m[i], sizeof(bits));
			sum = (sum ^ bits) * 0x100000001b3ull + r;
		}
	return sum;
}

NOINLINE uint64_t hash_text(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* A heap sort of its own rather than libc's qsort: the time is spent in
 * sort_ints itself, whose frame the unwinder always finds through the
 * program's own debug info, whatever libc on the machine was built with. */
static void sift_down(int *v, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		int t = v[root];
		v[root] = v[child];
		v[child] = t;
	}
}

NOINLINE void sort_ints(int *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end > 1; end--) {
		int t = v[0];
		v[0] = v[end - 1];
		v[end - 1] = t;
		sift_down(v, 0, end - 1);
	}
}

NOINLINE long parse_list(const char *s)
{
	long sum = 0;

	while (*s) {
		char *end;
		sum += strtol(s, &end, 10);
		s = *end ? end + 1 : end;
	}
	return sum;
}
