/* failalloc.so: an LD_PRELOAD shim for the allocation-failure sweep
 * (tests/lib/alloc-faults.sh). It counts the allocations our own code
 * makes — malloc, calloc, realloc, strdup, strndup, posix_memalign and
 * aligned_alloc called from a flamegraph program or libflamegraph, not
 * those libc, libdw or perf make on their own — and fails one of them:
 *
 *   FG_FAULT_AT=N     fail the N-th counted allocation (0 or unset: none)
 *   FG_FAULT_COUNT=F  at exit, write the number counted to file F
 *   FG_FAULT_WHERE=F  when the failure is injected, write the call stack
 *                     (module(+offset) lines, for addr2line) to file F
 *
 * A caller counts when its return address lies in the main program (if
 * its file name starts with "flamegraph") or in libflamegraph.so, so
 * that children the programs run (cmake, perf) count nothing. Threads
 * share one atomic counter: with worker threads the N-th allocation may
 * be a different one from run to run, which the sweep accepts (every
 * outcome must still be right).
 *
 * The real allocator is reached through glibc's __libc_* entry points,
 * so no dlsym (which allocates) is needed. This is test code only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

#define MAX_RANGES 16

struct range {
	uintptr_t lo, hi;
};

static struct range ranges[MAX_RANGES];
static int nranges;
static atomic_int ranges_state; /* 0 unknown, 1 being found, 2 known */
static atomic_ulong counted;
static unsigned long fail_at;
static atomic_int injected;

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int ours(const char *path, int is_main)
{
	const char *b = base_name(path);

	if (is_main) {
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return 0;
		exe[n] = '\0';
		return strncmp(base_name(exe), "flamegraph", 10) == 0;
	}
	return strncmp(b, "libflamegraph.so", 16) == 0;
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	int *first = data;
	int is_main = *first;

	(void)size;
	*first = 0;
	if (!ours(info->dlpi_name ? info->dlpi_name : "", is_main))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
		ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
		nranges++;
	}
	return 0;
}

static void find_ranges(void)
{
	int expected = 0, first = 1;

	if (atomic_load(&ranges_state) == 2)
		return;
	if (!atomic_compare_exchange_strong(&ranges_state, &expected, 1)) {
		while (atomic_load(&ranges_state) != 2)
			;
		return;
	}
	dl_iterate_phdr(add_module, &first);
	atomic_store(&ranges_state, 2);
}

static void write_where(void)
{
	const char *path = getenv("FG_FAULT_WHERE");
	void *frames[32];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, fd);
	close(fd);
}

/* Whether this call, from `caller`, is the one to fail. */
static int should_fail(void *caller)
{
	uintptr_t a = (uintptr_t)caller;
	unsigned long n;
	int i;

	if (atomic_load(&injected) == 2)
		return 0;
	find_ranges();
	for (i = 0; i < nranges; i++)
		if (a >= ranges[i].lo && a < ranges[i].hi)
			break;
	if (i == nranges)
		return 0;
	n = atomic_fetch_add(&counted, 1) + 1;
	if (!fail_at || n != fail_at)
		return 0;
	atomic_store(&injected, 1);
	write_where();
	atomic_store(&injected, 2);
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (should_fail(__builtin_return_address(0)))
		return ENOMEM;
	if (!(p = __libc_memalign(align, n)))
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return __libc_memalign(align, n);
}

static char *dup_n(const char *s, size_t n)
{
	char *p = __libc_malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *strdup(const char *s)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return dup_n(s, strlen(s));
}

char *strndup(const char *s, size_t n)
{
	if (should_fail(__builtin_return_address(0)))
		return NULL;
	return dup_n(s, strnlen(s, n));
}

__attribute__((constructor)) static void start(void)
{
	const char *at = getenv("FG_FAULT_AT");

	fail_at = at ? strtoul(at, NULL, 10) : 0;
}

__attribute__((destructor)) static void stop(void)
{
	const char *path = getenv("FG_FAULT_COUNT");
	char line[32];
	int fd, len;

	/* children the program runs (cmake, perf) leave the count alone */
	if (!path || !ours("", 1))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%lu\n", atomic_load(&counted));
	if (write(fd, line, (size_t)len) < 0)
		len = 0;
	close(fd);
}
