/* The record stage: the command lines of the recorder (perf on Linux,
 * DTrace on macOS/BSD) and of `perf script`, the sizes that keep a
 * recording bounded and lossless, running the recorder (fg_record_run) and
 * counting what a perf.data holds.
 *
 * The command builders run nothing, so that command construction can be
 * tested on any machine; fg_record_run() runs them. */
#ifndef FLAMEGRAPH_RECORD_H
#define FLAMEGRAPH_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

typedef enum fg_recorder {
	FG_RECORDER_PERF = 0, /* Linux perf */
	FG_RECORDER_DTRACE,   /* macOS, FreeBSD, illumos */
	FG_RECORDER_XCTRACE,  /* macOS: Instruments' Time Profiler, through
				 `xctrace record`, read back with `xctrace
				 export` (needs no root) */
	FG_RECORDER_NATIVE,   /* Linux: the library's own recorder, which
				 opens the kernel's perf events itself
				 (flamegraph/recorder.h): no perf needed */
} fg_recorder;

/* The time-profile tables of every run in a .trace, for xctrace export. */
#define FG_XCTRACE_XPATH "/trace-toc/*/data/table[@schema=\"time-profile\"]"

/* The executable of a recorder: "perf", "dtrace" or "xctrace" (the
 * native recorder runs none: "perf_event_open", for messages). */
const char *fg_recorder_tool(fg_recorder recorder);

/* What decides the recorder where perf is not the one (macOS, BSD). */
typedef struct fg_record_host {
	bool dtrace_found;  /* dtrace is on PATH */
	bool xctrace_found; /* xctrace is on PATH (Xcode's command line tools) */
	bool privileged;    /* running as root, or through sudo (--root):
			       DTrace needs it */
	bool dtrace_named;  /* $DTRACE names a dtrace: the user's choice */
	bool xctrace_named; /* $XCTRACE names an xctrace: the user's choice */
} fg_record_host;

/* The recorder for a machine without perf, as cargo-flamegraph chooses:
 * the one the environment names ($DTRACE before $XCTRACE); else DTrace
 * when it is usable (found, and root or sudo to run it); else xctrace
 * when found; else DTrace (whose absence the run then explains). */
fg_recorder fg_record_choose(const fg_record_host *host);

typedef enum fg_call_graph {
	FG_CALL_GRAPH_DWARF = 0, /* --call-graph dwarf,65528: exact, large files */
	FG_CALL_GRAPH_FP,        /* frame pointers: fast, small files */
	FG_CALL_GRAPH_LBR,       /* last branch record (Intel only) */
} fg_call_graph;

/* What a recording measures. */
typedef enum fg_record_mode {
	FG_RECORD_ON_CPU = 0, /* samples of running code at -F Hz (perf's
				 default event) */
	FG_RECORD_OFF_CPU,    /* every sched:sched_switch with its stack, and
				 perf's switch records: where threads wait,
				 and how long (collapse.h, fg_offcpu) */
	FG_RECORD_HOT_COLD,   /* both: cpu-clock at -F Hz and the above */
} fg_record_mode;

/* The user-stack bytes perf copies per sample with dwarf unwinding. perf's
 * 8 KB default loses every caller below a large stack buffer. */
#define FG_DWARF_STACK_SIZE 65528

struct fg_runner; /* how child processes run: see fg_record_opts.runner */

/* The layout of fg_record_opts this header describes: fg_record_opts_init
 * and the functions handed one take it and every older version, and refuse
 * 0 and later ones (FG_EINVAL). */
#define FG_RECORD_OPTS_VERSION 1

