/* bench-folded_gen: writes folded stacks made the way real profiles are
 * shaped, for the render benchmark: every line a different stack.
 *
 *   bench-folded_gen STACKS
 *
 * Each stack is 5-40 frames deep. Callers near the root come from a small
 * set (main, a thread start, a few dispatchers), deeper frames from a pool
 * of 20 000 C++-style names (ns::C12::fn_345), so stacks share prefixes as real ones do but
 * no two lines are equal: the line's number is folded into its leaf's
 * caller. Lines come in generation order, not sorted. 200 000 stacks make
 * about 90 MB. The output is the same on every run (fixed seed). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static void frame(unsigned sym)
{
	static const char *const ns[] = { "engine", "storage", "net", "json", "util", "codec",
					  "sched", "alloc" };
	printf("%s::C%u::fn_%u", ns[sym % 8], sym % 211, sym);
}

int main(int argc, char **argv)
{
	static const char *const roots[] = { "main", "start_thread", "__libc_start_main" };
	unsigned long long i, n;
	char *end;

	if (argc != 2 || !(n = strtoull(argv[1], &end, 10)) || *end) {
		fprintf(stderr, "usage: bench-folded_gen STACKS\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		unsigned depth = 5 + (unsigned)(rng() % 36), d;
		uint64_t chain = rng() % 4000; /* shared call paths */

		fputs(roots[rng() % 3], stdout);
		for (d = 1; d < depth; d++) {
			unsigned sym;
			if (d + 2 == depth)
				sym = (unsigned)(i % 20000); /* makes the line unique */
			else if (d + 1 == depth)
				sym = (unsigned)((i / 20000 * 2000 + rng() % 2000) % 20000);
			else
				sym = (unsigned)((chain * 131 + d * 17) % 20000);
			putchar(';');
			frame(sym);
		}
		printf(" %u\n", 1 + (unsigned)(rng() % 50));
	}
	return 0;
}
