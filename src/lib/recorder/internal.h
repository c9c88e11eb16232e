/* What the native recorder's files share: one recording's state, and
 * each file's part of it. events.c opens the events (their attribute,
 * one per online CPU and task), ring.c reads their ring buffers and
 * writes each round of records in time order, synth.c describes from
 * /proc what existed before the events did (threads' names, maps, the
 * kernel's map), launch.c starts the command held until its exec,
 * stream.c writes the pipe form's header and counts what was written,
 * grow.c switches to a larger stack copy when the small one falls short,
 * msgs.c words the kernel's refusals for people, native.c runs it all. */
#ifndef FG_LIB_RECORDER_INTERNAL_H
#define FG_LIB_RECORDER_INTERNAL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "flamegraph/recorder.h"
#include "util/process.h"
#include "util/strbuf.h"

/* x86_64's user registers as the perf.data reader unwinds with them:
 * all general registers, flags, ip, cs and ss; the segment registers
 * ds, es, fs and gs (bits 12 to 15) are left out. */
#define RN_REGS_X86_64 0xff0fffULL
/* What a sample with the kernel's frame-pointer chain and a small copy
 * needs beside them: bp, sp and ip, the registers the CFI rules of the
 * innermost frames start from (the reader's FG_HYBRID_REGS_USER). */
#define RN_REGS_HYBRID 0x1c0ULL
/* The second event's copy and rate: a few samples a second per CPU
 * and task whose copy reaches the outermost frames (the C library's
 * start of the program and of its threads), which the small copies of
 * the first event rarely reach; the reader learns those frames from
 * them and leaves the samples out of its output. */
#define RN_WHOLE_STACK 32768
#define RN_WHOLE_FREQ 4
/* With the timer (no hardware counter), whose rate is a fixed period of
 * the task's CPU time, at RN_WHOLE_FREQ the first of those samples would
 * come a quarter of a second into a process: every sample before it
 * would lack the outermost frames (the reader learns them as it goes).
 * A copy of the second event at this period, in nanoseconds, then runs
 * beside it until its first sample has been read, and is switched off.
 * (The kernel would change the period of the event itself but not of
 * the copies its threads and children inherited: a child started
 * early, by a shell or /usr/bin/time, would keep the short period for
 * its whole life. Switching off reaches them all.) */
#define RN_WHOLE_FIRST_NS 10000000ULL
/* The copy the hybrid samples grow to (grow.c) when more than one in
 * RN_GROW_SHARE of them (and at least RN_GROW_MIN, of RN_GROW_AFTER or
 * more) had a frame pointer beyond their copy: the copy then ended
 * before the frame the kernel's walk starts from, and the frames
 * between are lost. */
#define RN_GROWN_STACK 4096
#define RN_GROW_SHARE 200
#define RN_GROW_MIN 5
#define RN_GROW_AFTER 50

/* One ring buffer: a CPU's, which every event of that CPU writes to. */
typedef struct rn_ring {
	int fd;                /* the event that owns it */
	int cpu;
	void *base;            /* the control page, then the data */
	size_t len;            /* mapped bytes */
	uint64_t size;         /* data bytes, a power of two */
} rn_ring;

typedef struct rn_state {
	const fg_recorder_opts *o;
	fg_recorder_result *res;
	struct perf_event_attr attr; /* as the kernel took it */
	bool attr_known;       /* the first event opened settled attr */
	struct perf_event_attr whole; /* the second event (RN_WHOLE_*) */
	bool whole_on;         /* the kernel took it */
	bool whole_fast;       /* its copy at RN_WHOLE_FIRST_NS is on: none of
				  their samples read yet */
	int *wfds;             /* its events */
	uint64_t *wids;        /* and their ids */
	size_t nwids, awids;
	struct perf_event_attr fast; /* that copy */
	int *ffds;
	uint64_t *fids;
	size_t nfids, afids;
	/* the same events with a larger copy (grow.c), off until the
	 * small copies fall short */
	struct perf_event_attr grown;
	int *gfds;
	uint64_t *gids;
	size_t ngids, agids;
	bool grown_on;         /* they were switched on */
	uint64_t hybrid_samples, short_samples; /* the first event's, read so far */
	bool kernel_checked;   /* kernel frames tried */
	int *cpus;             /* online CPUs */
	size_t ncpus;
	int *fds;              /* every event opened */
	uint64_t *ids;         /* and its id */
	size_t nfds, afds;
	rn_ring *rings;        /* one per CPU (index as cpus) */
	fg_strbuf round;       /* one round's records, as read */
	struct rn_rec {        /* each of them: its time, where it starts */
		uint64_t time;
		size_t off;
	} *offs;
	size_t noffs, aoffs;
	uint64_t written;      /* bytes of the stream so far */
	bool capped;
	bool header_done;
	double t0;
	/* the off-CPU modes' tracepoint (tracepoint.c) */
	fg_perfdata_sched_switch sched;
	fg_strbuf tp_format;   /* its format's text */
	const char *tp_dir;    /* the tracefs it was read from */
	struct perf_event_attr tp_attr;
	bool tp_ready;         /* tp_attr made from the settled attr */
	int *tp_fds;
	uint64_t *tp_ids;
	size_t ntp, atp;
} rn_state;

/* events.c */
/* perf_event_open(2), close-on-exec; once the files run out, again with
 * the soft limit raised to the hard one. The fd, or -1 with errno. */
int rn_sys_open(struct perf_event_attr *a, pid_t pid, int cpu, int group);
/* Keeps event fd and its id at fds[*n], ids[*n] (arrays of *alloc,
 * grown as needed). On failure the fd is closed: FG_ENOMEM, or
 * FG_ERECORD when its id cannot be read. */
