/* Sorting the distinct stacks of an fg_folded (folded.c).
 *
 * The flow merge needs the stacks in bytewise order. Stacks share long
 * prefixes ("main;worker;..."), so comparing keys through pointers with
 * memcmp is slow, and qsort's merge sort would need a copy of the array
 * (160 MB more for 10 million stacks). Instead: a most-significant-digit
 * sort with 16-byte digits. A range of keys that agree on their first
 * `depth` bytes is sorted by the next 16 bytes (two integer compares, the
 * key's length breaking ties), then each run of equal digits is sorted on
 * from depth + 16. Ranges wait on an explicit work list, so a hostile input
 * of keys sharing megabytes of prefix needs no deep recursion; the integer
 * sort is an in-place introsort with a heapsort fallback. Ranges of up to
 * 256 keys are sorted by comparing keys, knowing how many bytes each
 * shares with its neighbours (insertion, then merges), so a prefix they
 * share is read about once, not once per comparison. Every step records
 * those shared bytes, which the merge of equal stacks and the renderer's
 * walk then use instead of comparing neighbours again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph/error.h"
#include "lib/fold/internal.h"
#include "util/bytes.h"
#include "util/banned.h"

/* The digit: DIGIT key bytes from depth, big-endian, zero-padded, in
 * s->prefix (the first 8) and s->prefix2. */
#define DIGIT 16

static uint64_t bytes_at(const char *s, size_t len, size_t from)
{
	uint64_t v = 0;
	size_t i;

	if (from + 8 <= len) {
		memcpy(&v, s + from, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		return v;
	}
	for (i = from; i < from + 8; i++)
		v = v << 8 | (i < len ? (unsigned char)s[i] : 0);
	return v;
}

void fg_folded_slot_digit(struct fg_folded_slot *s, size_t depth)
{
	s->prefix = bytes_at(s->key, s->len, depth);
	s->prefix2 = bytes_at(s->key, s->len, depth + 8);
}

static inline bool same_digit(const struct fg_folded_slot *a, const struct fg_folded_slot *b)
{
	return a->prefix == b->prefix && a->prefix2 == b->prefix2;
}

/* A key's length as the digit at depth sees it: SIZE_MAX when the key
 * runs past the digit. */
static inline size_t sort_len(const struct fg_folded_slot *s, size_t depth)
{
	return s->len > depth + DIGIT ? SIZE_MAX : s->len;
}

/* Keys with equal digits: one that ends within the digit is a prefix of
 * the others (its padding zeros matched their bytes), so the shorter goes
 * first; keys running past the digit (len compared as "long") tie. */
static inline bool less_at(const struct fg_folded_slot *a, const struct fg_folded_slot *b,
			   size_t depth)
{
	if (a->prefix != b->prefix)
		return a->prefix < b->prefix;
	if (a->prefix2 != b->prefix2)
		return a->prefix2 < b->prefix2;
	return sort_len(a, depth) < sort_len(b, depth);
}

#define less(a, b) less_at((a), (b), depth)

static inline void swap(struct fg_folded_slot *a, struct fg_folded_slot *b)
{
	struct fg_folded_slot t = *a;
	*a = *b;
	*b = t;
}

static void sift_down(struct fg_folded_slot *v, size_t i, size_t n, size_t depth)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && less(&v[c], &v[c + 1]))
			c++;
		if (!less(&v[i], &v[c]))
			return;
		swap(&v[i], &v[c]);
		i = c;
	}
}

static void heap_sort(struct fg_folded_slot *v, size_t n, size_t depth)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n, depth);
	for (i = n; i-- > 1;) {
		swap(&v[0], &v[i]);
		sift_down(v, 0, i, depth);
	}
}

