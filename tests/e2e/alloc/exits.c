/* A program that ends in one of many ways, for allocation graphs that
 * must keep what it recorded whichever it is. `exits HOW`: allocates
 * 1111 bytes in keep() (never freed), then ends by HOW:
 *   chdir       changes to / and allocates 3333 bytes more, returns 0
 *   execl, execlp, execle, fexecve, execveat
 *               runs itself again as `exits after`, which allocates
 *               222 bytes in keep() and returns 0
 *   pipe        writes to a pipe no one reads (SIGPIPE)
 *   stdout      writes lines to its stdout until it is killed (| head)
 *   alarm       waits for alarm(1) (SIGALRM)
 *   usr1, usr2, rt
 *               raises SIGUSR1, SIGUSR2, SIGRTMIN+3
 *   quick_exit  quick_exit(0), whose handler allocates and frees 4444
 *               bytes in keep() first
 * and returns 7 when HOW is none of them. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

__attribute__((noinline)) static void *keep(size_t n)
{
	char *p = malloc(n);
	if (!p)
		exit(1);
	memset(p, 1, n);
	return p;
}

static void at_quick(void)
{
	free(keep(4444));
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	char *again[] = {argv[0], "after", NULL};

	if (!strcmp(how, "after")) {
		keep(222);
		return 0;
	}
	keep(1111);
	if (!strcmp(how, "chdir"))
		return chdir("/") != 0 || !keep(3333);
	if (!strcmp(how, "execl"))
		execl(argv[0], argv[0], "after", (char *)NULL);
	else if (!strcmp(how, "execlp"))
		execlp(argv[0], argv[0], "after", (char *)NULL);
	else if (!strcmp(how, "execle"))
		execle(argv[0], argv[0], "after", (char *)NULL, environ);
	else if (!strcmp(how, "fexecve"))
		fexecve(open(argv[0], O_RDONLY | O_CLOEXEC), again, environ);
	else if (!strcmp(how, "execveat"))
		execveat(AT_FDCWD, argv[0], again, environ, 0);
	else if (!strcmp(how, "pipe")) {
		int fd[2];
		if (pipe(fd))
			return 1;
		close(fd[0]);
		for (;;)
			if (write(fd[1], "x", 1) < 0)
				return 1;
	} else if (!strcmp(how, "stdout")) {
		for (;;)
			if (puts("a line") < 0)
				return 1;
	} else if (!strcmp(how, "alarm")) {
		alarm(1);
		for (;;)
			pause();
	} else if (!strcmp(how, "usr1"))
		raise(SIGUSR1);
	else if (!strcmp(how, "usr2"))
		raise(SIGUSR2);
	else if (!strcmp(how, "rt"))
		raise(SIGRTMIN + 3);
	else if (!strcmp(how, "quick_exit")) {
		at_quick_exit(at_quick);
		quick_exit(0);
	}
	return 7;
}