typedef struct fg_record_opts {
	unsigned version;        /* FG_RECORD_OPTS_VERSION */
	fg_recorder recorder;
	const char *tool;        /* perf, dtrace or xctrace executable; NULL:
				    fg_recorder_tool(recorder). The CLI
				    passes $PERF / $DTRACE / $XCTRACE here. */
	unsigned freq;           /* sampling frequency in Hz; 0: not set, the
				    default FG_RECORD_DEFAULT_FREQ (see
				    fg_record_freq); xctrace's Time Profiler
				    keeps its own */
	const char *custom;      /* -c: replaces the default record arguments
				    ("record -e cycles -g"; a missing leading
				    "record" is added for perf) */
	fg_call_graph call_graph;
	fg_record_mode mode;     /* on-CPU, off-CPU or both (perf only, not
				    with a custom command) */
	bool root;               /* run the recorder through sudo */
	const char *sudo_flags;  /* extra sudo arguments (split like a shell) */
	int compression_level;   /* perf -z level; < 0: no compression */
	bool script_lines;       /* perf script -F ...,+srcline: each frame's
				    source line, for fg_collapse_opts.lines */
	const char *const *pids; /* record these running processes ... */
	size_t npids;
	const char *const *argv; /* ... or run this command (argv[0] the program) */
	size_t argc;
	const char *const *env;  /* "NAME=VALUE" added to the command's
				    environment (a CTest test's), or NULL */
	size_t nenv;
	const char *cwd;         /* the command's working directory (NULL: ours).
				    Relative paths in the other fields are
				    ours, except where the recorder itself
				    runs the command (DTrace, -c): give
				    `output` absolute then. */
	const char *output;      /* perf.data / DTrace output file */
	const char *tool_origin; /* where `tool` came from, for messages (the
				    CLI passes "PERF"); NULL: not said */
	uint64_t buffer_bytes;   /* perf's ring buffer per CPU (-m); 0: perf's
				    own default. See fg_record_buffer_size. */
	uint64_t max_size;       /* perf --max-size: stop recording at this many
				    bytes; 0: no cap */
	long attach_pid;         /* > 0: record this process, started held by
				    the caller, with `-p PID -D -1 --control
				    fifo:CTL,ACK` instead of running argv */
	const char *control_ctl, *control_ack; /* the fifos, with attach_pid */
	/* Starts and ends the recorder, perf script and the workload (NULL:
	 * real processes). Unit tests substitute their own (src/util/process.h)
	 * to see the command lines, environments and working directories. */
	const struct fg_runner *runner;
} fg_record_opts;

/* The sampling frequency when none is set: a prime, so the samples do not
 * fall into step with a program's own periodic work. */
#define FG_RECORD_DEFAULT_FREQ 997

#define FG_RECORD_OPTS_INIT { .version = FG_RECORD_OPTS_VERSION, .recorder = FG_RECORDER_PERF, \
	.freq = 0, .call_graph = FG_CALL_GRAPH_DWARF, .compression_level = -1 }

/* Sets *opts to the defaults (FG_RECORD_OPTS_INIT); version:
 * FG_RECORD_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one this
 * library does not know). */
int fg_record_opts_init(fg_record_opts *opts, unsigned version);

/* Builds the recorder's command line into *out (a NULL-terminated, malloc'd
 * vector; free it with fg_argv_free). perf: `perf record -F FREQ
 * --call-graph MODE -g [-m SIZE] [--max-size=SIZE] [--compression-level=N]
 * -o FILE (-D -1 --control fifo:CTL,ACK -p PID | -p PIDS | -- PROG ARGS)`
 * (with a custom command, only --max-size is added to it); DTrace:
 * `dtrace -x ustackframes=100 -n 'profile-FREQ /pid == $target/
 * { @[ustack(100)] = count(); }' -o FILE (-p PID | -c 'PROG ARGS')`;
 * xctrace: `xctrace record --template 'Time Profiler' --output FILE.trace
 * (--attach PID | --target-stdout - --launch -- PROG ARGS)` (a custom
 * command replaces `--template 'Time Profiler'`).
 * FG_EINVAL when neither or both of pids/argv are given, for several PIDs
 * with xctrace (it records one process), or for a bad custom command;
 * FG_EPARSE for unbalanced quotes in custom/sudo_flags. */
int fg_record_command(char ***out, const fg_record_opts *opts);

/* The frequency a recording with these options samples at: opts->freq, or
 * FG_RECORD_DEFAULT_FREQ when it is 0 (not set). */
unsigned fg_record_freq(const fg_record_opts *opts);

/* Builds `perf script -i PERFDATA [--no-inline] [--show-switch-events]
 * [-F +ip,+sym,+dso,+srcline]` (--show-switch-events for an off-CPU
 * mode; -F with script_lines: the source lines, and the frames' fields
 * that a tracepoint's default fields would otherwise lose); through sudo when opts->root, with -f
 * then, since perf.data belongs to root. For xctrace, the step that
 * reads a recording back: `xctrace export --input FILE.trace --xpath
 * FG_XCTRACE_XPATH` (the time-profile tables of every run, the XML that
 * FG_FORMAT_XCTRACE collapses). The output goes to stdout, for
 * fg_collapser_feed. FG_EINVAL for DTrace, which has no script step: its
 * output file is collapsed directly. */
