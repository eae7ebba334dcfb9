/*
 * wilcoxon.h — the paired Wilcoxon signed-rank test, two-sided.
 *
 * d_i = x_i - y_i. Zero differences are dropped (Wilcoxon's convention) and
 * counted; the n remaining |d_i| are ranked with average ranks for ties;
 * W+ is the rank sum of the positive d_i and W- = n(n+1)/2 - W+.
 *
 *   exact   when n <= 50 and there are no ties and no zeros: the null
 *           distribution of W+ counts the subsets of {1..n} with each sum
 *           (exact in doubles: at most 2^50 subsets), and
 *           p = min(1, 2 min(P(W+ <= w), P(W+ >= w)));
 *   normal  otherwise: mean n(n+1)/4, variance n(n+1)(2n+1)/24 minus
 *           sum (t^3 - t)/48 over tie groups, continuity correction 0.5:
 *           z = max(0, |W+ - mean| - 0.5) / sd, p = 2 Q(z) (GSL).
 * With no nonzero difference at all p = 1.
 *
 * The paper applies it to log10 per-task mean MSE across tasks (x = a
 * baseline, y = PINNForge); W- small means x is mostly the larger.
 */
#ifndef PF_STATS_WILCOXON_H
#define PF_STATS_WILCOXON_H

#include <stdbool.h>

#include "core/status.h"

typedef struct pf_wilcoxon {
    int n;            /* nonzero differences used */
    int zeros;        /* zero differences dropped */
    bool exact;       /* exact distribution, else the normal approximation */
    bool ties;        /* some |d| shared a rank */
    double w_plus, w_minus;
    double z;         /* normal approximation only; NaN when exact */
    double p;         /* two-sided */
} pf_wilcoxon;

#define PF_WILCOXON_EXACT_MAX 50

/* PF_ERR_INVALID when a value is not finite. */
pf_status pf_wilcoxon_test(const double *x, const double *y, int n, pf_wilcoxon *out);

#endif
