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

/* perf script -F +srcline: the line under each frame names it with
 * --lines ("??:0", ":0", "MODULE[ADDR]" and frames with no line under them keep
 * their name; a folder is dropped); without --lines the lines are passed
 * over, with no warning. In pieces of any size, the same. */
static void srcline_lines(void **state)
{
	static const char text[] =
		"prog 7/7 1000 cpu-clock:\n"
		"\t    11df mix+0x1f\n"
		"  prog.c:9 (inlined)\n"
		"\t    11df hot+0x1f (/tmp/prog)\n"
		"  /src/dir/prog.c:18\n"
		"\t    1085 main+0x25 (/tmp/prog)\n"
		"  ??:0\n"
		"\t    27249 __libc_start_call_main+0x79 (/usr/lib/libc.so.6)\n"
		"  libc.so.6[+27249]\n"
		"\t    10f0 _start+0x20 (/tmp/prog)\n"
		"  :0\n"
		"\n"
		"prog 7/7 1000 cpu-clock:\n"
		"\tffffffff81000e06 asm_sysvec+0x16 ([kernel.kallsyms])\n"
		"  [kernel.kallsyms][ffffffff81000e06]\n"
		"\t    11eb hot+0x2b (/tmp/prog)\n"
		"  prog.c:17\n"
		"\t    1085 main+0x25 (/tmp/prog)\n"
		"  prog.c:27\n"
		"\n";
	static const size_t steps[] = { 0, 1, 5, 33 };
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	fg_collapse_stats st;
	fg_collapser *c = NULL;
	char *out;

	o.nthreads = 1;
	o.lines = true;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		out = collapse_in_steps(FG_FORMAT_PERF, &o, text, sizeof(text) - 1, steps[i]);
		assert_string_equal(out, "prog;_start;__libc_start_call_main;main;hot:prog.c:18;mix:prog.c:9 1000\n"
					 "prog;main:prog.c:27;hot:prog.c:17;asm_sysvec 1000\n");
		free(out);
	}
	o.lines = false;
	out = collapse_in_steps(FG_FORMAT_PERF, &o, text, sizeof(text) - 1, 0);
	assert_string_equal(out, "prog;_start;__libc_start_call_main;main;hot;mix 1000\n"
				 "prog;main;hot;asm_sysvec 1000\n");
	free(out);
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &o), 0);
	assert_int_equal(fg_collapser_feed(c, text, sizeof(text) - 1), 0);
	assert_int_equal(fg_collapser_finish(c), 0);
	fg_collapser_stats(c, &st);
	assert_int_equal(st.nwarnings, 0);
	fg_collapser_free(c);
	/* a frame line it is not, nor a srcline line: warned about as before */
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &o), 0);
	assert_int_equal(fg_collapser_feed(c, "p 1/1 1 cpu-clock:\n  [unknown]\n\tff f (m)\n\n", 42), 0);
	assert_int_equal(fg_collapser_finish(c), 0);
	fg_collapser_stats(c, &st);
	assert_int_equal(st.nwarnings, 1);
	fg_collapser_free(c);
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
	/* the stack starts at the frame: no process frame above it */
	assert_string_equal(out, "java;[libjvm.so <7f01>];com/x/Y:::run 1\n"
				 "work 255\n"
				 "work;do_syscall 250\n");
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

/* --includeoffset keeps the offsets of callers and still demangles Rust's
 * legacy names (the hash goes, the offset stays after the name). */
static void dtrace_offsets_rust(void **state)
{
	static const char text[] =
		"              rg`_$LT$F$u20$as$u20$alloc..boxed..FnBox$LT$A$GT$$GT$::call_box::h8612a2a83552fc2d\n"
		"              rg`std::sys_common::thread::start_thread::he4c2173d5991c786+0x88\n"
		"              libsystem_pthread.dylib`thread_start+0xd\n"
		"                2\n";
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	char *out;

	(void)state;
	o.include_offset = true;
	out = collapse_in_steps(FG_FORMAT_DTRACE, &o, text, strlen(text), 0);
	assert_string_equal(out, "libsystem_pthread.dylib`thread_start+0xd;"
				 "rg`std::sys_common::thread::start_thread+0x88;"
				 "rg`<F as alloc::boxed::FnBox<A>>::call_box 2\n");
	free(out);
}

/* Line formats: the same stacks whether fed whole or a byte at a time. */
static void recursive_folds_recursion(void **state)
{
	static const char text[] = "main;f;f;f;g 3\nmain;f;g 2\n\nmain;g;g 1\nno count here\n";
	size_t step;
	char *out;

	(void)state;
	for (step = 0; step < 3; step++) {
		out = collapse_in_steps(FG_FORMAT_RECURSIVE, NULL, text, strlen(text), step);
		assert_string_equal(out, "main;f;g 5\nmain;g 1\n");
		free(out);
	}
}

static const char sample_text[] =
	"Analysis of sampling prog (pid 1) every 1 millisecond\n"
	"\n"
	"Call graph:\n"
	"    10 Thread_1\n"
	"    + 10 start  (in libdyld.dylib) + 1  [0x1]\n"
	"    +   4 main  (in prog) + 41  [0x2]\n"
	"    +   ! 4 work  (in prog) + 3  [0x3]\n"
	"    +   3 main  (in prog) + 50  [0x4]\n"
	"    +   ! 3 work  (in prog) + 9  [0x5]\n"
	"    +   3 main  (in prog) + 60  [0x6]\n"
	"    +     3 read  (in libsystem_kernel.dylib) + 10  [0x7]\n"
	"    2 Thread_2\n"
	"      2 _$LT$a..B$GT$::run::h0123456789abcdef  (in prog) + 9  [0x8]\n"
	"\n"
	"Total number in stack (recursive counted multiple, when >=5):\n"
	"        3       work  (in prog)\n";

static void sample_call_graph(void **state)
{
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	size_t step;
	char *out;

	(void)state;
	for (step = 0; step < 3; step++) {
		out = collapse_in_steps(FG_FORMAT_SAMPLE, NULL, sample_text, strlen(sample_text), step);
		/* the last of the equal stacks counts; the wait in read is left out */
		assert_string_equal(out, "Thread_1;libdyld`start;prog`main;prog`work 3\n"
					 "Thread_2;prog`<a::B>::run 2\n");
		free(out);
	}
	o.no_modules = true;
	out = collapse_in_steps(FG_FORMAT_SAMPLE, &o, sample_text, strlen(sample_text), 7);
	assert_string_equal(out, "Thread_1;start;main;work 3\nThread_2;<a::B>::run 2\n");
	free(out);
}

static void sample_errors_name_the_line(void **state)
{
	static const char bad[] = "Call graph:\n    10 Thread_1\n    +     10 start\n";
	fg_collapser *c = NULL;

	(void)state;
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_SAMPLE, NULL), 0);
	assert_int_equal(fg_collapser_feed(c, bad, strlen(bad)), 0);
	assert_int_equal(fg_collapser_finish(c), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "input line 3: the indentation skips a level"));
	fg_collapser_free(c);
	assert_int_equal(fg_guess_format(sample_text, strlen(sample_text)), FG_FORMAT_SAMPLE);
}

