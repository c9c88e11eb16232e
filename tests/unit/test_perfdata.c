/* Unit tests of the perf.data reader on small recordings made here, byte
 * by byte: a sample whose call chain resolves to a function of this very
 * program (mapped as /proc/self/maps says) and to an address in no map;
 * records in time order across a round; unknown record types skipped;
 * truncated and malformed input refused with the offset; recordings the
 * reader does not support named as such; dwarf call graph samples
 * unwound, and cut ones refused; compressed records (perf record -z)
 * read through one zstd stream, records cut across two of them joined,
 * corrupt or cut streams refused; the pipe form (perf record -o -),
 * its attributes and event names from records, from memory and as a
 * stream read in pieces; the collapser fed.
 *
 * `test_perfdata DIR` also writes the recordings to DIR (the fuzz seeds
 * of tests/fuzz/corpus/perfdata come from there). */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>

#include "flamegraph/collapse.h"
#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"
#include "lib/perfdata/internal.h"
#include "util/arena.h"
#include "util/strbuf.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | \
		     PERF_SAMPLE_CALLCHAIN)

/* the function the samples land in */
__attribute__((noinline)) int perfdata_unit_marker(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

static struct {
	uint64_t start, end, pgoff;
	char path[4096];
} self_map;

/* The map of this program that holds perfdata_unit_marker. */
static int find_self_map(void **state)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];
	uintptr_t fn = (uintptr_t)&perfdata_unit_marker;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], path[4096] = "";
		char *p = line, *q;
		s = strtoull(p, &q, 16);
		e = strtoull(q + 1, &q, 16);
		p = q + 1;
		memcpy(perms, p, 4);
		perms[4] = '\0';
		off = strtoull(p + 5, &q, 16);
		q = strchr(q, '/');
		if (q) {
			size_t n = strcspn(q, "\n");
			memcpy(path, q, n < sizeof(path) - 1 ? n : sizeof(path) - 1);
		}
		if (fn >= s && fn < e) {
			self_map.start = s;
			self_map.end = e;
			self_map.pgoff = off;
			memcpy(self_map.path, path, sizeof(path));
			break;
		}
	}
	fclose(f);
	assert_true(self_map.end > self_map.start);
	return 0;
}

/* ---- a perf.data writer ---- */

typedef struct rec {
	fg_strbuf data;      /* the data section */
	uint64_t sample_type;
	uint64_t header_size;
	uint64_t regs_user;  /* the attribute's sample_regs_user */
	uint32_t compression; /* the compressed feature's type (1: zstd); 0: none */
	uint64_t attr_flags;  /* more attribute flags than sample_id_all */
	const char *const *cmdline; /* perf's command line (CMDLINE), NULL-ended */
} rec;

static void put(fg_strbuf *b, const void *p, size_t n)
{
	assert_int_equal(fg_strbuf_add(b, p, n), 0);
}

static void put64(fg_strbuf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(fg_strbuf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_header(fg_strbuf *b, uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;
	put32(b, type);
	put(b, &misc, 2);
	put(b, &s, 2);
}

/* sample_id_all trailer: pid, tid, time */
static void put_trailer(fg_strbuf *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
}

static void add_comm_misc(rec *r, uint32_t pid, uint32_t tid, const char *comm, uint64_t time,
			  uint16_t misc)
{
	char name[16] = { 0 };
	memcpy(name, comm, strlen(comm) < 15 ? strlen(comm) : 15);
	put_header(&r->data, PERF_RECORD_COMM, misc, 8 + 8 + 16 + 16);
	put32(&r->data, pid);
	put32(&r->data, tid);
	put(&r->data, name, 16);
	put_trailer(&r->data, pid, tid, time);
}

static void add_comm(rec *r, uint32_t pid, uint32_t tid, const char *comm, uint64_t time)
{
	add_comm_misc(r, pid, tid, comm, time, 0);
}

static void add_fork(rec *r, uint32_t pid, uint32_t ppid, uint64_t time)
{
	put_header(&r->data, PERF_RECORD_FORK, 0, 8 + 16 + 8 + 16);
	put32(&r->data, pid);
	put32(&r->data, ppid);
	put32(&r->data, pid);
	put32(&r->data, ppid);
	put64(&r->data, time);
	put_trailer(&r->data, pid, pid, time);
}

static void add_mmap(rec *r, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, uint64_t time)
{
	size_t n = (strlen(path) + 8) & ~(size_t)7;
	char *name = calloc(1, n);
	memcpy(name, path, strlen(path));
	put_header(&r->data, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 8 + 32 + n + 16);
	put32(&r->data, pid);
	put32(&r->data, pid);
	put64(&r->data, start);
	put64(&r->data, len);
	put64(&r->data, pgoff);
	put(&r->data, name, n);
	put_trailer(&r->data, pid, pid, time);
	free(name);
}

static void add_sample(rec *r, uint32_t pid, uint32_t tid, uint64_t time, uint64_t period,
		       const uint64_t *chain, size_t n)
{
	size_t i;
	put_header(&r->data, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 + 8 + 8 + 8 + 8 + 8 * n);
	put64(&r->data, n > 1 ? chain[1] : 0);
	put32(&r->data, pid);
	put32(&r->data, tid);
	put64(&r->data, time);
	put64(&r->data, period);
	put64(&r->data, n);
	for (i = 0; i < n; i++)
		put64(&r->data, chain[i]);
}

static void add_round(rec *r)
{
	put_header(&r->data, 68, 0, 8);
}

/* The whole file: header, one attribute (with a name in EVENT_DESC),
 * the data section, the feature table. *len gets its size. */
static char *finish(rec *r, size_t *len)
{
	fg_strbuf f = FG_STRBUF_INIT;
	const uint64_t attr_size = 128, attr_off = 104, data_off = attr_off + attr_size + 16;
	uint64_t feat_off, desc_off, desc_size;
	unsigned char attr[128] = { 0 };
	uint64_t flags = (1ull << 18) | r->attr_flags; /* sample_id_all */
	uint64_t bits[4] = { 1ull << 12, 0, 0, 0 }; /* EVENT_DESC */
	char evname[16] = "cpu-clock";
	fg_strbuf cmd = FG_STRBUF_INIT;

	if (r->compression)
		bits[0] |= 1ull << 27; /* COMPRESSED */
	if (r->cmdline) {
		uint32_t n = 0;
		bits[0] |= 1ull << 11; /* CMDLINE, first in the table */
		while (r->cmdline[n])
			n++;
		put32(&cmd, n);
		for (uint32_t i = 0; i < n; i++) {
			put32(&cmd, (uint32_t)strlen(r->cmdline[i]) + 1);
			put(&cmd, r->cmdline[i], strlen(r->cmdline[i]) + 1);
		}
	}

	memcpy(attr + 4, &(uint32_t){ 128 }, 4);
	memcpy(attr + 16, &(uint64_t){ 1000 }, 8);
	memcpy(attr + 24, &r->sample_type, 8);
	memcpy(attr + 40, &flags, 8);
	memcpy(attr + 80, &r->regs_user, 8);
	put(&f, "PERFILE2", 8);
	put64(&f, r->header_size ? r->header_size : 104);
	put64(&f, attr_size + 16);
	put64(&f, attr_off);
	put64(&f, attr_size + 16);
	put64(&f, data_off);
	put64(&f, r->data.len);
	put64(&f, 0);
	put64(&f, 0);
	put(&f, bits, sizeof(bits));
	assert_int_equal(f.len, 104);
	put(&f, attr, sizeof(attr));
	put64(&f, 0); /* no ids */
	put64(&f, 0);
	put(&f, r->data.buf, r->data.len);
	/* the feature table, then EVENT_DESC (and COMPRESSED) */
	feat_off = f.len;
	desc_off = feat_off + (r->compression ? 32 : 16) + (r->cmdline ? 16 : 0) + cmd.len;
	desc_size = 8 + 128 + 4 + 4 + 16;
	if (r->cmdline) {
		put64(&f, feat_off + (r->compression ? 48 : 32));
		put64(&f, cmd.len);
	}
	put64(&f, desc_off);
	put64(&f, desc_size);
	if (r->compression) {
		put64(&f, desc_off + desc_size);
		put64(&f, 20);
	}
	put(&f, cmd.buf, cmd.len);
	fg_strbuf_release(&cmd);
	put32(&f, 1);
	put32(&f, 128);
	put(&f, attr, sizeof(attr));
	put32(&f, 0);
	put32(&f, 16);
	put(&f, evname, 16);
	if (r->compression) {
		put32(&f, 1);              /* version */
		put32(&f, r->compression); /* type */
		put32(&f, 1);              /* level */
		put32(&f, 8);              /* ratio */
		put32(&f, 528384);         /* mmap_len */
	}
	fg_strbuf_release(&r->data);
	return fg_strbuf_detach(&f, len);
}

static void rec_init(rec *r)
{
	fg_strbuf empty = FG_STRBUF_INIT;
	r->data = empty;
	r->sample_type = SAMPLE_TYPE;
	r->header_size = 0;
	r->regs_user = 0;
	r->compression = 0;
	r->attr_flags = 0;
	r->cmdline = NULL;
}

static uint64_t marker_addr(void)
{
	return (uint64_t)(uintptr_t)&perfdata_unit_marker + 1;
}

/* comm "prog" at time 10, the map, one sample at 20 with the marker and
 * an address in no map; unknown records around it */
static char *simple_recording(size_t *len, bool unknown_records)
{
	rec r;
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, marker_addr(), 0x10 };

	rec_init(&r);
	add_comm(&r, 42, 42, "prog", 10);
	add_mmap(&r, 42, self_map.start, self_map.end - self_map.start, self_map.pgoff,
		 self_map.path, 11);
	if (unknown_records) {
		put_header(&r.data, 50, 0, 16); /* a kernel type from the future */
		put64(&r.data, 0);
		put_header(&r.data, 200, 0, 24); /* a user type from the future */
		put64(&r.data, 0);
		put64(&r.data, 0);
	}
	add_sample(&r, 42, 42, 20, 7, chain, 3);
	add_round(&r);
	return finish(&r, len);
}

/* perf's x86_64 register numbers of the stack and instruction pointers */
#define REG_SP 7
#define REG_IP 8
#define DWARF_REGS ((1ull << REG_SP) | (1ull << REG_IP))

/* The bytes of a dwarf call graph sample (record header included) at
 * ip: no kernel part, the user registers (SP, IP), a stack copy of
 * stack_size bytes (its first word ret, the others 0) of which dyn are
 * valid. */
static void dwarf_sample_at(fg_strbuf *b, uint64_t ip, uint64_t ret, uint64_t stack_size,
			    uint64_t dyn)
{
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, ip };
	size_t size = 8 + 8 + 8 + 8 + 8 + 8 + 8 * 2 + 8 + 16 + 8 + stack_size + (stack_size ? 8 : 0);
	uint64_t i;

	put_header(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, size);
	put64(b, ip);
	put32(b, 42);
	put32(b, 42);
	put64(b, 20);
	put64(b, 7);
	put64(b, 2);
	put(b, chain, sizeof(chain));
	put64(b, PERF_SAMPLE_REGS_ABI_64);
	put64(b, 0x7ffc0000); /* SP */
	put64(b, ip);         /* IP */
	put64(b, stack_size);
	for (i = 0; i < stack_size; i++)
		put(b, i < 8 ? (const char *)&ret + i : "", 1);
	if (stack_size)
		put64(b, dyn);
}

