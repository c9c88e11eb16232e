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
#include <math.h>

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
	o.measure = FG_REGRESS_SHARE;
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
	/* the cost per run is there too; one run: no test */
	assert_float_equal(row_of(r, "sort")->before_cost, 120, 1e-9);
	assert_float_equal(row_of(r, "sort")->after_cost, 480, 1e-9);
	assert_true(isnan(row_of(r, "sort")->p));
	assert_true(isnan(row_of(r, "sort")->lo));
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
	o.measure = FG_REGRESS_SHARE;
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
	o.measure = FG_REGRESS_SHARE;
	o.fail_above = 10;
	assert_int_equal(fg_regress_compare(&r, b, a, &o), 0);
	text = report(r, FG_REGRESS_TEXT, 0);
	assert_non_null(strstr(text, "a|b                                            10           30   50.00% -> 75.00% +25.00 pp                      -        -  over\n"));
	assert_non_null(strstr(text, "gate failed: 1 function grew by more than 10.00 percentage points: a|b\n"));
	assert_non_null(strstr(text, "one run a side: no significance test"));
	free(text);
	text = report(r, FG_REGRESS_MARKDOWN, 1);
	/* a pipe inside a cell is escaped; one row only */
	assert_non_null(strstr(text, "| `a\\|b` | 10 | 30 | 50.00% -> 75.00% | **+25.00 pp** over | - | - |\n"));
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

/* five runs a side: f grows 20% steadily, g swings by more than it
 * changes, h stays; n is new in every run after */
static void several_runs(void **state)
{
	static const int gb[] = { 50, 150, 60, 140, 100 }, ga[] = { 200, 40, 180, 60, 170 };
	fg_folded *b[5], *a[5];
	fg_regress_opts o = FG_REGRESS_OPTS_INIT;
	fg_regress *r = NULL;
	const fg_regress_row *f;
	char text[256], *rep;

	(void)state;
	for (int i = 0; i < 5; i++) {
		snprintf(text, sizeof(text), "m;f %d\nm;g %d\nm;h 100\n", 100 + i, gb[i]);
		b[i] = folded_of(text);
		snprintf(text, sizeof(text), "m;f %d\nm;g %d\nm;h 100\nm;n 50\n", 120 + i, ga[i]);
		a[i] = folded_of(text);
	}
	o.fail_above = 5;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 5,
						 (const fg_folded *const *)a, 5, &o), 0);
	f = row_of(r, "f");
	assert_float_equal(f->before_cost, 102, 1e-9);
	assert_float_equal(f->after_cost, 122, 1e-9);
	assert_float_equal(f->change, 100.0 * 20 / 102, 1e-9);
	/* t = 20, 8 degrees of freedom: t(0.975, 8) = 2.306004 */
	assert_float_equal(f->lo, 100.0 * (20 - 2.306004135) / 102, 1e-5);
	assert_float_equal(f->hi, 100.0 * (20 + 2.306004135) / 102, 1e-5);
	assert_true(f->p < 1e-6);
	assert_true(f->significant && f->over);
	/* g: +30% on average, but noise */
	assert_float_equal(row_of(r, "g")->change, 30.0, 1e-9);
	assert_false(row_of(r, "g")->significant);
	assert_false(row_of(r, "g")->over);
	assert_true(row_of(r, "g")->noise);
	/* h: no change at all */
	assert_float_equal(row_of(r, "h")->p, 1.0, 1e-12);
	assert_false(row_of(r, "h")->over);
	/* n: new, and there every time */
	assert_true(isinf(row_of(r, "n")->change));
	assert_true(row_of(r, "n")->over);
	/* over first, largest first: n (new), then f */
	assert_string_equal(fg_regress_row_at(r, 0)->func, "n");
	assert_string_equal(fg_regress_row_at(r, 1)->func, "f");
	assert_int_equal(fg_regress_failures(r), 2);
	rep = report(r, FG_REGRESS_TEXT, 0);
	assert_non_null(strstr(rep, "gate failed: 2 functions grew by more than 5.00%, significantly: n, f\n"));
	assert_non_null(strstr(rep, "not significant (noise at 5 + 5 runs): m, g\n"));
	assert_non_null(strstr(rep, "[+17.3%, +21.9%]"));
	assert_non_null(strstr(rep, "significance: Welch's t-test over 5 + 5 runs, p adjusted (Holm) over 5 judged functions"));
	free(rep);
	rep = report(r, FG_REGRESS_MARKDOWN, 0);
	assert_non_null(strstr(rep, "| `f` | 102 | 122 | "));
	assert_non_null(strstr(rep, "| **+19.6%** over | [+17.3%, +21.9%] | <0.0001 |\n"));
	assert_non_null(strstr(rep, "| +30.0% not significant | "));
	free(rep);
	fg_regress_free(r);

	/* the same runs judged by share: h's share shrank, nothing of it over */
	o.measure = FG_REGRESS_SHARE;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 5,
						 (const fg_folded *const *)a, 5, &o), 0);
	assert_false(row_of(r, "h")->over);
	assert_true(row_of(r, "h")->change < 0);
	fg_regress_free(r);

	/* a function under min_share on both sides is listed, not judged */
	o.measure = FG_REGRESS_TIME;
	o.min_share = 40;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 5,
						 (const fg_folded *const *)a, 5, &o), 0);
	assert_false(row_of(r, "f")->judged);
	assert_false(row_of(r, "f")->over);
	assert_true(isnan(row_of(r, "f")->p));
	assert_true(row_of(r, "m")->judged);
	fg_regress_free(r);

	/* bad options */
	o.alpha = 1.5;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 5,
						 (const fg_folded *const *)a, 5, &o), FG_EINVAL);
	o.alpha = 0.05;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 0,
						 (const fg_folded *const *)a, 5, &o), FG_EINVAL);
	for (int i = 0; i < 5; i++) {
		fg_folded_free(b[i]);
		fg_folded_free(a[i]);
	}
}

