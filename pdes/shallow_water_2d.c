/* shallow_water_2d — from the paper only (docs/pdes.md section 24): the
 * conservative shallow-water system, started from a uniform state, whose
 * solution is that state (a constant).
 *
 * Periodicity (paper: U(0,y,t) = U(1,y,t), U(x,0,t) = U(x,1,t)) is one
 * PF_CON_PERIODIC constraint per field and direction, comparing the fields on
 * the x_lo / y_lo faces with those at the images on x_hi / y_hi. A network
 * with the periodic input embedding (nn/model.h, period[] from here) meets
 * them exactly.
 *
 * Positivity h >= h_min is the inequality constraint max(0, h_min - h),
 * written exactly with pf_pde_relu (pde_ops.h). It holds on the whole
 * space-time domain, not on a boundary part: `.parts` is NULL, and the
 * trainer should apply it at its interior (residual) points. The transform
 * "initial_positive" makes it exact instead. */
#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

#define SW_G 9.81
#define SW_HMIN 1e-3
#define SW_H0 1.0
#define SW_QX0 0.1
#define SW_QY0 (-0.05)

/* d/dx_i (q_a q_b / h) = ((q_a)_i q_b + q_a (q_b)_i) / h - q_a q_b h_i / h^2,
 * with rh = 1/h (outputs: 0 = h, 1 = q_x, 2 = q_y). */
static pf_node *quotient_d(pf_pde_ctx *c, pf_node *rh, int a, int b, int i)
{
    pf_node *qa = pf_pde_d(c, a, 0, 0), *qb = pf_pde_d(c, b, 0, 0);
    pf_node *num = ADD(c, MUL(c, pf_pde_d(c, a, i, 1), qb), MUL(c, qa, pf_pde_d(c, b, i, 1)));
    pf_node *corr = MUL(c, MUL(c, MUL(c, qa, qb), pf_pde_d(c, 0, i, 1)), rh);
    return MUL(c, rh, SUB(c, num, corr));
}

/* Mass (eq 0): h_t + (q_x)_x + (q_y)_y. Momentum k = 1, 2 (along x, y):
 * (q_k)_t + (q_x q_k / h)_x + (q_y q_k / h)_y + g h h_{x_k}, the chain rule
 * applied to the fluxes (q_k^2/h + g h^2/2 along x_k, q_x q_y / h across). */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    if (eq == 0) return ADD(c, ADD(c, pf_pde_d(c, 0, 2, 1), pf_pde_d(c, 1, 0, 1)), pf_pde_d(c, 2, 1, 1));
    pf_node *h = pf_pde_d(c, 0, 0, 0), *rh = RECIP(c, h);
    pf_node *flux = ADD(c, quotient_d(c, rh, 1, eq, 0), quotient_d(c, rh, 2, eq, 1));
    pf_node *r = ADD(c, pf_pde_d(c, eq, 2, 1), flux);
    return ADD(c, r, K(c, MUL(c, h, pf_pde_d(c, 0, eq - 1, 1)), SW_G));
}

static pf_node *ic_h(pf_pde_ctx *c) { return SHIFT(c, pf_pde_d(c, 0, 0, 0), -SW_H0); }
static pf_node *ic_qx(pf_pde_ctx *c) { return SHIFT(c, pf_pde_d(c, 1, 0, 0), -SW_QX0); }
static pf_node *ic_qy(pf_pde_ctx *c) { return SHIFT(c, pf_pde_d(c, 2, 0, 0), -SW_QY0); }

/* max(0, h_min - h) */
static pf_node *h_min(pf_pde_ctx *c)
{
    return pf_pde_relu(c, SHIFT(c, K(c, pf_pde_d(c, 0, 0, 0), -1), SW_HMIN));
}

/* The constant state as a jet with x's layout (zero derivative streams). */
static pf_node *exact_fields(pf_pde_ctx *c)
{
    pf_node *zero = K(c, pf_pde_xj(c, 0), 0);
    pf_node *f[3] = {SHIFT(c, zero, SW_H0), SHIFT(c, zero, SW_QX0), SHIFT(c, zero, SW_QY0)};
    return pf_concat(c->g, 3, f);
}

static void exact(const pf_pde *p, const double *x, double *u)
{
    (void)p;
    (void)x;
    u[0] = SW_H0, u[1] = SW_QX0, u[2] = SW_QY0;
}

/* The initial state on the initial slice (geom/lift.h: only t is moved),
 * as value-only constants. */
static pf_node *initial_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)side, (void)user;
    static const double state[3] = {SW_H0, SW_QX0, SW_QY0};
    return SHIFT(face, K(face, x[2], 0), state[k]);
}

static const pf_lift_faces initial_slice[3] = {PF_LIFT_NONE, PF_LIFT_NONE, PF_LIFT_LO};

/* (h, q_x, q_y) = L + t N, L the initial state carried along t: the initial
 * state. */
static pf_node *hard_initial(pf_pde_ctx *c, pf_node *net)
{
    pf_node *t = pf_pde_xj(c, 2), *f[3];
    for (int k = 0; k < 3; k++)
        f[k] = ADD(c, pf_pde_lift(c, k, initial_slice, initial_data, NULL), MUL(c, t, CH(c, net, k)));
    return pf_concat(c->g, 3, f);
}

/* h = h_min + softplus(s + t N_h) with s = softplus^-1(L_h - h_min) =
 * log(e^(L_h - h_min) - 1) (L_h > h_min: the initial depth is 1), q as in
 * hard_initial: the initial state and h >= h_min. */
