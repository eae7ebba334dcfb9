/*
 * Elementwise functions on jets: Faa di Bruno's formula up to order 4.
 *
 * For h = f(a) along one direction, with f_k = f^(k)(a_0):
 *   h1 = f1 a1
 *   h2 = f2 a1^2 + f1 a2
 *   h3 = f3 a1^3 + 3 f2 a1 a2 + f1 a3
 *   h4 = f4 a1^4 + 6 f3 a1^2 a2 + f2 (3 a2^2 + 4 a1 a3) + f1 a4
 * and for a collapsed stream hL = f2 sum_d w_d a_d1^2 + f1 aL.
 * The backward differentiates these polynomials; d f_k / d a_0 = f_{k+1}, so
 * it needs f up to order K + 1 (5 at most).
 *
 * Work is done in blocks of BLK elements: first the derivative table
 * f[0..K][BLK] (vectorised libm calls via vmath.h), then one vector loop per
 * stream.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "tensor/cpu_ops.h"
#include "tensor/vmath.h"

#define BLK 512
#define MAXF 6 /* f_0 .. f_5 */

typedef pf_real ftab[MAXF][BLK];

/* f[k][i] = f^(k)(a[i]) for k = 0..K at least (tanh, the common case, stops
 * at K; the others fill all six). `t` is the op's output value stream (f_0)
 * when already known (backward), else NULL. */
