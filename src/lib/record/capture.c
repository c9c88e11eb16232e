/* Running the recorder: fg_record_run.
 *
 * By default the workload is ours, not perf's: it is started held (set up,
 * waiting before exec), perf attaches to it with its events off (-p PID
 * -D -1), enables them through its control fifo and acknowledges, and only
 * then is the workload released. So its exit status is its own (not
 * perf's relaying it), it can outlive a recording that hit its size cap,
 * its output never mixes with perf's, and an interrupt can stop the two in
 * the right order: perf first (it drains its buffers and finishes the
 * file), then the workload. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "lib/record/capture_msgs.h"
#include "lib/record/native.h"
#include "util/cleanup.h"
#include "util/interrupt.h"
#include "util/process.h"
#include "util/strbuf.h"
#include "util/strvec.h"
#include "util/version.h"
#include "util/banned.h"

#define TICK_MS 250
/* how long perf may take to attach and enable its events */
#define ATTACH_TIMEOUT 60.0
/* after an interrupt: the workload got the signal too, most likely; it is
 * sent on after this, and SIGKILL follows after KILL_AFTER */
#define FORWARD_AFTER 0.2
#define KILL_AFTER 2.0
/* perf told to stop and still running after this: killed */
#define PERF_STOP_TIMEOUT 30.0

typedef struct session {
	const fg_record_run_opts *o;
	fg_record_outcome *out;
	fg_child perf, work;
	bool perf_done, work_done, work_started;
	fg_exit_status perf_st, work_st;
	fg_capture_msgs msgs;
	fg_strbuf dir, ctl, ack;
	int ctl_fd, ack_fd;
	double t0, t_last_tick;
	double t_perf_stop;   /* SIGINT sent to perf, 0: not yet */
	double t_work_stop;   /* when the workload is to be stopped, 0: not planned */
	int work_stop_sig;    /* the signal it then gets */
	bool work_signalled, work_killed;
	int seen_requests;
} session;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void emit(session *s, fg_record_event kind, const char *msg, double elapsed, uint64_t bytes)
{
	if (s->o->on_event)
		s->o->on_event(s->o->event_ctx, kind, msg, elapsed, bytes);
}

