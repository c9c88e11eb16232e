/* Folded stacks, the pipeline's currency: "frame;frame;...;leaf COUNT".
 *
 * fg_folded holds merged stacks from any number of sources: folded text
 * (fg_folded_feed/fg_folded_read_file, with fractional and differential
 * "stack before after" counts) or stacks handed over directly by a
 * collapser (fg_folded_add), so the pipeline never re-parses text it
 * produced. Consumers (the renderer, exports) walk the result through
 * fg_folded_foreach or an fg_folded_list.
 *
 * The lines of a mapped file are kept as they come and merged only when a
 * reader first needs them merged, so even the functions that take a const
 * fg_folded may rearrange how it holds its stacks: one fg_folded is not
 * to be used from two threads at once, for reading either. */
#ifndef FLAMEGRAPH_FOLDED_H
#define FLAMEGRAPH_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flamegraph/api.h"

#ifdef __cplusplus
extern "C" {
#endif
FG_API_BEGIN

/* A sample count: `n` whole samples plus `frac` / FG_COUNT_FRAC_ONE of a
 * sample (0 <= frac < FG_COUNT_FRAC_ONE).
 *
 * Why this and not a floating type: a double holds whole numbers exactly
 * only up to 2^53, and counts go up to 2^64 - 1 (perf periods summed,
 * for example), so totals came out rounded and counts near 2^64 were
 * refused. A long double is exact for 64-bit integers only where its
 * mantissa has 64 bits (x86; on aarch64 it is a software quad, on armhf
 * a double), it doubles the memory of every distinct stack, and it still
 * cannot hold a decimal fraction exactly. Whole samples as uint64_t are
 * exact on every platform; the fraction that folded text may carry
 * ("a;b 0.25", accepted like FlameGraph and inferno do) is kept beside
 * them as an exact decimal of 18 digits, and carries into `n` when equal
 * stacks add up. Integer input never touches the fraction: fg_folded
 * stores fractions only once a count has one. */
typedef struct fg_count {
	uint64_t n;
	uint64_t frac;
} fg_count;

#define FG_COUNT_FRAC_ONE 1000000000000000000ull /* 10^18 */

typedef struct fg_folded fg_folded;

int fg_folded_new(fg_folded **out);

/* Creation flags for fg_folded_new_ex. */
enum {
	/* Remember the order of the input lines (consecutive equal stacks
	 * merged), as --flamechart needs; memory then grows with the number
	 * of lines, not only with the number of distinct stacks. */
	FG_FOLDED_KEEP_ORDER = 1,
};
/* fg_folded_new with flags (FG_FOLDED_*). */
int fg_folded_new_ex(fg_folded **out, unsigned flags);
void fg_folded_free(fg_folded *f);

/* Adds one stack ("a;b;c", not NUL-terminated) with a count of whole
 * samples; counts of equal stacks add up. Returns 0 (a count that would
 * take the total to 2^64 or more is skipped and counted in
 * fg_folded_stats, as for text input) or FG_ENOMEM. */
int fg_folded_add(fg_folded *f, const char *stack, size_t len, uint64_t count);
/* The same with a fractional count. FG_EINVAL when count.frac is not
 * below FG_COUNT_FRAC_ONE. */
int fg_folded_add_count(fg_folded *f, const char *stack, size_t len, fg_count count);
/* A differential stack, "stack before after": marks f differential. */
int fg_folded_add_diff(fg_folded *f, const char *stack, size_t len, fg_count before,
		       fg_count after);

/* Streaming folded-text input; partial lines are carried between calls.
 * A count is digits with at most one '.'; fraction digits past the 18th
 * are ignored. */
int fg_folded_feed(fg_folded *f, const char *buf, size_t len);
int fg_folded_finish(fg_folded *f);
/* Reads a whole file ("-": stdin). */
int fg_folded_read_file(fg_folded *f, const char *path);
/* Names the input fed next (for warnings: "file:line") and restarts line
 * numbering. `name` is copied. fg_folded_read_file calls it itself. */
int fg_folded_set_source(fg_folded *f, const char *name);

/* Total samples (sum of counts; the "after" counts of differential
 * input), exact. */
fg_count fg_folded_total(const fg_folded *f);
/* Distinct stacks (SIZE_MAX when there is not the memory to merge the
 * lines of a mapped file, which is done when first needed). */
size_t fg_folded_count(const fg_folded *f);
/* Malformed lines skipped so far (each kind is reported once by the CLI). */
uint64_t fg_folded_skipped(const fg_folded *f);
/* Whether any line carried two counts ("stack before after"). */
bool fg_folded_is_differential(const fg_folded *f);
/* Whether f was made with FG_FOLDED_KEEP_ORDER. */
bool fg_folded_keeps_order(const fg_folded *f);

/* Calls cb for every distinct stack, sorted bytewise, with its merged
 * counts. `before` is the first count of a differential line (0 when the
 * stack had none). A non-zero return from cb stops the walk and is
 * returned; FG_ENOMEM if the sort cannot allocate. */
typedef int (*fg_folded_cb)(void *ctx, const char *stack, size_t len, fg_count count,
			    fg_count before);
int fg_folded_foreach(const fg_folded *f, fg_folded_cb cb, void *ctx);

/* ---- listings: the stacks as an array, for consumers that walk them
 * more than once or from either end (the renderer) ---- */

/* One stack of a listing. Counts are whole samples: the fraction of each
 * merged count is dropped, as a graph draws it. */
typedef struct fg_folded_stack {
	const char *stack; /* owned by the fg_folded; not NUL-terminated */
	size_t len;
	uint64_t count;    /* the "after" count of differential input */
	uint64_t before;   /* the differential "before" count, else 0 */
} fg_folded_stack;

enum fg_folded_order {
	FG_FOLDED_SORTED,      /* the distinct stacks, sorted bytewise */
	FG_FOLDED_INPUT_ORDER, /* runs of equal consecutive input lines, in
				  input order (needs FG_FOLDED_KEEP_ORDER) */
};

typedef struct fg_folded_list fg_folded_list;

/* Lists the stacks of f in the given order. The listing refers to f's
 * stacks: it is valid until f is changed or freed. FG_EINVAL for
 * FG_FOLDED_INPUT_ORDER when f does not keep the order; FG_ENOMEM. */
int fg_folded_list_new(fg_folded_list **out, const fg_folded *f, enum fg_folded_order order);
/* A sorted listing for a graph that leaves out frames of fewer than min
 * samples (flamegraph.pl's pruning of narrow frames): as FG_FOLDED_SORTED,
 * except that stacks which part only in frames of fewer than min samples
 * may come as one of them carrying their summed count. Every frame (a
 * prefix ending where a name ends) of at least min samples keeps its
 * count and place, so a flow over it draws the same; sorting the
 * stacks inside narrow frames is saved. Lists as FG_FOLDED_SORTED does
 * when min is not above 0, and for fractional or differential counts. */
int fg_folded_list_new_pruned(fg_folded_list **out, const fg_folded *f, double min);
size_t fg_folded_list_len(const fg_folded_list *l);
/* The i-th stack, i < fg_folded_list_len(l). */
const fg_folded_stack *fg_folded_list_at(const fg_folded_list *l, size_t i);
/* How many leading bytes the i-th stack shares with the one before it (0
 * for the first): where their frames part, known from sorting them, so a
 * walk over a sorted listing need not compare its neighbours again. */
size_t fg_folded_list_shared(const fg_folded_list *l, size_t i);
void fg_folded_list_free(fg_folded_list *l);

/* ---- limits against hostile input, and what was skipped ---- */

/* A frame name longer than FG_FOLDED_MAX_FRAME bytes is cut there (at a
 * UTF-8 character boundary) and ends in FG_FOLDED_CUT_MARK; the line is
 * kept. A line longer than FG_FOLDED_MAX_LINE bytes is skipped, and never
 * buffered past that size. A count of 2^64 or more is skipped, and so is
 * a line whose count would take the total (or the "before" total) to
 * 2^64 samples or more: below that, every count and sum is exact. Each
 * kind is reported in fg_folded_stats. */
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

FG_API_END
#ifdef __cplusplus
}
#endif
#endif
