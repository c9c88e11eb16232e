/* Child processes as argv vectors, never shell strings (git's run-command).
 * The library builds fg_cmd values (so command lines can be unit-tested
 * without running anything) and runs them through fg_cmd_run/_spawn. */
#ifndef FG_UTIL_PROCESS_H
#define FG_UTIL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/strbuf.h"
#include "util/strvec.h"

typedef struct fg_cmd {
	fg_strvec argv;
	fg_strvec env;     /* "NAME=VALUE" added to the inherited environment */
	char *cwd;         /* NULL: inherit */
	int stdin_fd;      /* -1: inherit; else dup2'd to 0 */
	int stdout_fd;     /* dup2'd to 1; -1: inherit. FG_CMD_INIT sets
			      it to 2: a child's stdout goes to our stderr
			      unless the caller hands it ours on purpose,
			      since our stdout may be the result (-o -) */
	int stderr_fd;     /* -1: inherit; else dup2'd to 2 */
	bool pipe_stdout;  /* fg_cmd_spawn: give the parent a pipe from stdout */
	bool pipe_stdin;   /* fg_cmd_spawn: give the parent a pipe to stdin */
	bool pipe_stderr;  /* fg_cmd_spawn: give the parent a pipe from stderr */
	bool ahead;        /* the child runs ahead of ordinary work where
			      the system allows it (CAP_SYS_NICE): the
			      lowest real-time priority (SCHED_FIFO 1), else
			      nice -10, else as we do (fg_sched_ahead) */
	bool hold;         /* fg_cmd_spawn: the child waits until
			      fg_child_release, so that a recorder can attach
			      to it first: stopped right after its exec where
			      the system lets it be traced (what a recorder
			      then reads of its address space is the
			      program's), else set up before its exec */
} fg_cmd;
#define FG_CMD_INIT { .argv = FG_STRVEC_INIT, .env = FG_STRVEC_INIT, .cwd = NULL, \
	.stdin_fd = -1, .stdout_fd = 2, .stderr_fd = -1 }
void fg_cmd_clear(fg_cmd *cmd);
int fg_cmd_set_cwd(fg_cmd *cmd, const char *cwd);

typedef struct fg_child {
	pid_t pid;
	int out_fd;  /* read end when pipe_stdout, else -1 */
	int in_fd;   /* write end when pipe_stdin, else -1 */
	int err_fd;  /* read end when pipe_stderr, else -1 */
	int gate_fd;   /* hold before exec: written by fg_child_release, else -1 */
	int status_fd; /* hold before exec: reports the exec's failure, else -1 */
	bool held;     /* hold: not released yet */
	bool traced;   /* hold: stopped after its exec (we trace it until
			  fg_child_release detaches) */
} fg_child;

/* How a child ended. */
typedef struct fg_exit_status {
	int code;    /* exit code, or -1 when killed by a signal */
	int signal;  /* the signal that killed it, or 0 */
} fg_exit_status;

/* Starts cmd. FG_ENOTFOUND when the program does not exist (detected before
 * returning, or by fg_child_release when a held child could not be traced
 * and waits before its exec), FG_ECHILD for other failures. Every child is registered with fg_cleanup_add_child until it
 * is waited for. */
int fg_cmd_spawn(const fg_cmd *cmd, fg_child *child);
/* Whether a held child (cmd->hold) is held after its exec, traced, here
 * (else before it, in our own image): the system may forbid tracing
 * (Yama), or we may be traced ourselves. Asked once, by a child. */
bool fg_hold_after_exec(void);
/* A held child (cmd->hold) goes on to exec its program. Returns once the
 * exec happened, or its error (the child is then reaped). */
int fg_child_release(fg_child *child);
/* A held child that will never run: it exits without exec'ing; reaped. */
void fg_child_discard(fg_child *child);
/* Waits for the child (closing the parent's pipe ends first is the caller's
 * job); EINTR is retried. */
int fg_child_wait(fg_child *child, fg_exit_status *st);
/* Like fg_child_wait without blocking: *done tells whether it ended. */
int fg_child_try_wait(fg_child *child, fg_exit_status *st, bool *done);
/* Spawn + wait. */
int fg_cmd_run(const fg_cmd *cmd, fg_exit_status *st);
/* Runs cmd and collects its stdout into out (stderr inherited). */
int fg_cmd_capture(const fg_cmd *cmd, fg_strbuf *out, fg_exit_status *st);

/* How child processes are started and ended. NULL everywhere means the
 * real thing (fg_cmd_spawn and friends); a unit test passes its own table
 * to see the exact command lines, environments and working directories
 * without running anything. A substituted spawn fills child with fds of
 * its own making (pipes holding canned output, say) and any pid: the
 * other entries are the only ones that see it. */
typedef struct fg_runner {
	int (*spawn)(void *ctx, const fg_cmd *cmd, fg_child *child);
	int (*release)(void *ctx, fg_child *child);
	void (*discard)(void *ctx, fg_child *child);
	int (*wait)(void *ctx, fg_child *child, fg_exit_status *st);
	int (*try_wait)(void *ctx, fg_child *child, fg_exit_status *st, bool *done);
	int (*kill)(void *ctx, fg_child *child, int sig);
	void *ctx;
} fg_runner;

/* The operations above through r (NULL: the real ones). */
int fg_runner_spawn(const fg_runner *r, const fg_cmd *cmd, fg_child *child);
int fg_runner_release(const fg_runner *r, fg_child *child);
void fg_runner_discard(const fg_runner *r, fg_child *child);
int fg_runner_wait(const fg_runner *r, fg_child *child, fg_exit_status *st);
int fg_runner_try_wait(const fg_runner *r, fg_child *child, fg_exit_status *st, bool *done);
int fg_runner_kill(const fg_runner *r, fg_child *child, int sig);
/* fg_cmd_capture through r. */
int fg_runner_capture(const fg_runner *r, const fg_cmd *cmd, fg_strbuf *out, fg_exit_status *st);

/* Puts the calling thread (tid 0: this one) ahead of ordinary work as
 * fg_cmd.ahead says, where allowed; else leaves it as it is. */
void fg_sched_ahead(void);

/* The calling thread's scheduling (policy, real-time priority, nice),
 * saved by fg_sched_save before fg_sched_ahead and put back by
 * fg_sched_restore, for a thread that goes on with ordinary work. */
typedef struct fg_sched_saved {
	int policy, priority, nice;
	bool have_policy, have_nice;
} fg_sched_saved;
void fg_sched_save(fg_sched_saved *s);
void fg_sched_restore(const fg_sched_saved *s);

/* Finds an executable on PATH (or checks a path with a slash); returns a
 * malloc'd path or NULL. */
char *fg_which(const char *prog);

#endif
