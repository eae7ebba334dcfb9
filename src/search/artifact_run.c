/* artifact_run.c — walks over a run's files: a candidate, a generation,
 * the last selection, the budget spent (artifact.h). */
#include "search/artifact.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATH_CAP 4200

static pf_status candidate_evidence(const char *ev_path, pf_run_candidate *rc)
{
    pf_candidate *c = &rc->cand;
    const pf_proposal_file *p = &rc->proposal;
    pf_evidence_file *e = &rc->evidence;
    if (strcmp(e->pde, p->pde))
        return pf_fail(PF_ERR_INVALID, "'%s' is for PDE '%s', but its proposal is for '%s'", ev_path, e->pde, p->pde);
    if (!c->valid) return PF_OK; /* INVALID whatever it says */
    int s = pf_candidate_status_lookup(e->status);
    if (s < 0 || s == PF_CANDIDATE_INVALID)
        return pf_fail(PF_ERR_INVALID, "'%s': status '%s' is not ok, nan, diverged or timeout", ev_path, e->status);
    if (strcmp(e->spec_hash, c->spec_hash))
        return pf_fail(PF_ERR_INVALID, "%s: spec_hash %s differs from the proposal's %s", ev_path,
                       e->spec_hash[0] ? e->spec_hash : "(none)", c->spec_hash);
    c->status = (pf_candidate_status)s;
    c->has_y = e->has_y;
    c->y = e->has_y ? e->y : NAN;
    c->evidence = json_incref(e->evidence);
    return PF_OK;
}

static pf_status candidate_read(const char *dir, int g, int k, pf_run_candidate *rc)
{
    char path[PATH_CAP];
    PF_TRY(pf_run_path(dir, PF_RUN_PROPOSAL, g, k, path, sizeof path));
    PF_TRY(pf_proposal_file_read(path, &rc->proposal));
    const pf_proposal_file *p = &rc->proposal;
    if (p->generation != g || p->index != k)
        return pf_fail(PF_ERR_INVALID, "'%s': its generation %d and index %d differ from the file name's %d and %d", path,
                       p->generation, p->index, g, k);
    pf_candidate *c = &rc->cand;
    c->generation = g;
    c->index = k;
    c->valid = p->call.valid;
    c->status = PF_CANDIDATE_INVALID;
    c->y = NAN;
    snprintf(c->slot, sizeof c->slot, "%s", p->slot);
    if (c->valid) {
        memcpy(c->spec_hash, p->call.spec_hash, sizeof c->spec_hash);
        c->spec = json_incref(p->call.spec);
    }
    PF_TRY(pf_run_path(dir, PF_RUN_EVIDENCE, g, k, path, sizeof path));
    if (access(path, F_OK) != 0) {
        if (c->valid)
            return pf_fail(PF_ERR_IO, "candidate %d of generation %d has not been trained: %s missing", k, g, path);
        return PF_OK;
    }
    PF_TRY(pf_evidence_file_read(path, &rc->evidence));
    rc->trained = true;
    return candidate_evidence(path, rc);
}

pf_status pf_run_candidate_read(const char *dir, int g, int k, pf_run_candidate *c)
{
    memset(c, 0, sizeof *c);
    pf_status st = candidate_read(dir, g, k, c);
    if (st != PF_OK) pf_run_candidate_release(c);
    return st;
}

void pf_run_candidate_release(pf_run_candidate *c)
{
    pf_proposal_file_release(&c->proposal);
    pf_evidence_file_release(&c->evidence);
    pf_candidate_release(&c->cand);
}

pf_status pf_run_generation_read(const char *dir, int g, pf_run_candidate **out, int *n)
{
    *out = NULL;
    *n = 0;
    char path[PATH_CAP];
    int count = 0;
    for (;; count++) {
        PF_TRY(pf_run_path(dir, PF_RUN_PROPOSAL, g, count, path, sizeof path));
        if (access(path, F_OK) != 0) break;
    }
    if (count == 0) return pf_fail(PF_ERR_IO, "generation %d has no candidates: %s missing", g, path);
    pf_run_candidate *c = calloc((size_t)count, sizeof *c);
    if (!c) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = PF_OK;
    int k = 0;
    for (; st == PF_OK && k < count; k++) {
        st = pf_run_candidate_read(dir, g, k, &c[k]);
        if (st == PF_OK && strcmp(c[k].proposal.pde, c[0].proposal.pde)) {
            PF_TRY(pf_run_path(dir, PF_RUN_PROPOSAL, g, k, path, sizeof path));
            st = pf_fail(PF_ERR_INVALID, "'%s' is for PDE '%s', but candidate 0 of generation %d is for '%s'", path,
                         c[k].proposal.pde, g, c[0].proposal.pde);
        }
    }
    if (st != PF_OK) {
        pf_run_generation_free(c, k);
        return st;
    }
    *out = c;
    *n = count;
    return PF_OK;
}

void pf_run_generation_free(pf_run_candidate *c, int n)
{
    for (int i = 0; c && i < n; i++) pf_run_candidate_release(&c[i]);
    free(c);
}

