/* The native recorder's run (fg_recorder_run): the events opened on the
 * command held before its exec or on the running processes, the
 * stream's header and what /proc says existed before, then rounds of
 * the ring buffers until the command ends, the processes exit, the cap
 * is reached or an interrupt comes. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/recorder/internal.h"
#include "util/interrupt.h"
#include "util/version.h"
#include "util/banned.h"

/* how often the buffers are read when nothing wakes us */
#define POLL_MS 50
/* while the second event's fast copy waits for its first sample (RN_WHOLE_FIRST_NS),
 * for at most FAST_S: soon read, it is switched off before it takes more */
#define POLL_FAST_MS 3
#define FAST_S 1.0
#define TICK_S 0.25
/* after an interrupt: the command got the signal too, most likely; it is
 * sent on after this, and SIGKILL follows after KILL_AFTER */
#define FORWARD_AFTER 0.2
#define KILL_AFTER 2.0

static const fg_recorder_opts fg_recorder_opts_defaults = FG_RECORDER_OPTS_INIT;
static const fg_opts_layout fg_recorder_opts_layouts[] = {
	{ offsetof(fg_recorder_opts, mode), &fg_recorder_opts_defaults },
	{ sizeof(fg_recorder_opts), &fg_recorder_opts_defaults },
};
FG_OPTS_INIT_FUNCTION_OF(fg_recorder_opts, FG_RECORDER_OPTS_VERSION, fg_recorder_opts_layouts)

double rn_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct session {
	rn_state st;
	fg_child work;
	bool work_started, work_done, recording;
	fg_exit_status work_st;
	pid_t *pids;
	double t_work_stop, t_tick;
	int stop_sig, seen_requests;
	bool signalled, killed;
} session;

static int check_opts(const fg_recorder_opts *o)
{
	if (!o->write)
		return fg_error_set(FG_EINVAL, "the native recorder needs somewhere to write its "
				    "stream (fg_recorder_opts.write)");
	if ((o->argc > 0) == (o->npids > 0))
		return fg_error_set(FG_EINVAL, "give the native recorder either a command or "
				    "`opts.pids`, not %s", o->argc ? "both" : "neither");
	if (!o->freq)
		return fg_error_set(FG_EINVAL, "the native recorder needs a sampling frequency above 0");
#if !defined(__x86_64__)
	{
		struct utsname u;
		return rn_msg_arch(uname(&u) == 0 ? u.machine : "this architecture");
	}
#else
	return 0;
#endif
}

static int parse_pids(session *s)
{
	const fg_recorder_opts *o = s->st.o;

	if (!(s->pids = fg_calloc(o->npids, sizeof(*s->pids))))
		return FG_ENOMEM;
	for (size_t i = 0; i < o->npids; i++) {
		pid_t v = rn_task_id(o->pids[i]);
		if (!v)
			return fg_error_set(FG_EINVAL, "'%s' is not a process id", o->pids[i]);
		if (kill(v, 0) != 0 && errno == ESRCH)
			return fg_error_set(FG_ENOTFOUND, "no process %d is running", (int)v);
		s->pids[i] = v;
	}
	return 0;
}

/* Every thread of a process: its own events (which follow the threads
 * it starts later). A thread that ended meanwhile is passed over. */
static int open_process(session *s, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return fg_error_set(FG_ENOTFOUND, "no process %d is running", (int)pid);
	while (!err && (d = readdir(dir))) {
		pid_t tid;
		if (!(tid = rn_task_id(d->d_name)))
			continue;
		err = rn_events_open_task(&s->st, tid, false);
		if (err == FG_ENOTFOUND && tid != pid) {
			fg_error_clear();
			err = 0;
		}
	}
	closedir(dir);
	return err;
}

static void note_kernel(session *s)
{
	fg_strbuf note = FG_STRBUF_INIT;
	rn_host h;

	if (!s->st.res->kernel_excluded)
		return;
	rn_host_read(&h);
	rn_msg_kernel_excluded(&h, &note);
	if (!fg_strbuf_failed(&note))
		rn_emit(&s->st, FG_RECORDER_NOTE, note.buf);
	fg_strbuf_release(&note);
}

static int start_pids(session *s)
{
	rn_state *st = &s->st;
	int err;

	if ((err = parse_pids(s)))
		return err;
	for (size_t i = 0; i < st->o->npids; i++)
		if ((err = open_process(s, s->pids[i])))
			return err;
	note_kernel(s);
	if ((err = rn_stream_header(st)) || (err = rn_synth_kernel(st)))
		return err;
	for (size_t i = 0; i < st->o->npids; i++)
		if ((err = rn_synth_process(st, s->pids[i])))
			return err;
	s->recording = true;
	return 0;
}

static int start_command(session *s)
{
	rn_state *st = &s->st;
	bool after_exec;
	int err;

	if ((err = rn_launch_spawn(st->o, &s->work, &after_exec)))
		return err;
	s->work_started = true;
	/* held after its exec, it already is the program: its events may
	 * count now, and its maps are read; held before, the exec turns
	 * them on and the kernel records the program's maps itself */
	if ((err = rn_events_open_task(st, s->work.pid, !after_exec)))
		return err;
	note_kernel(s);
	if ((err = rn_stream_header(st)) || (err = rn_synth_kernel(st)) ||
	    (after_exec && (err = rn_synth_process(st, s->work.pid))))
		return err;
	st->t0 = rn_now();
	s->recording = true;
	return fg_child_release(&s->work);
}

static void stop_recording(session *s)
{
	if (!s->recording)
		return;
	rn_events_enable(&s->st, false);
	s->recording = false;
	s->st.res->seconds = rn_now() - s->st.t0;
}

