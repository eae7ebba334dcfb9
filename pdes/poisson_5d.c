/* poisson_5d — PINNacle PoissonND(dim=5) (pdes.md section 18). */
#include "pde_ops.h"
#include "registry.h"

/* sum_i sin(pi x_i / 2) over the jet or value coordinates `xi(c, i)`. */
static pf_node *sum_sines(pf_pde_ctx *c, pf_node *(*xi)(pf_pde_ctx *, int))
{
    pf_node *s = NULL;
    for (int i = 0; i < 5; i++) {
        pf_node *t = SIN(c, K(c, xi(c, i), PF_PI / 2));
        s = s ? ADD(c, s, t) : t;
    }
    return s;
}

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* Lap u + (pi^2/4) sum sin(pi x_i/2) */
    return ADD(c, pf_pde_lap(c, 0, NULL), K(c, sum_sines(c, pf_pde_x), PF_PI * PF_PI / 4));
}

static pf_node *bc(pf_pde_ctx *c) { return pf_pde_minus(c, 0, sum_sines(c, pf_pde_x)); }

static pf_node *exact_fields(pf_pde_ctx *c) { return sum_sines(c, pf_pde_xj); }

static void exact(const double *x, double *u)
{
    u[0] = 0;
    for (int i = 0; i < 5; i++) u[0] += sin(PF_PI * x[i] / 2);
}

/* u = g + prod_i x_i (1 - x_i) N: exact on the whole boundary of [0,1]^5. */
static pf_node *hard_box(pf_pde_ctx *c, pf_node *net)
{
    return ADD(c, sum_sines(c, pf_pde_xj), MUL(c, pf_pde_bubble(c), net));
}

const pf_pde pf_pde_poisson_5d = {
    .name = "poisson_5d",
    .title = "Poisson equation in five dimensions on the unit cube",
    .statement = "Solve -Lap u = (pi^2/4) sum_i sin(pi x_i / 2) on [0,1]^5 with "
                 "u = sum_i sin(pi x_i / 2) on the boundary.",
    .latex = "-\\Delta u = \\frac{\\pi^2}{4}\\sum_{i=1}^{5}\\sin\\frac{\\pi x_i}{2},\\ x\\in[0,1]^5;"
             "\\quad u=\\sum_i\\sin\\frac{\\pi x_i}{2}\\ \\text{on}\\ \\partial\\Omega",
    .tags = PF_TAG_HIGH_DIM,
    .d_in = 5, .d_out = 1,
    .inputs = {"x1", "x2", "x3", "x4", "x5"}, .outputs = {"u"},
    .time_input = -1,
    .lo = {0, 0, 0, 0, 0}, .hi = {1, 1, 1, 1, 1},
    .orders = {2, 2, 2, 2, 2}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 1,
    .con = {{.name = "bc", .kind = PF_CON_DIRICHLET, .residual = bc}},
    .nhard = 1,
    .hard = {{.name = "box_bubble",
              .what = "u = g + prod_i x_i(1-x_i) N: the Dirichlet data exactly",
              .satisfies = "bc", .apply = hard_box}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
