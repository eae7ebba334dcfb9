#include "stats/backbones.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "llm/method.h"
#include "stats/compare.h"
#include "stats/describe.h"
#include "stats/friedman.h"
#include "stats/kendall.h"
#include "stats/means.h"
#include "stats/welch.h"

typedef struct ctx {
    const pf_collection *c;
    const char **bb; /* the backbones, by name */
    int nb;
    const char *reference;
} ctx;

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static bool is_ablation(const char *method)
{
    const pf_method_def *d = pf_method_def_named(method);
    return d && (d->flags & PF_MF_ABLATION);
}

static bool not_ablation(const char *method, const void *unused)
{
    (void)unused;
    return !is_ablation(method);
}

static bool only(const char *method, const void *name) { return !strcmp(method, name); }

/* The means of backbone b's runs, methods as keep picks them, in the
 * tables' order. */
static pf_status means_of(const ctx *x, const char *b, bool (*keep)(const char *, const void *), const void *arg,
                          pf_means *m)
{
    pf_collection one = *x->c;
    one.backbone = b;
    PF_TRY(pf_collection_means(&one, keep, arg, m));
    pf_means_sort(m, x->reference);
    return PF_OK;
}

static json_t *names(char **v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_string(v[i]));
    return a;
}

/* ------------------------------------------------------------ friedman */

/* One method across the backbones: a table PDE x backbone of its means. */
static json_t *method_friedman(const ctx *x, const char *method)
{
    pf_means by = {0}; /* "methods" = the backbones */
    pf_status st = PF_OK;
    for (int b = 0; st == PF_OK && b < x->nb; b++) {
        pf_means m;
        if ((st = means_of(x, x->bb[b], only, method, &m)) != PF_OK) break;
        for (int i = 0; st == PF_OK && i < m.npde; i++)
            st = pf_means_set(&by, m.pde[i], x->bb[b], pf_means_mean(&m, i, 0), pf_means_std(&m, i, 0), m.runs[i]);
        pf_means_release(&m);
    }
    pf_means_sort(&by, NULL);
    double *v = malloc(((size_t)by.npde * x->nb + 1) * sizeof *v);
    char **left = malloc(((size_t)by.npde + 1) * sizeof *left);
    json_t *o = NULL;
    if (st != PF_OK || !v || !left) {
        o = json_pack("{s:s}", "why", st != PF_OK ? pf_errmsg() : "out of memory");
        goto out;
    }
    int n = 0, nleft = 0;
    for (int i = 0; i < by.npde; i++) {
        bool full = true;
        for (int b = 0; b < x->nb; b++) {
            int j = pf_means_method(&by, x->bb[b]);
            double mu = j < 0 ? NAN : pf_means_mean(&by, i, j);
            full = full && !isnan(mu);
            v[(size_t)n * x->nb + b] = mu;
        }
        if (full) n++;
        else left[nleft++] = by.pde[i];
    }
    pf_friedman f;
    if (pf_friedman_test(v, n, x->nb, &f) != PF_OK) {
        o = json_pack("{s:s, s:o}", "why", pf_errmsg(), "left_out", names(left, nleft));
        goto out;
    }
    json_t *ranks = json_object();
    for (int b = 0; b < x->nb; b++) json_object_set_new(ranks, x->bb[b], json_real(f.avg_rank[b]));
    o = json_pack("{s:o, s:o, s:i, s:i, s:o, s:o}", "chi2", num(f.chi2), "p", num(f.p), "df", x->nb - 1, "pdes", n,
                  "avg_ranks", ranks, "left_out", names(left, nleft));
    pf_friedman_release(&f);
out:
    free(v);
    free(left);
    pf_means_release(&by);
    return o;
}

static json_t *friedman(const ctx *x)
{
    json_t *o = json_object();
    for (int order = 0; order < 2 * PF_METHOD_COUNT; order++) /* the tables' order, the reference last */
        for (int i = 0; i < PF_METHOD_COUNT; i++) {
            const pf_method_def *d = pf_method_def_of((pf_method)i);
            int key = !strcmp(d->name, x->reference) ? 2 * PF_METHOD_COUNT - 1 : d->order;
            if (key != order || !(d->flags & PF_MF_LLM)) continue;
            bool any = false;
            for (int r = 0; r < x->c->n && !any; r++) any = x->c->run[r].final && !strcmp(x->c->run[r].method, d->name);
            if (any) json_object_set_new(o, d->name, method_friedman(x, d->name));
        }
    return o;
}

