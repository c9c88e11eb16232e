/* A regression gate for two profiles: each function's inclusive share of
 * the samples (the stacks it appears in, once per stack however deep it
 * recurses, over all samples) before and after, the functions whose share
 * grew by more than a threshold in percentage points, and a table of the
 * largest changes in text or Markdown, for CI logs and code reviews. */
#ifndef FLAMEGRAPH_REGRESS_H
#define FLAMEGRAPH_REGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "flamegraph/api.h"
#include "flamegraph/folded.h"

#ifdef __cplusplus
extern "C" {
#endif

FG_API_BEGIN

typedef struct fg_regress_opts {
	double fail_above;           /* percentage points; < 0: no threshold */
	const char *const *watch;    /* only these functions count against the
					threshold (NULL: all of them) */
	size_t nwatch;
	/* Frames above the first frame of this name in a stack (the C
	 * runtime's entry above main: _start, __libc_start_main...) are
	 * neither judged nor listed: stack unwinding reaches them in some
	 * samples and not in others, which would look like a change. NULL:
	 * every frame counts. */
	const char *from;
} fg_regress_opts;

#define FG_REGRESS_OPTS_INIT { .fail_above = -1, .watch = NULL, .nwatch = 0, .from = NULL }

/* One function's shares, in percent of all samples of its profile. */
typedef struct fg_regress_row {
	const char *func;   /* owned by the fg_regress */
	double before, after;
	bool over;          /* grew by more than fail_above (and is watched) */
} fg_regress_row;

typedef struct fg_regress fg_regress;

/* Compares the inclusive shares of before and after (differential input:
 * the "after" counts of each). The rows are sorted by the size of the
 * change, largest first (growth before shrinkage of the same size, then
 * by name). A watched function that appears in neither profile is an
 * error (FG_ENOTFOUND, naming it), as a misspelt --watch would otherwise
 * pass every gate. FG_EINVAL for a threshold that is not finite;
 * FG_ENOMEM. */
int fg_regress_compare(fg_regress **out, const fg_folded *before, const fg_folded *after,
		       const fg_regress_opts *opts);
void fg_regress_free(fg_regress *r);

size_t fg_regress_count(const fg_regress *r);
const fg_regress_row *fg_regress_row_at(const fg_regress *r, size_t i);
/* How many rows are over the threshold: the gate fails when this is not 0. */
size_t fg_regress_failures(const fg_regress *r);

enum fg_regress_format { FG_REGRESS_TEXT, FG_REGRESS_MARKDOWN };

/* Writes the `top` largest changes (0: all) as a table, with a last line
 * saying whether the gate passed. FG_EIO (with the reason) on write
 * errors. */
int fg_regress_report(const fg_regress *r, enum fg_regress_format fmt, size_t top, FILE *out);

FG_API_END

#ifdef __cplusplus
}
#endif

#endif
