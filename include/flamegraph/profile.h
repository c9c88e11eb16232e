/* The profiling pipeline shared by `flamegraph` and `flamegraph-build`:
 *
 *   ELF checks -> record (perf/DTrace) -> read -> collapse -> render
 *
 * fg_profile_run() profiles a command, running processes or an existing
 * perf.data and writes the graph (SVG, folded stacks or speedscope JSON).
 * A perf.data is read natively (perfdata.h), its samples fed straight to
 * the collapser; where it cannot be (opts.perf_script, off-CPU modes,
 * recordings the reader does not support), `perf script` output is
 * streamed through a pipe into the collapser and never held in memory as
 * a whole. Every output is written to a temporary
 * file and renamed into place, so a failed run never clobbers a file.
 *
 * The library prints nothing: commands run, stage timings, warnings and
 * progress are handed to opts->on_event, and the caller decides what to
 * show. */
#ifndef FLAMEGRAPH_PROFILE_H
#define FLAMEGRAPH_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flamegraph/alloc.h"
#include "flamegraph/collapse.h"
#include "flamegraph/elfcheck.h"
#include "flamegraph/git.h"
#include "flamegraph/perfdata.h"
#include "flamegraph/record.h"
#include "flamegraph/render.h"

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

typedef enum fg_output_format {
	FG_OUTPUT_SVG = 0,  /* interactive flame graph */
	FG_OUTPUT_FOLDED,   /* "a;b;c COUNT" lines */
	FG_OUTPUT_JSON,     /* speedscope file format (sampled profile) */
	FG_OUTPUT_PPROF,    /* gzip-compressed pprof profile.proto */
	FG_OUTPUT_NONE,     /* no graph: only fg_profile_opts.stacks_out and
			       folded_out (one side of a comparison) */
	FG_OUTPUT_HTML,     /* the HTML viewer (fg_render_html) */
} fg_output_format;

/* How a perf recording reaches the native reader. */
typedef enum fg_stream_mode {
	FG_STREAM_AUTO = 0, /* streamed wherever it can be (fg_profile_can_stream),
			       else a temporary file */
	FG_STREAM_ON,       /* streamed: an error where it cannot be */
	FG_STREAM_OFF,      /* a file (temporary, or perfdata_out) */
} fg_stream_mode;

/* Parses "svg", "folded", "json", "pprof" or "html" (FG_EINVAL otherwise). */
int fg_output_format_parse(fg_output_format *out, const char *name);

/* The output file name used when none is given: "flamegraph.svg",
 * "stacks.folded", "profile.speedscope.json", "profile.pb.gz" or
 * "flamegraph.html" (NULL for FG_OUTPUT_NONE).
 * The one place that decides it. */
const char *fg_output_default_name(fg_output_format format);

typedef enum fg_profile_event {
	FG_PROFILE_COMMAND,  /* msg: a command about to run, quoted for display */
	FG_PROFILE_TIMING,   /* msg: stage name ("record", "read" (native),
				"script", "collapse", "render"); value:
				seconds it took */
	FG_PROFILE_WARNING,  /* msg: a warning with its fix (ELF checks, skipped
				input lines) */
	FG_PROFILE_NOTE,     /* msg: information (what is profiled, where the
				graph went) */
	FG_PROFILE_PROGRESS, /* value: bytes of perf script output read so far;
				msg NULL. Called often: keep it cheap. */
	FG_PROFILE_PROGRESS_END, /* the streaming stage is over (clear a spinner) */
} fg_profile_event;

typedef enum fg_profile_stage {
	FG_STAGE_RECORDING = 0, /* the workload runs under the recorder */
	FG_STAGE_CAPPED,        /* the recording hit its size cap; the
				   workload goes on unrecorded */
	FG_STAGE_PROCESSING,    /* the recording is read and folded */
	FG_STAGE_DONE,          /* nothing more: clear the status line */
} fg_profile_stage;