/* ------------------------------------------------------------ kendall */

/* Whether every backbone's table has a mean of method `name` on pde. */
static bool everywhere(const pf_means *t, int nb, const char *pde, const char *name)
{
    for (int b = 0; b < nb; b++) {
        int i = pf_means_pde(&t[b], pde), j = pf_means_method(&t[b], name);
        if (i < 0 || j < 0 || isnan(pf_means_mean(&t[b], i, j))) return false;
    }
    return true;
}

/* name appended to the array a unless a holds it already. */
static void append_once(json_t *a, const char *name)
{
    for (size_t k = 0; k < json_array_size(a); k++)
        if (!strcmp(json_string_value(json_array_get(a, k)), name)) return;
    json_array_append_new(a, json_string(name));
}

static json_t *kendall(const ctx *x, const pf_means *t)
{
    /* the methods of every backbone's table, in the first one's order */
    const pf_means *t0 = &t[0];
    char **meth = malloc(((size_t)t0->nmethod + 1) * sizeof *meth), **gone = malloc(((size_t)t0->nmethod + 1) * sizeof *gone);
    char **pde = malloc(((size_t)t0->npde + 1) * sizeof *pde);
    int nm = 0, ngone = 0, np = 0;
    json_t *o = NULL, *left = json_array();
    double *v = NULL, *r = NULL;
    if (!meth || !gone || !pde) goto nomem;
    for (int j = 0; j < t0->nmethod; j++) {
        bool all = true;
        for (int b = 1; b < x->nb; b++) all = all && pf_means_method(&t[b], t0->method[j]) >= 0;
        if (all) meth[nm++] = t0->method[j];
        else gone[ngone++] = t0->method[j];
    }
    for (int b = 1; b < x->nb; b++) /* methods of another backbone's table only */
        for (int j = 0; j < t[b].nmethod; j++)
            if (pf_means_method(t0, t[b].method[j]) < 0) append_once(left, t[b].method[j]);
    for (int i = 0; i < t0->npde; i++) {
        bool full = true;
        for (int j = 0; j < nm; j++) full = full && everywhere(t, x->nb, t0->pde[i], meth[j]);
        if (full) pde[np++] = t0->pde[i];
    }
    json_t *pdes_left = json_array();
    for (int b = 0; b < x->nb; b++) /* every PDE of any table that is not used, once */
        for (int i = 0; i < t[b].npde; i++) {
            bool seen = false;
            for (int k = 0; k < np && !seen; k++) seen = !strcmp(pde[k], t[b].pde[i]);
            if (!seen) append_once(pdes_left, t[b].pde[i]);
        }
    json_t *mleft = names(gone, ngone);
    json_array_extend(mleft, left);
    json_decref(left);
    left = NULL;
    if (np < 1 || nm < 2) {
        char why[256];
        snprintf(why, sizeof why, "%d PDE%s where every backbone's table has all %d shared method%s (needs 1 PDE and 2 methods)",
                 np, np == 1 ? "" : "s", nm, nm == 1 ? "" : "s");
        o = json_pack("{s:s, s:o, s:o}", "why", why, "left_out", pdes_left, "methods_left_out", mleft);
        goto out;
    }
    v = malloc((size_t)x->nb * nm * sizeof *v);
    r = malloc((size_t)nm * 2 * sizeof *r);
    if (!v || !r) {
        json_decref(pdes_left);
        json_decref(mleft);
        goto nomem;
    }
    json_t *avg = json_object();
    for (int b = 0; b < x->nb; b++) {
        double *row = v + (size_t)b * nm, *mu = r + nm;
        memset(row, 0, (size_t)nm * sizeof *row);
        for (int k = 0; k < np; k++) {
            int i = pf_means_pde(&t[b], pde[k]);
            for (int j = 0; j < nm; j++) mu[j] = pf_means_mean(&t[b], i, pf_means_method(&t[b], meth[j]));
            pf_stats_ranks(mu, (size_t)nm, r);
            for (int j = 0; j < nm; j++) row[j] += r[j] / np;
        }
        json_t *e = json_object();
        for (int j = 0; j < nm; j++) json_object_set_new(e, meth[j], json_real(row[j]));
        json_object_set_new(avg, x->bb[b], e);
    }
    pf_kendall k;
    if (pf_kendall_w(v, x->nb, nm, &k) != PF_OK) {
        json_decref(avg);
        o = json_pack("{s:s, s:o, s:o}", "why", pf_errmsg(), "left_out", pdes_left, "methods_left_out", mleft);
        goto out;
    }
    o = json_pack("{s:o, s:o, s:i, s:o, s:f, s:o, s:o, s:o, s:o, s:o}", "w", num(k.w), "chi2", num(k.chi2), "df", k.df,
                  "p", num(k.p), "ties", k.ties, "pdes", names(pde, np), "methods", names(meth, nm), "avg_ranks", avg,
                  "left_out", pdes_left, "methods_left_out", mleft);
    goto out;
nomem:
    o = json_pack("{s:s}", "why", "out of memory");
out:
    json_decref(left);
    free(meth), free(gone), free(pde), free(v), free(r);
    return o;
}

