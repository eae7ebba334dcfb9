/*
 * Dense layers on jets: y = x W^T (+ b on the value stream), ONE GEMM over all
 * S*n rows, since every stream transforms by the same matrix.
 *
 * Thin layers take other routes, because a GEMM with an inner or outer
 * dimension of 1-8 spends its time packing: the output layer (out = 1) uses
 * GEMV, and the weight gradient of a layer with few inputs (the first one:
 * x, t) is one pass over the rows with per-chunk partial sums. Bias
 * gradients are per-chunk column sums too. Partial sums live in the node's
 * scratch and are added in chunk order, so results do not depend on threads.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "tensor/cpu_ops.h"

#ifdef PF_DOUBLE
#define gemm cblas_dgemm
#define gemv cblas_dgemv
#else
#define gemm cblas_sgemm
#define gemv cblas_sgemv
#endif

/* Inputs up to which the weight gradient bypasses GEMM. */
#define THIN_IN 8

/* Scratch layout (pf_reals): [W_eff | gW_eff] for rwf (2 out in), then
 * per-chunk partials: bias [NCHUNK][out], thin dW [NCHUNK][in][out]. */
size_t pf_cpu_linear_scratch(const struct pf_node *y)
{
    size_t out = (size_t)y->c, in = (size_t)y->in[0]->c;
    size_t n = PF_CPU_NCHUNK * out * (1 + (in <= THIN_IN ? in : 0));
    if (y->op == PF_OP_LINEAR_RWF) n += 2 * out * in;
    return n * sizeof(pf_real);
}

static pf_real *partials(struct pf_node *y)
{
    return y->scratch + (y->op == PF_OP_LINEAR_RWF ? 2 * (size_t)y->c * y->in[0]->c : 0);
}

/* The weight actually applied: W itself, or diag(exp(s)) V into scratch. */
static const pf_real *effective_weight(struct pf_node *y)
{
    if (y->op == PF_OP_LINEAR) return y->pw[0];
    int out = y->c, in = y->in[0]->c;
    const pf_real *V = y->pw[0], *s = y->pw[2];
    pf_real *W = y->scratch;
    for (int o = 0; o < out; o++) {
        pf_real e = (pf_real)exp((double)s[o]);
        for (int i = 0; i < in; i++) W[o * in + i] = e * V[o * in + i];
    }
    return W;
}

/* y[r] = sum_i x[r][i] Wt[i] (+ b for the first n0 rows, the value stream). */
static void thin_forward(pf_real *restrict y, const pf_real *restrict x, const pf_real *restrict Wt,
                         const pf_real *restrict b, int rows, int n0, int out, int in)
{
#pragma omp parallel for schedule(static) if ((size_t)rows * out > PF_CPU_PAR_MIN)
    for (int r = 0; r < rows; r++) {
        pf_real *restrict yr = y + (size_t)r * out;
        const pf_real *restrict xr = x + (size_t)r * in;
        if (b && r < n0)
            for (int o = 0; o < out; o++) yr[o] = b[o];
        else
            for (int o = 0; o < out; o++) yr[o] = 0;
        for (int i = 0; i < in; i++) {
            const pf_real *restrict wi = Wt + (size_t)i * out;
            pf_real xi = xr[i];
            for (int o = 0; o < out; o++) yr[o] += xi * wi[o];
        }
    }
}

void pf_cpu_linear_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    int rows = y->S * y->n, out = y->c, in = x->c;
    const pf_real *W = effective_weight(y), *b = y->pw[1];
    if (in <= THIN_IN && out > 1) { /* one pass, bias fused: y_r = sum_i x_ri W^T_i: (+ b) */
        pf_real *Wt = partials(y);     /* W^T [in][out], contiguous rows for the inner loop */
        for (int o = 0; o < out; o++)
            for (int i = 0; i < in; i++) Wt[(size_t)i * out + o] = W[o * in + i];
        thin_forward(y->val, x->val, Wt, b, rows, y->n, out, in);
        return;
    }
    if (out == 1)
        gemv(CblasRowMajor, CblasNoTrans, rows, in, 1, x->val, in, W, 1, 0, y->val, 1);
    else
        gemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1, x->val, in, W, in, 0,
             y->val, out);
    if (!b) return;
    pf_real *v = y->val;
#pragma omp parallel for schedule(static) if ((size_t)y->n * out > PF_CPU_PAR_MIN)
    for (int p = 0; p < y->n; p++)
        for (int o = 0; o < out; o++) v[(size_t)p * out + o] += b[o];
}

