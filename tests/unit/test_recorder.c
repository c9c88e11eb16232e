/* The native recorder's parts that need no perf events: the kernel's
 * refusals worded for people, and the stream it writes — its header and
 * what /proc describes read back by the perf.data reader, and the ring
 * buffers' records put in time order across CPUs, round by round. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/collapse.h"
#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"
#include "flamegraph/recorder.h"
#include "lib/recorder/internal.h"
#include "util/strbuf.h"

/* --- the kernel's refusals ----------------------------------------------- */

static void paranoid_says_the_value_and_the_fix(void **state)
{
	rn_host h = { .paranoid = 2, .privileged = false, .max_rate = 100000 };

	(void)state;
	assert_int_equal(rn_msg_open_failed(&h, EACCES, "cycles", 42, 997), FG_ERECORD);
	assert_non_null(strstr(fg_error_last(), "kernel.perf_event_paranoid is 2"));
	assert_non_null(strstr(fg_error_last(), "'sudo sysctl kernel.perf_event_paranoid=1'"));
	/* Debian's 3 forbids even the user's own processes */
	h.paranoid = 3;
	assert_int_equal(rn_msg_open_failed(&h, EPERM, "cycles", 42, 997), FG_ERECORD);
	assert_non_null(strstr(fg_error_last(), "kernel.perf_event_paranoid is 3"));
	assert_non_null(strstr(fg_error_last(), "kernel.perf_event_paranoid=1"));
}

static void container_says_seccomp_and_perf(void **state)
{
	/* refused although the sysctl allows it: a container's filter */
	rn_host h = { .paranoid = 1, .privileged = true };

	(void)state;
	assert_int_equal(rn_msg_open_failed(&h, EPERM, "cycles", 42, 997), FG_ERECORD);
	assert_non_null(strstr(fg_error_last(), "--cap-add PERFMON"));
	assert_non_null(strstr(fg_error_last(), "--security-opt seccomp="));
	assert_non_null(strstr(fg_error_last(), "`opts.record.recorder=perf`"));
	/* no such system call at all */
	assert_int_equal(rn_msg_open_failed(&h, ENOSYS, "cycles", 42, 997), FG_ERECORD);
	assert_non_null(strstr(fg_error_last(), "no perf_event_open"));
	assert_non_null(strstr(fg_error_last(), "seccomp"));
	assert_non_null(strstr(fg_error_last(), "`opts.record.recorder=perf`"));
}

static void other_refusals(void **state)
{
	rn_host h = { .paranoid = 1, .privileged = false, .max_rate = 25000, .mlock_kb = 516 };

	(void)state;
	assert_int_equal(rn_msg_open_failed(&h, ESRCH, "cycles", 4242, 997), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "process 4242 is gone"));
	assert_int_equal(rn_msg_open_failed(&h, EINVAL, "cpu-clock", 1, 50000), FG_ERECORD);
	assert_non_null(strstr(fg_error_last(), "at most 25000 times a second"));
	assert_non_null(strstr(fg_error_last(), "kernel.perf_event_max_sample_rate=50000"));
	assert_int_equal(rn_msg_open_failed(&h, EBUSY, "cycles", 1, 997), FG_ERECORD);
	assert_non_null(strstr(fg_error_last(), "the kernel refused the cycles event"));
	assert_int_equal(rn_msg_mmap_failed(&h, EPERM, 4u << 20), FG_ERECORD);
	assert_non_null(strstr(fg_error_last(), "ring buffer of 4096 KB per CPU"));
	assert_non_null(strstr(fg_error_last(), "kernel.perf_event_mlock_kb is 516"));
	assert_int_equal(rn_msg_arch("riscv64"), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "x86_64 only, not riscv64"));
	assert_non_null(strstr(fg_error_last(), "`opts.record.recorder=perf`"));
}

