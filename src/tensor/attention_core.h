/*
 * attention_core.h — the arithmetic of one attention group (internal to the
 * CPU backend, tensor/cpu_attention.c, and the CUDA one,
 * kernels/cuda_attention.cu, which compile the same code; graph.h,
 * pf_attention, says what the op computes).
 *
 * One group is the k tokens of one point, one head of dh channels, along
 * one direction of order K <= 4 (K = 0: the value alone). Every scalar is an
 * array of Taylor coefficients t_m = (d^m/dt^m) / m!, m = 0..K, in double:
 *   s_ij = scale sum_c q_ic k_jc                   (Cauchy products)
 *   e_ij = exp(s_ij - M_i), M_i = max_j s_ij,0:
 *          e_0 = exp(s_0 - M), e_m = (1/m) sum_{l=1..m} l s_l e_{m-l}
 *   Z_i = sum_j e_ij, r_i = 1 / Z_i:
 *          r_0 = 1/Z_0, r_m = -r_0 sum_{l=1..m} Z_l r_{m-l}
 *   p_ij = e_ij r_i,  o_ic = sum_j p_ij v_jc
 * The shift M is a constant: softmax does not depend on it. The recurrences
 * are those of exp' = exp s' and (1/Z) Z = 1. attn_group_bwd runs the
 * adjoints of these steps in reverse, from go (dL/do as coefficients) to
 * gq, gk, gv, after attn_group_probs has filled the forward arrays.
 *
 * Lanes: a workspace holds PF_ATTN_LANES groups side by side (the includer
 * defines it before including; 1 by default, as CUDA has it, one group per
 * thread), every array element [..][m] followed by its lanes, and every
 * number below is an attn_v, that element of every lane: a GNU C vector on
 * the CPU, so it computes PF_ATTN_LANES groups in vector registers at once.
 * Each lane does exactly the operations, in the order, of a group alone
 * (vector arithmetic is element by element, exp and fmax go lane by lane, no
 * sum crosses lanes, and C11 mode contracts nothing into FMAs), so its
 * results are the same bits for any lane count.
 *
 * Usage: attn_ws w = attn_ws_of(base, k, dh) over attn_ws_doubles(k, dh)
 * doubles; load q, kk, v (AL3(w.q, i, c, dh, m, lane)); attn_group_fwd(&w,
 * K, scale); read o. The reverse: load q, kk, v; attn_group_probs(&w, K,
 * scale) (the forward without o); set go; attn_group_bwd(&w, K, scale);
 * read gq, gk, gv.
 */
#ifndef PF_TENSOR_ATTENTION_CORE_H
#define PF_TENSOR_ATTENTION_CORE_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "tensor/jet.h"

#ifdef __CUDACC__
#define PF_ATTN_FN static __host__ __device__ inline
#else
#define PF_ATTN_FN static inline
#endif

#ifndef PF_ATTN_LANES
#define PF_ATTN_LANES 1
#endif
#define NL PF_ATTN_LANES

/* attn_v: one number of every lane, a GNU vector on the CPU (element by
 * element IEEE arithmetic, the same operations as on one double), a double
 * where there is one lane. */
#if PF_ATTN_LANES > 1 && !defined(__CUDACC__)
typedef double attn_v __attribute__((vector_size(PF_ATTN_LANES * sizeof(double)), aligned(sizeof(double)), may_alias));
/* dst = exp(x), dst = fmax(dst, x), lane by lane (x a variable) */
#define ATTN_ZERO ((attn_v){0})
#define ATTN_EXP(dst, x) for (int g_ = 0; g_ < NL; g_++) (dst)[g_] = exp((x)[g_])
#define ATTN_FMAX(dst, x) for (int g_ = 0; g_ < NL; g_++) (dst)[g_] = fmax((dst)[g_], (x)[g_])
#else
typedef double attn_v;
#define ATTN_ZERO 0.0
#define ATTN_EXP(dst, x) ((dst) = exp(x))
#define ATTN_FMAX(dst, x) ((dst) = fmax((dst), (x)))
#endif

