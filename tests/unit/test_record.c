/* Command lines of the recorders: perf record/script, DTrace and xctrace, built
 * without running anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/record.h"
#include "util/strbuf.h"

/* The vector joined with single spaces, for comparison. */
static char *joined(char **argv)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	size_t i;

	for (i = 0; argv[i]; i++) {
		if (i)
			fg_strbuf_addch(&sb, ' ');
		fg_strbuf_addf(&sb, "[%s]", argv[i]);
	}
	return fg_strbuf_detach(&sb, NULL);
}

static void expect_cmd(const fg_record_opts *o, const char *want)
{
	char **argv = NULL, *got;

	assert_int_equal(fg_record_command(&argv, o), 0);
	got = joined(argv);
	assert_string_equal(got, want);
	free(got);
	fg_argv_free(argv);
}

static const char *const prog[] = { "./work", "--n", "a b" };

static void perf_defaults_use_dwarf_64k(void **state)
{
	fg_record_opts o = FG_RECORD_OPTS_INIT;

	o.argv = prog;
	o.argc = 3;
	o.output = "/tmp/p.data";
	expect_cmd(&o, "[perf] [record] [-F] [997] [--call-graph] [dwarf,65528] [-g] [-o] "
		       "[/tmp/p.data] [--] [./work] [--n] [a b]");
}

static void perf_fp_freq_tool_and_compression(void **state)
{
	fg_record_opts o = FG_RECORD_OPTS_INIT;

	o.argv = prog;
	o.argc = 1;
	o.output = "x";
	o.tool = "/opt/perf";
	o.freq = 4999;
	o.call_graph = FG_CALL_GRAPH_FP;
	o.compression_level = 3;
	expect_cmd(&o, "[/opt/perf] [record] [-F] [4999] [--call-graph] [fp] [-g] "
		       "[--compression-level=3] [-o] [x] [--] [./work]");
	o.call_graph = FG_CALL_GRAPH_LBR;
	o.compression_level = -1;
	expect_cmd(&o, "[/opt/perf] [record] [-F] [4999] [--call-graph] [lbr] [-g] [-o] [x] [--] [./work]");
}

static void perf_pids_and_root(void **state)
{
	static const char *const pids[] = { "12", "34" };
	fg_record_opts o = FG_RECORD_OPTS_INIT;

	o.pids = pids;
	o.npids = 2;
	o.output = "x";
	o.root = true;
	expect_cmd(&o, "[sudo] [perf] [record] [-F] [997] [--call-graph] [dwarf,65528] [-g] "
		       "[-o] [x] [-p] [12,34]");
	o.sudo_flags = "-E --preserve-env='A B'";
	expect_cmd(&o, "[sudo] [-E] [--preserve-env=A B] [perf] [record] [-F] [997] [--call-graph] "
		       "[dwarf,65528] [-g] [-o] [x] [-p] [12,34]");
}

static void perf_custom_args_replace_defaults(void **state)
{
	fg_record_opts o = FG_RECORD_OPTS_INIT;

	o.argv = prog;
	o.argc = 1;
	o.output = "x";
	o.custom = "record -e cycles -c 100 --call-graph 'lbr' -g";
	expect_cmd(&o, "[perf] [record] [-e] [cycles] [-c] [100] [--call-graph] [lbr] [-g] "
		       "[-o] [x] [--] [./work]");
	/* without the leading "record" */
	o.custom = "-e branch-misses -g";
	expect_cmd(&o, "[perf] [record] [-e] [branch-misses] [-g] [-o] [x] [--] [./work]");
	o.custom = "-e 'unterminated";
	{
		char **argv = NULL;
		assert_int_equal(fg_record_command(&argv, &o), FG_EPARSE);
		assert_null(argv);
	}
}

static void dtrace_probe_and_command(void **state)
{
	static const char *const pid[] = { "77" };
	fg_record_opts o = FG_RECORD_OPTS_INIT;

	o.recorder = FG_RECORDER_DTRACE;
	o.argv = prog;
	o.argc = 3;
	o.output = "out.stacks";
	expect_cmd(&o, "[dtrace] [-x] [ustackframes=100] [-n] "
		       "[profile-997 /pid == $target/ { @[ustack(100)] = count(); }] "
		       "[-o] [out.stacks] [-c] [./work --n 'a b']");
	o.argv = NULL;
	o.argc = 0;
	o.pids = pid;
	o.npids = 1;
	o.freq = 199;
	o.tool = "/usr/sbin/dtrace";
	expect_cmd(&o, "[/usr/sbin/dtrace] [-x] [ustackframes=100] [-n] "
		       "[profile-199 /pid == $target/ { @[ustack(100)] = count(); }] "
		       "[-o] [out.stacks] [-p] [77]");
	{
		char **argv = NULL;
		assert_int_equal(fg_record_script_command(&argv, &o, "x", false), FG_EINVAL);
	}
}

