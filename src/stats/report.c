#include "stats/report.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "io/msgpack_json.h"
#include "llm/method.h"
#include "stats/bootstrap.h"
#include "stats/compare.h"
#include "stats/report_internal.h"
#include "stats/table.h"

const char *pf_report_label(const char *method)
{
    const pf_method_def *d = pf_method_def_named(method);
    return d ? d->label : method;
}

bool pf_report_is_ablation(const char *method)
{
    pf_method m;
    return pf_method_from_name(method, &m) == PF_OK && pf_method_is_ablation(m);
}

static bool not_ablation(const char *method, const void *ctx) { return !pf_report_is_ablation(method); }

/* ------------------------------------------------------------ files */

static pf_status put(const pf_report_options *o, const char *name, char *text, int *written)
{
    if (!text) return pf_fail(PF_ERR_NOMEM, "out of memory while writing %s", name);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", o->out_dir, name);
    pf_status st = pf_file_write_atomic(path, text, strlen(text));
    free(text);
    if (st == PF_OK) {
        (*written)++;
        if (!o->quiet) pf_log(PF_LOG_INFO, "wrote %s", path);
    }
    return st;
}

/* name.md and name.tex from the table, name.csv from csv. */
static pf_status put_table(const pf_report_options *o, const char *name, pf_table *t, char *csv, int *written)
{
    char file[PF_RUN_BACKBONE_CAP + 80]; /* table1@<the longest mixture>.tex */
    snprintf(file, sizeof file, "%s.md", name);
    pf_status st = put(o, file, pf_table_markdown(t), written);
    snprintf(file, sizeof file, "%s.tex", name);
    if (st == PF_OK) st = put(o, file, pf_table_latex(t), written);
    snprintf(file, sizeof file, "%s.csv", name);
    if (st == PF_OK) st = put(o, file, csv, written);
    else free(csv);
    pf_table_free(t);
    return st;
}

pf_status pf_report_put_table(const pf_report_options *o, const char *name, pf_table *t, char *csv, int *written)
{
    return put_table(o, name, t, csv, written);
}

/* Close the stream, then read *buf (open_memstream sets it at the close). */
static char *memtext(FILE *f, char **buf)
{
    if (fclose(f) == 0) return *buf;
    free(*buf);
    return NULL;
}

/* ------------------------------------------------------------ helpers */

static const char *profiles(const pf_collection *c, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int i = 0; i < c->n; i++)
        if (pf_collection_takes(c, &c->run[i]) && !strstr(buf, c->run[i].profile)) {
            size_t n = strlen(buf);
            snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", c->run[i].profile);
        }
    return buf;
}

static void runs_range(const pf_means *m, int *lo, int *hi)
{
    *lo = 1 << 30;
    *hi = 0;
    for (int i = 0; i < m->npde; i++)
        for (int j = 0; j < m->nmethod; j++) {
            int r = m->runs[(size_t)i * m->nmethod + j];
            if (isnan(pf_means_mean(m, i, j))) continue;
            if (r < *lo) *lo = r;
            if (r > *hi) *hi = r;
        }
}

/* "7.31E-04 ± 6.13E-05", or the mean alone from one run. */
static void mean_cell(pf_table *t, const pf_means *m, int i, int j, bool bold)
{
    double mu = pf_means_mean(m, i, j), sd = pf_means_std(m, i, j);
    if (isnan(mu)) pf_table_cell(t, false, "--");
    else if (m->runs[(size_t)i * m->nmethod + j] < 2 || isnan(sd)) pf_table_cell(t, bold, "%.2E", mu);
    else pf_table_cell(t, bold, "%.2E ± %.2E", mu, sd);
}

