/* Messages from the programs: "prog: error: what happened — what to do".
 * Colour only when stderr is a terminal and NO_COLOR is unset. */
#ifndef FG_CLI_COMMON_DIAG_H
#define FG_CLI_COMMON_DIAG_H

/* Exit codes shared by every program (each man page lists them). */
enum {
	FG_EXIT_OK = 0,
	FG_EXIT_USAGE = 1,   /* user error: bad flag, unknown target, bad input */
	FG_EXIT_BUILD = 2,   /* the build failed */
	FG_EXIT_RECORD = 3,  /* the recorder failed (perf could not record,
				perf script failed) */
	FG_EXIT_NODATA = 4,  /* no samples: nothing to draw */
	FG_EXIT_WORKLOAD = 5,/* the profiled program crashed or exited
				non-zero (the graph was still written) */
	FG_EXIT_REGRESSION = 6, /* the regression gate failed: a function's
				   share grew past --fail-above */
	FG_EXIT_UNDECIDED = 7,  /* flamegraph-diff-folded --first-look: more
				   runs could change the verdict */
	/* interrupted: 128 + the signal (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP) */
	FG_EXIT_SIGNAL_BASE = 128,
};

/* text with the library's names of option fields (in backquotes, as
 * `opts.perfdata_out` or `opts.record.call_graph=fp`) said with our flags instead
 * (--perfdata-out, --call-graph fp); malloc'd, NULL without memory.
 * fg_errorf, fg_warnf and fg_notef say every message this way. */
char *fg_cli_words(const char *text);

/* Sets the program name used as the message prefix. */
void fg_diag_init(const char *prog);
const char *fg_diag_prog(void);
void fg_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fg_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fg_notef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints fg_error_last() as an error and returns the exit code that fits
 * the library error code `err`. After an allocation failure (err is
 * FG_ENOMEM, or fg_error_nomem_count() moved) it prints one "out of
 * memory" error instead, whatever error the failure led to. */
int fg_die_lib(int err);
/* FG_ENOMEM (set as the error) if any allocation of the library failed in
 * this run, else 0: the programs call it before they write a result, so
 * that a failure no caller could report never ends in a quietly
 * different result (docs/ARCHITECTURE.md, "Out of memory"). */
int fg_cli_check_memory(void);
/* The exit code for a library error code. */
int fg_exit_code_for(int err);

#endif
