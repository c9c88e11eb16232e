/* Deep stacks of large frames for the perf.data reader's equivalence
 * test (tests/e2e/test_perfdata_native.sh): a recursion whose every
 * level keeps a kilobyte of locals spins at its bottom, 6 or 24 levels
 * down, so that unwinding a dwarf sample goes through 6 to 24 KB of the
 * stack copy (the reader keeps the first kilobytes of each sample's copy
 * and reads the rest from the recording only when unwinding asks).
 *
 * Usage: deep [MILLISECONDS]   (default 300 ms) */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static uint64_t spin(uint64_t x)
{
	unsigned i;

	for (i = 0; i < 200000; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + i;
	return x;
}

/* not a tail call: the result is used after it returns */
__attribute__((noinline)) static uint64_t descend(int depth, uint64_t x)
{
	volatile unsigned char pad[1024];

	pad[0] = (unsigned char)x;
	pad[sizeof(pad) - 1] = (unsigned char)depth;
	if (depth == 0)
		return spin(x) + pad[0];
	return descend(depth - 1, x + 1) + pad[sizeof(pad) - 1];
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, end = now_ms() + ms;
	unsigned round = 0;

	while (now_ms() < end)
		sink += descend(round++ % 2 ? 24 : 6, sink);
	return 0;
}
