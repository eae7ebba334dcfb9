/* poisson_3d_complex_geometry — PINNacle Poisson3D_ComplexGeometry (docs/pdes.md
 * section 17): a screened Poisson equation in a cube with four spherical
 * holes, whose screening coefficient jumps at z = 0.5. */
#include "geom/geometry.h"
#include "pde_ops.h"
#include "registry.h"

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* -mu Lap u + kappa(z) u - f, mu = 1, kappa = 64 (z < 0.5) or 100 (z >= 0.5) */
    pf_node *x = pf_pde_x(c, 0), *y = pf_pde_x(c, 1), *z = pf_pde_x(c, 2);
    pf_node *kappa = SHIFT(c, K(c, pf_pde_step(c, SHIFT(c, z, -0.5)), 36), 64);
    /* f = 20 exp(sin pi x + sin 10 pi y + sin 5 pi z) (r^2 - 1)/(r^2 + 1)
     *     + 100 sin(pi x) sin(10 pi y) sin(5 pi z) */
    pf_node *sx = SIN(c, K(c, x, PF_PI)), *sy = SIN(c, K(c, y, 10 * PF_PI)), *sz = SIN(c, K(c, z, 5 * PF_PI));
    pf_node *r2 = ADD(c, ADD(c, SQ(c, x), SQ(c, y)), SQ(c, z));
    pf_node *ratio = MUL(c, SHIFT(c, r2, -1), RECIP(c, SHIFT(c, r2, 1)));
    pf_node *f = K(c, MUL(c, EXP(c, ADD(c, ADD(c, sx, sy), sz)), ratio), 20);
    f = ADD(c, f, K(c, MUL(c, MUL(c, sx, sy), sz), 100));
    pf_node *r = ADD(c, K(c, pf_pde_lap(c, 0, NULL), -1), MUL(c, kappa, pf_pde_d(c, 0, 0, 0)));
    return SUB(c, r, f);
}

static pf_node *neumann(pf_pde_ctx *c) { return pf_pde_dn(c, 0); } /* du/dn = 0 */

/* [0,1]^3 (faces x_lo ... z_hi) minus four balls; the spheres are parts named
 * by radius (geometry.h): hole_r02 (two of radius 0.2), hole_r01 (two of 0.1). */
static pf_status geometry(const pf_pde *p, pf_geom **out)
{
    static const pf_pdes_hole holes[4] = {
        {{0.4, 0.3, 0.6}, 0.2, "hole_r02"},
        {{0.6, 0.7, 0.6}, 0.2, "hole_r02"},
        {{0.2, 0.8, 0.7}, 0.1, "hole_r01"},
        {{0.6, 0.2, 0.3}, 0.1, "hole_r01"},
    };
    return pf_pdes_box_minus_balls(p, 4, holes, out);
}

const pf_pde pf_pde_poisson_3d_complex_geometry = {
    .name = "poisson_3d_complex_geometry",
    .title = "Screened Poisson equation in a cube with four spherical holes",
    .statement = "Solve -Lap u + kappa(z) u = f on [0,1]^3 minus the balls ((0.4,0.3,0.6), r 0.2), "
                 "((0.6,0.7,0.6), r 0.2), ((0.2,0.8,0.7), r 0.1) and ((0.6,0.2,0.3), r 0.1), with "
                 "kappa = 64 for z < 0.5 and 100 for z >= 0.5, f = 20 exp(sin(pi x) + sin(10 pi y) + "
                 "sin(5 pi z)) (r^2 - 1)/(r^2 + 1) + 100 sin(pi x) sin(10 pi y) sin(5 pi z), "
                 "r^2 = x^2 + y^2 + z^2, and du/dn = 0 on the whole boundary.",
    .latex = "-\\mu\\Delta u+\\kappa(z)u=f,\\ \\mu=1,\\ "
             "\\kappa=8^2\\ (z<\\tfrac12),\\ 10^2\\ (z\\ge\\tfrac12),\\ "
             "f=20e^{\\sin\\pi x+\\sin10\\pi y+\\sin5\\pi z}\\frac{r^2-1}{r^2+1}+100\\sin\\pi x\\sin10\\pi y"
             "\\sin5\\pi z;\\ \\partial_nu=0\\ \\text{on}\\ \\partial\\Omega",
    .tags = PF_TAG_COMPLEX_GEOMETRY | PF_TAG_VARIABLE_COEFFICIENT,
    .d_in = 3, .d_out = 1,
    .inputs = {"x", "y", "z"}, .outputs = {"u"},
    .time_input = -1,
    .lo = {0, 0, 0}, .hi = {1, 1, 1},
    .orders = {2, 2, 2}, .laplacian_only = true,
    .geometry = geometry,
    .neq = 1, .residual = residual,
    .ncon = 1,
    .con = {{.name = "neumann", .kind = PF_CON_NEUMANN, .order = 1, .residual = neumann}},
    /* our FreeFEM solution (refs/poisson_3d_complex_geometry.c and .edp,
     * `make refs`): u at the grid rule's 20108 points outside the balls */
    .ref = PF_REF_GENERATED, .ref_file = "generated/poisson_3d_complex_geometry.dat",
    .ref_layout = PF_DAT_LAYOUT_STEADY,
};
