/* libflamegraph-alloc.so: records every allocation (or, sampling, a
 * weighted sample of them) of the program it is preloaded into
 * (LD_PRELOAD), by allocating call chain, and writes the recording when
 * the program ends, and as a snapshot while it runs (flamegraph --alloc
 * reads it; the format is described in include/flamegraph/alloc.h).
 *
 * It depends on nothing but libc (and libm; libgcc_s through
 * backtrace()), and allocates nothing through the functions it
 * replaces: its tables live in memory it maps itself.
 *
 * How the cost stays low:
 *   - the allocating stack is walked frame by frame, each by its call
 *     site's .eh_frame rule, worked out once and cached per thread (a
 *     few loads a frame, about a frame-pointer walk's cost), within the
 *     thread's stack bounds (a bounded, checked walk);
 *   - stacks are interned once in a global table that threads read and
 *     insert into without a lock (compare-and-swap on an empty slot);
 *   - each thread counts into its own array indexed by stack (bytes,
 *     calls, live bytes and blocks), merged into the global counts when
 *     the thread ends: nothing shared is written per allocation but a
 *     thread's batched share of the live total;
 *   - each block carries a 16-byte header (its size and stack), so a free
 *     finds what it releases without any map or lock; the header's magic
 *     tells our blocks from ones that libc made before or around us;
 *   - the peak, exact: a thread adds its live bytes to the shared total
 *     each PEAK_STEP bytes, and sums every thread's share exactly only
 *     when the total could be within that much a thread of its largest
 *     (peak_check). The live heap is copied when it first falls from a
 *     new largest total (peak_fall), not at every allocation that makes
 *     one, and only the stacks changed since the last copy are copied;
 *   - sampled (FLAMEGRAPH_ALLOC_SAMPLE), an allocation not taken costs a
 *     subtraction: no header, no stack walk, no count;
 *   - the recording's snapshot each second (for a process that is
 *     killed) costs a clock read every 16th allocation of a thread.
 *
 * The .eh_frame walk (FLAMEGRAPH_ALLOC_UNWIND=eh, the default): the rule
 * of a frame whose code has frame pointers is the frame pointer's, of
 * one without them (libc, libstdc++) the stack pointer's, so stacks are
 * whole through both; backtrace() takes frames whose CFI it does not
 * follow (eh-check runs both and counts where they differ). =fp walks
 * frame pointers alone. A crash signal at its default action writes the
 * recording before the process dies.
 *
 * The real allocator is reached through glibc's __libc_* entry points,
 * which exist for this purpose, so no dlsym is needed (dlsym allocates)
 * and allocations before main, in constructors or in ld.so, just work.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h> /* rename */
#include <stdlib.h> /* at_quick_exit */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_stack_end;

enum {
	MAX_DEPTH = 128,
	MAX_STACKS = 1 << 18, /* distinct stacks kept; the rest count as one */
	PEAK_STEP = 4096,     /* a thread's live bytes not yet in the shared total, at most */
	SLOTS = 1 << 19,      /* the stack table's hash slots */
	PC_POOL = 1 << 23,    /* return addresses of all stacks */
	HDR = 16,
};

#define MAGIC 0xA1C0u

/* A block's header, just before the pointer the program gets. */
struct hdr {
	uint64_t size;
	uint32_t stack;
	uint8_t align_log2; /* 0: malloc'd; else the base is 1 << it before */
	uint8_t gen;        /* the process generation (forks) that made it */
	uint16_t magic;
};

struct stack {
	uint64_t hash;
	uint32_t depth, pcs; /* pcs: index into g_pcs */
};

/* What one thread (or the merged threads) counted for one stack. */
struct counts {
	uint64_t bytes, calls;
	int64_t live_bytes, live_blocks;
	uint32_t gen; /* the copy of the peak whose dirty list names it (peak_mark) */
};

struct table {
	struct counts *c;             /* MAX_STACKS entries, mapped lazily */
	uint32_t top;                 /* 1 + the highest stack index touched */
	int64_t pending;              /* live bytes not yet added to g_live (others read it) */
	uint32_t *dirty;              /* the stacks changed since the last copy of the peak */
	uint32_t ndirty, dirty_gen;   /* ... how many, and the copy they are for */
	uintptr_t stack_lo, stack_hi; /* this thread's stack */
	struct rule *rules;           /* the .eh_frame walk's cache (eh only) */
	uint64_t rules_gen;           /* g_code_gen it was filled in */
	struct table *next;           /* the registry, or the free list */
	bool alive;
};

static int g_state; /* 0: not decided, 1: recording, -1: off */
static char g_dir[PATH_MAX];
static uint8_t g_gen;

static _Atomic uint32_t *g_slots;
static struct stack *g_stacks;
static uintptr_t *g_pcs;
static _Atomic uint32_t g_nstacks, g_npcs;
static _Atomic uint64_t g_dropped;         /* allocations whose stack found no room */
static uint32_t g_max_stacks = MAX_STACKS; /* FLAMEGRAPH_ALLOC_MAX_STACKS lowers it (tests) */

static struct counts *g_merged; /* threads that ended */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* registry, merges, the peak */
static struct table *g_tables, *g_free_tables;
static _Atomic uint32_t g_alive; /* tables in g_tables (read without the lock) */
/* The live heap at its largest total. The live total is g_live plus
 * every living thread's pending share, each under PEAK_STEP bytes; the
 * largest is g_peak_total, and g_at_peak says no free came after it, so
 * the first free copies the live heap into g_peak (peak_fall). A copy
 * takes only the stacks named in the dirty lists of its generation
 * (g_copy_gen): each thread's, and g_merged_dirty for threads that ended;
 * g_copy_all asks for every stack (a change made outside the lists). */
static struct counts *g_peak;
/* the shared total, alone on its cache line: threads add to it often,
 * and read what would be beside it at every allocation */
static struct __attribute__((aligned(64))) {
	_Atomic int64_t n;
} g_live;
static int64_t g_peak_total; /* written under g_lock */
static _Atomic bool g_at_peak, g_copy_all;
/* g_near: the live total may be within a step a living thread of the
 * largest, so each allocation compares the two (near_check). Off, the
 * total is known to be lower: when the shared total or the threads last
 * changed it was lower by a step a thread, and every change decides
 * again (near_decide). */
static _Atomic bool g_near = true;
static _Atomic uint32_t g_copy_gen;
static uint32_t *g_merged_dirty, g_nmerged_dirty; /* under g_lock */
static pthread_key_t g_key;
static bool g_key_made;
static uint64_t g_threads;
static bool g_written;
static pid_t g_pid;                   /* ours: a vfork child (same memory) is not */
/* What the C and C++ runtimes keep for the process's life (libstdc++'s
 * emergency exception pool, libc's buffers): released at the very end by
 * their own release functions, as valgrind does, and counted here, not as
 * leaks of the program's. */
static bool g_releasing;
static struct counts g_runtime; /* bytes and blocks (calls) so released */
/* Allocations made inside the tracker's own code by a signal handler
 * that interrupted it: their stacks cannot be taken safely there, so they
 * are counted here, unrecorded (their frees, which need no stack, are
 * recorded). */
static _Atomic uint64_t g_unrecorded_calls, g_unrecorded_bytes;
static char g_written_path[PATH_MAX]; /* this process' recording (reserved at its first write) */

/* Sampling (FLAMEGRAPH_ALLOC_SAMPLE=BYTES): 0 records every allocation.
 * Otherwise an allocation of s bytes is taken with probability
 * 1 - exp(-s/BYTES) (a countdown of exponentially distributed bytes, as
 * Go's and tcmalloc's heap profilers do) and weighs 1/that probability,
 * so bytes and counts are unbiased estimates; calls and blocks are then
 * counted in 1/CALL_UNIT units, rounded when written. */
static double g_sample;
static uint64_t g_unit = 1;
enum { CALL_UNIT = 1 << 16 };

/* The recording is written again every g_flush_ns while the program
 * allocates (FLAMEGRAPH_ALLOC_FLUSH_MS, default 1000; 0: only at the
 * end), so a process killed by SIGKILL, or dying where no handler runs,
 * leaves what it recorded up to then. */
static int64_t g_flush_ns = 1000000000;
static _Atomic int64_t g_next_flush; /* INT64_MAX: no snapshots */

/* The unwinder (FLAMEGRAPH_ALLOC_UNWIND): "eh" (the default), the
 * .eh_frame rules (fast_walk), with glibc's backtrace(), libgcc's
 * unwinder reading the same tables, for what they do not follow; or
 * "fp", frame pointers alone (code built without them cuts the stack
 * short). backtrace() loads
 * libgcc_s on its first call, so it is primed in the constructor (until
 * then, frame pointers); afterwards it takes no lock (libgcc finds a
 * frame's tables with _dl_find_object) and allocates nothing, and any
 * allocation it made would go straight to libc (t_busy). */
static bool g_eh = true;            /* not asked for fp */
static bool g_eh_check;             /* eh-check: both walks, mismatches counted */
static _Atomic uint64_t g_eh_mismatch, g_eh_slow;
static _Atomic uint64_t g_code_gen; /* dlclose calls: code may have moved */
struct eh_bases {
	void *tbase, *dbase, *func;
};
static const unsigned char *(*g_find_fde)(void *pc, struct eh_bases *bases);
static bool g_eh_ready;             /* primed: backtrace() is used */
static uintptr_t g_self_lo, g_self_hi; /* our own code, left out of the stacks */

