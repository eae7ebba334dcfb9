/* memory_tree.c — PINNsAgent's importance scores and UCT bonus (memory_tree.h). */
#include "pinnsagent/memory_tree.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The categorical score of parameter p over the n rows with y[i] = log10 mse. */
static pf_status categorical(const pf_pa_db *db, const int *rows, const double *y, int n, pf_pa_param p,
                             double *score)
{
    *score = 0;
    int nv = pf_pa_value_count(p);
    double sum[16] = {0}, hits[16] = {0}, rate[16];
    int cnt[16] = {0};
    PF_ASSERT(nv <= 16);
    double *sorted = malloc((size_t)n * sizeof *sorted + 1);
    if (!sorted) return pf_fail(PF_ERR_NOMEM, "out of memory scoring hyperparameters");
    memcpy(sorted, y, (size_t)n * sizeof *y);
    gsl_sort(sorted, 1, (size_t)n);
    double threshold = n ? gsl_stats_quantile_from_sorted_data(sorted, 1, (size_t)n, PF_MEMTREE_SUCCESS_QUANTILE) : 0;
    free(sorted);
    for (int i = 0; i < n; i++) {
        int v = (int)pf_pa_db_row(db, rows[i])->value[p];
        sum[v] += y[i];
        cnt[v]++;
        hits[v] += y[i] < threshold;
    }
    double lo = INFINITY, hi = -INFINITY;
    int groups = 0;
    for (int v = 0; v < nv; v++) {
        if (!cnt[v]) continue;
        double mean = sum[v] / cnt[v];
        lo = fmin(lo, mean);
        hi = fmax(hi, mean);
        rate[groups++] = hits[v] / cnt[v];
    }
    if (groups <= 1) return PF_OK;
    double sd = gsl_stats_sd_with_fixed_mean(rate, 1, (size_t)groups, gsl_stats_mean(rate, 1, (size_t)groups));
    *score = (hi - lo) * fmin(1 + sd, 2);
    return PF_OK;
}

typedef struct pair {
    double x, y;
    int order;   /* file order: the stable tie-break */
} pair;

static int by_x(const void *a, const void *b)
{
    const pair *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    return (p->order > q->order) - (p->order < q->order);
}

/* The continuous score of parameter p; xy holds room for n pairs, work 2n doubles. */
static double continuous(const pf_pa_db *db, const int *rows, const double *y, int n, pf_pa_param p, pair *xy,
                         double *work)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        double x = pf_pa_db_row(db, rows[i])->value[p];
        if (!isnan(x)) xy[m++] = (pair){x, y[i], i};
    }
    if (m < PF_MEMTREE_MIN_SAMPLES) return 0;
    qsort(xy, (size_t)m, sizeof *xy, by_x);
    int nlow = m / 3, nhigh = (m + 2) / 3;
    double low = 0, high = 0;
    for (int i = 0; i < nlow; i++) low += xy[i].y;
    for (int i = m - nhigh; i < m; i++) high += xy[i].y;
    double *xs = work, *ys = work + m, *gsl_work = work + 2 * m;
    for (int i = 0; i < m; i++) xs[i] = xy[i].x, ys[i] = xy[i].y;
    double rho = gsl_stats_spearman(xs, 1, ys, 1, (size_t)m, gsl_work);
    if (!isfinite(rho)) rho = 0;
    return fabs(high / nhigh - low / nlow) * (1 + fabs(rho));
}

pf_status pf_memtree_raw(const pf_pa_db *db, const int *rows, int n, double raw[PF_PA_PARAM_COUNT])
{
    int *use = malloc((size_t)n * sizeof *use + 1);
    double *y = malloc((size_t)n * sizeof *y + 1), *work = malloc((size_t)n * 4 * sizeof *work + 1);
    pair *xy = malloc((size_t)n * sizeof *xy + 1);
    pf_status st = use && y && work && xy ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory scoring hyperparameters");
    int m = 0;
    for (int i = 0; st == PF_OK && i < n; i++) {
        double mse = pf_pa_db_row(db, rows[i])->mse;
        if (mse > 0) use[m] = rows[i], y[m++] = log10(mse);
    }
    for (int p = 0; st == PF_OK && p < PF_PA_PARAM_COUNT; p++) {
        if (pf_pa_param_categorical(p))
            st = categorical(db, use, y, m, p, &raw[p]);
        else
            raw[p] = continuous(db, use, y, m, p, xy, work);
    }
    free(use);
    free(y);
    free(work);
    free(xy);
    return st;
}

void pf_memtree_normalise(const double raw[PF_PA_PARAM_COUNT], double score[PF_PA_PARAM_COUNT])
{
    double lo = raw[0], hi = raw[0];
    for (int p = 1; p < PF_PA_PARAM_COUNT; p++) lo = fmin(lo, raw[p]), hi = fmax(hi, raw[p]);
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++) score[p] = hi > lo ? (raw[p] - lo) / (hi - lo) : 0.5;
}

pf_status pf_memtree_task(const pf_pa_db *db, int t, double score[PF_PA_PARAM_COUNT])
{
    const pf_pa_task *k = pf_pa_db_task(db, t);
    PF_TRY(pf_memtree_raw(db, k->rows, k->nrows, score));
    pf_memtree_normalise(score, score);
    return PF_OK;
}

pf_status pf_memtree_target(const pf_pa_db *db, const char *target, double score[PF_PA_PARAM_COUNT], int *nother)
{
    double sum[PF_PA_PARAM_COUNT] = {0}, s[PF_PA_PARAM_COUNT];
    int n = 0;
    for (int t = 0; t < pf_pa_db_task_count(db); t++) {
        const pf_pa_task *k = pf_pa_db_task(db, t);
        if (!strcmp(k->name, target) || (k->pde && !strcmp(k->pde, target))) continue;
        PF_TRY(pf_memtree_task(db, t, s));
        for (int p = 0; p < PF_PA_PARAM_COUNT; p++) sum[p] += s[p];
        n++;
    }
    if (nother) *nother = n;
    if (!n) return pf_fail(PF_ERR_INVALID, "no PDE other than '%s' in the PINNsAgent table to score from", target);
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++) score[p] = sum[p] / n;
    return PF_OK;
}

double pf_memtree_uct(double score, int visits, double lambda)
{
    PF_ASSERT(visits >= 0);
    if (!visits) return score;
    return score + lambda * sqrt(log(visits + 1.0) / (visits + 1.0));
}
