/* heat_2d_complex_geometry — PINNacle Heat2D_ComplexGeometry (docs/pdes.md
 * section 4): a rectangle with 17 holes, Robin conditions whose data depend
 * on the hole's radius. Normals point out of the domain, so into the holes;
 * this is what PINNacle implements (its "sign needs to be checked" comment
 * notwithstanding). */
#include "geom/geometry.h"
#include "pde_ops.h"
#include "registry.h"

static pf_node *residual(pf_pde_ctx *c, int eq)
{
    (void)eq; /* u_t - u_xx - u_yy */
    return SUB(c, pf_pde_d(c, 0, 2, 1), pf_pde_lap(c, 0, NULL));
}

static pf_node *ic(pf_pde_ctx *c) { return pf_pde_d(c, 0, 0, 0); } /* u(x,y,0) = 0 */

/* du/dn - (g - u), the Robin form du/dn = g - u. */
static pf_node *robin(pf_pde_ctx *c, double g)
{
    return SUB(c, pf_pde_dn(c, 0), SHIFT(c, K(c, pf_pde_d(c, 0, 0, 0), -1), g));
}

static pf_node *robin_r1(pf_pde_ctx *c) { return robin(c, 5); }
static pf_node *robin_r04(pf_pde_ctx *c) { return robin(c, 1); }
static pf_node *robin_rect(pf_pde_ctx *c) { return robin(c, 0.1); }

/* u = t N: the initial condition (zero data, so the lift is 0). */
static pf_node *hard(pf_pde_ctx *c, pf_node *net) { return MUL(c, pf_pde_xj(c, 2), net); }

/* [-8,8] x [-12,12] (faces x_lo ... y_hi) minus 11 disks of radius 1 (part
 * "hole_r1") and 6 of radius 0.4 (part "hole_r04"), times [0, 3]. */
static pf_status geometry(const pf_pde *p, pf_geom **out)
{
    static const pf_pdes_hole holes[17] = {
        {{-4, -3}, 1, "hole_r1"},      {{4, -3}, 1, "hole_r1"},     {{-4, 3}, 1, "hole_r1"},
        {{4, 3}, 1, "hole_r1"},        {{-4, -9}, 1, "hole_r1"},    {{4, -9}, 1, "hole_r1"},
        {{-4, 9}, 1, "hole_r1"},       {{4, 9}, 1, "hole_r1"},      {{0, 0}, 1, "hole_r1"},
        {{0, 6}, 1, "hole_r1"},        {{0, -6}, 1, "hole_r1"},     {{-3.2, -6}, 0.4, "hole_r04"},
        {{-3.2, 6}, 0.4, "hole_r04"},  {{3.2, -6}, 0.4, "hole_r04"}, {{3.2, 6}, 0.4, "hole_r04"},
        {{-3.2, 0}, 0.4, "hole_r04"},  {{3.2, 0}, 0.4, "hole_r04"},
    };
    return pf_pdes_box_minus_balls(p, 17, holes, out);
}

const pf_pde pf_pde_heat_2d_complex_geometry = {
    .name = "heat_2d_complex_geometry",
    .title = "Heat equation on a rectangle with 17 circular holes",
    .statement = "Solve u_t = u_xx + u_yy for t in [0,3] on [-8,8] x [-12,12] minus 11 disks of radius 1 "
                 "at (+-4,+-3), (+-4,+-9), (0,0), (0,+-6) and 6 disks of radius 0.4 at (+-3.2,0), "
                 "(+-3.2,+-6), with u(x,y,0) = 0 and the Robin conditions du/dn = 5 - u on the radius-1 "
                 "circles, 1 - u on the radius-0.4 circles and 0.1 - u on the outer rectangle "
                 "(n the outward normal of the domain, so into the holes).",
    .latex = "u_t-\\Delta u=0,\\ \\Omega=[-8,8]\\times[-12,12]\\setminus"
             "(\\textstyle\\bigcup B_1\\cup\\bigcup B_{0.4});\\ u(x,y,0)=0,\\ "
             "\\partial_nu=5-u,\\ 1-u,\\ 0.1-u\\ \\text{on the }r=1,\\ r=0.4\\text{ and outer boundaries}",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_COMPLEX_GEOMETRY,
    .d_in = 3, .d_out = 1,
    .inputs = {"x", "y", "t"}, .outputs = {"u"},
    .time_input = 2,
    .lo = {-8, -12, 0}, .hi = {8, 12, 3},
    .orders = {2, 2, 1}, .laplacian_only = true,
    .geometry = geometry,
    .neq = 1, .residual = residual,
    .ncon = 4,
    .con = {{.name = "ic", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic},
            {.name = "robin_r1", .kind = PF_CON_ROBIN, .parts = "hole_r1", .order = 1, .residual = robin_r1},
            {.name = "robin_r04", .kind = PF_CON_ROBIN, .parts = "hole_r04", .order = 1,
             .residual = robin_r04},
            {.name = "robin_rect", .kind = PF_CON_ROBIN, .parts = "x_lo,x_hi,y_lo,y_hi", .order = 1,
             .residual = robin_rect}},
    .nhard = 1,
    .hard = {{.name = "initial", .what = "u = t N: the initial condition (zero data: lift 0)", .satisfies = "ic", .apply = hard}},
    /* our FreeFEM solution (refs/heat_2d_complex_geometry.c and .edp, `make
     * refs`): time snapshots of u at the grid rule's 1448 nodes outside the
     * holes by PINNacle's 31 times 0, 0.1, ..., 3 */
    .ref = PF_REF_GENERATED, .ref_file = "generated/heat_2d_complex_geometry.dat",
    .ref_layout = PF_DAT_LAYOUT_SNAPSHOTS,
};