static void vtune_tree(void **state)
{
	static const char text[] = "\xEF\xBB\xBF" "Function Stack,CPU Time:Self,Module\r\n"
				   "Total,0.0,[Unknown]\r\n"
				   " main,0.0125,app\r\n"
				   "  \"f<int, char>\",0.031,app\r\n"
				   "  g,0.0004,lib.so\r\n";
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	size_t step;
	char *out;

	(void)state;
	for (step = 0; step < 3; step++) {
		out = collapse_in_steps(FG_FORMAT_VTUNE, NULL, text, strlen(text), step);
		/* milliseconds, rounded; under half a millisecond left out */
		assert_string_equal(out, "[Unknown]`Total;app`main 13\n"
					 "[Unknown]`Total;app`main;app`f<int, char> 31\n");
		free(out);
	}
	o.no_modules = true;
	out = collapse_in_steps(FG_FORMAT_VTUNE, &o, text, strlen(text), 5);
	assert_string_equal(out, "Total;main 13\nTotal;main;f<int, char> 31\n");
	free(out);
	assert_int_equal(fg_guess_format(text, strlen(text)), FG_FORMAT_VTUNE);
}

/* Calls: a caller keeps the calls its callees did not account for. */
static void vsprof_calls(void **state)
{
	static const char text[] =
		"Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive "
		"Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,\r\n"
		"0,\"app.exe\",0,100.00,0.00,0.00,0.00,\"\",\r\n"
		"1,\"Main()\",1,100.00,1.00,1.00,1.00,\"app.exe\",\r\n"
		"2,\"A()\",\"2,500\",50.00,1.00,1.00,1.00,\"app.exe\",\r\n"
		"3,\"B()\",300,50.00,1.00,1.00,1.00,\"app.exe\",\r\n"
		"2,\"C()\",7,50.00,1.00,1.00,1.00,\"app.exe\",\r\n"
		"1,\"Other(int32,bool)\",3,1.00,1.00,1.00,1.00,\"app.exe\",\r\n";
	size_t step;
	char *out;

	(void)state;
	for (step = 0; step < 3; step++) {
		out = collapse_in_steps(FG_FORMAT_VSPROF, NULL, text, strlen(text), step);
		assert_string_equal(out, "Main() 1\nMain();A() 2200\nMain();A();B() 300\n"
					 "Main();C() 7\nOther(int32,bool) 3\n");
		free(out);
	}
	assert_int_equal(fg_guess_format(text, strlen(text)), FG_FORMAT_VSPROF);
}

static void ghcprof_tree(void **state)
{
	static const char text[] =
		"COST CENTRE  MODULE  SRC   no.  entries  %time %alloc   %time %alloc  ticks     bytes\n"
		"\n"
		"MAIN         MAIN    <b>   1    0         2.3    0.0   100.0  100.0     51     4560\n"
		" CAF         Main    <e>   2    0         0.0    0.0    97.7  100.0      0       16\n"
		"  main       Main    a:6   3    1        97.7  100.0    97.7  100.0   2000 90486357\n"
		"\n"
		"MAIN         MAIN    <b>   1    0         9.9    9.9   100.0  100.0     99       99\n";
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	size_t step;
	char *out;

	(void)state;
	for (step = 0; step < 3; step++) {
		out = collapse_in_steps(FG_FORMAT_GHCPROF, NULL, text, strlen(text), step);
		/* tenths of a percent */
		assert_string_equal(out, "MAIN.MAIN 23\nMAIN.MAIN;Main.CAF 0\n"
					 "MAIN.MAIN;Main.CAF;Main.main 977\n");
		free(out);
	}
	o.ghc_source = FG_GHC_BYTES;
	out = collapse_in_steps(FG_FORMAT_GHCPROF, &o, text, strlen(text), 11);
	assert_string_equal(out, "MAIN.MAIN 4560\nMAIN.MAIN;Main.CAF 16\n"
				 "MAIN.MAIN;Main.CAF;Main.main 90486357\n");
	free(out);
	assert_int_equal(fg_guess_format(text, strlen(text)), FG_FORMAT_GHCPROF);
}

static void xctrace_rows(void **state)
{
	static const char text[] =
		"<?xml version=\"1.0\"?>\n<trace-query-result>\n<node><schema name=\"time-profile\"/>\n"
		"<row><backtrace id=\"2\"><frame id=\"3\" name=\"leaf&lt;T&gt;\" addr=\"0x1\">"
		"<binary id=\"4\" name=\"prog\"/></frame><frame id=\"5\" name=\"main\"/></backtrace></row>\n"
		"<row><backtrace ref=\"2\"/></row>\n"
		"<row><backtrace id=\"8\"><frame\n id=\"9\" name=\"f::h0123456789abcdef\"/>"
		"<frame ref=\"5\"/></backtrace></row>\n"
		"<row><sentinel/></row>\n</node></trace-query-result>\n";
	fg_collapser *c = NULL;
	size_t step;
	char *out;

	(void)state;
	for (step = 0; step < 3; step++) {
		out = collapse_in_steps(FG_FORMAT_XCTRACE, NULL, text, strlen(text), step);
		assert_string_equal(out, "main;f 1\nmain;leaf<T> 2\n");
		free(out);
	}
	assert_int_equal(fg_guess_format(text, strlen(text)), FG_FORMAT_XCTRACE);
	/* cut off: an error */
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_XCTRACE, NULL), 0);
	assert_int_equal(fg_collapser_feed(c, text, 200), 0);
	assert_int_equal(fg_collapser_end_input(c), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "ends before </trace-query-result>"));
	fg_collapser_free(c);
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

/* The warning of kind `what` (a substring of its text), or NULL. */
static const char *warning(const fg_collapse_stats *st, const char *what, uint64_t *count,
			   uint64_t *line)
{
	size_t i;

	for (i = 0; i < st->nwarnings; i++)
		if (strstr(st->warnings[i].what, what)) {
			*count = st->warnings[i].count;
			*line = st->warnings[i].first_line;
			return st->warnings[i].what;
		}
	return NULL;
}

/* Collapses text in `step`-byte pieces with nthreads; output in *out
 * (free() it), stats in *st. */
static void collapse_stats(fg_format fmt, unsigned nthreads, const char *text, size_t len,
			   size_t step, char **out, fg_collapse_stats *st)
{
	struct sink s = { FG_STRBUF_INIT };
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	size_t off, n;

	o.nthreads = nthreads;
	assert_int_equal(fg_collapser_new(&c, fmt, &o), 0);
	for (off = 0; off < len; off += n) {
		n = len - off < step ? len - off : step;
		assert_int_equal(fg_collapser_feed(c, text + off, n), 0);
	}
	assert_int_equal(fg_collapser_finish(c), 0);
	assert_int_equal(fg_collapser_foreach(c, collect, &s), 0);
	fg_collapser_stats(c, st);
	fg_collapser_free(c);
	fg_strbuf_addstr(&s.sb, "");
	*out = fg_strbuf_detach(&s.sb, NULL);
}

static size_t count_char(const char *s, char ch)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == ch;
	return n;
}

/* 100 000 frames in one perf event and one DTrace stack: collapsed
 * whole (no recursion, no depth limit), every frame in order. */
