/* Unit tests of the JIT map file reader (src/lib/perfdata/jitmap.c):
 * good lines, names with spaces, malformed lines skipped (each rule
 * perf 6.1 was seen to follow), overlapping and duplicate entries found
 * as perf's tree finds them, an empty file, a missing file; which maps
 * get the file's name. */
#include <setjmp.h>
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
#include "lib/perfdata/internal.h"

static pd_jitmap *parse(const char *text, size_t len)
{
	pd_jitmap *m = NULL;

	assert_int_equal(pd_jitmap_parse_mem(&m, text, len), 0);
	assert_non_null(m);
	return m;
}

#define PARSE(lit) parse(lit, sizeof(lit) - 1)

/* The name found at addr, or NULL. */
static const char *at(const pd_jitmap *m, uint64_t addr)
{
	const struct pd_elfsym *s = pd_jitmap_find(m, addr);
	return s ? s->name : NULL;
}

static void assert_counts(const pd_jitmap *m, size_t entries, size_t skipped)
{
	size_t e, s;

	pd_jitmap_counts(m, &e, &s);
	assert_int_equal(e, entries);
	assert_int_equal(s, skipped);
}

static void test_good_lines(void **state)
{
	pd_jitmap *m = PARSE("1000 10 first\n"
			     "2000 20 LazyCompile:*work file.js:10\n"
			     "0x3000 0X8 prefixed\n"
			     "4000 0 empty_size\n");

	(void)state;
	assert_counts(m, 4, 0);
	assert_null(at(m, 0xfff));
	assert_string_equal(at(m, 0x1000), "first");
	assert_string_equal(at(m, 0x100f), "first");
	assert_null(at(m, 0x1010)); /* the end is not in it */
	assert_string_equal(at(m, 0x2004), "LazyCompile:*work file.js:10");
	assert_string_equal(at(m, 0x3007), "prefixed");
	/* size 0: its start only */
	assert_string_equal(at(m, 0x4000), "empty_size");
	assert_null(at(m, 0x4001));
	pd_jitmap_free(m);
}

static void test_spaces_and_separators(void **state)
{
	/* the name is the rest of the line, padding and CR included; white
	 * space before a number is skipped; any one byte separates */
	pd_jitmap *m = PARSE("  1000 \t10 two  spaces \n"
			     "2000,10,  lead\r\n"
			     "3000-10-dash\n"
			     "4000 10 a\0bcdef\n"
			     "5000 10\0named after nul\n");

	(void)state;
	assert_counts(m, 5, 0);
	assert_string_equal(at(m, 0x1001), "two  spaces ");
	assert_string_equal(at(m, 0x2001), "  lead\r");
	assert_string_equal(at(m, 0x3001), "dash");
	assert_string_equal(at(m, 0x4001), "a"); /* a name ends at a NUL */
	assert_string_equal(at(m, 0x5001), "named after nul");
	pd_jitmap_free(m);
}

static void test_malformed_lines(void **state)
{
	pd_jitmap *m = PARSE("\n"
			     "garbage\n"
			     "#\n"
			     "1000 10 ab\n"        /* names of 2 bytes are dropped */
			     "1000 10\n"
			     "1000\n"
			     "xyz 10 no_start\n"   /* start 0, size "yz": 0 */
			     "2000 zz bad_size\n"  /* size 0, name "z bad_size" */
			     "3000 -10 negative\n" /* wraps: ends before it starts */
			     "4000 ffffffffffffffffff too_big\n"
			     "11111111111111111111 10 start_too_big\n"
			     "5000 10 kept\n"
			     "6000 10 last");

	(void)state;
	assert_null(at(m, 0x1000));
	/* "garbage" and "xyz ..." are entries at 0 all the same ("garbage":
	 * no start, the size "a" of "arbage", the name "bage"), as perf
	 * reads them; they are counted below */
	assert_string_equal(at(m, 0x2000), "z bad_size");
	assert_null(at(m, 0x2001));
	assert_null(at(m, 0x3000));
	assert_null(at(m, 0x4000));
	assert_null(at(m, UINT64_MAX));
	assert_string_equal(at(m, 0x5000), "kept");
	/* an unterminated last line loses its last byte too */
	assert_string_equal(at(m, 0x6000), "las");
	assert_counts(m, 8, 5);
	pd_jitmap_free(m);
}

