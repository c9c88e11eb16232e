/* The off-CPU filter (fg_offcpu, collapse.h) fed perf script text written
 * as perf 6.1 prints a recording of sched:sched_switch with stacks and
 * switch records, then collapsed: waits weighed in microseconds, preemption
 * left out, threads paired by TID, hot/cold roots, any chunking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/collapse.h"
#include "flamegraph/error.h"

/* Thread 8181 sleeps 300.110 ms in sleeper; it is preempted in compute
 * (not a wait); thread 8182 waits 2.5 ms on a futex, switched out before
 * 8181 comes back in. */
static const char *const TRACE =
	"app  8181 [001] 13404.149840: sched:sched_switch: prev_comm=app prev_pid=8181 prev_prio=120 prev_state=R ==> next_comm=rcu next_pid=15 next_prio=120\n"
	"\tffffffff82266833 schedule+0x23 ([kernel.kallsyms])\n"
	"\t            1167 compute+0x1e (/tmp/app)\n"
	"\t            11c5 main+0xd (/tmp/app)\n"
	"\n"
	"app  8181 [001] 13404.149880: PERF_RECORD_SWITCH OUT preempt\n"
	"app  8181 [001] 13404.150153: PERF_RECORD_SWITCH IN         \n"
	"app  8181 [001] 13404.152764: sched:sched_switch: prev_comm=app prev_pid=8181 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"
	"\tffffffff82266833 schedule+0x23 ([kernel.kallsyms])\n"
	"\tffffffff8226d89e do_nanosleep+0x5e ([kernel.kallsyms])\n"
	"\t           cf503 __GI___clock_nanosleep+0x23 (inlined)\n"
	"\t            11b5 sleeper+0x25 (/tmp/app)\n"
	"\t            11c0 main+0x8 (/tmp/app)\n"
	"\n"
	"app  8181 [001] 13404.152797: PERF_RECORD_SWITCH OUT        \n"
	"worker  8182 [000] 13404.200000: sched:sched_switch: prev_comm=worker prev_pid=8182 prev_prio=120 prev_state=D ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
	"\tffffffff82266833 schedule+0x23 ([kernel.kallsyms])\n"
	"\tffffffff8226d000 futex_wait+0x10 ([kernel.kallsyms])\n"
	"\t            2000 take_lock+0x5 (/tmp/app)\n"
	"\n"
	"worker  8182 [000] 13404.202500: PERF_RECORD_SWITCH IN         \n"
	"app  8181 [001] 13404.452874: PERF_RECORD_SWITCH IN         \n"
	"app  8181 [001] 13404.460000:    1003009 cpu-clock: \n"
	"\t            1167 compute+0x1e (/tmp/app)\n"
	"\t            11c5 main+0xd (/tmp/app)\n"
	"\n";

typedef struct collected {
	fg_collapser *c;
	int calls;
} collected;

static int to_collapser(void *ctx, const char *buf, size_t len)
{
	collected *col = ctx;

	col->calls++;
	return fg_collapser_feed(col->c, buf, len);
}

static int to_text(void *ctx, const char *stack, size_t len, uint64_t count)
{
	FILE *out = ctx;

	fprintf(out, "%.*s %llu\n", (int)len, stack, (unsigned long long)count);
	return 0;
}

/* Feeds text in chunks of `chunk` bytes (0: at once) and returns the
 * folded result (malloc'd). */
static char *run_filter(const char *text, size_t chunk, bool hot_cold, fg_offcpu_stats *st)
{
	collected col = { NULL, 0 };
	fg_offcpu *o = NULL;
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	size_t len = strlen(text), off;
	char *buf = NULL;
	size_t n = 0;
	FILE *out;

	co.nthreads = 1;
	assert_int_equal(fg_collapser_new(&col.c, FG_FORMAT_PERF, &co), 0);
	assert_int_equal(fg_offcpu_new(&o, hot_cold, 1003, to_collapser, &col), 0);
	for (off = 0; off < len; off += chunk ? chunk : len) {
		size_t n1 = chunk && len - off > chunk ? chunk : len - off;
		assert_int_equal(fg_offcpu_feed(o, text + off, n1), 0);
	}
	assert_int_equal(fg_offcpu_finish(o), 0);
	assert_int_equal(fg_collapser_finish(col.c), 0);
	if (st)
		fg_offcpu_filter_stats(o, st);
	out = open_memstream(&buf, &n);
	assert_non_null(out);
	assert_int_equal(fg_collapser_foreach(col.c, to_text, out), 0);
	fclose(out);
	fg_offcpu_free(o);
	fg_collapser_free(col.c);
	return buf;
}

static void off_cpu_waits(void **state)
{
	fg_offcpu_stats st;
	char *folded = run_filter(TRACE, 0, false, &st);

	(void)state;
	assert_string_equal(folded,
			    "app;main;sleeper;__GI___clock_nanosleep;do_nanosleep;schedule 300110\n"
			    "worker;take_lock;futex_wait;schedule 2500\n");
	assert_int_equal(st.waits, 2);
	assert_int_equal(st.off_us, 302610);
	assert_int_equal(st.preempted, 1);
	assert_int_equal(st.open, 0);
	assert_int_equal(st.on_samples, 0);
	free(folded);
}

