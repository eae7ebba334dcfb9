/* kuramoto_sivashinsky_1d — PINNacle KuramotoSivashinskyEquation (docs/pdes.md
 * section 10). The solution is 2 pi-periodic in x (hence .period), but, as
 * in PINNacle and the paper, only the initial condition is a constraint:
 * there is no boundary term. */
#include "kuramoto_sivashinsky_1d.h"

#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_t + alpha u u_x + beta u_xx + gamma u_xxxx */
    pf_node *r = K(c, MUL(c, pf_pde_d(c, 0, 0, 0), pf_pde_d(c, 0, 0, 1)), KS_ALPHA);
    r = ADD(c, ADD(c, pf_pde_d(c, 0, 1, 1), r), K(c, pf_pde_d(c, 0, 0, 2), KS_BETA));
    return ADD(c, r, K(c, pf_pde_d(c, 0, 0, 4), KS_GAMMA));
}

/* cos(x) (1 + sin x) from coordinate x (jet or value). */
static pf_node *initial_shape(pf_pde_ctx *c, pf_node *x) { return MUL(c, COS(c, x), SHIFT(c, SIN(c, x), 1)); }

static pf_node *ic(pf_pde_ctx *c) { return pf_pde_minus(c, 0, initial_shape(c, pf_pde_x(c, 0))); }

/* The initial data on the initial slice (geom/lift.h: only t is moved). */
static pf_node *initial_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)k, (void)side, (void)user;
    return initial_shape(face, x[0]);
}

/* u = L + t N, L the initial data carried along t: the initial condition. */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces faces[2] = {PF_LIFT_NONE, PF_LIFT_LO};
    return ADD(c, pf_pde_lift(c, 0, faces, initial_data, NULL), MUL(c, pf_pde_xj(c, 1), net));
}

const pf_pde pf_pde_kuramoto_sivashinsky_1d = {
    .name = "kuramoto_sivashinsky_1d",
    .title = "Kuramoto-Sivashinsky equation: chaotic, fourth order",
    .statement = "Solve u_t + alpha u u_x + beta u_xx + gamma u_xxxx = 0 with alpha = 100/16, "
                 "beta = 100/16^2, gamma = 100/16^4 on x in [0, 2 pi], t in [0,1], with "
                 "u(x,0) = cos(x)(1 + sin x); the solution is 2 pi-periodic in x, but only the "
                 "initial condition is imposed.",
    .latex = "u_t+\\alpha uu_x+\\beta u_{xx}+\\gamma u_{xxxx}=0,\\ \\alpha=\\tfrac{100}{16},\\ "
             "\\beta=\\tfrac{100}{16^2},\\ \\gamma=\\tfrac{100}{16^4};\\ u(x,0)=\\cos x(1+\\sin x)",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_PERIODIC | PF_TAG_NONLINEAR | PF_TAG_HIGH_ORDER | PF_TAG_CHAOTIC,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "t"}, .outputs = {"u"},
    .time_input = 1,
    .lo = {0, 0}, .hi = {2 * PF_PI, 1},
    .period = {2 * PF_PI, 0},
    .orders = {4, 1},
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 1,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic}},
    .nhard = 1,
    .hard = {{.name = "initial",
              .what = "u = L + t N, L the initial data cos(x)(1 + sin x) on the initial slice, carried "
                      "along t (boundary data only): the initial condition",
              .satisfies = "ic", .apply = hard}},
    /* our ETDRK4 solution (refs/kuramoto_sivashinsky_1d.c, `make refs`): 512 nodes x = 2 pi i / 512
     * by 251 times t = k / 250, rows (x, t, u) x-major */
    .ref = PF_REF_GENERATED, .ref_file = "generated/kuramoto_sivashinsky_1d.dat",
    .ref_layout = PF_DAT_LAYOUT_STEADY,
};
