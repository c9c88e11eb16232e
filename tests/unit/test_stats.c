/* The gate's statistics against known values: the incomplete beta
 * function's closed forms, Student's t (df 1 and 2 in closed form, table
 * quantiles), Welch's test on a hand-worked example, Holm's adjustment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "lib/fold/stats.h"

static void incbeta(void **state)
{
	(void)state;
	/* I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b; I_1/2(a, a) = 1/2 */
	assert_float_equal(fg_stats_incbeta(2.5, 1, 0.3), pow(0.3, 2.5), 1e-13);
	assert_float_equal(fg_stats_incbeta(1, 4, 0.2), 1 - pow(0.8, 4), 1e-13);
	assert_float_equal(fg_stats_incbeta(7.5, 7.5, 0.5), 0.5, 1e-13);
	assert_float_equal(fg_stats_incbeta(30, 30, 0.5), 0.5, 1e-12);
	/* I_x(2, 2) = 3x^2 - 2x^3, both sides of the switch point */
	assert_float_equal(fg_stats_incbeta(2, 2, 0.1), 3 * 0.01 - 2 * 0.001, 1e-13);
	assert_float_equal(fg_stats_incbeta(2, 2, 0.9), 3 * 0.81 - 2 * 0.729, 1e-13);
	/* I_x(1/2, 1/2) = (2/pi) asin(sqrt(x)) */
	assert_float_equal(fg_stats_incbeta(0.5, 0.5, 0.3), 2 / M_PI * asin(sqrt(0.3)), 1e-12);
	assert_float_equal(fg_stats_incbeta(3, 4, 0), 0, 0);
	assert_float_equal(fg_stats_incbeta(3, 4, 1), 1, 0);
	assert_true(isnan(fg_stats_incbeta(0, 4, 0.5)));
	assert_true(isnan(fg_stats_incbeta(3, 4, 1.5)));
}

