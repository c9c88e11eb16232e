/* Whole user stacks from frame-pointer call chains and small stack
 * copies (hybrid.c): samples that carry the kernel's frame-pointer walk
 * of the user stack (PERF_SAMPLE_CALLCHAIN with its user part), the
 * user registers and a stack copy of a few kilobytes. The frames
 * nearest the sample are unwound with the CFI rules over the copy,
 * until one meets the frame-pointer chain; the chain gives the rest,
 * and the frames beyond its end (the C library's start of the program
 * or of the thread, which have no frame pointers) are appended from
 * what an earlier sample of the process found there. */
#ifndef FG_LIB_PERFDATA_HYBRID_H
#define FG_LIB_PERFDATA_HYBRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/perfdata/internal.h"

/* The user stack copy a recorder asks for with such samples
 * (perf_event_attr.sample_stack_user), in bytes: the largest whose
 * sample (header, fields, three registers, the copy, the call chain)
 * stays within 2 KB. From bench/bench-hybrid.sh, which emulates these
 * samples from dwarf recordings with 64 KB copies (997 Hz, 1 s) and
 * compares their stacks, the share of the samples' weight whose stacks
 * were those of the 64 KB copies, by copy size (bytes a sample):
 *
 *   copy   lz4 -b1        libc_hot       threads        lzpack
 *    512    0.0% (686)    56.8% (655)    99.7% (649)    80.7% (655)
 *   1024    0.0% (1198)   56.8% (1167)  100.0% (1161)   85.4% (1167)
 *   1536  100.0% (1710)  100.0% (1679)  100.0% (1673)   94.4% (1679)
 *   1792  100.0% (1966)  100.0% (1935)  100.0% (1929)   97.9% (1935)
 *   2048  100.0% (2222)  100.0% (2191)  100.0% (2185)   99.4% (2191)
 *   4096  100.0% (4270)  100.0% (4239)  100.0% (4233)  100.0% (4239)
 *
 * (lz4's main thread below 1536 bytes: no copy ever reached its
 * outermost frames, which a thread's first sample with a whole copy
 * would teach: 99.8% at 512 bytes then; libc_hot: qsort's stack buffer
 * (800 bytes) under the frames of msort, which keeps no frame pointer;
 * with 1000-byte buffers 1792 bytes gave 99.7%; lzpack: snprintf's 2.5
 * KB of frames while it makes its corpus, at its start.) A recorder that sees samples cut
 * (pd_hybrid_stats.cut) grows the copy of that process. */
#define FG_HYBRID_STACK_DEFAULT 1792

/* The user registers such samples need (sample_regs_user, perf's x86_64
 * numbers): the frame pointer, stack pointer and instruction pointer.
 * The CFI rules of the innermost frames define their frames from these
 * and restore the rest from the stack. */
#define FG_HYBRID_REGS_USER ((uint64_t)1 << PD_REG_BP | (uint64_t)1 << PD_REG_SP | \
			     (uint64_t)1 << PD_REG_IP)

/* How a sample's stack was made (pd_hybrid_splice). */
enum pd_splice {
	PD_SPLICE_WHOLE,  /* the CFI rules reached the outermost frame within
			     the copy: their frames are the stack */
	PD_SPLICE_JOINED, /* a frame unwound by the rules met the chain */
	PD_SPLICE_CUT,    /* the copy ended first: the chain alone */
};

typedef struct pd_hybrid_stats {
	uint64_t samples; /* samples with a user chain and a stack copy */
	uint64_t whole;   /* of them, unwound to the outermost frame by the rules */
	uint64_t joined;  /* joined to the chain */
	uint64_t completed; /* the copy ended before the chain was met, at a
			       frame whose outer frames were known */
	uint64_t cut;     /* the chain alone: the copy was too small */
	uint64_t outer;   /* given the outermost frames an earlier sample found */
	uint64_t needed_max; /* the most bytes of its copy a joined or whole
				sample needed */
} pd_hybrid_stats;

/* The outermost frames of a process' stacks after one of their return
 * addresses, as a whole stack showed them. */
struct pd_outer {
	int32_t pid;
	uint64_t anchor;          /* the return address minus one */
	uint32_t first, n;        /* the frames after it: pool[first ..] */
	bool ambiguous;           /* stacks showed different frames after it */
};

/* The hybrid unwinding's state: outermost frames found per process. */
typedef struct pd_hybrid {
	pd_u64map index;          /* mix of (pid, anchor) -> 1 + entry */
	struct pd_outer *v;
	size_t nv, av;
	uint64_t *pool;
	size_t npool, apool;
	pd_hybrid_stats stats;
	uint64_t last_needed;     /* bytes the last sample needed (0: cut) */
} pd_hybrid;

