/* burgers_1d — PINNacle Burgers1D (docs/pdes.md section 1). */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

#define BURGERS_NU (0.01 / PF_PI)

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_t + u u_x - nu u_xx */
    pf_node *r = ADD(c, pf_pde_d(c, 0, 1, 1), MUL(c, pf_pde_d(c, 0, 0, 0), pf_pde_d(c, 0, 0, 1)));
    return SUB(c, r, K(c, pf_pde_d(c, 0, 0, 2), BURGERS_NU));
}

static pf_node *ic(pf_pde_ctx *c)
{
    return pf_pde_minus(c, 0, K(c, SIN(c, K(c, pf_pde_x(c, 0), PF_PI)), -1));
}

static pf_node *bc(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }

/* The data where they are given (geom/lift.h): 0 on the walls (corners
 * included), -sin(pi x) on the initial slice. */
static pf_node *data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)user;
    return side[0] != PF_LIFT_FREE ? NULL : K(face, SIN(face, K(face, x[0], PF_PI)), -1);
}

/* u = L + t (1 - x^2) N, L the lift of the initial condition and the walls
 * u(+-1, t) = 0: both hold exactly. */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces faces[2] = {PF_LIFT_BOTH, PF_LIFT_LO};
    pf_node *x = pf_pde_xj(c, 0), *t = pf_pde_xj(c, 1);
    pf_node *l = MUL(c, t, SHIFT(c, K(c, SQ(c, x), -1), 1));
    return ADD(c, pf_pde_lift(c, 0, faces, data, NULL), MUL(c, l, net));
}

const pf_pde pf_pde_burgers_1d = {
    .name = "burgers_1d",
    .title = "Viscous Burgers equation with a shock forming at x = 0",
    .statement = "Solve u_t + u u_x = (0.01/pi) u_xx on x in [-1,1], t in [0,1], with "
                 "u(x,0) = -sin(pi x) and u(-1,t) = u(1,t) = 0.",
    .latex = "u_t+uu_x-\\frac{0.01}{\\pi}u_{xx}=0;\\ u(x,0)=-\\sin\\pi x,\\ u(\\pm1,t)=0",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_NONLINEAR | PF_TAG_STEEP,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "t"}, .outputs = {"u"},
    .time_input = 1,
    .lo = {-1, 0}, .hi = {1, 1},
    .orders = {2, 1},
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic},
            {.name = "bc", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi", .residual = bc}},
    .nhard = 1,
    .hard = {{.name = "initial_and_walls",
              .what = "u = L + t(1-x^2) N, L the transfinite lift of the initial condition -sin(pi x) "
                      "and the zero walls (boundary data only): the initial condition and walls",
              .satisfies = "ic,bc", .apply = hard}},
    .ref = PF_REF_DATA, .ref_file = "burgers1d.dat",
    .ref_layout = PF_DAT_LAYOUT_SNAPSHOTS,
};
