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
 * gq, gk, gv, after attn_group_fwd has filled the forward arrays.
 *
 * Usage: attn_ws w = attn_ws_of(base, k, dh) over attn_ws_doubles(k, dh)
 * doubles; load q, kk, v; attn_group_fwd(&w, K, scale); read o; set go;
 * attn_group_bwd(&w, K, scale); read gq, gk, gv.
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

#define KS (PF_JET_MAX_ORDER + 1)

/* The workspace of one group: token count k, head width dh, each array
 * [..][KS]. */
typedef struct attn_ws {
    int k, dh;
    double *q, *kk, *v, *o, *gq, *gk, *gv, *go; /* [k][dh][KS] */
    double *s, *e, *p, *gs, *ge, *gp;            /* [k][k][KS] */
    double *z, *r, *gz, *gr;                     /* [k][KS] */
} attn_ws;

PF_ATTN_FN size_t attn_ws_doubles(int k, int dh)
{
    return ((size_t)8 * k * dh + 6 * (size_t)k * k + 4 * (size_t)k) * KS;
}

PF_ATTN_FN attn_ws attn_ws_of(double *base, int k, int dh)
{
    attn_ws w;
    w.k = k;
    w.dh = dh;
    size_t nkd = (size_t)k * dh * KS, nkk = (size_t)k * k * KS, nk = (size_t)k * KS;
    w.q = base; w.kk = w.q + nkd; w.v = w.kk + nkd; w.o = w.v + nkd;
    w.gq = w.o + nkd; w.gk = w.gq + nkd; w.gv = w.gk + nkd; w.go = w.gv + nkd;
    w.s = w.go + nkd; w.e = w.s + nkk; w.p = w.e + nkk;
    w.gs = w.p + nkk; w.ge = w.gs + nkk; w.gp = w.ge + nkk;
    w.z = w.gp + nkk; w.r = w.z + nk; w.gz = w.r + nk; w.gr = w.gz + nk;
    return w;
}

#define A3(a, i, j, n2, m) ((a)[((size_t)(i) * (n2) + (j)) * KS + (m)])
#define A2(a, i, m) ((a)[(size_t)(i) * KS + (m)])

/* m! for m = 0..4 */
PF_ATTN_FN double attn_fact(int m) { return m < 2 ? 1 : m == 2 ? 2 : m == 3 ? 6 : 24; }

/* The forward of one group: q, kk, v loaded; fills s, e, z, r, p, o. */
PF_ATTN_FN void attn_group_fwd(attn_ws *w, int K, double scale)
{
    int k = w->k, dh = w->dh;
    /* The sums of s (over c, then l) and of o (over j, then l) run with
     * their accumulators in s and o, the loops that do not change a sum's
     * order outermost: each sum adds its terms in the same order as one
     * sum at a time would, and the k (K + 1) sums of a row, independent,
     * overlap instead of waiting on one another's additions. */
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) A3(w->s, i, j, k, m) = 0;
        for (int a = 0; a < dh; a++)
            for (int j = 0; j < k; j++)
                for (int m = 0; m <= K; m++)
                    for (int l = 0; l <= m; l++)
                        A3(w->s, i, j, k, m) += A3(w->q, i, a, dh, l) * A3(w->kk, j, a, dh, m - l);
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) A3(w->s, i, j, k, m) *= scale;
    }
    for (int i = 0; i < k; i++) {
        double M = A3(w->s, i, 0, k, 0);
        for (int j = 1; j < k; j++) M = fmax(M, A3(w->s, i, j, k, 0));
        for (int j = 0; j < k; j++) {
            A3(w->e, i, j, k, 0) = exp(A3(w->s, i, j, k, 0) - M);
            for (int m = 1; m <= K; m++) {
                double t = 0;
                for (int l = 1; l <= m; l++) t += l * A3(w->s, i, j, k, l) * A3(w->e, i, j, k, m - l);
                A3(w->e, i, j, k, m) = t / m;
            }
        }
        for (int m = 0; m <= K; m++) {
            double t = 0;
            for (int j = 0; j < k; j++) t += A3(w->e, i, j, k, m);
            A2(w->z, i, m) = t;
        }
        A2(w->r, i, 0) = 1 / A2(w->z, i, 0);
        for (int m = 1; m <= K; m++) {
            double t = 0;
            for (int l = 1; l <= m; l++) t += A2(w->z, i, l) * A2(w->r, i, m - l);
            A2(w->r, i, m) = -A2(w->r, i, 0) * t;
        }
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) {
                double t = 0;
                for (int l = 0; l <= m; l++) t += A3(w->e, i, j, k, l) * A2(w->r, i, m - l);
                A3(w->p, i, j, k, m) = t;
            }
        for (int a = 0; a < dh; a++)
            for (int m = 0; m <= K; m++) A3(w->o, i, a, dh, m) = 0;
        for (int j = 0; j < k; j++)
            for (int a = 0; a < dh; a++)
                for (int m = 0; m <= K; m++)
                    for (int l = 0; l <= m; l++) A3(w->o, i, a, dh, m) += A3(w->p, i, j, k, l) * A3(w->v, j, a, dh, m - l);
    }
}

