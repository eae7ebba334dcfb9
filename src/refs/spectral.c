#include "refs/spectral.h"

#include <fftw3.h>
#include <stdlib.h>
#include <string.h>

#include "refs/etdrk4.h"

#define PI 3.14159265358979323846

/* 2/3 rule (Orszag): keep the modes with 3 |k| < n, so that the aliases of
 * a quadratic product of kept modes all fall on dropped ones. */
static double keep(int k, int n) { return 3 * abs(k) < n ? 1.0 : 0.0; }

/* The signed wavenumber index of FFT index i of n. */
static int signed_index(int i, int n) { return i <= n / 2 ? i : i - n; }

static pf_status check_args(const char *who, int n, double h, int steps, int nsamples)
{
    if (n < 8 || n % 2 || !(h > 0) || steps < 1 || nsamples < 1)
        return pf_fail(PF_ERR_INVALID, "%s: need an even n >= 8, h > 0, steps >= 1 and samples >= 1 "
                       "(got n %d, h %g, steps %d, samples %d)", who, n, h, steps, nsamples);
    return PF_OK;
}

/* ------------------------------------------------------------------ 1D */

typedef struct ks_work {
    int n, m;          /* grid points, modes (n/2 + 1) */
    double half_alpha; /* alpha / 2: u u_x = (u^2 / 2)_x */
    double *k, *mask;  /* wavenumber and dealiasing mask per mode */
    double *phys;
    double complex *spec;
    fftw_plan fwd, inv;
} ks_work;

/* N(v) = -alpha/2 i k F[u^2] on the kept modes, u the field of v. */
static void ks_nonlin(void *user, const double *s, double *out)
{
    ks_work *w = user;
    const double complex *v = (const double complex *)s;
    double complex *o = (double complex *)out;
    for (int k = 0; k < w->m; k++) w->spec[k] = v[k] * w->mask[k];
    fftw_execute(w->inv);
    for (int j = 0; j < w->n; j++) w->phys[j] *= w->phys[j];
    fftw_execute(w->fwd);
    for (int k = 0; k < w->m; k++) o[k] = -w->half_alpha * I * w->k[k] * w->spec[k] * w->mask[k] / w->n;
}

static void ks_work_free(ks_work *w)
{
    if (w->fwd) fftw_destroy_plan(w->fwd);
    if (w->inv) fftw_destroy_plan(w->inv);
    fftw_free(w->phys), fftw_free(w->spec);
    free(w->k), free(w->mask);
}

/* The grid values of spectrum v (copied: c2r overwrites its input). */
static void ks_field(ks_work *w, const double complex *v, double *u)
{
    memcpy(w->spec, v, sizeof *v * (size_t)w->m);
    fftw_execute(w->inv);
    memcpy(u, w->phys, sizeof *u * (size_t)w->n);
}

pf_status pf_ks_solve(const pf_ks_params *p, int n, const double *u0, double h, int steps, int nsamples,
                      double *out)
{
    PF_TRY(check_args("pf_ks_solve", n, h, steps, nsamples));
    int m = n / 2 + 1;
    ks_work w = {.n = n, .m = m, .half_alpha = p->alpha / 2};
    w.k = malloc(sizeof(double) * m), w.mask = malloc(sizeof(double) * m);
    w.phys = fftw_alloc_real((size_t)n), w.spec = fftw_alloc_complex((size_t)m);
    double complex *v = fftw_alloc_complex((size_t)m);
    double *L = malloc(sizeof(double) * 2 * m);
    pf_etdrk4 c = {0};
    pf_status st = PF_OK;
    if (!w.k || !w.mask || !w.phys || !w.spec || !v || !L) {
        st = pf_fail(PF_ERR_NOMEM, "pf_ks_solve: out of memory for n = %d", n);
        goto done;
    }
    w.fwd = fftw_plan_dft_r2c_1d(n, w.phys, w.spec, FFTW_ESTIMATE);
    w.inv = fftw_plan_dft_c2r_1d(n, w.spec, w.phys, FFTW_ESTIMATE);
    for (int k = 0; k < m; k++) {
        w.k[k] = 2 * PI / p->period * k;
        w.mask[k] = keep(k, n);
        double kk = w.k[k] * w.k[k];
        L[2 * k] = L[2 * k + 1] = p->beta * kk - p->gamma * kk * kk; /* -beta (ik)^2 - gamma (ik)^4 */
    }
    if ((st = pf_etdrk4_init(&c, L, 2 * (size_t)m, h)) != PF_OK) goto done;
    memcpy(w.phys, u0, sizeof *u0 * (size_t)n);
    fftw_execute(w.fwd);
    for (int k = 0; k < m; k++) v[k] = w.spec[k] * w.mask[k] / n;
    for (int s = 0; st == PF_OK && s < nsamples; s++) {
        if (s)
            for (int q = 0; q < steps; q++) pf_etdrk4_step(&c, (double *)v, ks_nonlin, &w);
        st = pf_etdrk4_check_finite(&c, (const double *)v, "pf_ks_solve", s * steps * h);
        if (st == PF_OK) ks_field(&w, v, out + (size_t)s * n);
    }
done:
    pf_etdrk4_free(&c);
    ks_work_free(&w);
    fftw_free(v);
    free(L);
    return st;
}

