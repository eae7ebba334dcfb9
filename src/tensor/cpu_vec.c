/*
 * The CPU backend's flat-vector ops: what the optimizers run (backend.h).
 * Host memory, cblas for dot/axpy/scal, OpenMP loops. Reductions use fixed
 * blocks summed in double, so results do not depend on the thread count.
 * Capture on the CPU records the body and replay calls it: the same
 * contract as a CUDA graph, so the trainer's recorded step runs (and is
 * tested) on every machine.
 */
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensor/cpu_ops.h"
#include "tensor/grad_noise.h"

#ifdef PF_DOUBLE
#define xdot cblas_ddot
#define xaxpy cblas_daxpy
#define xscal cblas_dscal
#define real_sqrt sqrt
#else
#define xdot cblas_sdot
#define xaxpy cblas_saxpy
#define xscal cblas_sscal
#define real_sqrt sqrtf
#endif

/* Below OpenBLAS's threading threshold for dot (10000 on x86_64), so each
 * block is summed by one thread; the blocks are added in double. */
enum { DOT_BLOCK = 4096 };
/* Chunks of the clipped norm: each summed serially in double, then added in order. */
enum { NORM_CHUNKS = 256 };

void pf_cpu_copy_real(pf_real *dst, const pf_real *src, size_t n)
{
    if (n) memcpy(dst, src, n * sizeof *dst);
}

void pf_cpu_axpy(size_t n, double a, const pf_real *x, pf_real *y)
{
    if (n) xaxpy((int)n, (pf_real)a, x, 1, y, 1);
}

void pf_cpu_scal(size_t n, double a, pf_real *x)
{
    if (n) xscal((int)n, (pf_real)a, x, 1);
}

void pf_cpu_clamp_min(pf_real *x, size_t n, double lo)
{
    const pf_real l = (pf_real)lo;
    for (size_t i = 0; i < n; i++)
        if (x[i] < l) x[i] = l;
}

double pf_cpu_reduce(pf_vec_red kind, const pf_real *x, const pf_real *y, size_t n)
{
    double s = 0;
    switch (kind) {
    case PF_VEC_DOT:
        for (size_t i = 0; i < n; i += DOT_BLOCK) {
            int len = (int)(n - i < DOT_BLOCK ? n - i : DOT_BLOCK);
            s += xdot(len, x + i, 1, y ? y + i : x + i, 1);
        }
        return s;
    case PF_VEC_ASUM:
        for (size_t i = 0; i < n; i++) s += fabs((double)x[i]);
        return s;
    case PF_VEC_AMAX:
        for (size_t i = 0; i < n; i++) s = fmax(s, fabs((double)x[i]));
        return s;
    }
    PF_ABORT("bad reduction %d", (int)kind);
}

void pf_cpu_clip_norm(pf_real *g, size_t n, double max_norm, double *norm)
{
    double part[NORM_CHUNKS];
    const size_t chunk = (n + NORM_CHUNKS - 1) / NORM_CHUNKS;
#pragma omp parallel for schedule(static) if (n > PF_CPU_PAR_MIN)
    for (int c = 0; c < NORM_CHUNKS; c++) {
        size_t lo = (size_t)c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        double s = 0;
        for (size_t i = lo; i < hi; i++) s += (double)g[i] * (double)g[i];
        part[c] = s;
    }
    double sum = 0;
    for (int c = 0; c < NORM_CHUNKS; c++) sum += part[c];
    *norm = sqrt(sum);
    if (isfinite(*norm) && *norm > max_norm) {
        const pf_real scale = (pf_real)(max_norm / (*norm + 1e-6));
#pragma omp parallel for schedule(static) if (n > PF_CPU_PAR_MIN)
        for (size_t i = 0; i < n; i++) g[i] *= scale;
    }
}

/* No `omp simd`: clang reports a forced simd loop it cannot vectorize (sqrt
 * under -fmath-errno, any loop under -fsanitize) as a warning, fatal with
 * -Werror. The compilers vectorize what they can. */
