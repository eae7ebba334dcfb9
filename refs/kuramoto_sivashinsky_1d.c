/*
 * pf-ref-kuramoto_sivashinsky_1d — the reference of kuramoto_sivashinsky_1d
 * (`make refs`): ETDRK4 Fourier pseudo-spectral (refs/spectral.h) on the
 * PDE's equation, period, initial data and time span, at two resolutions.
 *
 *   pf-ref-kuramoto_sivashinsky_1d --out F.dat --manifest F.json [--n N] [--substeps S]
 *
 * Layout (docs/pdes.md section 10: rows (x, t, u), x-major, 251 times): the 512
 * nodes x_i = 2 pi i / 512 by t_k = k / 250. docs/pdes.md does not give the
 * node count; 512 periodic nodes is what the lost file's size implies
 * (9,831,145 B = 512 x 251 rows of numpy's "%.18e" with CRLF, 76.5 B a
 * row). The coarse run has n grid points and S steps per 1/250; the fine
 * run, which is written, 2n and 2S; their relative L2 difference at the
 * 128,512 rows is the self-convergence estimate.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kuramoto_sivashinsky_1d.h"
#include "refs/refs_out.h"
#include "refs/spectral.h"
#include "registry.h"

#define NX 512 /* evaluation nodes */
#define NT 251 /* evaluation times */

typedef struct run {
    long n, substeps;
    double h, wall;
    double *u; /* [NX][NT] at the evaluation points */
} run;

/* Solves at n points, `substeps` steps per sample interval; u at the
 * evaluation points into r->u. */
static pf_status solve(const pf_pde *p, run *r)
{
    if (r->n % NX)
        return pf_fail(PF_ERR_USAGE, "--n %ld: the grid must be a multiple of the %d evaluation nodes", r->n, NX);
    double span = p->hi[1] - p->lo[1], period = p->period[0];
    r->h = span / (NT - 1) / (double)r->substeps;
    pf_ks_params kp = {.alpha = KS_ALPHA, .beta = KS_BETA, .gamma = KS_GAMMA, .period = period};
    double *u0 = malloc(sizeof(double) * r->n), *out = malloc(sizeof(double) * r->n * NT);
    r->u = malloc(sizeof(double) * NX * NT);
    pf_status st = u0 && out && r->u ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for n = %ld", r->n);
    if (st == PF_OK) {
        for (long j = 0; j < r->n; j++) u0[j] = ks_initial(p->lo[0] + period * (double)j / (double)r->n);
        double t0 = pf_refs_now();
        st = pf_ks_solve(&kp, (int)r->n, u0, r->h, (int)r->substeps, NT, out);
        r->wall = pf_refs_now() - t0;
    }
    for (int i = 0; st == PF_OK && i < NX; i++)
        for (int k = 0; k < NT; k++) r->u[i * NT + k] = out[(size_t)k * r->n + (size_t)i * (r->n / NX)];
    free(u0), free(out);
    return st;
}

static pf_status write_reference(const pf_pde *p, const pf_refs_args *a, const run *coarse, const run *fine)
{
    double *rows = malloc(sizeof(double) * 3 * NX * NT);
    if (!rows) return pf_fail(PF_ERR_NOMEM, "out of memory for %d rows", NX * NT);
    for (int i = 0; i < NX; i++)
        for (int k = 0; k < NT; k++) {
            double *r = rows + 3 * (i * NT + k);
            r[0] = p->lo[0] + p->period[0] * i / NX, r[1] = p->lo[1] + (p->hi[1] - p->lo[1]) * k / (NT - 1);
            r[2] = fine->u[i * NT + k];
        }
    pf_refs_text text;
    pf_status st = pf_refs_rows_text("x t u (kuramoto_sivashinsky_1d, pf-ref-kuramoto_sivashinsky_1d)",
                                     (size_t)NX * NT, 3, rows, &text);
    free(rows);
    PF_TRY(st);
    double conv = pf_refs_rel_l2(coarse->u, fine->u, (size_t)NX * NT);
    json_t *m = json_pack("{s:s, s:s, s:s, s:{s:f, s:f, s:f}, s:s, s:s}", "pde", p->name, "solver",
                          "Fourier pseudo-spectral, 2/3-rule dealiasing, ETDRK4 (Kassam & Trefethen 2005, "
                          "contour-integral coefficients), FFTW double",
                          "equation", "u_t + alpha u u_x + beta u_xx + gamma u_xxxx = 0", "coefficients", "alpha",
                          KS_ALPHA, "beta", KS_BETA, "gamma", KS_GAMMA, "boundary_condition",
                          "periodic in x, period 2 pi (the PDE's .period)", "layout",
                          "steady rows (x, t, u), x-major: x_i = 2 pi i / 512, i < 512, by t_k = k / 250, "
                          "k <= 250");
    pf_refs_run rc = {coarse->n, coarse->h, coarse->substeps * (NT - 1), coarse->wall};
    pf_refs_run rf = {fine->n, fine->h, fine->substeps * (NT - 1), fine->wall};
    st = pf_refs_finish(p->name, a, m, &text, &rc, &rf, conv);
    json_decref(m);
    return st;
}

int main(int argc, char **argv)
{
    pf_refs_args a = {.n = 512, .substeps = 32};
    const pf_pde *p;
    pf_status st = pf_refs_parse_args(argc, argv, &a);
    if (st != PF_OK) {
        fprintf(stderr, "pf-ref-kuramoto_sivashinsky_1d: %s\n", pf_errmsg());
        return 2;
    }
    run coarse = {.n = a.n, .substeps = a.substeps}, fine = {.n = 2 * a.n, .substeps = 2 * a.substeps};
    st = pf_pdes_lookup("kuramoto_sivashinsky_1d", &p);
    if (st == PF_OK) st = solve(p, &coarse);
    if (st == PF_OK) st = solve(p, &fine);
    if (st == PF_OK) st = write_reference(p, &a, &coarse, &fine);
    free(coarse.u), free(fine.u);
    if (st != PF_OK) fprintf(stderr, "pf-ref-kuramoto_sivashinsky_1d: %s\n", pf_errmsg());
    return st == PF_OK ? 0 : 1;
}
