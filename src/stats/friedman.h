/*
 * friedman.h — the Friedman test on per-task ranks (Friedman 1937).
 *
 * x holds n tasks (blocks, rows) by k methods (columns), row-major; lower is
 * better, so within each task the smallest value gets rank 1 and ties share
 * their average rank. With R_j the rank sum of method j,
 *
 *     chi2_F = 12 / (n k (k + 1)) * sum_j R_j^2 - 3 n (k + 1),
 *
 * divided by the tie correction 1 - sum (t^3 - t) / (n k (k^2 - 1)) over
 * all tie groups of all tasks (1 without ties; the same correction as R's
 * friedman.test and SciPy's friedmanchisquare), and p is the upper tail of
 * the chi-square distribution with k - 1 degrees of freedom (GSL). The
 * paper's Table 1 means give chi2_F = 42.696, p = 2.86e-9.
 */
#ifndef PF_STATS_FRIEDMAN_H
#define PF_STATS_FRIEDMAN_H

#include "core/status.h"

typedef struct pf_friedman {
    int n, k;          /* tasks, methods */
    double chi2, p;
    double tie_correction; /* the divisor above; 1 without ties */
    double *avg_rank;  /* k average ranks (malloc'ed; pf_friedman_release) */
} pf_friedman;

/* PF_ERR_INVALID when n < 2, k < 2 or a value is not finite. */
pf_status pf_friedman_test(const double *x, int n, int k, pf_friedman *out);
void pf_friedman_release(pf_friedman *f);

#endif
