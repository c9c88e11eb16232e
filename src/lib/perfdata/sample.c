/* The SAMPLE records: their fields as the attributes' sample format
 * lays them out, the time of any record (for the queue), and the frames
 * of a sample (its frame-pointer call chain, or with dwarf call graphs
 * the kernel part of it and the user frames unwound from its registers
 * and stack copy), symbolized and handed to the caller. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flamegraph/error.h"
#include "lib/perfdata/reader.h"
#include "util/banned.h"

/* The attribute whose sample format lays out a record: with several
 * formats, that of the id the record holds where all formats have it (a
 * sample: its first len bytes at rec, as far as they go; another record:
 * its trailer). NULL: no such id in the recording, or none in those
 * bytes. */
static const struct pd_attr *format_of(const fg_perfdata *r, const unsigned char *rec, size_t len,
				       uint32_t type)
{
	const uint64_t *i;
	size_t at;

	if (!r->formats)
		return r->attrs;
	if (type == PERF_RECORD_SAMPLE) {
		at = 8 + 8 * (size_t)r->id_pos;
		if (len < at + 8)
			return NULL;
	} else {
		if (len < 8 + 8 * (size_t)r->is_pos)
			return NULL;
		at = len - 8 * (size_t)r->is_pos;
	}
	i = pd_u64map_get(&r->attr_ids, pd_u64(rec + at));
	return i ? &r->attrs[*i] : NULL;
}

/* The sample fields this reader uses, from a SAMPLE record. */
struct sample {
	uint64_t ip, time, id, period;
	int32_t pid, tid;
	const unsigned char *chain;
	uint64_t nchain;
	bool has_id;
	uint64_t abi;             /* of the user registers: 0 none */
	const unsigned char *regs; /* one u64 per bit of regs_user */
	const unsigned char *stack;
	uint64_t stack_size;      /* the stack copy's size */
	uint64_t stack_len;       /* the valid part of the stack copy */
	uint64_t stack_full;      /* with the part left in the file (at
				     stack_at): 0, none left */
	uint64_t stack_at;
	const unsigned char *raw;  /* PERF_SAMPLE_RAW's data, or NULL */
	uint32_t raw_len;
};

/* PERF_SAMPLE_REGS_USER (abi, then one u64 per register of the mask
 * unless the abi is none) and PERF_SAMPLE_STACK_USER (size, the copy,
 * then the size used when it is not 0), from p on. */
static int parse_user_state(const fg_perfdata *r, const struct pd_attr *f, const struct recpos *at,
			    const unsigned char *p, const unsigned char *end, struct sample *s)
{
	uint64_t size, dyn;

	if (!f->dwarf)
		return 0;
	if (end - p < 8)
		return pd_bad_at(r, at, "sample record ends before its user registers");
	s->abi = pd_u64(p);
	p += 8;
	if (s->abi) {
		size_t n = (size_t)__builtin_popcountll(f->regs_user);
		if ((size_t)(end - p) / 8 < n)
			return pd_bad_at(r, at, "user registers longer than their record");
		s->regs = p;
		p += 8 * n;
	}
	if (end - p < 8)
		return pd_bad_at(r, at, "sample record ends before its user stack");
	size = pd_u64(p);
	p += 8;
	if (!size)
		return 0;
	if (size > (uint64_t)(end - p) || (uint64_t)(end - p) - size < 8)
		return pd_bad_at(r, at, "user stack longer than its record");
	s->stack = p;
	s->stack_size = size;
	dyn = pd_u64(p + size);
	s->stack_len = dyn < size ? dyn : size;
	if (at->stack_in_file && dyn > size) {
		s->stack_full = dyn;
		s->stack_at = at->off + (uint64_t)(p - at->p);
	}
	return 0;
}

/* The fields of a sample of format f before its user registers, from
 * at->p up to end; *rest: where the registers start. */
