/* The pipeline of flamegraph-build, above the stages: a built target of a
 * project profiled (fg_pipeline_job), and a comparison of two revisions
 * (fg_pipeline_compare: git export, build, two profiles, a differential
 * graph).
 *
 * Where the workload runs is data: a CTest test's working directory and
 * environment go into fg_profile_opts (cwd, env) and from there into the
 * child process; the calling process never changes its own directory or
 * environment, so relative output paths stay the caller's.
 *
 * Like every stage, the pipeline prints nothing: notes and warnings go to
 * the profile options' on_event. */
#ifndef FLAMEGRAPH_PIPELINE_H
#define FLAMEGRAPH_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "flamegraph/compare.h"
#include "flamegraph/git.h"
#include "flamegraph/manifest.h"
#include "flamegraph/profile.h"
#include "flamegraph/regress.h"

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* The target the user named. */
typedef struct fg_pipeline_target {
	fg_target_kind kind;      /* FG_TARGET_BIN... */
	const char *name;         /* NULL: the only target of the kind */
	bool unit_test;           /* a test executable run directly, its
				     trailing arguments a test filter
				     (--unit-test; kind is not used) */
	bool unit_bench;          /* the same for a bench executable
				     (--unit-bench) */
} fg_pipeline_target;

/* Finds the target sel names in p (fg_project_select, or
 * fg_project_select_unit / _unit_bench for a unit test or bench); its
 * errors. */
int fg_pipeline_select(const fg_target **out, const fg_project *p, const fg_pipeline_target *sel);

/* The layout of fg_pipeline_opts this header describes:
 * fg_pipeline_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_PIPELINE_OPTS_VERSION 1

/* What the caller decides for every run of a target. */
typedef struct fg_pipeline_opts {
	unsigned version;          /* FG_PIPELINE_OPTS_VERSION */
	/* The template of each run: recorder, outputs, render options,
	 * callbacks. What to run (argv, env, cwd), the ELF check, its fix
	 * style and the git provenance are filled in per target. */
	fg_profile_opts profile;
	fg_pipeline_target target; /* also picked in the other revision of
				      a comparison */
	const char *const *args;  /* arguments after --, or NULL */
	size_t nargs;
} fg_pipeline_opts;

#define FG_PIPELINE_OPTS_INIT { .version = FG_PIPELINE_OPTS_VERSION, \
	.profile = FG_PROFILE_OPTS_INIT, \
	.target = { .kind = FG_TARGET_BIN, .name = NULL, .unit_test = false, .unit_bench = false }, \
	.args = NULL, .nargs = 0 }

/* Sets *opts to the defaults (FG_PIPELINE_OPTS_INIT); version:
 * FG_PIPELINE_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_pipeline_opts_init(fg_pipeline_opts *opts, unsigned version);

/* One run of a built target, ready for fg_profile_run(&job.profile, ...).
 * Owns what its profile options point to (the command, environment,
 * git provenance, subtitle); release it with fg_pipeline_job_release. */
typedef struct fg_pipeline_job {
	fg_profile_opts profile;
	fg_run_spec spec;         /* the target's command, env and cwd */
	fg_git_info git;          /* the project's provenance ("" when none) */
	char subtitle[512];
} fg_pipeline_job;

#define FG_PIPELINE_JOB_INIT { .profile = FG_PROFILE_OPTS_INIT, .spec = FG_RUN_SPEC_INIT, \
	.git = FG_GIT_INFO_INIT, .subtitle = "" }

/* Prepares the run of target t of project p: its command (with the
 * trailing arguments, or the filter through the target's template), its
 * working directory and environment as data, the ELF check (off for a
 * CTest test run by a script: it would judge the interpreter), fixes in
 * the project's build terms, git provenance in the subtitle when the
 * template has none. A CTest test gets a note that says what runs where.
 * job must be FG_PIPELINE_JOB_INIT. Errors: FG_EINVAL for a test filter
 * given to a flamegraph.toml test that declares no filter syntax; those
 * of fg_target_run_spec. */
