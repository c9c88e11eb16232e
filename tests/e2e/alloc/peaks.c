/* Programs whose heap peak is known, for the peak view. `peaks HOW`:
 *   threads  32 threads each allocate 40 blocks of 100 bytes in hold(),
 *            wait for each other at a barrier (128 000 bytes live at
 *            once), then free them
 *   single   one malloc(3000) in one(), freed
 *   phases   phase1() holds 1 MiB (16 blocks of 64 KiB) and frees it,
 *            then phase2() holds 1 MiB and 7 000 bytes and frees them */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 32, BLOCKS = 40, SIZE = 100, BIG = 65536 };

static pthread_barrier_t barrier;

__attribute__((noinline)) static void *hold(size_t n)
{
	char *p = malloc(n);
	if (!p)
		exit(1);
	memset(p, 1, n);
	return p;
}

static void *worker(void *arg)
{
	void *b[BLOCKS];

	(void)arg;
	for (int i = 0; i < BLOCKS; i++)
		b[i] = hold(SIZE);
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < BLOCKS; i++)
		free(b[i]);
	return NULL;
}

__attribute__((noinline)) static void *one(void)
{
	return malloc(3000);
}

__attribute__((noinline)) static void phase(void *(*alloc)(size_t), size_t extra)
{
	void *b[17];
	int n = 0;

	for (int i = 0; i < 16; i++)
		b[n++] = alloc(BIG);
	if (extra)
		b[n++] = alloc(extra);
	while (n)
		free(b[--n]);
}

__attribute__((noinline)) static void *phase1(size_t n)
{
	return hold(n);
}

__attribute__((noinline)) static void *phase2(size_t n)
{
	return hold(n);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "threads")) {
		pthread_t t[THREADS];
		pthread_barrier_init(&barrier, NULL, THREADS);
		for (int i = 0; i < THREADS; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				return 1;
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(how, "single")) {
		free(one());
		return 0;
	}
	if (!strcmp(how, "phases")) {
		phase(phase1, 0);
		phase(phase2, 7000);
		return 0;
	}
	return 2;
}