static void t_cdf(void **state)
{
	(void)state;
	/* df 1: Cauchy; df 2: 1/2 + t / (2 sqrt(2 + t^2)) */
	for (double t = -30; t <= 30; t += 0.7) {
		assert_float_equal(fg_stats_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
		assert_float_equal(fg_stats_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12);
	}
	assert_float_equal(fg_stats_t_cdf(0, 7.3), 0.5, 1e-15);
	/* P(T_8 > 2) = 0.0402581 (the closed form for even df); P(T_30 > 2.042272) = 0.025 */
	assert_float_equal(1 - fg_stats_t_cdf(2, 8), 0.040258119, 1e-8);
	assert_float_equal(fg_stats_t_cdf(-2.042272456, 30), 0.025, 1e-8);
	/* large df: close to the normal, P(Z > 1.959964) = 0.025 */
	assert_float_equal(fg_stats_t_cdf(1.959963985, 1e7), 0.975, 1e-6);
	assert_float_equal(fg_stats_t_cdf(INFINITY, 3), 1, 0);
	assert_true(isnan(fg_stats_t_cdf(1, 0)));
}

static void t_quantile(void **state)
{
	(void)state;
	/* from a table of Student's t */
	assert_float_equal(fg_stats_t_quantile(0.975, 1), 12.706204736, 1e-7);
	assert_float_equal(fg_stats_t_quantile(0.975, 2), 4.302652730, 1e-8);
	assert_float_equal(fg_stats_t_quantile(0.975, 5), 2.570581836, 1e-8);
	assert_float_equal(fg_stats_t_quantile(0.975, 10), 2.228138852, 1e-8);
	assert_float_equal(fg_stats_t_quantile(0.995, 8), 3.355387331, 1e-8);
	assert_float_equal(fg_stats_t_quantile(0.95, 30), 1.697260887, 1e-8);
	assert_float_equal(fg_stats_t_quantile(0.025, 10), -2.228138852, 1e-8);
	assert_float_equal(fg_stats_t_quantile(0.5, 3), 0, 0);
	assert_true(isnan(fg_stats_t_quantile(1, 3)));
	assert_true(isnan(fg_stats_t_quantile(0.9, -1)));
}

static void welch(void **state)
{
	static const double b[] = { 1, 2, 3, 4, 5 }, a[] = { 3, 4, 5, 6, 7 };
	static const double flat[] = { 4, 4, 4 }, flat2[] = { 6, 6, 6 };
	static const double un[] = { 10, 12, 9, 11 }, wide[] = { 20, 5, 30, 1, 14, 8 };
	fg_welch w;

	(void)state;
	/* means 3 and 5, variances 2.5: se 1, t 2, df 8, p = 2 P(T_8 > 2) */
	fg_stats_welch(&w, b, 5, a, 5, 0.95);
	assert_float_equal(w.diff, 2, 1e-12);
	assert_float_equal(w.se, 1, 1e-12);
	assert_float_equal(w.df, 8, 1e-12);
	assert_float_equal(w.t, 2, 1e-12);
	assert_float_equal(w.p, 0.080516238, 1e-8);
	assert_float_equal(w.lo, 2 - 2.306004135, 1e-8);
	assert_float_equal(w.hi, 2 + 2.306004135, 1e-8);
	/* unequal sizes and variances: var 5/3 and 97.1, the Welch-Satterthwaite df */
	fg_stats_welch(&w, un, 4, wide, 6, 0.95);
	{
		double vb = 5.0 / 3 / 4, va = 0;
		double m = (20 + 5 + 30 + 1 + 14 + 8) / 6.0;

		for (int i = 0; i < 6; i++)
			va += (wide[i] - m) * (wide[i] - m);
		va = va / 5 / 6;
		assert_float_equal(w.diff, m - 10.5, 1e-12);
		assert_float_equal(w.se, sqrt(vb + va), 1e-12);
		assert_float_equal(w.df, (vb + va) * (vb + va) / (vb * vb / 3 + va * va / 5), 1e-9);
		assert_float_equal(w.p, 2 * fg_stats_t_cdf(-fabs(w.t), w.df), 1e-12);
		assert_true(w.p > 0.5); /* 13 against 10.5 with that spread: nothing */
	}
	/* no spread: exact */
	fg_stats_welch(&w, flat, 3, flat2, 3, 0.95);
	assert_float_equal(w.p, 0, 0);
	assert_float_equal(w.lo, 2, 0);
	fg_stats_welch(&w, flat, 3, flat, 3, 0.95);
	assert_float_equal(w.p, 1, 0);
	/* one value a side: no test */
	fg_stats_welch(&w, b, 1, a, 5, 0.95);
	assert_float_equal(w.diff, 4, 1e-12);
	assert_true(isnan(w.p) && isnan(w.lo) && isnan(w.se));
}

static void holm(void **state)
{
	double p[] = { 0.01, 0.04, NAN, 0.03, 0.005 };

	(void)state;
	/* sorted 0.005 0.01 0.03 0.04 over 4: x4 0.02, x3 0.03, x2 0.06, x1 0.04 -> 0.06 */
	assert_int_equal(fg_stats_holm(p, 5), 0);
	assert_float_equal(p[4], 0.02, 1e-15);
	assert_float_equal(p[0], 0.03, 1e-15);
	assert_float_equal(p[3], 0.06, 1e-15);
	assert_float_equal(p[1], 0.06, 1e-15);
	assert_true(isnan(p[2]));
	/* capped at 1 */
	double q[] = { 0.6, 0.7 };
	assert_int_equal(fg_stats_holm(q, 2), 0);
	assert_float_equal(q[0], 1, 0);
	assert_float_equal(q[1], 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(incbeta),
		cmocka_unit_test(t_cdf),
		cmocka_unit_test(t_quantile),
		cmocka_unit_test(welch),
		cmocka_unit_test(holm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
