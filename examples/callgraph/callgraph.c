/* A small workload with a known call tree, for profiling tests:
 *
 *   main -> outer -> a   (twice the work of b)
 *                 -> b
 *
 * Usage: callgraph [MILLISECONDS]   run for about that long (default 1000)
 *        callgraph crash [MS]       work, then die of SIGSEGV
 *        callgraph quick            exit at once (no samples)
 *
 * The work is a hash loop whose result is kept in a volatile, so the
 * compiler can neither fold nor drop it; noinline keeps a and b as frames.
 * A round of outer takes some 10 ms: many samples at any usual frequency,
 * never in step with it (at 1 ms a round, 997 Hz sampled it at the same
 * phase for hundreds of samples in a row, and a's share swung). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t spin(uint64_t x, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + i;
	return x;
}

__attribute__((noinline)) uint64_t b(uint64_t seed)
{
	uint64_t x = seed, i;

	for (i = 0; i < 2000000; i++)
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebull + i;
	sink = x;
	return x;
}

__attribute__((noinline)) uint64_t a(uint64_t seed)
{
	uint64_t x = seed, i;

	/* the same loop as b, twice as long */
	for (i = 0; i < 4000000; i++)
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebull + i;
	sink = x;
	return x;
}

__attribute__((noinline)) uint64_t outer(uint64_t seed)
{
	uint64_t r = a(seed);

	r ^= b(r);
	sink = r;
	return r + 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double ms = 1000, end;
	uint64_t r = 1;

	if (!strcmp(mode, "quick"))
		return 0;
	if (!strcmp(mode, "crash"))
		ms = argc > 2 ? atof(argv[2]) : 500;
	else if (argc > 1)
		ms = atof(mode);
	end = now_ms() + ms;
	while (now_ms() < end)
		r = outer(r);
	r = spin(r, 10);
	if (!strcmp(mode, "crash")) {
		volatile int *p = NULL;
		*p = (int)r;
	}
	printf("%llu\n", (unsigned long long)(r & 0xff));
	return 0;
}
