#define _GNU_SOURCE 1
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "util/cleanup.h"
#include "util/process.h"
#include "util/strvec.h"
#include "util/banned.h"

extern char **environ;

void fg_cmd_clear(fg_cmd *cmd)
{
	fg_strvec_clear(&cmd->argv);
	fg_strvec_clear(&cmd->env);
	free(cmd->cwd);
	cmd->cwd = NULL;
}

int fg_cmd_set_cwd(fg_cmd *cmd, const char *cwd)
{
	free(cmd->cwd);
	cmd->cwd = cwd ? fg_strdup(cwd) : NULL;
	return cwd && !cmd->cwd ? FG_ENOMEM : 0;
}

void fg_sched_ahead(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	int e = errno;

	/* a real-time thread that never yields would stall a CPU: this one
	 * only drains buffers (the kernel keeps 5% for others anyway) */
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) != 0) {
		errno = 0;
		int prio = getpriority(PRIO_PROCESS, 0);
		if (errno == 0)
			setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), prio - 10);
	}
	errno = e;
}

void fg_sched_save(fg_sched_saved *s)
{
	struct sched_param sp;
	int e = errno;

	memset(s, 0, sizeof(*s));
	if (pthread_getschedparam(pthread_self(), &s->policy, &sp) == 0) {
		s->priority = sp.sched_priority;
		s->have_policy = true;
	}
	errno = 0;
	s->nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	s->have_nice = errno == 0;
	errno = e;
}

void fg_sched_restore(const fg_sched_saved *s)
{
	int e = errno;

	if (s->have_policy) {
		struct sched_param sp = { .sched_priority = s->priority };
		(void)pthread_setschedparam(pthread_self(), s->policy, &sp);
	}
	if (s->have_nice)
		(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), s->nice);
	errno = e;
}

char *fg_which(const char *prog)
{
	const char *path = getenv("PATH"), *p;
	fg_strbuf sb = FG_STRBUF_INIT;

	if (!prog || !*prog)
		return NULL;
	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? fg_strdup(prog) : NULL;
	for (p = path ? path : "/usr/bin:/bin"; p; ) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		struct stat st;
		fg_strbuf_reset(&sb);
		fg_strbuf_add(&sb, len ? p : ".", len ? len : 1);
		fg_strbuf_addf(&sb, "/%s", prog);
		if (stat(sb.buf, &st) == 0 && S_ISREG(st.st_mode) && access(sb.buf, X_OK) == 0)
			return fg_strbuf_detach(&sb, NULL);
		p = colon ? colon + 1 : NULL;
	}
	fg_strbuf_release(&sb);
	return NULL;
}

/* What a held child that cannot be traced sends before it waits at the
 * gate (an errno is never 0). */
#define HELD_AT_GATE 0

/* In the child after fork: set up fds, cwd and env, exec. A held child
 * asks to be traced, so that the kernel stops it right after its exec:
 * a recorder attached then sees the program's own address space, where
 * one attached before the exec sees ours (its maps, which the exec does
 * not replace where the program maps nothing, cut the program's stacks
 * short). Where tracing is not allowed (a tracer of our own, Yama), it
 * waits for the gate before its exec. On failure the errno is sent to
 * the parent through err_fd (close-on-exec). */
