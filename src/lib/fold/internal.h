/* Internals of fg_folded, shared by the files of the fold stage only
 * (folded.c, sort.c, diff.c). Other stages use flamegraph/folded.h. */
#ifndef FG_LIB_FOLD_INTERNAL_H
#define FG_LIB_FOLD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "flamegraph/folded.h"
#include "util/hashmap.h"
#include "util/strbuf.h"

/* The whole-sample counts of one distinct stack; the stack itself is the
 * map entry whose value is this record's index + 1 (keys live once, in
 * the map). */
struct fg_folded_rec {
	uint64_t count;   /* the count (the "after" count of differential lines) */
	uint64_t before;  /* differential "before" count, else 0 */
};

/* The fractions of a record's counts, in 1/FG_COUNT_FRAC_ONE: an array
 * parallel to recs, allocated when the first fractional count arrives,
 * so that integer input costs no memory for them. */
struct fg_folded_frac {
	uint64_t count, before;
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

/* Per distinct stack, for the text reader: its key, and the stack of the
 * line that followed it last time (its record's index + 1, 0: none). A
 * profile written out as text repeats the same lines in the same order
 * (a collapser's output, the same file fed twice), so the line after a
 * stack is most often the one that came after it before; comparing it is
 * cheaper than hashing it and probing the map. */
struct fg_folded_next {
	const char *key;
	size_t len, next;
};

struct fg_folded_warn {
	uint64_t count;
	char where[160];
};

/* A stack being sorted, then (in place) its listing entry: while
 * sorting, prefix/key/len are the sort keys and idx what the stack
 * belongs to (a record, or a loose line), or its count; once sorted, the
 * slot is overwritten with the stack and its whole counts, so walking the
 * stacks in order reads one array instead of chasing map slots and
 * records.
 *
 * A line of a mapped file gathered without looking its stack up (a loose
 * line: feed_mapped, until a sample shows mostly repeats) is a slot with
 * key, len and count, merged with its equals by sorting. Only whole counts
 * are gathered; fractional and differential lines go through the map. */
struct fg_folded_slot {
	union {
		struct {
			/* 16 key bytes, big-endian, zero-padded */
			uint64_t prefix, prefix2;
			const char *key;
			/* 32 bits, so that a slot is 32 bytes: the sort
			 * moves slots, and a mapped file's lines are kept
			 * as slots (FG_FOLDED_SLOT_MAX) */
			uint32_t len;
			union {
				uint32_t idx;
				uint32_t count; /* fg_folded_sort_pruned's */
			};
		};
		fg_folded_stack out;
	};
};

/* A distinct stack of a settled fg_folded: record i's key is keys[i]. */
struct fg_folded_key {
	const char *key;
	size_t len;
};

struct fg_folded {
	fg_strmap map;            /* stack -> index + 1 into recs */
	struct fg_folded_rec *recs;
	struct fg_folded_frac *fracs; /* NULL, or as many as recs can hold */
	size_t nrecs, arecs;
	/* FG_FOLDED_KEEP_ORDER: runs of equal lines (stack is the map's
	 * interned key, so equal stacks have equal pointers), and the
	 * fractions of the last run, the only one that can still grow */
	fg_folded_stack *seq;
	size_t nseq, aseq;
	struct fg_folded_frac seq_frac;
	bool keep_order, differential;
	bool discarding;          /* inside a line longer than the cap */
	bool borrow;              /* the bytes being fed are mapped[]'s: keys
				   * point into them instead of being copied */
	struct fg_folded_map { const char *data; size_t len; } *mapped;
	size_t nmapped, amapped;  /* files mapped, unmapped by fg_folded_free */
	uint64_t key_bytes;       /* the distinct stacks' bytes */
	/* the prediction of the next line (NULL once it stopped paying: at
	 * FG_FOLDED_PREDICT_TRIAL lines, fewer than half had been found
	 * that way), the record of the last line fed (index + 1, 0: none or
	 * not counted), and how many lines were added and how many of them
	 * it found */
	struct fg_folded_next *nexts;
	size_t prev, added;
	uint64_t fed, predicted;
	bool predict_off;
	/* gathering: lines whose key stays put (borrow) go to loose[]
	 * instead of the map */
	bool gather;
	/* a gathered line: key, len and count of a slot, to be sorted
	 * where it is (fg_folded_list_new_pruned), so a slot wide */
	struct fg_folded_slot *loose;
	size_t nloose, aloose;
	bool loose_moved;         /* sorted where they are: digits overwritten */
	/* a sample of the gathered lines, chosen by their last bytes so that
	 * a line's repeats are sampled with it: a window of samples mostly
	 * seen before ends the gathering (repeats are cheaper through the
	 * map than sorted) */
	fg_strmap sampled;
	unsigned window, window_seen;
	/* settled: the map is empty and keys[i], in bytewise order, is the
	 * stack of record i; the map is made again when a stack is added */
	struct fg_folded_key *keys;
	size_t *shared;           /* settled: bytes keys[i] shares with keys[i - 1] */
	fg_count total, total_before;
	fg_strbuf carry;          /* a partial line between feeds */
	fg_strbuf scratch;        /* a stack with over-long names cut */
	char *source;
	uint64_t lineno, lines, skipped;
	struct fg_folded_warn warn[FG_FW_NKINDS];
};

/* The largest length, index or count a slot holds: a line with a larger
 * count is not gathered (it goes through the map), and a table of more
 * stacks, or a longer one, is not sorted (FG_ELIMIT). */
#define FG_FOLDED_SLOT_MAX UINT32_MAX
/* Sets and returns that FG_ELIMIT. */
int fg_folded_slot_limit(void);

/* Fills v[0..nloose + nrecs) with f's gathered lines, then its records:
 * key and length, and the index (the line, or nloose + the record) or,
 * with counts, the whole count. 1 when one does not fit a slot. */
int fg_folded_fill_slots(const fg_folded *f, struct fg_folded_slot *v, bool counts);

/* Sorts v[0..n) bytewise by key and sets lcp[i] to how many bytes keys
 * i - 1 and i share, lcp[0] to 0 (sort.c); FG_ENOMEM. */
int fg_folded_sort_slots(struct fg_folded_slot *v, size_t *lcp, size_t n);

/* As fg_folded_sort_slots, for a graph that draws only frames of at
 * least min samples (min > 0), v[i].count a stack's samples: a part of v
 * whose stacks add up to fewer (and share a prefix no other key has) is
 * not sorted, and its lcp[i] but the first are FG_FOLDED_PRUNED (sort.c).
 * first_digits: v's digits at depth 0 are set already. */
int fg_folded_sort_pruned(struct fg_folded_slot *v, size_t *lcp, size_t n, double min,
			  bool first_digits);

/* Reads the digit of s at depth (the key's bytes the sort compares):
 * done for a gathered line at depth 0 while its bytes are at hand, so
 * that fg_folded_sort_pruned(first_digits) need not fetch them again. */
void fg_folded_slot_digit(struct fg_folded_slot *s, size_t depth);
#define FG_FOLDED_PRUNED SIZE_MAX

/* The distinct stacks sorted bytewise in *out, idx their record, and in
 * *lcp (unless lcp is NULL) what each shares with the one before, as
 * fg_folded_sort_slots (sort.c); FG_ENOMEM or FG_ELIMIT. free() both. */
int fg_folded_sort_stacks(const fg_folded *f, struct fg_folded_slot **out, size_t **lcp);

/* The distinct stacks in no particular order: *key, *len and *idx (the
 * record) of the one after *iter, false after the last. */
bool fg_folded_next_stack(const fg_folded *f, size_t *iter, const char **key, size_t *len,
			  size_t *idx);

/* Merges the lines gathered from mapped files (f's records then hold
 * all its stacks), for readers that walk the records; 0 or FG_ENOMEM. */
int fg_folded_settled(const fg_folded *f);

/* The merged counts of record idx. */
fg_count fg_folded_count_of(const fg_folded *f, size_t idx, bool before);

#endif
