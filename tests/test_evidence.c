/*
 * test_evidence.c — residual statistics, hotspot boxes and loss stagnation
 * (src/train/evidence.h). Expected values are computed by hand (numpy's
 * 'linear' percentile rule written out in the comments); the residual
 * fields use values that are exact in binary (10, 0.5, ...) so that ties
 * are exact ties whatever the summation order.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/real.h"
#include "train/evidence.h"

#define assert_near(actual, expected, tol, ...)                                   \
    cr_assert(fabs((double)(actual) - (double)(expected)) <= (tol), __VA_ARGS__)

/* ------------------------------------------------------------------ stats --- */

/* |v| = 1..20 (signs alternating): mean 10.5, max 20; h = 0.95 * 19 = 18.05,
 * p95 = a[18] + 0.05 (a[19] - a[18]) = 19 + 0.05 = 19.05
 * (numpy.percentile(np.arange(1, 21), 95) == 19.05). */
Test(evidence, abs_stats_one_to_twenty)
{
    double v[20], work[20];
    for (int i = 0; i < 20; i++) v[i] = (i % 2 ? -1.0 : 1.0) * (20 - i);
    pf_stats s = pf_abs_stats(v, 20, work);
    assert_near(s.mean, 10.5, 1e-12, "mean %g", s.mean);
    assert_near(s.p95, 19.05, 1e-12, "p95 %.17g", s.p95);
    cr_assert_eq(s.max, 20.0);
}

/* numpy.percentile([0.5, 7, 2], 95): sorted 0.5, 2, 7; h = 0.95 * 2 = 1.9;
 * 2 + 0.9 * (7 - 2) = 6.5. [1, 2, 3, 4]: h = 2.85, 3 + 0.85 = 3.85. */
Test(evidence, abs_stats_small_sets)
{
    double work[4];
    double a[] = {0.5, -7.0, 2.0};
    pf_stats s = pf_abs_stats(a, 3, work);
    assert_near(s.mean, 9.5 / 3, 1e-15, "mean %g", s.mean);
    assert_near(s.p95, 6.5, 1e-12, "p95 %.17g", s.p95);
    cr_assert_eq(s.max, 7.0);

    double b[] = {4.0, -1.0, 3.0, 2.0};
    s = pf_abs_stats(b, 4, work);
    assert_near(s.p95, 3.85, 1e-12, "p95 %.17g", s.p95);
    cr_assert_eq(s.mean, 2.5);

    double c[] = {-3.0};
    s = pf_abs_stats(c, 1, work);
    cr_assert(s.mean == 3.0 && s.p95 == 3.0 && s.max == 3.0);
}

Test(evidence, abs_stats_nonfinite_gives_nan)
{
    double work[3];
    double bad[][3] = {{1.0, NAN, 2.0}, {INFINITY, 1.0, 2.0}, {1.0, 2.0, -INFINITY}};
    for (int k = 0; k < 3; k++) {
        pf_stats s = pf_abs_stats(bad[k], 3, work);
        cr_assert(isnan(s.mean) && isnan(s.p95) && isnan(s.max), "case %d", k);
    }
}

/* --------------------------------------------------------------- hotspots --- */

/* The box [0, 1] x [-1, 1], cells_max 256 -> b = 16 (256 cells, each 1/16
 * by 1/8), 64 x 64 points at the centres of a 64 x 64 grid, so 16 points per
 * cell. |r| = 10 where x > 0.9 and y > 0.8, else 0.5. Only the corner cell
 * (15, 15) lies wholly inside that region: mean 10. The two neighbours
 * (14, 15) and (15, 14) hold 8 points of each value, mean 5.25 — an exact
 * tie, broken by the lower cell index: (14, 15) = 14 * 16 + 15 before
 * (15, 14). */