/* ------------------------------------------------------------------ 2D */

enum { F_U, F_V, F_UX, F_UY, F_VX, F_VY, F_COUNT };

typedef struct b2_work {
    int n;
    size_t len;           /* modes per field */
    double nn;            /* n^2, the normalisation */
    double *kx, *ky, *mask;
    double *phys[F_COUNT];
    double complex *spec;
    fftw_plan inv[F_COUNT], fwd[2]; /* fwd: phys[F_UX] -> spec, phys[F_VX] -> spec */
} b2_work;

/* The field of (factor * spectrum) into phys[f] (spec is c2r's scratch). */
static void b2_to_phys(b2_work *w, const double complex *v, int kind, int f)
{
    for (size_t q = 0; q < w->len; q++) {
        double complex d = kind == 0 ? 1 : I * (kind == 1 ? w->kx[q] : w->ky[q]);
        w->spec[q] = d * v[q] * w->mask[q];
    }
    fftw_execute(w->inv[f]);
}

/* N = -(u u_x + v u_y, u v_x + v v_y), transformed, on the kept modes. */
static void b2_nonlin(void *user, const double *s, double *out)
{
    b2_work *w = user;
    const double complex *u = (const double complex *)s, *v = u + w->len;
    double complex *o = (double complex *)out;
    b2_to_phys(w, u, 0, F_U), b2_to_phys(w, v, 0, F_V);
    b2_to_phys(w, u, 1, F_UX), b2_to_phys(w, u, 2, F_UY);
    b2_to_phys(w, v, 1, F_VX), b2_to_phys(w, v, 2, F_VY);
    size_t np = (size_t)w->n * w->n;
    double *pu = w->phys[F_U], *pv = w->phys[F_V];
    for (size_t j = 0; j < np; j++) {
        w->phys[F_UX][j] = pu[j] * w->phys[F_UX][j] + pv[j] * w->phys[F_UY][j];
        w->phys[F_VX][j] = pu[j] * w->phys[F_VX][j] + pv[j] * w->phys[F_VY][j];
    }
    for (int c = 0; c < 2; c++) {
        fftw_execute(w->fwd[c]);
        for (size_t q = 0; q < w->len; q++) o[c * w->len + q] = -w->spec[q] * w->mask[q] / w->nn;
    }
}

static void b2_work_free(b2_work *w)
{
    for (int f = 0; f < F_COUNT; f++) {
        if (w->inv[f]) fftw_destroy_plan(w->inv[f]);
        fftw_free(w->phys[f]);
    }
    for (int c = 0; c < 2; c++)
        if (w->fwd[c]) fftw_destroy_plan(w->fwd[c]);
    fftw_free(w->spec);
    free(w->kx), free(w->ky), free(w->mask);
}

static pf_status b2_work_init(b2_work *w, int n, double period)
{
    memset(w, 0, sizeof *w);
    w->n = n, w->len = PF_SPEC2_LEN(n), w->nn = (double)n * n;
    w->kx = malloc(sizeof(double) * w->len), w->ky = malloc(sizeof(double) * w->len);
    w->mask = malloc(sizeof(double) * w->len);
    w->spec = fftw_alloc_complex(w->len);
    int ok = w->kx && w->ky && w->mask && w->spec;
    for (int f = 0; f < F_COUNT; f++) ok = (w->phys[f] = fftw_alloc_real((size_t)n * n)) && ok;
    if (!ok) return pf_fail(PF_ERR_NOMEM, "pf_burgers2_solve: out of memory for n = %d", n);
    int mx = n / 2 + 1;
    for (int iy = 0; iy < n; iy++)
        for (int ix = 0; ix < mx; ix++) {
            size_t q = (size_t)iy * mx + ix;
            int ky = signed_index(iy, n);
            w->kx[q] = 2 * PI / period * ix, w->ky[q] = 2 * PI / period * ky;
            w->mask[q] = keep(ix, n) * keep(ky, n);
        }
    for (int f = 0; f < F_COUNT; f++) w->inv[f] = fftw_plan_dft_c2r_2d(n, n, w->spec, w->phys[f], FFTW_ESTIMATE);
    w->fwd[0] = fftw_plan_dft_r2c_2d(n, n, w->phys[F_UX], w->spec, FFTW_ESTIMATE);
    w->fwd[1] = fftw_plan_dft_r2c_2d(n, n, w->phys[F_VX], w->spec, FFTW_ESTIMATE);
    return PF_OK;
}

