/*
 * pf-ref-burgers_2d — the reference of burgers_2d (`make refs`): Fourier
 * pseudo-spectral, 2/3-rule dealiased, ETDRK4 (refs/spectral.h) from the
 * closed-form initial fields of docs/pdes.md R.2 (io/coef_field.h), with the
 * PDE's viscosity and time span, at two resolutions.
 *
 *   pf-ref-burgers_2d --out F.dat --manifest F.json [--n N] [--substeps S]
 *
 * One period cell is solved: the initial fields are sums of sin and cos of
 * 2 pi (i x + j y) with integers i, j, so they have period 1 in x and y; the
 * equation commutes with translations and its solution is unique, so the
 * solution keeps period 1, and its Fourier series on [0,1]^2 is its value
 * on the PDE's [0,4]^2 (16 times fewer unknowns for the same resolution).
 *
 * Layout: docs/pdes.md gives none (the lost file's node and snapshot counts are
 * unknown), so the grid rule of docs/pdes.md 0.3 (pf_sample_grid_pinnacle, n =
 * 20000): 24 x 24 interior nodes by 36 times t = 1/36 .. 1, written as time
 * snapshots (u and v interleaved per snapshot), as PINNacle's file was.
 * The solution is summed from its spectrum at each point (exact
 * trigonometric interpolation), at the points' float coordinates.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burgers_2d.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "io/coef_field.h"
#include "refs/refs_out.h"
#include "refs/spectral.h"
#include "registry.h"

#define CELL 1.0      /* the period of the initial fields */
#define EVAL_N 20000  /* the grid rule's requested points (three inputs) */
#define MAX_AXIS 1024 /* distinct coordinates per axis the layout may hold */

/* The evaluation layout: nodes (x, y) on a tensor grid xs x ys, K times. */
typedef struct layout {
    int nx, ny, nodes, K;
    double xs[MAX_AXIS], ys[MAX_AXIS], *times;
    int *ix, *iy; /* per node, its coordinates' indices in xs, ys */
} layout;

static int axis_index(double *axis, int *n, double v)
{
    for (int i = 0; i < *n; i++)
        if (axis[i] == v) return i;
    if (*n == MAX_AXIS) return -1;
    axis[*n] = v;
    return (*n)++;
}

/* The grid rule's points, split into the spatial nodes of the first time
 * level (all levels share them) and the times, ascending. */
static pf_status layout_build(const pf_pde *p, layout *L)
{
    memset(L, 0, sizeof *L);
    pf_geom *g;
    pf_point_set ps = {0};
    PF_TRY(p->geometry(p, &g));
    pf_status st = pf_sample_grid_pinnacle(g, EVAL_N, &ps);
    pf_geom_free(g);
    if (st != PF_OK) return st;
    double t1 = ps.x[2];
    while (L->nodes < ps.n && ps.x[3 * L->nodes + 2] == t1) L->nodes++;
    L->K = ps.n / L->nodes;
    L->times = malloc(sizeof(double) * L->K);
    L->ix = malloc(sizeof(int) * L->nodes), L->iy = malloc(sizeof(int) * L->nodes);
    if (!L->times || !L->ix || !L->iy) st = pf_fail(PF_ERR_NOMEM, "out of memory for the layout");
    if (st == PF_OK && L->K * L->nodes != ps.n)
        st = pf_fail(PF_ERR_INVALID, "the grid rule's %d points are not %d nodes by whole time levels", ps.n,
                     L->nodes);
    for (int q = 0; st == PF_OK && q < L->nodes; q++) {
        L->ix[q] = axis_index(L->xs, &L->nx, ps.x[3 * q]);
        L->iy[q] = axis_index(L->ys, &L->ny, ps.x[3 * q + 1]);
        if (L->ix[q] < 0 || L->iy[q] < 0) st = pf_fail(PF_ERR_INVALID, "more than %d grid lines", MAX_AXIS);
    }
    /* the levels are t1 - m (t1 - t0) / K: whole steps of dt = (t1 - t0) / K
     * from t0 = 0 hit them, so the file names the times (k + 1) dt the
     * solver reached (the points carry them rounded to pf_real) */
    double dt = (p->hi[2] - p->lo[2]) / L->K;
    for (int k = 0; st == PF_OK && k < L->K; k++) {
        L->times[k] = p->lo[2] + (k + 1) * dt;
        if (fabs(ps.x[3 * (L->K - 1 - k) * L->nodes + 2] - L->times[k]) > 1e-6)
            st = pf_fail(PF_ERR_INVALID, "evaluation time %g is not %g", (double)ps.x[3 * (L->K - 1 - k) * L->nodes + 2],
                         L->times[k]);
    }
    pf_point_set_release(&ps);
    return st;
}

static void layout_free(layout *L) { free(L->times), free(L->ix), free(L->iy); }

typedef struct run {
    long n, substeps;
    double h, wall;
    const layout *L;
    double *uv;   /* [node][K][2] at the evaluation points */
    double *grid; /* scratch: one field on the xs x ys grid */
} run;

