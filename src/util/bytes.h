/* Byte-string helpers for hot loops, inline. */
#ifndef FG_UTIL_BYTES_H
#define FG_UTIL_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How many leading bytes a[0..n) and b[0..n) share: 8 at a time, the
 * first differing byte found from the XOR of the words. */
static inline size_t fg_common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	uint64_t x, y;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;
#else
			return i + (size_t)__builtin_clzll(x ^ y) / 8;
#endif
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Copies n bytes to p; returns where they end. */
static inline char *fg_put_bytes(char *p, const void *s, size_t n)
{
	return (char *)memcpy(p, s, n) + n;
}

#endif
