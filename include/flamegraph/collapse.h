/* The collapse stage: profiler text (perf script, DTrace ustack()
 * aggregations) in, folded stacks ("root;...;leaf COUNT") out.
 *
 * A collapser is a streaming parser: push bytes with fg_collapser_feed()
 * in chunks of any size (partial lines are carried over), then call
 * fg_collapser_finish(). Memory grows with the number of distinct stacks,
 * not with the input size. Malformed lines are skipped and counted by kind
 * (fg_collapser_stats); they never stop the parse.
 *
 * perf and DTrace text is cut into chunks parsed in parallel; the other
 * formats are read line by line, in order, by one thread, their state
 * (the open call tree, a CSV header, XML references) carried from chunk
 * to chunk. Their structural errors (a call tree whose indentation skips
 * a level, a field that must be a number and is not) stop the parse with
 * FG_EPARSE and the input line in fg_error_last().
 *
 * Limits against hostile input (each hit is counted as a warning kind and
 * the rest of the input is kept):
 * - a frame (or the perf process frame, "comm-PID/TID") longer than
 *   FG_COLLAPSE_MAX_FRAME bytes, with its _[k]-style suffix, is cut (at a
 *   UTF-8 character boundary) so that with FG_COLLAPSE_TRUNCATED and the
 *   suffix it is FG_COLLAPSE_MAX_FRAME bytes at most: the cap and mark of
 *   the folded reader (render.h), which so never cuts it again;
 * - a line longer than FG_COLLAPSE_MAX_LINE bytes is skipped with the
 *   event (perf) or stack (DTrace) it belongs to; no more than
 *   FG_COLLAPSE_MAX_LINE + 1 bytes of such a line are ever buffered;
 * - stacks of any depth are handled without recursion, in memory linear in
 *   the depth; a perf event or DTrace stack of more than
 *   FG_COLLAPSE_MAX_STACK bytes of text (an input without empty lines, or
 *   without counts) is dropped, and no more than that is buffered;
 * - a stack whose counts sum past 2^64 - 1 is held at 2^64 - 1 (never
 *   wraps); a perf period or DTrace count of 2^64 or more drops its event. */
#ifndef FLAMEGRAPH_COLLAPSE_H
#define FLAMEGRAPH_COLLAPSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

#define FG_COLLAPSE_MAX_FRAME ((size_t)64 << 10)
#define FG_COLLAPSE_MAX_LINE ((size_t)16 << 20)
#define FG_COLLAPSE_MAX_STACK ((size_t)64 << 20)
#define FG_COLLAPSE_TRUNCATED "[...]"

typedef enum fg_format {
	FG_FORMAT_UNKNOWN = 0,
	FG_FORMAT_PERF,    /* `perf script` output */
	FG_FORMAT_DTRACE,  /* DTrace ustack()/stack() aggregation output */
	FG_FORMAT_RECURSIVE, /* folded stacks: direct recursion folded into one frame */
	FG_FORMAT_SAMPLE,  /* macOS `sample` call graphs */
	FG_FORMAT_VTUNE,   /* Intel VTune top-down CSV (Function Stack,CPU Time:Self,Module) */
	FG_FORMAT_VSPROF,  /* Visual Studio CallTreeSummary CSV */
	FG_FORMAT_GHCPROF, /* GHC .prof cost-centre trees */
	FG_FORMAT_XCTRACE, /* Instruments `xctrace export` time-profile XML */
} fg_format;

/* What a GHC .prof stack is weighed by (fg_collapse_opts.ghc_source). */
typedef enum fg_ghc_source {
	FG_GHC_TIME = 0,  /* individual %time, as the report prints it */
	FG_GHC_TICKS,     /* individual ticks */
	FG_GHC_BYTES,     /* individual bytes allocated */
} fg_ghc_source;

