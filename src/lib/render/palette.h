/* Frame colours for the renderer. Colours are 0xRRGGBB. */
#ifndef FG_LIB_RENDER_PALETTE_H
#define FG_LIB_RENDER_PALETTE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

enum fg_palette {
	FG_PAL_HOT, FG_PAL_MEM, FG_PAL_IO, FG_PAL_WAKEUP, FG_PAL_JAVA, FG_PAL_JS,
	FG_PAL_PERL, FG_PAL_RED, FG_PAL_GREEN, FG_PAL_BLUE, FG_PAL_AQUA,
	FG_PAL_YELLOW, FG_PAL_PURPLE, FG_PAL_ORANGE, FG_PAL_RUST, FG_PAL_PYTHON,
	FG_PAL_CHAIN,
};

/* Marks a palette-map value as holding a colour (values start zeroed). */
#define FG_PALETTE_SET (1ull << 32)

/* NULL means hot. FG_EINVAL names the accepted palettes. */
int fg_palette_parse(const char *name, enum fg_palette *out);
/* The colour of frame `name` (with its _[k]-style annotation, which picks
 * the hue family in the language palettes); v1..v3 in [0,1] vary it. */
uint32_t fg_palette_color(enum fg_palette pal, const char *name, size_t n,
			  double v1, double v2, double v3);
/* Differential: red for growth, blue for shrinkage, scaled by maxdelta. */
uint32_t fg_palette_diff_color(double delta, double maxdelta);
/* "name->rgb(r,g,b)" lines into map (value: FG_PALETTE_SET | colour).
 * A missing file is not an error (it is written afterwards). */
int fg_palette_map_load(fg_strmap *map, const char *path);
/* Writes map back atomically, sorted by name. */
int fg_palette_map_save(const fg_strmap *map, const char *path);

#endif
