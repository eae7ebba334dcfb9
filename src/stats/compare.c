#include "stats/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/describe.h"
#include "stats/friedman.h"
#include "stats/holm.h"
#include "stats/wilcoxon.h"

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *friedman(const pf_means *m)
{
    int k = m->nmethod, n = 0;
    double *x = malloc(((size_t)m->npde * k + 1) * sizeof *x);
    if (!x) return json_pack("{s:s}", "why", "out of memory");
    for (int i = 0; i < m->npde; i++) {
        bool full = true;
        for (int j = 0; j < k; j++) full = full && !isnan(pf_means_mean(m, i, j));
        if (!full) continue;
        for (int j = 0; j < k; j++) x[(size_t)n * k + j] = pf_means_mean(m, i, j);
        n++;
    }
    pf_friedman f;
    pf_status st = pf_friedman_test(x, n, k, &f);
    free(x);
    if (st != PF_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s (tasks where every method has a mean: %d)", pf_errmsg(), n);
        return json_pack("{s:s}", "why", why);
    }
    json_t *ranks = json_object();
    for (int j = 0; j < k; j++) json_object_set_new(ranks, m->method[j], json_real(f.avg_rank[j]));
    json_t *o = json_pack("{s:o, s:o, s:i, s:i, s:f, s:o}", "chi2", num(f.chi2), "p", num(f.p), "df", k - 1, "tasks", n,
                          "tie_correction", f.tie_correction, "avg_ranks", ranks);
    pf_friedman_release(&f);
    return o;
}

/* log10 pairs of method j and the reference r over the tasks both have. */
static int pairs(const pf_means *m, int j, int r, double *x, double *y)
{
    int n = 0;
    for (int i = 0; i < m->npde; i++) {
        double a = pf_means_mean(m, i, j), b = pf_means_mean(m, i, r);
        if (isnan(a) || isnan(b)) continue;
        x[n] = log10(a);
        y[n++] = log10(b);
    }
    return n;
}

static json_t *wilcoxon(const pf_means *m, int r)
{
    int k = m->nmethod;
    double *x = malloc((size_t)(m->npde + 1) * sizeof *x), *y = malloc((size_t)(m->npde + 1) * sizeof *y);
    double *p = malloc((size_t)k * sizeof *p), *adj = malloc((size_t)k * sizeof *adj);
    pf_wilcoxon *w = calloc((size_t)k, sizeof *w);
    json_t *o = json_object();
    if (!x || !y || !p || !adj || !w) goto out;
    for (int j = 0; j < k; j++) {
        p[j] = NAN;
        if (j == r) continue;
        int n = pairs(m, j, r, x, y);
        if (n > 0 && pf_wilcoxon_test(x, y, n, &w[j]) == PF_OK) p[j] = w[j].p;
    }
    if (pf_holm(p, k, adj) != PF_OK) goto out;
    for (int j = 0; j < k; j++) {
        if (j == r) continue;
        json_t *e;
        if (isnan(p[j])) {
            e = json_pack("{s:s}", "why", "no task with a mean for both");
        } else {
            const char *verdict = "=";
            if (adj[j] < PF_STATS_ALPHA) verdict = w[j].w_plus > w[j].w_minus ? "+" : "-";
            e = json_pack("{s:o, s:o, s:s, s:f, s:f, s:i, s:i, s:s}", "p", num(p[j]), "p_holm", num(adj[j]), "verdict",
                          verdict, "w_plus", w[j].w_plus, "w_minus", w[j].w_minus, "n", w[j].n, "zeros", w[j].zeros,
                          "method", w[j].exact ? "exact" : "normal");
        }
        json_object_set_new(o, m->method[j], e);
    }
out:
    free(x), free(y), free(p), free(adj), free(w);
    return o;
}

static json_t *median_cv(const pf_means *m)
{
    json_t *o = json_object();
    double *v = malloc((size_t)(m->npde + 1) * sizeof *v);
    for (int j = 0; v && j < m->nmethod; j++) {
        int n = 0;
        for (int i = 0; i < m->npde; i++) {
            double mu = pf_means_mean(m, i, j), sd = pf_means_std(m, i, j);
            if (!isnan(mu) && !isnan(sd)) v[n++] = sd / mu;
        }
        json_object_set_new(o, m->method[j], num(pf_stats_median(v, (size_t)n)));
    }
    free(v);
    return o;
}

static json_t *median_ratio(const pf_means *m, int r)
{
    json_t *o = json_object();
    double *v = malloc((size_t)(m->npde + 1) * sizeof *v);
    for (int j = 0; v && j < m->nmethod; j++) {
        int n = 0;
        for (int i = 0; i < m->npde; i++) {
            double a = pf_means_mean(m, i, j), b = pf_means_mean(m, i, r);
            if (!isnan(a) && !isnan(b)) v[n++] = a / b;
        }
        json_object_set_new(o, m->method[j], num(pf_stats_median(v, (size_t)n)));
    }
    free(v);
    return o;
}

