/*
 * compile.h — a checked .pde file (ast.h) turned into the PDE contract
 * (geom/pde.h), so that it trains, searches and scores like a built-in PDE.
 *
 * The descriptor is a heap pf_pde whose hooks read the file's checked AST
 * through p->user (c->pde->user in the graph builders): one jet op per
 * expression node, as ast.h maps them, with constants folded into pf_scale
 * and pf_add_const. What each statement becomes:
 *
 *   equation E              residual(c, q): E on value-only fields
 *   initial N: u = g        PF_CON_INITIAL on "initial"
 *   initial_rate N: u_t = g PF_CON_NEUMANN on "initial", order 1
 *   dirichlet / neumann / robin N on P: ...
 *                           PF_CON_DIRICHLET / _NEUMANN / _ROBIN on P, a
 *                           defined part written out as the parts it unites;
 *                           with `where` parts among them, the constraint's
 *                           `where` keeps a point of a domain part when the
 *                           part comes without a condition, or with one
 *                           that holds there
 *   periodic N along x: u   PF_CON_PERIODIC on x_lo (u - u at the image on
 *                           x_hi), period[x] = hi - lo
 *   observe N: u from "F"   PF_CON_POINTS at the file's points (observe.h,
 *                           a .csv, .h5 or .dat table), read when
 *                           compiling, each point in the domain with one
 *                           value (table.h); u - the observed value
 *   hard N satisfies ...    a transform: each output set by its formula in
 *                           net(), the inputs (as jets) and bubble(); the
 *                           others are net()'s channel
 *   exact u = E             PF_REF_ANALYTIC: exact_fields (jets), exact (in
 *                           double, pdefile/eval.h); evaluated on PINNacle's
 *                           grid rule (`evaluate grid N`: about N points) for
 *                           a box, else on N (2500 for two inputs, else
 *                           20000) seeded uniform interior points
 *   reference "F" [snapshots | columns a, b, u]
 *                           F beside the .pde (or absolute): PF_REF_TABLE,
 *                           its rows read when compiling (table.h; a
 *                           snapshot file as PINNacle reads it), each
 *                           point in the domain with one value; else
 *                           PF_REF_DATA: a PINNacle .dat file in PF_DATA_DIR,
 *                           read when evaluating, columns the inputs, then
 *                           the outputs
 *   domain                  geometry: geom/geometry.h's shapes and CSG, faces
 *                           named <input>_lo/_hi, times [t0, t1]
 *
 * step(z) and if(cond, a, b) are pf_pde_step switches (value-only fields:
 * the checker keeps them out of hard transforms and exact solutions); a < b
 * is 1 - step(a - b), a <= b step(b - a), `and` a product, `or` s + t - s t.
 *
 * Not compiled yet (PF_ERR_UNSUPPORTED naming the file's line, and what to
 * write instead): a `where` part inside another `where` part or of the
 * initial or final slice, and a PF_DATA_DIR reference whose `columns` are
 * not the inputs, then the outputs. A time input declared before others
 * becomes the last input (the checker moves it: the geometry puts time
 * last); files and formulas name inputs, so they follow.
 *
 *     const pf_pde *p;
 *     if (pf_pdefile_open("examples/pdes/helmholtz_2d.pde", &p) != PF_OK)
 *         fprintf(stderr, "%s\n", pf_errmsg());   // FILE:LINE:COL: ...
 *     // p lives until the process ends; opening the same path again gives p
 */
#ifndef PF_PDEFILE_COMPILE_H
#define PF_PDEFILE_COMPILE_H

#include "core/status.h"
#include "geom/pde.h"
#include "pdefile/ast.h"

/* Compile the checked file f into *out (caller frees with
 * pf_pdefile_pde_free, which frees f too: the descriptor owns it, also on
 * failure). PF_ERR_UNSUPPORTED for what is not compiled yet (above),
 * table.h's errors for a data file (PF_ERR_IO naming the .pde line when
 * it cannot be read; PF_ERR_INVALID naming the row of a value that is not
 * finite, of a point outside the domain or of a point with two values),
 * PF_ERR_NOMEM. A whole exponent up to 64 (u^3) is built from squares and
 * products: the engine's PF_UNARY_POW forms its derivatives as p a^p / a,
 * NaN where a = 0. */
pf_status pf_pdefile_compile(pf_pdefile *f, pf_pde **out);

/* Free a compiled descriptor and its file; NULL is a no-op. */
void pf_pdefile_pde_free(pf_pde *p);

/* Load, check and compile the .pde file at `path` once per process: a
 * second call with the same path gives the same descriptor, which stays
 * valid until the process ends. Errors are pf_pdefile_load's (the first
 * FILE:LINE:COL message in pf_errmsg(), with the count of the others)
 * or pf_pdefile_compile's. */
pf_status pf_pdefile_open(const char *path, const pf_pde **out);

/* The sum of the magnitudes of the terms of equation q (constraint n) of
 * a compiled file, on the context's points (value-only n x 1): |a| + |b|
 * for a residual a - b, |a| |b| for a product, |a| / |b| for a quotient,
 * the magnitude of the value for anything else (a periodic constraint:
 * |u| + |u at the image|). The scale of the terms for pf_pde_exact_check
 * (geom/exact_check.h: its equation_terms and constraint_terms), so that
 * a residual with large cancelling terms (1e6 u_xx = f) is measured
 * against them, not against u*. */
pf_node *pf_pdefile_equation_terms(pf_pde_ctx *c, int q);
pf_node *pf_pdefile_constraint_terms(pf_pde_ctx *c, int n);

/* The file a descriptor was compiled from (its path as opened), or NULL for
 * a built-in PDE. */
const pf_pdefile *pf_pdefile_of(const pf_pde *p);

#endif
