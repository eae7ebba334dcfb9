/*
 * bootstrap.h — a percentile bootstrap interval for the median of a few
 * values (one per run): how far the median of those runs can be trusted.
 *
 *     double lo, hi;
 *     PF_TRY(pf_stats_bootstrap_median(ratio, n, PF_BOOTSTRAP_RESAMPLES, 0.95, PF_BOOTSTRAP_SEED, &lo, &hi));
 *
 * Resample i draws n values from x with replacement (a pf_rng seeded with
 * seed: core/rng.h, GSL's MT19937), and takes their median; the interval is
 * the (1 - level) / 2 and (1 + level) / 2 quantiles of the resamples'
 * medians (pf_stats_quantile_sorted). The same values, resamples and seed
 * give the same interval. A median of resamples takes only the values of x
 * (or means of two of them), so with few values the interval is coarse:
 * callers print none below a minimum number of values.
 */
#ifndef PF_STATS_BOOTSTRAP_H
#define PF_STATS_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#define PF_BOOTSTRAP_RESAMPLES 2000 /* resamples of a printed interval */
#define PF_BOOTSTRAP_SEED 20260035u  /* its seed: tables are reproducible */

/* The p-quantile (0 <= p <= 1) of the n sorted values x, linear between
 * closest ranks (R's type 7): with h = (n - 1) p, x[floor h] + (h - floor
 * h) (x[floor h + 1] - x[floor h]). NaN for n = 0. */
double pf_stats_quantile_sorted(const double *x, size_t n, double p);

/* The percentile bootstrap interval [*lo, *hi] at `level` (0 < level < 1)
 * for the median of x[0..n). PF_ERR_INVALID for n = 0, resamples < 1 or
 * a level outside (0, 1); PF_ERR_NOMEM. */
pf_status pf_stats_bootstrap_median(const double *x, size_t n, int resamples, double level, uint64_t seed,
                                    double *lo, double *hi);

#endif
