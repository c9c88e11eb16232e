/* A multi-threaded workload for the perf.data reader's equivalence test
 * (tests/e2e/test_perfdata_native.sh): threads named with
 * pthread_setname_np, each running a hot loop through inlined helpers,
 * memset/memcpy from libc and a system call now and then, so that the
 * recording holds thread creation, renamed threads, inlined frames,
 * library and kernel frames.
 *
 * Usage: threads [MILLISECONDS] [THREADS]   (default 300 ms, 3 threads) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static double run_ms = 300;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline uint64_t mix(uint64_t x, uint64_t i)
{
	return (x ^ (x >> 31)) * 0x94d049bb133111ebull + i;
}

static inline uint64_t churn(uint64_t x, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		x = mix(x, i);
	return x;
}

__attribute__((noinline)) static uint64_t hash_step(uint64_t x)
{
	return churn(x, 20000);
}

__attribute__((noinline)) static uint64_t copy_step(unsigned char *a, unsigned char *b, size_t n)
{
	memset(a, (int)(n & 0xff), n);
	memcpy(b, a, n);
	return b[n / 2];
}

static void *worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	static __thread unsigned char a[1 << 16], b[1 << 16];
	char name[16];
	uint64_t x = id;
	double end = now_ms() + run_ms;
	unsigned round = 0;

	snprintf(name, sizeof(name), "worker-%u", (unsigned)id);
	pthread_setname_np(pthread_self(), name);
	while (now_ms() < end) {
		x = hash_step(x);
		if (id % 2)
			x += copy_step(a, b, sizeof(a));
		if (++round % 64 == 0)
			getppid();
	}
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned n = 3, i;
	pthread_t t[16];

	if (argc > 1)
		run_ms = atof(argv[1]);
	if (argc > 2)
		n = (unsigned)strtoul(argv[2], NULL, 10);
	if (n < 1 || n > 16)
		n = 3;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	sink = hash_step(sink);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%llu\n", (unsigned long long)(sink & 0xff));
	return 0;
}
