/*
 * cosine.h — a cosine-spectral solver on a square with zero-flux (Neumann)
 * walls (FFTW's REDFT, double), stepped with ETDRK4 (refs/etdrk4.h): the
 * reference solver of gray_scott_2d (refs/, make refs).
 *
 * Gray-Scott on [lo, hi]^2:
 *     u_t = eps1 Lap u + b (1 - u) - u v^2
 *     v_t = eps2 Lap v - d v + u v^2,    du/dn = dv/dn = 0 on the walls.
 *
 * The grid is cell-centred, x_j = lo + (j + 1/2)(hi - lo)/n (2D row-major
 * [iy][ix]); the basis cos(k pi (x - lo)/(hi - lo)), k < n, meets the
 * zero-flux condition mode by mode, so the walls need no other treatment,
 * and the Laplacian and the linear reaction terms are diagonal (exact in
 * ETDRK4's exponentials). The cubic term is not dealiased: its aliasing
 * error falls on modes the resolution must leave empty anyway, which the
 * self-convergence check of two grids measures.
 */
#ifndef PF_REFS_COSINE_H
#define PF_REFS_COSINE_H

#include "core/status.h"

typedef struct pf_gs_params {
    double b, d, eps1, eps2; /* the equation's coefficients */
    double lo, hi;           /* the square's side */
} pf_gs_params;

/* Called with the cosine coefficients of u and v (n x n each, [ky][kx]) at
 * sample k; a failure stops the solve and is returned. */
typedef pf_status (*pf_cos2_sample)(void *user, int k, const double *u, const double *v);

/* Solves from u0, v0 (n x n grid values, n >= 8) with step h and hands the
 * coefficients at samples k = 0..nsamples-1 (t = k steps h) to `sample`.
 * PF_ERR_INVALID for bad arguments or a solution that is not finite,
 * PF_ERR_NOMEM, or the callback's error. */
pf_status pf_gs_solve(const pf_gs_params *p, int n, const double *u0, const double *v0, double h, int steps,
                      int nsamples, pf_cos2_sample sample, void *user);

/* The field of coefficients c (n x n, as above, side [lo, hi]) on the tensor
 * grid xs[nx] x ys[ny]: out[iy * nx + ix], summed exactly. PF_ERR_NOMEM. */
pf_status pf_cos2_eval(const double *c, int n, double lo, double hi, const double *xs, int nx, const double *ys,
                       int ny, double *out);

#endif
