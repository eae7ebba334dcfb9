/* bootstrap.c — a percentile bootstrap interval for a median (bootstrap.h). */
#include "stats/bootstrap.h"

#include <gsl/gsl_sort_double.h>
#include <math.h>
#include <stdlib.h>

#include "core/rng.h"
#include "stats/describe.h"

double pf_stats_quantile_sorted(const double *x, size_t n, double p)
{
    if (n == 0) return NAN;
    double h = (double)(n - 1) * p;
    size_t k = (size_t)floor(h);
    if (k + 1 >= n) return x[n - 1];
    return x[k] + (h - (double)k) * (x[k + 1] - x[k]);
}

pf_status pf_stats_bootstrap_median(const double *x, size_t n, int resamples, double level, uint64_t seed,
                                    double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (n == 0 || resamples < 1 || !(level > 0 && level < 1))
        return pf_fail(PF_ERR_INVALID, "a bootstrap interval needs values, resamples >= 1 and a level in (0, 1) "
                                       "(got %zu values, %d resamples, level %g)",
                       n, resamples, level);
    double *draw = malloc(n * sizeof *draw), *median = malloc((size_t)resamples * sizeof *median);
    pf_rng *r = pf_rng_alloc(seed);
    pf_status st = PF_OK;
    if (!draw || !median || !r) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory for %d bootstrap resamples", resamples);
    } else {
        for (int b = 0; b < resamples; b++) {
            for (size_t i = 0; i < n; i++) draw[i] = x[pf_rng_int(r, n)];
            median[b] = pf_stats_median(draw, n);
        }
        gsl_sort(median, 1, (size_t)resamples);
        *lo = pf_stats_quantile_sorted(median, (size_t)resamples, (1 - level) / 2);
        *hi = pf_stats_quantile_sorted(median, (size_t)resamples, (1 + level) / 2);
    }
    pf_rng_free(r);
    free(draw);
    free(median);
    return st;
}
