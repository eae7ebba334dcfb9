/*
 * test_report.c — pf-stats' library side (src/stats/collect.h, report.h,
 * table.h) on a synthetic runs/ tree with known numbers: the collected
 * trajectories and budgets, and tables whose means, stds, ratios and
 * statistics match the inputs, read back from the CSVs and JSON written.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/msgpack_json.h"
#include "stats/collect.h"
#include "stats/means.h"
#include "stats/report.h"
#include "stats/table.h"
#include "select_fixture.h"

static char root[64];

static void mk(const char *path) { cr_assert(mkdir(path, 0777) == 0 || access(path, F_OK) == 0, "mkdir %s", path); }

/* One run: context.json, gen00 + gen01 selects (gen02 skipped), and
 * final.msgpack with hf (hf < 0: no final). Generation 0's ok best is 0.2
 * (0.1 ended nan), the search's best 0.05 in generation 1. */
static void make_run(const char *pde, const char *method, int run, double hf, long steps_lf)
{
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/%s", root, pde);
    mk(dir);
    snprintf(dir, sizeof dir, "%s/%s/%s", root, pde, method);
    mk(dir);
    snprintf(dir, sizeof dir, "%s/%s/%s/run%d", root, pde, method, run);
    mk(dir);
    json_t *ctx = json_pack("{s:s, s:s, s:i, s:s, s:s}", "pde", pde, "method", method, "run", run, "budget", "quick",
                            "llm", "offline");
    snprintf(path, sizeof path, "%s/context.json", dir);
    cr_assert_eq(json_dump_file(ctx, path, 0), 0);
    json_decref(ctx);
    static const fixture_cand c[] = {{0, 0, "ok", 0.5}, {0, 1, "ok", 0.2}, {0, 2, "nan", 0.1}, {1, 0, "ok", 0.05},
                                     {1, 1, "ok", 0.3}};
    write_selections(dir, c, 5, 2, 2); /* generation 1 is the last; gen02 a skipped copy */
    if (hf < 0) return;
    /* ropinn's calls have no price (a server named by PF_LLM_URL) */
    json_t *fin = json_pack("{s:s, s:i, s:f, s:{s:{s:I, s:I}, s:{s:f, s:f, s:f}, s:{s:I, s:I, s:I, s:f, s:b}, s:I, s:I}}",
                            "format", "pinnforge.final", "version", 1, "hf_mse", hf, "budget", "optimizer_steps",
                            "low_fidelity", (json_int_t)steps_lf, "high_fidelity", (json_int_t)3000, "wall_s",
                            "low_fidelity", 10.0, "high_fidelity", 5.0, "llm", 0.5, "llm", "calls", (json_int_t)13,
                            "prompt_tokens", (json_int_t)1000, "completion_tokens", (json_int_t)100, "cost", 0.25,
                            "priced", strcmp(method, "ropinn") != 0, "candidates", (json_int_t)13, "invalid",
                            (json_int_t)0);
    snprintf(path, sizeof path, "%s/final.msgpack", dir);
    cr_assert_eq(pf_msgpack_write_file(path, fin), PF_OK, "%s", pf_errmsg());
    json_decref(fin);
}

/* burgers_1d: pinnforge 1e-3, 2e-3, 3e-3 (+ one unfinished run), ropinn
 * 4e-3, 6e-3, no_feedback 8e-3, 1.2e-2; poisson_5d: pinnforge 1e-6 x 3,
 * ropinn 3e-6, 5e-6, no_feedback 2e-6 x 2. */
static void make_tree(void)
{
    snprintf(root, sizeof root, "/tmp/pf-report-XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    const double bp[] = {1e-3, 2e-3, 3e-3}, pp[] = {1e-6, 1e-6, 1e-6};
    for (int r = 0; r < 3; r++) {
        make_run("burgers_1d", "pinnforge", r, bp[r], 1000 * (r + 1));
        make_run("poisson_5d", "pinnforge", r, pp[r], 5000);
    }
    make_run("burgers_1d", "pinnforge", 3, -1, 0);
    make_run("burgers_1d", "ropinn", 0, 4e-3, 100000);
    make_run("burgers_1d", "ropinn", 1, 6e-3, 100000);
    make_run("poisson_5d", "ropinn", 0, 3e-6, 100000);
    make_run("poisson_5d", "ropinn", 1, 5e-6, 100000);
    make_run("burgers_1d", "no_feedback", 0, 8e-3, 5000);
    make_run("burgers_1d", "no_feedback", 1, 1.2e-2, 5000);
    make_run("poisson_5d", "no_feedback", 0, 2e-6, 5000);
    make_run("poisson_5d", "no_feedback", 1, 2e-6, 5000);
}

static void remove_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
}