static int parse_front(const fg_perfdata *r, const struct pd_attr *f, const struct recpos *at,
		       const unsigned char *end, struct sample *s, const unsigned char **rest)
{
	const unsigned char *p = at->p + 8;
	uint64_t t = f->sample_type;

	memset(s, 0, sizeof(*s));
#define NEED(n) do { if ((size_t)(end - p) < (n)) return pd_bad_at(r, at, "sample record shorter than its fields"); } while (0)
	if (t & PERF_SAMPLE_IDENTIFIER) {
		NEED(8);
		s->id = pd_u64(p);
		s->has_id = true;
		p += 8;
	}
	if (t & PERF_SAMPLE_IP) {
		NEED(8);
		s->ip = pd_u64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_TID) {
		NEED(8);
		s->pid = (int32_t)pd_u32(p);
		s->tid = (int32_t)pd_u32(p + 4);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		NEED(8);
		s->time = pd_u64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_ADDR) {
		NEED(8);
		p += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		NEED(8);
		s->id = pd_u64(p);
		s->has_id = true;
		p += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		NEED(8);
		p += 8;
	}
	if (t & PERF_SAMPLE_CPU) {
		NEED(8);
		p += 8;
	}
	if (t & PERF_SAMPLE_PERIOD) {
		NEED(8);
		s->period = pd_u64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		s->nchain = pd_u64(p);
		p += 8;
		if (s->nchain > (uint64_t)(end - p) / 8)
			return pd_bad_at(r, at, "call chain longer than its record");
		s->chain = p;
		p += s->nchain * 8;
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t raw;
		NEED(4);
		raw = pd_u32(p);
		p += 4;
		NEED(raw);
		s->raw = p;
		s->raw_len = raw;
		p += raw;
	}
#undef NEED
	*rest = p;
	return 0;
}

static int parse_sample(const fg_perfdata *r, const struct pd_attr *f, const struct recpos *at,
			uint16_t size, struct sample *s)
{
	const unsigned char *p;
	int err = parse_front(r, f, at, at->p + size, s, &p);

	return err ? err : parse_user_state(r, f, at, p, at->p + size, s);
}

size_t pd_stack_size_at(const fg_perfdata *r, const unsigned char *rec, size_t len)
{
	struct recpos at = { rec, 0, NULL, false };
	const unsigned char *p, *end = rec + len;
	const struct pd_attr *f = format_of(r, rec, len, PERF_RECORD_SAMPLE);
	struct sample s;
	uint64_t abi;

	if (!f || !f->dwarf || parse_front(r, f, &at, end, &s, &p))
		return 0;
	if (end - p < 8)
		return 0;
	abi = pd_u64(p);
	p += 8;
	if (abi) {
		size_t n = (size_t)__builtin_popcountll(f->regs_user);
		if ((size_t)(end - p) / 8 < n)
			return 0;
		p += 8 * n;
	}
	return end - p < 8 ? 0 : (size_t)(p - rec);
}

/* The event of a sample of the one format several events share: that
 * of its id (the first when it has none, or one not known). */
static const struct pd_attr *attr_of(const fg_perfdata *r, const struct sample *s)
{
	const uint64_t *i;

	if (r->nattrs == 1 || !s->has_id)
		return &r->attrs[0];
	i = pd_u64map_get(&r->attr_ids, s->id);
	return i ? &r->attrs[*i] : &r->attrs[0];
}

static int add_frames(fg_perfdata *r, const fg_perfdata_frame *fs, size_t n)
{
	fg_perfdata_frame *to;
	size_t i;

	if (FG_ALLOC_GROW(r->frames, r->nframes + n, r->aframes, 64))
		return FG_ENOMEM;
	/* one frame or a few: copied in place rather than by a call */
	to = r->frames + r->nframes;
	for (i = 0; i < n; i++)
		to[i] = fs[i];
	r->nframes += n;
	return 0;
}

/* The frames an address resolved to, kept for the next samples that
 * have it (most share theirs): a slot of r->addrs (open addressing, a
 * power of 2 of them, at most half full), keyed by the process (0 for
 * the kernel's addresses), the address and its context; the frames are
 * those of its module's pool. A user address's slot holds while the
 * machine's maps stay as they were (the map search it saves could give
 * another module after they change). */
#define ADDR_MAX ((size_t)1 << 18)

struct pd_addr_slot {
	uint64_t ip, epoch;
	pd_module *mod;           /* NULL: a free slot */
	int32_t pid;
	bool kernel;
	uint32_t first, n;
};

