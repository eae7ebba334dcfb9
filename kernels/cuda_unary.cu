/*
 * cuda_unary.cu — elementwise functions on jets, the CUDA mirror of
 * src/tensor/cpu_unary.c (read that file for the derivation).
 *
 * For h = f(a) along one direction, with f_k = f^(k)(a_0) (Faa di Bruno):
 *   h1 = f1 a1
 *   h2 = f2 a1^2 + f1 a2
 *   h3 = f3 a1^3 + 3 f2 a1 a2 + f1 a3
 *   h4 = f4 a1^4 + 6 f3 a1^2 a2 + f2 (3 a2^2 + 4 a1 a3) + f1 a4
 * and for a collapsed stream hL = f2 q + f1 aL with q = sum_d w_d a_d1^2.
 * The backward differentiates these polynomials (d f_k / d a_0 = f_{k+1}).
 *
 * One thread per element i of a stream (len = n c): it builds the table
 * f_0..f_5 in registers from a_0 = x[i], then walks every direction and
 * collapsed stream at offset s len + i. Each expression is written as in
 * cpu_unary.c, term for term and in the same order, so both backends round
 * the same arithmetic; they differ only where the math library or the
 * compilers' FMA contraction do.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#include "cuda_ops.h"

#define UNARY_BLOCK 256
#define UNARY_NF 6 /* f_0 .. f_5 */
#define UNARY_KS (PF_JET_MAX_ORDER + 1) /* per-direction registers, index 1..4 used */

/* The jet layout with its stream indices resolved on the host (pf_jet_stream
 * and pf_jet_collapsed are host functions), passed to kernels by value. */
struct unary_jet {
    int ndir, ncoll;
    int order[PF_JET_MAX_DIRS];
    int dir_s[PF_JET_MAX_DIRS][PF_JET_MAX_ORDER]; /* stream of d^k/dv_d^k at [d][k - 1] */
    int coll_s[PF_JET_MAX_COLL];
    pf_real coll_w[PF_JET_MAX_COLL][PF_JET_MAX_DIRS];
};

/* f[k] = f^(k)(a), k = 0..5. t: the op's output at this element (f_0) when
 * the backward reuses it, else NULL. pf_real is float or double; the
 * unqualified math calls pick CUDA's overload of that precision. */