/* Sample k > 0 is the layout's time k - 1 (the first is t = 0). */
static pf_status take_sample(void *user, int k, const double complex *u, const double complex *v)
{
    run *r = user;
    if (k == 0) return PF_OK;
    const layout *L = r->L;
    for (int c = 0; c < 2; c++) {
        PF_TRY(pf_spec2_eval(c ? v : u, (int)r->n, CELL, L->xs, L->nx, L->ys, L->ny, r->grid));
        for (int q = 0; q < L->nodes; q++)
            r->uv[((size_t)q * L->K + (k - 1)) * 2 + c] = r->grid[L->iy[q] * L->nx + L->ix[q]];
    }
    return PF_OK;
}

static pf_status solve(const layout *L, run *r)
{
    r->L = L, r->h = L->times[0] / (double)r->substeps;
    size_t nn = (size_t)r->n * r->n;
    double *u0 = malloc(sizeof(double) * nn), *v0 = malloc(sizeof(double) * nn);
    r->uv = malloc(sizeof(double) * L->nodes * L->K * 2);
    r->grid = malloc(sizeof(double) * L->nx * L->ny);
    pf_status st = u0 && v0 && r->uv && r->grid ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for n = %ld", r->n);
    pf_burgers2d_ic ic;
    pf_burgers2d_ic_init(&ic);
    for (long i = 0; st == PF_OK && i < r->n; i++)
        for (long j = 0; j < r->n; j++) {
            double val[2];
            pf_burgers2d_ic_eval(&ic, CELL * j / r->n, CELL * i / r->n, val, NULL, NULL);
            u0[i * r->n + j] = val[0], v0[i * r->n + j] = val[1];
        }
    pf_burgers2_params bp = {.nu = B2_NU, .period = CELL};
    double t0 = pf_refs_now();
    if (st == PF_OK) st = pf_burgers2_solve(&bp, (int)r->n, u0, v0, r->h, (int)r->substeps, L->K + 1, take_sample, r);
    r->wall = pf_refs_now() - t0;
    free(u0), free(v0);
    return st;
}

static pf_status write_reference(const pf_pde *p, const layout *L, const pf_refs_args *a, const run *coarse,
                                 const run *fine)
{
    double *xy = malloc(sizeof(double) * 2 * L->nodes);
    if (!xy) return pf_fail(PF_ERR_NOMEM, "out of memory for %d nodes", L->nodes);
    for (int q = 0; q < L->nodes; q++) xy[2 * q] = L->xs[L->ix[q]], xy[2 * q + 1] = L->ys[L->iy[q]];
    static const char *const space[2] = {"x", "y"}, *const names[2] = {"u", "v"};
    pf_refs_text text;
    pf_status st = pf_refs_snapshots_text((size_t)L->nodes, 2, space, xy, L->K, L->times, 2, names, fine->uv, &text);
    free(xy);
    PF_TRY(st);
    double conv = pf_refs_rel_l2(coarse->uv, fine->uv, (size_t)L->nodes * L->K * 2);
    json_t *m = json_pack("{s:s, s:s, s:s, s:f, s:s, s:s, s:s}", "pde", p->name, "solver",
                          "Fourier pseudo-spectral on one period cell [0,1]^2, 2/3-rule dealiasing, ETDRK4 "
                          "(Kassam & Trefethen 2005, contour-integral coefficients), FFTW double",
                          "equation", "u_t + u u_x + v u_y = nu Lap u, v_t + u v_x + v v_y = nu Lap v", "nu",
                          B2_NU, "initial_condition", "closed form of docs/pdes.md R.2 (pf_burgers2d_ic_eval)",
                          "boundary_condition",
                          "periodic: the initial fields have period 1, so the solution does; solved on [0,1]^2",
                          "layout",
                          "time snapshots (x, y, u@t, v@t, ...): the grid rule of docs/pdes.md 0.3 with n = 20000, "
                          "24 x 24 interior nodes by 36 times t = 1/36 .. 1");
    pf_refs_run rc = {coarse->n, coarse->h, coarse->substeps * L->K, coarse->wall};
    pf_refs_run rf = {fine->n, fine->h, fine->substeps * L->K, fine->wall};
    st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

int main(int argc, char **argv)
{
    pf_refs_args a = {.n = 256, .substeps = 32};
    const pf_pde *p;
    layout L = {0};
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-burgers_2d: %s\n", pf_errmsg());
        return 2;
    }
    run coarse = {.n = a.n, .substeps = a.substeps}, fine = {.n = 2 * a.n, .substeps = 2 * a.substeps};
    st = pf_pdes_lookup("burgers_2d", &p);
    if (st == PF_OK) st = layout_build(p, &L);
    if (st == PF_OK) st = solve(&L, &coarse);
    if (st == PF_OK) st = solve(&L, &fine);
    if (st == PF_OK) st = write_reference(p, &L, &a, &coarse, &fine);
    free(coarse.uv), free(coarse.grid), free(fine.uv), free(fine.grid);
    layout_free(&L);
    if (st != PF_OK) fprintf(stderr, "pf-ref-burgers_2d: %s\n", pf_errmsg());
    return st == PF_OK ? 0 : 1;
}
