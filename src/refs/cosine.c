#include "refs/cosine.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "refs/etdrk4.h"

#define PI 3.14159265358979323846

/* Coefficients c relate to grid values f by f = REDFT01(c) (FFTW's DCT-III
 * in each dimension: f_j = c_0 + 2 sum_k c_k cos(pi k (j + 1/2) / n)), and
 * c = REDFT10(f) / (2n)^2 (DCT-II, whose composition with DCT-III is 2n per
 * dimension). */
typedef struct gs_work {
    int n;
    size_t nn;
    double b;
    double *cu, *cv, *pu, *pv, *pw; /* coefficient scratch, grid values u, v, u v^2 */
    fftw_plan inv_u, inv_v, fwd_w;
} gs_work;

/* N = (b delta_0 - T(u v^2), T(u v^2)): the constant source b, and the
 * cubic term transformed (b (1 - u)'s -b u and -d v are in L). */
static void gs_nonlin(void *user, const double *s, double *out)
{
    gs_work *w = user;
    memcpy(w->cu, s, sizeof(double) * w->nn);
    memcpy(w->cv, s + w->nn, sizeof(double) * w->nn);
    fftw_execute(w->inv_u);
    fftw_execute(w->inv_v);
    for (size_t j = 0; j < w->nn; j++) w->pw[j] = w->pu[j] * w->pv[j] * w->pv[j];
    fftw_execute(w->fwd_w); /* into cu */
    double scale = 1.0 / (4.0 * (double)w->nn);
    for (size_t q = 0; q < w->nn; q++) {
        double t = w->cu[q] * scale;
        out[q] = -t, out[w->nn + q] = t;
    }
    out[0] += w->b;
}

static void gs_work_free(gs_work *w)
{
    if (w->inv_u) fftw_destroy_plan(w->inv_u);
    if (w->inv_v) fftw_destroy_plan(w->inv_v);
    if (w->fwd_w) fftw_destroy_plan(w->fwd_w);
    fftw_free(w->cu), fftw_free(w->cv), fftw_free(w->pu), fftw_free(w->pv), fftw_free(w->pw);
}

static pf_status gs_work_init(gs_work *w, int n, double b)
{
    memset(w, 0, sizeof *w);
    w->n = n, w->nn = (size_t)n * n, w->b = b;
    w->cu = fftw_alloc_real(w->nn), w->cv = fftw_alloc_real(w->nn);
    w->pu = fftw_alloc_real(w->nn), w->pv = fftw_alloc_real(w->nn), w->pw = fftw_alloc_real(w->nn);
    if (!w->cu || !w->cv || !w->pu || !w->pv || !w->pw)
        return pf_fail(PF_ERR_NOMEM, "pf_gs_solve: out of memory for n = %d", n);
    w->inv_u = fftw_plan_r2r_2d(n, n, w->cu, w->pu, FFTW_REDFT01, FFTW_REDFT01, FFTW_ESTIMATE);
    w->inv_v = fftw_plan_r2r_2d(n, n, w->cv, w->pv, FFTW_REDFT01, FFTW_REDFT01, FFTW_ESTIMATE);
    w->fwd_w = fftw_plan_r2r_2d(n, n, w->pw, w->cu, FFTW_REDFT10, FFTW_REDFT10, FFTW_ESTIMATE);
    return PF_OK;
}

pf_status pf_gs_solve(const pf_gs_params *p, int n, const double *u0, const double *v0, double h, int steps,
                      int nsamples, pf_cos2_sample sample, void *user)
{
    if (n < 8 || !(h > 0) || steps < 1 || nsamples < 1 || !(p->hi > p->lo))
        return pf_fail(PF_ERR_INVALID, "pf_gs_solve: need n >= 8, h > 0, steps >= 1, samples >= 1 and lo < hi "
                       "(got n %d, h %g, steps %d, samples %d)", n, h, steps, nsamples);
    gs_work w;
    pf_etdrk4 c = {0};
    pf_status st = gs_work_init(&w, n, p->b);
    size_t nn = w.nn;
    double *s = malloc(sizeof(double) * 2 * nn), *L = malloc(sizeof(double) * 2 * nn);
    if (st == PF_OK && (!s || !L)) st = pf_fail(PF_ERR_NOMEM, "pf_gs_solve: out of memory for n = %d", n);
    if (st != PF_OK) goto done;
    double kw = PI / (p->hi - p->lo);
    for (int ky = 0; ky < n; ky++)
        for (int kx = 0; kx < n; kx++) {
            double lap = -kw * kw * ((double)kx * kx + (double)ky * ky);
            L[ky * n + kx] = p->eps1 * lap - p->b;
            L[nn + ky * n + kx] = p->eps2 * lap - p->d;
        }
    if ((st = pf_etdrk4_init(&c, L, 2 * nn, h)) != PF_OK) goto done;
    double scale = 1.0 / (4.0 * (double)nn);
    for (int comp = 0; comp < 2; comp++) {
        memcpy(w.pw, comp ? v0 : u0, sizeof(double) * nn);
        fftw_execute(w.fwd_w);
        for (size_t q = 0; q < nn; q++) s[comp * nn + q] = w.cu[q] * scale;
    }
    for (int k = 0; st == PF_OK && k < nsamples; k++) {
        if (k)
            for (int q = 0; q < steps; q++) pf_etdrk4_step(&c, s, gs_nonlin, &w);
        st = pf_etdrk4_check_finite(&c, s, "pf_gs_solve", k * steps * h);
        if (st == PF_OK) st = sample(user, k, s, s + nn);
    }
done:
    pf_etdrk4_free(&c);
    gs_work_free(&w);
    free(s), free(L);
    return st;
}

pf_status pf_cos2_eval(const double *c, int n, double lo, double hi, const double *xs, int nx, const double *ys,
                       int ny, double *out)
{
    double *g = malloc(sizeof(double) * (size_t)ny * n), *cy = malloc(sizeof(double) * n);
    if (!g || !cy) {
        free(g), free(cy);
        return pf_fail(PF_ERR_NOMEM, "pf_cos2_eval: out of memory for %d x %d points", nx, ny);
    }
    double kw = PI / (hi - lo);
    /* g[y][kx] = sum over ky of a_ky c[ky][kx] cos(ky kw (y - lo)), a_0 = 1,
     * a_k = 2 (DCT-III's weights) */
    for (int b = 0; b < ny; b++) {
        for (int ky = 0; ky < n; ky++) cy[ky] = (ky ? 2 : 1) * cos(ky * kw * (ys[b] - lo));
        for (int kx = 0; kx < n; kx++) {
            double sum = 0;
            for (int ky = 0; ky < n; ky++) sum += cy[ky] * c[(size_t)ky * n + kx];
            g[(size_t)b * n + kx] = sum;
        }
    }
    for (int a = 0; a < nx; a++) {
        for (int kx = 0; kx < n; kx++) cy[kx] = (kx ? 2 : 1) * cos(kx * kw * (xs[a] - lo));
        for (int b = 0; b < ny; b++) {
            double sum = 0;
            for (int kx = 0; kx < n; kx++) sum += cy[kx] * g[(size_t)b * n + kx];
            out[(size_t)b * nx + a] = sum;
        }
    }
    free(g), free(cy);
    return PF_OK;
}