void pf_cpu_adam(pf_real *params, const pf_real *grads, pf_real *mv, size_t n, const pf_real *c)
{
    const pf_real b1 = c[PF_ADAM_B1], b2 = c[PF_ADAM_B2], one_b1 = c[PF_ADAM_ONE_B1];
    const pf_real one_b2 = c[PF_ADAM_ONE_B2], step = c[PF_ADAM_STEP], bc2_sqrt = c[PF_ADAM_BC2_SQRT];
    const pf_real eps = c[PF_ADAM_EPS], shrink = c[PF_ADAM_SHRINK], l2 = c[PF_ADAM_L2];
    const pf_real sign = c[PF_ADAM_SIGN];
    pf_real *restrict m = mv, *restrict v = mv + n, *restrict p = params;
    const pf_real *restrict g = grads;
#pragma omp parallel for schedule(static) if (n > PF_CPU_PAR_MIN)
    for (size_t i = 0; i < n; i++) {
        pf_real pi = p[i] * shrink;
        pf_real gi = sign * g[i] + l2 * pi;
        m[i] = b1 * m[i] + one_b1 * gi;
        v[i] = b2 * v[i] + one_b2 * gi * gi;
        p[i] = pi - step * m[i] / (real_sqrt(v[i]) / bc2_sqrt + eps);
    }
}

void pf_cpu_sgd(pf_real *params, const pf_real *grads, size_t n, const pf_real *lr)
{
    const pf_real a = lr[0];
    pf_real *restrict p = params;
    const pf_real *restrict g = grads;
#pragma omp parallel for schedule(static) if (n > PF_CPU_PAR_MIN)
    for (size_t i = 0; i < n; i++) p[i] -= a * g[i];
}

void pf_cpu_grad_noise(pf_real *ring, size_t n, int T, const pf_real *g, double *state)
{
    PF_ASSERT(T >= 1);
    long pushed = (long)state[0];
    if (n) memcpy(ring + (size_t)(pushed % T) * n, g, n * sizeof *g);
    state[0] = (double)(pushed + 1);
    if (n == 0) {
        state[1] = 1;
        return;
    }
    const int m = pf_grad_noise_count(pushed + 1, T); /* what the ring holds, as released */
    double part[NORM_CHUNKS];
    const size_t chunk = (n + NORM_CHUNKS - 1) / NORM_CHUNKS;
#pragma omp parallel for schedule(static) if (n * (size_t)T > PF_CPU_PAR_MIN)
    for (int c = 0; c < NORM_CHUNKS; c++) {
        size_t lo = (size_t)c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        double s = 0;
        for (size_t j = lo; j < hi; j++) s += pf_grad_noise_ratio(ring, n, m, j);
        part[c] = s;
    }
    double sum = 0;
    for (int c = 0; c < NORM_CHUNKS; c++) sum += part[c];
    double sigma = sum / (double)n;
    state[1] = sigma == 0 ? 1 : sigma;
}

/* ------------------------------------------------------------ capture */

typedef struct recording {
    void (*body)(void *);
    void *arg;
} recording;

pf_status pf_cpu_capture(void (*body)(void *), void *arg, void **exec)
{
    recording *r = malloc(sizeof *r);
    if (!r) return pf_fail(PF_ERR_NOMEM, "out of memory recording a step");
    *r = (recording){body, arg};
    *exec = r;
    return PF_OK;
}

pf_status pf_cpu_replay(void *exec)
{
    recording *r = exec;
    r->body(r->arg);
    return PF_OK;
}

void pf_cpu_drop(void *exec) { free(exec); }

void pf_cpu_info(pf_device_info *out)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    snprintf(out->name, sizeof out->name, "CPU, %d OpenMP threads", omp_get_max_threads());
    out->memory_gib = pages > 0 && psize > 0 ? (double)pages * (double)psize / (1u << 30) : 0;
}
