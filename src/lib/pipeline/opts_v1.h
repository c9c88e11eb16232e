/* Version 1 of the pipeline's options structs that have a version 2, as
 * a program compiled against a version 1 header lays them out, and their
 * conversion to the current version (docs/ARCHITECTURE.md, "The public
 * API"). */
#ifndef FG_LIB_PIPELINE_OPTS_V1_H
#define FG_LIB_PIPELINE_OPTS_V1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "flamegraph/pipeline.h"

/* fg_pipeline_compare_opts up to after_out: the prefix of version 2. */
typedef struct fg_pipeline_compare_opts_v1 {
	unsigned version;
	const char *rev;
	bool side_outputs;
	const char *build_dir;
	const fg_manifest_loc *loc;
	const fg_project_opts *project;
	void (*before_run)(void *ctx, const fg_profile_opts *po);
	int (*after_run)(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			 int err);
	void *run_ctx;
	size_t repeat;
	fg_folded ***before_out, ***after_out;
} fg_pipeline_compare_opts_v1;

#define FG_PIPELINE_COMPARE_OPTS_V1_INIT { .version = 1, .repeat = 1 }

_Static_assert(offsetof(fg_pipeline_compare_opts_v1, after_out) ==
		       offsetof(fg_pipeline_compare_opts, after_out) &&
	       sizeof(fg_pipeline_compare_opts_v1) == offsetof(fg_pipeline_compare_opts, runs_out),
	       "version 1 of fg_pipeline_compare_opts is the prefix of version 2 before runs_out");

/* fg_build_and_profile_opts holding fg_pipeline_compare_opts version 1: the
 * fields after compare lie nearer the start than in version 2. */
typedef struct fg_build_and_profile_opts_v1 {
	unsigned version;
	const char *manifest_path;
	fg_project_opts project;
	fg_pipeline_opts run;
	const char *list;
	void (*on_text)(void *ctx, const char *text);
	void *text_ctx;
	void (*before_run)(void *ctx, const fg_profile_opts *po);
	int (*after_run)(void *ctx, const fg_profile_opts *po, const fg_profile_result *res,
			 int err);
	void *run_ctx;
	fg_pipeline_compare_opts_v1 compare;
	bool gate;
	fg_regress_opts gate_opts;
	enum fg_regress_format report_format;
	size_t report_top;
	const char *report_out;
	FILE *report_stream;
} fg_build_and_profile_opts_v1;

#define FG_BUILD_AND_PROFILE_OPTS_V1_INIT                                                 \
	{ .version = 1, .project = FG_PROJECT_OPTS_INIT, .run = FG_PIPELINE_OPTS_INIT,    \
	  .compare = FG_PIPELINE_COMPARE_OPTS_V1_INIT, .gate_opts = FG_REGRESS_OPTS_INIT, \
	  .report_format = FG_REGRESS_TEXT, .report_top = FG_REGRESS_DEFAULT_TOP }

/* *out, a struct of the current version, set from in, the caller's
 * struct of any version from 1 to the current one: the fields of in's
 * version and the defaults of the rest. FG_EINVAL for another version
 * (nothing read past the version). */
int fg_pipeline_compare_opts_upgrade(fg_pipeline_compare_opts *out,
				     const fg_pipeline_compare_opts *in);

#endif