static void dwarf_sample(fg_strbuf *b, uint64_t stack_size, uint64_t dyn)
{
	dwarf_sample_at(b, marker_addr(), 0, stack_size, dyn);
}

static char *dwarf_recording_of(fg_strbuf *sample, size_t *len);

/* comm "prog", the map of the marker, one dwarf call graph sample;
 * sample_len (when not 0) cuts the sample record to that size. */
static char *dwarf_recording(size_t *len, size_t sample_len, uint64_t stack_size, uint64_t dyn)
{
	fg_strbuf sample = FG_STRBUF_INIT;

	dwarf_sample(&sample, stack_size, dyn);
	if (sample_len) {
		uint16_t s16 = (uint16_t)sample_len;
		memcpy(sample.buf + 6, &s16, 2);
		sample.len = sample_len;
	}
	return dwarf_recording_of(&sample, len);
}

/* The recording of one dwarf sample (the bytes of *sample, released). */
static char *dwarf_recording_of(fg_strbuf *sample, size_t *len)
{
	rec r;

	rec_init(&r);
	r.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	r.regs_user = DWARF_REGS;
	/* exclude_callchain_user, as perf's dwarf call graphs: the chain's
	 * user part is not the kernel's frame-pointer walk (hybrid.c) */
	r.attr_flags |= 1ull << 22;
	add_comm(&r, 42, 42, "prog", 10);
	add_mmap(&r, 42, self_map.start, self_map.end - self_map.start, self_map.pgoff,
		 self_map.path, 11);
	put(&r.data, sample->buf, sample->len);
	fg_strbuf_release(sample);
	add_round(&r);
	return finish(&r, len);
}

/* ---- collecting samples ---- */

struct got {
	int n;
	char comm[32];
	int32_t pid, tid;
	uint64_t period;
	char event[32];
	size_t nframes;
	char sym0[64], sym1[64];
	const char *mod1;
	bool sym1_null;
};

static int collect(void *ctx, const fg_perfdata_sample *s)
{
	struct got *g = ctx;

	g->n++;
	snprintf(g->comm, sizeof(g->comm), "%s", s->comm);
	g->pid = s->pid;
	g->tid = s->tid;
	g->period = s->period;
	snprintf(g->event, sizeof(g->event), "%s", s->event);
	g->nframes = s->nframes;
	if (s->nframes > 0)
		snprintf(g->sym0, sizeof(g->sym0), "%s", s->frames[0].sym ? s->frames[0].sym : "(null)");
	if (s->nframes > 1) {
		g->mod1 = s->frames[1].module;
		snprintf(g->sym1, sizeof(g->sym1), "%s", s->frames[1].sym ? s->frames[1].sym : "(null)");
		g->sym1_null = s->frames[1].sym == NULL;
	}
	return 0;
}

/* The one sample of the test recordings: "prog" in the marker, with
 * a caller, period 7, of the event named. */
static void assert_marker_sample(const struct got *g, const char *event)
{
	assert_int_equal(g->n, 1);
	assert_string_equal(g->comm, "prog");
	assert_int_equal(g->period, 7);
	assert_string_equal(g->event, event);
	assert_int_equal(g->nframes, 2);
	assert_string_equal(g->sym0, "perfdata_unit_marker");
}

static fg_perfdata_opts test_opts(void)
{
	fg_perfdata_opts o = FG_PERFDATA_OPTS_INIT;
	o.kallsyms = "/nonexistent/kallsyms";
	o.debug_dir = "/nonexistent/debug";
	return o;
}

static void test_sample_resolved(void **state)
{
	size_t len;
	char *buf = simple_recording(&len, false);
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	struct got g;
	fg_perfdata_stats st;

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(fg_perfdata_open_mem(&r, "mem.data", buf, len, &o), 0);
	assert_null(fg_perfdata_unsupported(r));
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.comm, "prog");
	assert_int_equal(g.pid, 42);
	assert_int_equal(g.tid, 42);
	assert_int_equal(g.period, 7);
	assert_string_equal(g.event, "cpu-clock");
	assert_int_equal(g.nframes, 2);
	assert_string_equal(g.sym0, "perfdata_unit_marker");
	assert_null(g.mod1);
	assert_true(g.sym1_null);
	fg_perfdata_reader_stats(r, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.modules, 1);
	/* twice is an error */
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), FG_EINVAL);
	fg_perfdata_free(r);
	free(buf);
}

static void test_unknown_records(void **state)
{
	size_t len;
	char *buf = simple_recording(&len, true);
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	fg_perfdata_stats st;
	struct got g;

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(fg_perfdata_open_mem(&r, "mem.data", buf, len, &o), 0);
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.sym0, "perfdata_unit_marker");
	fg_perfdata_reader_stats(r, &st);
	assert_int_equal(st.skipped, 1);
	fg_perfdata_free(r);
	free(buf);
}

