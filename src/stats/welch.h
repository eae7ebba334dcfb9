/*
 * welch.h — Welch's two-sample t-test (unequal variances), two-sided.
 *
 * For samples x (nx values) and y (ny), with means mx, my and sample
 * variances sx^2, sy^2 (divisor n - 1):
 *
 *     t  = (mx - my) / sqrt(sx^2/nx + sy^2/ny),
 *     df = (sx^2/nx + sy^2/ny)^2 / ((sx^2/nx)^2/(nx-1) + (sy^2/ny)^2/(ny-1))
 *
 * (Welch–Satterthwaite), p = 2 Q_t(|t|; df) (GSL's t distribution). When
 * both samples are constant: p = 1 if the means are equal, else p = 0 with
 * t = ±inf and df = nx + ny - 2 (two different constants differ surely).
 * The tables apply it to log10 of the runs' MSEs (report.h: the wins, ties
 * and losses per backbone).
 */
#ifndef PF_STATS_WELCH_H
#define PF_STATS_WELCH_H

#include "core/status.h"

typedef struct pf_welch {
    double t, df, p;
    double mean_x, mean_y;
} pf_welch;

/* PF_ERR_INVALID when nx < 2, ny < 2 or a value is not finite. */
pf_status pf_welch_test(const double *x, int nx, const double *y, int ny, pf_welch *out);

#endif