/* A few times a second while the pipeline runs, for a live status line. */
typedef struct fg_profile_status {
	fg_profile_stage stage;
	double elapsed;     /* seconds in this stage */
	uint64_t bytes;     /* RECORDING: size of the recording so far;
			       PROCESSING: bytes of its text read so far */
	uint64_t samples;   /* PROCESSING: samples read so far */
	uint64_t total;     /* PROCESSING: samples in the recording (0: unknown) */
} fg_profile_status;

typedef void (*fg_profile_status_cb)(void *ctx, const fg_profile_status *st);

typedef void (*fg_profile_event_cb)(void *ctx, fg_profile_event kind,
				    const char *msg, double value);

/* The layout of fg_profile_opts this header describes. A caller sets
 * its options up with fg_profile_opts_init (or FG_PROFILE_OPTS_INIT),
 * which records the version it was compiled with; a library takes that
 * version and every older one, and refuses 0 and later ones (FG_EINVAL)
 * instead of misreading them. The structs it embeds
 * (record, render) are set up with it; their own versions are checked
 * too (one put in their place is set up with its own _init). */
#define FG_PROFILE_OPTS_VERSION 1

typedef struct fg_profile_opts {
	unsigned version;         /* FG_PROFILE_OPTS_VERSION */
	/* How to record: recorder, tool path, -F, -c, --call-graph, --root,
	 * -z. record.argv/pids/output are filled in from the fields below. */
	fg_record_opts record;

	/* What to profile: exactly one of the three. */
	const char *const *argv;  /* a command: argv[0] is looked up on PATH */
	size_t argc;
	const char *const *pids;  /* running processes (decimal strings) */
	size_t npids;
	const char *perfdata;     /* an existing perf.data (or DTrace output):
				     re-render it, record nothing */
	/* Where the command runs: "NAME=VALUE" strings added to its
	 * environment and its working directory (NULL: ours). Data, not
	 * process state: the caller's cwd and environment stay as they are,
	 * and relative output paths stay relative to the caller. */
	const char *const *env;
	size_t nenv;
	const char *cwd;

	/* Outputs. */
	const char *output;        /* the graph; NULL: fg_output_default_name;
				      "-": stdout */
	fg_output_format format;
	const char *folded_out;    /* also write the folded stacks here (NULL: no) */
	const char *perfdata_out;  /* keep perf.data here (NULL: a temporary
				      file, removed afterwards) */
	const char *tmpdir;        /* for the temporary perf.data (NULL: /tmp);
				      callers pass $TMPDIR */

	/* Reading the recording. A perf.data is read natively (perfdata.h)
	 * unless perf_script, or unless it holds what the native reader does
	 * not read (then perf script, with a note), or the mode is off-CPU
	 * or hot/cold (their scheduler events go through perf script). */
	bool perf_script;          /* read perf.data through `perf script` */
	fg_stream_mode stream;     /* whether the recording goes to a pipe
				      (perf record -o -) read natively as perf
				      writes it, while the workload runs: no
				      perf.data on disk, the graph ready soon
				      after the workload's end */
	const char *buildid_dir;   /* perf's build-id cache, such as ~/.debug,
				      for the native reader (NULL: none) */
	const char *debug_cache_dir; /* the native reader's copies of
				      compressed DWARF (fg_perfdata_opts.
				      cache_dir; NULL: none) */

	/* Collapse. */
	bool no_inline;            /* no inlined frames (perf script --no-inline) */
	bool lines;                /* frames named FUNCTION:FILE:LINE: the sampled
				      line, the line of each call
				      (fg_collapse_opts.lines) */
	const char *const *skip_after; /* drop the callers above these functions */
	size_t nskip_after;
	bool per_thread;           /* each thread under its own root frame,
				      NAME-TID (fg_collapse_opts.per_thread);
				      the JSON output gets a profile per
				      thread */
	bool per_thread_name;      /* with per_thread: the threads of one name
				      share one root, NAME (a JSON profile
				      per name) */
	const char *post_process;  /* filter the folded stacks through this
				      command (split like a shell, run without
				      one): folded text on its stdin, folded
				      text expected on its stdout */

	/* Behaviour. */
	bool ignore_status;        /* a failing workload is not an error */
	bool check_elf;            /* run fg_elfcheck_file on the program first */
	bool continue_at_max;      /* the size cap reached (record.max_size):
				      the workload runs on unrecorded (else
				      it is stopped) */
	bool workload_stdout_to_stderr; /* the workload's stdout goes to
				      stderr (the graph is on stdout) */

	fg_render_opts render;     /* title, palette, widths... */

	fg_profile_event_cb on_event; /* NULL: nothing is reported */
	void *event_ctx;

	/* Where the profiled code comes from, recorded in the JSON output's
	 * metadata (NULL: not known). */
	const fg_git_info *git;
	/* How the ELF check's warnings word their fixes: the flags of the
	 * build system that made the program (flamegraph-build). */
	fg_fix_style fix_style;

	/* Live status (NULL: none). */
	fg_profile_status_cb on_status;

	/* When not NULL, receives the folded stacks of the run (the caller
	 * frees them with fg_folded_free), so a later stage (a comparison)
	 * takes them as data. */
	fg_folded **stacks_out;

	/* Allocation graphs: when not FG_ALLOC_NONE, the command runs with
	 * the allocation interposer preloaded (no perf, no recorder options)
	 * and the graph weighs its allocations by this view. alloc_lib is
	 * the interposer's path (libflamegraph-alloc.so); the programs find
	 * it beside themselves. */
	fg_alloc_view alloc;
	const char *alloc_lib;
	/* What LD_PRELOAD held already (NULL: nothing): kept after ours. */
	const char *alloc_preload;
	/* Sampling: about one allocation recorded per alloc_sample bytes
	 * allocated, weighted to unbiased estimates (0: every allocation,
	 * exact). */
	uint64_t alloc_sample;
	/* The interposer's unwinder (auto: by the program's frame pointers). */
	fg_alloc_unwind alloc_unwind;

	/* Where the size cap comes from when record.max_size is 0: half the
	 * free space where the recording goes. UINT64_MAX in record.max_size
	 * means no cap at all. */

	/* The words of the advice the run writes into its outputs (the
	 * graph's subtitle: "record with `opts.record.call_graph=fp`..."):
	 * NULL keeps the library's names of the options; a program passes
	 * the function that says them with its flags (a malloc'd text, or
	 * NULL to keep the text as it is). */
	char *(*words)(const char *text);
} fg_profile_opts;