static size_t addr_hash(int32_t pid, uint64_t ip)
{
	uint64_t h = (ip ^ (uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15u) * 0xff51afd7ed558ccdu;

	return (size_t)(h ^ h >> 32);
}

/* The slot of (pid, ip, kernel): its own, or the free one it would take
 * (the table has one). */
static struct pd_addr_slot *addr_slot(fg_perfdata *r, int32_t pid, uint64_t ip, bool kernel)
{
	size_t mask = r->aaddrs - 1, k;

	for (k = addr_hash(pid, ip) & mask; r->addrs[k].mod; k = (k + 1) & mask)
		if (r->addrs[k].ip == ip && r->addrs[k].pid == pid && r->addrs[k].kernel == kernel)
			break;
	return &r->addrs[k];
}

/* Room for one more slot: 0 or FG_ENOMEM. The table is a cache: at
 * ADDR_MAX slots (a recording of many processes keys each one's
 * addresses apart) it is emptied rather than grown. */
static int addr_room(fg_perfdata *r)
{
	struct pd_addr_slot *old = r->addrs;
	size_t n = r->aaddrs, i;

	if ((r->naddrs + 1) * 2 <= n)
		return 0;
	if (n >= ADDR_MAX) {
		memset(r->addrs, 0, n * sizeof(*r->addrs));
		r->naddrs = 0;
		return 0;
	}
	if (!(r->addrs = fg_calloc(n ? n * 2 : 4096, sizeof(*r->addrs)))) {
		r->addrs = old;
		return FG_ENOMEM;
	}
	r->aaddrs = n ? n * 2 : 4096;
	for (i = 0; i < n; i++)
		if (old[i].mod)
			*addr_slot(r, old[i].pid, old[i].ip, old[i].kernel) = old[i];
	free(old);
	return 0;
}

/* Appends the frames of one address, in the context (user or kernel)
 * its call chain marker gave. */
static int add_address(fg_perfdata *r, int32_t pid, uint64_t ip, bool kernel)
{
	const fg_perfdata_frame *fs;
	fg_perfdata_frame unknown = { .addr = ip, .kernel = kernel };
	const struct pd_map *map;
	struct pd_addr_slot *slot = NULL;
	int32_t key = kernel ? 0 : pid;
	pd_module *mod;
	size_t n;
	int err;

	if (r->aaddrs) {
		slot = addr_slot(r, key, ip, kernel);
		if (slot->mod && (kernel || slot->epoch == r->machine.epoch))
			return add_frames(r, slot->mod->pool + slot->first, slot->n);
	}
	if (kernel) {
		mod = &r->syms.kernel;
		if ((err = pd_symbols_resolve(&r->syms, mod, ip, &fs, &n)))
			return err;
	} else {
		map = pd_machine_find_map(&r->machine, pid, ip);
		if (!map || !(mod = map->mod))
			return add_frames(r, &unknown, 1);
		if ((err = pd_symbols_resolve(&r->syms, mod,
					      mod->kernel || mod->anon ? ip :
					      ip - map->start + map->pgoff, &fs, &n)))
			return err;
	}
	if (!slot || !slot->mod) {
		if ((err = addr_room(r)))
			return err;
		slot = addr_slot(r, key, ip, kernel);
		r->naddrs++;
	}
	slot->ip = ip;
	slot->pid = key;
	slot->kernel = kernel;
	slot->epoch = r->machine.epoch;
	slot->mod = mod;
	slot->first = (uint32_t)(fs - mod->pool);
	slot->n = (uint32_t)n;
	return add_frames(r, fs, n);
}

/* The frames of a frame-pointer call chain; with dwarf call graphs,
 * only its kernel part (the user part is unwound instead). *depth gets
 * how many addresses were taken. */
static int chain_frames(fg_perfdata *r, const struct sample *s, bool dwarf, uint64_t *depth)
{
	bool kernel = false;
	uint64_t i;
	int err;

	*depth = 0;
	for (i = 0; i < s->nchain && *depth < MAX_STACK; i++) {
		uint64_t ip = pd_u64(s->chain + 8 * i);
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (dwarf && !kernel)
			break;
		/* with lines, a caller's is that of its call, just before the
		 * return address the chain holds (as the unwinder does) */
		if (r->opts.lines && !kernel && *depth)
			ip--;
		++*depth;
		if ((err = add_address(r, s->pid, ip, kernel)))
			return err;
	}
	return 0;
}

static int more_stack(void *ctx, uint64_t off, size_t len, unsigned char *dst)
{
	return pd_fetch_more(ctx, off, len, dst);
}

/* The user state of a sample (its registers of mask, its copy's first
 * len bytes; with those left in the file when len is all of it) in st. */
static void user_state(fg_perfdata *r, const struct pd_attr *f, const struct sample *s,
		       uint64_t mask, uint64_t len, struct pd_user_state *st)
{
	size_t i, k = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < PD_NREGS; i++)
		if (f->regs_user >> i & 1) {
			uint64_t v = pd_u64(s->regs + 8 * k++);
			if (mask >> i & 1)
				st->regs[i] = v;
		}
	st->mask = f->regs_user & mask;
	st->stack = s->stack;
	st->stack_len = len < s->stack_len ? len : s->stack_len;
	if (s->stack_full && len >= s->stack_full) {
		st->stack_full = s->stack_full;
		st->at = s->stack_at;
		st->more = more_stack;
		st->more_ctx = r;
	}
}

