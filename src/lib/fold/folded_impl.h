/* Internals of fg_folded shared with the renderer and diff-folded. */
#ifndef FG_FOLD_FOLDED_IMPL_H
#define FG_FOLD_FOLDED_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "flamegraph/render.h"
#include "util/hashmap.h"
#include "util/strbuf.h"

/* The counts of one distinct stack; the stack itself is the map entry
 * whose value is this record's index + 1 (keys live once, in the map). */
struct fg_folded_rec {
	double count;   /* the count (the "after" count of differential lines) */
	double before;  /* differential "before" count, else 0 */
};

/* One run of equal input lines, for FG_FOLDED_KEEP_ORDER. key is the
 * map's interned copy, so equal stacks have equal pointers. */
struct fg_folded_seq {
	const char *key;
	size_t len;
	double count, before;
};

/* A distinct stack in sorted order (fg_folded_sorted). While sorting,
 * prefix/sortlen/e are the sort keys; once sorted, each element carries
 * its counts and key itself, so walking the stacks in order reads one
 * array instead of chasing map slots and records. */
struct fg_folded_sorted {
	union {
		uint64_t prefix;   /* 8 key bytes, big-endian, zero-padded */
		double count;
	};
	union {
		size_t sortlen;    /* len, or SIZE_MAX: runs past the digit */
		double before;
	};
	union {
		const fg_strmap_entry *e;
		const char *key;
	};
	size_t len;
};

enum fg_folded_warn_kind {
	FG_FW_NOCOUNT,
	FG_FW_EMPTY,
	FG_FW_HUGE,
	FG_FW_SUM,
	FG_FW_LONGLINE,
	FG_FW_LONGNAME,  /* not a skip: the line is kept, the name cut */
	FG_FW_NKINDS,
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
	bool discarding;          /* inside a line longer than the cap */
	double total, total_before;
	fg_strbuf carry;          /* a partial line between feeds */
	fg_strbuf scratch;        /* a stack with over-long names cut */
	char *source;
	uint64_t lineno, lines, skipped;
	struct fg_folded_warn warn[FG_FW_NKINDS];
};

static inline const struct fg_folded_rec *fg_folded_rec_of(const fg_folded *f,
							   const fg_strmap_entry *e)
{
	return &f->recs[e->value.u - 1];
}

/* The distinct stacks sorted bytewise (free() the array); NULL on
 * FG_ENOMEM. Valid until the next stack is added. */
struct fg_folded_sorted *fg_folded_sorted(const fg_folded *f);

#endif