static void notes_for_what_is_left_out(void **state)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	rn_host h = { .paranoid = 2 };

	(void)state;
	rn_msg_kernel_excluded(&h, &sb);
	assert_non_null(strstr(sb.buf, "kernel frames are not recorded: kernel.perf_event_paranoid is 2"));
	fg_strbuf_reset(&sb);
	rn_msg_kptr_hidden(1, &sb);
	assert_non_null(strstr(sb.buf, "kernel.kptr_restrict is 1"));
	assert_non_null(strstr(sb.buf, "'sudo sysctl kernel.kptr_restrict=0'"));
	fg_strbuf_release(&sb);
}

/* --- the stream ---------------------------------------------------------- */

static int to_strbuf(void *ctx, const void *buf, size_t len)
{
	return fg_strbuf_add(ctx, buf, len);
}

typedef struct stream_case {
	fg_recorder_opts o;
	fg_recorder_result res;
	rn_state st;
	fg_strbuf out;
	uint64_t id;
} stream_case;

static void stream_setup(stream_case *c)
{
	fg_recorder_opts init = FG_RECORDER_OPTS_INIT;

	memset(c, 0, sizeof(*c));
	c->o = init;
	c->o.write = to_strbuf;
	c->o.write_ctx = &c->out;
	fg_strbuf_init(&c->out, 0);
	fg_strbuf_init(&c->st.round, 0);
	c->st.o = &c->o;
	c->st.res = &c->res;
	c->id = 77;
	c->st.ids = &c->id;
	c->st.nfds = 1;
	rn_events_attr(&c->st);
}

static void stream_release(stream_case *c)
{
	fg_strbuf_release(&c->out);
	fg_strbuf_release(&c->st.round);
	free(c->st.offs);
}

__attribute__((noinline)) static int marker_function(int x)
{
	return x * 3 + 1;
}

/* A sample of this process at marker_function's first instruction: its
 * registers and a stack copy whose return address is 0 (the end). */
