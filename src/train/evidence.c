/* evidence.c — residual statistics, hotspot boxes and loss stagnation
 * (evidence.h). */
#include "train/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

/* ------------------------------------------------------------ stats */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy's _lerp: a + t (b - a), from the other end when t >= 0.5 so that
 * t = 1 gives b exactly. */
static double lerp(double a, double b, double t)
{
    double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

pf_stats pf_abs_stats(const double *v, int n, double *work)
{
    PF_ASSERT(n >= 1 && v && work);
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return (pf_stats){NAN, NAN, NAN};
        work[i] = fabs(v[i]);
        sum += work[i];
    }
    qsort(work, (size_t)n, sizeof *work, cmp_double);
    double h = 0.95 * (double)(n - 1);
    int j = (int)floor(h);
    if (j > n - 1) j = n - 1;
    double p95 = j + 1 < n ? lerp(work[j], work[j + 1], h - j) : work[j];
    return (pf_stats){sum / n, p95, work[n - 1]};
}

/* ------------------------------------------------------------ hotspots */

/* Largest b >= 2 with b^d <= cells_max (2 when even 2^d exceeds it). */
static int cells_per_axis(int cells_max, int d)
{
    int b = (int)floor(pow((double)cells_max, 1.0 / d));
    if (b < 1) b = 1;
    for (;;) { /* pow may be one off either way: settle it in integers */
        double p = 1.0;
        for (int k = 0; k < d; k++) p *= (double)(b + 1);
        if (p > (double)cells_max) break;
        b++;
    }
    for (;;) {
        double p = 1.0;
        for (int k = 0; k < d; k++) p *= (double)b;
        if (p <= (double)cells_max || b <= 1) break;
        b--;
    }
    return b < 2 ? 2 : b;
}

typedef struct {
    double mean;
    long cell;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->mean != y->mean) return x->mean > y->mean ? -1 : 1;
    return (x->cell > y->cell) - (x->cell < y->cell);
}

int pf_hotspots(const pf_real *x, const double *r, int n, int d, const double *lo,
                const double *hi, int cells_max, int max_out, pf_hotspot *out)
{
    PF_ASSERT(d >= 1 && d <= PF_HOTSPOT_MAX_DIM);
    PF_ASSERT(n >= 0 && cells_max >= 1 && max_out >= 0);
    PF_ASSERT(n == 0 || (x && r));
    PF_ASSERT(lo && hi && (max_out == 0 || out));
    if (n == 0 || max_out == 0) return 0;
    int b = cells_per_axis(cells_max, d);
    long ncells = 1;
    for (int k = 0; k < d; k++) ncells *= b;

    double *sum = calloc((size_t)ncells, sizeof *sum);
    int *count = calloc((size_t)ncells, sizeof *count);
    if (!sum || !count) {
        free(sum);
        free(count);
        return -1;
    }
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(r[i])) continue;
        const pf_real *xi = x + (size_t)i * (size_t)d;
        long c = 0;
        int ok = 1;
        for (int k = 0; k < d; k++) {
            double xk = (double)xi[k];
            if (!isfinite(xk)) {
                ok = 0;
                break;
            }
            long j = 0;
            if (hi[k] > lo[k]) {
                double t = floor((xk - lo[k]) / (hi[k] - lo[k]) * b);
                j = t < 0 ? 0 : t >= b ? b - 1 : (long)t;
            }
            c = c * b + j;
        }
        if (!ok) continue;
        double a = fabs(r[i]);
        sum[c] += a;
        count[c]++;
        total += a;
    }

    long nfull = 0;
    for (long c = 0; c < ncells; c++) nfull += count[c] > 0;
    ranked *rk = malloc((size_t)(nfull ? nfull : 1) * sizeof *rk);
    if (!rk) {
        free(sum);
        free(count);
        return -1;
    }
    long m = 0;
    for (long c = 0; c < ncells; c++)
        if (count[c] > 0) rk[m++] = (ranked){sum[c] / count[c], c};
    qsort(rk, (size_t)m, sizeof *rk, cmp_ranked);

    int k = m < max_out ? (int)m : max_out;
    for (int i = 0; i < k; i++) {
        pf_hotspot *h = &out[i];
        memset(h, 0, sizeof *h);
        long c = rk[i].cell;
        for (int ax = d - 1; ax >= 0; ax--) {
            long j = c % b;
            c /= b;
            double w = (hi[ax] - lo[ax]) / b;
            h->lo[ax] = lo[ax] + (double)j * w;
            h->hi[ax] = j == b - 1 ? hi[ax] : lo[ax] + (double)(j + 1) * w;
        }
        h->mean_abs = rk[i].mean;
        h->share = total > 0 ? sum[rk[i].cell] / total : 0.0;
        h->npoints = count[rk[i].cell];
    }
    free(rk);
    free(sum);
    free(count);
    return k;
}

/* ------------------------------------------------------------ stagnation */

long pf_stagnation_steps(const long *s, const double *f, int n, double tol)
{
    if (n <= 0) return 0;
    PF_ASSERT(s && f);
    double best = 0.0;
    long last = s[0];
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(f[i])) continue;
        if (!seen || f[i] < best - tol * fabs(best)) {
            best = f[i];
            last = s[i];
            seen = 1;
        }
    }
    return s[n - 1] - last;
}
