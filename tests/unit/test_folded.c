/* Unit tests of the folded-stack reader: chunked feeding, fractional and
 * differential counts, malformed lines, order keeping. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/folded.h"
#include "util/strbuf.h"
#include "lib/fold/internal.h" /* the carry buffer's size, for the line cap */
#include "../lib/drawn_frames.h"

static const char sample[] =
	"main;parse;read 30\n"
	"main;parse 5\r\n"
	"  main;render;draw 25  \n"
	"\n"
	"# a comment line\n"
	"main;parse;read 10\n"
	"idle 10";

/* A count as exact decimal text: "3", "1.75". */
static void add_count(fg_strbuf *sb, fg_count c)
{
	char frac[24];
	size_t n;

	fg_strbuf_addf(sb, "%llu", (unsigned long long)c.n);
	if (!c.frac)
		return;
	n = (size_t)snprintf(frac, sizeof(frac), "%018llu", (unsigned long long)c.frac);
	while (n && frac[n - 1] == '0')
		n--;
	fg_strbuf_addch(sb, '.');
	fg_strbuf_add(sb, frac, n);
}

static int dump_cb(void *ctx, const char *stack, size_t len, fg_count count, fg_count before)
{
	fg_strbuf_addf(ctx, "%.*s=", (int)len, stack);
	add_count(ctx, count);
	fg_strbuf_addch(ctx, '/');
	add_count(ctx, before);
	fg_strbuf_addch(ctx, '\n');
	return 0;
}

static int add_to_ref_cb(void *ctx, const char *stack, size_t len, fg_count count,
			 fg_count before)
{
	return fg_folded_add_diff(ctx, stack, len, before, count);
}

static bool total_is(const fg_folded *f, uint64_t n, uint64_t frac)
{
	fg_count t = fg_folded_total(f);
	return t.n == n && t.frac == frac;
}

static char *dump(const fg_folded *f)
{
	fg_strbuf sb = FG_STRBUF_INIT;
	assert_int_equal(fg_folded_foreach(f, dump_cb, &sb), 0);
	return fg_strbuf_detach(&sb, NULL);
}

static size_t shared_bytes(const fg_strbuf *a, const fg_strbuf *b)
{
	size_t k = 0;

	while (k < a->len && k < b->len && a->buf[k] == b->buf[k])
		k++;
	return k;
}

/* The listing says what each stack shares with the one before, as a
 * byte-by-byte comparison finds it. */
static void check_shared(const fg_folded_list *l)
{
	for (size_t i = 0; i < fg_folded_list_len(l); i++) {
		const fg_folded_stack *b = fg_folded_list_at(l, i), *a;
		size_t k = 0;

		if (i) {
			a = fg_folded_list_at(l, i - 1);
			while (k < a->len && k < b->len && a->stack[k] == b->stack[k])
				k++;
		}
		assert_int_equal(fg_folded_list_shared(l, i), k);
	}
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
	assert_true(total_is(f, 80, 0));
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
	/* fractions add up exactly (0.1 + 0.2 is 0.3 here) and carry into
	 * whole samples; digits past the 18th are dropped */
	fg_folded *f = parse_in_chunks("a;b 1.5\na;b 0.25\nc 2.\nd 14.2343983248722834234\n"
				       "e 0.1\ne 0.2\nf 0.7\nf 0.3\nf 9007199254740993.5\n", 3);
	char *got = dump(f);

	assert_string_equal(got, "a;b=1.75/0\nc=2/0\nd=14.234398324872283423/0\n"
			    "e=0.3/0\nf=9007199254740994.5/0\n");
	assert_true(total_is(f, 9007199254741012ull, 784398324872283423ull));
	free(got);
	fg_folded_free(f);
}