static pf_table *means_table(const char *title, const pf_means *m)
{
    int k = m->nmethod;
    const char **head = malloc(((size_t)k + 1) * sizeof *head);
    if (!head) return NULL;
    head[0] = "PDE";
    for (int j = 0; j < k; j++) head[j + 1] = pf_report_label(m->method[j]);
    pf_table *t = pf_table_alloc(title, k + 1, head);
    free(head);
    if (!t) return NULL;
    for (int i = 0; i < m->npde; i++) {
        int best = -1;
        for (int j = 0; j < k; j++) {
            double v = pf_means_mean(m, i, j);
            if (!isnan(v) && (best < 0 || v < pf_means_mean(m, i, best))) best = j;
        }
        pf_table_row(t, false);
        pf_table_cell(t, false, "%s", m->pde[i]);
        for (int j = 0; j < k; j++) mean_cell(t, m, i, j, j == best && k > 1);
    }
    return t;
}

static void stat_row(pf_table *t, const pf_means *m, const char *label, const json_t *obj, const char *fmt,
                     const char *suffix, bool rule)
{
    pf_table_row(t, rule);
    pf_table_cell(t, false, "%s", label);
    for (int j = 0; j < m->nmethod; j++) {
        json_t *v = json_object_get(obj, m->method[j]);
        if (json_is_number(v)) {
            char num[64];
            snprintf(num, sizeof num, fmt, json_number_value(v));
            pf_table_cell(t, false, "%s%s", num, suffix);
        } else {
            pf_table_cell(t, false, "--");
        }
    }
}

/* ------------------------------------------------------------ main */

/* Whether the table has a column of method d. */
static bool has_column(const pf_means *m, const pf_method_def *d)
{
    for (int j = 0; j < m->nmethod; j++)
        if (!strcmp(m->method[j], d->name)) return true;
    return false;
}

/* What the baseline columns are: the protocol, then the note of each
 * baseline shown (methods.def: what a reconstruction is), in the columns'
 * order. */
static void baseline_notes(pf_table *t, const pf_means *m)
{
    bool any = false;
    for (int i = 0; i < PF_METHOD_COUNT; i++)
        any |= pf_method_is_baseline((pf_method)i) && has_column(m, pf_method_def_of((pf_method)i));
    if (any)
        pf_table_note(t, "Baselines run by this pipeline (search/baseline.h): five candidates each, the lowest MSE "
                         "reported (paper B.8: 5 x 20,000 steps).");
    for (int order = 0; order < PF_METHOD_COUNT; order++) /* the orders are 0 .. count - 1 (tests/test_method.c) */
        for (int i = 0; i < PF_METHOD_COUNT; i++) {
            const pf_method_def *d = pf_method_def_of((pf_method)i);
            if (d->order == order && (d->flags & PF_MF_BASELINE) && d->note && has_column(m, d))
                pf_table_note(t, "%s", d->note);
        }
}

/* The optimism gap of EVAL=heldout runs with its bootstrap interval over
 * runs, or "not enough runs" below PF_OPTIMISM_GAP_MIN_RUNS (none: no note). */
static void optimism_gap_note(pf_table *t, const pf_collection *c)
{
    pf_optimism_gap g;
    if (pf_collection_optimism_gap(c, &g) != PF_OK)
        pf_table_note(t, "Optimism gap: not computed (%s).", pf_errmsg());
    else if (g.n >= PF_OPTIMISM_GAP_MIN_RUNS)
        pf_table_note(t, "Optimism gap (report_mse / selection MSE, median over EVAL=heldout runs): %.3g, 95%% "
                         "bootstrap interval over runs [%.3g, %.3g] (n = %d runs, %d resamples).",
                      g.median, g.lo, g.hi, g.n, PF_BOOTSTRAP_RESAMPLES);
    else if (g.n)
        pf_table_note(t, "Optimism gap (report_mse / selection MSE, median over EVAL=heldout runs): not enough runs "
                         "(n = %d; at least %d give it with a bootstrap interval).",
                      g.n, PF_OPTIMISM_GAP_MIN_RUNS);
}

/* Table 1 of c's runs (c->backbone's, when set) as name.{md,tex,csv} and
 * stats[name]. */
