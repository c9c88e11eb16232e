/* An off-CPU example: sleeps about 300 ms in one function and computes
 * for about as long in another.
 *
 *   flamegraph --off-cpu -- ./offcpu     # sleep_phase: ~300 000 us
 *   flamegraph --hot-cold -- ./offcpu    # both, the wait in blues
 *   flamegraph -- ./offcpu               # compute_phase only
 *
 * Build: cc -O2 -g -fno-omit-frame-pointer -o offcpu offcpu.c
 *
 * Usage: offcpu [SLEEP_MS [COMPUTE_MS]] (defaults 300 300). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The wait itself. nanosleep is resumed after a signal, so the whole
 * time is spent here. */
__attribute__((noinline)) static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Its own frame above nap's even when the unwinder cannot step through
 * the C library's nanosleep (a frame-pointer walk skips the caller of a
 * function without frame pointers). */
__attribute__((noinline)) static void sleep_phase(long ms)
{
	nap(ms);
	sink++; /* not a tail call: this frame stays on the stack */
}

/* Busy for about ms milliseconds of CPU time without a system call. */
__attribute__((noinline)) static void compute_phase(long ms)
{
	double end = seconds() + (double)ms / 1000.0;
	unsigned long x = 1;

	while (seconds() < end)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}

int main(int argc, char **argv)
{
	long sleep_ms = argc > 1 ? atol(argv[1]) : 300;
	long compute_ms = argc > 2 ? atol(argv[2]) : 300;

	if (sleep_ms < 0 || compute_ms < 0) {
		fprintf(stderr, "usage: offcpu [SLEEP_MS [COMPUTE_MS]]\n");
		return 1;
	}
	sleep_phase(sleep_ms);
	compute_phase(compute_ms);
	printf("slept %ld ms, computed %ld ms\n", sleep_ms, compute_ms);
	return 0;
}
