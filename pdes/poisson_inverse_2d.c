/* poisson_inverse_2d — PINNacle PoissonInv (docs/pdes.md section 19): recover
 * the coefficient a(x, y) from noisy observations of u. f is the paper's
 * (2x - 1, 2y - 1; PINNacle's code has + 1, which makes u*, a* no
 * solution). There is no condition on u; a is pinned to a* on the boundary. */
#include <stdlib.h>

#include "core/rng.h"
#include "pde_ops.h"
#include "registry.h"

#define PI_NOISE 0.1 /* observation noise: N(0, 0.1^2) */
#define PI_GRID 50   /* observations on linspace(0, 1, 50)^2 */

/* a* = 1 / (1 + x^2 + y^2 + (x-1)^2 + (y-1)^2) from coordinate fields. */
static pf_node *a_star(pf_pde_ctx *c, pf_node *x, pf_node *y)
{
    pf_node *s = ADD(c, ADD(c, SQ(c, x), SQ(c, y)), ADD(c, SQ(c, SHIFT(c, x, -1)), SQ(c, SHIFT(c, y, -1))));
    return RECIP(c, SHIFT(c, s, 1));
}

/* a_x u_x + a_y u_y + a Lap u + f (outputs 0 = u, 1 = a), with
 * f = 2 pi^2 a* sx sy + 2 pi a*^2 [(2x-1) cx sy + (2y-1) sx cy]. */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq;
    pf_node *x = pf_pde_x(c, 0), *y = pf_pde_x(c, 1), *as = a_star(c, x, y);
    pf_node *sx = SIN(c, K(c, x, PF_PI)), *sy = SIN(c, K(c, y, PF_PI));
    pf_node *cx = COS(c, K(c, x, PF_PI)), *cy = COS(c, K(c, y, PF_PI));
    pf_node *br = ADD(c, MUL(c, SHIFT(c, K(c, x, 2), -1), MUL(c, cx, sy)),
                      MUL(c, SHIFT(c, K(c, y, 2), -1), MUL(c, sx, cy)));
    pf_node *f = ADD(c, K(c, MUL(c, as, MUL(c, sx, sy)), 2 * PF_PI * PF_PI), K(c, MUL(c, SQ(c, as), br), 2 * PF_PI));
    pf_node *flux = ADD(c, MUL(c, pf_pde_d(c, 1, 0, 1), pf_pde_d(c, 0, 0, 1)),
                        MUL(c, pf_pde_d(c, 1, 1, 1), pf_pde_d(c, 0, 1, 1)));
    flux = ADD(c, flux, MUL(c, pf_pde_d(c, 1, 0, 0), pf_pde_lap(c, 0, NULL)));
    return ADD(c, flux, f);
}

static pf_node *obs(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 0, 0, 0), pf_pde_target(c)); }

static pf_node *bc_a(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 1, 0, 0), a_star(c, pf_pde_x(c, 0), pf_pde_x(c, 1))); }

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    u[0] = sin(PF_PI * x[0]) * sin(PF_PI * x[1]);
    u[1] = 1 / (1 + x[0] * x[0] + x[1] * x[1] + (x[0] - 1) * (x[0] - 1) + (x[1] - 1) * (x[1] - 1));
}

/* The 50 x 50 grid linspace(0, 1, 50)^2, boundary included, x fastest;
 * values u* + N(0, 0.1^2) drawn from `seed`. */
static pf_status observe(const pf_pde *p, uint64_t seed, int *n, pf_real **x, pf_real **v)
{
    *n = PI_GRID * PI_GRID;
    *x = malloc(sizeof(pf_real) * PI_GRID * PI_GRID * 2);
    *v = malloc(sizeof(pf_real) * PI_GRID * PI_GRID);
    pf_rng *r = pf_rng_alloc(seed);
    if (!*x || !*v || !r) {
        free(*x), free(*v), pf_rng_free(r);
        *x = *v = NULL;
        return pf_fail(PF_ERR_NOMEM, "%s: out of memory for observations", p->name);
    }
    for (int i = 0; i < PI_GRID; i++)
        for (int j = 0; j < PI_GRID; j++) {
            int k = i * PI_GRID + j;
            double xi[2] = {j / (PI_GRID - 1.0), i / (PI_GRID - 1.0)}, u[2];
            (*x)[2 * k] = (pf_real)xi[0], (*x)[2 * k + 1] = (pf_real)xi[1];
            xi[0] = (*x)[2 * k], xi[1] = (*x)[2 * k + 1];
            exact(p, xi, u);
            (*v)[k] = (pf_real)(u[0] + pf_rng_normal(r, PI_NOISE));
        }
    pf_rng_free(r);
    return PF_OK;
}

static pf_node *exact_fields(pf_pde_ctx *c)
{
    pf_node *x = pf_pde_xj(c, 0), *y = pf_pde_xj(c, 1);
    pf_node *f[2] = {MUL(c, SIN(c, K(c, x, PF_PI)), SIN(c, K(c, y, PF_PI))), a_star(c, x, y)};
    return pf_concat(c->g, 2, f);
}

const pf_pde pf_pde_poisson_inverse_2d = {
    .name = "poisson_inverse_2d",
    .title = "Inverse Poisson problem: recover the coefficient from noisy data",
    .statement = "Find u(x,y) and a(x,y) on [0,1]^2 with -div(a grad u) = f, f = 2 pi^2 a* sin(pi x) "
                 "sin(pi y) + 2 pi a*^2 [(2x-1) cos(pi x) sin(pi y) + (2y-1) sin(pi x) cos(pi y)], "
                 "a* = 1/(1 + x^2 + y^2 + (x-1)^2 + (y-1)^2), given observations of u on a 50 x 50 "
                 "grid with noise N(0, 0.1^2) and a = a* on the boundary.",
    .latex = "-\\nabla\\cdot(a\\nabla u)=f;\\ u(x_i)=u^*(x_i)+\\epsilon_i,\\ \\epsilon_i\\sim N(0,0.1^2);\\ "
             "a|_{\\partial\\Omega}=a^*,\\ a^*=\\frac{1}{1+x^2+y^2+(x-1)^2+(y-1)^2}",
    .tags = PF_TAG_INVERSE | PF_TAG_VARIABLE_COEFFICIENT | PF_TAG_COUPLED,
    .d_in = 2, .d_out = 2,
    .inputs = {"x", "y"}, .outputs = {"u", "a"},
    .time_input = -1,
    .lo = {0, 0}, .hi = {1, 1},
    .orders = {2, 2}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "obs", .kind = PF_CON_POINTS, .residual = obs, .observe = observe},
            {.name = "bc_a", .kind = PF_CON_DIRICHLET, .residual = bc_a}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
