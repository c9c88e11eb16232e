/* Unit tests of the allocation stage (src/lib/alloc/recording.c): the
 * recording format (alloc.h) parsed into totals; each view's weights fed
 * to the collapser with the perf.data stage's symbolization (an address
 * of this very program resolved to its function); bad recordings refused
 * with the file and line; a recording cut short counted, not refused; the
 * view names; static programs told from dynamic ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/alloc.h"
#include "flamegraph/error.h"
#include "util/strbuf.h"

#define REC(body) "flamegraph-alloc 1\npid 42\nppid 1\ncomm prog\nend-reason exit\n" body

static fg_alloc *parse_ok(const char *text)
{
	fg_alloc *a = NULL;

	assert_int_equal(fg_alloc_new(&a), 0);
	assert_int_equal(fg_alloc_add_mem(a, "rec", text, strlen(text)), 0);
	return a;
}

static void test_totals(void **state)
{
	(void)state;
	fg_alloc *a = parse_ok(REC("threads 2\ndropped 3\ntracker-bytes 4096\n"
	                           "map 1000 2000 0 /bin/x\n"
	                           "s 100 2 40 1 60 1 1010 1020\n"
	                           "s 30 3 0 0 -5 -1 1030\n"
	                           "s 7 1 7 1 7 1\n"
	                           "end\n"));
	fg_alloc_totals t;

	fg_alloc_totals_get(a, &t);
	assert_int_equal(t.allocations, 6);
	assert_int_equal(t.bytes, 137);
	assert_int_equal(t.leaked_bytes, 47);
	assert_int_equal(t.leaked_blocks, 2);
	/* a negative share (frees counted on another thread) adds nothing */
	assert_int_equal(t.peak_bytes, 67);
	assert_int_equal(t.processes, 1);
	assert_int_equal(t.incomplete, 0);
	assert_int_equal(t.stacks, 3);
	assert_int_equal(t.dropped, 3);
	assert_int_equal(t.tracker_bytes, 4096);
	fg_alloc_free(a);
}

static void test_cut_short(void **state)
{
	(void)state;
	/* no "end" line, and a last line without its newline: left out */
	fg_alloc *a = parse_ok(REC("s 100 2 0 0 0 0 1010\ns 5 1 0 0 0 0 10"));
	fg_alloc_totals t;

	fg_alloc_totals_get(a, &t);
	assert_int_equal(t.incomplete, 1);
	assert_int_equal(t.allocations, 2);
	assert_int_equal(t.bytes, 100);
	fg_alloc_free(a);
}

static void expect_error(const char *text, const char *msg)
{
	fg_alloc *a = NULL;

	assert_int_equal(fg_alloc_new(&a), 0);
	assert_int_equal(fg_alloc_add_mem(a, "rec", text, strlen(text)), FG_EPARSE);
	if (!strstr(fg_error_last(), msg))
		fail_msg("'%s' not in '%s'", msg, fg_error_last());
	fg_alloc_free(a);
	fg_error_clear();
}

static void test_bad(void **state)
{
	(void)state;
	expect_error("", "rec: not an allocation recording");
	expect_error("flamegraph-alloc 2\nend\n", "rec: not an allocation recording");
	expect_error("perf script text\n", "starts with \"flamegraph-alloc 1\"");
	expect_error(REC("map 1000 zz 0 /bin/x\n"),
	             "rec:6: a map line needs START END OFFSET PATH");
	expect_error(REC("map 2000 1000 0 /bin/x\n"),
	             "rec:6: a map line needs a path and END above START");
	expect_error(REC("map 1000 2000 0\n"), "rec:6: a map line needs a path");
	expect_error(REC("s 1 2 3\n"), "rec:6: a stack line needs six counts");
	expect_error(REC("s 1 1 0 0 0 0 xyz\n"), "rec:6: a stack's addresses are hex numbers");
	expect_error(REC("s 1 1 0 0 0 0 12345678901234567\n"),
	             "rec:6: a stack's addresses are hex");
	expect_error(REC("s -1 1 0 0 0 0 10\n"), "rec:6: negative bytes or calls");
	expect_error(REC("s 99999999999999999999 1 0 0 0 0 10\n"),
	             "rec:6: a stack line needs six counts");
	expect_error(REC("pid 99999999999\n"), "rec:6: a PID out of range");
	expect_error(REC("end\ns 1 1 0 0 0 0 10\n"), "rec:7: text after the \"end\" line");
	/* the message says what to do */
	expect_error(REC("s 1\n"), "run the program again");
	/* unknown lines (of later versions) are skipped */
	fg_alloc_free(parse_ok(REC("future-field 1 2 3\nend\n")));
}

/* What the runtimes kept and what signal handlers allocated unrecorded:
 * summed over the processes, apart from the stacks' figures. */