int fg_record_script_command(char ***out, const fg_record_opts *opts,
			     const char *perfdata, bool no_inline);

/* The name of a call-graph mode ("dwarf", "fp", "lbr"), and the reverse
 * (FG_EINVAL for an unknown name). */
const char *fg_call_graph_name(fg_call_graph mode);
int fg_call_graph_parse(fg_call_graph *out, const char *name);

/* Frees a vector from fg_record_command and friends. NULL is a no-op. */
void fg_argv_free(char **argv);

/* About how many bytes one sample takes in perf.data with this call-graph
 * mode: a dwarf sample carries its 64 KB stack copy, a frame-pointer one
 * only its callchain. */
uint64_t fg_record_bytes_per_sample(fg_call_graph mode);

/* The ring buffer (bytes per CPU, perf -m) that holds about a quarter of a
 * second of one busy thread's samples at freq Hz, so that perf, woken a
 * few times a second, drops nothing: a power of two from 512 KiB to
 * 64 MiB, with all ncpus buffers together at most 1/32 of ram_bytes.
 * unprivileged_limit (> 0: what an unprivileged user may lock per CPU,
 * kernel.perf_event_mlock_kb) caps it further. */
uint64_t fg_record_buffer_size(fg_call_graph mode, unsigned freq, unsigned ncpus,
			       uint64_t ram_bytes, uint64_t unprivileged_limit);

/* The ring buffer (bytes per CPU) shrunk so that a size cap holds: perf
 * checks its cap only when it writes out what a buffer holds, and drains
 * every buffer once more when it stops, so all ncpus buffers together
 * are kept to at most a quarter of cap (a power of two, 16 KiB at least).
 * cap 0 or UINT64_MAX (no cap): buffer unchanged. */
uint64_t fg_record_buffer_within(uint64_t buffer, uint64_t cap, unsigned ncpus);

/* Parses a size: a number of bytes with an optional unit K, M, G or T
 * (powers of 1024; "KB", "KiB", "k" also taken), e.g. "500M", "2G".
 * FG_EINVAL with a message that shows the form. */
int fg_record_parse_size(uint64_t *out, const char *text);

/* Writes a size for people ("417 MB", "2.5 GB", "980 KB") into buf. */
void fg_record_format_size(char *buf, size_t len, uint64_t bytes);

/* What a recording will cost and may use on this machine. */
typedef struct fg_record_plan {
	uint64_t max_size;         /* the cap: opts->max_size, else half of
				      free_bytes (0: none) */
	bool max_size_default;     /* max_size is the default */
	uint64_t free_bytes;       /* free space where the recording goes */
	uint64_t buffer_bytes;     /* ring buffer per CPU: opts->buffer_bytes,
				      else fg_record_buffer_size for here */
	uint64_t bytes_per_second; /* expected, per busy thread */
	unsigned max_rate;         /* kernel.perf_event_max_sample_rate (0:
				      unknown) */
} fg_record_plan;

/* Plans a perf recording into folder dir: reads the kernel's sampling
 * limit, the free space, the CPUs, the memory and whether ring buffers
 * may be locked without limit. FG_ELIMIT when opts->freq is above the
 * kernel's limit, or when dir has no room for a recording at all (the
 * detail says the limit or the space, and the way out). A max_size of
 * UINT64_MAX means no cap. */
int fg_record_plan_make(fg_record_plan *plan, const fg_record_opts *opts, const char *dir);

/* Running the recorder. */

typedef enum fg_record_event {
	FG_RECORD_TICK,    /* a few times a second while recording: elapsed
			      seconds and the recording's size so far */
	FG_RECORD_WARNING, /* msg: a line of the recorder's that is not one of
			      its routine banners, once each */
	FG_RECORD_CAPPED,  /* the size cap was reached (elapsed: when) */
} fg_record_event;

typedef void (*fg_record_event_cb)(void *ctx, fg_record_event kind, const char *msg,
				   double elapsed, uint64_t bytes);