int fg_pipeline_job_init(fg_pipeline_job *job, const fg_pipeline_opts *opts,
			 const fg_project *p, const fg_target *t);
void fg_pipeline_job_release(fg_pipeline_job *job);

/* The layout of fg_pipeline_compare_opts this header describes:
 * fg_pipeline_compare_opts_init and the functions handed one take it and
 * every older version, and refuse 0 and later ones (FG_EINVAL). Version 1
 * ends at after_out; version 2 adds runs_out and the second look. */
#define FG_PIPELINE_COMPARE_OPTS_VERSION 2

/* A comparison: the target profiled at a git revision and in the working
 * tree, then one differential graph (red: grew, blue: shrank). */
typedef struct fg_pipeline_compare_opts {
	unsigned version;         /* FG_PIPELINE_COMPARE_OPTS_VERSION */
	const char *rev;          /* the revision to compare with */
	bool side_outputs;        /* also write the plain graphs OUTPUT.before.svg
				     and OUTPUT.after.svg */
	const char *build_dir;    /* where exports go: <build_dir>/compare/ID
				     (NULL: <root>/build/flamegraph) */
	const fg_manifest_loc *loc;          /* the working tree's manifest */
	const fg_project_opts *project;      /* how REV's project is opened
						(its build_dir is not used) */
	/* Around each of the two profiling runs (NULL: nothing): before it,
	 * and after it with its result and error. A non-zero return from
	 * after_run (a workload that failed, say) stops the comparison and
	 * is returned by fg_pipeline_compare as is. */
	void (*before_run)(void *ctx, const fg_profile_opts *po);
	int (*after_run)(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			 int err);
	void *run_ctx;
	/* Runs a side (0 or 1: one). Several are interleaved: before,
	 * after, before, after... so that a machine that drifts (heat,
	 * neighbours) weighs on both sides alike. The differential graph
	 * adds the runs of each side up; the plain graphs (side_outputs)
	 * and the kept recording are of the last run. */
	size_t repeat;
	/* When not NULL, receive each side's runs' folded stacks, one per
	 * run, after the differential graph is written, for a regression
	 * gate (flamegraph/regress.h): arrays the caller frees with
	 * fg_pipeline_runs_free, max(repeat, 1) of them unless a second look
	 * made more (their length in *runs_out). */
	fg_folded ***before_out, ***after_out;
	/* Version 2 adds the fields from here on. */
	size_t *runs_out;
	/* A second look: after the runs so far, undecided_cb (NULL: none)
	 * is asked whether more runs could change the verdict; while it
	 * says so (1, with what is undecided in `what`) and fewer than
	 * max_repeat runs a side were made, `repeat` more are made a side,
	 * interleaved again (max_repeat at most; under repeat: no more).
	 * A negative return is an error that stops the comparison. */
	size_t max_repeat;
	int (*undecided_cb)(void *ctx, fg_folded *const *before, fg_folded *const *after,
			    size_t runs, char *what, size_t what_size);
	void *undecided_ctx;
} fg_pipeline_compare_opts;

#define FG_PIPELINE_COMPARE_OPTS_INIT { .version = FG_PIPELINE_COMPARE_OPTS_VERSION, .rev = NULL, \
	.side_outputs = false, .build_dir = NULL, \
	.loc = NULL, .project = NULL, .before_run = NULL, \
	.after_run = NULL, .run_ctx = NULL, .repeat = 1, .before_out = NULL, .after_out = NULL, \
	.runs_out = NULL, .max_repeat = 0, .undecided_cb = NULL, .undecided_ctx = NULL }

/* Sets *opts to the defaults (FG_PIPELINE_COMPARE_OPTS_INIT); version:
 * FG_PIPELINE_COMPARE_OPTS_VERSION, as the caller was compiled (FG_EINVAL
 * for one this library does not know). */
int fg_pipeline_compare_opts_init(fg_pipeline_compare_opts *opts, unsigned version);

