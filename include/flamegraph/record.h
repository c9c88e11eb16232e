/* The record stage: builds the command lines of the recorder (perf on
 * Linux, DTrace on macOS/BSD) and of `perf script`.
 *
 * Nothing here runs a process: the functions return argv vectors so that
 * command construction can be tested on any machine. fg_profile_run()
 * (flamegraph/profile.h) runs them. */
#ifndef FLAMEGRAPH_RECORD_H
#define FLAMEGRAPH_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fg_recorder {
	FG_RECORDER_PERF = 0, /* Linux perf */
	FG_RECORDER_DTRACE,   /* macOS, FreeBSD, illumos */
} fg_recorder;

typedef enum fg_call_graph {
	FG_CALL_GRAPH_DWARF = 0, /* --call-graph dwarf,65528: exact, large files */
	FG_CALL_GRAPH_FP,        /* frame pointers: fast, small files */
	FG_CALL_GRAPH_LBR,       /* last branch record (Intel only) */
} fg_call_graph;

/* The user-stack bytes perf copies per sample with dwarf unwinding. perf's
 * 8 KB default loses every caller below a large stack buffer. */
#define FG_DWARF_STACK_SIZE 65528

typedef struct fg_record_opts {
	fg_recorder recorder;
	const char *tool;        /* perf or dtrace executable; NULL: "perf"/"dtrace".
				    The CLI passes $PERF / $DTRACE here. */
	unsigned freq;           /* sampling frequency in Hz (-F; default 997) */
	const char *custom;      /* -c: replaces the default record arguments
				    ("record -e cycles -g"; a missing leading
				    "record" is added for perf) */
	fg_call_graph call_graph;
	bool root;               /* run the recorder through sudo */
	const char *sudo_flags;  /* extra sudo arguments (split like a shell) */
	int compression_level;   /* perf -z level; < 0: no compression */
	const char *const *pids; /* record these running processes ... */
	size_t npids;
	const char *const *argv; /* ... or run this command (argv[0] the program) */
	size_t argc;
	const char *output;      /* perf.data / DTrace output file */
} fg_record_opts;

#define FG_RECORD_OPTS_INIT { FG_RECORDER_PERF, NULL, 997, NULL, FG_CALL_GRAPH_DWARF, \
	false, NULL, -1, NULL, 0, NULL, 0, NULL }

/* Builds the recorder's command line into *out (a NULL-terminated, malloc'd
 * vector; free it with fg_argv_free). perf: `perf record -F FREQ
 * --call-graph MODE -g [--compression-level=N] -o FILE (-p PIDS | -- PROG ARGS)`; DTrace:
 * `dtrace -x ustackframes=100 -n 'profile-FREQ /pid == $target/
 * { @[ustack(100)] = count(); }' -o FILE (-p PID | -c 'PROG ARGS')`.
 * FG_EINVAL when neither or both of pids/argv are given, or for a bad
 * custom command; FG_EPARSE for unbalanced quotes in custom/sudo_flags. */
int fg_record_command(char ***out, const fg_record_opts *opts);

/* Builds `perf script -i PERFDATA [--no-inline]` (through sudo
 * when opts->root; -f then, since perf.data belongs to root). The output
 * goes to stdout, for fg_collapser_feed. FG_EINVAL for DTrace, which has
 * no script step: its output file is collapsed directly. */
int fg_record_script_command(char ***out, const fg_record_opts *opts,
			     const char *perfdata, bool no_inline);

/* The name of a call-graph mode ("dwarf", "fp", "lbr"), and the reverse
 * (FG_EINVAL for an unknown name). */
const char *fg_call_graph_name(fg_call_graph mode);
int fg_call_graph_parse(fg_call_graph *out, const char *name);

/* Frees a vector from fg_record_command and friends. NULL is a no-op. */
void fg_argv_free(char **argv);

#ifdef __cplusplus
}
#endif
#endif
