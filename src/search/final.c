/* final.c — pick the final design and count the budget (final.h). */
#include "search/final.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm/method.h"
#include "search/time_budget_file.h"

/* The fields every final file shares, for the selected design: its spec,
 * MSE, slot, result.h5, the run's settings, and report_mse by the run's
 * eval mode (under heldout the design's y_report, which must exist). */
static pf_status selected(const pf_run *r, pf_final_file *f, const pf_candidate *best, const char *result, double y,
                          bool has_report, double report)
{
    snprintf(f->pde, sizeof f->pde, "%s", r->pde->name);
    snprintf(f->method, sizeof f->method, "%s", pf_method_name(r->method));
    snprintf(f->profile, sizeof f->profile, "%s", r->budget->name);
    f->run = r->run;
    f->spec = json_incref(best->spec);
    memcpy(f->spec_hash, best->spec_hash, sizeof f->spec_hash);
    f->hf_mse = y;
    memcpy(f->found_in, best->slot, sizeof f->found_in);
    snprintf(f->result, sizeof f->result, "%s", result);
    snprintf(f->eval, sizeof f->eval, "%s", pf_eval_mode_name(r->eval));
    f->has_report = true;
    f->report_mse = y; /* paper: one set of points for everything */
    PF_TRY(pf_time_budget_summary(r, &f->time_budget)); /* TIME_BUDGET: the budget, the time used, the limits */
    if (r->eval == PF_EVAL_HELDOUT) {
        if (!has_report)
            return pf_fail(PF_ERR_INVALID, "%s: the selected design's evidence (%s) has no y_report, but the run "
                                           "holds out a report set (was it trained without --eval heldout?)",
                           r->dir, result);
        f->report_mse = report;
    }
    return PF_OK;
}

static pf_status build(const pf_run *r, const pf_select *sel, int last, pf_final_file *f)
{
    PF_TRY(pf_run_budget_count(r->dir, last, &f->budget, &f->generations));
    const pf_candidate *best = NULL;
    double best_y = INFINITY, best_report = NAN;
    bool best_has_report = false;
    int best_k = -1;
    char path[4200];
    for (int k = 0; k < sel->ntop3; k++) {
        const pf_candidate *lo = &sel->cand[sel->top3[k]];
        pf_evidence_file ev;
        PF_TRY(pf_run_path(r->dir, PF_RUN_EVIDENCE, PF_RUN_HIFI, k, path, sizeof path));
        PF_TRY(pf_evidence_file_read(path, &ev));
        f->budget.steps_high += ev.steps;
        f->budget.wall_high += ev.wall_s;
        pf_final_top *t = &f->top[f->ntop++];
        memcpy(t->spec_hash, lo->spec_hash, sizeof t->spec_hash);
        t->y_low = lo->y;
        t->has_y_high = ev.has_y;
        t->y_high = ev.y;
        memcpy(t->status, ev.status, sizeof t->status);
        t->seed = ev.seed;
        if (!strcmp(ev.status, "ok") && ev.has_y && ev.y < best_y) {
            best_y = ev.y;
            best = lo;
            best_k = k;
            best_has_report = ev.has_y_report;
            best_report = ev.y_report;
            json_decref(f->physics_check);
            f->physics_check = json_incref(json_object_get(ev.evidence, "physics_check"));
        }
        pf_evidence_file_release(&ev);
    }
    if (!best)
        return pf_fail(PF_ERR_INVALID, "no high-fidelity candidate of %s ended ok with an MSE: nothing to select", r->dir);
    char result[64];
    snprintf(result, sizeof result, "hifi/top%d/result.h5", best_k);
    PF_TRY(selected(r, f, best, result, best_y, best_has_report, best_report));
    f->lf_mse = best->y;
    if (!strcmp(sel->cause, PF_SELECT_CAUSE_LLM)) snprintf(f->stopped, sizeof f->stopped, "%s", PF_PROPOSAL_STOPPED_LLM);
    else if (!strcmp(sel->cause, PF_SELECT_CAUSE_TIME)) snprintf(f->stopped, sizeof f->stopped, "time budget");
    f->stop_reason = strdup(sel->reason);
    return f->stop_reason ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
}

pf_status pf_final_build(const pf_run *r, const pf_select *sel, int last, pf_final_file *out)
{
    memset(out, 0, sizeof *out);
    pf_status st = build(r, sel, last, out);
    if (st != PF_OK) pf_final_file_release(out);
    return st;
}

/* A baseline: the lowest MSE among its candidates (baseline.h), which are
 * the slots of its generations in order. */
static pf_status build_baseline(const pf_run *r, pf_final_file *f)
{
    pf_run_candidate c[PF_RUN_BASELINE_CANDIDATES];
    int n = 0, last = -1;
    pf_status st = PF_OK;
    for (int g = 0; st == PF_OK && pf_run_slots(r->method, g) > 0; g++, last++)
        for (int k = 0; st == PF_OK && k < pf_run_slots(r->method, g); k++) {
            PF_ASSERT(n < PF_RUN_BASELINE_CANDIDATES);
            if ((st = pf_run_candidate_read(r->dir, g, k, &c[n])) == PF_OK) n++;
        }
    if (st == PF_OK) st = pf_run_budget_count(r->dir, last, &f->budget, &f->generations);
    f->generations = 0; /* no search */
    int best = -1;
    for (int k = 0; st == PF_OK && k < n; k++) {
        const pf_run_candidate *e = &c[k];
        if (!e->trained) {
            st = pf_fail(PF_ERR_INVALID, "%s: candidate %s has not been trained", r->dir, e->cand.slot);
            break;
        }
        pf_final_cand *fc = &f->cand[f->ncand++];
        memcpy(fc->spec_hash, e->cand.spec_hash, sizeof fc->spec_hash);
        fc->has_y = e->evidence.has_y;
        fc->y = e->evidence.y;
        snprintf(fc->status, sizeof fc->status, "%s", e->evidence.status);
        fc->seed = e->evidence.seed;
        if (pf_candidate_ranked(&e->cand) && (best < 0 || e->cand.y < c[best].cand.y)) best = k;
    }
    if (st == PF_OK && best < 0)
        st = pf_fail(PF_ERR_INVALID, "no candidate of %s ended ok with an MSE: nothing to select", r->dir);
    if (st == PF_OK) {
        const pf_evidence_file *ev = &c[best].evidence;
        char result[64];
        snprintf(result, sizeof result, "gen%02d/cand%d/result.h5", c[best].cand.generation, c[best].cand.index);
        f->lf_mse = NAN;
        st = selected(r, f, &c[best].cand, result, ev->y, ev->has_y_report, ev->y_report);
        if (st == PF_OK) f->physics_check = json_incref(json_object_get(ev->evidence, "physics_check"));
    }
    if (st == PF_OK) {
        char why[160];
        snprintf(why, sizeof why, "baseline %s: the lowest MSE of its %d candidates", pf_method_name(r->method), n);
        if (!(f->stop_reason = strdup(why))) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < n; k++) pf_run_candidate_release(&c[k]);
    return st;
}

pf_status pf_final_build_baseline(const pf_run *r, pf_final_file *out)
{
    memset(out, 0, sizeof *out);
    pf_status st = pf_method_is_baseline(r->method)
                       ? build_baseline(r, out)
                       : pf_fail(PF_ERR_INVALID, "%s: method %s is not a baseline", r->dir, pf_method_name(r->method));
    if (st != PF_OK) pf_final_file_release(out);
    return st;
}