static TLS struct table *t_table;
/* Volatile: a signal handler reads them, and without it the compiler may
 * drop an increment and decrement around a libc call it believes cannot
 * reach them (it did around dlsym). */
static TLS volatile int t_busy; /* inside our own code: nested calls go straight through */
static TLS volatile int t_libc; /* ... in a libc call of ours (thread keys, dlsym,
                                   dlopen): what it allocates is libc's own */
static TLS bool t_gone; /* the thread's table was merged (it is ending) */
static TLS double t_countdown; /* sampling: bytes to this thread's next sample */
static TLS uint64_t t_rng;     /* sampling: this thread's random state (0: not drawn yet) */
static TLS unsigned t_ops;     /* allocations and frees, for the clock's check */

static inline void libc_calls_begin(void)
{
	t_busy++;
	t_libc++;
}

static inline void libc_calls_end(void)
{
	t_libc--;
	t_busy--;
}

static void *map_zero(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static size_t cstrlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static const char *env_get(const char *name)
{
	extern char **environ;
	size_t n = cstrlen(name);

	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void write_recording(const char *why, bool from_signal, bool final);

extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* The signals the tracker stands in for at their default action
 * (catch_fatal_signals), and whether its handler is installed for each:
 * the program sees SIG_DFL there (sigaction, signal), and asking for
 * SIG_DFL puts the tracker's handler back. */
enum { NSIGS = 65 };
static bool g_catchable[NSIGS];
static _Atomic bool g_hooked[NSIGS];

static void on_signal(int sig);

/* Installs handler for sig (its mask and flags from act when given), as
 * the tracker's own libc call. */
static int install(int sig, void (*handler)(int), const struct sigaction *act,
                   struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	if (act) {
		sa.sa_mask = act->sa_mask;
		sa.sa_flags = act->sa_flags & ~SA_SIGINFO;
	} else {
		sigemptyset(&sa.sa_mask);
	}
	sa.sa_handler = handler;
	return __sigaction(sig, &sa, old);
}

static void on_signal(int sig)
{
	char why[16] = "signal ";
	int n = 7, saved = errno;

	if (sig >= 10)
		why[n++] = (char)('0' + sig / 10 % 10);
	why[n++] = (char)('0' + sig % 10);
	why[n] = '\0';
	write_recording(why, true, true);
	g_hooked[sig] = false;
	install(sig, SIG_DFL, NULL, NULL);
	raise(sig);
	errno = saved;
}

/* The program's sigaction: what it would see and do without the
 * tracker. Its handlers are installed as given; SIG_DFL for a signal the
 * tracker covers installs the tracker's handler (the default action
 * follows once the recording is written), which the program is told is
 * SIG_DFL. */
EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev;
	bool covered = sig > 0 && sig < NSIGS && g_catchable[sig] && g_state > 0;
	bool was = covered && g_hooked[sig];
	int rc;

	if (covered && act && !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL) {
		rc = install(sig, on_signal, act, &prev);
		if (rc == 0)
			g_hooked[sig] = true;
	} else {
		rc = __sigaction(sig, act, &prev);
		if (rc == 0 && covered && act)
			g_hooked[sig] = false;
	}
	if (rc == 0 && old) {
		*old = prev;
		if (was && !(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == on_signal)
			old->sa_handler = SIG_DFL;
	}
	return rc;
}

/* signal() as glibc's: BSD semantics (the handler stays, interrupted
 * calls restart, the signal is blocked while its handler runs), through
 * the sigaction above. */
EXPORT void (*signal(int sig, void (*handler)(int)))(int)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (sig > 0 && sig < NSIGS)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = SA_RESTART;
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t env_num(const char *name, uint64_t dflt, uint64_t max)
{
	const char *v = env_get(name);
	uint64_t n = 0;

	if (!v || !*v)
		return dflt;
	for (; *v >= '0' && *v <= '9' && n <= max; v++)
		n = n * 10 + (uint64_t)(*v - '0');
	return *v || n > max ? dflt : n;
}

static void after_fork_child(void);
static void near_decide(int64_t live);
static void thread_end(void *arg);

/* A program ended by a signal whose default action ends the process (a
 * stop request, a crash, a broken pipe, a timer, the user signals, the
 * real-time signals) still leaves its recording; a signal the program
 * ignores or handles itself (inherited through exec) is left alone. */
static void catch_fatal_signals(void)
{
	static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGABRT, SIGSEGV,
	                           SIGBUS,  SIGFPE,  SIGILL,  SIGTRAP,   SIGSYS,  SIGPIPE,
	                           SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF, SIGXCPU,
	                           SIGXFSZ, SIGIO,   SIGPWR,  SIGSTKFLT};
	size_t nsigs = sizeof(sigs) / sizeof(sigs[0]);

	for (int i = 0; i < (int)nsigs + SIGRTMAX - SIGRTMIN + 1; i++) {
		int sig = i < (int)nsigs ? sigs[i] : SIGRTMIN + (i - (int)nsigs);
		struct sigaction old;
		if (sig >= NSIGS)
			continue;
		g_catchable[sig] = true;
		if (__sigaction(sig, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
		    old.sa_handler == SIG_DFL && install(sig, on_signal, NULL, NULL) == 0)
			g_hooked[sig] = true;
	}
}

/* Decides once whether this process records (FLAMEGRAPH_ALLOC_OUT names
 * the folder of the recordings) and maps the global tables. */
static void setup(void)
{
	const char *dir = env_get("FLAMEGRAPH_ALLOC_OUT");
	size_t n;

	if (!dir || !*dir || (n = cstrlen(dir)) >= sizeof(g_dir) - 64) {
		g_state = -1;
		return;
	}
	memcpy(g_dir, dir, n + 1);
	if ((dir = env_get("FLAMEGRAPH_ALLOC_MAX_STACKS"))) {
		uint32_t v = 0;
		for (; *dir >= '0' && *dir <= '9' && v < MAX_STACKS; dir++)
			v = v * 10 + (uint32_t)(*dir - '0');
		if (v >= 2 && v < MAX_STACKS)
			g_max_stacks = v;
	}
	g_sample = (double)env_num("FLAMEGRAPH_ALLOC_SAMPLE", 0, (uint64_t)1 << 40);
	g_unit = g_sample > 0 ? CALL_UNIT : 1;
	if ((dir = env_get("FLAMEGRAPH_ALLOC_UNWIND"))) {
		g_eh_check = !strcmp(dir, "eh-check");
		g_eh = strcmp(dir, "fp") != 0;
	}
	g_flush_ns = (int64_t)env_num("FLAMEGRAPH_ALLOC_FLUSH_MS", 1000, 86400000) * 1000000;
	g_next_flush = g_flush_ns ? now_ns() + g_flush_ns : INT64_MAX;
	g_slots = map_zero(sizeof(*g_slots) * SLOTS);
	g_stacks = map_zero(sizeof(*g_stacks) * MAX_STACKS);
	g_pcs = map_zero(sizeof(*g_pcs) * PC_POOL);
	g_merged = map_zero(sizeof(*g_merged) * MAX_STACKS);
	g_peak = map_zero(sizeof(*g_peak) * MAX_STACKS);
	g_merged_dirty = map_zero(sizeof(*g_merged_dirty) * MAX_STACKS);
	g_copy_gen = 1;
	if (!g_slots || !g_stacks || !g_pcs || !g_merged || !g_peak || !g_merged_dirty) {
		g_state = -1;
		return;
	}
	/* stack 0: allocations whose stack found no room in the table */
	g_nstacks = 1;
	g_key_made = pthread_key_create(&g_key, thread_end) == 0;
	pthread_atfork(NULL, NULL, after_fork_child);
	catch_fatal_signals();
	g_pid = getpid();
	g_state = 1;
}

static bool recording(void)
{
	if (__builtin_expect(g_state == 0, 0)) {
		libc_calls_begin();
		pthread_mutex_lock(&g_lock);
		if (g_state == 0)
			setup();
		pthread_mutex_unlock(&g_lock);
		libc_calls_end();
	}
	return g_state > 0;
}

static void stack_bounds(struct table *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	/* may allocate (the main thread's reads /proc/self/maps): the
	 * caller is marked busy, so those allocations go straight through */
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			t->stack_lo = (uintptr_t)addr;
			t->stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&attr);
	}
	if (!t->stack_hi && __libc_stack_end) {
		t->stack_hi = (uintptr_t)__libc_stack_end + 4096;
		t->stack_lo = t->stack_hi - ((uintptr_t)8 << 20);
	}
}

/* This thread's table: a recycled one, or a new one. */
static struct table *thread_table(void)
{
	struct table *t;