/* Whether a run with these options can stream its recording: perf
 * recording on-CPU samples with its own arguments (no record.custom) on
 * x86_64 (the native reader's architecture), read natively (not
 * perf_script), with no perf.data to keep (perfdata_out) or to read
 * (perfdata). */
bool fg_profile_can_stream(const fg_profile_opts *opts);

/* Sets *opts to the defaults (FG_PROFILE_OPTS_INIT); version is
 * FG_PROFILE_OPTS_VERSION as the caller was compiled. FG_EINVAL for a
 * version this library does not know. */
int fg_profile_opts_init(fg_profile_opts *opts, unsigned version);

/* The folder a run with these options records into: the folder of
 * perfdata_out when it is set, else tmpdir (NULL or "": /tmp). A string
 * to free, NULL without memory. */
char *fg_profile_record_dir(const fg_profile_opts *opts);

/* A perf.data recording read into a collapser outside a profiling run
 * (flamegraph-collapse-perf): natively, or through `perf script` when
 * asked (perf_script) or when the recording holds what the native reader
 * does not read yet (a note through on_event says so), as a profiling
 * run reads its own. */
#define FG_PERFDATA_READ_OPTS_VERSION 1

typedef struct fg_perfdata_read_opts {
	unsigned version;            /* FG_PERFDATA_READ_OPTS_VERSION */
	bool inline_frames;          /* as perf script without --no-inline */
	bool perf_script;            /* always through perf script */
	const char *tool;            /* the perf executable (NULL: perf) */
	const char *buildid_dir;     /* perf's build-id cache (~/.debug), or NULL */
	const char *debug_cache_dir; /* uncompressed debug copies (NULL: none) */
	fg_profile_event_cb on_event;/* notes, perf script's warnings (NULL: none) */
	void *event_ctx;
	bool lines;                  /* frames as function:line (source lines) */
} fg_perfdata_read_opts;