static void derivs(pf_unary_op op, pf_real p, const pf_real *restrict a, const pf_real *restrict t,
                   int m, int K, ftab f)
{
    pf_real *restrict f0 = f[0], *restrict f1 = f[1], *restrict f2 = f[2], *restrict f3 = f[3],
                      *restrict f4 = f[4], *restrict f5 = f[5];
    switch (op) {
    case PF_UNARY_TANH:
        if (t) memcpy(f0, t, (size_t)m * sizeof *f0);
        else
            for (int i = 0; i < m; i++) f0[i] = pf_tanh(a[i]);
        /* derivatives as polynomials in u = tanh(a), only up to order K */
        for (int i = 0; i < m; i++) {
            pf_real u = f0[i], u2 = u * u;
            f1[i] = 1 - u2;
            f2[i] = -2 * u * (1 - u2);
        }
        if (K >= 3)
            for (int i = 0; i < m; i++) {
                pf_real u2 = f0[i] * f0[i];
                f3[i] = -2 + u2 * (8 - 6 * u2);
            }
        if (K >= 4)
            for (int i = 0; i < m; i++) {
                pf_real u = f0[i], u2 = u * u;
                f4[i] = u * (16 + u2 * (-40 + 24 * u2));
            }
        if (K >= 5)
            for (int i = 0; i < m; i++) {
                pf_real u2 = f0[i] * f0[i];
                f5[i] = 16 + u2 * (-136 + u2 * (240 - 120 * u2));
            }
        break;
    case PF_UNARY_SIN:
    case PF_UNARY_COS: {
        /* two loops: gcc would fuse sin and cos into sincos, which has no
         * vector variant declared */
        pf_real *restrict sv = op == PF_UNARY_SIN ? f0 : f1, *restrict cv = op == PF_UNARY_SIN ? f1 : f0;
        for (int i = 0; i < m; i++) sv[i] = pf_sin(a[i]);
        for (int i = 0; i < m; i++) cv[i] = pf_cos(a[i]);
        if (op == PF_UNARY_COS)
            for (int i = 0; i < m; i++) f1[i] = -f1[i]; /* cos' = -sin */
        for (int i = 0; i < m; i++) {
            f2[i] = -f0[i];
            f3[i] = -f1[i];
            f4[i] = f0[i];
            f5[i] = f1[i];
        }
        break;
    }
    case PF_UNARY_EXP:
        for (int i = 0; i < m; i++) {
            pf_real e = t ? t[i] : pf_exp(a[i]);
            f0[i] = f1[i] = f2[i] = f3[i] = f4[i] = f5[i] = e;
        }
        break;
    case PF_UNARY_LOG:
        for (int i = 0; i < m; i++) {
            pf_real r = 1 / a[i];
            f0[i] = t ? t[i] : pf_ln(a[i]);
            f1[i] = r;
            f2[i] = -r * r;
            f3[i] = 2 * r * r * r;
            f4[i] = -6 * r * r * r * r;
            f5[i] = 24 * r * r * r * r * r;
        }
        break;
    case PF_UNARY_SQUARE:
        for (int i = 0; i < m; i++) {
            f0[i] = a[i] * a[i];
            f1[i] = 2 * a[i];
            f2[i] = 2;
            f3[i] = f4[i] = f5[i] = 0;
        }
        break;
    case PF_UNARY_SQRT:
    case PF_UNARY_RECIP:
    case PF_UNARY_POW:
        /* f_k = p (p-1) ... (p-k+1) a^(p-k) */
        for (int i = 0; i < m; i++) {
            pf_real r = 1 / a[i], v = t ? t[i] : pf_pow(a[i], p);
            f0[i] = v;
            f1[i] = p * v * r;
            f2[i] = (p - 1) * f1[i] * r;
            f3[i] = (p - 2) * f2[i] * r;
            f4[i] = (p - 3) * f3[i] * r;
            f5[i] = (p - 4) * f4[i] * r;
        }
        break;
    case PF_UNARY_SIGMOID:
    case PF_UNARY_SOFTPLUS:
    case PF_UNARY_SILU:
        /* with s = sigmoid(a), sigmoid^(k) = P_k(s):
         *   P1 = s - s^2,  P2 = s - 3s^2 + 2s^3,  P3 = s - 7s^2 + 12s^3 - 6s^4,
         *   P4 = s - 15s^2 + 50s^3 - 60s^4 + 24s^5,
         *   P5 = s - 31s^2 + 180s^3 - 390s^4 + 360s^5 - 120s^6.
         * softplus^(k) = P_{k-1}; silu^(k) = a P_k + k P_{k-1}. */
        for (int i = 0; i < m; i++) {
            pf_real x = a[i], s = 1 / (1 + pf_exp(-x));
            pf_real P1 = s * (1 - s);
            pf_real P2 = s * (1 + s * (-3 + 2 * s));
            pf_real P3 = s * (1 + s * (-7 + s * (12 - 6 * s)));
            pf_real P4 = s * (1 + s * (-15 + s * (50 + s * (-60 + 24 * s))));
            pf_real P5 = s * (1 + s * (-31 + s * (180 + s * (-390 + s * (360 - 120 * s)))));
            if (op == PF_UNARY_SIGMOID) {
                f0[i] = s; f1[i] = P1; f2[i] = P2; f3[i] = P3; f4[i] = P4; f5[i] = P5;
            } else if (op == PF_UNARY_SOFTPLUS) {
                f0[i] = (x > 0 ? x : 0) + pf_log1p(pf_exp(-(x > 0 ? x : -x)));
                f1[i] = s; f2[i] = P1; f3[i] = P2; f4[i] = P3; f5[i] = P4;
            } else {
                f0[i] = x * s;
                f1[i] = x * P1 + s;
                f2[i] = x * P2 + 2 * P1;
                f3[i] = x * P3 + 3 * P2;
                f4[i] = x * P4 + 4 * P3;
                f5[i] = x * P5 + 5 * P4;
            }
        }
        break;
    case PF_UNARY_GELU: {
        /* gelu = a Phi(a); Phi' = phi, phi^(j) = He_j-type polynomials times phi */
        const pf_real isq2 = (pf_real)0.70710678118654752440, isq2pi = (pf_real)0.39894228040143267794;
        for (int i = 0; i < m; i++) {
            pf_real x = a[i], x2 = x * x;
            pf_real Phi = (pf_real)0.5 * pf_erfc(-x * isq2), phi = isq2pi * pf_exp(-(pf_real)0.5 * x2);
            f0[i] = x * Phi;
            f1[i] = Phi + x * phi;
            f2[i] = (2 - x2) * phi;
            f3[i] = x * (x2 - 4) * phi;
            f4[i] = (-x2 * x2 + 7 * x2 - 4) * phi;
            f5[i] = x * (x2 * x2 - 11 * x2 + 18) * phi;
        }
        break;
    }
    case PF_UNARY_ELU:
    case PF_UNARY_SELU: {
        /* x > 0: lambda x, then lambda and zeros; x <= 0 (0 included, graph.h):
         * lambda alpha (e^x - 1), then lambda alpha e^x at every order. Both
         * libm calls see min(x, 0), so nothing overflows; NaN takes the
         * exponential branch and stays NaN. */
        const pf_real lam = op == PF_UNARY_SELU ? (pf_real)PF_SELU_SCALE : 1;
        const pf_real la = op == PF_UNARY_SELU ? (pf_real)(PF_SELU_SCALE * PF_SELU_ALPHA) : 1;
        for (int i = 0; i < m; i++) {
            pf_real x = a[i], xn = x > 0 ? 0 : x;
            pf_real e = pf_exp(xn), em1 = pf_expm1(xn);
            bool pos = x > 0;
            pf_real hi = pos ? 0 : la * e;
            f0[i] = pos ? lam * x : la * em1;
            f1[i] = pos ? lam : la * e;
            f2[i] = hi;
            f3[i] = hi;
            f4[i] = hi;
            f5[i] = hi;
        }
        break;
    }
    case PF_UNARY_RELU:
        /* relu'(0) = 0 (graph.h); x < 0 ? 0 : x keeps NaN */
        for (int i = 0; i < m; i++) {
            pf_real x = a[i];
            f0[i] = x < 0 ? 0 : x;
            f1[i] = x > 0 ? 1 : 0;
            f2[i] = f3[i] = f4[i] = f5[i] = 0;
        }
        break;
    case PF_UNARY_GAUSSIAN: {
        /* g = exp(-C x^2); with u = 2 C x and k = 2 C the derivatives are
         * Hermite polynomials in u times g:
         *   g' = -u g,  g'' = (u^2 - k) g,  g''' = (-u^3 + 3 k u) g,
         *   g'''' = (u^4 - 6 k u^2 + 3 k^2) g,  g^(5) = (-u^5 + 10 k u^3 - 15 k^2 u) g */
        const pf_real C = (pf_real)PF_GAUSSIAN_C, k = 2 * C;
        for (int i = 0; i < m; i++) {
            pf_real x = a[i], g = pf_exp(-C * x * x), u = k * x, u2 = u * u;
            f0[i] = g;
            f1[i] = -u * g;
            f2[i] = (u2 - k) * g;
            f3[i] = u * (3 * k - u2) * g;
            f4[i] = (u2 * (u2 - 6 * k) + 3 * k * k) * g;
            f5[i] = u * (u2 * (10 * k - u2) - 15 * k * k) * g;
        }
        break;
    }
    case PF_UNARY_COUNT: PF_ABORT("bad unary op");
    }
}