static void differential_lines(void **state)
{
	fg_folded *f = parse_in_chunks("a;b 3 7\na;c 5 0\nname with spaces;x 2 4\n", 5);
	char *got = dump(f);

	assert_true(fg_folded_is_differential(f));
	assert_string_equal(got, "a;b=7/3\na;c=0/5\nname with spaces;x=4/2\n");
	assert_true(total_is(f, 11, 0)); /* the "after" counts */
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

static void add_api_and_bad_fractions(void **state)
{
	const fg_count tenth = { 0, FG_COUNT_FRAC_ONE / 10 }, bad = { 1, FG_COUNT_FRAC_ONE };
	const fg_count seven = { 7, 0 };
	fg_folded *f;
	char *got;
	int i;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_add(f, "x;y", 3, 2), 0);
	assert_int_equal(fg_folded_add(f, "x;y", 3, 3), 0);
	assert_int_equal(fg_folded_add_count(f, "x;y", 3, bad), FG_EINVAL);
	assert_int_equal(fg_folded_add_diff(f, "x;y", 3, bad, seven), FG_EINVAL);
	for (i = 0; i < 15; i++)
		assert_int_equal(fg_folded_add_count(f, "z", 1, tenth), 0);
	assert_false(fg_folded_is_differential(f));
	got = dump(f);
	assert_string_equal(got, "x;y=5/0\nz=1.5/0\n");
	free(got);
	assert_int_equal(fg_folded_add_diff(f, "w", 1, tenth, seven), 0);
	assert_true(fg_folded_is_differential(f));
	got = dump(f);
	assert_string_equal(got, "w=7/0.1\nx;y=5/0\nz=1.5/0\n");
	free(got);
	assert_true(total_is(f, 13, FG_COUNT_FRAC_ONE / 2));
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

/* Writes text to a new file made from the mkstemp template path. */
static void write_temp(char *path, const fg_strbuf *text)
{
	int fd = mkstemp(path);
	FILE *fp;

	assert_true(fd >= 0);
	assert_non_null(fp = fdopen(fd, "w"));
	assert_int_equal(fwrite(text->buf, 1, text->len, fp), text->len);
	assert_int_equal(fclose(fp), 0);
}

/* Reads the file at path (and removes it) into a new fg_folded, which must
 * hold what fed holds; the caller frees it. */
static fg_folded *read_as_fed(const fg_folded *fed, const char *path)
{
	fg_folded *mapped;
	char *a, *b;

	assert_int_equal(fg_folded_new(&mapped), 0);
	assert_int_equal(fg_folded_read_file(mapped, path), 0);
	unlink(path);
	a = dump(fed);
	b = dump(mapped);
	assert_string_equal(a, b);
	free(a);
	free(b);
	return mapped;
}

/* A file is mapped and its stacks kept in place, not copied: the result
 * is the one of feeding the same bytes, whether the line cut by the first
 * slice, a line left unfinished at the end, or a frame name cut to the cap
 * (a copy) is among them. Read twice into one fg_folded: two mappings. */
static void mapped_file_matches_feeding(void **state)
{
	fg_strbuf text = FG_STRBUF_INIT, longname = FG_STRBUF_INIT;
	char path[] = "/tmp/fg-test-folded-XXXXXX", *a, *b;
	fg_folded *fed, *mapped;
	fg_folded_list *list;
	int i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		fg_strbuf_addf(&text, "main;worker_%d;leaf_%d %d\n", i % 97, i, i % 7 + 1);
		/* among the mostly new stacks, repeats, fractions and
		 * differential lines, merged after the file is read */
		if (i % 10 == 0)
			fg_strbuf_addf(&text, "main;worker_%d;leaf_%d 0.25\n", i % 97, i / 2);
		if (i % 13 == 0)
			fg_strbuf_addf(&text, "main;diff_%d 2 %d\n", i % 50, i % 5);
	}
	for (i = 0; i < (int)FG_FOLDED_MAX_FRAME + 10; i++)
		fg_strbuf_addch(&longname, 'x');
	fg_strbuf_addf(&text, "main;%s 3\nmain;worker_1;leaf_1 4", longname.buf);
	write_temp(path, &text);

	assert_int_equal(fg_folded_new(&fed), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(fg_folded_feed(fed, text.buf, text.len), 0);
		assert_int_equal(fg_folded_finish(fed), 0);
	}
	assert_int_equal(fg_folded_new(&mapped), 0);
	assert_int_equal(fg_folded_read_file(mapped, path), 0);
	assert_int_equal(fg_folded_read_file(mapped, path), 0);
	unlink(path);
	a = dump(fed);
	b = dump(mapped);
	assert_string_equal(a, b);
	assert_int_equal(fg_folded_count(mapped), fg_folded_count(fed));
	assert_int_equal(fg_folded_list_new(&list, mapped, FG_FOLDED_SORTED), 0);
	check_shared(list);
	fg_folded_list_free(list);
	assert_true(fg_folded_total(mapped).n == fg_folded_total(fed).n &&
		    fg_folded_total(mapped).frac == fg_folded_total(fed).frac);
	free(a);
	free(b);
	/* stacks added after the read, new and known, go where feeding put them */
	for (i = 0; i < 2; i++) {
		assert_int_equal(fg_folded_add(fed, "main;worker_5;leaf_5", 20, 7), 0);
		assert_int_equal(fg_folded_add(mapped, "main;worker_5;leaf_5", 20, 7), 0);
		assert_int_equal(fg_folded_add(fed, "main;added", 10, 1), 0);
		assert_int_equal(fg_folded_add(mapped, "main;added", 10, 1), 0);
	}
	a = dump(fed);
	b = dump(mapped);
	assert_string_equal(a, b);
	assert_int_equal(fg_folded_count(mapped), fg_folded_count(fed));
	free(a);
	free(b);
	fg_folded_free(fed);
	fg_folded_free(mapped);
	fg_strbuf_release(&text);
	fg_strbuf_release(&longname);
}

