/* progress.c — a study's progress from its run folders (progress.h). */
#include "stats/progress.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "llm/method.h"
#include "search/artifact.h"
#include "search/launch_record.h"
#include "search/run.h"
#include "stats/collect.h"

#define PATH_CAP 4200
#define LAST_GENERATION 9 /* pipeline.mk's LAST */
#define TOP 3             /* the Top-3 retrained at high fidelity */

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The folder of training (g, k) of run dir (g may be PF_RUN_HIFI). */
static pf_status train_dir(const char *dir, int g, int k, char *buf, size_t cap)
{
    PF_TRY(pf_run_path(dir, PF_RUN_EVIDENCE, g, k, buf, cap));
    char *slash = strrchr(buf, '/');
    if (slash) *slash = '\0';
    return PF_OK;
}

/* The steps one run of method m plans at budget b. */
static long planned_steps(pf_method m, const pf_budget *b)
{
    bool base = pf_method_is_baseline(m);
    long n = 0;
    for (int g = 0; g <= LAST_GENERATION; g++) n += pf_run_slots(m, g);
    return n * b->steps[base ? PF_FIDELITY_BASELINE : PF_FIDELITY_LOW] + (base ? 0 : TOP * b->steps[PF_FIDELITY_HIGH]);
}

/* One run's trained steps and seconds, and its trainings' launch states. */
typedef struct run_tally {
    long steps;
    double wall;
    int running, failed;
} run_tally;

static pf_status tally_training(const char *dir, int g, int k, run_tally *t)
{
    char path[PATH_CAP];
    PF_TRY(train_dir(dir, g, k, path, sizeof path));
    pf_launch_state ls = pf_launch_record_read(path).state;
    t->running += ls == PF_LAUNCH_RUNNING;
    t->failed += ls == PF_LAUNCH_FAILED;
    if (g != PF_RUN_HIFI) return PF_OK; /* pf_run_budget_count has the generations' evidence */
    PF_TRY(pf_run_path(dir, PF_RUN_EVIDENCE, g, k, path, sizeof path));
    if (!exists(path)) return PF_OK;
    pf_evidence_file e;
    PF_TRY(pf_evidence_file_read(path, &e));
    t->steps += e.steps;
    t->wall += e.wall_s;
    pf_evidence_file_release(&e);
    return PF_OK;
}

static pf_status tally_run(const char *dir, pf_method m, run_tally *t)
{
    memset(t, 0, sizeof *t);
    pf_run_budget b;
    int gens;
    PF_TRY(pf_run_budget_count(dir, LAST_GENERATION, &b, &gens));
    t->steps = b.steps_low + b.steps_baseline;
    t->wall = b.wall_low + (isfinite(b.wall_baseline) ? b.wall_baseline : 0);
    for (int g = 0; g <= LAST_GENERATION; g++)
        for (int k = 0; k < pf_run_slots(m, g); k++) PF_TRY(tally_training(dir, g, k, t));
    if (!pf_method_is_baseline(m))
        for (int k = 0; k < TOP; k++) PF_TRY(tally_training(dir, PF_RUN_HIFI, k, t));
    return PF_OK;
}

/* The settings the study asks for of a run of cell (p, method[@backbone]):
 * a backbone's runs ask it over http, or replay it under llm replay. */
static pf_status asked_context(const pf_study *s, int p, const char *method, const char *backbone,
                               pf_run_context *asked)
{
    const char *pde = s->pde_args ? s->pde_args[p] : s->pdes[p];
    const char *llm = s->llm ? s->llm : "offline";
    if (*backbone && strcmp(llm, "replay")) llm = "http";
    PF_TRY(pf_run_context_init(asked, pde, method, 0, s->budget->name, llm, s->eval ? s->eval : "paper"));
    asked->time_budget_s = s->time_budget_s;
    return pf_run_context_set_backbone(asked, backbone);
}

/* Whether run dir was made with other settings than asked (a field the
 * study leaves NULL is not compared); what differs into c (the first). */
static pf_status check_stale(const pf_study *s, const char *dir, int run, pf_run_context *asked, pf_cell_progress *c,
                             bool *stale)
{
    pf_run_context have;
    PF_TRY(pf_run_context_read(dir, &have));
    if (!s->llm) memcpy(asked->llm, have.llm, sizeof asked->llm);
    if (!s->eval) memcpy(asked->eval, have.eval, sizeof asked->eval);
    asked->llm_max_tokens = have.llm_max_tokens; /* a changed LLM budget redoes only what it stopped: not stale */
    asked->llm_max_cost = have.llm_max_cost;
    char what[sizeof c->stale_why];
    *stale = pf_run_context_settings_differ(&have, asked, what, sizeof what);
    if (*stale && !c->stale++) {
        c->stale_run = run;
        memcpy(c->stale_why, what, sizeof what);
    }
    return PF_OK;
}