static void hot_cold_roots(void **state)
{
	fg_offcpu_stats st;
	char *folded = run_filter(TRACE, 0, true, &st);

	(void)state;
	assert_string_equal(folded,
			    "app;[off-cpu];main;sleeper;__GI___clock_nanosleep;do_nanosleep;schedule 300110\n"
			    "app;[on-cpu];main;compute 1003\n"
			    "worker;[off-cpu];take_lock;futex_wait;schedule 2500\n");
	assert_int_equal(st.on_samples, 1);
	assert_int_equal(st.on_us, 1003);
	free(folded);
}

/* Lines and events cut anywhere give the same result. */
static void any_chunking(void **state)
{
	char *whole = run_filter(TRACE, 0, true, NULL);

	(void)state;
	for (size_t chunk = 1; chunk < 200; chunk += 7) {
		char *cut = run_filter(TRACE, chunk, true, NULL);
		assert_string_equal(cut, whole);
		free(cut);
	}
	free(whole);
}

/* A wait without its switch back in (the thread exited, or the
 * recording ended) is not counted; nor is a switch in without a wait,
 * or a header perf would not print. */
static void unmatched(void **state)
{
	const char *text =
		"app 10 [000] 5.000000: PERF_RECORD_SWITCH IN\n"
		"app 11 [000] 5.000001: sched:sched_switch: prev_comm=app prev_pid=11 prev_state=S ==> next_pid=0\n"
		"\t1 f+0x1 (/tmp/app)\n"
		"\n"
		"garbage without a pid\n"
		"\tffff g+0x1 (/tmp/app)\n"
		"\n"
		"app 12 [000] 5.000002: sched:sched_switch: prev_comm=app prev_pid=12 prev_state=S ==> next_pid=0\n"
		"\t1 h+0x1 (/tmp/app)\n";
	fg_offcpu_stats st;
	char *folded = run_filter(text, 0, false, &st);

	(void)state;
	assert_string_equal(folded, "");
	assert_int_equal(st.waits, 0);
	assert_int_equal(st.open, 2);
	free(folded);
}

/* A wait shorter than a microsecond still counts (1 us), and the time
 * is read with nanosecond digits too (perf script --ns). */
static void short_wait_and_ns(void **state)
{
	const char *text =
		"app 10 [000] 5.000000100: sched:sched_switch: prev_comm=app prev_pid=10 prev_state=S ==> next_pid=0\n"
		"\t1 f+0x1 (/tmp/app)\n"
		"\n"
		"app 10 [000] 5.000000400: PERF_RECORD_SWITCH IN\n"
		"app 10 [000] 6.000000000: sched:sched_switch: prev_comm=app prev_pid=10 prev_state=S ==> next_pid=0\n"
		"\t1 g+0x1 (/tmp/app)\n"
		"\n"
		"app 10 [000] 6.001234567: PERF_RECORD_SWITCH IN\n";
	char *folded = run_filter(text, 0, false, NULL);

	(void)state;
	assert_string_equal(folded, "app;f 1\napp;g 1235\n");
	free(folded);
}

/* Older perf right-aligns the command name, so a header may start with
 * blanks: the first line of an event is its header whatever its
 * indentation. '#' lines are comments, skipped as the collapser skips
 * them (a header starting with '#' would otherwise never reach it). */
static void indented_headers_and_comments(void **state)
{
	const char *text =
		"# ========\n"
		"# captured on: today\n"
		"             app    10 [000] 5.000000: sched:sched_switch: prev_comm=app prev_pid=10 prev_state=S ==> next_pid=0\n"
		"\t1 f+0x1 (/tmp/app)\n"
		"\n"
		"#app 11 [000] 5.000100: sched:sched_switch: prev_comm=app prev_pid=11 prev_state=S ==> next_pid=0\n"
		"\t1 g+0x1 (/tmp/app)\n"
		"\n"
		"             app    10 [000] 5.001000: PERF_RECORD_SWITCH IN\n"
		"             app    11 [000] 5.002000: PERF_RECORD_SWITCH IN\n";
	fg_offcpu_stats st;
	char *folded = run_filter(text, 0, false, &st);

	(void)state;
	assert_string_equal(folded, "app;f 1000\n");
	assert_int_equal(st.waits, 1);
	free(folded);
}

static int failing_sink(void *ctx, const char *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return fg_error_set(FG_EIO, "sink failed");
}

/* The sink's error stops the filter and is returned. */
static void sink_error(void **state)
{
	fg_offcpu *o = NULL;

	(void)state;
	assert_int_equal(fg_offcpu_new(&o, false, 1000, failing_sink, NULL), 0);
	assert_int_equal(fg_offcpu_feed(o, TRACE, strlen(TRACE)), 0); /* held in its buffer */
	assert_int_equal(fg_offcpu_finish(o), FG_EIO);
	assert_int_equal(fg_offcpu_feed(o, "x\n", 2), FG_EIO);
	fg_offcpu_free(o);
}

