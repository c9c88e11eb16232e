/* Three named threads with different amounts of work, for per-thread
 * graphs: "alpha" does one share, "beta" two, "gamma" three, each in a
 * function of its own (alpha_work, beta_work, gamma_work), while the main
 * thread only waits for them.
 *
 * Usage: threads [UNITS]   work units per share (default 40)
 *
 * Thread names are set with pthread_setname_np, which is what perf
 * reports as each thread's comm. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

/* Each worker does its loop itself rather than through a shared helper:
 * the compiler builds leaf functions without a frame pointer, and the
 * caller of a frameless leaf is missing from frame-pointer stacks. */
#define WORKER(name)                                                        \
	__attribute__((noinline)) static void name(unsigned units)          \
	{                                                                   \
		uint64_t x = units;                                         \
		for (unsigned u = 0; u < units; u++)                        \
			for (unsigned i = 0; i < 1000000; i++)              \
				x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ull + i; \
		sink += x;                                                  \
	}
WORKER(alpha_work)
WORKER(beta_work)
WORKER(gamma_work)

struct job {
	const char *name;
	void (*work)(unsigned);
	unsigned units;
};

static void *run(void *arg)
{
	const struct job *j = arg;

	pthread_setname_np(pthread_self(), j->name);
	j->work(j->units);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned units = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 40;
	struct job jobs[3] = {
		{ "alpha", alpha_work, units },
		{ "beta", beta_work, 2 * units },
		{ "gamma", gamma_work, 3 * units },
	};
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0) {
			fprintf(stderr, "threads: cannot start a thread\n");
			return 1;
		}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("threads: %u units, result %llu\n", units, (unsigned long long)sink);
	return 0;
}