static uint64_t output_size(const session *s)
{
	struct stat st;

	if (s->o->output_bytes)
		return s->o->output_bytes(s->o->event_ctx);
	return s->o->rec.output && stat(s->o->rec.output, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* --- the control fifos ------------------------------------------------ */

static int make_fifo(fg_strbuf *path, const fg_strbuf *dir, const char *name)
{
	fg_strbuf_addf(path, "%s/%s", dir->buf, name);
	if (mkfifo(path->buf, 0600) != 0)
		return fg_error_set(FG_EIO, "cannot create a fifo in %s: %s", dir->buf, strerror(errno));
	fg_cleanup_add_path(path->buf, false);
	return 0;
}

static int open_control(session *s)
{
	const char *tmp = s->o->tmpdir && *s->o->tmpdir ? s->o->tmpdir : "/tmp";
	int err;

	fg_strbuf_addf(&s->dir, "%s/.flamegraph-rec.XXXXXX", tmp);
	if (!mkdtemp(s->dir.buf)) {
		int e = errno;
		fg_strbuf_reset(&s->dir);
		return fg_error_set(FG_EIO, "cannot create a folder in %s: %s — set TMPDIR to a "
				    "writable folder", tmp, strerror(e));
	}
	fg_cleanup_add_path(s->dir.buf, true);
	if ((err = make_fifo(&s->ctl, &s->dir, "ctl")) || (err = make_fifo(&s->ack, &s->dir, "ack")))
		return err;
	/* ours: ack read without blocking for a writer; ctl read-write so it
	 * never blocks and what we write waits in it until perf reads */
	s->ack_fd = open(s->ack.buf, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	s->ctl_fd = open(s->ctl.buf, O_RDWR | O_CLOEXEC);
	if (s->ack_fd < 0 || s->ctl_fd < 0)
		return fg_error_set(FG_EIO, "cannot open the fifos in %s: %s", s->dir.buf, strerror(errno));
	return 0;
}

static void remove_path(fg_strbuf *p, bool dir)
{
	if (!p->len)
		return;
	if (dir)
		rmdir(p->buf);
	else
		unlink(p->buf);
	fg_cleanup_remove_path(p->buf);
	fg_strbuf_release(p);
}

static void close_control(session *s)
{
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	if (s->ack_fd >= 0)
		close(s->ack_fd);
	s->ctl_fd = s->ack_fd = -1;
	remove_path(&s->ctl, false);
	remove_path(&s->ack, false);
	remove_path(&s->dir, true);
}

/* --- processes -------------------------------------------------------- */

/* The workload's environment and working directory, given as data: the
 * process running us keeps its own. */
static int set_place(fg_cmd *cmd, const fg_record_opts *rec)
{
	int err = 0;

	if (rec->nenv)
		err = fg_strvec_pushv(&cmd->env, rec->env, rec->nenv);
	if (!err && rec->cwd)
		err = fg_cmd_set_cwd(cmd, rec->cwd);
	return err;
}

static int spawn_workload(session *s)
{
	fg_cmd cmd = FG_CMD_INIT;
	int err;

	cmd.hold = true;
	cmd.stdout_fd = s->o->workload_stdout;
	err = set_place(&cmd, &s->o->rec);
	if (!err)
		err = fg_strvec_pushv(&cmd.argv, s->o->rec.argv, s->o->rec.argc);
	if (!err)
		err = fg_runner_spawn(s->o->rec.runner, &cmd, &s->work);
	fg_cmd_clear(&cmd);
	if (!err)
		s->work_started = true;
	return err;
}

static int spawn_perf(session *s, const fg_record_opts *rec, bool pipe_stderr)
{
	fg_cmd cmd = FG_CMD_INIT;
	char **argv = NULL;
	int err;

	if ((err = fg_record_command(&argv, rec)))
		return err;
	cmd.argv.v = argv;
	while (argv[cmd.argv.n])
		cmd.argv.n++;
	cmd.argv.alloc = cmd.argv.n + 1;
	cmd.pipe_stderr = pipe_stderr;
	/* perf prints nothing useful on stdout; keep it off ours, unless
	 * it is where the recording goes (-o -) */
	cmd.stdout_fd = s->o->recorder_stdout >= 0 ? s->o->recorder_stdout : STDERR_FILENO;
	/* a recorder that runs the workload itself passes its place on;
	 * one that attaches runs ahead of the workload and its neighbours
	 * where we may say so (root): on a busy machine, a perf that waits
	 * for a CPU while its ring buffer fills drops samples */
	if (!rec->attach_pid && !rec->npids)
		err = set_place(&cmd, rec);
	else
		cmd.ahead = true;
	if (!err)
		err = fg_runner_spawn(rec->runner, &cmd, &s->perf);
	fg_cmd_clear(&cmd);
	if (err == FG_ENOTFOUND)
		s->out->recorder_missing = true;
	return err;
}

static void reap(session *s)
{
	bool done;

	if (!s->perf_done && s->perf.pid > 0 &&
	    !fg_runner_try_wait(s->o->rec.runner, &s->perf, &s->perf_st, &done) && done)
		s->perf_done = true;
	if (s->work_started && !s->work_done && s->work.pid > 0 &&
	    !fg_runner_try_wait(s->o->rec.runner, &s->work, &s->work_st, &done) && done) {
		s->work_done = true;
		s->out->seconds_workload = now() - s->t0;
	}
}

static void stop_perf(session *s)
{
	if (s->perf_done || s->t_perf_stop)
		return;
	/* perf finishes the file on SIGINT, then dies by it */
	fg_runner_kill(s->o->rec.runner, &s->perf, SIGINT);
	s->t_perf_stop = now();
}

static void plan_workload_stop(session *s, double delay, int sig)
{
	if (!s->work_started || s->work_done || s->t_work_stop)
		return;
	s->t_work_stop = now() + delay;
	s->work_stop_sig = sig;
}

static void kill_all(session *s)
{
	if (s->perf.pid > 0 && !s->perf_done)
		fg_runner_kill(s->o->rec.runner, &s->perf, SIGKILL);
	if (s->work.pid > 0 && !s->work_done)
		fg_runner_kill(s->o->rec.runner, &s->work, SIGKILL);
}

/* --- the loop ----------------------------------------------------------- */

static void read_stderr(session *s)
{
	fg_capture_msgs_read(&s->msgs, &s->perf.err_fd);
}

static void note_cap(session *s)
{
	if (s->out->capped || !s->msgs.capped)
		return;
	s->out->capped = true;
	s->out->seconds_at_cap = now() - s->t0;
	emit(s, FG_RECORD_CAPPED, NULL, s->out->seconds_at_cap, output_size(s));
}

/* A new interrupt request: the first stops the recording cleanly, a
 * second kills everything. Returns FG_EINTR for the second. */
static int on_interrupt(session *s)
{
	int n = fg_interrupt_count();

	fg_interrupt_drain();
	if (n == s->seen_requests)
		return 0;
	s->seen_requests = n;
	if (n > 1) {
		kill_all(s);
		return fg_error_set(FG_EINTR, "interrupted again: recording abandoned");
	}
	s->out->interrupted = fg_interrupt_signal();
	stop_perf(s);
	plan_workload_stop(s, FORWARD_AFTER, s->out->interrupted);
	return 0;
}

/* Timed steps: stopping the workload, escalating to SIGKILL, a perf that
 * will not stop, the status line. */
static void timers(session *s)
{
	double t = now();

	if (s->t_work_stop && !s->work_done && t >= s->t_work_stop) {
		if (!s->work_signalled) {
			fg_runner_kill(s->o->rec.runner, &s->work, s->work_stop_sig);
			s->work_signalled = true;
			s->t_work_stop = t + KILL_AFTER;
		} else if (!s->work_killed) {
			fg_runner_kill(s->o->rec.runner, &s->work, SIGKILL);
			s->work_killed = true;
		}
	}
	if (s->t_perf_stop && !s->perf_done && t - s->t_perf_stop > PERF_STOP_TIMEOUT)
		fg_runner_kill(s->o->rec.runner, &s->perf, SIGKILL);
	if (t - s->t_last_tick >= TICK_MS / 1000.0) {
		s->t_last_tick = t;
		emit(s, FG_RECORD_TICK, NULL, t - s->t0, output_size(s));
	}
}

/* What follows from who has ended: the workload gone, perf is told to
 * stop; perf gone (it failed) or at its cap, the workload is stopped
 * unless it may go on. */
static void follow_up(session *s)
{
	if (s->work_started && s->work_done)
		stop_perf(s);
	/* at the cap the program stops now, not once perf has finished its
	 * file: what it does after is not recorded */
	if ((s->perf_done || s->out->capped) && s->work_started && !s->work_done &&
	    !(s->out->capped && s->o->continue_at_max))
		plan_workload_stop(s, 0, SIGTERM);
}

static bool finished(const session *s)
{
	return s->perf_done && (!s->work_started || s->work_done) && s->perf.err_fd < 0;
}

static int run_loop(session *s)
{
	int err = 0;

	while (!finished(s)) {
		struct pollfd fds[2] = { { fg_interrupt_fd(), POLLIN, 0 }, { s->perf.err_fd, POLLIN, 0 } };
		if (poll(fds, 2, s->perf_done ? TICK_MS : 50) < 0 && errno != EINTR)
			break;
		if ((err = on_interrupt(s)))
			return err;
		read_stderr(s);
		note_cap(s);
		reap(s);
		/* perf gone but its stderr still open (a grandchild holds it):
		 * stop waiting for it */
		if (s->perf_done && s->perf.err_fd >= 0 && !(fds[1].revents & POLLIN)) {
			close(s->perf.err_fd);
			s->perf.err_fd = -1;
		}
		follow_up(s);
		timers(s);
	}
	return 0;
}

/* --- attach mode ------------------------------------------------------ */

/* Waits until perf acknowledges "enable": it is attached and counting.
 * false when perf ended first (or never answered). */
static int wait_attached(session *s, bool *attached)
{
	double start = now();
	char buf[16];

	*attached = false;
	while (now() - start < ATTACH_TIMEOUT) {
		struct pollfd fds[3] = { { fg_interrupt_fd(), POLLIN, 0 }, { s->perf.err_fd, POLLIN, 0 },
					 { s->ack_fd, POLLIN, 0 } };
		if (poll(fds, 3, 50) < 0 && errno != EINTR)
			break;
		if (fg_interrupt_count() != s->seen_requests) {
			(void)on_interrupt(s);
			kill_all(s);
			return fg_error_set(FG_EINTR, "interrupted before the recording started");
		}
		read_stderr(s);
		if (read(s->ack_fd, buf, sizeof(buf)) > 0) {
			*attached = true;
			return 0;
		}
		reap(s);
		if (s->perf_done)
			return 0;
	}
	return 0;
}

static int fail_recorder(session *s)
{
	if (!s->perf_done) {
		fg_runner_kill(s->o->rec.runner, &s->perf, SIGKILL);
		fg_runner_wait(s->o->rec.runner, &s->perf, &s->perf_st);
		s->perf_done = true;
	}
	while (s->perf.err_fd >= 0)
		read_stderr(s);
	return fg_capture_msgs_failure(&s->msgs, &s->o->rec, &s->perf_st);
}

/* perf ends by the SIGINT it was sent once the workload had gone. When
 * the tool was interrupted, perf may have got the signal itself too
 * (timeout(1) signals the whole process group) and die of whichever came
 * last, once its file is complete: that is a clean end as well. */
static bool perf_ended_cleanly(const session *s)
{
	if (s->perf_st.code == 0 && !s->perf_st.signal)
		return true;
	if (s->perf_st.signal == SIGINT && s->t_perf_stop)
		return true;
	return s->perf_st.signal && s->out->interrupted && s->msgs.wrote;
}

static int run_attached(session *s)
{
	fg_record_opts rec = s->o->rec;
	bool attached = false;
	int err;

	if ((err = open_control(s)) || (err = spawn_workload(s)))
		return err;
	rec.attach_pid = (long)s->work.pid;
	rec.control_ctl = s->ctl.buf;
	rec.control_ack = s->ack.buf;
	if ((err = spawn_perf(s, &rec, true)))
		return err;
	fcntl(s->perf.err_fd, F_SETFL, O_NONBLOCK);
	if (write(s->ctl_fd, "enable\n", 7) != 7)
		return fg_error_set(FG_EIO, "cannot write to perf's control fifo: %s", strerror(errno));
	if ((err = wait_attached(s, &attached)))
		return err;
	if (!attached)
		return fail_recorder(s);
	s->t0 = now();
	if ((err = fg_runner_release(s->o->rec.runner, &s->work))) {
		char why[256];
		snprintf(why, sizeof(why), "%s", fg_error_last());
		err = fg_error_set(err, "%s could not be started (%s)", s->o->rec.argv[0], why);
		s->work_done = true;
		s->work_started = false;
		stop_perf(s);
		while (!s->perf_done) {
			reap(s);
			usleep(10000);
		}
		return err;
	}
	if ((err = run_loop(s)))
		return err;
	s->out->workload_known = true;
	s->out->workload_code = s->work_st.code;
	s->out->workload_signal = s->work_st.signal;
	if (!perf_ended_cleanly(s))
		return fail_recorder(s);
	return 0;
}

/* --- classic mode: the recorder runs the workload (custom commands,
 * DTrace) or records PIDs --------------------------------------------- */

static int run_classic(session *s)
{
	/* perf's stderr is the workload's too when it runs one: not ours to
	 * read then */
	bool own_stderr = s->o->rec.npids > 0;
	int err;

	if ((err = spawn_perf(s, &s->o->rec, own_stderr)))
		return err;
	if (own_stderr)
		fcntl(s->perf.err_fd, F_SETFL, O_NONBLOCK);
	s->t0 = now();
	if ((err = run_loop(s)))
		return err;
	/* the recorder relays its workload's status */
	s->out->workload_code = s->perf_st.code;
	s->out->workload_signal = s->perf_st.signal;
	return 0;
}

static void release_session(session *s)
{
	if (s->work.pid > 0 && s->work.held)
		fg_runner_discard(s->o->rec.runner, &s->work);
	kill_all(s);
	if (s->perf.pid > 0)
		fg_runner_wait(s->o->rec.runner, &s->perf, &s->perf_st);
	if (s->work.pid > 0)
		fg_runner_wait(s->o->rec.runner, &s->work, &s->work_st);
	if (s->perf.err_fd >= 0)
		close(s->perf.err_fd);
	close_control(s);
	fg_capture_msgs_release(&s->msgs);
}

static void warn_line(void *ctx, const char *line)
{
	emit(ctx, FG_RECORD_WARNING, line, 0, 0);
}

FG_OPTS_INIT_FUNCTION(fg_record_run_opts, FG_RECORD_RUN_OPTS_VERSION, FG_RECORD_RUN_OPTS_INIT)

int fg_record_run(const fg_record_run_opts *opts, fg_record_outcome *out)
{
	fg_record_outcome init = FG_RECORD_OUTCOME_INIT;
	session s;
	int err;

	memset(&s, 0, sizeof(s));
	s.o = opts;
	s.out = out;
	*out = init;
	/* the options it embeds too, before anything starts */
	if ((err = fg_opts_version_check("fg_record_run_opts", opts->version,
					 FG_RECORD_RUN_OPTS_VERSION)) ||
	    (err = fg_opts_version_check("fg_record_opts", opts->rec.version,
					 FG_RECORD_OPTS_VERSION)))
		return err;
	if (opts->rec.recorder == FG_RECORDER_NATIVE)
		return fg_record_run_native(opts, out);
	s.ctl_fd = s.ack_fd = -1;
	s.perf.pid = s.work.pid = -1;
	s.perf.err_fd = s.work.err_fd = -1;
	s.work.gate_fd = -1;
	s.work.held = s.work.traced = false;
	fg_strbuf_init(&s.dir, 0);
	fg_strbuf_init(&s.ctl, 0);
	fg_strbuf_init(&s.ack, 0);
	fg_capture_msgs_init(&s.msgs, warn_line, &s);
	if ((err = fg_interrupt_init()))
		return err;
	s.seen_requests = fg_interrupt_count();
	s.t0 = s.t_last_tick = now();
	err = opts->attach ? run_attached(&s) : run_classic(&s);
	out->seconds = now() - s.t0;
	out->bytes = output_size(&s);
	if (!err)
		fg_capture_msgs_flush(&s.msgs);
	release_session(&s);
	return err;
}