/* The per-order loops take every stream as a restrict parameter: gcc trusts
 * restrict on parameters (not on local pointers) and only then vectorises
 * loops that write several streams. */
#define R restrict
static void fwd_o1(int m, const pf_real *R f1, const pf_real *R a1, pf_real *R h1)
{
    for (int i = 0; i < m; i++) h1[i] = f1[i] * a1[i];
}

static void fwd_o2(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R a1,
                   const pf_real *R a2, pf_real *R h1, pf_real *R h2)
{
    for (int i = 0; i < m; i++) {
        pf_real x1 = a1[i];
        h1[i] = f1[i] * x1;
        h2[i] = f2[i] * x1 * x1 + f1[i] * a2[i];
    }
}

static void fwd_o3(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R f3,
                   const pf_real *R a1, const pf_real *R a2, const pf_real *R a3, pf_real *R h1,
                   pf_real *R h2, pf_real *R h3)
{
    for (int i = 0; i < m; i++) {
        pf_real x1 = a1[i], x2 = a2[i];
        h1[i] = f1[i] * x1;
        h2[i] = f2[i] * x1 * x1 + f1[i] * x2;
        h3[i] = f3[i] * x1 * x1 * x1 + 3 * f2[i] * x1 * x2 + f1[i] * a3[i];
    }
}

static void fwd_o4(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R f3,
                   const pf_real *R f4, const pf_real *R a1, const pf_real *R a2,
                   const pf_real *R a3, const pf_real *R a4, pf_real *R h1, pf_real *R h2,
                   pf_real *R h3, pf_real *R h4)
{
    for (int i = 0; i < m; i++) {
        pf_real x1 = a1[i], x2 = a2[i], x3 = a3[i], s1 = x1 * x1;
        h1[i] = f1[i] * x1;
        h2[i] = f2[i] * s1 + f1[i] * x2;
        h3[i] = f3[i] * s1 * x1 + 3 * f2[i] * x1 * x2 + f1[i] * x3;
        h4[i] = f4[i] * s1 * s1 + 6 * f3[i] * s1 * x2 + f2[i] * (3 * x2 * x2 + 4 * x1 * x3) +
                f1[i] * a4[i];
    }
}

