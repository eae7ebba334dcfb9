/*
 * graph_objective.h — a compiled graph as an L-BFGS objective.
 *
 * The objective's loss is sum_t weights[t] * L_t over the graph's loss terms
 * (weights NULL: all ones), its gradient the graph's flat gradient:
 *
 *     pf_graph_objective ctx = {g, NULL, 0, 0};
 *     pf_lbfgs_objective obj = pf_graph_objective_lbfgs(&ctx);
 *     pf_lbfgs_step(opt, pf_graph_params(g), pf_graph_grads(g), &obj, &info);
 *
 * Passing the graph's own parameter and gradient buffers as x and grad is
 * allowed (see lbfgs.h on aliasing) and copies nothing. `n` is how many
 * leading parameters L-BFGS optimises (its x and grad hold that many): 0
 * means all of them; the trainer passes the network's count so parameters
 * after it (self-adaptive point weights) keep their values. `evals` counts
 * the forward + backward passes made through this objective.
 */
#ifndef PF_TRAIN_GRAPH_OBJECTIVE_H
#define PF_TRAIN_GRAPH_OBJECTIVE_H

#include "tensor/graph.h"
#include "train/lbfgs.h"

typedef struct pf_graph_objective {
    pf_graph *g;
    const pf_real *weights; /* per loss term, or NULL */
    size_t n;               /* leading parameters optimised; 0: all */
    long evals;
} pf_graph_objective;

/* Weighted total loss after a forward pass. */
double pf_graph_total_loss(const pf_graph *g, const pf_real *weights);

pf_lbfgs_objective pf_graph_objective_lbfgs(pf_graph_objective *ctx);

#endif