static int unwinder(fg_perfdata *r)
{
	return r->unwinder ? 0 : pd_unwinder_new(&r->unwinder, &r->syms, &r->machine);
}

/* The kernel's frame-pointer walk of a user stack, done over its copy
 * (the checks of hybrid.h): the sampled address, then from the sampled
 * rbp on, the return address at fp + 8 and the next frame at fp, while
 * the frame is in the copy (the kernel reads on while the memory can be
 * read). */
static size_t fp_walk(const struct pd_user_state *st, uint64_t *fp, size_t max)
{
	uint64_t bp = st->regs[PD_REG_BP], sp = st->regs[PD_REG_SP];
	size_t n = 0;

	fp[n++] = st->regs[PD_REG_IP];
	while (n < max && bp && bp >= sp && st->stack_len >= 16 && bp - sp <= st->stack_len - 16) {
		fp[n++] = pd_u64(st->stack + (bp - sp) + 8);
		bp = pd_u64(st->stack + (bp - sp));
	}
	return n;
}

/* The bytes a sample of this chain and copy size takes: its record with
 * the copy and registers the emulated one has, and the chain's user part
 * (PERF_CONTEXT_USER and its addresses). */
static uint64_t emulated_bytes(const struct pd_attr *f, const struct sample *s, uint16_t size,
			       uint64_t regs, uint64_t copy, size_t nfp)
{
	int dropped = __builtin_popcountll(f->regs_user) - __builtin_popcountll(f->regs_user & regs);

	return size - s->stack_size + ((copy + 7) & ~(uint64_t)7) - 8 * (uint64_t)dropped +
	       8 * (1 + (uint64_t)nfp);
}

/* Whether the hybrid stack h[0 .. nh) is the stack d[0 .. nd) unwound
 * from the whole copy; where that copy was too small (its last frame
 * unknown), whether it starts with d's known frames. */
static bool same_stack(const uint64_t *h, size_t nh, const uint64_t *d, size_t nd)
{
	if (nd && d[nd - 1] == UINT64_MAX)
		return nh >= nd - 1 && !memcmp(h, d, (nd - 1) * sizeof(*d));
	return nh == nd && !memcmp(h, d, nd * sizeof(*d));
}

/* Whether the emulated recorder takes a whole sample of the sample's
 * thread after this one (pd_check.whole_every). */
static int whole_due(pd_check *c, int32_t tid, bool *due)
{
	uint64_t *seen;

	*due = false;
	if (!c->whole_every)
		return 0;
	if (pd_u64map_put(&c->threads, (uint64_t)(uint32_t)tid, &seen))
		return FG_ENOMEM;
	++*seen;
	*due = *seen == c->whole_first ||
	       (*seen > c->whole_first && (*seen - c->whole_first) % c->whole_every == 0);
	return 0;
}

/* The recorder's growth of the copy (PD_GROW_*), after this sample of
 * state st, taken with copy bytes. */
static void grow_count(pd_check_size *z, const struct pd_user_state *st, uint64_t copy)
{
	uint64_t bp = st->regs[PD_REG_BP], sp = st->regs[PD_REG_SP];

	if (z->grown || z->bytes >= PD_GROWN_STACK)
		return;
	z->seen++;
	if (bp > sp && bp - sp + 16 > copy && bp - sp < ((uint64_t)8 << 20))
		z->short_seen++;
	z->grown = z->seen >= PD_GROW_AFTER && z->short_seen >= PD_GROW_MIN &&
		   z->short_seen * PD_GROW_SHARE > z->seen;
}

/* Emulates the sample as hybrid ones of each size of r->check, and
 * counts how many give the stack d[0 .. nd) of its whole copy. */
