/*
 * baseline.h — the baseline methods of Table 1 as runs of the pipeline
 * (paper section 4.3 and appendix B.8).
 *
 * A baseline run searches nothing: generation 0 holds PF_RUN_BASELINE_CANDIDATES
 * candidates ("init0" .. "init4"), each an ordinary proposal of the
 * method's spec trained by pf-train at fidelity "baseline" (20,000 steps at
 * the paper profile, 1,000 at quick) from its own seed, and pf-final
 * reports the one with the lowest MSE (final.h, pf_final_build_baseline).
 * Everything a baseline does is a spec option, so the proposers can choose
 * the same mechanisms:
 *
 *   vanilla  PINNacle's default trainer: a 5 x 100 tanh MLP with
 *            Glorot-normal initialization, Hammersley points (8,192
 *            interior, 2,048 boundary, 2,048 initial for a time-dependent
 *            PDE), Adam at 1e-3 with no schedule, unit loss weights; the
 *            MSE of the last step (pf_spec_example_budget, with the points
 *            and the width shrunk together to fit a smaller budget);
 *   ropinn   vanilla plus training.region_optimization with RoPINN's
 *            values (r0 = 1e-4, T0 = 10, radius at most 0.01;
 *            train/region.h). A reconstruction: RoPINN released no driver
 *            for PINNacle's benchmark.
 *   pinnsformer  vanilla's points and optimizer with architecture.type
 *            "pinnsformer" at the released sizes (5 tokens, dt 1e-4,
 *            d_model 32, one layer each, d_ff 256, d_hidden 512, 2 heads:
 *            453,561 parameters on 2 inputs), its widths shrunk together
 *            to fit a smaller budget (pf_spec_fit_budget); the training
 *            graph averages the residual and boundary losses over every
 *            token and fits the initial condition on token 0 (train/
 *            train_graph.h). A reconstruction: the released code trains
 *            with L-BFGS on its own 1-D problems and has no PINNacle driver.
 *
 *     json_t *spec;
 *     PF_TRY(pf_baseline_spec(PF_METHOD_ROPINN, pde, budget, &spec));  // canonical
 *     ... json_decref(spec);
 */
#ifndef PF_SEARCH_BASELINE_H
#define PF_SEARCH_BASELINE_H

#include <jansson.h>

#include "core/status.h"
#include "geom/pde.h"
#include "llm/method.h"
#include "search/propose.h"
#include "spec/spec.h"

/* The canonical spec of baseline m on PDE p within budget b (NULL: paper),
 * its steps the budget's "baseline" fidelity. PF_ERR_INVALID when m is not
 * vanilla, ropinn or pinnsformer (pinnsagent plans its specs: pinnsagent/plan.h) or
 * the spec does not validate (the reasons in pf_errmsg()). */
pf_status pf_baseline_spec(pf_method m, const pf_pde *p, const pf_budget *b, json_t **out);

/* A settled proposal of that spec: valid, spec and hash, a rationale that
 * says what the method is, no LLM call (attempts 0, provider "baseline").
 * Release with pf_proposal_release. */
pf_status pf_baseline_propose(pf_method m, const pf_pde *p, const pf_budget *b, pf_proposal *out);

#endif
