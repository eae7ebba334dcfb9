/* final.c — pick the final design and count the budget (final.h). */
#include "search/final.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm/method.h"

static pf_status build(const pf_run *r, const pf_select *sel, int last, pf_final_file *f)
{
    PF_TRY(pf_run_budget_count(r->dir, last, &f->budget, &f->generations));
    const pf_candidate *best = NULL;
    double best_y = INFINITY, best_report = NAN;
    bool best_has_report = false;
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
            best_has_report = ev.has_y_report;
            best_report = ev.y_report;
            json_decref(f->physics_check);
            f->physics_check = json_incref(json_object_get(ev.evidence, "physics_check"));
        }
        pf_evidence_file_release(&ev);
    }
    if (!best)
        return pf_fail(PF_ERR_INVALID, "no high-fidelity candidate of %s ended ok with an MSE: nothing to select", r->dir);
    snprintf(f->pde, sizeof f->pde, "%s", r->pde->name);
    snprintf(f->method, sizeof f->method, "%s", pf_method_name(r->method));
    snprintf(f->profile, sizeof f->profile, "%s", r->budget->name);
    f->run = r->run;
    f->spec = json_incref(best->spec);
    memcpy(f->spec_hash, best->spec_hash, sizeof f->spec_hash);
    f->hf_mse = best_y;
    f->lf_mse = best->y;
    memcpy(f->found_in, best->slot, sizeof f->found_in);
    snprintf(f->eval, sizeof f->eval, "%s", pf_eval_mode_name(r->eval));
    f->has_report = true;
    f->report_mse = best_y; /* paper: one set of points for everything */
    if (r->eval == PF_EVAL_HELDOUT) {
        if (!best_has_report)
            return pf_fail(PF_ERR_INVALID, "%s: the selected design's high-fidelity evidence has no y_report, but the "
                                           "run holds out a report set (was it trained without --eval heldout?)",
                           r->dir);
        f->report_mse = best_report;
    }
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
