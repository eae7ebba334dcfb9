/* darcy_flow_2d — from the paper only (docs/pdes.md section 23): a smooth
 * variable coefficient, written out in divergence form. */
#include "pde_ops.h"
#include "registry.h"

/* a = 2 + 0.5 sin(2 pi x) sin(3 pi y) and its gradient, from value fields. */
static void coefficient(pf_pde_ctx *c, pf_node *x, pf_node *y, pf_node **a, pf_node **ax, pf_node **ay)
{
    pf_node *s2x = SIN(c, K(c, x, 2 * PF_PI)), *s3y = SIN(c, K(c, y, 3 * PF_PI));
    *a = SHIFT(c, K(c, MUL(c, s2x, s3y), 0.5), 2);
    *ax = K(c, MUL(c, COS(c, K(c, x, 2 * PF_PI)), s3y), PF_PI);
    *ay = K(c, MUL(c, s2x, COS(c, K(c, y, 3 * PF_PI))), 1.5 * PF_PI);
}

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* -(a_x u_x + a_y u_y + a Lap u) - f */
    pf_node *x = pf_pde_x(c, 0), *y = pf_pde_x(c, 1), *a, *ax, *ay;
    coefficient(c, x, y, &a, &ax, &ay);
    pf_node *flux = ADD(c, MUL(c, ax, pf_pde_d(c, 0, 0, 1)), MUL(c, ay, pf_pde_d(c, 0, 1, 1)));
    flux = ADD(c, flux, MUL(c, a, pf_pde_lap(c, 0, NULL)));
    pf_node *sx = SIN(c, K(c, x, PF_PI)), *sy = SIN(c, K(c, y, PF_PI));
    pf_node *f = K(c, MUL(c, a, MUL(c, sx, sy)), 2 * PF_PI * PF_PI);
    f = SUB(c, f, K(c, MUL(c, MUL(c, COS(c, K(c, x, 2 * PF_PI)), COS(c, K(c, x, PF_PI))),
                           MUL(c, SIN(c, K(c, y, 3 * PF_PI)), sy)), PF_PI * PF_PI));
    f = SUB(c, f, K(c, MUL(c, MUL(c, SIN(c, K(c, x, 2 * PF_PI)), sx),
                           MUL(c, COS(c, K(c, y, 3 * PF_PI)), COS(c, K(c, y, PF_PI)))), 1.5 * PF_PI * PF_PI));
    return SUB(c, K(c, flux, -1), f);
}

static pf_node *bc(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }

static pf_node *exact_fields(pf_pde_ctx *c)
{
    return MUL(c, SIN(c, K(c, pf_pde_xj(c, 0), PF_PI)), SIN(c, K(c, pf_pde_xj(c, 1), PF_PI)));
}

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    u[0] = sin(PF_PI * x[0]) * sin(PF_PI * x[1]);
}

/* u = x (1 - x) y (1 - y) N: zero on the whole boundary (the data are 0,
 * so the lift is 0). */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    return MUL(c, pf_pde_bubble(c), net);
}

const pf_pde pf_pde_darcy_flow_2d = {
    .name = "darcy_flow_2d",
    .title = "Darcy flow with a smooth variable permeability",
    .statement = "Solve -div(a grad u) = f on [0,1]^2 with a = 2 + 0.5 sin(2 pi x) sin(3 pi y), "
                 "u = 0 on the boundary, and f such that u = sin(pi x) sin(pi y).",
    .latex = "-\\nabla\\cdot(a\\nabla u)=f,\\ a=2+\\tfrac12\\sin2\\pi x\\sin3\\pi y,\\ u|_{\\partial\\Omega}=0",
    .tags = PF_TAG_VARIABLE_COEFFICIENT,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "y"}, .outputs = {"u"},
    .time_input = -1,
    .lo = {0, 0}, .hi = {1, 1},
    .orders = {2, 2}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 1,
    .con = {{.name = "bc", .kind = PF_CON_DIRICHLET, .residual = bc}},
    .nhard = 1,
    .hard = {{.name = "box_bubble",
              .what = "u = x(1-x)y(1-y) N: zero on the whole boundary (zero data: lift 0)",
              .satisfies = "bc", .apply = hard}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