static __device__ void unary_derivs(pf_unary_op op, pf_real p, pf_real a, const pf_real *t,
                                    pf_real f[UNARY_NF])
{
    switch (op) {
    case PF_UNARY_TANH: {
        /* polynomials in u = tanh(a) */
        pf_real u = t ? *t : tanh(a), u2 = u * u;
        f[0] = u;
        f[1] = 1 - u2;
        f[2] = -2 * u * (1 - u2);
        f[3] = -2 + u2 * (8 - 6 * u2);
        f[4] = u * (16 + u2 * (-40 + 24 * u2));
        f[5] = 16 + u2 * (-136 + u2 * (240 - 120 * u2));
        break;
    }
    case PF_UNARY_SIN:
    case PF_UNARY_COS: {
        pf_real sn = sin(a), cs = cos(a);
        f[0] = op == PF_UNARY_SIN ? sn : cs;
        f[1] = op == PF_UNARY_SIN ? cs : -sn; /* cos' = -sin */
        f[2] = -f[0];
        f[3] = -f[1];
        f[4] = f[0];
        f[5] = f[1];
        break;
    }
    case PF_UNARY_EXP: {
        pf_real e = t ? *t : exp(a);
        f[0] = f[1] = f[2] = f[3] = f[4] = f[5] = e;
        break;
    }
    case PF_UNARY_LOG: {
        pf_real r = 1 / a;
        f[0] = t ? *t : log(a);
        f[1] = r;
        f[2] = -r * r;
        f[3] = 2 * r * r * r;
        f[4] = -6 * r * r * r * r;
        f[5] = 24 * r * r * r * r * r;
        break;
    }
    case PF_UNARY_SQUARE:
        f[0] = a * a;
        f[1] = 2 * a;
        f[2] = 2;
        f[3] = f[4] = f[5] = 0;
        break;
    case PF_UNARY_SQRT:
    case PF_UNARY_RECIP:
    case PF_UNARY_POW: {
        /* f_k = p (p-1) ... (p-k+1) a^(p-k), as a recurrence in 1/a */
        pf_real r = 1 / a;
        f[0] = t ? *t : pow(a, p);
        f[1] = p * f[0] * r;
        f[2] = (p - 1) * f[1] * r;
        f[3] = (p - 2) * f[2] * r;
        f[4] = (p - 3) * f[3] * r;
        f[5] = (p - 4) * f[4] * r;
        break;
    }
    case PF_UNARY_SIGMOID:
    case PF_UNARY_SOFTPLUS:
    case PF_UNARY_SILU: {
        /* sigmoid^(k) = P_k(s) with s = sigmoid(a); softplus^(k) = P_{k-1};
         * silu^(k) = a P_k + k P_{k-1} (cpu_unary.c lists the P_k) */
        pf_real s = 1 / (1 + exp(-a));
        pf_real P1 = s * (1 - s);
        pf_real P2 = s * (1 + s * (-3 + 2 * s));
        pf_real P3 = s * (1 + s * (-7 + s * (12 - 6 * s)));
        pf_real P4 = s * (1 + s * (-15 + s * (50 + s * (-60 + 24 * s))));
        pf_real P5 = s * (1 + s * (-31 + s * (180 + s * (-390 + s * (360 - 120 * s)))));
        if (op == PF_UNARY_SIGMOID) {
            f[0] = s; f[1] = P1; f[2] = P2; f[3] = P3; f[4] = P4; f[5] = P5;
        } else if (op == PF_UNARY_SOFTPLUS) {
            /* max(a, 0) + log1p(exp(-|a|)): no overflow for large |a| */
            f[0] = (a > 0 ? a : 0) + log1p(exp(-(a > 0 ? a : -a)));
            f[1] = s; f[2] = P1; f[3] = P2; f[4] = P3; f[5] = P4;
        } else {
            f[0] = a * s;
            f[1] = a * P1 + s;
            f[2] = a * P2 + 2 * P1;
            f[3] = a * P3 + 3 * P2;
            f[4] = a * P4 + 4 * P3;
            f[5] = a * P5 + 5 * P4;
        }
        break;
    }
    case PF_UNARY_GELU: {
        /* a Phi(a), Phi = erfc(-a / sqrt 2) / 2, phi = Phi' */
        const pf_real isq2 = (pf_real)0.70710678118654752440;
        const pf_real isq2pi = (pf_real)0.39894228040143267794;
        pf_real x2 = a * a;
        pf_real Phi = (pf_real)0.5 * erfc(-a * isq2), phi = isq2pi * exp(-(pf_real)0.5 * x2);
        f[0] = a * Phi;
        f[1] = Phi + a * phi;
        f[2] = (2 - x2) * phi;
        f[3] = a * (x2 - 4) * phi;
        f[4] = (-x2 * x2 + 7 * x2 - 4) * phi;
        f[5] = a * (x2 * x2 - 11 * x2 + 18) * phi;
        break;
    }
    case PF_UNARY_ELU:
    case PF_UNARY_SELU: {
        /* x > 0: lambda x, lambda, zeros; x <= 0 (0 included, graph.h):
         * lambda alpha (e^x - 1), then lambda alpha e^x at every order */
        const pf_real lam = op == PF_UNARY_SELU ? (pf_real)PF_SELU_SCALE : 1;
        const pf_real la = op == PF_UNARY_SELU ? (pf_real)(PF_SELU_SCALE * PF_SELU_ALPHA) : 1;
        pf_real xn = a > 0 ? 0 : a, e = exp(xn), em1 = expm1(xn);
        bool pos = a > 0;
        pf_real hi = pos ? 0 : la * e;
        f[0] = pos ? lam * a : la * em1;
        f[1] = pos ? lam : la * e;
        f[2] = f[3] = f[4] = f[5] = hi;
        break;
    }
    case PF_UNARY_RELU:
        /* relu'(0) = 0; a < 0 ? 0 : a keeps NaN */
        f[0] = a < 0 ? 0 : a;
        f[1] = a > 0 ? 1 : 0;
        f[2] = f[3] = f[4] = f[5] = 0;
        break;
    case PF_UNARY_GAUSSIAN: {
        /* exp(-C a^2); u = 2 C a, k = 2 C: Hermite polynomials in u times g
         * (cpu_unary.c lists them) */
        const pf_real C = (pf_real)PF_GAUSSIAN_C, k = 2 * C;
        pf_real g = exp(-C * a * a), u = k * a, u2 = u * u;
        f[0] = g;
        f[1] = -u * g;
        f[2] = (u2 - k) * g;
        f[3] = u * (3 * k - u2) * g;
        f[4] = (u2 * (u2 - 6 * k) + 3 * k * k) * g;
        f[5] = u * (u2 * (10 * k - u2) - 15 * k * k) * g;
        break;
    }
    case PF_UNARY_COUNT: __trap(); /* the entries reject it on the host */
    }
}

