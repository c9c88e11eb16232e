/* The perf.data stage: reads a recording of `perf record` itself and
 * gives its samples with their call chains symbolized, as `perf script`
 * prints them, without running perf.
 *
 * What is read: the file form of perf.data (magic "PERFILE2", header
 * size 104) on x86_64, and the pipe form (`perf record -o -`, header
 * size 16), saved to a file or read as a stream (fg_perfdata_open_stream),
 * whose attributes, features and event
 * names come as the records perf writes before the data (HEADER_ATTR,
 * HEADER_FEATURE, EVENT_UPDATE, HEADER_BUILD_ID, read at open, up to
 * FINISHED_INIT or the first sample); event attributes (sample_type,
 * sample_id_all), each event with its own sample format (perf 6.x adds
 * a dummy tracking event of another format): a record's format is that
 * of the event of its id (PERF_SAMPLE_IDENTIFIER, or PERF_SAMPLE_ID
 * where every format has it);
 * the records COMM, MMAP, MMAP2, FORK, EXIT, SAMPLE, LOST, LOST_SAMPLES
 * and FINISHED_ROUND (other record types are skipped); the BUILD_ID,
 * EVENT_DESC and COMPRESSED header features. Compressed records (perf
 * record -z: COMPRESSED, and COMPRESSED2 of later perf) are decompressed
 * with libzstd as one stream, as perf writes it, records cut across two
 * compressed records joined again; their records are then handled as
 * those of the file. Records are handled in time order, as perf
 * does: those between two FINISHED_ROUND records are sorted by time.
 * Call chains are the frame-pointer ones the kernel recorded
 * (PERF_SAMPLE_CALLCHAIN with its PERF_CONTEXT_* markers), or, for dwarf
 * call graphs (perf record --call-graph dwarf: PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER), the kernel part of that chain followed by the
 * user frames unwound here from the sample's registers and stack copy
 * with the CFI (.eh_frame, .debug_frame) of the mapped files, through
 * elfutils' libdwfl: one Dwfl per process, its files' CFI read once. As
 * in perf script, a caller's address is its return address minus one,
 * and the frames unwound get the DWARF inlined frames at their address
 * (inline_frames).
 *
 * Symbols: user addresses through the MMAP/MMAP2 maps of the sample's
 * process to an ELF file (the one named by the map when its build id is
 * the recorded one, else the build-id cache), its symbol table (or that
 * of its separate debug file, found by build id or debuglink under the
 * debug folder); kernel addresses through
 * kallsyms; C++ names demangled (by libstdc++'s __cxa_demangle, when
 * it can be loaded) without their return type, as perf shows them. Each
 * module is loaded once and each address resolved once.
 *
 * JIT-compiled code: as in perf script, the executable maps of process
 * PID with no file behind them (//anon, [heap], [stack], /dev/zero,
 * System V shared memory, huge pages) belong to the module
 * "/tmp/perf-PID.map", their addresses are left absolute, and the
 * symbols are the lines "START SIZE NAME" of that file (a JIT's map
 * file), read on the first address that needs them, with perf's rules
 * for odd lines and overlapping entries; names are not demangled. The
 * file is read when the recording is, so it must still be there; without
 * it the frames have no symbol, in that module.
 *
 * What is not read yet (fg_perfdata_unsupported says which, before any
 * sample is given): compression other than zstd, AUX area data, other architectures and byte orders, dwarf
 * call graphs of other register sets than x86_64's or with branch
 * stacks. The caller then runs `perf script` instead.
 *
 * Memory: the file is mapped, not read (a stream is read in 1 MiB blocks,
 * each freed once the records of it that wait for their round are
 * handled, and its records before the first sample kept); what the
 * reader holds grows with
 * the processes, threads, maps and modules of the recording and with the
 * distinct addresses of its call chains (and the records of one round:
 * of compressed records, the decompressed chunks that hold records
 * still waiting for their round, each freed once they are handled),
 * not with the number of samples; with dwarf call graphs, also with the
 * ELF files and CFI of the processes alive at once; with JIT map files,
 * with the size of those read. */