	if (t_table || t_gone)
		return t_table;
	libc_calls_begin();
	pthread_mutex_lock(&g_lock);
	if ((t = g_free_tables)) {
		g_free_tables = t->next;
	} else if ((t = map_zero(sizeof(*t)))) {
		t->c = map_zero(sizeof(*t->c) * MAX_STACKS);
		t->dirty = map_zero(sizeof(*t->dirty) * MAX_STACKS);
		if (!t->c || !t->dirty) {
			if (t->c)
				munmap(t->c, sizeof(*t->c) * MAX_STACKS);
			if (t->dirty)
				munmap(t->dirty, sizeof(*t->dirty) * MAX_STACKS);
			munmap(t, sizeof(*t));
			t = NULL;
		}
	}
	if (t) {
		t->alive = true;
		t->next = g_tables;
		g_tables = t;
		g_threads++;
		atomic_fetch_add(&g_alive, 1);
		near_decide(atomic_load(&g_live.n));
	}
	pthread_mutex_unlock(&g_lock);
	if (t) {
		stack_bounds(t);
		t_table = t;
		if (g_key_made)
			pthread_setspecific(g_key, t);
	}
	libc_calls_end();
	return t;
}

static void add_counts(struct counts *to, const struct counts *from)
{
	to->bytes += from->bytes;
	to->calls += from->calls;
	to->live_bytes += from->live_bytes;
	to->live_blocks += from->live_blocks;
}

/* A thread ends: its counts join the merged ones, its table is reused. */
static void thread_end(void *arg)
{
	struct table *t = arg, **pp;

	libc_calls_begin();
	pthread_mutex_lock(&g_lock);
	for (pp = &g_tables; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			atomic_fetch_sub(&g_alive, 1);
			break;
		}
	for (uint32_t i = 0; i < t->top; i++)
		add_counts(&g_merged[i], &t->c[i]);
	/* what changed since the last copy of the peak is copied next time */
	if (t->dirty_gen == atomic_load(&g_copy_gen))
		for (uint32_t i = 0; i < t->ndirty; i++)
			g_merged_dirty[g_nmerged_dirty++] = t->dirty[i];
	near_decide(atomic_fetch_add(&g_live.n, t->pending) + t->pending);
	memset(t->c, 0, sizeof(*t->c) * t->top);
	t->top = 0;
	t->pending = 0;
	t->ndirty = 0;
	t->stack_lo = t->stack_hi = 0;
	t->alive = false;
	t->next = g_free_tables;
	g_free_tables = t;
	pthread_mutex_unlock(&g_lock);
	t_table = NULL;
	t_gone = true;
	libc_calls_end();
}

/* The child of a fork is a process of its own: it starts from nothing
 * (the blocks it inherited are not its allocations), and only the thread
 * that forked lives on in it. */