/* A machine 4% slower after: every function alike. Nothing fails at 2%;
 * the whole program's line has the growth and, given total_above, fails.
 * One function 10% slower on top fails alone, whatever its share. */
/* alpha's cost in five runs a side (beta: 1000 each), judged at 5% */
static fg_regress *alpha_runs(const int *before, const int *after, size_t n)
{
	fg_folded *b[5], *a[5];
	fg_regress_opts o = FG_REGRESS_OPTS_INIT;
	fg_regress *r = NULL;
	char text[128];

	for (size_t i = 0; i < n; i++) {
		snprintf(text, sizeof(text), "m;alpha %d\nm;beta 1000\n", before[i]);
		b[i] = folded_of(text);
		snprintf(text, sizeof(text), "m;alpha %d\nm;beta 1000\n", after[i]);
		a[i] = folded_of(text);
	}
	o.fail_above = 5;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, n,
						 (const fg_folded *const *)a, n, &o), 0);
	for (size_t i = 0; i < n; i++) {
		fg_folded_free(b[i]);
		fg_folded_free(a[i]);
	}
	return r;
}

/* The first look: what is clear is decided, what more runs could still
 * tell is named, what they could not is noise. */
static void undecided(void **state)
{
	static const int before[] = { 100, 101, 99, 100, 100 };
	static const int clear[] = { 115, 116, 114, 115, 115 };
	static const int noisy[] = { 130, 100, 125, 104, 118 };
	static const int hopeless[] = { 160, 70, 150, 75, 120 };
	static const int small[] = { 103, 104, 102, 103, 103 };
	double level = FG_REGRESS_FIRST_LOOK_LEVEL(0.05), futile = FG_REGRESS_FUTILE_LEVEL(0.05);
	char what[64] = "";
	fg_regress *r;

	(void)state;
	assert_float_equal(level, 0.001, 1e-12);
	assert_float_equal(futile, 0.2, 1e-12);
	/* +15%, p far under 0.001: fails now */
	r = alpha_runs(before, clear, 5);
	assert_true(row_of(r, "alpha")->p < level);
	assert_false(fg_regress_undecided(r, what, sizeof(what)));
	assert_int_equal(fg_regress_failures(r), 1);
	fg_regress_free(r);
	/* +15% with a p between: more runs could tell */
	r = alpha_runs(before, noisy, 5);
	assert_true(row_of(r, "alpha")->p >= level && row_of(r, "alpha")->p < futile);
	assert_true(fg_regress_undecided(r, what, sizeof(what)));
	assert_string_equal(what, "`alpha`");
	assert_int_equal(fg_regress_failures(r), 0);
	fg_regress_free(r);
	/* +15% with a p of 0.2 or more: noise, decided */
	r = alpha_runs(before, hopeless, 5);
	assert_true(row_of(r, "alpha")->change > 5 && row_of(r, "alpha")->p >= futile);
	assert_false(fg_regress_undecided(r, what, sizeof(what)));
	fg_regress_free(r);
	/* +3%, clear: under the threshold, decided */
	r = alpha_runs(before, small, 5);
	assert_false(fg_regress_undecided(r, what, sizeof(what)));
	fg_regress_free(r);
	/* one run a side: no test to ask */
	r = alpha_runs(before, noisy, 1);
	assert_false(fg_regress_undecided(r, what, sizeof(what)));
	fg_regress_free(r);
}