#define KS (PF_JET_MAX_ORDER + 1)

/* The workspace of one group (per lane): token count k, head width dh,
 * each array [..][KS][NL]. */
typedef struct attn_ws {
    int k, dh;
    double *q, *kk, *v, *o, *gq, *gk, *gv, *go; /* [k][dh][KS][NL] */
    double *s, *e, *p, *gs, *ge, *gp;            /* [k][k][KS][NL] */
    double *z, *r, *gz, *gr;                     /* [k][KS][NL] */
} attn_ws;

PF_ATTN_FN size_t attn_ws_doubles(int k, int dh)
{
    return ((size_t)8 * k * dh + 6 * (size_t)k * k + 4 * (size_t)k) * KS * NL;
}

PF_ATTN_FN attn_ws attn_ws_of(double *base, int k, int dh)
{
    attn_ws w;
    w.k = k;
    w.dh = dh;
    size_t nkd = (size_t)k * dh * KS * NL, nkk = (size_t)k * k * KS * NL, nk = (size_t)k * KS * NL;
    w.q = base; w.kk = w.q + nkd; w.v = w.kk + nkd; w.o = w.v + nkd;
    w.gq = w.o + nkd; w.gk = w.gq + nkd; w.gv = w.gk + nkd; w.go = w.gv + nkd;
    w.s = w.go + nkd; w.e = w.s + nkk; w.p = w.e + nkk;
    w.gs = w.p + nkk; w.ge = w.gs + nkk; w.gp = w.ge + nkk;
    w.z = w.gp + nkk; w.r = w.z + nk; w.gz = w.r + nk; w.gr = w.gz + nk;
    return w;
}

/* Element [i][j][m] (n2 columns) and [i][m] of lane g; A3, A2: of every
 * lane, an attn_v. */
#define AL3(a, i, j, n2, m, g) ((a)[(((size_t)(i) * (n2) + (j)) * KS + (m)) * NL + (g)])
#define AL2(a, i, m, g) ((a)[((size_t)(i) * KS + (m)) * NL + (g)])
#define A3(a, i, j, n2, m) (*(attn_v *)&AL3(a, i, j, n2, m, 0))
#define A2(a, i, m) (*(attn_v *)&AL2(a, i, m, 0))

/* m! for m = 0..4 */
PF_ATTN_FN double attn_fact(int m) { return m < 2 ? 1 : m == 2 ? 2 : m == 3 ? 6 : 24; }

/* The forward of one group up to the probabilities: q, kk loaded; fills
 * s, e, z, r, p (what the reverse needs). */
