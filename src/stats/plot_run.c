/* plot_run.c — a run's plots: the search trajectory and the final design. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/msgpack_json.h"
#include "llm/method.h"
#include "stats/plot.h"
#include "stats/plot_internal.h"

#define PATH_CAP 4096
#define MAX_GEN 100 /* genGG: two digits */

/* A run artifact: PF_OK with *out NULL when the file does not exist;
 * PF_ERR_IO when it exists but cannot be read or has the wrong format. */
static pf_status read_optional(const char *path, const char *format, json_t **out)
{
    *out = NULL;
    if (access(path, F_OK) != 0) return PF_OK;
    pf_status st = pf_run_read(path, format, out);
    if (st == PF_ERR_INVALID) /* a wrong "format": corrupt too, for the caller */
        return pf_fail(PF_ERR_IO, "%s", pf_errmsg());
    return st;
}

static double num_or_nan(const json_t *v) { return json_is_number(v) ? json_number_value(v) : NAN; }

typedef struct gen_best {
    int index;       /* -1: no ok candidate with a finite y */
    double y, loss_final, residual_mean;
} gen_best;

/* Per generation 0..last, the ok candidate with the lowest finite y. */
static pf_status best_per_generation(const json_t *history, gen_best *b, int last)
{
    for (int g = 0; g <= last; g++) b[g] = (gen_best){.index = -1, .y = NAN, .loss_final = NAN, .residual_mean = NAN};
    size_t i;
    json_t *h;
    json_array_foreach(history, i, h) {
        json_t *jg = json_object_get(h, "generation"), *jk = json_object_get(h, "index");
        const char *status = json_string_value(json_object_get(h, "status"));
        double y = num_or_nan(json_object_get(h, "y"));
        if (!json_is_integer(jg) || !json_is_integer(jk) || !status || strcmp(status, "ok") || !isfinite(y))
            continue;
        json_int_t g = json_integer_value(jg);
        if (g < 0 || g > last) continue;
        if (b[g].index < 0 || y < b[g].y) b[g] = (gen_best){.index = (int)json_integer_value(jk), .y = y};
    }
    return PF_OK;
}

/* loss_final and residual.mean of each best candidate's evidence (missing
 * file or field: NaN, a gap). */
static pf_status add_evidence(const char *dir, gen_best *b, int last)
{
    char path[PATH_CAP];
    for (int g = 0; g <= last; g++) {
        b[g].loss_final = b[g].residual_mean = NAN;
        if (b[g].index < 0) continue;
        PF_TRY(pf_run_path(dir, "evidence", g, b[g].index, path, sizeof path));
        json_t *e;
        PF_TRY(read_optional(path, "pinnforge.evidence", &e));
        if (!e) continue;
        json_t *ev = json_object_get(e, "evidence");
        b[g].loss_final = num_or_nan(json_object_get(ev, "loss_final"));
        b[g].residual_mean = num_or_nan(json_object_get(json_object_get(ev, "residual"), "mean"));
        json_decref(e);
    }
    return PF_OK;
}

static int positive(double v) { return isfinite(v) && v > 0; }

static void trajectory_script(FILE *f, const pf_run *r, int last, int nhf)
{
    pf_plot_style(f);
    fputs("set title ", f);
    char title[512];
    snprintf(title, sizeof title, "Search trajectory: %s, %s run %d (%s budget)", r->pde->name,
             pf_method_name(r->method), r->run, r->budget->name);
    pf_plot_str(f, title);
    fputs(" noenhanced\n", f);
    fputs("set xlabel \"generation (best low-fidelity candidate of each; HF: final Top-3 at high fidelity)\"\n"
          "set ylabel \"value (log scale)\"\n"
          "set logscale y\n"
          "set format y \"10^{%L}\"\n"
          "set key outside right top\n",
          f);
    fprintf(f, "set xrange [-0.5:%d.5]\n", last + (nhf ? 1 : 0));
    fputs("set xtics 1\n", f);
    if (nhf) fprintf(f, "set xtics add (\"HF\" %d)\n", last + 1);
    fputs("plot \"trajectory.dat\" index 0 using 1:2 with linespoints ls 1 title \"LF MSE (best)\", \\\n"
          "     \"\" index 0 using 1:3 with linespoints ls 2 title \"final training loss\", \\\n"
          "     \"\" index 0 using 1:4 with linespoints ls 3 title \"mean |PDE residual|\"",
          f);
    if (nhf)
        fputs(", \\\n     \"\" index 1 using 1:2 with points pt 3 ps 2.5 lw 2 lc rgb \"#000000\" "
              "title \"HF MSE, final Top-3\"",
              f);
    fputc('\n', f);
}

