/*
 * evidence.h — the numbers behind a training run's execution evidence.
 *
 * After (and during) training the trainer reports what happened in a form a
 * proposer can act on: how large the residuals are (mean, 95th percentile,
 * max of |r|), WHERE in the input space they concentrate (hotspot boxes),
 * and how long the loss has stopped improving (stagnation). These helpers
 * are pure functions of arrays: no graph, no I/O, deterministic (no
 * threads, no RNG), and statistics are double in every build.
 *
 *     double r[N], work[N];
 *     pf_stats s = pf_abs_stats(r, N, work);       // s.mean, s.p95, s.max
 *
 *     pf_hotspot hs[3];
 *     int k = pf_hotspots(x, r, N, p->nin, p->lo, p->hi, 256, 3, hs);
 *     for (int i = 0; i < k; i++)                  // worst box first
 *         printf("x in [%g, %g]: mean |r| %g, %.0f%% of sum |r|\n",
 *                hs[i].lo[0], hs[i].hi[0], hs[i].mean_abs, 100 * hs[i].share);
 *
 *     long stuck = pf_stagnation_steps(steps, loss, nrec, 0.01);
 *
 * ------------------------------------------------------------- stats
 *
 * Over a_i = |v_i|: mean, max, and the 95th percentile with numpy's default
 * ('linear') method: sort a ascending, h = 0.95 (n - 1), p95 = a[floor h] +
 * (h - floor h) (a[floor h + 1] - a[floor h]) (so |v| = 1..20 gives 19.05,
 * and n = 1 gives the one value).
 *
 * ------------------------------------------------------------- hotspots
 *
 * The box [lo, hi] of d <= PF_HOTSPOT_MAX_DIM inputs is cut into b cells per
 * axis, b = max(2, floor(cells_max^(1/d))) computed exactly in integers
 * (largest b with b^d <= cells_max; cells_max 256 gives b = 256, 16, 6, 4,
 * 3, 2, 2, 2 for d = 1..8). Along axis k, point x lies in cell
 * j_k = floor((x_k - lo_k) / (hi_k - lo_k) * b), clamped to 0..b-1 (points
 * outside the box go to the border cells; an axis with hi_k <= lo_k has all
 * points in cell 0). The cell index is row-major over the inputs, the last
 * input fastest: c = (..(j_0 b + j_1) b + ..) b + j_{d-1}. Cell c spans
 * lo_k + j_k (hi_k - lo_k) / b .. lo_k + (j_k + 1) (hi_k - lo_k) / b along
 * axis k (the upper bound of the last cell is hi_k exactly).
 *
 * Points whose residual or any coordinate is not finite are skipped (they
 * count nowhere, including the share's denominator). share is sum |r| in the
 * cell over sum |r| of all counted points (0 when that sum is 0), so the
 * shares of the returned cells sum to at most 1.
 */
#ifndef PF_TRAIN_EVIDENCE_H
#define PF_TRAIN_EVIDENCE_H

#include "core/real.h"

/* Most inputs a hotspot box can describe. */
#define PF_HOTSPOT_MAX_DIM 8

typedef struct pf_stats {
    double mean, p95, max;
} pf_stats;

/* Statistics of |v[i]| over n values (n >= 1): mean, 95th percentile (linear
 * interpolation between order statistics, numpy's default 'linear' method),
 * max. Any non-finite value makes every field NaN. `work` holds n doubles
 * (scratch; may not alias v). */
pf_stats pf_abs_stats(const double *v, int n, double *work);

typedef struct pf_hotspot {
    double lo[PF_HOTSPOT_MAX_DIM], hi[PF_HOTSPOT_MAX_DIM]; /* the cell's box; 0 past d */
    double mean_abs; /* mean |r| over the points in the cell */
    double share;    /* sum |r| in the cell / sum |r| over all counted points */
    int npoints;     /* points in the cell (>= 1) */
} pf_hotspot;

/* Residual hotspots as input-space boxes (see above): x holds n points of d
 * inputs (n x d row-major), r their residuals; the grid has b cells per
 * axis with b = max(2, floor(cells_max^(1/d))). Writes to out[0..k) the
 * k <= max_out cells with the largest mean |r| among cells holding at least
 * one point, sorted by mean |r| descending, ties broken by the lower cell
 * index, and returns k (0 when no point counts). Returns -1 only if the
 * per-cell scratch (b^d doubles and ints) cannot be allocated.
 * Requires 1 <= d <= PF_HOTSPOT_MAX_DIM, n >= 0, cells_max >= 1,
 * max_out >= 0. */
int pf_hotspots(const pf_real *x, const double *r, int n, int d, const double *lo,
                const double *hi, int cells_max, int max_out, pf_hotspot *out);

/* Stagnation length of a loss curve: values f[0..n) recorded at steps
 * s[0..n) (increasing). The first finite value sets the reference `best`;
 * a later finite f improves when f < best - tol |best| (relative tol, e.g.
 * 0.01) and becomes the new best (smaller decreases do not move best, as in
 * Keras' EarlyStopping min_delta and torch's ReduceLROnPlateau 'rel'
 * threshold, so a slow steady decrease still registers). Returns s[n-1]
 * minus the step of the last improvement (the first finite record counts as
 * one): 0 when the last record is an improvement. Non-finite values are
 * ignored; with no finite value at all, s[n-1] - s[0]; 0 for n <= 0. */
long pf_stagnation_steps(const long *s, const double *f, int n, double tol);

#endif
