/* Whole user stacks from a sample's frame-pointer chain and a small
 * copy of its stack (see hybrid.h).
 *
 * Why the two are spliced where a return address meets: the kernel
 * walks the user stack from the sampled rbp, taking [fp + 8] as a
 * return address and [fp] as the next frame. Code built with frame
 * pointers keeps that walk right; code without them (the C library's
 * memcpy, strlen, qsort...) leaves rbp as its caller set it. A sample in
 * such a function, or in a prologue or epilogue, has an rbp that still
 * belongs to an outer frame, so the chain's first return address is
 * that outer frame's and the frames between (the direct caller of
 * memcpy) are missing from it; further in, a function without frame
 * pointers between two that have them hides its own frame the same
 * way. The CFI rules (.eh_frame) do not depend on rbp: unwound from the
 * sampled registers over the copy, they give every frame, for as long
 * as the copy holds the stack they read. The first of their return
 * addresses that is also in the chain is the point where both walks
 * describe the same frame: every frame within it came from the rules,
 * every frame beyond it is the chain's.
 *
 * Matching on the return address alone is exact as long as the chain
 * holds the true return addresses in order, some missing: if frame k
 * of the rules matches chain entry j wrongly, an inner frame i < k with
 * the same return address would be the true one of entry j, and its
 * match would have been found first, since the rules' frames are
 * searched innermost first. A frame pointer left holding something else
 * (a function that uses rbp as a general register) can make up an
 * entry, which a return address meets only by chance.
 *
 * The outermost frames (the C library's __libc_start_call_main,
 * __libc_start_main, _start, or a thread's start_thread and clone3) have
 * no frame pointers: the chain ends at the return address into them (the
 * frame of main or of the thread's function saved a frame pointer that
 * is 0 or anything). They do not change while the process runs that
 * program, and neither do the frames outside any function that is only
 * ever reached one way. So each stack the rules unwound whole (its copy
 * reached the outermost frame) teaches, for each of its return
 * addresses, the frames after it, per process; a return address after
 * which two whole stacks showed different frames is reached more than
 * one way, and teaches nothing. A later stack whose chain holds such an
 * address gets those frames after the last one (what the chain holds
 * after it, read through whatever the saved frame pointer held, is
 * dropped, as the rules stop there too); so does a stack whose copy
 * ended before the chain was met, after the outermost frame the rules
 * unwound that has them. */
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "flamegraph/error.h"
#include "lib/perfdata/hybrid.h"
#include "lib/perfdata/reader.h"
#include "util/banned.h"

void pd_chain_user(const unsigned char *chain, uint64_t nchain, uint64_t *fp, size_t max,
		   size_t *n)
{
	bool user = false;
	uint64_t i;

	*n = 0;
	for (i = 0; i < nchain && *n < max; i++) {
		uint64_t ip = pd_u64(chain + 8 * i);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (user)
				break;
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (user)
			fp[(*n)++] = ip;
	}
}

/* The chain from entry j on into out after *n frames, in pd_unwind's
 * form (return addresses minus one). */
static void add_chain(const uint64_t *fp, size_t nfp, size_t j, uint64_t *out, size_t max,
		      size_t *n)
{
	for (; j < nfp && *n < max; j++)
		out[(*n)++] = j ? fp[j] - 1 : fp[j];
}

int pd_hybrid_splice(const uint64_t *fp, size_t nfp, const uint64_t *cfi, size_t ncfi,
		     bool outermost, uint64_t *out, size_t max, size_t *n, size_t *at)
{
	size_t k, j, i;

	*n = 0;
	if (at)
		*at = 0;
	/* the rules unwound every frame: nothing to take from the chain
	 * (whose last entries may have been read through a frame pointer
	 * that held something else) */
	if (outermost && ncfi && cfi[ncfi - 1] != UINT64_MAX) {
		for (i = 0; i < ncfi && *n < max; i++)
			out[(*n)++] = cfi[i];
		return PD_SPLICE_WHOLE;
	}
	for (k = 1; k < ncfi && cfi[k] != UINT64_MAX; k++) {
		for (j = 1; j < nfp && fp[j] - 1 != cfi[k]; j++)
			;
		if (j == nfp)
			continue;
		for (i = 0; i <= k && *n < max; i++)
			out[(*n)++] = cfi[i];
		add_chain(fp, nfp, j + 1, out, max, n);
		if (at)
			*at = k;
		return PD_SPLICE_JOINED;
	}
	/* the copy ended first: the frames the rules found, then the chain
	 * after the sampled address. Its first return address is none of
	 * theirs, so it is beyond the last of them: a frame whose return
	 * address lay past the copy (a caller with large locals) is then
	 * followed by that caller's (its own rbp led the walk there); frames
	 * between the two that keep no frame pointer are missing, as they
	 * are from the chain alone. A chain of the sampled address alone
	 * (the walk found no frame) leaves the rules' frames, and where the
	 * copy ended. */
	for (i = 0; i < ncfi && cfi[i] != UINT64_MAX && *n < max; i++)
		out[(*n)++] = cfi[i];
	if (!*n)
		out[(*n)++] = fp[0];
	if (at)
		*at = *n - 1;
	if (nfp < 2 && i < ncfi && *n < max)
		out[(*n)++] = UINT64_MAX;
	add_chain(fp, nfp, 1, out, max, n);
	return PD_SPLICE_CUT;
}

