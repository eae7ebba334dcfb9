/* poisson_boltzmann_2d — PINNacle PoissonBoltzmann2D (docs/pdes.md section 15):
 * a screened Poisson equation (A = 10, mu = (1, 4), k = 8) on a square with
 * four holes of different sizes. */
#include "geom/geometry.h"
#include "pde_ops.h"
#include "registry.h"

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* -Lap u + 64 u - f, f = 10 (17 + x^2 + y^2) sin(pi x) sin(4 pi y) */
    pf_node *x = pf_pde_x(c, 0), *y = pf_pde_x(c, 1);
    pf_node *f = K(c, SHIFT(c, ADD(c, SQ(c, x), SQ(c, y)), 17), 10);
    f = MUL(c, f, MUL(c, SIN(c, K(c, x, PF_PI)), SIN(c, K(c, y, 4 * PF_PI))));
    pf_node *r = ADD(c, K(c, pf_pde_lap(c, 0, NULL), -1), K(c, pf_pde_d(c, 0, 0, 0), 64));
    return SUB(c, r, f);
}

static pf_node *bc_outer(pf_pde_ctx *c) { return SHIFT(c, pf_pde_d(c, 0, 0, 0), -0.2); } /* u = 0.2 */
static pf_node *bc_holes(pf_pde_ctx *c) { return SHIFT(c, pf_pde_d(c, 0, 0, 0), -1); }   /* u = 1 */

/* [-1,1]^2 (faces x_lo ... y_hi) minus four disks; each circle is a part
 * named by its radius (geometry.h): hole_r02, hole_r04, hole_r01, hole_r03. */
static pf_status geometry(const pf_pde *p, pf_geom **out)
{
    static const pf_pdes_hole holes[4] = {
        {{0.5, 0.5}, 0.2, "hole_r02"},
        {{0.4, -0.4}, 0.4, "hole_r04"},
        {{-0.2, -0.7}, 0.1, "hole_r01"},
        {{-0.6, 0.5}, 0.3, "hole_r03"},
    };
    return pf_pdes_box_minus_balls(p, 4, holes, out);
}

const pf_pde pf_pde_poisson_boltzmann_2d = {
    .name = "poisson_boltzmann_2d",
    .title = "Screened Poisson (Poisson-Boltzmann) equation on a square with four holes",
    .statement = "Solve -Lap u + 64 u = 10 (17 + x^2 + y^2) sin(pi x) sin(4 pi y) on [-1,1]^2 minus the "
                 "disks ((0.5,0.5), r 0.2), ((0.4,-0.4), r 0.4), ((-0.2,-0.7), r 0.1) and ((-0.6,0.5), "
                 "r 0.3), with u = 0.2 on the outer square and u = 1 on the four circles.",
    .latex = "-\\Delta u+k^2u=A(\\mu_1^2+x^2+\\mu_2^2+y^2)\\sin\\mu_1\\pi x\\sin\\mu_2\\pi y,\\ "
             "k=8,\\ A=10,\\ \\mu=(1,4);\\ u=0.2\\ \\text{on the square},\\ u=1\\ \\text{on the circles}",
    .tags = PF_TAG_COMPLEX_GEOMETRY,
    .d_in = 2, .d_out = 1,
    .inputs = {"x", "y"}, .outputs = {"u"},
    .time_input = -1,
    .lo = {-1, -1}, .hi = {1, 1},
    .orders = {2, 2}, .laplacian_only = true,
    .geometry = geometry,
    .neq = 1, .residual = residual,
    .ncon = 2,
    .con = {{.name = "bc_outer", .kind = PF_CON_DIRICHLET, .parts = "x_lo,x_hi,y_lo,y_hi",
             .residual = bc_outer},
            {.name = "bc_holes", .kind = PF_CON_DIRICHLET, .parts = "hole_r02,hole_r04,hole_r01,hole_r03",
             .residual = bc_holes}},
    .ref = PF_REF_DATA, .ref_file = "poisson_boltzmann2d.dat",
};