static void child_exec(const fg_cmd *cmd, const int pipes[3], const int gate[2], bool trace, int err_fd)
{
	size_t i;
	char go;
	ssize_t n;
	int e;

	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (pipes[0] >= 0)
		dup2(pipes[0], 0);
	else if (cmd->stdin_fd >= 0)
		dup2(cmd->stdin_fd, 0);
	if (pipes[1] >= 0)
		dup2(pipes[1], 1);
	else if (cmd->stdout_fd >= 0)
		dup2(cmd->stdout_fd, 1);
	if (pipes[2] >= 0)
		dup2(pipes[2], 2);
	else if (cmd->stderr_fd >= 0)
		dup2(cmd->stderr_fd, 2);
	if (cmd->ahead)
		fg_sched_ahead();
	if (cmd->cwd && chdir(cmd->cwd) != 0)
		goto fail;
	for (i = 0; i < cmd->env.n; i++)
		putenv(cmd->env.v[i]);
	if (gate[0] >= 0 && trace && ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0) {
		close(gate[0]);
		close(gate[1]);
	} else if (gate[0] >= 0) {
		e = HELD_AT_GATE;
		if (write(err_fd, &e, sizeof(e)) != sizeof(e))
			_exit(127);
		close(gate[1]); /* else the parent's giving up would never reach us */
		do
			n = read(gate[0], &go, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127); /* discarded: the parent gave up on us */
	}
	execvp(cmd->argv.v[0], cmd->argv.v);
fail:
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_pair(int p[2])
{
	close_fd(&p[0]);
	close_fd(&p[1]);
}

static void child_init(fg_child *child)
{
	child->pid = -1;
	child->out_fd = child->in_fd = child->err_fd = -1;
	child->gate_fd = child->status_fd = -1;
	child->held = child->traced = false;
}

/* The child's exec failed with errno e: reaped, the error set. */
static int exec_failed(fg_child *child, const fg_cmd *cmd, int e)
{
	waitpid(child->pid, NULL, 0);
	fg_cleanup_remove_child(child->pid);
	child->pid = -1;
	close_fd(&child->out_fd);
	close_fd(&child->in_fd);
	close_fd(&child->err_fd);
	if (e == ENOENT)
		return fg_error_set(FG_ENOTFOUND, "%s: command not found%s", cmd ? cmd->argv.v[0] : "program",
				    cmd && cmd->cwd && access(cmd->cwd, F_OK) ? " (working directory missing)" : "");
	return fg_error_set(FG_ECHILD, "cannot run %s: %s", cmd ? cmd->argv.v[0] : "the program", strerror(e));
}

/* Reads the exec status pipe: 0 once exec'd (EOF), else the child's errno
 * turned into an error (the child is reaped). */
static int exec_result(fg_child *child, const fg_cmd *cmd, int status_fd)
{
	ssize_t n;
	int e = 0;

	do
		n = read(status_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(status_fd);
	return n == sizeof(e) ? exec_failed(child, cmd, e) : 0;
}

bool fg_hold_after_exec(void)
{
	static int known = -1;
	int status;
	pid_t pid, r;

	if (known >= 0)
		return known;
	/* a child of ours asks to be traced and says how it went */
	pid = fork();
	if (pid == 0)
		_exit(ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? 0 : 1);
	if (pid < 0)
		return false;
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	known = r == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	return known;
}

/* A held child either waits at the gate (it says so first) or exec'd
 * and stops, traced, at the exec's SIGTRAP, which is waited for here. */
static int held_result(fg_child *child, const fg_cmd *cmd, int status_fd, int gate_fd)
{
	int status, e = -1, err;
	ssize_t n;
	pid_t r;

	do
		n = read(status_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == sizeof(e) && e == HELD_AT_GATE) {
		child->gate_fd = gate_fd;
		child->status_fd = status_fd;
		child->held = true;
		return 0;
	}
	close_fd(&gate_fd);
	close(status_fd);
	if (n == sizeof(e))
		return exec_failed(child, cmd, e);
	do
		r = waitpid(child->pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r == child->pid && WIFSTOPPED(status)) {
		child->held = child->traced = true;
		return 0;
	}
	/* ended (killed before its exec completed, say) */
	err = fg_error_set(FG_ECHILD, "%s ended before it could be held", cmd->argv.v[0]);
	fg_cleanup_remove_child(child->pid);
	child->pid = -1;
	close_fd(&child->out_fd);
	close_fd(&child->in_fd);
	close_fd(&child->err_fd);
	return err;
}

int fg_cmd_spawn(const fg_cmd *cmd, fg_child *child)
{
	int outp[2] = { -1, -1 }, inp[2] = { -1, -1 }, errout[2] = { -1, -1 };
	int gate[2] = { -1, -1 }, errp[2] = { -1, -1 };
	bool trace;
	pid_t pid;

	child_init(child);
	if (cmd->argv.failed || cmd->env.failed)
		return fg_error_set(FG_ENOMEM, "out of memory");
	if (!cmd->argv.n)
		return fg_error_set(FG_EINVAL, "empty command");
	if (pipe2(errp, O_CLOEXEC) != 0 ||
	    (cmd->pipe_stdout && pipe2(outp, O_CLOEXEC) != 0) ||
	    (cmd->pipe_stdin && pipe2(inp, O_CLOEXEC) != 0) ||
	    (cmd->pipe_stderr && pipe2(errout, O_CLOEXEC) != 0) ||
	    (cmd->hold && pipe2(gate, O_CLOEXEC) != 0)) {
		int e = errno;
		close_pair(errp), close_pair(outp), close_pair(inp), close_pair(errout), close_pair(gate);
		return fg_error_set(FG_ECHILD, "cannot create a pipe: %s", strerror(e));
	}
	trace = cmd->hold && fg_hold_after_exec();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close_pair(errp), close_pair(outp), close_pair(inp), close_pair(errout), close_pair(gate);
		return fg_error_set(FG_ECHILD, "cannot start %s: %s", cmd->argv.v[0], strerror(e));
	}
	if (pid == 0)
		child_exec(cmd, (const int[3]){ inp[0], outp[1], errout[1] }, gate, trace, errp[1]);
	fg_cleanup_add_child(pid);
	close_fd(&errp[1]);
	close_fd(&outp[1]);
	close_fd(&inp[0]);
	close_fd(&errout[1]);
	close_fd(&gate[0]);
	child->pid = pid;
	child->out_fd = outp[0];
	child->in_fd = inp[1];
	child->err_fd = errout[0];
	if (cmd->hold)
		return held_result(child, cmd, errp[0], gate[1]);
	return exec_result(child, cmd, errp[0]);
}

int fg_child_release(fg_child *child)
{
	int status_fd = child->status_fd;
	ssize_t n;

	if (child->traced) {
		child->held = child->traced = false;
		/* the exec's SIGTRAP is not delivered */
		if (ptrace(PTRACE_DETACH, child->pid, NULL, NULL) != 0)
			return fg_error_set(FG_ECHILD, "cannot let process %d go on: %s", (int)child->pid,
					    strerror(errno));
		return 0;
	}
	child->held = false;
	if (child->gate_fd < 0)
		return 0;
	do
		n = write(child->gate_fd, "x", 1);
	while (n < 0 && errno == EINTR);
	close_fd(&child->gate_fd);
	child->status_fd = -1;
	return exec_result(child, NULL, status_fd);
}

void fg_child_discard(fg_child *child)
{
	fg_exit_status st;

	/* a traced child stays stopped, its program never run, until it
	 * dies */
	if (child->traced && child->pid > 0)
		kill(child->pid, SIGKILL);
	child->held = child->traced = false;
	close_fd(&child->gate_fd);
	close_fd(&child->status_fd);
	if (child->pid > 0)
		fg_child_wait(child, &st);
}

static void decode_status(int status, fg_exit_status *st)
{
	if (WIFSIGNALED(status)) {
		st->code = -1;
		st->signal = WTERMSIG(status);
	} else {
		st->code = WEXITSTATUS(status);
		st->signal = 0;
	}
}

int fg_child_wait(fg_child *child, fg_exit_status *st)
{
	int status;
	pid_t r;

	do
		r = waitpid(child->pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return fg_error_set(FG_ECHILD, "waiting for process %d: %s", (int)child->pid, strerror(errno));
	decode_status(status, st);
	fg_cleanup_remove_child(child->pid);
	child->pid = -1;
	return 0;
}

int fg_child_try_wait(fg_child *child, fg_exit_status *st, bool *done)
{
	int status;
	pid_t r;

	*done = false;
	if (child->pid <= 0) {
		*done = true;
		return 0;
	}
	do
		r = waitpid(child->pid, &status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return fg_error_set(FG_ECHILD, "waiting for process %d: %s", (int)child->pid, strerror(errno));
	if (r == 0)
		return 0;
	decode_status(status, st);
	fg_cleanup_remove_child(child->pid);
	child->pid = -1;
	*done = true;
	return 0;
}

int fg_cmd_run(const fg_cmd *cmd, fg_exit_status *st)
{
	fg_child child;
	int err = fg_cmd_spawn(cmd, &child);

	return err ? err : fg_child_wait(&child, st);
}

int fg_cmd_capture(const fg_cmd *cmd, fg_strbuf *out, fg_exit_status *st)
{
	return fg_runner_capture(NULL, cmd, out, st);
}

int fg_runner_spawn(const fg_runner *r, const fg_cmd *cmd, fg_child *child)
{
	return r && r->spawn ? r->spawn(r->ctx, cmd, child) : fg_cmd_spawn(cmd, child);
}

int fg_runner_release(const fg_runner *r, fg_child *child)
{
	return r && r->release ? r->release(r->ctx, child) : fg_child_release(child);
}

void fg_runner_discard(const fg_runner *r, fg_child *child)
{
	if (r && r->discard)
		r->discard(r->ctx, child);
	else
		fg_child_discard(child);
}

int fg_runner_wait(const fg_runner *r, fg_child *child, fg_exit_status *st)
{
	return r && r->wait ? r->wait(r->ctx, child, st) : fg_child_wait(child, st);
}

int fg_runner_try_wait(const fg_runner *r, fg_child *child, fg_exit_status *st, bool *done)
{
	return r && r->try_wait ? r->try_wait(r->ctx, child, st, done) :
	       fg_child_try_wait(child, st, done);
}

int fg_runner_kill(const fg_runner *r, fg_child *child, int sig)
{
	if (r && r->kill)
		return r->kill(r->ctx, child, sig);
	return child->pid > 0 ? kill(child->pid, sig) : 0;
}

int fg_runner_capture(const fg_runner *r, const fg_cmd *cmd, fg_strbuf *out, fg_exit_status *st)
{
	fg_cmd copy = *cmd;
	fg_child child;
	ssize_t n;
	int err;

	copy.pipe_stdout = true;
	if ((err = fg_runner_spawn(r, &copy, &child)))
		return err;
	for (;;) {
		if ((err = fg_strbuf_grow(out, 64 * 1024)))
			break;
		n = read(child.out_fd, out->buf + out->len, out->alloc - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		out->len += (size_t)n;
		out->buf[out->len] = '\0';
	}
	close(child.out_fd);
	if (fg_runner_wait(r, &child, st) && !err)
		err = FG_ECHILD;
	return err;
}
