/* flamegraph-diff-folded: two folded profiles -> "stack BEFORE AFTER". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/gate.h"
#include "cli/common/signals.h"
#include "cli/common/opts.h"
#include "flamegraph/diff.h"
#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "util/input.h"
#include "util/outfile.h"
#include "util/strbuf.h"

/* Refuses an output (of option flag) that would replace one of the
 * inputs: the atomic rename would clobber the data before anyone
 * noticed. */
static int output_is_input(const char *flag, const char *output, char **inputs, int n)
{
	if (!fg_outfile_check_inputs(output, (const char *const *)inputs, (size_t)n))
		return 0;
	fg_errorf("%s %s", flag, fg_error_last());
	return -1;
}

static int add_stack(void *ctx, const char *stack, size_t len, fg_count count, fg_count before)
{
	(void)before;
	return fg_folded_add_count(ctx, stack, len, count);
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

/* The runs of one side: read each, and their sum for the differential
 * output (one run: itself). */
static int read_side(fg_folded **runs, int n, char **paths, fg_folded **sum)
{
	int err = 0;

	for (int i = 0; !err && i < n; i++)
		err = read_profile(&runs[i], paths[i]);
	if (err || n == 1)
		return err;
	if ((err = fg_folded_new(sum)))
		return err;
	for (int i = 0; !err && i < n; i++)
		err = fg_folded_foreach(runs[i], add_stack, *sum);
	return err;
}

int cmd_flamegraph_diff_folded(int argc, char **argv)
{
	fg_gate_cli gate = FG_GATE_CLI_INIT;
	fg_diff_opts dopts = FG_DIFF_OPTS_INIT;
	const char *output = "-";
	fg_folded **runs = NULL, *bsum = NULL, *asum = NULL;
	fg_outfile *of = NULL;
	int npos = 0, dashdash, nb, na, err, rc = FG_EXIT_USAGE;
	const fg_option options[] = {
		FG_OPT_STRING('o', "output", &output, "FILE", "write to FILE (default: stdout): a file atomically, a device or FIFO in place"),
		FG_OPT_BOOL('n', "normalize", &dopts.normalize, "scale BEFORE counts so both profiles have the same total"),
		FG_OPT_BOOL('s', "strip-hex", &dopts.strip_hex, "replace hex addresses (0x7f3a...) with 0x... before matching stacks"),
		FG_OPT_GROUP("Regression gate"),
		FG_GATE_CLI_ROWS(gate),
		FG_OPT_BOOL(0, "first-look", &gate.first_look, "these are the first runs of more to come: exit 7 instead of judging when a change over --fail-above is not yet clear (its p-value between 0.001 and 0.2); record as many runs again and judge them all without --first-look. A clear change fails (exit 6) or passes now"),
		FG_OPT_END(),
	};
	const fg_cli cli = {
		"flamegraph-diff-folded", "[OPTIONS] BEFORE AFTER | [OPTIONS] BEFORE... -- AFTER...",
		"Compares two folded-stack profiles and prints 'stack BEFORE AFTER' lines, sorted, "
		"for flamegraph-render to draw as a differential flame graph: frame widths from AFTER, "
		"red where a function grew, blue where it shrank. '-' reads stdin. Several runs a side "
		"(the files before '--', then those after it) are added up for the output, and the "
		"regression gate tests each function's change across them (Welch's t-test).",
		"Examples:\n  flamegraph-diff-folded --normalize old.folded new.folded | flamegraph-render -o diff.svg\n"
		"  flamegraph-diff-folded --fail-above 5 --report md --report-out report.md old.folded new.folded -o diff.folded\n"
		"  flamegraph-diff-folded --fail-above 5 -o diff.folded old/run*.folded -- new/run*.folded\n"
		"\nExit status:\n  0 written (and the gate passed), 1 usage or bad input, 4 both profiles empty,\n"
		"  6 the gate failed: a function's inclusive cost (or share, --gate-on share) grew by more\n"
		"  than --fail-above (significantly, given several runs a side), 7 with --first-look: not\n"
		"  clear yet, judge more runs\n",
		options, true, false,
	};

	fg_diag_init(cli.prog);
	fg_cli_signals_init();
	if ((err = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)) != FG_OPTS_OK)
		return err == FG_OPTS_EXIT ? FG_EXIT_OK : FG_EXIT_USAGE;
	/* "--" splits the runs; without it, one file a side */
	nb = dashdash < npos ? dashdash : 1;
	na = npos - nb;
	if (dashdash >= npos && npos != 2) {
		fg_errorf("expected two folded files, BEFORE and AFTER, got %d — see '%s --help'",
			  npos, cli.prog);
		return FG_EXIT_USAGE;
	}
	if (nb < 1 || na < 1) {
		fg_errorf("expected the runs before, '--', then the runs after; got %d before and %d "
			  "after — see '%s --help'", nb, na, cli.prog);
		return FG_EXIT_USAGE;
	}
	if (gate.first_look && !gate.fail_above) {
		fg_errorf("--first-look asks whether --fail-above can judge yet — add --fail-above PCT");
		return FG_EXIT_USAGE;
	}
	if (output_is_input("-o", output, argv, npos) || fg_gate_cli_apply(&gate) ||
	    (gate.report_out && output_is_input("--report-out", gate.report_out, argv, npos))) {
		fg_gate_cli_release(&gate);
		return FG_EXIT_USAGE;
	}
	if (!(runs = fg_calloc((size_t)npos, sizeof(*runs)))) {
		err = FG_ENOMEM;
		goto lib_error;
	}
	/* the output first: an unwritable one fails before the work */
	if ((err = fg_outfile_open(&of, output)) || (err = read_side(runs, nb, argv, &bsum)) ||
	    (err = read_side(runs + nb, na, argv + nb, &asum)))
		goto lib_error;
	if ((err = fg_diff_folded_write(bsum ? bsum : runs[0], asum ? asum : runs[nb], &dopts,
					fg_outfile_stream(of))) ||
	    (err = fg_input_maps_check()) || (err = fg_cli_check_memory()))
		goto lib_error;
	err = fg_outfile_commit(of);
	of = NULL;
	if (err)
		goto lib_error;
	rc = FG_EXIT_OK;
	if (fg_gate_cli_wanted(&gate) &&
	    (err = fg_gate_cli_run(&gate, runs, (size_t)nb, runs + nb, (size_t)na, false, &rc)))
		goto lib_error;
	goto done;
lib_error:
	rc = fg_die_lib(err);
done:
	fg_outfile_abort(of);
	for (int i = 0; runs && i < npos; i++)
		fg_folded_free(runs[i]);
	free(runs);
	fg_folded_free(bsum);
	fg_folded_free(asum);
	fg_gate_cli_release(&gate);
	return rc;
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_diff_folded(argc, argv);
}
