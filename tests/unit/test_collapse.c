/* Unit tests of the collapse library: feeding in odd chunk sizes gives the
 * one-shot result, thread counts do not change the output, the format
 * guesser, statistics and option handling. */
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
#include "util/strbuf.h"

static const char perf_text[] =
	"# comment\n"
	"app 100/101 [000] 1.000: 250 cycles:u: \n"
	"\tffffffff81000001 do_syscall ([kernel.kallsyms])\n"
	"\t401000 work(int)+0x1f (/bin/app)\n"
	"\t400500 main (/bin/app)\n"
	"\n"
	"app 100/102 [001] 1.001: 250 cycles:u: \n"
	"\t401000 work(int)+0x1f (/bin/app)\n"
	"\t400500 main (/bin/app)\n"
	"\n"
	"app 100/101 [000] 1.002: 99 instructions: \n"
	"\t400500 main (/bin/app)\n"
	"\n"
	"java 200 1.003: 1 cycles: \n"
	"\t7f00 Lcom/x/Y;::run (/tmp/perf-200.map)\n"
	"\t7f01 [unknown] (/usr/lib/libjvm.so)\n"
	"\n"
	"app 100/101 [000] 1.004: 5 cycles: \n"
	"\t401000 work+0x1f (/bin/app)\n"
	"\t400500 main (/bin/app)"; /* no trailing newline */

static const char perf_expected[] =
	"app;main;work 255\n"
	"app;main;work;do_syscall 250\n"
	"java;[libjvm.so];com/x/Y:::run 1\n";

static const char dtrace_text[] =
	"CPU     ID                    FUNCTION:NAME\n"
	"  0  64091                        :tick-60s\n"
	"\n"
	"              libc.so.1`read+0x8\n"
	"              app`ns::Reader::fill(char*, unsigned long)+0x20\n"
	"              app`main+0x10\n"
	"               12\n"
	"\n"
	"              app`main+0x11\n"
	"                3\n";

static const char dtrace_expected[] =
	"app`main 3\n"
	"app`main;app`ns::Reader::fill;libc.so.1`read 12\n";

struct sink {
	fg_strbuf sb;
};

static int collect(void *ctx, const char *stack, size_t len, uint64_t count)
{
	struct sink *s = ctx;

	fg_strbuf_add(&s->sb, stack, len);
	fg_strbuf_addf(&s->sb, " %llu\n", (unsigned long long)count);
	return 0;
}

/* Feeds text in pieces of `step` bytes (0: all at once); returns the
 * folded output (free() it). */
static char *collapse_in_steps(fg_format fmt, const fg_collapse_opts *opts,
			       const char *text, size_t len, size_t step)
{
	struct sink s = { FG_STRBUF_INIT };
	fg_collapser *c = NULL;
	size_t off = 0;

	assert_int_equal(fg_collapser_new(&c, fmt, opts), 0);
	if (!step)
		step = len ? len : 1;
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		assert_int_equal(fg_collapser_feed(c, text + off, n), 0);
		off += n;
	}
	assert_int_equal(fg_collapser_finish(c), 0);
	assert_int_equal(fg_collapser_foreach(c, collect, &s), 0);
	fg_collapser_free(c);
	fg_strbuf_addstr(&s.sb, "");
	return fg_strbuf_detach(&s.sb, NULL);
}

static void perf_one_shot(void **state)
{
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	char *out;

	o.nthreads = 1;
	out = collapse_in_steps(FG_FORMAT_PERF, &o, perf_text, strlen(perf_text), 0);
	assert_string_equal(out, perf_expected);
	free(out);
}

static void odd_chunk_sizes_match_one_shot(void **state)
{
	static const size_t steps[] = { 1, 2, 3, 7, 13, 64, 4095 };
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	size_t i;
	char *out;

	for (o.nthreads = 1; o.nthreads <= 3; o.nthreads += 2) {
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			out = collapse_in_steps(FG_FORMAT_PERF, &o, perf_text, strlen(perf_text), steps[i]);
			assert_string_equal(out, perf_expected);
			free(out);
			out = collapse_in_steps(FG_FORMAT_DTRACE, &o, dtrace_text, strlen(dtrace_text),
						steps[i]);
			assert_string_equal(out, dtrace_expected);
			free(out);
			out = collapse_in_steps(FG_FORMAT_UNKNOWN, &o, dtrace_text, strlen(dtrace_text),
						steps[i]);
			assert_string_equal(out, dtrace_expected);
			free(out);
		}
	}
}

static void perf_options(void **state)
{
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	char *out;

	o.include_tid = true;
	o.event_filter = "instructions";
	out = collapse_in_steps(FG_FORMAT_PERF, &o, perf_text, strlen(perf_text), 0);
	assert_string_equal(out, "app-100/101;main 99\n");
	free(out);

	o = (fg_collapse_opts)FG_COLLAPSE_OPTS_INIT;
	o.include_pid = true;
	o.annotate_kernel = o.annotate_jit = true;
	out = collapse_in_steps(FG_FORMAT_PERF, &o, perf_text, strlen(perf_text), 0);
	assert_string_equal(out, "app-100;main;work 255\n"
				 "app-100;main;work;do_syscall_[k] 250\n"
				 "java-?;[libjvm.so];com/x/Y:::run_[j] 1\n");
	free(out);
}

static void skip_after_drops_callers(void **state)
{
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	const char *skip[] = { "work" };
	char *out;

	o.skip_after = skip;
	o.nskip_after = 1;
	o.include_addrs = true;
	out = collapse_in_steps(FG_FORMAT_PERF, &o, perf_text, strlen(perf_text), 0);
	assert_string_equal(out, "app;work 255\n"
				 "app;work;do_syscall 250\n"
				 "java;[libjvm.so <7f01>];com/x/Y:::run 1\n");
	free(out);
}