/* A file whose first part is new stacks and the rest repeats of them (a
 * profile's folded file written three times over): the gathering that the
 * first part starts ends once the repeats show, and the result is still
 * the one of feeding the same bytes. */
static void mapped_file_turning_to_repeats(void **state)
{
	fg_strbuf text = FG_STRBUF_INIT;
	char path[] = "/tmp/fg-test-folded-XXXXXX";
	fg_folded *fed, *mapped;
	int i, copy;

	(void)state;
	for (copy = 0; copy < 3; copy++)
		for (i = 0; i < 30000; i++)
			fg_strbuf_addf(&text, "main;worker_%d;leaf_%d %d\n", i % 89, i, copy + 1);
	write_temp(path, &text);
	assert_int_equal(fg_folded_new(&fed), 0);
	assert_int_equal(fg_folded_feed(fed, text.buf, text.len), 0);
	assert_int_equal(fg_folded_finish(fed), 0);
	mapped = read_as_fed(fed, path);
	assert_int_equal(fg_folded_count(mapped), 30000);
	assert_true(fg_folded_total(mapped).n == 30000 * 6);
	fg_folded_free(fed);
	fg_folded_free(mapped);
	fg_strbuf_release(&text);
}

/* A file of repeats is read the other way (stacks copied, its pages let
 * go behind the parser): the same result too. 5 MB, so that more than one
 * block of it is released. */
static void mapped_file_of_repeats_matches_feeding(void **state)
{
	fg_strbuf one = FG_STRBUF_INIT;
	char path[] = "/tmp/fg-test-folded-XXXXXX";
	fg_folded *fed, *mapped;
	FILE *fp;
	size_t total = 0;
	int fd, i;

	(void)state;
	for (i = 0; i < 50; i++)
		fg_strbuf_addf(&one, "main;loop;step_%d %d\n", i, i + 1);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_non_null(fp = fdopen(fd, "w"));
	assert_int_equal(fg_folded_new(&fed), 0);
	while (total < ((size_t)5 << 20)) {
		assert_int_equal(fwrite(one.buf, 1, one.len, fp), one.len);
		assert_int_equal(fg_folded_feed(fed, one.buf, one.len), 0);
		total += one.len;
	}
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(fg_folded_finish(fed), 0);
	mapped = read_as_fed(fed, path);
	assert_int_equal(fg_folded_count(mapped), 50);
	fg_folded_free(fed);
	fg_folded_free(mapped);
	fg_strbuf_release(&one);
}