static void deep_stacks(void **state)
{
	enum { DEPTH = 100000 };
	fg_strbuf in = FG_STRBUF_INIT;
	fg_collapse_stats st;
	char *out, *p;
	unsigned i, threads;

	for (threads = 1; threads <= 2; threads++) {
		fg_strbuf_reset(&in);
		fg_strbuf_addstr(&in, "app 1 1.0: 3 cycles:\n");
		for (i = 0; i < DEPTH; i++)
			fg_strbuf_addf(&in, "\t%x f%u (/bin/app)\n", i, DEPTH - 1 - i);
		fg_strbuf_addstr(&in, "\napp 1 1.0: 1 cycles:\n\t1 main (/bin/app)\n\n");
		collapse_stats(FG_FORMAT_PERF, threads, in.buf, in.len, 65536, &out, &st);
		assert_int_equal(st.stacks, 2);
		assert_int_equal(st.nwarnings, 0);
		/* "app;f0;...;f99999 3\napp;main 1\n": one ';' per frame */
		p = strchr(out, '\n');
		assert_non_null(p);
		*p = '\0';
		assert_int_equal(count_char(out, ';'), DEPTH);
		assert_true(!strncmp(out, "app;f0;f1;f2;", 13));
		assert_non_null(strstr(out, ";f99998;f99999 3"));
		assert_string_equal(p + 1, "app;main 1\n");
		free(out);

		fg_strbuf_reset(&in);
		for (i = 0; i < DEPTH; i++)
			fg_strbuf_addf(&in, "  mod`g%u+0x4\n", DEPTH - 1 - i);
		fg_strbuf_addstr(&in, "  7\n");
		collapse_stats(FG_FORMAT_DTRACE, threads, in.buf, in.len, 4096, &out, &st);
		assert_int_equal(st.stacks, 1);
		assert_int_equal(count_char(out, ';'), DEPTH - 1);
		assert_true(!strncmp(out, "mod`g0;mod`g1;", 14));
		assert_non_null(strstr(out, ";mod`g99999 7\n"));
		free(out);
	}
	fg_strbuf_release(&in);
}

/* A 1 MB frame name (and a 1 MB command) is cut at a UTF-8 character
 * boundary to end in the mark within 64 KiB (with its suffix), with one
 * warning; the other frames and stacks are kept. */
static void huge_frame_names_are_cut(void **state)
{
	const size_t big = 1 << 20, cap = FG_COLLAPSE_MAX_FRAME;
	const char *marker = FG_COLLAPSE_TRUNCATED;
	fg_strbuf in = FG_STRBUF_INIT, want = FG_STRBUF_INIT;
	fg_collapse_stats st;
	uint64_t count, line;
	char *out, *name;
	size_t i;

	/* "é" (2 bytes) at an odd offset: the cut must not split one */
	name = malloc(big + 1);
	assert_non_null(name);
	name[0] = 'x';
	for (i = 1; i + 1 < big; i += 2)
		memcpy(name + i, "\xc3\xa9", 2);
	name[i] = '\0';
	fg_strbuf_addf(&in, "app 1 1.0: 1 cycles:\n\t1 %s (/bin/app)\n\t2 main (/bin/app)\n\n", name);
	fg_strbuf_addstr(&in, "app 1 1.0: 2 cycles:\n\t1 main (/bin/app)\n\n");
	fg_strbuf_addf(&in, "%s 1 1.0: 4 cycles:\n\t1 main (/bin/app)\n\n", name + 1);
	collapse_stats(FG_FORMAT_PERF, 1, in.buf, in.len, 1 << 16, &out, &st);
	/* room for 64 KiB - 5 ("[...]"): 'x' then 32765 "é"; the command
	 * starts with "é", so 32765 of them (the next would not fit) */
	fg_strbuf_addf(&want, "app;main 2\napp;main;%.*s%s 1\n", (int)(cap - 5), name, marker);
	fg_strbuf_addf(&want, "%.*s%s;main 4\n", (int)(cap - 6), name + 1, marker);
	assert_string_equal(out, want.buf);
	assert_non_null(warning(&st, "64 KiB", &count, &line));
	assert_int_equal(count, 2);
	assert_int_equal(line, 2);
	assert_int_equal(st.nwarnings, 1);
	free(out);

	/* DTrace frames too */
	fg_strbuf_reset(&in);
	fg_strbuf_reset(&want);
	fg_strbuf_addf(&in, "  m`%s\n  m`main\n  5\n", name + 1);
	collapse_stats(FG_FORMAT_DTRACE, 1, in.buf, in.len, 1 << 20, &out, &st);
	fg_strbuf_addf(&want, "m`main;m`%.*s%s 5\n", (int)(cap - 8), name + 1, marker);
	assert_string_equal(out, want.buf);
	assert_non_null(warning(&st, "64 KiB", &count, &line));
	assert_int_equal(count, 1);
	free(out);

	/* with a suffix, the frame with it is 64 KiB at most */
	{
		fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
		fg_collapser *c = NULL;
		struct sink s = { FG_STRBUF_INIT };
		fg_strbuf_reset(&in);
		fg_strbuf_addf(&in, "app 1 1.0: 1 cycles:\n\t1 %s ([kernel.kallsyms])\n\n", name + 1);
		o.annotate_kernel = true;
		o.nthreads = 1;
		assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &o), 0);
		assert_int_equal(fg_collapser_feed(c, in.buf, in.len), 0);
		assert_int_equal(fg_collapser_finish(c), 0);
		assert_int_equal(fg_collapser_foreach(c, collect, &s), 0);
		fg_collapser_free(c);
		fg_strbuf_addstr(&s.sb, "");
		/* "app;" + frame + " 1\n" */
		assert_int_equal(s.sb.len, 4 + (cap - 10) + strlen(marker) + 4 + 3);
		assert_true(strstr(s.sb.buf, "[...]_[k] 1\n") != NULL);
		fg_strbuf_release(&s.sb);
	}
	free(name);
	fg_strbuf_release(&in);
	fg_strbuf_release(&want);
}

/* A stack line read again gives the frames it gave the first time, and
 * nothing that depends on more than its text after the address: the
 * form without a module wants a hex address each time, a "java" event
 * tidies class names, --lines names the frame by the line under it,
 * a process name is no frame, a name cut short is warned about at each
 * line. Repeated past a few chunks (4 MB each), so that lines come back
 * after the worker's per-chunk memory was let go. */
