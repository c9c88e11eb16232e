/* Differential graphs of two profiles (flamegraph-build --compare REV):
 * the folded stacks of a "before" and an "after" run are joined
 * (flamegraph/diff.h) and drawn with frame widths from "after", red where
 * a function grew and blue where it shrank (flamegraph/render.h). */
#ifndef FLAMEGRAPH_COMPARE_H
#define FLAMEGRAPH_COMPARE_H

#include <stdbool.h>

#include "flamegraph/diff.h"
#include "flamegraph/git.h"
#include "flamegraph/profile.h"
#include "flamegraph/render.h"

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* The layout of fg_compare_opts this header describes:
 * fg_compare_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_COMPARE_OPTS_VERSION 1

typedef struct fg_compare_opts {
	unsigned version;         /* FG_COMPARE_OPTS_VERSION */
	fg_diff_opts diff;        /* normalize, strip_hex */
	fg_render_opts render;    /* title, subtitle (what was compared)... */
	fg_output_format format;  /* FG_OUTPUT_SVG or FG_OUTPUT_FOLDED ("stack BEFORE AFTER") */
	const char *folded_out;   /* also write the differential folded text here, or NULL */
} fg_compare_opts;

#define FG_COMPARE_OPTS_INIT { .version = FG_COMPARE_OPTS_VERSION, .diff = FG_DIFF_OPTS_INIT, \
	.render = FG_RENDER_OPTS_INIT, .format = FG_OUTPUT_SVG, .folded_out = NULL }

/* Sets *opts to the defaults (FG_COMPARE_OPTS_INIT); version:
 * FG_COMPARE_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_compare_opts_init(fg_compare_opts *opts, unsigned version);

/* Joins the stacks of a "before" and an "after" run (fg_diff_folded) and
 * writes the differential graph to `output` ("-": stdout), and its
 * "stack BEFORE AFTER" text to opts->folded_out when set, atomically: a
 * failure leaves an existing file untouched. Errors: FG_ENODATA when both
 * profiles are empty, FG_EINVAL for FG_OUTPUT_JSON (speedscope has no
 * differential form) or bad render options, FG_EIO. */
int fg_compare_write_stacks(const fg_folded *before, const fg_folded *after, const char *output,
			    const fg_compare_opts *opts);


/* Exports commit `id` (a full hex id, see fg_git_resolve) of the repository
 * containing repo_path into <base>/compare/<first 12 digits of id>/, or
 * reuses that folder (*reused = true) when an earlier call made it: a
 * commit's tree never changes, and its build dir inside stays warm. The
 * export goes to a temporary name first and is renamed into place, so an
 * interrupted export is never taken for a complete one. *dir_out is
 * malloc'd (free it); *res is filled by a fresh export. Errors: those of
 * fg_git_export, FG_EIO when a folder cannot be made. */
int fg_compare_export(char **dir_out, bool *reused, fg_git_export_result *res,
		      const char *base, const char *repo_path, const char *id);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