/* Frees n runs' stacks and their array (NULL: nothing). */
void fg_pipeline_runs_free(fg_folded **runs, size_t n);

/* Compares target t of project p (built) with the target opts->target
 * names at copts->rev: exports REV under the build dir (reused when an earlier run
 * made it), opens and builds it, profiles both with opts (same arguments,
 * same recorder), joins the two stacks in memory and writes the
 * differential graph to opts->profile.output (SVG, or "stack BEFORE
 * AFTER" text for FG_OUTPUT_FOLDED) and the differential text to
 * folded_out when given. Nothing is read back from a file. Returns 0, a
 * negative FG_E* code (FG_EINVAL: JSON output, which has no differential
 * form, side outputs with the graph on stdout, or a project outside a git
 * work tree; FG_ENOTFOUND: an unknown revision; errors of the stages), or
 * the non-zero value after_run returned. */
int fg_pipeline_compare(const fg_pipeline_opts *opts, const fg_pipeline_compare_opts *copts,
			const fg_project *p, const fg_target *t);

/* flamegraph-build's job in one call: fg_build_and_profile.
 *
 * The layout of fg_build_and_profile_opts this header describes:
 * fg_build_and_profile_opts_init and fg_build_and_profile take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). A version fixes
 * the versions of the structs it embeds: version 2 holds
 * fg_pipeline_compare_opts version 2, version 1 its version 1 (so the
 * fields after `compare` lie further on in version 2); the others are at
 * version 1 in both. */
#define FG_BUILD_AND_PROFILE_OPTS_VERSION 2

typedef struct fg_build_and_profile_opts {
	unsigned version;          /* FG_BUILD_AND_PROFILE_OPTS_VERSION */
	const char *manifest_path; /* a manifest, or a folder holding one,
				      given by the user (NULL: searched from
				      the current folder upward) */
	fg_project_opts project;   /* how the project is opened and built */
	fg_pipeline_opts run;      /* what runs (target, arguments) and how it
				      is profiled; run.profile.perfdata set:
				      render that recording, nothing is
				      opened, built or run */
	const char *list;          /* not NULL: describe the project through
				      on_text instead of profiling: "" the
				      targets by kind, else the names of the
				      kind fg_project_names takes */
	void (*on_text)(void *ctx, const char *text);
	void *text_ctx;
	/* Around each profiling run (NULL: nothing), as in
	 * fg_pipeline_compare_opts: a non-zero return from after_run is
	 * returned by fg_build_and_profile as it is. */
	void (*before_run)(void *ctx, const fg_profile_opts *po);
	int (*after_run)(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			 int err);
	void *run_ctx;
	/* compare.rev set: a comparison (fg_pipeline_compare); its loc and
	 * project are filled in, its hooks are the ones above. */
	fg_pipeline_compare_opts compare;
	/* The regression gate of a comparison (gate set): the runs of each
	 * side judged with gate_opts (unit_name and unit_scale are set to
	 * milliseconds when the weights are nanoseconds of CPU time), the
	 * table of the report_top largest changes (0: all) written to
	 * report_out (a file replaced atomically) or else report_stream
	 * (NULL: no table). */
	bool gate;
	fg_regress_opts gate_opts;
	enum fg_regress_format report_format;
	size_t report_top;
	const char *report_out;
	FILE *report_stream;
} fg_build_and_profile_opts;

#define FG_BUILD_AND_PROFILE_OPTS_INIT                                                   \
	{ .version = FG_BUILD_AND_PROFILE_OPTS_VERSION, .project = FG_PROJECT_OPTS_INIT, \
	  .run = FG_PIPELINE_OPTS_INIT, .compare = FG_PIPELINE_COMPARE_OPTS_INIT,        \
	  .gate_opts = FG_REGRESS_OPTS_INIT, .report_format = FG_REGRESS_TEXT,           \
	  .report_top = FG_REGRESS_DEFAULT_TOP }

