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
 *
 * BLAS is called over a fixed split too: the rows in blocks (a weight
 * gradient by GEMM: its rows, the layer's outputs), one single-threaded
 * call per block inside our parallel loop (always a parallel region, even
 * for one block: inside one, OpenBLAS runs on the calling thread alone;
 * one active level, tensor/threads.h), and a GEMV weight gradient as per-block partials added
 * in block order. The blocks follow the sizes only, so every thread count
 * makes the same calls and the same bits; OpenBLAS's own split follows the
 * thread count, and its edge kernels sum in another order.
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

/* Rows per BLAS block at least; the block count is a multiple of 8 (even
 * shares for 1, 2, 4 and 8 threads), at most PF_CPU_NCHUNK. */
enum { BLOCK_ROWS = 64 };
/* Output rows per block of a GEMM weight gradient at least; at most 8 blocks. */
enum { BLOCK_OUTS = 16 };

static int row_blocks(int rows)
{
    int b = (rows + BLOCK_ROWS - 1) / BLOCK_ROWS;
    if (b <= 1) return 1;
    b = (b + 7) / 8 * 8;
    return b < PF_CPU_NCHUNK ? b : PF_CPU_NCHUNK;
}

/* Block k of n over len items: [*lo, *lo + return). */
static int block(int k, int n, int len, int *lo)
{
    int per = (len + n - 1) / n;
    *lo = k * per < len ? k * per : len;
    return *lo + per < len ? per : len - *lo;
}

/* Scratch layout (pf_reals): [W_eff | gW_eff] for rwf (2 out in), then
 * per-chunk partials: bias [NCHUNK][out], thin dW [NCHUNK][in][out], GEMV
 * dW (out = 1) [NCHUNK][in]. */
size_t pf_cpu_linear_scratch(const struct pf_node *y)
{
    size_t out = (size_t)y->c, in = (size_t)y->in[0]->c;
    size_t n = PF_CPU_NCHUNK * out * (1 + (in <= THIN_IN ? in : 0)) + (out == 1 ? PF_CPU_NCHUNK * in : 0);
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
    const pf_real *xv = x->val;
    pf_real *yv = y->val;
    int nb = row_blocks(rows);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nb; k++) {
        int r0, nr = block(k, nb, rows, &r0);
        if (nr <= 0) continue;
        if (out == 1)
            gemv(CblasRowMajor, CblasNoTrans, nr, in, 1, xv + (size_t)r0 * in, in, W, 1, 0, yv + r0, 1);
        else
            gemm(CblasRowMajor, CblasNoTrans, CblasTrans, nr, out, in, 1, xv + (size_t)r0 * in, in, W, in, 0,
                 yv + (size_t)r0 * out, out);
    }
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

/* gW[in] (+)= x^T g for out = 1: per-block GEMVs into part [NCHUNK][in],
 * added in block order. */
static void gemv_weight_grad(pf_real *restrict gW, const pf_real *g, const pf_real *x, int rows, int in,
                             int acc_into, pf_real *part)
{
    int nb = row_blocks(rows);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nb; k++) {
        int r0, nr = block(k, nb, rows, &r0);
        pf_real *pk = part + (size_t)k * in;
        if (nr > 0)
            gemv(CblasRowMajor, CblasTrans, nr, in, 1, x + (size_t)r0 * in, in, g + r0, 1, 0, pk, 1);
        else
            memset(pk, 0, (size_t)in * sizeof *pk);
    }
    for (int i = 0; i < in; i++) {
        pf_real s = 0;
        for (int k = 0; k < nb; k++) s += part[(size_t)k * in + i];
        gW[i] = acc_into ? gW[i] + s : s;
    }
}

/* gW[out][in] (+)= g^T x by GEMM, the rows of gW (the layer's outputs) in
 * fixed blocks, each a sum over every row of g and x. */
static void gemm_weight_grad(pf_real *gW, const pf_real *g, const pf_real *x, int rows, int out, int in,
                             int acc_into)
{
    int nb = (out + BLOCK_OUTS - 1) / BLOCK_OUTS;
    nb = nb < 1 ? 1 : nb > 8 ? 8 : nb;
    pf_real beta = acc_into ? 1 : 0;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nb; k++) {
        int o0, no = block(k, nb, out, &o0);
        if (no > 0)
            gemm(CblasRowMajor, CblasTrans, CblasNoTrans, no, in, rows, 1, g + o0, out, x, in, beta,
                 gW + (size_t)o0 * in, in);
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
        } else {
            pf_real *gx = x->grad, beta = y->in_acc[0] ? 1 : 0;
            int nb = row_blocks(rows);
#pragma omp parallel for schedule(static)
            for (int k = 0; k < nb; k++) {
                int r0, nr = block(k, nb, rows, &r0);
                if (nr > 0)
                    gemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nr, in, out, 1, g + (size_t)r0 * out, out, W,
                         in, beta, gx + (size_t)r0 * in, in);
            }
        }
    }
    /* parameter gradients accumulate; rwf first forms dW_eff in scratch */
    pf_real *gW = rwf ? y->scratch + (size_t)out * in : y->pg[0];
    if (gW) {
        if (out == 1)
            gemv_weight_grad(gW, g, x->val, rows, in, !rwf, part + PF_CPU_NCHUNK);
        else if (in <= THIN_IN)
            thin_weight_grad(gW, g, x->val, rows, out, in, !rwf, part);
        else
            gemm_weight_grad(gW, g, x->val, rows, out, in, !rwf);
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
