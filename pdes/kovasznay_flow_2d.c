/* kovasznay_flow_2d — from the paper only (docs/pdes.md section 25): steady
 * Navier-Stokes at Re = 40 with Kovasznay's exact solution. */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

#define KV_NU (1.0 / 40)
#define KV_LAMBDA (-0.9637405441957689) /* 20 - sqrt(400 + 4 pi^2) */

/* Momentum in x (eq 0), y (eq 1), continuity (eq 2). */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    if (eq == 2) return ADD(c, pf_pde_d(c, 0, 0, 1), pf_pde_d(c, 1, 1, 1));
    pf_node *u = pf_pde_d(c, 0, 0, 0), *v = pf_pde_d(c, 1, 0, 0);
    pf_node *conv = ADD(c, MUL(c, u, pf_pde_d(c, eq, 0, 1)), MUL(c, v, pf_pde_d(c, eq, 1, 1)));
    pf_node *r = ADD(c, conv, pf_pde_d(c, 2, eq, 1));
    return SUB(c, r, K(c, pf_pde_lap(c, eq, NULL), KV_NU));
}

/* (u*, v*, p*) from coordinates x, y (jets or values), as three fields. */
static void kovasznay(pf_pde_ctx *c, pf_node *x, pf_node *y, pf_node *out[3])
{
    pf_node *e = EXP(c, K(c, x, KV_LAMBDA));
    out[0] = SHIFT(c, K(c, MUL(c, e, COS(c, K(c, y, 2 * PF_PI))), -1), 1);
    out[1] = K(c, MUL(c, e, SIN(c, K(c, y, 2 * PF_PI))), KV_LAMBDA / (2 * PF_PI));
    out[2] = SHIFT(c, K(c, EXP(c, K(c, x, 2 * KV_LAMBDA)), -0.5), 0.5);
}

static pf_node *bc_component(pf_pde_ctx *c, int k)
{
    pf_node *f[3];
    kovasznay(c, pf_pde_x(c, 0), pf_pde_x(c, 1), f);
    return pf_pde_minus(c, k, f[k]);
}

static pf_node *bc_u(pf_pde_ctx *c) { return bc_component(c, 0); }
static pf_node *bc_v(pf_pde_ctx *c) { return bc_component(c, 1); }
static pf_node *bc_p(pf_pde_ctx *c) { return bc_component(c, 2); }
static pf_node *gauge(pf_pde_ctx *c) { return pf_pde_d(c, 2, 0, 0); } /* p(0,0) = 0 */

static pf_node *exact_fields(pf_pde_ctx *c)
{
    pf_node *f[3];
    kovasznay(c, pf_pde_xj(c, 0), pf_pde_xj(c, 1), f);
    return pf_concat(c->g, 3, f);
}

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    double e = exp(KV_LAMBDA * x[0]);
    u[0] = 1 - e * cos(2 * PF_PI * x[1]);
    u[1] = KV_LAMBDA / (2 * PF_PI) * e * sin(2 * PF_PI * x[1]);
    u[2] = 0.5 * (1 - exp(2 * KV_LAMBDA * x[0]));
}

/* The Dirichlet data of output k: Kovasznay's formula at a point of the
 * walls (geom/lift.h hands x[] with at least one coordinate on a face). */
static pf_node *walls_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)side, (void)user;
    pf_node *f[3];
    kovasznay(face, x[0], x[1], f);
    return f[k];
}

/* (u, v, p) = L + (x+0.5)(1-x)(y+0.5)(1.5-y) N, L the transfinite lift of
 * the Dirichlet data from the four walls: the data on the whole rectangle
 * (the gauge p(0,0) = 0 is left to the loss). p* depends on x alone, so
 * its lift is p* (lift_exact); u*, v* are not reproduced. */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces box[2] = {PF_LIFT_BOTH, PF_LIFT_BOTH};
    pf_node *b = pf_pde_bubble(c), *f[3];
    for (int k = 0; k < 3; k++)
        f[k] = ADD(c, pf_pde_lift(c, k, box, walls_data, NULL), MUL(c, b, CH(c, net, k)));
    return pf_concat(c->g, 3, f);
}

const pf_pde pf_pde_kovasznay_flow_2d = {
    .name = "kovasznay_flow_2d",
    .title = "Kovasznay flow: steady Navier-Stokes at Re = 40",
    .statement = "Solve the steady incompressible Navier-Stokes equations u.grad u + grad p = "
                 "nu Lap u, div u = 0 with nu = 1/40 on [-0.5,1] x [-0.5,1.5], with Kovasznay's "
                 "solution as Dirichlet data on the boundary and p(0,0) = 0.",
    .latex = "(\\mathbf u\\cdot\\nabla)\\mathbf u+\\nabla p-\\nu\\Delta\\mathbf u=0,\\ "
             "\\nabla\\cdot\\mathbf u=0,\\ \\nu=1/40",
    .tags = PF_TAG_NONLINEAR | PF_TAG_COUPLED,
    .d_in = 2, .d_out = 3,
    .inputs = {"x", "y"}, .outputs = {"u", "v", "p"},
    .time_input = -1,
    .lo = {-0.5, -0.5}, .hi = {1, 1.5},
    .orders = {2, 2},
    .geometry = pf_pdes_box_geometry,
    .neq = 3, .residual = residual,
    .ncon = 4,
    .con = {{.name = "bc_u", .kind = PF_CON_DIRICHLET, .residual = bc_u},
            {.name = "bc_v", .kind = PF_CON_DIRICHLET, .residual = bc_v},
            {.name = "bc_p", .kind = PF_CON_DIRICHLET, .residual = bc_p},
            {.name = "gauge", .kind = PF_CON_POINTS, .residual = gauge,
             .npoints = 1, .points = (const double[]){0, 0}}},
    .nhard = 1,
    .hard = {{.name = "walls",
              .what = "(u,v,p) = L + bubble N, L the transfinite (Coons) lift of the Dirichlet data "
                      "from the four walls (boundary data only): the data on all walls",
              .satisfies = "bc_u,bc_v,bc_p", .apply = hard, .lift_exact = 1u << 2,
              .lift_exact_why = "p* = (1 - e^{2 lambda x})/2 depends on x alone, and the Coons lift "
                                "reproduces a function of one variable from its traces; u*, v* are "
                                "not reproduced"}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