static void lines_read_again_give_the_same_frames(void **state)
{
	static const char events[] =
		"app 1/1 1.0: 1 cycles:\n\t401000 work (/bin/app)\n\t400500 main\n\n"
		"app 1/1 1.1: 2 cycles:\n\t401000 work (/bin/app)\n\tzzzz main\n\n"
		"java 2/2 1.2: 4 cycles:\n\t7f00 Lcom/x/Y;::run (/tmp/perf-2.map)\n"
		"\t7f01 [unknown] (/usr/lib/libjvm.so)\n\n"
		"app 1/1 1.3: 8 cycles:\n\t7f00 Lcom/x/Y;::run (/tmp/perf-2.map)\n"
		"\t7f01 [unknown] (/usr/lib/libjvm.so)\n\n"
		"app 1/1 1.4: 16 cycles:\n\t0 (foo) (/bin/app)\n\t400500 main (/bin/app)\n\n"
		"app 1/1 1.5: 32 cycles:\n\t401000 work (/bin/app)\n\t    work.c:12\n"
		"\t400500 main (/bin/app)\n\t    main.c:3\n\n"
		"app 1/1 1.6: 64 cycles:\n\t401000 work (/bin/app)\n\t    work.c:13\n"
		"\t400500 main (/bin/app)\n\n"
		"java 2/2 1.8: 128 cycles:\n\t7f02 Lcom/x/A;::a->Lcom/x/B;::b (/tmp/perf-2.map)\n"
		"\t400500 main (/bin/app)\n\n";
	const size_t times = 2 + ((size_t)12 << 20) / (sizeof(events) - 1);
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	fg_strbuf in = FG_STRBUF_INIT, want = FG_STRBUF_INIT;
	fg_collapse_stats st;
	uint64_t count, line;
	unsigned long long n = times;
	char *out, *name;
	size_t i;

	for (i = 0; i < times; i++)
		fg_strbuf_add(&in, events, sizeof(events) - 1);
	assert_false(fg_strbuf_failed(&in));
	for (o.nthreads = 1; o.nthreads <= 2; o.nthreads++) {
		o.lines = false;
		out = collapse_in_steps(FG_FORMAT_PERF, &o, in.buf, in.len, 0);
		fg_strbuf_reset(&want);
		fg_strbuf_addf(&want, "app;[libjvm.so];Lcom/x/Y:::run %llu\napp;main %llu\n"
			       "app;main;work %llu\napp;work %llu\njava;[libjvm.so];com/x/Y:::run %llu\n"
			       "java;main;com/x/A:::a;com/x/B:::b_[i] %llu\n",
			       8 * n, 16 * n, 97 * n, 2 * n, 4 * n, 128 * n);
		assert_string_equal(out, want.buf);
		free(out);
		o.lines = true;
		out = collapse_in_steps(FG_FORMAT_PERF, &o, in.buf, in.len, 0);
		fg_strbuf_reset(&want);
		fg_strbuf_addf(&want, "app;[libjvm.so];Lcom/x/Y:::run %llu\napp;main %llu\n"
			       "app;main:main.c:3;work:work.c:12 %llu\napp;main;work %llu\n"
			       "app;main;work:work.c:13 %llu\napp;work %llu\n"
			       "java;[libjvm.so];com/x/Y:::run %llu\n"
			       "java;main;com/x/A:::a;com/x/B:::b_[i] %llu\n",
			       8 * n, 16 * n, 32 * n, 1 * n, 64 * n, 2 * n, 4 * n, 128 * n);
		assert_string_equal(out, want.buf);
		free(out);
	}

	/* an empty module "()" is a module: any address will do */
	{
		static const char empty_mod[] = "p 1/1 1.0: 1 cycles:\n\t1 foo ()\n\tzz foo ()\n\n"
						"p 1/1 1.0: 1 cycles:\n\tzz foo ()\n\t1 foo ()\n\n";
		out = collapse_in_steps(FG_FORMAT_PERF, &o, empty_mod, sizeof(empty_mod) - 1, 0);
		assert_string_equal(out, "p;foo;foo 2\n");
		free(out);
	}

	/* a name cut short: warned about at every line */
	name = malloc(FG_COLLAPSE_MAX_FRAME + 2);
	assert_non_null(name);
	memset(name, 'x', FG_COLLAPSE_MAX_FRAME + 1);
	name[FG_COLLAPSE_MAX_FRAME + 1] = '\0';
	fg_strbuf_reset(&in);
	for (i = 0; i < 3; i++)
		fg_strbuf_addf(&in, "app 1 1.0: 1 cycles:\n\t1 %s (/bin/app)\n\t2 main (/bin/app)\n\n",
			       name);
	collapse_stats(FG_FORMAT_PERF, 1, in.buf, in.len, 1 << 20, &out, &st);
	assert_non_null(warning(&st, "64 KiB", &count, &line));
	assert_int_equal(count, 3);
	assert_int_equal(line, 2);
	assert_non_null(strstr(out, "[...] 3\n"));
	free(out);
	free(name);
	fg_strbuf_release(&in);
	fg_strbuf_release(&want);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Past the budget of its caches (32 Ki lines) a worker empties them
 * between chunks and starts again: stacks read after that are their
 * own, not those of the lines read before. Each event has one line of
 * its own among lines every event has, over three chunks. */
static void caches_emptied_start_again(void **state)
{
	const size_t events = 120000;
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	fg_strbuf in = FG_STRBUF_INIT, want = FG_STRBUF_INIT;
	char *out, **names;
	size_t i;

	o.nthreads = 1;
	for (i = 0; i < events; i++)
		fg_strbuf_addf(&in, "app 1 1.0: 1 cycles:\n\t1 f%zu (m)\n\t2 a (m)\n\t3 b (m)\n"
			       "\t4 c (m)\n\t5 main (m)\n\n", i);
	/* and once more: stacks counted before */
	for (i = 0; i < events; i += 1000)
		fg_strbuf_addf(&in, "app 1 1.0: 1 cycles:\n\t1 f%zu (m)\n\t2 a (m)\n\t3 b (m)\n"
			       "\t4 c (m)\n\t5 main (m)\n\n", i);
	assert_false(fg_strbuf_failed(&in));
	out = collapse_in_steps(FG_FORMAT_PERF, &o, in.buf, in.len, 0);
	/* in the collapser's order, bytewise: f0, f1, f10, f100 ... (a
	 * space sorts before the digits) */
	names = calloc(events, sizeof(*names));
	assert_non_null(names);
	for (i = 0; i < events; i++) {
		fg_strbuf one = FG_STRBUF_INIT;
		fg_strbuf_addf(&one, "app;main;c;b;a;f%zu %d\n", i, i % 1000 ? 1 : 2);
		assert_non_null(names[i] = fg_strbuf_detach(&one, NULL));
	}
	qsort(names, events, sizeof(*names), cmp_str);
	for (i = 0; i < events; i++) {
		fg_strbuf_addstr(&want, names[i]);
		free(names[i]);
	}
	free(names);
	assert_false(fg_strbuf_failed(&want));
	assert_string_equal(out, want.buf);
	free(out);
	fg_strbuf_release(&in);
	fg_strbuf_release(&want);
}

static void add_repeated(fg_strbuf *sb, char ch, size_t n)
{
	assert_int_equal(fg_strbuf_grow(sb, n), 0);
	memset(sb->buf + sb->len, ch, n);
	sb->len += n; /* filled in place after fg_strbuf_grow */
	sb->buf[sb->len] = '\0';
}

/* A line over 16 MiB drops its event (perf) or stack (DTrace) and
 * nothing else, with one warning at its line, and however it is fed the
 * collapser never holds much more than the cap. */
static void overlong_lines_are_skipped(void **state)
{
	const size_t huge = FG_COLLAPSE_MAX_LINE + 1000;
	static const size_t steps[] = { 4096, 1 << 20, (size_t)40 << 20 };
	fg_strbuf in = FG_STRBUF_INIT;
	fg_collapse_stats st;
	uint64_t count, line;
	char *out;
	size_t i, k;

	for (k = 0; k < 2; k++) {
		fg_strbuf_reset(&in);
		fg_strbuf_addstr(&in, "app 1 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)\n\n");
		fg_strbuf_addstr(&in, "app 1 1.0: 1 cycles:\n\t1 ");
		/* k == 0: a huge symbol; k == 1: a huge header line */
		if (k == 1)
			fg_strbuf_setlen(&in, in.len - 24);
		add_repeated(&in, k ? 'h' : 's', huge);
		fg_strbuf_addstr(&in, " (/bin/app)\n\t2 root (/bin/app)\n\n");
		fg_strbuf_addstr(&in, "app 1 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)\n\n");
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			collapse_stats(FG_FORMAT_PERF, 1 + (unsigned)i % 2, in.buf, in.len, steps[i],
				       &out, &st);
			assert_string_equal(out, "app;root;leaf 2\n");
			assert_non_null(warning(&st, "16 MiB", &count, &line));
			assert_int_equal(count, 1);
			assert_int_equal(line, k ? 5 : 6);
			assert_int_equal(st.samples, 2);
			free(out);
		}
	}
	fg_strbuf_reset(&in);
	fg_strbuf_addstr(&in, "  m`a\n  m`b\n  3\n  m`c\n  m`");
	add_repeated(&in, 'd', huge);
	fg_strbuf_addstr(&in, "\n  m`e\n  4\n  m`a\n  m`b\n  5\n");
	collapse_stats(FG_FORMAT_DTRACE, 1, in.buf, in.len, 1 << 20, &out, &st);
	assert_string_equal(out, "m`b;m`a 8\n");
	assert_non_null(warning(&st, "16 MiB", &count, &line));
	assert_int_equal(line, 5);
	free(out);
	fg_strbuf_release(&in);
}