/* The layout of fg_record_run_opts this header describes:
 * fg_record_run_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_RECORD_RUN_OPTS_VERSION 1

typedef struct fg_record_run_opts {
	unsigned version;      /* FG_RECORD_RUN_OPTS_VERSION */
	/* The recorder's command (output, argv or pids filled in). With
	 * attach, argv is run by fg_record_run itself and perf attaches to
	 * it; attach_pid and the control fifos are filled in here. */
	fg_record_opts rec;
	bool attach;           /* perf only, without a custom command */
	bool continue_at_max;  /* the size cap reached: the workload goes on
				  (else it is stopped) */
	int workload_stdout;   /* attach: the workload's stdout (-1: ours) */
	int recorder_stdout;   /* the recorder's stdout (-1: our stderr): the
				  pipe that a recording to "-" (perf record
				  -o -) is streamed through */
	const char *tmpdir;    /* for the control fifos (NULL: /tmp) */
	fg_record_event_cb on_event; /* NULL: none */
	void *event_ctx;
	/* the recording's size so far (event_ctx), when it is not a file
	 * (a stream's reader counts it); NULL: the output file's size */
	uint64_t (*output_bytes)(void *ctx);
} fg_record_run_opts;

#define FG_RECORD_RUN_OPTS_INIT                                                          \
	{ .version = FG_RECORD_RUN_OPTS_VERSION, .rec = FG_RECORD_OPTS_INIT, .workload_stdout = -1, \
	  .recorder_stdout = -1 }

/* The user stack bytes the native recorder (flamegraph/recorder.h,
 * fg_recorder_opts.stack_bytes) copies with each sample of the program
 * at path, recorded with call graphs of mode: 0, its small default,
 * which relies on the kernel's frame-pointer walk for the frames past
 * the copy; 65528, a whole copy, for dwarf call graphs of an ELF
 * program whose debug info, or else (x86_64) whose unwind tables, say it
 * was built without frame pointers (elfcheck.h). A path that cannot be
 * read, or a program that starts another (a shell, env, time, nice,
 * taskset, timeout, nohup, xargs, sudo...: the small copy, which grows
 * if it falls short): 0. */
size_t fg_record_native_stack(fg_call_graph mode, const char *path);

/* Sets *opts to the defaults (FG_RECORD_RUN_OPTS_INIT); version:
 * FG_RECORD_RUN_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_record_run_opts_init(fg_record_run_opts *opts, unsigned version);

typedef struct fg_record_outcome {
	int workload_code;      /* the workload's exit code, -1 after a signal */
	int workload_signal;    /* the signal that ended it, else 0 */
	bool workload_known;    /* the two fields above are the workload's own
				   (attach), not the recorder's that relays
				   them */
	int interrupted;        /* the signal that interrupted the run, else 0 */
	bool capped;            /* the recording reached its size cap */
	double seconds;         /* from the workload's start to the end of
				   the recording */
	double seconds_at_cap;  /* when the cap was reached */
	double seconds_workload;/* how long the workload ran (attach) */
	bool recorder_missing;  /* the recorder could not be started: it is
				   not installed where it was looked for */
	uint64_t bytes;         /* size of the recording */
} fg_record_outcome;

#define FG_RECORD_OUTCOME_INIT { .workload_code = 0 }

/* Runs the recorder until the workload ends (or the PIDs exit, or an
 * interrupt: see flamegraph/signals.h) and the recording is complete.
 * perf's routine banners are consumed; its other lines reach on_event.
 * With attach, the workload is started held, perf attaches to it with its
 * events off, enables them, and only then does the workload exec: nothing
 * of its run is missed, its status is its own, and its output is not
 * perf's. Errors: FG_ENOTFOUND (recorder or program missing), FG_ERECORD
 * (the recorder failed: the detail says why, in perf's words and ours),
 * FG_EINTR (aborted by a second interrupt: children killed). With
 * FG_RECORDER_NATIVE no recorder runs: fg_recorder_run (recorder.h)
 * records into rec.output ("-": recorder_stdout) in perf.data's pipe
 * form, and its messages come as FG_RECORD_WARNING. */
int fg_record_run(const fg_record_run_opts *opts, fg_record_outcome *out);

/* Streams `perf script` of perfdata (fg_record_script_command) into sink,
 * chunk by chunk, never holding the text as a whole. perf's stderr is
 * sorted as fg_record_run sorts perf record's: routine lines dropped, the
 * others handed to on_event (FG_RECORD_WARNING) once the stream ends, or
 * told in the error when perf script fails. An interrupt request
 * (flamegraph/signals.h) stops it: FG_EINTR. sink's own error stops it
 * too and is returned. FG_ERECORD when perf script fails. */
int fg_record_script_stream(const fg_record_opts *rec, const char *perfdata, bool no_inline,
			    int (*sink)(void *ctx, const char *buf, size_t len), void *sink_ctx,
			    fg_record_event_cb on_event, void *event_ctx);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
