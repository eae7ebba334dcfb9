/*
 * coef_field.h — PINNacle's generated coefficient fields, rebuilt in C.
 *
 * Three PINNacle problems read fields that PINNacle's data/generate_functions.py
 * draws from NumPy's legacy random generator (docs/pdes.md §R.1, §R.2):
 *
 *   heat_2d_coef_256.dat     kappa = exp(GRF)        heat_2d_varying_coefficient
 *   darcy_2d_coef_256.dat    c = 12 if GRF > 0 else 1  wave_2d_heterogeneous
 *   burgers2d_init_{u,v}_0   sums of sines/cosines   burgers_2d (initial condition)
 *
 * This module regenerates them without Python and evaluates them the way
 * PINNacle does:
 *
 *   - the GRF fields reproduce PINNacle's two regenerated files
 *     (regenerated/ in PF_DATA_DIR; docs/pdes.md R.1) bit for bit (every printed digit of NumPy's "%.18e"),
 *     because every step follows NumPy 1.24 on an AVX-512 machine: MT19937
 *     seeded like RandomState(int), the legacy polar Gaussian, pocketfft's
 *     radix-4 inverse FFT, NumPy's buffered pairwise sums in memory order,
 *     and the SVML pow/exp kernels that NumPy dispatches to on AVX-512
 *     (glibc's pow and exp differ in the last bit for ~25% of the entries,
 *     and the FFT spreads that over every node). These emulations are plain
 *     C: the result does not depend on the machine that runs them;
 *   - heat's kappa is a nearest-node lookup (scipy griddata 'nearest');
 *   - wave's c is piecewise-linear on SciPy's Delaunay triangulation of the
 *     256x256 grid, at ((x+1)/2, (y+1)/2); the triangulation of a square grid
 *     is degenerate, so qhull's choice of diagonal per cell (SciPy 1.10.1) is
 *     stored here as a bitmap;
 *   - Burgers' initial fields have a closed form with derivatives.
 *
 * All arithmetic is double, whatever pf_real is; the batch evaluators only
 * convert at the boundary.
 *
 * Example (wave_2d_heterogeneous's coefficient at the collocation points):
 *
 *     pf_coef_field *darcy;
 *     if (pf_coef_field_alloc(PF_COEF_DARCY, &darcy) != PF_OK)
 *         return ...;                        // out of memory; pf_errmsg() says so
 *     pf_wave2d_c_batch(darcy, npts, pts, 3, c);  // pts rows (x, y, t) in [-1,1]^2 x [0,5]
 *     ...
 *     pf_coef_field_free(darcy);
 *
 * Generating one 256x256 field takes a few tens of milliseconds; a Burgers
 * field (512x512 nodes, 32 sines and cosines each, twice for the scale m)
 * takes a few tenths of a second.
 */
#ifndef PF_IO_COEF_FIELD_H
#define PF_IO_COEF_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "core/real.h"
#include "core/status.h"

/* ------------------------------------------------ NumPy's legacy RandomState */

/* The seed PINNacle passes to seed_everything() before drawing each field. */
#define PF_COEF_SEED 20220722u

/* MT19937 state with NumPy's legacy extras (the cached second Gaussian). */
typedef struct pf_mt19937 {
    uint32_t key[624];
    int pos;          /* next word of key[] to temper; 624 = refill first */
    int has_gauss;    /* legacy_gauss() holds a cached deviate */
    double gauss;
} pf_mt19937;

/* RandomState(seed) for an integer seed: Matsumoto-Nishimura init_genrand
 * (key[0] = seed, key[i] = 1812433253 (key[i-1] ^ (key[i-1] >> 30)) + i).
 * NumPy uses init_by_array only for array seeds; seed 5489 is the reference
 * generator's default. Clears the Gaussian cache. */
void pf_mt19937_seed(pf_mt19937 *st, uint32_t seed);

/* init_by_array(key, n): RandomState(array) and Python's random.seed(int). */
void pf_mt19937_seed_array(pf_mt19937 *st, const uint32_t *key, size_t n);

/* The next tempered 32-bit output (genrand_int32). */
uint32_t pf_mt19937_next32(pf_mt19937 *st);

