/* Internals of fg_folded shared with the renderer and diff-folded. */
#ifndef FG_FOLD_FOLDED_IMPL_H
#define FG_FOLD_FOLDED_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "flamegraph/render.h"
#include "util/hashmap.h"
#include "util/strbuf.h"

/* One distinct stack. key points into the map's arena (stable). */
struct fg_folded_rec {
	const char *key;
	size_t len;
	double count;   /* the count (the "after" count of differential lines) */
	double before;  /* differential "before" count, else 0 */
};

/* One run of equal input lines, for FG_FOLDED_KEEP_ORDER. */
struct fg_folded_seq {
	size_t idx;     /* into recs */
	double count, before;
};

struct fg_folded_warn {
	uint64_t count;
	char where[160];
};

struct fg_folded {
	fg_strmap map;            /* stack -> index + 1 into recs */
	struct fg_folded_rec *recs;
	size_t nrecs, arecs;
	struct fg_folded_seq *seq;
	size_t nseq, aseq;
	bool keep_order, differential;
	double total;
	fg_strbuf carry;          /* a partial line between feeds */
	char *source;
	uint64_t lineno, lines, skipped;
	struct fg_folded_warn warn[3]; /* one per kind of bad line (folded.c) */
};

/* The distinct stacks sorted bytewise (free() the array, not the items);
 * NULL on FG_ENOMEM. */
const struct fg_folded_rec **fg_folded_sorted(const fg_folded *f);

#endif