static int check_sample(fg_perfdata *r, const struct pd_attr *f, const struct sample *s,
			uint16_t size, const uint64_t *d, size_t nd, size_t max)
{
	pd_check *c = r->check;
	struct pd_user_state st;
	uint64_t out[MAX_STACK];
	bool whole, d_whole = nd && d[nd - 1] != UINT64_MAX && pd_unwind_outermost(r->unwinder);
	size_t nfp, ncfi, n, i;
	int err;

	if ((err = whole_due(c, s->tid, &whole)))
		return err;
	user_state(r, f, s, UINT64_MAX, s->stack_len, &st);
	nfp = fp_walk(&st, r->fp, max);
	c->dwarf_bytes += size;
	if (nd && d[nd - 1] == UINT64_MAX)
		c->dwarf_cut++;
	for (i = 0; i < c->nsizes; i++) {
		pd_check_size *z = &c->sizes[i];
		uint64_t copy = z->grown && z->bytes < PD_GROWN_STACK ? PD_GROWN_STACK : z->bytes;
		user_state(r, f, s, c->regs, copy, &st);
		if (!c->no_grow)
			grow_count(z, &st, copy);
		st.reach = r->reach;
		r->reach[0] = 0;
		if ((err = pd_unwind(r->unwinder, s->pid, s->tid, &st, r->cfi, max, &ncfi)) ||
		    (err = pd_hybrid_stack(&z->h, s->pid, r->fp, nfp, r->cfi, ncfi,
					   pd_unwind_outermost(r->unwinder), r->reach,
					   pd_unwind_used(r->unwinder), out, max, &n)))
			return err;
		z->samples++;
		z->record_bytes += emulated_bytes(f, s, size, c->regs, copy, nfp);
		z->weight += s->period;
		if (same_stack(out, n, d, nd))
			z->equal += s->period;
		/* the second event's sample: every register, no user chain */
		if (whole) {
			z->record_bytes += size - s->stack_size + c->whole_bytes;
			if (d_whole && (err = pd_hybrid_learn(&z->h, s->pid, d, nd)))
				return err;
		}
	}
	return 0;
}

/* The user frames of a dwarf call graph sample: unwound from its
 * registers and stack copy. */
static int unwound_frames(fg_perfdata *r, const struct pd_attr *f, const struct sample *s,
			  uint16_t size, uint64_t depth)
{
	struct pd_user_state st;
	size_t i, n;
	int err;

	/* no user state: a kernel thread, or a 32-bit process; no stack
	 * copy (the kernel could not read it, as in an execve that replaced
	 * the memory): no user frames at all, as perf gives none */
	if (s->abi != PERF_SAMPLE_REGS_ABI_64 || !s->regs || !s->stack_len)
		return 0;
	user_state(r, f, s, UINT64_MAX, UINT64_MAX, &st);
	if ((err = unwinder(r)) ||
	    (err = pd_unwind(r->unwinder, s->pid, s->tid, &st, r->pcs, MAX_STACK - depth, &n)))
		return err;
	if (r->fd >= 0 && !r->check)
		pd_fetch_note_stack(r, pd_unwind_used(r->unwinder));
	if (r->check && (err = check_sample(r, f, s, size, r->pcs, n, MAX_STACK - depth)))
		return err;
	if (r->hybrid_chains && pd_unwind_outermost(r->unwinder) && n &&
	    r->pcs[n - 1] != UINT64_MAX && (err = pd_hybrid_learn(&r->hybrid, s->pid, r->pcs, n)))
		return err;
	for (i = 0; i < n; i++)
		if ((err = add_address(r, s->pid, r->pcs[i], false)))
			return err;
	return 0;
}

/* The user frames of a sample with a frame-pointer chain, registers and
 * a small stack copy (hybrid.c): the frames its copy gives by the CFI
 * rules, joined to its chain. */
static int hybrid_frames(fg_perfdata *r, const struct pd_attr *f, const struct sample *s,
			 const uint64_t *fp, size_t nfp, uint64_t depth)
{
	struct pd_user_state st;
	size_t i, ncfi, n;
	int err;

	user_state(r, f, s, UINT64_MAX, UINT64_MAX, &st);
	st.reach = r->reach;
	r->reach[0] = 0;
	if ((err = unwinder(r)) ||
	    (err = pd_unwind(r->unwinder, s->pid, s->tid, &st, r->cfi, MAX_STACK - depth, &ncfi)))
		return err;
	if (r->fd >= 0)
		pd_fetch_note_stack(r, pd_unwind_used(r->unwinder));
	if ((err = pd_hybrid_stack(&r->hybrid, s->pid, fp, nfp, r->cfi, ncfi,
				   pd_unwind_outermost(r->unwinder), r->reach,
				   pd_unwind_used(r->unwinder), r->pcs, MAX_STACK - depth, &n)))
		return err;
	for (i = 0; i < n; i++)
		if ((err = add_address(r, s->pid, r->pcs[i], false)))
			return err;
	return 0;
}

