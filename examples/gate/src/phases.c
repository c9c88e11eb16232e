/* phases: three CPU-bound phases of fixed work per round (no memory
 * traffic to speak of, so each run costs nearly the same), in the ratio
 * 1 : 2 : 2. The regression gate's tests change one phase's work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* iterations per round, in thousands: each call lasts longer than the
 * sampling period (about 10, 20, 20 ms), so that the samples it gets vary
 * little from run to run */
#define PHASE_ALPHA_WORK 4000
#define PHASE_BETA_WORK 8000
#define PHASE_GAMMA_WORK 8000

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	return x ^ (x >> 27);
}

__attribute__((noinline)) static uint64_t alpha(uint64_t seed)
{
	for (long i = 0; i < PHASE_ALPHA_WORK * 1000L; i++)
		seed = mix(seed + (uint64_t)i);
	return seed;
}

__attribute__((noinline)) static uint64_t beta(uint64_t seed)
{
	for (long i = 0; i < PHASE_BETA_WORK * 1000L; i++)
		seed = mix(seed ^ (uint64_t)i);
	return seed;
}

__attribute__((noinline)) static uint64_t gamma_(uint64_t seed)
{
	for (long i = 0; i < PHASE_GAMMA_WORK * 1000L; i++)
		seed = mix(seed - (uint64_t)i);
	return seed;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 6;
	uint64_t seed = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			char *end;
			rounds = strtoul(argv[++i], &end, 10);
			if (*end) {
				fprintf(stderr, "phases: --rounds wants a number\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: phases [--rounds N]\n");
			return 2;
		}
	}
	for (unsigned long r = 0; r < rounds; r++) {
		seed = alpha(seed);
		seed = beta(seed);
		seed = gamma_(seed);
	}
	printf("phases: %lu rounds, %llu\n", rounds, (unsigned long long)(seed & 0xffff));
	return 0;
}
