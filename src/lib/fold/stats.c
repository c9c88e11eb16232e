/* Small-sample statistics for the regression gate (see stats.h). The t
 * distribution's CDF comes from the regularized incomplete beta function,
 * evaluated as its continued fraction (modified Lentz iteration); the
 * quantile is found by bisection on the CDF, which is monotone and cheap
 * enough for the few dozen functions a gate judges. */
#include <math.h>
#include <stdlib.h>

#include "lib/fold/stats.h"
#include "util/strbuf.h"
#include "util/banned.h"

#define CF_EPS 1e-15
#define CF_TINY 1e-300
#define CF_MAX_TERMS 500

static double guard(double v)
{
	return fabs(v) < CF_TINY ? CF_TINY : v;
}

/* The continued fraction of I_x(a, b), which converges quickly for
 * x < (a + 1) / (a + b + 2). */
static double incbeta_cf(double a, double b, double x)
{
	double c = 1.0, d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0)), h = d;

	for (int m = 1; m <= CF_MAX_TERMS; m++) {
		double k = 2.0 * m;
		/* even term d_2m, then odd term d_2m+1 */
		double even = m * (b - m) * x / ((a + k - 1.0) * (a + k));
		double odd = -(a + m) * (a + b + m) * x / ((a + k) * (a + k + 1.0));
		double step;

		d = 1.0 / guard(1.0 + even * d);
		c = guard(1.0 + even / c);
		h *= d * c;
		d = 1.0 / guard(1.0 + odd * d);
		c = guard(1.0 + odd / c);
		step = d * c;
		h *= step;
		if (fabs(step - 1.0) < CF_EPS)
			break;
	}
	return h;
}

double fg_stats_incbeta(double a, double b, double x)
{
	double lfront;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lfront) * incbeta_cf(a, b, x) / a;
	/* I_x(a, b) = 1 - I_(1-x)(b, a), where the fraction converges */
	return 1.0 - exp(lfront) * incbeta_cf(b, a, 1.0 - x) / b;
}

double fg_stats_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	/* P(|T| > |t|) = I_(df / (df + t^2))(df / 2, 1 / 2) */
	tail = 0.5 * fg_stats_incbeta(df / 2.0, 0.5, df / (df + t * t));
	return t > 0 ? 1.0 - tail : tail;
}

double fg_stats_t_quantile(double p, double df)
{
	double lo = 0.0, hi = 1.0;

	if (!(p > 0) || !(p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -fg_stats_t_quantile(1.0 - p, df);
	if (p == 0.5)
		return 0.0;
	while (fg_stats_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2.0;
	for (int i = 0; i < 400 && hi - lo > 1e-13 * hi; i++) {
		double mid = 0.5 * (lo + hi);

		if (fg_stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*var = n > 1 ? q / (double)(n - 1) : NAN;
}

void fg_stats_welch(fg_welch *w, const double *before, size_t nb, const double *after, size_t na,
		    double conf)
{
	double vb, va, sb, sa, q;

	mean_var(before, nb, &w->mean_before, &vb);
	mean_var(after, na, &w->mean_after, &va);
	w->diff = w->mean_after - w->mean_before;
	w->se = w->df = w->t = w->p = w->lo = w->hi = NAN;
	if (nb < 2 || na < 2)
		return;
	sb = vb / (double)nb;
	sa = va / (double)na;
	w->se = sqrt(sb + sa);
	if (w->se == 0) {
		/* no spread: the difference is what it is */
		w->df = (double)(nb + na - 2);
		w->t = w->diff == 0 ? 0 : copysign(INFINITY, w->diff);
		w->p = w->diff == 0 ? 1.0 : 0.0;
		w->lo = w->hi = w->diff;
		return;
	}
	/* Welch-Satterthwaite */
	w->df = (sb + sa) * (sb + sa) /
		((sb > 0 ? sb * sb / (double)(nb - 1) : 0) + (sa > 0 ? sa * sa / (double)(na - 1) : 0));
	w->t = w->diff / w->se;
	w->p = 2.0 * fg_stats_t_cdf(-fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	q = fg_stats_t_quantile(0.5 + conf / 2.0, w->df);
	w->lo = w->diff - q * w->se;
	w->hi = w->diff + q * w->se;
}

static int by_p(const void *a, const void *b)
{
	double x = **(double *const *)a, y = **(double *const *)b;

	return x < y ? -1 : x > y;
}

int fg_stats_holm(double *p, size_t n)
{
	double **order = fg_calloc(n ? n : 1, sizeof(*order)), run = 0;
	size_t m = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			order[m++] = &p[i];
	qsort(order, m, sizeof(*order), by_p);
	/* the k-th smallest (from 0) is scaled by m - k; adjusted values
	 * never decrease along the order */
	for (size_t k = 0; k < m; k++) {
		double adj = (double)(m - k) * *order[k];

		if (adj > run)
			run = adj;
		*order[k] = run > 1 ? 1 : run;
	}
	free(order);
	return 0;
}