static pf_node *hard_initial_positive(pf_pde_ctx *c, pf_node *net)
{
    pf_node *t = pf_pde_xj(c, 2), *f[3];
    pf_node *excess = SHIFT(c, pf_pde_lift(c, 0, initial_slice, initial_data, NULL), -SW_HMIN);
    pf_node *s = pf_unary(c->g, PF_UNARY_LOG, SHIFT(c, EXP(c, excess), -1), 0);
    pf_node *sp = pf_unary(c->g, PF_UNARY_SOFTPLUS, ADD(c, s, MUL(c, t, CH(c, net, 0))), 0);
    f[0] = SHIFT(c, sp, SW_HMIN);
    for (int k = 1; k < 3; k++)
        f[k] = ADD(c, pf_pde_lift(c, k, initial_slice, initial_data, NULL), MUL(c, t, CH(c, net, k)));
    return pf_concat(c->g, 3, f);
}

/* field k at the face points minus field k at their images */
static pf_node *per_h(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 0, 0, 0), pf_pde_pair(c, 0)); }
static pf_node *per_qx(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 1, 0, 0), pf_pde_pair(c, 1)); }
static pf_node *per_qy(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 2, 0, 0), pf_pde_pair(c, 2)); }

const pf_pde pf_pde_shallow_water_2d = {
    .name = "shallow_water_2d",
    .title = "Two-dimensional shallow-water system from a uniform state",
    .statement = "Solve h_t + (q_x)_x + (q_y)_y = 0, (q_x)_t + (q_x^2/h + g h^2/2)_x + (q_x q_y/h)_y = 0, "
                 "(q_y)_t + (q_x q_y/h)_x + (q_y^2/h + g h^2/2)_y = 0 with g = 9.81 on [0,1]^2 x [0,0.1], "
                 "with (h, q_x, q_y)(x,y,0) = (1, 0.1, -0.05), all three fields periodic in x and y, "
                 "and h >= 1e-3.",
    .latex = "h_t+(q_x)_x+(q_y)_y=0,\\ "
             "(q_x)_t+(\\tfrac{q_x^2}{h}+\\tfrac{gh^2}{2})_x+(\\tfrac{q_xq_y}{h})_y=0,\\ "
             "(q_y)_t+(\\tfrac{q_xq_y}{h})_x+(\\tfrac{q_y^2}{h}+\\tfrac{gh^2}{2})_y=0,\\ g=9.81;\\ "
             "(h,q_x,q_y)(x,y,0)=(1,0.1,-0.05),\\ \\text{periodic in }x,y,\\ h\\ge10^{-3}",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_PERIODIC | PF_TAG_NONLINEAR | PF_TAG_COUPLED,
    .d_in = 3, .d_out = 3,
    .inputs = {"x", "y", "t"}, .outputs = {"h", "qx", "qy"},
    .time_input = 2,
    .lo = {0, 0, 0}, .hi = {1, 1, 0.1},
    .period = {1, 1, 0},
    .orders = {1, 1, 1},
    .geometry = pf_pdes_box_geometry,
    .neq = 3, .residual = residual,
    .ncon = 10,
    .con = {{.name = "ic_h", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic_h},
            {.name = "ic_qx", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic_qx},
            {.name = "ic_qy", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic_qy},
            {.name = "h_min", .kind = PF_CON_INEQUALITY, .residual = h_min},
            {.name = "periodic_x_h", .kind = PF_CON_PERIODIC, .parts = "x_lo", .residual = per_h, .periodic_input = 0},
            {.name = "periodic_x_qx", .kind = PF_CON_PERIODIC, .parts = "x_lo", .residual = per_qx, .periodic_input = 0},
            {.name = "periodic_x_qy", .kind = PF_CON_PERIODIC, .parts = "x_lo", .residual = per_qy, .periodic_input = 0},
            {.name = "periodic_y_h", .kind = PF_CON_PERIODIC, .parts = "y_lo", .residual = per_h, .periodic_input = 1},
            {.name = "periodic_y_qx", .kind = PF_CON_PERIODIC, .parts = "y_lo", .residual = per_qx, .periodic_input = 1},
            {.name = "periodic_y_qy", .kind = PF_CON_PERIODIC, .parts = "y_lo", .residual = per_qy, .periodic_input = 1}},
    .nhard = 2,
    .hard = {{.name = "initial",
              .what = "(h, q_x, q_y) = L + t N, L the initial state (1, 0.1, -0.05) carried along t "
                      "(boundary data only): the initial state",
              .satisfies = "ic_h,ic_qx,ic_qy", .apply = hard_initial, .lift_exact = 7,
              .lift_exact_why = "the solution is the uniform initial state for all t, which the lift "
                                "carries along t from the initial slice"},
             {.name = "initial_positive",
              .what = "h = h_min + softplus(s + t N_h), softplus(s) = L_h - h_min; q = L_q + t N_q, L "
                      "the initial state carried along t (boundary data only): the initial state and "
                      "h >= h_min",
              .satisfies = "ic_h,ic_qx,ic_qy,h_min", .apply = hard_initial_positive, .lift_exact = 7,
              .lift_exact_why = "the solution is the uniform initial state for all t, which the lift "
                                "carries along t from the initial slice"}},
    .ref = PF_REF_ANALYTIC, .exact_fields = exact_fields, .exact = exact,
};
