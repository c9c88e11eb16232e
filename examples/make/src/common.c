#include <stdlib.h>

#include "common.h"

uint64_t common_mix(uint64_t seed, unsigned rounds)
{
	uint64_t h = seed ^ 0x9e3779b97f4a7c15ull;
	for (unsigned i = 0; i < rounds; i++) {
		h ^= h >> 31;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 27;
	}
	return h;
}

unsigned common_arg(int argc, char **argv, unsigned def)
{
	if (argc < 2)
		return def;
	long v = strtol(argv[1], NULL, 10);
	return v > 0 ? (unsigned)v : def;
}
