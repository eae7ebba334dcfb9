/*
 * Scaled dot-product attention over the k tokens of each point, in Taylor
 * mode (graph.h, pf_attention).
 *
 * Per point (k consecutive rows), head and direction d of order K, every
 * scalar is carried as its Taylor coefficients t_m = d^m/dt^m / m!, m = 0..K
 * (stream 0 is the value), in double. Products are Cauchy products
 * (a b)_m = sum_l a_l b_{m-l}, and:
 *   s_ij = (1/sqrt(dh)) sum_c q_ic k_jc                 scores
 *   e_ij = exp(s_ij - M_i), M_i = max_j s_ij,0          (a constant shift:
 *          e_0 = exp(s_0 - M), e_m = (1/m) sum_{l=1..m} l s_l e_{m-l}
 *          softmax does not depend on it)
 *   Z_i = sum_j e_ij,  r_i = 1 / Z_i:
 *          r_0 = 1/Z_0, r_m = -r_0 sum_{l=1..m} Z_l r_{m-l}
 *   p_ij = e_ij r_i,   o_ic = sum_j p_ij v_jc
 * (the recurrences are those of exp' = exp s' and (1/Z) Z = 1). The
 * backward recomputes a group's forward and runs these steps in reverse
 * (adjoints of the Cauchy products and of both recurrences). The value
 * stream is the same in every direction's pass: its output gradient is
 * seeded in the first pass only. Layouts with collapsed streams are not
 * supported (the builder asserts).
 *
 * Work is serial over points and heads, in one workspace (scratch), so a
 * step allocates nothing and the sums do not depend on the thread count.
 */
#include <math.h>
#include <string.h>

#include "tensor/cpu_ops.h"

#define KS (PF_JET_MAX_ORDER + 1)

/* The workspace of one (point, head, direction): token count k, head width
 * dh, each array [..][KS]. */
typedef struct attn_ws {
    int k, dh;
    double *q, *kk, *v, *o, *gq, *gk, *gv, *go; /* [k][dh][KS] */
    double *s, *e, *p, *gs, *ge, *gp;            /* [k][k][KS] */
    double *z, *r, *gz, *gr;                     /* [k][KS] */
} attn_ws;

static size_t ws_doubles(int k, int dh) { return ((size_t)8 * k * dh + 6 * (size_t)k * k + 4 * (size_t)k) * KS; }

size_t pf_cpu_attention_scratch(const struct pf_node *y)
{
    return ws_doubles(y->i0, y->c / (int)y->p) * sizeof(double);
}

static attn_ws ws_of(double *base, int k, int dh)
{
    attn_ws w = {.k = k, .dh = dh};
    double **kd[] = {&w.q, &w.kk, &w.v, &w.o, &w.gq, &w.gk, &w.gv, &w.go};
    for (int i = 0; i < 8; i++) *kd[i] = base, base += (size_t)k * dh * KS;
    double **kk[] = {&w.s, &w.e, &w.p, &w.gs, &w.ge, &w.gp};
    for (int i = 0; i < 6; i++) *kk[i] = base, base += (size_t)k * k * KS;
    double **k1[] = {&w.z, &w.r, &w.gz, &w.gr};
    for (int i = 0; i < 4; i++) *k1[i] = base, base += (size_t)k * KS;
    return w;
}

#define A3(a, i, j, n2, m) ((a)[((size_t)(i) * (n2) + (j)) * KS + (m)])
#define A2(a, i, m) ((a)[(size_t)(i) * KS + (m)])

static const double fact[KS] = {1, 1, 2, 6, 24};

/* Streams of direction d: st[m] for m = 0..K (st[0] = 0, the value). */
static int dir_streams(const pf_jet_layout *L, int d, int st[KS])
{
    st[0] = 0;
    if (d < 0) return 0;
    for (int m = 1; m <= L->order[d]; m++) st[m] = pf_jet_stream(L, d, m);
    return L->order[d];
}

/* Load channels [c0, c0 + dh) of rows [r0, r0 + k) of a [S][n][c] buffer as
 * Taylor coefficients. */
static void load(double *dst, const pf_real *src, size_t len, int c, int r0, int c0, const attn_ws *w,
                 const int st[KS], int K)
{
    for (int i = 0; i < w->k; i++)
        for (int a = 0; a < w->dh; a++)
            for (int m = 0; m <= K; m++)
                A3(dst, i, a, w->dh, m) = (double)src[(size_t)st[m] * len + (size_t)(r0 + i) * c + c0 + a] / fact[m];
}

/* The forward of one group: q, kk, v loaded; fills s, e, z, r, p, o. */
static void group_fwd(attn_ws *w, int K, double scale)
{
    int k = w->k, dh = w->dh;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) {
                double t = 0;
                for (int a = 0; a < dh; a++)
                    for (int l = 0; l <= m; l++) t += A3(w->q, i, a, dh, l) * A3(w->kk, j, a, dh, m - l);
                A3(w->s, i, j, k, m) = scale * t;
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
            for (int m = 0; m <= K; m++) {
                double t = 0;
                for (int j = 0; j < k; j++)
                    for (int l = 0; l <= m; l++) t += A3(w->p, i, j, k, l) * A3(w->v, j, a, dh, m - l);
                A3(w->o, i, a, dh, m) = t;
            }
    }
}

/* The reverse of group_fwd: go set; gq, gk, gv (and the inner adjoints)
 * overwritten. */
