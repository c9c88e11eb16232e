#include <string.h>
#include "stress.h"

uint64_t hash_fnv1a(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

#ifdef STRESS_FAST_HASH
/* Eight bytes at a time: only compiled with ENABLE_FAST_HASH. */
uint64_t hash_fast_mix(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h = (h << 31) | (h >> 33);
		s += 8;
		n -= 8;
	}
	while (n--)
		h = (h ^ *s++) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 29);
}
#endif

uint64_t hash_bytes(const void *p, size_t n)
{
#ifdef STRESS_FAST_HASH
	return hash_fast_mix(p, n);
#else
	return hash_fnv1a(p, n);
#endif
}