/* random_sample(): ((a >> 5) * 2^26 + (b >> 6)) / 2^53 from two outputs. */
double pf_mt19937_random_sample(pf_mt19937 *st);

/* standard_normal() / normal(0, 1) / randn(): NumPy's legacy_gauss, the
 * Marsaglia polar method that returns f*x2 and caches f*x1 for the next call. */
double pf_mt19937_gauss(pf_mt19937 *st);

/* ------------------------------------------- NumPy's float64 math on AVX-512 */

/* np.exp(x) as NumPy 1.24 computes it where AVX-512 SKX is present (SVML's
 * __svml_exp8). Bit-identical for |x| < 707.7; beyond that (where SVML calls
 * its scalar fallback) this returns libm's exp. */
double pf_np_exp(double x);

/* np.power(x, y) likewise (SVML's __svml_pow8, with vrcp14pd emulated
 * bit for bit). Bit-identical for finite x > 0, finite y and
 * |y log2 x| <= 1021.5; other inputs go to libm's pow. */
double pf_np_power(double x, double y);

/* np.sum of n doubles laid out contiguously in NumPy's iteration order:
 * pairwise summation (8 accumulators, blocks of 128) over buffers of 8192
 * elements, the buffer sums added left to right. */
double pf_np_sum(const double *a, size_t n);

/* ------------------------------------------------- Gaussian random field */

/* PINNacle's gaussian_random_field(alpha, size=n) right after
 * np.random.seed(seed): amplitude (kx^2 + ky^2 + 1e-10)^(-alpha/4) (zero at
 * k = 0), complex noise normal(n x n) + 1j normal(n x n), real part of
 * np.fft.ifft2, minus its mean, over its population standard deviation.
 * out[i*n + j] is row i (y), column j (x). n must be a power of 4 (PINNacle
 * uses 256). Fails only with PF_ERR_NOMEM (scratch of about 24 n^2 bytes). */
pf_status pf_coef_grf(uint32_t seed, double alpha, int n, double *out);

/* ------------------------------------------------------------- the fields */

typedef enum pf_coef_kind {
    PF_COEF_HEAT,        /* heat_2d_coef_256: exp(GRF(alpha 4)), grid [0,1]^2, 256 nodes */
    PF_COEF_DARCY,       /* darcy_2d_coef_256: 12 where GRF > 0 else 1, same grid */
    PF_COEF_BURGERS_U0,  /* burgers2d_init_u_0: u0 on [0,4]^2, 512 nodes */
    PF_COEF_BURGERS_V0,  /* burgers2d_init_v_0: v0 on [0,4]^2, 512 nodes */
} pf_coef_kind;

/* A field on an n x n grid. Node (i, j) sits at (x[j], x[i]) and holds
 * v[i*n + j]; rows of PINNacle's .dat files are r = i*n + j, "x y value".
 * x[] is np.linspace(lo, hi, n): x[j] = j * ((hi - lo)/(n - 1)) + lo, with
 * x[n-1] = hi exactly. */
typedef struct pf_coef_field {
    pf_coef_kind kind;
    int n;                 /* nodes per axis */
    double *x;             /* [n] node coordinates (both axes) */
    double *v;             /* [n*n] node values */
    const uint64_t *diag;  /* [(n-1)^2 bits] Delaunay diagonal per cell, or NULL (see linear) */
} pf_coef_field;

/* Generate a field (heat and darcy each from a fresh seed PF_COEF_SEED, as
 * docs/pdes.md §R.1 requires; Burgers from §R.2's draws). The caller frees it
 * with pf_coef_field_free. Fails with PF_ERR_NOMEM. */
pf_status pf_coef_field_alloc(pf_coef_kind kind, pf_coef_field **out);
void pf_coef_field_free(pf_coef_field *f);

/* Nearest node (scipy griddata 'nearest'); points outside the grid take the
 * nearest boundary node. An exact tie between two nodes (a point exactly
 * half-way) goes to the lower index; SciPy's k-d tree breaks such ties by its
 * traversal order, so ties are the one place the two can differ. */
double pf_coef_field_nearest(const pf_coef_field *f, double x, double y);