/* A program started held under perf -p: a sample of the launcher before
 * the exec, one of the program after it, one of a child it forked.
 * comm_exec: the attribute says COMM records mark execs. */
static char *exec_recording(size_t *len, bool comm_exec, const char *const *cmdline)
{
	rec r;
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, marker_addr(), 0x10 };
	uint64_t size = self_map.end - self_map.start;

	rec_init(&r);
	r.cmdline = cmdline;
	if (comm_exec)
		r.attr_flags = 1ull << 24;
	add_comm(&r, 42, 42, "flamegraph", 10);
	add_mmap(&r, 42, self_map.start, size, self_map.pgoff, self_map.path, 11);
	add_sample(&r, 42, 42, 20, 7, chain, 3);
	add_comm_misc(&r, 42, 42, "prog", 30, PERF_RECORD_MISC_COMM_EXEC);
	add_mmap(&r, 42, self_map.start, size, self_map.pgoff, self_map.path, 31);
	add_sample(&r, 42, 42, 40, 7, chain, 3);
	add_fork(&r, 43, 42, 50);
	add_sample(&r, 43, 43, 60, 7, chain, 3);
	add_round(&r);
	return finish(&r, len);
}

static void test_from_exec(void **state)
{
	static const char *const held[] = { "/usr/bin/perf", "record", "-g", "-D", "-1",
					    "--control=fifo:/tmp/c,/tmp/a", "-p", "42", NULL };
	static const char *const plain[] = { "/usr/bin/perf", "record", "-g", "--", "./prog", NULL };
	static const struct {
		bool comm_exec, from_exec, if_held;
		const char *const *cmdline;
		uint64_t n, before;
		const char *comm;
	} cases[] = {
		{ true, true, false, NULL, 2, 1, "prog" },   /* the launcher's sample left out */
		{ true, false, false, NULL, 3, 0, "prog" },  /* kept when not asked */
		{ false, true, false, NULL, 3, 0, "prog" },  /* execs not marked: all kept */
		/* a kept recording read again: its command line says how it was made */
		{ true, false, true, held, 2, 1, "prog" },
		{ true, false, true, plain, 3, 0, "prog" },
		{ true, false, true, NULL, 3, 0, "prog" },
		{ true, false, false, held, 3, 0, "prog" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		size_t len;
		char *buf = exec_recording(&len, cases[i].comm_exec, cases[i].cmdline);
		fg_perfdata_opts o = test_opts();
		fg_perfdata *r = NULL;
		fg_perfdata_stats st;
		struct got g;

		memset(&g, 0, sizeof(g));
		o.from_exec = cases[i].from_exec;
		o.from_exec_if_held = cases[i].if_held;
		assert_int_equal(fg_perfdata_open_mem(&r, "mem.data", buf, len, &o), 0);
		assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
		fg_perfdata_reader_stats(r, &st);
		assert_int_equal(g.n, cases[i].n);
		assert_int_equal(st.samples, cases[i].n);
		assert_int_equal(st.before_exec, cases[i].before);
		/* the last sample: the forked child, named as its parent */
		assert_int_equal(g.pid, 43);
		assert_string_equal(g.comm, cases[i].comm);
		fg_perfdata_free(r);
		free(buf);
	}
}

/* A LOST record: id, lost, then the sample_id_all trailer. */
static void add_lost(rec *r, uint64_t lost, uint64_t time)
{
	put_header(&r->data, PERF_RECORD_LOST, 0, 8 + 16 + 16);
	put64(&r->data, 1);
	put64(&r->data, lost);
	put_trailer(&r->data, 42, 42, time);
}

/* A LOST_SAMPLES record: lost, then the trailer. */
static void add_lost_samples(rec *r, uint64_t lost, uint64_t time)
{
	put_header(&r->data, PERF_RECORD_LOST_SAMPLES, 0, 8 + 8 + 16);
	put64(&r->data, lost);
	put_trailer(&r->data, 42, 42, time);
}

/* Lost samples: perf's LOST records during the recording and its
 * LOST_SAMPLES at the end tell of the same drops, so the larger of the
 * two sums counts, never both. */
static void test_lost(void **state)
{
	static const struct {
		uint64_t lost[2], lost_samples, want;
	} cases[] = { { { 3, 4 }, 7, 7 }, { { 3, 4 }, 0, 7 }, { { 0, 0 }, 5, 5 }, { { 9, 0 }, 5, 9 } };
	fg_perfdata_opts o = test_opts();
	fg_perfdata_stats st;
	fg_perfdata *r = NULL;
	struct got g;
	size_t i, len;
	char *buf;
	rec rr;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rec_init(&rr);
		if (cases[i].lost[0])
			add_lost(&rr, cases[i].lost[0], 1);
		if (cases[i].lost[1])
			add_lost(&rr, cases[i].lost[1], 2);
		if (cases[i].lost_samples)
			add_lost_samples(&rr, cases[i].lost_samples, 3);
		add_round(&rr);
		buf = finish(&rr, &len);
		assert_int_equal(fg_perfdata_open_mem(&r, "lost.data", buf, len, &o), 0);
		memset(&g, 0, sizeof(g));
		assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
		fg_perfdata_reader_stats(r, &st);
		assert_int_equal(st.lost, cases[i].want);
		fg_perfdata_free(r);
		free(buf);
	}
}

/* Records of one round are handled in time order: a comm written after
 * the sample but older than it names the sample's thread; one newer than
 * the sample does not. */
static void test_time_order(void **state)
{
	rec rr;
	size_t len;
	char *buf;
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, marker_addr() };
	struct got g;

	(void)state;
	rec_init(&rr);
	add_mmap(&rr, 42, self_map.start, self_map.end - self_map.start, self_map.pgoff,
		 self_map.path, 1);
	add_sample(&rr, 42, 42, 100, 1, chain, 2);
	add_comm(&rr, 42, 42, "early", 50);
	add_comm(&rr, 42, 42, "late", 200);
	add_round(&rr);
	buf = finish(&rr, &len);
	memset(&g, 0, sizeof(g));
	assert_int_equal(fg_perfdata_open_mem(&r, "mem.data", buf, len, &o), 0);
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.comm, "early");
	fg_perfdata_free(r);
	free(buf);
	/* a thread the recording never named: ":TID", as perf shows it */
	rec_init(&rr);
	add_sample(&rr, 42, 44, 100, 1, chain, 2);
	buf = finish(&rr, &len);
	memset(&g, 0, sizeof(g));
	assert_int_equal(fg_perfdata_open_mem(&r, "mem.data", buf, len, &o), 0);
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
	assert_string_equal(g.comm, ":44");
	assert_string_equal(g.sym0, "(null)"); /* no map: not symbolized */
	fg_perfdata_free(r);
	free(buf);
}

/* Every truncation is refused or read, never a crash; those that cut the
 * data section say where. */
static void test_truncated(void **state)
{
	size_t len, cut;
	char *buf = simple_recording(&len, true);
	fg_perfdata_opts o = test_opts();

	(void)state;
	for (cut = 0; cut < len; cut++) {
		fg_perfdata *r = NULL;
		struct got g;
		int err = fg_perfdata_open_mem(&r, "cut.data", buf, cut, &o);
		memset(&g, 0, sizeof(g));
		if (!err)
			err = fg_perfdata_foreach(r, collect, &g);
		if (cut < 104 + 144 + 8) {
			assert_int_equal(err, FG_EPARSE);
			assert_non_null(strstr(fg_error_last(), "cut.data: offset "));
		}
		fg_perfdata_free(r);
	}
	free(buf);
}

