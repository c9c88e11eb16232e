/* The frames of a graph, merged once (render.c's flow), for the writers
 * other than the SVG's own: the HTML viewer's data (htmlout.c). */
#ifndef FG_LIB_RENDER_FRAMES_H
#define FG_LIB_RENDER_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flamegraph/render.h"

/* One frame: its name (pointing into the stacks, with any _[k]
 * annotation), depth (0: the root "all"), first and past-last sample. */
typedef struct fg_rframe {
	const char *name;
	size_t len;
	unsigned depth;
	uint64_t start, end;
	double delta;    /* differential: after - before of its own samples */
	bool cold;       /* at or above opts.cold_root */
} fg_rframe;

/* The length of the name shown for name[0..n): without the collapsers'
 * _[k] / _[j] / _[i] / _[w] annotation. */
static inline size_t fg_rframe_shown_len(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    (s[n - 2] == 'k' || s[n - 2] == 'j' || s[n - 2] == 'i' || s[n - 2] == 'w'))
		return n - 4;
	return n;
}

typedef struct fg_rgraph {
	fg_rframe *frames;   /* closing order: children before their parent,
				"all" last */
	size_t n;
	unsigned depthmax;
	uint64_t samples;
	double timemax;      /* the graph's width in samples (opts.total) */
	double maxdelta;
	bool differential;
	fg_folded *tmp;      /* owned: what the names point into */
	void *stacks;
	void *priv;
} fg_rgraph;

/* Checks o and merges f's stacks into frames as the SVG draws them (frames
 * narrower than opts.min_width left out). FG_ENODATA, with the SVG's
 * message, when f has no samples. g is released by fg_rgraph_release
 * whatever this returns. */
int fg_rgraph_build(fg_rgraph *g, const fg_folded *f, const fg_render_opts *o);
/* A frame's colour as the SVG picks it (0xRRGGBB): the palette, the
 * palette map, the hash, the cold subtree, the differential change. */
uint32_t fg_rgraph_color(fg_rgraph *g, const fg_rframe *fr, int *err);
/* The background's gradient, top and bottom colours (static strings), as
 * the SVG's: opts.bgcolors, or the palette's. */
void fg_rgraph_bg(const fg_rgraph *g, const char **top, const char **bottom);
/* Saves the palette map when new names were added to it. */
int fg_rgraph_finish(fg_rgraph *g);
void fg_rgraph_release(fg_rgraph *g);

#endif