/* Piecewise-linear interpolation on the triangulated grid (scipy griddata
 * 'linear' / LinearNDInterpolator). Each cell is split along the diagonal
 * that f->diag records (bit c = i*(n-1) + j set: the diagonal from node
 * (i, j) to (i+1, j+1); clear: from (i, j+1) to (i+1, j)); with diag NULL
 * every cell uses the (i, j)-(i+1, j+1) diagonal. The 256^2 grids (heat,
 * darcy) carry SciPy's triangulation; the Burgers grid (512^2) does not, so
 * its linear interpolant differs from PINNacle's by up to ~0.01 in the cells
 * where qhull chose the other diagonal (use pf_burgers2d_ic_eval instead).
 * Returns NaN outside [x[0], x[n-1]]^2, like SciPy's fill value. The
 * gradient of the interpolant (constant on each triangle) goes to *dx, *dy
 * when they are not NULL; on a shared edge it is the gradient of one of the
 * adjacent triangles. */
double pf_coef_field_linear(const pf_coef_field *f, double x, double y, double *dx,
                            double *dy);

/* ------------------------------------------------------ per-PDE evaluators */

/* heat_2d_varying_coefficient's kappa(x, y): nearest node of the HEAT field
 * at the raw (x, y) (the file's grid is already [0,1]^2). kappa is piecewise
 * constant, so the PDE (non-divergence form kappa * Laplacian u) needs no
 * derivative of it. */
double pf_heat2d_kappa(const pf_coef_field *heat, double x, double y);

/* wave_2d_heterogeneous's c(x, y) on [-1,1]^2: the DARCY field's linear
 * interpolant at ((x+1)/2, (y+1)/2). The residual u_xx + u_yy - u_tt / c
 * needs no derivative of c; the chain-rule gradient (half the grid one) goes
 * to *cx, *cy when they are not NULL. */
double pf_wave2d_c(const pf_coef_field *darcy, double x, double y, double *cx, double *cy);

/* Batch forms for collocation points: point k is (pts[k*ld], pts[k*ld + 1])
 * (further columns, such as t, are ignored); out[k] receives the value. */
void pf_heat2d_kappa_batch(const pf_coef_field *heat, size_t npts, const pf_real *pts,
                           size_t ld, pf_real *out);
void pf_wave2d_c_batch(const pf_coef_field *darcy, size_t npts, const pf_real *pts,
                       size_t ld, pf_real *out);

/* ------------------------------------------------ Burgers-2D initial fields */

/* The draws of generate_burgers_2d_source_functions() after seeding with
 * PF_COEF_SEED: randn(4,4) four times (A_u, B_u, A_v, B_v), then randn(2).
 * comp 0 is u, 1 is v; the first index i multiplies x. */
typedef struct pf_burgers2d_ic {
    double a[2][4][4];  /* sine coefficients A */
    double b[2][4][4];  /* cosine coefficients B */
    double c[2];        /* offsets */
    double m;           /* max of both raw fields over the 512^2 grid */
} pf_burgers2d_ic;

/* Draw the coefficients and compute m (docs/pdes.md: 8.151189461937037, at a node
 * of v). The raw fields use libm's sin and cos; NumPy's SVML ones differ by a
 * few ulps at some nodes, which leaves m (and so every coefficient of the
 * closed form) unchanged. */
void pf_burgers2d_ic_init(pf_burgers2d_ic *ic);

/* The generator's node values of comp (0 = u0, 1 = v0) into out[512*512]
 * (row i = y index, column j = x index): u0 = 2 u_raw / m + c[comp], with
 * u_raw = sum over i, j of A sin(2 pi (i x + j y)) + B cos(2 pi (i x + j y)). */
void pf_burgers2d_ic_grid(const pf_burgers2d_ic *ic, int comp, double *out);

/* Closed form of both fields at any (x, y) (1-periodic in x and y):
 * val[0] = u0, val[1] = v0; their x and y derivatives go to dx[], dy[] when
 * those are not NULL. Differs from PINNacle's piecewise-linear interpolation
 * of the 512^2 grid by at most ~0.01 (the interpolation error). */
void pf_burgers2d_ic_eval(const pf_burgers2d_ic *ic, double x, double y, double val[2],
                          double dx[2], double dy[2]);

#endif
