/*
 * test_progress.c — a study's progress (src/stats/progress.h) on run
 * folders made here: the steps a run plans at a budget, and the states a
 * training's launch.txt (scripts/launch.sh) gives its run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats/progress.h"

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[256], dir[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        snprintf(dir, sizeof dir, "%.*s", (int)(p - path), path);
        mkdir(dir, 0755);
    }
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static void context_as(const char *pde, const char *method, int run, const char *budget, const char *eval)
{
    char rel[128], text[256];
    snprintf(rel, sizeof rel, "%s/%s/run%d/context.json", pde, method, run);
    snprintf(text, sizeof text,
             "{\"pde\": \"%s\", \"method\": \"%s\", \"run\": %d, \"budget\": \"%s\", \"llm\": \"offline\", "
             "\"eval\": \"%s\"}\n",
             pde, method, run, budget, eval);
    put(rel, text);
}

static void context(const char *pde, const char *method, int run)
{
    context_as(pde, method, run, "smoke", "paper");
}

/* A finished run's final.msgpack as tests/fake_finals.py writes it:
 * {format, version, hf_mse}. */
static void final_mse(const char *rel_run, double mse)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/final.msgpack", root, rel_run);
    FILE *f = fopen(path, "wb");
    cr_assert(f, "%s", path);
    fputs("\x83\xa6" "format" "\xaf" "pinnforge.final" "\xa7" "version" "\x01" "\xa6" "hf_mse" "\xcb", f);
    uint64_t bits;
    memcpy(&bits, &mse, sizeof bits);
    for (int i = 7; i >= 0; i--) fputc((int)(bits >> (8 * i) & 0xff), f);
    fclose(f);
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/pf_progress_XXXXXX");
    cr_assert(mkdtemp(root));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(progress, .init = setup, .fini = teardown);

static pf_cell_progress *progress(const char *const *methods, int nm, const int *runs, int nr, pf_study *s)
{
    static const char *const pdes[] = {"burgers_1d"};
    memset(s, 0, sizeof *s);
    s->root = root, s->pdes = pdes, s->npdes = 1, s->methods = methods, s->nmethods = nm;
    s->runs = runs, s->nruns = nr;
    cr_assert_eq(pf_budget_lookup("smoke", &s->budget), PF_OK);
    pf_cell_progress *c;
    cr_assert_eq(pf_study_progress(s, &c), PF_OK, "%s", pf_errmsg());
    return c;
}

/* Nothing started: a search plans (8 + 9 x 5) x 20 + 3 x 100 = 1,360 steps
 * a run at smoke, a baseline 5 x 100, PINNsAgent's planner 5 x 100. */
Test(progress, planned_steps_of_runs_not_started)
{
    const char *const m[] = {"pinnforge", "no_evolution", "vanilla", "pinnsagent"};
    const int runs[] = {0, 1, 2};
    pf_study s;
    pf_cell_progress *c = progress(m, 4, runs, 3, &s);
    cr_expect_eq(c[0].steps_total, 3 * 1360);
    cr_expect_eq(c[1].steps_total, 3 * 1360);
    cr_expect_eq(c[2].steps_total, 3 * 500);
    cr_expect_eq(c[3].steps_total, 3 * 500);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(c[i].done + c[i].running + c[i].failed + c[i].steps_done, 0);
        cr_expect(isnan(c[i].best) && isnan(c[i].mean));
    }
    cr_expect_not(pf_study_settled(&s, c));
    free(c);
}

/* launch.txt: "failed" makes the run failed, "running local" with this
 * process's pid running, with a pid that is gone nothing, "submitted" (a
 * queued Slurm job) running; a run both failed and running is failed. */
