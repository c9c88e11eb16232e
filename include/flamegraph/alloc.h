/* The allocation stage: reads what the allocation interposer
 * (libflamegraph-alloc.so, preloaded into a program by `flamegraph
 * --alloc`) recorded and turns it into stacks for the collapser, weighted
 * by one of four views.
 *
 * A recording is one text file per process (DIR/alloc.PID.SEQ; a forked
 * child and an exec'd program write their own), written when the process
 * ends, and as a snapshot every second while it allocates (each written
 * to PATH.tmp and renamed over PATH, so a process killed at any moment
 * leaves a whole recording, or an empty file before its first). Lines:
 *
 *   flamegraph-alloc 1             the format and its version (first line)
 *   pid PID / ppid PID             the process and its parent
 *   comm NAME                      its name (the graph's root frame)
 *   end-reason WHY                 exit, _exit, quick_exit, exec,
 *                                  signal N, or running (a snapshot:
 *                                  the process died before it could
 *                                  write more)
 *   threads N                      threads that allocated
 *   dropped N                      allocations whose stack found no room
 *                                  in the tracker's table (counted under
 *                                  one stack without frames)
 *   eh-slow N                      the .eh_frame walk: stacks its cache
 *                                  could not walk (backtrace() did)
 *   eh-mismatch N                  FLAMEGRAPH_ALLOC_UNWIND=eh-check: stacks
 *                                  where it and backtrace() differed
 *   sample BYTES                   sampled (--alloc-sample): the mean
 *                                  bytes between samples; the counts
 *                                  below are unbiased estimates
 *   tracker-bytes N                memory the tracking itself used: its
 *                                  tables, and the blocks' 16-byte
 *                                  headers at the peak
 *   unrecorded CALLS BYTES         allocations made by signal handlers that
 *                                  interrupted the tracker's own code,
 *                                  where no stack can be taken: counted,
 *                                  in no stack
 *   runtime-kept BYTES BLOCKS      what the C and C++ runtimes kept for
 *                                  the process's life (libstdc++'s
 *                                  exception pool, libc's buffers),
 *                                  released after every destructor by
 *                                  their own release functions: not in
 *                                  the leaked figures
 *   map START END OFFSET PATH      an executable map (hex numbers)
 *   s BYTES CALLS LEAKED_BYTES LEAKED_BLOCKS PEAK_BYTES PEAK_BLOCKS PC...
 *                                  one allocating stack: bytes and calls
 *                                  allocated, what was still allocated
 *                                  at the end, what was live at the peak
 *                                  (decimal), then its return addresses,
 *                                  the allocating function's first (hex)
 *   end                            the recording is complete
 *
 * Unknown lines are skipped (later versions may add some); numbers are
 * checked. */
#ifndef FLAMEGRAPH_ALLOC_H
#define FLAMEGRAPH_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flamegraph/api.h"
#include "flamegraph/collapse.h"
#include "flamegraph/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

typedef enum fg_alloc_view {
	FG_ALLOC_NONE = 0,   /* not an allocation graph */
	FG_ALLOC_BYTES,      /* bytes allocated per stack (realloc: its new size) */
	FG_ALLOC_COUNT,      /* allocation calls per stack */
	FG_ALLOC_LEAKED,     /* bytes still allocated at the end */
	FG_ALLOC_PEAK,       /* bytes live when the live total was largest */
} fg_alloc_view;

/* How the interposer walks an allocating stack. */
typedef enum fg_alloc_unwind {
	FG_ALLOC_UNWIND_AUTO = 0, /* the default: eh */
	FG_ALLOC_UNWIND_FP,       /* frame pointers alone: a little cheaper; code
	                             without them cuts the stack short */
	FG_ALLOC_UNWIND_EH,       /* each frame by its .eh_frame rule (the frame
	                             pointer's where the code has one): whole
	                             stacks through any code */
} fg_alloc_unwind;

