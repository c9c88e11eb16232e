/* The render stage: folded stacks (flamegraph/folded.h) in, a
 * self-contained interactive SVG out. */
#ifndef FLAMEGRAPH_RENDER_H
#define FLAMEGRAPH_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flamegraph/api.h"
/* The fg_folded API was declared here before it had its own header;
 * including it keeps older callers building. */
#include "flamegraph/folded.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* The layout of fg_render_opts this header describes: fg_render_opts_init
 * and the functions handed one take it and every older version, and refuse
 * 0 and later ones (FG_EINVAL). */
#define FG_RENDER_OPTS_VERSION 1

typedef struct fg_render_opts {
	unsigned version;        /* FG_RENDER_OPTS_VERSION */
	const char *title;       /* NULL: "Flame Graph" ("Icicle Graph" inverted,
				    "Flame Chart" with flamechart) */
	const char *subtitle;
	const char *notes;
	const char *palette;     /* hot mem io wakeup java js perl red green blue aqua
				    yellow purple orange rust python chain; NULL: hot */
	const char *bgcolors;    /* yellow blue green grey, or #rrggbb; NULL: by palette */
	const char *palette_map; /* file to read/write name->colour (NULL: none) */
	bool hash;               /* colour by name hash */
	bool deterministic;      /* same name, same colour, across graphs */
	bool inverted;           /* icicle graph */
	bool reverse;            /* reverse stacks before merging */
	bool flamechart;         /* keep input order (x = time), no sorting */
	bool negate;             /* differential: swap the meaning of red/blue */
	double min_width;        /* px; frames narrower are omitted (default
				    FG_RENDER_DEFAULT_MIN_WIDTH) */
	unsigned image_width;    /* px (FG_RENDER_DEFAULT_IMAGE_WIDTH) */
	unsigned frame_height;   /* px (FG_RENDER_DEFAULT_FRAME_HEIGHT) */
	const char *font_type;   /* default "Verdana" */
	double font_size;        /* px (FG_RENDER_DEFAULT_FONT_SIZE) */
	double font_width;       /* average character width / font size
				    (FG_RENDER_DEFAULT_FONT_WIDTH) */
	const char *count_name;  /* default "samples" */
	const char *name_type;   /* default "Function:" */
	double factor;           /* multiply counts (default 1) */
	double total;            /* >0: width of the graph in samples */
	const char *const *base; /* --base SYM: roots */
	size_t nbase;
	const char *nameattr;    /* file of extra per-name attributes */
	const char *cold_root;   /* hot/cold graphs: a frame of this name and
				    every frame above it are drawn in blues,
				    the rest in the palette (NULL: none) */
	/* Added with the inferno / flamegraph.pl spellings; later fields keep
	 * older callers (which zero them through FG_RENDER_OPTS_INIT) working. */
	bool min_width_percent;   /* min_width is a percentage of the graph's
				     width (its total samples), not pixels */
	const char *search_color; /* highlight of search matches (NULL:
				     rgb(230,0,230)); see fg_render_color_check */
	const char *stroke_color; /* outline of every frame (NULL: none) */
	const char *ui_color;     /* colour of the title, buttons and details
				     (NULL: black) */
	bool color_diffusion;     /* frames in one red whose depth follows
				     their width: the wider, the deeper */
	bool no_javascript;       /* a static SVG: no script, no interaction */
	const char *encoding;     /* the XML declaration's encoding (NULL:
				     none); only the name is written, the
				     bytes stay those of the input */
} fg_render_opts;

/* The defaults of the graph's geometry (plain literals, so that programs
 * can also quote them in their help). */
#define FG_RENDER_DEFAULT_MIN_WIDTH 0.1
#define FG_RENDER_DEFAULT_IMAGE_WIDTH 1200
#define FG_RENDER_DEFAULT_FRAME_HEIGHT 16
#define FG_RENDER_DEFAULT_FONT_SIZE 12
#define FG_RENDER_DEFAULT_FONT_WIDTH 0.59

/* Fields not named are 0, false or NULL (their documented defaults). */
#define FG_RENDER_OPTS_INIT { .version = FG_RENDER_OPTS_VERSION, \
	.min_width = FG_RENDER_DEFAULT_MIN_WIDTH, \
	.image_width = FG_RENDER_DEFAULT_IMAGE_WIDTH, .frame_height = FG_RENDER_DEFAULT_FRAME_HEIGHT, \
	.font_size = FG_RENDER_DEFAULT_FONT_SIZE, .font_width = FG_RENDER_DEFAULT_FONT_WIDTH, .factor = 1.0 }

/* Sets *opts to the defaults (FG_RENDER_OPTS_INIT); version:
 * FG_RENDER_OPTS_VERSION, as the caller was compiled (FG_EINVAL for one this
 * library does not know). */
int fg_render_opts_init(fg_render_opts *opts, unsigned version);

/* Writes the SVG of f to out. With no samples it still writes an SVG that
 * says so and returns FG_ENODATA. */
int fg_render_svg(const fg_folded *f, const fg_render_opts *opts, FILE *out);

/* fg_render_svg, also storing in *nframes (when not NULL) how many frames
 * the SVG holds (0 when nothing was drawn). A graph of many frames is slow
 * to open in a browser: FG_RENDER_HTML_ADVISED_FRAMES. */
int fg_render_svg_ex(const fg_folded *f, const fg_render_opts *opts, FILE *out,
		     size_t *nframes);

/* From this many frames on, the HTML viewer (fg_render_html) opens much
 * faster than the SVG. */
#define FG_RENDER_HTML_ADVISED_FRAMES 50000

/* Writes f to out as one self-contained HTML page: a viewer drawn on a
 * canvas (flame graph, icicle, flame chart, sandwich and function table;
 * zoom, regex search, hover details), with the frames the SVG would hold
 * in a compact encoding and every option of opts the SVG takes except
 * nameattr, no_javascript and encoding (the page is UTF-8, invalid bytes
 * of a name replaced). Nothing is fetched when it opens. With no
 * samples it still writes a page that says so and returns FG_ENODATA, as
 * fg_render_svg does; FG_EINVAL for bad opts, FG_EIO, FG_ENOMEM. */
int fg_render_html(const fg_folded *f, const fg_render_opts *opts, FILE *out);

/* Checks opts without rendering: unknown palette or background, bad sizes.
 * Returns 0 or FG_EINVAL with the detail in fg_error_last(). */
int fg_render_opts_check(const fg_render_opts *opts);

/* Checks a colour given for search_color, stroke_color or ui_color:
 * #rgb, #rrggbb, rgb(R,G,B) with R, G, B from 0 to 255, or a CSS colour
 * name (letters only). Returns 0 or FG_EINVAL with the detail in
 * fg_error_last(). */
int fg_render_color_check(const char *color);

/* The palette names accepted in fg_render_opts.palette, "|"-separated. */
extern const char fg_render_palettes[];

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
