/* gray_scott_2d — PINNacle GrayScottEquation (docs/pdes.md section 3). As in the
 * benchmark, there is no spatial boundary term. PINNacle's reference
 * (grayscott.dat, COMSOL) is lost; ours is a cosine-spectral solution with
 * zero-flux walls, our assumption (refs/gray_scott_2d.c, `make refs`). */
#include "gray_scott_2d.h"

#include "geom/lift.h"
#include "pde_ops.h"
#include "registry.h"

/* u_t - (eps1 Lap u + b (1 - u) - u v^2) (eq 0),
 * v_t - (eps2 Lap v - d v + u v^2) (eq 1). */
static pf_node *residual(pf_pde_ctx *c, int eq)
{
    pf_node *u = pf_pde_d(c, 0, 0, 0), *v = pf_pde_d(c, 1, 0, 0);
    pf_node *uv2 = MUL(c, u, SQ(c, v));
    pf_node *rhs;
    if (eq == 0)
        rhs = SUB(c, ADD(c, K(c, pf_pde_lap(c, 0, NULL), GS_EPS1), K(c, SHIFT(c, K(c, u, -1), 1), GS_B)),
                  uv2);
    else
        rhs = ADD(c, SUB(c, K(c, pf_pde_lap(c, 1, NULL), GS_EPS2), K(c, v, GS_D)), uv2);
    return SUB(c, pf_pde_d(c, eq, 2, 1), rhs);
}

/* exp(-80 ((x - x0)^2 + (y - y0)^2)) from coordinates x, y (jets or values). */
static pf_node *bump(pf_pde_ctx *c, pf_node *x, pf_node *y, double x0, double y0)
{
    pf_node *r2 = ADD(c, SQ(c, SHIFT(c, x, -x0)), SQ(c, SHIFT(c, y, -y0)));
    return EXP(c, K(c, r2, -80));
}

/* u0 = 1 - bump at (-0.05, -0.02), v0 = bump at (0.05, 0.02). */
static pf_node *u0(pf_pde_ctx *c, pf_node *x, pf_node *y)
{
    return SHIFT(c, K(c, bump(c, x, y, -0.05, -0.02), -1), 1);
}
static pf_node *v0(pf_pde_ctx *c, pf_node *x, pf_node *y) { return bump(c, x, y, 0.05, 0.02); }

static pf_node *ic_u(pf_pde_ctx *c) { return pf_pde_minus(c, 0, u0(c, pf_pde_x(c, 0), pf_pde_x(c, 1))); }
static pf_node *ic_v(pf_pde_ctx *c) { return pf_pde_minus(c, 1, v0(c, pf_pde_x(c, 0), pf_pde_x(c, 1))); }

/* The initial data on the initial slice (geom/lift.h: only t is moved). */
static pf_node *initial_data(pf_pde_ctx *face, int k, pf_node *const *x, const pf_lift_side *side, void *user)
{
    (void)side, (void)user;
    return k == 0 ? u0(face, x[0], x[1]) : v0(face, x[0], x[1]);
}

/* (u, v) = L + t N, L the initial data carried along t: both initial
 * conditions. */
static pf_node *hard(pf_pde_ctx *c, pf_node *net)
{
    static const pf_lift_faces faces[3] = {PF_LIFT_NONE, PF_LIFT_NONE, PF_LIFT_LO};
    pf_node *t = pf_pde_xj(c, 2), *f[2];
    for (int k = 0; k < 2; k++)
        f[k] = ADD(c, pf_pde_lift(c, k, faces, initial_data, NULL), MUL(c, t, CH(c, net, k)));
    return pf_concat(c->g, 2, f);
}

const pf_pde pf_pde_gray_scott_2d = {
    .name = "gray_scott_2d",
    .title = "Gray-Scott reaction-diffusion system",
    .statement = "Solve u_t = eps1 Lap u + b(1 - u) - u v^2, v_t = eps2 Lap v - d v + u v^2 with "
                 "b = 0.04, d = 0.1, eps1 = 1e-5, eps2 = 5e-6 on [-1,1]^2 x [0,200], with "
                 "u(x,y,0) = 1 - exp(-80((x+0.05)^2 + (y+0.02)^2)), v(x,y,0) = "
                 "exp(-80((x-0.05)^2 + (y-0.02)^2)) and no boundary condition.",
    .latex = "u_t=\\varepsilon_1\\Delta u+b(1-u)-uv^2,\\ v_t=\\varepsilon_2\\Delta v-dv+uv^2,\\ "
             "b=0.04,\\ d=0.1,\\ \\varepsilon_1=10^{-5},\\ \\varepsilon_2=5\\cdot10^{-6};\\ "
             "u_0=1-e^{-80((x+0.05)^2+(y+0.02)^2)},\\ v_0=e^{-80((x-0.05)^2+(y-0.02)^2)}",
    .tags = PF_TAG_TIME_DEPENDENT | PF_TAG_NONLINEAR | PF_TAG_COUPLED | PF_TAG_LONG_TIME | PF_TAG_CHAOTIC,
    .d_in = 3, .d_out = 2,
    .inputs = {"x", "y", "t"}, .outputs = {"u", "v"},
    .time_input = 2,
    .lo = {-1, -1, 0}, .hi = {1, 1, 200},
    .orders = {2, 2, 1}, .laplacian_only = true,
    .geometry = pf_pdes_box_geometry,
    .neq = 2, .residual = residual,
    .ncon = 2,
    .con = {{.name = "ic_u", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic_u},
            {.name = "ic_v", .kind = PF_CON_INITIAL, .parts = "initial", .residual = ic_v}},
    .nhard = 1,
    .hard = {{.name = "initial",
              .what = "(u, v) = L + t N, L the initial data (u0, v0) on the initial slice, carried "
                      "along t (boundary data only): both initial conditions",
              .satisfies = "ic_u,ic_v", .apply = hard}},
    /* rows (x, y, t, u, v): 21 times t = 0, 10, .., 200 by 100 x 100 nodes
     * on linspace(-1, 1, 100), t slowest, x fastest (docs/pdes.md section 3) */
    .ref = PF_REF_GENERATED, .ref_file = "generated/gray_scott_2d.dat",
    .ref_layout = PF_DAT_LAYOUT_STEADY,
};
