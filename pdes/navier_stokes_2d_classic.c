/* navier_stokes_2d_classic — PINNacle NS2D_LidDriven(a=4) (docs/pdes.md section
 * 12): the lid-driven cavity at Re = 100 with a parabolic lid. */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

#define LID_NU 0.01

/* Momentum in x (eq 0), y (eq 1): u.grad u_eq + p_eq - nu Lap u_eq;
 * continuity (eq 2): u_x + v_y. */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    if (eq == 2) return ADD(c, pf_pde_d(c, 0, 0, 1), pf_pde_d(c, 1, 1, 1));
    pf_node *u = pf_pde_d(c, 0, 0, 0), *v = pf_pde_d(c, 1, 0, 0);
    pf_node *conv = ADD(c, MUL(c, u, pf_pde_d(c, eq, 0, 1)), MUL(c, v, pf_pde_d(c, eq, 1, 1)));
    pf_node *r = ADD(c, conv, pf_pde_d(c, 2, eq, 1));
    return SUB(c, r, K(c, pf_pde_lap(c, eq, NULL), LID_NU));
}

/* The lid's speed 4x(1 - x), from coordinate x (jet or value). */
static pf_node *lid_speed(pf_pde_ctx *c, pf_node *x) { return K(c, MUL(c, x, SHIFT(c, K(c, x, -1), 1)), 4); }

static pf_node *lid_u(pf_pde_ctx *c) { return pf_pde_minus(c, 0, lid_speed(c, pf_pde_x(c, 0))); }
static pf_node *zero_u(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }
static pf_node *zero_v(pf_pde_ctx *c) { return pf_pde_d(c, 1, 0, 0); }
static pf_node *gauge(pf_pde_ctx *c) { return pf_pde_d(c, 2, 0, 0); } /* p(0,0) = 0 */

/* u's Dirichlet data (geom/lift.h): the lid speed on y = 1 (its corners
 * included, where it is 0), 0 on the three fixed walls. */
static pf_node *u_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)user;
    return side[1] == PF_LIFT_AT_HI ? lid_speed(face, x[0]) : NULL;
}

/* u = L_u + x(1-x)y(1-y) N_u, v = x(1-x)y(1-y) N_v, p = N_p: L_u, the lift
 * of u's data from the four walls, is 4x(1-x) y (0 on the three fixed walls,
 * the lid speed on the lid), and the bubble x(1-x)y(1-y) vanishes on all
 * four (v's data are 0; the gauge is left to the loss). */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces box[2] = {PF_LIFT_BOTH, PF_LIFT_BOTH};
    pf_node *b = pf_pde_bubble(c);
    pf_node *f[3] = {ADD(c, pf_pde_lift(c, 0, box, u_data, NULL), MUL(c, b, CH(c, net, 0))),
                     MUL(c, b, CH(c, net, 1)), CH(c, net, 2)};
    return pf_concat(c->g, 3, f);
}

const pf_pde pf_pde_navier_stokes_2d_classic = {
    .name = "navier_stokes_2d_classic",
    .title = "Lid-driven cavity: steady Navier-Stokes at Re = 100",
    .statement = "Solve the steady incompressible Navier-Stokes equations u.grad u + grad p = "
                 "nu Lap u, div u = 0 with nu = 0.01 on [0,1]^2, with u = 4x(1-x), v = 0 on the lid "
                 "y = 1, u = v = 0 on the other three walls, and the pressure gauge p(0,0) = 0.",
    .latex = "(\\mathbf u\\cdot\\nabla)\\mathbf u+\\nabla p-\\nu\\Delta\\mathbf u=0,\\ "
             "\\nabla\\cdot\\mathbf u=0,\\ \\nu=0.01;\\ u(x,1)=4x(1-x),\\ v(x,1)=0,\\ "
             "\\mathbf u=0\\ \\text{on the other walls},\\ p(0,0)=0",
    .tags = PF_TAG_NONLINEAR | PF_TAG_COUPLED,
    .d_in = 2, .d_out = 3,
    .inputs = {"x", "y"}, .outputs = {"u", "v", "p"},
    .time_input = -1,
    .lo = {0, 0}, .hi = {1, 1},
    .orders = {2, 2}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 3, .residual = residual,
    .ncon = 5,
    .con = {{.name = "lid_u", .kind = PF_CON_DIRICHLET, .parts = "y_hi", .residual = lid_u},
            {.name = "lid_v", .kind = PF_CON_DIRICHLET, .parts = "y_hi", .residual = zero_v},
            {.name = "walls_u", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo", .residual = zero_u},
            {.name = "walls_v", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo", .residual = zero_v},
            {.name = "gauge", .kind = PF_CON_POINTS, .residual = gauge,
             .npoints = 1, .points = (const double[]){0, 0}}},
    .nhard = 1,
    .hard = {{.name = "lid_and_walls",
              .what = "u = L_u + x(1-x)y(1-y) N_u, v = x(1-x)y(1-y) N_v, p = N_p, L_u = 4x(1-x)y the "
                      "transfinite lift of the wall data (boundary data only): lid and walls",
              .satisfies = "lid_u,lid_v,walls_u,walls_v", .apply = hard}},
    .ref = PF_REF_DATA, .ref_file = "lid_driven_a4.dat",
};