pf_status pf_run_last_select(const char *dir, pf_select **out, int *g)
{
    *out = NULL;
    *g = -1;
    char path[PATH_CAP];
    for (int k = 0; k <= PF_RUN_MAX_GENERATION; k++) {
        PF_TRY(pf_run_path(dir, PF_RUN_SELECT, k, 0, path, sizeof path));
        if (access(path, F_OK) != 0) break;
        pf_select *s;
        if (pf_select_read(path, &s) != PF_OK) {
            pf_select_free(*out);
            *out = NULL;
            *g = -1;
            return pf_fail(PF_ERR_IO, "%s", pf_errmsg());
        }
        if (s->skipped) {
            pf_select_free(s);
            break;
        }
        pf_select_free(*out);
        *out = s;
        *g = k;
    }
    return PF_OK;
}

/* A file that need not exist: PF_OK with *there false when it does not. */
static pf_status optional(const char *dir, pf_run_file what, int g, int k, char *path, size_t cap, bool *there)
{
    PF_TRY(pf_run_path(dir, what, g, k, path, cap));
    *there = access(path, F_OK) == 0;
    return PF_OK;
}

/* Calls of one proposal or memory into the budget, under who answered. */
static pf_status add_calls(pf_run_budget *b, const char *backbone, const char *provider, long calls, long pt, long ct,
                           double s)
{
    b->calls += calls;
    b->prompt_tokens += pt;
    b->completion_tokens += ct;
    b->llm_s += s;
    return calls ? pf_llm_usage_add(&b->llm_by, pf_llm_usage_name(backbone, provider), calls, pt, ct, s) : PF_OK;
}

/* The calls' cost at the backbones file's prices (read only when a call
 * went to something other than the offline proposer). */
static pf_status price(pf_run_budget *b)
{
    pf_llm_backbones *t = NULL;
    bool paid = false;
    for (int i = 0; i < b->llm_by.n; i++) paid |= strcmp(b->llm_by.b[i].name, "offline") != 0;
    if (paid) PF_TRY(pf_llm_prices(&t));
    pf_llm_usage_price(&b->llm_by, t);
    pf_llm_backbones_free(t);
    b->cost = pf_llm_usage_cost(&b->llm_by);
    b->priced = pf_llm_usage_priced(&b->llm_by);
    return PF_OK;
}

pf_status pf_run_budget_count(const char *dir, int last, pf_run_budget *b, int *generations)
{
    memset(b, 0, sizeof *b);
    *generations = 0;
    char path[PATH_CAP];
    bool there;
    for (int g = 0; g <= last; g++) {
        bool ran = false;
        for (int k = 0; k < PF_RUN_MAX_SLOTS; k++) {
            PF_TRY(optional(dir, PF_RUN_PROPOSAL, g, k, path, sizeof path, &there));
            if (there) {
                pf_proposal_file p;
                PF_TRY(pf_proposal_file_read(path, &p));
                if (!p.skipped) {
                    ran = true;
                    b->candidates++;
                    b->invalid += !p.call.valid;
                }
                pf_status st = PF_OK;
                if (!p.skipped || p.call.stopped) /* a slot the LLM budget stopped keeps the calls made before */
                    st = add_calls(b, p.call.backbone, p.call.provider, p.call.attempts, p.call.prompt_tokens,
                                   p.call.completion_tokens, p.call.latency_s);
                pf_proposal_file_release(&p);
                PF_TRY(st);
            }
            PF_TRY(optional(dir, PF_RUN_EVIDENCE, g, k, path, sizeof path, &there));
            if (there) {
                pf_evidence_file e;
                PF_TRY(pf_evidence_file_read(path, &e));
                bool base = !strcmp(e.fidelity, pf_fidelity_name(PF_FIDELITY_BASELINE));
                *(base ? &b->steps_baseline : &b->steps_low) += e.steps;
                *(base ? &b->wall_baseline : &b->wall_low) += e.wall_s;
                pf_evidence_file_release(&e);
            }
        }
        *generations += ran;
        PF_TRY(optional(dir, PF_RUN_MEMORY, g, 0, path, sizeof path, &there));
        if (there) {
            pf_memory_file m;
            PF_TRY(pf_memory_file_read(path, &m));
            pf_status st = ran && m.has_call ? add_calls(b, m.backbone, m.provider, 1, m.prompt_tokens,
                                                         m.completion_tokens, m.latency_s)
                                             : PF_OK;
            pf_memory_file_release(&m);
            PF_TRY(st);
        }
    }
    return price(b);
}

pf_status pf_run_forget_stopped(const char *dir, int *n)
{
    *n = 0;
    char path[PATH_CAP];
    bool there;
    for (int g = 0; g <= PF_RUN_MAX_GENERATION; g++) {
        PF_TRY(optional(dir, PF_RUN_GENERATION, g, 0, path, sizeof path, &there));
        if (!there) break;
        for (int k = 0; k < PF_RUN_MAX_SLOTS; k++) {
            PF_TRY(optional(dir, PF_RUN_PROPOSAL, g, k, path, sizeof path, &there));
            if (!there) continue;
            pf_proposal_file p;
            PF_TRY(pf_proposal_file_read(path, &p));
            bool stopped = p.call.stopped;
            pf_proposal_file_release(&p);
            if (!stopped) continue;
            if (unlink(path) != 0) return pf_fail(PF_ERR_IO, "cannot remove '%s': %s", path, strerror(errno));
            (*n)++;
        }
    }
    return PF_OK;
}