static void group_bwd(attn_ws *w, int K, double scale)
{
    int k = w->k, dh = w->dh;
    size_t nkd = (size_t)k * dh * KS, nkk = (size_t)k * k * KS, nk = (size_t)k * KS;
    memset(w->gq, 0, nkd * sizeof(double));
    memset(w->gk, 0, nkd * sizeof(double));
    memset(w->gv, 0, nkd * sizeof(double));
    memset(w->gs, 0, nkk * sizeof(double));
    memset(w->ge, 0, nkk * sizeof(double));
    memset(w->gp, 0, nkk * sizeof(double));
    memset(w->gz, 0, nk * sizeof(double));
    memset(w->gr, 0, nk * sizeof(double));
    for (int i = 0; i < k; i++) {
        /* o_ic,m = sum_j sum_l p_ij,l v_jc,m-l */
        for (int a = 0; a < dh; a++)
            for (int m = 0; m <= K; m++) {
                double g = A3(w->go, i, a, dh, m);
                for (int j = 0; j < k; j++)
                    for (int l = 0; l <= m; l++) {
                        A3(w->gp, i, j, k, l) += g * A3(w->v, j, a, dh, m - l);
                        A3(w->gv, j, a, dh, m - l) += g * A3(w->p, i, j, k, l);
                    }
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
        /* s_ij,m = scale sum_c sum_l q_ic,l k_jc,m-l */
        for (int j = 0; j < k; j++)
            for (int m = 0; m <= K; m++) {
                double g = scale * A3(w->gs, i, j, k, m);
                for (int a = 0; a < dh; a++)
                    for (int l = 0; l <= m; l++) {
                        A3(w->gq, i, a, dh, l) += g * A3(w->kk, j, a, dh, m - l);
                        A3(w->gk, j, a, dh, m - l) += g * A3(w->q, i, a, dh, l);
                    }
            }
    }
}

void pf_cpu_attention_fwd(struct pf_node *y)
{
    const struct pf_node *Q = y->in[0], *Kn = y->in[1], *V = y->in[2];
    int k = y->i0, h = (int)y->p, c = y->c, dh = c / h, groups = y->n / k;
    double scale = 1 / sqrt((double)dh);
    size_t len = pf_node_stream_len(y);
    attn_ws w = ws_of((double *)y->scratch, k, dh);
    const pf_jet_layout *L = &y->layout;
    int passes = L->ndir ? L->ndir : 1;
    for (int d = 0; d < passes; d++) {
        int st[KS], K = dir_streams(L, L->ndir ? d : -1, st);
        for (int g = 0; g < groups; g++)
            for (int hd = 0; hd < h; hd++) {
                load(w.q, Q->val, len, c, g * k, hd * dh, &w, st, K);
                load(w.kk, Kn->val, len, c, g * k, hd * dh, &w, st, K);
                load(w.v, V->val, len, c, g * k, hd * dh, &w, st, K);
                group_fwd(&w, K, scale);
                for (int i = 0; i < k; i++)
                    for (int a = 0; a < dh; a++)
                        for (int m = 0; m <= K; m++)
                            y->val[(size_t)st[m] * len + (size_t)(g * k + i) * c + hd * dh + a] =
                                (pf_real)(A3(w.o, i, a, dh, m) * fact[m]);
            }
    }
}

/* Add a group's coefficient gradient (divided back by m!: stream = m! coef)
 * into a [S][n][c] gradient buffer. */
static void store_grad(pf_real *dst, const double *src, size_t len, int c, int r0, int c0,
                       const attn_ws *w, const int st[KS], int K)
{
    for (int i = 0; i < w->k; i++)
        for (int a = 0; a < w->dh; a++)
            for (int m = 0; m <= K; m++)
                dst[(size_t)st[m] * len + (size_t)(r0 + i) * c + c0 + a] += (pf_real)(A3(src, i, a, w->dh, m) / fact[m]);
}

void pf_cpu_attention_bwd(struct pf_node *y)
{
    struct pf_node *in[3] = {y->in[0], y->in[1], y->in[2]};
    int k = y->i0, h = (int)y->p, c = y->c, dh = c / h, groups = y->n / k;
    double scale = 1 / sqrt((double)dh);
    size_t len = pf_node_stream_len(y);
    attn_ws w = ws_of((double *)y->scratch, k, dh);
    const pf_jet_layout *L = &y->layout;
    /* first writers clear (an operand given twice is cleared once: only its
     * first slot has in_acc = 0), then every pass adds */
    for (int j = 0; j < 3; j++)
        if (in[j]->grad && !y->in_acc[j]) memset(in[j]->grad, 0, pf_node_len(in[j]) * sizeof(pf_real));
    int passes = L->ndir ? L->ndir : 1;
    for (int d = 0; d < passes; d++) {
        int st[KS], K = dir_streams(L, L->ndir ? d : -1, st);
        for (int g = 0; g < groups; g++)
            for (int hd = 0; hd < h; hd++) {
                load(w.q, in[0]->val, len, c, g * k, hd * dh, &w, st, K);
                load(w.kk, in[1]->val, len, c, g * k, hd * dh, &w, st, K);
                load(w.v, in[2]->val, len, c, g * k, hd * dh, &w, st, K);
                group_fwd(&w, K, scale);
                /* dL/dcoef_m = m! dL/dstream_m; the value's only in pass 0 */
                for (int i = 0; i < k; i++)
                    for (int a = 0; a < dh; a++)
                        for (int m = 0; m <= K; m++)
                            A3(w.go, i, a, dh, m) =
                                m == 0 && d > 0 ? 0
                                               : (double)y->grad[(size_t)st[m] * len + (size_t)(g * k + i) * c + hd * dh + a] * fact[m];
                group_bwd(&w, K, scale);
                double *gin[3] = {w.gq, w.gk, w.gv};
                for (int j = 0; j < 3; j++)
                    if (in[j]->grad) store_grad(in[j]->grad, gin[j], len, c, g * k, hd * dh, &w, st, K);
            }
    }
}