static void add_sample(fg_strbuf *sb, uint64_t time)
{
	uint64_t ip = (uint64_t)(uintptr_t)&marker_function, stack[8] = { 0 };
	uint32_t pt[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	uint64_t id = 77, period = 1000, nchain = 2, chain[2] = { (uint64_t)PERF_CONTEXT_USER, ip };
	uint64_t abi = PERF_SAMPLE_REGS_ABI_64, regs[20] = { 0 }, size = sizeof(stack);
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	size_t at = sb->len;

	regs[7] = (uint64_t)(uintptr_t)stack; /* sp */
	regs[8] = ip;                         /* ip */
	fg_strbuf_add(sb, &h, sizeof(h));
	fg_strbuf_add(sb, &ip, 8);
	fg_strbuf_add(sb, pt, 8);
	fg_strbuf_add(sb, &time, 8);
	fg_strbuf_add(sb, &id, 8);
	fg_strbuf_add(sb, &period, 8);
	fg_strbuf_add(sb, &nchain, 8);
	fg_strbuf_add(sb, chain, sizeof(chain));
	fg_strbuf_add(sb, &abi, 8);
	fg_strbuf_add(sb, regs, sizeof(regs));
	fg_strbuf_add(sb, &size, 8);
	fg_strbuf_add(sb, stack, sizeof(stack));
	fg_strbuf_add(sb, &size, 8);
	h.size = (uint16_t)(sb->len - at);
	memcpy(sb->buf + at, &h, sizeof(h));
}

static int keep_stack(void *ctx, const char *stack, size_t len, uint64_t count)
{
	(void)count;
	return fg_strbuf_add(ctx, stack, len) || fg_strbuf_addch(ctx, '\n');
}

/* The header and this process as /proc describes it, then a sample in
 * it: the reader takes the stream and names the sampled function. */
static void stream_is_read_back(void **state)
{
	stream_case c;
	fg_perfdata *pd = NULL;
	fg_perfdata_stats stats;
	fg_collapser *col = NULL;
	fg_strbuf stacks = FG_STRBUF_INIT;

	(void)state;
	assert_int_equal(marker_function(1), 4);
	stream_setup(&c);
	assert_int_equal(rn_stream_header(&c.st), 0);
	assert_memory_equal(c.out.buf, "PERFILE2\x10\0\0\0\0\0\0\0", 16);
	assert_int_equal(rn_synth_process(&c.st, getpid()), 0);
	add_sample(&c.out, 1000);
	assert_int_equal(rn_stream_round(&c.st), 0);

	assert_int_equal(fg_perfdata_open_mem(&pd, "native", c.out.buf, c.out.len, NULL), 0);
	assert_null(fg_perfdata_unsupported(pd));
	assert_int_equal(fg_collapser_new(&col, FG_FORMAT_PERF, NULL), 0);
	assert_int_equal(fg_perfdata_collapse(pd, col), 0);
	assert_int_equal(fg_collapser_finish(col), 0);
	fg_perfdata_reader_stats(pd, &stats);
	assert_int_equal(stats.samples, 1);
	assert_int_equal(fg_collapser_foreach(col, keep_stack, &stacks), 0);
	assert_non_null(strstr(stacks.buf, "marker_function"));
	fg_strbuf_release(&stacks);
	fg_collapser_free(col);
	fg_perfdata_free(pd);
	stream_release(&c);
}

/* More events than one attribute record holds ids for (many threads
 * times many CPUs): the attribute is repeated with the ids that follow,
 * and a sample of the last id is the reader's as any other. */
static void many_events_take_several_attribute_records(void **state)
{
	stream_case c;
	fg_perfdata *pd = NULL;
	fg_perfdata_stats stats;
	fg_collapser *col = NULL;
	uint64_t *ids = calloc(9000, sizeof(*ids));
	size_t at = 16, nattr = 0;

	(void)state;
	assert_non_null(ids);
	stream_setup(&c);
	for (size_t i = 0; i < 9000; i++)
		ids[i] = 1000 + i;
	ids[8999] = 77; /* the id add_sample gives */
	c.st.ids = ids;
	c.st.nfds = 9000;
	assert_int_equal(rn_stream_header(&c.st), 0);
	while (at < c.out.len) {
		struct perf_event_header h;
		memcpy(&h, c.out.buf + at, sizeof(h));
		assert_int_equal(h.type, 64);
		nattr++;
		at += h.size;
	}
	assert_int_equal(nattr, 2);
	add_sample(&c.out, 5);
	assert_int_equal(rn_stream_round(&c.st), 0);
	assert_int_equal(fg_perfdata_open_mem(&pd, "native", c.out.buf, c.out.len, NULL), 0);
	assert_null(fg_perfdata_unsupported(pd));
	assert_int_equal(fg_collapser_new(&col, FG_FORMAT_PERF, NULL), 0);
	assert_int_equal(fg_perfdata_collapse(pd, col), 0);
	fg_perfdata_reader_stats(pd, &stats);
	assert_int_equal(stats.samples, 1);
	fg_collapser_free(col);
	fg_perfdata_free(pd);
	stream_release(&c);
	free(ids);
}

/* Records of two CPUs' buffers, each in its own time order, come out in
 * one time order, then FINISHED_ROUND; the buffers are freed. */
static void rounds_are_in_time_order(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = 4096, times[2][3] = { { 10, 30, 50 }, { 20, 40, 60 } };
	rn_ring rings[2];
	int cpus[2] = { 0, 1 };
	stream_case c;
	size_t at = 0;

	(void)state;
	stream_setup(&c);
	c.st.ncpus = 2;
	c.st.cpus = cpus;
	c.st.rings = rings;
	for (int k = 0; k < 2; k++) {
		fg_strbuf recs = FG_STRBUF_INIT;
		struct perf_event_mmap_page *pg;
		rings[k].base = calloc(1, (size_t)page + size);
		assert_non_null(rings[k].base);
		rings[k].size = size;
		rings[k].cpu = k;
		for (int i = 0; i < 3; i++)
			add_sample(&recs, times[k][i]);
		/* the buffer's tail near its end: the second record wraps */
		pg = rings[k].base;
		pg->data_tail = size - 100;
		for (size_t b = 0; b < recs.len; b++)
			((unsigned char *)rings[k].base + page)[(pg->data_tail + b) & (size - 1)] =
				(unsigned char)recs.buf[b];
		pg->data_head = pg->data_tail + recs.len;
		fg_strbuf_release(&recs);
	}
	assert_int_equal(rn_ring_drain(&c.st), 0);
	assert_int_equal(c.res.samples, 6);
	for (int i = 0; i < 6; i++) {
		struct perf_event_header h;
		uint64_t t;
		memcpy(&h, c.out.buf + at, sizeof(h));
		assert_int_equal(h.type, PERF_RECORD_SAMPLE);
		memcpy(&t, c.out.buf + at + 24, 8);
		assert_int_equal(t, (uint64_t)(i + 1) * 10);
		at += h.size;
	}
	assert_int_equal(c.out.len - at, 8);
	assert_int_equal(((struct perf_event_header *)(void *)(c.out.buf + at))->type, 68);
	for (int k = 0; k < 2; k++) {
		struct perf_event_mmap_page *pg = rings[k].base;
		assert_int_equal(pg->data_tail, pg->data_head);
		free(rings[k].base);
	}
	c.st.rings = NULL;
	stream_release(&c);
}

/* The second event's first period, short with the timer, ends with its
 * first sample read: samples of the first event leave it as it is. */
static void whole_event_slows_after_its_first_sample(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = 4096, wid = 88;
	int cpus[1] = { 0 }, wfd = -1;
	fg_strbuf recs = FG_STRBUF_INIT;
	struct perf_event_mmap_page *pg;
	rn_ring ring;
	stream_case c;
	size_t first;

	(void)state;
	stream_setup(&c);
	c.st.ncpus = 1;
	c.st.cpus = cpus;
	c.st.rings = &ring;
	c.st.wids = &wid;
	c.st.wfds = &wfd;
	c.st.nwids = 1;
	c.st.whole_fast = true;
	ring.base = calloc(1, (size_t)page + size);
	assert_non_null(ring.base);
	ring.size = size;
	ring.cpu = 0;
	pg = ring.base;

	add_sample(&recs, 10);
	memcpy((unsigned char *)ring.base + page, recs.buf, recs.len);
	pg->data_head = recs.len;
	assert_int_equal(rn_ring_drain(&c.st), 0);
	assert_true(c.st.whole_fast);

	/* the same sample with the second event's id (after ip, tid, time) */
	first = recs.len;
	add_sample(&recs, 20);
	memcpy(recs.buf + first + 32, &wid, 8);
	memcpy((unsigned char *)ring.base + page + first, recs.buf + first, recs.len - first);
	pg->data_head = recs.len;
	assert_int_equal(rn_ring_drain(&c.st), 0);
	assert_false(c.st.whole_fast);
	assert_int_equal(c.res.samples, 2);

	fg_strbuf_release(&recs);
	free(ring.base);
	c.st.rings = NULL;
	stream_release(&c);
}

/* The cap: the stream counts what it wrote and says when it passes it. */
static void the_cap_is_noticed(void **state)
{
	stream_case c;

	(void)state;
	stream_setup(&c);
	c.o.max_size = 100;
	assert_int_equal(rn_stream_header(&c.st), 0);
	assert_true(c.st.capped);
	assert_int_equal(c.res.bytes, c.out.len);
	stream_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paranoid_says_the_value_and_the_fix),
		cmocka_unit_test(container_says_seccomp_and_perf),
		cmocka_unit_test(other_refusals),
		cmocka_unit_test(notes_for_what_is_left_out),
		cmocka_unit_test(stream_is_read_back),
		cmocka_unit_test(many_events_take_several_attribute_records),
		cmocka_unit_test(rounds_are_in_time_order),
		cmocka_unit_test(whole_event_slows_after_its_first_sample),
		cmocka_unit_test(the_cap_is_noticed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
