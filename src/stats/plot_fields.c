/* plot_fields.c — reference, prediction and |error| at the evaluation points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5.h"
#include "search/artifact.h"
#include "stats/plot.h"
#include "stats/plot_internal.h"

/* The evaluation set of a result.h5: x (n x d_in), u and u_ref (n x d_out). */
typedef pf_result_predictions preds; /* search/artifact.h reads them */

/* The distinct values of v[0..n) (stride apart), clustered within a
 * relative tolerance, sorted ascending into *lv (malloc'ed), their count in
 * *nl. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static pf_status levels(const double *v, size_t n, size_t stride, double **lv, size_t *nl, double *tol)
{
    *lv = NULL, *nl = 0, *tol = 0;
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s) return pf_fail(PF_ERR_NOMEM, "out of memory for the field plot");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i * stride])) s[m++] = v[i * stride];
    qsort(s, m, sizeof *s, cmp_double);
    *tol = m ? 1e-5 * (s[m - 1] - s[0]) + 1e-12 * fabs(s[m - 1]) : 0;
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (k == 0 || s[i] - s[k - 1] > *tol) s[k++] = s[i];
    *lv = s;
    *nl = k;
    return PF_OK;
}

/* Index of the level nearest x (levels sorted). */
static size_t nearest(const double *lv, size_t nl, double x)
{
    size_t lo = 0, hi = nl;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (lv[mid] <= x) lo = mid;
        else hi = mid;
    }
    if (lo + 1 < nl && fabs(lv[lo + 1] - x) < fabs(lv[lo] - x)) lo++;
    return lo;
}

static int evenly_spaced(const double *lv, size_t nl)
{
    if (nl < 2) return 0;
    double d = (lv[nl - 1] - lv[0]) / (double)(nl - 1);
    for (size_t i = 1; i < nl; i++)
        if (fabs(lv[i] - lv[i - 1] - d) > 1e-3 * d) return 0;
    return 1;
}

/* What one figure shows: the selected points, in drawing order. */
typedef struct field_view {
    int axis[3], naxis;  /* input columns written first (spatial, then time when x-t or a slice) */
    int ha, hb;          /* heatmap axes (input columns); ha only for a line plot */
    int line;            /* 1 spatial input, steady */
    size_t *idx, m;      /* selected points, in drawing order */
    size_t na, nb;       /* a grid: na x nb, written row by row (b outer); na = 0: scattered */
    char where[256];     /* the selection, for the title */
} field_view;

/* Points of the slice: every point, or those at the chosen time level. */
static pf_status select_points(const preds *p, const pf_pde *pde, int ns, const pf_plot_opts *o,
                               field_view *v)
{
    int ti = pde->time_input, d = pde->d_in;
    if (!(v->idx = malloc((p->n ? p->n : 1) * sizeof *v->idx)))
        return pf_fail(PF_ERR_NOMEM, "out of memory for the field plot");
    v->m = 0;
    if (ti >= 0 && ns == 2) {
        double *lv = NULL, tol = 0;
        size_t nl = 0;
        PF_TRY(levels(p->x + ti, p->n, (size_t)d, &lv, &nl, &tol));
        if (nl == 0) {
            free(lv);
            return PF_OK;
        }
        size_t pick = o->has_time ? nearest(lv, nl, o->time) : nl - 1;
        for (size_t i = 0; i < p->n; i++) {
            double t = p->x[i * (size_t)d + (size_t)ti];
            if (isfinite(t) && nearest(lv, nl, t) == pick) v->idx[v->m++] = i;
        }
        snprintf(v->where, sizeof v->where, "at %s = %.6g (time level %zu of %zu%s), %zu points", pde->inputs[ti],
                 lv[pick], pick + 1, nl, o->has_time ? ", nearest the one asked for" : ", the last", v->m);
        free(lv);
    } else {
        for (size_t i = 0; i < p->n; i++) v->idx[v->m++] = i;
        snprintf(v->where, sizeof v->where, "all %zu evaluation points", v->m);
    }
    return PF_OK;
}

/* A full, evenly spaced tensor grid over (ha, hb)? Then v->idx is
 * reordered row by row and na, nb set. */