/* WaveAct's table (cpu_unary.c): f_k = w1 sin^(k)(a) + w2 cos^(k)(a), k =
 * 0..5, from f_0 = w1 s + w2 c, f_1 = w1 c - w2 s and f_{k+2} = -f_k; with
 * w1 = 1, w2 = 0 it is sin's table, with w1 = 0, w2 = 1 cos's. */
static __device__ void wave_derivs(pf_real w1, pf_real w2, pf_real a, pf_real f[UNARY_NF])
{
    pf_real sn = sin(a), cs = cos(a);
    f[0] = w1 * sn + w2 * cs;
    f[1] = w1 * cs - w2 * sn;
#pragma unroll
    for (int k = 2; k < UNARY_NF; k++) f[k] = -f[k - 2];
}

/* The table of element a: WaveAct's when w (its two parameters, device
 * memory) is given, else the unary op's. */
static __device__ void table(pf_unary_op op, pf_real p, const pf_real *w1, const pf_real *w2,
                             pf_real a, const pf_real *t, pf_real f[UNARY_NF])
{
    if (w1) wave_derivs(*w1, *w2, a, f);
    else unary_derivs(op, p, a, t, f);
}

/* r[1..k] = streams 1..k of direction d at element i (k = its order), the
 * rest zeroed so every register is defined; the unrolled loop keeps r out of
 * local memory. */
static __device__ void load_dir(const pf_real *buf, size_t len, size_t i, const unary_jet &J,
                                int d, pf_real r[UNARY_KS])
{
#pragma unroll
    for (int j = 1; j <= PF_JET_MAX_ORDER; j++)
        r[j] = j <= J.order[d] ? buf[(size_t)J.dir_s[d][j - 1] * len + i] : 0;
}

/* Forward of one direction of order k: h[1..k] from a[1..k]. */
static __device__ void dir_fwd(int k, const pf_real f[UNARY_NF], const pf_real a[UNARY_KS],
                               pf_real h[UNARY_KS])
{
    pf_real x1 = a[1], x2 = a[2], x3 = a[3], s1 = x1 * x1;
    switch (k) {
    case 1:
        h[1] = f[1] * x1;
        break;
    case 2:
        h[1] = f[1] * x1;
        h[2] = f[2] * x1 * x1 + f[1] * x2;
        break;
    case 3:
        h[1] = f[1] * x1;
        h[2] = f[2] * x1 * x1 + f[1] * x2;
        h[3] = f[3] * x1 * x1 * x1 + 3 * f[2] * x1 * x2 + f[1] * x3;
        break;
    case 4:
        h[1] = f[1] * x1;
        h[2] = f[2] * s1 + f[1] * x2;
        h[3] = f[3] * s1 * x1 + 3 * f[2] * x1 * x2 + f[1] * x3;
        h[4] = f[4] * s1 * s1 + 6 * f[3] * s1 * x2 + f[2] * (3 * x2 * x2 + 4 * x1 * x3) +
               f[1] * a[4];
        break;
    }
}

/* Backward of one direction of order k: o[j] = d/da_j from the output
 * gradients y[1..k]; the d/da_0 part is added to *g0. */
