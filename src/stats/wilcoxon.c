#include "stats/wilcoxon.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/describe.h"

/* Two-sided exact p of W+ = w for n untied ranks 1..n. */
static double exact_p(int n, double w)
{
    int top = n * (n + 1) / 2;
    double *c = calloc((size_t)top + 1, sizeof *c);
    if (!c) return NAN;
    c[0] = 1;
    for (int r = 1; r <= n; r++) /* subsets of {1..r}: add r to those of {1..r-1} */
        for (int s = top; s >= r; s--) c[s] += c[s - r];
    int wi = (int)lround(w);
    double lo = 0, hi = 0, all = ldexp(1.0, n);
    for (int s = 0; s <= top; s++) {
        if (s <= wi) lo += c[s];
        if (s >= wi) hi += c[s];
    }
    free(c);
    return fmin(1.0, 2 * fmin(lo, hi) / all);
}

pf_status pf_wilcoxon_test(const double *x, const double *y, int n, pf_wilcoxon *out)
{
    memset(out, 0, sizeof *out);
    out->z = NAN;
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d), *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a),
           *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    if (!d || !a || !r) {
        free(d), free(a), free(r);
        return pf_fail(PF_ERR_NOMEM, "wilcoxon: out of memory");
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            free(d), free(a), free(r);
            return pf_fail(PF_ERR_INVALID, "wilcoxon: pair %d is not a pair of numbers", i);
        }
        double di = x[i] - y[i];
        if (di == 0) {
            out->zeros++;
            continue;
        }
        d[m] = di;
        a[m++] = fabs(di);
    }
    out->n = m;
    double ties = m > 0 ? pf_stats_ranks(a, (size_t)m, r) : 0;
    for (int i = 0; i < m; i++)
        if (d[i] > 0) out->w_plus += r[i];
    free(d), free(a), free(r);
    double total = 0.5 * m * (m + 1.0);
    out->w_minus = total - out->w_plus;
    out->ties = ties > 0;
    if (m == 0) {
        out->p = 1;
        return PF_OK;
    }
    out->exact = m <= PF_WILCOXON_EXACT_MAX && !out->ties && out->zeros == 0;
    if (out->exact) {
        out->p = exact_p(m, out->w_plus);
        if (isnan(out->p)) return pf_fail(PF_ERR_NOMEM, "wilcoxon: out of memory");
        return PF_OK;
    }
    double mean = 0.5 * total, var = m * (m + 1.0) * (2.0 * m + 1) / 24 - ties / 48;
    double dev = fmax(0, fabs(out->w_plus - mean) - 0.5);
    out->z = var > 0 ? copysign(dev / sqrt(var), out->w_plus - mean) : 0;
    out->p = fmin(1.0, 2 * gsl_cdf_ugaussian_Q(fabs(out->z)));
    return PF_OK;
}