static void test_malformed_record(void **state)
{
	rec rr;
	size_t len;
	char *buf;
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	struct got g;

	(void)state;
	rec_init(&rr);
	add_comm(&rr, 1, 1, "x", 1);
	put_header(&rr.data, PERF_RECORD_SAMPLE, 0, 4); /* smaller than a header */
	put32(&rr.data, 0);
	buf = finish(&rr, &len);
	memset(&g, 0, sizeof(g));
	assert_int_equal(fg_perfdata_open_mem(&r, "bad.data", buf, len, &o), 0);
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), FG_EPARSE);
	assert_string_equal(fg_error_last(), "bad.data: offset 296: record smaller than its header");
	fg_perfdata_free(r);
	free(buf);
	/* a call chain longer than its record */
	rec_init(&rr);
	put_header(&rr.data, PERF_RECORD_SAMPLE, 0, 48);
	put64(&rr.data, 1);
	put64(&rr.data, 1);
	put64(&rr.data, 1);
	put64(&rr.data, 1);
	put64(&rr.data, 1000);
	buf = finish(&rr, &len);
	assert_int_equal(fg_perfdata_open_mem(&r, "bad.data", buf, len, &o), 0);
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "call chain longer than its record"));
	fg_perfdata_free(r);
	free(buf);
	/* not a perf.data at all */
	assert_int_equal(fg_perfdata_open_mem(&r, "text", "hello, world\n", 13, &o), FG_EPARSE);
	assert_null(r);
}

static void test_unsupported(void **state)
{
	rec rr;
	size_t len;
	char *buf;
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	struct got g;

	(void)state;
	rec_init(&rr);
	rr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	buf = finish(&rr, &len);
	assert_int_equal(fg_perfdata_open_mem(&r, "dwarf.data", buf, len, &o), 0);
	assert_non_null(fg_perfdata_unsupported(r));
	assert_non_null(strstr(fg_perfdata_unsupported(r), "dwarf"));
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), FG_EINVAL);
	fg_perfdata_free(r);
	free(buf);
}

/* A dwarf call graph sample: its user frames come from unwinding its
 * registers and stack copy (here: the marker, whose caller's address
 * the zeroed stack copy does not hold); a sample cut anywhere in its
 * registers or stack copy is refused with the offset, never read past
 * its end; sizes beyond the record are refused too. */
static void test_dwarf_sample(void **state)
{
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	struct got g;
	size_t len, full, cut;
	char *buf;

	(void)state;
	buf = dwarf_recording(&len, 0, 64, 64);
	assert_int_equal(fg_perfdata_open_mem(&r, "dwarf.data", buf, len, &o), 0);
	assert_null(fg_perfdata_unsupported(r));
	memset(&g, 0, sizeof(g));
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_true(g.nframes >= 1);
	assert_string_equal(g.sym0, "perfdata_unit_marker");
	fg_perfdata_free(r);
	free(buf);
	/* every cut from the start of the user registers on */
	full = 8 + 8 + 8 + 8 + 8 + 8 + 8 * 2 + 8 + 16 + 8 + 64 + 8;
	for (cut = full - 8 - 64 - 8 - 16 - 8; cut < full; cut++) {
		buf = dwarf_recording(&len, cut, 64, 64);
		assert_int_equal(fg_perfdata_open_mem(&r, "cut.data", buf, len, &o), 0);
		memset(&g, 0, sizeof(g));
		assert_int_equal(fg_perfdata_foreach(r, collect, &g), FG_EPARSE);
		assert_non_null(strstr(fg_error_last(), "cut.data: offset "));
		assert_int_equal(g.n, 0);
		fg_perfdata_free(r);
		free(buf);
	}
	/* a valid size beyond the copy: only the copy is read */
	buf = dwarf_recording(&len, 0, 16, 1u << 20);
	assert_int_equal(fg_perfdata_open_mem(&r, "dyn.data", buf, len, &o), 0);
	memset(&g, 0, sizeof(g));
	assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
	assert_int_equal(g.n, 1);
	fg_perfdata_free(r);
	free(buf);
}

/* The recording at buf read from a file (the reader's pread path) and
 * from memory: the same result, *g of the file. */
static int foreach_both(const char *buf, size_t len, struct got *g)
{
	fg_perfdata_opts o = test_opts();
	const char *dir = getenv("TMPDIR");
	char path[4096];
	fg_perfdata *r = NULL;
	struct got m;
	int fd, err, merr;

	snprintf(path, sizeof(path), "%s/trim.XXXXXX", dir && *dir ? dir : "/tmp");
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	assert_int_equal(fg_perfdata_open(&r, path, &o), 0);
	memset(g, 0, sizeof(*g));
	err = fg_perfdata_foreach(r, collect, g);
	fg_perfdata_free(r);
	unlink(path);
	assert_int_equal(fg_perfdata_open_mem(&r, "trim.data", buf, len, &o), 0);
	memset(&m, 0, sizeof(m));
	merr = fg_perfdata_foreach(r, collect, &m);
	fg_perfdata_free(r);
	assert_int_equal(err, merr);
	assert_int_equal(g->n, m.n);
	assert_int_equal(g->nframes, m.nframes);
	return err;
}

/* Samples with stack copies of dwarf recordings' sizes are kept
 * without the part the kernel did not fill, and of a large copy only
 * the first kilobytes, the rest read when unwinding asks: with any
 * valid size, in the copy or beyond it, read from a file or memory, the
 * sample is unwound as before; one cut inside its copy or after it is
 * refused. Copies of perf's default size (8 KB) are read with the
 * records after them, the largest (64 KB) in parts. */
static void test_dwarf_trimmed(void **state)
{
	static const uint64_t valid[] = { 0, 8, 100, 4096, 4100, 8184, 8192, 20000, 65000, 1u << 20 };
	static const uint64_t copies[] = { 8192, 65000 }; /* the record fits 64 KB */
	struct got g;
	size_t len, i, k, full, cut;
	char *buf;

	(void)state;
	for (k = 0; k < sizeof(copies) / sizeof(copies[0]); k++) {
		uint64_t copy = copies[k];
		for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
			buf = dwarf_recording(&len, 0, copy, valid[i]);
			assert_int_equal(foreach_both(buf, len, &g), 0);
			assert_int_equal(g.n, 1);
			/* nothing valid: no user frames, as perf gives none */
			if (valid[i])
				assert_string_equal(g.sym0, "perfdata_unit_marker");
			else
				assert_int_equal(g.nframes, 0);
			free(buf);
		}
		full = 8 + 8 + 8 + 8 + 8 + 8 + 8 * 2 + 8 + 16 + 8 + copy + 8;
		for (cut = full - 8 - copy - 8; cut < full; cut += cut < full - 64 ? 509 : 1) {
			buf = dwarf_recording(&len, cut, copy, 100);
			assert_int_equal(foreach_both(buf, len, &g), FG_EPARSE);
			assert_non_null(strstr(fg_error_last(), "trim.data: offset "));
			assert_int_equal(g.n, 0);
			free(buf);
		}
	}
}

static int first_object(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	*(uint64_t *)out = info->dlpi_addr;
	return 1;
}

/* The ELF address of the first entry of this program's PLT that keeps
 * the return address at the stack pointer (.plt.sec's first, else
 * .plt's first after its header); 0: none. */
static uint64_t plt_entry(void)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL, str;
	char *names = NULL;
	uint64_t found = 0;
	size_t i;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1 || eh.e_shentsize != sizeof(*sh) ||
	    !(sh = calloc(eh.e_shnum, sizeof(*sh))) || fseek(f, (long)eh.e_shoff, SEEK_SET) ||
	    fread(sh, sizeof(*sh), eh.e_shnum, f) != eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
		goto done;
	str = sh[eh.e_shstrndx];
	if (!(names = calloc(1, str.sh_size + 1)) || fseek(f, (long)str.sh_offset, SEEK_SET) ||
	    fread(names, 1, str.sh_size, f) != str.sh_size)
		goto done;
	for (i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_name >= str.sh_size)
			continue;
		if (!strcmp(names + sh[i].sh_name, ".plt.sec") && sh[i].sh_size)
			found = sh[i].sh_addr;
		else if (!strcmp(names + sh[i].sh_name, ".plt") && sh[i].sh_size > 16 && !found)
			found = sh[i].sh_addr + 16;
	}
done:
	free(names);
	free(sh);
	if (f)
		fclose(f);
	return found;
}

