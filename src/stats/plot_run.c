/* plot_run.c — a run's plots: the search trajectory and the final design. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/msgpack_json.h"
#include "search/artifact.h"
#include "llm/method.h"
#include "stats/plot.h"
#include "stats/plot_internal.h"

#define PATH_CAP 4096
#define MAX_GEN 100 /* genGG: two digits */

/* Whether a run file exists (a missing one is "not yet", not an error). */
static bool there(const char *path)
{
    return access(path, F_OK) == 0;
}

typedef struct gen_best {
    int index;       /* -1: no ok candidate with a finite y */
    double y, loss_final, residual_mean;
} gen_best;

/* Per generation 0..last, the ok candidate with the lowest finite y. */
static void best_per_generation(const pf_select *sel, gen_best *b, int last)
{
    for (int g = 0; g <= last; g++) b[g] = (gen_best){.index = -1, .y = NAN, .loss_final = NAN, .residual_mean = NAN};
    for (int i = 0; i < sel->ncand; i++) {
        const pf_candidate *h = &sel->cand[i];
        if (h->status != PF_CANDIDATE_OK || !h->has_y || !isfinite(h->y)) continue;
        int g = h->generation;
        if (g < 0 || g > last) continue;
        if (b[g].index < 0 || h->y < b[g].y) b[g] = (gen_best){.index = h->index, .y = h->y};
    }
}

static double num_or_nan(const json_t *v) { return json_is_number(v) ? json_number_value(v) : NAN; }

/* loss_final and residual.mean of each best candidate's evidence (missing
 * file or field: NaN, a gap). */
static pf_status add_evidence(const char *dir, gen_best *b, int last)
{
    char path[PATH_CAP];
    for (int g = 0; g <= last; g++) {
        b[g].loss_final = b[g].residual_mean = NAN;
        if (b[g].index < 0) continue;
        PF_TRY(pf_run_path(dir, PF_RUN_EVIDENCE, g, b[g].index, path, sizeof path));
        if (!there(path)) continue;
        pf_evidence_file e;
        PF_TRY(pf_evidence_file_read(path, &e));
        b[g].loss_final = num_or_nan(json_object_get(e.evidence, "loss_final"));
        b[g].residual_mean = num_or_nan(json_object_get(json_object_get(e.evidence, "residual"), "mean"));
        pf_evidence_file_release(&e);
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
    pf_select *sel;
    int g_sel;
    PF_TRY(pf_run_last_select(r->dir, &sel, &g_sel));
    if (!sel && pf_method_is_baseline(r->method)) {
        pf_plot_add(rep, "trajectory", 0, "skipped: '%s' is a %s run (a baseline): no search, no trajectory", r->dir,
                    pf_method_name(r->method));
        return PF_OK;
    }
    if (!sel) {
        pf_plot_add(rep, "trajectory", 0, "skipped: no genGG/select.msgpack in '%s' yet (run pf-select)", r->dir);
        return PF_OK;
    }
    int last = sel->generation;
    if (last < 0 || last >= MAX_GEN) last = 0;
    gen_best b[MAX_GEN];
    best_per_generation(sel, b, last);
    pf_select_free(sel);
    PF_TRY(add_evidence(r->dir, b, last));

    char fpath[PATH_CAP];
    PF_TRY(pf_run_path(r->dir, PF_RUN_FINAL, 0, 0, fpath, sizeof fpath));
    double hf[PF_RUN_TOP];
    int nhf = 0, any = 0;
    if (there(fpath)) {
        pf_final_file fin;
        PF_TRY(pf_final_file_read(fpath, &fin));
        for (int k = 0; k < fin.ntop; k++) {
            hf[k] = fin.top[k].has_y_high ? fin.top[k].y_high : NAN;
            nhf = k + 1;
            any |= positive(hf[k]);
        }
        pf_final_file_release(&fin);
    }

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
    PF_TRY(pf_run_path(run_dir, PF_RUN_FINAL, 0, 0, fpath, sizeof fpath));
    if (!there(fpath)) {
        snprintf(why, why_cap, "no final.msgpack in '%s' yet (run pf-final)", run_dir);
        return PF_OK;
    }
    pf_final_file fin;
    PF_TRY(pf_final_file_read(fpath, &fin));
    char want[PF_SPEC_HASH_HEX] = "";
    double best = INFINITY;
    for (int i = 0; i < fin.ntop && i < PF_RUN_TOP; i++) {
        const pf_final_top *t = &fin.top[i];
        if (!strcmp(t->status, "ok") && t->has_y_high && isfinite(t->y_high) && t->y_high < best) {
            best = t->y_high, *k = i;
            memcpy(want, t->spec_hash, sizeof want);
        }
    }
    char result[sizeof fin.result];
    memcpy(result, fin.result, sizeof result);
    if (result[0]) { /* the file names the selected result.h5 (a baseline's too) */
        memcpy(want, fin.spec_hash, sizeof want);
        *k = 0;
    }
    pf_final_file_release(&fin);
    if (*k < 0) {
        snprintf(why, why_cap, "no entry of the final Top-3 in '%s' ended ok with a finite MSE", fpath);
        return PF_OK;
    }
    if (result[0]) {
        if (strstr(result, "..") || result[0] == '/')
            return pf_fail(PF_ERR_INVALID, "'%s': result '%s' is not a path inside the run", fpath, result);
        int n = snprintf(path, cap, "%s/%s", run_dir, result);
        if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "'%s/%s' is too long", run_dir, result);
    } else {
        PF_TRY(pf_run_path(run_dir, PF_RUN_RESULT, PF_RUN_HIFI, *k, path, cap));
    }
    if (!there(path)) {
        snprintf(why, why_cap, "the final design's '%s' is missing", path);
        return PF_OK;
    }
    pf_result_meta m;
    PF_TRY(pf_result_read_meta(path, &m));
    bool same = !strcmp(m.spec_hash, want);
    pf_result_meta_release(&m);
    if (!same)
        return pf_fail(PF_ERR_IO, "'%s' is the training of spec %.12s, but '%s' names spec %.12s for its design %d: "
                                  "the run's files do not belong together",
                       path, m.spec_hash, fpath, want, *k);
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
