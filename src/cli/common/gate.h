/* The regression gate's options, shared by flamegraph-diff-folded and
 * flamegraph-build --compare: --fail-above, --gate-on, --watch, --report,
 * --report-out, --top (and flamegraph-build's --repeat, which is its
 * own). The table goes to stderr or --report-out; a failed gate is exit
 * status 6 (FG_EXIT_REGRESSION). */
#ifndef FG_CLI_COMMON_GATE_H
#define FG_CLI_COMMON_GATE_H

#include <stdbool.h>

#include "cli/common/opts.h"
#include "flamegraph/folded.h"
#include "flamegraph/regress.h"

typedef struct fg_gate_cli {
	const char *fail_above, *fail_above_total, *gate_on, *report, *report_out;
	fg_strlist watch;
	long long top;
	bool first_look;      /* flamegraph-diff-folded --first-look */
	fg_regress_opts opts; /* filled by fg_gate_cli_apply */
} fg_gate_cli;

#define FG_GATE_CLI_INIT \
	{ .watch = FG_STRLIST_INIT, .top = FG_REGRESS_DEFAULT_TOP, .opts = FG_REGRESS_OPTS_INIT }

#define FG_GATE_CLI_ROWS(g) \
	FG_OPT_STRING(0, "fail-above", &(g).fail_above, "PCT", "exit 6 when a function's inclusive CPU time per run grew by more than PCT percent (--gate-on share: its share by PCT percentage points) and, given several runs a side, significantly (Welch's t-test)"), \
	FG_OPT_STRING(0, "fail-above-total", &(g).fail_above_total, "PCT", "exit 6 also when the whole program's CPU time per run grew by more than PCT percent, significantly (default: twice --fail-above). A growth of the whole program is taken out of each function's change, so a slowdown of everything alike (a machine that drifts, or a real one) fails only this"), \
	FG_OPT_CHOICE(0, "gate-on", &(g).gate_on, "WHAT", "time|share", "what --fail-above judges: time (default: inclusive CPU time per run) or share (of all samples, in percentage points)"), \
	FG_OPT_LIST(0, "watch", &(g).watch, "FUNC", "judge only FUNC against --fail-above (repeatable)"), \
	FG_OPT_CHOICE(0, "report", &(g).report, "FORMAT", "text|md", "table of the largest changes: text (default) or md (Markdown, for a review)"), \
	FG_OPT_STRING(0, "report-out", &(g).report_out, "FILE", "write the table to FILE instead of stderr"), \
	FG_OPT_INT(0, "top", &(g).top, "N", "rows in the table (default " FG_OPT_STR(FG_REGRESS_DEFAULT_TOP) "; 0: every function)")

/* Whether any gate option was given. */
bool fg_gate_cli_wanted(const fg_gate_cli *g);

/* Validates the options and fills g->opts. Returns 0, or -1 after
 * printing a usage error. */
int fg_gate_cli_apply(fg_gate_cli *g);

/* Judges nb runs before against na runs after and writes the table;
 * costs are printed in milliseconds when ns is set (cpu-clock weights),
 * else as they are. Returns 0 (*code set to FG_EXIT_REGRESSION when the
 * gate failed; with first_look, to FG_EXIT_UNDECIDED instead when more
 * runs could change the verdict) or an FG_E* error. */
int fg_gate_cli_run(const fg_gate_cli *g, fg_folded *const *before, size_t nb,
		    fg_folded *const *after, size_t na, bool ns, int *code);

void fg_gate_cli_release(fg_gate_cli *g);

#endif