pf_status pf_plot_trajectory(const pf_run *r, const pf_plot_opts *o, pf_plot_report *rep)
{
    char path[PATH_CAP];
    json_t *sel;
    int g_sel;
    PF_TRY(pf_run_last_select(r->dir, &sel, &g_sel));
    if (!sel) {
        pf_plot_add(rep, "trajectory", 0, "skipped: no genGG/select.msgpack in '%s' yet (run pf-select)", r->dir);
        return PF_OK;
    }
    json_t *history = json_object_get(sel, "history");
    if (!json_is_array(history)) {
        json_decref(sel);
        PF_TRY(pf_run_path(r->dir, "select", g_sel, 0, path, sizeof path));
        return pf_fail(PF_ERR_IO, "'%s' has no history array", path);
    }
    int last = (int)json_integer_value(json_object_get(sel, "generation"));
    size_t i;
    json_t *h;
    json_array_foreach(history, i, h) {
        json_int_t g = json_integer_value(json_object_get(h, "generation"));
        if (g > last && g < MAX_GEN) last = (int)g;
    }
    if (last < 0 || last >= MAX_GEN) last = 0;
    gen_best b[MAX_GEN];
    pf_status st = best_per_generation(history, b, last);
    json_decref(sel);
    PF_TRY(st);
    PF_TRY(add_evidence(r->dir, b, last));

    char fpath[PATH_CAP];
    snprintf(fpath, sizeof fpath, "%s/final.msgpack", r->dir);
    json_t *fin;
    PF_TRY(read_optional(fpath, "pinnforge.final", &fin));
    double hf[PF_RUN_TOP];
    int nhf = 0, any = 0;
    json_t *top = json_object_get(fin, "top3");
    for (size_t k = 0; k < json_array_size(top) && k < PF_RUN_TOP; k++) {
        hf[k] = num_or_nan(json_object_get(json_array_get(top, k), "y_high"));
        nhf = (int)k + 1;
        any |= positive(hf[k]);
    }
    json_decref(fin);

    int best_g = -1;
    for (int g = 0; g <= last; g++) {
        any |= positive(b[g].y) || positive(b[g].loss_final) || positive(b[g].residual_mean);
        if (b[g].index >= 0 && (best_g < 0 || b[g].y < b[best_g].y)) best_g = g;
    }
    if (!any) {
        pf_plot_add(rep, "trajectory", 0, "skipped: no finite positive MSE, loss or residual in generations 0..%d", last);
        return PF_OK;
    }

    pf_plot_text d;
    PF_TRY(pf_plot_text_open(&d));
    fprintf(d.f, "# trajectory of %s (%s): per generation the best low-fidelity candidate (status ok, finite y)\n",
            r->dir, r->pde->name);
    fputs("# generation lf_mse loss_final residual_mean index\n", d.f);
    for (int g = 0; g <= last; g++) {
        fprintf(d.f, "%d", g);
        pf_plot_num(d.f, b[g].y, 1);
        pf_plot_num(d.f, b[g].loss_final, 1);
        pf_plot_num(d.f, b[g].residual_mean, 1);
        fprintf(d.f, " %d\n", b[g].index);
    }
    fputs("\n\n# high-fidelity MSE of the final Top-3 (final.msgpack top3[k].y_high)\n# x y_high k\n", d.f);
    for (int k = 0; k < nhf; k++) {
        fprintf(d.f, "%d", last + 1);
        pf_plot_num(d.f, hf[k], 1);
        fprintf(d.f, " %d\n", k);
    }
    pf_status st2 = pf_plot_text_close(&d);
    pf_plot_text s;
    if (st2 == PF_OK && (st2 = pf_plot_text_open(&s)) == PF_OK) {
        trajectory_script(s.f, r, last, nhf);
        st2 = pf_plot_text_close(&s);
        if (st2 == PF_OK)
            st2 = pf_plot_render(o->out_dir, "trajectory", d.buf, d.len, s.buf, o->width, o->height);
        pf_plot_text_free(&s);
    }
    pf_plot_text_free(&d);
    PF_TRY(st2);
    if (best_g >= 0)
        pf_plot_add(rep, "trajectory", 1, "generations 0..%d, best low-fidelity MSE %.3g (gen %d), %d high-fidelity star%s",
                    last, b[best_g].y, best_g, nhf, nhf == 1 ? "" : "s");
    else
        pf_plot_add(rep, "trajectory", 1, "generations 0..%d, no ok candidate, %d high-fidelity star%s", last, nhf,
                    nhf == 1 ? "" : "s");
    return PF_OK;
}