static void dtrace_offsets(void **state)
{
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	char *out;

	o.include_offset = true;
	out = collapse_in_steps(FG_FORMAT_DTRACE, &o, dtrace_text, strlen(dtrace_text), 0);
	assert_string_equal(out, "app`main 3\n"
				 "app`main+0x10;app`ns::Reader::fill;libc.so.1`read 12\n");
	free(out);
}

/* A big input with many distinct stacks: every thread count gives the
 * same bytes. */
static void threads_give_identical_output(void **state)
{
	fg_strbuf in = FG_STRBUF_INIT;
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	char *one, *other;
	unsigned i, n;

	for (i = 0; in.len < 24u << 20; i++) {
		fg_strbuf_addf(&in, "prog %u/%u [%03u] %u.%06u: %u cpu-clock: \n", 10 + i % 7,
			       20 + i % 13, i % 4, i, i % 999999, 1 + i % 5);
		fg_strbuf_addf(&in, "\t%x leaf_%u+0x%x (/usr/lib/lib%u.so)\n", i, i % 977, i % 255, i % 5);
		fg_strbuf_addf(&in, "\t%x mid_%u (/bin/prog)\n", i * 3, i % 31);
		if (i % 3)
			fg_strbuf_addf(&in, "\t%x [unknown] ([unknown])\n", i);
		fg_strbuf_addstr(&in, "\t400000 main (/bin/prog)\n\n");
	}
	o.include_tid = true;
	o.include_addrs = true;
	o.nthreads = 1;
	one = collapse_in_steps(FG_FORMAT_PERF, &o, in.buf, in.len, 1u << 20);
	for (n = 2; n <= 4; n += 2) {
		o.nthreads = n;
		other = collapse_in_steps(FG_FORMAT_PERF, &o, in.buf, in.len, 100003);
		assert_true(strlen(one) > 100000);
		assert_string_equal(one, other);
		free(other);
	}
	free(one);
	fg_strbuf_release(&in);
}

static void stats_count_bad_lines_once_per_kind(void **state)
{
	static const char text[] =
		"not a header\n\tgarbage\n\n"
		"app 1 1.0: 1 cycles:\n\tjunk\n\t1 main (/bin/app)\n\tmore junk\n\n"
		"app 1 1.0: 1 cycles:\n\t1 m\xff\xfe (/bin/app)\n\n";
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	fg_collapse_stats st;
	size_t i;
	int seen = 0;

	o.nthreads = 1;
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &o), 0);
	assert_int_equal(fg_collapser_feed(c, text, sizeof(text) - 1), 0);
	assert_int_equal(fg_collapser_finish(c), 0);
	fg_collapser_stats(c, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.stacks, 2);
	assert_int_equal(st.bytes, sizeof(text) - 1);
	assert_string_equal(st.event, "cycles");
	for (i = 0; i < st.nwarnings; i++) {
		if (strstr(st.warnings[i].what, "event header")) {
			assert_int_equal(st.warnings[i].count, 1);
			assert_int_equal(st.warnings[i].first_line, 1);
			seen |= 1;
		} else if (strstr(st.warnings[i].what, "stack lines")) {
			assert_int_equal(st.warnings[i].count, 2);
			assert_int_equal(st.warnings[i].first_line, 5);
			seen |= 2;
		} else if (strstr(st.warnings[i].what, "UTF-8")) {
			assert_int_equal(st.warnings[i].first_line, 10);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	fg_collapser_free(c);
}

static void guess_format(void **state)
{
	assert_int_equal(fg_guess_format(perf_text, strlen(perf_text)), FG_FORMAT_PERF);
	assert_int_equal(fg_guess_format(dtrace_text, strlen(dtrace_text)), FG_FORMAT_DTRACE);
	assert_int_equal(fg_guess_format("", 0), FG_FORMAT_UNKNOWN);
	assert_int_equal(fg_guess_format("hello world\n", 12), FG_FORMAT_UNKNOWN);
	assert_int_equal(fg_guess_format("  a`b\n  7\n", 10), FG_FORMAT_DTRACE);
}

static void api_misuse_is_an_error(void **state)
{
	fg_collapser *c = NULL;

	assert_int_equal(fg_collapser_new(&c, (fg_format)42, NULL), FG_EINVAL);
	assert_null(c);
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, NULL), 0);
	assert_int_equal(fg_collapser_foreach(c, collect, NULL), FG_EINVAL);
	assert_int_equal(fg_collapser_finish(c), 0);
	assert_int_equal(fg_collapser_feed(c, "x", 1), FG_EINVAL);
	assert_int_equal(fg_collapse_file(c, "/nonexistent/file.txt"), FG_EINVAL);
	fg_collapser_free(c);
	fg_collapser_free(NULL);

	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, NULL), 0);
	assert_int_equal(fg_collapse_file(c, "/nonexistent/file.txt"), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "/nonexistent/file.txt"));
	fg_collapser_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_one_shot),
		cmocka_unit_test(odd_chunk_sizes_match_one_shot),
		cmocka_unit_test(perf_options),
		cmocka_unit_test(skip_after_drops_callers),
		cmocka_unit_test(dtrace_offsets),
		cmocka_unit_test(threads_give_identical_output),
		cmocka_unit_test(stats_count_bad_lines_once_per_kind),
		cmocka_unit_test(guess_format),
		cmocka_unit_test(api_misuse_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
