/* An allocation-heavy multi-threaded workload for bench-alloc.sh: three
 * threads, each making ROUNDS rounds of 1200 allocations (malloc, calloc,
 * realloc) of 16 to 2064 bytes through a few call depths, holding up to
 * 256 blocks at once and freeing them in another order. Usage: allocs
 * [ROUNDS] (default 2000: 9.6 M allocation calls, realloc counted). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HOLD = 256, PER_ROUND = 1200 };

static unsigned next(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

__attribute__((noinline)) static void *make_small(unsigned *s)
{
	return malloc(16 + next(s) % 112);
}

__attribute__((noinline)) static void *make_big(unsigned *s)
{
	return calloc(1, 512 + next(s) % 1552);
}

__attribute__((noinline)) static void *grow(void *p, unsigned *s)
{
	return realloc(p, 64 + next(s) % 512);
}

__attribute__((noinline)) static uint64_t churn(unsigned seed, int rounds)
{
	void *held[HOLD] = { 0 };
	uint64_t sum = 0;
	unsigned s = seed;

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < PER_ROUND; i++) {
			unsigned k = next(&s) % HOLD, what = i % 3;
			free(held[k]);
			held[k] = what == 0 ? make_small(&s) : what == 1 ? make_big(&s) : grow(make_small(&s), &s);
			((unsigned char *)held[k])[0] = (unsigned char)i;
			sum += ((unsigned char *)held[k])[0];
		}
	for (int k = 0; k < HOLD; k++)
		free(held[k]);
	return sum;
}

struct job { unsigned seed; int rounds; uint64_t sum; };

static void *worker(void *arg)
{
	struct job *j = arg;
	j->sum = churn(j->seed, j->rounds);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	struct job jobs[3] = { { 1, rounds, 0 }, { 2, rounds, 0 }, { 3, rounds, 0 } };
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, &jobs[i]);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("allocs: %d rounds, %llu\n", rounds, (unsigned long long)(jobs[0].sum + jobs[1].sum + jobs[2].sum));
	return 0;
}