pf_status pf_burgers2_solve(const pf_burgers2_params *p, int n, const double *u0, const double *v0, double h,
                            int steps, int nsamples, pf_spec2_sample sample, void *user)
{
    PF_TRY(check_args("pf_burgers2_solve", n, h, steps, nsamples));
    b2_work w;
    pf_etdrk4 c = {0};
    pf_status st = b2_work_init(&w, n, p->period);
    size_t len = w.len;
    double complex *s = fftw_alloc_complex(2 * len);
    double *L = malloc(sizeof(double) * 4 * len);
    if (st == PF_OK && (!s || !L)) st = pf_fail(PF_ERR_NOMEM, "pf_burgers2_solve: out of memory for n = %d", n);
    if (st != PF_OK) goto done;
    for (int comp = 0; comp < 2; comp++)
        for (size_t q = 0; q < len; q++) {
            double lq = -p->nu * (w.kx[q] * w.kx[q] + w.ky[q] * w.ky[q]);
            size_t r = 2 * (comp * len + q);
            L[r] = L[r + 1] = lq;
        }
    if ((st = pf_etdrk4_init(&c, L, 4 * len, h)) != PF_OK) goto done;
    for (int comp = 0; comp < 2; comp++) {
        memcpy(w.phys[F_UX + 2 * comp], comp ? v0 : u0, sizeof(double) * (size_t)n * n);
        fftw_execute(w.fwd[comp]);
        for (size_t q = 0; q < len; q++) s[comp * len + q] = w.spec[q] * w.mask[q] / w.nn;
    }
    for (int k = 0; st == PF_OK && k < nsamples; k++) {
        if (k)
            for (int q = 0; q < steps; q++) pf_etdrk4_step(&c, (double *)s, b2_nonlin, &w);
        st = pf_etdrk4_check_finite(&c, (const double *)s, "pf_burgers2_solve", k * steps * h);
        if (st == PF_OK) st = sample(user, k, s, s + len);
    }
done:
    pf_etdrk4_free(&c);
    b2_work_free(&w);
    fftw_free(s);
    free(L);
    return st;
}

pf_status pf_spec2_eval(const double complex *spec, int n, double period, const double *xs, int nx,
                        const double *ys, int ny, double *out)
{
    int mx = n / 2 + 1;
    double complex *g = malloc(sizeof *g * (size_t)ny * mx);
    if (!g) return pf_fail(PF_ERR_NOMEM, "pf_spec2_eval: out of memory for %d x %d points", nx, ny);
    double w = 2 * PI / period;
    /* g[y][kx] = sum over ky of c[ky][kx] e^{i ky y} */
    for (int b = 0; b < ny; b++) {
        double complex *gb = g + (size_t)b * mx;
        for (int ix = 0; ix < mx; ix++) gb[ix] = 0;
        for (int iy = 0; iy < n; iy++) {
            double complex e = cexp(I * w * signed_index(iy, n) * ys[b]);
            const double complex *row = spec + (size_t)iy * mx;
            for (int ix = 0; ix < mx; ix++) gb[ix] += row[ix] * e;
        }
    }
    /* f = sum over kx of Re(g e^{i kx x}), counting the implied conjugate
     * mode -kx of every 0 < kx < n/2 */
    for (int b = 0; b < ny; b++)
        for (int a = 0; a < nx; a++) {
            double sum = 0;
            for (int ix = 0; ix < mx; ix++) {
                double wt = ix == 0 || 2 * ix == n ? 1 : 2;
                sum += wt * creal(g[(size_t)b * mx + ix] * cexp(I * w * ix * xs[a]));
            }
            out[(size_t)b * nx + a] = sum;
        }
    free(g);
    return PF_OK;
}