Test(evidence, hotspots_2d_corner)
{
    enum { G = 64, N = G * G };
    pf_real *x = malloc(sizeof *x * N * 2);
    double *r = malloc(sizeof *r * N);
    double total = 0;
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            int p = i * G + j;
            x[2 * p] = (pf_real)((i + 0.5) / G);
            x[2 * p + 1] = (pf_real)(-1.0 + 2.0 * (j + 0.5) / G);
            r[p] = (x[2 * p] > 0.9 && x[2 * p + 1] > 0.8) ? (p % 2 ? -10.0 : 10.0) : 0.5;
            total += fabs(r[p]);
        }
    const double lo[2] = {0, -1}, hi[2] = {1, 1};
    pf_hotspot h[5];
    int k = pf_hotspots(x, r, N, 2, lo, hi, 256, 5, h);
    cr_assert_eq(k, 5);

    /* the top box is the corner cell and contains the corner (1, 1) */
    cr_assert_eq(h[0].hi[0], 1.0);
    cr_assert_eq(h[0].hi[1], 1.0);
    assert_near(h[0].lo[0], 15.0 / 16, 1e-15, "lo0 %g", h[0].lo[0]);
    assert_near(h[0].lo[1], 0.875, 1e-15, "lo1 %g", h[0].lo[1]);
    cr_assert_eq(h[0].npoints, 16);
    cr_assert_eq(h[0].mean_abs, 10.0);
    assert_near(h[0].share, 160.0 / total, 1e-15, "share %g", h[0].share);

    /* the tie: (14, 15) then (15, 14) */
    cr_assert_eq(h[1].mean_abs, 5.25);
    cr_assert_eq(h[2].mean_abs, 5.25);
    assert_near(h[1].lo[0], 14.0 / 16, 1e-15, "second x %g", h[1].lo[0]);
    assert_near(h[1].lo[1], 0.875, 1e-15, "second y %g", h[1].lo[1]);
    assert_near(h[2].lo[0], 15.0 / 16, 1e-15, "third x %g", h[2].lo[0]);
    assert_near(h[2].lo[1], 0.75, 1e-15, "third y %g", h[2].lo[1]);

    double shares = 0;
    for (int i = 0; i < k; i++) {
        cr_assert_eq(h[i].npoints, 16, "every cell holds 16 points");
        if (i) cr_assert_leq(h[i].mean_abs, h[i - 1].mean_abs, "sorted");
        shares += h[i].share;
        cr_assert_eq(h[i].lo[2], 0.0, "unused axes are zero");
    }
    cr_assert_leq(shares, 1.0 + 1e-12);

    /* all cells: 256 of them, shares summing to 1 */
    pf_hotspot *all = malloc(sizeof *all * 300);
    k = pf_hotspots(x, r, N, 2, lo, hi, 256, 300, all);
    cr_assert_eq(k, 256);
    shares = 0;
    for (int i = 0; i < k; i++) shares += all[i].share;
    assert_near(shares, 1.0, 1e-12, "shares %.17g", shares);
    free(all);
    free(x);
    free(r);
}

static void assert_same_hotspot(const pf_hotspot *a, const pf_hotspot *b, int i)
{
    for (int k = 0; k < PF_HOTSPOT_MAX_DIM; k++)
        cr_assert(a->lo[k] == b->lo[k] && a->hi[k] == b->hi[k], "rank %d, axis %d", i, k);
    cr_assert(a->mean_abs == b->mean_abs && a->share == b->share && a->npoints == b->npoints,
              "rank %d", i);
}

/* Ties in 1-D: [0, 4] with cells_max 4 -> b = 4 unit cells. Cells 1 and 3
 * have mean 2, cells 0 and 2 mean 1; any order of the points gives
 * 1, 3, 0, 2. Points outside the box go to the border cells; NaN residuals
 * and coordinates are skipped. */
