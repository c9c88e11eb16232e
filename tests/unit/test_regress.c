/* The regression gate: inclusive shares (once per stack for recursion),
 * the order of the rows, the threshold and the watch list, the reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "flamegraph/error.h"
#include "flamegraph/folded.h"
#include "flamegraph/regress.h"

static fg_folded *folded_of(const char *text)
{
	fg_folded *f = NULL;

	assert_int_equal(fg_folded_new(&f), 0);
	assert_int_equal(fg_folded_feed(f, text, strlen(text)), 0);
	assert_int_equal(fg_folded_finish(f), 0);
	return f;
}

static const fg_regress_row *row_of(const fg_regress *r, const char *func)
{
	for (size_t i = 0; i < fg_regress_count(r); i++)
		if (!strcmp(fg_regress_row_at(r, i)->func, func))
			return fg_regress_row_at(r, i);
	fail_msg("no row for %s", func);
	return NULL;
}

static const char *const BEFORE = "p;main;fill 100\np;main;sort;cmp 100\np;main;sort 20\n"
				  "p;main;rec;rec;rec 10\n";
/* sort's work quadruples; fill, rec the same */
static const char *const AFTER = "p;main;fill 100\np;main;sort;cmp 400\np;main;sort 80\n"
				 "p;main;rec;rec;rec 10\n";

static void shares(void **state)
{
	fg_folded *b = folded_of(BEFORE), *a = folded_of(AFTER);
	fg_regress_opts o = FG_REGRESS_OPTS_INIT;
	fg_regress *r = NULL;

	(void)state;
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	assert_int_equal(fg_regress_count(r), 6);
	/* inclusive: sort holds its own 20 and cmp's 100 of 230 */
	assert_float_equal(row_of(r, "sort")->before, 100.0 * 120 / 230, 1e-9);
	assert_float_equal(row_of(r, "sort")->after, 100.0 * 480 / 590, 1e-9);
	/* recursion counts once per stack: 10 of 230, not 30 */
	assert_float_equal(row_of(r, "rec")->before, 100.0 * 10 / 230, 1e-9);
	assert_float_equal(row_of(r, "main")->after, 100.0, 1e-9);
	/* largest change first: sort (+29), fill (-27), cmp (+24) */
	assert_string_equal(fg_regress_row_at(r, 0)->func, "sort");
	assert_string_equal(fg_regress_row_at(r, 1)->func, "fill");
	assert_string_equal(fg_regress_row_at(r, 2)->func, "cmp");
	/* no threshold: nothing fails */
	assert_int_equal(fg_regress_failures(r), 0);
	fg_regress_free(r);
	fg_folded_free(b);
	fg_folded_free(a);
}

static void threshold_and_watch(void **state)
{
	fg_folded *b = folded_of(BEFORE), *a = folded_of(AFTER);
	fg_regress_opts o = FG_REGRESS_OPTS_INIT;
	fg_regress *r = NULL;
	const char *watch[] = { "fill" }, *typo[] = { "fil" };

	(void)state;
	o.fail_above = 25;
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	/* sort grew 29.2 points, cmp 24.3: only sort is over 25 */
	assert_int_equal(fg_regress_failures(r), 1);
	assert_true(row_of(r, "sort")->over);
	assert_false(row_of(r, "cmp")->over);
	assert_false(row_of(r, "fill")->over); /* shrank */
	fg_regress_free(r);

	/* comparing a profile with itself passes any threshold */
	o.fail_above = 0;
	assert_int_equal(fg_regress_compare(&r, b, b, &o), 0);
	assert_int_equal(fg_regress_failures(r), 0);
	fg_regress_free(r);

	/* only the watched function is judged */
	o.fail_above = 5;
	o.watch = watch;
	o.nwatch = 1;
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	assert_int_equal(fg_regress_failures(r), 0);
	fg_regress_free(r);

	/* a watched name in neither profile is an error with the near one */
	o.watch = typo;
	assert_int_equal(fg_regress_compare(&r, b, a, &o), FG_ENOTFOUND);
	assert_null(r);
	assert_non_null(strstr(fg_error_last(), "did you mean 'fill'?"));
	fg_folded_free(b);
	fg_folded_free(a);
}

/* frames above main come and go with the unwinding: not judged */
static void from_main(void **state)
{
	fg_folded *b = folded_of("p;_start;__libc_start_main;main;a 90\np;main;b 10\n"),
		  *a = folded_of("p;main;a 90\np;_start;main;b 10\n");
	fg_regress_opts o = FG_REGRESS_OPTS_INIT;
	fg_regress *r = NULL;

	(void)state;
	o.fail_above = 1;
	o.from = "main";
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	assert_int_equal(fg_regress_count(r), 3); /* main, a, b */
	assert_int_equal(fg_regress_failures(r), 0);
	assert_float_equal(row_of(r, "a")->after, 90.0, 1e-9);
	fg_regress_free(r);
	/* without it, _start swings from 90% to 10% */
	o.from = NULL;
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	assert_float_equal(row_of(r, "_start")->before, 90.0, 1e-9);
	assert_float_equal(row_of(r, "_start")->after, 10.0, 1e-9);
	fg_regress_free(r);
	fg_folded_free(b);
	fg_folded_free(a);
}

static char *report(const fg_regress *r, enum fg_regress_format fmt, size_t top)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	assert_non_null(mem);
	assert_int_equal(fg_regress_report(r, fmt, top, mem), 0);
	fclose(mem);
	return text;
}

static void reports(void **state)
{
	fg_folded *b = folded_of("m;a|b 10\nm;c 10\n"), *a = folded_of("m;a|b 30\nm;c 10\n");
	fg_regress_opts o = FG_REGRESS_OPTS_INIT;
	fg_regress *r = NULL;
	char *text;

	(void)state;
	o.fail_above = 10;
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	text = report(r, FG_REGRESS_TEXT, 0);
	assert_non_null(strstr(text, "a|b                                        50.00%   75.00%  +25.00 pp  over\n"));
	assert_non_null(strstr(text, "gate failed: 1 function grew by more than 10.00 percentage points: a|b\n"));
	free(text);
	text = report(r, FG_REGRESS_MARKDOWN, 1);
	/* a pipe inside a cell is escaped; one row only */
	assert_non_null(strstr(text, "| `a\\|b` | 50.00% | 75.00% | **+25.00 pp** over |\n"));
	assert_null(strstr(text, "`c`"));
	assert_non_null(strstr(text, "**gate failed**"));
	free(text);
	fg_regress_free(r);

	/* a write error says why */
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		assert_int_equal(fg_regress_report(r, FG_REGRESS_TEXT, 0, full), FG_EIO);
		assert_non_null(strstr(fg_error_last(), "No space left on device"));
		fclose(full);
	}
	fg_regress_free(r);
	fg_folded_free(b);
	fg_folded_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares),
		cmocka_unit_test(threshold_and_watch),
		cmocka_unit_test(from_main),
		cmocka_unit_test(reports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
