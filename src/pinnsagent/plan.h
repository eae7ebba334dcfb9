/*
 * plan.h — one iteration of PINNsAgent's planner (a baseline;
 * docs/baselines.md, "PINNsAgent: planner"; spec/pinnsagent_space.h for its space).
 *
 * A pinnsagent run has five iterations, generation g = 0..4 with one slot
 * ("plan") each. Iteration g's context (task "pinnsagent") carries:
 *   scores   the memory-tree importance of the ten hyperparameters, highest
 *            first: [{"param", "score", "visits"}] (the UCT bonus already in
 *            the score of a visited parameter)
 *   replay   iteration 0 only: physics-guided knowledge replay, the best
 *            configuration of each of the most similar known PDEs:
 *            [{"pde", "similarity", "mse", "config"}]
 *   history  iterations >= 1: every earlier configuration with its MSE
 *            ("mse" absent when the training gave none), best first, and
 *            "best" the first with an MSE
 * and pf_pa_plan asks the provider (http, offline, replay: every call a
 * transcript) until an answer holds one configuration that is new:
 *
 *     answer -> the JSON object (pf_extract_json) -> pf_pa_config_read
 *     (numbers snapped, unknown names to the first allowed one) -> not a
 *     configuration of the history or an earlier answer of this iteration
 *     -> its spec (pf_pa_config_spec) validates
 *
 * else asks again, with the reason as the prompt's note and the rejected
 * configurations in the context ("rejected"), up to PF_PA_MAX_REASKS times:
 * each attempt is a fresh call of the same prompt plus the note (PINNsAgent
 * retries with an extra "stay in range" note rather than a conversation).
 *
 *     json_t *ctx;
 *     PF_TRY(pf_pa_context(&in, &ctx));
 *     pf_proposal pr; json_t *config;
 *     PF_TRY(pf_pa_plan(llm, model, prompts, ctx, "gen02/plan", &pr, &config));
 */
#ifndef PF_PINNSAGENT_PLAN_H
#define PF_PINNSAGENT_PLAN_H

#include <jansson.h>

#include "core/status.h"
#include "geom/pde.h"
#include "llm/provider.h"
#include "search/propose.h"
#include "spec/spec.h"

#define PF_PA_MAX_REASKS 30
#define PF_PA_ITERATIONS 5

typedef struct pf_pa_plan_in {
    const pf_pde *pde;
    const pf_budget *budget;   /* NULL: paper */
    int iteration;             /* 0 .. PF_PA_ITERATIONS - 1 */
    const json_t *scores;      /* as above, any order (sorted here) */
    const json_t *replay;      /* iteration 0 (NULL otherwise) */
    const json_t *history;     /* [{"config", "mse"?, "status"}] in iteration order */
} pf_pa_plan_in;

/* The context of one planner call (new reference): the fields above plus
 * format, version, task "pinnsagent", method, pde, budget, fidelity
 * "baseline", generation and iteration. */
pf_status pf_pa_context(const pf_pa_plan_in *in, json_t **ctx);

/* Settle one iteration (see above). PF_OK: the slot is settled, valid or
 * not (out->valid; *config the configuration as JSON when valid, else
 * NULL); an error status: the provider failed and nothing was decided. */
pf_status pf_pa_plan(pf_llm_provider *llm, const char *model, const char *prompts_dir, const json_t *ctx,
                     const char *slot, pf_proposal *out, json_t **config);

#endif
