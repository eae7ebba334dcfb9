/* plan.c — PINNsAgent's planner, one iteration (plan.h). */
#include "pinnsagent/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "search/context.h"
#include "search/prompt.h"
#include "spec/pinnsagent_space.h"

static double mse_of(const json_t *e)
{
    const json_t *y = json_object_get(e, "mse");
    return json_is_number(y) ? json_number_value(y) : INFINITY;
}

static int by_mse(const void *a, const void *b)
{
    double x = mse_of(*(json_t *const *)a), y = mse_of(*(json_t *const *)b);
    return x < y ? -1 : x > y ? 1 : 0;
}

static int by_score(const void *a, const void *b)
{
    double x = json_number_value(json_object_get(*(json_t *const *)a, "score"));
    double y = json_number_value(json_object_get(*(json_t *const *)b, "score"));
    return x > y ? -1 : x < y ? 1 : 0;
}

/* A copy of array a in cmp's order (a stable insertion sort: ties keep
 * their order). */
static json_t *sorted(const json_t *a, int (*cmp)(const void *, const void *))
{
    size_t n = json_array_size(a);
    json_t **v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        size_t j = i;
        while (j > 0 && cmp(&e, &v[j - 1]) < 0) v[j] = v[j - 1], j--;
        v[j] = e;
    }
    json_t *out = json_array();
    for (size_t i = 0; out && i < n; i++) json_array_append(out, v[i]);
    free(v);
    return out;
}

