/* wave_2d_heterogeneous — PINNacle Wave2D_Heterogeneous (docs/pdes.md section
 * 21): the wave speed field c(x, y) in {1, 12} (thresholded GRF, the
 * regenerated darcy_2d_coef_256 of section R.1), piecewise-linear at
 * ((x+1)/2, (y+1)/2), as an auxiliary field. Coded, like PINNacle, as a box
 * in (x, y, t): "Neumann 0 on the t = 0 face" is u_t = 0. PINNacle's
 * reference (wave_darcy.dat) is lost; ours is a leapfrog solution
 * (refs/wave_2d_heterogeneous.c, `make refs`). */
#include "io/coef_field.h"
#include "pde_ops.h"
#include "registry.h"
#include "wave_2d_heterogeneous.h"

/* u_xx + u_yy - u_tt / c */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq;
    return SUB(c, pf_pde_lap(c, 0, NULL), MUL(c, pf_pde_d(c, 0, 2, 2), RECIP(c, pf_pde_aux(c, 0))));
}

/* u(x, y, 0) = exp(-((x + 0.5)^2 + y^2) / (2 0.3^2)) */
static pf_node *ic(pf_pde_ctx *c)
{
    pf_node *r2 = ADD(c, SQ(c, SHIFT(c, pf_pde_x(c, 0), -W2_X0)), SQ(c, pf_pde_x(c, 1)));
    return pf_pde_minus(c, 0, EXP(c, K(c, r2, -1 / (2 * W2_SIGMA * W2_SIGMA))));
}
static pf_node *ic_rate(pf_pde_ctx *c) { return pf_pde_d(c, 0, 2, 1); }
static pf_node *walls(pf_pde_ctx *c) { return pf_pde_dn(c, 0); }

/* c at the points: the field is regenerated (a few tens of ms) per call. */
static pf_status aux(const pf_pde *p, int k, const pf_real *x, int n, pf_real *out)
{
    (void)k;
    pf_coef_field *darcy;
    PF_TRY(pf_coef_field_alloc(PF_COEF_DARCY, &darcy));
    pf_wave2d_c_batch(darcy, (size_t)n, x, (size_t)p->d_in, out);
    pf_coef_field_free(darcy);
    return PF_OK;
}

const pf_pde pf_pde_wave_2d_heterogeneous = {
    .name = "wave_2d_heterogeneous",
    .title = "Wave equation in a heterogeneous medium",
    .statement = "Solve u_xx + u_yy = u_tt / c(x,y) on [-1,1]^2 x [0,5], c in {1, 12} a thresholded "
                 "Gaussian random field (linear interpolation of a 256 x 256 grid at ((x+1)/2, (y+1)/2)), "
                 "with u(x,y,0) = exp(-((x+0.5)^2 + y^2)/(2 0.3^2)), u_t(x,y,0) = 0 and du/dn = 0 on "
                 "the walls.",
    .latex = "u_{xx}+u_{yy}=\\frac{u_{tt}}{c(x,y)};\\ u(x,y,0)=e^{-\\frac{(x+0.5)^2+y^2}{2\\cdot0.3^2}},\\ "
             "u_t(x,y,0)=0,\\ \\partial_n u|_{\\partial\\Omega}=0",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_VARIABLE_COEFFICIENT | PF_TAG_MULTISCALE,
    .d_in = 3, .d_out = 1,
    .inputs = {"x", "y", "t"}, .outputs = {"u"},
    .time_input = 2,
    .lo = {-1, -1, 0}, .hi = {1, 1, 5},
    .orders = {2, 2, 2}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 3,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic},
            {.name = "ic_rate", .kind = PF_CON_NEUMANN, .parts = "initial", .order = 1, .residual = ic_rate},
            {.name = "walls", .kind = PF_CON_NEUMANN, .parts = "x_lo,x_hi,y_lo,y_hi", .order = 1,
             .residual = walls}},
    .naux = 1, .aux_names = {"c"}, .aux = aux,
    /* our leapfrog solution (refs/wave_2d_heterogeneous.c, `make refs`):
     * time snapshots of u on the grid rule's 12 x 12 nodes by 158 times */
    .ref = PF_REF_GENERATED, .ref_file = "generated/wave_2d_heterogeneous.dat",
    .ref_layout = PF_DAT_LAYOUT_SNAPSHOTS,
};
