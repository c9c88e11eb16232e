/* A whole suite's run (suite.c) and what it writes into its folder
 * (suite_index.c: index.html and summary.json), meeting through one
 * record per test. */
#ifndef FG_LIB_PIPELINE_SUITE_H
#define FG_LIB_PIPELINE_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a test's run ended, worst last. */
enum fg_suite_status {
	FG_SUITE_PASSED = 0,  /* exited 0, graph written */
	FG_SUITE_NO_SAMPLES,  /* ran, but too short to be sampled: no graph */
	FG_SUITE_FAILED,      /* exited non-zero (exit_code); graph written */
	FG_SUITE_CRASHED,     /* killed by a signal (signal); graph written */
	FG_SUITE_INTERRUPTED, /* the suite was interrupted during it: the
				 graph of what was recorded */
	FG_SUITE_NOT_BUILT,   /* its build failed (note says why) */
	FG_SUITE_ERROR,       /* it could not be profiled (note says why) */
};

#define FG_SUITE_HOT 3

/* One test of the suite, as the index and summary show it. */
struct fg_suite_entry {
	const char *name;         /* as --list names it */
	const char *file;         /* the file name stem of its outputs in the
				     folder: FILE.svg, FILE.folded */
	enum fg_suite_status status;
	bool has_graph;           /* FILE.svg and FILE.folded were written */
	bool html;                /* the graph is FILE.html (the HTML viewer),
				     not FILE.svg */
	int exit_code;            /* FG_SUITE_FAILED */
	int signal;               /* FG_SUITE_CRASHED */
	double wall_seconds;      /* from its start to its end */
	double cpu_seconds;       /* on-CPU time measured by the samples; < 0
				     when the graph does not weigh CPU time
				     (off-CPU, allocations) */
	uint64_t samples;
	/* its hottest functions by self time, hottest first (NULL: fewer),
	 * and each one's share of the test's samples (0..1) */
	const char *hot[FG_SUITE_HOT];
	double hot_share[FG_SUITE_HOT];
	const char *note;         /* NULL, or why it failed to run */
	/* A comparison (--compare): the graph is the differential one */
	bool compared;
	double change;            /* the test's total weight, percent of the
				     revision's (NAN: unknown) */
	size_t gate_failures;     /* functions the gate failed (0: passed, or
				     no gate) */
	const char *worst;        /* the function that grew most past the
				     gate's threshold, or NULL */
	double worst_change;      /* its change, percent */
};

/* What the folder's index describes besides the tests. */
struct fg_suite_summary {
	const char *project;      /* the project's name */
	const char *kind;         /* "test" or "bench" */
	const char *pattern;      /* the selection's regular expression, or NULL */
	const char *merged;       /* file name of the merged graph ("all.svg") or
				     NULL when none was written */
	const char *unit;         /* what a sample weighs: "samples", "ns", "us",
				     "bytes"... (for the index's header) */
	bool interrupted;         /* the suite stopped early (Ctrl-C...) */
	const char *rev;          /* the revision each test was compared with,
				     or NULL */
	double fail_above;        /* the gate's threshold in percent, or < 0:
				     no gate */
};

/* Writes DIR/index.html (a sortable table of the tests that opens from
 * disk, no network, each row linking to its graph) and DIR/summary.json
 * (the same figures for scripts), each replaced atomically. FG_EIO,
 * FG_ENOMEM. */
int fg_suite_write_index(const char *dir, const struct fg_suite_summary *s,
			 const struct fg_suite_entry *tests, size_t n);
int fg_suite_write_summary(const char *dir, const struct fg_suite_summary *s,
			   const struct fg_suite_entry *tests, size_t n);

#endif
