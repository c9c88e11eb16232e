/* Differential folded stacks: two profiles in, "stack BEFORE AFTER" lines
 * out (inferno-diff-folded, FlameGraph's difffolded.pl), ready for
 * fg_render_svg's red/blue differential colouring. */
#ifndef FLAMEGRAPH_DIFF_H
#define FLAMEGRAPH_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "flamegraph/folded.h"

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* The layout of fg_diff_opts this header describes: fg_diff_opts_init and
 * the functions handed one take it and every older version, and refuse 0
 * and later ones (FG_EINVAL). */
#define FG_DIFF_OPTS_VERSION 1

typedef struct fg_diff_opts {
	unsigned version; /* FG_DIFF_OPTS_VERSION */
	bool normalize;  /* scale the "before" counts to the "after" total */
	bool strip_hex;  /* replace hex addresses (0x1234abcd) with "0x...", so
			    stacks from runs with different layouts still match */
} fg_diff_opts;

#define FG_DIFF_OPTS_INIT { .version = FG_DIFF_OPTS_VERSION, .normalize = false, \
	.strip_hex = false }

/* Sets *opts to the defaults (FG_DIFF_OPTS_INIT); version:
 * FG_DIFF_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one this
 * library does not know). */
int fg_diff_opts_init(fg_diff_opts *opts, unsigned version);

/* Joins two profiles into a differential fg_folded (*out, the caller
 * frees it): every stack of either side, "before" and "after" counts in
 * whole samples (a stack missing from one side has 0 there). It renders
 * as is with fg_render_svg. Neither input is modified. FG_ENODATA when
 * both profiles are empty; FG_ENOMEM. */
int fg_diff_folded(fg_folded **out, const fg_folded *before, const fg_folded *after,
		   const fg_diff_opts *opts);

/* Writes a differential fg_folded as "stack BEFORE AFTER" lines, sorted
 * bytewise. FG_EIO on write errors. */
int fg_diff_folded_write_stacks(const fg_folded *diff, FILE *out);

/* fg_diff_folded, then fg_diff_folded_write_stacks: "stack BEFORE AFTER"
 * for every stack of either profile. FG_EIO on write errors; FG_ENODATA
 * when both profiles are empty (nothing is written then). */
int fg_diff_folded_write(const fg_folded *before, const fg_folded *after,
			 const fg_diff_opts *opts, FILE *out);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
