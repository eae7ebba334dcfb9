/*
 * method.h — the methods a run can use: PINNForge, the search methods of
 * the paper's ablations (appendix A.6), and the baselines of Table 1.
 *
 * The search methods differ in what each lets the proposer see:
 *
 *   method         K_P   M_g   execution feedback   parents (Top-3 specs)
 *   pinnforge       yes   yes   yes                  yes
 *   no_knowledge    -     -     yes                  yes
 *   no_feedback     yes   -     -                    yes
 *   no_evolution    yes   yes   yes (through M_g)    -
 *
 * search/context.h leaves out of a context what the method may not see; the
 * offline proposer (offline.h) reads the same predicates, so neither can
 * use what the other hides.
 *
 * A baseline (pf_method_is_baseline) runs none of the search: five
 * candidates, the lowest MSE selected (paper section 4.3 and B.8;
 * search/baseline.h). It sees nothing of the above.
 *   vanilla   PINNacle's default trainer (an extra column of Table 1)
 *   ropinn    vanilla with RoPINN's region optimization (a reconstruction:
 *             RoPINN released no PINNacle driver)
 *   pinnsagent  PINNsAgent's planner: five configurations of its ten
 *             hyperparameters, one per iteration, each planned from the
 *             ones before (search/pinnsagent_plan.h)
 */
#ifndef PF_LLM_METHOD_H
#define PF_LLM_METHOD_H

#include <stdbool.h>

#include "core/status.h"

typedef enum pf_method {
    PF_METHOD_PINNFORGE = 0, /* "pinnforge"    */
    PF_METHOD_NO_KNOWLEDGE,  /* "no_knowledge" */
    PF_METHOD_NO_FEEDBACK,   /* "no_feedback"  */
    PF_METHOD_NO_EVOLUTION,  /* "no_evolution" */
    PF_METHOD_VANILLA,       /* "vanilla"      */
    PF_METHOD_ROPINN,        /* "ropinn"       */
    PF_METHOD_PINNSAGENT,    /* "pinnsagent"   */
    PF_METHOD_PINNSFORMER,   /* "pinnsformer"  */
    PF_METHOD_COUNT
} pf_method;

const char *pf_method_name(pf_method m);
/* PF_ERR_INVALID naming the allowed methods for anything else. */
pf_status pf_method_from_name(const char *name, pf_method *out);
/* A baseline method: no search, no proposer (see above). */
bool pf_method_is_baseline(pf_method m);
/* A search method of the ablations: neither PINNForge nor a baseline. */
bool pf_method_is_ablation(pf_method m);
/* Whether the method sees K_P, builds M_g, sees y/evidence, sees parents. */
bool pf_method_has_knowledge(pf_method m);
bool pf_method_has_memory(pf_method m);
bool pf_method_has_feedback(pf_method m);
bool pf_method_has_parents(pf_method m);

#endif
