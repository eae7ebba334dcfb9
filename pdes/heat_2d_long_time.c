/* heat_2d_long_time — PINNacle Heat2D_LongTime (docs/pdes.md section 5). */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_t - 0.001 Lap u - 5 sin(u^2)(1 + 2 sin(pi t / 4)) sin(4 pi x) sin(2 pi y) */
    pf_node *u = pf_pde_d(c, 0, 0, 0), *t = pf_pde_x(c, 2);
    pf_node *src = MUL(c, SIN(c, SQ(c, u)), SHIFT(c, K(c, SIN(c, K(c, t, PF_PI / 4)), 2), 1));
    src = MUL(c, src, MUL(c, SIN(c, K(c, pf_pde_x(c, 0), 4 * PF_PI)), SIN(c, K(c, pf_pde_x(c, 1), 2 * PF_PI))));
    return SUB(c, SUB(c, pf_pde_d(c, 0, 2, 1), K(c, pf_pde_lap(c, 0, NULL), 0.001)), K(c, src, 5));
}

/* sin(4 pi x) sin(3 pi y) from coordinate fields. */
static pf_node *shape(pf_pde_ctx *c, pf_node *x, pf_node *y)
{
    return MUL(c, SIN(c, K(c, x, 4 * PF_PI)), SIN(c, K(c, y, 3 * PF_PI)));
}

static pf_node *ic(pf_pde_ctx *c) { return pf_pde_minus(c, 0, shape(c, pf_pde_x(c, 0), pf_pde_x(c, 1))); }
static pf_node *bc(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }

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

const pf_pde pf_pde_heat_2d_long_time = {
    .name = "heat_2d_long_time",
    .title = "Nonlinear heat equation over a long time window",
    .statement = "Solve u_t = 0.001 Lap u + 5 sin(u^2)(1 + 2 sin(pi t/4)) sin(4 pi x) sin(2 pi y) "
                 "on [0,1]^2 x [0,100] with u(x,y,0) = sin(4 pi x) sin(3 pi y) and u = 0 on the boundary.",
    .latex = "u_t=0.001\\Delta u+5\\sin(u^2)(1+2\\sin\\frac{\\pi t}{4})\\sin4\\pi x\\sin2\\pi y",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_LONG_TIME | PF_TAG_NONLINEAR,
    .d_in = 3, .d_out = 1,
    .inputs = {"x", "y", "t"}, .outputs = {"u"},
    .time_input = 2,
    .lo = {0, 0, 0}, .hi = {1, 1, 100},
    .orders = {2, 2, 1}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic},
            {.name = "bc", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo,y_hi", .residual = bc}},
    .nhard = 1,
    .hard = {{.name = "initial_and_walls",
              .what = "u = L + t x(1-x) y(1-y) N, L the transfinite lift of the initial data "
                      "sin(4 pi x) sin(3 pi y) and the zero walls (boundary data only): initial data and walls",
              .satisfies = "ic,bc", .apply = hard}},
    .ref = PF_REF_DATA, .ref_file = "heat_longtime.dat",
    .ref_layout = PF_DAT_LAYOUT_SNAPSHOTS,
};
