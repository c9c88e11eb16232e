/* A regression gate for two profiles, each of one run or several: each
 * function's inclusive cost per run (the weight of the stacks it appears
 * in, once per stack however deep it recurses: with cpu-clock, CPU time in
 * nanoseconds) and its share of all the weight, before and after; with two
 * runs or more a side, Welch's t-test of every judged function, its
 * p-value adjusted with Holm's method over the functions judged, and a
 * confidence interval of the mean change. The whole program is tested on
 * its own, and its significant growth (a machine that drifted between the
 * sides hits every function alike) is taken out of each function's
 * change. The gate fails for a function whose change, with and without
 * that growth, is over the threshold and, given several runs,
 * significant; and for the whole program over its own threshold.
 * A table of the largest changes in text or Markdown, for CI logs and
 * code reviews. */
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

/* What the gate judges. */
enum fg_regress_measure {
	FG_REGRESS_TIME,  /* inclusive cost per run; the threshold is a percentage
			     of the function's cost before */
	FG_REGRESS_SHARE, /* inclusive share of the samples; the threshold is in
			     percentage points */
};

/* The layout of fg_regress_opts this header describes:
 * fg_regress_opts_init and the functions handed one take it and every
 * older version, and refuse 0 and later ones (FG_EINVAL). */
#define FG_REGRESS_OPTS_VERSION 1

typedef struct fg_regress_opts {
	unsigned version;            /* FG_REGRESS_OPTS_VERSION */
	double fail_above;           /* see measure; < 0: no threshold */
	enum fg_regress_measure measure;
	/* The family-wise significance level: the chance that any judged
	 * function is called significant while nothing changed stays under
	 * it (Holm over the judged functions). 0 < alpha < 1. The confidence
	 * intervals are of level 1 - alpha, each on its own. */
	double alpha;
	/* Functions whose mean share is under this many percent on both sides
	 * are listed but not judged: their few samples say nothing about a
	 * change, and each judged function makes the test of the others
	 * stricter. */
	double min_share;
	const char *const *watch;    /* only these functions count against the
					threshold (NULL: all of them) */
	size_t nwatch;
	/* Frames above the first frame of this name in a stack (the C
	 * runtime's entry above main: _start, __libc_start_main...) are
	 * neither judged nor listed: stack unwinding reaches them in some
	 * samples and not in others, which would look like a change. NULL:
	 * every frame counts. */
	const char *from;
	/* How the report prints a cost: value * unit_scale, then unit_name
	 * ("ms" with scale 1e-6 for nanoseconds). NULL: the raw weight. */
	const char *unit_name;
	double unit_scale;
	/* The whole program's time per run (all the weight of a run) fails
	 * the gate when it grew by more than this many percent and, with
	 * several runs a side, significantly (Welch's test of its own, not
	 * in Holm's family). < 0: reported, not judged. With the time
	 * measure the whole program's significant growth is taken out of
	 * each function's change (see fg_regress_row), so a change that hits
	 * every function alike — a machine that got slower between the
	 * sides, or a real slowdown of everything — fails only this
	 * threshold. */
	double total_above;
} fg_regress_opts;

#define FG_REGRESS_OPTS_INIT { .version = FG_REGRESS_OPTS_VERSION, .fail_above = -1, \
	.measure = FG_REGRESS_TIME, .alpha = 0.05, \
	.min_share = 1.0, .watch = NULL, .nwatch = 0, .from = NULL, .unit_name = NULL, .unit_scale = 1, \
	.total_above = -1 }

/* Sets *opts to the defaults (FG_REGRESS_OPTS_INIT); version:
 * FG_REGRESS_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one
 * this library does not know). */
int fg_regress_opts_init(fg_regress_opts *opts, unsigned version);

/* One function, means over the runs of each side. */
typedef struct fg_regress_row {
	const char *func;   /* owned by the fg_regress */
	double before, after;           /* share, percent of all weight */
	double before_cost, after_cost; /* inclusive weight per run */
	/* The mean change in the gate's measure: percent of before_cost
	 * (INFINITY for a function new in after) or percentage points; the
	 * confidence interval of it (NaN with one run a side); the
	 * Holm-adjusted p-value of Welch's test (NaN: not tested). */
	double change, lo, hi, p;
	bool judged;        /* watched and not under min_share on both sides */
	bool significant;   /* p < alpha */
	bool over;          /* judged, changed by more than fail_above and,
			       with several runs a side, significant */
	bool noise;         /* judged, changed by more than fail_above, but not
			       significant */
	/* With the time measure: the change once a growth of the whole
	 * program is taken out (a factor: +10% in a program 2% slower is
	 * +7.8%). The growth taken out is the whole program's when that is
	 * significant, capped by the upper ends of the confidence intervals
	 * of the rest of the program (all but this function) and of every
	 * other judged function, so that a function that alone got slower is
	 * not hidden by the growth it causes; none otherwise. A machine that
	 * got slower between the sides hits every function alike and leaves
	 * this near 0. A function is over only when this is over fail_above
	 * too, significantly. 0 for a function that is nearly the whole
	 * program (main: the rest under min_share), which the whole
	 * program's line judges. rel_p: its Welch test (the after runs
	 * divided by the growth factor), Holm-adjusted over the judged
	 * functions apart from p; NaN for main. The share measure: the
	 * change and p as they are. */
	double rel_change, rel_p;
	bool drift;         /* its time grew over fail_above, significantly, but
			       not beyond the growth taken out ("with the
			       whole program") */
} fg_regress_row;

