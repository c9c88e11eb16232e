/* fgsum [ROUNDS]: a Fletcher-style checksum over a generated buffer,
 * built from this one file (compiled and linked in one step). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) uint32_t fletcher_block(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 40;
	size_t n = 1 << 20;
	uint8_t *buf = malloc(n);
	uint32_t sum = 0;

	if (!buf)
		return 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	for (unsigned r = 0; r < rounds; r++) {
		buf[r % n] ^= (uint8_t)r;
		sum = sum * 31 + fletcher_block(buf, n);
	}
	printf("fgsum: %u rounds, checksum %08x\n", rounds, sum);
	free(buf);
	return 0;
}