Test(evidence, hotspots_ties_are_deterministic)
{
    pf_real x[] = {3.5, 0.5, 1.5, 2.5, -7.0, 9.0, 1.0};
    double r[] = {2.0, 1.0, -2.0, 1.0, 1.0, 2.0, NAN};
    /* cells 3, 0, 1, 2, 0 (clamped), 3 (clamped), skipped: sums c0 = 2 over 2
     * points, c1 = 2 over 1, c2 = 1 over 1, c3 = 4 over 2; total 9 */
    const double lo[1] = {0}, hi[1] = {4};
    int n = 7;
    pf_hotspot a[4], b[4];
    int ka = pf_hotspots(x, r, n, 1, lo, hi, 4, 4, a);
    cr_assert_eq(ka, 4);
    int want[4] = {1, 3, 0, 2};
    double want_mean[4] = {2, 2, 1, 1};
    int want_pts[4] = {1, 2, 2, 1};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(a[i].lo[0], (double)want[i], "rank %d: lo %g", i, a[i].lo[0]);
        cr_assert_eq(a[i].hi[0], (double)want[i] + 1, "rank %d: hi %g", i, a[i].hi[0]);
        cr_assert_eq(a[i].mean_abs, want_mean[i], "rank %d", i);
        cr_assert_eq(a[i].npoints, want_pts[i], "rank %d", i);
        assert_near(a[i].share, want_mean[i] * want_pts[i] / 9.0, 1e-15, "rank %d", i);
    }
    /* reversed point order: the same answer */
    pf_real xr[7];
    double rr[7];
    for (int i = 0; i < n; i++) {
        xr[i] = x[n - 1 - i];
        rr[i] = r[n - 1 - i];
    }
    cr_assert_eq(pf_hotspots(xr, rr, n, 1, lo, hi, 4, 4, b), 4);
    for (int i = 0; i < 4; i++) assert_same_hotspot(&a[i], &b[i], i);
    /* max_out smaller than the cells: the first ones */
    cr_assert_eq(pf_hotspots(x, r, n, 1, lo, hi, 4, 2, b), 2);
    for (int i = 0; i < 2; i++) assert_same_hotspot(&a[i], &b[i], i);
}

/* 1-D with cells_max 256: b = 256 cells of width 1/256 on [0, 1]; and
 * cells_max below 2^d still gives b = 2. */
Test(evidence, hotspots_1d)
{
    enum { N = 1000 };
    pf_real x[N];
    double r[N];
    for (int i = 0; i < N; i++) {
        x[i] = (pf_real)((i + 0.5) / N);
        r[i] = fabs((double)x[i] - 0.3) < 0.001 ? 100.0 : 1.0;
    }
    const double lo[1] = {0}, hi[1] = {1};
    pf_hotspot h[1];
    cr_assert_eq(pf_hotspots(x, r, N, 1, lo, hi, 256, 1, h), 1);
    cr_assert(h[0].lo[0] <= 0.3 && 0.3 <= h[0].hi[0], "[%g, %g]", h[0].lo[0], h[0].hi[0]);
    assert_near(h[0].hi[0] - h[0].lo[0], 1.0 / 256, 1e-15, "width %g", h[0].hi[0] - h[0].lo[0]);

    pf_hotspot two[4];
    cr_assert_eq(pf_hotspots(x, r, N, 1, lo, hi, 1, 4, two), 2, "b = max(2, ...)");
    cr_assert_eq(two[0].lo[0], 0.0);
    cr_assert_eq(two[0].hi[0], 0.5);
    cr_assert_eq(two[1].lo[0], 0.5);
    cr_assert_eq(two[1].hi[0], 1.0);
    cr_assert_eq(two[0].npoints + two[1].npoints, N);

    cr_assert_eq(pf_hotspots(x, r, 0, 1, lo, hi, 256, 1, h), 0, "no points, no hotspot");
}

/* 5-D on [0, 3]^5 with cells_max 256: b = 3 (3^5 = 243 <= 256 < 4^5), so
 * unit cells; 6-D: b = 2 (2^6 = 64 <= 256 < 3^6 = 729). */
