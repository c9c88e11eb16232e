/* flamegraph-render: folded stacks (files or stdin) -> interactive SVG or
 * HTML viewer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/diag.h"
#include "cli/common/signals.h"
#include "cli/common/opts.h"
#include "cli/common/render_cli.h"
#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "util/input.h"
#include "util/outfile.h"

/* Refuses an output that would replace one of the inputs: the atomic
 * rename would clobber the data before anyone noticed. */
static int output_is_input(const char *output, char **inputs, int n)
{
	if (!fg_outfile_check_inputs(output, (const char *const *)inputs, (size_t)n))
		return 0;
	fg_errorf("-o %s", fg_error_last());
	return -1;
}

static void warn_skipped(const fg_folded *f, bool quiet)
{
	fg_fold_stats st;
	size_t i;

	if (quiet)
		return;
	fg_folded_stats(f, &st);
	for (i = 0; i < st.nwarnings; i++)
		if (st.warnings[i].kept)
			fg_warnf("%llu %s (first at %s)", (unsigned long long)st.warnings[i].count,
				 st.warnings[i].what, st.warnings[i].where);
		else
			fg_warnf("skipped %llu %s (first at %s) — expected 'frame;frame;... COUNT'",
				 (unsigned long long)st.warnings[i].count, st.warnings[i].what,
				 st.warnings[i].where);
}