static uint64_t outer_key(int32_t pid, uint64_t pc)
{
	return (pc * 0x9e3779b97f4a7c15u) ^ (uint64_t)(uint32_t)pid;
}

static struct pd_outer *outer_get(const pd_hybrid *h, int32_t pid, uint64_t pc)
{
	const uint64_t *i = pd_u64map_get(&h->index, outer_key(pid, pc));
	struct pd_outer *o = i ? &h->v[*i - 1] : NULL;

	return o && o->pid == pid && o->anchor == pc ? o : NULL;
}

/* Whether o's frames are s[k + 1 .. n). */
static bool same_outer(const pd_hybrid *h, const struct pd_outer *o, const uint64_t *s, size_t k,
		       size_t n)
{
	return o->n == n - k - 1 && !memcmp(h->pool + o->first, s + k + 1, o->n * sizeof(*s));
}

/* Keeps s[k + 1 .. n) as the frames after pc s[k] (k > 0) of pid's
 * stacks, those frames at *base in the pool (where s[1 .. n) is put
 * first when *base is SIZE_MAX). 0 or FG_ENOMEM. */
static int outer_put(pd_hybrid *h, int32_t pid, const uint64_t *s, size_t k, size_t n,
		     size_t *base)
{
	uint64_t *slot;
	struct pd_outer *o;

	if (*base == SIZE_MAX) {
		if (FG_ALLOC_GROW(h->pool, h->npool + n, h->apool, 256))
			return FG_ENOMEM;
		memcpy(h->pool + h->npool, s + 1, (n - 1) * sizeof(*s));
		*base = h->npool;
		h->npool += n - 1;
	}
	if (FG_ALLOC_GROW(h->v, h->nv + 1, h->av, 16) ||
	    pd_u64map_put(&h->index, outer_key(pid, s[k]), &slot))
		return FG_ENOMEM;
	if (*slot) {
		o = &h->v[*slot - 1];
		/* taken by another (pid, pc) still in use */
		if (o->anchor || o->pid)
			return 0;
	} else {
		o = &h->v[h->nv++];
		*slot = h->nv;
	}
	o->pid = pid;
	o->anchor = s[k];
	o->first = (uint32_t)(*base + k);
	o->n = (uint32_t)(n - k - 1);
	o->ambiguous = false;
	return 0;
}

/* The outer frames known after pid's return address pc: its own, or
 * those another process running the same code showed (outer_shared.c),
 * then kept as its own. NULL: none. */
static struct pd_outer *find_outer(pd_hybrid *h, int32_t pid, uint64_t pc)
{
	struct pd_outer *o = outer_get(h, pid, pc);
	uint64_t s[2 + 64];
	size_t n, base = SIZE_MAX;

	if (o || !h->machine ||
	    !pd_outer_shared_find(&h->shared, h->machine, pid, pc, s + 2, 64, &n))
		return o;
	s[0] = 0;
	s[1] = pc;
	return outer_put(h, pid, s, 1, n + 2, &base) ? NULL : outer_get(h, pid, pc);
}

/* From a whole stack s[0 .. n): for each of its return addresses, the
 * frames after it. Where a later stack shows others after the same
 * address, its outer frames depend on the path to it: it has none. */
/* pd_hybrid_learn's per-process part, for the return addresses s[1 ..
 * kmax] only. */
static int learn_upto(pd_hybrid *h, int32_t pid, const uint64_t *s, size_t n, size_t kmax)
{
	size_t k, base = SIZE_MAX;
	int err;

	if (n > UINT32_MAX || h->npool > UINT32_MAX - n)
		return 0;
	for (k = kmax < n ? kmax + 1 : n; k-- > 1;) {
		struct pd_outer *o = outer_get(h, pid, s[k]);
		if (o && !same_outer(h, o, s, k, n))
			o->ambiguous = true;
		else if (!o && (err = outer_put(h, pid, s, k, n, &base)))
			return err;
	}
	return 0;
}

int pd_hybrid_learn(pd_hybrid *h, int32_t pid, const uint64_t *s, size_t n)
{
	int err = learn_upto(h, pid, s, n, n);

	return !err && h->machine ? pd_outer_shared_learn(&h->shared, h->machine, pid, s, n) : err;
}

/* Appends to out[0 .. *n) (the chain's part from out[from] on) the
 * outermost frames known after the last of its return addresses that
 * has them, dropping what follows that address (read through a frame
 * pointer that held something else). Whether it did. */
