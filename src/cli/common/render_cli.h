/* Render options shared by flamegraph-render, flamegraph and
 * flamegraph-build: the minimum width (pixels or a percentage) and the
 * option rows that accept the spellings of inferno-flamegraph and
 * flamegraph.pl. */
#ifndef FG_CLI_COMMON_RENDER_CLI_H
#define FG_CLI_COMMON_RENDER_CLI_H

#include <stdbool.h>

#include "cli/common/opts.h"
#include "flamegraph/render.h"

/* --min-width PX|N% and --minwidth N|N% (always a percentage, as
 * inferno's). */
typedef struct fg_cli_min_width {
	double value;
	bool percent, given;
} fg_cli_min_width;

/* Callback of --min-width: "0.5" pixels, "0.5%" a percentage. */
int fg_cli_min_width_cb(const fg_option *opt, const char *arg, void *target);
/* Callback of the --minwidth alias: a percentage, with or without '%'. */
int fg_cli_minwidth_pct_cb(const fg_option *opt, const char *arg, void *target);

/* Copies a given minimum width into ro. */
void fg_cli_min_width_apply(fg_render_opts *ro, const fg_cli_min_width *mw);

#define FG_OPT_MIN_WIDTH(t, help) \
	FG_OPT_CALLBACK(0, "min-width", t, "PX|N%", help, fg_cli_min_width_cb)

/* What the alias rows set beyond fg_render_opts. */
typedef struct fg_cli_render_aliases {
	bool cp, ignored, color_diffusion, no_javascript, quiet;
} fg_cli_render_aliases;

/* The spellings of inferno-flamegraph and flamegraph.pl, for
 * flamegraph-render: ro the render options, al the struct above, mw the
 * shared minimum width, width/height the long long targets of
 * --image-width and --frame-height. */
#define FG_CLI_RENDER_ALIAS_ROWS(ro, al, mw, width, height) \
	FG_ALIAS_CHOICE('c', "colors", &(ro).palette, "NAME", fg_render_palettes, "= --palette"), \
	FG_ALIAS_INT(0, "width", &(width), "PX", "= --image-width"), \
	FG_ALIAS_INT(0, "height", &(height), "PX", "= --frame-height"), \
	FG_ALIAS_CALLBACK(0, "minwidth", &(mw), "N", "= --min-width N% (a percentage, with or without %)", fg_cli_minwidth_pct_cb), \
	FG_ALIAS_STRING(0, "countname", &(ro).count_name, "NAME", "= --count-name"), \
	FG_ALIAS_STRING(0, "nametype", &(ro).name_type, "TEXT", "= --name-type"), \
	FG_ALIAS_STRING(0, "fonttype", &(ro).font_type, "FONT", "= --font-type"), \
	FG_ALIAS_DOUBLE(0, "fontsize", &(ro).font_size, "SIZE", "= --font-size"), \
	FG_ALIAS_DOUBLE(0, "fontwidth", &(ro).font_width, "RATIO", "= --font-width"), \
	FG_ALIAS_BOOL(0, "cp", &(al).cp, "= --palette-map palette.map (in the current folder)"), \
	FG_ALIAS_STRING(0, "search-color", &(ro).search_color, "COLOR", "colour of search matches (default rgb(230,0,230))"), \
	FG_ALIAS_STRING(0, "stroke-color", &(ro).stroke_color, "COLOR", "outline every frame in COLOR"), \
	FG_ALIAS_STRING(0, "uicolor", &(ro).ui_color, "COLOR", "colour of the title, buttons and details"), \
	FG_ALIAS_BOOL(0, "colordiffusion", &(al).color_diffusion, "frames in one red, the wider the deeper"), \
	FG_ALIAS_BOOL(0, "no-javascript", &(al).no_javascript, "a static SVG: no script, no zoom or search"), \
	FG_ALIAS_STRING(0, "encoding", &(ro).encoding, "NAME", "the encoding named in the XML declaration"), \
	FG_ALIAS_BOOL(0, "no-sort", &(al).ignored, "accepted: the input never needs sorting here"), \
	FG_ALIAS_BOOL(0, "truncate-text-right", &(al).ignored, "accepted: labels always keep their start"), \
	FG_ALIAS_BOOL(0, "pretty-xml", &(al).ignored, "accepted: the SVG is always one element a line"), \
	FG_ALIAS_BOOL(0, "random", &(al).ignored, "accepted: colours are random unless --hash or --deterministic"), \
	FG_ALIAS_BOOL('q', "quiet", &(al).quiet, "do not warn about skipped lines"), \
	FG_ALIAS_BOOL('v', "verbose", &(al).ignored, "accepted: there is nothing more to say")

/* Applies the alias flags to ro (--cp names palette.map unless
 * --palette-map names a file). */
void fg_cli_render_aliases_apply(fg_render_opts *ro, const fg_cli_render_aliases *al);

#endif