static __device__ void dir_bwd(int k, const pf_real f[UNARY_NF], const pf_real a[UNARY_KS],
                               const pf_real y[UNARY_KS], pf_real o[UNARY_KS], pf_real *g0)
{
    pf_real x1 = a[1], x2 = a[2], x3 = a[3], x4 = a[4], s1 = x1 * x1;
    pf_real y1 = y[1], y2 = y[2], y3 = y[3], y4 = y[4];
    switch (k) {
    case 1:
        o[1] = y1 * f[1];
        *g0 += y1 * f[2] * x1;
        break;
    case 2:
        o[1] = y1 * f[1] + 2 * y2 * f[2] * x1;
        o[2] = y2 * f[1];
        *g0 += y1 * f[2] * x1 + y2 * (f[3] * x1 * x1 + f[2] * x2);
        break;
    case 3:
        o[1] = y1 * f[1] + 2 * y2 * f[2] * x1 + y3 * 3 * (f[3] * s1 + f[2] * x2);
        o[2] = y2 * f[1] + 3 * y3 * f[2] * x1;
        o[3] = y3 * f[1];
        *g0 += y1 * f[2] * x1 + y2 * (f[3] * s1 + f[2] * x2) +
               y3 * (f[4] * s1 * x1 + 3 * f[3] * x1 * x2 + f[2] * x3);
        break;
    case 4:
        o[1] = y1 * f[1] + 2 * y2 * f[2] * x1 + y3 * 3 * (f[3] * s1 + f[2] * x2) +
               y4 * 4 * (f[4] * s1 * x1 + 3 * f[3] * x1 * x2 + f[2] * x3);
        o[2] = y2 * f[1] + 3 * y3 * f[2] * x1 + 6 * y4 * (f[3] * s1 + f[2] * x2);
        o[3] = y3 * f[1] + 4 * y4 * f[2] * x1;
        o[4] = y4 * f[1];
        *g0 += y1 * f[2] * x1 + y2 * (f[3] * s1 + f[2] * x2) +
               y3 * (f[4] * s1 * x1 + 3 * f[3] * x1 * x2 + f[2] * x3) +
               y4 * (f[5] * s1 * s1 + 6 * f[4] * s1 * x2 + f[3] * (3 * x2 * x2 + 4 * x1 * x3) +
                     f[2] * x4);
        break;
    }
}

/* q = sum_d w_cd a_d1^2 at element i, skipping zero weights as the CPU does. */
static __device__ pf_real coll_sq(const pf_real *x, size_t len, size_t i, const unary_jet &J, int c)
{
    pf_real q = 0;
    for (int d = 0; d < J.ndir; d++) {
        pf_real w = J.coll_w[c][d];
        if (w == 0) continue;
        pf_real a1 = x[(size_t)J.dir_s[d][0] * len + i];
        q += w * a1 * a1;
    }
    return q;
}

/* Element i of y from f's derivative table and x's jet: the value, every
 * direction's streams (Faa di Bruno) and every collapsed stream. */
static __device__ void jet_store(const pf_real f[UNARY_NF], const pf_real *x, pf_real *y, size_t len, size_t i,
                                 const unary_jet &J)
{
    y[i] = f[0];
    for (int d = 0; d < J.ndir; d++) {
        pf_real a[UNARY_KS], h[UNARY_KS];
        load_dir(x, len, i, J, d, a);
        dir_fwd(J.order[d], f, a, h);
#pragma unroll
        for (int j = 1; j <= PF_JET_MAX_ORDER; j++)
            if (j <= J.order[d]) y[(size_t)J.dir_s[d][j - 1] * len + i] = h[j];
    }
    for (int c = 0; c < J.ncoll; c++) {
        size_t sc = (size_t)J.coll_s[c] * len + i;
        y[sc] = f[2] * coll_sq(x, len, i, J, c) + f[1] * x[sc];
    }
}

/* ------------------------------------------------------------- forward */

/* y = f(x) on every stream; x, y: [S][len]. */
static __global__ void unary_fwd_kernel(pf_unary_op op, pf_real p, const pf_real *__restrict__ w1,
                                        const pf_real *__restrict__ w2,
                                        const pf_real *__restrict__ x, pf_real *__restrict__ y,
                                        size_t len, unary_jet J)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len;
         i += (size_t)gridDim.x * blockDim.x) {
        pf_real f[UNARY_NF];
        table(op, p, w1, w2, x[i], NULL, f);
        jet_store(f, x, y, len, i, J);
    }
}

static void unary_fwd_launch(pf_unary_op op, pf_real p, const pf_real *w1, const pf_real *w2,
                             const pf_real *x, pf_real *y, size_t len, const unary_jet *J,
                             cudaStream_t stream)
{
    unary_fwd_kernel<<<pf_cuda_grid(len, UNARY_BLOCK), UNARY_BLOCK, 0, stream>>>(op, p, w1, w2, x, y,
                                                                                 len, *J);
    PF_CUDA_CHECK(cudaGetLastError());
}

/* ------------------------------------------------------------ backward */

/* gx (written, or added to when acc) from gy; x, gy, gx: [S][len]. t: the
 * forward output (f_0 reused) or NULL. */
