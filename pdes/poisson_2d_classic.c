/* poisson_2d_classic — PINNacle Poisson2D_Classic(scale=1) (docs/pdes.md section
 * 14): Laplace's equation on a square with four holes. */
#include "geom/geometry.h"
#include "pde_ops.h"
#include "registry.h"

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_xx + u_yy */
    return pf_pde_lap(c, 0, NULL);
}

static pf_node *bc_outer(pf_pde_ctx *c) { return SHIFT(c, pf_pde_d(c, 0, 0, 0), -1); } /* u = 1 */
static pf_node *bc_holes(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); }               /* u = 0 */

/* [-0.5,0.5]^2 (faces x_lo ... y_hi) minus the disks of radius 0.1 at
 * (+-0.3, +-0.3), whose circles form the one part "hole_r01" (holes are
 * named by radius, as in geometry.h). */
static pf_status geometry(const pf_pde *p, pf_geom **out)
{
    static const pf_pdes_hole holes[4] = {{{0.3, 0.3}, 0.1, "hole_r01"}, {{-0.3, 0.3}, 0.1, "hole_r01"},
                                          {{0.3, -0.3}, 0.1, "hole_r01"}, {{-0.3, -0.3}, 0.1, "hole_r01"}};
    return pf_pdes_box_minus_balls(p, 4, holes, out);
}

const pf_pde pf_pde_poisson_2d_classic = {
    .name = "poisson_2d_classic",
    .title = "Laplace equation on a square with four circular holes",
    .statement = "Solve Lap u = 0 on [-0.5,0.5]^2 minus the four disks of radius 0.1 centred at "
                 "(+-0.3, +-0.3), with u = 1 on the outer square and u = 0 on the four circles.",
    .latex = "\\Delta u=0,\\ \\Omega=[-\\tfrac12,\\tfrac12]^2\\setminus\\bigcup B_{0.1}(\\pm0.3,\\pm0.3);\\ "
             "u=1\\ \\text{on the square},\\ u=0\\ \\text{on the circles}",
    .tags = PF_TAG_COMPLEX_GEOMETRY,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "y"}, .outputs = {"u"},
    .time_input = -1,
    .lo = {-0.5, -0.5}, .hi = {0.5, 0.5},
    .orders = {2, 2}, .laplacian_only = true,
    .geometry = geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "bc_outer", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo,y_hi",
             .residual = bc_outer},
            {.name = "bc_holes", .kind = PF_CON_DIRICHLET, .parts = "hole_r01", .residual = bc_holes}},
    .ref = PF_REF_DATA, .ref_file = "poisson1_cg_data.dat",
};
