/*
 * context.h — what a proposer is shown: the structured context of one call.
 *
 * Everything a prompt says comes from one JSON object (its shape is in
 * llm/offline.h), built here from what the controller knows. The methods of
 * appendix A.6 (llm/method.h) differ only in what this builder leaves out,
 * so the LLM prompt (prompt.h renders the context) and the offline proposer
 * (which reads it directly) are isolated the same way. Without feedback the
 * parents come in hash order, so their order does not leak the ranking.
 *
 * "Execution feedback" is y, the status and the evidence of each parent
 * (without its wall-clock figures: time, steps_per_second and device vary
 * between trainings with the same seed, and a replay retrains);
 * without it the parents are listed by spec hash, so their order does not
 * leak the ranking either. No posterior memory is formed without knowledge
 * guidance or feedback (pf_method_has_memory).
 *
 *     pf_context_in in = {.pde = p, .fidelity = PF_FIDELITY_LOW,
 *                         .method = PF_METHOD_PINNFORGE, .generation = 4,
 *                         .strategy = "refine", .escape = true,
 *                         .knowledge = entries, .parents = top3, .nparents = 3,
 *                         .memory = m3};
 *     json_t *ctx;
 *     PF_TRY(pf_context_propose(&in, &ctx));
 */
#ifndef PF_SEARCH_CONTEXT_H
#define PF_SEARCH_CONTEXT_H

#include <jansson.h>
#include <stdbool.h>

#include "core/status.h"
#include "geom/pde.h"
#include "llm/method.h"
#include "search/candidate.h"
#include "spec/spec.h"

typedef struct pf_context_in {
    const pf_pde *pde;
    pf_fidelity fidelity;
    const pf_budget *budget;         /* the profile's budget; NULL: paper                */
    pf_method method;
    int generation;
    const char *role;                /* generation 0: a role name (llm/offline.h)       */
    const char *strategy;            /* generation >= 1: a strategy name                */
    bool escape;                     /* an escape generation (appendix B.5)              */
    const json_t *knowledge;         /* K_P: array of entries {id, title, tags, rationale, text} */
    int nparents;
    const pf_candidate *parents;     /* the Global Top-3, best first (views)             */
    const char *memory;              /* M_{g-1}, NULL when none yet                      */
    int nhistory;
    const pf_candidate *history;     /* the posterior task: H_g                          */
} pf_context_in;

/* The fields every context starts with, in this order: {"format":
 * "pinnforge.context", "version": 1, "task", "method", "pde", "fidelity",
 * "budget" (NULL: paper), "generation"}; budget_first puts "budget"
 * before "fidelity", the order of PINNsAgent's planner contexts
 * (pinnsagent/plan.h), kept so that their transcripts stay byte for byte
 * as before. New reference; NULL when out of memory. */
json_t *pf_context_head(const char *task, pf_method method, const pf_pde *pde, pf_fidelity fidelity,
                        const pf_budget *budget, int generation, bool budget_first);

/* The context of one proposal. Exactly one of role (generation 0) and
 * strategy (generation >= 1) must be set, with a known name; escape only
 * with a strategy. PF_ERR_INVALID otherwise. *ctx is a new reference. */
pf_status pf_context_propose(const pf_context_in *in, json_t **ctx);

/* The context of the posterior-summary call over in->history (and the
 * previous memory). PF_ERR_INVALID for a method that forms no memory. */
pf_status pf_context_posterior(const pf_context_in *in, json_t **ctx);

#endif
