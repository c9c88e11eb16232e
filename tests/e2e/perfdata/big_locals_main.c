/* The callers of churn (big_locals.c), with frame pointers: run for
 * about the seconds given (default 1). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long churn(unsigned long n);

__attribute__((noinline)) static unsigned long stir(void)
{
	/* not a tail call: stir keeps its frame */
	return churn(1000000) + 1;
}

__attribute__((noinline)) static unsigned long work(double seconds)
{
	struct timespec t0, t;
	unsigned long s = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		s += stir();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return s;
}

int main(int argc, char **argv)
{
	printf("%lu\n", work(argc > 1 ? atof(argv[1]) : 1.0));
	return 0;
}
