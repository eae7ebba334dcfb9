/* poisson_2d_many_area — PINNacle Poisson2D_ManyArea (docs/pdes.md section 16):
 * a 5 x 5 checkerboard of constant coefficients a and block-local sources f
 * from poisson_a_coef.dat and poisson_f_coef.dat, both auxiliary fields.
 * PINNacle's reference (poisson_manyarea.dat) is lost; ours is a
 * finite-volume solution (refs/poisson_2d_many_area.c, `make refs`). */
#include <math.h>

#include "pde_ops.h"
#include "registry.h"

#define MA_H ((20 + 2e-5) / 5) /* block size 4.000004 */
#define MA_OFF (10 + 1e-5)     /* x + 10 + 1e-5: the shift before the block index */

/* a Lap u + f */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq;
    return ADD(c, MUL(c, pf_pde_aux(c, 0), pf_pde_lap(c, 0, NULL)), pf_pde_aux(c, 1));
}

/* Robin du/dn = -u on all four sides */
static pf_node *robin(pf_pde_ctx *c) { return ADD(c, pf_pde_dn(c, 0), pf_pde_d(c, 0, 0, 0)); }

/* Block index ix = floor((x + 10 + 1e-5) / h) (clamped to 0..4) and local
 * coordinate xi = x + 10 + 1e-5 - ix h. */
static int block(double x, double *xi)
{
    int i = (int)floor((x + MA_OFF) / MA_H);
    i = i < 0 ? 0 : i > 4 ? 4 : i;
    *xi = x + MA_OFF - i * MA_H;
    return i;
}

/* aux 0: a = A[ix][iy] (rows of poisson_a_coef.dat are x-blocks);
 * aux 1: f = C[ix][iy][0][0] + C[ix][iy][1][1] sin(pi xi / h) sin(pi eta / h),
 * C the 100 values of poisson_f_coef.dat as 5 x 5 x 2 x 2 in C order. */
static pf_status aux(const pf_pde *p, int k, const pf_real *x, int n, pf_real *out)
{
    pf_dat *d;
    if (k == 0) PF_TRY(pf_dat_load("poisson_a_coef.dat", 0, PF_DAT_REST, PF_DAT_LAYOUT_STEADY, &d));
    else PF_TRY(pf_dat_load("poisson_f_coef.dat", 0, PF_DAT_REST, PF_DAT_LAYOUT_STEADY, &d));
    size_t want = k == 0 ? 25 : 100;
    if (d->n * (size_t)d->d_out != want) {
        size_t got = d->n * (size_t)d->d_out;
        pf_dat_free(d);
        return pf_fail(PF_ERR_INVALID, "%s: %s holds %zu values, not %zu", p->name,
                       k == 0 ? "poisson_a_coef.dat" : "poisson_f_coef.dat", got, want);
    }
    const pf_real *v = d->outputs;
    for (int q = 0; q < n; q++) {
        double xi, eta;
        int ix = block(x[q * p->d_in], &xi), iy = block(x[q * p->d_in + 1], &eta), b = 5 * ix + iy;
        out[q] = k == 0 ? v[b]
                        : (pf_real)(v[4 * b] + v[4 * b + 3] * sin(PF_PI * xi / MA_H) * sin(PF_PI * eta / MA_H));
    }
    pf_dat_free(d);
    return PF_OK;
}

const pf_pde pf_pde_poisson_2d_many_area = {
    .name = "poisson_2d_many_area",
    .title = "Poisson equation with a 5 x 5 checkerboard of coefficients",
    .statement = "Solve a(x,y) (u_xx + u_yy) + f(x,y) = 0 on [-10,10]^2, where a is constant on each "
                 "of 5 x 5 blocks and f = c0 + c1 sin(pi xi/h) sin(pi eta/h) in block-local coordinates "
                 "(h = 4.000004), with the Robin condition du/dn = -u on the boundary.",
    .latex = "a(x,y)\\Delta u+f(x,y)=0,\\ f=c_{00}+c_{11}\\sin\\frac{\\pi\\xi}{h}\\sin\\frac{\\pi\\eta}{h};\\ "
             "\\partial_n u=-u\\ \\text{on}\\ \\partial\\Omega",
    .tags = PF_TAG_VARIABLE_COEFFICIENT | PF_TAG_MULTISCALE,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "y"}, .outputs = {"u"},
    .time_input = -1,
    .lo = {-10, -10}, .hi = {10, 10},
    .orders = {2, 2}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 1, .residual = residual,
    .ncon = 1,
    .con = {{.name = "robin", .kind = PF_CON_ROBIN, .order = 1, .residual = robin}},
    .naux = 2, .aux_names = {"a", "f"}, .aux = aux,
    /* our finite-volume solution (refs/poisson_2d_many_area.c, `make refs`):
     * rows (x, y, u) on the grid rule's 50 x 50 interior points */
    .ref = PF_REF_GENERATED, .ref_file = "generated/poisson_2d_many_area.dat",
    .ref_layout = PF_DAT_LAYOUT_STEADY,
    .data_files = "poisson_a_coef.dat,poisson_f_coef.dat",
};