int cmd_flamegraph_render(int argc, char **argv)
{
	fg_render_opts ro = FG_RENDER_OPTS_INIT;
	const char *output = "-", *format = "svg";
	size_t nframes = 0;
	bool inverted = false, reverse = false, flamechart = false, hash = false;
	bool deterministic = false, negate = false;
	long long width = FG_RENDER_DEFAULT_IMAGE_WIDTH, height = FG_RENDER_DEFAULT_FRAME_HEIGHT;
	fg_strlist base = FG_STRLIST_INIT;
	fg_cli_min_width mw = { 0, false, false };
	fg_cli_render_aliases al = { 0 };
	fg_folded *f = NULL;
	fg_outfile *of = NULL;
	int npos = 0, dashdash, i, err, rc = FG_EXIT_USAGE;
	const fg_option options[] = {
		FG_OPT_GROUP("Output"),
		FG_OPT_STRING('o', "output", &output, "FILE", "write the graph to FILE (default: stdout): a file atomically, a device or FIFO in place"),
		FG_OPT_CHOICE(0, "format", &format, "FMT", "svg|html", "svg (default) or html: one page with a canvas viewer that opens fast for big profiles (flame, icicle, sandwich, function table)"),
		FG_OPT_STRING(0, "title", &ro.title, "TEXT", "title (default: \"Flame Graph\", \"Icicle Graph\" with --inverted, \"Flame Chart\" with --flamechart)"),
		FG_OPT_STRING(0, "subtitle", &ro.subtitle, "TEXT", "second title line"),
		FG_OPT_STRING(0, "notes", &ro.notes, "TEXT", "notes stored in the SVG (<desc>)"),
		FG_OPT_GROUP("Layout"),
		FG_OPT_BOOL('i', "inverted", &inverted, "icicle graph: roots at the top"),
		FG_OPT_BOOL(0, "reverse", &reverse, "reverse each stack (leaf first) before merging"),
		FG_OPT_BOOL(0, "flamechart", &flamechart, "flame chart: keep input order (x is time), no sorting"),
		FG_OPT_LIST(0, "base", &base, "SYM", "root the graph at SYM: cut stacks before it, drop stacks without it (repeatable)"),
		FG_OPT_MIN_WIDTH(&mw, "omit frames narrower than PX pixels (default " FG_OPT_STR(FG_RENDER_DEFAULT_MIN_WIDTH) "), or than N% of the width"),
		FG_OPT_INT(0, "image-width", &width, "PX", "image width in pixels (default " FG_OPT_STR(FG_RENDER_DEFAULT_IMAGE_WIDTH) ")"),
		FG_OPT_INT(0, "frame-height", &height, "PX", "height of each frame in pixels (default " FG_OPT_STR(FG_RENDER_DEFAULT_FRAME_HEIGHT) ")"),
		FG_OPT_STRING(0, "font-type", &ro.font_type, "FONT", "font family (default Verdana)"),
		FG_OPT_DOUBLE(0, "font-size", &ro.font_size, "SIZE", "font size in pixels (default " FG_OPT_STR(FG_RENDER_DEFAULT_FONT_SIZE) ")"),
		FG_OPT_DOUBLE(0, "font-width", &ro.font_width, "RATIO", "average character width / font size, for label fitting (default " FG_OPT_STR(FG_RENDER_DEFAULT_FONT_WIDTH) ")"),
		FG_OPT_DOUBLE(0, "total", &ro.total, "N", "width of the graph in samples, to compare graphs at one scale"),
		FG_OPT_GROUP("Colours"),
		FG_OPT_CHOICE(0, "palette", &ro.palette, "NAME", fg_render_palettes,
			      "colour palette: hot (default), mem, io, wakeup, java, js, perl, red, green, blue, aqua, yellow, purple, orange, rust, python, chain (off-CPU chains: wakers apart)"),
		FG_OPT_BOOL(0, "hash", &hash, "colour by function name hash (similar names, similar colours)"),
		FG_OPT_BOOL(0, "deterministic", &deterministic, "same name, same colour, in every graph"),
		FG_OPT_STRING(0, "palette-map", &ro.palette_map, "FILE", "read name->rgb(r,g,b) colours from FILE and add new names to it"),
		FG_OPT_STRING(0, "bgcolors", &ro.bgcolors, "COLOR", "background: yellow, blue, green, grey or #rrggbb"),
		FG_OPT_BOOL(0, "negate", &negate, "differential: swap red and blue (red = shrank)"),
		FG_OPT_GROUP("Labels"),
		FG_OPT_STRING(0, "count-name", &ro.count_name, "NAME", "what a count is (default \"samples\")"),
		FG_OPT_STRING(0, "name-type", &ro.name_type, "TEXT", "prefix of the hover details (default \"Function:\")"),
		FG_OPT_DOUBLE(0, "factor", &ro.factor, "X", "multiply the counts shown by X (e.g. the sampling period)"),
		FG_OPT_STRING(0, "nameattr", &ro.nameattr, "FILE", "extra attributes per function: 'name<TAB>attr=value...' lines"),
		FG_CLI_RENDER_ALIAS_ROWS(ro, al, mw, width, height),
		FG_OPT_END(),
	};
	const fg_cli cli = {
		"flamegraph-render", "[OPTIONS] [FILE...]",
		"Renders folded stacks ('frame;frame;...;leaf COUNT' lines, or 'stack BEFORE AFTER' "
		"for a differential graph) from the FILEs, merged, or from stdin, as an interactive "
		"SVG: hover for details, click to zoom, Ctrl-F to search with a regex; or, with "
		"--format html, as one HTML page whose viewer draws on a canvas (fast for big "
		"profiles) with search, zoom, an icicle, a sandwich view and a table of functions.",
		"Exit status:\n  0 written, 1 usage, unreadable input or out of memory, 4 no samples in\n"
		"  the input (a graph saying so is still written)\n"
		"\nExamples:\n  flamegraph-collapse-perf perf.txt | flamegraph-render -o flame.svg\n"
		"  flamegraph-diff-folded before.folded after.folded | flamegraph-render > diff.svg\n"
		"  flamegraph-render --format html -o flame.html stacks.folded\n",
		options, true, false,
	};

	fg_diag_init(cli.prog);
	fg_cli_signals_init();
	if ((err = fg_opts_parse(&cli, argc, argv, &npos, &dashdash)) != FG_OPTS_OK)
		return err == FG_OPTS_EXIT ? FG_EXIT_OK : FG_EXIT_USAGE;
	/* the ranges: fg_render_opts_check, below */
	if (output_is_input(output, argv, npos) ||
	    fg_opt_to_unsigned(&ro.image_width, width, "--image-width") ||
	    fg_opt_to_unsigned(&ro.frame_height, height, "--frame-height"))
		goto done;
	fg_cli_min_width_apply(&ro, &mw);
	fg_cli_render_aliases_apply(&ro, &al);
	ro.inverted = inverted;
	ro.reverse = reverse;
	ro.flamechart = flamechart;
	ro.hash = hash;
	ro.deterministic = deterministic;
	ro.negate = negate;
	ro.base = base.items;
	ro.nbase = base.count;
	if ((err = fg_render_opts_check(&ro))) {
		rc = fg_die_lib(err);
		goto done;
	}
	/* the output first: an unwritable one fails before the work */
	if ((err = fg_outfile_open(&of, output)) ||
	    (err = fg_folded_new_ex(&f, flamechart ? FG_FOLDED_KEEP_ORDER : 0)))
		goto lib_error;
	for (i = 0; i < (npos ? npos : 1); i++)
		if ((err = fg_folded_read_file(f, npos ? argv[i] : "-")))
			goto lib_error;
	warn_skipped(f, al.quiet);
	if (!strcmp(format, "html"))
		err = fg_render_html(f, &ro, fg_outfile_stream(of));
	else
		err = fg_render_svg_ex(f, &ro, fg_outfile_stream(of), &nframes);
	/* the graph's names are read from mapped inputs until here */
	if ((!err || err == FG_ENODATA) && fg_input_maps_check())
		err = FG_EIO;
	if (!err || err == FG_ENODATA)
		err = fg_cli_check_memory() ? FG_ENOMEM : err;
	if (err && err != FG_ENODATA) {
		fg_outfile_abort(of);
		of = NULL;
		goto lib_error;
	}
	{
		/* an empty graph is still written, then reported */
		int nodata = err;
		err = fg_outfile_commit(of);
		of = NULL;
		if (err)
			goto lib_error;
		if (nodata) {
			fg_error_set(nodata, "no stack samples in the input — feed it folded stacks "
				     "('frame;frame COUNT' lines, e.g. from flamegraph-collapse-perf)");
			err = nodata;
			goto lib_error;
		}
	}
	if (nframes > FG_RENDER_HTML_ADVISED_FRAMES && !al.quiet)
		fg_notef("the SVG holds %zu frames and opens slowly in a browser — --format html "
			 "writes a page that opens fast", nframes);
	rc = FG_EXIT_OK;
	goto done;
lib_error:
	rc = fg_die_lib(err);
done:
	fg_outfile_abort(of);
	fg_folded_free(f);
	fg_strlist_release(&base);
	return rc;
}

int main(int argc, char **argv)
{
	return cmd_flamegraph_render(argc, argv);
}
