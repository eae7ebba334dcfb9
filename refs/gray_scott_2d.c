/*
 * pf-ref-gray_scott_2d — the reference of gray_scott_2d (`make refs`):
 * cosine-spectral with zero-flux walls, ETDRK4 (refs/cosine.h), on the
 * PDE's coefficients, square, initial data and time span, at two
 * resolutions.
 *
 *   pf-ref-gray_scott_2d --out F.dat --manifest F.json [--n N] [--substeps S]
 *
 * The boundary condition is our assumption: the PDE has no boundary term
 * and the lost COMSOL file's condition is unknown; we take zero flux, the
 * default of COMSOL's PDE and transport interfaces (the manifest says it
 * is assumed). With eps ~ 1e-5 the pattern stays near the centre: in our
 * solution at t = 200, v > 1e-3 only within |x|, |y| < 0.3, and |1 - u| <
 * 1e-8 wherever |x| or |y| > 0.8, so the walls see the uniform state
 * u = 1, v = 0 and any other wall condition would change little.
 *
 * Layout (docs/pdes.md section 3): rows (x, y, t, u, v), 21 times t = 0, 10,
 * .., 200 by the 100 x 100 nodes of linspace(-1, 1, 100), t slowest, then
 * y, x fastest: 210,000 rows. The coarse run has n x n cells and S steps
 * per 10 time units, the fine (written) one 2n and 2S.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gray_scott_2d.h"
#include "refs/cosine.h"
#include "refs/refs_out.h"
#include "registry.h"

#define NE 100 /* evaluation nodes per axis */
#define NT 21  /* evaluation times */

typedef struct run {
    long n, substeps;
    double h, wall, lo, hi;
    double xs[NE];
    double *uv;   /* [NT][NE][NE][2] */
    double *grid; /* scratch: one field on the evaluation grid */
} run;

static pf_status take_sample(void *user, int k, const double *u, const double *v)
{
    run *r = user;
    for (int c = 0; c < 2; c++) {
        PF_TRY(pf_cos2_eval(c ? v : u, (int)r->n, r->lo, r->hi, r->xs, NE, r->xs, NE, r->grid));
        for (int q = 0; q < NE * NE; q++) r->uv[((size_t)k * NE * NE + q) * 2 + c] = r->grid[q];
    }
    return PF_OK;
}

static pf_status solve(const pf_pde *p, run *r)
{
    r->lo = p->lo[0], r->hi = p->hi[0];
    r->h = (p->hi[2] - p->lo[2]) / (NT - 1) / (double)r->substeps;
    for (int i = 0; i < NE; i++) r->xs[i] = r->lo + (r->hi - r->lo) * i / (NE - 1);
    size_t nn = (size_t)r->n * r->n;
    double *u0 = malloc(sizeof(double) * nn), *v0 = malloc(sizeof(double) * nn);
    r->uv = malloc(sizeof(double) * NT * NE * NE * 2);
    r->grid = malloc(sizeof(double) * NE * NE);
    pf_status st = u0 && v0 && r->uv && r->grid ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for n = %ld", r->n);
    double dx = (r->hi - r->lo) / (double)r->n;
    for (long i = 0; st == PF_OK && i < r->n; i++)
        for (long j = 0; j < r->n; j++) {
            double x = r->lo + (j + 0.5) * dx, y = r->lo + (i + 0.5) * dx;
            u0[i * r->n + j] = gs_initial_u(x, y), v0[i * r->n + j] = gs_initial_v(x, y);
        }
    pf_gs_params gp = {.b = GS_B, .d = GS_D, .eps1 = GS_EPS1, .eps2 = GS_EPS2, .lo = r->lo, .hi = r->hi};
    double t0 = pf_refs_now();
    if (st == PF_OK) st = pf_gs_solve(&gp, (int)r->n, u0, v0, r->h, (int)r->substeps, NT, take_sample, r);
    r->wall = pf_refs_now() - t0;
    free(u0), free(v0);
    return st;
}

static pf_status write_reference(const pf_pde *p, const pf_refs_args *a, const run *coarse, const run *fine)
{
    size_t rows_n = (size_t)NT * NE * NE;
    double *rows = malloc(sizeof(double) * 5 * rows_n);
    if (!rows) return pf_fail(PF_ERR_NOMEM, "out of memory for %zu rows", rows_n);
    for (int k = 0; k < NT; k++)
        for (int iy = 0; iy < NE; iy++)
            for (int ix = 0; ix < NE; ix++) {
                size_t q = ((size_t)k * NE + iy) * NE + ix;
                double *r = rows + 5 * q;
                r[0] = fine->xs[ix], r[1] = fine->xs[iy], r[2] = p->lo[2] + (p->hi[2] - p->lo[2]) * k / (NT - 1);
                r[3] = fine->uv[2 * q], r[4] = fine->uv[2 * q + 1];
            }
    pf_refs_text text;
    pf_status st = pf_refs_rows_text("x y t u v (gray_scott_2d, pf-ref-gray_scott_2d)", rows_n, 5, rows, &text);
    free(rows);
    PF_TRY(st);
    double conv = pf_refs_rel_l2(coarse->uv, fine->uv, rows_n * 2);
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:{s:f, s:f, s:f, s:f}, s:s, s:s}", "pde", p->name, "solver",
        "cosine spectral (FFTW REDFT10/REDFT01, cell-centred grid), ETDRK4 (Kassam & Trefethen 2005, "
        "contour-integral coefficients), the cubic term not dealiased, FFTW double",
        "equation", "u_t = eps1 Lap u + b (1 - u) - u v^2, v_t = eps2 Lap v - d v + u v^2", "coefficients", "b",
        GS_B, "d", GS_D, "eps1", GS_EPS1, "eps2", GS_EPS2, "boundary_condition",
        "zero flux (homogeneous Neumann) on the four walls: OUR ASSUMPTION. The PDE imposes no boundary "
        "term and the lost COMSOL file's condition is unknown",
        "layout", "steady rows (x, y, t, u, v): t = 0, 10, .., 200 slowest, then y, x fastest, on "
                  "linspace(-1, 1, 100)");
    pf_refs_run rc = {coarse->n, coarse->h, coarse->substeps * (NT - 1), coarse->wall};
    pf_refs_run rf = {fine->n, fine->h, fine->substeps * (NT - 1), fine->wall};
    st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

int main(int argc, char **argv)
{
    pf_refs_args a = {.n = 256, .substeps = 10};
    const pf_pde *p;
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-gray_scott_2d: %s\n", pf_errmsg());
        return 2;
    }
    run coarse = {.n = a.n, .substeps = a.substeps}, fine = {.n = 2 * a.n, .substeps = 2 * a.substeps};
    st = pf_pdes_lookup("gray_scott_2d", &p);
    if (st == PF_OK) st = solve(p, &coarse);
    if (st == PF_OK) st = solve(p, &fine);
    if (st == PF_OK) st = write_reference(p, &a, &coarse, &fine);
    free(coarse.uv), free(coarse.grid), free(fine.uv), free(fine.grid);
    if (st != PF_OK) fprintf(stderr, "pf-ref-gray_scott_2d: %s\n", pf_errmsg());
    return st == PF_OK ? 0 : 1;
}