static pf_status cell_progress(const pf_study *s, int p, const char *cell, pf_cell_progress *c)
{
    const char *pde = s->pdes[p];
    memset(c, 0, sizeof *c);
    c->pde = pde, c->method = cell;
    c->best = c->mean = NAN;
    char method[64];
    const char *at = strchr(cell, '@'), *backbone = at ? at + 1 : "";
    size_t len = at ? (size_t)(at - cell) : strlen(cell);
    if (len >= sizeof method) return pf_fail(PF_ERR_INVALID, "'%s' is not a method", cell);
    memcpy(method, cell, len);
    method[len] = '\0';
    pf_method m;
    PF_TRY(pf_method_from_name(method, &m));
    long plan = planned_steps(m, s->budget);
    pf_run_context asked;
    if (asked_context(s, p, method, backbone, &asked) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "the study's cell %s: %s", cell, pf_errmsg());
    double sum = 0;
    for (int i = 0; i < s->nruns; i++) {
        char dir[PATH_CAP], ctx[PATH_CAP + 16];
        snprintf(dir, sizeof dir, "%s/%s/%s/run%d", s->root, pde, cell, s->runs[i]);
        snprintf(ctx, sizeof ctx, "%s/context.json", dir);
        bool stale = false;
        if (exists(ctx)) PF_TRY(check_stale(s, dir, s->runs[i], &asked, c, &stale));
        if (stale || !exists(ctx)) { /* not started, or to be redone */
            c->steps_total += plan;
            continue;
        }
        run_tally t;
        PF_TRY(tally_run(dir, m, &t));
        pf_run_summary r;
        PF_TRY(pf_run_summarize(dir, &r));
        c->steps_done += t.steps;
        c->wall_s += t.wall;
        c->steps_total += r.final ? t.steps : (t.steps > plan ? t.steps : plan);
        c->trainings_running += t.running;
        if (r.final) {
            c->done++;
            sum += r.hf_mse;
            if (!(r.hf_mse >= c->best)) c->best = r.hf_mse;
        } else if (t.failed) {
            c->failed++;
        } else if (t.running) {
            c->running++;
        }
    }
    if (c->done) c->mean = sum / c->done;
    return PF_OK;
}

pf_status pf_study_progress(const pf_study *s, pf_cell_progress **out)
{
    size_t n = (size_t)s->npdes * s->nmethods;
    pf_cell_progress *c = calloc(n ? n : 1, sizeof *c);
    if (!c) return pf_fail(PF_ERR_NOMEM, "out of memory for %zu cells", n);
    for (int p = 0; p < s->npdes; p++)
        for (int m = 0; m < s->nmethods; m++) {
            pf_status st = cell_progress(s, p, s->methods[m], &c[(size_t)p * s->nmethods + m]);
            if (st != PF_OK) {
                free(c);
                return st;
            }
        }
    *out = c;
    return PF_OK;
}

int pf_study_settled(const pf_study *s, const pf_cell_progress *cells)
{
    for (int i = 0; i < s->npdes * s->nmethods; i++)
        if (cells[i].done + cells[i].failed < s->nruns) return 0;
    return 1;
}

static void print_mse(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " %10s", "-");
    else
        fprintf(f, " %10.3e", v);
}

/* h:mm:ss, or "-" when unknown. */
static void print_duration(FILE *f, double s)
{
    if (!isfinite(s) || s < 0) {
        fputs("-", f);
        return;
    }
    long t = lround(s);
    fprintf(f, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* A line per cell with stale runs: the first one and what differs. */
static void print_stale(FILE *f, const pf_study *s, const pf_cell_progress *cells)
{
    for (int i = 0; i < s->npdes * s->nmethods; i++) {
        const pf_cell_progress *c = &cells[i];
        if (!c->stale) continue;
        fprintf(f, "stale: %s/%s/%s/run%d", s->root, c->pde, c->method, c->stale_run);
        if (c->stale > 1) fprintf(f, " and %d more run%s", c->stale - 1, c->stale == 2 ? "" : "s");
        fprintf(f, ": its settings differ (%s: the run's, then those asked for); make study redoes it\n",
                c->stale_why);
    }
}

void pf_study_print(FILE *f, const pf_study *s, const pf_cell_progress *cells)
{
    int w = 13; /* the method column: pinnsformer, or the longest method@backbone */
    for (int m = 0; m < s->nmethods; m++)
        if ((int)strlen(s->methods[m]) > w) w = (int)strlen(s->methods[m]);
    fprintf(f, "study: %d PDEs x %d methods x %d runs, budget %s, runs in %s/\n", s->npdes, s->nmethods, s->nruns,
            s->budget->name, s->root);
    fprintf(f, "%-28s %-*s %5s %7s %6s %5s %10s %10s %21s\n", "PDE", w, "method", "done", "running", "failed", "stale",
            "best MSE", "mean MSE", "steps done / planned");
    long done = 0, total = 0;
    double wall = 0;
    int runs_done = 0, runs_running = 0, runs_failed = 0, runs_stale = 0, trainings = 0;
    for (int i = 0; i < s->npdes * s->nmethods; i++) {
        const pf_cell_progress *c = &cells[i];
        fprintf(f, "%-28s %-*s %2d/%-2d %7d %6d %5d", c->pde, w, c->method, c->done, s->nruns, c->running, c->failed,
                c->stale);
        print_mse(f, c->best);
        print_mse(f, c->mean);
        fprintf(f, " %10ld / %-8ld\n", c->steps_done, c->steps_total);
        done += c->steps_done, total += c->steps_total, wall += c->wall_s;
        runs_done += c->done, runs_running += c->running, runs_failed += c->failed, runs_stale += c->stale;
        trainings += c->trainings_running;
    }
    print_stale(f, s, cells);
    int runs = s->npdes * s->nmethods * s->nruns;
    double rate = wall > 0 ? done / wall : NAN; /* steps per second of one training */
    int at_once = trainings > 0 ? trainings : 1;
    fprintf(f, "total: %d of %d runs done, %d running, %d failed, %d stale; %ld of %ld steps (%.0f%%), %ld left; ",
            runs_done, runs, runs_running, runs_failed, runs_stale, done, total, total ? 100.0 * done / total : 100.0,
            total > done ? total - done : 0);
    if (isfinite(rate))
        fprintf(f, "%.1f steps/s per training; ", rate);
    else
        fputs("no training finished yet; ", f);
    fputs("time left: ", f);
    print_duration(f, total > done ? (total - done) / rate / at_once : 0);
    fprintf(f, " at %d training%s at once\n", at_once, at_once == 1 ? "" : "s");
}