static __global__ void unary_bwd_kernel(pf_unary_op op, pf_real p, const pf_real *__restrict__ w1,
                                        const pf_real *__restrict__ w2,
                                        const pf_real *__restrict__ x,
                                        const pf_real *__restrict__ t,
                                        const pf_real *__restrict__ gy, pf_real *__restrict__ gx,
                                        size_t len, unary_jet J, int acc)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len;
         i += (size_t)gridDim.x * blockDim.x) {
        pf_real f[UNARY_NF], gl[PF_JET_MAX_COLL];
        table(op, p, w1, w2, x[i], t ? t + i : NULL, f);
#pragma unroll
        for (int c = 0; c < PF_JET_MAX_COLL; c++)
            gl[c] = c < J.ncoll ? gy[(size_t)J.coll_s[c] * len + i] : 0;
        pf_real g0 = gy[i] * f[1];
        for (int d = 0; d < J.ndir; d++) {
            int k = J.order[d];
            pf_real a[UNARY_KS], y[UNARY_KS], o[UNARY_KS];
            load_dir(x, len, i, J, d, a);
            load_dir(gy, len, i, J, d, y);
            dir_bwd(k, f, a, y, o, &g0);
#pragma unroll
            for (int j = 1; j <= PF_JET_MAX_ORDER; j++) {
                if (j > k) continue;
                pf_real *g = gx + (size_t)J.dir_s[d][j - 1] * len + i;
                pf_real v = acc ? *g + o[j] : o[j];
                /* the CPU adds each collapsed stream's 2 w gL f2 a1 to the
                 * first-order gradient after writing it (coll_bwd_dir); the
                 * same additions, in the same order, on the register */
                if (j == 1) {
#pragma unroll
                    for (int c = 0; c < PF_JET_MAX_COLL; c++) {
                        pf_real w = c < J.ncoll ? J.coll_w[c][d] : 0;
                        if (w != 0) v += 2 * w * gl[c] * f[2] * a[1];
                    }
                }
                *g = v;
            }
        }
#pragma unroll
        for (int c = 0; c < PF_JET_MAX_COLL; c++) {
            if (c >= J.ncoll) continue;
            size_t sc = (size_t)J.coll_s[c] * len + i;
            g0 += gl[c] * (f[3] * coll_sq(x, len, i, J, c) + f[2] * x[sc]);
            pf_real oL = gl[c] * f[1];
            gx[sc] = acc ? gx[sc] + oL : oL;
        }
        gx[i] = acc ? gx[i] + g0 : g0;
    }
}

static void unary_bwd_launch(pf_unary_op op, pf_real p, const pf_real *w1, const pf_real *w2,
                             const pf_real *x, const pf_real *t, const pf_real *gy, pf_real *gx,
                             size_t len, const unary_jet *J, int acc, cudaStream_t stream)
{
    unary_bwd_kernel<<<pf_cuda_grid(len, UNARY_BLOCK), UNARY_BLOCK, 0, stream>>>(
        op, p, w1, w2, x, t, gy, gx, len, *J, acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

/* ------------------------------------------------------------- WaveAct */

/* The jets of sin(x) and cos(x) on every stream (sj, cj: [S][len]), the
 * factors of dL/dw1 and dL/dw2 (y = w1 S + w2 C). */
static __global__ void wave_basis_kernel(const pf_real *__restrict__ x, pf_real *__restrict__ sj,
                                         pf_real *__restrict__ cj, size_t len, unary_jet J)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len;
         i += (size_t)gridDim.x * blockDim.x) {
        for (int b = 0; b < 2; b++) {
            pf_real f[UNARY_NF];
            wave_derivs(b ? 0 : 1, b ? 1 : 0, x[i], f);
            jet_store(f, x, b ? cj : sj, len, i, J);
        }
    }
}

/* g1[0] += dot[0], g2[0] += dot[1] (either may be NULL: a frozen parameter). */
static __global__ void wave_param_grad_kernel(pf_real *g1, pf_real *g2, const double *dot)
{
    if (g1) g1[0] += (pf_real)dot[0];
    if (g2) g2[0] += (pf_real)dot[1];
}