PF_ATTN_FN void attn_group_probs(attn_ws *w, int K, double scale)
{
    int k = w->k, dh = w->dh;
    /* the arrays as locals: no store of a number can change them */
    double *q = w->q, *kk = w->kk, *s = w->s, *e = w->e, *p = w->p, *z = w->z, *r = w->r;
    /* The sums of s (over c, then l) and of o (over j, then l) run with
     * their accumulators in s and o, the loops that do not change a sum's
     * order outermost: each sum adds its terms in the same order as one
     * sum at a time would, and the k (K + 1) sums of a row, independent,
     * overlap instead of waiting on one another's additions. */
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) A3(s, i, j, k, m) = ATTN_ZERO;
        for (int a = 0; a < dh; a++)
            for (int j = 0; j < k; j++)
                for (int m = 0; m <= K; m++)
                    for (int l = 0; l <= m; l++)
                        A3(s, i, j, k, m) += A3(q, i, a, dh, l) * A3(kk, j, a, dh, m - l);
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) A3(s, i, j, k, m) *= scale;
    }
    for (int i = 0; i < k; i++) {
        attn_v M = A3(s, i, 0, k, 0), t;
        for (int j = 1; j < k; j++) ATTN_FMAX(M, A3(s, i, j, k, 0));
        for (int j = 0; j < k; j++) {
            t = A3(s, i, j, k, 0) - M;
            ATTN_EXP(A3(e, i, j, k, 0), t);
            for (int m = 1; m <= K; m++) {
                t = ATTN_ZERO;
                for (int l = 1; l <= m; l++) t += (double)l * A3(s, i, j, k, l) * A3(e, i, j, k, m - l);
                A3(e, i, j, k, m) = t / (double)m;
            }
        }
        for (int m = 0; m <= K; m++) {
            t = ATTN_ZERO;
            for (int j = 0; j < k; j++) t += A3(e, i, j, k, m);
            A2(z, i, m) = t;
        }
        A2(r, i, 0) = 1.0 / A2(z, i, 0);
        for (int m = 1; m <= K; m++) {
            t = ATTN_ZERO;
            for (int l = 1; l <= m; l++) t += A2(z, i, l) * A2(r, i, m - l);
            A2(r, i, m) = -A2(r, i, 0) * t;
        }
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) {
                t = ATTN_ZERO;
                for (int l = 0; l <= m; l++) t += A3(e, i, j, k, l) * A2(r, i, m - l);
                A3(p, i, j, k, m) = t;
            }
    }
}

/* The output o = p v of a group whose probabilities are computed, v
 * loaded. */
PF_ATTN_FN void attn_group_out(attn_ws *w, int K)
{
    int k = w->k, dh = w->dh;
    double *v = w->v, *o = w->o, *p = w->p;
    for (int i = 0; i < k; i++) {
        for (int a = 0; a < dh; a++)
            for (int m = 0; m <= K; m++) A3(o, i, a, dh, m) = ATTN_ZERO;
        for (int j = 0; j < k; j++)
            for (int a = 0; a < dh; a++)
                for (int m = 0; m <= K; m++)
                    for (int l = 0; l <= m; l++)
                        A3(o, i, a, dh, m) += A3(p, i, j, k, l) * A3(v, j, a, dh, m - l);
    }
}

/* The forward of one group: q, kk, v loaded; fills s, e, z, r, p, o. */
PF_ATTN_FN void attn_group_fwd(attn_ws *w, int K, double scale)
{
    attn_group_probs(w, K, scale);
    attn_group_out(w, K);
}

/* The reverse of group_fwd: attn_group_probs run (o is not needed), go
 * set; gq, gk, gv (and the inner adjoints)
 * overwritten. Each adjoint of a product is one sum, over the operand
 * indices it does not keep, held in a register and written once: gp per
 * token pair, then, after every row's inner adjoints, gv, gq and gk. */
