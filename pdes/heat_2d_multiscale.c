/* heat_2d_multiscale — PINNacle Heat2D_Multiscale (docs/pdes.md section 6). */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

#define HM_RATE 1.0016 /* (20 pi)^2 / (500 pi)^2 + 1 */

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_t - u_xx / (500 pi)^2 - u_yy / pi^2 */
    double w[3] = {1 / (500 * PF_PI * 500 * PF_PI), 1 / (PF_PI * PF_PI), 0};
    return SUB(c, pf_pde_d(c, 0, 2, 1), pf_pde_lap(c, 0, w));
}

/* sin(20 pi x) sin(pi y) from coordinate fields. */
static pf_node *shape(pf_pde_ctx *c, pf_node *x, pf_node *y)
{
    return MUL(c, SIN(c, K(c, x, 20 * PF_PI)), SIN(c, K(c, y, PF_PI)));
}

static pf_node *ic(pf_pde_ctx *c) { return pf_pde_minus(c, 0, shape(c, pf_pde_x(c, 0), pf_pde_x(c, 1))); }
static pf_node *bc(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }

static pf_node *exact_fields(pf_pde_ctx *c)
{
    pf_node *decay = EXP(c, K(c, pf_pde_xj(c, 2), -HM_RATE));
    return MUL(c, shape(c, pf_pde_xj(c, 0), pf_pde_xj(c, 1)), decay);
}

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    u[0] = sin(20 * PF_PI * x[0]) * sin(PF_PI * x[1]) * exp(-HM_RATE * x[2]);
}

/* The data where they are given (geom/lift.h): 0 on the walls (edges
 * included), the initial shape on the initial slice. */
static pf_node *data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)user;
    return side[0] != PF_LIFT_FREE || side[1] != PF_LIFT_FREE ? NULL : shape(face, x[0], x[1]);
}

/* u = L + t x(1-x) y(1-y) N, L the lift of the initial data and the zero
 * walls: both hold exactly. */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces faces[3] = {PF_LIFT_BOTH, PF_LIFT_BOTH, PF_LIFT_LO};
    pf_node *t = pf_pde_xj(c, 2);
    return ADD(c, pf_pde_lift(c, 0, faces, data, NULL), MUL(c, MUL(c, t, pf_pde_bubble(c)), net));
}

const pf_pde pf_pde_heat_2d_multiscale = {
    .name = "heat_2d_multiscale",
    .title = "Heat equation with very different scales in x and y",
    .statement = "Solve u_t = u_xx/(500 pi)^2 + u_yy/pi^2 on [0,1]^2 x [0,5] with "
                 "u(x,y,0) = sin(20 pi x) sin(pi y) and u = 0 on the boundary.",
    .latex = "u_t=\\frac{u_{xx}}{(500\\pi)^2}+\\frac{u_{yy}}{\\pi^2};\\ u(x,y,0)=\\sin20\\pi x\\sin\\pi y",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_MULTISCALE,
    .d_in = 3, .d_out = 1,
    .inputs = {"x", "y", "t"}, .outputs = {"u"},
    .time_input = 2,
    .lo = {0, 0, 0}, .hi = {1, 1, 5},
    .orders = {2, 2, 1},
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic},
            {.name = "bc", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo,y_hi", .residual = bc}},
    .nhard = 1,
    .hard = {{.name = "initial_and_walls",
              .what = "u = L + t x(1-x) y(1-y) N, L the transfinite lift of the initial data "
                      "sin(20 pi x) sin(pi y) and the zero walls (boundary data only): initial data and walls",
              .satisfies = "ic,bc", .apply = hard}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