static void test_overlapping(void **state)
{
	pd_jitmap *m;

	(void)state;
	/* the first entry inserted is the root: found first */
	m = PARSE("1000 100 outer\n1040 10 inner\n");
	assert_string_equal(at(m, 0x1044), "outer");
	pd_jitmap_free(m);
	/* the other way round, inner is the root; an address of outer past
	 * inner's end is then not found at all, as perf does not find it */
	m = PARSE("1040 10 inner\n1000 100 outer\n");
	assert_string_equal(at(m, 0x1044), "inner");
	assert_string_equal(at(m, 0x1010), "outer");
	assert_null(at(m, 0x1080));
	pd_jitmap_free(m);
	/* equal starts go right; three rebalance to the middle one */
	m = PARSE("1000 10 aaa\n1000 10 bbb\n");
	assert_string_equal(at(m, 0x1000), "aaa");
	pd_jitmap_free(m);
	m = PARSE("1000 10 aaa\n1000 10 bbb\n1000 10 ccc\n");
	assert_string_equal(at(m, 0x1000), "bbb");
	pd_jitmap_free(m);
	m = PARSE("1000 10 aaa\n2000 10 sss\n1000 10 bbb\n");
	assert_string_equal(at(m, 0x1000), "bbb");
	assert_string_equal(at(m, 0x2000), "sss");
	pd_jitmap_free(m);
}

/* Many entries in and out of order: every one is found (no overlaps),
 * so the tree holds them all in order whatever it rotated. */
static void test_many(void **state)
{
	enum { N = 5000 };
	char *text = malloc((size_t)N * 32), *p = text;
	pd_jitmap *m;
	unsigned i, k;
	char want[16];

	(void)state;
	assert_non_null(text);
	for (i = 0; i < N; i++) {
		k = (i * 7919u) % N; /* a permutation of 0..N-1 (7919 is prime) */
		p += snprintf(p, 32, "%x 10 fn%u\n", 0x100000 + k * 0x10, k);
	}
	m = parse(text, (size_t)(p - text));
	assert_counts(m, N, 0);
	for (k = 0; k < N; k++) {
		snprintf(want, sizeof(want), "fn%u", k);
		assert_string_equal(at(m, 0x100000 + k * 0x10 + 7), want);
	}
	assert_null(at(m, 0x100000 + N * 0x10));
	pd_jitmap_free(m);
	free(text);
}

static void test_empty_and_missing(void **state)
{
	pd_jitmap *m = parse("", 0);
	char path[64];
	FILE *f;

	(void)state;
	assert_counts(m, 0, 0);
	assert_null(at(m, 0x1000));
	pd_jitmap_free(m);
	assert_null(pd_jitmap_find(NULL, 0x1000));
	pd_jitmap_free(NULL);

	/* no file: no entries, no error */
	m = (pd_jitmap *)&m;
	assert_int_equal(pd_jitmap_load(&m, "/nonexistent/perf-1.map"), 0);
	assert_null(m);
	/* a folder is not read */
	assert_int_equal(pd_jitmap_load(&m, "/tmp"), 0);
	assert_null(m);

	/* a real file, under the name perf reads for this process */
	pd_jitmap_name(path, (int32_t)getpid());
	assert_non_null(f = fopen(path, "w"));
	fputs("7000 10 from_file\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(pd_jitmap_load(&m, path), 0);
	unlink(path);
	assert_non_null(m);
	assert_string_equal(at(m, 0x7008), "from_file");
	pd_jitmap_free(m);
}

static void test_which_maps(void **state)
{
	char name[PD_JITMAP_NAME_MAX];

	(void)state;
	pd_jitmap_name(name, 1234);
	assert_string_equal(name, "/tmp/perf-1234.map");
	assert_true(pd_jitmap_wanted("//anon", PROT_READ | PROT_EXEC, 0));
	assert_true(pd_jitmap_wanted("[heap]", PROT_EXEC, 0));
	assert_true(pd_jitmap_wanted("[stack]", PROT_EXEC, 0));
	assert_true(pd_jitmap_wanted("/dev/zero (deleted)", PROT_EXEC, 0));
	assert_true(pd_jitmap_wanted("/SYSV00000000 (deleted)", PROT_EXEC, 0));
	assert_true(pd_jitmap_wanted("/anon_hugepage (deleted)", PROT_EXEC, 0));
	assert_true(pd_jitmap_wanted("/some/file", PROT_EXEC, MAP_HUGETLB));
	/* not executable, or not such memory */
	assert_false(pd_jitmap_wanted("//anon", PROT_READ | PROT_WRITE, 0));
	assert_false(pd_jitmap_wanted("//anon2", PROT_EXEC, 0));
	assert_false(pd_jitmap_wanted("[heap", PROT_EXEC, 0));
	assert_false(pd_jitmap_wanted("[anon:jit]", PROT_EXEC, 0));
	assert_false(pd_jitmap_wanted("[vdso]", PROT_EXEC, 0));
	assert_false(pd_jitmap_wanted("/usr/lib/libc.so.6", PROT_EXEC, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_lines),
		cmocka_unit_test(test_spaces_and_separators),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_overlapping),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_which_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
