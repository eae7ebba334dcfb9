/*
 * leapfrog.h — the wave equation u_tt = c(x, y) Lap u on a square with
 * zero-flux (Neumann) sides, stepped by leapfrog: the reference solver of
 * wave_2d_heterogeneous (refs/, make refs).
 *
 * The grid is vertex-centred, n x n nodes x_j = lo + j side / (n - 1) with
 * the walls on the outer nodes (row-major [iy][ix]); the five-point
 * Laplacian mirrors the wall's neighbour (u_{-1} = u_1), the second-order
 * reading of du/dn = 0. From u(0) = u0 and u_t(0) = 0 the first step is
 * u^1 = u^0 + dt^2/2 c Lap u^0 (the Taylor step, second order), then
 * u^{k+1} = 2 u^k - u^{k-1} + dt^2 c Lap u^k: second order in space and
 * time, stable for dt sqrt(max c) <= h / sqrt(2).
 */
#ifndef PF_REFS_LEAPFROG_H
#define PF_REFS_LEAPFROG_H

#include "core/status.h"

typedef struct pf_wave_grid {
    int n;           /* nodes per axis, walls included */
    double lo, side; /* the square [lo, lo + side]^2 */
} pf_wave_grid;

/* Called with the node values u at sample k (t = k * steps * dt); a
 * failure stops the solve and is returned. */
typedef pf_status (*pf_wave_sample)(void *user, int k, const double *u);

/* Solves from u0 (n x n) with speed field c (n x n, the coefficient of
 * Lap u, > 0), step dt and `steps` steps between samples, handing samples
 * k = 0..nsamples-1 to `sample`. PF_ERR_INVALID for bad arguments, a dt
 * over the stability limit or a solution that is not finite; PF_ERR_NOMEM;
 * or the callback's error. */
pf_status pf_wave_solve(const pf_wave_grid *gr, const double *c, const double *u0, double dt, int steps,
                        int nsamples, pf_wave_sample sample, void *user);

/* The bilinear interpolant of the node values u at (x, y) in the square. */
double pf_wave_interp(const pf_wave_grid *gr, const double *u, double x, double y);

#endif
