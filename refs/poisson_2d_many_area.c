/*
 * pf-ref-poisson_2d_many_area — the reference of poisson_2d_many_area
 * (`make refs`): cell-centred finite volumes with harmonic face
 * coefficients and the Robin sides du/dn = -u (refs/fv_poisson.h), the
 * sparse system solved by UMFPACK, at two resolutions (n and 2n cells per
 * axis).
 *
 *   pf-ref-poisson_2d_many_area --out F.dat --manifest F.json [--n N]
 *
 * The equation: the PDE's residual a Lap u + f with a constant on each of
 * the 5 x 5 blocks says nothing at the blocks' interfaces; we solve it in
 * divergence form, div(a grad u) + f = 0, whose weak solution has u and the
 * flux a du/dn continuous across them (the coefficient form COMSOL solves).
 * a and f are the PDE's own aux fields (its block rule over
 * poisson_a_coef.dat and poisson_f_coef.dat) at the cell centres, with n a
 * multiple of 5 so that the blocks' interfaces (at 4.000004 k - 10 - 1e-5,
 * within 1e-5 of 4 k - 10) fall on cell faces, where the scheme is second
 * order.
 *
 * Layout: docs/pdes.md gives the lost file's columns, x y u (steady), but not
 * its nodes, so the grid rule of docs/pdes.md 0.3 (pf_sample_grid_pinnacle,
 * n = 2500 for two inputs): 50 x 50 interior points, x = -10 + 20 k / 51.
 * The solution there is the bilinear interpolant of the cell values.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "geom/geometry.h"
#include "geom/sample.h"
#include "refs/fv_poisson.h"
#include "refs/refs_out.h"
#include "registry.h"

#define EVAL_N 2500 /* the grid rule's requested points (two inputs) */
#define BLOCKS 5    /* blocks per axis: n must be a multiple */

typedef struct run {
    pf_fvp_grid gr;
    double wall;
    double *u; /* at the evaluation points */
} run;

/* The PDE's aux field k (0: a, 1: f) at the n x n cell centres. */
static pf_status cell_field(const pf_pde *p, const pf_fvp_grid *gr, int k, double *out)
{
    size_t m = (size_t)gr->n * gr->n;
    pf_real *x = malloc(sizeof(pf_real) * 2 * m), *v = malloc(sizeof(pf_real) * m);
    pf_status st = x && v ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for %zu cells", m);
    double h = gr->side / gr->n;
    for (size_t q = 0; st == PF_OK && q < m; q++)
        x[2 * q] = (pf_real)(gr->lo + (q % gr->n + 0.5) * h), x[2 * q + 1] = (pf_real)(gr->lo + (q / gr->n + 0.5) * h);
    if (st == PF_OK) st = p->aux(p, k, x, (int)m, v);
    for (size_t q = 0; st == PF_OK && q < m; q++) out[q] = v[q];
    free(x), free(v);
    return st;
}

static pf_status solve(const pf_pde *p, const pf_point_set *ev, run *r)
{
    size_t m = (size_t)r->gr.n * r->gr.n;
    double *a = malloc(sizeof(double) * m), *f = malloc(sizeof(double) * m), *u = malloc(sizeof(double) * m);
    r->u = malloc(sizeof(double) * ev->n);
    pf_status st = a && f && u && r->u ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for n = %d", r->gr.n);
    if (st == PF_OK) st = cell_field(p, &r->gr, 0, a);
    if (st == PF_OK) st = cell_field(p, &r->gr, 1, f);
    double t0 = pf_refs_now();
    if (st == PF_OK) st = pf_fvp_solve(&r->gr, a, f, NULL, u);
    r->wall = pf_refs_now() - t0;
    for (int q = 0; st == PF_OK && q < ev->n; q++) r->u[q] = pf_fvp_interp(&r->gr, u, ev->x[2 * q], ev->x[2 * q + 1]);
    free(a), free(f), free(u);
    return st;
}

