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

typedef struct fg_render_opts {
	const char *title;       /* NULL: "Flame Graph" ("Icicle Graph" inverted) */
	const char *subtitle;
	const char *notes;
	const char *palette;     /* hot mem io wakeup java js perl red green blue aqua
				    yellow purple orange rust; NULL: hot */
	const char *bgcolors;    /* yellow blue green grey, or #rrggbb; NULL: by palette */
	const char *palette_map; /* file to read/write name->colour (NULL: none) */
	bool hash;               /* colour by name hash */
	bool deterministic;      /* same name, same colour, across graphs */
	bool inverted;           /* icicle graph */
	bool reverse;            /* reverse stacks before merging */
	bool flamechart;         /* keep input order (x = time), no sorting */
	bool negate;             /* differential: swap the meaning of red/blue */
	double min_width;        /* px; frames narrower are omitted (default 0.1) */
	unsigned image_width;    /* px (default 1200) */
	unsigned frame_height;   /* px (default 16) */
	const char *font_type;   /* default "Verdana" */
	double font_size;        /* default 12 */
	double font_width;       /* default 0.59 */
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
} fg_render_opts;

/* Fields not named are 0, false or NULL (their documented defaults). */
#define FG_RENDER_OPTS_INIT { .min_width = 0.1, .image_width = 1200, .frame_height = 16, \
	.font_size = 12.0, .font_width = 0.59, .factor = 1.0 }

/* Writes the SVG of f to out. With no samples it still writes an SVG that
 * says so and returns FG_ENODATA. */
int fg_render_svg(const fg_folded *f, const fg_render_opts *opts, FILE *out);

/* Checks opts without rendering: unknown palette or background, bad sizes.
 * Returns 0 or FG_EINVAL with the detail in fg_error_last(). */
int fg_render_opts_check(const fg_render_opts *opts);

/* The palette names accepted in fg_render_opts.palette, "|"-separated. */
extern const char fg_render_palettes[];

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