/* ------------------------------------------------------------ wins, ties, losses */

/* log10 of the finished runs' MSEs of (pde, method) in backbone b's tables
 * into v; their count, or -1 when one is not positive. */
static int cell_logs(const ctx *x, const char *b, const char *pde, const char *method, double *v)
{
    int n = 0;
    pf_collection one = *x->c;
    one.backbone = b;
    for (int i = 0; i < one.n; i++) {
        const pf_run_summary *s = &one.run[i];
        if (!s->final || strcmp(s->pde, pde) || strcmp(s->method, method) || !pf_collection_takes(&one, s)) continue;
        double e = pf_collection_mse(x->c, s);
        if (!(e > 0) || !isfinite(e)) return -1;
        v[n++] = log10(e);
    }
    return n;
}

static json_t *wtl_backbone(const ctx *x, const char *b, const pf_means *t)
{
    json_t *o = json_object();
    double *ref = malloc(((size_t)x->c->n + 1) * sizeof *ref), *oth = malloc(((size_t)x->c->n + 1) * sizeof *oth);
    int r = pf_means_method(t, x->reference);
    for (int j = 0; ref && oth && r >= 0 && j < t->nmethod; j++) {
        if (j == r) continue;
        int win = 0, tie = 0, loss = 0, untested = 0;
        for (int i = 0; i < t->npde; i++) {
            if (isnan(pf_means_mean(t, i, j)) || isnan(pf_means_mean(t, i, r))) continue;
            int na = cell_logs(x, b, t->pde[i], x->reference, ref), nb = cell_logs(x, b, t->pde[i], t->method[j], oth);
            pf_welch w;
            if (na < 2 || nb < 2 || pf_welch_test(ref, na, oth, nb, &w) != PF_OK) untested++;
            else if (w.p >= PF_STATS_ALPHA) tie++;
            else if (w.mean_x < w.mean_y) win++;
            else loss++;
        }
        json_object_set_new(o, t->method[j], json_pack("{s:i, s:i, s:i, s:i}", "wins", win, "ties", tie, "losses", loss,
                                                       "untested", untested));
    }
    free(ref), free(oth);
    return o;
}

/* ------------------------------------------------------------ all */

pf_status pf_backbones_compare(const pf_collection *c, const char *reference, json_t **out)
{
    *out = NULL;
    const char **bb = malloc(((size_t)c->n + 1) * sizeof *bb);
    if (!bb) return pf_fail(PF_ERR_NOMEM, "out of memory");
    ctx x = {c, bb, pf_collection_backbones(c, bb, c->n), reference};
    if (x.nb < 2) {
        free(bb);
        return pf_fail(PF_ERR_INVALID, "the runs have %d backbone%s; comparing backbones needs 2", x.nb, x.nb == 1 ? "" : "s");
    }
    pf_means *t = calloc((size_t)x.nb, sizeof *t);
    pf_status st = t ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    for (int b = 0; st == PF_OK && b < x.nb; b++) st = means_of(&x, bb[b], not_ablation, NULL, &t[b]);
    if (st == PF_OK) {
        json_t *list = json_array(), *wtl = json_object();
        for (int b = 0; b < x.nb; b++) {
            json_array_append_new(list, json_string(bb[b]));
            json_object_set_new(wtl, bb[b], wtl_backbone(&x, bb[b], &t[b]));
        }
        *out = json_pack("{s:o, s:s, s:f, s:o, s:o, s:o}", "backbones", list, "reference", reference, "alpha",
                         PF_STATS_ALPHA, "friedman", friedman(&x), "kendall", kendall(&x, t), "wtl", wtl);
        if (!*out) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    for (int b = 0; t && b < x.nb; b++) pf_means_release(&t[b]);
    free(t);
    free(bb);
    return st;
}