/* The layout of fg_collapse_opts this header describes:
 * fg_collapse_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_COLLAPSE_OPTS_VERSION 1

typedef struct fg_collapse_opts {
	unsigned version;      /* FG_COLLAPSE_OPTS_VERSION */
	bool include_pid;      /* --pid: prefix stacks with "comm-PID" */
	bool include_tid;      /* --tid: prefix stacks with "comm-PID/TID" */
	bool annotate_kernel;  /* --kernel: suffix kernel frames with _[k] */
	bool annotate_jit;     /* --jit: suffix JIT frames with _[j] */
	bool include_addrs;    /* --addrs: keep raw addresses of unknown symbols */
	const char *event_filter; /* --event-filter: only this event (NULL: the first seen) */
	const char *const *skip_after; /* --skip-after: drop frames above these (callers) */
	size_t nskip_after;
	bool include_offset;   /* dtrace --includeoffset: keep +0x offsets */
	bool inline_frames;    /* perf: keep inlined frames (default true) */
	bool lines;            /* perf: name each frame FUNCTION:FILE:LINE from
				  the line under it in `perf script -F
				  +srcline` output ("  FILE:LINE", FILE
				  without its folder; frames without a known
				  line keep their plain name). Without it
				  such lines are passed over */
	unsigned nthreads;     /* worker threads; 0: all cores */
	bool keep_order;       /* flame charts: foreach/write give the stacks in
				  input order, only consecutive equal ones
				  merged (one thread; memory then grows with
				  the number of samples) */
	bool per_thread;       /* --per-thread: each thread under its own root
				  frame "NAME-TID" (the thread's name, which
				  perf reports as its comm); --pid and --tid
				  take precedence */
	bool no_modules;       /* sample, vtune: function names without their module */
	fg_ghc_source ghc_source; /* ghcprof: the weight of each stack */
} fg_collapse_opts;

#define FG_COLLAPSE_OPTS_INIT                                                        \
	{                                                                            \
		.version = FG_COLLAPSE_OPTS_VERSION,                                 \
		.include_pid = false, .include_tid = false, .annotate_kernel = false, \
		.annotate_jit = false, .include_addrs = false, .event_filter = NULL,  \
		.skip_after = NULL, .nskip_after = 0, .include_offset = false,        \
		.inline_frames = true, .nthreads = 0, .keep_order = false,           \
		.per_thread = false                                                  \
	}

/* Sets *opts to the defaults (FG_COLLAPSE_OPTS_INIT); version:
 * FG_COLLAPSE_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_collapse_opts_init(fg_collapse_opts *opts, unsigned version);

typedef struct fg_collapser fg_collapser;

/* Creates a collapser for `format` (FG_FORMAT_UNKNOWN: guess from the first
 * bytes fed). opts may be NULL for defaults; its strings must outlive c.
 * With nthreads != 1 worker threads start on the first full chunk (4 MB);
 * the result is byte-identical whatever the thread count.
 * Returns 0, FG_ENOMEM or FG_EINVAL (unknown format). Free with
 * fg_collapser_free. */
int fg_collapser_new(fg_collapser **out, fg_format format, const fg_collapse_opts *opts);
/* Pushes len bytes of input, in chunks of any size. Returns 0, FG_ENOMEM,
 * FG_EPARSE (format guessing failed after 1 MB) or FG_EINVAL (after
 * finish). Errors are sticky. */
int fg_collapser_feed(fg_collapser *c, const char *buf, size_t len);
/* Tells c, before the first feed, that its input is made piece by piece
 * as it is fed (the native perf.data reader): smaller chunks are then
 * handed to the worker threads, so that the memory touched stays small
 * (on some machines a fresh page costs more than the text on it). */
void fg_collapser_small_pieces(fg_collapser *c);
/* Ends the input (a last line without newline still counts), waits for
 * the worker threads and merges their results. Must be called once before
 * foreach/write. Returns 0 or the first error. */
int fg_collapser_finish(fg_collapser *c);

/* Calls cb for every folded stack, sorted bytewise by stack (in input order
 * with opts.keep_order). `stack` is not NUL-terminated. A non-zero return
 * from cb stops and is returned. */
typedef int (*fg_stack_cb)(void *ctx, const char *stack, size_t len, uint64_t count);
int fg_collapser_foreach(const fg_collapser *c, fg_stack_cb cb, void *ctx);
/* Writes "stack COUNT\n" lines, sorted, to out. FG_EIO on write errors. */
int fg_collapser_write(const fg_collapser *c, FILE *out);