/* Two events with period 2^63 on one stack sum to 2^64: the count is held
 * at 2^64 - 1 with a warning, never wrapped to 0; with threads the sum
 * happens at the merge and is caught there too. A period of 2^64 drops its
 * event rather than counting it as 1. */
static void counts_near_2_64_saturate(void **state)
{
	static const char two[] =
		"app 1 1.0: 9223372036854775808 cycles:\n\t1 main (/bin/app)\n\n"
		"app 1 1.0: 9223372036854775808 cycles:\n\t1 main (/bin/app)\n\n"
		"app 1 1.0: 5 cycles:\n\t1 other (/bin/app)\n\n"
		"app 1 1.0: 18446744073709551616 cycles:\n\t1 other (/bin/app)\n\n";
	fg_strbuf in = FG_STRBUF_INIT;
	fg_collapse_stats st;
	uint64_t count, line;
	char *out;
	unsigned i;

	collapse_stats(FG_FORMAT_PERF, 1, two, sizeof(two) - 1, 1 << 20, &out, &st);
	assert_string_equal(out, "app;main 18446744073709551615\napp;other 5\n");
	assert_non_null(warning(&st, "2^64 - 1", &count, &line));
	assert_int_equal(count, 1);
	assert_int_equal(line, 6);
	assert_non_null(warning(&st, "periods too large", &count, &line));
	assert_int_equal(line, 10);
	free(out);

	/* Across threads: one 2^62 event per MB on one stack, 24 of them, so
	 * per-block sums overflow when added up */
	for (i = 1; i <= 24; i++) {
		fg_strbuf_addstr(&in, "app 1 1.0: 4611686018427387904 cycles:\n\t1 main (/bin/app)\n\n");
		while (in.len < (size_t)i << 20)
			fg_strbuf_addstr(&in, "app 1 1.0: 1 cycles:\n\t1 filler (/bin/app)\n\n");
	}
	collapse_stats(FG_FORMAT_PERF, 3, in.buf, in.len, 1 << 20, &out, &st);
	assert_non_null(strstr(out, "app;main 18446744073709551615\n"));
	assert_non_null(warning(&st, "2^64 - 1", &count, &line));
	free(out);

	/* DTrace: 2^64 - 1 plus 1 */
	collapse_stats(FG_FORMAT_DTRACE, 1, "  m`a\n  18446744073709551615\n  m`a\n  1\n", 39, 7,
		       &out, &st);
	assert_string_equal(out, "m`a 18446744073709551615\n");
	assert_non_null(warning(&st, "2^64 - 1", &count, &line));
	assert_int_equal(line, 4);
	free(out);
	fg_strbuf_release(&in);
}

/* An event (perf) or stack (DTrace) of more than 64 MiB of text, as in
 * an input without empty lines or counts, is dropped with one warning at
 * its first line; the stacks before and after it are kept. */
static void oversized_stacks_are_dropped(void **state)
{
	static const char good[] = "app 1 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)\n\n";
	fg_strbuf in = FG_STRBUF_INIT, dt = FG_STRBUF_INIT;
	fg_collapse_stats st;
	uint64_t count, line;
	unsigned threads;
	size_t lines = 0;
	char *out;

	fg_strbuf_addstr(&in, good);
	fg_strbuf_addstr(&in, "app 1 1.0: 1 cycles:\n");
	while (in.len < FG_COLLAPSE_MAX_STACK + (8 << 20)) {
		fg_strbuf_addstr(&in, "\t1 deep_frame_of_a_stack_that_never_ends (/bin/app)\n");
		lines++;
	}
	fg_strbuf_addstr(&in, "\n");
	fg_strbuf_addstr(&in, good);
	fg_strbuf_addstr(&in, "app 1 1.0: 1 cycles:\n\t1 last (/bin/app)\n\n");
	for (threads = 1; threads <= 2; threads++) {
		collapse_stats(FG_FORMAT_PERF, threads, in.buf, in.len, 1 << 20, &out, &st);
		assert_string_equal(out, "app;last 1\napp;root;leaf 2\n");
		assert_non_null(warning(&st, "more than 64 MiB", &count, &line));
		assert_int_equal(count, 1);
		assert_int_equal(line, 5);
		assert_int_equal(st.nwarnings, 1);
		free(out);
	}
	/* a warning after it still has its right line number */
	fg_strbuf_addstr(&in, "not a header\n\n");
	collapse_stats(FG_FORMAT_PERF, 1, in.buf, in.len, 3 << 20, &out, &st);
	assert_non_null(warning(&st, "event header", &count, &line));
	assert_int_equal(line, 4 + 1 + lines + 1 + 4 + 3 + 1);
	free(out);

	fg_strbuf_addstr(&dt, "  m`a\n  2\n");
	while (dt.len < FG_COLLAPSE_MAX_STACK + (8 << 20))
		fg_strbuf_addstr(&dt, "  m`a_frame_of_a_stack_without_a_count\n");
	fg_strbuf_addstr(&dt, "  5\n  m`a\n  3\n");
	collapse_stats(FG_FORMAT_DTRACE, 2, dt.buf, dt.len, 1 << 20, &out, &st);
	assert_string_equal(out, "m`a 5\n");
	assert_non_null(warning(&st, "more than 64 MiB", &count, &line));
	assert_int_equal(line, 3);
	free(out);
	fg_strbuf_release(&in);
	fg_strbuf_release(&dt);
}