static const fg_fold_stats *warning_of(const fg_fold_stats *st, const char *what, size_t *k)
{
	for (*k = 0; *k < st->nwarnings; (*k)++)
		if (strstr(st->warnings[*k].what, what))
			return st;
	fail_msg("no warning about '%s'", what);
	return NULL;
}

/* A frame name over the cap is cut at a UTF-8 boundary and marked; the
 * line is kept, its count too; one warning, not a skip. */
static void long_frame_names_are_cut(void **state)
{
	fg_strbuf in = FG_STRBUF_INIT, want = FG_STRBUF_INIT;
	fg_fold_stats st;
	fg_folded *f;
	size_t i, k;
	char *got;

	fg_strbuf_addstr(&in, "main;");
	/* "é" is two bytes: the cut at 64 KiB would split one */
	fg_strbuf_addch(&in, 'x');
	for (i = 0; i < FG_FOLDED_MAX_FRAME; i += 2)
		fg_strbuf_addstr(&in, "\xC3\xA9");
	fg_strbuf_addstr(&in, ";leaf 7\nmain;short 2\n");
	f = parse_in_chunks(in.buf, 4096);
	fg_folded_stats(f, &st);
	assert_int_equal(st.skipped, 0);
	warning_of(&st, "frame names longer than 64 KiB", &k);
	assert_true(st.warnings[k].kept);
	assert_int_equal(st.warnings[k].count, 1);
	assert_string_equal(st.warnings[k].where, "<input>:1");
	assert_true(total_is(f, 9, 0));
	fg_strbuf_addstr(&want, "main;short=2/0\nmain;x");
	for (i = 0; i < FG_FOLDED_MAX_FRAME / 2 - 1; i++)
		fg_strbuf_addstr(&want, "\xC3\xA9");
	fg_strbuf_addstr(&want, FG_FOLDED_CUT_MARK ";leaf=7/0\n");
	got = dump(f);
	assert_string_equal(got, want.buf);
	free(got);
	fg_folded_free(f);
	fg_strbuf_release(&in);
	fg_strbuf_release(&want);
}

/* A line over the cap is skipped whatever the chunking, and the partial
 * line buffer never grows past the cap while it streams by. */
static void long_lines_are_skipped_without_buffering(void **state)
{
	const size_t chunk = 1 << 20, n = FG_FOLDED_MAX_LINE + 3 * chunk;
	char *big = malloc(chunk);
	fg_fold_stats st;
	fg_folded *f;
	size_t off, k;
	char *got;

	assert_non_null(big);
	memset(big, 'a', chunk);
	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_feed(f, "before 1\nlong", 13), 0);
	for (off = 0; off < n; off += chunk) {
		assert_int_equal(fg_folded_feed(f, big, chunk), 0);
		assert_true(f->carry.alloc <= FG_FOLDED_MAX_LINE + 1);
	}
	assert_int_equal(fg_folded_feed(f, " 5\nafter 2\nlast", 15), 0);
	assert_int_equal(fg_folded_feed(f, big, chunk), 0);
	assert_int_equal(fg_folded_feed(f, " 3", 2), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	fg_folded_stats(f, &st);
	assert_int_equal(st.lines, 4);
	assert_int_equal(st.skipped, 1);
	warning_of(&st, "lines longer than 16 MiB", &k);
	assert_string_equal(st.warnings[k].where, "<input>:2");
	got = dump(f);
	assert_non_null(strstr(got, "after=2/0\nbefore=1/0\nlast"));
	free(got);
	assert_int_equal(fg_folded_count(f), 3);
	fg_folded_free(f);
	free(big);
}