static pf_status write_reference(const pf_pde *p, const pf_point_set *ev, const pf_refs_args *a, const run *coarse,
                                 const run *fine)
{
    double *rows = malloc(sizeof(double) * 3 * ev->n);
    if (!rows) return pf_fail(PF_ERR_NOMEM, "out of memory for %d rows", ev->n);
    for (int q = 0; q < ev->n; q++)
        rows[3 * q] = ev->x[2 * q], rows[3 * q + 1] = ev->x[2 * q + 1], rows[3 * q + 2] = fine->u[q];
    pf_refs_text text;
    pf_status st = pf_refs_rows_text("x y u", (size_t)ev->n, 3, rows, &text);
    free(rows);
    PF_TRY(st);
    double conv = pf_refs_rel_l2(coarse->u, fine->u, (size_t)ev->n);
    json_t *m = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:f, s:s}", "pde", p->name, "solver",
        "cell-centred finite volumes, harmonic-mean face coefficients, Robin faces eliminated; sparse LU "
        "(SuiteSparse UMFPACK), double; bilinear interpolation to the evaluation points",
        "equation", "div(a grad u) + f = 0 (a Lap u + f = 0 in each block; u and a du/dn continuous across blocks)",
        "coefficients", "the PDE's aux fields a and f (poisson_a_coef.dat, poisson_f_coef.dat) at the cell centres",
        "boundary_condition", "Robin du/dn = -u on the four sides", "cell_width_fine", fine->gr.side / fine->gr.n,
        "layout", "steady x y u: the grid rule of docs/pdes.md 0.3 with n = 2500, 50 x 50 interior points");
    pf_refs_run rc = {coarse->gr.n, 0, 0, coarse->wall}, rf = {fine->gr.n, 0, 0, fine->wall};
    st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

int main(int argc, char **argv)
{
    /* UMFPACK's dense kernels go through OpenBLAS, whose OpenMP threads
     * made the n = 200/400 pair 25x slower (17 s, not 0.7 s) on two cores
     * shared with other jobs; the fronts of a 2D grid's LU are too small
     * to gain from them */
    omp_set_num_threads(1);
    pf_refs_args a = {.n = 400, .substeps = 1};
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st == PF_OK && a.substeps != 1) st = pf_fail(PF_ERR_USAGE, "the problem is steady: --substeps does not apply");
    if (st == PF_OK && (a.n % BLOCKS || a.n > 4096))
        st = pf_fail(PF_ERR_USAGE, "--n %ld: a multiple of %d (the blocks' interfaces on cell faces), at most 4096",
                     a.n, BLOCKS);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-poisson_2d_many_area: %s\n", pf_errmsg());
        return 2;
    }
    const pf_pde *p;
    pf_geom *g = NULL;
    pf_point_set ev = {0};
    run coarse = {.gr = {(int)a.n, 0, 0}}, fine = {.gr = {2 * (int)a.n, 0, 0}};
    st = pf_pdes_lookup("poisson_2d_many_area", &p);
    if (st == PF_OK) {
        coarse.gr.lo = fine.gr.lo = p->lo[0];
        coarse.gr.side = fine.gr.side = p->hi[0] - p->lo[0];
        st = p->geometry(p, &g);
    }
    if (st == PF_OK) st = pf_sample_grid_pinnacle(g, EVAL_N, &ev);
    if (st == PF_OK) st = solve(p, &ev, &coarse);
    if (st == PF_OK) st = solve(p, &ev, &fine);
    if (st == PF_OK) st = write_reference(p, &ev, &a, &coarse, &fine);
    free(coarse.u), free(fine.u);
    pf_point_set_release(&ev);
    pf_geom_free(g);
    if (st != PF_OK) fprintf(stderr, "pf-ref-poisson_2d_many_area: %s\n", pf_errmsg());
    return st == PF_OK ? 0 : 1;
}