/* Forward of one direction of order k on a block of m elements. */
static void fdb_dir_fwd(int k, int m, ftab f, pf_real *const a[5], pf_real *const h[5])
{
    switch (k) {
    case 1: fwd_o1(m, f[1], a[1], h[1]); break;
    case 2: fwd_o2(m, f[1], f[2], a[1], a[2], h[1], h[2]); break;
    case 3: fwd_o3(m, f[1], f[2], f[3], a[1], a[2], a[3], h[1], h[2], h[3]); break;
    case 4: fwd_o4(m, f[1], f[2], f[3], f[4], a[1], a[2], a[3], a[4], h[1], h[2], h[3], h[4]); break;
    }
}

/* Backward per order: o_j = d/da_j (block temporaries), g0 += d/da_0. */
static void bwd_o1(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R a1,
                   const pf_real *R y1, pf_real *R o1, pf_real *R g0)
{
    for (int i = 0; i < m; i++) {
        o1[i] = y1[i] * f1[i];
        g0[i] += y1[i] * f2[i] * a1[i];
    }
}

static void bwd_o2(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R f3,
                   const pf_real *R a1, const pf_real *R a2, const pf_real *R g1,
                   const pf_real *R g2, pf_real *R o1, pf_real *R o2, pf_real *R g0)
{
    for (int i = 0; i < m; i++) {
        pf_real x1 = a1[i], x2 = a2[i], y1 = g1[i], y2 = g2[i];
        o1[i] = y1 * f1[i] + 2 * y2 * f2[i] * x1;
        o2[i] = y2 * f1[i];
        g0[i] += y1 * f2[i] * x1 + y2 * (f3[i] * x1 * x1 + f2[i] * x2);
    }
}

static void bwd_o3(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R f3,
                   const pf_real *R f4, const pf_real *R a1, const pf_real *R a2,
                   const pf_real *R a3, const pf_real *R g1, const pf_real *R g2,
                   const pf_real *R g3, pf_real *R o1, pf_real *R o2, pf_real *R o3, pf_real *R g0)
{
    for (int i = 0; i < m; i++) {
        pf_real x1 = a1[i], x2 = a2[i], x3 = a3[i], y1 = g1[i], y2 = g2[i], y3 = g3[i];
        pf_real s1 = x1 * x1;
        o1[i] = y1 * f1[i] + 2 * y2 * f2[i] * x1 + y3 * 3 * (f3[i] * s1 + f2[i] * x2);
        o2[i] = y2 * f1[i] + 3 * y3 * f2[i] * x1;
        o3[i] = y3 * f1[i];
        g0[i] += y1 * f2[i] * x1 + y2 * (f3[i] * s1 + f2[i] * x2) +
                 y3 * (f4[i] * s1 * x1 + 3 * f3[i] * x1 * x2 + f2[i] * x3);
    }
}

static void bwd_o4(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R f3,
                   const pf_real *R f4, const pf_real *R f5, const pf_real *R a1,
                   const pf_real *R a2, const pf_real *R a3, const pf_real *R a4,
                   const pf_real *R g1, const pf_real *R g2, const pf_real *R g3,
                   const pf_real *R g4, pf_real *R o1, pf_real *R o2, pf_real *R o3, pf_real *R o4,
                   pf_real *R g0)
{
    for (int i = 0; i < m; i++) {
        pf_real x1 = a1[i], x2 = a2[i], x3 = a3[i], x4 = a4[i];
        pf_real y1 = g1[i], y2 = g2[i], y3 = g3[i], y4 = g4[i];
        pf_real s1 = x1 * x1;
        o1[i] = y1 * f1[i] + 2 * y2 * f2[i] * x1 + y3 * 3 * (f3[i] * s1 + f2[i] * x2) +
                y4 * 4 * (f4[i] * s1 * x1 + 3 * f3[i] * x1 * x2 + f2[i] * x3);
        o2[i] = y2 * f1[i] + 3 * y3 * f2[i] * x1 + 6 * y4 * (f3[i] * s1 + f2[i] * x2);
        o3[i] = y3 * f1[i] + 4 * y4 * f2[i] * x1;
        o4[i] = y4 * f1[i];
        g0[i] += y1 * f2[i] * x1 + y2 * (f3[i] * s1 + f2[i] * x2) +
                 y3 * (f4[i] * s1 * x1 + 3 * f3[i] * x1 * x2 + f2[i] * x3) +
                 y4 * (f5[i] * s1 * s1 + 6 * f4[i] * s1 * x2 + f3[i] * (3 * x2 * x2 + 4 * x1 * x3) +
                       f2[i] * x4);
    }
}