static pf_status main_table(const pf_collection *c, const pf_report_options *o, const char *name, json_t *stats,
                            int *written)
{
    pf_means m;
    PF_TRY(pf_collection_means(c, not_ablation, NULL, &m));
    if (m.npde == 0) {
        pf_means_release(&m);
        return PF_OK;
    }
    pf_means_sort(&m, o->reference);
    pf_table *t = means_table("Mean ± standard deviation of the final MSE over runs", &m);
    if (!t) {
        pf_means_release(&m);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    json_t *cmp = NULL;
    pf_status st = pf_compare(&m, o->reference, &cmp);
    if (st == PF_OK) {
        json_t *fr = json_object_get(cmp, "friedman"), *w = json_object_get(cmp, "wilcoxon");
        stat_row(t, &m, "Friedman avg. rank", json_object_get(fr, "avg_ranks"), "%.2f", "", true);
        pf_table_row(t, false);
        char label[128];
        snprintf(label, sizeof label, "Wilcoxon vs. %s", pf_report_label(o->reference));
        pf_table_cell(t, false, "%s", label);
        for (int j = 0; j < m.nmethod; j++) {
            const char *v = json_string_value(json_object_get(json_object_get(w, m.method[j]), "verdict"));
            pf_table_cell(t, false, "%s", v ? v : "--");
        }
        stat_row(t, &m, "Median CV", json_object_get(cmp, "median_cv"), "%.3f", "", false);
        if (json_object_get(fr, "why")) {
            const char *why = json_string_value(json_object_get(fr, "why"));
            pf_table_note(t, "%c%s.", toupper((unsigned char)why[0]), why + 1);
        }
        else
            pf_table_note(t, "Friedman test on per-task ranks of the mean MSE: χ²_F = %.3f, p = %.3g (%lld tasks with every method).",
                          json_number_value(json_object_get(fr, "chi2")), json_number_value(json_object_get(fr, "p")),
                          (long long)json_integer_value(json_object_get(fr, "tasks")));
        char list[2048] = "";
        for (int j = 0; j < m.nmethod; j++) {
            json_t *e = json_object_get(w, m.method[j]);
            if (!json_is_number(json_object_get(e, "p_holm"))) continue;
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s%s %.3g (%s)", n ? ", " : "", pf_report_label(m.method[j]),
                     json_number_value(json_object_get(e, "p_holm")), json_string_value(json_object_get(e, "method")));
        }
        if (*list)
            pf_table_note(t, "Wilcoxon signed-rank tests on log10 per-task mean MSE against %s, Holm-adjusted p: %s; "
                             "+ / = / -: %s significantly better / indistinguishable / worse at alpha = %.2f.",
                          pf_report_label(o->reference), list, pf_report_label(o->reference), PF_STATS_ALPHA);
        json_object_set_new(stats, name, cmp);
    } else {
        pf_table_note(t, "No statistics: %s.", pf_errmsg());
    }
    baseline_notes(t, &m);
    pf_report_backbone_note(t, c);
    if (c->metric == PF_METRIC_REPORT)
        pf_table_note(t, "MSE: report_mse (under EVAL=heldout the half of the evaluation points no decision saw).");
    optimism_gap_note(t, c);
    pf_table_note(t, "What each method spent (LLM calls, tokens and cost, LLM and training wall time, optimizer "
                     "steps): budget.md.");
    int lo, hi;
    char prof[256];
    runs_range(&m, &lo, &hi);
    if (lo == hi) pf_table_note(t, "Runs per cell: %d; profile: %s. Best mean per PDE in bold.", lo, profiles(c, prof, sizeof prof));
    else pf_table_note(t, "Runs per cell: %d to %d; profile: %s. Best mean per PDE in bold.", lo, hi, profiles(c, prof, sizeof prof));
    st = put_table(o, name, t, pf_means_csv(&m), written);
    pf_means_release(&m);
    return st;
}