static pf_status find_grid(const preds *p, int d, field_view *v)
{
    double *xa = malloc((v->m ? v->m : 1) * sizeof *xa), *xb = malloc((v->m ? v->m : 1) * sizeof *xb);
    double *la = NULL, *lb = NULL, ta = 0, tb = 0;
    size_t na = 0, nb = 0, *cell = NULL;
    pf_status st = PF_OK;
    if (!xa || !xb) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory for the field plot");
        goto done;
    }
    for (size_t i = 0; i < v->m; i++) {
        xa[i] = p->x[v->idx[i] * (size_t)d + (size_t)v->ha];
        xb[i] = p->x[v->idx[i] * (size_t)d + (size_t)v->hb];
    }
    if ((st = levels(xa, v->m, 1, &la, &na, &ta)) != PF_OK || (st = levels(xb, v->m, 1, &lb, &nb, &tb)) != PF_OK)
        goto done;
    if (na * nb != v->m || !evenly_spaced(la, na) || !evenly_spaced(lb, nb)) goto done;
    if (!(cell = malloc(v->m * sizeof *cell))) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory for the field plot");
        goto done;
    }
    for (size_t c = 0; c < v->m; c++) cell[c] = (size_t)-1;
    for (size_t i = 0; i < v->m; i++) {
        size_t ia = nearest(la, na, xa[i]), ib = nearest(lb, nb, xb[i]);
        if (fabs(xa[i] - la[ia]) > ta || fabs(xb[i] - lb[ib]) > tb || cell[ib * na + ia] != (size_t)-1) goto done;
        cell[ib * na + ia] = v->idx[i];
    }
    memcpy(v->idx, cell, v->m * sizeof *cell);
    v->na = na, v->nb = nb;
done:
    free(xa), free(xb), free(la), free(lb), free(cell);
    return st;
}

/* A line plot draws the points sorted by x. */
static pf_status sort_by_axis(const preds *p, int d, field_view *v)
{
    double *key = malloc((v->m ? v->m : 1) * 2 * sizeof *key);
    if (!key) return pf_fail(PF_ERR_NOMEM, "out of memory for the field plot");
    for (size_t i = 0; i < v->m; i++) {
        key[2 * i] = p->x[v->idx[i] * (size_t)d + (size_t)v->ha];
        key[2 * i + 1] = (double)v->idx[i];
    }
    qsort(key, v->m, 2 * sizeof *key, cmp_double); /* compares the first double of each pair */
    for (size_t i = 0; i < v->m; i++) v->idx[i] = (size_t)key[2 * i + 1];
    free(key);
    return PF_OK;
}

typedef struct field_stats {
    double lo, hi, err_max, mse;
    size_t finite;
} field_stats;

static field_stats stats_of(const preds *p, const field_view *v, int dout, int k)
{
    field_stats s = {INFINITY, -INFINITY, 0, 0, 0};
    for (size_t i = 0; i < v->m; i++) {
        double r = p->ref[v->idx[i] * (size_t)dout + (size_t)k], u = p->u[v->idx[i] * (size_t)dout + (size_t)k];
        if (isfinite(r)) s.lo = fmin(s.lo, r), s.hi = fmax(s.hi, r);
        if (isfinite(u)) s.lo = fmin(s.lo, u), s.hi = fmax(s.hi, u);
        if (isfinite(r) && isfinite(u)) {
            s.finite++;
            s.err_max = fmax(s.err_max, fabs(u - r));
            s.mse += (u - r) * (u - r);
        }
    }
    if (s.finite) s.mse /= (double)s.finite;
    if (!(s.hi > s.lo)) {
        double w = 1e-6 * fabs(s.lo) + 1e-12;
        s.lo -= w, s.hi += w;
    }
    return s;
}

static void write_data(FILE *f, const preds *p, const pf_pde *pde, const field_view *v, int k, const char *path)
{
    int d = pde->d_in, dout = pde->d_out;
    fprintf(f, "# %s of %s from %s, %s\n#", pde->outputs[k], pde->name, path, v->where);
    for (int a = 0; a < v->naxis; a++) fprintf(f, " %s", pde->inputs[v->axis[a]]);
    fprintf(f, " ref pred abs_err\n");
    for (size_t i = 0; i < v->m; i++) {
        size_t j = v->idx[i];
        if (v->na && i > 0 && i % v->na == 0) fputc('\n', f); /* a grid: one row per b level */
        for (int a = 0; a < v->naxis; a++) pf_plot_num(f, p->x[j * (size_t)d + (size_t)v->axis[a]], 0);
        double r = p->ref[j * (size_t)dout + (size_t)k], u = p->u[j * (size_t)dout + (size_t)k];
        pf_plot_num(f, r, 0);
        pf_plot_num(f, u, 0);
        pf_plot_num(f, fabs(u - r), 0);
        fputc('\n', f);
    }
}

