/* bench_mix: hashes a buffer over and over; argument: megabytes to hash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

static __attribute__((noinline)) uint64_t mix_round(const char *buf, size_t len)
{
	/* work after the call keeps it a real call, not a tail jump */
	uint64_t h = hash_text(buf, len);
	return h ^ (h >> 29) ^ len;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
	static char buf[1 << 20];
	uint64_t h = 0;

	memset(buf, 'a', sizeof(buf));
	for (size_t i = 0; i < mb; i++) {
		buf[i % sizeof(buf)] = (char)i;
		h ^= mix_round(buf, sizeof(buf));
	}
	printf("bench_mix: %zu MB hashed, %016llx\n", mb, (unsigned long long)h);
	return 0;
}