/* Sets *opts to the defaults (FG_BUILD_AND_PROFILE_OPTS_INIT); version:
 * FG_BUILD_AND_PROFILE_OPTS_VERSION, as the caller was compiled (FG_EINVAL
 * for one this library does not know). */
int fg_build_and_profile_opts_init(fg_build_and_profile_opts *opts, unsigned version);

typedef struct fg_build_and_profile_result {
	bool gate_failed;          /* a function grew past gate_opts.fail_above */
	size_t gate_failures;      /* how many */
} fg_build_and_profile_result;

/* Finds the project's manifest, opens the project, lists it (opts->list)
 * or builds the chosen target with debug info and profiles it (one run,
 * or a comparison with its gate), writing the outputs of
 * opts->run.profile. Returns 0, a negative FG_E* code (detail in
 * fg_error_last; nothing printed), or the non-zero value after_run
 * returned. */
int fg_build_and_profile(const fg_build_and_profile_opts *opts, fg_build_and_profile_result *res);

/* flamegraph-build's suite mode in one call: fg_build_and_profile_suite.
 *
 * The layout of fg_suite_opts this header describes: fg_suite_opts_init
 * and fg_build_and_profile_suite take it and every older version, and
 * refuse 0 and later ones (FG_EINVAL). */
#define FG_SUITE_OPTS_VERSION 1

typedef struct fg_suite_opts {
	unsigned version;          /* FG_SUITE_OPTS_VERSION */
	fg_target_kind kind;       /* FG_TARGET_TEST or FG_TARGET_BENCH */
	const char *pattern;       /* a POSIX extended regular expression a
				      target's name must match (anywhere in
				      it); NULL or "": every one */
	const char *out_dir;       /* the folder of the outputs, made when
				      missing (NULL: "flamegraph-tests") */
} fg_suite_opts;

#define FG_SUITE_OPTS_INIT { .version = FG_SUITE_OPTS_VERSION, .kind = FG_TARGET_TEST }

/* Sets *opts to the defaults (FG_SUITE_OPTS_INIT); version:
 * FG_SUITE_OPTS_VERSION, as the caller was compiled (FG_EINVAL for 0 or
 * a later version). */
int fg_suite_opts_init(fg_suite_opts *opts, unsigned version);

typedef struct fg_suite_result {
	size_t tests;              /* selected */
	size_t passed;             /* exited 0 with a graph */
	size_t failed;             /* exited non-zero or crashed (graph kept) */
	size_t no_samples;         /* too short to be sampled */
	size_t errors;             /* not built, or could not be profiled */
	bool interrupted;          /* stopped early by a signal ... */
	int interrupt_signal;      /* ... this one */
	size_t gate_failed;        /* compared with a gate: the tests with a
				      function past the threshold */
} fg_suite_result;

/* Finds the project's manifest and opens it as fg_build_and_profile
 * does, selects every target of suite->kind whose name matches
 * suite->pattern, and builds each once and profiles each in turn with the
 * template opts->run (its output names aside), before_run and after_run
 * around each run (after_run's return value is not used: a failing test
 * is recorded, not fatal). In suite->out_dir: NAME.svg and NAME.folded
 * per test (NAME: its name with characters other than letters, digits,
 * '.', '_' and '-' made '_'), all.svg (every test under a root frame of
 * its name; NAME.html and all.html instead of the SVGs when
 * opts->run.profile.format is FG_OUTPUT_HTML), index.html (a sortable table: status, times, samples, the
 * hottest functions, links to the graphs) and summary.json (the same
 * figures; docs/test-suites.md lists its fields). An interrupted run ends
 * the suite; the outputs then describe the tests done. Returns 0 or a
 * negative FG_E* code (FG_ENOTFOUND: no target matches; FG_EINVAL: a bad
 * pattern; the stages' errors, and the recorder's when it cannot run at
 * all). */
int fg_build_and_profile_suite(const fg_build_and_profile_opts *opts, const fg_suite_opts *suite,
			       fg_suite_result *res);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
