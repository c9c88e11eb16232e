/* The tracker and the program's own signal handlers
 * (tests/e2e/test_alloc_signals.sh). Every mode leaks 777 bytes in
 * leak() first.
 *   chain    installs a SIGTERM handler that calls the one installed
 *            before it (when that is a function), then raises SIGTERM:
 *            without a tracker, the earlier one is SIG_DFL, so the
 *            program goes on and exits 0
 *   query    exits 0 when sigaction reports SIGTERM at SIG_DFL
 *   reraise  a SIGTERM handler that restores SIG_DFL and raises again,
 *            as cleanup handlers do: the program dies by SIGTERM
 *   handler  a SIGALRM every 50 us whose handler allocates 48 bytes and
 *            frees them, while the program allocates and frees in a
 *            loop; prints how many times the handler ran */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static void (*prev)(int);
static volatile sig_atomic_t got, runs;

__attribute__((noinline)) static void *leak(size_t n)
{
	void *p = malloc(n);
	if (p)
		memset(p, 1, n);
	return p;
}

static void chained(int sig)
{
	if (prev != SIG_DFL && prev != SIG_IGN && prev != SIG_ERR)
		prev(sig);
	got = 1;
}

static void cleanup_then_die(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((noinline)) static void on_alarm(int sig)
{
	void *volatile p = malloc(48);

	(void)sig;
	free(p);
	runs++;
}

int main(int argc, char **argv)
{
	static void *volatile kept;
	const char *mode = argc > 1 ? argv[1] : "";

	kept = leak(777);
	if (!strcmp(mode, "chain")) {
		prev = signal(SIGTERM, chained);
		raise(SIGTERM);
		return got ? 0 : 3;
	}
	if (!strcmp(mode, "query")) {
		struct sigaction q;
		if (sigaction(SIGTERM, NULL, &q) != 0)
			return 2;
		return q.sa_handler == SIG_DFL && !(q.sa_flags & SA_SIGINFO) ? 0 : 3;
	}
	if (!strcmp(mode, "reraise")) {
		signal(SIGTERM, cleanup_then_die);
		raise(SIGTERM);
		return 3;
	}
	if (!strcmp(mode, "handler")) {
		struct itimerval it = {{0, 50}, {0, 50}};
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		while (runs < 4000) {
			void *volatile p = malloc(100);
			free(p);
		}
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		printf("%d\n", (int)runs);
		return 0;
	}
	return 1;
}