/* Backward of one direction of order k: d/da_j into block temporaries o,
 * the contribution to d/da0 added into g0. */
static void fdb_dir_bwd(int k, int m, ftab f, pf_real *const a[5], pf_real *const gh[5],
                        pf_real o[4][BLK], pf_real *g0)
{
    switch (k) {
    case 1: bwd_o1(m, f[1], f[2], a[1], gh[1], o[0], g0); break;
    case 2: bwd_o2(m, f[1], f[2], f[3], a[1], a[2], gh[1], gh[2], o[0], o[1], g0); break;
    case 3:
        bwd_o3(m, f[1], f[2], f[3], f[4], a[1], a[2], a[3], gh[1], gh[2], gh[3], o[0], o[1], o[2], g0);
        break;
    case 4:
        bwd_o4(m, f[1], f[2], f[3], f[4], f[5], a[1], a[2], a[3], a[4], gh[1], gh[2], gh[3], gh[4],
               o[0], o[1], o[2], o[3], g0);
        break;
    }
}

/* Collapsed stream, forward: hL = f2 q + f1 aL with q = sum_d w_d a_d1^2. */
static void coll_fwd(int m, const pf_real *R f1, const pf_real *R f2, const pf_real *R q,
                     const pf_real *R aL, pf_real *R hL)
{
    for (int i = 0; i < m; i++) hL[i] = f2[i] * q[i] + f1[i] * aL[i];
}

static void add_sq(int m, pf_real w, const pf_real *R a1, pf_real *R q)
{
    for (int i = 0; i < m; i++) q[i] += w * a1[i] * a1[i];
}

/* Collapsed stream, backward: o1 += 2 w gL f2 a1 for a direction. */
static void coll_bwd_dir(int m, pf_real w, const pf_real *R gL, const pf_real *R f2,
                         const pf_real *R a1, pf_real *R o1)
{
    for (int i = 0; i < m; i++) o1[i] += 2 * w * gL[i] * f2[i] * a1[i];
}

/* Collapsed stream, backward: g0 += gL (f3 q + f2 aL), oL = gL f1. */
static void coll_bwd(int m, const pf_real *R gL, const pf_real *R f1, const pf_real *R f2,
                     const pf_real *R f3, const pf_real *R q, const pf_real *R aL, pf_real *R g0,
                     pf_real *R oL)
{
    for (int i = 0; i < m; i++) {
        g0[i] += gL[i] * (f3[i] * q[i] + f2[i] * aL[i]);
        oL[i] = gL[i] * f1[i];
    }
}
#undef R

/* Pointers to the k-th stream of direction d of a jet buffer at element b0. */
static void dir_ptrs(const pf_jet_layout *L, pf_real *buf, size_t len, size_t b0, int d,
                     pf_real *p[5])
{
    p[0] = buf + b0;
    for (int k = 1; k <= 4; k++)
        p[k] = k <= L->order[d] ? buf + (size_t)pf_jet_stream(L, d, k) * len + b0 : NULL;
}

/* The Taylor streams of one block of m elements at b0 from the derivative
 * table f (f[0] already the value): every direction, then every collapsed
 * stream. x, y: [S][len]. */
static void block_fwd(const pf_jet_layout *L, size_t len, size_t b0, int m, ftab f,
                      const pf_real *xv, pf_real *yv)
{
    memcpy(yv + b0, f[0], (size_t)m * sizeof(pf_real));
    for (int d = 0; d < L->ndir; d++) {
        pf_real *a[5], *h[5];
        dir_ptrs(L, (pf_real *)xv, len, b0, d, a);
        dir_ptrs(L, yv, len, b0, d, h);
        fdb_dir_fwd(L->order[d], m, f, a, h);
    }
    for (int c = 0; c < L->ncoll; c++) {
        size_t sc = (size_t)pf_jet_collapsed(L, c) * len + b0;
        pf_real q[BLK] = {0};
        for (int d = 0; d < L->ndir; d++)
            if (L->coll_w[c][d] != 0)
                add_sq(m, L->coll_w[c][d], xv + (size_t)pf_jet_stream(L, d, 1) * len + b0, q);
        coll_fwd(m, f[1], f[2], q, xv + sc, yv + sc);
    }
}

/* The input gradient of one block from the table f (up to order K + 1):
 * written or added (acc) into gx. */