PF_ATTN_FN void attn_group_bwd(attn_ws *w, int K, double scale)
{
    int k = w->k, dh = w->dh;
    double *q = w->q, *kk = w->kk, *v = w->v, *s = w->s, *e = w->e, *p = w->p, *z = w->z, *r = w->r;
    double *gq = w->gq, *gk = w->gk, *gv = w->gv, *go = w->go, *gs = w->gs, *ge = w->ge, *gp = w->gp;
    double *gz = w->gz, *gr = w->gr;
    size_t nkk = (size_t)k * k * KS * NL, nk = (size_t)k * KS * NL;
    attn_v t, g;
    memset(gs, 0, nkk * sizeof(double));
    memset(ge, 0, nkk * sizeof(double));
    memset(gz, 0, nk * sizeof(double));
    memset(gr, 0, nk * sizeof(double));
    for (int i = 0; i < k; i++) {
        /* o_ic,m = sum_j sum_l p_ij,l v_jc,m-l:
         * dL/dp_ij,l = sum_c sum_{m >= l} go_ic,m v_jc,m-l */
        for (int j = 0; j < k; j++)
            for (int l = 0; l <= K; l++) {
                t = ATTN_ZERO;
                for (int a = 0; a < dh; a++)
                    for (int m = l; m <= K; m++) t += A3(go, i, a, dh, m) * A3(v, j, a, dh, m - l);
                A3(gp, i, j, k, l) = t;
            }
        /* p_ij,m = sum_l e_ij,l r_i,m-l */
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) {
                g = A3(gp, i, j, k, m);
                for (int l = 0; l <= m; l++) {
                    A3(ge, i, j, k, l) += g * A2(r, i, m - l);
                    A2(gr, i, m - l) += g * A3(e, i, j, k, l);
                }
            }
        /* r_m = -r_0 sum_{l=1..m} Z_l r_{m-l}, in reverse; then r_0 = 1/Z_0 */
        for (int m = K; m >= 1; m--) {
            g = A2(gr, i, m), t = ATTN_ZERO;
            for (int l = 1; l <= m; l++) t += A2(z, i, l) * A2(r, i, m - l);
            A2(gr, i, 0) += -t * g;
            g = -A2(r, i, 0) * g; /* the adjoint of the sum */
            for (int l = 1; l <= m; l++) {
                A2(gz, i, l) += g * A2(r, i, m - l);
                A2(gr, i, m - l) += g * A2(z, i, l);
            }
        }
        A2(gz, i, 0) += -A2(gr, i, 0) * A2(r, i, 0) * A2(r, i, 0);
        /* Z_m = sum_j e_ij,m */
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) A3(ge, i, j, k, m) += A2(gz, i, m);
        /* e_m = (1/m) sum_{l=1..m} l s_l e_{m-l}, in reverse; e_0 = exp(s_0 - M) */
        for (int j = 0; j < k; j++) {
            for (int m = K; m >= 1; m--) {
                g = A3(ge, i, j, k, m) / (double)m;
                for (int l = 1; l <= m; l++) {
                    A3(gs, i, j, k, l) += g * (double)l * A3(e, i, j, k, m - l);
                    A3(ge, i, j, k, m - l) += g * (double)l * A3(s, i, j, k, l);
                }
            }
            A3(gs, i, j, k, 0) += A3(ge, i, j, k, 0) * A3(e, i, j, k, 0);
        }
    }
    /* dL/dv_jc,n = sum_i sum_{l <= K - n} go_ic,n+l p_ij,l */
    for (int j = 0; j < k; j++)
        for (int a = 0; a < dh; a++)
            for (int n = 0; n <= K; n++) {
                t = ATTN_ZERO;
                for (int i = 0; i < k; i++)
                    for (int l = 0; l <= K - n; l++) t += A3(go, i, a, dh, n + l) * A3(p, i, j, k, l);
                A3(gv, j, a, dh, n) = t;
            }
    /* s_ij,m = scale sum_c sum_l q_ic,l k_jc,m-l:
     * dL/dq_ic,l = scale sum_j sum_{m >= l} gs_ij,m k_jc,m-l,
     * dL/dk_jc,n = scale sum_i sum_{l <= K - n} gs_ij,l+n q_ic,l */
    for (int i = 0; i < k; i++)
        for (int a = 0; a < dh; a++)
            for (int l = 0; l <= K; l++) {
                t = ATTN_ZERO;
                for (int j = 0; j < k; j++)
                    for (int m = l; m <= K; m++) t += A3(gs, i, j, k, m) * A3(kk, j, a, dh, m - l);
                A3(gq, i, a, dh, l) = scale * t;
            }
    for (int j = 0; j < k; j++)
        for (int a = 0; a < dh; a++)
            for (int n = 0; n <= K; n++) {
                t = ATTN_ZERO;
                for (int i = 0; i < k; i++)
                    for (int l = 0; l <= K - n; l++) t += A3(gs, i, j, k, l + n) * A3(q, i, a, dh, l);
                A3(gk, j, a, dh, n) = scale * t;
            }
}

#endif