Test(progress, launch_states_give_the_runs_states)
{
    char here[256] = "", text[512];
    gethostname(here, sizeof here - 1);
    for (int r = 0; r < 5; r++) context("burgers_1d", "vanilla", r);
    put("burgers_1d/vanilla/run0/gen00/cand3/launch.txt", "failed 137 1700000000\n");
    snprintf(text, sizeof text, "running local %s %d 1700000000\n", here, (int)getpid());
    put("burgers_1d/vanilla/run1/gen00/cand0/launch.txt", text);
    put("burgers_1d/vanilla/run1/gen00/cand1/launch.txt", text);
    snprintf(text, sizeof text, "running local %s %d 1700000000\n", here, 999999999);
    put("burgers_1d/vanilla/run2/gen00/cand0/launch.txt", text);
    put("burgers_1d/vanilla/run3/gen00/cand4/launch.txt", "submitted slurm 1700000000\n");
    put("burgers_1d/vanilla/run4/gen00/cand0/launch.txt", "failed 1 1700000000\n");
    put("burgers_1d/vanilla/run4/gen00/cand1/launch.txt", "running slurm 17 node3 1700000000\n");
    const char *const m[] = {"vanilla"};
    const int runs[] = {0, 1, 2, 3, 4, 5};
    pf_study s;
    pf_cell_progress *c = progress(m, 1, runs, 6, &s);
    cr_expect_eq(c[0].failed, 2, "runs 0 and 4");
    cr_expect_eq(c[0].running, 2, "runs 1 and 3");
    cr_expect_eq(c[0].trainings_running, 4, "two of run 1, one of run 3, one of run 4");
    cr_expect_eq(c[0].done, 0);
    cr_expect_eq(c[0].steps_total, 6 * 500);
    cr_expect_not(pf_study_settled(&s, c));
    free(c);
}

Test(progress, an_unknown_method_is_refused)
{
    const char *const m[] = {"pinnforge", "ropinnn"};
    const int runs[] = {0};
    static const char *const pdes[] = {"burgers_1d"};
    pf_study s = {.root = root, .pdes = pdes, .npdes = 1, .methods = m, .nmethods = 2, .runs = runs, .nruns = 1};
    cr_assert_eq(pf_budget_lookup("quick", &s.budget), PF_OK);
    pf_cell_progress *c = NULL;
    cr_expect_eq(pf_study_progress(&s, &c), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "ropinnn"), "%s", pf_errmsg());
}

/* A finished run made with other settings than the study asks for is
 * stale, not done: make study would redo it (issue 35, item 7). Run 0 was
 * made at smoke, run 1 at smoke under EVAL=heldout; the study asks for
 * smoke and paper, then for quick. */
Test(progress, a_run_made_with_other_settings_is_stale_not_done)
{
    context("burgers_1d", "vanilla", 0);
    final_mse("burgers_1d/vanilla/run0", 1e-3);
    context_as("burgers_1d", "vanilla", 1, "smoke", "heldout");
    final_mse("burgers_1d/vanilla/run1", 2e-3);
    const char *const m[] = {"vanilla"};
    const int runs[] = {0, 1};
    pf_study s;
    pf_cell_progress *c = progress(m, 1, runs, 2, &s);
    cr_expect_eq(c[0].done, 2, "the eval is not compared when the study does not say it");
    free(c);

    s.eval = "paper";
    cr_assert_eq(pf_study_progress(&s, &c), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(c[0].done, 1);
    cr_expect_eq(c[0].stale, 1);
    cr_expect_eq(c[0].stale_run, 1);
    cr_expect_str_eq(c[0].stale_why, "eval heldout vs paper");
    cr_expect_eq(c[0].best, 1e-3, "the stale run's MSE is not the cell's");
    free(c);

    cr_assert_eq(pf_budget_lookup("quick", &s.budget), PF_OK);
    cr_assert_eq(pf_study_progress(&s, &c), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(c[0].done, 0, "smoke runs are not a quick study's");
    cr_expect_eq(c[0].stale, 2);
    cr_expect_str_eq(c[0].stale_why, "profile smoke vs quick");
    cr_expect_eq(c[0].steps_done, 0);
    cr_expect_eq(c[0].steps_total, 2 * 5 * s.budget->steps[PF_FIDELITY_BASELINE]);
    cr_expect_not(pf_study_settled(&s, c));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pf_study_print(f, &s, c);
    fclose(f);
    cr_expect(strstr(text, "stale: ") && strstr(text, "burgers_1d/vanilla/run0 and 1 more run: its settings differ "
                                                      "(profile smoke vs quick"),
              "%s", text);
    cr_expect(strstr(text, "total: 0 of 2 runs done, 0 running, 0 failed, 2 stale;"), "%s", text);
    free(text);
    free(c);
}