/* The whole program: all the weight of each run. */
typedef struct fg_regress_total {
	double before, after;   /* mean weight per run */
	double change, lo, hi;  /* percent of before, its confidence interval */
	double p;               /* Welch's test, not adjusted; NaN with one run a side */
	bool significant;       /* p < alpha, or one run a side */
	bool over;              /* over total_above (and significant) */
} fg_regress_total;

typedef struct fg_regress fg_regress;

/* Compares one run before with one run after (differential input: the
 * "after" counts of each): fg_regress_compare_runs with one run a side. */
int fg_regress_compare(fg_regress **out, const fg_folded *before, const fg_folded *after,
		       const fg_regress_opts *opts);
/* Compares nb runs before with na runs after (each at least 1). The rows
 * are sorted: over the threshold first (largest change first), then by
 * the size of the change in the measure's absolute terms (cost per run,
 * or percentage points), growth before shrinkage of the same size, then
 * by name. A watched function that appears in no run is an error
 * (FG_ENOTFOUND, naming it), as a misspelt --watch would otherwise pass
 * every gate. FG_EINVAL for a threshold that is not finite, an alpha
 * outside (0, 1) or no runs; FG_ENOMEM. */
int fg_regress_compare_runs(fg_regress **out, const fg_folded *const *before, size_t nb,
			    const fg_folded *const *after, size_t na, const fg_regress_opts *opts);
void fg_regress_free(fg_regress *r);

size_t fg_regress_count(const fg_regress *r);
const fg_regress_row *fg_regress_row_at(const fg_regress *r, size_t i);
/* How many rows are over the threshold, and 1 more when the whole program
 * is over total_above: the gate fails when this is not 0. */
size_t fg_regress_failures(const fg_regress *r);
/* The whole program's change; valid as long as r. */
const fg_regress_total *fg_regress_total_of(const fg_regress *r);
/* A first look: whether more runs could change the verdict. True, with
 * what is undecided in `what` (the first judged function in the rows'
 * order, in backquotes, or "the whole program"), when it changed by more
 * than its threshold with a p-value (its change's, and its change beyond
 * the whole program's growth) from FG_REGRESS_FIRST_LOOK_LEVEL(alpha)
 * up to FG_REGRESS_FUTILE_LEVEL(alpha); false otherwise, also with one
 * run a side. A gate that can run the program again uses it for a second
 * look: after a first batch of runs it asks and, when true, judges again
 * at alpha after more runs; a change that clear at the first look (p
 * under Haybittle and Peto's 0.001 for an alpha of 0.05) is decided, and
 * the two looks together keep the chance of a false failure within
 * alpha plus that strict level. A change whose p is the futile level or
 * more (4 alpha: 0.2) would seldom be significant even with twice the
 * runs were it real: it is decided as noise, so that the many small
 * functions whose few samples jump over a threshold by chance do not
 * double every gate's runs. */
bool fg_regress_undecided(const fg_regress *r, char *what, size_t what_size);
/* The levels of a first look for a family-wise alpha: 0.001 and 0.2 for
 * 0.05. */
#define FG_REGRESS_FIRST_LOOK_LEVEL(alpha) ((alpha) / 50.0)
#define FG_REGRESS_FUTILE_LEVEL(alpha) ((alpha) * 4.0)

enum fg_regress_format { FG_REGRESS_TEXT, FG_REGRESS_MARKDOWN };

/* The rows of the report's table by default (fg_build_and_profile_opts.
 * report_top; the programs' default too). */
#define FG_REGRESS_DEFAULT_TOP 10

/* Writes the `top` largest changes (0: all) as a table, with a last line
 * saying whether the gate passed. FG_EIO (with the reason) on write
 * errors. */
int fg_regress_report(const fg_regress *r, enum fg_regress_format fmt, size_t top, FILE *out);

FG_API_END

#ifdef __cplusplus
}
#endif

#endif
