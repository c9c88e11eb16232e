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
 * (perf_event_attr.sample_stack_user), in bytes: the smallest that
 * keeps the stacks of the test programs whole, with room for a long
 * call chain within 2 KB a sample. From bench/bench-hybrid.sh with
 * WHOLE=10,250, which emulates these samples and the native recorder's
 * rare whole ones (a 32 KB copy after a thread's tenth sample, then four
 * a second) from dwarf recordings with 64 KB copies (997 Hz, 1 s), the
 * share of the samples' weight whose stacks were those of the 64 KB
 * copies, by copy size (bytes a sample, the whole samples' included):
 *
 *   copy   lz4 -b1        sqlite3        libc_hot       lzpack
 *   1280   98.5% (1624)   98.1% (1631)   64.1% (1593)   92.4% (1583)
 *   1536  100.0% (1880)   99.4% (1887)  100.0% (1849)   96.1% (1839)
 *   1792  100.0% (2136)   99.5% (2143)  100.0% (2105)   98.7% (2095)
 *
 * (sqlite3: bench/workloads/sqlite.sql with 150000 rows, 3 s; libc_hot:
 * qsort's stack buffer, 800 bytes, under the frames of msort, which
 * keeps no frame pointer; lzpack: snprintf's 2.5 KB of frames while it
 * makes its corpus, at its start. The multi-threaded test program's
 * stacks were whole from 512 bytes on.) Samples whose copy was too short
 * (pd_hybrid_stats.cut) keep the frame-pointer walk's frames, completed
 * with the outermost frames a whole sample showed after them. */
#define FG_HYBRID_STACK_DEFAULT 1536

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

/* An address as a place in a module, which every process that maps the
 * module has at its own address. */
struct pd_place {
	const pd_module *mod;
	uint64_t off;             /* the module's file offset */
};

/* The outermost frames learnt in one process, for the others that run
 * the same code (outer_shared.c): after a return address, as places. */
typedef struct pd_outer_shared {
	pd_u64map index;          /* mix of the place -> 1 + entry */
	struct pd_shared_entry {
		struct pd_place anchor;
		uint32_t first, n;        /* pool[first ..] */
		bool ambiguous;
	} *v;
	size_t nv, av;
	struct pd_place *pool;
	size_t npool, apool;
} pd_outer_shared;

/* Learns, from a whole stack s[0 .. n) of pid, the places of the frames
 * after each of its return addresses (those whose frames all lie in
 * modules). 0 or FG_ENOMEM. */
int pd_outer_shared_learn(pd_outer_shared *sh, pd_machine *m, int32_t pid, const uint64_t *s,
			  size_t n);
/* The frames after return address pc of pid (minus one, as pd_unwind
 * gives them) that another process showed, at pid's own addresses, into
 * out[0 .. *n) (at most max). Whether there were (known, never shown
 * otherwise, every place mapped in pid). */
bool pd_outer_shared_find(const pd_outer_shared *sh, pd_machine *m, int32_t pid, uint64_t pc,
			  uint64_t *out, size_t max, size_t *n);
void pd_outer_shared_release(pd_outer_shared *sh);

/* The hybrid unwinding's state: outermost frames found per process. */
typedef struct pd_hybrid {
	pd_u64map index;          /* mix of (pid, anchor) -> 1 + entry */
	struct pd_outer *v;
	size_t nv, av;
	uint64_t *pool;
	size_t npool, apool;
	pd_hybrid_stats stats;
	uint64_t last_needed;     /* bytes the last sample needed (0: cut) */
	/* with the reader's maps (NULL: none), what one process learnt
	 * serves the processes that run the same code: a child or a
	 * process started later is whole from its first samples */
	pd_machine *machine;
	pd_outer_shared shared;
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
 * small). */
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

/* The native recorder's rule for growing the copy (its RN_GROW_*,
 * src/lib/recorder/grow.c), which the checks emulate: once at least
 * PD_GROW_AFTER samples were read, of which at least PD_GROW_MIN and
 * more than one in PD_GROW_SHARE had their frame pointer beyond the copy
 * (rbp above rsp by more than the copy less 16 bytes, and by less than
 * 8 MB), the copy is PD_GROWN_STACK bytes from then on. */
#define PD_GROWN_STACK 4096
#define PD_GROW_SHARE 200
#define PD_GROW_MIN 5
#define PD_GROW_AFTER 50

typedef struct pd_check_size {
	uint64_t bytes;           /* the copy */
	uint64_t seen, short_seen; /* samples, and those whose frame pointer
				     lay beyond the copy, before it grew */
	bool grown;               /* the copy grew (PD_GROWN_STACK) */
	uint64_t weight, equal;   /* samples' periods: all, and those whose
				     stacks were the same */
	uint64_t samples, record_bytes; /* and the emulated records' bytes */
	pd_hybrid h;
} pd_check_size;

typedef struct pd_check {
	pd_check_size sizes[PD_CHECK_SIZES];
	size_t nsizes;
	uint64_t regs;            /* registers the emulated samples keep */
	/* The recorder's second event (a rare sample with a large copy that
	 * only teaches the outermost frames), emulated: with whole_every,
	 * after a thread's sample number whole_first and then every
	 * whole_every samples, its whole copy teaches them too (after the
	 * sample is compared, so it helps the later ones only) and its
	 * record, with a whole_bytes copy and every register, is counted in
	 * each size's bytes. */
	uint32_t whole_first, whole_every;
	bool no_grow;             /* the copy never grows (PD_GROW_*) */
	uint64_t whole_bytes;
	pd_u64map threads;        /* then, each thread's samples so far */
	uint64_t dwarf_cut;       /* samples whose whole copy was too small */
	uint64_t dwarf_bytes;     /* the dwarf records' bytes */
} pd_check;

/* Makes r emulate hybrid samples from its dwarf samples, counting in
 * check (owned by the caller, outliving r's reading). */
void pd_check_attach(fg_perfdata *r, pd_check *check);
void pd_check_release(pd_check *check);

#endif
