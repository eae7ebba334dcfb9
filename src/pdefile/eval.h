/*
 * eval.h — the value of a checked expression at one point, in double.
 *
 * For what needs numbers without a graph: parameters and shapes (constant
 * expressions), a part's `where` condition at a boundary point, an exact
 * solution u*(x) (the contract's `exact` hook), a hard transform for a
 * given network value, and tests:
 *
 *     double x[2] = {0.25, 0.5}, u;
 *     if (pf_pdefile_eval(f, f->ref.exact[0].e, x, NULL, &u) != PF_OK) ... // pf_errmsg() says why
 *
 * Values only: a derivative (u_x, lap, dn) has no value here and fails
 * with PF_ERR_UNSUPPORTED. Conditions are 1 or 0; step(z) is 1 where
 * z >= 0; if(c, a, b) is a where c holds, else b.
 */
#ifndef PF_PDEFILE_EVAL_H
#define PF_PDEFILE_EVAL_H

#include "core/status.h"
#include "pdefile/ast.h"

/* e (checked against f) at the inputs x[0..d_in) with the outputs (or, in
 * a hard transform, the network's outputs) u[0..d_out); x or u may be NULL
 * when e does not use them (PF_ERR_INVALID if it does). */
pf_status pf_pdefile_eval(const pf_pdefile *f, const pf_pdefile_expr *e, const double *x, const double *u, double *out);

#endif
