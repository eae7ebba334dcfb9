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

/* Switches on value-only fields (coefficients, bounds), without an op of
 * their own. The engine's sigmoid is 1 / (1 + exp(-a)): exactly 1 in float
 * and double once a > 37, exactly 0 once exp(-a) overflows, and 0 or 1 again
 * (never NaN) when a is +-inf, with derivative s (1 - s) = 0 there. With the
 * gain G = 1e20 the switches below are exact except for |z| < ~1e-17 (never
 * hit by coordinates such as z - 0.5: their nearest non-zero value is
 * ~6e-17 in double, ~3e-8 in float). Value-only fields only: on a jet the
 * huge gain would reach the derivative streams. */
#define PF_PDE_SWITCH_GAIN 1e20

/* 1 where z >= 0, 0 where z < 0 (z = 0 gives sigmoid(40) = 1 exactly). */
static inline pf_node *pf_pde_step(pf_pde_ctx *c, pf_node *z)
{
    return SIGMOID(c, SHIFT(c, K(c, z, PF_PDE_SWITCH_GAIN), 40));
}

/* max(0, z) as z sigmoid(G z): exactly z or 0 outside |z| < ~1e-18, where it
 * differs from max(0, z) by less than |z|; its gradient is the step (0 or 1)
 * outside that band and finite inside it (no NaN at z = 0, unlike
 * (z + sqrt(z^2)) / 2). */
static inline pf_node *pf_pde_relu(pf_pde_ctx *c, pf_node *z)
{
    return MUL(c, z, SIGMOID(c, K(c, z, PF_PDE_SWITCH_GAIN)));
}

#endif
