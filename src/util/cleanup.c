/* The registry behind fg_cleanup_now. Fixed tables of volatile slots: a
 * signal handler may read them at any moment, so a slot is published only
 * once its string is complete and cleared before its string is freed. */
#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "util/cleanup.h"
#include "util/strbuf.h"
#include "util/banned.h"

#define MAX_PATHS 32
#define MAX_CHILDREN 32

static char *volatile paths[MAX_PATHS];
static volatile sig_atomic_t path_is_dir[MAX_PATHS];
static volatile sig_atomic_t children[MAX_CHILDREN];

int fg_cleanup_add_path(const char *path, bool is_dir)
{
	char *copy;
	size_t i;

	for (i = 0; i < MAX_PATHS && paths[i]; i++)
		;
	if (i == MAX_PATHS)
		return fg_error_set(FG_ELIMIT, "too many temporary files at once");
	if (!(copy = fg_strdup(path)))
		return FG_ENOMEM;
	path_is_dir[i] = is_dir;
	paths[i] = copy;
	return 0;
}

void fg_cleanup_remove_path(const char *path)
{
	for (size_t i = 0; i < MAX_PATHS; i++) {
		char *p = paths[i];
		if (p && !strcmp(p, path)) {
			paths[i] = NULL;
			free(p);
			return;
		}
	}
}

void fg_cleanup_add_child(pid_t pid)
{
	for (size_t i = 0; i < MAX_CHILDREN; i++) {
		if (!children[i]) {
			children[i] = (sig_atomic_t)pid;
			return;
		}
	}
}

void fg_cleanup_remove_child(pid_t pid)
{
	for (size_t i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == (sig_atomic_t)pid)
			children[i] = 0;
}

void fg_cleanup_now(int kill_sig)
{
	size_t i;
	int pass;

	if (kill_sig > 0)
		for (i = 0; i < MAX_CHILDREN; i++)
			if (children[i] > 0)
				kill((pid_t)children[i], kill_sig);
	/* reaped here, as the process is about to die: an init that does not
	 * reap orphans (containers) would otherwise keep them as zombies */
	if (kill_sig == SIGKILL)
		for (i = 0; i < MAX_CHILDREN; i++)
			if (children[i] > 0)
				waitpid((pid_t)children[i], NULL, 0);
	/* files first, then the folders that held them */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < MAX_PATHS; i++) {
			char *p = paths[i];
			if (!p || path_is_dir[i] != pass)
				continue;
			if (pass)
				rmdir(p);
			else
				unlink(p);
		}
	}
}
