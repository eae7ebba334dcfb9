#include "stats/friedman.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/describe.h"

pf_status pf_friedman_test(const double *x, int n, int k, pf_friedman *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2 || k < 2)
        return pf_fail(PF_ERR_INVALID, "the Friedman test needs at least 2 tasks and 2 methods, not %d and %d", n, k);
    for (long i = 0; i < (long)n * k; i++)
        if (!isfinite(x[i])) return pf_fail(PF_ERR_INVALID, "friedman: task %ld, method %ld is not a number", i / k, i % k);
    double *sum = calloc((size_t)k, sizeof *sum), *r = malloc((size_t)k * sizeof *r);
    if (!sum || !r) {
        free(sum);
        free(r);
        return pf_fail(PF_ERR_NOMEM, "friedman: out of memory");
    }
    double ties = 0;
    for (int i = 0; i < n; i++) {
        ties += pf_stats_ranks(x + (size_t)i * k, (size_t)k, r);
        for (int j = 0; j < k; j++) sum[j] += r[j];
    }
    free(r);
    double s2 = 0;
    for (int j = 0; j < k; j++) s2 += sum[j] * sum[j];
    double chi2 = 12.0 / ((double)n * k * (k + 1)) * s2 - 3.0 * n * (k + 1);
    out->tie_correction = 1 - ties / ((double)n * k * ((double)k * k - 1));
    out->n = n;
    out->k = k;
    /* every task all tied: no information (0 / 0) */
    out->chi2 = out->tie_correction > 0 ? chi2 / out->tie_correction : 0;
    out->p = gsl_cdf_chisq_Q(out->chi2, k - 1);
    for (int j = 0; j < k; j++) sum[j] /= n;
    out->avg_rank = sum;
    return PF_OK;
}

void pf_friedman_release(pf_friedman *f)
{
    free(f->avg_rank);
    f->avg_rank = NULL;
}
