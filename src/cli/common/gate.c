/* The regression gate's options and report (see gate.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/gate.h"
#include "flamegraph/error.h"
#include "util/outfile.h"
#include "util/strbuf.h"

bool fg_gate_cli_wanted(const fg_gate_cli *g)
{
	return g->fail_above || g->fail_above_total || g->gate_on || g->report || g->report_out ||
	       g->watch.count;
}

/* PCT: a finite number of 0 or more */
static int parse_points(const char *s, double *out)
{
	return fg_parse_double(fg_view_cstr(s), out) != 0 || !isfinite(*out) || *out < 0 ? -1 : 0;
}

int fg_gate_cli_apply(fg_gate_cli *g)
{
	if (g->watch.count && !g->fail_above) {
		fg_errorf("--watch names the functions --fail-above judges — add --fail-above PCT");
		return -1;
	}
	if (g->gate_on && !g->fail_above) {
		fg_errorf("--gate-on says what --fail-above judges — add --fail-above PCT");
		return -1;
	}
	g->opts.measure = g->gate_on && !strcmp(g->gate_on, "share") ? FG_REGRESS_SHARE :
									FG_REGRESS_TIME;
	if (g->fail_above && parse_points(g->fail_above, &g->opts.fail_above)) {
		fg_errorf("--fail-above: '%s' is not a %s (e.g. 5 or 2.5)", g->fail_above,
			  g->opts.measure == FG_REGRESS_SHARE ? "number of percentage points" :
								"percentage");
		return -1;
	}
	if (g->fail_above_total && !g->fail_above) {
		fg_errorf("--fail-above-total judges the whole program beside the functions — "
			  "add --fail-above PCT");
		return -1;
	}
	if (g->fail_above_total && parse_points(g->fail_above_total, &g->opts.total_above)) {
		fg_errorf("--fail-above-total: '%s' is not a percentage (e.g. 5 or 2.5)",
			  g->fail_above_total);
		return -1;
	}
	/* a change that hits every function alike is taken as the machine's
	 * drift up to twice the threshold (README: the regression gate) */
	if (!g->fail_above_total && g->fail_above && g->opts.measure == FG_REGRESS_TIME)
		g->opts.total_above = 2 * g->opts.fail_above;
	if (g->top < 0) {
		fg_errorf("--top: %lld is negative — give how many rows to show (0: all)", g->top);
		return -1;
	}
	/* the C runtime's entry above main is not judged (regress.h) */
	g->opts.from = "main";
	g->opts.watch = g->watch.items;
	g->opts.nwatch = g->watch.count;
	return 0;
}

int fg_gate_cli_run(const fg_gate_cli *g, fg_folded *const *before, size_t nb,
		    fg_folded *const *after, size_t na, bool ns, int *code)
{
	enum fg_regress_format fmt = g->report && !strcmp(g->report, "md") ? FG_REGRESS_MARKDOWN :
									       FG_REGRESS_TEXT;
	fg_regress *r = NULL;
	fg_outfile *of = NULL;
	fg_regress_opts ro = g->opts;
	char undecided[256];
	int err;

	if (ns) {
		ro.unit_name = "ms";
		ro.unit_scale = 1e-6;
	}
	if ((err = fg_regress_compare_runs(&r, (const fg_folded *const *)before, nb,
					   (const fg_folded *const *)after, na, &ro)))
		return err;
	if (g->report_out) {
		if (!(err = fg_outfile_open(&of, g->report_out)) &&
		    !(err = fg_regress_report(r, fmt, (size_t)g->top, fg_outfile_stream(of)))) {
			err = fg_outfile_commit(of);
			of = NULL;
		}
	} else {
		err = fg_regress_report(r, fmt, (size_t)g->top, stderr);
	}
	if (!err && g->first_look && fg_regress_undecided(r, undecided, sizeof(undecided))) {
		fg_notef("a first look: %s changed by more than the threshold, but not clearly "
			 "yet (p between %g and %g) — record as many runs again a side and judge "
			 "them all", undecided,
			 FG_REGRESS_FIRST_LOOK_LEVEL(ro.alpha), FG_REGRESS_FUTILE_LEVEL(ro.alpha));
		*code = FG_EXIT_UNDECIDED;
	} else if (!err && fg_regress_failures(r)) {
		*code = FG_EXIT_REGRESSION;
	}
	fg_outfile_abort(of);
	fg_regress_free(r);
	return err;
}

void fg_gate_cli_release(fg_gate_cli *g)
{
	fg_strlist_release(&g->watch);
}
