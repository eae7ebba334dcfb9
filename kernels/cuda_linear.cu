/*
 * cuda_linear.cu — dense layers on jets on the GPU: y = x W^T (+ b on the
 * value stream) as ONE cuBLAS GEMM over all S*n rows, and linear_rwf, whose
 * weight is W = diag(exp(s)) V. The mirror of src/tensor/cpu_linear.c (see
 * there for the derivations), without its thin-layer special cases: every
 * shape goes through GEMM.
 *
 * Buffers are row-major; cuBLAS is column-major and reads a row-major r x c
 * matrix as its c x r transpose, so each product below is written for the
 * transposes (the comment at each call gives the column-major form).
 *
 * Scratch layout: bias-gradient partials [LIN_CHUNKS][out] (doubles, when
 * the layer has a bias), then for rwf W_eff [out][in] and dW_eff [out][in]
 * (pf_reals). W_eff is formed in forward and reused in backward.
 */
#include <math.h>

#include "cuda_ops.h"

/* Threads per block of the elementwise kernels. */
constexpr int LIN_BLOCK = 256;
/* Bias gradient: a block covers LIN_TILE columns with LIN_LANES threads per
 * column, over one of LIN_CHUNKS fixed chunks of rows. */
constexpr int LIN_TILE = 32;
constexpr int LIN_LANES = 8;
constexpr int LIN_CHUNKS = 64;
/* rwf parameter gradients: threads per block, one block per output row. */
constexpr int RWF_THREADS = 128;

static size_t bias_part_len(const struct pf_node *y)
{
    return y->param[1] >= 0 ? (size_t)LIN_CHUNKS * y->c : 0;
}

static double *bias_part(struct pf_node *y) { return (double *)y->scratch; }

static pf_real *weight_eff(struct pf_node *y)
{
    return (pf_real *)(bias_part(y) + bias_part_len(y));
}

size_t pf_cuda_linear_scratch(const struct pf_node *y)
{
    size_t bytes = bias_part_len(y) * sizeof(double);
    if (y->op == PF_OP_LINEAR_RWF) bytes += 2 * (size_t)y->c * y->in[0]->c * sizeof(pf_real);
    return bytes;
}

/* Column-major C (m x n) = op(A) op(B) + beta C on the context's stream. */
static void gemm(const pf_cuda_ctx *ctx, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                 int k, const pf_real *A, int lda, const pf_real *B, int ldb, pf_real beta,
                 pf_real *C, int ldc)
{
    const pf_real one = 1;
#ifdef PF_DOUBLE
    PF_CUBLAS_CHECK(cublasDgemm(ctx->blas, ta, tb, m, n, k, &one, A, lda, B, ldb, &beta, C, ldc));
#else
    PF_CUBLAS_CHECK(cublasSgemm(ctx->blas, ta, tb, m, n, k, &one, A, lda, B, ldb, &beta, C, ldc));
#endif
}

/* ------------------------------------------------------------ kernels */

/* W[o][i] = e^{s_o} V[o][i], the exponential taken in double as on the CPU. */
static __global__ void rwf_weight_kernel(pf_real *__restrict__ W, const pf_real *__restrict__ V,
                                         const pf_real *__restrict__ s, int out, int in)
{
    size_t total = (size_t)out * in;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
         k += (size_t)gridDim.x * blockDim.x) {
        size_t o = k / (size_t)in;
        W[k] = (pf_real)exp((double)s[o]) * V[k];
    }
}

/* y[p][o] += b[o] for the n rows of the value stream. */
static __global__ void bias_add_kernel(pf_real *__restrict__ y, const pf_real *__restrict__ b,
                                       int n, int out)
{
    size_t total = (size_t)n * out;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
         k += (size_t)gridDim.x * blockDim.x)
        y[k] += b[k % (size_t)out];
}

/* part[chunk][o] = sum of g[r][o] over the chunk's rows (of the first n), in
 * double: lane ty takes rows ty, ty + LIN_LANES, ..., then the lanes add by a
 * tree. Block (LIN_TILE, LIN_LANES); grid (column tiles, LIN_CHUNKS). */