pf_status pf_plot_final_result(const char *run_dir, int *k, char *path, size_t cap, int *found, char *why,
                               size_t why_cap)
{
    *found = 0;
    *k = -1;
    path[0] = why[0] = 0;
    char fpath[PATH_CAP];
    snprintf(fpath, sizeof fpath, "%s/final.msgpack", run_dir);
    json_t *fin;
    PF_TRY(read_optional(fpath, "pinnforge.final", &fin));
    if (!fin) {
        snprintf(why, why_cap, "no final.msgpack in '%s' yet (run pf-final)", run_dir);
        return PF_OK;
    }
    json_t *top = json_object_get(fin, "top3");
    double best = INFINITY;
    for (size_t i = 0; i < json_array_size(top) && i < PF_RUN_TOP; i++) {
        json_t *t = json_array_get(top, i);
        const char *status = json_string_value(json_object_get(t, "status"));
        double y = num_or_nan(json_object_get(t, "y_high"));
        if (status && !strcmp(status, "ok") && isfinite(y) && y < best) best = y, *k = (int)i;
    }
    json_decref(fin);
    if (*k < 0) {
        snprintf(why, why_cap, "no entry of the final Top-3 in '%s' ended ok with a finite MSE", fpath);
        return PF_OK;
    }
    if (snprintf(path, cap, "%s/hifi/top%d/result.h5", run_dir, *k) >= (int)cap)
        return pf_fail(PF_ERR_INVALID, "path in run '%s' is too long", run_dir);
    if (access(path, F_OK) != 0) {
        snprintf(why, why_cap, "the final design's '%s' is missing", path);
        return PF_OK;
    }
    *found = 1;
    return PF_OK;
}

pf_status pf_plot_run(const pf_run *r, const pf_plot_opts *o, pf_plot_report *rep)
{
    PF_TRY(pf_plot_gnuplot_check());
    PF_TRY(pf_mkdirs(o->out_dir));
    PF_TRY(pf_plot_trajectory(r, o, rep));
    char path[PATH_CAP], why[PATH_CAP + 128];
    int k, found;
    PF_TRY(pf_plot_final_result(r->dir, &k, path, sizeof path, &found, why, sizeof why));
    if (!found) {
        pf_plot_add(rep, "curves", 0, "skipped: %s", why);
        pf_plot_add(rep, "fields", 0, "skipped: %s", why);
        return PF_OK;
    }
    PF_TRY(pf_plot_curves(path, o, rep));
    return pf_plot_fields(path, r->pde, o, rep);
}
