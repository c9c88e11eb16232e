/* A program that dies while it allocates, for allocation graphs of a
 * crash or a kill. `dying abort|segv N`: makes N allocations of 1000
 * bytes in grow() (keeps every one), frees none, then dies by SIGABRT or
 * SIGSEGV. `dying wait`: writes its PID to ./dying.pid, then allocates
 * 1000 bytes in grow() every 5 ms, writing how many it made so far to
 * ./dying.count after each, until it is killed. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void **kept;
static size_t nkept;

__attribute__((noinline)) static void grow(void)
{
	char *p = malloc(1000);
	if (!p)
		exit(1);
	memset(p, 1, 1000);
	kept[nkept++] = p;
}

/* Writes n into path whole (a temporary file renamed over it), so that
 * a reader never sees it empty or half-written. */
static void put_number(const char *path, size_t n)
{
	char buf[32], tmp[64];
	int len = snprintf(buf, sizeof(buf), "%zu\n", n);
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		exit(1);
	if (write(fd, buf, (size_t)len) != len)
		exit(1);
	close(fd);
	rename(tmp, path);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "abort";
	size_t n = argc > 2 ? (size_t)atol(argv[2]) : 100;

	if (!(kept = calloc(1 << 20, sizeof(*kept))))
		return 1;
	if (!strcmp(how, "wait")) {
		put_number("dying.pid", (size_t)getpid());
		for (;;) {
			if (nkept < (1 << 20))
				grow();
			put_number("dying.count", nkept);
			usleep(5000);
		}
	}
	for (size_t i = 0; i < n; i++)
		grow();
	if (!strcmp(how, "segv"))
		*(volatile int *)(uintptr_t)8 = 1;
	abort();
}
