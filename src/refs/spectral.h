/*
 * spectral.h — Fourier pseudo-spectral solvers on periodic domains (FFTW,
 * double), stepped with ETDRK4 (refs/etdrk4.h), 2/3-rule dealiased: the
 * reference solvers of the periodic benchmark PDEs (refs/, make refs).
 *
 * Kuramoto-Sivashinsky type, 1D, period P:
 *     u_t + alpha u u_x + beta u_xx + gamma u_xxxx = 0
 * (alpha = 1, beta = -nu, gamma = 0 is the viscous Burgers equation, which
 * the tests check against Cole-Hopf solutions).
 *
 * Burgers, 2D, period P in x and y, velocity (u, v):
 *     u_t + u u_x + v u_y = nu (u_xx + u_yy),   likewise v.
 *
 * Grids are x_j = j P / n, j = 0..n-1 (2D: row-major [iy][ix]). Samples are
 * taken every `steps` steps of size h, the first at t = 0.
 */
#ifndef PF_REFS_SPECTRAL_H
#define PF_REFS_SPECTRAL_H

#include <complex.h>

#include "core/status.h"

typedef struct pf_ks_params {
    double alpha, beta, gamma; /* the equation's coefficients          */
    double period;             /* P                                    */
} pf_ks_params;

/* Solves from u0[n] (n even, >= 8) and writes the grid values at samples
 * k = 0..nsamples-1 (t = k steps h) into out[k * n + j]. PF_ERR_NOMEM or
 * PF_ERR_INVALID (bad n, h, steps, or a solution that is not finite), with a
 * message. */
pf_status pf_ks_solve(const pf_ks_params *p, int n, const double *u0, double h, int steps, int nsamples,
                      double *out);

typedef struct pf_burgers2_params {
    double nu;     /* viscosity */
    double period; /* P, in both x and y */
} pf_burgers2_params;

/* The spectrum of one 2D field: n x (n/2 + 1) complex, FFTW's r2c layout
 * [iy][kx], normalised so that the field is sum_k c_k e^{i k.x} (each real
 * field's conjugate modes implied). */
#define PF_SPEC2_LEN(n) ((size_t)(n) * ((size_t)(n) / 2 + 1))

/* Called with the spectra of u and v (PF_SPEC2_LEN(n) each) at sample k;
 * a failure stops the solve and is returned. */
typedef pf_status (*pf_spec2_sample)(void *user, int k, const double complex *u, const double complex *v);

/* Solves from u0, v0 (n x n grids, n even >= 8) and hands the spectra at
 * samples k = 0..nsamples-1 to `sample`. Errors as pf_ks_solve, or the
 * callback's. */
pf_status pf_burgers2_solve(const pf_burgers2_params *p, int n, const double *u0, const double *v0, double h,
                            int steps, int nsamples, pf_spec2_sample sample, void *user);

/* The field of spectrum spec (as above, period P) on the tensor grid
 * xs[nx] x ys[ny]: out[iy * nx + ix] = f(xs[ix], ys[iy]), summed exactly
 * (one pass over y, then over x). PF_ERR_NOMEM with a message. */
pf_status pf_spec2_eval(const double complex *spec, int n, double period, const double *xs, int nx,
                        const double *ys, int ny, double *out);

#endif
