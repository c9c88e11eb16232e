/* Unit tests of the folded-stack reader: chunked feeding, fractional and
 * differential counts, malformed lines, order keeping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/render.h"
#include "util/strbuf.h"

static const char sample[] =
	"main;parse;read 30\n"
	"main;parse 5\r\n"
	"  main;render;draw 25  \n"
	"\n"
	"# a comment line\n"
	"main;parse;read 10\n"
	"idle 10";

static int dump_cb(void *ctx, const char *stack, size_t len, double count, double before)
{
	fg_strbuf_addf(ctx, "%.*s=%g/%g\n", (int)len, stack, count, before);
	return 0;
}

static char *dump(const fg_folded *f)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	assert_int_equal(fg_folded_foreach(f, dump_cb, &sb), 0);
	return fg_strbuf_detach(&sb, NULL);
}

static fg_folded *parse_in_chunks(const char *text, size_t chunk)
{
	fg_folded *f;
	size_t off, len = strlen(text);

	assert_int_equal(fg_folded_new(&f), 0);
	for (off = 0; off < len; off += chunk)
		assert_int_equal(fg_folded_feed(f, text + off, len - off < chunk ? len - off : chunk), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	return f;
}

static void merges_and_sorts(void **state)
{
	fg_folded *f = parse_in_chunks(sample, sizeof(sample));
	char *got = dump(f);

	assert_string_equal(got, "idle=10/0\nmain;parse=5/0\nmain;parse;read=40/0\nmain;render;draw=25/0\n");
	assert_int_equal(fg_folded_count(f), 4);
	assert_true(fg_folded_total(f) == 80);
	assert_int_equal(fg_folded_skipped(f), 0);
	assert_false(fg_folded_is_differential(f));
	free(got);
	fg_folded_free(f);
}

static void any_chunk_size_gives_the_same(void **state)
{
	fg_folded *whole = parse_in_chunks(sample, sizeof(sample));
	char *want = dump(whole);
	size_t chunk;

	for (chunk = 1; chunk < 40; chunk++) {
		fg_folded *f = parse_in_chunks(sample, chunk);
		char *got = dump(f);
		assert_string_equal(got, want);
		free(got);
		fg_folded_free(f);
	}
	free(want);
	fg_folded_free(whole);
}

static void fractional_counts(void **state)
{
	fg_folded *f = parse_in_chunks("a;b 1.5\na;b 0.25\nc 2.\nd 14.2343983248722834234\n", 3);
	char *got = dump(f);

	assert_string_equal(got, "a;b=1.75/0\nc=2/0\nd=14.2344/0\n");
	free(got);
	fg_folded_free(f);
}

static void differential_lines(void **state)
{
	fg_folded *f = parse_in_chunks("a;b 3 7\na;c 5 0\nname with spaces;x 2 4\n", 5);
	char *got = dump(f);

	assert_true(fg_folded_is_differential(f));
	assert_string_equal(got, "a;b=7/3\na;c=0/5\nname with spaces;x=4/2\n");
	assert_true(fg_folded_total(f) == 11); /* the "after" counts */
	free(got);
	fg_folded_free(f);
}

static void malformed_lines_are_counted_by_kind(void **state)
{
	fg_fold_stats st;
	fg_folded *f;
	const char *text = "ok 1\nno count here\n42\nstack;x\nbad 1x\n 7\nfine 2\n";

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_set_source(f, "prof.folded"), 0);
	assert_int_equal(fg_folded_feed(f, text, strlen(text)), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	fg_folded_stats(f, &st);
	assert_int_equal(st.lines, 7);
	assert_int_equal(st.skipped, 5);
	assert_int_equal(st.nwarnings, 2);
	assert_string_equal(st.warnings[0].what, "lines without a sample count at the end");
	assert_int_equal(st.warnings[0].count, 3);
	assert_string_equal(st.warnings[0].where, "prof.folded:2");
	assert_string_equal(st.warnings[1].what, "lines with a count but no stack");
	assert_int_equal(st.warnings[1].count, 2);
	assert_string_equal(st.warnings[1].where, "prof.folded:3");
	assert_int_equal(fg_folded_count(f), 2);
	fg_folded_free(f);
}

static void add_api_and_negative_counts(void **state)
{
	fg_folded *f;
	char *got;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_add(f, "x;y", 3, 2, -1), 0);
	assert_int_equal(fg_folded_add(f, "x;y", 3, 3, -1), 0);
	assert_int_equal(fg_folded_add(f, "x;y", 3, -1, -1), FG_EINVAL);
	got = dump(f);
	assert_string_equal(got, "x;y=5/0\n");
	free(got);
	fg_folded_free(f);
}

static void read_file_missing(void **state)
{
	fg_folded *f;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_read_file(f, "/nonexistent/profile.folded"), FG_ENOTFOUND);
	assert_non_null(strstr(fg_error_last(), "/nonexistent/profile.folded"));
	fg_folded_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merges_and_sorts),
		cmocka_unit_test(any_chunk_size_gives_the_same),
		cmocka_unit_test(fractional_counts),
		cmocka_unit_test(differential_lines),
		cmocka_unit_test(malformed_lines_are_counted_by_kind),
		cmocka_unit_test(add_api_and_negative_counts),
		cmocka_unit_test(read_file_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
