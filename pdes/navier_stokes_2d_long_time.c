/* navier_stokes_2d_long_time — PINNacle NS2D_LongTime (docs/pdes.md section 13):
 * channel flow driven by a pulsating inlet and a body force. */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

#define NSLT_NU 0.01

/* Momentum in x (eq 0), y (eq 1): u_eq,t + u.grad u_eq + p_eq - nu Lap u_eq,
 * plus sin(pi x) sin(pi y) sin(pi t) in y (the force f_y = -sin sin sin moved
 * to the left); continuity (eq 2): u_x + v_y. */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    if (eq == 2) return ADD(c, pf_pde_d(c, 0, 0, 1), pf_pde_d(c, 1, 1, 1));
    pf_node *u = pf_pde_d(c, 0, 0, 0), *v = pf_pde_d(c, 1, 0, 0);
    pf_node *conv = ADD(c, MUL(c, u, pf_pde_d(c, eq, 0, 1)), MUL(c, v, pf_pde_d(c, eq, 1, 1)));
    pf_node *r = ADD(c, ADD(c, pf_pde_d(c, eq, 2, 1), conv), pf_pde_d(c, 2, eq, 1));
    r = SUB(c, r, K(c, pf_pde_lap(c, eq, NULL), NSLT_NU));
    if (eq == 0) return r;
    pf_node *force = MUL(c, SIN(c, K(c, pf_pde_x(c, 0), PF_PI)), SIN(c, K(c, pf_pde_x(c, 1), PF_PI)));
    return ADD(c, r, MUL(c, force, SIN(c, K(c, pf_pde_x(c, 2), PF_PI))));
}

/* The inlet profile sin(pi y) [sin(pi t) + sin(3 pi t) + sin(5 pi t)] from
 * coordinates y, t (jets or values). */
static pf_node *inlet_profile(pf_pde_ctx *c, pf_node *y, pf_node *t)
{
    pf_node *pulse = ADD(c, SIN(c, K(c, t, PF_PI)), SIN(c, K(c, t, 3 * PF_PI)));
    pulse = ADD(c, pulse, SIN(c, K(c, t, 5 * PF_PI)));
    return MUL(c, SIN(c, K(c, y, PF_PI)), pulse);
}

static pf_node *inlet_u(pf_pde_ctx *c)
{
    return pf_pde_minus(c, 0, inlet_profile(c, pf_pde_x(c, 1), pf_pde_x(c, 2)));
}

static pf_node *zero_u(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }
static pf_node *zero_v(pf_pde_ctx *c) { return pf_pde_d(c, 1, 0, 0); }
static pf_node *zero_p(pf_pde_ctx *c) { return pf_pde_d(c, 2, 0, 0); }

/* (u, v, p) = t N: the initial state (zero data, so the lift is 0). */
static pf_node *hard_initial(pf_pde_ctx *c, pf_node *net) { return MUL(c, pf_pde_xj(c, 2), net); }

/* u's data where they are given (geom/lift.h): the inlet profile on x = 0,
 * 0 on the walls y = 0, 1 and at t = 0 (where the profile is 0 too); the
 * outlet carries no data for u. */
static pf_node *u_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)user;
    if (side[1] != PF_LIFT_FREE || side[2] != PF_LIFT_FREE) return NULL;
    return inlet_profile(face, x[1], x[2]); /* side[0] is the inlet */
}

/* u = L_u + t x y(1-y) N_u, v = t x y(1-y) N_v, p = t (2-x) N_p: L_u, the
 * lift of u's data from the inlet, the walls and the initial slice, is the
 * inlet profile carried along x; v's and p's data are 0. Every constraint
 * holds. */
static pf_node *hard_all(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces u_faces[3] = {PF_LIFT_LO, PF_LIFT_BOTH, PF_LIFT_LO};
    pf_node *x = pf_pde_xj(c, 0), *y = pf_pde_xj(c, 1), *t = pf_pde_xj(c, 2);
    pf_node *b = MUL(c, MUL(c, t, x), MUL(c, y, SHIFT(c, K(c, y, -1), 1)));
    pf_node *f[3] = {ADD(c, pf_pde_lift(c, 0, u_faces, u_data, NULL), MUL(c, b, CH(c, net, 0))),
                     MUL(c, b, CH(c, net, 1)), MUL(c, MUL(c, t, SHIFT(c, K(c, x, -1), 2)), CH(c, net, 2))};
    return pf_concat(c->g, 3, f);
}

