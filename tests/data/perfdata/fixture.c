/* The program the recordings in this folder were made of (record.sh):
 * main -> outer -> heavy (twice light's work) and light, while a second thread runs
 * worker -> spin. Built with frame pointers, no calls into libc while it
 * works, so that the stacks are the program's own.
 * (Names of one letter are not used: perf 6.12 demangles "a" and "b"
 * into types when it unwinds dwarf call graphs.)
 * Usage: fixture [MILLISECONDS]   run for about that long (default 200) */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static volatile int stop;

__attribute__((noinline)) static uint64_t mix(uint64_t x, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		x = (x ^ (x >> 31)) * 0x94d049bb133111ebull + i;
	return x;
}

__attribute__((noinline)) uint64_t heavy(uint64_t seed)
{
	return sink = mix(seed, 400000);
}

__attribute__((noinline)) uint64_t light(uint64_t seed)
{
	return sink = mix(seed, 200000);
}

__attribute__((noinline)) uint64_t outer(uint64_t seed)
{
	return light(heavy(seed)) + 1;
}

__attribute__((noinline)) static uint64_t spin(uint64_t seed)
{
	return sink = mix(seed, 300000);
}

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	while (!stop)
		x = spin(x);
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? strtod(argv[1], NULL) : 200, end = now_ms() + ms;
	uint64_t x = 1;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, (void *)(uintptr_t)7))
		return 1;
	while (now_ms() < end)
		x = outer(x);
	stop = 1;
	pthread_join(t, NULL);
	return (int)(x & 0);
}
