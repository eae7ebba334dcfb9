/* slot.c — the search's and the fixed baselines' proposal slots (slot.h). */
#include "search/slot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "llm/provider.h"
#include "search/artifact.h"
#include "search/backbone_mix.h"
#include "search/baseline.h"
#include "search/context.h"
#include "search/prompt.h"
#include "search/propose.h"
#include "search/time_budget_file.h"

#define SAY(...) (done ? (void)snprintf(done, cap, __VA_ARGS__) : (void)0)

static pf_status write_proposal(const char *out, pf_proposal_file *f)
{
    pf_status st = pf_proposal_file_write(out, f);
    pf_proposal_file_release(f);
    return st;
}

/* The previous generation's Top-3 as candidates (views into sel). */
static int parents_of(const pf_select *sel, pf_candidate *par)
{
    for (int k = 0; k < sel->ntop3; k++) par[k] = sel->cand[sel->top3[k]];
    return sel->ntop3;
}

pf_status pf_slot_fixed(const pf_run *r, int g, int k, const char *slot, const char *out, char *done, size_t cap)
{
    (void)g, (void)slot;
    pf_proposal pr;
    PF_TRY(pf_baseline_propose(r->method, r->pde, r->budget, &pr));
    pf_proposal_file file;
    char hash[PF_SPEC_HASH_HEX];
    memcpy(hash, pr.spec_hash, sizeof hash);
    pf_proposal_file_init(&file, r, 0, k, false, &pr); /* takes pr's content */
    PF_TRY(write_proposal(out, &file));
    SAY("%s spec %.12s", pf_method_name(r->method), hash);
    return PF_OK;
}

pf_status pf_slot_search(const pf_run *r, int g, int k, const char *slot, const char *out, char *done, size_t cap)
{
    PF_TRY(pf_mkdirs(r->llm_dir));
    char path[4096];
    pf_select *sel = NULL;
    pf_memory_file mem = {0};
    json_t *kb = NULL, *ctx = NULL;
    pf_proposal_file file;
    pf_candidate par[PF_RUN_TOP];
    pf_context_in in = {.pde = r->pde, .fidelity = PF_FIDELITY_LOW, .budget = r->budget, .method = r->method,
                        .generation = g};
    pf_status st = PF_OK;
    if (g == 0) {
        in.role = pf_run_slot_name(r->method, g, k);
    } else {
        in.strategy = pf_run_slot_name(r->method, g, k);
        if ((st = pf_run_path(r->dir, PF_RUN_SELECT, g - 1, 0, path, sizeof path)) == PF_OK)
            st = pf_select_read(path, &sel);
        if (st == PF_OK && sel->next == PF_SELECT_STOP) {
            pf_select_free(sel);
            pf_proposal_file_init(&file, r, g, k, false, NULL);
            PF_TRY(write_proposal(out, &file));
            SAY("skipped (the search stopped)");
            return PF_OK;
        }
        if (st == PF_OK) {
            in.escape = sel->next == PF_SELECT_ESCAPE;
            in.nparents = parents_of(sel, par);
            in.parents = par;
        }
        if (st == PF_OK && (st = pf_run_path(r->dir, PF_RUN_MEMORY, g - 1, 0, path, sizeof path)) == PF_OK &&
            (st = pf_memory_file_read(path, &mem)) == PF_OK)
            in.memory = mem.text;
    }
    if (st == PF_OK && (st = pf_run_path(r->dir, PF_RUN_KNOWLEDGE, 0, 0, path, sizeof path)) == PF_OK &&
        (st = pf_knowledge_file_read(path, &kb)) == PF_OK)
        in.knowledge = kb;
    if (st == PF_OK) st = pf_context_propose(&in, &ctx);
    char line[1024];
    if (st == PF_OK && r->time_budget_s > 0 && (st = pf_time_budget_prompt(r, g, line, sizeof line)) == PF_OK)
        json_object_set_new(ctx, "time_budget", json_string(line)); /* the recorded line: a replay asks the same */

    pf_llm_options o;
    pf_llm_provider *llm = NULL;
    char prompts[4096];
    pf_mix_draw draw;
    if (st == PF_OK) st = pf_mix_provider(r, g, k, &o, &llm, &draw);
    if (st == PF_OK) pf_llm_provider_set_budget(llm, r->llm_max_tokens, r->llm_max_cost); /* the run's LLM budget */
    if (st == PF_OK) st = pf_prompt_dir(prompts, sizeof prompts);
    pf_proposal pr = {0};
    if (st == PF_OK) st = pf_propose(llm, o.model, prompts, ctx, slot, &pr);
    if (st == PF_OK) {
        pf_proposal_file_init(&file, r, g, k, in.escape, &pr); /* takes pr's content */
        file.mix = draw.n ? pf_mix_draw_json(&draw) : NULL;
        st = pf_proposal_file_write(out, &file);
        json_decref(file.mix);
        pr = file.call;
        memset(&file.call, 0, sizeof file.call);
    }
    if (st == PF_OK && pr.stopped)
        SAY("stopped after %d call%s: %.*s", pr.attempts, pr.attempts == 1 ? "" : "s",
            pr.reasons ? (int)strcspn(pr.reasons + 2, "\n") : 0, pr.reasons ? pr.reasons + 2 : "");
    else if (st == PF_OK)
        SAY("%s after %d call%s (%s, %ld+%ld tokens, %.2f s)", pr.valid ? "valid" : "INVALID", pr.attempts,
            pr.attempts == 1 ? "" : "s", pf_llm_provider_describe(llm), pr.prompt_tokens, pr.completion_tokens,
            pr.latency_s);
    pf_proposal_release(&pr);
    pf_llm_provider_free(llm);
    json_decref(ctx);
    json_decref(kb);
    pf_memory_file_release(&mem);
    pf_select_free(sel);
    return st;
}