/* The frames of a sample: how many, and the addresses of the first 8. */
struct got_addrs {
	size_t nframes;
	uint64_t addr[8];
	const char *mod[8];
};

static int collect_addrs(void *ctx, const fg_perfdata_sample *s)
{
	struct got_addrs *g = ctx;
	size_t i;

	g->nframes = s->nframes;
	for (i = 0; i < s->nframes && i < 8; i++) {
		g->addr[i] = s->frames[i].addr;
		g->mod[i] = s->frames[i].module;
	}
	return 0;
}

/* A hybrid sample (hybrid.c): the kernel's frame-pointer walk of the
 * user stack in its chain (the attribute does not exclude it) beside
 * registers and a stack copy. Sampled at the marker's first byte, the
 * copy holding its return address alone (into the marker again, so that
 * the rules are known; the next one is past the copy); the chain, as if the caller had frame pointers, has
 * that return address and an outer one, beyond the copy. The stack is
 * the rules' frames up to the return address both have, then the
 * chain's outer frame (an address in no map). With exclude_callchain_user
 * (perf's dwarf call graphs) the same sample is unwound from its copy
 * alone, and has no such frame. */
static void test_hybrid_sample(void **state)
{
	fg_perfdata_opts o = test_opts();
	const uint64_t outer = 0x1234567;
	uint64_t ip = marker_addr(), ret = marker_addr() + 1;
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, ip, ret, outer };
	size_t size = 8 + 8 + 8 + 8 + 8 + 8 + 8 * 4 + 8 + 16 + 8 + 8 + 8, len, i;
	struct got_addrs g;
	fg_perfdata *r = NULL;
	fg_strbuf b = FG_STRBUF_INIT;
	char *buf;
	rec re;

	(void)state;
	for (int excluded = 0; excluded < 2; excluded++) {
		fg_strbuf_reset(&b);
		put_header(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, size);
		put64(&b, ip);
		put32(&b, 42);
		put32(&b, 42);
		put64(&b, 20);
		put64(&b, 7);
		put64(&b, 4);
		put(&b, chain, sizeof(chain));
		put64(&b, PERF_SAMPLE_REGS_ABI_64);
		put64(&b, 0x7ffc0000); /* SP */
		put64(&b, ip);         /* IP */
		put64(&b, 8);
		put64(&b, ret);
		put64(&b, 8);
		rec_init(&re);
		re.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		re.regs_user = DWARF_REGS;
		if (excluded)
			re.attr_flags |= 1ull << 22;
		add_comm(&re, 42, 42, "prog", 10);
		add_mmap(&re, 42, self_map.start, self_map.end - self_map.start, self_map.pgoff,
			 self_map.path, 11);
		put(&re.data, b.buf, b.len);
		add_round(&re);
		buf = finish(&re, &len);
		assert_int_equal(fg_perfdata_open_mem(&r, "hybrid.data", buf, len, &o), 0);
		memset(&g, 0, sizeof(g));
		assert_int_equal(fg_perfdata_foreach(r, collect_addrs, &g), 0);
		assert_true(g.nframes >= 2);
		if (!excluded) {
			assert_int_equal(g.nframes, 3);
			assert_int_equal(g.addr[2], outer - 1);
			assert_null(g.mod[2]);
		} else {
			for (i = 0; i < g.nframes && i < 8; i++)
				assert_int_not_equal(g.addr[i], outer - 1);
		}
		fg_perfdata_free(r);
		free(buf);
	}
	fg_strbuf_release(&b);
}

/* A dwarf sample in a PLT entry: the entry's frame, then its caller
 * (the return address on top of the stack: here in the marker), named
 * at its call instruction. */
static void test_dwarf_plt(void **state)
{
	fg_perfdata_opts o = test_opts();
	fg_strbuf sample = FG_STRBUF_INIT;
	fg_perfdata *r = NULL;
	uint64_t bias = 0, entry = plt_entry(), ip;
	struct got g;
	size_t len;
	char *buf;

	(void)state;
	dl_iterate_phdr(first_object, &bias);
	ip = bias + entry;
	if (!entry || ip < self_map.start || ip >= self_map.end)
		skip(); /* no PLT in the marker's map */
	/* the caller is looked up at its call, the byte before the return
	 * address: a return address at the marker's first byte is a call
	 * from before the marker */
	for (int k = 0; k < 2; k++) {
		dwarf_sample_at(&sample, ip, marker_addr() - (uint64_t)k, 64, 64);
		buf = dwarf_recording_of(&sample, &len);
		assert_int_equal(fg_perfdata_open_mem(&r, "plt.data", buf, len, &o), 0);
		memset(&g, 0, sizeof(g));
		assert_int_equal(fg_perfdata_foreach(r, collect, &g), 0);
		assert_int_equal(g.n, 1);
		assert_true(g.nframes >= 2);
		assert_non_null(strstr(g.sym0, "@plt"));
		if (k == 0)
			assert_string_equal(g.sym1, "perfdata_unit_marker");
		else
			assert_string_not_equal(g.sym1, "perfdata_unit_marker");
		fg_perfdata_free(r);
		free(buf);
	}
}

/* The sample formats of dwarf call graphs this reader does not unwind. */
static void test_dwarf_unsupported(void **state)
{
	static const struct {
		uint64_t sample_type, regs;
	} cases[] = {
		{ PERF_SAMPLE_REGS_USER, DWARF_REGS },
		{ PERF_SAMPLE_STACK_USER, DWARF_REGS },
		{ PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 1ull << REG_IP },
		{ PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, DWARF_REGS | (1ull << 40) },
		{ PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_BRANCH_STACK, DWARF_REGS },
	};
	fg_perfdata_opts o = test_opts();
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fg_perfdata *r = NULL;
		rec rr;
		char *buf;
		rec_init(&rr);
		rr.sample_type |= cases[i].sample_type;
		rr.regs_user = cases[i].regs;
		buf = finish(&rr, &len);
		assert_int_equal(fg_perfdata_open_mem(&r, "dwarf.data", buf, len, &o), 0);
		assert_non_null(fg_perfdata_unsupported(r));
		assert_non_null(strstr(fg_perfdata_unsupported(r), "dwarf"));
		fg_perfdata_free(r);
		free(buf);
	}
}

static void test_collapse(void **state)
{
	size_t len;
	char *buf = simple_recording(&len, false);
	fg_perfdata_opts o = test_opts();
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_perfdata *r = NULL;
	fg_collapser *c = NULL;
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	(void)state;
	co.include_tid = true;
	co.nthreads = 1;
	assert_int_equal(fg_perfdata_open_mem(&r, "mem.data", buf, len, &o), 0);
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &co), 0);
	assert_int_equal(fg_perfdata_collapse(r, c), 0);
	assert_int_equal(fg_collapser_finish(c), 0);
	f = open_memstream(&out, &outlen);
	assert_int_equal(fg_collapser_write(c, f), 0);
	fclose(f);
	assert_string_equal(out, "prog-42/42;[unknown];perfdata_unit_marker 7\n");
	free(out);
	fg_collapser_free(c);
	fg_perfdata_free(r);
	free(buf);
}

/* C++ names as perf shows them (after the collapser drops parameters):
 * no return type on template instances, operators kept whole. */
static void test_demangle(void **state)
{
	static const struct {
		const char *mangled, *want;
	} cases[] = {
		{ "main", "main" },
		{ "_Znot_really", "_Znot_really" },
		{ "_ZN4work5churnIlEElRSt3mapIT_lSt4lessIS2_ESaISt4pairIKS2_lEEEi",
		  "work::churn<long>(std::map<long, long, std::less<long>, "
		  "std::allocator<std::pair<long const, long> > >&, int)" },
		{ "_ZN4work3AccIdE3addERKd.isra.0", "work::Acc<double>::add(double const&) [clone .isra.0]" },
		{ "_ZN4work3AccIdEpLEi", "work::Acc<double>::operator+=(int)" },
		{ "_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()(int) const" },
		{ "_Znwm", "operator new(unsigned long)" },
		{ "_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()" },
		{ "_Z3maxIiET_S0_S0_", "max<int>(int, int)" },
	};
	fg_arena a = FG_ARENA_INIT;
	size_t i;

	(void)state;
	/* skipped only where the C++ runtime is missing: a demangler that
	 * gives names back unchanged while libstdc++ is there fails */
	void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!cxx || !dlsym(cxx, "__cxa_demangle")) {
		if (cxx)
			dlclose(cxx);
		fg_arena_release(&a);
		skip(); /* no libstdc++ here */
	}
	dlclose(cxx);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(pd_demangle(&a, cases[i].mangled), cases[i].want);
	fg_arena_release(&a);
}

