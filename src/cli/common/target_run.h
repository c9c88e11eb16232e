/* Running a built target of flamegraph-build through the shared profiling
 * pipeline (profile_opts.h), and --compare REV: the same target profiled at
 * REV and in the working tree, joined into a differential graph. */
#ifndef FG_CLI_TARGET_RUN_H
#define FG_CLI_TARGET_RUN_H

#include <stdbool.h>

#include "cli/common/profile_opts.h"
#include "flamegraph/manifest.h"

typedef struct fg_target_run {
	fg_profile_cli *pc;       /* the parsed shared profiling options */
	bool unit_test;           /* --unit-test: the trailing args are a filter */
	char **args;              /* trailing arguments (after --) */
	int nargs;
	/* picks the target the user named in a project (--compare opens REV's) */
	int (*select)(const fg_target **out, const fg_project *p);
} fg_target_run;

/* Where one profiling run writes; all NULL/false: what the options say. */
typedef struct fg_run_out {
	const char *output;    /* the graph (or folded text with folded_only) */
	const char *folded;    /* --folded for this run */
	const char *subtitle;  /* NULL: git provenance */
	bool folded_only;
	bool keep_perfdata;
} fg_run_out;

/* Profiles the built target t of p (a CTest test in its directory with its
 * environment). Returns the program's exit code; messages are printed. */
int fg_target_run_profile(const fg_target_run *tr, const fg_project *p, const fg_target *t,
			  const fg_run_out *ro);

typedef struct fg_compare_req {
	const char *rev;          /* --compare REV */
	bool outputs;             /* --compare-outputs */
	const char *build_dir;    /* --build-dir, or NULL */
} fg_compare_req;

/* --compare: exports and builds REV, profiles it and the working tree with
 * the same target and arguments, writes the differential graph. Returns the
 * program's exit code; messages are printed. */
int fg_target_run_compare(const fg_target_run *tr, const fg_compare_req *req,
			  const fg_project *p, const fg_target *t, const fg_manifest_loc *loc,
			  const fg_project_opts *popts);

#endif
