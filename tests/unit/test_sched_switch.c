/* The sched_switch tracepoint's format, as tracefs describes it
 * (fg_perfdata_sched_switch_parse): the id and the places of the fields
 * the off-CPU reader uses, whatever the kernel's layout; what it cannot
 * use refused with the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/perfdata.h"

/* Linux 6.x: prev_state a long */
static const char *const FORMAT_6 =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

/* another layout: more common fields, a 4-byte prev_state, no final
 * newline */
static const char *const FORMAT_OTHER =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:int common_padding;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char prev_comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int prev_state;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;";

static void layouts(void **state)
{
	static const struct {
		const char *const *text;
		uint64_t id;
		uint16_t comm, pid, prio, st, st_size, ncomm, npid;
	} cases[] = {
		{ &FORMAT_6, 372, 8, 24, 28, 32, 8, 40, 56 },
		{ &FORMAT_OTHER, 316, 12, 28, 32, 36, 4, 40, 56 },
	};
	fg_perfdata_sched_switch f;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *t = *cases[i].text;
		assert_int_equal(fg_perfdata_sched_switch_parse(&f, t, strlen(t)), 0);
		assert_int_equal(f.id, cases[i].id);
		assert_int_equal(f.prev_comm.offset, cases[i].comm);
		assert_int_equal(f.prev_comm.size, 16);
		assert_int_equal(f.prev_pid.offset, cases[i].pid);
		assert_int_equal(f.prev_pid.size, 4);
		assert_int_equal(f.prev_prio.offset, cases[i].prio);
		assert_int_equal(f.prev_state.offset, cases[i].st);
		assert_int_equal(f.prev_state.size, cases[i].st_size);
		assert_int_equal(f.next_comm.offset, cases[i].ncomm);
		assert_int_equal(f.next_pid.offset, cases[i].npid);
	}
}

static void refused(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "name: sched_switch\nformat:\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\n",
		  "sched_switch format: no ID line" },
		{ "ID: x1\n", "sched_switch format:1: an ID that is not a number" },
		{ "ID: 5\n\tfield:char prev_comm[16];\toffset:8;\tsize:16;\n",
		  "sched_switch format: no field prev_pid" },
		{ "ID: 5\n\tfield:char prev_comm[16];\toffset:eight;\tsize:16;\n",
		  "sched_switch format:2: a field without its offset and size" },
		{ "ID: 5\n\tfield:pid_t prev_pid;\toffset:8;\n",
		  "sched_switch format:2: a field without its offset and size" },
		{ "", "sched_switch format: no ID line" },
	};
	fg_perfdata_sched_switch f;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_int_equal(fg_perfdata_sched_switch_parse(&f, cases[i].text, strlen(cases[i].text)),
				 FG_EPARSE);
		assert_string_equal(fg_error_last(), cases[i].msg);
	}
}

/* a field named like another's end is not taken for it */
static void names_whole(void **state)
{
	const char *t = "ID: 9\n"
			"\tfield:int xprev_pid;\toffset:90;\tsize:4;\n"
			"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\n"
			"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\n"
			"\tfield:int prev_prio;\toffset:28;\tsize:4;\n"
			"\tfield:long prev_state;\toffset:32;\tsize:8;\n"
			"\tfield:char next_comm[16];\toffset:40;\tsize:16;\n"
			"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\n";
	fg_perfdata_sched_switch f;

	(void)state;
	assert_int_equal(fg_perfdata_sched_switch_parse(&f, t, strlen(t)), 0);
	assert_int_equal(f.prev_pid.offset, 24);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts),
		cmocka_unit_test(refused),
		cmocka_unit_test(names_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