const pf_pde pf_pde_navier_stokes_2d_long_time = {
    .name = "navier_stokes_2d_long_time",
    .title = "Unsteady channel flow with a pulsating inlet over a long window",
    .statement = "Solve u_t + u.grad u + grad p = nu Lap u + f, div u = 0 with nu = 0.01 and "
                 "f = (0, -sin(pi x) sin(pi y) sin(pi t)) on [0,2] x [0,1] x [0,5], with u = v = p = 0 "
                 "at t = 0, u = sin(pi y)(sin(pi t) + sin(3 pi t) + sin(5 pi t)), v = 0 at the inlet "
                 "x = 0, p = 0 at the outlet x = 2, and u = v = 0 on y = 0 and y = 1.",
    .latex = "\\mathbf u_t+(\\mathbf u\\cdot\\nabla)\\mathbf u+\\nabla p-\\nu\\Delta\\mathbf u=\\mathbf f,\\ "
             "\\nabla\\cdot\\mathbf u=0,\\ \\nu=0.01,\\ \\mathbf f=(0,-\\sin\\pi x\\sin\\pi y\\sin\\pi t);\\ "
             "u(0,y,t)=\\sin\\pi y(\\sin\\pi t+\\sin3\\pi t+\\sin5\\pi t),\\ p(2,y,t)=0",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_NONLINEAR | PF_TAG_COUPLED | PF_TAG_LONG_TIME,
    .d_in = 3, .d_out = 3,
    .inputs = {"x", "y", "t"}, .outputs = {"u", "v", "p"},
    .time_input = 2,
    .lo = {0, 0, 0}, .hi = {2, 1, 5},
    .orders = {2, 2, 1}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 3, .residual = residual,
    .ncon = 8,
    .con = {{.name = "ic_u", .kind = PF_CON_INITIAL, .parts = "initial", .residual = zero_u},
            {.name = "ic_v", .kind = PF_CON_INITIAL, .parts = "initial", .residual = zero_v},
            {.name = "ic_p", .kind = PF_CON_INITIAL, .parts = "initial", .residual = zero_p},
            {.name = "inlet_u", .kind = PF_CON_DIRICHLET, .parts = "x_lo", .residual = inlet_u},
            {.name = "inlet_v", .kind = PF_CON_DIRICHLET, .parts = "x_lo", .residual = zero_v},
            {.name = "outlet_p", .kind = PF_CON_DIRICHLET, .parts = "x_hi", .residual = zero_p},
            {.name = "walls_u", .kind = PF_CON_DIRICHLET, .parts = "y_lo,y_hi", .residual = zero_u},
            {.name = "walls_v", .kind = PF_CON_DIRICHLET, .parts = "y_lo,y_hi", .residual = zero_v}},
    .nhard = 2,
    .hard = {{.name = "initial",
              .what = "(u, v, p) = t N: the initial state (zero data: lift 0)",
              .satisfies = "ic_u,ic_v,ic_p", .apply = hard_initial},
             {.name = "all",
              .what = "u = L_u + t x y(1-y) N_u, v = t x y(1-y) N_v, p = t(2-x) N_p, L_u the "
                      "transfinite lift of the inlet, wall and initial data (boundary data only): "
                      "every constraint",
              .satisfies = "ic_u,ic_v,ic_p,inlet_u,inlet_v,outlet_p,walls_u,walls_v", .apply = hard_all}},
    /* our FreeFEM solution (refs/navier_stokes_2d_long_time.c and .edp, `make
     * refs`): time snapshots of (u, v, p) at the grid rule's 98 nodes by
     * PINNacle's 51 times 0, 0.1, ..., 5 */
    .ref = PF_REF_GENERATED, .ref_file = "generated/navier_stokes_2d_long_time.dat",
    .ref_layout = PF_DAT_LAYOUT_SNAPSHOTS,
};