#ifndef FLAMEGRAPH_PERFDATA_H
#define FLAMEGRAPH_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "flamegraph/api.h"
#include "flamegraph/collapse.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* The layout of fg_perfdata_opts this header describes:
 * fg_perfdata_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_PERFDATA_OPTS_VERSION 1

typedef struct fg_perfdata_opts {
	unsigned version;        /* FG_PERFDATA_OPTS_VERSION */
	bool inline_frames;      /* DWARF inlined frames of the frames the reader
				    unwinds itself (the user frames of dwarf
				    call graphs), as perf script without
				    --no-inline lists them (innermost first).
				    Frame-pointer chains have none in perf
				    script's output: no effect on them */
	bool lines;              /* the source line of each user frame from the
				    DWARF line tables (fg_perfdata_frame.file,
				    .line): the sampled line in the innermost
				    frame, the line of the call in its callers
				    (an inlined function's call line in the
				    function it was inlined into); the
				    collapse functions then hand them over as
				    `perf script -F +srcline` prints them, for a
				    collapser with fg_collapse_opts.lines */
	const char *kallsyms;    /* kernel symbols (NULL: /proc/kallsyms) */
	const char *debug_dir;   /* separate debug files (NULL: /usr/lib/debug) */
	const char *buildid_dir; /* perf's build-id cache, such as ~/.debug (NULL: none) */
	const char *cache_dir;   /* uncompressed copies of compressed DWARF are
				    kept here, one per build id, so that only
				    the first run inflates them (NULL: none) */
	bool from_exec;          /* the recording attached to a process held
				    before its exec (how fg_record_run starts a
				    program): samples of a process before its
				    exec are the launcher's and are left out
				    (counted in stats.before_exec); processes
				    forked after the exec keep theirs. No
				    effect when the events do not report execs */
	bool from_exec_if_held;  /* the same, for a recording whose perf command
				    line (the file's header) shows it was made
				    that way: perf attached (-p) and driven
				    through a control fifo, as fg_record_run
				    records (a kept recording read again) */
} fg_perfdata_opts;

#define FG_PERFDATA_OPTS_INIT { .version = FG_PERFDATA_OPTS_VERSION, .inline_frames = true, \
	.kallsyms = NULL, .debug_dir = NULL, .buildid_dir = NULL, .cache_dir = NULL }

/* Sets *opts to the defaults (FG_PERFDATA_OPTS_INIT); version:
 * FG_PERFDATA_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_perfdata_opts_init(fg_perfdata_opts *opts, unsigned version);

/* One frame of a sample's call chain, and one sample: the collapse
 * stage's (collapse.h), which the reader hands to a collapser as they are.
 * Every pointer of a sample the reader gives is owned by the reader and
 * valid during the callback only; comm is ":TID" when the recording never
 * named the thread, as perf; file and line are set with opts.lines. */
typedef fg_sample_frame fg_perfdata_frame;
typedef fg_sample fg_perfdata_sample;

typedef struct fg_perfdata_stats {
	uint64_t samples;    /* samples given */
	uint64_t lost;       /* samples the kernel reported lost: the larger of
				the sums of LOST and of LOST_SAMPLES records
				(perf's end totals the drops again) */
	uint64_t skipped;    /* records of types the reader does not know, and
				samples of ids no event of the recording has */
	uint64_t modules;    /* ELF files loaded */
	uint64_t before_exec; /* samples left out by opts.from_exec */
} fg_perfdata_stats;

typedef struct fg_perfdata fg_perfdata;

/* True when buf starts with perf.data's magic ("PERFILE2"). */
bool fg_perfdata_magic(const void *buf, size_t len);

/* What a perf.data file holds, read from its records without decoding the
 * samples. */
typedef struct fg_perfdata_counts {
	uint64_t samples;      /* PERF_RECORD_SAMPLE records */
	uint64_t lost;         /* samples the kernel dropped because the ring
				  buffer was full (LOST and LOST_SAMPLES) */
	uint64_t lost_records; /* LOST records ("chunks" in perf's words) */
	bool complete;         /* false: part of the file could not be read
				  (compressed records, a truncated file) */
} fg_perfdata_counts;

