/* run.c — the run folder's layout and settings (run.h). */
#include "search/run.h"

#include <stdio.h>
#include <string.h>

#include "core/names.h"
#include "core/parse.h"
#include "llm/offline.h"
#include "pdefile/pdefile.h"
#include "registry.h"
#include "search/artifact.h"

static const char *const eval_names[] = {"paper", "heldout"};

const char *pf_eval_mode_name(pf_eval_mode m)
{
    return (unsigned)m < 2 ? eval_names[m] : "?";
}

pf_status pf_eval_mode_from_name(const char *name, pf_eval_mode *out)
{
    int i;
    PF_TRY(pf_name_lookup("eval", name, eval_names, 2, &i));
    *out = (pf_eval_mode)i;
    return PF_OK;
}

pf_status pf_run_open(const char *dir, pf_run *r)
{
    memset(r, 0, sizeof *r);
    if (snprintf(r->dir, sizeof r->dir, "%s", dir) >= (int)sizeof r->dir)
        return pf_fail(PF_ERR_INVALID, "run folder name '%s' is too long", dir);
    pf_run_context c;
    PF_TRY(pf_run_context_read(dir, &c));
    pf_status st = pf_pdes_lookup(c.pde, &r->pde);
    if (st == PF_OK) st = pf_method_from_name(c.method, &r->method);
    if (st == PF_OK) st = pf_budget_lookup(c.budget, &r->budget);
    if (st == PF_OK) st = pf_eval_mode_from_name(c.eval, &r->eval);
    if (st == PF_OK) {
        if (!strcmp(c.llm, "auto")) r->llm = PF_LLM_AUTO;
        else st = pf_llm_kind_from_name(c.llm, &r->llm);
    }
    r->run = c.run;
    r->time_budget_s = c.time_budget_s;
    memcpy(r->backbone, c.backbone, sizeof r->backbone);
    r->llm_max_tokens = c.llm_max_tokens;
    r->llm_max_cost = c.llm_max_cost;
    snprintf(r->llm_dir, sizeof r->llm_dir, "%s/llm", r->dir);
    if (st != PF_OK) return pf_fail(st, "%s/context.json: %s", dir, pf_errmsg());
    if (pf_pdefile_is_path(c.pde)) return pf_run_context_check_folder(dir, r->pde->name, c.method, c.backbone, c.run);
    return PF_OK;
}

pf_status pf_run_options(const pf_run *r, const char *backbone, pf_llm_options *o)
{
    PF_TRY(pf_llm_options_for_backbone(o, r->backbone));
    const char *mix = o->mix; /* the run's mixture, when it has one: its draw names backbone */
    if (backbone) PF_TRY(pf_llm_options_for_backbone(o, backbone));
    if (backbone) o->mix = mix;
    if (r->llm != PF_LLM_AUTO) o->kind = r->llm;
    o->transcripts = r->llm_dir;
    o->seed = (uint64_t)r->run;
    return PF_OK;
}

pf_status pf_run_provider(const pf_run *r, pf_llm_options *o, pf_llm_provider **out)
{
    *out = NULL;
    PF_TRY(pf_run_options(r, NULL, o));
    return pf_llm_provider_alloc(o, out);
}

int pf_run_slots(pf_method m, int g)
{
    const pf_method_def *d = pf_method_def_of(m);
    if (!d || g < 0) return 0;
    if (d->flags & PF_MF_BASELINE) return g < d->generations ? d->slots : 0; /* methods.def */
    return g == 0 ? PF_RUN_GEN0_SLOTS : PF_RUN_GEN_SLOTS;
}

const char *pf_run_slot_name(pf_method m, int g, int k)
{
    if (k < 0 || k >= pf_run_slots(m, g)) return NULL;
    const pf_method_def *d = pf_method_def_of(m);
    if (d->slot_names) return d->slot_names[k];
    return g == 0 ? pf_offline_role_name(k) : pf_offline_strategy_name(k);
}