/* The user frames of a sample of format f (dwarf: registers and a stack
 * copy) after depth kernel frames: a sample that also has the user part
 * of its chain is a hybrid one. */
static int user_frames(fg_perfdata *r, const struct pd_attr *f, const struct sample *s,
		       uint16_t size, uint64_t depth)
{
	size_t nfp = 0, i;
	int err;

	/* perf's dwarf call graphs exclude the user part of the chain */
	if (f->user_chain && s->chain && depth < MAX_STACK)
		pd_chain_user(s->chain, s->nchain, r->fp, MAX_STACK - depth, &nfp);
	if (!nfp)
		return unwound_frames(r, f, s, size, depth);
	if (s->abi == PERF_SAMPLE_REGS_ABI_64 && s->regs && s->stack_len)
		return hybrid_frames(r, f, s, r->fp, nfp, depth);
	/* no copy to unwind: the chain as it is */
	for (i = 0; i < nfp; i++)
		if ((err = add_address(r, s->pid, i ? r->fp[i] - 1 : r->fp[i], false)))
			return err;
	return 0;
}

int pd_do_sample(fg_perfdata *r, const struct recpos *at, uint16_t size, uint16_t misc,
		     fg_perfdata_sample_cb cb, void *ctx)
{
	struct sample s;
	const struct pd_attr *f = format_of(r, at->p, size, PERF_RECORD_SAMPLE), *attr;
	fg_perfdata_sample out;
	pd_thread *t;
	int err;

	/* of an event the recording does not list: perf skips it too */
	if (!f) {
		r->stats.skipped++;
		return 0;
	}
	if ((err = parse_sample(r, f, at, size, &s)))
		return err;
	attr = r->formats ? f : attr_of(r, &s);
	if (!(t = pd_machine_thread(&r->machine, s.pid, s.tid)))
		return FG_ENOMEM;
	if ((r->opts.from_exec || (r->opts.from_exec_if_held && r->held_launch)) && r->comm_exec) {
		const pd_proc *proc = pd_machine_proc(&r->machine, s.pid);
		if (!proc)
			return FG_ENOMEM;
		if (!proc->execd) {
			r->stats.before_exec++;
			return 0;
		}
	}
	r->nframes = 0;
	if (f->dwarf) {
		uint64_t depth = 0;
		if ((s.chain && (err = chain_frames(r, &s, true, &depth))) ||
		    (err = user_frames(r, f, &s, size, depth)))
			return err;
	} else if (s.chain) {
		uint64_t depth;
		if ((err = chain_frames(r, &s, false, &depth)))
			return err;
	} else if ((err = add_address(r, s.pid, s.ip,
				      (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL))) {
		return err;
	}
	/* beside hybrid samples, one with a whole copy and no user chain
	 * is a recorder's rare sample for the outermost frames (learnt
	 * above), at a rate of its own: not part of the profile */
	if (r->hybrid_chains && f->dwarf && !f->user_chain)
		return 0;
	memset(&out, 0, sizeof(out));
	if (t->comm) {
		out.comm = t->comm;
	} else {
		snprintf(r->comm_buf, sizeof(r->comm_buf), ":%d", (int)s.tid);
		out.comm = r->comm_buf;
	}
	out.pid = s.pid;
	out.tid = s.tid;
	out.time = s.time;
	out.period = (f->sample_type & PERF_SAMPLE_PERIOD) ? s.period : attr->sample_period;
	out.event = attr->name ? attr->name : "event";
	out.frames = r->frames;
	out.nframes = r->nframes;
	r->stats.samples++;
	if (r->offcpu)
		return pd_offcpu_sample(r, attr, s.raw, s.raw_len, &out);
	return cb(ctx, &out);
}

/* The time of a record (0 when it carries none). */
int pd_record_time(const fg_perfdata *r, const struct recpos *at, uint32_t type, uint16_t size,
		       uint64_t *time)
{
	const struct pd_attr *f;

	*time = 0;
	if (!r->timed)
		return 0;
	/* the trailers' time is at one place when their layouts agree */
	f = type == PERF_RECORD_SAMPLE || r->trailers ? format_of(r, at->p, size, type) : r->attrs;
	if (!f)
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		struct sample s;
		int err;
		if (!(f->sample_type & PERF_SAMPLE_TIME))
			return 0;
		if ((err = parse_sample(r, f, at, size, &s)))
			return err;
		*time = s.time;
	} else if (f->time_back && f->time_back <= (size_t)size - 8) {
		*time = pd_u64(at->p + size - f->time_back);
	}
	return 0;
}