/* Parses "bytes", "count", "leaked" or "peak" (FG_EINVAL otherwise). */
int fg_alloc_view_parse(fg_alloc_view *out, const char *name);
/* "bytes", "count", "leaked", "peak" ("" for FG_ALLOC_NONE). */
const char *fg_alloc_view_name(fg_alloc_view view);
/* The unit of a view's weights: "bytes" or "allocations". */
const char *fg_alloc_view_unit(fg_alloc_view view);

typedef struct fg_alloc_totals {
	uint64_t allocations;   /* allocation calls */
	uint64_t bytes;         /* bytes allocated */
	uint64_t leaked_bytes;  /* still allocated at the end */
	uint64_t leaked_blocks;
	uint64_t peak_bytes;    /* the largest live total (summed over processes) */
	uint64_t processes;     /* recordings read */
	uint64_t incomplete;    /* ... of which were cut short (no "end" line) */
	uint64_t stacks;        /* distinct stacks */
	uint64_t dropped;       /* allocations without their stack (table full) */
	uint64_t tracker_bytes; /* memory the tracking used, all processes */
	uint64_t sample_bytes;  /* sampled: the mean bytes between samples (the
	                           figures are estimates); 0: every allocation */
	uint64_t snapshots;     /* recordings of processes that died without
	                           writing their last one (SIGKILL, a crash with
	                           no handler run): what they recorded up to
	                           their last snapshot; leaked is live at death */
} fg_alloc_totals;

typedef struct fg_alloc fg_alloc;

/* An empty set of recordings. Returns 0 or FG_ENOMEM. */
int fg_alloc_new(fg_alloc **out);
/* Parses one process' recording (len bytes of text) into a. name is used
 * in messages. Returns 0, FG_EPARSE ("NAME:LINE: what is wrong"; a
 * recording cut short is not an error: it counts in totals.incomplete)
 * or FG_ENOMEM. */
int fg_alloc_add_mem(fg_alloc *a, const char *name, const char *buf, size_t len);
/* Adds every recording (alloc.*) of folder dir, in name order. Returns
 * 0, FG_EIO (the folder), or as fg_alloc_add_mem. */
int fg_alloc_add_dir(fg_alloc *a, const char *dir);
/* What the recordings hold, in total. */
void fg_alloc_totals_get(const fg_alloc *a, fg_alloc_totals *out);
/* What the C and C++ runtimes kept for the processes' lives and released
 * at their ends (their "runtime-kept" lines), summed over the processes:
 * not counted as leaked. Either pointer may be NULL. */
void fg_alloc_runtime_kept(const fg_alloc *a, uint64_t *bytes, uint64_t *blocks);
/* Allocations that are in no stack (their "unrecorded" lines: made by
 * signal handlers that interrupted the tracker itself), summed over the
 * processes. Either pointer may be NULL. */
void fg_alloc_unrecorded(const fg_alloc *a, uint64_t *calls, uint64_t *bytes);
/* Feeds the stacks into c, weighted by view, symbolized with the
 * reader's symbolization (opts: inlined frames, debug folders; may be
 * NULL), each process rooted at its name. Stacks of weight 0 are left
 * out. Returns 0, FG_EINVAL (FG_ALLOC_NONE), FG_ENOMEM or the
 * collapser's error. */
int fg_alloc_collapse(const fg_alloc *a, fg_alloc_view view, const fg_perfdata_opts *opts,
		      fg_collapser *c);
/* The same with the figure that goes with the view in a heap profile
 * (pprof's objects beside bytes): for bytes, the allocation calls; for
 * count, the bytes; for leaked, the blocks still allocated; for peak, the
 * blocks live at the peak. */
int fg_alloc_collapse_companion(const fg_alloc *a, fg_alloc_view view,
				const fg_perfdata_opts *opts, fg_collapser *c);
void fg_alloc_free(fg_alloc *a);

/* Whether the file at path is an ELF executable linked statically (no
 * program interpreter), into which no library can be preloaded. False
 * for anything else (a dynamic executable, a script, an unreadable
 * file). */
bool fg_alloc_is_static(const char *path);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