pf_status pf_run_path(const char *dir, pf_run_file what, int g, int k, char *buf, size_t cap)
{
    bool per_gen = what == PF_RUN_GENERATION || what == PF_RUN_PROPOSAL || what == PF_RUN_CANDIDATE ||
                   what == PF_RUN_EVIDENCE || what == PF_RUN_RESULT || what == PF_RUN_SELECT || what == PF_RUN_MEMORY ||
                   what == PF_RUN_PLAN;
    bool hifi = g == PF_RUN_HIFI && what != PF_RUN_SELECT && what != PF_RUN_MEMORY;
    if (per_gen && !hifi && (g < 0 || g > PF_RUN_MAX_GENERATION))
        return pf_fail(PF_ERR_INVALID, "generation %d is outside 0..%d", g, PF_RUN_MAX_GENERATION);
    if (k < 0 || k > PF_RUN_MAX_GENERATION) return pf_fail(PF_ERR_INVALID, "candidate %d is outside 0..%d", k, PF_RUN_MAX_GENERATION);
    char gen[16], cand[32];
    if (hifi) snprintf(gen, sizeof gen, "hifi"), snprintf(cand, sizeof cand, "hifi/top%d", k);
    else snprintf(gen, sizeof gen, "gen%02d", g), snprintf(cand, sizeof cand, "gen%02d/cand%d", g, k);
    int n;
    switch (what) {
    case PF_RUN_CONTEXT: n = snprintf(buf, cap, "%s/context.json", dir); break;
    case PF_RUN_KNOWLEDGE: n = snprintf(buf, cap, "%s/knowledge.msgpack", dir); break;
    case PF_RUN_GENERATION: n = snprintf(buf, cap, "%s/%s", dir, gen); break;
    case PF_RUN_PROPOSAL: n = snprintf(buf, cap, "%s/%s.proposal.msgpack", dir, cand); break;
    case PF_RUN_CANDIDATE: n = snprintf(buf, cap, "%s/%s", dir, cand); break;
    case PF_RUN_EVIDENCE: n = snprintf(buf, cap, "%s/%s/evidence.msgpack", dir, cand); break;
    case PF_RUN_RESULT: n = snprintf(buf, cap, "%s/%s/result.h5", dir, cand); break;
    case PF_RUN_SELECT: n = snprintf(buf, cap, "%s/%s/select.msgpack", dir, gen); break;
    case PF_RUN_MEMORY: n = snprintf(buf, cap, "%s/%s/memory.msgpack", dir, gen); break;
    case PF_RUN_FINAL: n = snprintf(buf, cap, "%s/final.msgpack", dir); break;
    case PF_RUN_PLAN: n = snprintf(buf, cap, "%s/%s/plan.json", dir, gen); break;
    default: return pf_fail(PF_ERR_INVALID, "no run file %d", (int)what);
    }
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "path in run '%s' is too long", dir);
    return PF_OK;
}

pf_status pf_run_generation_parse(const char *text, int *g)
{
    long v;
    if (!strcmp(text, "hifi")) return *g = PF_RUN_HIFI, PF_OK;
    if (pf_parse_long(text, 0, PF_RUN_MAX_GENERATION, &v) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "--generation wants 0..%d or hifi, not '%s'", PF_RUN_MAX_GENERATION, text);
    *g = (int)v;
    return PF_OK;
}

int pf_run_group_slots(const pf_run *r, int g) { return g == PF_RUN_HIFI ? PF_RUN_TOP : pf_run_slots(r->method, g); }

pf_status pf_run_training_of(const pf_run *r, int g, int k, pf_run_training *t)
{
    memset(t, 0, sizeof *t);
    bool hifi = g == PF_RUN_HIFI;
    if (hifi ? k < 0 || k >= PF_RUN_TOP : !pf_run_slot_name(r->method, g, k))
        return pf_fail(PF_ERR_INVALID, "a run of %s has no slot %d in %s %d (it has %d there)", pf_method_name(r->method),
                       k, hifi ? "the high-fidelity stage" : "generation", hifi ? 0 : g,
                       hifi ? PF_RUN_TOP : pf_run_slots(r->method, g));
    PF_TRY(pf_run_path(r->dir, PF_RUN_PROPOSAL, g, k, t->proposal, sizeof t->proposal));
    PF_TRY(pf_run_path(r->dir, PF_RUN_CANDIDATE, g, k, t->out, sizeof t->out));
    const pf_method_def *d = pf_method_def_of(r->method);
    t->fidelity = hifi ? PF_FIDELITY_HIGH : d->flags & PF_MF_BASELINE ? PF_FIDELITY_BASELINE : PF_FIDELITY_LOW;
    t->seed = (uint64_t)r->run * 100000 + (uint64_t)(hifi ? 9900 : g * 100) + (uint64_t)k;
    t->physics_check = t->fidelity != PF_FIDELITY_LOW;
    return PF_OK;
}