/* Counts up to 2^64 - 1 parse, exactly; 2^64 is refused; a line that
 * would take the total (or the "before" total) to 2^64 is skipped, so
 * the renderer's whole-sample sums never wrap. */
static void counts_near_two_to_the_64(void **state)
{
	const char *text =
		"a 18446744073709549568\n"     /* 2^64 - 2048: kept */
		"b 2048\n"                     /* total would reach 2^64 */
		"c 18446744073709551616\n"     /* 2^64 */
		"d 1\n"
		"e 00000000000000000000007\n"  /* leading zeros are no overflow */
		"f 5 18446744073709551615\n"   /* rounds to 2^64 as a double */
		"g 2039.5\n"                   /* total: 2^64 - 1 and a half */
		"h 0.5\n"                      /* carries the total to 2^64 */
		"i 0.4\n";                     /* fits */
	fg_fold_stats st;
	fg_folded *f = parse_in_chunks(text, 5);
	size_t k;

	fg_folded_stats(f, &st);
	assert_int_equal(st.skipped, 4);
	warning_of(&st, "count is 2^64 or more", &k);
	assert_int_equal(st.warnings[k].count, 1);
	assert_string_equal(st.warnings[k].where, "<input>:3");
	warning_of(&st, "takes the total to 2^64", &k);
	assert_int_equal(st.warnings[k].count, 3);
	assert_string_equal(st.warnings[k].where, "<input>:2");
	assert_int_equal(fg_folded_count(f), 5);
	assert_true(total_is(f, UINT64_MAX, FG_COUNT_FRAC_ONE / 10 * 9));
	/* the collapsers' entry point is held to the same limit */
	assert_int_equal(fg_folded_add(f, "j", 1, 1), 0);
	assert_int_equal(fg_folded_count(f), 5);
	fg_folded_free(f);

	/* the largest count alone, and two counts past 2^53, are exact */
	f = parse_in_chunks("a;b 18446744073709551615\n", 7);
	assert_true(total_is(f, UINT64_MAX, 0));
	fg_folded_stats(f, &st);
	assert_int_equal(st.skipped, 0);
	fg_folded_free(f);
	f = parse_in_chunks("a;b 9007199254740993\na;c 1\na;b 2\n", 9);
	assert_true(total_is(f, 9007199254740996ull, 0));
	{
		char *got = dump(f);
		assert_string_equal(got, "a;b=9007199254740995/0\na;c=1/0\n");
		free(got);
	}
	fg_folded_free(f);
}

/* A flame chart's listing: runs of equal consecutive lines, whole
 * samples, with the fractions of a run adding up before they are cut. */
static void input_order_listing(void **state)
{
	const char *text = "a 0.5\na 0.5\nb 3 1\na 0.5\nb 18446744073709551610\n";
	fg_folded_list *l;
	fg_folded *f;
	const fg_folded_stack *s;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_list_new(&l, f, FG_FOLDED_INPUT_ORDER), FG_EINVAL);
	assert_null(l);
	fg_folded_free(f);
	assert_int_equal(fg_folded_new_ex(&f, FG_FOLDED_KEEP_ORDER), 0);
	assert_true(fg_folded_keeps_order(f));
	assert_int_equal(fg_folded_feed(f, text, strlen(text)), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	assert_int_equal(fg_folded_list_new(&l, f, FG_FOLDED_INPUT_ORDER), 0);
	assert_int_equal(fg_folded_list_len(l), 4);
	s = fg_folded_list_at(l, 0);
	assert_memory_equal(s->stack, "a", 1);
	assert_true(s->count == 1 && s->before == 0);
	s = fg_folded_list_at(l, 1);
	assert_memory_equal(s->stack, "b", 1);
	assert_true(s->count == 1 && s->before == 3);
	s = fg_folded_list_at(l, 2);
	assert_true(s->count == 0 && s->len == 1);
	s = fg_folded_list_at(l, 3);
	assert_true(s->count == 18446744073709551610ull);
	check_shared(l); /* input order: compared when asked */
	fg_folded_list_free(l);
	/* the sorted listing of the same stacks: merged */
	assert_int_equal(fg_folded_list_new(&l, f, FG_FOLDED_SORTED), 0);
	assert_int_equal(fg_folded_list_len(l), 2);
	assert_true(fg_folded_list_at(l, 0)->count == 1);
	assert_true(fg_folded_list_at(l, 1)->count == 18446744073709551611ull);
	fg_folded_list_free(l);
	fg_folded_free(f);
}