/* Counts samples and lost samples in a perf.data file (file form; the
 * pipe form gives FG_EINVAL), reading only the records' headers, so a
 * large recording is counted quickly; not re-entrant. FG_EIO when it
 * cannot be read, FG_EPARSE when it is not a perf.data (or its header is
 * cut short or of an unknown size). */
int fg_perfdata_count(const char *path, fg_perfdata_counts *out);

/* Opens the recording at path (mapped read-only) and reads its header,
 * attributes and features. opts may be NULL; its strings must outlive r.
 * Returns 0, FG_ENOTFOUND / FG_EIO (the file), FG_EPARSE ("PATH: offset
 * N: what is wrong") or FG_ENOMEM. Free with fg_perfdata_free. */
int fg_perfdata_open(fg_perfdata **out, const char *path, const fg_perfdata_opts *opts);
/* The same for a recording in memory (tests, fuzzing); buf must outlive
 * r; name is used in messages. */
int fg_perfdata_open_mem(fg_perfdata **out, const char *name, const void *buf, size_t len,
			 const fg_perfdata_opts *opts);

/* Reads up to cap bytes of a stream into buf: returns the count, 0 at
 * its end, or a negative FG_E* code (with its message set). */
typedef ssize_t (*fg_perfdata_read_cb)(void *ctx, void *buf, size_t cap);

/* Opens a recording in the pipe form read from a stream (perf record
 * -o - | ...): its header and the records perf writes before the data
 * are read now and kept (at most 256 MiB: FG_ELIMIT); the rest is read
 * by fg_perfdata_foreach, in 1 MiB blocks, each freed once the records
 * of it that wait for their round are handled. read and ctx must outlive
 * r; name is used in messages. The file form cannot be read from a
 * stream (FG_EINVAL); other returns as fg_perfdata_open. */
int fg_perfdata_open_stream(fg_perfdata **out, const char *name, fg_perfdata_read_cb read,
			    void *ctx, const fg_perfdata_opts *opts);

/* NULL when the reader can read this recording, else a short static
 * phrase saying what it holds that the reader does not support ("dwarf
 * call graphs", "compressed records", ...). */
const char *fg_perfdata_unsupported(const fg_perfdata *r);

/* Once samples were read, one at a time (*iter 0 at first): a library (as
 * its map names it) with sampled addresses that no symbol names (they
 * show as "[libc.so.6]") because it keeps only its exported symbols and
 * its separate debug file (under /usr/lib/debug, or opts.debug_dir) is
 * not installed — Debian 13's C library, for one. *path is valid as long
 * as r; *addresses is how many distinct addresses. False when there is no
 * more. */
bool fg_perfdata_missing_debug(const fg_perfdata *r, size_t *iter, const char **path,
			       uint64_t *addresses);

/* Calls cb for every sample, in time order. A non-zero return from cb
 * stops and is returned. Returns 0, FG_EPARSE (a truncated or malformed
 * record: "PATH: offset N: ..."; the samples before it were given),
 * FG_EINVAL (an unsupported recording, or called twice) or FG_ENOMEM. */
typedef int (*fg_perfdata_sample_cb)(void *ctx, const fg_perfdata_sample *s);
int fg_perfdata_foreach(fg_perfdata *r, fg_perfdata_sample_cb cb, void *ctx);

/* Hands every sample to c as data (fg_collapser_add_sample), which folds
 * it exactly as the text `perf script` would print for it (header line
 * with comm, PID/TID, period and event; one line per frame; an empty
 * line), so that the collapser's rules and options apply unchanged.
 * Returns as fg_perfdata_foreach, or the collapser's error. */
int fg_perfdata_collapse(fg_perfdata *r, fg_collapser *c);

/* fg_perfdata_collapse with progress: progress (when not NULL) is
 * called every few hundred samples with the number given so far; a
 * non-zero return stops the reading and is returned. */
typedef int (*fg_perfdata_progress_cb)(void *ctx, uint64_t samples);
int fg_perfdata_collapse_progress(fg_perfdata *r, fg_collapser *c, fg_perfdata_progress_cb progress,
				  void *ctx);