/* Builds good + a perf event whose text (header to its empty line
 * included) is exactly `size` bytes + good. */
static void event_of_size(fg_strbuf *in, size_t size, const char *event)
{
	static const char good[] = "app 1 1.0: 1 cycles:\n\t1 leaf (/bin/app)\n\t2 root (/bin/app)\n\n";
	static const char frame[] = "\t1 frame_in_a_stack_near_the_size_limit (/bin/app)\n";
	size_t start, pad;

	fg_strbuf_reset(in);
	if (!strcmp(event, "cycles"))
		fg_strbuf_addstr(in, good);
	start = in->len;
	fg_strbuf_addf(in, "app 1 1.0: 1 %s:\n", event);
	while (in->len - start + 2 * sizeof(frame) + 1 < size)
		fg_strbuf_addstr(in, frame);
	/* one last frame padded to the size wanted */
	pad = size - (in->len - start) - 1 - (sizeof("\t1  (/bin/app)\n") - 1);
	fg_strbuf_addstr(in, "\t1 ");
	add_repeated(in, 'p', pad);
	fg_strbuf_addstr(in, " (/bin/app)\n\n");
	assert_int_equal(in->len - start, size);
	fg_strbuf_addstr(in, good);
	if (strcmp(event, "cycles"))
		fg_strbuf_addstr(in, good);
}

/* Whether a stack is over the cap does not depend on how the input was
 * fed: just over it is dropped, just under kept, in one piece or in small
 * ones, with one thread or two. */
static void stack_cap_is_exact(void **state)
{
	fg_strbuf in = FG_STRBUF_INIT;
	fg_collapse_stats st;
	uint64_t count, line;
	char *out;
	size_t k, i;
	static const size_t steps[] = { 256, 1 << 20, (size_t)1 << 30 };

	for (k = 0; k < 2; k++) {
		event_of_size(&in, FG_COLLAPSE_MAX_STACK + (k ? 1 : 0), "cycles");
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			collapse_stats(FG_FORMAT_PERF, 1 + (unsigned)(i == 1), in.buf, in.len, steps[i],
				       &out, &st);
			if (k) {
				assert_string_equal(out, "app;root;leaf 2\n");
				assert_non_null(warning(&st, "more than 64 MiB", &count, &line));
				assert_int_equal(line, 5);
			} else {
				assert_non_null(strstr(out, "app;root;leaf 2\n"));
				assert_null(warning(&st, "more than 64 MiB", &count, &line));
				assert_int_equal(st.stacks, 2);
			}
			free(out);
		}
	}
	/* the default event type is not taken from a stack that is dropped,
	 * whether it was dropped while read or when parsed */
	event_of_size(&in, FG_COLLAPSE_MAX_STACK + 1, "instructions");
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		collapse_stats(FG_FORMAT_PERF, 1, in.buf, in.len, steps[i], &out, &st);
		/* "instructions" would have filtered the "cycles" samples out */
		assert_string_equal(out, "app;root;leaf 2\n");
		free(out);
	}
	fg_strbuf_release(&in);
}

/* perf script -F without time, event or dso (any field set with ip and sym
 * is read): header lines that end after the thread, stack lines without a
 * module. The text is what perf 6.1 prints for those fields. */
static void perf_minimal_fields(void **state)
{
	static const char *const texts[] = {
		/* comm,pid,tid,ip,sym */
		"app 10/11 \n\t    55d0c0a01139 leaf\n\t    55d0c0a01150 main\n\n"
		"app 10/11 \n\t    7f2a1c2f4a17 [unknown]\n\t    55d0c0a01150 main\n\n"
		"app 10/12 \n\t    55d0c0a01139 leaf\n\t    55d0c0a01150 main\n\n",
		/* comm,tid,cpu,ip,sym */
		"app    11 [001] \n\t    55d0c0a01139 leaf\n\t    55d0c0a01150 main\n\n"
		"app    11 [000] \n\t    7f2a1c2f4a17 [unknown]\n\t    55d0c0a01150 main\n\n"
		"app    12 [001] \n\t    55d0c0a01139 leaf\n\t    55d0c0a01150 main\n\n",
		/* comm,pid,tid,time,ip,sym */
		"app 10/11  7804.495397: \n\t55d0c0a01139 leaf\n\t55d0c0a01150 main\n\n"
		"app 10/11  7804.496397: \n\t7f2a1c2f4a17 [unknown]\n\t55d0c0a01150 main\n\n"
		"app 10/12  7804.497397: \n\t55d0c0a01139 leaf\n\t55d0c0a01150 main",
	};
	/* comm,pid,tid,period,ip,sym: the last number weighs the sample */
	static const char period[] =
		"app 10/11    1001001 \n\t55d0c0a01139 leaf\n\t55d0c0a01150 main\n\n"
		"app 10/12        999 \n\t55d0c0a01139 leaf\n\t55d0c0a01150 main\n\n";
	fg_collapse_stats st;
	size_t i;
	char *out;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		collapse_stats(FG_FORMAT_PERF, 1, texts[i], strlen(texts[i]), 7, &out, &st);
		assert_string_equal(out, "app;main;[unknown] 1\napp;main;leaf 2\n");
		assert_int_equal(st.nwarnings, 0);
		assert_int_equal(st.samples, 3);
		free(out);
		assert_int_equal(fg_guess_format(texts[i], strlen(texts[i])), FG_FORMAT_PERF);
	}
	collapse_stats(FG_FORMAT_PERF, 1, period, strlen(period), 4096, &out, &st);
	assert_string_equal(out, "app;main;leaf 1002000\n");
	assert_int_equal(st.nwarnings, 0);
	free(out);
}

static void guess_format(void **state)
{
	assert_int_equal(fg_guess_format(perf_text, strlen(perf_text)), FG_FORMAT_PERF);
	assert_int_equal(fg_guess_format(dtrace_text, strlen(dtrace_text)), FG_FORMAT_DTRACE);
	assert_int_equal(fg_guess_format("", 0), FG_FORMAT_UNKNOWN);
	assert_int_equal(fg_guess_format("hello world\n", 12), FG_FORMAT_UNKNOWN);
	assert_int_equal(fg_guess_format("  a`b\n  7\n", 10), FG_FORMAT_DTRACE);
}

/* A first DTrace stack deeper than the bytes the guesser sees still reads
 * as DTrace; a few backtick lines without a count do not. */
static void guess_deep_dtrace(void **state)
{
	fg_strbuf in = FG_STRBUF_INIT;
	unsigned i;

	fg_strbuf_addstr(&in, "CPU ID FUNCTION:NAME\n0 1 :tick\n\n");
	for (i = 0; i < 999; i++)
		fg_strbuf_addf(&in, "  prog`f%u+0x1\n", i);
	assert_int_equal(fg_guess_format(in.buf, in.len), FG_FORMAT_UNKNOWN);
	fg_strbuf_addstr(&in, "  prog`last\n");
	assert_int_equal(fg_guess_format(in.buf, in.len), FG_FORMAT_DTRACE);
	fg_strbuf_release(&in);
}

