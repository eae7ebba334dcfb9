/* plot_curves.c — training curves per loss term of one result.h5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5.h"
#include "search/artifact.h"
#include "stats/plot.h"
#include "stats/plot_internal.h"

typedef pf_result_curves curves; /* search/artifact.h reads them */

enum { TERM_DRAWN, TERM_ZERO, TERM_EMPTY };

/* TERM_ZERO: every value exactly 0 (a hard constraint); TERM_EMPTY: no
 * finite positive value otherwise; else drawn. */
static int term_kind(const double *v, size_t n)
{
    int zero = 1, pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] != 0) zero = 0;
        if (isfinite(v[i]) && v[i] > 0) pos = 1;
    }
    return pos ? TERM_DRAWN : zero ? TERM_ZERO : TERM_EMPTY;
}

/* The root attribute `key`, or "" (titles only: absence is no error). */
static void attr_or_empty(const char *path, const char *key, char *buf, size_t cap)
{
    char *s = NULL;
    buf[0] = 0;
    if (pf_h5_read_attr_str(path, "/", key, &s) == PF_OK) snprintf(buf, cap, "%s", s);
    free(s);
}

static void curves_script(FILE *f, const char *path, const curves *c, const int *kind, int draw_total, int draw_eval)
{
    char pde[128], fid[32], hash[80], status[32], title[512];
    attr_or_empty(path, "pde", pde, sizeof pde);
    attr_or_empty(path, "fidelity", fid, sizeof fid);
    attr_or_empty(path, "spec_hash", hash, sizeof hash);
    attr_or_empty(path, "status", status, sizeof status);
    size_t len = (size_t)snprintf(title, sizeof title, "Training curves%s%s", pde[0] ? ": " : "", pde);
    if (fid[0]) len += (size_t)snprintf(title + len, sizeof title - len, ", %s fidelity", fid);
    if (hash[0]) len += (size_t)snprintf(title + len, sizeof title - len, ", spec %.8s", hash);
    if (status[0]) snprintf(title + len, sizeof title - len, ", status %s", status);
    pf_plot_style(f);
    fputs("set title ", f);
    pf_plot_str(f, title);
    fputs(" noenhanced\n"
          "set xlabel \"optimizer step\"\n"
          "set ylabel \"loss (unweighted per term) / evaluation MSE, log scale\"\n"
          "set logscale y\n"
          "set format y \"10^{%L}\"\n"
          "set key outside right top\n",
          f);
    fputs("plot ", f);
    int first = 1;
#define SEP() (fputs(first ? "" : ", \\\n     ", f), first = 0)
    for (size_t k = 0; k < c->nterm; k++) {
        char t[600];
        SEP();
        if (kind[k] == TERM_DRAWN) {
            fprintf(f, "\"curves.dat\" index 0 using 1:%zu with lines ls %zu title ", k + 3, k % 8 + 2);
            snprintf(t, sizeof t, "%s", c->names[k]);
        } else {
            fputs("keyentry with lines lc rgb \"#bbbbbb\" dt 2 title ", f);
            snprintf(t, sizeof t, "%s (%s)", c->names[k], kind[k] == TERM_ZERO ? "hard: 0" : "no positive value");
        }
        pf_plot_str(f, t);
        fputs(" noenhanced", f);
    }
    if (draw_total) { /* after the terms, dashed: a lone term lies under it */
        SEP();
        fputs("\"curves.dat\" index 0 using 1:2 with lines lw 2.5 dt (8,5) lc rgb \"#000000\" "
              "title \"total (weighted)\"",
              f);
    }
    if (draw_eval) {
        SEP();
        fputs("\"curves.dat\" index 1 using 1:2 with points pt 7 ps 1.3 lc rgb \"#d62728\" title \"evaluation MSE\"",
              f);
    }
#undef SEP
    fputc('\n', f);
}

static int any_positive(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) return 1;
    return 0;
}

static pf_status curves_write(const char *path, const curves *c, const pf_plot_opts *o, int *ndrawn,
                              int *nzero)
{
    int *kind = calloc(c->nterm ? c->nterm : 1, sizeof *kind);
    if (!kind) return pf_fail(PF_ERR_NOMEM, "out of memory plotting '%s'", path);
    *ndrawn = *nzero = 0;
    for (size_t k = 0; k < c->nterm; k++) {
        kind[k] = term_kind(c->term[k], c->n);
        *ndrawn += kind[k] == TERM_DRAWN;
        *nzero += kind[k] == TERM_ZERO;
    }
    int draw_total = any_positive(c->total, c->n), draw_eval = any_positive(c->eval_mse, c->neval);
    pf_plot_text d, s = {0};
    pf_status st = pf_plot_text_open(&d);
    if (st != PF_OK) return free(kind), st;
    fprintf(d.f, "# training curves of %s (unweighted loss terms; NaN: not positive)\n# step total", path);
    for (size_t k = 0; k < c->nterm; k++) fprintf(d.f, " %s", c->names[k]);
    fputc('\n', d.f);
    for (size_t i = 0; i < c->n; i++) {
        fprintf(d.f, "%.10g", c->step[i]);
        pf_plot_num(d.f, c->total[i], 1);
        for (size_t k = 0; k < c->nterm; k++) pf_plot_num(d.f, c->term[k][i], 1);
        fputc('\n', d.f);
    }
    fputs("\n\n# evaluation MSE (/eval/step, /eval/mse)\n# step mse\n", d.f);
    for (size_t i = 0; i < c->neval; i++) {
        fprintf(d.f, "%.10g", c->eval_step[i]);
        pf_plot_num(d.f, c->eval_mse[i], 1);
        fputc('\n', d.f);
    }
    st = pf_plot_text_close(&d);
    if (st == PF_OK) st = pf_plot_text_open(&s);
    if (st == PF_OK) {
        curves_script(s.f, path, c, kind, draw_total, draw_eval);
        st = pf_plot_text_close(&s);
    }
    if (st == PF_OK) st = pf_plot_render(o->out_dir, "curves", d.buf, d.len, s.buf, o->width, o->height);
    pf_plot_text_free(&d);
    pf_plot_text_free(&s);
    free(kind);
    return st;
}

pf_status pf_plot_curves(const char *result_h5, const pf_plot_opts *o, pf_plot_report *rep)
{
    curves c;
    pf_status st = pf_result_read_curves(result_h5, &c);
    if (st != PF_OK) {
        pf_result_curves_release(&c);
        return st;
    }
    int any = any_positive(c.total, c.n) || any_positive(c.eval_mse, c.neval);
    for (size_t k = 0; k < c.nterm; k++) any |= any_positive(c.term[k], c.n);
    if (!any) {
        pf_plot_add(rep, "curves", 0, "skipped: '%s' has no finite positive loss or MSE (%zu records)", result_h5,
                    c.n);
        pf_result_curves_release(&c);
        return PF_OK;
    }
    int ndrawn = 0, nzero = 0;
    st = curves_write(result_h5, &c, o, &ndrawn, &nzero);
    if (st == PF_OK)
        pf_plot_add(rep, "curves", 1, "%s: %zu records to step %.0f, %d term%s drawn, %d identically 0, %zu evaluations",
                    result_h5, c.n, c.step[c.n - 1], ndrawn, ndrawn == 1 ? "" : "s", nzero, c.neval);
    pf_result_curves_release(&c);
    return st;
}