static bool append_outer(pd_hybrid *h, int32_t pid, uint64_t *out, size_t from, size_t max,
			 size_t *n)
{
	const struct pd_outer *o = NULL;
	size_t i, k;

	for (i = *n; i-- > from;)
		if ((o = find_outer(h, pid, out[i])))
			break;
	if (!o || o->ambiguous)
		return false;
	*n = i + 1;
	for (k = 0; k < o->n && *n < max; k++)
		out[(*n)++] = h->pool[o->first + k];
	return true;
}

/* A sample whose copy ended before its frames met the chain: when one
 * of the frames the rules unwound has known outer frames (a whole stack
 * showed them, and none showed others), which go on as the frames
 * unwound after it do, its stack is the frames up to it and them (the
 * outermost such frame's). Whether it was. */
static bool complete_cut(pd_hybrid *h, int32_t pid, const uint64_t *cfi, size_t ncfi,
			 uint64_t *out, size_t max, size_t *n)
{
	const struct pd_outer *o = NULL;
	size_t i, k, known;

	if (ncfi < 3 || cfi[ncfi - 1] != UINT64_MAX)
		return false;
	known = ncfi - 1;
	for (k = known; k-- > 1;) {
		o = find_outer(h, pid, cfi[k]);
		if (o && !o->ambiguous && o->n >= known - k - 1 &&
		    !memcmp(h->pool + o->first, cfi + k + 1, (known - k - 1) * sizeof(*cfi)))
			break;
		o = NULL;
	}
	if (!o)
		return false;
	*n = 0;
	for (i = 0; i <= k && *n < max; i++)
		out[(*n)++] = cfi[i];
	for (i = 0; i < o->n && *n < max; i++)
		out[(*n)++] = h->pool[o->first + i];
	h->stats.completed++;
	h->stats.outer++;
	return true;
}

int pd_hybrid_stack(pd_hybrid *h, int32_t pid, const uint64_t *fp, size_t nfp, const uint64_t *cfi,
		    size_t ncfi, bool outermost, const uint64_t *reach, uint64_t used,
		    uint64_t *out, size_t max, size_t *n)
{
	size_t k;
	int how = pd_hybrid_splice(fp, nfp, cfi, ncfi, outermost, out, max, n, &k);

	/* a joined sample needed the copy up to the frame that met the chain */
	if (how == PD_SPLICE_JOINED && reach)
		used = reach[k];
	h->stats.samples++;
	h->last_needed = how == PD_SPLICE_CUT ? 0 : used;
	if (how != PD_SPLICE_CUT && used > h->stats.needed_max)
		h->stats.needed_max = used;
	if (how == PD_SPLICE_WHOLE) {
		h->stats.whole++;
		return pd_hybrid_learn(h, pid, out, *n);
	}
	if (how == PD_SPLICE_JOINED)
		h->stats.joined++;
	else if (complete_cut(h, pid, cfi, ncfi, out, max, n))
		return 0;
	else
		h->stats.cut++;
	/* the chain's part: after the last frame of the rules */
	if (!append_outer(h, pid, out, k + 1, max, n))
		return 0;
	h->stats.outer++;
	/* a joined stack made whole so is as sure as the chain: it teaches
	 * the outer frames of the frames the rules unwound, which a sample
	 * whose copy ends among them (the walk finding no frame: the C
	 * library using rbp for itself) is completed with */
	return how == PD_SPLICE_JOINED ? learn_upto(h, pid, out, *n, k) : 0;
}

void pd_hybrid_forget(pd_hybrid *h, int32_t pid)
{
	size_t i;

	for (i = 0; i < h->nv; i++)
		if (h->v[i].pid == pid) {
			h->v[i].pid = 0;
			h->v[i].anchor = 0;
		}
}

void pd_hybrid_release(pd_hybrid *h)
{
	pd_outer_shared_release(&h->shared);
	pd_u64map_release(&h->index);
	free(h->v);
	free(h->pool);
	memset(h, 0, sizeof(*h));
}

void pd_hybrid_reader_stats(const fg_perfdata *r, pd_hybrid_stats *out, uint64_t *last_needed)
{
	*out = r->hybrid.stats;
	if (last_needed)
		*last_needed = r->hybrid.last_needed;
}

void fg_perfdata_hybrid_counts(const fg_perfdata *r, uint64_t *samples, uint64_t *cut)
{
	*samples = r->hybrid.stats.samples;
	*cut = r->hybrid.stats.cut;
}

void pd_check_attach(fg_perfdata *r, pd_check *check)
{
	r->check = check;
	for (size_t i = 0; i < check->nsizes; i++)
		check->sizes[i].h.machine = &r->machine;
	/* the frame-pointer walk reads the whole copy: keep it with its
	 * sample (fetch.c) */
	r->eager = 65536;
}

void pd_check_release(pd_check *check)
{
	size_t i;

	for (i = 0; i < check->nsizes; i++)
		pd_hybrid_release(&check->sizes[i].h);
	pd_u64map_release(&check->threads);
}
