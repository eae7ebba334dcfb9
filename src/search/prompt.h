/*
 * prompt.h — turning a context (context.h) into the messages of one call.
 *
 * The templates live in data/prompts/ (found with pf_asset_dir("prompts",
 * "PF_PROMPTS_DIR")); their language is template.h's. A proposal is
 * system.md + propose.md, filled with exactly the context of appendix A.2:
 *
 *   pde_description  the PDE (geom/pde.h pf_pde_describe)       always
 *   knowledge        K_P, the retrieved entries                  when in the context
 *   space            the allowed space (spec.h pf_spec_describe) always
 *   budget           the step budget and the limits              always
 *   role | strategy  role_<name>.md or strategy_<name>.md        one of them
 *   escape           escape.md                                   escape generations
 *   parents          the Global Top-3 specs (with y if ranked)   generation >= 1, when in the context
 *   evidence         the parents' execution evidence             when in the context
 *   memory           M_g                                         when in the context
 *
 * The posterior summary is posterior_system.md + posterior.md over the
 * history. PINNsAgent's planner (task "pinnsagent", a baseline;
 * pinnsagent/plan.h) is pinnsagent/system.md + pinnsagent/plan.md:
 * its space, importance scores, replayed configurations, history and note. A rejected answer is followed by reask.md with the validator's
 * reasons. Temperatures follow appendix B.2: per role, per strategy
 * (+0.15 in an escape generation, capped at 0.85), 0.1 for the posterior.
 *
 *     pf_prompt pr;
 *     PF_TRY(pf_prompt_render(dir, ctx, &pr));   // pr.system, pr.user, pr.temperature
 *     ...
 *     pf_prompt_release(&pr);
 */
#ifndef PF_SEARCH_PROMPT_H
#define PF_SEARCH_PROMPT_H

#include <jansson.h>
#include <stdbool.h>

#include "core/status.h"

#define PF_TEMPERATURE_POSTERIOR 0.1
#define PF_TEMPERATURE_ESCAPE_STEP 0.15
#define PF_TEMPERATURE_MAX 0.85
#define PF_TEMPERATURE_PINNSAGENT 0.7 /* PINNsAgent's planner (its released default) */

/* Appendix B.2. role: 0..7 in llm/offline.h order; strategy 0..4. */
double pf_temperature_role(int role);
double pf_temperature_strategy(int strategy, bool escape);

/* The prompts folder: $PF_PROMPTS_DIR, else data/prompts (io/asset_dir.h). */
pf_status pf_prompt_dir(char *buf, size_t cap);

typedef struct pf_prompt {
    char *system, *user;   /* malloc'ed */
    double temperature;
} pf_prompt;

void pf_prompt_release(pf_prompt *p);

/* Render the messages and pick the temperature for ctx (task "propose" or
 * "posterior"). PF_ERR_IO for a missing template (naming it), PF_ERR_INVALID
 * for a malformed context or template. */
pf_status pf_prompt_render(const char *dir, const json_t *ctx, pf_prompt *out);

/* The follow-up after a rejected answer: reask.md with the reasons (one per
 * line) and "attempt k of n". *text malloc'ed. */
pf_status pf_prompt_reask(const char *dir, const char *reasons, int attempt, int attempts, char **text);

#endif