static void after_fork_child(void)
{
	struct table *self = t_table;

	pthread_mutex_init(&g_lock, NULL);
	g_gen++;
	g_written = false;
	g_written_path[0] = '\0';
	g_pid = getpid();
	g_next_flush = g_flush_ns ? now_ns() + g_flush_ns : INT64_MAX;
	g_tables = NULL;
	g_free_tables = NULL;
	g_threads = 0;
	uint32_t n = atomic_load(&g_nstacks);
	/* ids taken past the end by threads racing for the last one */
	if (n > MAX_STACKS)
		n = MAX_STACKS;
	memset(g_merged, 0, sizeof(*g_merged) * n);
	memset(g_peak, 0, sizeof(*g_peak) * n);
	g_live.n = 0;
	g_peak_total = 0;
	g_at_peak = false;
	g_near = true;
	g_copy_all = false;
	g_nmerged_dirty = 0;
	g_alive = 0;
	g_dropped = 0;
	if (self) {
		memset(self->c, 0, sizeof(*self->c) * self->top);
		self->top = 0;
		self->pending = 0;
		self->ndirty = 0;
		self->next = NULL;
		g_tables = self;
		g_threads = 1;
		g_alive = 1;
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* The return addresses of the chain above frame fp (the frame of the
 * function the program called), leaf first. */
static uint32_t walk(const struct table *t, void *fp, uintptr_t *pcs)
{
	uintptr_t *f = fp;
	uint32_t n = 0;

	pcs[n++] = f[1];
	if (!t || !t->stack_hi)
		return n;
	for (;;) {
		uintptr_t *next = (uintptr_t *)f[0];
		/* upward only, aligned, and both words inside this thread's
		 * stack (no sum that could wrap around: a garbage frame
		 * pointer may hold any value) */
		if (n >= MAX_DEPTH || (uintptr_t)next <= (uintptr_t)f || ((uintptr_t)next & 7) ||
		    (uintptr_t)next < t->stack_lo || t->stack_hi - t->stack_lo < 16 ||
		    (uintptr_t)next > t->stack_hi - 16)
			break;
		f = next;
		if (f[1] < 4096)
			break;
		pcs[n++] = f[1];
	}
	return n;
}

/* The same with backtrace(): every frame above our own code. */
static uint32_t eh_walk(uintptr_t *pcs)
{
	void *buf[MAX_DEPTH + 16];
	int n = backtrace(buf, MAX_DEPTH + 16), i = 0;
	uint32_t k = 0;

	while (i < n && (uintptr_t)buf[i] >= g_self_lo && (uintptr_t)buf[i] < g_self_hi)
		i++;
	for (; i < n && k < MAX_DEPTH; i++)
		pcs[k++] = (uintptr_t)buf[i];
	return k;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t me = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me - lo < ph->p_memsz) {
			g_self_lo = lo;
			g_self_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* ---- the .eh_frame walk's fast path ----
 * backtrace() reads and runs a frame's CFI program again at every frame
 * of every allocation (about 1 us an allocation). Here the rule at each
 * call site (where the caller's frame, CFA, is, relative to the stack
 * pointer or rbp, and where rbp was saved) is worked out once, from the
 * FDE libgcc finds, and kept in the thread's cache; a stack is then a
 * few loads a frame. CFI it does not follow (expressions, signal
 * frames, registers kept in other registers) sends the whole stack to
 * backtrace(). */
enum { RULES = 1 << 12, RULE_EMPTY = 0, RULE_OK, RULE_LAST, RULE_SLOW };

struct rule {
	uintptr_t pc;     /* the return address it is for */
	int32_t cfa_off;  /* CFA = (cfa_rbp ? rbp : sp) + cfa_off */
	int16_t rbp_off;  /* rbp saved at CFA + rbp_off (rbp_saved) */
	uint8_t cfa_rbp, rbp_saved;
	uint8_t kind;     /* RULE_OK, RULE_LAST (the outermost frame), RULE_SLOW */
};

struct cfi {
	const unsigned char *p, *end;
};

static uint64_t uleb(struct cfi *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		unsigned char b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t sleb(struct cfi *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	unsigned char b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

/* The size of a pointer of DW_EH_PE encoding enc (0: not supported). */
static unsigned enc_size(unsigned enc)
{
	switch (enc & 0x0f) {
	case 0x00: return 8;
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x04: case 0x0c: return 8;
	default: return 0;
	}
}

/* The state of the CFA rules while a CFI program runs. */
struct cfa_state {
	int64_t off;
	unsigned reg;     /* 7: rsp, 6: rbp */
	int64_t rbp_off;  /* in data_align units already applied */
	bool rbp_saved, ra_ok, last;
};

/* Runs the CFI program of c up to the code at pc (from loc on). Returns
 * false on what it does not follow. */
static bool run_cfi(struct cfi *c, uintptr_t *loc, uintptr_t pc, uint64_t code_align,
                    int64_t data_align, struct cfa_state *st, const struct cfa_state *init)
{
	struct cfa_state saved[4];
	unsigned nsaved = 0;

	while (c->p < c->end) {
		unsigned char op = *c->p++, low = op & 0x3f;
		uint64_t reg, delta = 0;
		int64_t off;

		switch (op & 0xc0) {
		case 0x40:
			delta = low;
			goto advance;
		case 0x80:
			off = (int64_t)uleb(c) * data_align;
			reg = low;
			goto offset;
		case 0xc0:
			reg = low;
			goto restore;
		}
		switch (op) {
		case 0x00: /* nop */
			continue;
		case 0x02:
			if (c->end - c->p < 1)
				return false;
			delta = c->p[0];
			c->p += 1;
			goto advance;
		case 0x03:
			if (c->end - c->p < 2)
				return false;
			delta = (uint64_t)c->p[0] | (uint64_t)c->p[1] << 8;
			c->p += 2;
			goto advance;
		case 0x04:
			if (c->end - c->p < 4)
				return false;
			delta = (uint64_t)c->p[0] | (uint64_t)c->p[1] << 8 | (uint64_t)c->p[2] << 16 |
			        (uint64_t)c->p[3] << 24;
			c->p += 4;
			goto advance;
		case 0x05: /* offset_extended */
			reg = uleb(c);
			off = (int64_t)uleb(c) * data_align;
			goto offset;
		case 0x11: /* offset_extended_sf */
			reg = uleb(c);
			off = sleb(c) * data_align;
			goto offset;
		case 0x06: /* restore_extended */
			reg = uleb(c);
			goto restore;
		case 0x07: /* undefined */
			reg = uleb(c);
			if (reg == 16)
				st->last = true;
			else if (reg == 6)
				st->rbp_saved = false;
			continue;
		case 0x08: /* same_value */
			reg = uleb(c);
			if (reg == 6)
				st->rbp_saved = false;
			else if (reg == 16)
				return false;
			continue;
		case 0x0a: /* remember_state */
			if (nsaved == 4)
				return false;
			saved[nsaved++] = *st;
			continue;
		case 0x0b: /* restore_state */
			if (!nsaved)
				return false;
			*st = saved[--nsaved];
			continue;
		case 0x0c: /* def_cfa */
			st->reg = (unsigned)uleb(c);
			st->off = (int64_t)uleb(c);
			continue;
		case 0x12: /* def_cfa_sf */
			st->reg = (unsigned)uleb(c);
			st->off = sleb(c) * data_align;
			continue;
		case 0x0d: /* def_cfa_register */
			st->reg = (unsigned)uleb(c);
			continue;
		case 0x0e: /* def_cfa_offset */
			st->off = (int64_t)uleb(c);
			continue;
		case 0x13: /* def_cfa_offset_sf */
			st->off = sleb(c) * data_align;
			continue;
		case 0x2e: /* GNU_args_size */
			uleb(c);
			continue;
		case 0x10:   /* expression */
		case 0x16: { /* val_expression */
			reg = uleb(c);
			uint64_t len = uleb(c);
			if (reg == 6 || reg == 7 || reg == 16 || len > (uint64_t)(c->end - c->p))
				return false;
			c->p += len;
			continue;
		}
		default: /* set_loc, register, def_cfa_expression, val_offset... */
			return false;
		}
	advance:
		*loc += delta * code_align;
		if (*loc > pc)
			return true;
		continue;
	offset:
		if (reg == 6) {
			st->rbp_saved = true;
			st->rbp_off = off;
		} else if (reg == 16) {
			st->ra_ok = off == -8;
			st->last = false;
		}
		continue;
	restore:
		if (reg == 6) {
			st->rbp_saved = init->rbp_saved;
			st->rbp_off = init->rbp_off;
		} else if (reg == 16) {
			st->ra_ok = init->ra_ok;
			st->last = init->last;
		}
		continue;
	}
	return true;
}

/* The rule at the call before return address ra, from its FDE. */
static void make_rule(uintptr_t ra, struct rule *r)
{
	struct eh_bases bases;
	const unsigned char *fde, *cie;
	struct cfi c, ci;
	struct cfa_state st = {0, 7, 0, false, false, false}, init;
	uint64_t code_align;
	int64_t data_align;
	unsigned renc = 0, version;
	bool z = false;
	uintptr_t loc, pc = ra - 1;
	uint32_t len;
	int32_t cie_off;

	r->pc = ra;
	r->kind = RULE_SLOW;
	if (!(fde = g_find_fde((void *)pc, &bases)))
		return;
	memcpy(&len, fde, 4);
	memcpy(&cie_off, fde + 4, 4);
	if (len == 0xffffffffu || len < 8 || cie_off <= 0)
		return;
	cie = fde + 4 - cie_off;
	/* the CIE: version, augmentation, alignments, RA register, data */
	uint32_t cie_len;
	memcpy(&cie_len, cie, 4);
	if (cie_len == 0xffffffffu || cie_len < 8)
		return;
	ci.p = cie + 8;
	ci.end = cie + 4 + cie_len;
	version = *ci.p++;
	const char *aug = (const char *)ci.p;
	while (ci.p < ci.end && *ci.p)
		ci.p++;
	if (ci.p >= ci.end || (version != 1 && version != 3))
		return;
	ci.p++;
	code_align = uleb(&ci);
	data_align = sleb(&ci);
	if ((version == 1 ? *ci.p++ : uleb(&ci)) != 16)
		return;
	if (aug[0] == 'z') {
		z = true;
		uint64_t alen = uleb(&ci);
		struct cfi a = {ci.p, ci.p + alen};
		if (alen > (uint64_t)(ci.end - ci.p))
			return;
		for (const char *k = aug + 1; *k; k++) {
			if (*k == 'R' && a.p < a.end) {
				renc = *a.p++;
			} else if (*k == 'L' && a.p < a.end) {
				a.p++;
			} else if (*k == 'P' && a.p < a.end) {
				unsigned penc = *a.p++, n = enc_size(penc);
				if (!n || (size_t)(a.end - a.p) < n)
					return;
				a.p += n;
			} else {
				return; /* 'S' (a signal frame) and anything else */
			}
		}
		ci.p += alen;
	} else if (aug[0]) {
		return;
	}
	loc = (uintptr_t)bases.func;
	if (!run_cfi(&ci, &loc, pc, code_align, data_align, &st, &st))
		return;
	init = st;
	/* the FDE: past its address range and augmentation data */
	unsigned n = enc_size(renc);
	if (!n)
		return;
	c.p = fde + 8 + 2 * n;
	c.end = fde + 4 + len;
	if (c.p > c.end)
		return;
	if (z) {
		uint64_t alen = uleb(&c);
		if (alen > (uint64_t)(c.end - c.p))
			return;
		c.p += alen;
	}
	if (pc < loc || !run_cfi(&c, &loc, pc, code_align, data_align, &st, &init))
		return;
	if (st.last) {
		r->kind = RULE_LAST;
		return;
	}
	if ((st.reg != 7 && st.reg != 6) || !st.ra_ok || st.off <= 0 || st.off > INT32_MAX ||
	    (st.rbp_saved && (st.rbp_off < INT16_MIN || st.rbp_off > INT16_MAX)))
		return;
	r->cfa_rbp = st.reg == 6;
	r->cfa_off = (int32_t)st.off;
	r->rbp_saved = st.rbp_saved;
	r->rbp_off = (int16_t)st.rbp_off;
	r->kind = RULE_OK;
}

/* The walk with the cached rules, from the frame of the function the
 * program called (fp: ours, built with frame pointers). 0 when a frame
 * needs backtrace(). */
static uint32_t fast_walk(struct table *t, void *fp, uintptr_t *pcs)
{
	uintptr_t *f = fp, sp, rbp, pc;
	uint32_t n = 0;

	uint64_t gen = atomic_load_explicit(&g_code_gen, memory_order_acquire);

	if (!t || !t->stack_hi || (!t->rules && !(t->rules = map_zero(sizeof(*t->rules) * RULES))))
		return 0;
	/* a library unloaded: another may be where it was, with other rules */
	if (__builtin_expect(t->rules_gen != gen, 0)) {
		memset(t->rules, 0, sizeof(*t->rules) * RULES);
		t->rules_gen = gen;
	}
	pc = f[1];
	sp = (uintptr_t)(f + 2);
	rbp = f[0];
	while (n < MAX_DEPTH) {
		struct rule *r = &t->rules[(pc ^ pc >> 12) & (RULES - 1)];
		pcs[n++] = pc;
		if (r->pc != pc || r->kind == RULE_EMPTY)
			make_rule(pc, r);
		if (r->kind == RULE_LAST)
			break;
		if (r->kind != RULE_OK)
			return 0;
		uintptr_t cfa = (r->cfa_rbp ? rbp : sp) + (uintptr_t)(intptr_t)r->cfa_off;
		if (cfa <= sp || (cfa & 7) || cfa > t->stack_hi || cfa - 8 < t->stack_lo)
			return 0;
		if (r->rbp_saved) {
			uintptr_t at = cfa + (uintptr_t)(intptr_t)r->rbp_off;
			if (at < sp || at > t->stack_hi - 8)
				return 0;
			rbp = *(uintptr_t *)at;
		}
		pc = *(uintptr_t *)(cfa - 8);
		sp = cfa;
		if (pc < 4096)
			break;
	}
	return n;
}

/* backtrace()'s first call loads libgcc_s: made here, at load. */
static void eh_prime(void)
{
	void *buf[4];

	libc_calls_begin();
	dl_iterate_phdr(find_self, (void *)(uintptr_t)&eh_walk);
	if (g_self_hi && backtrace(buf, 4) > 0)
		g_eh_ready = true;
	/* libgcc_s is loaded now: the fast path's FDE lookup */
	void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (gcc)
		g_find_fde = (const unsigned char *(*)(void *, struct eh_bases *))dlsym(gcc, "_Unwind_Find_FDE");
	libc_calls_end();
}

static bool same_stack(const struct stack *s, uint64_t hash, const uintptr_t *pcs, uint32_t n)
{
	return s->hash == hash && s->depth == n && !memcmp(g_pcs + s->pcs, pcs, n * sizeof(*pcs));
}

/* The index of a stack in the global table (interned on first sight,
 * without a lock), or 0 when the table is full. */
static uint32_t intern(const uintptr_t *pcs, uint32_t n)
{
	uint64_t hash = 0;
	uint32_t i, id, pc;

	for (i = 0; i < n; i++)
		hash = mix(hash, pcs[i]);
	for (i = (uint32_t)hash & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1)) {
		uint32_t cur = atomic_load_explicit(&g_slots[i], memory_order_acquire);
		if (cur) {
			if (same_stack(&g_stacks[cur], hash, pcs, n))
				return cur;
			continue;
		}
		/* full: no more ids taken (their counter must not wrap) */
		if (atomic_load_explicit(&g_nstacks, memory_order_relaxed) >= g_max_stacks)
			return 0;
		id = atomic_fetch_add(&g_nstacks, 1);
		pc = atomic_fetch_add(&g_npcs, n);
		if (id >= g_max_stacks || pc + n > PC_POOL || pc + n < pc) {
			atomic_store(&g_nstacks, g_max_stacks);
			return 0;
		}
		memcpy(g_pcs + pc, pcs, n * sizeof(*pcs));
		g_stacks[id].hash = hash;
		g_stacks[id].depth = n;
		g_stacks[id].pcs = pc;
		uint32_t empty = 0;
		if (atomic_compare_exchange_strong_explicit(
		        &g_slots[i], &empty, id, memory_order_release, memory_order_acquire))
			return id;
		/* another thread took the slot first: ours stays unused (depth 0) */
		g_stacks[id].depth = 0;
		g_stacks[id].hash = 0;
		if (same_stack(&g_stacks[empty], hash, pcs, n))
			return empty;
	}
}

/* The number of stacks interned (ids taken past the table's end by
 * threads racing for its last one are not). */
static uint32_t stacks_used(void)
{
	uint32_t n = atomic_load(&g_nstacks);

	return n > g_max_stacks ? g_max_stacks : n;
}

/* The peak's copy of stack i: what the ended threads and every living
 * thread hold of it now. With g_lock held. */
static void peak_copy_stack(uint32_t i)
{
	int64_t bytes = __atomic_load_n(&g_merged[i].live_bytes, __ATOMIC_RELAXED);
	int64_t blocks = __atomic_load_n(&g_merged[i].live_blocks, __ATOMIC_RELAXED);

	for (struct table *t = g_tables; t; t = t->next)
		if (i < __atomic_load_n(&t->top, __ATOMIC_RELAXED)) {
			bytes += __atomic_load_n(&t->c[i].live_bytes, __ATOMIC_RELAXED);
			blocks += __atomic_load_n(&t->c[i].live_blocks, __ATOMIC_RELAXED);
		}
	g_peak[i].live_bytes = bytes;
	g_peak[i].live_blocks = blocks;
}

/* The live heap now becomes the peak's: every stack (all), or those
 * changed since the last copy. With g_lock held. Returns the number of
 * stacks. */
static uint32_t peak_copy(bool all)
{
	uint32_t gen = atomic_load(&g_copy_gen), n = stacks_used();

	if (all || atomic_exchange(&g_copy_all, false)) {
		for (uint32_t i = 0; i < n; i++)
			peak_copy_stack(i);
	} else {
		for (struct table *t = g_tables; t; t = t->next) {
			if (__atomic_load_n(&t->dirty_gen, __ATOMIC_ACQUIRE) != gen)
				continue;
			uint32_t k = __atomic_load_n(&t->ndirty, __ATOMIC_ACQUIRE);
			for (uint32_t j = 0; j < k; j++)
				peak_copy_stack(t->dirty[j]);
		}
		for (uint32_t j = 0; j < g_nmerged_dirty; j++)
			peak_copy_stack(g_merged_dirty[j]);
	}
	g_nmerged_dirty = 0;
	atomic_store_explicit(&g_copy_gen, gen + 1, memory_order_release);
	return n;
}

/* The live total now, exactly: the shared total and every living
 * thread's share. With g_lock held. */
static int64_t live_total(void)
{
	int64_t live = atomic_load(&g_live.n);

	for (struct table *t = g_tables; t; t = t->next)
		live += __atomic_load_n(&t->pending, __ATOMIC_RELAXED);
	return live;
}

/* Raises the largest total to live, if it is larger: the heap is then
 * at a new peak (copied at its first fall). */
static void peak_raise(int64_t live)
{
	int64_t peak = __atomic_load_n(&g_peak_total, __ATOMIC_RELAXED);

	while (live > peak)
		if (__atomic_compare_exchange_n(&g_peak_total, &peak, live, false, __ATOMIC_RELAXED,
		                                __ATOMIC_RELAXED)) {
			atomic_store_explicit(&g_at_peak, true, memory_order_relaxed);
			return;
		}
}

/* Whether the total may be within a step a living thread of the largest. */
static inline bool near_of(int64_t live, uint32_t alive)
{
	return live + (int64_t)alive * PEAK_STEP > __atomic_load_n(&g_peak_total, __ATOMIC_RELAXED);
}

/* The shared total changed to live (or the threads did): whether the
 * largest is near is decided again. Turning it off, the total is read
 * again after, so that a change made meanwhile (whose own decision may
 * have seen it on) turns it back on. */
static void near_decide(int64_t live)
{
	uint32_t alive = atomic_load(&g_alive);
	bool near = atomic_load(&g_near);

	if (near_of(live, alive)) {
		if (!near)
			atomic_store(&g_near, true);
	} else if (near && !near_of(live + (int64_t)alive * PEAK_STEP, alive)) {
		atomic_store(&g_near, false);
		if (near_of(atomic_load(&g_live.n), atomic_load(&g_alive)))
			atomic_store(&g_near, true);
	}
}

/* Near the largest: this thread's allocation may have passed it. The
 * total is summed exactly, without a lock when this is the only thread. */
static __attribute__((noinline)) void near_check(struct table *t)
{
	uint32_t alive = atomic_load_explicit(&g_alive, memory_order_relaxed);
	int64_t live = atomic_load_explicit(&g_live.n, memory_order_relaxed) + t->pending;

	if (live + (int64_t)(alive - 1) * PEAK_STEP <= __atomic_load_n(&g_peak_total, __ATOMIC_RELAXED))
		return;
	if (alive == 1) {
		peak_raise(live);
		return;
	}
	pthread_mutex_lock(&g_lock);
	peak_raise(live_total());
	pthread_mutex_unlock(&g_lock);
}

/* The first free after a new peak: the heap before it is the peak's. */
static __attribute__((noinline)) void peak_fall(void)
{
	pthread_mutex_lock(&g_lock);
	if (atomic_load(&g_at_peak)) {
		peak_copy(false);
		atomic_store(&g_at_peak, false);
	}
	pthread_mutex_unlock(&g_lock);
}

/* Names stack id in this thread's list of the stacks changed since the
 * last copy of the peak, once per copy. */
static inline __attribute__((always_inline)) void peak_mark(struct table *t, struct counts *c,
                                                            uint32_t id)
{
	uint32_t gen = atomic_load_explicit(&g_copy_gen, memory_order_relaxed);

	if (__builtin_expect(c->gen == gen, 1))
		return;
	c->gen = gen;
	if (t->dirty_gen != gen) {
		__atomic_store_n(&t->ndirty, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&t->dirty_gen, gen, __ATOMIC_RELEASE);
	}
	t->dirty[t->ndirty] = id;
	__atomic_store_n(&t->ndirty, t->ndirty + 1, __ATOMIC_RELEASE);
}

/* A thread's allocation of d bytes joins the live total: its share goes
 * to the shared total each PEAK_STEP bytes; unless the largest is near,
 * nothing more is done. */
static inline __attribute__((always_inline)) void live_add(struct table *t, int64_t d)
{
	int64_t pend = t->pending + d;

	if (pend >= PEAK_STEP) {
		near_decide(atomic_fetch_add(&g_live.n, pend) + pend);
		pend = 0;
	}
	__atomic_store_n(&t->pending, pend, __ATOMIC_RELAXED);
	if (atomic_load_explicit(&g_near, memory_order_relaxed))
		near_check(t);
}

/* A thread's free of d bytes leaves the live total (note_free copies
 * the heap first when it is the first free after a new peak). */
static inline __attribute__((always_inline)) void live_sub(struct table *t, int64_t d)
{
	int64_t pend = t->pending - d;

	if (pend <= -PEAK_STEP) {
		near_decide(atomic_fetch_add(&g_live.n, pend) + pend);
		pend = 0;
	}
	__atomic_store_n(&t->pending, pend, __ATOMIC_RELAXED);
}

static struct counts *counts_of(struct table *t, uint32_t id)
{
	if (id >= t->top)
		t->top = id + 1;
	return &t->c[id];
}

/* What one block weighs: its bytes and one call (in g_unit units); when
 * sampling, divided by the probability it had to be taken. A function of
 * the size alone, so that its free takes back exactly what it added. */
struct weight {
	int64_t bytes, calls;
};

static __attribute__((noinline)) struct weight weigh_sampled(size_t size)
{
	struct weight w;
	double inv = -1.0 / expm1(-(size ? (double)size : 1.0) / g_sample);

	w.bytes = (int64_t)((double)size * inv + 0.5);
	w.calls = (int64_t)(inv * CALL_UNIT + 0.5);
	return w;
}

static inline __attribute__((always_inline)) struct weight weigh(size_t size)
{
	struct weight w = {(int64_t)size, 1};

	return __builtin_expect(g_unit == 1, 1) ? w : weigh_sampled(size);
}

/* An exponentially distributed number of bytes, of mean g_sample. */
static double draw(void)
{
	uint64_t r;

	if (!t_rng)
		t_rng = ((uint64_t)(uintptr_t)&t_rng ^ (uint64_t)now_ns()) * 0x9e3779b97f4a7c15ull | 1;
	t_rng ^= t_rng >> 12;
	t_rng ^= t_rng << 25;
	t_rng ^= t_rng >> 27;
	r = t_rng * 0x2545f4914f6cdd1dull;
	return -log(((double)(r >> 11) + 0.5) / 9007199254740992.0) * g_sample;
}

/* Whether this allocation is recorded: always, unless sampling; then
 * when the countdown of bytes runs out within it (probability
 * 1 - exp(-size/g_sample), independent of every other allocation). */
static __attribute__((noinline)) bool take_sampled(size_t size)
{
	double s = size ? (double)size : 1.0;

	if (!t_rng)
		t_countdown = draw();
	if (t_countdown > s) {
		t_countdown -= s;
		return false;
	}
	t_countdown = draw();
	return true;
}

static inline __attribute__((always_inline)) bool take(size_t size)
{
	return __builtin_expect(g_unit == 1, 1) || take_sampled(size);
}

/* The recording written again, by one thread, when it is due (the
 * clock read at every 16th allocation or free of a thread). */
static __attribute__((noinline)) void flush_check(void)
{
	int64_t due, now;

	due = atomic_load_explicit(&g_next_flush, memory_order_relaxed);
	if (due == INT64_MAX || (now = now_ns()) < due)
		return;
	if (atomic_compare_exchange_strong(&g_next_flush, &due, now + g_flush_ns)) {
		int saved = errno; /* the program's malloc leaves errno alone */
		write_recording("running", false, false);
		errno = saved;
	}
}

static inline __attribute__((always_inline)) void flush_if_due(void)
{
	if (__builtin_expect(!(++t_ops & 15), 0))
		flush_check();
}

/* Counts an allocation of size bytes and returns the stack it belongs to. */
static uint32_t note_alloc(void *fp, size_t size)
{
	uintptr_t pcs[MAX_DEPTH];
	struct weight w = weigh(size);
	struct table *t;
	struct counts *c;
	uint32_t id, n;

	t_busy++;
	t = thread_table();
	n = 0;
	if (g_eh_ready) {
		n = g_find_fde ? fast_walk(t, fp, pcs) : 0;
		if (g_eh_check && n) {
			uintptr_t slow[MAX_DEPTH];
			uint32_t k = eh_walk(slow);
			if (k != n || memcmp(slow, pcs, n * sizeof(*pcs)))
				atomic_fetch_add_explicit(&g_eh_mismatch, 1, memory_order_relaxed);
		}
		if (!n) {
			atomic_fetch_add_explicit(&g_eh_slow, 1, memory_order_relaxed);
			n = eh_walk(pcs);
		}
	}
	if (!n)
		n = walk(t, fp, pcs);
	id = intern(pcs, n);
	if (!id)
		atomic_fetch_add_explicit(&g_dropped, 1, memory_order_relaxed);
	if (t) {
		c = counts_of(t, id);
		peak_mark(t, c, id);
		c->bytes += (uint64_t)w.bytes;
		c->calls += (uint64_t)w.calls;
		c->live_bytes += w.bytes;
		c->live_blocks += w.calls;
		live_add(t, w.bytes);
	} else {
		/* a thread past its end: straight into the merged counts */
		__atomic_fetch_add(&g_merged[id].bytes, (uint64_t)w.bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&g_merged[id].calls, (uint64_t)w.calls, __ATOMIC_RELAXED);
		__atomic_fetch_add(&g_merged[id].live_bytes, w.bytes, __ATOMIC_RELAXED);
		__atomic_fetch_add(&g_merged[id].live_blocks, w.calls, __ATOMIC_RELAXED);
		near_decide(atomic_fetch_add(&g_live.n, w.bytes) + w.bytes);
		atomic_store(&g_copy_all, true);
	}
	flush_if_due();
	t_busy--;
	return id;
}

/* A free counted straight into the merged counts, with atomic operations
 * only: a thread past its end, or a free inside the tracker's own code
 * (note_free_nested). */
static void free_into_merged(uint32_t stack, struct weight w)
{
	__atomic_fetch_sub(&g_merged[stack].live_bytes, w.bytes, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&g_merged[stack].live_blocks, w.calls, __ATOMIC_RELAXED);
	atomic_fetch_sub_explicit(&g_live.n, w.bytes, memory_order_relaxed);
	atomic_store(&g_copy_all, true); /* outside the dirty lists */
}

static void note_free(const struct hdr *h)
{
	struct weight w = weigh(h->size);
	struct table *t;
	struct counts *c;

	if (h->gen != g_gen)
		return; /* inherited from the parent process */
	if (g_releasing) {
		g_runtime.bytes += (uint64_t)w.bytes;
		g_runtime.calls += (uint64_t)w.calls;
	}
	t_busy++;
	if ((t = thread_table())) {
		if (atomic_load_explicit(&g_at_peak, memory_order_relaxed))
			peak_fall();
		c = counts_of(t, h->stack);
		peak_mark(t, c, h->stack);
		c->live_bytes -= w.bytes;
		c->live_blocks -= w.calls;
		live_sub(t, w.bytes);
	} else {
		free_into_merged(h->stack, w); /* a thread past its end */
	}
	flush_if_due();
	t_busy--;
}

/* A free inside the tracker's own code (a signal handler that
 * interrupted it, or libc freeing a block of the program's): the
 * thread's table may be half-updated, so the merged counts take it, with
 * atomic operations only. */
static void note_free_nested(const struct hdr *h)
{
	if (h->gen == g_gen)
		free_into_merged(h->stack, weigh(h->size));
}

static struct hdr *hdr_of(void *p)
{
	struct hdr *h = (struct hdr *)((char *)p - HDR);
	return h->magic == MAGIC ? h : NULL;
}

static void *base_of(void *p, const struct hdr *h)
{
	return (char *)p - (h->align_log2 ? (size_t)1 << h->align_log2 : HDR);
}

static void *finish(void *base, size_t off, size_t size, uint32_t id, uint8_t align_log2)
{
	char *p = (char *)base + off;
	struct hdr *h = (struct hdr *)(p - HDR);

	h->size = size;
	h->stack = id;
	h->align_log2 = align_log2;
	h->gen = g_gen;
	h->magic = MAGIC;
	return p;
}

/* Whether an allocation of size bytes is recorded: not when it is made
 * inside the tracker's own code, by a libc call of the tracker's (libc's
 * own) or by a signal handler that interrupted it (counted unrecorded). */
static bool tracked(size_t size)
{
	if (__builtin_expect(t_busy != 0, 0)) {
		if (!t_libc && g_state > 0) {
			atomic_fetch_add_explicit(&g_unrecorded_calls, 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&g_unrecorded_bytes, size, memory_order_relaxed);
		}
		return false;
	}
	return recording();
}

static inline __attribute__((always_inline)) void *tracked_malloc(void *fp, size_t size)
{
	void *base;

	if (size > SIZE_MAX - HDR) {
		errno = ENOMEM;
		return NULL;
	}
	if (!(base = __libc_malloc(size + HDR)))
		return NULL;
	return finish(base, HDR, size, note_alloc(fp, size), 0);
}

static void *do_malloc(void *fp, size_t size)
{
	if (!tracked(size) || !take(size))
		return __libc_malloc(size);
	return tracked_malloc(fp, size);
}

static void do_free(void *p)
{
	struct hdr *h;

	if (!p)
		return;
	if (g_state <= 0 || !(h = hdr_of(p))) {
		__libc_free(p);
		return;
	}
	void *base = base_of(p, h);
	if (!t_busy)
		note_free(h);
	else
		note_free_nested(h);
	h->magic = 0;
	__libc_free(base);
}

static void *do_aligned(void *fp, size_t align, size_t size)
{
	unsigned lg = 4;
	void *base;

	if (!tracked(size))
		return __libc_memalign(align, size);
	if (!take(size))
		return align <= 16 ? __libc_malloc(size) : __libc_memalign(align, size);
	if (align <= 16)
		return tracked_malloc(fp, size);
	while (((size_t)1 << lg) < align) {
		if (++lg >= 8 * sizeof(size_t) - 1) {
			errno = EINVAL;
			return NULL;
		}
	}
	align = (size_t)1 << lg;
	if (size > SIZE_MAX - align) {
		errno = ENOMEM;
		return NULL;
	}
	if (!(base = __libc_memalign(align, size + align)))
		return NULL;
	return finish(base, align, size, note_alloc(fp, size), (uint8_t)lg);
}

static void *do_realloc(void *fp, void *p, size_t size)
{
	struct hdr *h, old;
	void *base, *q;

	if (!p)
		return do_malloc(fp, size);
	if (g_state <= 0 || !(h = hdr_of(p))) {
		/* libc's block (made before us, or not sampled) */
		if (g_sample <= 0 || !size || !tracked(size))
			return __libc_realloc(p, size);
		if (!(q = __libc_realloc(p, size)) || !take(size))
			return q;
		/* sampled: it moves into a block with our header */
		if (!(p = tracked_malloc(fp, size)))
			return q; /* still the program's block, unrecorded */
		memcpy(p, q, size);
		__libc_free(q);
		return p;
	}
	if (size == 0) {
		do_free(p);
		return NULL;
	}
	old = *h;
	bool keep = tracked(size) && take(size);
	if (!keep || old.align_log2) {
		/* an aligned block moves as a new one (realloc keeps no
		 * alignment); so does one that is no longer sampled */
		if (!(q = keep ? tracked_malloc(fp, size) : __libc_malloc(size)))
			return NULL;
		memcpy(q, p, old.size < size ? old.size : size);
		do_free(p);
		return q;
	}
	if (size > SIZE_MAX - HDR) {
		errno = ENOMEM;
		return NULL;
	}
	base = base_of(p, h);
	if (!(q = __libc_realloc(base, size + HDR)))
		return NULL;
	note_free(&old);
	return finish(q, HDR, size, note_alloc(fp, size), 0);
}

EXPORT void *malloc(size_t size)
{
	return do_malloc(__builtin_frame_address(0), size);
}

EXPORT void free(void *p)
{
	do_free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	size_t total;
	void *base;

	if (!tracked(n * size))
		return __libc_calloc(n, size);
	if (__builtin_mul_overflow(n, size, &total) || total > SIZE_MAX - HDR) {
		errno = ENOMEM;
		return NULL;
	}
	if (!take(total))
		return __libc_calloc(n, size);
	if (!(base = __libc_calloc(1, total + HDR)))
		return NULL;
	return finish(base, HDR, total, note_alloc(__builtin_frame_address(0), total), 0);
}

EXPORT void *realloc(void *p, size_t size)
{
	return do_realloc(__builtin_frame_address(0), p, size);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return do_realloc(__builtin_frame_address(0), p, total);
}

EXPORT void *memalign(size_t align, size_t size)
{
	return do_aligned(__builtin_frame_address(0), align, size);
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	return do_aligned(__builtin_frame_address(0), align, size);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	if (!(p = do_aligned(__builtin_frame_address(0), align, size)))
		return ENOMEM;
	*out = p;
	return 0;
}

EXPORT void *valloc(size_t size)
{
	return do_aligned(__builtin_frame_address(0), (size_t)sysconf(_SC_PAGESIZE), size);
}

EXPORT void *pvalloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (size > SIZE_MAX - page) {
		errno = ENOMEM;
		return NULL;
	}
	size = size ? (size + page - 1) & ~(page - 1) : page;
	return do_aligned(__builtin_frame_address(0), page, size);
}

EXPORT size_t malloc_usable_size(void *p)
{
	/* libc's, for its own blocks (unsampled ones, those made before
	 * us): glibc exports no __malloc_usable_size, so it is looked up
	 * (dlsym may allocate: straight to libc) */
	static size_t (*real)(void *);
	struct hdr *h;

	if (!p)
		return 0;
	if (g_state > 0 && (h = hdr_of(p)))
		return h->size;
	if (!real) {
		libc_calls_begin();
		real = (size_t (*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
		libc_calls_end();
	}
	return real && real != malloc_usable_size ? real(p) : 0;
}

/* ---- the recording ---- */

struct out {
	int fd;
	size_t n;
	bool failed;
	char buf[1 << 16];
};

static struct out g_out;

static void out_flush(struct out *o)
{
	size_t off = 0;

	while (off < o->n && !o->failed) {
		ssize_t w = write(o->fd, o->buf + off, o->n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			o->failed = true;
		else
			off += (size_t)w;
	}
	o->n = 0;
}

static void out_mem(struct out *o, const char *s, size_t n)
{
	while (n) {
		size_t k = sizeof(o->buf) - o->n < n ? sizeof(o->buf) - o->n : n;
		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		n -= k;
		if (o->n == sizeof(o->buf))
			out_flush(o);
	}
}

static void out_str(struct out *o, const char *s)
{
	out_mem(o, s, cstrlen(s));
}

static void out_num(struct out *o, uint64_t v, unsigned base, bool neg)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[n++] = '-';
	while (n)
		out_mem(o, &tmp[--n], 1);
}

static void out_dec(struct out *o, uint64_t v)
{
	out_num(o, v, 10, false);
}

static void out_sdec(struct out *o, int64_t v)
{
	out_num(o, v < 0 ? (uint64_t)-v : (uint64_t)v, 10, v < 0);
}

static void out_hex(struct out *o, uint64_t v)
{
	out_num(o, v, 16, false);
}

/* Copies a whole small /proc file into the output, line by line through cb. */
static void out_proc_file(struct out *o, const char *path,
                          void (*cb)(struct out *, const char *, size_t))
{
	char buf[8192];
	size_t have = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		size_t start = 0;
		for (size_t i = 0; i < have; i++)
			if (buf[i] == '\n') {
				cb(o, buf + start, i - start);
				start = i + 1;
			}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == sizeof(buf))
			have = 0; /* a line longer than the buffer: dropped */
	}
	if (have)
		cb(o, buf, have);
	close(fd);
}

static uint64_t parse_hex(const char **s, const char *end)
{
	uint64_t v = 0;

	for (; *s < end; ++*s) {
		char c = **s;
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
		             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		                                    : 99;
		if (d == 99)
			break;
		v = v * 16 + d;
	}
	return v;
}

/* "START-END PERMS OFFSET DEV INODE PATH" of /proc/self/maps: the
 * executable maps of files become "map START END OFFSET PATH". */
static void map_line(struct out *o, const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	uint64_t start, stop, off;
	const char *perms, *path;

	start = parse_hex(&p, end);
	if (p >= end || *p++ != '-')
		return;
	stop = parse_hex(&p, end);
	if (p >= end || *p++ != ' ')
		return;
	perms = p;
	if (end - perms < 5 || perms[2] != 'x')
		return;
	p += 5;
	off = parse_hex(&p, end);
	/* device, inode, then the path after spaces */
	for (int field = 0; field < 2; field++) {
		while (p < end && *p == ' ')
			p++;
		while (p < end && *p != ' ')
			p++;
	}
	while (p < end && *p == ' ')
		p++;
	path = p;
	if (path >= end)
		return;
	out_str(o, "map ");
	out_hex(o, start);
	out_str(o, " ");
	out_hex(o, stop);
	out_str(o, " ");
	out_hex(o, off);
	out_str(o, " ");
	out_mem(o, path, (size_t)(end - path));
	out_str(o, "\n");
}

static void comm_line(struct out *o, const char *line, size_t len)
{
	out_str(o, "comm ");
	out_mem(o, line, len);
	out_str(o, "\n");
}

static char *put_dec(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* DIR/alloc.PID.SEQ, the first SEQ free (an exec'd program keeps its PID) */
static int open_output(char *path, size_t cap)
{
	size_t n = cstrlen(g_dir);

	if (n + 64 > cap)
		return -1;
	for (unsigned seq = 0; seq < 1000; seq++) {
		char *p = path + n;
		memcpy(path, g_dir, n);
		memcpy(p, "/alloc.", 7);
		p = put_dec(p + 7, (uint64_t)getpid());
		*p++ = '.';
		p = put_dec(p, seq);
		*p = '\0';
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* A count in calls (or blocks), from g_unit units, rounded. */
static int64_t in_calls(int64_t v)
{
	int64_t half = (int64_t)g_unit / 2;
	return g_unit == 1 ? v : v >= 0 ? (v + half) / (int64_t)g_unit : -((-v + half) / (int64_t)g_unit);
}

static void write_stacks(struct out *o, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct counts c = g_merged[i];
		for (struct table *t = g_tables; t; t = t->next)
			if (i < t->top)
				add_counts(&c, &t->c[i]);
		c.calls = (uint64_t)in_calls((int64_t)c.calls);
		c.live_blocks = in_calls(c.live_blocks);
		int64_t peak_blocks = in_calls(g_peak[i].live_blocks);
		if (!c.calls && !c.live_blocks && !peak_blocks && !c.bytes && !g_peak[i].live_bytes)
			continue;
		if (i && !g_stacks[i].depth)
			continue;
		out_str(o, "s ");
		out_dec(o, c.bytes);
		out_str(o, " ");
		out_dec(o, c.calls);
		out_str(o, " ");
		out_sdec(o, c.live_bytes);
		out_str(o, " ");
		out_sdec(o, c.live_blocks);
		out_str(o, " ");
		out_sdec(o, g_peak[i].live_bytes);
		out_str(o, " ");
		out_sdec(o, peak_blocks);
		for (uint32_t k = 0; i && k < g_stacks[i].depth; k++) {
			out_str(o, " ");
			out_hex(o, g_pcs[g_stacks[i].pcs + k]);
		}
		out_str(o, "\n");
	}
}

/* The live heap now is the peak's if its total is the largest, or no
 * free came since the largest. With g_lock held. Returns the number of
 * stacks. */
static uint32_t peak_from_now(void)
{
	int64_t live = live_total();

	if (live > g_peak_total || atomic_load(&g_at_peak)) {
		peak_raise(live);
		atomic_store(&g_at_peak, false);
		return peak_copy(true);
	}
	return stacks_used();
}

/* Writes the recording as it stands: the process' final one (final,
 * once), or a snapshot while it runs ("end-reason running"), each into
 * PATH.tmp renamed over the process' file, so the file always holds a
 * whole recording, whenever the process dies. */
static void write_recording(const char *why, bool from_signal, bool final)
{
	struct out *o = &g_out;
	char *path = g_written_path, tmp[PATH_MAX];
	size_t plen;
	uint32_t n;

	if (g_state <= 0 || g_written || getpid() != g_pid)
		return;
	/* a signal (whose handler may call exit) may come while this very
	 * thread holds the lock, inside our own code: never wait for it then */
	bool nested = from_signal || t_busy;
	t_busy++;
	if (nested ? pthread_mutex_trylock(&g_lock) : pthread_mutex_lock(&g_lock)) {
		t_busy--;
		return;
	}
	if (g_written)
		goto done;
	g_written = final;
	if (!path[0]) {
		/* the process' file: the first free DIR/alloc.PID.SEQ */
		if ((o->fd = open_output(path, sizeof(g_written_path) - 8)) < 0) {
			path[0] = '\0';
			goto done;
		}
		close(o->fd);
	}
	plen = cstrlen(path);
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp", 5);
	if ((o->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		goto done;
	o->n = 0;
	o->failed = false;
	n = peak_from_now();
	out_str(o, "flamegraph-alloc 1\npid ");
	out_dec(o, (uint64_t)getpid());
	out_str(o, "\nppid ");
	out_dec(o, (uint64_t)getppid());
	out_str(o, "\n");
	out_proc_file(o, "/proc/self/comm", comm_line);
	out_str(o, "end-reason ");
	out_str(o, why);
	out_str(o, "\nthreads ");
	out_dec(o, g_threads);
	out_str(o, "\ndropped ");
	out_dec(o, atomic_load(&g_dropped));
	if (g_eh_ready) {
		out_str(o, "\neh-slow ");
		out_dec(o, atomic_load(&g_eh_slow));
		if (g_eh_check) {
			out_str(o, "\neh-mismatch ");
			out_dec(o, atomic_load(&g_eh_mismatch));
		}
	}
	if (g_sample > 0) {
		out_str(o, "\nsample ");
		out_dec(o, (uint64_t)g_sample);
	}
	/* the tables, and the blocks' headers at the peak */
	uint64_t peak_blocks = 0;
	for (uint32_t i = 0; i < n; i++)
		peak_blocks += g_peak[i].live_blocks > 0 ? (uint64_t)in_calls(g_peak[i].live_blocks) : 0;
	out_str(o, "\ntracker-bytes ");
	out_dec(o, (uint64_t)n * (sizeof(struct stack) + 2 * sizeof(struct counts)) +
	               (uint64_t)atomic_load(&g_npcs) * sizeof(uintptr_t) +
	               g_threads * sizeof(struct table) + peak_blocks * HDR +
	               (g_eh_ready ? g_threads * RULES * sizeof(struct rule) : 0));
	if (atomic_load(&g_unrecorded_calls)) {
		out_str(o, "\nunrecorded ");
		out_dec(o, atomic_load(&g_unrecorded_calls));
		out_str(o, " ");
		out_dec(o, atomic_load(&g_unrecorded_bytes));
	}
	if (g_runtime.calls) {
		out_str(o, "\nruntime-kept ");
		out_dec(o, g_runtime.bytes);
		out_str(o, " ");
		out_dec(o, (uint64_t)in_calls((int64_t)g_runtime.calls));
	}
	out_str(o, "\n");
	out_proc_file(o, "/proc/self/maps", map_line);
	write_stacks(o, n);
	out_str(o, "end\n");
	out_flush(o);
	if (close(o->fd) != 0)
		o->failed = true;
	if (o->failed || rename(tmp, path) != 0)
		unlink(tmp); /* the last snapshot, if any, stays */
done:
	pthread_mutex_unlock(&g_lock);
	t_busy--;
}

static void at_quick_exit_end(void)
{
	write_recording("quick_exit", false, true);
}

/* Set up at load, so that a program that never allocates still leaves
 * its (empty) recording and its signals are covered from the start.
 * quick_exit runs no destructor: its handlers run in the reverse order
 * of their registration, so one registered now runs after the
 * program's. */
__attribute__((constructor)) static void at_start(void)
{
	if (!recording())
		return;
	at_quick_exit(at_quick_exit_end);
	if (g_eh)
		eh_prime();
}

/* The number of threads of this process (/proc/self/stat's 20th field),
 * or 0 when it cannot be read. */
static long threads_now(void)
{
	char buf[1024], *p;
	long n = 0;
	ssize_t len;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;

	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	/* the name (field 2) may hold spaces and parentheses: count from
	 * the last ')' */
	for (p = buf + len; p > buf && p[-1] != ')'; p--)
		;
	for (; *p && field < 20; p++)
		if (*p == ' ')
			field++;
	for (; *p >= '0' && *p <= '9'; p++)
		n = n * 10 + (*p - '0');
	return n;
}

extern void __libc_freeres(void);
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

/* Runs after every destructor of every library and every atexit
 * handler: what is still allocated now is what the program leaked. The
 * runtimes' own blocks are released first (only when no other thread
 * runs, which could still use them), and counted apart. */
static void after_destructors(void *arg)
{
	void (*cxx_freeres)(void);

	(void)arg;
	if (g_state > 0 && !g_written && getpid() == g_pid && threads_now() == 1) {
		/* the runtimes' blocks count in the peak, as they did in the
		 * program's life */
		pthread_mutex_lock(&g_lock);
		peak_from_now();
		pthread_mutex_unlock(&g_lock);
		libc_calls_begin(); /* dlsym may allocate: straight to libc */
		cxx_freeres = (void (*)(void))dlsym(RTLD_DEFAULT, "_ZN9__gnu_cxx9__freeresEv");
		libc_calls_end();
		g_releasing = true;
		if (cxx_freeres)
			cxx_freeres();
		__libc_freeres();
		g_releasing = false;
	}
	write_recording("exit", false, true);
}

/* The preloaded library's destructors run before those of the libraries
 * loaded after it, which may still free what their constructors
 * allocated: the recording is written from an exit handler registered
 * now, for no library (a NULL handle: __cxa_finalize of ours leaves it),
 * which runs once every library's destructors have run. */
__attribute__((destructor)) static void at_end(void)
{
	if (g_state <= 0 || g_written)
		return;
	if (__cxa_atexit(after_destructors, NULL, NULL) != 0)
		after_destructors(NULL);
}

EXPORT void _exit(int status)
{
	write_recording("_exit", false, true);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	write_recording("_exit", false, true);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

/* An exec replaces the program: what it recorded is written first, and
 * taken back when the exec fails (the program goes on recording). */
static void before_exec(void)
{
	write_recording("exec", false, true);
}

static void exec_failed(void)
{
	int saved = errno;

	if (g_state > 0 && g_written && getpid() == g_pid) {
		if (g_written_path[0])
			unlink(g_written_path);
		g_written_path[0] = '\0';
		g_written = false;
	}
	errno = saved;
}

/* A library unloaded: the .eh_frame walk's cached rules are dropped
 * (another library may be loaded where it was). */
EXPORT int dlclose(void *handle)
{
	static int (*real)(void *);
	int r;

	if (!real) {
		libc_calls_begin();
		real = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
		libc_calls_end();
	}
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	r = real(handle);
	atomic_fetch_add_explicit(&g_code_gen, 1, memory_order_release);
	return r;
}

typedef int (*exec_fn)(const char *, char *const[], char *const[]);
typedef int (*execp_fn)(const char *, char *const[]);

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int r;

	before_exec();
	r = (int)syscall(SYS_execve, path, argv, envp);
	if (r < 0)
		errno = errno ? errno : ENOEXEC;
	exec_failed();
	return -1;
}

EXPORT int execv(const char *path, char *const argv[])
{
	extern char **environ;
	return execve(path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	execp_fn real = (execp_fn)dlsym(RTLD_NEXT, "execvp");

	before_exec();
	int r = real ? real(file, argv) : (errno = ENOSYS, -1);
	exec_failed();
	return r;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	exec_fn real = (exec_fn)dlsym(RTLD_NEXT, "execvpe");

	before_exec();
	int r = real ? real(file, argv, envp) : (errno = ENOSYS, -1);
	exec_failed();
	return r;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int (*real)(int, char *const[], char *const[]) =
	    (int (*)(int, char *const[], char *const[]))dlsym(RTLD_NEXT, "fexecve");

	before_exec();
	int r = real ? real(fd, argv, envp) : (errno = ENOSYS, -1);
	exec_failed();
	return r;
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	before_exec();
	int r = (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
	exec_failed();
	return r;
}

/* execl, execlp and execle: their arguments as the vector execve,
 * execvp and execve take (on the stack: nothing is allocated), counted
 * first, then read (up to and with the NULL that ends them). The count
 * is bounded as the kernel bounds it. */
enum { MAX_EXEC_ARGS = 1 << 17 };

static size_t count_args(const char *arg0, va_list ap)
{
	size_t n = 1;

	if (!arg0)
		return 0;
	while (n < MAX_EXEC_ARGS && va_arg(ap, const char *))
		n++;
	return n;
}

static void read_args(char **argv, size_t n, const char *arg0, va_list ap)
{
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	extern char **environ;
	va_list ap;

	va_start(ap, arg);
	size_t n = count_args(arg, ap);
	va_end(ap);
	if (n >= MAX_EXEC_ARGS)
		return errno = E2BIG, -1;
	char *argv[n + 1];
	va_start(ap, arg);
	read_args(argv, n, arg, ap);
	va_end(ap);
	return execve(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	size_t n = count_args(arg, ap);
	va_end(ap);
	if (n >= MAX_EXEC_ARGS)
		return errno = E2BIG, -1;
	char *argv[n + 1];
	va_start(ap, arg);
	read_args(argv, n, arg, ap);
	va_end(ap);
	return execvp(file, argv);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	size_t n = count_args(arg, ap);
	va_end(ap);
	if (n >= MAX_EXEC_ARGS)
		return errno = E2BIG, -1;
	char *argv[n + 1];
	va_start(ap, arg);
	read_args(argv, n, arg, ap);
	/* the environment follows the NULL that ends the arguments */
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
