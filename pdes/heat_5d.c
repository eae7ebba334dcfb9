/* heat_5d — PINNacle HeatND(dim=5, T=1) (docs/pdes.md section 8): the unit
 * 5-ball times [0, 1], a Neumann condition on the sphere. */
#include <stdlib.h>

#include "geom/geometry.h"
#include "geom/sample.h"
#include "pde_ops.h"
#include "registry.h"

/* |x|^2 / 2 + t from coordinate fields (value or jet). */
static pf_node *phase(pf_pde_ctx *c, pf_node *(*xi)(pf_pde_ctx *, int))
{
    pf_node *r2 = SQ(c, xi(c, 0));
    for (int i = 1; i < 5; i++) r2 = ADD(c, r2, SQ(c, xi(c, i)));
    return ADD(c, K(c, r2, 0.5), xi(c, 5));
}

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_t - Lap u / 5 - f, f = -(|x|^2/5) exp(|x|^2/2 + t) */
    pf_node *r2 = SQ(c, pf_pde_x(c, 0));
    for (int i = 1; i < 5; i++) r2 = ADD(c, r2, SQ(c, pf_pde_x(c, i)));
    pf_node *f = K(c, MUL(c, r2, EXP(c, phase(c, pf_pde_x))), -0.2);
    return SUB(c, SUB(c, pf_pde_d(c, 0, 5, 1), K(c, pf_pde_lap(c, 0, NULL), 0.2)), f);
}

/* u(x, 0) = exp(|x|^2 / 2): the phase at t = 0 is |x|^2 / 2. */
static pf_node *ic(pf_pde_ctx *c) { return pf_pde_minus(c, 0, EXP(c, phase(c, pf_pde_x))); }

/* du/dn = exp(|x|^2/2 + t) on the sphere (n = x). */
static pf_node *neumann(pf_pde_ctx *c) { return SUB(c, pf_pde_dn(c, 0), EXP(c, phase(c, pf_pde_x))); }

static pf_node *exact_fields(pf_pde_ctx *c) { return EXP(c, phase(c, pf_pde_xj)); }

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    double r2 = 0;
    for (int i = 0; i < 5; i++) r2 += x[i] * x[i];
    u[0] = exp(r2 / 2 + x[5]);
}

static pf_status geometry(const pf_pde *p, pf_geom **out)
{
    const double centre[5] = {0, 0, 0, 0, 0};
    pf_geom *ball;
    PF_TRY(pf_geom_ball_alloc(5, centre, 1, "sphere", &ball));
    return pf_geom_space_time_alloc(ball, p->lo[5], p->hi[5], out);
}

/* PINNacle's evaluation set (docs/pdes.md section 8): 800 points uniform in the
 * ball times 25 levels t = 1, 0.96, ..., 0.04, time-major. PINNacle draws
 * the points unseeded; we fix seed 2026, so the set is reproducible. */
#define H5D_EVAL_SEED 2026
static pf_status eval_points(const pf_pde *p, const pf_geom *g, pf_point_set *out)
{
    enum { NX = 800, NT = 25 };
    pf_point_set ball;
    pf_point_set_init(&ball);
    PF_TRY(pf_sample_interior(pf_geom_space(g), PF_SAMPLE_UNIFORM, NX, H5D_EVAL_SEED, &ball));
    pf_point_set_release(out);
    out->x = malloc(sizeof(pf_real) * NX * NT * 6);
    if (!out->x) {
        pf_point_set_release(&ball);
        return pf_fail(PF_ERR_NOMEM, "%s: out of memory for evaluation points", p->name);
    }
    out->n = NX * NT;
    out->dim = 6;
    for (int m = 0; m < NT; m++)
        for (int i = 0; i < NX; i++) {
            pf_real *x = out->x + ((size_t)m * NX + i) * 6;
            for (int j = 0; j < 5; j++) x[j] = ball.x[i * 5 + j];
            x[5] = (pf_real)(1 - 0.04 * m);
        }
    pf_point_set_release(&ball);
    return PF_OK;
}

const pf_pde pf_pde_heat_5d = {
    .name = "heat_5d",
    .title = "Heat equation on the five-dimensional unit ball",
    .statement = "Solve u_t = Lap u / 5 + f on the unit ball of R^5 for t in [0,1], f = -(|x|^2/5) "
                 "exp(|x|^2/2 + t), with u(x,0) = exp(|x|^2/2) and du/dn = exp(|x|^2/2 + t) on the sphere.",
    .latex = "u_t=\\tfrac15\\Delta u+f,\\ f=-\\tfrac{|x|^2}{5}e^{|x|^2/2+t},\\ |x|\\le1;\\ "
             "\\partial_n u=e^{|x|^2/2+t}\\ \\text{on}\\ |x|=1",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_HIGH_DIM | PF_TAG_COMPLEX_GEOMETRY,
    .d_in = 6, .d_out = 1,
    .inputs = {"x1", "x2", "x3", "x4", "x5", "t"}, .outputs = {"u"},
    .time_input = 5,
    .lo = {-1, -1, -1, -1, -1, 0}, .hi = {1, 1, 1, 1, 1, 1},
    .orders = {2, 2, 2, 2, 2, 1}, .laplacian_only = true,
    .geometry = geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic},
            {.name = "neumann", .kind = PF_CON_NEUMANN, .parts = "sphere", .order = 1, .residual = neumann}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
    .eval_points = eval_points,
};