static void plan_workload_stop(session *s, double delay, int sig)
{
	if (!s->work_started || s->work_done || s->t_work_stop)
		return;
	s->t_work_stop = rn_now() + delay;
	s->stop_sig = sig;
}

static void reap(session *s)
{
	bool done = false;

	if (!s->work_started || s->work_done)
		return;
	if (!fg_child_try_wait(&s->work, &s->work_st, &done) && done) {
		s->work_done = true;
		s->st.res->seconds_workload = rn_now() - s->st.t0;
		s->st.res->workload_code = s->work_st.code;
		s->st.res->workload_signal = s->work_st.signal;
	}
}

static void kill_work(session *s, int sig)
{
	if (s->work_started && !s->work_done && s->work.pid > 0)
		kill(s->work.pid, sig);
}

/* The first interrupt ends the recording (kept) and is passed on to the
 * command; a second kills it. */
static int on_interrupt(session *s)
{
	int n = fg_interrupt_count();

	fg_interrupt_drain();
	if (n == s->seen_requests)
		return 0;
	s->seen_requests = n;
	if (n > 1) {
		kill_work(s, SIGKILL);
		return fg_error_set(FG_EINTR, "interrupted again: recording abandoned");
	}
	s->st.res->interrupted = fg_interrupt_signal();
	stop_recording(s);
	plan_workload_stop(s, FORWARD_AFTER, s->st.res->interrupted);
	return 0;
}

static void timers(session *s)
{
	double t = rn_now();

	if (s->t_work_stop && !s->work_done && t >= s->t_work_stop) {
		if (!s->signalled) {
			kill_work(s, s->stop_sig);
			s->signalled = true;
			s->t_work_stop = t + KILL_AFTER;
		} else if (!s->killed) {
			kill_work(s, SIGKILL);
			s->killed = true;
		}
	}
	if (t - s->t_tick >= TICK_S) {
		s->t_tick = t;
		rn_emit(&s->st, FG_RECORDER_TICK, NULL);
	}
}

static bool pids_alive(const session *s)
{
	for (size_t i = 0; i < s->st.o->npids; i++)
		if (kill(s->pids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

static void wait_events(session *s)
{
	rn_state *st = &s->st;
	struct pollfd fds[257];
	size_t n = 0;

	fds[n++] = (struct pollfd){ fg_interrupt_fd(), POLLIN, 0 };
	for (size_t i = 0; s->recording && i < st->ncpus && n < 257; i++)
		if (st->rings[i].base)
			fds[n++] = (struct pollfd){ st->rings[i].fd, POLLIN, 0 };
	(void)poll(fds, (nfds_t)n,
		   st->whole_fast && rn_now() - st->t0 < FAST_S ? POLL_FAST_MS : POLL_MS);
}

static int run_loop(session *s)
{
	rn_state *st = &s->st;
	int err = 0;

	for (;;) {
		wait_events(s);
		if ((err = rn_ring_drain(st)) || (err = on_interrupt(s)))
			break;
		reap(s);
		if (st->capped && s->recording) {
			stop_recording(s);
			st->res->capped = true;
			st->res->seconds_at_cap = rn_now() - st->t0;
			if (!st->o->continue_at_max)
				plan_workload_stop(s, 0, SIGTERM);
		}
		if (s->recording && (s->work_started ? s->work_done : !pids_alive(s)))
			stop_recording(s);
		timers(s);
		if (!s->recording && (!s->work_started || s->work_done))
			break;
	}
	/* what the buffers still hold once the events are off */
	if (!err)
		err = rn_ring_drain(st);
	return err;
}

int fg_recorder_run(const fg_recorder_opts *opts, fg_recorder_result *res)
{
	fg_recorder_opts o;
	fg_recorder_result scratch;
	session s;
	int err;

	if ((err = fg_opts_upgrade("fg_recorder_opts", &o, opts, fg_recorder_opts_layouts,
				   FG_RECORDER_OPTS_VERSION)))
		return err;
	if (!res)
		res = &scratch;
	memset(res, 0, sizeof(*res));
	if ((err = check_opts(&o)))
		return err;
	memset(&s, 0, sizeof(s));
	s.work.pid = -1;
	s.st.o = &o;
	s.st.res = res;
	fg_strbuf_init(&s.st.round, 0);
	fg_strbuf_init(&s.st.tp_format, 0);
	s.st.t0 = s.t_tick = rn_now();
	s.seen_requests = fg_interrupt_count();
	if (!(err = rn_events_cpus(&s.st)) && o.mode != FG_RECORDER_ON_CPU)
		err = rn_tp_setup(&s.st);
	if (!err)
		err = o.npids ? start_pids(&s) : start_command(&s);
	if (!err) {
		/* the buffers drained ahead of ordinary work where allowed,
		 * as perf is; the command, started by then, keeps its own
		 * priority */
		fg_sched_saved sched;

		fg_sched_save(&sched);
		fg_sched_ahead();
		err = run_loop(&s);
		fg_sched_restore(&sched);
	}
	if (err && s.work_started && !s.work_done) {
		if (s.work.held)
			fg_child_discard(&s.work);
		else {
			kill_work(&s, SIGKILL);
			(void)fg_child_wait(&s.work, &s.work_st);
		}
	}
	if (s.recording)
		stop_recording(&s);
	rn_ring_unmap(&s.st);
	rn_events_close(&s.st);
	fg_strbuf_release(&s.st.round);
	free(s.st.offs);
	free(s.st.fds);
	free(s.st.ids);
	free(s.st.tp_fds);
	fg_strbuf_release(&s.st.tp_format);
	free(s.st.tp_ids);
	free(s.st.wids);
	free(s.st.wfds);
	free(s.st.fids);
	free(s.st.ffds);
	free(s.st.gids);
	free(s.st.gfds);
	free(s.st.cpus);
	free(s.pids);
	return err;
}