pf_status pf_report_main_table(const pf_collection *c, const pf_report_options *o, const char *name, json_t *stats,
                               int *written)
{
    return main_table(c, o, name, stats, written);
}

/* ------------------------------------------------------------ ablation */

static bool has_ablation(const pf_collection *c)
{
    for (int i = 0; i < c->n; i++)
        if (c->run[i].final && pf_report_is_ablation(c->run[i].method)) return true;
    return false;
}

static bool ablation_or_ref(const char *method, const void *reference)
{
    return pf_report_is_ablation(method) || !strcmp(method, reference);
}

static pf_status ablation_table(const pf_collection *c, const pf_report_options *o, json_t *stats, int *written)
{
    if (!has_ablation(c)) return PF_OK;
    pf_means m;
    PF_TRY(pf_collection_means(c, ablation_or_ref, o->reference, &m));
    pf_means_drop_sparse(&m, 2); /* a PDE with the reference alone has nothing to compare */
    pf_means_sort(&m, o->reference);
    pf_table *t = means_table("Component ablation: mean ± standard deviation of the final MSE", &m);
    if (!t) {
        pf_means_release(&m);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    json_t *cmp = NULL;
    if (pf_compare(&m, o->reference, &cmp) == PF_OK) {
        stat_row(t, &m, "Median error ratio", json_object_get(cmp, "median_ratio"), "%.2f", "×", true);
        pf_table_note(t, "Median over PDEs of the task-wise ratio MSE(variant) / MSE(%s); lower is better.",
                      pf_report_label(o->reference));
        json_object_set_new(stats, "ablation", cmp);
    } else {
        pf_table_note(t, "No ratios: %s.", pf_errmsg());
    }
    pf_status st = put_table(o, "ablation", t, pf_means_csv(&m), written);
    pf_means_release(&m);
    return st;
}

/* ------------------------------------------------------------ trajectory */

/* A table and the stream its CSV is written to (open_memstream sets *buf). */
static pf_status start(pf_table **t, const char *title, int ncols, const char *const *head, const char *align,
                       FILE **f, char **buf, size_t *len)
{
    *buf = NULL;
    *t = pf_table_alloc(title, ncols, head);
    *f = *t ? open_memstream(buf, len) : NULL;
    if (!*f) {
        pf_table_free(*t);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    pf_table_align(*t, align);
    return PF_OK;
}

static void mse_cell(pf_table *t, double v)
{
    if (isfinite(v)) pf_table_cell(t, false, "%.2E", v);
    else pf_table_cell(t, false, "--");
}

static void ratio_cell(pf_table *t, double a, double b)
{
    if (isfinite(a) && isfinite(b) && b > 0) pf_table_cell(t, false, "%.2f×", a / b);
    else pf_table_cell(t, false, "--");
}

static void csv_num(FILE *f, double v, bool last)
{
    if (isfinite(v)) fprintf(f, "%.9e", v);
    fputc(last ? '\n' : ',', f);
}

static pf_status trajectory_table(const pf_collection *c, const pf_report_options *o, int *written)
{
    const char *head[] = {"PDE", "Method", "Run", "Generation-0 best", "Best LF", "Final HF", "G0 → Best LF",
                          "G0 → Final HF"};
    pf_table *t;
    char *buf;
    size_t len;
    FILE *f;
    PF_TRY(start(&t, "Search trajectories: MSE of the best designs", 8, head, "llrrrrrr", &f, &buf, &len));
    fprintf(f, "pde,method,run,profile,generations,g0_best,best_lf,best_lf_generation,final_hf,ratio_best_lf,ratio_final_hf\n");
    for (int i = 0; i < c->n; i++) {
        const pf_run_summary *s = &c->run[i];
        pf_table_row(t, false);
        pf_table_cell(t, false, "%s", s->pde);
        pf_table_cell(t, false, "%s", pf_report_label(s->cell));
        pf_table_cell(t, false, "%d", s->run);
        mse_cell(t, s->g0_best);
        if (s->best_lf_generation >= 0) pf_table_cell(t, false, "%.2E (G%d)", s->best_lf, s->best_lf_generation);
        else pf_table_cell(t, false, "--");
        mse_cell(t, s->hf_mse);
        ratio_cell(t, s->g0_best, s->best_lf);
        ratio_cell(t, s->g0_best, s->hf_mse);
        fprintf(f, "%s,%s,%d,%s,%d,", s->pde, s->cell, s->run, s->profile, s->generations);
        csv_num(f, s->g0_best, false);
        csv_num(f, s->best_lf, false);
        if (s->best_lf_generation >= 0) fprintf(f, "%d", s->best_lf_generation);
        fputc(',', f);
        csv_num(f, s->hf_mse, false);
        csv_num(f, s->best_lf > 0 ? s->g0_best / s->best_lf : NAN, false);
        csv_num(f, s->hf_mse > 0 ? s->g0_best / s->hf_mse : NAN, true);
    }
    pf_table_note(t, "Generation-0 best: the lowest MSE among the initial candidates; Best LF: the lowest low-fidelity "
                     "MSE of the search (its generation); Final HF: the lowest MSE of the independently retrained "
                     "Global Top-3 (-- while a run has not finished).");
    return put_table(o, "trajectory", t, memtext(f, &buf), written);
}

pf_status pf_report_start(pf_table **t, const char *title, int ncols, const char *const *head, const char *align,
                          FILE **f, char **buf, size_t *len)
{
    return start(t, title, ncols, head, align, f, buf, len);
}

char *pf_report_memtext(FILE *f, char **buf) { return memtext(f, buf); }

/* ------------------------------------------------------------ budget */

static pf_status budget_pde_table(const pf_collection *c, const pf_report_options *o, int *written)
{
    const char *head[] = {"PDE",       "Method",    "Backbone",       "Runs",             "Candidates", "LF steps", "HF steps",
                          "Baseline steps", "LF wall s", "HF wall s", "Baseline wall s", "LLM calls", "LLM tokens"};
    pf_table *t;
    char *buf;
    size_t len;
    FILE *f;
    PF_TRY(start(&t, "Budget per run and PDE (means over finished runs)", 13, head, "lllrrrrrrrrrr", &f, &buf, &len));
    fprintf(f, "pde,method,backbone,runs,candidates,invalid,steps_lf,steps_hf,steps_total,wall_lf_s,wall_hf_s,llm_s,llm_calls,"
               "prompt_tokens,completion_tokens,steps_baseline,wall_baseline_s\n");
    bool offline = false, baseline = false;
    enum { NV = 13 };
    for (int i = 0, j; i < c->n; i = j) {
        double a[NV] = {0};
        int n = 0;
        for (j = i; j < c->n && !strcmp(c->run[j].pde, c->run[i].pde) && !strcmp(c->run[j].cell, c->run[i].cell); j++) {
            const pf_run_summary *s = &c->run[j];
            if (!s->final) continue;
            double v[NV] = {(double)s->candidates, (double)s->invalid, (double)s->steps_lf, (double)s->steps_hf,
                            (double)(s->steps_lf + s->steps_hf + s->steps_base), s->wall_lf_s, s->wall_hf_s, s->llm_s,
                            (double)s->llm_calls, (double)s->prompt_tokens, (double)s->completion_tokens,
                            (double)s->steps_base, s->wall_base_s};
            for (int k = 0; k < NV; k++) a[k] += v[k];
            offline |= !strcmp(s->llm, "offline") && s->steps_base == 0;
            baseline |= s->steps_base > 0;
            n++;
        }
        if (n == 0) continue;
        for (int k = 0; k < NV; k++) a[k] /= n;
        pf_table_row(t, false);
        pf_table_cell(t, false, "%s", c->run[i].pde);
        pf_table_cell(t, false, "%s", pf_report_label(c->run[i].method));
        pf_table_cell(t, false, "%s", c->run[i].backbone[0] ? c->run[i].backbone : "none");
        pf_table_cell(t, false, "%d", n);
        pf_table_cell(t, false, "%.1f", a[0]);
        pf_table_cell(t, false, "%.0f", a[2]);
        pf_table_cell(t, false, "%.0f", a[3]);
        pf_table_cell(t, false, "%.0f", a[11]);
        pf_table_cell(t, false, "%.1f", a[5]);
        pf_table_cell(t, false, "%.1f", a[6]);
        pf_table_cell(t, false, "%.1f", a[12]);
        pf_table_cell(t, false, "%.1f", a[8]);
        pf_table_cell(t, false, "%.0f", a[9] + a[10]);
        fprintf(f, "%s,%s,%s,%d", c->run[i].pde, c->run[i].method, c->run[i].backbone, n);
        for (int k = 0; k < NV; k++) fprintf(f, ",%.6g", a[k]);
        fputc('\n', f);
    }
    pf_table_note(t, "Optimizer steps of the low-fidelity search and the high-fidelity retraining of the Top-3; "
                     "wall time of training only (the paper reports steps alone); LLM tokens: prompt + completion.");
    if (baseline)
        pf_table_note(t, "Baseline steps: a baseline's five independently initialized candidates together "
                         "(paper B.8: 5 x 20,000 at the paper profile); a baseline calls no LLM.");
    if (offline)
        pf_table_note(t, "Runs with the offline proposer call no LLM: their calls are offline proposals and their "
                         "'tokens' are the words of the prompts the proposer reads.");
    return put_table(o, "budget_pde", t, memtext(f, &buf), written);
}

/* The end-to-end cost per method and backbone (a cell, collect.h: runs of
 * two backbones are never summed together) over every finished run of every
 * PDE: per run (mean) and in all (sum). */
enum { B_CALLS, B_IN, B_OUT, B_COST, B_LLM_S, B_TRAIN_S, B_STEPS, B_N };

static void budget_values(const pf_run_summary *s, double v[B_N])
{
    v[B_CALLS] = (double)s->llm_calls;
    v[B_IN] = (double)s->prompt_tokens;
    v[B_OUT] = (double)s->completion_tokens;
    v[B_COST] = isfinite(s->cost) ? s->cost : 0;
    v[B_LLM_S] = isfinite(s->llm_s) ? s->llm_s : 0;
    v[B_TRAIN_S] = (isfinite(s->wall_lf_s) ? s->wall_lf_s : 0) + (isfinite(s->wall_hf_s) ? s->wall_hf_s : 0) + s->wall_base_s;
    v[B_STEPS] = (double)(s->steps_lf + s->steps_hf + s->steps_base);
}

/* One cell of the table below: the mean, then the sum; an unpriced cost starred. */
static void budget_cell(pf_table *t, int k, double mean, double sum, bool priced)
{
    switch (k) {
    case B_CALLS: pf_table_cell(t, false, "%.1f (Σ %.0f)", mean, sum); break;
    case B_COST: pf_table_cell(t, false, "%.4g%s (Σ %.4g)", mean, priced ? "" : "*", sum); break;
    case B_LLM_S:
    case B_TRAIN_S: pf_table_cell(t, false, "%.1f (Σ %.1f)", mean, sum); break;
    default: pf_table_cell(t, false, "%.0f (Σ %.0f)", mean, sum); break;
    }
}

static pf_status budget_table(const pf_collection *c, const pf_report_options *o, int *written)
{
    const char *head[] = {"Method", "Backbone", "Runs", "LLM calls", "Input tokens", "Output tokens", "Cost", "LLM wall s",
                          "Training wall s", "Optimizer steps"};
    pf_table *t;
    char *buf;
    size_t len;
    FILE *f;
    PF_TRY(start(&t, "End-to-end budget per method and backbone: mean per run (Σ sum over runs)", 10, head,
                 "llrrrrrrrr", &f, &buf, &len));
    fprintf(f, "method,backbone,runs,calls_mean,prompt_tokens_mean,completion_tokens_mean,cost_mean,llm_s_mean,training_s_mean,"
               "steps_mean,calls_sum,prompt_tokens_sum,completion_tokens_sum,cost_sum,llm_s_sum,training_s_sum,"
               "steps_sum,priced\n");
    bool unpriced_any = false, stopped_any = false;
    for (int i = 0; i < c->n; i++) {
        bool first = c->run[i].final;
        for (int j = 0; first && j < i; j++) first = !(c->run[j].final && !strcmp(c->run[j].cell, c->run[i].cell));
        if (!first) continue; /* each method and backbone once, where its first finished run is */
        double sum[B_N] = {0};
        int n = 0, stopped = 0;
        bool priced = true;
        for (int j = i; j < c->n; j++) {
            const pf_run_summary *s = &c->run[j];
            if (!s->final || strcmp(s->cell, c->run[i].cell)) continue;
            double v[B_N];
            budget_values(s, v);
            for (int k = 0; k < B_N; k++) sum[k] += v[k];
            priced &= s->priced || s->llm_calls == 0;
            stopped += !strcmp(s->stopped, "llm budget");
            n++;
        }
        pf_table_row(t, false);
        pf_table_cell(t, false, "%s", pf_report_label(c->run[i].method));
        pf_table_cell(t, false, "%s", c->run[i].backbone[0] ? c->run[i].backbone : "none");
        if (stopped) pf_table_cell(t, false, "%d (%d stopped)", n, stopped);
        else pf_table_cell(t, false, "%d", n);
        for (int k = 0; k < B_N; k++) budget_cell(t, k, sum[k] / n, sum[k], priced);
        unpriced_any |= !priced;
        stopped_any |= stopped > 0;
        fprintf(f, "%s,%s,%d", c->run[i].method, c->run[i].backbone, n);
        for (int k = 0; k < B_N; k++) fprintf(f, ",%.9g", sum[k] / n);
        for (int k = 0; k < B_N; k++) fprintf(f, ",%.9g", sum[k]);
        fprintf(f, ",%s\n", priced ? "true" : "false");
    }
    pf_table_note(t, "Per method and backbone (none: a baseline, or the offline proposer) over every "
                     "PDE: LLM calls (proposals, re-asks and posterior summaries), their prompt "
                     "(input) and completion (output) tokens, their cost at the prices of the backbones file "
                     "(docs/llm.md), the time spent in them, and the trainings' wall time and optimizer steps (low and "
                     "high fidelity, or a baseline's candidates): the end-to-end accounting the paper leaves out. "
                     "budget_pde.md has them per PDE.");
    if (unpriced_any)
        pf_table_note(t, "*: some calls had no price (a server named by PF_LLM_URL, not a backbone of the backbones "
                         "file): their cost counts as 0.");
    if (stopped_any)
        pf_table_note(t, "Stopped: runs whose LLM budget (LLM_MAX_TOKENS, LLM_MAX_COST) ended the search early.");
    return put_table(o, "budget", t, memtext(f, &buf), written);
}

/* ------------------------------------------------------------ all */

pf_status pf_report_tables(const pf_collection *c, const pf_report_options *o, int *written)
{
    *written = 0;
    PF_TRY(pf_mkdirs(o->out_dir));
    pf_collection one = *c; /* the main and ablation tables: one backbone's runs */
    PF_TRY(pf_report_main_backbone(c, o, &one.backbone));
    json_t *stats = json_object();
    pf_status st = main_table(&one, o, "main", stats, written);
    if (st == PF_OK) st = ablation_table(&one, o, stats, written);
    if (st == PF_OK) st = pf_report_backbones(c, o, stats, written);
    if (st == PF_OK && c->n > 0) st = trajectory_table(c, o, written);
    if (st == PF_OK && c->n > 0) st = budget_table(c, o, written);
    if (st == PF_OK && c->n > 0) st = budget_pde_table(c, o, written);
    if (st == PF_OK) st = put(o, "statistics.json", json_dumps(stats, JSON_INDENT(2) | JSON_REAL_PRECISION(10)), written);
    json_decref(stats);
    return st;
}

/* ------------------------------------------------------------ index */

static bool file_exists(const char *dir, const char *name)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* The search first, then its training curves, then the rest by name. */
static int png_rank(const char *name)
{
    return !strcmp(name, "trajectory.png") ? 0 : !strcmp(name, "curves.png") ? 1 : 2;
}

static int cmp_png(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int c = png_rank(x) - png_rank(y);
    return c ? c : strcmp(x, y);
}

/* The PNGs in dir/rel, linked as rel/NAME (pf-plot's order, stats/plot.h). */
static void pngs(FILE *f, const char *dir, const char *rel)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(f, "No plots yet (`make report` runs pf-plot into %s/).\n\n", rel);
        return;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && !strcmp(e->d_name + len - 4, ".png") && (names[n] = strdup(e->d_name))) n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_png);
    for (int i = 0; i < n; i++) {
        fprintf(f, "![%s](%s/%s)\n\n", names[i], rel, names[i]);
        free(names[i]);
    }
    if (n == 0) fprintf(f, "No plots in %s/.\n\n", rel);
}