static void insertion_sort(struct fg_folded_slot *v, size_t n, size_t depth)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct fg_folded_slot t = v[i];
		for (j = i; j > 0 && less(&t, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/* Sorts v[0..n) by (prefix, len): quicksort with the median of three and
 * a three-way partition, working on the smaller part first and deferring the larger one to an
 * explicit stack (so at most log2(n) entries), heapsort once the depth
 * budget is spent. */
static void intro_sort(struct fg_folded_slot *v, size_t n, size_t depth)
{
	struct { struct fg_folded_slot *v; size_t n; unsigned budget; } stack[64];
	size_t top = 0;
	unsigned budget = 0;

	for (size_t m = n; m; m >>= 1)
		budget += 2;
	for (;;) {
		while (n > 16) {
			struct fg_folded_slot *lo = v, *hi = v + n - 1, *mid = v + n / 2, piv;
			size_t lt, k, gt;

			if (!budget--) {
				heap_sort(v, n, depth);
				n = 0;
				break;
			}
			if (less(mid, lo))
				swap(mid, lo);
			if (less(hi, mid)) {
				swap(hi, mid);
				if (less(mid, lo))
					swap(mid, lo);
			}
			/* three ways: a range's digits take few values (the first
			 * bytes of a few callers), and the equal ones are done */
			piv = *mid;
			lt = k = 0;
			gt = n;
			while (k < gt) {
				if (less(&v[k], &piv))
					swap(&v[lt++], &v[k++]);
				else if (less(&piv, &v[k]))
					swap(&v[k], &v[--gt]);
				else
					k++;
			}
			/* below: v[0..lt), above: v[gt..n) */
			if (lt < n - gt) {
				stack[top].v = v + gt;
				stack[top].n = n - gt;
				stack[top++].budget = budget;
				n = lt;
			} else {
				stack[top].v = v;
				stack[top].n = lt;
				stack[top++].budget = budget;
				v += gt;
				n = n - gt;
			}
		}
		insertion_sort(v, n, depth);
		if (!top)
			return;
		top--;
		v = stack[top].v;
		n = stack[top].n;
		budget = stack[top].budget;
	}
}

/* ---- sorting a range by its digits, a byte at a time ----
 * Once the digits of a range are read into its slots, a large range is
 * sorted by them without touching the keys: a radix sort on the digits'
 * bytes, most significant first, moving the slots in place, in cycles
 * (American flag sort). Each byte costs a pass that counts the slots per
 * byte value and one that moves them; the bytes all slots share are
 * skipped in one pass. */

/* Ranges this small are sorted by comparing digits. */
#define RADIX_SMALL 1024

static inline unsigned digit_byte(const struct fg_folded_slot *s, unsigned k)
{
	uint64_t w = k < 8 ? s->prefix : s->prefix2;

	return (unsigned)(w >> (56 - 8 * (k & 7))) & 255;
}

/* The first byte of the digits in which v[0..n) do not all agree, DIGIT
 * when they agree in all. */
static unsigned first_parting_byte(const struct fg_folded_slot *v, size_t n)
{
	uint64_t d1 = 0, d2 = 0;

	for (size_t i = 1; i < n; i++) {
		d1 |= v[i].prefix ^ v[0].prefix;
		d2 |= v[i].prefix2 ^ v[0].prefix2;
	}
	if (d1)
		return (unsigned)__builtin_clzll(d1) / 8;
	return d2 ? 8 + (unsigned)__builtin_clzll(d2) / 8 : DIGIT;
}

/* Sorts v[0..n) as intro_sort does. At most DIGIT levels deep: the slots
 * of a bucket agree on one more byte. */
static void radix_sort(struct fg_folded_slot *v, size_t n, size_t depth)
{
	unsigned k = n > RADIX_SMALL ? first_parting_byte(v, n) : DIGIT;
	/* on the heap: up to DIGIT levels of them would be 100 KB of stack */
	size_t *count = k < DIGIT ? fg_calloc(3 * 256, sizeof(*count)) : NULL, *next, *end, i, b;

	if (!count) {
		/* small, or equal digits (then ordered by length), or no
		 * memory for the counts */
		intro_sort(v, n, depth);
		return;
	}
	next = count + 256;
	end = count + 512;
	for (i = 0; i < n; i++)
		count[digit_byte(&v[i], k)]++;
	for (b = 0, i = 0; b < 256; i += count[b++]) {
		next[b] = i;
		end[b] = i + count[b];
	}
	for (b = 0; b < 256; b++) {
		while (next[b] < end[b]) {
			struct fg_folded_slot x = v[next[b]];
			unsigned t = digit_byte(&x, k);

			while (t != b) {
				struct fg_folded_slot y = v[next[t]];

				v[next[t]++] = x;
				x = y;
				t = digit_byte(&x, k);
			}
			v[next[b]++] = x;
		}
	}
	for (b = 0, i = 0; b < 256; i += count[b++])
		if (count[b] > 1)
			radix_sort(v + i, count[b], depth);
	free(count);
}

/* How many keys ahead a digit round asks for their bytes: the loads of
 * keys lying all over memory overlap instead of waiting one by one. */
#define PREFETCH_KEYS 16

struct range {
	size_t start, n, depth;
	uint64_t total; /* pruning: the range's samples */
};

/* How many bytes from depth on all keys of the range share: one pass that
 * skips a long common prefix at memcmp speed instead of 8 bytes a round. */
#define COMMON_AHEAD 2

static size_t common_from(const struct fg_folded_slot *w, size_t n, size_t depth)
{
	const char *k0 = w[0].key;
	size_t lcp = w[0].len - depth, i, j;

	for (i = 1; i < n && lcp; i++) {
		const char *k = w[i].key + depth, *a = k0 + depth;
		size_t m = w[i].len - depth < lcp ? w[i].len - depth : lcp;

		/* the keys lie all over memory: ask for a later one's bytes
		 * while this one is compared */
		if (i + COMMON_AHEAD < n)
			for (j = 0; j < lcp && j < 1024; j += 64)
				__builtin_prefetch(w[i + COMMON_AHEAD].key + depth + j);

		/* memcmp is vectorised: let it skip the bulk of a long prefix */
		for (j = 0; j + 64 <= m && !memcmp(a + j, k + j, 64); j += 64)
			;
		lcp = j + fg_common_prefix(a + j, k + j, m - j);
	}
	return lcp;
}

/* How many bytes keys a and b share, knowing they share `from`. */
static size_t shared_from(const struct fg_folded_slot *a, const struct fg_folded_slot *b,
			  size_t from)
{
	size_t n = a->len < b->len ? a->len : b->len;

	return from + fg_common_prefix(a->key + from, b->key + from, n - from);
}

/* Whether a goes before b, given that they share their first h bytes. */
static inline bool before_at(const struct fg_folded_slot *a, const struct fg_folded_slot *b,
			     size_t h)
{
	if (h == a->len)
		return h < b->len;
	return h < b->len && (unsigned char)a->key[h] < (unsigned char)b->key[h];
}

/* Ranges this small are sorted by insertion, knowing how many bytes each
 * key shares with its neighbour: a key is compared byte by byte only
 * where that tells nothing, so the long prefixes that sorted neighbours
 * share are read about once instead of once per comparison. */
#define LCP_SORT_MAX 16

/* Sorts v[0..n) (keys sharing their first depth bytes), setting lcp[i]
 * for 0 < i < n. */
static void lcp_insertion_sort(struct fg_folded_slot *v, size_t *lcp, size_t n, size_t depth)
{
	size_t i, j, k;

	for (i = 1; i < n; i++) {
		struct fg_folded_slot x = v[i];
		size_t h = shared_from(&v[0], &x, depth), left = 0, right = 0;

		/* h: what x shares with v[j]; walking up while x is not
		 * before v[j], lcp[j + 1] alone often decides about v[j + 1] */
		for (j = 0; j < i; j++) {
			if (before_at(&x, &v[j], h)) {
				right = h;
				break;
			}
			left = h;
			if (j + 1 < i) {
				if (lcp[j + 1] < h) {
					/* v[j + 1] leaves v[j] (and x) earlier, upwards */
					right = lcp[j + 1];
					j++;
					break;
				}
				if (lcp[j + 1] == h)
					h = shared_from(&v[j + 1], &x, h);
				/* else v[j + 1] is below x as v[j] is, sharing h */
			}
		}
		for (k = i; k > j; k--) {
			v[k] = v[k - 1];
			if (k - 1 > j)
				lcp[k] = lcp[k - 1];
		}
		v[j] = x;
		if (j > 0)
			lcp[j] = left;
		if (j < i)
			lcp[j + 1] = right;
	}
}

/* Ranges up to this size are sorted by comparing keys, runs of
 * LCP_SORT_MAX by insertion merged pairwise: digit rounds would touch
 * every key once per 8 bytes of the prefixes they share. */
#define FULL_SORT_MAX 256

/* Merges sorted a[0..na) and b[0..nb) (lcp arrays la, lb as
 * lcp_insertion_sort sets them) into out and lo. What each shares with the
 * last key out decides most steps without reading a key: the one sharing
 * more is the smaller; only on a tie are the two compared, from there.
 * lo[0] is left unset (the key before out[0] is not known here). */
static void lcp_merge(const struct fg_folded_slot *a, const size_t *la, size_t na,
		      const struct fg_folded_slot *b, const size_t *lb, size_t nb,
		      struct fg_folded_slot *out, size_t *lo, size_t depth)
{
	size_t i = 0, j = 0, k = 0, ha = depth, hb = depth;

	while (i < na && j < nb) {
		bool take_a;

		if (ha != hb) {
			take_a = ha > hb;
		} else {
			size_t h = shared_from(&a[i], &b[j], ha);

			take_a = !before_at(&b[j], &a[i], h);
			if (take_a)
				hb = h;
			else
				ha = h;
		}
		if (take_a) {
			lo[k] = ha;
			out[k++] = a[i++];
			ha = i < na ? la[i] : 0;
		} else {
			lo[k] = hb;
			out[k++] = b[j++];
			hb = j < nb ? lb[j] : 0;
		}
	}
	for (; i < na; i++, k++) {
		lo[k] = ha;
		out[k] = a[i];
		ha = i + 1 < na ? la[i + 1] : 0;
	}
	for (; j < nb; j++, k++) {
		lo[k] = hb;
		out[k] = b[j];
		hb = j + 1 < nb ? lb[j + 1] : 0;
	}
}

/* Sorts v[0..n) (n <= FULL_SORT_MAX, keys sharing their first depth
 * bytes), setting lcp[i] for 0 < i < n. */
static void lcp_merge_sort(struct fg_folded_slot *v, size_t *lcp, size_t n, size_t depth)
{
	struct fg_folded_slot tmp[FULL_SORT_MAX];
	size_t tlcp[FULL_SORT_MAX], width, lo, i;

	for (lo = 0; lo < n; lo += LCP_SORT_MAX)
		lcp_insertion_sort(v + lo, lcp + lo, n - lo < LCP_SORT_MAX ? n - lo : LCP_SORT_MAX,
				   depth);
	for (width = LCP_SORT_MAX; width < n; width *= 2) {
		for (lo = 0; lo + width < n; lo += 2 * width) {
			size_t mid = lo + width, hi = mid + width < n ? mid + width : n;

			lcp_merge(v + lo, lcp + lo, width, v + mid, lcp + mid, hi - mid, tmp, tlcp,
				  depth);
			memcpy(v + lo, tmp, (hi - lo) * sizeof(*v));
			for (i = 1; i < hi - lo; i++)
				lcp[lo + i] = tlcp[i];
		}
	}
}

/* Sorted keys lie all over memory (a mapped file): asking for a range's
 * bytes before sorting it lets the loads overlap instead of waiting one
 * by one. */
static void prefetch_keys(const struct fg_folded_slot *w, size_t n, size_t depth)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = depth & ~(size_t)63; j < w[i].len && j < depth + 256; j += 64)
			__builtin_prefetch(w[i].key + j);
}