/* NUL and invalid UTF-8 bytes are found by the pass that finds the
 * newlines, 64 bytes at a time: wherever they fall relative to those
 * blocks (a comment line of every length in front shifts them), the line
 * holding them is cleaned and its neighbours are left as they are. */
static void bad_bytes_found_at_every_offset(void **state)
{
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	fg_strbuf want = FG_STRBUF_INIT;

	/* each bad byte is followed by 100 good ones on its line, so the
	 * line's newline lies in a later block for most shifts */
	fg_strbuf_addstr(&want, "app;good\xc3\xa9 1\napp;main;bad\xef\xbf\xbd");
	add_repeated(&want, 'n', 100);
	fg_strbuf_addstr(&want, " 1\napp;main;nul\xef\xbf\xbd");
	add_repeated(&want, 'n', 100);
	fg_strbuf_addstr(&want, " 1\n");
	o.nthreads = 1;
	for (size_t shift = 0; shift < 140; shift++) {
		fg_strbuf in = FG_STRBUF_INIT;
		char *out;
		fg_strbuf_addch(&in, '#');
		add_repeated(&in, 'x', shift);
		fg_strbuf_addstr(&in, "\napp 1 1.0: 1 cycles:\n\t1 bad\xff");
		add_repeated(&in, 'n', 100);
		fg_strbuf_addstr(&in, " (/bin/app)\n\t2 main (/bin/app)\n\napp 1 1.0: 1 cycles:\n\t1 nul");
		fg_strbuf_add(&in, "", 1);
		add_repeated(&in, 'n', 100);
		fg_strbuf_addstr(&in, " (/bin/app)\n\t2 main (/bin/app)\n\n"
				      "app 1 1.0: 1 cycles:\n\t1 good\xc3\xa9 (/bin/app)\n\n");
		out = collapse_in_steps(FG_FORMAT_PERF, &o, in.buf, in.len, 0);
		if (strcmp(out, want.buf))
			print_error("shift %zu: got '%s'\n", shift, out);
		assert_string_equal(out, want.buf);
		free(out);
		fg_strbuf_release(&in);
	}
	fg_strbuf_release(&want);
}

/* keep_order (flame charts): stacks in input order, only consecutive
 * equal ones merged, whatever thread count is asked for; foreach and
 * write agree. */
static void keep_order_gives_time_order(void **state)
{
	static const char text[] =
		"app 1 1.0: 1 cycles:\n\t1 a (/bin/app)\n\t2 main (/bin/app)\n\n"
		"app 1 2.0: 1 cycles:\n\t1 a (/bin/app)\n\t2 main (/bin/app)\n\n"
		"app 1 3.0: 1 cycles:\n\t1 b (/bin/app)\n\t2 main (/bin/app)\n\n"
		"app 1 4.0: 1 cycles:\n\t1 a (/bin/app)\n\t2 main (/bin/app)\n\n";
	static const char want[] = "app;main;a 2\napp;main;b 1\napp;main;a 1\n";
	fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	char *out, buf[256] = "";
	FILE *f;

	o.keep_order = true;
	o.nthreads = 4;
	out = collapse_in_steps(FG_FORMAT_PERF, &o, text, sizeof(text) - 1, 7);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &o), 0);
	assert_int_equal(fg_collapser_feed(c, text, sizeof(text) - 1), 0);
	assert_int_equal(fg_collapser_finish(c), 0);
	assert_non_null(f = fmemopen(buf, sizeof(buf) - 1, "w"));
	assert_int_equal(fg_collapser_write(c, f), 0);
	fclose(f);
	assert_string_equal(buf, want);
	fg_collapser_free(c);
	/* without it: merged and sorted */
	o.keep_order = false;
	out = collapse_in_steps(FG_FORMAT_PERF, &o, text, sizeof(text) - 1, 0);
	assert_string_equal(out, "app;main;a 3\napp;main;b 1\n");
	free(out);
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

/* ---- samples as data: the same folded stacks, stats and warnings as
 * the text perf script prints for them ---- */

static void put_sample_text(fg_strbuf *sb, const fg_sample *s)
{
	fg_strbuf_addf(sb, "%s %d/%d %llu %s:\n", s->comm, (int)s->pid, (int)s->tid,
		       (unsigned long long)s->period, s->event);
	for (size_t i = 0; i < s->nframes; i++) {
		const fg_sample_frame *f = &s->frames[i];
		const char *sym = f->sym ? f->sym : "[unknown]";
		size_t n = strlen(sym), k = n;
		bool off = n && strchr(" \t\r\v\f", sym[n - 1]);
		while (k && strchr("0123456789abcdefABCDEF", sym[k - 1]))
			k--;
		off = f->sym && (off || (k >= 3 && !memcmp(sym + k - 3, "+0x", 3)));
		fg_strbuf_addf(sb, "\t%llx %s%s (%s)\n", (unsigned long long)f->addr, sym,
			       off ? "+0x0" : "",
			       f->inlined ? "inlined" : f->module ? f->module : "[unknown]");
		if (f->file)
			fg_strbuf_addf(sb, "  %s:%u%s\n", f->file, f->line,
				       f->inlined ? " (inlined)" : "");
	}
	fg_strbuf_addch(sb, '\n');
}

static char *folded_and_stats(fg_collapser *c)
{
	struct sink s = { FG_STRBUF_INIT };
	fg_collapse_stats st;

	assert_int_equal(fg_collapser_finish(c), 0);
	assert_int_equal(fg_collapser_foreach(c, collect, &s), 0);
	fg_collapser_stats(c, &st);
	fg_strbuf_addf(&s.sb, "bytes %llu samples %llu stacks %llu filtered %llu event %s\n",
		       (unsigned long long)st.bytes, (unsigned long long)st.samples,
		       (unsigned long long)st.stacks, (unsigned long long)st.filtered,
		       st.event ? st.event : "-");
	for (size_t i = 0; i < st.nwarnings; i++)
		fg_strbuf_addf(&s.sb, "warning %s: %llu at %llu\n", st.warnings[i].what,
			       (unsigned long long)st.warnings[i].count,
			       (unsigned long long)st.warnings[i].first_line);
	return fg_strbuf_detach(&s.sb, NULL);
}