#define FG_PERFDATA_READ_OPTS_INIT { .version = FG_PERFDATA_READ_OPTS_VERSION, .inline_frames = true }

/* Sets *opts to the defaults (FG_PERFDATA_READ_OPTS_INIT: inline frames,
 * natively); FG_EINVAL for a version this library does not know. */
int fg_perfdata_read_opts_init(fg_perfdata_read_opts *opts, unsigned version);

/* Feeds the samples of the recording at path into c. Returns 0 or an
 * FG_E* code (detail in fg_error_last). */
int fg_profile_collapse_perfdata(fg_collapser *c, const char *path,
				 const fg_perfdata_read_opts *opts);

/* The same for a recording read as a stream (named name in messages):
 * natively only, since perf script cannot be handed the bytes already
 * read; FG_EINVAL with perf_script or a recording the native reader does
 * not read yet. */
int fg_profile_collapse_perfdata_stream(fg_collapser *c, const char *name,
					fg_perfdata_read_cb read, void *read_ctx,
					const fg_perfdata_read_opts *opts);

#define FG_PROFILE_OPTS_INIT { .version = FG_PROFILE_OPTS_VERSION, .record = FG_RECORD_OPTS_INIT, .format = FG_OUTPUT_SVG, \
	.check_elf = true, .render = FG_RENDER_OPTS_INIT, .fix_style = FG_FIX_GENERIC }

typedef struct fg_profile_result {
	bool recorded;        /* a recorder ran (false for opts->perfdata) */
	int exit_code;        /* the workload's (the recorder's) exit code;
				 -1 when killed by a signal */
	int signal;           /* the signal that killed it, else 0 */
	bool interrupted;     /* the run was interrupted (see interrupt_signal) */
	int interrupt_signal; /* the signal of fg_interrupt, or SIGINT when the
				 workload ended by Ctrl-C */
	bool workload_failed; /* non-zero exit or a signal (not one we sent) */
	uint64_t samples;     /* samples in the graph */
	uint64_t stacks;      /* distinct stacks */
	uint64_t script_bytes;/* bytes of perf script output streamed (0 when
				 read natively) */
	bool read_natively;   /* the perf.data was read without perf script */
	bool streamed;        /* ... as perf wrote it (opts->stream) */
	double seconds_record, seconds_script, seconds_collapse, seconds_render;
	double seconds_read;  /* the native reader's time, collapse included;
				 streamed: from the recording's end to the
				 reader's */
	unsigned nwarnings;   /* warnings sent to on_event */
	bool output_written;  /* opts->output was replaced */
	/* The recording (perf). */
	uint64_t lost;        /* samples the kernel dropped (ring buffer full) */
	bool lost_known;      /* lost could be counted */
	bool capped;          /* the recording stopped at its size cap ... */
	double seconds_at_cap;/* ... this long after the start */
	double seconds_run;   /* from the workload's start to its end (or the
				 end of the recording) */
	uint64_t record_bytes;/* size of the recording */
	uint64_t max_size;    /* the cap that applied (0: none) */
	/* (where the recording was written: fg_profile_record_dir) */
	/* Off-CPU modes (record.mode). samples counts the waits then (and
	 * the on-CPU samples, hot/cold); the graph's unit is microseconds. */
	uint64_t off_cpu_waits;  /* waits in the graph */
	uint64_t off_cpu_us;     /* their total time off CPU */
	uint64_t on_cpu_samples; /* hot/cold: on-CPU samples in the graph */
	/* Allocation graphs (opts.alloc): what the recordings hold. */
	fg_alloc_totals alloc;
} fg_profile_result;

