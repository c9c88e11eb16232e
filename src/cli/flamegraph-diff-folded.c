/* flamegraph-diff-folded: two folded profiles -> "stack BEFORE AFTER". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/signals.h"
#include "cli/common/opts.h"
#include "flamegraph/diff.h"
#include "flamegraph/error.h"
#include "flamegraph/regress.h"
#include "flamegraph/render.h"
#include "util/input.h"
#include "util/strbuf.h"
#include "util/outfile.h"

/* Refuses an output that would replace one of the inputs: the atomic
 * rename would clobber the data before anyone noticed. */
static int output_is_input(const char *output, char **inputs, int n)
{
	if (!fg_output_check_inputs(output, (const char *const *)inputs, (size_t)n))
		return 0;
	fg_errorf("-o %s", fg_error_last());
	return -1;
}

static int read_profile(fg_folded **f, const char *path)
{
	fg_fold_stats st;
	size_t i;
	int err;

	if ((err = fg_folded_new(f)) || (err = fg_folded_read_file(*f, path)))
		return err;
	fg_folded_stats(*f, &st);
	for (i = 0; i < st.nwarnings; i++)
		if (st.warnings[i].kept)
			fg_warnf("%llu %s (first at %s)", (unsigned long long)st.warnings[i].count,
				 st.warnings[i].what, st.warnings[i].where);
		else
			fg_warnf("skipped %llu %s (first at %s) — expected 'frame;frame;... COUNT'",
				 (unsigned long long)st.warnings[i].count, st.warnings[i].what,
				 st.warnings[i].where);
	return 0;
}

/* The gate: the table of the largest changes (to stderr, or to
 * --report-out) and whether any function grew past --fail-above. */
struct gate {
	const char *fail_above, *report, *report_out;
	fg_strlist watch;
	long long top;
};

static bool gate_wanted(const struct gate *g)
{
	return g->fail_above || g->report || g->report_out || g->watch.count;
}

/* PCT: a finite number of 0 or more */
static int parse_points(const char *s, double *out)
{
	return fg_parse_double(fg_view_cstr(s), out) != 0 || !isfinite(*out) || *out < 0 ? -1 : 0;
}

static int parse_gate(fg_regress_opts *ro, const struct gate *g)
{
	if (g->watch.count && !g->fail_above) {
		fg_errorf("--watch names the functions --fail-above judges — add --fail-above PCT");
		return -1;
	}
	if (g->fail_above && (parse_points(g->fail_above, &ro->fail_above))) {
		fg_errorf("--fail-above: '%s' is not a number of percentage points (e.g. 5 or 2.5)",
			  g->fail_above);
		return -1;
	}
	if (g->top < 0) {
		fg_errorf("--top: %lld is negative — give how many rows to show (0: all)", g->top);
		return -1;
	}
	ro->watch = g->watch.items;
	ro->nwatch = g->watch.count;
	return 0;
}

static int run_gate(const struct gate *g, const fg_regress_opts *ro, const fg_folded *before,
		    const fg_folded *after, int *rc)
{
	fg_regress *r = NULL;
	fg_outfile *of = NULL;
	enum fg_regress_format fmt = g->report && !strcmp(g->report, "md") ? FG_REGRESS_MARKDOWN : FG_REGRESS_TEXT;
	int err;

	if ((err = fg_regress_compare(&r, before, after, ro)))
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
	if (!err && fg_regress_failures(r))
		*rc = FG_EXIT_REGRESSION;
	fg_outfile_abort(of);
	fg_regress_free(r);
	return err;
}

int cmd_flamegraph_diff_folded(int argc, char **argv)
{
	struct gate gate = { .watch = FG_STRLIST_INIT, .top = 10 };
	fg_regress_opts ropts = FG_REGRESS_OPTS_INIT;
	fg_diff_opts dopts = FG_DIFF_OPTS_INIT;
	const char *output = "-";
	fg_folded *before = NULL, *after = NULL;
	fg_outfile *of = NULL;
	int npos = 0, dashdash, err, rc = FG_EXIT_USAGE;
	const fg_option options[] = {
		FG_OPT_STRING('o', "output", &output, "FILE", "write to FILE (default: stdout); written atomically"),
		FG_OPT_BOOL('n', "normalize", &dopts.normalize, "scale BEFORE counts so both profiles have the same total"),
		FG_OPT_BOOL('s', "strip-hex", &dopts.strip_hex, "replace hex addresses (0x7f3a...) with 0x... before matching stacks"),
		FG_OPT_GROUP("Regression gate"),
		FG_OPT_STRING(0, "fail-above", &gate.fail_above, "PCT", "exit 6 when a function's inclusive share of the samples grew by more than PCT percentage points"),
		FG_OPT_LIST(0, "watch", &gate.watch, "FUNC", "judge only FUNC against --fail-above (repeatable)"),
		FG_OPT_CHOICE(0, "report", &gate.report, "FORMAT", "text|md", "table of the largest changes: text (default) or md (Markdown, for a review)"),
		FG_OPT_STRING(0, "report-out", &gate.report_out, "FILE", "write the table to FILE instead of stderr"),
		FG_OPT_INT(0, "top", &gate.top, "N", "rows in the table (default 10; 0: every function)"),
		FG_OPT_END(),
	};
	const fg_cli cli = {
		"flamegraph-diff-folded", "[OPTIONS] BEFORE AFTER",
		"Compares two folded-stack profiles and prints 'stack BEFORE AFTER' lines, sorted, "
		"for flamegraph-render to draw as a differential flame graph: frame widths from AFTER, "
		"red where a function grew, blue where it shrank. '-' reads stdin.",
		"Examples:\n  flamegraph-diff-folded --normalize old.folded new.folded | flamegraph-render -o diff.svg\n"
		"  flamegraph-diff-folded --fail-above 5 --report md --report-out report.md old.folded new.folded -o diff.folded\n"
		"\nExit status:\n  0 written (and the gate passed), 1 usage or bad input, 6 the gate failed: a function's share\n"
		"  grew by more than --fail-above\n",
		options, true, false,
	};

	fg_diag_init(cli.prog);
	fg_cli_signals_init();
	if ((err = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)) != FG_OPTS_OK)
		return err == FG_OPTS_EXIT ? FG_EXIT_OK : FG_EXIT_USAGE;
	if (npos != 2) {
		fg_errorf("expected two folded files, BEFORE and AFTER, got %d — see '%s --help'",
			  npos, cli.prog);
		return FG_EXIT_USAGE;
	}
	if (output_is_input(output, argv, npos) || parse_gate(&ropts, &gate) ||
	    (gate.report_out && output_is_input(gate.report_out, argv, npos))) {
		fg_strlist_release(&gate.watch);
		return FG_EXIT_USAGE;
	}
	/* the output first: an unwritable one fails before the work */
	if ((err = fg_outfile_open(&of, output)) || (err = read_profile(&before, argv[0])) ||
	    (err = read_profile(&after, argv[1])))
		goto lib_error;
	if ((err = fg_diff_folded_write(before, after, &dopts, fg_outfile_stream(of))))
		goto lib_error;
	err = fg_outfile_commit(of);
	of = NULL;
	if (err)
		goto lib_error;
	rc = FG_EXIT_OK;
	if (gate_wanted(&gate) && (err = run_gate(&gate, &ropts, before, after, &rc)))
		goto lib_error;
	goto done;
lib_error:
	rc = fg_die_lib(err);
done:
	fg_outfile_abort(of);
	fg_folded_free(before);
	fg_folded_free(after);
	fg_strlist_release(&gate.watch);
	return rc;
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_diff_folded(argc, argv);
}
