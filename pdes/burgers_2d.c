/* burgers_2d — PINNacle Burgers2D, data index 0 (docs/pdes.md section 2): the
 * initial fields u0, v0 are the closed form of section R.2
 * (pf_burgers2d_ic_eval, within ~0.01 of PINNacle's linear interpolation of
 * the 512^2 grid), handed to the constraints as auxiliary fields. Periodic
 * in x and y (value only), as four PF_CON_PERIODIC terms. PINNacle's
 * reference (burgers2d_0.dat) is lost; ours is a pseudo-spectral solution
 * (refs/burgers_2d.c, `make refs`). */
#include "burgers_2d.h"

#include "io/coef_field.h"
#include "pde_ops.h"
#include "registry.h"

/* eq k (0: u, 1: v): (u_k)_t + u (u_k)_x + v (u_k)_y - nu Lap u_k */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    pf_node *u = pf_pde_d(c, 0, 0, 0), *v = pf_pde_d(c, 1, 0, 0);
    pf_node *conv = ADD(c, MUL(c, u, pf_pde_d(c, eq, 0, 1)), MUL(c, v, pf_pde_d(c, eq, 1, 1)));
    return SUB(c, ADD(c, pf_pde_d(c, eq, 2, 1), conv), K(c, pf_pde_lap(c, eq, NULL), B2_NU));
}

static pf_node *ic_u(pf_pde_ctx *c) { return pf_pde_minus(c, 0, pf_pde_aux(c, 0)); }
static pf_node *ic_v(pf_pde_ctx *c) { return pf_pde_minus(c, 1, pf_pde_aux(c, 1)); }
static pf_node *per_u(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 0, 0, 0), pf_pde_pair(c, 0)); }
static pf_node *per_v(pf_pde_ctx *c) { return SUB(c, pf_pde_d(c, 1, 0, 0), pf_pde_pair(c, 1)); }

/* aux 0 = u0(x, y), aux 1 = v0(x, y) (the closed form; its coefficients are
 * drawn again per call, a few tenths of a second for the scale m). */
static pf_status aux(const pf_pde *p, int k, const pf_real *x, int n, pf_real *out)
{
    pf_burgers2d_ic ic;
    pf_burgers2d_ic_init(&ic);
    for (int q = 0; q < n; q++) {
        double val[2];
        pf_burgers2d_ic_eval(&ic, x[q * p->d_in], x[q * p->d_in + 1], val, NULL, NULL);
        out[q] = (pf_real)val[k];
    }
    return PF_OK;
}

const pf_pde pf_pde_burgers_2d = {
    .name = "burgers_2d",
    .title = "Two-dimensional viscous Burgers equation, periodic",
    .statement = "Solve u_t + u u_x + v u_y = nu (u_xx + u_yy), v_t + u v_x + v v_y = nu (v_xx + v_yy) "
                 "with nu = 0.001 on [0,4]^2 x [0,1], periodic in x and y, from smooth random initial "
                 "fields u0, v0 (sums of sines and cosines).",
    .latex = "\\mathbf u_t+(\\mathbf u\\cdot\\nabla)\\mathbf u=\\nu\\Delta\\mathbf u,\\ \\nu=10^{-3};\\ "
             "\\mathbf u(x,y,0)=\\mathbf u_0(x,y),\\ \\text{periodic in}\\ x,y",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_PERIODIC | PF_TAG_NONLINEAR | PF_TAG_COUPLED,
    .d_in = 3, .d_out = 2,
    .inputs = {"x", "y", "t"}, .outputs = {"u", "v"},
    .time_input = 2,
    .lo = {0, 0, 0}, .hi = {4, 4, 1},
    .period = {4, 4, 0},
    .orders = {2, 2, 1}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 2, .residual = residual,
    .ncon = 6,
    .con = {{.name = "ic_u", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic_u},
            {.name = "ic_v", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic_v},
            {.name = "periodic_x_u", .kind = PF_CON_PERIODIC, .parts = "x_lo", .residual = per_u,
             .periodic_input = 0},
            {.name = "periodic_x_v", .kind = PF_CON_PERIODIC, .parts = "x_lo", .residual = per_v,
             .periodic_input = 0},
            {.name = "periodic_y_u", .kind = PF_CON_PERIODIC, .parts = "y_lo", .residual = per_u,
             .periodic_input = 1},
            {.name = "periodic_y_v", .kind = PF_CON_PERIODIC, .parts = "y_lo", .residual = per_v,
             .periodic_input = 1}},
    .naux = 2, .aux_names = {"u0", "v0"}, .aux = aux,
    /* time snapshots at the grid rule's points (docs/pdes.md 0.3, n = 20000) */
    .ref = PF_REF_GENERATED, .ref_file = "generated/burgers_2d.dat",
    .ref_layout = PF_DAT_LAYOUT_SNAPSHOTS,
};