#define FG_COLLAPSE_MAX_WARNINGS 16
typedef struct fg_collapse_stats {
	uint64_t bytes;        /* input bytes fed */
	uint64_t samples;      /* samples (events) kept */
	uint64_t stacks;       /* distinct folded stacks */
	size_t nwarnings;
	struct {
		const char *what;  /* "lines that are not a perf event header", ... */
		uint64_t count;
		uint64_t first_line; /* 1-based line number of the first one (0: not known,
				      * as for counts summed across threads) */
	} warnings[FG_COLLAPSE_MAX_WARNINGS];
	const char *event;     /* perf: the event type kept (owned by the collapser; NULL: none seen) */
	uint64_t filtered;     /* perf: samples of other event types skipped */
} fg_collapse_stats;
/* Fills *out. Complete after fg_collapser_finish; before it, counts cover
 * the chunks parsed so far. `what` strings are static. */
void fg_collapser_stats(const fg_collapser *c, fg_collapse_stats *out);

void fg_collapser_free(fg_collapser *c);

/* ---- Samples handed over as data ----
 *
 * A perf collapser also takes samples as data rather than as `perf
 * script` text (the native perf.data reader and the allocation stage
 * hand theirs this way): each comes out exactly as the text perf script
 * would print for it ("COMM PID/TID PERIOD EVENT:", one "\tADDR SYMBOL
 * (MODULE)" line per frame, each known source line under its frame as
 * "  FILE:LINE[ (inlined)]", an empty line) would, with every rule and
 * option of the collapser: the process frame and --pid/--tid/per-thread,
 * event filtering, _[k]/_[j] marks, [unknown] frames named after their
 * module (with --addrs, their address), --skip-after, the tidying of
 * names, FUNCTION:FILE:LINE with opts.lines, the limits and warnings
 * (whose line numbers count the lines of that text). No text is made or
 * parsed for samples whose names are plain (most are); the rest take the
 * text route, so the result is the same either way. */
typedef struct fg_sample_frame {
	uint64_t addr;       /* as perf script prints it: relative to the module
				for a mapped user address, else the address */
	const char *sym;     /* symbol name; NULL: not known ("[unknown]") */
	const char *module;  /* file name, "[kernel.kallsyms]", "[vdso]"...;
				NULL: the address is in no map */
	bool inlined;        /* a DWARF inlined frame (perf: "(inlined)") */
	bool kernel;         /* a kernel address */
	const char *file;    /* the source file's name (without its folder);
				NULL: not known */
	unsigned line;       /* its line (0: not known) */
} fg_sample_frame;

typedef struct fg_sample {
	const char *comm;    /* the thread's command */
	int32_t pid, tid;
	uint64_t time;       /* 0: not known (not used by the collapser) */
	uint64_t period;     /* the sample's weight (0: 1) */
	const char *event;   /* event name ("cpu-clock", "cycles:u", ...) */
	const fg_sample_frame *frames; /* leaf first */
	size_t nframes;
} fg_sample;

/* Adds one sample to a perf collapser (FG_FORMAT_PERF, or UNKNOWN, which
 * it then becomes). The sample's strings need to live only during the
 * call. A collapser takes either samples or text, not both (FG_EINVAL).
 * Samples are folded on the calling thread. Returns 0, FG_ENOMEM or
 * FG_EINVAL (another format, text fed, or after finish). */
int fg_collapser_add_sample(fg_collapser *c, const fg_sample *s);

/* Guesses the format of the start of an input (FG_FORMAT_UNKNOWN when it
 * cannot tell yet or at all). Folded stacks are not guessed: they need no
 * collapsing (FG_FORMAT_RECURSIVE is asked for by name). */
fg_format fg_guess_format(const char *buf, size_t len);

/* Convenience: feeds a whole file ("-": stdin; gzip is detected by its
 * magic bytes). May be called for several files before finish: they are
 * one stream. FG_ENOTFOUND / FG_EIO name the file; such errors are not
 * sticky, so the caller may go on with other files. */