Test(evidence, hotspots_5d_and_6d)
{
    enum { N = 500 };
    pf_real x[N * 6];
    double r[N];
    unsigned s = 12345;
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 6; k++) {
            s = s * 1103515245u + 12345u;
            x[i * 6 + k] = (pf_real)(3.0 * ((s >> 8) & 0xffff) / 65536.0);
        }
        r[i] = 1.0;
    }
    /* one strong point in the 5-D cell [2,3] x [0,1] x [1,2] x [2,3] x [0,1] */
    pf_real hot[6] = {2.5, 0.5, 1.5, 2.9f, 0.1f, 2.2f};
    double want_lo[5] = {2, 0, 1, 2, 0};
    for (int k = 0; k < 6; k++) x[k] = hot[k];
    r[0] = 1000.0;
    double lo[6] = {0, 0, 0, 0, 0, 0}, hi[6] = {3, 3, 3, 3, 3, 3};

    /* 5-D: rows of 5 inputs */
    pf_real x5[N * 5];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 5; k++) x5[i * 5 + k] = x[i * 6 + k];
    pf_hotspot h[300];
    int k5 = pf_hotspots(x5, r, N, 5, lo, hi, 256, 300, h);
    cr_assert_leq(k5, 243);
    cr_assert_gt(k5, 100, "500 points over 243 cells fill most of them (%d)", k5);
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(h[0].lo[k], want_lo[k], "axis %d: lo %g", k, h[0].lo[k]);
        cr_assert_eq(h[0].hi[k], want_lo[k] + 1, "axis %d: hi %g", k, h[0].hi[k]);
    }
    int pts = 0;
    for (int i = 0; i < k5; i++) {
        pts += h[i].npoints;
        for (int k = 0; k < 5; k++) cr_assert_eq(h[i].hi[k] - h[i].lo[k], 1.0, "b = 3");
    }
    cr_assert_eq(pts, N);

    int k6 = pf_hotspots(x, r, N, 6, lo, hi, 256, 300, h);
    cr_assert_leq(k6, 64);
    for (int k = 0; k < 6; k++) cr_assert_eq(h[0].hi[k] - h[0].lo[k], 1.5, "b = 2");
    cr_assert_eq(h[0].lo[0], 1.5);
    cr_assert_eq(h[0].lo[1], 0.0);
}

/* ------------------------------------------------------------ stagnation --- */

Test(evidence, stagnation_on_a_crafted_curve)
{
    long s[] = {0, 100, 200, 300, 400, 500, 600, 700};
    /* 0.3 at step 200 is the last improvement by >= 1%: 0.299, 0.298 and
     * 0.2971 are all above 0.3 - 0.003 = 0.297; the NaN is ignored */
    double f[] = {1.0, 0.5, 0.3, 0.299, 0.298, NAN, 0.2971, 0.29};
    cr_assert_eq(pf_stagnation_steps(s, f, 7, 0.01), 400);
    /* 0.29 < 0.297: the last record improves */
    cr_assert_eq(pf_stagnation_steps(s, f, 8, 0.01), 0);
    /* with tol 0 every strict decrease counts: 0.2971 at 600 */
    cr_assert_eq(pf_stagnation_steps(s, f, 7, 0.0), 0);
    /* a rise after the minimum */
    double g[] = {1.0, 0.5, 0.7, 0.9};
    cr_assert_eq(pf_stagnation_steps(s, g, 4, 0.01), 200);
}

/* 0.5% per record: best moves every third record (0.995^3 < 0.99), so a
 * slow steady decrease is not stagnation. */
Test(evidence, stagnation_slow_decrease)
{
    long s[11];
    double f[11];
    for (int i = 0; i < 11; i++) {
        s[i] = 10L * i;
        f[i] = pow(0.995, i);
    }
    cr_assert_eq(pf_stagnation_steps(s, f, 10, 0.01), 0);  /* improvements at 0, 3, 6, 9 */
    cr_assert_eq(pf_stagnation_steps(s, f, 11, 0.01), 10); /* ... then 10 is not one */
}

Test(evidence, stagnation_edge_cases)
{
    long s[] = {5, 10, 20};
    double nan3[] = {NAN, NAN, INFINITY};
    cr_assert_eq(pf_stagnation_steps(s, nan3, 3, 0.01), 15, "no finite value");
    double late[] = {NAN, 2.0, 1.995};
    cr_assert_eq(pf_stagnation_steps(s, late, 3, 0.01), 10, "first finite value at step 10");
    double one[] = {1.0};
    cr_assert_eq(pf_stagnation_steps(s, one, 1, 0.01), 0);
    cr_assert_eq(pf_stagnation_steps(s, one, 0, 0.01), 0);
}