/* The same switches as data (fg_offcpu_new_samples), as a reader of the
 * recording hands them over: the same graph and figures as the text. */
static char *run_data(bool hot_cold, fg_offcpu_stats *st)
{
	static const fg_sample_frame compute[] = {
		{ .addr = 0x1167, .sym = "compute", .module = "/tmp/app" },
		{ .addr = 0x11c5, .sym = "main", .module = "/tmp/app" },
	};
	static const fg_sample_frame preempted[] = {
		{ .addr = 0xffffffff82266833, .sym = "schedule", .module = "[kernel.kallsyms]", .kernel = true },
		{ .addr = 0x1167, .sym = "compute", .module = "/tmp/app" },
		{ .addr = 0x11c5, .sym = "main", .module = "/tmp/app" },
	};
	static const fg_sample_frame sleeping[] = {
		{ .addr = 0xffffffff82266833, .sym = "schedule", .module = "[kernel.kallsyms]", .kernel = true },
		{ .addr = 0xffffffff8226d89e, .sym = "do_nanosleep", .module = "[kernel.kallsyms]", .kernel = true },
		{ .addr = 0xcf503, .sym = "__GI___clock_nanosleep", .inlined = true },
		{ .addr = 0x11b5, .sym = "sleeper", .module = "/tmp/app" },
		{ .addr = 0x11c0, .sym = "main", .module = "/tmp/app" },
	};
	static const fg_sample_frame locking[] = {
		{ .addr = 0xffffffff82266833, .sym = "schedule", .module = "[kernel.kallsyms]", .kernel = true },
		{ .addr = 0xffffffff8226d000, .sym = "futex_wait", .module = "[kernel.kallsyms]", .kernel = true },
		{ .addr = 0x2000, .sym = "take_lock", .module = "/tmp/app" },
	};
	fg_sample s = { .comm = "app", .pid = 8181, .tid = 8181, .event = "sched:sched_switch" };
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	fg_offcpu *o = NULL;
	char *buf = NULL, comm[8];
	size_t n = 0;
	FILE *out;

	co.nthreads = 1;
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &co), 0);
	assert_int_equal(fg_offcpu_new_samples(&o, hot_cold, 1003, c), 0);
	s.time = 13404149840000;
	s.frames = preempted;
	s.nframes = 3;
	assert_int_equal(fg_offcpu_switch_out(o, &s, true), 0);
	assert_int_equal(fg_offcpu_switch_in(o, 8181, 13404150153000), 0);
	/* the sample's strings need not outlive the call */
	snprintf(comm, sizeof(comm), "app");
	s.comm = comm;
	s.time = 13404152764000;
	s.frames = sleeping;
	s.nframes = 5;
	assert_int_equal(fg_offcpu_switch_out(o, &s, false), 0);
	memset(comm, 'x', sizeof(comm) - 1);
	s = (fg_sample){ .comm = "worker", .pid = 8182, .tid = 8182, .time = 13404200000000,
			 .event = "sched:sched_switch", .frames = locking, .nframes = 3 };
	assert_int_equal(fg_offcpu_switch_out(o, &s, false), 0);
	assert_int_equal(fg_offcpu_switch_in(o, 8182, 13404202500000), 0);
	assert_int_equal(fg_offcpu_switch_in(o, 8181, 13404452874000), 0);
	s = (fg_sample){ .comm = "app", .pid = 8181, .tid = 8181, .time = 13404460000000,
			 .period = 1003009, .event = "cpu-clock", .frames = compute, .nframes = 2 };
	assert_int_equal(fg_offcpu_on_cpu(o, &s, true), 0);
	assert_int_equal(fg_offcpu_finish(o), 0);
	assert_int_equal(fg_collapser_finish(c), 0);
	fg_offcpu_filter_stats(o, st);
	out = open_memstream(&buf, &n);
	assert_non_null(out);
	assert_int_equal(fg_collapser_foreach(c, to_text, out), 0);
	fclose(out);
	fg_offcpu_free(o);
	fg_collapser_free(c);
	return buf;
}

static void data_as_text(void **state)
{
	for (int hc = 0; hc < 2; hc++) {
		fg_offcpu_stats st_text, st_data;
		char *text = run_filter(TRACE, 0, hc, &st_text);
		char *data = run_data(hc, &st_data);

		(void)state;
		assert_string_equal(data, text);
		assert_memory_equal(&st_data, &st_text, sizeof(st_text));
		free(text);
		free(data);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(off_cpu_waits),
		cmocka_unit_test(hot_cold_roots),
		cmocka_unit_test(any_chunking),
		cmocka_unit_test(unmatched),
		cmocka_unit_test(short_wait_and_ns),
		cmocka_unit_test(indented_headers_and_comments),
		cmocka_unit_test(sink_error),
		cmocka_unit_test(data_as_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