/* What keys a and b share, where sorting by the digit at depth put them
 * in different runs. */
static size_t shared_by_digits(const struct fg_folded_slot *a, const struct fg_folded_slot *b,
			       size_t depth)
{
	size_t m = a->len < b->len ? a->len : b->len, d;

	if (a->prefix != b->prefix)
		d = depth + (size_t)__builtin_clzll(a->prefix ^ b->prefix) / 8;
	else if (a->prefix2 != b->prefix2)
		d = depth + 8 + (size_t)__builtin_clzll(a->prefix2 ^ b->prefix2) / 8;
	else
		return m; /* one ends within the digit: a prefix of the other */
	return d < m ? d : m;
}

/* Whether the key before a range pushed at depth (its slots still hold
 * the digit that made it) is the range's shared prefix itself: that
 * key's last frame may end where the range's keys go on with ';', and
 * those keys then add to it, so the range must be sorted to tell them
 * apart. Any other key either shares less than depth bytes with the
 * range (a frame ending there holds all of the range) or belongs to it. */
static bool prefix_key_before(const struct fg_folded_slot *v, size_t start, size_t depth)
{
	return start > 0 && v[start - 1].len == depth && same_digit(&v[start - 1], &v[start]);
}

/* Sorts v[0..n) bytewise and sets lcp[i] to the bytes v[i - 1] and v[i]
 * share (lcp[0] = 0). With min > 0 (pruning: v[i].count set), a range
 * whose stacks have fewer than min samples together is left as it is and
 * its lcp[i] but the first set to FG_FOLDED_PRUNED: every prefix longer than the
 * one its stacks share has fewer samples than that, so nothing deeper in
 * it is drawn, and only what it adds up to matters. Small ranges are then
 * split by digits too, so that the parts below min are seen before their
 * long prefixes are read. */