/* Lines that come again in the same order are found through the line
 * that followed before (no hash, no map probe): the counts, fractions,
 * differential counts, names cut short and the input-order listing are
 * those of each line added through the map (fg_folded_add_diff). The
 * same after the prediction stopped paying (a long run of new stacks). */
static void repeated_lines_counted_as_added(void **state)
{
	fg_strbuf text = FG_STRBUF_INIT, longname = FG_STRBUF_INIT;
	fg_folded *f, *ref;
	fg_folded_list *l, *lref;
	char *got, *want;

	(void)state;
	for (int i = 0; i < 300; i++)
		fg_strbuf_addch(&longname, 'x');
	for (int round = 0; round < 6; round++) {
		/* the same lines in the same order, then a change of order */
		fg_strbuf_addstr(&text, "main;a 1\nmain;a;b 2.5\nmain;c 3 4\n");
		fg_strbuf_addf(&text, "main;%s 1\n", longname.buf);
		if (round % 2)
			fg_strbuf_addstr(&text, "main;c 1 1\nmain;a 2\n");
	}
	for (int i = 0; i < 70000; i++)
		fg_strbuf_addf(&text, "main;new%d 1\nmain;a 1\n", i);
	fg_strbuf_addstr(&text, "main;a 1\nmain;a;b 2.5\nmain;a 1\nmain;a;b 2.5\n");

	assert_int_equal(fg_folded_new_ex(&f, FG_FOLDED_KEEP_ORDER), 0);
	assert_int_equal(fg_folded_feed(f, text.buf, text.len), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	/* the reference: each line through the map */
	assert_int_equal(fg_folded_new_ex(&ref, FG_FOLDED_KEEP_ORDER), 0);
	for (const char *p = text.buf, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		fg_strbuf line = FG_STRBUF_INIT;
		fg_folded *one;

		/* a line alone in a profile of its own says its stack and counts */
		fg_strbuf_add(&line, p, (size_t)(nl - p + 1));
		assert_int_equal(fg_folded_new(&one), 0);
		assert_int_equal(fg_folded_feed(one, line.buf, line.len), 0);
		assert_int_equal(fg_folded_finish(one), 0);
		assert_int_equal(fg_folded_foreach(one, add_to_ref_cb, ref), 0);
		fg_folded_free(one);
		fg_strbuf_release(&line);
	}
	got = dump(f);
	want = dump(ref);
	assert_string_equal(got, want);
	assert_true(fg_folded_total(f).n == fg_folded_total(ref).n &&
		    fg_folded_total(f).frac == fg_folded_total(ref).frac);
	assert_int_equal(fg_folded_list_new(&l, f, FG_FOLDED_INPUT_ORDER), 0);
	assert_int_equal(fg_folded_list_new(&lref, ref, FG_FOLDED_INPUT_ORDER), 0);
	assert_int_equal(fg_folded_list_len(l), fg_folded_list_len(lref));
	for (size_t i = 0; i < fg_folded_list_len(l); i++) {
		const fg_folded_stack *a = fg_folded_list_at(l, i), *b = fg_folded_list_at(lref, i);

		assert_int_equal(a->len, b->len);
		assert_memory_equal(a->stack, b->stack, a->len);
		assert_true(a->count == b->count && a->before == b->before);
	}
	fg_folded_list_free(l);
	fg_folded_list_free(lref);
	free(got);
	free(want);
	fg_folded_free(f);
	fg_folded_free(ref);
	fg_strbuf_release(&text);
	fg_strbuf_release(&longname);
}

/* The digit sort against a plain comparison: NUL bytes, keys that end
 * inside a digit, long shared prefixes, equal 8-byte heads. */
static int cmp_plain(const void *a, const void *b)
{
	const fg_strbuf *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->buf, y->buf, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static void sort_matches_a_bytewise_comparison(void **state)
{
	enum { N = 5000 };
	fg_strbuf *keys = calloc(N, sizeof(*keys));
	fg_folded_list *v;
	fg_folded *f;
	uint64_t x = 88172645463325252ull;
	size_t i, n = 0;

	assert_non_null(keys);
	assert_int_equal(fg_folded_new(&f), 0);
	for (i = 0; i < N; i++) {
		fg_strbuf *k = &keys[n];
		size_t len, j;
		fg_strbuf_init(k, 0);
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		if (x % 3 == 0)
			for (j = 0; j < 300 + x % 7; j++) /* long shared prefix */
				fg_strbuf_addch(k, 'p');
		len = (x >> 8) % 20;
		for (j = 0; j < len; j++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			fg_strbuf_addch(k, "ab\0;"[x % 4]);
		}
		/* a new key when the count grew (the add comes first: the two
		 * sides of == are unsequenced) */
		assert_int_equal(fg_folded_add(f, k->buf, k->len, 1), 0);
		if (fg_folded_count(f) == n + 1)
			n++;
		else
			fg_strbuf_release(k);
	}
	assert_int_equal(fg_folded_count(f), n);
	qsort(keys, n, sizeof(*keys), cmp_plain);
	assert_int_equal(fg_folded_list_new(&v, f, FG_FOLDED_SORTED), 0);
	assert_int_equal(fg_folded_list_len(v), n);
	for (i = 0; i < n; i++) {
		const fg_folded_stack *s = fg_folded_list_at(v, i);
		assert_int_equal(s->len, keys[i].len);
		assert_memory_equal(s->stack, keys[i].buf, keys[i].len);
		assert_int_equal(fg_folded_list_shared(v, i),
				 i ? shared_bytes(&keys[i - 1], &keys[i]) : 0);
	}
	for (i = 0; i < n; i++)
		fg_strbuf_release(&keys[i]);
	free(keys);
	fg_folded_list_free(v);
	fg_folded_free(f);
}

/* A pruned listing of f draws the frames `want` at min (NULL: none) and
 * says what each stack shares with the one before. Whether it has fewer
 * entries than the `stacks` f holds (asking f would merge its lines). */
static bool check_pruned(const fg_folded *f, double min, const char *want, size_t stacks)
{
	fg_strbuf got = FG_STRBUF_INIT;
	fg_folded_list *pruned;
	size_t n;

	assert_int_equal(fg_folded_list_new_pruned(&pruned, f, min), 0);
	assert_int_equal(fg_test_drawn_frames(pruned, min, &got), 0);
	assert_string_equal(got.buf ? got.buf : "", want ? want : "");
	check_shared(pruned);
	n = fg_folded_list_len(pruned);
	fg_folded_list_free(pruned);
	fg_strbuf_release(&got);
	return n < stacks;
}

/* A pruned listing draws what the full one draws, for any pruning: keys
 * that are prefixes of others (at the sort's 16-byte digits too), names
 * with bytes below and above ';', repeats, a count past 32 bits; read
 * from a file (its lines sorted where they are) and fed (a copy of the
 * map's stacks). */
static void pruned_listing_draws_the_same(void **state)
{
	static const char *const names[] = { "a", "b", "0", "ab", "a+", "zzzzzzz",
					     "aaaaaaaaaaaa", "b0" };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned round, shorter = 0;

	(void)state;
	for (round = 0; round < 8; round++) {
		fg_strbuf text = FG_STRBUF_INIT;
		char path[64];
		int fd;
		fg_folded *fed, *mapped;
		size_t i, lines = round < 2 ? 40 : 3000 << (round % 3);
		unsigned k;

		assert_int_equal(fg_folded_new(&fed), 0);
		for (i = 0; i < lines; i++) {
			size_t depth, d, at = text.len;

			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			depth = 1 + x % 9;
			for (d = 0; d < depth; d++) {
				x ^= x << 13; x ^= x >> 7; x ^= x << 17;
				fg_strbuf_addf(&text, "%s%s", d ? ";" : "",
					       names[(x >> 20) % (2 + round % 7)]);
			}
			assert_int_equal(fg_folded_add(fed, text.buf + at, text.len - at,
						       1 + (x >> 40) % 30), 0);
			fg_strbuf_addf(&text, " %llu\n", (unsigned long long)(1 + (x >> 40) % 30));
		}
		if (round == 7) { /* a count past 32 bits: a record, not a gathered line */
			assert_int_equal(fg_folded_add(fed, "a;b;ab", 6, 5000000000ull), 0);
			fg_strbuf_addstr(&text, "a;b;ab 5000000000\n");
		}
		/* a file in memory: nothing is left behind when a check fails */
		assert_true((fd = memfd_create("fgtest-prune", 0)) >= 0);
		assert_int_equal(write(fd, text.buf, text.len), (ssize_t)text.len);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		for (k = 0; k < 6; k++) {
			/* from nothing pruned to most of it */
			double min = (double)fg_folded_total(fed).n * (k ? 0.0005 * (1u << (2 * k)) : 0.0);
			fg_strbuf want = FG_STRBUF_INIT, want3 = FG_STRBUF_INIT;
			fg_folded_list *full;

			/* what the fed stacks' full listing draws */
			assert_int_equal(fg_folded_list_new(&full, fed, FG_FOLDED_SORTED), 0);
			assert_int_equal(fg_test_drawn_frames(full, min, &want), 0);
			assert_int_equal(fg_test_drawn_frames(full, min / 3, &want3), 0);
			fg_folded_list_free(full);
			/* the file read anew: the first pruned listing sorts its
			 * lines where they are, with the digits read with them;
			 * the second finds them moved and reads the digits again;
			 * the last comes once they are merged */
			assert_int_equal(fg_folded_new(&mapped), 0);
			assert_int_equal(fg_folded_read_file(mapped, path), 0);
			shorter += check_pruned(mapped, min, want.buf, fg_folded_count(fed));
			check_pruned(mapped, min / 3, want3.buf, fg_folded_count(fed));
			assert_int_equal(fg_folded_count(mapped), fg_folded_count(fed));
			check_pruned(mapped, min, want.buf, fg_folded_count(fed));
			/* the map's stacks, copied */
			shorter += check_pruned(fed, min, want.buf, fg_folded_count(fed));
			fg_folded_free(mapped);
			fg_strbuf_release(&want);
			fg_strbuf_release(&want3);
		}
		close(fd);
		fg_folded_free(fed);
		fg_strbuf_release(&text);
	}
	assert_true(shorter >= 40); /* pruning did happen, mostly */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merges_and_sorts),
		cmocka_unit_test(any_chunk_size_gives_the_same),
		cmocka_unit_test(fractional_counts),
		cmocka_unit_test(differential_lines),
		cmocka_unit_test(malformed_lines_are_counted_by_kind),
		cmocka_unit_test(add_api_and_bad_fractions),
		cmocka_unit_test(read_file_missing),
		cmocka_unit_test(mapped_file_matches_feeding),
		cmocka_unit_test(mapped_file_turning_to_repeats),
		cmocka_unit_test(mapped_file_of_repeats_matches_feeding),
		cmocka_unit_test(long_frame_names_are_cut),
		cmocka_unit_test(long_lines_are_skipped_without_buffering),
		cmocka_unit_test(counts_near_two_to_the_64),
		cmocka_unit_test(sort_matches_a_bytewise_comparison),
		cmocka_unit_test(pruned_listing_draws_the_same),
		cmocka_unit_test(input_order_listing),
		cmocka_unit_test(repeated_lines_counted_as_added),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