pf_status pf_pa_context(const pf_pa_plan_in *in, json_t **ctx)
{
    *ctx = NULL;
    if (in->iteration < 0 || in->iteration >= PF_PA_ITERATIONS)
        return pf_fail(PF_ERR_INVALID, "pinnsagent: iteration %d is outside 0..%d", in->iteration, PF_PA_ITERATIONS - 1);
    json_t *c = pf_context_head("pinnsagent", PF_METHOD_PINNSAGENT, in->pde, PF_FIDELITY_BASELINE, in->budget,
                                in->iteration, true);
    if (!c || json_object_set_new(c, "iteration", json_integer(in->iteration))) {
        json_decref(c);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    json_object_set_new(c, "scores", sorted(in->scores, by_score));
    if (in->iteration == 0 && json_array_size(in->replay)) json_object_set(c, "replay", (json_t *)in->replay);
    if (in->iteration > 0) {
        json_t *h = sorted(in->history, by_mse);
        json_object_set_new(c, "history", h);
        if (json_array_size(h) && isfinite(mse_of(json_array_get(h, 0))))
            json_object_set(c, "best", json_array_get(h, 0));
    }
    if (!json_is_array(json_object_get(c, "scores")) || (in->iteration > 0 && !json_object_get(c, "history"))) {
        json_decref(c);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    *ctx = c;
    return PF_OK;
}

/* Whether configuration c repeats one of array a's ("config" of each entry,
 * or the entry itself when it has none); *at its index. */
static bool repeats(const pf_pa_config *c, const json_t *a, size_t *at)
{
    size_t i;
    const json_t *e;
    json_array_foreach(a, i, e) {
        const json_t *x = json_object_get(e, "config") ? json_object_get(e, "config") : e;
        pf_pa_config d;
        if (pf_pa_config_read(x, &d, NULL, 0) == PF_OK && pf_pa_config_equal(c, &d)) {
            *at = i;
            return true;
        }
    }
    return false;
}

/* Judge one answer: true with *spec, *config and *rationale set, else the
 * reason in why[] and, when a configuration was read, *config set (for the
 * rejected list). */
static bool judge(const char *answer, const json_t *ctx, const pf_pde *p, const pf_budget *b, json_t *rejected,
                  char *why, size_t cap, json_t **spec, json_t **config, char **rationale)
{
    char *js = NULL, *before = NULL;
    *spec = *config = NULL;
    *rationale = NULL;
    if (pf_extract_json(answer, &js, &before) != PF_OK) {
        snprintf(why, cap, "%s", pf_errmsg()); /* no object, the parser's message with line and column, or too long */
        return false;
    }
    json_error_t e;
    json_t *o = json_loads(js, 0, &e);
    free(js);
    pf_pa_config c;
    char note[PF_PA_NOTE];
    bool ok = false, read = false;
    size_t at;
    if (!o) snprintf(why, cap, "the JSON does not parse (%s)", e.text);
    else if (!(read = pf_pa_config_read(o, &c, note, sizeof note) == PF_OK)) snprintf(why, cap, "%s", pf_errmsg());
    else if (repeats(&c, json_object_get(ctx, "history"), &at))
        snprintf(why, cap, "it repeats experiment %zu of the history (best first)", at + 1);
    else if (repeats(&c, rejected, &at)) snprintf(why, cap, "it repeats an answer that was already rejected");
    else if (pf_pa_config_spec(&c, p, b, spec) != PF_OK) snprintf(why, cap, "%s", pf_errmsg());
    else ok = true;
    if (read) *config = pf_pa_config_json(&c);
    json_decref(o);
    if (ok) {
        size_t n = (before ? strlen(before) : 0) + strlen(note) + 32;
        *rationale = malloc(n);
        if (*rationale)
            snprintf(*rationale, n, "%s%s%s%s", before ? before : "", note[0] && before ? "\n" : "",
                     note[0] ? "Snapped: " : "", note);
    }
    free(before);
    return ok;
}

pf_status pf_pa_plan(pf_llm_provider *llm, const char *model, const char *prompts_dir, const json_t *ctx,
                     const char *slot, pf_proposal *out, json_t **config)
{
    memset(out, 0, sizeof *out);
    *config = NULL;
    const pf_pde *p;
    const pf_budget *b;
    PF_TRY(pf_pdes_lookup(json_string_value(json_object_get(ctx, "pde")), &p));
    PF_TRY(pf_budget_lookup(json_string_value(json_object_get(ctx, "budget")), &b));
    json_t *q_ctx = json_deep_copy(ctx), *rejected = json_array();
    pf_status st = q_ctx && rejected ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    char why[1024] = "";
    for (int a = 0; st == PF_OK && a <= PF_PA_MAX_REASKS; a++) {
        json_object_set_new(q_ctx, "attempt", json_integer(a));
        if (a) {
            json_object_set_new(q_ctx, "note", json_string(why));
            json_object_set(q_ctx, "rejected", rejected);
        }
        pf_prompt pr;
        if ((st = pf_prompt_render(prompts_dir, q_ctx, &pr)) != PF_OK) break;
        pf_llm_message msg[2] = {{"system", pr.system}, {"user", pr.user}};
        pf_llm_request q = {.model = model, .nmsg = 2, .msg = msg, .temperature = pr.temperature,
                            .max_tokens = PF_PROPOSE_MAX_TOKENS, .slot = slot, .context = q_ctx};
        pf_llm_response r;
        st = pf_llm_request_hash(&q, out->request[a]);
        if (st == PF_OK) st = pf_llm_call(llm, &q, &r);
        pf_prompt_release(&pr);
        if (st != PF_OK) break;
        pf_proposal_count_call(out, a, &r);
        if (r.unusable) { /* the server never answered usably: the iteration ends as invalid, as in propose.c */
            free(out->reasons);
            if (!(out->reasons = strdup(r.unusable))) st = pf_fail(PF_ERR_NOMEM, "out of memory");
            pf_llm_response_release(&r);
            break;
        }
        json_t *spec, *cfg;
        char *rationale;
        bool ok = judge(r.text, q_ctx, p, b, rejected, why, sizeof why, &spec, &cfg, &rationale);
        pf_llm_response_release(&r);
        if (ok) {
            out->valid = true;
            out->spec = spec;
            out->rationale = rationale;
            *config = cfg;
            st = pf_spec_hash(spec, out->spec_hash);
            break;
        }
        if (cfg) json_array_append_new(rejected, cfg);
        free(out->reasons);
        out->reasons = strdup(why);
    }
    json_decref(q_ctx);
    json_decref(rejected);
    if (st != PF_OK) {
        pf_proposal_release(out);
        json_decref(*config);
        *config = NULL;
        return pf_fail(st, "slot %s: %s", slot, pf_errmsg());
    }
    return PF_OK;
}