static void test_runtime_and_unrecorded(void **state)
{
	(void)state;
	fg_alloc *a = NULL;
	const char *one = REC("runtime-kept 72704 1\nunrecorded 3 144\ns 10 1 10 1 10 1 1010\nend\n");
	const char *two = REC("runtime-kept 4096 2\nend\n");
	uint64_t x = 0, y = 0;
	fg_alloc_totals t;

	assert_int_equal(fg_alloc_new(&a), 0);
	assert_int_equal(fg_alloc_add_mem(a, "one", one, strlen(one)), 0);
	assert_int_equal(fg_alloc_add_mem(a, "two", two, strlen(two)), 0);
	fg_alloc_runtime_kept(a, &x, &y);
	assert_int_equal(x, 76800);
	assert_int_equal(y, 3);
	fg_alloc_unrecorded(a, &x, NULL);
	assert_int_equal(x, 3);
	fg_alloc_unrecorded(a, NULL, &y);
	assert_int_equal(y, 144);
	fg_alloc_totals_get(a, &t);
	assert_int_equal(t.leaked_bytes, 10);
	fg_alloc_free(a);
	expect_error(REC("runtime-kept 12\n"), "rec:6: expected a number");
	expect_error(REC("unrecorded x 1\n"), "rec:6: expected a number");
}

static void test_deep_stack(void **state)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	fg_alloc *a = NULL;

	(void)state;
	fg_strbuf_addstr(&sb, REC("s 1 1 0 0 0 0"));
	for (int i = 0; i < 1025; i++)
		fg_strbuf_addstr(&sb, " 10");
	fg_strbuf_addstr(&sb, "\n");
	assert_int_equal(fg_alloc_new(&a), 0);
	assert_int_equal(fg_alloc_add_mem(a, "rec", sb.buf, sb.len), FG_EPARSE);
	assert_non_null(strstr(fg_error_last(), "more than 1024 frames"));
	fg_alloc_free(a);
	fg_strbuf_release(&sb);
	fg_error_clear();
}

static void test_views(void **state)
{
	fg_alloc_view v;

	(void)state;
	assert_int_equal(fg_alloc_view_parse(&v, "bytes"), 0);
	assert_int_equal(v, FG_ALLOC_BYTES);
	assert_int_equal(fg_alloc_view_parse(&v, "count"), 0);
	assert_int_equal(v, FG_ALLOC_COUNT);
	assert_int_equal(fg_alloc_view_parse(&v, "leaked"), 0);
	assert_int_equal(v, FG_ALLOC_LEAKED);
	assert_int_equal(fg_alloc_view_parse(&v, "peak"), 0);
	assert_int_equal(v, FG_ALLOC_PEAK);
	assert_int_equal(fg_alloc_view_parse(&v, "Bytes"), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "bytes, count, leaked or peak"));
	assert_string_equal(fg_alloc_view_name(FG_ALLOC_PEAK), "peak");
	assert_string_equal(fg_alloc_view_unit(FG_ALLOC_COUNT), "allocations");
	assert_string_equal(fg_alloc_view_unit(FG_ALLOC_LEAKED), "bytes");
	fg_error_clear();
}

__attribute__((noinline)) int alloc_test_marker(int x)
{
	return x * 3 + 1;
}

/* This program's executable maps, as the interposer writes them. */
static void add_own_maps(fg_strbuf *sb)
{
	char self[4096], line[8192];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	assert_true(n > 0);
	self[n] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], path[4096] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &start, &end, perms, &off,
		           path) >= 4 &&
		    perms[2] == 'x' && !strcmp(path, self))
			fg_strbuf_addf(sb, "map %llx %llx %llx %s\n", start, end, off, path);
	}
	fclose(f);
}

struct got {
	fg_strbuf text;
};

static int collect(void *ctx, const char *stack, size_t len, uint64_t count)
{
	fg_strbuf *sb = ctx;
	fg_strbuf_add(sb, stack, len);
	fg_strbuf_addf(sb, " %llu\n", (unsigned long long)count);
	return 0;
}

static char *folded(const char *rec, fg_alloc_view view)
{
	fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
	fg_collapser *c = NULL;
	fg_strbuf out = FG_STRBUF_INIT;
	fg_alloc *a = parse_ok(rec);

	assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &co), 0);
	assert_int_equal(fg_alloc_collapse(a, view, NULL, c), 0);
	assert_int_equal(fg_collapser_finish(c), 0);
	assert_int_equal(fg_collapser_foreach(c, collect, &out), 0);
	fg_collapser_free(c);
	fg_alloc_free(a);
	return fg_strbuf_detach(&out, NULL);
}

