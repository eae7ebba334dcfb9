#include "stats/describe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double pf_stats_mean(const double *x, size_t n)
{
    if (n == 0) return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s / (double)n;
}

double pf_stats_std(const double *x, size_t n)
{
    if (n == 0) return NAN;
    if (n == 1) return 0;
    double m = pf_stats_mean(x, n), s = 0;
    for (size_t i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

double pf_stats_cv(const double *x, size_t n) { return pf_stats_std(x, n) / pf_stats_mean(x, n); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double pf_stats_median(const double *x, size_t n)
{
    if (n == 0) return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

double pf_stats_geomean(const double *x, size_t n)
{
    if (n == 0) return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0)) return NAN;
        s += log(x[i]);
    }
    return exp(s / (double)n);
}

typedef struct keyed {
    double v;
    size_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->v != y->v) return (x->v > y->v) - (x->v < y->v);
    return (x->i > y->i) - (x->i < y->i);
}

double pf_stats_ranks(const double *x, size_t n, double *rank)
{
    keyed *k = malloc((n ? n : 1) * sizeof *k);
    if (!k) return -1;
    for (size_t i = 0; i < n; i++) k[i] = (keyed){x[i], i};
    qsort(k, n, sizeof *k, cmp_keyed);
    double ties = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && k[b + 1].v == k[a].v) b++;
        double r = 0.5 * (double)(a + b) + 1, t = (double)(b - a + 1);
        for (size_t j = a; j <= b; j++) rank[k[j].i] = r;
        ties += t * t * t - t;
        a = b + 1;
    }
    free(k);
    return ties;
}
