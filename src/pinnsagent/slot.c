/* slot.c — PINNsAgent's proposal slot: one planner iteration from the run's
 * earlier ones and its run database (slot.h). */
#include "pinnsagent/slot.h"

#include <stdio.h>

#include "core/file.h"
#include "llm/provider.h"
#include "pinnsagent/memory.h"
#include "pinnsagent/plan.h"
#include "search/artifact.h"
#include "search/prompt.h"

/* The earlier iterations of a pinnsagent run: [{"config", "mse"?, "status"}]. */
static pf_status pa_history(const pf_run *r, int g, json_t **out)
{
    *out = json_array();
    for (int i = 0; i < g; i++) {
        pf_run_candidate c;
        PF_TRY(pf_run_candidate_read(r->dir, i, 0, &c));
        json_t *e =
            json_pack("{s:O?, s:s}", "config", c.proposal.plan, "status", pf_candidate_status_name(c.cand.status));
        if (e && pf_candidate_ranked(&c.cand)) json_object_set_new(e, "mse", json_real(c.cand.y));
        pf_run_candidate_release(&c);
        if (!e) return pf_fail(PF_ERR_NOMEM, "out of memory");
        if (!json_object_get(e, "config")) {
            json_decref(e);
            continue; /* an iteration whose planner gave nothing valid */
        }
        json_array_append_new(*out, e);
    }
    return PF_OK;
}

pf_status pf_slot_plan(const pf_run *r, int g, int k, const char *slot, const char *out, char *done, size_t cap)
{
    (void)k;
    pf_pa_plan_in in = {.pde = r->pde, .budget = r->budget, .iteration = g};
    json_t *history = NULL, *scores = NULL, *replay = NULL, *ctx = NULL, *config = NULL;
    pf_llm_options o;
    pf_llm_provider *llm = NULL;
    char prompts[4096];
    pf_proposal pr = {0};
    pf_status st = pa_history(r, g, &history);
    if (st == PF_OK) st = pf_pa_memory(r->pde, history, &scores, g == 0 ? &replay : NULL);
    in.history = history, in.scores = scores, in.replay = replay;
    if (st == PF_OK) st = pf_pa_context(&in, &ctx);
    if (st == PF_OK) st = pf_mkdirs(r->llm_dir);
    if (st == PF_OK && (r->llm_max_tokens || r->llm_max_cost > 0)) /* no early stop for its planner yet */
        st = pf_fail(PF_ERR_UNSUPPORTED, "LLM_MAX_TOKENS and LLM_MAX_COST are not supported for %s runs yet (its "
                     "planner has no early stop): make this run without them", pf_method_name(r->method));
    if (st == PF_OK) st = pf_run_provider(r, &o, &llm);
    if (st == PF_OK) st = pf_prompt_dir(prompts, sizeof prompts);
    if (st == PF_OK) st = pf_pa_plan(llm, o.model, prompts, ctx, slot, &pr, &config);
    if (st == PF_OK) {
        pf_proposal_file file;
        pf_proposal_file_init(&file, r, g, 0, false, &pr); /* takes pr's content */
        file.plan = config;
        config = NULL;
        if (done)
            snprintf(done, cap, "%s after %d call%s (%s, %ld+%ld tokens, %.2f s)",
                     file.call.valid ? "valid" : "INVALID", file.call.attempts, file.call.attempts == 1 ? "" : "s",
                     pf_llm_provider_describe(llm), file.call.prompt_tokens, file.call.completion_tokens,
                     file.call.latency_s);
        st = pf_proposal_file_write(out, &file);
        pf_proposal_file_release(&file);
    }
    pf_proposal_release(&pr);
    pf_llm_provider_free(llm);
    json_decref(config);
    json_decref(ctx);
    json_decref(replay);
    json_decref(scores);
    json_decref(history);
    return st;
}
