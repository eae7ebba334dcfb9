/* fv_poisson.c — see fv_poisson.h. */
#include "refs/fv_poisson.h"

#include <math.h>
#include <stdlib.h>
#include <umfpack.h>

/* The triplets of the matrix (at most five per row) and the right side. */
typedef struct fv_system {
    int nz, *ti, *tj;
    double *tx, *rhs;
} fv_system;

static void put(fv_system *s, int i, int j, double v) { s->ti[s->nz] = i, s->tj[s->nz] = j, s->tx[s->nz++] = v; }

/* Cell (ix, iy)'s row: for each neighbour the face flux a_f (u_N - u_P),
 * a_f the harmonic mean; for each wall face, the flux a_P h (g - u_P) /
 * (1 + h/2) left once u_b = (u_P + g h/2) / (1 + h/2) (from
 * (u_b - u_P) / (h/2) = g - u_b) is eliminated. The row is minus their sum
 * = f h^2, so the matrix is an M-matrix, symmetric. */
static void cell_row(const pf_fvp_grid *gr, const double *a, const double *f, const double *g, int ix, int iy,
                     fv_system *s)
{
    int n = gr->n, p = iy * n + ix;
    double h = gr->side / n, wall = a[p] * h / (1 + h / 2), diag = 0, rhs = f[p] * h * h;
    const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
    for (int k = 0; k < 4; k++) {
        int jx = ix + dx[k], jy = iy + dy[k];
        if (jx < 0 || jx >= n || jy < 0 || jy >= n) {
            diag += wall;
            if (g) rhs += wall * g[k * n + (k < 2 ? iy : ix)];
            continue;
        }
        int q = jy * n + jx;
        double af = 2 * a[p] * a[q] / (a[p] + a[q]);
        diag += af;
        put(s, p, q, -af);
    }
    put(s, p, p, diag);
    s->rhs[p] = rhs;
}

/* UMFPACK: triplets to compressed columns, factor, solve. */
static pf_status umf_solve(int m, const fv_system *s, double *u)
{
    int *ap = malloc(sizeof(int) * (m + 1)), *ai = malloc(sizeof(int) * s->nz);
    double *ax = malloc(sizeof(double) * s->nz);
    void *sym = NULL, *num = NULL;
    pf_status st = ap && ai && ax ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for %d unknowns", m);
    int rc = UMFPACK_OK;
    const char *what = "triplet_to_col";
    if (st == PF_OK) rc = umfpack_di_triplet_to_col(m, m, s->nz, s->ti, s->tj, s->tx, ap, ai, ax, NULL);
    if (st == PF_OK && rc == UMFPACK_OK) what = "symbolic", rc = umfpack_di_symbolic(m, m, ap, ai, ax, &sym, NULL, NULL);
    if (st == PF_OK && rc == UMFPACK_OK) what = "numeric", rc = umfpack_di_numeric(ap, ai, ax, sym, &num, NULL, NULL);
    if (st == PF_OK && rc == UMFPACK_OK)
        what = "solve", rc = umfpack_di_solve(UMFPACK_A, ap, ai, ax, u, s->rhs, num, NULL, NULL);
    if (st == PF_OK && rc != UMFPACK_OK)
        st = pf_fail(rc == UMFPACK_ERROR_out_of_memory ? PF_ERR_NOMEM : PF_ERR_INVALID,
                     "UMFPACK %s failed with status %d on %d unknowns", what, rc, m);
    if (sym) umfpack_di_free_symbolic(&sym);
    if (num) umfpack_di_free_numeric(&num);
    free(ap), free(ai), free(ax);
    return st;
}

pf_status pf_fvp_solve(const pf_fvp_grid *gr, const double *a, const double *f, const double *g, double *u)
{
    if (gr->n < 2 || !(gr->side > 0))
        return pf_fail(PF_ERR_INVALID, "finite-volume grid: n = %d, side = %g", gr->n, gr->side);
    int m = gr->n * gr->n;
    for (int p = 0; p < m; p++)
        if (!(a[p] > 0) || !isfinite(a[p]) || !isfinite(f[p]))
            return pf_fail(PF_ERR_INVALID, "finite-volume cell %d: coefficient %g, source %g", p, a[p], f[p]);
    fv_system s = {0};
    s.ti = malloc(sizeof(int) * 5 * m), s.tj = malloc(sizeof(int) * 5 * m);
    s.tx = malloc(sizeof(double) * 5 * m), s.rhs = malloc(sizeof(double) * m);
    pf_status st = s.ti && s.tj && s.tx && s.rhs ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for %d cells", m);
    for (int iy = 0; st == PF_OK && iy < gr->n; iy++)
        for (int ix = 0; ix < gr->n; ix++) cell_row(gr, a, f, g, ix, iy, &s);
    if (st == PF_OK) st = umf_solve(m, &s, u);
    free(s.ti), free(s.tj), free(s.tx), free(s.rhs);
    return st;
}

/* The lower of the two centres around c along one axis (clamped to the
 * first and last pairs, so the weight runs past [0, 1] near the walls). */
static int bracket(const pf_fvp_grid *gr, double c, double *w)
{
    double h = gr->side / gr->n, s = (c - gr->lo) / h - 0.5;
    int i = (int)floor(s);
    i = i < 0 ? 0 : i > gr->n - 2 ? gr->n - 2 : i;
    *w = s - i;
    return i;
}

double pf_fvp_interp(const pf_fvp_grid *gr, const double *u, double x, double y)
{
    double wx, wy;
    int ix = bracket(gr, x, &wx), iy = bracket(gr, y, &wy), n = gr->n;
    const double *r0 = u + (size_t)iy * n + ix, *r1 = r0 + n;
    return (1 - wy) * ((1 - wx) * r0[0] + wx * r0[1]) + wy * ((1 - wx) * r1[0] + wx * r1[1]);
}
