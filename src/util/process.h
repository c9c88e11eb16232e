/* Child processes as argv vectors, never shell strings (git's run-command).
 * The library builds fg_cmd values (so command lines can be unit-tested
 * without running anything) and runs them through fg_cmd_run/_spawn. */
#ifndef FG_UTIL_PROCESS_H
#define FG_UTIL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/strbuf.h"

/* A list of owned strings, NULL-terminated for execvp. */
typedef struct fg_strvec {
	char **v;
	size_t n, alloc;
} fg_strvec;
#define FG_STRVEC_INIT { NULL, 0, 0 }
int fg_strvec_push(fg_strvec *sv, const char *s);
int fg_strvec_pushf(fg_strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fg_strvec_pushv(fg_strvec *sv, const char *const *items, size_t n);
void fg_strvec_clear(fg_strvec *sv);
/* Splits s into words the way a shell would (quotes and backslashes), with
 * no expansion of any kind. FG_EPARSE for an unterminated quote. */
int fg_strvec_split(fg_strvec *sv, const char *s);
/* Appends argv quoted for display ("perf record -F 997 -- ./a 'x y'"). */
void fg_strvec_join_quoted(const fg_strvec *sv, fg_strbuf *out);

typedef struct fg_cmd {
	fg_strvec argv;
	fg_strvec env;     /* "NAME=VALUE" added to the inherited environment */
	char *cwd;         /* NULL: inherit */
	int stdin_fd;      /* -1: inherit; else dup2'd to 0 */
	int stdout_fd;     /* -1: inherit; else dup2'd to 1 */
	int stderr_fd;     /* -1: inherit; else dup2'd to 2 */
	bool pipe_stdout;  /* fg_cmd_spawn: give the parent a pipe from stdout */
	bool pipe_stdin;   /* fg_cmd_spawn: give the parent a pipe to stdin */
} fg_cmd;
#define FG_CMD_INIT { FG_STRVEC_INIT, FG_STRVEC_INIT, NULL, -1, -1, -1, false, false }
void fg_cmd_clear(fg_cmd *cmd);
int fg_cmd_set_cwd(fg_cmd *cmd, const char *cwd);

typedef struct fg_child {
	pid_t pid;
	int out_fd;  /* read end when pipe_stdout, else -1 */
	int in_fd;   /* write end when pipe_stdin, else -1 */
} fg_child;

/* How a child ended. */
typedef struct fg_exit_status {
	int code;    /* exit code, or -1 when killed by a signal */
	int signal;  /* the signal that killed it, or 0 */
} fg_exit_status;

/* Starts cmd. FG_ENOTFOUND when the program does not exist (detected before
 * returning), FG_ECHILD for other failures. */
int fg_cmd_spawn(const fg_cmd *cmd, fg_child *child);
/* Waits for the child (closing the parent's pipe ends first is the caller's
 * job); EINTR is retried. */
int fg_child_wait(fg_child *child, fg_exit_status *st);
/* Spawn + wait. */
int fg_cmd_run(const fg_cmd *cmd, fg_exit_status *st);
/* Runs cmd and collects its stdout into out (stderr inherited). */
int fg_cmd_capture(const fg_cmd *cmd, fg_strbuf *out, fg_exit_status *st);

/* Finds an executable on PATH (or checks a path with a slash); returns a
 * malloc'd path or NULL. */
char *fg_which(const char *prog);

#endif
