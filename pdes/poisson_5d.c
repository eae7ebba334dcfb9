/* poisson_5d — PINNacle PoissonND(dim=5) (docs/pdes.md section 18). */
#include "geom/lift.h"
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

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    u[0] = 0;
    for (int i = 0; i < 5; i++) u[0] += sin(PF_PI * x[i] / 2);
}

/* The Dirichlet data g = sum_i sin(pi x_i / 2) at a projected point of the
 * lift (geom/lift.h): the terms of the coordinates on a face are constants,
 * summed here in double, the others (free coordinates, jets) are shared
 * partial sums, one per set of free inputs. */
typedef struct sines_memo {
    pf_node *sum[32];     /* [bit i: x_i free] */
    pf_node *at[32][6];   /* sum[set] + (number of coordinates on a hi face), the face terms */
} sines_memo;

/* sum of sin(pi x_i / 2) over the free inputs in `set` (x[i] free there) */
static pf_node *free_sum(pf_pde_ctx *face, sines_memo *m, pf_node *const *x, unsigned set)
{
    if (m->sum[set]) return m->sum[set];
    int top = 31 - __builtin_clz(set);
    unsigned rest = set & ~(1u << top);
    pf_node *t = SIN(face, K(face, x[top], PF_PI / 2));
    return m->sum[set] = rest ? ADD(face, free_sum(face, m, x, rest), t) : t;
}

static pf_node *bc_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k;
    sines_memo *m = user;
    unsigned free_set = 0;
    int fixed = 0, nhi = 0;
    for (int i = 0; i < 5; i++) {
        if (side[i] == PF_LIFT_FREE) free_set |= 1u << i;
        else fixed = i, nhi += side[i] == PF_LIFT_AT_HI;
    }
    /* sin(pi x_i / 2) is 0 on the x_i = 0 faces and 1 on the x_i = 1 faces */
    pf_node **t = &m->at[free_set][nhi];
    if (!*t && !free_set) *t = SHIFT(face, K(face, x[fixed], 0), nhi); /* a corner: a constant */
    else if (!*t) *t = nhi ? SHIFT(face, free_sum(face, m, x, free_set), nhi) : free_sum(face, m, x, free_set);
    return *t;
}

/* u = L + prod_i x_i (1 - x_i) N, L the transfinite lift of g from the
 * faces of [0,1]^5. */
static pf_node *hard_box(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces box[5] = {PF_LIFT_BOTH, PF_LIFT_BOTH, PF_LIFT_BOTH, PF_LIFT_BOTH, PF_LIFT_BOTH};
    sines_memo m = {0};
    return ADD(c, pf_pde_lift(c, 0, box, bc_data, &m), MUL(c, pf_pde_bubble(c), net));
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
              .what = "u = L + prod_i x_i(1-x_i) N, L the transfinite (Coons) lift of the Dirichlet "
                      "data (boundary data only): the data exactly",
              .satisfies = "bc", .apply = hard_box, .lift_exact = 1,
              .lift_exact_why = "u* = sum_i sin(pi x_i/2) is a sum of one-variable terms, which the "
                                "Coons lift of its face traces reproduces exactly"}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