static void block_bwd(const pf_jet_layout *L, size_t len, size_t b0, int m, ftab f,
                      const pf_real *xv, const pf_real *gy, pf_real *gx, int acc)
{
    pf_real g0[BLK];
    {
        const pf_real *restrict gy0 = gy + b0, *restrict f1 = f[1];
        for (int i = 0; i < m; i++) g0[i] = gy0[i] * f1[i];
    }
    for (int d = 0; d < L->ndir; d++) {
        pf_real *a[5], *gh[5], *ga[5];
        dir_ptrs(L, (pf_real *)xv, len, b0, d, a);
        dir_ptrs(L, (pf_real *)gy, len, b0, d, gh);
        dir_ptrs(L, gx, len, b0, d, ga);
        pf_real tmp[4][BLK];
        fdb_dir_bwd(L->order[d], m, f, a, gh, tmp, g0);
        for (int k = 1; k <= L->order[d]; k++) pf_cpu_put(ga[k], tmp[k - 1], (size_t)m, acc);
    }
    for (int c = 0; c < L->ncoll; c++) {
        size_t sc = (size_t)pf_jet_collapsed(L, c) * len + b0;
        pf_real q[BLK] = {0}, t[BLK];
        for (int d = 0; d < L->ndir; d++) {
            pf_real w = L->coll_w[c][d];
            if (w == 0) continue;
            size_t s1 = (size_t)pf_jet_stream(L, d, 1) * len + b0;
            add_sq(m, w, xv + s1, q);
            coll_bwd_dir(m, w, gy + sc, f[2], xv + s1, gx + s1);
        }
        coll_bwd(m, gy + sc, f[1], f[2], f[3], q, xv + sc, g0, t);
        pf_cpu_put(gx + sc, t, (size_t)m, acc);
    }
    pf_cpu_put(gx + b0, g0, (size_t)m, acc);
}

void pf_cpu_unary_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    const pf_jet_layout *L = &y->layout;
    size_t len = pf_node_stream_len(y);
    int K = pf_jet_max_order(L);
    pf_real *xv = x->val, *yv = y->val;
#pragma omp parallel for schedule(static) if (len * y->S > PF_CPU_PAR_MIN)
    for (size_t b0 = 0; b0 < len; b0 += BLK) {
        int m = (int)(len - b0 < BLK ? len - b0 : BLK);
        ftab f;
        derivs(y->unary, y->p, xv + b0, NULL, m, K, f);
        block_fwd(L, len, b0, m, f, xv, yv);
    }
}

void pf_cpu_unary_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    const pf_jet_layout *L = &y->layout;
    size_t len = pf_node_stream_len(y);
    int K = pf_jet_max_order(L) + 1;
    int acc = y->in_acc[0];
    pf_real *xv = x->val, *yv = y->val, *gy = y->grad, *gx = x->grad;
    bool reuse = pf_unary_reuses_output(y->unary); /* f_0 read from the output */
#pragma omp parallel for schedule(static) if (len * y->S > PF_CPU_PAR_MIN)
    for (size_t b0 = 0; b0 < len; b0 += BLK) {
        int m = (int)(len - b0 < BLK ? len - b0 : BLK);
        ftab f;
        derivs(y->unary, y->p, xv + b0, reuse ? yv + b0 : NULL, m, K, f);
        block_bwd(L, len, b0, m, f, xv, gy, gx, acc);
    }
}

/* ------------------------------------------------------------------ WaveAct
 *
 * y = w1 sin(x) + w2 cos(x). With s = sin(a_0), c = cos(a_0) the table is
 * f_k = w1 sin^(k) + w2 cos^(k): f_0 = w1 s + w2 c, f_1 = w1 c - w2 s, then
 * f_{k+2} = -f_k. The streams and the input gradient are the unary op's.
 * y is linear in (w1, w2): y = w1 S + w2 C with S, C the jets of sin(x) and
 * cos(x), so dL/dw1 = sum over streams and elements of gy S, dL/dw2 the same
 * with C. The backward rebuilds S and C per block (from the sin table
 * sin^(k), and cos^(k) = sin^(k+1), the same table shifted by one) and sums
 * each block's part in double into scratch; the parts are added in block
 * order, so the result does not depend on the thread count. */

/* sin^(k), k = 0..6: rows 0..5 are sin's table, rows 1..6 cos's. */
typedef pf_real sin_tab[MAXF + 1][BLK];