static void rel(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol * fabs(want), "%s: %.10g, want %.10g", what, got, want);
}

static char *slurp(const char *dir, const char *name)
{
    char path[600], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(pf_file_read(path, &text, &len), PF_OK, "%s", pf_errmsg());
    return text;
}

Test(report, collect_trajectory_and_budget)
{
    make_tree();
    pf_collection c;
    cr_assert_eq(pf_collect(root, NULL, &c), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(c.n, 15);
    int finals = 0;
    for (int i = 0; i < c.n; i++) finals += c.run[i].final;
    cr_assert_eq(finals, 14);
    const pf_run_summary *s = &c.run[0]; /* burgers_1d (registry order), no_feedback (by name), run 0 */
    cr_assert_str_eq(s->pde, "burgers_1d");
    cr_assert_str_eq(s->method, "no_feedback");
    cr_assert_eq(s->run, 0);
    cr_assert_eq(s->generations, 2, "the skipped generation does not count");
    rel(s->g0_best, 0.2, 0, "Generation-0 best (the nan-status 0.1 is not ranked)");
    rel(s->best_lf, 0.05, 0, "best low fidelity");
    cr_assert_eq(s->best_lf_generation, 1);
    rel(s->hf_mse, 8e-3, 0, "final");
    cr_assert_eq(s->steps_hf, 3000);
    cr_assert_eq(s->prompt_tokens, 1000);
    cr_assert_str_eq(c.run[c.n - 1].pde, "poisson_5d");
    pf_collection_release(&c);
    cr_assert_eq(pf_collect(root, "poisson_5d", &c), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(c.n, 7);
    pf_collection_release(&c);
    cr_assert_eq(pf_collect(root, "wave_1d", &c), PF_ERR_IO, "a PDE without runs");
    remove_tree();
}

/* Backbones (collect.h): burgers_1d's no_feedback runs moved to
 * no_feedback@b are backbone b's; pinnforge's plain folder (llm offline)
 * is the backbone offline; ropinn asks no LLM and has none. A plain
 * no_feedback run (5e-3) beside the @b ones: the cell has two backbones,
 * which the means refuse unless one is chosen. */
Test(report, backbones_of_runs_and_their_cells)
{
    make_tree();
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/burgers_1d/no_feedback", root);
    snprintf(to, sizeof to, "%s/burgers_1d/no_feedback@b", root);
    cr_assert_eq(rename(from, to), 0);
    for (int r = 0; r < 2; r++) { /* their settings say so too, as make writes them (search/artifact.h) */
        char path[600];
        snprintf(path, sizeof path, "%s/run%d/context.json", to, r);
        json_t *ctx = json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "pde", "burgers_1d", "method", "no_feedback", "run", r,
                                "budget", "quick", "llm", "http", "backbone", "b");
        cr_assert_eq(json_dump_file(ctx, path, 0), 0);
        json_decref(ctx);
    }
    pf_collection c;
    cr_assert_eq(pf_collect(root, "burgers_1d", &c), PF_OK, "%s", pf_errmsg());
    for (int i = 0; i < c.n; i++) {
        const char *want = !strcmp(c.run[i].method, "ropinn") ? "" : !strcmp(c.run[i].method, "pinnforge") ? "offline" : "b";
        cr_expect_str_eq(c.run[i].backbone, want, "%s", c.run[i].dir);
    }
    const char *bb[8];
    cr_assert_eq(pf_collection_backbones(&c, bb, 8), 2);
    cr_expect_str_eq(bb[0], "b");
    cr_expect_str_eq(bb[1], "offline");
    pf_collection_release(&c);

    make_run("burgers_1d", "no_feedback", 0, 5e-3, 5000);
    cr_assert_eq(pf_collect(root, "burgers_1d", &c), PF_OK, "%s", pf_errmsg());
    pf_means m;
    cr_expect_eq(pf_collection_means(&c, NULL, NULL, &m), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "burgers_1d / no_feedback has finished runs of several backbones"), "%s", pf_errmsg());
    c.backbone = "b";
    cr_assert_eq(pf_collection_means(&c, NULL, NULL, &m), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(pf_means_method(&m, "pinnforge"), -1, "the offline runs are not b's");
    rel(pf_means_mean(&m, 0, pf_means_method(&m, "no_feedback")), 1e-2, 1e-12, "b's no_feedback");
    rel(pf_means_mean(&m, 0, pf_means_method(&m, "ropinn")), 5e-3, 1e-12, "the shared ropinn");
    pf_means_release(&m);
    c.backbone = "offline";
    cr_assert_eq(pf_collection_means(&c, NULL, NULL, &m), PF_OK, "%s", pf_errmsg());
    rel(pf_means_mean(&m, 0, pf_means_method(&m, "no_feedback")), 5e-3, 1e-12, "the offline no_feedback");
    rel(pf_means_mean(&m, 0, pf_means_method(&m, "pinnforge")), 2e-3, 1e-12, "the offline pinnforge");
    pf_means_release(&m);
    pf_collection_release(&c);
    remove_tree();
}

/* A runs tree with folders but no run<R>/ in them: no runs, and no
 * qsort(NULL, 0) (UBSan: a null argument declared nonnull). */
Test(report, collect_a_tree_without_runs)
{
    snprintf(root, sizeof root, "/tmp/pf-report-XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    char dir[512];
    snprintf(dir, sizeof dir, "%s/burgers_1d", root);
    mk(dir);
    snprintf(dir, sizeof dir, "%s/burgers_1d/pinnforge", root);
    mk(dir);
    snprintf(dir, sizeof dir, "%s/burgers_1d/pinnforge/notarun", root);
    mk(dir);
    pf_collection c;
    cr_assert_eq(pf_collect(root, NULL, &c), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(c.n, 0);
    pf_collection_release(&c);
    cr_assert_eq(pf_collect(root, "burgers_1d", &c), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(c.n, 0);
    pf_collection_release(&c);
    remove_tree();
}

Test(report, tables_match_the_inputs)
{
    make_tree();
    pf_collection c;
    cr_assert_eq(pf_collect(root, NULL, &c), PF_OK, "%s", pf_errmsg());
    char out[128];
    snprintf(out, sizeof out, "%s/reports/all", root);
    pf_report_options o = {out, "pinnforge", true, NULL};
    int written;
    cr_assert_eq(pf_report_tables(&c, &o, &written), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(written, 16, "main, ablation, trajectory, budget, budget_pde x 3 formats + statistics.json");

    pf_means m;
    char path[256];
    snprintf(path, sizeof path, "%s/main.csv", out);
    cr_assert_eq(pf_means_read_csv(path, &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(m.nmethod, 2, "the main table leaves the ablation out");
    int b = pf_means_pde(&m, "burgers_1d"), p = pf_means_pde(&m, "poisson_5d");
    int pf = pf_means_method(&m, "pinnforge"), ro = pf_means_method(&m, "ropinn");
    cr_assert(b >= 0 && p >= 0 && pf >= 0 && ro >= 0);
    rel(pf_means_mean(&m, b, pf), 2e-3, 1e-8, "burgers pinnforge mean (the unfinished run left out)");
    rel(pf_means_std(&m, b, pf), 1e-3, 1e-8, "burgers pinnforge std");
    cr_assert_eq(m.runs[b * m.nmethod + pf], 3);
    rel(pf_means_mean(&m, b, ro), 5e-3, 1e-8, "burgers ropinn mean");
    rel(pf_means_std(&m, b, ro), sqrt(2) * 1e-3, 1e-8, "burgers ropinn std");
    rel(pf_means_mean(&m, p, ro), 4e-6, 1e-8, "poisson ropinn mean");
    pf_means_release(&m);

    snprintf(path, sizeof path, "%s/ablation.csv", out);
    cr_assert_eq(pf_means_read_csv(path, &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(m.nmethod, 2);
    cr_assert_str_eq(m.method[0], "no_feedback");
    cr_assert_str_eq(m.method[1], "pinnforge", "the reference last");
    pf_means_release(&m);

    char *md = slurp(out, "main.md");
    cr_assert(strstr(md, "| burgers_1d | 5.00E-03 ± 1.41E-03 | **2.00E-03 ± 1.00E-03** |"), "%s", md);
    cr_assert(strstr(md, "| Wilcoxon vs. PINNForge | = | -- |"), "two tasks cannot be significant:\n%s", md);
    free(md);
    char *tex = slurp(out, "ablation.tex");
    cr_assert(strstr(tex, "\\textbf{2.00E-03 $\\pm$ 1.00E-03}") && strstr(tex, "3.50$\\times$") &&
                  strstr(tex, "burgers\\_1d"),
              "%s", tex);
    free(tex);

    json_error_t e;
    snprintf(path, sizeof path, "%s/statistics.json", out);
    json_t *st = json_load_file(path, 0, &e);
    cr_assert_not_null(st, "%s", e.text);
    /* no_feedback / pinnforge: burgers 1e-2 / 2e-3 = 5, poisson 2e-6 / 1e-6 = 2 */
    rel(json_number_value(json_object_get(json_object_get(json_object_get(st, "ablation"), "median_ratio"), "no_feedback")),
        3.5, 1e-9, "median error ratio");
    json_t *w = json_object_get(json_object_get(json_object_get(st, "main"), "wilcoxon"), "ropinn");
    cr_assert_eq(json_integer_value(json_object_get(w, "n")), 2);
    rel(json_number_value(json_object_get(w, "w_plus")), 3, 0, "ropinn worse on both");
    rel(json_number_value(json_object_get(w, "p")), 0.5, 1e-12, "exact p of n = 2");
    json_decref(st);

    char *traj = slurp(out, "trajectory.csv");
    int lines = 0;
    for (char *q = traj; *q; q++) lines += *q == '\n';
    cr_assert_eq(lines, 16, "header + 15 runs");
    cr_assert(strstr(traj, "burgers_1d,pinnforge,3,quick,2,2.000000000e-01,5.000000000e-02,1,,4.000000000e+00,\n"), "%s", traj);
    cr_assert(strstr(traj, "burgers_1d,pinnforge,1,quick,2,2.000000000e-01,5.000000000e-02,1,2.000000000e-03,"
                           "4.000000000e+00,1.000000000e+02"),
              "%s", traj);
    free(traj);
    char *budget = slurp(out, "budget_pde.csv");
    /* burgers pinnforge: LF steps 1000, 2000, 3000 over the three finished runs */
    cr_assert(strstr(budget, "burgers_1d,pinnforge,offline,3,13,0,2000,3000,5000,10,5,0.5,13,1000,100,0,0\n"), "%s", budget);
    free(budget);
    /* per method over both PDEs: pinnforge's 6 finished runs, steps 1000..3000 + 3000 on burgers_1d and
     * 5000 + 3000 on poisson_5d (39,000 in all), 10 + 5 s of training each, 13 calls at 0.25 each */
    budget = slurp(out, "budget.csv");
    cr_assert(strstr(budget, "pinnforge,offline,6,13,1000,100,0.25,0.5,15,6500,78,6000,600,1.5,3,90,39000,true\n"), "%s", budget);
    cr_assert(strstr(budget, "ropinn,,4,13,1000,100,0.25,0.5,15,103000,52,4000,400,1,2,60,412000,false\n"), "%s", budget);
    free(budget);
    md = slurp(out, "budget.md");
    cr_assert(strstr(md, "| PINNForge | offline | 6 | 13.0 (Σ 78) | 1000 (Σ 6000) | 100 (Σ 600) | 0.25 (Σ 1.5) | 0.5 (Σ 3.0) | "
                         "15.0 (Σ 90.0) | 6500 (Σ 39000) |"),
              "%s", md);
    cr_assert(strstr(md, "| 0.25* (Σ 1) |") && strstr(md, "*: some calls had no price"), "ropinn unpriced:\n%s", md);
    free(md);
    md = slurp(out, "main.md");
    cr_assert(strstr(md, "budget.md"), "the main table points to the budget:\n%s", md);
    free(md);
    pf_collection_release(&c);
    remove_tree();
}

Test(report, index_links_tables_and_plots)
{
    make_tree();
    pf_collection c;
    cr_assert_eq(pf_collect(root, "burgers_1d", &c), PF_OK, "%s", pf_errmsg());
    char out[128], dir[256];
    snprintf(out, sizeof out, "%s/reports/burgers_1d", root);
    pf_report_options o = {out, "pinnforge", true, NULL};
    int written;
    cr_assert_eq(pf_report_tables(&c, &o, &written), PF_OK, "%s", pf_errmsg());
    snprintf(dir, sizeof dir, "%s/pinnforge", out);
    mk(dir);
    snprintf(dir, sizeof dir, "%s/pinnforge/run1", out);
    mk(dir);
    char png[300];
    snprintf(png, sizeof png, "%s/trajectory.png", dir);
    FILE *f = fopen(png, "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_assert_eq(pf_report_index(&c, &o, "burgers_1d"), PF_OK, "%s", pf_errmsg());
    char *idx = slurp(out, "index.md");
    cr_assert(strstr(idx, "- [main](main.md)") && strstr(idx, "- [trajectory](trajectory.md)"), "%s", idx);
    cr_assert(strstr(idx, "![trajectory.png](pinnforge/run1/trajectory.png)"), "%s", idx);
    cr_assert(strstr(idx, "not finished (no final.msgpack)"), "%s", idx);
    cr_assert(strstr(idx, "final high-fidelity MSE 2.000e-03"), "%s", idx);
    free(idx);
    pf_collection_release(&c);
    remove_tree();
}

Test(report, table_renderers)
{
    const char *head[] = {"PDE", "a_b", "C"};
    pf_table *t = pf_table_alloc("x & y", 3, head);
    pf_table_row(t, false);
    pf_table_cell(t, false, "heat_5d");
    pf_table_cell(t, true, "1.00E-03 ± 2.00E-04");
    pf_table_row(t, true);
    pf_table_cell(t, false, "ratio");
    pf_table_cell(t, false, "50%%");
    pf_table_cell(t, false, "3.50×");
    pf_table_note(t, "χ² = %d", 1);
    char *md = pf_table_markdown(t), *tex = pf_table_latex(t);
    cr_assert_str_eq(md, "### x & y\n\n| PDE | a_b | C |\n| :--- | ---: | ---: |\n| heat_5d | **1.00E-03 ± 2.00E-04** |  |\n"
                         "| ratio | 50% | 3.50× |\n\nχ² = 1\n\n");
    cr_assert(strstr(tex, "\\caption{x \\& y}") && strstr(tex, "PDE & a\\_b & C \\\\") &&
                  strstr(tex, "heat\\_5d & \\textbf{1.00E-03 $\\pm$ 2.00E-04} &  \\\\\n\\midrule\nratio & 50\\% & 3.50$\\times$") &&
                  strstr(tex, "$\\chi^2$ = 1"),
              "%s", tex);
    free(md);
    free(tex);
    pf_table_cell(t, false, "one too many");
    pf_table_cell(t, false, "and more");
    cr_assert_null(pf_table_markdown(t), "a row with too many cells is an error");
    pf_table_free(t);
}

/* Rewrites run R's context.json with other settings: budget, and eval
 * (NULL: none, i.e. paper). */
static void set_context(const char *pde, const char *method, int run, const char *budget, const char *eval)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s/run%d/context.json", root, pde, method, run);
    json_t *ctx = json_pack("{s:s, s:s, s:i, s:s, s:s}", "pde", pde, "method", method, "run", run, "budget", budget,
                            "llm", "offline");
    if (eval) json_object_set_new(ctx, "eval", json_string(eval));
    cr_assert_eq(json_dump_file(ctx, path, 0), 0);
    json_decref(ctx);
}

/* A held-out run beside paper-mode runs of the same cell: no table averages
 * them (issue 35, item 8); the error names both runs and what differs. An
 * unfinished run with other settings averages nothing and is let be. */
Test(report, a_cell_never_averages_runs_of_other_settings)
{
    make_tree();
    set_context("burgers_1d", "pinnforge", 3, "smoke", NULL); /* unfinished */
    pf_collection c;
    cr_assert_eq(pf_collect(root, NULL, &c), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(pf_collection_check_cells(&c), PF_OK, "%s", pf_errmsg());
    pf_collection_release(&c);

    set_context("burgers_1d", "pinnforge", 1, "quick", "heldout");
    cr_assert_eq(pf_collect(root, NULL, &c), PF_OK, "%s", pf_errmsg());
    char out[128], want[512];
    snprintf(out, sizeof out, "%s/reports/mixed", root);
    pf_report_options o = {out, "pinnforge", true, NULL};
    int written = 0;
    cr_expect_eq(pf_report_tables(&c, &o, &written), PF_ERR_INVALID);
    snprintf(want, sizeof want, "%s/burgers_1d/pinnforge/run0 and %s/burgers_1d/pinnforge/run1 were made with other "
             "settings (eval paper vs heldout)", root, root);
    cr_expect(strstr(pf_errmsg(), want), "%s", pf_errmsg());
    cr_expect_eq(written, 0, "no table written");
    pf_means m;
    cr_expect_eq(pf_collection_means(&c, NULL, NULL, &m), PF_ERR_INVALID);
    pf_collection_release(&c);

    set_context("burgers_1d", "pinnforge", 1, "paper", NULL);
    cr_assert_eq(pf_collect(root, NULL, &c), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(pf_collection_check_cells(&c), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "(profile quick vs paper)"), "%s", pf_errmsg());
    pf_collection_release(&c);
    remove_tree();
}

/* The optimism gap: below PF_OPTIMISM_GAP_MIN_RUNS held-out runs "not
 * enough runs", from it the median with its bootstrap interval over runs;
 * ratios 0.40, 0.35, 1.43 give [0.35, 1.43] (test_stats.c works it out).
 * report < 0: a paper-mode final. */
static void heldout_final(const char *pde, const char *method, int run, double hf, double report)
{
    char path[512];
    set_context(pde, method, run, "quick", report < 0 ? NULL : "heldout");
    json_t *fin = report < 0 ? json_pack("{s:s, s:i, s:f}", "format", "pinnforge.final", "version", 1, "hf_mse", hf)
                             : json_pack("{s:s, s:i, s:f, s:s, s:f}", "format", "pinnforge.final", "version", 1,
                                         "hf_mse", hf, "eval", "heldout", "report_mse", report);
    snprintf(path, sizeof path, "%s/%s/%s/run%d/final.msgpack", root, pde, method, run);
    cr_assert_eq(pf_msgpack_write_file(path, fin), PF_OK, "%s", pf_errmsg());
    json_decref(fin);
}

static char *main_md_of_tree(void)
{
    pf_collection c;
    cr_assert_eq(pf_collect(root, "poisson_5d", &c), PF_OK, "%s", pf_errmsg());
    char out[128];
    snprintf(out, sizeof out, "%s/reports/gap", root);
    pf_report_options o = {out, "pinnforge", true, NULL};
    int written;
    cr_assert_eq(pf_report_tables(&c, &o, &written), PF_OK, "%s", pf_errmsg());
    pf_collection_release(&c);
    return slurp(out, "main.md");
}

Test(report, optimism_gap_with_its_bootstrap_interval)
{
    make_tree();
    heldout_final("poisson_5d", "ropinn", 0, 1e-6, 0.40e-6);
    heldout_final("poisson_5d", "ropinn", 1, 1e-6, 0.35e-6);
    char *md = main_md_of_tree();
    cr_expect(strstr(md, "Optimism gap (report_mse / selection MSE, median over EVAL=heldout runs): not enough runs "
                         "(n = 2; at least 3 give it with a bootstrap interval)."),
              "%s", md);
    free(md);
    for (int r = 0; r < 3; r++) heldout_final("poisson_5d", "pinnforge", r, 1e-6, (const double[]){0.40, 0.35, 1.43}[r] * 1e-6);
    for (int r = 0; r < 2; r++) heldout_final("poisson_5d", "ropinn", r, 1e-6, -1); /* paper again */
    md = main_md_of_tree();
    cr_expect(strstr(md, "Optimism gap (report_mse / selection MSE, median over EVAL=heldout runs): 0.4, 95% bootstrap "
                         "interval over runs [0.35, 1.43] (n = 3 runs, 2000 resamples)."),
              "%s", md);
    free(md);
    remove_tree();
}
