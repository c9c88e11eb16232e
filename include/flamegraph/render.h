/* The render stage: folded stacks in, a self-contained interactive SVG out.
 *
 * fg_folded holds merged stacks from any number of sources: folded text
 * (fg_folded_feed/fg_folded_read_file, with fractional and differential
 * "stack before after" counts) or stacks handed over directly by a collapser
 * (fg_folded_add), so the pipeline never re-parses text it produced. */
#ifndef FLAMEGRAPH_RENDER_H
#define FLAMEGRAPH_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

typedef struct fg_folded fg_folded;

int fg_folded_new(fg_folded **out);
/* Adds one stack ("a;b;c", not NUL-terminated) with its count; counts of
 * equal stacks add up. after < 0 means "not differential". */
int fg_folded_add(fg_folded *f, const char *stack, size_t len, double count, double after);
/* Streaming folded-text input; partial lines are carried between calls.
 * `name` is used in warnings. */
int fg_folded_feed(fg_folded *f, const char *buf, size_t len);
int fg_folded_finish(fg_folded *f);
/* Reads a whole file ("-": stdin). */
int fg_folded_read_file(fg_folded *f, const char *path);
/* Total samples (sum of counts; "after" counts for differential input). */
double fg_folded_total(const fg_folded *f);
size_t fg_folded_count(const fg_folded *f);
/* Malformed lines skipped so far (each kind is reported once by the CLI). */
uint64_t fg_folded_skipped(const fg_folded *f);
void fg_folded_free(fg_folded *f);

/* Creation flags for fg_folded_new_ex. */
enum {
	/* Remember the order of the input lines (consecutive equal stacks
	 * merged), as --flamechart needs; memory then grows with the number
	 * of lines, not only with the number of distinct stacks. */
	FG_FOLDED_KEEP_ORDER = 1,
};
/* fg_folded_new with flags (FG_FOLDED_*). */
int fg_folded_new_ex(fg_folded **out, unsigned flags);
/* Names the input fed next (for warnings: "file:line") and restarts line
 * numbering. `name` is copied. fg_folded_read_file calls it itself. */
int fg_folded_set_source(fg_folded *f, const char *name);
/* Whether any line carried two counts ("stack before after"). */
bool fg_folded_is_differential(const fg_folded *f);

/* Calls cb for every distinct stack, sorted bytewise. `before` is the first
 * count of a differential line (0 when the stack had none). A non-zero
 * return from cb stops the walk and is returned. */
typedef int (*fg_folded_cb)(void *ctx, const char *stack, size_t len,
			    double count, double before);
int fg_folded_foreach(const fg_folded *f, fg_folded_cb cb, void *ctx);

/* Limits against hostile input. A frame name longer than
 * FG_FOLDED_MAX_FRAME bytes is cut there (at a UTF-8 character boundary)
 * and ends in FG_FOLDED_CUT_MARK; the line is kept. A line longer than
 * FG_FOLDED_MAX_LINE bytes is skipped, and never buffered past that size.
 * A line whose count would take the total (or the "before" total) to
 * 2^64 samples or more is skipped: counts are exact below 2^53 and
 * never overflow. Each kind is reported in fg_folded_stats. */
#define FG_FOLDED_MAX_FRAME (64u * 1024)
#define FG_FOLDED_MAX_LINE (16u * 1024 * 1024)
#define FG_FOLDED_CUT_MARK "[...]"

#define FG_FOLDED_MAX_WARNINGS 8
/* Lines read and lines skipped, by kind, for one warning per kind. */
typedef struct fg_fold_stats {
	uint64_t lines;        /* non-blank lines seen */
	uint64_t skipped;      /* of which malformed, skipped */
	size_t nwarnings;
	struct {
		const char *what;  /* "lines without a sample count", ... (static) */
		uint64_t count;
		char where[160];   /* "file:line" of the first one */
		bool kept;         /* the lines were kept, changed (names cut),
				      not skipped */
	} warnings[FG_FOLDED_MAX_WARNINGS];
} fg_fold_stats;
void fg_folded_stats(const fg_folded *f, fg_fold_stats *out);

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
} fg_render_opts;

#define FG_RENDER_OPTS_INIT { NULL, NULL, NULL, NULL, NULL, NULL, false, false, \
	false, false, false, false, 0.1, 1200, 16, NULL, 12.0, 0.59, NULL, NULL, 1.0, \
	0.0, NULL, 0, NULL }

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
