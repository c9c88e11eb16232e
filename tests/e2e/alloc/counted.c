/* A workload that counts its own allocations, for the --alloc tests.
 *
 * Each allocating function below (a_malloc, a_calloc, a_realloc,
 * a_aligned, a_leak) calls one allocator and adds what it asked for to
 * its own counters; at the end the program prints one line per function:
 *
 *   FUNC CALLS BYTES LEAKED_BYTES
 *
 * and "peak BYTES", the largest total of the blocks it held at once
 * (counted with one atomic total, exact for the program's own blocks).
 * Three threads run the same mix; one of them (gamma) ends early. With
 * "fork", a child process runs one round of its own and prints nothing.
 * Usage: counted ROUNDS [fork] */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { F_MALLOC, F_CALLOC, F_REALLOC, F_ALIGNED, F_LEAK, NF };
static const char *names[NF] = { "a_malloc", "a_calloc", "a_realloc", "a_aligned", "a_leak" };
static _Atomic uint64_t calls[NF], bytes[NF], leaked[NF];
static _Atomic int64_t live, peak;

static void count(int f, size_t n)
{
	atomic_fetch_add(&calls[f], 1);
	atomic_fetch_add(&bytes[f], n);
	int64_t now = atomic_fetch_add(&live, (int64_t)n) + (int64_t)n;
	int64_t p = atomic_load(&peak);
	while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
		;
}

static void uncount(size_t n)
{
	atomic_fetch_sub(&live, (int64_t)n);
}

__attribute__((noinline)) static void *a_malloc(size_t n)
{
	void *p = malloc(n);
	count(F_MALLOC, n);
	return p;
}

__attribute__((noinline)) static void *a_calloc(size_t k, size_t n)
{
	void *p = calloc(k, n);
	count(F_CALLOC, k * n);
	return p;
}

/* realloc: an allocation of the new size, and the old block freed */
__attribute__((noinline)) static void *a_realloc(void *old, size_t oldn, size_t n)
{
	void *p = realloc(old, n);
	if (old)
		uncount(oldn);
	count(F_REALLOC, n);
	return p;
}

__attribute__((noinline)) static void *a_aligned(int kind, size_t n)
{
	void *p = NULL;
	switch (kind % 4) {
	case 0: if (posix_memalign(&p, 64, n)) p = NULL; break;
	case 1: p = aligned_alloc(4096, n); break;
	case 2: p = memalign(128, n); break;
	default: p = valloc(n); break;
	}
	count(F_ALIGNED, n);
	return p;
}

__attribute__((noinline)) static void *a_leak(size_t n)
{
	void *p = malloc(n);
	count(F_LEAK, n);
	atomic_fetch_add(&leaked[F_LEAK], n);
	return p;
}

static void drop(void *p, size_t n)
{
	free(p);
	uncount(n);
}

static void *keep[64];

/* One round: a burst of blocks held together (the peak), freed again;
 * a few leaked. */
static void round_of(unsigned seed, int r)
{
	enum { N = 200 };
	void *held[N];
	size_t sz[N];

	for (int i = 0; i < N; i++) {
		size_t n = 32 + (size_t)((seed * 2654435761u + (unsigned)i * 40503u) % 4000);
		switch (i % 4) {
		case 0: held[i] = a_malloc(n); sz[i] = n; break;
		case 1: held[i] = a_calloc(4, n / 4); sz[i] = 4 * (n / 4); break;
		case 2:
			held[i] = a_realloc(NULL, 0, n);
			held[i] = a_realloc(held[i], n, 2 * n);
			sz[i] = 2 * n;
			break;
		default: held[i] = a_aligned(i / 4, n); sz[i] = n; break;
		}
		memset(held[i], 1, sz[i]);
	}
	for (int i = 0; i < N; i++)
		drop(held[i], sz[i]);
	if (r % 10 == 0)
		keep[(seed + (unsigned)r) % 64] = a_leak(100 + (size_t)r);
}

struct job { unsigned seed; int rounds; };

static void *worker(void *arg)
{
	struct job *j = arg;
	for (int r = 0; r < j->rounds; r++)
		round_of(j->seed + (unsigned)r, r);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	struct job jobs[3] = { { 1, rounds }, { 2, rounds }, { 3, rounds / 4 + 1 } };
	pthread_t t[3];

	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			round_of(99, 0);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, &jobs[i]);
	/* gamma (the short job) ends long before the others */
	for (int i = 2; i >= 0; i--)
		pthread_join(t[i], NULL);
	for (int f = 0; f < NF; f++)
		printf("%s %llu %llu %llu\n", names[f], (unsigned long long)calls[f],
		       (unsigned long long)bytes[f], (unsigned long long)leaked[f]);
	printf("peak %lld\n", (long long)peak);
	return 0;
}