int fg_collapse_file(fg_collapser *c, const char *path);
/* Ends one input of several fed with fg_collapser_feed, as
 * fg_collapse_file does at a file's end: its last line and event end with
 * it. Returns 0 or the collapser's error. */
int fg_collapser_end_input(fg_collapser *c);

/* Off-CPU time: where threads wait, weighted by how long.
 *
 * An off-CPU filter sits between `perf script --show-switch-events` and a
 * perf collapser. Its input is the text of a recording of the
 * sched:sched_switch tracepoint with stacks (-c 1: every switch) and
 * perf's switch records: a thread that blocks (prev_state not R) is
 * sampled with its stack as it leaves the CPU, and its next
 * "PERF_RECORD_SWITCH IN" says when it runs again. Each such wait comes
 * out as one perf event whose period is the time off CPU in
 * microseconds, so the collapser weighs the stack by it. Involuntary
 * switches (preemption: the thread could have run) are not waits and are
 * dropped; so is a wait still open when the input ends.
 *
 * hot_cold: the input also holds on-CPU samples (cpu-clock, any other
 * event than sched_switch); they come out weighted by their period in
 * microseconds (perf prints cpu-clock periods in nanoseconds; without a
 * period, us_per_sample), and every stack gets an outermost frame,
 * FG_OFFCPU_ROOT or FG_ONCPU_ROOT, under the process, that tells the two
 * apart (the renderer colours the first's frames as cold: render.h).
 *
 * Memory: one held stack per thread that is off CPU. */
#define FG_OFFCPU_ROOT "[off-cpu]"
#define FG_ONCPU_ROOT "[on-cpu]"

typedef int (*fg_text_cb)(void *ctx, const char *buf, size_t len);
typedef struct fg_offcpu fg_offcpu;

typedef struct fg_offcpu_stats {
	uint64_t waits;     /* waits passed on */
	uint64_t off_us;    /* their total, microseconds */
	uint64_t preempted; /* involuntary switches dropped */
	uint64_t open;      /* waits without a switch back in (dropped) */
	uint64_t on_samples;/* hot_cold: on-CPU samples passed on */
	uint64_t on_us;     /* their total, microseconds */
} fg_offcpu_stats;

/* Creates a filter that hands its output to sink in chunks (the sink's
 * non-zero return stops the filter and is returned by feed/finish).
 * FG_ENOMEM. */
int fg_offcpu_new(fg_offcpu **out, bool hot_cold, uint64_t us_per_sample, fg_text_cb sink,
		  void *ctx);
/* Pushes input in chunks of any size. Errors are sticky. */
int fg_offcpu_feed(fg_offcpu *o, const char *buf, size_t len);
/* Ends the input and flushes the output. */
int fg_offcpu_finish(fg_offcpu *o);

/* The same weighing with the switches as data, from a reader of the
 * recording (perfdata.h, fg_perfdata_collapse_offcpu): the waits and
 * on-CPU samples go to c (fg_collapser_add_sample), each with the
 * weight, event name and outermost frame the text route gives it, so
 * both routes fold to the same stacks. c is the caller's, and must
 * outlive the filter. FG_ENOMEM. */
int fg_offcpu_new_samples(fg_offcpu **out, bool hot_cold, uint64_t us_per_sample,
			  fg_collapser *c);
/* A sched_switch sample: s->tid leaves the CPU at s->time (ns) with
 * s's stack; preempted: it could have run on (prev_state R), not a
 * wait. The sample's strings need live only during the call. Returns 0
 * or the sticky error. */
int fg_offcpu_switch_out(fg_offcpu *o, const fg_sample *s, bool preempted);
/* Thread tid runs again at t_ns: its wait, if one is open, is passed on. */
int fg_offcpu_switch_in(fg_offcpu *o, int32_t tid, uint64_t t_ns);
/* hot_cold: an on-CPU sample, weighed by its period in nanoseconds
 * (period_ns, as cpu-clock counts) or else by us_per_sample; ignored
 * without hot_cold. */
int fg_offcpu_on_cpu(fg_offcpu *o, const fg_sample *s, bool period_ns);
void fg_offcpu_filter_stats(const fg_offcpu *o, fg_offcpu_stats *out);
void fg_offcpu_free(fg_offcpu *o);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
