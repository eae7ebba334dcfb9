/*
 * describe.h — descriptive statistics over plain double arrays.
 *
 * Every function takes the values as given (no NaN filtering: callers drop
 * missing values first) and never changes them. Conventions, as the paper's
 * tables use them:
 *   pf_stats_std     sample standard deviation (divisor n - 1; 0 for n = 1)
 *   pf_stats_cv      coefficient of variation std / mean (sample std)
 *   pf_stats_median  the middle value, or the mean of the two middle values
 *   pf_stats_geomean exp(mean(log x)); NaN unless every x > 0
 *   pf_stats_ranks   average ranks, 1 = smallest; tied values share the mean
 *                    of the ranks they span (1, 2.5, 2.5, 4)
 * With n = 0 the mean, median, std and geometric mean are NaN.
 */
#ifndef PF_STATS_DESCRIBE_H
#define PF_STATS_DESCRIBE_H

#include <stddef.h>

double pf_stats_mean(const double *x, size_t n);
double pf_stats_std(const double *x, size_t n);
double pf_stats_cv(const double *x, size_t n);
double pf_stats_median(const double *x, size_t n);
double pf_stats_geomean(const double *x, size_t n);

/* Average ranks of x into rank (n values). Returns the tie term
 * sum over tie groups of (t^3 - t), 0 when all values differ; -1 when out
 * of memory. */
double pf_stats_ranks(const double *x, size_t n, double *rank);

#endif
