/* Small-sample statistics for the regression gate: the regularized
 * incomplete beta function, Student's t distribution, Welch's two-sample
 * t-test and Holm's adjustment of several p-values. Private to fold/. */
#ifndef FG_LIB_FOLD_STATS_H
#define FG_LIB_FOLD_STATS_H

#include <stddef.h>

/* I_x(a, b) for a, b > 0 and 0 <= x <= 1; NaN outside. */
double fg_stats_incbeta(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom (df need not
 * be whole: Welch's test gives fractional ones). NaN for df <= 0. */
double fg_stats_t_cdf(double t, double df);

/* The t with P(T <= t) = p, 0 < p < 1; NaN outside. */
double fg_stats_t_quantile(double p, double df);

/* Welch's test of after against before: mean difference (after - before),
 * its standard error, the Welch-Satterthwaite degrees of freedom, the
 * two-sided p-value and the `conf` confidence interval of the difference
 * (conf = 0.95: 95%). With fewer than 2 values a side, nothing but the
 * means and the difference can be said: se, df, t, p, lo and hi are NaN.
 * With no spread on either side the difference is exact: p is 0 when it
 * is not 0, 1 when it is. */
typedef struct fg_welch {
	double mean_before, mean_after, diff, se, df, t, p, lo, hi;
} fg_welch;

void fg_stats_welch(fg_welch *out, const double *before, size_t nb, const double *after,
		    size_t na, double conf);

/* Holm's step-down adjustment of n p-values, in place: the adjusted p is
 * below a level exactly when Holm's procedure at that level rejects, so
 * the chance that any of the n is called significant by chance stays
 * under the level. NaN entries are left alone and not counted. Returns 0
 * or -1 when it cannot allocate (p unchanged). */
int fg_stats_holm(double *p, size_t n);

#endif
