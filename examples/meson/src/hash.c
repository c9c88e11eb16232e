#include "wordstat.h"

#ifdef WS_FAST_HASH
/* multiply-rotate, eight bytes at a time */
__attribute__((noinline)) uint64_t ws_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n;
	for (size_t i = 0; i < n; i++) {
		h = (h ^ (unsigned char)s[i]) * 0xff51afd7ed558ccdu;
		h = (h << 31) | (h >> 33);
	}
	return h;
}
#else
/* FNV-1a */
__attribute__((noinline)) uint64_t ws_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3u;
	}
	return h;
}
#endif
