/* A JIT-like workload for the perf.data reader's test of perf's JIT map
 * files (tests/e2e/test_perfdata_jit.sh): x86-64 code is written into
 * an anonymous executable map and named in /tmp/perf-PID.map, the file
 * perf script reads when it symbolizes such maps. Two generated
 * functions, "jit_hot_loop" and "jit loop with spaces" (a name with
 * spaces, as JITs write them), are called from C for MILLISECONDS. Each
 * keeps a frame pointer, so frame-pointer call chains go through them to
 * their C caller.
 *
 * The map file must outlive the program (perf script reads it after the
 * recording), so it is left behind: the PID is written to the file
 * jit.pid and the caller removes /tmp/perf-PID.map when done.
 *
 * Modes (how the code is mapped):
 *   rwx       mmap(PROT_READ | PROT_WRITE | PROT_EXEC): "//anon"
 *   mprotect  written through PROT_READ | PROT_WRITE, then made
 *             PROT_READ | PROT_EXEC, as JITs that keep W^X do
 *   named     rwx, then named with PR_SET_VMA_ANON_NAME: "[anon:jit]"
 *
 * Usage: jit [MILLISECONDS] [MODE]   (default 500 ms, rwx) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

/* int f(int n): sums n, n-1, ..., 1 in a loop (n > 0), with a frame
 *   push %rbp; mov %rsp,%rbp; xor %eax,%eax;
 *   1: add %edi,%eax; dec %edi; jnz 1b; pop %rbp; ret */
static const unsigned char loop_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x01, 0xf8,
	0xff, 0xcf, 0x75, 0xfa, 0x5d, 0xc3,
};

#define HOT_OFF 0x40   /* where each function is put in the map */
#define SPACES_OFF 0x80
#define SLED_OFF 0x100
#define SLED_ADDS 1024 /* the sled's loop body: add %edi,%eax, times this */
#define SLED_SIZE (6 + 2 * SLED_ADDS + 2 + 6 + 2)
#define SLED_NAMES 48  /* overlapping entries over the sled */

typedef int (*jit_fn)(int);
static volatile int sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* int f(int n) again, its loop body SLED_ADDS adds long, so that the
 * samples spread over some 2 KB:
 *   push %rbp; mov %rsp,%rbp; xor %eax,%eax;
 *   1: add %edi,%eax (SLED_ADDS times); dec %edi; jnz 1b (rel32);
 *   pop %rbp; ret */
static void write_sled(unsigned char *p)
{
	static const unsigned char head[] = { 0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0 };
	int32_t rel = -(int32_t)(2 * SLED_ADDS + 2 + 6);
	size_t i;

	memcpy(p, head, sizeof(head));
	p += sizeof(head);
	for (i = 0; i < SLED_ADDS; i++, p += 2)
		p[0] = 0x01, p[1] = 0xf8;
	*p++ = 0xff, *p++ = 0xcf;
	*p++ = 0x0f, *p++ = 0x85;
	memcpy(p, &rel, 4);
	p += 4;
	*p++ = 0x5d, *p++ = 0xc3;
}

static unsigned char *map_code(const char *mode, size_t len)
{
	int prot = PROT_READ | PROT_WRITE;
	unsigned char *p;

	if (strcmp(mode, "mprotect"))
		prot |= PROT_EXEC;
	p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0xcc, len); /* int3 around the functions */
	memcpy(p + HOT_OFF, loop_code, sizeof(loop_code));
	memcpy(p + SPACES_OFF, loop_code, sizeof(loop_code));
	write_sled(p + SLED_OFF);
	if (!strcmp(mode, "mprotect") && mprotect(p, len, PROT_READ | PROT_EXEC))
		return NULL;
	if (!strcmp(mode, "named"))
		prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, len, (unsigned long)"jit");
	__builtin___clear_cache((char *)p, (char *)p + len);
	return p;
}

/* perf's map file: "START SIZE NAME" per line, hex */
static int write_map(const unsigned char *code)
{
	char path[64];
	unsigned i, seed = 2024;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(f, "%lx %x jit_hot_loop\n", (unsigned long)(uintptr_t)(code + HOT_OFF),
		(unsigned)sizeof(loop_code));
	fprintf(f, "%lx %x jit loop with spaces\n", (unsigned long)(uintptr_t)(code + SPACES_OFF),
		(unsigned)sizeof(loop_code));
	/* the sled, then pieces of it named again, overlapping (as a JIT
	 * that puts new code where it freed some writes them): which name an
	 * address gets is then perf's choice, which the reader must repeat */
	fprintf(f, "%lx %x jit_sled\n", (unsigned long)(uintptr_t)(code + SLED_OFF), SLED_SIZE);
	for (i = 0; i < SLED_NAMES; i++) {
		unsigned off, len;
		seed = seed * 1103515245u + 12345u;
		off = (seed >> 8) % SLED_SIZE;
		seed = seed * 1103515245u + 12345u;
		len = 16 + (seed >> 8) % 512;
		fprintf(f, "0x%lx %x jit_sled_%u\n", (unsigned long)(uintptr_t)(code + SLED_OFF + off),
			len, i);
	}
	return fclose(f);
}

__attribute__((noinline)) static void run_hot(jit_fn f)
{
	sink += f(200000);
}

__attribute__((noinline)) static void run_spaces(jit_fn f)
{
	sink += f(100000);
}

__attribute__((noinline)) static void run_sled(jit_fn f)
{
	sink += f(200);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? strtod(argv[1], NULL) : 500, end;
	const char *mode = argc > 2 ? argv[2] : "rwx";
	unsigned char *code;
	jit_fn hot, spaces, sled;
	FILE *pid;

	if (!(code = map_code(mode, 4096))) {
		perror("jit: mapping the code");
		return 1;
	}
	if (write_map(code)) {
		perror("jit: writing /tmp/perf-PID.map");
		return 1;
	}
	if (!(pid = fopen("jit.pid", "w")) || fprintf(pid, "%d\n", (int)getpid()) < 0 || fclose(pid)) {
		perror("jit: writing jit.pid");
		return 1;
	}
	memcpy(&hot, &(void *){ code + HOT_OFF }, sizeof(hot));
	memcpy(&spaces, &(void *){ code + SPACES_OFF }, sizeof(spaces));
	memcpy(&sled, &(void *){ code + SLED_OFF }, sizeof(sled));
	end = now_ms() + ms;
	while (now_ms() < end) {
		run_hot(hot);
		run_spaces(spaces);
		run_sled(sled);
	}
	return 0;
}