pf_status pf_report_index(const pf_collection *c, const pf_report_options *o, const char *pde)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return pf_fail(PF_ERR_NOMEM, "out of memory");
    fprintf(f, "# %s\n\nWritten by `pf-stats --pde %s` from the runs it found; nothing was re-run.\n\n## Tables\n\n", pde, pde);
    static const char *const tables[][2] = {{"main", "final MSE per method (mean ± std over runs) and the statistics"},
                                            {"ablation", "the ablations against the reference"},
                                            {"trajectory", "per run: Generation-0 best, best low-fidelity, final high-fidelity"},
                                            {"budget", "per method and backbone: LLM calls, tokens, cost, LLM and training wall time, optimizer steps"},
                                            {"budget_pde", "per PDE and method: optimizer steps, wall time, LLM calls and tokens"},
                                            {"backbones_friedman", "per LLM-driven method, does the backbone matter"},
                                            {"backbones_kendall", "do the backbones rank the methods alike (Kendall's W)"},
                                            {"backbones_wtl", "the reference's wins, ties and losses per backbone"}};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char md[64];
        snprintf(md, sizeof md, "%s.md", tables[i][0]);
        if (file_exists(o->out_dir, md))
            fprintf(f, "- [%s](%s) (also [.tex](%s.tex), [.csv](%s.csv)): %s\n", tables[i][0], md, tables[i][0],
                    tables[i][0], tables[i][1]);
    }
    if (file_exists(o->out_dir, "statistics.json")) fprintf(f, "- [statistics.json](statistics.json)\n");
    fprintf(f, "\n## Runs\n\n");
    for (int i = 0; i < c->n; i++) {
        const pf_run_summary *s = &c->run[i];
        if (strcmp(s->pde, pde)) continue;
        char rel[sizeof s->cell + 32];
        snprintf(rel, sizeof rel, "%s/run%d", s->cell, s->run);
        fprintf(f, "### %s, run %d\n\n`%s` (profile %s, proposer %s): %d generation%s", pf_report_label(s->cell), s->run,
                s->dir, s->profile, s->llm, s->generations, s->generations == 1 ? "" : "s");
        if (s->best_lf_generation >= 0) fprintf(f, ", best low-fidelity MSE %.3e (generation %d)", s->best_lf, s->best_lf_generation);
        if (s->final) fprintf(f, ", final high-fidelity MSE %.3e.\n\n", s->hf_mse);
        else fprintf(f, "; not finished (no final.msgpack).\n\n");
        pngs(f, o->out_dir, rel);
    }
    char *text = memtext(f, &buf);
    int written = 0;
    return put(o, "index.md", text, &written);
}