static void drift(void **state)
{
	fg_folded *b[5], *a[5], *s[5];
	fg_regress_opts o = FG_REGRESS_OPTS_INIT;
	fg_regress *r = NULL;
	const fg_regress_total *t;
	char text[256];

	(void)state;
	for (int i = 0; i < 5; i++) {
		int x = 1000 + 7 * i, y = 3000 - 11 * i, z = 1500 + 5 * i;

		snprintf(text, sizeof(text), "m;x %d\nm;y %d\nm;z %d\n", x, y, z);
		b[i] = folded_of(text);
		snprintf(text, sizeof(text), "m;x %d\nm;y %d\nm;z %d\n", x * 104 / 100, y * 104 / 100,
			 z * 104 / 100);
		a[i] = folded_of(text);
		snprintf(text, sizeof(text), "m;x %d\nm;y %d\nm;z %d\n", x * 104 / 100,
			 y * 104 * 110 / 10000, z * 104 / 100);
		s[i] = folded_of(text);
	}
	o.fail_above = 2;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 5,
						 (const fg_folded *const *)a, 5, &o), 0);
	assert_int_equal(fg_regress_failures(r), 0);
	assert_true(row_of(r, "x")->significant);
	assert_true(row_of(r, "x")->drift);
	assert_false(row_of(r, "x")->over);
	assert_true(fabs(row_of(r, "y")->rel_change) < 0.5);
	/* m is the whole program: judged by its line */
	assert_float_equal(row_of(r, "m")->rel_change, 0, 0);
	t = fg_regress_total_of(r);
	assert_true(t->change > 3.8 && t->change < 4.1);
	assert_true(t->lo > 0 && t->p < 0.05 && t->significant);
	assert_false(t->over);
	fg_regress_free(r);

	o.total_above = 3;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 5,
						 (const fg_folded *const *)a, 5, &o), 0);
	assert_true(fg_regress_total_of(r)->over);
	assert_int_equal(fg_regress_failures(r), 1);
	fg_regress_free(r);

	/* y (55% of the whole) 10% slower as well: over, alone; x and z
	 * are not, though the whole program grew by 10% */
	o.total_above = -1;
	o.fail_above = 5;
	assert_int_equal(fg_regress_compare_runs(&r, (const fg_folded *const *)b, 5,
						 (const fg_folded *const *)s, 5, &o), 0);
	assert_true(row_of(r, "y")->over);
	assert_true(row_of(r, "y")->rel_change > 8);
	assert_false(row_of(r, "x")->over);
	assert_false(row_of(r, "z")->over);
	assert_int_equal(fg_regress_failures(r), 1);
	assert_string_equal(fg_regress_row_at(r, 0)->func, "y");
	fg_regress_free(r);
	for (int i = 0; i < 5; i++) {
		fg_folded_free(b[i]);
		fg_folded_free(a[i]);
		fg_folded_free(s[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shares),
		cmocka_unit_test(threshold_and_watch),
		cmocka_unit_test(from_main),
		cmocka_unit_test(reports),
		cmocka_unit_test(several_runs),
		cmocka_unit_test(drift),
		cmocka_unit_test(undecided),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
