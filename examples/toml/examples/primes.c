/* primes: counts primes below N with a sieve, then by trial division of
 * a sample. Argument: N. */
#include <stdio.h>
#include <stdlib.h>

static __attribute__((noinline)) size_t sieve(unsigned char *composite, size_t n)
{
	size_t count = 0;

	for (size_t i = 2; i < n; i++) {
		if (composite[i])
			continue;
		count++;
		for (size_t j = i * i; j < n; j += i)
			composite[j] = 1;
	}
	return count;
}

static __attribute__((noinline)) int is_prime_slow(size_t x)
{
	if (x < 2)
		return 0;
	for (size_t d = 2; d * d <= x; d++)
		if (x % d == 0)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000000, slow = 0;
	unsigned char *composite = calloc(n + 1, 1);

	if (!composite)
		return 1;
	size_t fast = 0;
	for (int r = 0; r < 3; r++)
		fast = sieve(composite, n);
	for (size_t x = 1000000000000ull; x < 1000000003000ull; x++)
		slow += (size_t)is_prime_slow(x);
	printf("primes below %zu: %zu (sample %zu)\n", n, fast, slow);
	free(composite);
	return 0;
}