/* Where the sched:sched_switch tracepoint's fields are in its raw data
 * (PERF_SAMPLE_RAW), and its id (the event's config), as the kernel's
 * tracefs describes them in events/sched/sched_switch/format. */
typedef struct fg_perfdata_sched_field {
	uint16_t offset, size;   /* bytes from the raw data's start */
} fg_perfdata_sched_field;

typedef struct fg_perfdata_sched_switch {
	uint64_t id;
	fg_perfdata_sched_field prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid;
} fg_perfdata_sched_switch;

/* Parses the text of a tracefs format file of sched_switch (its "ID:"
 * line and its "field:" lines) into *out. Returns 0, or FG_EPARSE ("sched_switch
 * format:LINE: ...") when the id or a field is missing or malformed. */
int fg_perfdata_sched_switch_parse(fg_perfdata_sched_switch *out, const char *text, size_t len);

/* Off-CPU graphs from a recording of the sched_switch tracepoint fmt
 * describes (with PERF_SAMPLE_RAW and the kernel's SWITCH records,
 * attr.context_switch), read natively: its samples go to the off-CPU
 * weighing o (collapse.h, made with fg_offcpu_new_samples) instead of a
 * collapser: each sched_switch sample as a thread leaving the CPU
 * (preempted when prev_state shows it runnable), each SWITCH record
 * without the out flag as a thread coming back, every other sample as
 * on-CPU time (weighed by its period in nanoseconds for cpu-clock).
 * fmt must outlive the call. progress as for
 * fg_perfdata_collapse_progress (may be NULL). Returns as
 * fg_perfdata_foreach, or o's error; the caller then finishes o. */
int fg_perfdata_collapse_offcpu(fg_perfdata *r, fg_offcpu *o, const fg_perfdata_sched_switch *fmt,
				fg_perfdata_progress_cb progress, void *ctx);

/* Fills *out; complete after fg_perfdata_foreach. */
void fg_perfdata_reader_stats(const fg_perfdata *r, fg_perfdata_stats *out);

/* Of the samples read so far that carry the kernel's frame-pointer walk
 * of the user stack and a small stack copy (the native recorder's):
 * *samples all, *cut those whose copy ended before it reached a frame
 * of the walk, and whose outer frames are the walk's alone (frames of
 * code without frame pointers may be missing there). */
void fg_perfdata_hybrid_counts(const fg_perfdata *r, uint64_t *samples, uint64_t *cut);

void fg_perfdata_free(fg_perfdata *r);

/* ---- Symbols for call chains recorded elsewhere ----
 *
 * The reader's symbolization on its own, for call chains that another
 * recorder took (the allocation recordings, alloc.h): the caller
 * describes each process' maps, then asks for the frames of addresses,
 * resolved exactly as the reader resolves a sample's (ELF symbols, debug
 * files, DWARF inlined frames with opts->inline_frames, demangling). */
typedef struct fg_symbolizer fg_symbolizer;

/* A new symbolizer; opts may be NULL (FG_PERFDATA_OPTS_INIT), its
 * strings must outlive s. Returns 0 or FG_ENOMEM. */
int fg_symbolizer_new(fg_symbolizer **out, const fg_perfdata_opts *opts);
/* Process space (any number the caller chooses) has the file at path
 * mapped at [start, end) from file offset pgoff. Returns 0 or FG_ENOMEM. */
int fg_symbolizer_add_map(fg_symbolizer *s, int32_t space, uint64_t start, uint64_t end,
			  uint64_t pgoff, const char *path);
/* The frames of address addr of process space, innermost first (inlined
 * frames, then the function): *frames points to *n frames, owned by s
 * and valid until the next call. An address in no map gives one frame
 * with no symbol and no module. Returns 0 or FG_ENOMEM. */
int fg_symbolizer_resolve(fg_symbolizer *s, int32_t space, uint64_t addr,
			  const fg_perfdata_frame **frames, size_t *n);
void fg_symbolizer_free(fg_symbolizer *s);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
