/* primes [ROUNDS]: a sieve plus hashing, the busiest program here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static __attribute__((noinline)) unsigned sieve_primes(unsigned char *composite, unsigned n)
{
	unsigned count = 0;
	memset(composite, 0, n);
	for (unsigned i = 2; i < n; i++) {
		if (composite[i])
			continue;
		count++;
		for (unsigned long j = (unsigned long)i * i; j < n; j += i)
			composite[j] = 1;
	}
	return count;
}

static __attribute__((noinline)) uint64_t hash_primes(const unsigned char *composite, unsigned n)
{
	uint64_t h = 0;
	for (unsigned i = 2; i < n; i++)
		if (!composite[i])
			h = common_mix(h + i, 8);
	return h;
}

/* not a tail call, so scramble keeps its own frame in the graph */
static __attribute__((noinline)) uint64_t scramble(uint64_t h)
{
	return hot_inner_loop(h, 4000000) ^ (h >> 3);
}

int main(int argc, char **argv)
{
	unsigned rounds = common_arg(argc, argv, 12), n = 2000000, count = 0;
	unsigned char *composite = malloc(n);
	uint64_t h = 0;

	if (!composite)
		return 1;
	for (unsigned r = 0; r < rounds; r++) {
		count = sieve_primes(composite, n);
		h ^= hash_primes(composite, n);
		h ^= scramble(h);
	}
	printf("primes: %u rounds, %u primes below %u, hash %016llx\n", rounds, count, n,
	       (unsigned long long)h);
	free(composite);
	return 0;
}