static void wave_basis_launch(const pf_real *x, pf_real *sj, pf_real *cj, size_t len,
                              const unary_jet *J, cudaStream_t stream)
{
    wave_basis_kernel<<<pf_cuda_grid(len, UNARY_BLOCK), UNARY_BLOCK, 0, stream>>>(x, sj, cj, len,
                                                                                  *J);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void wave_param_grad_launch(pf_real *g1, pf_real *g2, const double *dot, cudaStream_t stream)
{
    wave_param_grad_kernel<<<1, 1, 0, stream>>>(g1, g2, dot);
    PF_CUDA_CHECK(cudaGetLastError());
}

/* -------------------------------------------------------------- entries */

static unary_jet unary_jet_of(const pf_jet_layout *L)
{
    unary_jet J = {};
    J.ndir = L->ndir;
    J.ncoll = L->ncoll;
    for (int d = 0; d < L->ndir; d++) {
        J.order[d] = L->order[d];
        for (int k = 1; k <= L->order[d]; k++) J.dir_s[d][k - 1] = pf_jet_stream(L, d, k);
    }
    for (int c = 0; c < L->ncoll; c++) {
        J.coll_s[c] = pf_jet_collapsed(L, c);
        for (int d = 0; d < L->ndir; d++) J.coll_w[c][d] = L->coll_w[c][d];
    }
    return J;
}

/* Input and output share n, c and the layout (pf_unary builds y from x). */
static void unary_check(const struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    PF_ASSERT(y->unary >= 0 && y->unary < PF_UNARY_COUNT);
    PF_ASSERT(x->n == y->n && x->c == y->c && x->S == y->S);
}

void pf_cuda_unary_fwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    unary_check(y);
    unary_jet J = unary_jet_of(&y->layout);
    unary_fwd_launch(y->unary, y->p, NULL, NULL, y->in[0]->val, y->val, pf_node_stream_len(y), &J,
                     ctx->stream);
}

void pf_cuda_unary_bwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    unary_check(y);
    pf_unary_op op = y->unary;
    bool reuse = pf_unary_reuses_output(op); /* as on the CPU */
    unary_jet J = unary_jet_of(&y->layout);
    unary_bwd_launch(op, y->p, NULL, NULL, x->val, reuse ? y->val : NULL, y->grad, x->grad,
                     pf_node_stream_len(y), &J, y->in_acc[0] ? 1 : 0, ctx->stream);
}

/* Scratch: PF_CUDA_RED_BLOCKS partial sums and the two dot products
 * (doubles), then the jets of sin(x) and cos(x) ([S][n][c] each). */
size_t pf_cuda_waveact_scratch(const struct pf_node *y)
{
    return (PF_CUDA_RED_BLOCKS + 2) * sizeof(double) + 2 * pf_node_len(y) * sizeof(pf_real);
}

static void waveact_check(const struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    PF_ASSERT(y->op == PF_OP_WAVEACT && y->pw[0] && y->pw[1]);
    PF_ASSERT(x->n == y->n && x->c == y->c && x->S == y->S);
}

void pf_cuda_waveact_fwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    waveact_check(y);
    unary_jet J = unary_jet_of(&y->layout);
    unary_fwd_launch(PF_UNARY_SIN, 0, y->pw[0], y->pw[1], y->in[0]->val, y->val,
                     pf_node_stream_len(y), &J, ctx->stream);
}

void pf_cuda_waveact_bwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    struct pf_node *x = y->in[0];
    waveact_check(y);
    unary_jet J = unary_jet_of(&y->layout);
    size_t len = pf_node_stream_len(y);
    if (x->grad)
        unary_bwd_launch(PF_UNARY_SIN, 0, y->pw[0], y->pw[1], x->val, NULL, y->grad, x->grad, len,
                         &J, y->in_acc[0] ? 1 : 0, ctx->stream);
    if (!y->pg[0] && !y->pg[1]) return;
    double *part = (double *)y->scratch, *dot = part + PF_CUDA_RED_BLOCKS;
    pf_real *sj = (pf_real *)(dot + 2), *cj = sj + pf_node_len(y);
    wave_basis_launch(x->val, sj, cj, len, &J, ctx->stream);
    pf_cuda_reduce(PF_VEC_DOT, y->grad, sj, pf_node_len(y), part, dot, ctx->stream);
    pf_cuda_reduce(PF_VEC_DOT, y->grad, cj, pf_node_len(y), part, dot + 1, ctx->stream);
    wave_param_grad_launch(y->pg[0], y->pg[1], dot, ctx->stream);
}