static int msd_sort(struct fg_folded_slot *v, size_t *lcp, size_t n, double min,
		    bool first_digits)
{
	const bool prune = min > 0;
	const size_t full_max = prune ? LCP_SORT_MAX : FULL_SORT_MAX;
	struct range *work = NULL, r = { 0, n, 0, 0 };
	size_t nwork = 0, awork = 0, i, j;
	int err = 0;

	if (n)
		lcp[0] = 0;
	for (i = 0; prune && i < n; i++)
		r.total += v[i].count;
	for (;;) {
		struct fg_folded_slot *w = v + r.start;
		size_t *wl = lcp + r.start;

		if (prune && (double)r.total < min && !prefix_key_before(v, r.start, r.depth)) {
			for (i = 1; i < r.n; i++)
				wl[i] = FG_FOLDED_PRUNED;
		} else if (r.n <= full_max) {
			prefetch_keys(w, r.n, r.depth);
			lcp_merge_sort(w, wl, r.n, r.depth);
		} else {
			/* all keys here run past depth (shorter ones were placed);
			 * while the digits of all are the same, skip them and
			 * the rest of the prefix the keys share */
			for (;;) {
				bool same = true;

				/* the first round's digits may have been read
				 * with the lines (fg_folded_slot_digit) */
				const bool read = !first_digits;

				first_digits = false;
				for (i = 0; read && i < r.n && i < PREFETCH_KEYS; i++)
					__builtin_prefetch(w[i].key + r.depth);
				for (i = 0; i < r.n; i++) {
					if (read) {
						if (i + PREFETCH_KEYS < r.n)
							__builtin_prefetch(w[i + PREFETCH_KEYS].key +
									   r.depth);
						fg_folded_slot_digit(&w[i], r.depth);
					}
					same = same && same_digit(&w[i], &w[0]) &&
					       sort_len(&w[i], r.depth) == SIZE_MAX;
				}
				if (!same)
					break;
				r.depth += DIGIT;
				r.depth += common_from(w, r.n, r.depth);
			}
			radix_sort(w, r.n, r.depth);
			for (i = 0; i < r.n; i = j) {
				size_t run_len = sort_len(&w[i], r.depth);
				uint64_t total = prune ? w[i].count : 0;

				if (i)
					wl[i] = shared_by_digits(&w[i - 1], &w[i], r.depth);
				for (j = i + 1; j < r.n && same_digit(&w[j], &w[i]) &&
						sort_len(&w[j], r.depth) == run_len; j++) {
					wl[j] = run_len; /* equal keys; else set deeper */
					if (prune)
						total += w[j].count;
				}
				if (j - i < 2 || run_len != SIZE_MAX)
					continue;
				if (FG_ALLOC_GROW(work, nwork + 1, awork, 64)) {
					err = FG_ENOMEM;
					goto done;
				}
				work[nwork].start = r.start + i;
				work[nwork].n = j - i;
				work[nwork].depth = r.depth + DIGIT;
				work[nwork++].total = total;
			}
		}
		if (!nwork)
			break;
		r = work[--nwork];
	}
done:
	free(work);
	return err;
}