static void script_command(void **state)
{
	fg_record_opts o = FG_RECORD_OPTS_INIT;
	char **argv = NULL, *got;

	assert_int_equal(fg_record_script_command(&argv, &o, "p.data", true), 0);
	got = joined(argv);
	assert_string_equal(got, "[perf] [script] [-i] [p.data] [--no-inline]");
	free(got);
	fg_argv_free(argv);
	o.root = true;
	o.tool = "/x/perf";
	assert_int_equal(fg_record_script_command(&argv, &o, "p.data", false), 0);
	got = joined(argv);
	assert_string_equal(got, "[sudo] [/x/perf] [script] [-f] [-i] [p.data]");
	free(got);
	fg_argv_free(argv);
}

/* Off-CPU: every scheduler switch with its stack and the switch records;
 * hot/cold adds cpu-clock at its own frequency. perf script then shows
 * the switch records. Not with DTrace nor a custom command. */
static void off_cpu_and_hot_cold(void **state)
{
	fg_record_opts o = FG_RECORD_OPTS_INIT;
	char **argv = NULL, *got;

	(void)state;
	o.argv = prog;
	o.argc = 1;
	o.output = "p.data";
	o.mode = FG_RECORD_OFF_CPU;
	o.call_graph = FG_CALL_GRAPH_FP;
	expect_cmd(&o, "[perf] [record] [-e] [sched:sched_switch] [-c] [1] [--switch-events] "
		       "[--call-graph] [fp] [-g] [-o] [p.data] [--] [./work]");
	o.mode = FG_RECORD_HOT_COLD;
	o.freq = 499;
	expect_cmd(&o, "[perf] [record] [-e] [cpu-clock/freq=499/] [-e] [sched:sched_switch] [-c] "
		       "[1] [--switch-events] [--call-graph] [fp] [-g] [-o] [p.data] [--] [./work]");
	assert_int_equal(fg_record_script_command(&argv, &o, "p.data", false), 0);
	got = joined(argv);
	assert_string_equal(got, "[perf] [script] [-i] [p.data] [--show-switch-events]");
	free(got);
	fg_argv_free(argv);
	o.script_lines = true;
	assert_int_equal(fg_record_script_command(&argv, &o, "p.data", false), 0);
	got = joined(argv);
	assert_string_equal(got, "[perf] [script] [-i] [p.data] [--show-switch-events] [-F] "
				 "[+ip,+sym,+dso,+srcline]");
	free(got);
	fg_argv_free(argv);
	o.script_lines = false;
	o.custom = "record -e cycles";
	assert_int_equal(fg_record_command(&argv, &o), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "custom record command"));
	o.custom = NULL;
	o.recorder = FG_RECORDER_DTRACE;
	assert_int_equal(fg_record_command(&argv, &o), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "DTrace"));
}

/* macOS without DTrace's privileges: Instruments' Time Profiler through
 * xctrace, launched or attached, read back with xctrace export. */