/* ---- compressed records ---- */

/* Appends one compressed record holding the next part of the zstd
 * stream cs: the n bytes at p compressed and flushed, as perf does at
 * the end of each buffer it writes. type 81: COMPRESSED; 83:
 * COMPRESSED2 (the data's size first, the data padded to 8 bytes). */
static void add_compressed(rec *r, ZSTD_CCtx *cs, const void *p, size_t n, uint32_t type)
{
	size_t cap = ZSTD_compressBound(n) + 64, ret;
	unsigned char *out = malloc(cap);
	ZSTD_inBuffer in = { p, n, 0 };
	ZSTD_outBuffer o = { out, cap, 0 };

	assert_non_null(out);
	do {
		ret = ZSTD_compressStream2(cs, &o, &in, ZSTD_e_flush);
		assert_false(ZSTD_isError(ret));
	} while (ret);
	assert_true(o.pos < 60000);
	if (type == 83) {
		size_t padded = (o.pos + 7) & ~(size_t)7;
		put_header(&r->data, 83, 0, 16 + padded);
		put64(&r->data, o.pos);
		put(&r->data, out, o.pos);
		put(&r->data, "\0\0\0\0\0\0\0", padded - o.pos);
	} else {
		put_header(&r->data, 81, 0, 8 + o.pos);
		put(&r->data, out, o.pos);
	}
	free(out);
}

/* The records of simple_recording (comm, map, sample), into *plain. */
static void simple_records(rec *plain)
{
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, marker_addr(), 0x10 };

	rec_init(plain);
	add_comm(plain, 42, 42, "prog", 10);
	add_mmap(plain, 42, self_map.start, self_map.end - self_map.start, self_map.pgoff,
		 self_map.path, 11);
	add_sample(plain, 42, 42, 20, 7, chain, 3);
}

/* The records of simple_recording in compressed records of the given
 * type: one, or two when cut is not 0 (the stream flushed after cut
 * bytes, which may fall inside a record; without the second record
 * when cut_short). The round's end stays outside, as perf writes it. */
static char *compressed_recording(size_t *len, size_t cut, uint32_t type, bool cut_short)
{
	rec plain, r;
	ZSTD_CCtx *cs = ZSTD_createCCtx();

	assert_non_null(cs);
	simple_records(&plain);
	rec_init(&r);
	r.compression = 1;
	add_compressed(&r, cs, plain.data.buf, cut ? cut : plain.data.len, type);
	if (cut && !cut_short)
		add_compressed(&r, cs, plain.data.buf + cut, plain.data.len - cut, type);
	add_round(&r);
	ZSTD_freeCCtx(cs);
	fg_strbuf_release(&plain.data);
	return finish(&r, len);
}

/* Reads buf: *g gets the samples; returns foreach's result (or open's). */
static int read_all(const char *name, const char *buf, size_t len, struct got *g)
{
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	int err;

	memset(g, 0, sizeof(*g));
	if ((err = fg_perfdata_open_mem(&r, name, buf, len, &o)))
		return err;
	err = fg_perfdata_foreach(r, collect, g);
	fg_perfdata_free(r);
	return err;
}

/* The sample of compressed records reads as the plain one, wherever
 * the stream is cut into records (inside any record too), in both kinds
 * of compressed records. */
static void test_compressed(void **state)
{
	static const uint32_t types[] = { 81, 83 };
	size_t t, cut, len, plain_len;
	rec plain;

	(void)state;
	simple_records(&plain);
	plain_len = plain.data.len;
	fg_strbuf_release(&plain.data);
	for (t = 0; t < 2; t++) {
		for (cut = 0; cut < plain_len; cut++) {
			char *buf = compressed_recording(&len, cut, types[t], false);
			struct got g;
			assert_int_equal(read_all("z.data", buf, len, &g), 0);
			assert_marker_sample(&g, "cpu-clock");
			free(buf);
		}
	}
}

/* Corrupt or cut compressed data is refused with the offset of its
 * compressed record, never read past its end. */
static void test_compressed_corrupt(void **state)
{
	const uint64_t data_off = 104 + 144;
	size_t len, i;
	char *buf;
	struct got g;
	rec rr;

	(void)state;
	/* not zstd at all */
	rec_init(&rr);
	rr.compression = 1;
	put_header(&rr.data, 81, 0, 8 + 16);
	put(&rr.data, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 16);
	buf = finish(&rr, &len);
	assert_int_equal(read_all("bad.data", buf, len, &g), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "bad.data: offset 248: corrupt compressed data (zstd: "));
	free(buf);
	/* the stream ends inside the sample */
	buf = compressed_recording(&len, 150, 81, true);
	assert_int_equal(read_all("cut.data", buf, len, &g), FG_EPARSE);
	assert_string_equal(fg_error_last(), "cut.data: offset 248: compressed data ends inside a "
			    "record (the recording was cut short?)");
	assert_int_equal(g.n, 0);
	free(buf);
	/* COMPRESSED2 whose data size passes its end */
	buf = compressed_recording(&len, 0, 83, false);
	memcpy(buf + data_off + 8, &(uint64_t){ 1u << 20 }, 8);
	assert_int_equal(read_all("big.data", buf, len, &g), FG_EPARSE);
	assert_string_equal(fg_error_last(), "big.data: offset 248: compressed data larger than its record");
	free(buf);
	/* every byte of the compressed data changed in turn: read or refused
	 * with the offset, never a crash (run under the sanitizers) */
	buf = compressed_recording(&len, 0, 81, false);
	for (i = data_off + 8; i < data_off + pd_u16((const unsigned char *)buf + data_off + 6); i++) {
		char *copy = malloc(len);
		int err;
		assert_non_null(copy);
		memcpy(copy, buf, len);
		copy[i] ^= 0x5a;
		err = read_all("flip.data", copy, len, &g);
		if (err) {
			assert_int_equal(err, FG_EPARSE);
			assert_non_null(strstr(fg_error_last(), "flip.data: offset "));
		}
		free(copy);
	}
	free(buf);
}

/* A malformed record inside compressed data: refused, with the offset
 * of the compressed record it came out of. */
static void test_compressed_bad_record(void **state)
{
	ZSTD_CCtx *cs = ZSTD_createCCtx();
	fg_strbuf plain = FG_STRBUF_INIT;
	size_t len;
	struct got g;
	char *buf;
	rec rr;

	(void)state;
	put_header(&plain, PERF_RECORD_SAMPLE, 0, 4);
	put32(&plain, 0);
	rec_init(&rr);
	rr.compression = 1;
	add_compressed(&rr, cs, plain.buf, plain.len, 81);
	buf = finish(&rr, &len);
	assert_int_equal(read_all("rec.data", buf, len, &g), FG_EPARSE);
	assert_string_equal(fg_error_last(),
			    "rec.data: offset 248: in its decompressed records: record smaller than its header");
	free(buf);
	fg_strbuf_release(&plain);
	ZSTD_freeCCtx(cs);
	/* another compression than zstd: perf script reads it */
	rec_init(&rr);
	rr.compression = 2;
	buf = finish(&rr, &len);
	{
		fg_perfdata_opts o = test_opts();
		fg_perfdata *r = NULL;
		assert_int_equal(fg_perfdata_open_mem(&r, "lz.data", buf, len, &o), 0);
		assert_non_null(fg_perfdata_unsupported(r));
		assert_non_null(strstr(fg_perfdata_unsupported(r), "compressed"));
		fg_perfdata_free(r);
	}
	free(buf);
}