#define VIRIDIS "set palette defined (0 \"#440154\", 1 \"#3b528b\", 2 \"#21918c\", 3 \"#5ec962\", 4 \"#fde725\")\n"
#define REDS "set palette defined (0 \"#fff5eb\", 1 \"#fdae6b\", 2 \"#e6550d\", 3 \"#7f2704\")\n"

static void heat_panel(FILE *f, const char *stem, const field_view *v, int col, const char *title, double ps)
{
    fputs("set title ", f);
    pf_plot_str(f, title);
    fputs(" noenhanced\n", f);
    if (v->na)
        fprintf(f, "plot \"%s.dat\" using 1:2:%d with image notitle\n", stem, col);
    else
        fprintf(f, "plot \"%s.dat\" using 1:2:%d with points pt 5 ps %.2f lc palette notitle\n", stem, col, ps);
}

static void heat_script(FILE *f, const char *stem, const pf_pde *pde, const field_view *v, int k,
                        const field_stats *s, const char *title)
{
    const char *out = pde->outputs[k];
    int ncols = v->naxis; /* data columns after the inputs: ref, pred, err */
    double ps = fmin(1.6, fmax(0.35, 45.0 / sqrt((double)(v->m ? v->m : 1))));
    pf_plot_style(f);
    fputs("set multiplot layout 1,3 title ", f);
    pf_plot_str(f, title);
    fputs(" noenhanced\n", f);
    fputs("unset key\nset autoscale xfix\nset autoscale yfix\nset grid front\n", f);
    fprintf(f, "set xlabel \"%s\" noenhanced\nset ylabel \"%s%s\" noenhanced\n", pde->inputs[v->ha],
            pde->inputs[v->hb], v->hb == pde->time_input ? " (time)" : "");
    if (v->hb != pde->time_input) fputs("set size ratio -1\n", f);
    fputs(VIRIDIS, f);
    fprintf(f, "set cbrange [%.10g:%.10g]\n", s->lo, s->hi);
    char t[128];
    snprintf(t, sizeof t, "reference %s", out);
    heat_panel(f, stem, v, ncols + 1, t, ps);
    snprintf(t, sizeof t, "prediction %s", out);
    heat_panel(f, stem, v, ncols + 2, t, ps);
    fputs(REDS, f);
    fprintf(f, "set cbrange [0:%.10g]\n", s->err_max > 0 ? s->err_max : 1.0);
    snprintf(t, sizeof t, "|error| = |%s - %s_ref|", out, out);
    heat_panel(f, stem, v, ncols + 3, t, ps);
    fputs("unset multiplot\n", f);
}

static void line_script(FILE *f, const char *stem, const pf_pde *pde, const field_view *v, int k,
                        const field_stats *s, const char *title)
{
    const char *out = pde->outputs[k], *x = pde->inputs[v->ha];
    pf_plot_style(f);
    fputs("set multiplot layout 1,2 title ", f);
    pf_plot_str(f, title);
    fputs(" noenhanced\n", f);
    fprintf(f, "set xlabel \"%s\" noenhanced\nset ylabel \"%s\" noenhanced\nset key top right\n", x, out);
    fprintf(f, "set title \"reference and prediction\"\n"
               "plot \"%s.dat\" using 1:2 with lines ls 1 lw 3 title \"reference\", \\\n"
               "     \"\" using 1:3 with lines ls 2 dt 2 title \"prediction\"\n",
            stem);
    fprintf(f, "set title \"|error|\"\nset ylabel \"|%s - %s_ref|%s\" noenhanced\n", out, out,
            s->err_max > 0 ? " (log scale)" : "");
    if (s->err_max > 0) fputs("set logscale y\nset format y \"10^{%L}\"\n", f);
    if (s->err_max > 0)
        fprintf(f, "plot \"%s.dat\" using 1:($4 > 0 ? $4 : NaN) with lines ls 3 title \"|error|\"\n", stem);
    else
        fprintf(f, "plot \"%s.dat\" using 1:4 with lines ls 3 title \"|error| (0 everywhere)\"\n", stem);
    fputs("unset multiplot\n", f);
}

