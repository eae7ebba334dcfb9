/*
 * offline.h — the offline rule-based proposer (no LLM).
 *
 * An evolutionary operator set that stands where an LLM would: it answers
 * the same requests, reading the structured context (pf_llm_request.context)
 * the prompt was rendered from instead of the prose, and replies the way an
 * LLM is asked to: a short rationale, then one complete AlgorithmSpec in a
 * ```json fence (task "propose"), or the posterior memory M_g (task
 * "posterior"). It is deterministic: the same seed and the same request give
 * the same bytes. It is never called an LLM anywhere.
 *
 * ------------------------------------------------------- the context
 *
 * One JSON object (search/ builds it; everything but task, pde and fidelity
 * may be absent, and absence means "not shown to the proposer", which is how
 * the ablations of appendix A.6 hide information):
 *
 *   {"format": "pinnforge.context", "version": 1,
 *    "task": "propose" | "posterior",
 *    "method": "pinnforge" | "no_knowledge" | "no_feedback" | "no_evolution",
 *    "pde": "burgers_1d",                 registry name (tags, terms, transforms come from it)
 *    "fidelity": "low" | "high",          the step budget the spec must sum to
 *    "budget": "paper" | "quick",         the limits and step budgets (spec.h pf_budget; paper if absent)
 *    "generation": 3,
 *    "role": "robust_reference", ...      generation 0 (pf_offline_role_name)
 *    "strategy": "refine", ...            generation >= 1 (pf_offline_strategy_name)
 *    "escape": false,                     an escape generation (appendix B.5)
 *    "knowledge": [{"id", "title", "tags": [..]}, ...]         K_P
 *    "parents": [{"spec": {canonical spec}, "spec_hash",       Global Top-3, best first;
 *                 "y": 1.2e-3, "status": "ok",                 y/status/evidence absent when
 *                 "evidence": {evidence.msgpack's "evidence"}}] execution feedback is hidden
 *    "memory": "M_g text",                the previous posterior summary
 *    "history": [{"generation", "slot", "spec_hash", "spec", "y", "status",
 *                 "evidence"}, ...]       task posterior only: the history H_g
 *   }
 *
 * ------------------------------------------------------- what it does
 *
 * Generation-0 roles each apply their own operators to PINNacle's default
 * spec for the PDE, steered by the PDE's tags and the retrieved knowledge
 * tags; strategies (g >= 1) start from the parents:
 *   refine              the best parent, one or two small changes aimed at its
 *                       weakest evidence;
 *   physics_guided      sampling, constraints and loss weights, from residual
 *                       hotspots and constraint errors (a high boundary or
 *                       initial error raises that term's weight or makes the
 *                       constraint hard; concentrated hotspots switch on RAD);
 *   architecture_guided representation, architecture and optimizer, from the
 *                       parameter count, loss reduction, stagnation, gradient
 *                       imbalance and stage outcomes;
 *   synthesis           sections recombined from two or three parents;
 *   novelty             mechanisms no parent (and, in escape, no failed
 *                       history entry) uses.
 * Escape generations (appendix B.5): every proposal differs from each parent
 * in at least two of the seven sections, is not a parent, avoids mechanisms
 * that M_g lists as failed, and synthesis/novelty draw on more parents and
 * mechanisms.
 *
 * The "pinnsagent" task is PINNsAgent's planner (a baseline;
 * offline_pinnsagent.c, pinnsagent/plan.h): its context holds
 * "iteration", "attempt", "scores", "replay", "history", "best" and
 * "rejected", and the answer is one configuration of PINNsAgent's ten
 * hyperparameters (spec/pinnsagent_space.h).
 *
 * The posterior task writes M_g: a few lines of prose and a ```json block
 * {"best_y", "candidates", "failures", "mechanisms": {name: {"tried",
 * "ok", "best_y", "median_y"}}} that later offline calls read back; an
 * LLM-written M_g (prose only) is simply not parsed.
 */
#ifndef PF_LLM_OFFLINE_H
#define PF_LLM_OFFLINE_H

#include <jansson.h>

#include "core/status.h"
#include "llm/provider.h"

#define PF_OFFLINE_ROLES 8
#define PF_OFFLINE_STRATEGIES 5

/* "robust_reference", "constraint_causality", "localized_sampling",
 * "representation", "residual_loss", "optimization", "capacity_topology",
 * "cross_component_novelty"; NULL past the end. */
const char *pf_offline_role_name(int i);
/* "refine", "physics_guided", "architecture_guided", "synthesis", "novelty". */
const char *pf_offline_strategy_name(int i);
/* Index of a role or strategy name, -1 if unknown. */
int pf_offline_role_index(const char *name);
int pf_offline_strategy_index(const char *name);

/* The mechanisms a (normalized) spec uses, as short stable names
 * ("arch:modified_mlp", "act:sin", "fourier", "periodic", "rad", "rar_d",
 * "resample", "hard", "causal", "weight:lr_annealing", "weight:self_adaptive",
 * "lbfgs", "adamw", "schedule:cosine", "rwf", "adaptive_act", ...): a JSON
 * array of strings, new reference. The posterior and novelty read these. */
json_t *pf_offline_mechanisms(const json_t *norm);

/* One offline answer for a request with a context, outside any provider
 * (the provider's complete() calls this). seed is the run's seed. The text
 * is malloc'ed. PF_ERR_INVALID when the context is missing or names an
 * unknown PDE, role or strategy. */
pf_status pf_offline_answer(const json_t *context, uint64_t seed, const char *request_hash,
                            char **text);

#endif
