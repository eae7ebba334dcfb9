/*
 * exact_check.h — does a PDE's exact solution solve it? The exact solution
 * u* (exact_fields, in jet ops) is put in place of the network, as a test
 * would, and every residual equation is evaluated on points of the domain's
 * interior and every constraint on points where it holds (its boundary
 * parts, the initial slice, its fixed points), with exact differentiation
 * by the jet engine. `pf-pde check FILE` runs it on a .pde file with an
 * `exact` solution, and tests/test_pdes.c on the built-in PDEs with
 * analytic references.
 *
 * The criterion, per equation and per constraint: over its points,
 *
 *     ratio = RMS(residual) / scale  <=  PF_EXACT_CHECK_TOL (1e-3)
 *
 * where scale is the size of the terms the residual is made of: the
 * largest of the RMS of u* and of every derivative stream of u* that the
 * residual's jet layout carries (each order of each input, and the
 * collapsed Laplacian) on those points, of the RMS of u* over the interior
 * (so a constraint on a wall where u* = 0 is measured against the
 * solution's size), and, when the caller can say what the terms are (a
 * .pde file: opts.equation_terms / constraint_terms), of the RMS of the
 * sum of their magnitudes (for a residual a - b + c: |a| + |b| + |c|,
 * products of magnitudes for products, compile.h). A residual that
 * vanishes up to rounding is at most a few PF_REAL_EPS (1.2e-7 in float)
 * of that scale, so rounding stays three orders below the tolerance,
 * whereas a wrong solution (a source term with its sign flipped, a
 * boundary value off by a constant) is O(1) of it. Before that, u* (in
 * double, p->exact) must be finite at every point.
 *
 * Observation constraints (data, which may be noisy) are not compared
 * with u*; everything else is, with PF_EXACT_CHECK_POINTS interior points
 * and PF_EXACT_CHECK_CON_POINTS per constraint (uniform, fixed seeds).
 *
 *     pf_exact_check r;
 *     if (pf_pde_exact_check(p, NULL, &r) != PF_OK)
 *         fprintf(stderr, "%s\n", pf_errmsg()); // names the equation or constraint and the worst point
 */
#ifndef PF_GEOM_EXACT_CHECK_H
#define PF_GEOM_EXACT_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "geom/pde.h"

#define PF_EXACT_CHECK_TOL 1e-3
#define PF_EXACT_CHECK_POINTS 2000
#define PF_EXACT_CHECK_CON_POINTS 500

typedef struct pf_exact_check_opts {
    int n_interior, n_constraint; /* 0: the defaults above */
    uint64_t seed;                /* of the points */
    bool collapse_lap;            /* the equations' layout with a collapsed Laplacian (laplacian_only PDEs) */
    /* the sum of the magnitudes of the terms of equation eq (constraint k),
     * value-only n x 1, or NULL (not known): what the scale also takes */
    pf_node *(*equation_terms)(pf_pde_ctx *c, int eq);
    pf_node *(*constraint_terms)(pf_pde_ctx *c, int k);
} pf_exact_check_opts;

/* One equation's or constraint's outcome. */
typedef struct pf_exact_check_item {
    bool checked;             /* false: not compared (observations) */
    int n;                    /* points */
    double rms, scale, ratio; /* ratio = rms / scale (0 when both vanish) */
    double worst;             /* the residual of largest magnitude, */
    double x[PF_PDE_MAX_IN];  /* and where */
} pf_exact_check_item;

typedef struct pf_exact_check {
    pf_exact_check_item eq[PF_PDE_MAX_EQ];
    pf_exact_check_item con[PF_PDE_MAX_CONSTRAINTS];
    double worst_ratio; /* over every item */
    /* the first failure: an equation (>= 0), else a constraint (>= 0), else
     * where u* is not finite (bad_output >= 0, at bad_x); all -1 on success */
    int failed_eq, failed_con, bad_output;
    double bad_x[PF_PDE_MAX_IN];
} pf_exact_check;

/* Check that p's exact solution (p->ref == PF_REF_ANALYTIC) solves p, as
 * above; opts may be NULL. PF_OK when every equation and constraint passes;
 * PF_ERR_INVALID with a message naming the first that does not (or the
 * output and the point where u* is not finite) and the worst point, the
 * figures in *out either way; other errors (geometry, sampling, auxiliary
 * fields, memory) as they come, *out then incomplete. */
pf_status pf_pde_exact_check(const pf_pde *p, const pf_exact_check_opts *opts, pf_exact_check *out);

#endif
