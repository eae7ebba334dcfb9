/* allen_cahn_1d — from the paper only (docs/pdes.md section 22). */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

#define AC_K 7.0710678118654752440 /* 1/(sqrt(2) eps), eps = 0.1 */

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_t - 0.01 u_xx + u^3 - u */
    pf_node *u = pf_pde_d(c, 0, 0, 0);
    pf_node *r = SUB(c, pf_pde_d(c, 0, 1, 1), K(c, pf_pde_d(c, 0, 0, 2), 0.01));
    return ADD(c, r, SUB(c, CUBE(c, u), u));
}

static pf_node *front(pf_pde_ctx *c, pf_node *x) { return TANH(c, K(c, x, AC_K)); }
/* the initial condition and the wall values are both u = the front */
static pf_node *on_front(pf_pde_ctx *c) { return pf_pde_minus(c, 0, front(c, pf_pde_x(c, 0))); }
static pf_node *exact_fields(pf_pde_ctx *c) { return front(c, pf_pde_xj(c, 0)); }
static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    u[0] = tanh(AC_K * x[0]);
}

/* The data where they are given: the front on the initial slice, and the
 * wall values, which are the front's at x = +-1 (geom/lift.h). */
static pf_node *front_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)side, (void)user;
    return front(face, x[0]);
}

/* u = L + t (1 - x^2) N, L the lift of the initial front and the wall values
 * (the front is stationary, so L is the solution: lift_exact). */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces faces[2] = {PF_LIFT_BOTH, PF_LIFT_LO};
    pf_node *x = pf_pde_xj(c, 0), *t = pf_pde_xj(c, 1);
    pf_node *l = MUL(c, t, SHIFT(c, K(c, SQ(c, x), -1), 1));
    return ADD(c, pf_pde_lift(c, 0, faces, front_data, NULL), MUL(c, l, net));
}

const pf_pde pf_pde_allen_cahn_1d = {
    .name = "allen_cahn_1d",
    .title = "Allen-Cahn equation with a stationary tanh front",
    .statement = "Solve u_t = 0.01 u_xx + u - u^3 on x in [-1,1], t in [0,0.25], with "
                 "u(x,0) = tanh(x/(sqrt(2) 0.1)) and u(+-1,t) = +-tanh(5 sqrt(2)).",
    .latex = "u_t-0.01u_{xx}+u^3-u=0;\\ u(x,0)=\\tanh\\frac{x}{\\sqrt2\\,\\varepsilon},\\ \\varepsilon=0.1",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_NONLINEAR | PF_TAG_STEEP,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "t"}, .outputs = {"u"},
    .time_input = 1,
    .lo = {-1, 0}, .hi = {1, 0.25},
    .orders = {2, 1},
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = on_front},
            {.name = "bc", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi", .residual = on_front}},
    .nhard = 1,
    .hard = {{.name = "front_and_walls",
              .what = "u = L + t(1-x^2) N, L the transfinite lift of the initial front and the wall "
                      "values (boundary data only): initial front and walls",
              .satisfies = "ic,bc", .apply = hard, .lift_exact = 1,
              .lift_exact_why = "the front tanh(x/(sqrt2 eps)) is stationary: u* is its initial data "
                                "for every t, and the lift carries the initial slice along t"}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
