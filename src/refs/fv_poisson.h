/*
 * fv_poisson.h — a cell-centred finite-volume solver for
 *     div(a grad u) + f = 0 on a square,   du/dn = g - u on its four sides,
 * a piecewise-constant per cell: the reference solver of
 * poisson_2d_many_area (refs/, make refs).
 *
 * The grid has n x n cells of side h = side / n, centres
 * x_j = lo + (j + 1/2) h, arrays row-major [iy][ix]. A face between two
 * cells carries the harmonic mean of their coefficients, the flux that is
 * continuous across a coefficient jump lying on the face; a boundary face
 * eliminates its face value with the Robin condition. The matrix is
 * symmetric positive definite (Robin makes it non-singular); it is
 * factored and solved by UMFPACK (SuiteSparse). Second order in h when
 * coefficient jumps lie on cell faces and f is smooth within each cell.
 */
#ifndef PF_REFS_FV_POISSON_H
#define PF_REFS_FV_POISSON_H

#include "core/status.h"

/* The square [lo, lo + side]^2 cut into n x n cells. */
typedef struct pf_fvp_grid {
    int n;
    double lo, side;
} pf_fvp_grid;

/* Solves for u (n x n cell values) from a and f (n x n cell-centre values,
 * a > 0) and g (4 x n face-centre values of the Robin data: sides x = lo,
 * x = hi, y = lo, y = hi, each ordered along the other axis; NULL for
 * g = 0). PF_ERR_INVALID for bad arguments or a failed factorisation
 * (UMFPACK's status named), PF_ERR_NOMEM. */
pf_status pf_fvp_solve(const pf_fvp_grid *gr, const double *a, const double *f, const double *g, double *u);

/* The bilinear interpolant of the cell values u at (x, y); beyond the
 * outermost centres (half a cell from the walls) it extends the edge
 * cells' linear pieces. */
double pf_fvp_interp(const pf_fvp_grid *gr, const double *u, double x, double y);

#endif
