/* A library whose hot function is its own (static): in its exported
 * symbols only its entry point, work(), is named. Built, stripped to
 * those and linked to a separate debug file by tests/e2e/
 * test_perfdata_debugfile.sh. */
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hot_loop(unsigned long x)
{
	unsigned i;

	for (i = 0; i < 100000; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ul + i;
	return x;
}

/* Works for about ms milliseconds of CPU time. */
void work(long ms)
{
	struct timespec t;
	unsigned long x = 1;
	long end;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	end = t.tv_sec * 1000 + t.tv_nsec / 1000000 + ms;
	do {
		x = hot_loop(x);
		sink = x;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec * 1000 + t.tv_nsec / 1000000 < end);
}
