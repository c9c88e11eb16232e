/* The stages after the recording, as data: two fg_folded joined into a
 * differential fg_folded (fg_diff_folded), the comparison's outputs
 * (fg_compare_write_stacks) and the speedscope export (fg_speedscope_write). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/compare.h"
#include "flamegraph/diff.h"
#include "flamegraph/error.h"
#include "flamegraph/folded.h"
#include "flamegraph/profile.h"
#include "util/strbuf.h"

static fg_folded *folded_of(const char *text, unsigned flags)
{
	fg_folded *f = NULL;

	assert_int_equal(fg_folded_new_ex(&f, flags), 0);
	assert_int_equal(fg_folded_feed(f, text, strlen(text)), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	return f;
}

static int add_line(void *ctx, const char *stack, size_t len, fg_count count, fg_count before)
{
	fg_strbuf *sb = ctx;

	fg_strbuf_add(sb, stack, len);
	fg_strbuf_addf(sb, " %llu %llu\n", (unsigned long long)before.n, (unsigned long long)count.n);
	return 0;
}

static void expect_diff(const fg_folded *d, const char *want)
{
	fg_strbuf sb = FG_STRBUF_INIT;

	assert_int_equal(fg_folded_foreach(d, add_line, &sb), 0);
	assert_string_equal(sb.buf, want);
	fg_strbuf_release(&sb);
}

static const char before_text[] = "main;a 2\nmain;c 1\n";
static const char after_text[] = "main;a 5\nmain;d 3\n";

static void test_diff_as_data(void **state)
{
	fg_folded *b = folded_of(before_text, 0), *a = folded_of(after_text, 0), *d = NULL;
	fg_diff_opts opts = FG_DIFF_OPTS_INIT;

	(void)state;
	assert_int_equal(fg_diff_folded(&d, b, a, NULL), 0);
	assert_true(fg_folded_is_differential(d));
	assert_int_equal(fg_folded_total(d).n, 8);
	expect_diff(d, "main;a 2 5\nmain;c 1 0\nmain;d 0 3\n");
	fg_folded_free(d);
	/* normalised: "before" scaled to the "after" total (8/3) */
	opts.normalize = true;
	assert_int_equal(fg_diff_folded(&d, b, a, &opts), 0);
	expect_diff(d, "main;a 5 5\nmain;c 2 0\nmain;d 0 3\n");
	fg_folded_free(d);
	/* the inputs are not changed */
	assert_int_equal(fg_folded_total(b).n, 3);
	fg_folded_free(b);
	fg_folded_free(a);
}

static void test_diff_strip_hex(void **state)
{
	fg_folded *b = folded_of("main;0x1234 4\n", 0), *a = folded_of("main;0xabcd 6\n", 0);
	fg_folded *d = NULL;
	fg_diff_opts opts = FG_DIFF_OPTS_INIT;

	(void)state;
	opts.strip_hex = true;
	assert_int_equal(fg_diff_folded(&d, b, a, &opts), 0);
	expect_diff(d, "main;0x... 4 6\n");
	fg_folded_free(d);
	fg_folded_free(b);
	fg_folded_free(a);
}

static void test_diff_empty(void **state)
{
	fg_folded *b = folded_of("", 0), *a = folded_of("", 0), *d = NULL;

	(void)state;
	assert_int_equal(fg_diff_folded(&d, b, a, NULL), FG_ENODATA);
	assert_null(d);
	fg_folded_free(b);
	fg_folded_free(a);
}

static char *slurp(const char *path)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fg_strbuf_add(&sb, buf, n);
	fclose(f);
	return fg_strbuf_detach(&sb, NULL);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_compare_outputs(void **state)
{
	fg_folded *b = folded_of(before_text, 0), *a = folded_of(after_text, 0);
	fg_compare_opts co = FG_COMPARE_OPTS_INIT;
	char *text;

	(void)state;
	/* the differential text, as the graph and as the --folded copy */
	co.format = FG_OUTPUT_FOLDED;
	co.folded_out = "compare-test.copy";
	assert_int_equal(fg_compare_write_stacks(b, a, "compare-test.folded", &co), 0);
	text = slurp("compare-test.folded");
	assert_string_equal(text, "main;a 2 5\nmain;c 1 0\nmain;d 0 3\n");
	free(text);
	text = slurp("compare-test.copy");
	assert_string_equal(text, "main;a 2 5\nmain;c 1 0\nmain;d 0 3\n");
	free(text);
	/* the SVG: the differential frames with their counts */
	co.format = FG_OUTPUT_SVG;
	co.folded_out = NULL;
	co.render.title = "Differential";
	assert_int_equal(fg_compare_write_stacks(b, a, "compare-test.svg", &co), 0);
	text = slurp("compare-test.svg");
	assert_non_null(strstr(text, "<svg"));
	assert_non_null(strstr(text, "Differential"));
	assert_non_null(strstr(text, "<title>a ("));
	assert_non_null(strstr(text, "<title>d ("));
	free(text);
	/* JSON has no differential form; an existing file is kept */
	put("compare-test.svg", "old");
	co.format = FG_OUTPUT_JSON;
	assert_int_equal(fg_compare_write_stacks(b, a, "compare-test.svg", &co), FG_EINVAL);
	assert_non_null(strstr(fg_error_last(), "no speedscope form"));
	text = slurp("compare-test.svg");
	assert_string_equal(text, "old");
	free(text);
	unlink("compare-test.folded");
	unlink("compare-test.copy");
	unlink("compare-test.svg");
	fg_folded_free(b);
	fg_folded_free(a);
}