static void samples_as_data_match_text(void **state)
{
	static char big[70000];
	static const fg_sample_frame plain[] = {
		{ 0x1a, "leaf(int)", "/usr/bin/prog", false, false, "leaf.c", 12 },
		{ 0x2b, "inl_fn", "/usr/bin/prog", true, false, "src/inl.h", 7 },
		{ 0x3c, NULL, "/usr/lib/libc.so.6", false, false, NULL, 0 },
		{ 0x4d, NULL, NULL, false, false, NULL, 0 },
		{ 0xffffffff81000000ull, "do_syscall_64", "[kernel.kallsyms]", false, true, NULL, 0 },
		{ 0x5e, "jitted", "/tmp/perf-12.map", false, false, NULL, 0 },
		{ 0x6f, "std::vector<int>::push_back(int const&)", "/usr/bin/prog", false, false, "v.h", 0 },
		{ 0x70, "a;b", "/usr/bin/prog", false, false, "x;y.c", 3 },
		{ 0x81, "main", "/usr/bin/prog", false, false, "??", 5 },
	};
	static const fg_sample_frame odd[] = {
		{ 0x1, "trailing ", "/usr/bin/prog", false, false, NULL, 0 },
		{ 0x2, "off+0x1f", "/usr/bin/prog", false, false, NULL, 0 },
		{ 0x3, "Lcom/x/Y;::run", "/tmp/perf-9.map", false, false, NULL, 0 },
		{ 0x4, "a->b->c", "/usr/bin/prog", false, false, "j.c", 4 },
		{ 0x5, " lead", "/usr/bin/prog", false, false, NULL, 0 },
		{ 0x6, "(paren)", "/usr/bin/prog", false, false, NULL, 0 },
		{ 0x7, "caf\xc3\xa9", "/tmp/my dir/a.out", false, false, "dir/", 2 },
		{ 0x8, "bad\xff", "", false, false, "sp ace.c", 9 },
		{ 0x9, "", "/usr/bin/prog", false, false, NULL, 0 },
		{ 0xa, "_ZN4core3fmt5write17h0123456789abcdefE", "m.ko", false, false, NULL, 0 },
		{ 0xb, big, "/usr/bin/prog", false, false, NULL, 0 },
		{ 0xc, "main", "/usr/bin/prog", false, false, NULL, 0 },
	};
	static const fg_sample samples[] = {
		{ "prog", 10, 11, 0, 1000, "cycles:u", plain, 9 },
		{ "prog", 10, 12, 0, 0, "cycles:u", plain + 2, 7 },
		{ "java", 20, 20, 0, 5, "cycles", odd, 4 },
		{ "Web Content", 30, 31, 0, 7, "cycles:u", odd + 4, 6 },
		{ "r\xc3\xa9", -1, -1, 0, 3, "cycles", odd + 6, 6 },
		{ "prog", 10, 11, 0, 9, "instructions", plain, 3 },
		{ "#c", 40, 40, 0, 2, "cycles", plain, 2 },
		{ "12/3", 50, 51, 0, 2, "cycles", plain + 5, 4 },
		{ "prog", 10, 11, 0, 4, "cycles:u", odd + 10, 2 },
		{ "prog", 10, 11, 0, 18446744073709551615ull, "cycles:u", plain + 8, 1 },
		{ "prog", 10, 11, 0, 2, "cycles:u", plain + 8, 1 },
		{ "prog", 10, 11, 0, 1, "a b", plain, 1 },
	};
	static const char *const skip[] = { "inl_fn", "b" };
	fg_collapse_opts opts[12];
	size_t no = 0, i, k;

	memset(big, 'x', sizeof(big) - 1);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		fg_collapse_opts o = FG_COLLAPSE_OPTS_INIT;
		o.nthreads = 1 + (i & 1);
		opts[i] = o;
	}
	no++;
	opts[no++].include_pid = true;
	opts[no++].include_tid = true;
	opts[no].annotate_kernel = opts[no].annotate_jit = true;
	no++;
	opts[no++].include_addrs = true;
	opts[no++].lines = true;
	opts[no].skip_after = skip;
	opts[no].nskip_after = 2;
	opts[no++].lines = true;
	opts[no++].per_thread = true;
	opts[no++].event_filter = "instructions";
	opts[no++].inline_frames = false;
	opts[no++].keep_order = true;
	opts[no++].event_filter = "cycles:u";
	for (i = 0; i < no; i++) {
		fg_collapser *c = NULL;
		fg_strbuf text = FG_STRBUF_INIT;
		char *want, *got;

		for (k = 0; k < sizeof(samples) / sizeof(samples[0]); k++)
			put_sample_text(&text, &samples[k]);
		assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &opts[i]), 0);
		assert_int_equal(fg_collapser_feed(c, text.buf, text.len), 0);
		want = folded_and_stats(c);
		fg_collapser_free(c);

		assert_int_equal(fg_collapser_new(&c, FG_FORMAT_UNKNOWN, &opts[i]), 0);
		for (k = 0; k < sizeof(samples) / sizeof(samples[0]); k++)
			assert_int_equal(fg_collapser_add_sample(c, &samples[k]), 0);
		assert_int_equal(fg_collapser_feed(c, "x\n", 2), FG_EINVAL);
		got = folded_and_stats(c);
		assert_int_equal(fg_collapser_add_sample(c, &samples[0]), FG_EINVAL);
		fg_collapser_free(c);
		if (strcmp(want, got)) {
			size_t at = 0, line = 1;
			for (; want[at] == got[at]; at++)
				line += want[at] == '\n';
			fail_msg("options %zu: line %zu of the result differs: text \"%.80s\", data \"%.80s\"",
				 i, line, want + at, got + at);
		}
		assert_non_null(strstr(want, "prog"));
		free(want);
		free(got);
		fg_strbuf_release(&text);
	}
}

static void samples_need_a_perf_collapser_without_text(void **state)
{
	static const fg_sample_frame f = { 0x1, "main", "/bin/x", false, false, NULL, 0 };
	static const fg_sample s = { "x", 1, 1, 0, 1, "cycles", &f, 1 };
	fg_collapser *c = NULL;

	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_DTRACE, NULL), 0);
	assert_int_equal(fg_collapser_add_sample(c, &s), FG_EINVAL);
	fg_collapser_free(c);
	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, NULL), 0);
	assert_int_equal(fg_collapser_feed(c, "\n", 1), 0);
	assert_int_equal(fg_collapser_add_sample(c, &s), FG_EINVAL);
	fg_collapser_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_one_shot),
		cmocka_unit_test(odd_chunk_sizes_match_one_shot),
		cmocka_unit_test(perf_options),
		cmocka_unit_test(srcline_lines),
		cmocka_unit_test(skip_after_drops_callers),
		cmocka_unit_test(dtrace_offsets_rust),
		cmocka_unit_test(recursive_folds_recursion),
		cmocka_unit_test(sample_call_graph),
		cmocka_unit_test(sample_errors_name_the_line),
		cmocka_unit_test(vtune_tree),
		cmocka_unit_test(vsprof_calls),
		cmocka_unit_test(ghcprof_tree),
		cmocka_unit_test(xctrace_rows),
		cmocka_unit_test(dtrace_offsets),
		cmocka_unit_test(threads_give_identical_output),
		cmocka_unit_test(stats_count_bad_lines_once_per_kind),
		cmocka_unit_test(perf_minimal_fields),
		cmocka_unit_test(guess_format),
		cmocka_unit_test(guess_deep_dtrace),
		cmocka_unit_test(api_misuse_is_an_error),
		cmocka_unit_test(bad_bytes_found_at_every_offset),
		cmocka_unit_test(keep_order_gives_time_order),
		cmocka_unit_test(deep_stacks),
		cmocka_unit_test(huge_frame_names_are_cut),
		cmocka_unit_test(lines_read_again_give_the_same_frames),
		cmocka_unit_test(caches_emptied_start_again),
		cmocka_unit_test(overlong_lines_are_skipped),
		cmocka_unit_test(counts_near_2_64_saturate),
		cmocka_unit_test(oversized_stacks_are_dropped),
		cmocka_unit_test(stack_cap_is_exact),
		cmocka_unit_test(samples_as_data_match_text),
		cmocka_unit_test(samples_need_a_perf_collapser_without_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
