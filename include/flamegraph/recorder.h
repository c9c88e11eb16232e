/* The native recorder (Linux): the kernel's perf events opened by the
 * library itself (perf_event_open), no perf needed. It starts a command
 * held until its exec and follows it into its threads and child
 * processes, or follows running processes, samples their call chains
 * with the user registers and a copy of the user stack, and writes what
 * it records as a stream in perf's pipe form (what `perf record -o -`
 * writes): the native reader (fg_perfdata_open_stream) folds it as it
 * comes, and `perf report -i` and `perf script -i` read it from a file. */
#ifndef FLAMEGRAPH_RECORDER_H
#define FLAMEGRAPH_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flamegraph/api.h"
#include "flamegraph/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* The user-stack bytes copied with each sample when none is set: with
 * the kernel's frame-pointer walk of the user frames, which each sample
 * also carries, enough to reach the first frame that keeps a frame
 * pointer in nearly every sample (the reader's measured default). A few
 * samples a second per CPU and task of a second event copy 32 KB, from
 * which the reader learns the outermost frames. When too many samples
 * had their frame pointer beyond the copy, the copy grows to 4 KB for
 * the rest of the recording (with a note). */
#define FG_RECORDER_DEFAULT_STACK 1536
/* The ring buffer per CPU when none is set. */
#define FG_RECORDER_DEFAULT_BUFFER ((uint64_t)4 << 20)

/* Receives the stream, in order: len bytes at buf. A negative FG_E*
 * code stops the recording (fg_recorder_run returns it). */
typedef int (*fg_recorder_write_cb)(void *ctx, const void *buf, size_t len);

typedef enum fg_recorder_event {
	FG_RECORDER_TICK,   /* a few times a second: elapsed seconds, bytes so far */
	FG_RECORDER_NOTE,   /* msg: what the recording leaves out and why
			       (kernel frames not allowed, say), once each */
	FG_RECORDER_CAPPED, /* the size cap was reached (elapsed: when) */
} fg_recorder_event;

typedef void (*fg_recorder_event_cb)(void *ctx, fg_recorder_event kind, const char *msg,
				     double elapsed, uint64_t bytes);

/* The layout of fg_recorder_opts this header describes:
 * fg_recorder_opts_init and fg_recorder_run take it and every older
 * version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_RECORDER_OPTS_VERSION 2

/* What the recorder samples (version 2 on). */
typedef enum fg_recorder_mode {
	FG_RECORDER_ON_CPU = 0, /* the call chains on the CPU, at freq */
	FG_RECORDER_OFF_CPU,    /* every switch off a CPU (the sched:sched_switch
				   tracepoint, with its call chain and raw
				   fields) and the kernel's switch records that
				   say when a thread runs again: where threads
				   wait and how long (perfdata.h,
				   fg_perfdata_collapse_offcpu) */
	FG_RECORDER_HOT_COLD,   /* both, the on-CPU samples by the cpu-clock
				   timer so that their periods are times */
} fg_recorder_mode;

typedef struct fg_recorder_opts {
	unsigned version;          /* FG_RECORDER_OPTS_VERSION */
	const char *const *pids;   /* record these running processes (each
				      with all its threads, and the threads
				      they start) ... */
	size_t npids;
	const char *const *argv;   /* ... or run this command, and follow it
				      into its threads and child processes */
	size_t argc;
	const char *const *env;    /* "NAME=VALUE" added to its environment */
	size_t nenv;
	const char *cwd;           /* its working directory (NULL: ours) */
	int workload_stdout;       /* its stdout (-1: ours) */
	unsigned freq;             /* samples per second and thread (> 0) */
	size_t stack_bytes;        /* user stack copied per sample (0:
				      FG_RECORDER_DEFAULT_STACK; rounded down
				      to 8 bytes, at most 65528) */
	bool frame_pointers;       /* the kernel's frame-pointer call chains
				      alone: no registers, no stack copy */
	uint64_t buffer_bytes;     /* ring buffer per CPU (0:
				      FG_RECORDER_DEFAULT_BUFFER, 4 MiB; rounded
				      down to a power of two of pages) */
	uint64_t max_size;         /* stop once this many bytes were written
				      (0 or UINT64_MAX: no cap) */
	bool continue_at_max;      /* at the cap the command runs on (else it
				      is stopped) */
	fg_recorder_write_cb write; /* where the stream goes (required) */
	void *write_ctx;
	fg_recorder_event_cb on_event; /* NULL: none */
	void *event_ctx;
	/* version 2 */
	fg_recorder_mode mode;     /* FG_RECORDER_ON_CPU */
} fg_recorder_opts;

#define FG_RECORDER_OPTS_INIT { .version = FG_RECORDER_OPTS_VERSION, .workload_stdout = -1, \
	.freq = 997 }

/* Sets *opts to the defaults (FG_RECORDER_OPTS_INIT); version:
 * FG_RECORDER_OPTS_VERSION, as the caller was compiled (FG_EINVAL for
 * one this library does not know). */
int fg_recorder_opts_init(fg_recorder_opts *opts, unsigned version);

typedef struct fg_recorder_result {
	int workload_code;      /* the command's exit code, -1 after a signal */
	int workload_signal;    /* the signal that ended it, else 0 */
	int interrupted;        /* the signal that interrupted the run, else 0 */
	bool capped;            /* the recording reached its size cap */
	bool kernel_excluded;   /* kernel frames were not allowed here */
	bool software_clock;    /* no hardware cycle counter: the cpu-clock
				   timer sampled */
	double seconds;         /* from the start to the recording's end */
	double seconds_at_cap;
	double seconds_workload; /* how long the command ran */
	uint64_t bytes;         /* the stream's size */
	uint64_t records;       /* records read from the kernel */
	uint64_t samples;       /* of which samples */
} fg_recorder_result;

/* Reads the sched:sched_switch tracepoint's id and the places of its
 * fields from tracefs (/sys/kernel/tracing, else
 * /sys/kernel/debug/tracing), as the off-CPU modes record it: what the
 * reader needs to read their samples (fg_perfdata_collapse_offcpu).
 * Errors: FG_ERECORD when tracefs is not mounted or not readable by
 * this user (the detail says what to do), FG_EPARSE for a format this
 * reader cannot read. */
int fg_recorder_sched_switch(fg_perfdata_sched_switch *out);

/* Records until the command ends (or the PIDs all exit, or an interrupt:
 * flamegraph/signals.h; the command gets the signal and the recording
 * is kept), writing the stream to opts->write as it goes. While it reads
 * the ring buffers the calling thread runs ahead of ordinary work where
 * the system allows it (the lowest real-time priority, else nice -10),
 * as perf does; its scheduling is put back before it returns. Errors:
 * FG_EINVAL (options; an architecture other than x86_64), FG_ENOTFOUND
 * (the command or a PID is missing), FG_ERECORD (the kernel refused the
 * events: the detail says why and what to do, reason
 * FG_REASON_PERF_PARANOID where kernel.perf_event_paranoid forbids them),
 * FG_EINTR (a second interrupt: everything killed), or write's error. */
int fg_recorder_run(const fg_recorder_opts *opts, fg_recorder_result *res);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