static void test_collapse(void **state)
{
	fg_strbuf rec = FG_STRBUF_INIT;
	/* a return address just past the start of alloc_test_marker */
	uintptr_t pc = (uintptr_t)&alloc_test_marker + 2;
	char *text;

	(void)state;
	assert_int_equal(alloc_test_marker(1), 4);
	fg_strbuf_addstr(&rec, REC(""));
	add_own_maps(&rec);
	fg_strbuf_addf(&rec, "s 100 2 40 1 60 1 %lx\n", (unsigned long)pc);
	fg_strbuf_addf(&rec, "s 30 3 0 0 0 0 %lx\n", (unsigned long)0x10);
	fg_strbuf_addstr(&rec, "s 5 1 5 1 5 1\nend\n");

	text = folded(rec.buf, FG_ALLOC_BYTES);
	assert_non_null(strstr(text, "prog;alloc_test_marker 100\n"));
	/* an address in no map: an unknown frame, still counted */
	assert_non_null(strstr(text, "prog;[unknown] 30\n"));
	assert_non_null(strstr(text, "prog;[allocation stacks beyond the tracker's table] 5\n"));
	free(text);
	text = folded(rec.buf, FG_ALLOC_COUNT);
	assert_non_null(strstr(text, "prog;alloc_test_marker 2\n"));
	assert_non_null(strstr(text, "prog;[unknown] 3\n"));
	free(text);
	/* a stack with nothing leaked is left out */
	text = folded(rec.buf, FG_ALLOC_LEAKED);
	assert_non_null(strstr(text, "prog;alloc_test_marker 40\n"));
	assert_null(strstr(text, "[unknown]"));
	free(text);
	text = folded(rec.buf, FG_ALLOC_PEAK);
	assert_non_null(strstr(text, "prog;alloc_test_marker 60\n"));
	free(text);
	{
		fg_collapse_opts co = FG_COLLAPSE_OPTS_INIT;
		fg_collapser *c = NULL;
		fg_alloc *a = parse_ok(rec.buf);
		assert_int_equal(fg_collapser_new(&c, FG_FORMAT_PERF, &co), 0);
		assert_int_equal(fg_alloc_collapse(a, FG_ALLOC_NONE, NULL, c), FG_EINVAL);
		fg_collapser_free(c);
		fg_alloc_free(a);
		fg_error_clear();
	}
	fg_strbuf_release(&rec);
}

static void test_dir(void **state)
{
	char dir[] = "/tmp/fg-alloc-test.XXXXXX", path[256];
	fg_alloc *a = NULL;
	fg_alloc_totals t;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/alloc.1.0", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(REC("s 10 1 0 0 0 0 10\nend\n"), f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/alloc.2.0", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(REC("s 20 2 0 0 0 0 10\nend\n"), f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/other", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("not a recording\n", f);
	fclose(f);
	assert_int_equal(fg_alloc_new(&a), 0);
	assert_int_equal(fg_alloc_add_dir(a, dir), 0);
	fg_alloc_totals_get(a, &t);
	assert_int_equal(t.processes, 2);
	assert_int_equal(t.bytes, 30);
	fg_alloc_free(a);
	unlink(path);
	snprintf(path, sizeof(path), "%s/alloc.1.0", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/alloc.2.0", dir);
	unlink(path);
	rmdir(dir);
	assert_int_equal(fg_alloc_new(&a), 0);
	assert_int_equal(fg_alloc_add_dir(a, dir), FG_EIO);
	assert_non_null(strstr(fg_error_last(), "cannot read the allocation recordings"));
	fg_alloc_free(a);
	fg_error_clear();
}

/* A sampled recording, and a snapshot of a process that died (and, in
 * a folder, the empty file of one that died before its first snapshot
 * and the temporary file of one killed while writing). */
static void test_sample_and_snapshots(void **state)
{
	char dir[] = "/tmp/fg-alloc-test.XXXXXX", path[256];
	static const char *const names[] = {"alloc.1.0", "alloc.2.0", "alloc.3.0", "alloc.3.0.tmp"};
	static const char *const texts[] = {
	    "flamegraph-alloc 1\npid 1\nend-reason exit\nsample 4096\ns 4096 1 0 0 0 0 10\nend\n",
	    "flamegraph-alloc 1\npid 2\nend-reason running\ns 20 2 20 2 20 2 10\nend\n",
	    "",
	    "flamegraph-alloc 1\npid 3\nend-reason running\ns 99 1",
	};
	fg_alloc *a = NULL;
	fg_alloc_totals t;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_non_null(f = fopen(path, "w"));
		fputs(texts[i], f);
		fclose(f);
	}
	assert_int_equal(fg_alloc_new(&a), 0);
	assert_int_equal(fg_alloc_add_dir(a, dir), 0);
	fg_alloc_totals_get(a, &t);
	assert_int_equal(t.processes, 2);
	assert_int_equal(t.incomplete, 0);
	assert_int_equal(t.sample_bytes, 4096);
	assert_int_equal(t.snapshots, 1);
	assert_int_equal(t.bytes, 4116);
	assert_int_equal(t.leaked_bytes, 20);
	fg_alloc_free(a);
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void test_static(void **state)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	assert_false(fg_alloc_is_static(self));
	assert_false(fg_alloc_is_static("/etc/passwd"));
	assert_false(fg_alloc_is_static("/nonexistent/program"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_totals), cmocka_unit_test(test_cut_short),
	    cmocka_unit_test(test_bad),    cmocka_unit_test(test_deep_stack),
	    cmocka_unit_test(test_views),  cmocka_unit_test(test_collapse),
	    cmocka_unit_test(test_dir),    cmocka_unit_test(test_static),
	    cmocka_unit_test(test_sample_and_snapshots), cmocka_unit_test(test_runtime_and_unrecorded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
