#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "crunch.h"

static uint64_t crunch_mix(uint64_t h, unsigned char c)
{
#ifdef CRUNCH_FAST_MIX
	return (h << 5) ^ (h >> 3) ^ c;
#else
	h ^= c;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
#endif
}

uint64_t crunch_digest(const unsigned char *buf, size_t n, unsigned rounds)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (unsigned r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++)
			h = crunch_mix(h, buf[i]);
	return h;
}

void crunch_fill(unsigned char *buf, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[i] = (unsigned char)(seed >> 56);
	}
}

const char *crunch_version(void)
{
#ifdef CRUNCH_FAST_MIX
	return "crunch 1.0 (fast mix)";
#else
	return "crunch 1.0";
#endif
}
