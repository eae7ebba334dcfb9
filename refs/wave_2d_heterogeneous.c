/*
 * pf-ref-wave_2d_heterogeneous — the reference of wave_2d_heterogeneous
 * (`make refs`): leapfrog on a vertex-centred grid with mirrored zero-flux
 * walls (refs/leapfrog.h), u_tt = c Lap u with the PDE's speed field c in
 * {1, 12} (io/coef_field.h's pf_wave2d_c: the regenerated darcy field of
 * docs/pdes.md R.1, linear at ((x+1)/2, (y+1)/2)) at the nodes, from the pulse
 * of docs/pdes.md 21 at rest (u_t = 0: the Taylor first step), at two
 * resolutions (the fine one doubles the cells and the steps).
 *
 *   pf-ref-wave_2d_heterogeneous --out F.dat --manifest F.json [--n N] [--substeps S]
 *
 * n is the cells per axis (n + 1 nodes), S the steps per interval between
 * evaluation times. Layout: docs/pdes.md gives none (the lost file's node and
 * snapshot counts are unknown), so the grid rule of docs/pdes.md 0.3
 * (pf_sample_grid_pinnacle, n = 20000), written as time snapshots of u, as
 * PINNacle's file was; the solution there is the bilinear interpolant of
 * the node values.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom/geometry.h"
#include "geom/sample.h"
#include "io/coef_field.h"
#include "refs/leapfrog.h"
#include "refs/refs_out.h"
#include "registry.h"
#include "wave_2d_heterogeneous.h"

#define EVAL_N 20000 /* the grid rule's requested points (three inputs) */

/* The evaluation layout: nodes xy[node][2] shared by the K times, and the
 * times ascending. */
typedef struct layout {
    int nodes, K;
    double *xy, *times;
} layout;

/* The grid rule's points come as time levels t1, t1 - T/K, ..., each with
 * the same nodes; the times are (k + 1) T / K, whole numbers of the
 * solver's sample interval T / K from t = 0. */
static pf_status layout_build(const pf_pde *p, layout *L)
{
    memset(L, 0, sizeof *L);
    pf_geom *g;
    pf_point_set ps = {0};
    PF_TRY(p->geometry(p, &g));
    pf_status st = pf_sample_grid_pinnacle(g, EVAL_N, &ps);
    pf_geom_free(g);
    PF_TRY(st);
    while (L->nodes < ps.n && ps.x[3 * L->nodes + 2] == ps.x[2]) L->nodes++;
    L->K = ps.n / L->nodes;
    L->xy = malloc(sizeof(double) * 2 * L->nodes), L->times = malloc(sizeof(double) * L->K);
    if (!L->xy || !L->times) st = pf_fail(PF_ERR_NOMEM, "out of memory for the layout");
    if (st == PF_OK && L->K * L->nodes != ps.n)
        st = pf_fail(PF_ERR_INVALID, "the grid rule's %d points are not %d nodes by whole time levels", ps.n,
                     L->nodes);
    for (int q = 0; st == PF_OK && q < L->nodes; q++) L->xy[2 * q] = ps.x[3 * q], L->xy[2 * q + 1] = ps.x[3 * q + 1];
    double T = p->hi[2] - p->lo[2];
    for (int k = 0; st == PF_OK && k < L->K; k++) {
        L->times[k] = p->lo[2] + (k + 1) * T / L->K;
        double got = ps.x[3 * (size_t)(L->K - 1 - k) * L->nodes + 2];
        if (fabs(got - L->times[k]) > 1e-5) st = pf_fail(PF_ERR_INVALID, "evaluation time %g is not %g", got, L->times[k]);
    }
    pf_point_set_release(&ps);
    return st;
}

typedef struct run {
    pf_wave_grid gr;
    long substeps;
    double dt, wall;
    const layout *L;
    double *u; /* [node][K] at the evaluation points */
} run;

/* Sample k > 0 is the layout's time k - 1 (the first is t = 0). */
static pf_status take_sample(void *user, int k, const double *u)
{
    run *r = user;
    for (int q = 0; k > 0 && q < r->L->nodes; q++)
        r->u[(size_t)q * r->L->K + (k - 1)] = pf_wave_interp(&r->gr, u, r->L->xy[2 * q], r->L->xy[2 * q + 1]);
    return PF_OK;
}

