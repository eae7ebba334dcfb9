/* navier_stokes_2d_backstep — PINNacle NS2D_BackStep without obstacles
 * (docs/pdes.md section 11): steady flow over a backward-facing step. */
#include "geom/geometry.h"
#include "pde_ops.h"
#include "registry.h"

#define STEP_NU 0.01

/* Momentum in x (eq 0), y (eq 1): u.grad u_eq + p_eq - nu Lap u_eq;
 * continuity (eq 2): u_x + v_y. */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    if (eq == 2) return ADD(c, pf_pde_d(c, 0, 0, 1), pf_pde_d(c, 1, 1, 1));
    pf_node *u = pf_pde_d(c, 0, 0, 0), *v = pf_pde_d(c, 1, 0, 0);
    pf_node *conv = ADD(c, MUL(c, u, pf_pde_d(c, eq, 0, 1)), MUL(c, v, pf_pde_d(c, eq, 1, 1)));
    pf_node *r = ADD(c, conv, pf_pde_d(c, 2, eq, 1));
    return SUB(c, r, K(c, pf_pde_lap(c, eq, NULL), STEP_NU));
}

/* inlet x = 0, 0 <= y <= 1: the parabola u = 4y(1 - y) */
static pf_node *inlet_u(pf_pde_ctx *c)
{
    pf_node *y = pf_pde_x(c, 1);
    return pf_pde_minus(c, 0, K(c, MUL(c, y, SHIFT(c, K(c, y, -1), 1)), 4));
}

static pf_node *zero_u(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }
static pf_node *zero_v(pf_pde_ctx *c) { return pf_pde_d(c, 1, 0, 0); }
static pf_node *zero_p(pf_pde_ctx *c) { return pf_pde_d(c, 2, 0, 0); }

/* (u, v, p) = (N_u, N_v, (4 - x) N_p): the outlet pressure exactly (zero
 * data, so the lift is 0; the domain is a polygon, which geom/lift.h does
 * not lift across, and needs not here). (The
 * walls have no such polynomial factor: one vanishing on both faces of the
 * step would also vanish on their extensions, inside the domain.) */
static pf_node *hard_outlet(pf_pde_ctx *c, pf_node *net)
{
    pf_node *f[3] = {CH(c, net, 0), CH(c, net, 1),
                     MUL(c, SHIFT(c, K(c, pf_pde_xj(c, 0), -1), 4), CH(c, net, 2))};
    return pf_concat(c->g, 3, f);
}

/* [0,4] x [0,2] minus [0,2] x [1,2] as one polygon (geometry.h): the bottom,
 * the top y = 2 for x in [2,4] and both faces of the step are "wall", x = 4
 * is "outlet" and x = 0, 0 <= y <= 1 is "inlet". */
static pf_status geometry(const pf_pde *p, pf_geom **out)
{
    (void)p;
    static const double xy[] = {0, 0, 4, 0, 4, 2, 2, 2, 2, 1, 0, 1};
    static const char *const labels[] = {"wall", "outlet", "wall", "wall", "wall", "inlet"};
    return pf_geom_polygon_alloc(6, xy, labels, out);
}

const pf_pde pf_pde_navier_stokes_2d_backstep = {
    .name = "navier_stokes_2d_backstep",
    .title = "Steady Navier-Stokes flow over a backward-facing step",
    .statement = "Solve the steady incompressible Navier-Stokes equations u.grad u + grad p = "
                 "nu Lap u, div u = 0 with nu = 0.01 on the L-shaped domain [0,4] x [0,2] minus "
                 "[0,2] x [1,2], with u = 4y(1-y), v = 0 at the inlet x = 0 (0 <= y <= 1), p = 0 at "
                 "the outlet x = 4, and u = v = 0 on every wall.",
    .latex = "(\\mathbf u\\cdot\\nabla)\\mathbf u+\\nabla p-\\nu\\Delta\\mathbf u=0,\\ "
             "\\nabla\\cdot\\mathbf u=0,\\ \\nu=0.01,\\ \\Omega=[0,4]\\times[0,2]\\setminus[0,2]\\times[1,2];"
             "\\ u(0,y)=4y(1-y),\\ v(0,y)=0,\\ p(4,y)=0,\\ \\mathbf u=0\\ \\text{on walls}",
    .tags = PF_TAG_NONLINEAR | PF_TAG_COUPLED | PF_TAG_COMPLEX_GEOMETRY,
    .d_in = 2, .d_out = 3,
    .inputs = {"x", "y"}, .outputs = {"u", "v", "p"},
    .time_input = -1,
    .lo = {0, 0}, .hi = {4, 2},
    .orders = {2, 2}, .laplacian_only = true,
    .geometry = geometry,
    .neq = 3, .residual = residual,
    .ncon = 5,
    .con = {{.name = "inlet_u", .kind = PF_CON_DIRICHLET, .parts = "inlet", .residual = inlet_u},
            {.name = "inlet_v", .kind = PF_CON_DIRICHLET, .parts = "inlet", .residual = zero_v},
            {.name = "outlet_p", .kind = PF_CON_DIRICHLET, .parts = "outlet", .residual = zero_p},
            {.name = "walls_u", .kind = PF_CON_DIRICHLET, .parts = "wall", .residual = zero_u},
            {.name = "walls_v", .kind = PF_CON_DIRICHLET, .parts = "wall", .residual = zero_v}},
    .nhard = 1,
    .hard = {{.name = "outlet",
              .what = "p = (4-x) N_p: the outlet pressure (zero data: lift 0; u, v are the network's)",
              .satisfies = "outlet_p", .apply = hard_outlet}},
    .ref = PF_REF_DATA, .ref_file = "ns_0_obstacle.dat",
};