static void xctrace_record_and_export(void **state)
{
	static const char *const pid[] = { "4242", "4343" };
	fg_record_opts o = FG_RECORD_OPTS_INIT;
	char **argv = NULL, *got;

	(void)state;
	o.recorder = FG_RECORDER_XCTRACE;
	o.argv = prog;
	o.argc = 3;
	o.output = "/tmp/t/recording.trace";
	o.freq = 199; /* Time Profiler keeps its own rate */
	expect_cmd(&o, "[xctrace] [record] [--template] [Time Profiler] [--output] "
		       "[/tmp/t/recording.trace] [--target-stdout] [-] [--launch] [--] [./work] "
		       "[--n] [a b]");
	o.argv = NULL;
	o.argc = 0;
	o.pids = pid;
	o.npids = 1;
	o.root = true;
	o.tool = "/usr/bin/xctrace";
	expect_cmd(&o, "[sudo] [/usr/bin/xctrace] [record] [--template] [Time Profiler] [--output] "
		       "[/tmp/t/recording.trace] [--attach] [4242]");
	o.custom = "--template 'CPU Counters' --time-limit 10s";
	expect_cmd(&o, "[sudo] [/usr/bin/xctrace] [record] [--template] [CPU Counters] "
		       "[--time-limit] [10s] [--output] [/tmp/t/recording.trace] [--attach] [4242]");
	o.custom = NULL;
	o.root = false;
	o.tool = NULL;
	o.npids = 2;
	assert_int_equal(fg_record_command(&argv, &o), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "one PID"));
	o.npids = 1;
	assert_int_equal(fg_record_script_command(&argv, &o, "/tmp/t/recording.trace", false), 0);
	got = joined(argv);
	assert_string_equal(got, "[xctrace] [export] [--input] [/tmp/t/recording.trace] [--xpath] "
				 "[/trace-toc/*/data/table[@schema=\"time-profile\"]]");
	free(got);
	fg_argv_free(argv);
	o.mode = FG_RECORD_OFF_CPU;
	assert_int_equal(fg_record_command(&argv, &o), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "xctrace records on-CPU samples only"));
	assert_string_equal(fg_recorder_tool(FG_RECORDER_XCTRACE), "xctrace");
	assert_string_equal(fg_recorder_tool(FG_RECORDER_DTRACE), "dtrace");
	assert_string_equal(fg_recorder_tool(FG_RECORDER_PERF), "perf");
}

/* Which recorder where perf is not: the named one, DTrace when it can
 * run (root or sudo), else xctrace when there is one, else DTrace. */
static void recorder_choice(void **state)
{
	static const struct {
		fg_record_host host;
		fg_recorder want;
	} cases[] = {
		{ { .dtrace_found = true, .xctrace_found = true }, FG_RECORDER_XCTRACE },
		{ { .dtrace_found = true, .xctrace_found = true, .privileged = true }, FG_RECORDER_DTRACE },
		{ { .dtrace_found = true }, FG_RECORDER_DTRACE },              /* FreeBSD, no root */
		{ { .xctrace_found = true, .privileged = true }, FG_RECORDER_XCTRACE },
		{ { 0 }, FG_RECORDER_DTRACE },
		{ { .xctrace_found = true, .dtrace_named = true }, FG_RECORDER_DTRACE },
		{ { .dtrace_found = true, .privileged = true, .xctrace_named = true }, FG_RECORDER_XCTRACE },
		{ { .xctrace_named = true, .dtrace_named = true }, FG_RECORDER_DTRACE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case %zu\n", i);
		assert_int_equal(fg_record_choose(&cases[i].host), cases[i].want);
	}
}

static void bad_targets_and_modes(void **state)
{
	static const char *const pid[] = { "1" };
	fg_record_opts o = FG_RECORD_OPTS_INIT;
	fg_call_graph cg;
	char **argv = NULL;

	o.output = "x";
	assert_int_equal(fg_record_command(&argv, &o), FG_EINVAL);
	o.argv = prog;
	o.argc = 1;
	o.pids = pid;
	o.npids = 1;
	assert_int_equal(fg_record_command(&argv, &o), FG_EINVAL);
	assert_int_equal(fg_call_graph_parse(&cg, "fp"), 0);
	assert_int_equal(cg, FG_CALL_GRAPH_FP);
	assert_int_equal(fg_call_graph_parse(&cg, "lbr"), 0);
	assert_int_equal(cg, FG_CALL_GRAPH_LBR);
	assert_int_equal(fg_call_graph_parse(&cg, "frame"), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "fp, dwarf or lbr"));
	fg_argv_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_defaults_use_dwarf_64k),
		cmocka_unit_test(perf_fp_freq_tool_and_compression),
		cmocka_unit_test(perf_pids_and_root),
		cmocka_unit_test(perf_custom_args_replace_defaults),
		cmocka_unit_test(dtrace_probe_and_command),
		cmocka_unit_test(xctrace_record_and_export),
		cmocka_unit_test(recorder_choice),
		cmocka_unit_test(script_command),
		cmocka_unit_test(off_cpu_and_hot_cold),
		cmocka_unit_test(bad_targets_and_modes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
