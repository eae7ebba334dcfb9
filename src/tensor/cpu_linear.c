/*
 * Dense layers on jets: y = x W^T (+ b on the value stream), ONE GEMM over all
 * S*n rows, since every stream transforms by the same matrix.
 *
 * Thin layers take other routes, because a GEMM with an inner or outer
 * dimension of 1-8 spends its time packing: the output layer (out = 1) uses
 * GEMV; the forward and the input gradient of a layer with at most 8 inputs
 * or outputs (the first one: x, t; PINNsFormer's d_model of 4 at the quick
 * profile) are one pass over the rows (thin_rows: 8 rows' sums of a vector
 * of outputs in registers, each sum in the order of its terms, no sum
 * across rows); the weight gradient of a layer with few inputs is one pass
 * over the rows with per-chunk partial sums. Bias gradients are per-chunk
 * column sums too. Partial sums live in the node's
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

/* Inputs up to which the weight gradient bypasses GEMM; inputs or outputs
 * up to which the forward and the input gradient do (thin_rows). */
#define THIN_IN 8
#define THIN 8

/* The thin loops' vectors: VW reals in 32 bytes (one AVX register),
 * unaligned; no FMA contraction in C11, so each lane sums as a scalar would. */
typedef pf_real vreal __attribute__((vector_size(32), aligned(sizeof(pf_real))));
#define VW ((int)(sizeof(vreal) / sizeof(pf_real)))
/* Rows per tile of thin_rows: independent sums that overlap. */
enum { TILE_ROWS = 8 };

/* Width of a [k][m] matrix padded to whole vectors. */
static int padded(int m) { return (m + VW - 1) / VW * VW; }

/* Rows per BLAS block at least; the block count is a multiple of 8 (even
 * shares for 1, 2, 4 and 8 threads), at most PF_CPU_NCHUNK, and a block
 * but the last has a multiple of BLOCK_ALIGN rows (whole micro-tiles of the
 * GEMM kernels). Each call repacks its operands and ends on edge kernels,
 * so small blocks cost: at 64 rows a quick burgers_1d step (5,460 rows a
 * layer, 64 blocks) took 9% more instructions than one GEMM; at 1,024
 * (8 blocks of 688) 2.6% (callgrind, docs/building.md "Threads"). */
enum { BLOCK_ROWS = 1024, BLOCK_ALIGN = 16 };
/* Output rows per block of a GEMM weight gradient at least; at most 8 blocks. */
enum { BLOCK_OUTS = 16 };

static int row_blocks(int rows)
{
    int b = (rows + BLOCK_ROWS - 1) / BLOCK_ROWS;
    if (b <= 1) return 1;
    b = (b + 7) / 8 * 8;
    return b < PF_CPU_NCHUNK ? b : PF_CPU_NCHUNK;
}

/* Block k of n over len items: [*lo, *lo + return), each but the last a
 * multiple of align items (the last may be short or empty). */
static int block(int k, int n, int len, int align, int *lo)
{
    int per = (len + n - 1) / n;
    per = (per + align - 1) / align * align;
    *lo = k * per < len ? k * per : len;
    return *lo + per < len ? per : len - *lo;
}

/* Whether a layer's forward and input gradient take thin_rows: a side of
 * at most THIN (out = 1 has its GEMV and outer product). */
static int is_thin(int in, int out) { return out > 1 && (in <= THIN || out <= THIN); }

/* Scratch layout (pf_reals): [W_eff | gW_eff] for rwf (2 out in), then
 * per-chunk partials: bias [NCHUNK][out], thin dW [NCHUNK][in][out], GEMV
 * dW (out = 1) [NCHUNK][in]; then, for a thin layer, the padded matrix of
 * thin_rows (W^T or W, the larger). */
static size_t partials_len(int in, int out)
{
    return PF_CPU_NCHUNK * (size_t)out * (1 + (in <= THIN_IN ? (size_t)in : 0)) +
           (out == 1 ? PF_CPU_NCHUNK * (size_t)in : 0);
}

size_t pf_cpu_linear_scratch(const struct pf_node *y)
{
    int out = y->c, in = y->in[0]->c;
    size_t n = partials_len(in, out);
    if (is_thin(in, out)) {
        size_t a = (size_t)in * padded(out), b = (size_t)out * padded(in);
        n += a > b ? a : b;
    }
    if (y->op == PF_OP_LINEAR_RWF) n += 2 * (size_t)out * in;
    return n * sizeof(pf_real);
}

static pf_real *partials(struct pf_node *y)
{
    return y->scratch + (y->op == PF_OP_LINEAR_RWF ? 2 * (size_t)y->c * y->in[0]->c : 0);
}

/* thin_rows' padded matrix. */
static pf_real *thin_matrix(struct pf_node *y) { return partials(y) + partials_len(y->in[0]->c, y->c); }

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

/* Mp [k][padded(m)] = A [k][m] (trans 0) or A^T for A [m][k] (trans 1),
 * the padding 0. */