/* The reverse of group_fwd: go set; gq, gk, gv (and the inner adjoints)
 * overwritten. Each adjoint of a product is one sum, over the operand
 * indices it does not keep, held in a register and written once: gp per
 * token pair, then, after every row's inner adjoints, gv, gq and gk. */
PF_ATTN_FN void attn_group_bwd(attn_ws *w, int K, double scale)
{
    int k = w->k, dh = w->dh;
    size_t nkk = (size_t)k * k * KS, nk = (size_t)k * KS;
    memset(w->gs, 0, nkk * sizeof(double));
    memset(w->ge, 0, nkk * sizeof(double));
    memset(w->gz, 0, nk * sizeof(double));
    memset(w->gr, 0, nk * sizeof(double));
    for (int i = 0; i < k; i++) {
        /* o_ic,m = sum_j sum_l p_ij,l v_jc,m-l:
         * dL/dp_ij,l = sum_c sum_{m >= l} go_ic,m v_jc,m-l */
        for (int j = 0; j < k; j++)
            for (int l = 0; l <= K; l++) {
                double t = 0;
                for (int a = 0; a < dh; a++)
                    for (int m = l; m <= K; m++) t += A3(w->go, i, a, dh, m) * A3(w->v, j, a, dh, m - l);
                A3(w->gp, i, j, k, l) = t;
            }
        /* p_ij,m = sum_l e_ij,l r_i,m-l */
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) {
                double g = A3(w->gp, i, j, k, m);
                for (int l = 0; l <= m; l++) {
                    A3(w->ge, i, j, k, l) += g * A2(w->r, i, m - l);
                    A2(w->gr, i, m - l) += g * A3(w->e, i, j, k, l);
                }
            }
        /* r_m = -r_0 sum_{l=1..m} Z_l r_{m-l}, in reverse; then r_0 = 1/Z_0 */
        for (int m = K; m >= 1; m--) {
            double g = A2(w->gr, i, m), t = 0;
            for (int l = 1; l <= m; l++) t += A2(w->z, i, l) * A2(w->r, i, m - l);
            A2(w->gr, i, 0) += -t * g;
            double gt = -A2(w->r, i, 0) * g;
            for (int l = 1; l <= m; l++) {
                A2(w->gz, i, l) += gt * A2(w->r, i, m - l);
                A2(w->gr, i, m - l) += gt * A2(w->z, i, l);
            }
        }
        A2(w->gz, i, 0) += -A2(w->gr, i, 0) * A2(w->r, i, 0) * A2(w->r, i, 0);
        /* Z_m = sum_j e_ij,m */
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) A3(w->ge, i, j, k, m) += A2(w->gz, i, m);
        /* e_m = (1/m) sum_{l=1..m} l s_l e_{m-l}, in reverse; e_0 = exp(s_0 - M) */
        for (int j = 0; j < k; j++) {
            for (int m = K; m >= 1; m--) {
                double g = A3(w->ge, i, j, k, m) / m;
                for (int l = 1; l <= m; l++) {
                    A3(w->gs, i, j, k, l) += g * l * A3(w->e, i, j, k, m - l);
                    A3(w->ge, i, j, k, m - l) += g * l * A3(w->s, i, j, k, l);
                }
            }
            A3(w->gs, i, j, k, 0) += A3(w->ge, i, j, k, 0) * A3(w->e, i, j, k, 0);
        }
    }
    /* dL/dv_jc,n = sum_i sum_{l <= K - n} go_ic,n+l p_ij,l */
    for (int j = 0; j < k; j++)
        for (int a = 0; a < dh; a++)
            for (int n = 0; n <= K; n++) {
                double t = 0;
                for (int i = 0; i < k; i++)
                    for (int l = 0; l <= K - n; l++) t += A3(w->go, i, a, dh, n + l) * A3(w->p, i, j, k, l);
                A3(w->gv, j, a, dh, n) = t;
            }
    /* s_ij,m = scale sum_c sum_l q_ic,l k_jc,m-l:
     * dL/dq_ic,l = scale sum_j sum_{m >= l} gs_ij,m k_jc,m-l,
     * dL/dk_jc,n = scale sum_i sum_{l <= K - n} gs_ij,l+n q_ic,l */
    for (int i = 0; i < k; i++)
        for (int a = 0; a < dh; a++)
            for (int l = 0; l <= K; l++) {
                double t = 0;
                for (int j = 0; j < k; j++)
                    for (int m = l; m <= K; m++) t += A3(w->gs, i, j, k, m) * A3(w->kk, j, a, dh, m - l);
                A3(w->gq, i, a, dh, l) = scale * t;
            }
    for (int j = 0; j < k; j++)
        for (int a = 0; a < dh; a++)
            for (int n = 0; n <= K; n++) {
                double t = 0;
                for (int i = 0; i < k; i++)
                    for (int l = 0; l <= K - n; l++) t += A3(w->gs, i, j, k, l + n) * A3(w->q, i, a, dh, l);
                A3(w->gk, j, a, dh, n) = scale * t;
            }
}

#endif