/* f[k] = w1 sin^(k)(a) + w2 cos^(k)(a), k = 0..kmax (kmax < MAXF); sn[k] =
 * sin^(k)(a), k = 0..kmax + 1, when sn is not NULL. */
static void wave_derivs(pf_real w1, pf_real w2, const pf_real *restrict a, int m, int kmax, ftab f,
                        sin_tab sn)
{
    pf_real *restrict f0 = f[0], *restrict f1 = f[1];
    pf_real s[BLK], c[BLK];
    /* two loops, as derivs(): keeps gcc from fusing them into sincos */
    for (int i = 0; i < m; i++) s[i] = pf_sin(a[i]);
    for (int i = 0; i < m; i++) c[i] = pf_cos(a[i]);
    for (int i = 0; i < m; i++) {
        f0[i] = w1 * s[i] + w2 * c[i];
        f1[i] = w1 * c[i] - w2 * s[i];
    }
    for (int k = 2; k <= kmax; k++)
        for (int i = 0; i < m; i++) f[k][i] = -f[k - 2][i];
    if (!sn) return;
    memcpy(sn[0], s, (size_t)m * sizeof s[0]);
    memcpy(sn[1], c, (size_t)m * sizeof c[0]);
    for (int k = 2; k <= kmax + 1; k++)
        for (int i = 0; i < m; i++) sn[k][i] = -sn[k - 2][i];
}

/* The dual of one direction's forward: every output stream is a sum
 * h_k = sum_j f_j B_kj(a_1..a_k) (Faa di Bruno, as fwd_oK), so
 * sum_k gh_k h_k = sum_j f_j u_j with u_j = sum_k gh_k B_kj, added here into
 * u[j - 1]. */
static void dual_dir(int k, int m, pf_real *const a[5], pf_real *const gh[5], pf_real u[4][BLK])
{
    pf_real *restrict u1 = u[0], *restrict u2 = u[1], *restrict u3 = u[2], *restrict u4 = u[3];
    const pf_real *restrict x1 = a[1], *restrict y1 = gh[1];
    switch (k) {
    case 1:
        for (int i = 0; i < m; i++) u1[i] += y1[i] * x1[i];
        break;
    case 2: {
        const pf_real *restrict x2 = a[2], *restrict y2 = gh[2];
        for (int i = 0; i < m; i++) {
            u1[i] += y1[i] * x1[i] + y2[i] * x2[i];
            u2[i] += y2[i] * x1[i] * x1[i];
        }
        break;
    }
    case 3: {
        const pf_real *restrict x2 = a[2], *restrict y2 = gh[2], *restrict x3 = a[3], *restrict y3 = gh[3];
        for (int i = 0; i < m; i++) {
            pf_real s1 = x1[i] * x1[i];
            u1[i] += y1[i] * x1[i] + y2[i] * x2[i] + y3[i] * x3[i];
            u2[i] += y2[i] * s1 + 3 * y3[i] * x1[i] * x2[i];
            u3[i] += y3[i] * s1 * x1[i];
        }
        break;
    }
    case 4: {
        const pf_real *restrict x2 = a[2], *restrict y2 = gh[2], *restrict x3 = a[3], *restrict y3 = gh[3], *restrict x4 = a[4], *restrict y4 = gh[4];
        for (int i = 0; i < m; i++) {
            pf_real s1 = x1[i] * x1[i];
            u1[i] += y1[i] * x1[i] + y2[i] * x2[i] + y3[i] * x3[i] + y4[i] * x4[i];
            u2[i] += y2[i] * s1 + 3 * y3[i] * x1[i] * x2[i] + y4[i] * (3 * x2[i] * x2[i] + 4 * x1[i] * x3[i]);
            u3[i] += y3[i] * s1 * x1[i] + 6 * y4[i] * s1 * x2[i];
            u4[i] += y4[i] * s1 * s1;
        }
        break;
    }
    }
}

/* The sums over the block's streams of gy times the jets of sin(x) and of
 * cos(x), in double, into d[0] and d[1]: sn is sin's derivative table
 * (sn[k] up to the layout's order), cos's is the same shifted by one. By
 * dual_dir, sum_k gy_k S_k = gy_0 sin + sum_j u_j sin^(j) per element (the
 * collapsed streams hL = f2 q + f1 aL add gL aL to u_1 and gL q to u_2),
 * and the same with cos; the elements' terms are added in double. */