static json_t *best_other(const pf_means *m, int r)
{
    double *ratio = malloc((size_t)(m->npde + 1) * sizeof *ratio), *red = malloc((size_t)(m->npde + 1) * sizeof *red);
    int n = 0, wins = 0;
    for (int i = 0; ratio && red && i < m->npde; i++) {
        double ref = pf_means_mean(m, i, r), best = INFINITY;
        for (int j = 0; j < m->nmethod; j++)
            if (j != r && !isnan(pf_means_mean(m, i, j))) best = fmin(best, pf_means_mean(m, i, j));
        if (isnan(ref) || !isfinite(best)) continue;
        ratio[n] = best / ref;
        red[n] = 1 - ref / best;
        wins += ref < best;
        n++;
    }
    json_t *o = json_pack("{s:o, s:o, s:i, s:i}", "median_reduction", num(pf_stats_median(red, (size_t)n)),
                          "geomean_ratio", num(pf_stats_geomean(ratio, (size_t)n)), "wins", wins, "tasks", n);
    free(ratio), free(red);
    return o;
}

pf_status pf_compare(const pf_means *m, const char *reference, json_t **out)
{
    *out = NULL;
    int r = pf_means_method(m, reference);
    if (r < 0) return pf_fail(PF_ERR_INVALID, "the table has no method '%s' to compare against", reference);
    for (int i = 0; i < m->npde; i++)
        for (int j = 0; j < m->nmethod; j++) {
            double v = pf_means_mean(m, i, j);
            if (!isnan(v) && !(v > 0))
                return pf_fail(PF_ERR_INVALID, "%s / %s: mean %g is not positive (MSE means are compared on log10)",
                               m->pde[i], m->method[j], v);
        }
    json_t *methods = json_array();
    for (int j = 0; j < m->nmethod; j++) json_array_append_new(methods, json_string(m->method[j]));
    json_t *o = json_pack("{s:s, s:o, s:i, s:f}", "reference", reference, "methods", methods, "tasks", m->npde, "alpha",
                          PF_STATS_ALPHA);
    json_object_set_new(o, "friedman", friedman(m));
    json_object_set_new(o, "wilcoxon", wilcoxon(m, r));
    json_object_set_new(o, "median_cv", median_cv(m));
    json_object_set_new(o, "median_ratio", median_ratio(m, r));
    json_object_set_new(o, "best_other", best_other(m, r));
    *out = o;
    return PF_OK;
}

/* v in fmt, or "n/a" right-aligned in `width` columns. */
static void value(FILE *f, const char *fmt, int width, const json_t *v)
{
    if (json_is_number(v)) fprintf(f, fmt, width, json_number_value(v));
    else fprintf(f, "%*s", width, "n/a");
}

char *pf_compare_text(const json_t *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    const char *ref = json_string_value(json_object_get(c, "reference"));
    json_t *fr = json_object_get(c, "friedman");
    fprintf(f, "%lld tasks, reference %s\n", (long long)json_integer_value(json_object_get(c, "tasks")), ref);
    if (json_object_get(fr, "why")) {
        fprintf(f, "Friedman: not computed: %s\n", json_string_value(json_object_get(fr, "why")));
    } else {
        fprintf(f, "Friedman: chi2_F = %.3f, df = %lld, p = %.3g over %lld complete tasks\n",
                json_number_value(json_object_get(fr, "chi2")), (long long)json_integer_value(json_object_get(fr, "df")),
                json_number_value(json_object_get(fr, "p")), (long long)json_integer_value(json_object_get(fr, "tasks")));
    }
    fprintf(f, "%-16s %9s %11s %11s %8s %10s %12s\n", "method", "avg rank", "wilcoxon p", "holm p", "verdict",
            "median CV", "median ratio");
    size_t i;
    json_t *name;
    json_array_foreach(json_object_get(c, "methods"), i, name) {
        const char *m = json_string_value(name);
        json_t *w = json_object_get(json_object_get(c, "wilcoxon"), m);
        fprintf(f, "%-16s ", m);
        value(f, "%*.2f", 9, json_object_get(json_object_get(fr, "avg_ranks"), m));
        fputc(' ', f);
        value(f, "%*.3g", 11, json_object_get(w, "p"));
        fputc(' ', f);
        value(f, "%*.3g", 11, json_object_get(w, "p_holm"));
        const char *v = json_string_value(json_object_get(w, "verdict"));
        fprintf(f, " %8s ", v ? v : "--");
        value(f, "%*.3f", 10, json_object_get(json_object_get(c, "median_cv"), m));
        fputc(' ', f);
        value(f, "%*.2fx", 11, json_object_get(json_object_get(c, "median_ratio"), m));
        fputc('\n', f);
    }
    json_t *b = json_object_get(c, "best_other");
    fprintf(f, "against the best other method per task: %s is best on %lld of %lld; median MSE reduction ",
            ref, (long long)json_integer_value(json_object_get(b, "wins")),
            (long long)json_integer_value(json_object_get(b, "tasks")));
    json_t *mr = json_object_get(b, "median_reduction");
    if (json_is_number(mr)) fprintf(f, "%.2f%%", 100 * json_number_value(mr));
    else fputs("n/a", f);
    fputs(", geometric-mean ratio ", f);
    value(f, "%*.2fx", 0, json_object_get(b, "geomean_ratio"));
    fputc('\n', f);
    return fclose(f) == 0 ? buf : (free(buf), NULL);
}
