/*
 * lift.h — lifts built from boundary data only: transfinite (Gordon-Hall,
 * "Coons") interpolation of the data's traces on the faces of a box, for
 * hard-constraint transforms (pde.h, pf_hard_transform).
 *
 * A hard transform u = L + D N makes Dirichlet or initial data g exact with a
 * lift L that equals g where g is given and a factor D that vanishes there.
 * The lift may use g ONLY where g is given: on the boundary faces (or the
 * initial slice). Writing L = g(x) with g's closed form evaluated at interior
 * points is not allowed — on benchmarks whose data are the restriction of the
 * exact solution, that formula IS the solution, and the "network" then only
 * learns a vanishing correction (issue 15).
 *
 * pf_pde_lift() is the one operator that builds such a lift. For a box
 * [a, b] (any subset of its faces carrying data), it is the Boolean sum of
 * the one-dimensional blends along the axes that carry data,
 *
 *     L = P_1 (+) P_2 (+) ... (+) P_m = I - (I - P_1)(I - P_2)...(I - P_m),
 *
 *     P_i f(x) = (b_i - x_i)/(b_i - a_i) f(.., a_i, ..) + (x_i - a_i)/(b_i - a_i) f(.., b_i, ..)
 *
 * when both faces of axis i carry data, and P_i f(x) = f(.., a_i, ..) (or
 * f(.., b_i, ..)) when only one does: the initial slice of a space x time
 * problem is the lo face of the time axis, so the initial data enter as
 * g(x, t0). Expanded, L is a sum over the 3^m - 1 ways of moving at least one
 * coordinate onto a face: each term is a product of blend weights (affine in
 * x, jets) times g at the PROJECTED point, whose moved coordinates are the
 * constants a_i or b_i. Every point at which g is evaluated lies on a face
 * that carries data; g is never asked for at an interior point.
 *
 * Properties (tests/test_lifts.c checks each):
 *   - on every face with data, L = g (and so are L's derivatives along the
 *     face): the transform u = L + D N meets the data for any N;
 *   - L is exact (L = f everywhere) for any f with (I - P_1)...(I - P_m) f = 0:
 *     multilinear functions, sums of functions of one variable each, and,
 *     with a one-sided (time) axis, f(x, t) = a(x) + b(t) + c(t) x_i;
 *   - L is a jet expression of the coordinates (weights and data are jet
 *     ops), so the derivatives the residual needs flow through it.
 *
 * The data come from a callback, asked once per projected point:
 *
 *     // kovasznay_flow_2d, output k of (u, v, p): the Kovasznay formula,
 *     // evaluated on the faces only.
 *     static pf_node *walls_data(pf_pde_ctx *face, int k, pf_node *const *x,
 *                                const pf_lift_side *side, void *user)
 *     {
 *         pf_node *f[3];
 *         kovasznay(face, x[0], x[1], f);     // x[i]: face constant or jet
 *         return f[k];
 *     }
 *     ...
 *     static const pf_lift_faces box[2] = {PF_LIFT_BOTH, PF_LIFT_BOTH};
 *     pf_node *lift_u = pf_pde_lift(c, 0, box, walls_data, NULL);
 *
 * The callback receives a context with the graph and the PDE but NO points
 * (x, u, normal are NULL): pf_pde_x(), pf_pde_xj() and friends abort there,
 * so the data can only be formed from the coordinates x[] it is handed. A
 * moved coordinate is a value-only constant field (a_i or b_i; its Taylor
 * streams are zero, so what is built from it alone stays value-only and
 * cheap), a free one is the point's coordinate as a jet. side[i] says which:
 * PF_LIFT_FREE, PF_LIFT_AT_LO or PF_LIFT_AT_HI, at least one of them not
 * free. A problem whose faces carry different data (a lid, an inlet, walls)
 * picks by side[]; where faces meet, the callback chooses (compatible data
 * agree there). Return NULL for zero data (the term is left out), or an
 * n x 1 node (value-only or a jet with the points' layout). `user` is passed
 * through, e.g. to memoise one-variable pieces shared by many terms.
 *
 * Shapes: the faces are those of the PDE's bounding box (pde->lo, pde->hi),
 * so an axis may carry data only where the domain is that box along it —
 * box problems (pf_pdes_box_geometry) on every axis, and the time axis of
 * any space x time problem (the initial slice is the whole spatial domain at
 * t0, whatever its shape). Disks, CSG and polygons have no lift here: the
 * geometry answers distance queries on the host, in double (pf_geom_sdf),
 * not as jet ops, so a trace blend at nearest boundary points cannot be part
 * of the graph. No benchmark transform needs one: the spatial data of the
 * transforms on such domains are zero (navier_stokes_2d_backstep's outlet
 * pressure), so their lift is 0; a transform that would need one must use
 * soft constraints instead, never g's closed form inside.
 *
 * Cost: 3^m - 1 calls of the callback for m axes with data (242 for
 * poisson_5d), and a nested contraction of (3^m - 1)/2 steps of four jet
 * ops each (lift.c). The graph evaluates them at every step — the lift does
 * not depend on the parameters, but the graph has no cache for constant
 * branches — so in 5-D the lift costs about as much as a small network
 * (poisson_5d, 5 x 32 tanh on 1,638 points: ~700 nodes, 2.5x the step time
 * of the soft-constrained network); in 2-D and 3-D (4 and 13 steps at
 * most) it is a few dozen nodes. Callbacks keep their node count down by
 * leaving pieces of moved coordinates value-only (they are, when built
 * from x[] with the jet ops) or folding them in double (the face constant
 * is face->pde->lo[i] or hi[i], as side[i] says), and by memoising pieces
 * of free coordinates through `user`.
 */
#ifndef PF_GEOM_LIFT_H
#define PF_GEOM_LIFT_H

#include "geom/pde.h"

/* Which faces of an input's axis carry data (bit 0: lo, bit 1: hi). */
typedef enum pf_lift_faces {
    PF_LIFT_NONE = 0, /* no data across this axis: the lift does not blend along it */
    PF_LIFT_LO = 1,   /* data on x_i = lo_i (the initial slice, for the time input) */
    PF_LIFT_HI = 2,   /* data on x_i = hi_i */
    PF_LIFT_BOTH = 3,
} pf_lift_faces;

/* Where a coordinate of a projected point is. */
typedef enum pf_lift_side {
    PF_LIFT_FREE = 0,  /* the point's own coordinate (a jet) */
    PF_LIFT_AT_LO = 1, /* moved to lo_i (a value-only constant) */
    PF_LIFT_AT_HI = 2, /* moved to hi_i (a value-only constant) */
} pf_lift_side;

/* The data of output k at the projected points x[0..d_in) (see above): an
 * n x 1 node or NULL for zero. `face` holds the graph and the PDE only. */
typedef pf_node *(*pf_lift_data)(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side,
                                 void *user);

/* The transfinite lift of output k's data over the faces faces[0..d_in) of
 * the PDE's bounding box: an n x 1 jet with the layout of c->x (all zero
 * when every term's data are NULL). At least one axis must carry data; an
 * axis with data must have lo < hi. Builds nodes in c->g; never fails. */
pf_node *pf_pde_lift(pf_pde_ctx *c, int k, const pf_lift_faces *faces, pf_lift_data data, void *user);

/* A constant c as an n x 1 jet with the layout of c->x (zero derivative
 * streams): for data that are constants and for promoting value-only
 * fields. */
pf_node *pf_pde_const(pf_pde_ctx *c, double v);

#endif