#undef less

int fg_folded_sort_slots(struct fg_folded_slot *v, size_t *lcp, size_t n)
{
	return msd_sort(v, lcp, n, 0, false);
}

int fg_folded_sort_pruned(struct fg_folded_slot *v, size_t *lcp, size_t n, double min,
			  bool first_digits)
{
	return msd_sort(v, lcp, n, min, first_digits);
}

int fg_folded_slot_limit(void)
{
	return fg_error_set(FG_ELIMIT, "a stack of 4 GiB or more, or 2^32 distinct stacks: "
			    "too many to sort — split the input");
}

int fg_folded_sort_stacks(const fg_folded *f, struct fg_folded_slot **out, size_t **lcp)
{
	/* readers merge gathered lines first (fg_folded_settled): then n is
	 * the records' */
	const size_t n = f->nloose + f->nrecs, alloc = n ? n : 1;
	struct fg_folded_slot *v = fg_calloc(alloc, sizeof(*v));
	size_t *shared = fg_malloc(alloc * sizeof(*shared));
	int err = FG_ENOMEM;

	*out = NULL;
	if (!v || !shared)
		goto fail;
	if (fg_folded_fill_slots(f, v, false)) {
		err = fg_folded_slot_limit();
		goto fail;
	}
	if (f->keys) /* settled stacks are in order already */
		memcpy(shared, f->shared, n * sizeof(*shared));
	else if (msd_sort(v, shared, n, 0, false))
		goto fail;
	if (lcp)
		*lcp = shared;
	else
		free(shared);
	*out = v;
	return 0;
fail:
	free(v);
	free(shared);
	return err;
}
