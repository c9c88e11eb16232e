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

typedef struct fg_diff_opts {
	bool normalize;  /* scale the "before" counts to the "after" total */
	bool strip_hex;  /* replace hex addresses (0x1234abcd) with "0x...", so
			    stacks from runs with different layouts still match */
} fg_diff_opts;

#define FG_DIFF_OPTS_INIT { .normalize = false, .strip_hex = false }

/* Writes "stack BEFORE AFTER\n" for every stack of either profile, sorted
 * bytewise, counts as whole samples (a stack missing from one side has 0
 * there). Neither input is modified. FG_EIO on write errors; FG_ENODATA
 * when both profiles are empty (nothing is written then). */
int fg_diff_folded_write(const fg_folded *before, const fg_folded *after,
			 const fg_diff_opts *opts, FILE *out);

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