static __global__ void colsum_partial_kernel(double *__restrict__ part,
                                             const pf_real *__restrict__ g, int n, int out)
{
    __shared__ double sh[LIN_LANES][LIN_TILE];
    int o = blockIdx.x * LIN_TILE + threadIdx.x, chunk = (n + LIN_CHUNKS - 1) / LIN_CHUNKS;
    int lo = blockIdx.y * chunk, hi = lo + chunk < n ? lo + chunk : n;
    double acc = 0;
    if (o < out)
        for (int r = lo + (int)threadIdx.y; r < hi; r += LIN_LANES) acc += g[(size_t)r * out + o];
    sh[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    for (int h = LIN_LANES / 2; h > 0; h /= 2) {
        if ((int)threadIdx.y < h) sh[threadIdx.y][threadIdx.x] += sh[threadIdx.y + h][threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.y == 0 && o < out) part[(size_t)blockIdx.y * out + o] = sh[0][threadIdx.x];
}

/* gb[o] += the chunk partials of column o, added in chunk order. */
static __global__ void colsum_finish_kernel(pf_real *__restrict__ gb,
                                            const double *__restrict__ part, int out)
{
    for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < out; o += gridDim.x * blockDim.x) {
        double s = 0;
        for (int k = 0; k < LIN_CHUNKS; k++) s += part[(size_t)k * out + o];
        gb[o] += (pf_real)s;
    }
}

/* From dW_eff: gV[o][i] += e^{s_o} dW[o][i] (gV may be NULL) and
 * gs[o] += sum_i dW[o][i] W[o][i] (gs may be NULL; the sum in double over a
 * fixed strided split and tree). One block per row o. */
static __global__ void rwf_grad_kernel(pf_real *__restrict__ gV, pf_real *__restrict__ gs,
                                       const pf_real *__restrict__ dW,
                                       const pf_real *__restrict__ W,
                                       const pf_real *__restrict__ s, int out, int in)
{
    __shared__ double sh[RWF_THREADS];
    for (int o = blockIdx.x; o < out; o += gridDim.x) {
        pf_real e = (pf_real)exp((double)s[o]);
        const pf_real *dWo = dW + (size_t)o * in, *Wo = W + (size_t)o * in;
        double acc = 0;
        for (int i = threadIdx.x; i < in; i += RWF_THREADS) {
            if (gV) gV[(size_t)o * in + i] += e * dWo[i];
            acc += (double)dWo[i] * Wo[i];
        }
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (int h = RWF_THREADS / 2; h > 0; h /= 2) {
            if ((int)threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0 && gs) gs[o] += (pf_real)sh[0];
        __syncthreads(); /* sh is reused by the next row */
    }
}

/* ------------------------------------------------------------ launchers */

static void launch_rwf_weight(pf_real *W, const pf_real *V, const pf_real *s, int out, int in,
                              cudaStream_t st)
{
    size_t total = (size_t)out * in;
    rwf_weight_kernel<<<pf_cuda_grid(total, LIN_BLOCK), LIN_BLOCK, 0, st>>>(W, V, s, out, in);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_bias_add(pf_real *y, const pf_real *b, int n, int out, cudaStream_t st)
{
    size_t total = (size_t)n * out;
    bias_add_kernel<<<pf_cuda_grid(total, LIN_BLOCK), LIN_BLOCK, 0, st>>>(y, b, n, out);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_bias_grad(pf_real *gb, double *part, const pf_real *g, int n, int out,
                             cudaStream_t st)
{
    dim3 grid((unsigned)((out + LIN_TILE - 1) / LIN_TILE), LIN_CHUNKS), block(LIN_TILE, LIN_LANES);
    colsum_partial_kernel<<<grid, block, 0, st>>>(part, g, n, out);
    PF_CUDA_CHECK(cudaGetLastError());
    colsum_finish_kernel<<<pf_cuda_grid((size_t)out, LIN_BLOCK), LIN_BLOCK, 0, st>>>(gb, part, out);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_rwf_grad(pf_real *gV, pf_real *gs, const pf_real *dW, const pf_real *W,
                            const pf_real *s, int out, int in, cudaStream_t st)
{
    unsigned grid = (unsigned)(out < 65535 ? out : 65535);
    rwf_grad_kernel<<<grid, RWF_THREADS, 0, st>>>(gV, gs, dW, W, s, out, in);
    PF_CUDA_CHECK(cudaGetLastError());
}

/* ------------------------------------------------------------ entries */

void pf_cuda_linear_fwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    const struct pf_node *x = y->in[0];
    int rows = y->S * y->n, out = y->c, in = x->c;
    const pf_real *W = y->pw[0];
    if (y->op == PF_OP_LINEAR_RWF) {
        pf_real *We = weight_eff(y);
        launch_rwf_weight(We, y->pw[0], y->pw[2], out, in, ctx->stream);
        W = We;
    }
    /* Y^T (out x rows) = W (out x in) X^T (in x rows) */
    gemm(ctx, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, W, in, x->val, in, 0, y->val, out);
    if (y->pw[1]) launch_bias_add(y->val, y->pw[1], y->n, out, ctx->stream);
}

void pf_cuda_linear_bwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    struct pf_node *x = y->in[0];
    int rows = y->S * y->n, out = y->c, in = x->c;
    bool rwf = y->op == PF_OP_LINEAR_RWF;
    const pf_real *W = rwf ? weight_eff(y) : y->pw[0];
    const pf_real *g = y->grad;
    /* gX^T (in x rows) (+)= W^T (in x out) G^T (out x rows) */
    if (x->grad)
        gemm(ctx, CUBLAS_OP_N, CUBLAS_OP_N, in, rows, out, W, in, g, out, y->in_acc[0] ? 1 : 0,
             x->grad, in);
    /* gW^T (in x out) (+)= X^T (in x rows) G (rows x out); rwf forms dW_eff in
     * scratch (overwritten), a plain layer adds into its parameter gradient */
    pf_real *gW = rwf ? weight_eff(y) + (size_t)out * in : y->pg[0];
    bool need_gW = rwf ? y->pg[0] || y->pg[2] : y->pg[0] != NULL;
    if (need_gW)
        gemm(ctx, CUBLAS_OP_N, CUBLAS_OP_T, in, out, rows, x->val, in, g, out, rwf ? 0 : 1, gW, in);
    if (y->pg[1]) launch_bias_grad(y->pg[1], bias_part(y), g, y->n, out, ctx->stream);
    if (rwf && need_gW) launch_rwf_grad(y->pg[0], y->pg[2], gW, W, y->pw[2], out, in, ctx->stream);
}
