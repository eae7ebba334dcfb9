/* context.c — the structured context of a proposer call, with the
 * information isolation of appendix A.6 (context.h). */
#include "search/context.h"

#include <stdlib.h>
#include <string.h>

#include "llm/offline.h"
#include "registry.h"

/* The evidence a proposer sees: all of it but the wall-clock figures, which
 * differ from one training to the next even with the same seed; with them
 * a replay (which retrains) would ask questions nobody recorded. */
static json_t *evidence_json(const json_t *ev)
{
    json_t *e = json_deep_copy(ev);
    json_object_del(e, "time");
    json_object_del(e, "steps_per_second");
    json_object_del(e, "device");
    return e;
}

static json_t *candidate_json(const pf_candidate *c, bool feedback, bool with_slot)
{
    json_t *o = json_object();
    if (with_slot) {
        json_object_set_new(o, "generation", json_integer(c->generation));
        json_object_set_new(o, "slot", json_string(c->slot));
    }
    json_object_set_new(o, "spec", json_deep_copy(c->spec));
    json_object_set_new(o, "spec_hash", json_string(c->spec_hash));
    if (feedback) {
        if (c->has_y) json_object_set_new(o, "y", json_real(c->y));
        json_object_set_new(o, "status", json_string(pf_candidate_status_name(c->status)));
        if (c->evidence) json_object_set_new(o, "evidence", evidence_json(c->evidence));
    }
    return o;
}

static int by_hash(const void *a, const void *b)
{
    const char *x = json_string_value(json_object_get(*(json_t *const *)a, "spec_hash"));
    const char *y = json_string_value(json_object_get(*(json_t *const *)b, "spec_hash"));
    return strcmp(x ? x : "", y ? y : "");
}

/* The parents as the method may see them: in rank order with feedback, in
 * hash order without (the order would tell the ranking). */
static json_t *parents_json(const pf_context_in *in)
{
    bool fb = pf_method_has_feedback(in->method);
    json_t *tmp[16];
    int n = in->nparents < 16 ? in->nparents : 16;
    for (int i = 0; i < n; i++) tmp[i] = candidate_json(&in->parents[i], fb, false);
    if (!fb) qsort(tmp, (size_t)n, sizeof *tmp, by_hash);
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, tmp[i]);
    return a;
}

json_t *pf_context_head(const char *task, pf_method method, const pf_pde *pde, pf_fidelity fidelity,
                        const pf_budget *budget, int generation, bool budget_first)
{
    const char *bname = (budget ? budget : pf_budget_paper())->name, *fname = pf_fidelity_name(fidelity);
    json_t *c = json_object();
    if (!c) return NULL;
    json_object_set_new(c, "format", json_string("pinnforge.context"));
    json_object_set_new(c, "version", json_integer(1));
    json_object_set_new(c, "task", json_string(task));
    json_object_set_new(c, "method", json_string(pf_method_name(method)));
    json_object_set_new(c, "pde", json_string(pf_pdes_key(pde)));
    json_object_set_new(c, budget_first ? "budget" : "fidelity", json_string(budget_first ? bname : fname));
    json_object_set_new(c, budget_first ? "fidelity" : "budget", json_string(budget_first ? fname : bname));
    json_object_set_new(c, "generation", json_integer(generation));
    if (json_object_size(c) != 8) { /* a value failed to build: its key is missing */
        json_decref(c);
        return NULL;
    }
    return c;
}

static pf_status base(const pf_context_in *in, const char *task, json_t **c)
{
    *c = pf_context_head(task, in->method, in->pde, in->fidelity, in->budget, in->generation, false);
    return *c ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
}

pf_status pf_context_propose(const pf_context_in *in, json_t **ctx)
{
    *ctx = NULL;
    if (!in->pde) return pf_fail(PF_ERR_INVALID, "context: no PDE");
    if (in->method < 0 || in->method >= PF_METHOD_COUNT) return pf_fail(PF_ERR_INVALID, "context: bad method");
    if (in->generation == 0) {
        if (!in->role || in->strategy || in->escape)
            return pf_fail(PF_ERR_INVALID, "context: generation 0 takes a role, and no strategy or escape");
        if (pf_offline_role_index(in->role) < 0) return pf_fail(PF_ERR_INVALID, "context: unknown role '%s'", in->role);
    } else {
        if (!in->strategy || in->role || in->generation < 0)
            return pf_fail(PF_ERR_INVALID, "context: generation %d takes a strategy and no role", in->generation);
        if (pf_offline_strategy_index(in->strategy) < 0)
            return pf_fail(PF_ERR_INVALID, "context: unknown strategy '%s'", in->strategy);
    }
    json_t *c;
    PF_TRY(base(in, "propose", &c));
    if (in->role) json_object_set_new(c, "role", json_string(in->role));
    if (in->strategy) json_object_set_new(c, "strategy", json_string(in->strategy));
    json_object_set_new(c, "escape", json_boolean(in->escape));
    if (pf_method_has_knowledge(in->method) && in->knowledge)
        json_object_set_new(c, "knowledge", json_deep_copy(in->knowledge));
    if (in->generation > 0 && pf_method_has_parents(in->method) && in->nparents > 0)
        json_object_set_new(c, "parents", parents_json(in));
    if (in->generation > 0 && pf_method_has_memory(in->method) && in->memory && *in->memory)
        json_object_set_new(c, "memory", json_string(in->memory));
    *ctx = c;
    return PF_OK;
}

pf_status pf_context_posterior(const pf_context_in *in, json_t **ctx)
{
    *ctx = NULL;
    if (!in->pde) return pf_fail(PF_ERR_INVALID, "context: no PDE");
    if (!pf_method_has_memory(in->method))
        return pf_fail(PF_ERR_INVALID, "method %s forms no posterior memory (appendix A.6)", pf_method_name(in->method));
    json_t *c, *h = json_array();
    PF_TRY(base(in, "posterior", &c));
    for (int i = 0; i < in->nhistory; i++) json_array_append_new(h, candidate_json(&in->history[i], true, true));
    json_object_set_new(c, "history", h);
    if (in->memory && *in->memory) json_object_set_new(c, "memory", json_string(in->memory));
    *ctx = c;
    return PF_OK;
}
