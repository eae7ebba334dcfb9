/* heat_2d_varying_coefficient — PINNacle Heat2D_VaryingCoef (docs/pdes.md
 * section 7): kappa(x, y) = exp(GRF) from the regenerated heat_2d_coef_256
 * field (section R.1), looked up at the nearest node, as an auxiliary field. */
#include "io/coef_field.h"
#include "pde_ops.h"
#include "registry.h"

/* u_t - kappa Lap u - 200 sin(pi x) sin(5 pi y) sin(pi t) (non-divergence form) */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq;
    pf_node *src = MUL(c, MUL(c, SIN(c, K(c, pf_pde_x(c, 0), PF_PI)), SIN(c, K(c, pf_pde_x(c, 1), 5 * PF_PI))),
                       SIN(c, K(c, pf_pde_x(c, 2), PF_PI)));
    pf_node *r = SUB(c, pf_pde_d(c, 0, 2, 1), MUL(c, pf_pde_aux(c, 0), pf_pde_lap(c, 0, NULL)));
    return SUB(c, r, K(c, src, 200));
}

static pf_node *zero(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }

/* kappa at the points: the field is regenerated (a few tens of ms) per call. */
static pf_status aux(const pf_pde *p, int k, const pf_real *x, int n, pf_real *out)
{
    (void)k;
    pf_coef_field *heat;
    PF_TRY(pf_coef_field_alloc(PF_COEF_HEAT, &heat));
    pf_heat2d_kappa_batch(heat, (size_t)n, x, (size_t)p->d_in, out);
    pf_coef_field_free(heat);
    return PF_OK;
}

/* u = t x(1-x) y(1-y) N: zero initially and on the walls (zero data, so
 * the lift is 0). */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    return MUL(c, MUL(c, pf_pde_xj(c, 2), pf_pde_bubble(c)), net);
}

const pf_pde pf_pde_heat_2d_varying_coefficient = {
    .name = "heat_2d_varying_coefficient",
    .title = "Heat equation with a rough random conductivity",
    .statement = "Solve u_t = kappa(x,y) (u_xx + u_yy) + 200 sin(pi x) sin(5 pi y) sin(pi t) on "
                 "[0,1]^2 x [0,5], kappa = exp(GRF) given on a 256 x 256 grid (nearest node), with "
                 "u(x,y,0) = 0 and u = 0 on the boundary.",
    .latex = "u_t=\\kappa(x,y)\\Delta u+200\\sin\\pi x\\sin5\\pi y\\sin\\pi t;\\ u(x,y,0)=0,\\ "
             "u|_{\\partial\\Omega}=0",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_VARIABLE_COEFFICIENT | PF_TAG_MULTISCALE,
    .d_in = 3, .d_out = 1,
    .inputs = {"x", "y", "t"}, .outputs = {"u"},
    .time_input = 2,
    .lo = {0, 0, 0}, .hi = {1, 1, 5},
    .orders = {2, 2, 1}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = zero},
            {.name = "bc", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo,y_hi", .residual = zero}},
    .nhard = 1,
    .hard = {{.name = "initial_and_walls",
              .what = "u = t x(1-x) y(1-y) N: zero initially and on the walls (zero data: lift 0)",
              .satisfies = "ic,bc", .apply = hard}},
    .naux = 1, .aux_names = {"kappa"}, .aux = aux,
    .ref = PF_REF_DATA, .ref_file = "heat_darcy.dat", .ref_layout = PF_DAT_LAYOUT_SNAPSHOTS,
};