static void pad_matrix(pf_real *restrict Mp, const pf_real *restrict A, int k, int m, int trans)
{
    int mp = padded(m);
    for (int j = 0; j < k; j++)
        for (int o = 0; o < mp; o++)
            Mp[(size_t)j * mp + o] = o >= m ? 0 : trans ? A[(size_t)o * k + j] : A[(size_t)j * m + o];
}

/* Rows [r0, r0 + nr) of thin_rows, a vector of outputs at a time; inlined
 * with m a constant where m <= THIN (thin_rows' switch), so a row's partial
 * vector moves as one copy of a known size. */
static inline __attribute__((always_inline)) void thin_tile(pf_real *restrict y, const pf_real *restrict x,
                                                           const pf_real *restrict Mp, const pf_real *restrict b,
                                                           int r0, int nr, int n0, int m, int k, int acc)
{
    int mp = padded(m);
    const pf_real *xr[TILE_ROWS];
    for (int i = 0; i < TILE_ROWS; i++) xr[i] = x + (size_t)(r0 + (i < nr ? i : 0)) * k;
    for (int o = 0; o < mp; o += VW) {
        int nl = m - o < VW ? m - o : VW;
        vreal s[TILE_ROWS];
        for (int i = 0; i < TILE_ROWS; i++) {
            s[i] = (vreal){0};
            if (b && r0 + i < n0) memcpy(&s[i], b + o, (size_t)nl * sizeof(pf_real));
        }
        for (int j = 0; j < k; j++) {
            vreal w = *(const vreal *)(Mp + (size_t)j * mp + o);
            for (int i = 0; i < TILE_ROWS; i++) s[i] += xr[i][j] * w;
        }
        for (int i = 0; i < nr; i++) {
            pf_real *yo = y + (size_t)(r0 + i) * m + o;
            if (acc) {
                vreal old = (vreal){0};
                memcpy(&old, yo, (size_t)nl * sizeof(pf_real));
                s[i] = old + s[i];
            }
            memcpy(yo, &s[i], (size_t)nl * sizeof(pf_real));
        }
    }
}

/* y[r][0..m) = init + sum_{j<k} x[r][j] Mp[j] over `rows` rows of x [rows][k]
 * (Mp from pad_matrix), init = b for the first n0 rows when b is set, the
 * old y when acc (the sum added to it), else 0; each sum in j order. A layer
 * with k or m at most 8 (a d_model of 4, the first layer's inputs) spends a
 * BLAS call's time in packing; these loops keep TILE_ROWS rows' sums in
 * registers, sharing the loads of Mp. */
#define NARROW(M_)                                                                                                     \
    case M_:                                                                                                           \
        thin_tile(y, x, Mp, b, r0, nr, n0, M_, k, acc);                                                               \
        break
static void thin_rows(pf_real *restrict y, const pf_real *restrict x, const pf_real *restrict Mp,
                      const pf_real *restrict b, int rows, int n0, int m, int k, int acc)
{
    int tiles = (rows + TILE_ROWS - 1) / TILE_ROWS;
#pragma omp parallel for schedule(static) if ((size_t)rows * m * k > 8 * PF_CPU_PAR_MIN)
    for (int t = 0; t < tiles; t++) {
        int r0 = t * TILE_ROWS, nr = rows - r0 < TILE_ROWS ? rows - r0 : TILE_ROWS;
        switch (m) {
            NARROW(1); NARROW(2); NARROW(3); NARROW(4); NARROW(5); NARROW(6); NARROW(7); NARROW(8);
        default: thin_tile(y, x, Mp, b, r0, nr, n0, m, k, acc);
        }
    }
}
#undef NARROW

void pf_cpu_linear_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    int rows = y->S * y->n, out = y->c, in = x->c;
    const pf_real *W = effective_weight(y), *b = y->pw[1];
    if (is_thin(in, out)) { /* one pass, bias fused: y_r = (b +) sum_i x_ri W^T_i */
        pf_real *Wt = thin_matrix(y); /* W^T [in][padded out] */
        pad_matrix(Wt, W, in, out, 1);
        thin_rows(y->val, x->val, Wt, b, rows, y->n, out, in, 0);
        return;
    }
    const pf_real *xv = x->val;
    pf_real *yv = y->val;
    int nb = row_blocks(rows);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nb; k++) {
        int r0, nr = block(k, nb, rows, BLOCK_ALIGN, &r0);
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
        int r0, nr = block(k, nb, rows, BLOCK_ALIGN, &r0);
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
        int o0, no = block(k, nb, out, 1, &o0);
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
        } else if (is_thin(in, out)) { /* gx_r (+)= sum_o g_ro W_o */
            pf_real *Wp = thin_matrix(y); /* W [out][padded in] */
            pad_matrix(Wp, W, out, in, 0);
            thin_rows(x->grad, g, Wp, NULL, rows, 0, in, out, y->in_acc[0]);
        } else {
            pf_real *gx = x->grad, beta = y->in_acc[0] ? 1 : 0;
            int nb = row_blocks(rows);
#pragma omp parallel for schedule(static)
            for (int k = 0; k < nb; k++) {
                int r0, nr = block(k, nb, rows, BLOCK_ALIGN, &r0);
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