static pf_status solve(const pf_pde *p, const layout *L, run *r)
{
    int n = r->gr.n;
    size_t m = (size_t)n * n;
    double *c = malloc(sizeof(double) * m), *u0 = malloc(sizeof(double) * m), h = r->gr.side / (n - 1);
    r->L = L, r->dt = (L->times[0] - p->lo[2]) / r->substeps;
    r->u = malloc(sizeof(double) * L->nodes * L->K);
    pf_coef_field *darcy = NULL;
    pf_status st = c && u0 && r->u ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for %d nodes per axis", n);
    if (st == PF_OK) st = pf_coef_field_alloc(PF_COEF_DARCY, &darcy);
    for (size_t q = 0; st == PF_OK && q < m; q++) {
        double x = r->gr.lo + (double)(q % n) * h, y = r->gr.lo + (double)(q / n) * h;
        c[q] = pf_wave2d_c(darcy, x, y, NULL, NULL);
        u0[q] = exp(-((x - W2_X0) * (x - W2_X0) + y * y) / (2 * W2_SIGMA * W2_SIGMA));
    }
    double t0 = pf_refs_now();
    if (st == PF_OK) st = pf_wave_solve(&r->gr, c, u0, r->dt, (int)r->substeps, L->K + 1, take_sample, r);
    r->wall = pf_refs_now() - t0;
    pf_coef_field_free(darcy);
    free(c), free(u0);
    return st;
}

static pf_status write_reference(const pf_pde *p, const layout *L, const pf_refs_args *a, const run *coarse,
                                 const run *fine)
{
    static const char *const space[2] = {"x", "y"}, *const names[1] = {"u"};
    pf_refs_text text;
    PF_TRY(pf_refs_snapshots_text((size_t)L->nodes, 2, space, L->xy, L->K, L->times, 1, names, fine->u, &text));
    double conv = pf_refs_rel_l2(coarse->u, fine->u, (size_t)L->nodes * L->K);
    char lay[200];
    snprintf(lay, sizeof lay, "time snapshots (x, y, u@t, ...): the grid rule of docs/pdes.md 0.3 with n = 20000, "
             "%d nodes by %d times t = 5/%d .. 5", L->nodes, L->K, L->K);
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "pde", p->name, "solver",
        "leapfrog, five-point Laplacian on a vertex-centred grid, double; bilinear interpolation to the "
        "evaluation points",
        "equation", "u_tt = c(x,y) (u_xx + u_yy)", "coefficients",
        "c in {1, 12}: pf_wave2d_c (the regenerated darcy_2d_coef_256 of docs/pdes.md R.1, linear) at the nodes",
        "initial_condition", "u = exp(-((x+0.5)^2 + y^2) / (2 0.3^2)), u_t = 0 (Taylor first step)",
        "boundary_condition", "du/dn = 0 on the four sides (mirrored neighbours)", "layout", lay);
    pf_refs_run rc = {coarse->gr.n, coarse->dt, coarse->substeps * L->K, coarse->wall};
    pf_refs_run rf = {fine->gr.n, fine->dt, fine->substeps * L->K, fine->wall};
    pf_status st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

int main(int argc, char **argv)
{
    pf_refs_args a = {.n = 512, .substeps = 48};
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-wave_2d_heterogeneous: %s\n", pf_errmsg());
        return 2;
    }
    const pf_pde *p;
    layout L = {0};
    run coarse = {.gr = {(int)a.n + 1, 0, 0}, .substeps = a.substeps};
    run fine = {.gr = {2 * (int)a.n + 1, 0, 0}, .substeps = 2 * a.substeps};
    st = pf_pdes_lookup("wave_2d_heterogeneous", &p);
    if (st == PF_OK) {
        coarse.gr.lo = fine.gr.lo = p->lo[0];
        coarse.gr.side = fine.gr.side = p->hi[0] - p->lo[0];
        st = layout_build(p, &L);
    }
    if (st == PF_OK) st = solve(p, &L, &coarse);
    if (st == PF_OK) st = solve(p, &L, &fine);
    if (st == PF_OK) st = write_reference(p, &L, &a, &coarse, &fine);
    free(coarse.u), free(fine.u), free(L.xy), free(L.times);
    if (st != PF_OK) fprintf(stderr, "pf-ref-wave_2d_heterogeneous: %s\n", pf_errmsg());
    return st == PF_OK ? 0 : 1;
}