/* ---- speedscope ---- */

static char *speedscope(const fg_folded *f, const fg_git_info *git)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(fg_speedscope_write(out, "prog", f, git), 0);
	fclose(out);
	return buf;
}

static void test_speedscope(void **state)
{
	fg_folded *f = folded_of("main;b 2\nmain;a;\"q\" 1\n", 0);
	char *json = speedscope(f, NULL);

	(void)state;
	/* sorted stacks; frames numbered by first appearance; names escaped */
	assert_non_null(strstr(json, "\"frames\":[{\"name\":\"main\"},{\"name\":\"a\"},"
			       "{\"name\":\"\\\"q\\\"\"},{\"name\":\"b\"}]"));
	assert_non_null(strstr(json, "\"type\":\"sampled\",\"name\":\"prog\""));
	assert_non_null(strstr(json, "\"endValue\":3,\"samples\":[[0,1,2],[0,3]],\"weights\":[1,2]"));
	assert_null(strstr(json, "metadata"));
	free(json);
	fg_folded_free(f);
}

/* --per-thread: a profile per root frame, named after it and without it
 * in its samples; the unit as given. */
static void test_speedscope_per_root(void **state)
{
	fg_folded *f = folded_of("alpha-7;main;a 2\nbeta-8;main;b 3\nalpha-7;main;c 1\nbeta-8 4\n", 0);
	fg_speedscope_opts o = { .version = FG_SPEEDSCOPE_OPTS_VERSION, .name = "prog", .per_root = true,
				  .unit = "microseconds" };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	assert_int_equal(fg_speedscope_write_opts(out, &o, f), 0);
	fclose(out);
	assert_non_null(strstr(buf, "\"frames\":[{\"name\":\"main\"},{\"name\":\"a\"},"
			       "{\"name\":\"c\"},{\"name\":\"b\"}]"));
	assert_non_null(strstr(buf, "\"profiles\":[{\"type\":\"sampled\",\"name\":\"alpha-7\","
			       "\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":3,"
			       "\"samples\":[[0,1],[0,2]],\"weights\":[2,1]},"
			       "{\"type\":\"sampled\",\"name\":\"beta-8\",\"unit\":\"microseconds\","
			       "\"startValue\":0,\"endValue\":7,\"samples\":[[],[0,3]],\"weights\":[4,3]}]"));
	assert_non_null(strstr(buf, "],\"name\":\"prog\",\"activeProfileIndex\":0"));
	free(buf);
	fg_folded_free(f);
}

/* Counts stay exact: 2^64 - 1 and fractions are written as they are. */
static void test_speedscope_exact_counts(void **state)
{
	fg_folded *f = folded_of("a 18446744073709551615\n", 0);
	fg_folded *g = folded_of("a 0.25\nb 1.000000000000000001\n", 0);
	char *json = speedscope(f, NULL);

	(void)state;
	assert_non_null(strstr(json, "\"endValue\":18446744073709551615,"));
	assert_non_null(strstr(json, "\"weights\":[18446744073709551615]"));
	free(json);
	json = speedscope(g, NULL);
	assert_non_null(strstr(json, "\"weights\":[0.25,1.000000000000000001]"));
	assert_non_null(strstr(json, "\"endValue\":1.250000000000000001,"));
	free(json);
	fg_folded_free(f);
	fg_folded_free(g);
}

/* A flame chart's stacks stay in time order; git provenance goes into
 * the metadata. */
static void test_speedscope_order_and_git(void **state)
{
	fg_folded *f = folded_of("z 1\na 2\nz 3\n", FG_FOLDED_KEEP_ORDER);
	fg_git_info git = FG_GIT_INFO_INIT;
	char *json;

	(void)state;
	git.branch = "main";
	snprintf(git.commit, sizeof(git.commit), "%s", "0123456789abcdef0123456789abcdef01234567");
	git.dirty = true;
	json = speedscope(f, &git);
	assert_non_null(strstr(json, "\"samples\":[[0],[1],[0]],\"weights\":[1,2,3]"));
	assert_non_null(strstr(json, "\"metadata\":{\"git\":{\"branch\":\"main\",\"commit\":"
			       "\"0123456789abcdef0123456789abcdef01234567\",\"dirty\":true}}"));
	free(json);
	fg_folded_free(f);
}

static void test_default_names(void **state)
{
	(void)state;
	assert_string_equal(fg_output_default_name(FG_OUTPUT_SVG), "flamegraph.svg");
	assert_string_equal(fg_output_default_name(FG_OUTPUT_FOLDED), "stacks.folded");
	assert_string_equal(fg_output_default_name(FG_OUTPUT_JSON), "profile.speedscope.json");
	assert_null(fg_output_default_name(FG_OUTPUT_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_as_data),
		cmocka_unit_test(test_diff_strip_hex),
		cmocka_unit_test(test_diff_empty),
		cmocka_unit_test(test_compare_outputs),
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_speedscope_exact_counts),
		cmocka_unit_test(test_speedscope_per_root),
		cmocka_unit_test(test_speedscope_order_and_git),
		cmocka_unit_test(test_default_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