/* Decompressed chunks live while records of them are queued, and no
 * longer: memory is bounded by a round, not by the recording. */
static void test_chunks_freed(void **state)
{
	ZSTD_CCtx *cs = ZSTD_createCCtx();
	rec part;
	pd_inflater z;
	pd_chunk *a, *b, *c;
	const char *why;
	const unsigned char *data;

	(void)state;
	rec_init(&part);
	add_compressed(&part, cs, "0123456789abcdef", 16, 81);
	add_compressed(&part, cs, "ghijklmnopqrstuv", 16, 81);
	add_compressed(&part, cs, "wxyz", 4, 81);
	data = (const unsigned char *)part.data.buf;
	pd_inflater_init(&z);
	assert_int_equal(pd_inflate(&z, 0, data + 8, pd_u16(data + 6) - 8u, 0, &a, &why), 0);
	assert_int_equal(a->len, 16);
	a->refs = 1; /* a record of a is queued */
	data += pd_u16(data + 6);
	/* b takes a's last 4 bytes (a record cut there) */
	assert_int_equal(pd_inflate(&z, 1, data + 8, pd_u16(data + 6) - 8u, 4, &b, &why), 0);
	assert_int_equal(b->len, 20);
	assert_memory_equal(b->data, "cdefghijklmnopqrstuv", 20);
	assert_ptr_equal(z.chunks.first, a);
	pd_chunk_unref(a); /* handled: a goes */
	assert_ptr_equal(z.chunks.first, b);
	/* b, with nothing queued, goes as soon as c has its tail */
	data += pd_u16(data + 6);
	assert_int_equal(pd_inflate(&z, 2, data + 8, pd_u16(data + 6) - 8u, 0, &c, &why), 0);
	assert_memory_equal(c->data, "wxyz", 4);
	assert_ptr_equal(z.chunks.first, c);
	assert_ptr_equal(z.chunks.last, c);
	pd_chunk_unref(c); /* the newest stays */
	assert_ptr_equal(z.chunks.first, c);
	pd_inflater_release(&z);
	fg_strbuf_release(&part.data);
	ZSTD_freeCCtx(cs);
}

/* ---- the pipe form ---- */

/* The pipe form of a recording (perf record -o -): the 16-byte header,
 * the attribute in a HEADER_ATTR record (id 7), its name in an
 * EVENT_UPDATE record, the compressed feature in a HEADER_FEATURE record
 * when r has it, FINISHED_INIT, then the records of r. */
static char *pipe_finish(rec *r, size_t *len)
{
	fg_strbuf f = FG_STRBUF_INIT;
	unsigned char attr[128] = { 0 };
	uint64_t flags = (1ull << 18); /* sample_id_all */
	char name[16] = "cpu-clock:pipe";

	memcpy(attr + 4, &(uint32_t){ 128 }, 4);
	memcpy(attr + 16, &(uint64_t){ 1000 }, 8);
	memcpy(attr + 24, &r->sample_type, 8);
	memcpy(attr + 40, &flags, 8);
	memcpy(attr + 80, &r->regs_user, 8);
	put(&f, "PERFILE2", 8);
	put64(&f, 16);
	put_header(&f, 64, 0, 8 + 128 + 8);
	put(&f, attr, sizeof(attr));
	put64(&f, 7);
	put_header(&f, 78, 0, 24 + 16);
	put64(&f, 2); /* a name */
	put64(&f, 7);
	put(&f, name, 16);
	if (r->compression) {
		put_header(&f, 80, 0, 16 + 20);
		put64(&f, 27);
		put32(&f, 1);
		put32(&f, r->compression);
		put32(&f, 1);
		put32(&f, 8);
		put32(&f, 528384);
	}
	put_header(&f, 82, 0, 8); /* FINISHED_INIT */
	put(&f, r->data.buf, r->data.len);
	fg_strbuf_release(&r->data);
	return fg_strbuf_detach(&f, len);
}

/* simple_recording's records in the pipe form; compressed (cut after
 * 60 bytes, inside the map record) when compress is set. */
static char *pipe_recording(size_t *len, bool compress)
{
	rec plain, r;

	simple_records(&plain);
	add_round(&plain);
	if (!compress)
		return pipe_finish(&plain, len);
	rec_init(&r);
	r.compression = 1;
	{
		ZSTD_CCtx *cs = ZSTD_createCCtx();
		assert_non_null(cs);
		add_compressed(&r, cs, plain.data.buf, 60, 81);
		add_compressed(&r, cs, plain.data.buf + 60, plain.data.len - 8 - 60, 81);
		ZSTD_freeCCtx(cs);
	}
	add_round(&r);
	fg_strbuf_release(&plain.data);
	return pipe_finish(&r, len);
}

/* The pipe form reads as the file form, plain or compressed, with the
 * event named by its EVENT_UPDATE record. */
static void test_pipe(void **state)
{
	int compress;

	(void)state;
	for (compress = 0; compress < 2; compress++) {
		size_t len;
		char *buf = pipe_recording(&len, compress);
		struct got g;
		assert_int_equal(read_all("pipe.data", buf, len, &g), 0);
		assert_marker_sample(&g, "cpu-clock:pipe");
		free(buf);
	}
}

/* A pipe form without attributes, or with a cut one, is refused with the
 * offset; every truncation is read or refused, never a crash. */
static void test_pipe_malformed(void **state)
{
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	size_t len, cut;
	struct got g;
	char *buf;

	(void)state;
	buf = pipe_recording(&len, false);
	/* the attribute record's size cut to 40 bytes */
	memcpy(buf + 16 + 6, &(uint16_t){ 40 }, 2);
	assert_int_equal(fg_perfdata_open_mem(&r, "attr.data", buf, len, &o), FG_EPARSE);
	assert_string_equal(fg_error_last(), "attr.data: offset 16: attribute record too short");
	/* no attribute record at all: the first record a sample */
	assert_int_equal(fg_perfdata_open_mem(&r, "none.data", buf, 16, &o), FG_EPARSE);
	assert_string_equal(fg_error_last(), "none.data: offset 16: no event attributes "
			    "(HEADER_ATTR records) before the first sample");
	free(buf);
	buf = pipe_recording(&len, true);
	for (cut = 16; cut < len; cut++) {
		int err = read_all("cut.data", buf, cut, &g);
		if (err) {
			assert_int_equal(err, FG_EPARSE);
			assert_non_null(strstr(fg_error_last(), "cut.data: offset "));
		}
	}
	free(buf);
}

/* ---- streams ---- */

/* A stream over a buffer, read in pieces of 1 to 97 bytes; fails with
 * FG_EIO at fail_at when that is not 0. */
struct stream {
	const char *buf;
	size_t len, pos, fail_at;
	unsigned step;
};

static ssize_t stream_read(void *ctx, void *buf, size_t cap)
{
	struct stream *st = ctx;
	size_t n = 1 + (st->step++ * 37) % 97;

	if (st->fail_at && st->pos >= st->fail_at)
		return fg_error_set(FG_EIO, "stream: read failed");
	if (n > cap)
		n = cap;
	if (n > st->len - st->pos)
		n = st->len - st->pos;
	memcpy(buf, st->buf + st->pos, n);
	st->pos += n;
	return (ssize_t)n;
}

struct count {
	int n, resolved;
};

static int count_samples(void *ctx, const fg_perfdata_sample *s)
{
	struct count *c = ctx;

	c->n++;
	if (s->nframes == 2 && s->frames[0].sym && !strcmp(s->frames[0].sym, "perfdata_unit_marker") &&
	    !strcmp(s->comm, "prog"))
		c->resolved++;
	return 0;
}

/* A pipe-form recording of n samples (a round every 1000), the records
 * compressed in pieces of 50000 bytes when compress is set: several
 * stream blocks, records cut between them. */
