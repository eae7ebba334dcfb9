#include "train/graph_objective.h"

double pf_graph_total_loss(const pf_graph *g, const pf_real *weights)
{
    double s = 0;
    for (int t = 0; t < pf_graph_nloss(g); t++)
        s += (weights ? weights[t] : 1) * pf_graph_loss_value(g, t);
    return s;
}

static double graph_fdf(void *ctx, const pf_real *x, pf_real *grad)
{
    pf_graph_objective *o = ctx;
    size_t n = o->n ? o->n : pf_graph_nparams(o->g);
    const pf_backend *be = pf_graph_backend(o->g);
    pf_real *params = pf_graph_params(o->g);
    if (x != params) be->copy(params, x, n);
    pf_graph_forward_backward(o->g, o->weights);
    const pf_real *gr = pf_graph_grads(o->g);
    if (grad != gr) be->copy(grad, gr, n);
    o->evals++;
    return pf_graph_total_loss(o->g, o->weights);
}

pf_lbfgs_objective pf_graph_objective_lbfgs(pf_graph_objective *ctx)
{
    return (pf_lbfgs_objective){graph_fdf, ctx};
}