int rn_event_keep(int fd, int **fds, uint64_t **ids, size_t *n, size_t *alloc);
/* st->attr as first asked for: cycles with kernel frames and build
 * ids, at opts->freq, the user registers and stack, the side-band. */
void rn_events_attr(rn_state *st);
/* The online CPUs into st->cpus. */
int rn_events_cpus(rn_state *st);
/* Opens the events of one task (pid, with inherit: its later threads
 * and children too), one per CPU; the first decides the attribute from
 * what the kernel accepts. enable_on_exec: off until the task's exec. */
int rn_events_open_task(rn_state *st, pid_t pid, bool enable_on_exec);
/* Turns every event on or off. */
void rn_events_enable(rn_state *st, bool on);
void rn_events_close(rn_state *st);
/* After the second event's first sample: its fast copy is switched off,
 * in every task that inherited it. */
void rn_events_whole_slow(rn_state *st);

/* grow.c */
/* The grown copy's event of task pid on the CPU of index i, off, into
 * that CPU's buffer (none when the copies are not small hybrid ones, or
 * the kernel refuses it). */
int rn_grow_open(rn_state *st, pid_t pid, size_t i);
/* Counts a sample of the first event (p: the record, of size bytes):
 * whether its frame pointer lay beyond its copy. */
void rn_grow_count(rn_state *st, const unsigned char *p, uint16_t size);
/* After a round: switches to the grown copy once enough samples fell
 * short, with a note. */
void rn_grow_check(rn_state *st);
void rn_grow_close(rn_state *st);

/* ring.c */
/* Maps the ring buffer of the CPU of index i, owned by fd. */
int rn_ring_map(rn_state *st, size_t i, int fd);
/* Reads every ring buffer and writes what they held as one round, in
 * time order, then a FINISHED_ROUND record. */
int rn_ring_drain(rn_state *st);
void rn_ring_unmap(rn_state *st);

/* synth.c */
/* COMM records of a process' threads and MMAP2 records of its code,
 * from /proc/PID. */
int rn_synth_process(rn_state *st, pid_t pid);
/* The kernel's map ([kernel.kallsyms]_text at _text), when kallsyms
 * shows addresses (else a note). */
int rn_synth_kernel(rn_state *st);
/* A number in base 16 or 10 at *p, which moves past it. */
bool rn_take_num(const char **p, unsigned base, unsigned long long *out);
/* A process or thread id written out (a /proc entry's name); 0 if none. */
pid_t rn_task_id(const char *name);
/* The sample_id_all trailer of a record we make: pid, tid, time 0. */
int rn_synth_trailer(rn_state *st, fg_strbuf *rec, pid_t pid, pid_t tid);

/* stream.c */
/* The pipe form's header and the attribute record. */
int rn_stream_header(rn_state *st);
/* Writes bytes of the stream (counted against the cap). */
int rn_stream_write(rn_state *st, const void *buf, size_t len);
/* A FINISHED_ROUND record. */
int rn_stream_round(rn_state *st);
/* Says what happened through opts->on_event. */
void rn_emit(rn_state *st, fg_recorder_event kind, const char *msg);

/* native.c */
/* Seconds on the monotonic clock. */
double rn_now(void);

/* launch.c */
/* Starts the command held: after its exec where it can be traced (then
 * *after_exec), else before it. */
int rn_launch_spawn(const fg_recorder_opts *o, fg_child *child, bool *after_exec);

/* tracepoint.c */
/* The sampling event's attribute for the mode: with the off-CPU modes,
 * the switch records, and cpu-clock (hot/cold) or the dummy event that
 * only carries the side-band (off CPU alone). */
void rn_events_mode(rn_state *st);
/* Reads the tracepoint's id and format (with the mode off CPU). */
int rn_tp_setup(rn_state *st);
/* Opens the tracepoint on the task pid and the CPU of index i, into its
 * ring buffer (the sampling event's there is mapped). */
int rn_tp_open(rn_state *st, pid_t pid, size_t i);
void rn_tp_enable(rn_state *st, bool on);
/* The tracing data of the tracepoint (perf's layout, which perf script
 * needs to print its fields), appended to out. */
int rn_tp_tracing_data(rn_state *st, fg_strbuf *out);
void rn_tp_close(rn_state *st);

/* msgs.c: the kernel's refusals in the user's terms */
typedef struct rn_host {
	int paranoid;          /* kernel.perf_event_paranoid (-9: unknown) */
	bool privileged;       /* root, or CAP_PERFMON / CAP_SYS_ADMIN */
	int max_rate;          /* kernel.perf_event_max_sample_rate (0: unknown) */
	uint64_t mlock_kb;     /* kernel.perf_event_mlock_kb (0: unknown) */
} rn_host;
/* What this machine allows, read from /proc/sys/kernel. */
void rn_host_read(rn_host *h);
/* Sets the error for perf_event_open failing with errnum (what: the
 * event, "cycles" or "cpu-clock"; pid: the task) and returns FG_ERECORD
 * (FG_ENOTFOUND for a task that is gone). */
int rn_msg_open_failed(const rn_host *h, int errnum, const char *what, pid_t pid, unsigned freq);
/* Sets the error for a ring buffer that could not be mapped. */
int rn_msg_mmap_failed(const rn_host *h, int errnum, uint64_t bytes);
/* The note for kernel frames left out. */
void rn_msg_kernel_excluded(const rn_host *h, fg_strbuf *out);
/* The note for kernel addresses hidden by kernel.kptr_restrict. */
void rn_msg_kptr_hidden(int kptr_restrict, fg_strbuf *out);
/* The error for an architecture the recorder does not record. */
int rn_msg_arch(const char *arch);

#endif