static char *many_samples(size_t *len, int n, bool compress)
{
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, marker_addr(), 0x10 };
	rec plain, r;
	size_t at;
	int i;

	rec_init(&plain);
	add_comm(&plain, 42, 42, "prog", 1);
	add_mmap(&plain, 42, self_map.start, self_map.end - self_map.start, self_map.pgoff,
		 self_map.path, 2);
	for (i = 0; i < n; i++) {
		add_sample(&plain, 42, 42, 10 + (uint64_t)i, 1, chain, 3);
		if (i % 1000 == 999)
			add_round(&plain);
	}
	if (!compress)
		return pipe_finish(&plain, len);
	rec_init(&r);
	r.compression = 1;
	{
		ZSTD_CCtx *cs = ZSTD_createCCtx();
		assert_non_null(cs);
		for (at = 0; at < plain.data.len; at += 50000)
			add_compressed(&r, cs, plain.data.buf + at,
				       plain.data.len - at < 50000 ? plain.data.len - at : 50000, 81);
		ZSTD_freeCCtx(cs);
	}
	add_round(&r);
	fg_strbuf_release(&plain.data);
	return pipe_finish(&r, len);
}

/* A pipe-form stream read in small pieces gives every sample, plain
 * (some 3 MB: records cut between the reader's 1 MiB blocks) and
 * compressed. */
static void test_stream(void **state)
{
	fg_perfdata_opts o = test_opts();
	int compress;

	(void)state;
	for (compress = 0; compress < 2; compress++) {
		size_t len;
		char *buf = many_samples(&len, 40000, compress);
		struct stream st = { buf, len, 0, 0, 0 };
		struct count c = { 0, 0 };
		fg_perfdata *r = NULL;
		assert_int_equal(fg_perfdata_open_stream(&r, "<stdin>", stream_read, &st, &o), 0);
		assert_null(fg_perfdata_unsupported(r));
		assert_int_equal(fg_perfdata_foreach(r, count_samples, &c), 0);
		assert_int_equal(c.n, 40000);
		assert_int_equal(c.resolved, 40000);
		fg_perfdata_free(r);
		free(buf);
	}
}

/* The pipe form's tracing data follows its record: passed over, in a
 * file and in a stream (in pieces, so that the prologue buffer moves
 * while it is read). */
static void test_pipe_tracing_data(void **state)
{
	fg_perfdata_opts o = test_opts();
	size_t len, i;
	rec plain;
	char *buf;
	struct got g;

	(void)state;
	rec_init(&plain);
	put_header(&plain.data, 66, 0, 16); /* HEADER_TRACING_DATA: u32 size, padding */
	put32(&plain.data, 4000);
	put32(&plain.data, 0);
	for (i = 0; i < 4000; i++)
		put(&plain.data, "\xee", 1);
	{
		rec simple;
		simple_records(&simple);
		add_round(&simple);
		put(&plain.data, simple.data.buf, simple.data.len);
		fg_strbuf_release(&simple.data);
	}
	buf = pipe_finish(&plain, &len);
	assert_int_equal(read_all("trace.data", buf, len, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.sym0, "perfdata_unit_marker");
	{
		struct stream st = { buf, len, 0, 0, 0 };
		struct count c = { 0, 0 };
		fg_perfdata *r = NULL;
		assert_int_equal(fg_perfdata_open_stream(&r, "<stdin>", stream_read, &st, &o), 0);
		assert_int_equal(fg_perfdata_foreach(r, count_samples, &c), 0);
		assert_int_equal(c.resolved, 1);
		fg_perfdata_free(r);
	}
	/* its size past the end: refused with the offset */
	/* after the header (16), HEADER_ATTR (144), EVENT_UPDATE (40) and
	 * FINISHED_INIT (8): the record, its size 8 bytes in */
	memcpy(buf + 16 + 144 + 40 + 8 + 8, &(uint32_t){ 1u << 20 }, 4);
	assert_int_equal(read_all("trace.data", buf, len, &g), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "trace.data: offset "));
	free(buf);
}

/* A stream cut inside a record, failing to read, or of the file form:
 * an error, with the stream offset where it applies. */
static void test_stream_errors(void **state)
{
	fg_perfdata_opts o = test_opts();
	fg_perfdata *r = NULL;
	struct count c = { 0, 0 };
	struct stream st;
	size_t len;
	char *buf = many_samples(&len, 20000, false);

	(void)state;
	/* cut 3 bytes into a sample past the first block */
	memset(&st, 0, sizeof(st));
	st.buf = buf;
	st.len = len - 8 - 72 + 3; /* the last round, the last sample */
	assert_int_equal(fg_perfdata_open_stream(&r, "<stdin>", stream_read, &st, &o), 0);
	assert_int_equal(fg_perfdata_foreach(r, count_samples, &c), FG_EPARSE);
	{
		char want[128];
		snprintf(want, sizeof(want), "<stdin>: offset %zu: record truncated (the recording was "
			 "cut short?)", len - 8 - 72);
		assert_string_equal(fg_error_last(), want);
	}
	fg_perfdata_free(r);
	/* a read error after the first block */
	memset(&st, 0, sizeof(st));
	st.buf = buf;
	st.len = len;
	st.fail_at = 1200000;
	assert_int_equal(fg_perfdata_open_stream(&r, "<stdin>", stream_read, &st, &o), 0);
	assert_int_equal(fg_perfdata_foreach(r, count_samples, &c), FG_EIO);
	fg_perfdata_free(r);
	free(buf);
	/* the file form */
	buf = simple_recording(&len, false);
	memset(&st, 0, sizeof(st));
	st.buf = buf;
	st.len = len;
	assert_int_equal(fg_perfdata_open_stream(&r, "<stdin>", stream_read, &st, &o), FG_EINVAL);
	assert_null(r);
	free(buf);
	/* not perf.data */
	memset(&st, 0, sizeof(st));
	st.buf = "hello, world, this is text\n";
	st.len = strlen(st.buf);
	assert_int_equal(fg_perfdata_open_stream(&r, "<stdin>", stream_read, &st, &o), FG_EPARSE);
}

/* Writes len bytes of buf (then freed) to dir/name. */
static void write_seed(const char *dir, const char *name, char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "wb"))) {
		fwrite(buf, 1, len, f);
		fclose(f);
	}
	free(buf);
}

static void write_seeds(const char *dir)
{
	size_t len;
	char *buf;

	/* a path of no one's machine in particular */
	snprintf(self_map.path, sizeof(self_map.path), "/usr/bin/true");
	buf = simple_recording(&len, true);
	write_seed(dir, "simple.data", buf, len);
	buf = dwarf_recording(&len, 0, 64, 64);
	write_seed(dir, "dwarf.data", buf, len);
	/* stack copies the reader trims: read whole (perf's default size),
	 * and read in parts with most of the valid stack left in the input */
	buf = dwarf_recording(&len, 0, 8192, 100);
	write_seed(dir, "dwarf-8k.data", buf, len);
	buf = dwarf_recording(&len, 0, 40000, 20000);
	write_seed(dir, "dwarf-40k.data", buf, len);
	/* the stream cut inside the map record */
	buf = compressed_recording(&len, 60, 81, false);
	write_seed(dir, "compressed.data", buf, len);
	/* the pipe form, compressed */
	buf = pipe_recording(&len, true);
	write_seed(dir, "pipe.data", buf, len);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_resolved),
		cmocka_unit_test(test_unknown_records),
		cmocka_unit_test(test_from_exec),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_time_order),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed_record),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_dwarf_sample),
		cmocka_unit_test(test_dwarf_trimmed),
		cmocka_unit_test(test_dwarf_plt),
		cmocka_unit_test(test_hybrid_sample),
		cmocka_unit_test(test_dwarf_unsupported),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_compressed_corrupt),
		cmocka_unit_test(test_compressed_bad_record),
		cmocka_unit_test(test_chunks_freed),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_pipe_malformed),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_stream_errors),
		cmocka_unit_test(test_pipe_tracing_data),
		cmocka_unit_test(test_collapse),
		cmocka_unit_test(test_demangle),
	};

	if (perfdata_unit_marker(1) != 4)
		return 1;
	if (argc > 1) {
		find_self_map(NULL);
		write_seeds(argv[1]);
		return 0;
	}
	return cmocka_run_group_tests(tests, find_self_map, NULL);
}
