/* wave_1d — PINNacle Wave1D(C=2, a=4) (docs/pdes.md section 20). PINNacle
 * codes it as a plain box in (x, t), so "Neumann 0 on the t = 0 face" is
 * u_t = 0; ours is the interval x time (t the time input), with the
 * evaluation set PINNacle's box gives (eval_points). */
#include "geom/geometry.h"
#include "geom/lift.h"
#include "geom/sample.h"
#include "pde_ops.h"
#include "registry.h"

/* g(x) = sin(pi x) + 0.5 sin(4 pi x), from coordinate x (jet or value). */
static pf_node *initial_shape(pf_pde_ctx *c, pf_node *x)
{
    return ADD(c, SIN(c, K(c, x, PF_PI)), K(c, SIN(c, K(c, x, 4 * PF_PI)), 0.5));
}

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_tt - 4 u_xx */
    return SUB(c, pf_pde_d(c, 0, 1, 2), K(c, pf_pde_d(c, 0, 0, 2), 4));
}

static pf_node *ic(pf_pde_ctx *c) { return pf_pde_minus(c, 0, initial_shape(c, pf_pde_x(c, 0))); }
static pf_node *ic_rate(pf_pde_ctx *c) { return pf_pde_d(c, 0, 1, 1); }
static pf_node *bc(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }

static pf_node *exact_fields(pf_pde_ctx *c)
{
    pf_node *x = pf_pde_xj(c, 0), *t = pf_pde_xj(c, 1);
    pf_node *a = MUL(c, SIN(c, K(c, x, PF_PI)), COS(c, K(c, t, 2 * PF_PI)));
    pf_node *b = MUL(c, SIN(c, K(c, x, 4 * PF_PI)), COS(c, K(c, t, 8 * PF_PI)));
    return ADD(c, a, K(c, b, 0.5));
}

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    u[0] = sin(PF_PI * x[0]) * cos(2 * PF_PI * x[1]) + 0.5 * sin(4 * PF_PI * x[0]) * cos(8 * PF_PI * x[1]);
}

/* The data where they are given (geom/lift.h): 0 on the walls (corners
 * included), the initial shape g(x) on the initial slice. */
static pf_node *data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)user;
    return side[0] != PF_LIFT_FREE ? NULL : initial_shape(face, x[0]);
}

/* u = L + x (1 - x) t^2 N, L the lift of the initial shape and the zero
 * walls (g(x) carried along t, so L_t = 0): the initial shape, u_t(x, 0) = 0
 * (the t^2) and u = 0 at x = 0, 1 hold exactly. */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces faces[2] = {PF_LIFT_BOTH, PF_LIFT_LO};
    pf_node *l = MUL(c, pf_pde_bubble(c), SQ(c, pf_pde_xj(c, 1)));
    return ADD(c, pf_pde_lift(c, 0, faces, data, NULL), MUL(c, l, net));
}

/* PINNacle's evaluation set: its grid rule (docs/pdes.md 0.3) on the plain
 * box [0,1]^2 in (x, t), 50 x 50 points at k/51 on both axes, x-major; our
 * space-time geometry would take the rule's space-time branch instead
 * (levels t = 1, 0.98, .., 0.02). */
static pf_status eval_points(const pf_pde *p, const pf_geom *g, pf_point_set *out)
{
    (void)g;
    pf_geom *box = NULL;
    PF_TRY(pf_geom_box_alloc(2, p->lo, p->hi, NULL, &box));
    pf_status st = pf_sample_grid_pinnacle(box, 2500, out);
    pf_geom_free(box);
    return st;
}

const pf_pde pf_pde_wave_1d = {
    .name = "wave_1d",
    .title = "One-dimensional wave equation with two modes",
    .statement = "Solve u_tt = 4 u_xx on x in [0,1], t in [0,1], with u(x,0) = sin(pi x) + "
                 "0.5 sin(4 pi x), u_t(x,0) = 0 and u(0,t) = u(1,t) = 0.",
    .latex = "u_{tt}-4u_{xx}=0;\\ u(x,0)=\\sin\\pi x+\\tfrac12\\sin4\\pi x,\\ u_t(x,0)=0,\\ u(0,t)=u(1,t)=0",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_MULTISCALE,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "t"}, .outputs = {"u"},
    .time_input = 1,
    .lo = {0, 0}, .hi = {1, 1},
    .orders = {2, 2},
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 3,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic},
            {.name = "ic_rate", .kind = PF_CON_NEUMANN, .parts = "initial", .order = 1, .residual = ic_rate},
            {.name = "bc", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi", .residual = bc}},
    .nhard = 1,
    .hard = {{.name = "initial_and_walls",
              .what = "u = L + x(1-x) t^2 N, L the transfinite lift of the initial shape g(x) and the "
                      "zero walls (boundary data only): both initial conditions and the walls",
              .satisfies = "ic,ic_rate,bc", .apply = hard}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
    .eval_points = eval_points,
};