static void block_dot_jets(const pf_jet_layout *L, size_t len, size_t b0, int m, sin_tab sn,
                           const pf_real *xv, const pf_real *gy, double d[2])
{
    pf_real u[4][BLK];
    int K = pf_jet_max_order(L); /* 2 at least with collapsed streams */
    for (int j = 0; j < K; j++) memset(u[j], 0, (size_t)m * sizeof(pf_real));
    for (int dd = 0; dd < L->ndir; dd++) {
        pf_real *a[5], *gh[5];
        dir_ptrs(L, (pf_real *)xv, len, b0, dd, a);
        dir_ptrs(L, (pf_real *)gy, len, b0, dd, gh);
        dual_dir(L->order[dd], m, a, gh, u);
    }
    for (int cc = 0; cc < L->ncoll; cc++) {
        size_t sc = (size_t)pf_jet_collapsed(L, cc) * len + b0;
        pf_real q[BLK] = {0};
        for (int dd = 0; dd < L->ndir; dd++)
            if (L->coll_w[cc][dd] != 0)
                add_sq(m, L->coll_w[cc][dd], xv + (size_t)pf_jet_stream(L, dd, 1) * len + b0, q);
        const pf_real *restrict gL = gy + sc, *restrict aL = xv + sc;
        pf_real *restrict u1 = u[0], *restrict u2 = u[1];
        for (int i = 0; i < m; i++) {
            u1[i] += gL[i] * aL[i];
            u2[i] += gL[i] * q[i];
        }
    }
    double s = 0, c = 0;
    const pf_real *restrict g0 = gy + b0;
    for (int i = 0; i < m; i++) {
        pf_real ts = g0[i] * sn[0][i], tc = g0[i] * sn[1][i];
        for (int j = 0; j < K; j++) {
            ts += u[j][i] * sn[j + 1][i];
            tc += u[j][i] * sn[j + 2][i];
        }
        s += (double)ts;
        c += (double)tc;
    }
    d[0] = s;
    d[1] = c;
}

size_t pf_cpu_waveact_scratch(const struct pf_node *y)
{
    return 2 * ((pf_node_stream_len(y) + BLK - 1) / BLK) * sizeof(double);
}

void pf_cpu_waveact_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    const pf_jet_layout *L = &y->layout;
    size_t len = pf_node_stream_len(y);
    pf_real w1 = y->pw[0][0], w2 = y->pw[1][0];
    pf_real *xv = x->val, *yv = y->val;
    int K = pf_jet_max_order(L);
#pragma omp parallel for schedule(static) if (len * y->S > PF_CPU_PAR_MIN)
    for (size_t b0 = 0; b0 < len; b0 += BLK) {
        int m = (int)(len - b0 < BLK ? len - b0 : BLK);
        ftab f;
        wave_derivs(w1, w2, xv + b0, m, K, f, NULL);
        block_fwd(L, len, b0, m, f, xv, yv);
    }
}

void pf_cpu_waveact_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    bool gw = y->pg[0] || y->pg[1];
    if (!x->grad && !gw) return;
    const pf_jet_layout *L = &y->layout;
    size_t len = pf_node_stream_len(y), nblk = (len + BLK - 1) / BLK;
    int acc = y->in_acc[0];
    pf_real w1 = y->pw[0][0], w2 = y->pw[1][0];
    pf_real *xv = x->val, *gy = y->grad, *gx = x->grad;
    double *part = (double *)y->scratch; /* [2][nblk]: the blocks' dL/dw1, dL/dw2 */
    int K = pf_jet_max_order(L) + 1;
#pragma omp parallel for schedule(static) if (len * y->S > PF_CPU_PAR_MIN)
    for (size_t b = 0; b < nblk; b++) {
        size_t b0 = b * BLK;
        int m = (int)(len - b0 < BLK ? len - b0 : BLK);
        ftab f;
        sin_tab sn;
        wave_derivs(w1, w2, xv + b0, m, K, f, gw ? sn : NULL);
        if (gx) block_bwd(L, len, b0, m, f, xv, gy, gx, acc);
        if (gw) {
            double d[2];
            block_dot_jets(L, len, b0, m, sn, xv, gy, d);
            part[b] = d[0];
            part[nblk + b] = d[1];
        }
    }
    if (!gw) return;
    double d1 = 0, d2 = 0;
    for (size_t b = 0; b < nblk; b++) d1 += part[b], d2 += part[nblk + b];
    if (y->pg[0]) y->pg[0][0] += (pf_real)d1;
    if (y->pg[1]) y->pg[1][0] += (pf_real)d2;
}