/* gb += column sums of g[rows][out], by chunks. */
static void bias_grad(pf_real *restrict gb, const pf_real *g, int rows, int out, pf_real *part)
{
    int chunk = (rows + PF_CPU_NCHUNK - 1) / PF_CPU_NCHUNK;
#pragma omp parallel for schedule(static) if ((size_t)rows * out > PF_CPU_PAR_MIN)
    for (int k = 0; k < PF_CPU_NCHUNK; k++) {
        pf_real *restrict acc = part + (size_t)k * out;
        memset(acc, 0, (size_t)out * sizeof *acc);
        int hi = (k + 1) * chunk < rows ? (k + 1) * chunk : rows;
        for (int r = k * chunk; r < hi; r++)
            for (int o = 0; o < out; o++) acc[o] += g[(size_t)r * out + o];
    }
    for (int k = 0; k < PF_CPU_NCHUNK; k++)
        for (int o = 0; o < out; o++) gb[o] += part[(size_t)k * out + o];
}

/* gW[out][in] (+)= g^T x for in <= THIN_IN, by chunks of rows. */
static void thin_weight_grad(pf_real *restrict gW, const pf_real *g, const pf_real *x, int rows,
                             int out, int in, int acc_into, pf_real *part)
{
    int chunk = (rows + PF_CPU_NCHUNK - 1) / PF_CPU_NCHUNK;
    size_t blk = (size_t)in * out;
#pragma omp parallel for schedule(static) if ((size_t)rows * out > PF_CPU_PAR_MIN)
    for (int k = 0; k < PF_CPU_NCHUNK; k++) {
        pf_real *restrict acc = part + (size_t)k * blk; /* [in][out] */
        memset(acc, 0, blk * sizeof *acc);
        int hi = (k + 1) * chunk < rows ? (k + 1) * chunk : rows;
        for (int r = k * chunk; r < hi; r++) {
            const pf_real *restrict gr = g + (size_t)r * out;
            for (int i = 0; i < in; i++) {
                pf_real xi = x[(size_t)r * in + i];
                pf_real *restrict ai = acc + (size_t)i * out;
                for (int o = 0; o < out; o++) ai[o] += gr[o] * xi;
            }
        }
    }
    for (int o = 0; o < out; o++)
        for (int i = 0; i < in; i++) {
            pf_real s = 0;
            for (int k = 0; k < PF_CPU_NCHUNK; k++) s += part[(size_t)k * blk + (size_t)i * out + o];
            gW[o * in + i] = acc_into ? gW[o * in + i] + s : s;
        }
}

void pf_cpu_linear_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    int rows = y->S * y->n, out = y->c, in = x->c;
    int rwf = y->op == PF_OP_LINEAR_RWF;
    const pf_real *W = rwf ? y->scratch : y->pw[0]; /* W_eff from forward */
    const pf_real *g = y->grad;
    pf_real *part = partials(y);
    if (x->grad) {
        if (out == 1) { /* outer product g w^T */
            pf_real *gx = x->grad;
            int acc = y->in_acc[0];
#pragma omp parallel for schedule(static) if ((size_t)rows * in > PF_CPU_PAR_MIN)
            for (int r = 0; r < rows; r++)
                for (int i = 0; i < in; i++)
                    gx[(size_t)r * in + i] = (acc ? gx[(size_t)r * in + i] : 0) + g[r] * W[i];
        } else
            gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, in, out, 1, g, out, W, in,
                 y->in_acc[0] ? 1 : 0, x->grad, in);
    }
    /* parameter gradients accumulate; rwf first forms dW_eff in scratch */
    pf_real *gW = rwf ? y->scratch + (size_t)out * in : y->pg[0];
    if (gW) {
        if (out == 1)
            gemv(CblasRowMajor, CblasTrans, rows, in, 1, x->val, in, g, 1, rwf ? 0 : 1, gW, 1);
        else if (in <= THIN_IN)
            thin_weight_grad(gW, g, x->val, rows, out, in, !rwf, part);
        else
            gemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, rows, 1, g, out, x->val, in,
                 rwf ? 0 : 1, gW, in);
    }
    if (y->pg[1]) bias_grad(y->pg[1], g, y->n, out, part); /* value stream only */
    if (rwf) {
        /* W = e^s V: dV = e^s dW, ds_o = sum_i dW_oi W_oi */
        const pf_real *s = y->pw[2];
        pf_real *gV = y->pg[0], *gs = y->pg[2];
        for (int o = 0; o < out; o++) {
            pf_real e = (pf_real)exp((double)s[o]), acc = 0;
            for (int i = 0; i < in; i++) {
                if (gV) gV[o * in + i] += e * gW[o * in + i];
                acc += gW[o * in + i] * W[o * in + i];
            }
            if (gs) gs[o] += acc;
        }
    }
}
