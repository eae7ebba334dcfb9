/*
 * pde_ops.h — small jet-op shorthands for the PDE files (internal to pdes/).
 *
 * Residuals read as formulas: ADD(c, a, b), MUL(c, a, b), SIN(c, a), ... on
 * the context's graph; K(c, a, s) scales by a constant, SHIFT adds one.
 */
#ifndef PF_PDES_PDE_OPS_H
#define PF_PDES_PDE_OPS_H

#include <math.h>

#include "geom/pde.h"

#define PF_PI 3.14159265358979323846

#define ADD(c, a, b) pf_add((c)->g, (a), (b))
#define SUB(c, a, b) pf_sub((c)->g, (a), (b))
#define MUL(c, a, b) pf_mul((c)->g, (a), (b))
#define K(c, a, s) pf_scale((c)->g, (a), (pf_real)(s))
#define SHIFT(c, a, s) pf_add_const((c)->g, (a), (pf_real)(s))
#define SIN(c, a) pf_unary((c)->g, PF_UNARY_SIN, (a), 0)
#define COS(c, a) pf_unary((c)->g, PF_UNARY_COS, (a), 0)
#define EXP(c, a) pf_unary((c)->g, PF_UNARY_EXP, (a), 0)
#define TANH(c, a) pf_unary((c)->g, PF_UNARY_TANH, (a), 0)
#define SQ(c, a) pf_unary((c)->g, PF_UNARY_SQUARE, (a), 0)
#define CUBE(c, a) pf_unary((c)->g, PF_UNARY_POW, (a), 3)
#define RECIP(c, a) pf_unary((c)->g, PF_UNARY_RECIP, (a), 0)
#define SIGMOID(c, a) pf_unary((c)->g, PF_UNARY_SIGMOID, (a), 0)
/* Channel k of a multi-channel jet (a network's output in a hard transform). */
#define CH(c, a, k) pf_slice((c)->g, (a), (k), 1)

/* u_k at the context's points, minus a field: the usual Dirichlet/IC form. */
static inline pf_node *pf_pde_minus(pf_pde_ctx *c, int k, pf_node *g)
{
    return SUB(c, pf_pde_d(c, k, 0, 0), g);
}

#endif