#define FG_PROFILE_RESULT_INIT { .recorded = false }

/* Runs the pipeline. Returns 0 when the graph was written, even when the
 * workload failed or the run was interrupted (see res->workload_failed and
 * res->interrupted; the caller decides, with opts->ignore_status, whether
 * that is an error). Before anything runs, the sampling frequency is
 * checked against kernel.perf_event_max_sample_rate and the size cap is
 * set (record.max_size, else half the free space where the recording
 * goes); perf's ring buffer (record.buffer_bytes, else
 * fg_record_buffer_size) is sized for the call-graph mode and rate.
 * Samples lost all the same are counted and, with a size cap reached,
 * told in the graph's subtitle. Interrupts: flamegraph/signals.h. Errors:
 *   FG_ENOTFOUND  the program or a PID does not exist, or perfdata is missing
 *   FG_ERECORD    the recorder is not installed / could not record (the
 *                 detail names the package to install or the sysctl to set)
 *   FG_ELIMIT     the frequency is above the kernel's limit, or no disk
 *                 space is left for the recording
 *   FG_EINTR      interrupted twice, or while processing (nothing written)
 *   FG_ENODATA    no samples were recorded (nothing is written)
 *   FG_EIO        an output could not be written (the old file is kept)
 *   FG_EINVAL     inconsistent options
 *   FG_ECHILD     --post-process failed
 * res is filled as far as the run got; it may be NULL. */
int fg_profile_run(const fg_profile_opts *opts, fg_profile_result *res);

/* Writes folded stacks as a speedscope JSON document
 * (https://www.speedscope.app file format, one "sampled" profile named
 * `name`) to out: frames numbered in order of first appearance, one
 * weighted sample per stack, in the order fg_folded keeps them (input
 * order with FG_FOLDED_KEEP_ORDER, else sorted). git, when not NULL, goes
 * into a top-level "metadata" object (branch, commit, dirty). FG_EIO on
 * write errors. */
int fg_speedscope_write(FILE *out, const char *name, const fg_folded *stacks,
			const fg_git_info *git);

/* The layout of fg_speedscope_opts this header describes:
 * fg_speedscope_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_SPEEDSCOPE_OPTS_VERSION 1

typedef struct fg_speedscope_opts {
	unsigned version;       /* FG_SPEEDSCOPE_OPTS_VERSION */
	const char *name;       /* the document's name, and its one profile's
				   (NULL: "profile") */
	const fg_git_info *git; /* into "metadata" (NULL: none) */
	bool per_root;          /* one profile per root frame, named after it
				   and without it in its stacks: a profile
				   per thread of a --per-thread collapse */
	const char *unit;       /* the weights' speedscope unit: "none"
				   (samples), "microseconds", ... (NULL: none) */
} fg_speedscope_opts;

/* Fields not named are 0, false or NULL. */
#define FG_SPEEDSCOPE_OPTS_INIT { .version = FG_SPEEDSCOPE_OPTS_VERSION }

/* Sets *opts to the defaults (FG_SPEEDSCOPE_OPTS_INIT); version:
 * FG_SPEEDSCOPE_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_speedscope_opts_init(fg_speedscope_opts *opts, unsigned version);

/* fg_speedscope_write with the options above. */
int fg_speedscope_write_opts(FILE *out, const fg_speedscope_opts *opts, const fg_folded *stacks);


FG_API_END
#ifdef __cplusplus
}
#endif
#endif