void pd_hybrid_release(pd_hybrid *h);

/* The user part of a call chain: fp[0] the sampled address, then the
 * return addresses the kernel found by following the frame pointers,
 * up to the next context marker or the end (PERF_CONTEXT_USER's
 * entries). *n 0: the chain has no user part. */
void pd_chain_user(const unsigned char *chain, uint64_t nchain, uint64_t *fp, size_t max,
		   size_t *n);

/* Splices the frames cfi[0 .. ncfi) unwound by the CFI rules (the
 * sampled address, then callers' return addresses minus one, as
 * pd_unwind gives them; UINT64_MAX where the copy ended), which reached
 * the outermost frame when outermost, with the chain fp[0 .. nfp) (as
 * pd_chain_user gives it) into out[0 .. *n) (at most max, in pd_unwind's
 * form): the frames of the rules up to the first, k, whose return
 * address is an entry j of the chain, then the chain's entries after j.
 * *at (may be NULL) gets k. When the copy ends first, the rules' frames
 * then the chain after its sampled address (*at: the last of theirs).
 * Returns how (enum pd_splice). */
int pd_hybrid_splice(const uint64_t *fp, size_t nfp, const uint64_t *cfi, size_t ncfi,
		     bool outermost, uint64_t *out, size_t max, size_t *n, size_t *at);

/* The stack of a sample of pid made from its chain fp and the frames its
 * copy gave (cfi, outermost: as pd_hybrid_splice) into out: spliced,
 * then, unless whole, given the outermost frames found for the chain's
 * last return address; a whole stack teaches them. Counts it in
 * h->stats (reach: as pd_user_state's, or NULL; used: the bytes of the
 * copy the rules read). 0 or FG_ENOMEM. */
int pd_hybrid_stack(pd_hybrid *h, int32_t pid, const uint64_t *fp, size_t nfp, const uint64_t *cfi,
		    size_t ncfi, bool outermost, const uint64_t *reach, uint64_t used,
		    uint64_t *out, size_t max, size_t *n);

/* Learns the outermost frames of pid's stacks from a whole stack s[0 ..
 * n) (pd_unwind's form, unwound to the outermost frame): a sample with
 * a large copy, of another event or taken by the recorder for that. 0
 * or FG_ENOMEM. */
int pd_hybrid_learn(pd_hybrid *h, int32_t pid, const uint64_t *s, size_t n);

/* Drops what was found for process pid (it exited or exec'd). */
void pd_hybrid_forget(pd_hybrid *h, int32_t pid);

/* The counters of the samples read so far, and how many bytes of its
 * copy the last sample needed to meet its chain (0: the copy was too
 * small; a recorder then grows the copy of that process). */
void pd_hybrid_reader_stats(const fg_perfdata *r, pd_hybrid_stats *out, uint64_t *last_needed);

/* ---- checking (bench/hybrid.c, tests) ----
 *
 * Emulates hybrid samples from the samples of a dwarf recording: for
 * each one, the kernel's frame-pointer chain is walked through its
 * stack copy (from the sampled frame pointer, each frame's return
 * address at fp + 8 and the next frame at fp, while fp stays in the
 * copy), the copy is cut to each size asked for, and the stack made
 * from those is compared with the one unwound from the whole copy. */
#define PD_CHECK_SIZES 8

typedef struct pd_check_size {
	uint64_t bytes;           /* the copy */
	uint64_t weight, equal;   /* samples' periods: all, and those whose
				     stacks were the same */
	uint64_t samples, record_bytes; /* and the emulated records' bytes */
	pd_hybrid h;
} pd_check_size;

typedef struct pd_check {
	pd_check_size sizes[PD_CHECK_SIZES];
	size_t nsizes;
	uint64_t regs;            /* registers the emulated samples keep */
	bool first_whole;         /* the first sample of each thread keeps its
				     whole copy (as a recorder that takes one
				     large copy per thread, to learn its
				     outermost frames, would) */
	pd_u64map threads;        /* then, the threads seen */
	uint64_t dwarf_cut;       /* samples whose whole copy was too small */
	uint64_t dwarf_bytes;     /* the dwarf records' bytes */
} pd_check;

/* Makes r emulate hybrid samples from its dwarf samples, counting in
 * check (owned by the caller, outliving r's reading). */
void pd_check_attach(fg_perfdata *r, pd_check *check);
void pd_check_release(pd_check *check);

#endif