/* One output component k: fields_<out>.{dat,gp,png}. */
static pf_status field_figure(const char *path, const preds *p, const pf_pde *pde, const field_view *v, int k,
                              const pf_plot_opts *o, pf_plot_report *rep)
{
    char stem[64], title[512];
    snprintf(stem, sizeof stem, "fields_%s", pde->outputs[k]);
    field_stats s = stats_of(p, v, pde->d_out, k);
    if (s.finite == 0) {
        pf_plot_add(rep, stem, 0, "skipped: no point with a finite prediction and reference (%s)", v->where);
        return PF_OK;
    }
    snprintf(title, sizeof title, "%s of %s, %s: MSE %.3g, max |error| %.3g", pde->outputs[k], pde->name, v->where,
             s.mse, s.err_max);
    pf_plot_text d, g = {0};
    PF_TRY(pf_plot_text_open(&d));
    write_data(d.f, p, pde, v, k, path);
    pf_status st = pf_plot_text_close(&d);
    if (st == PF_OK) st = pf_plot_text_open(&g);
    if (st == PF_OK) {
        if (v->line) line_script(g.f, stem, pde, v, k, &s, title);
        else heat_script(g.f, stem, pde, v, k, &s, title);
        st = pf_plot_text_close(&g);
    }
    int w = o->fields_width, h = o->fields_height;
    if (v->line) w = w * 4 / 5;
    if (st == PF_OK) st = pf_plot_render(o->out_dir, stem, d.buf, d.len, g.buf, w, h);
    pf_plot_text_free(&d);
    pf_plot_text_free(&g);
    if (st == PF_OK)
        pf_plot_add(rep, stem, 1, "%s, %s%s: MSE %.3g, max |error| %.3g", v->line ? "line plot" : "heatmaps",
                    v->where, v->line ? "" : v->na ? " on a grid" : " (scattered)", s.mse, s.err_max);
    return st;
}

pf_status pf_plot_fields(const char *result_h5, const pf_pde *pde, const pf_plot_opts *o, pf_plot_report *rep)
{
    int sp[PF_PDE_MAX_IN], ns = 0;
    for (int i = 0; i < pde->d_in; i++)
        if (i != pde->time_input) sp[ns++] = i;
    if (ns < 1 || ns > 2) {
        char names[256] = "";
        size_t len = 0;
        for (int i = 0; i < ns; i++) len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? "," : "", pde->inputs[sp[i]]);
        pf_plot_add(rep, "fields", 0, "skipped: %s has %d spatial inputs (%s); field plots are drawn for 1 or 2", pde->name,
                    ns, names);
        return PF_OK;
    }
    preds p;
    bool there;
    pf_status st = pf_result_read_predictions(result_h5, pde, &p, &there);
    if (st == PF_OK && !there) {
        pf_plot_add(rep, "fields", 0, "skipped: '%s' has no /predictions (no reference for %s)", result_h5, pde->name);
        return PF_OK;
    }
    field_view v = {0};
    v.line = ns == 1 && pde->time_input < 0;
    v.ha = sp[0];
    v.hb = ns == 2 ? sp[1] : pde->time_input;
    for (int i = 0; i < ns; i++) v.axis[v.naxis++] = sp[i];
    if (pde->time_input >= 0) v.axis[v.naxis++] = pde->time_input;
    if (st == PF_OK && p.n == 0) {
        pf_plot_add(rep, "fields", 0, "skipped: '%s' has no evaluation points", result_h5);
        goto done;
    }
    if (st == PF_OK) st = select_points(&p, pde, ns, o, &v);
    if (st == PF_OK) st = v.line ? sort_by_axis(&p, pde->d_in, &v) : find_grid(&p, pde->d_in, &v);
    for (int k = 0; st == PF_OK && k < pde->d_out; k++) st = field_figure(result_h5, &p, pde, &v, k, o, rep);
done:
    free(v.idx);
    pf_result_predictions_release(&p);
    return st;
}
