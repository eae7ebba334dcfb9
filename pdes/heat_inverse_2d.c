/* heat_inverse_2d — PINNacle HeatInv (docs/pdes.md section 9): recover the
 * conductivity a(x, y) from noisy observations of u. There is no initial or
 * boundary condition on u; a is pinned to a* on the spatial boundary. */
#include <stdlib.h>

#include "core/rng.h"
#include "pde_ops.h"
#include "registry.h"

#define HI_NOISE 0.1 /* observation noise: N(0, 0.1^2) */

/* sin(pi x) sin(pi y) from coordinate fields (value or jet). */
static pf_node *bump(pf_pde_ctx *c, pf_node *x, pf_node *y)
{
    return MUL(c, SIN(c, K(c, x, PF_PI)), SIN(c, K(c, y, PF_PI)));
}

/* u_t - (a_x u_x + a_y u_y + a Lap u) - f, outputs 0 = u, 1 = a, with
 * f = e^{-t} [(4 pi^2 - 1) sx sy + pi^2 (2 sx^2 sy^2 - cx^2 sy^2 - sx^2 cy^2)]. */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq;
    pf_node *x = pf_pde_x(c, 0), *y = pf_pde_x(c, 1), *t = pf_pde_x(c, 2);
    pf_node *sx = SIN(c, K(c, x, PF_PI)), *sy = SIN(c, K(c, y, PF_PI));
    pf_node *cx = COS(c, K(c, x, PF_PI)), *cy = COS(c, K(c, y, PF_PI));
    pf_node *sx2 = SQ(c, sx), *sy2 = SQ(c, sy);
    pf_node *q = SUB(c, K(c, MUL(c, sx2, sy2), 2), ADD(c, MUL(c, SQ(c, cx), sy2), MUL(c, sx2, SQ(c, cy))));
    pf_node *f = ADD(c, K(c, MUL(c, sx, sy), 4 * PF_PI * PF_PI - 1), K(c, q, PF_PI * PF_PI));
    f = MUL(c, EXP(c, K(c, t, -1)), f);
    pf_node *a = pf_pde_d(c, 1, 0, 0);
    pf_node *flux = ADD(c, MUL(c, pf_pde_d(c, 1, 0, 1), pf_pde_d(c, 0, 0, 1)),
                        MUL(c, pf_pde_d(c, 1, 1, 1), pf_pde_d(c, 0, 1, 1)));
    flux = ADD(c, flux, MUL(c, a, pf_pde_lap(c, 0, NULL)));
    return SUB(c, SUB(c, pf_pde_d(c, 0, 2, 1), flux), f);
}

/* The observations: u - v at the points of heatinv_points.dat. */
static pf_node *obs(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 0, 0, 0), pf_pde_target(c)); }

/* a = a* = 2 + sin(pi x) sin(pi y) on the spatial boundary (2 there). */
static pf_node *bc_a(pf_pde_ctx *c)
{
    return SHIFT(c, SUB(c, pf_pde_d(c, 1, 0, 0), bump(c, pf_pde_x(c, 0), pf_pde_x(c, 1))), -2);
}

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    double s = sin(PF_PI * x[0]) * sin(PF_PI * x[1]);
    u[0] = exp(-x[2]) * s;
    u[1] = 2 + s;
}

/* 2,500 points (x, y, t) from heatinv_points.dat; values u* + N(0, 0.1^2)
 * drawn from `seed` (PINNacle draws them unseeded when the problem is built). */
static pf_status observe(const pf_pde *p, uint64_t seed, int *n, pf_real **x, pf_real **v)
{
    pf_dat *d;
    PF_TRY(pf_dat_load("heatinv_points.dat", 3, 0, PF_DAT_LAYOUT_STEADY, &d));
    *n = (int)d->n;
    *x = malloc(sizeof(pf_real) * d->n * 3);
    *v = malloc(sizeof(pf_real) * d->n);
    pf_rng *r = pf_rng_alloc(seed);
    if (!*x || !*v || !r) {
        free(*x), free(*v), pf_rng_free(r), pf_dat_free(d);
        *x = *v = NULL;
        return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %zu observations", p->name, d->n);
    }
    for (size_t i = 0; i < d->n; i++) {
        double xi[3], u[2];
        for (int j = 0; j < 3; j++) xi[j] = (*x)[i * 3 + j] = d->inputs[i * 3 + j];
        exact(p, xi, u);
        (*v)[i] = (pf_real)(u[0] + pf_rng_normal(r, HI_NOISE));
    }
    pf_rng_free(r);
    pf_dat_free(d);
    return PF_OK;
}

static pf_node *exact_fields(pf_pde_ctx *c)
{
    pf_node *s = bump(c, pf_pde_xj(c, 0), pf_pde_xj(c, 1));
    pf_node *f[2] = {MUL(c, EXP(c, K(c, pf_pde_xj(c, 2), -1)), s), SHIFT(c, s, 2)};
    return pf_concat(c->g, 2, f);
}

const pf_pde pf_pde_heat_inverse_2d = {
    .name = "heat_inverse_2d",
    .title = "Inverse heat problem: recover the conductivity from noisy data",
    .statement = "Find u(x,y,t) and a(x,y) on [-1,1]^2 x [0,1] with u_t = div(a grad u) + f, "
                 "f = e^{-t}[(4 pi^2 - 1) sin(pi x) sin(pi y) + pi^2 (2 sin^2(pi x) sin^2(pi y) - "
                 "cos^2(pi x) sin^2(pi y) - sin^2(pi x) cos^2(pi y))], given 2,500 observations of u "
                 "with noise N(0, 0.1^2) and a = 2 on the spatial boundary.",
    .latex = "u_t=\\nabla\\cdot(a\\nabla u)+f;\\ u(x_i)=u^*(x_i)+\\epsilon_i,\\ "
             "\\epsilon_i\\sim N(0,0.1^2);\\ a|_{\\partial\\Omega}=2",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_INVERSE | PF_TAG_VARIABLE_COEFFICIENT | PF_TAG_COUPLED,
    .d_in = 3, .d_out = 2,
    .inputs = {"x", "y", "t"}, .outputs = {"u", "a"},
    .time_input = 2,
    .lo = {-1, -1, 0}, .hi = {1, 1, 1},
    .orders = {2, 2, 1}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "obs", .kind = PF_CON_POINTS, .residual = obs, .observe = observe},
            {.name = "bc_a", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo,y_hi", .residual = bc_a}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
    .data_files = "heatinv_points.dat",
};
