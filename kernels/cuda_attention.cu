/*
 * cuda_attention.cu — attention over each point's tokens (graph.h,
 * pf_attention), the CUDA mirror of src/tensor/cpu_attention.c: both run
 * the group arithmetic of src/tensor/attention_core.h, compiled here for
 * the device.
 *
 * One thread per (group, head), grid-striding over them with at most
 * ATTN_THREADS threads, each with its own workspace in scratch
 * (attn_ws_doubles(k, dh) doubles). A thread walks the directions in order
 * like the CPU; the forward writes the value stream in the first pass only.
 * Threads own disjoint rows and channels of the output and of the operands'
 * gradients, so there are no atomics; operands this op writes first are
 * cleared (cudaMemsetAsync) before the kernel, then every pass adds.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#include "cuda_ops.h"
#include "tensor/attention_core.h"

#define ATTN_BLOCK 64
#define ATTN_THREADS 4096 /* workspaces in scratch: bounds its size */

/* The layout's direction streams resolved on the host: st[d][m] for
 * m = 0..order[d] (st[d][0] = 0, the value); ndir = 0 runs one pass of
 * order 0. */
struct attn_dirs {
    int ndir;
    int order[PF_JET_MAX_DIRS];
    int st[PF_JET_MAX_DIRS][KS];
};

struct attn_shape {
    int groups, k, h, c, dh;
    size_t len; /* elements of one stream: n c */
    double scale;
};

/* Coefficients of channels [c0, c0 + dh) of rows [r0, r0 + k) of a
 * [S][n][c] buffer. */
static __device__ void attn_load(double *dst, const pf_real *src, const attn_shape &A, int r0, int c0,
                                 const int *st, int K)
{
    for (int i = 0; i < A.k; i++)
        for (int a = 0; a < A.dh; a++)
            for (int m = 0; m <= K; m++)
                AL3(dst, i, a, A.dh, m, 0) =
                    (double)src[(size_t)st[m] * A.len + (size_t)(r0 + i) * A.c + c0 + a] / attn_fact(m);
}

/* Load one group's q, k, v coefficients (head at channel c0, rows from
 * r0) and run its forward (with the output o where out is set, else only
 * what the reverse needs): what both kernels start each pass with. */
static __device__ void group_fwd(attn_ws *w, const pf_real *q, const pf_real *kx, const pf_real *v,
                                 const attn_shape &A, int r0, int c0, const int *st, int K, bool out)
{
    attn_load(w->q, q, A, r0, c0, st, K);
    attn_load(w->kk, kx, A, r0, c0, st, K);
    attn_load(w->v, v, A, r0, c0, st, K);
    attn_group_probs(w, K, A.scale);
    if (out) attn_group_out(w, K);
}

static __global__ void attention_fwd_kernel(const pf_real *__restrict__ q, const pf_real *__restrict__ kx,
                                            const pf_real *__restrict__ v, pf_real *__restrict__ y,
                                            double *__restrict__ ws, attn_shape A, attn_dirs D)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, nt = (size_t)gridDim.x * blockDim.x;
    attn_ws w = attn_ws_of(ws + t * attn_ws_doubles(A.k, A.dh), A.k, A.dh);
    int passes = D.ndir ? D.ndir : 1;
    for (size_t gh = t; gh < (size_t)A.groups * A.h; gh += nt) {
        int g = (int)(gh / A.h), hd = (int)(gh % A.h), r0 = g * A.k, c0 = hd * A.dh;
        for (int d = 0; d < passes; d++) {
            int K = D.ndir ? D.order[d] : 0;
            const int *st = D.st[d];
            group_fwd(&w, q, kx, v, A, r0, c0, st, K, true);
            for (int i = 0; i < A.k; i++)
                for (int a = 0; a < A.dh; a++)
                    for (int m = d ? 1 : 0; m <= K; m++)
                        y[(size_t)st[m] * A.len + (size_t)(r0 + i) * A.c + c0 + a] =
                            (pf_real)(AL3(w.o, i, a, A.dh, m, 0) * attn_fact(m));
        }
    }
}

/* gin[j] (NULL: no gradient) += the group's dL/d(operand j), every pass. */
static __global__ void attention_bwd_kernel(const pf_real *__restrict__ q, const pf_real *__restrict__ kx,
                                            const pf_real *__restrict__ v, const pf_real *__restrict__ gy,
                                            pf_real *gq, pf_real *gk, pf_real *gv,
                                            double *__restrict__ ws, attn_shape A, attn_dirs D)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, nt = (size_t)gridDim.x * blockDim.x;
    attn_ws w = attn_ws_of(ws + t * attn_ws_doubles(A.k, A.dh), A.k, A.dh);
    int passes = D.ndir ? D.ndir : 1;
    for (size_t gh = t; gh < (size_t)A.groups * A.h; gh += nt) {
        int g = (int)(gh / A.h), hd = (int)(gh % A.h), r0 = g * A.k, c0 = hd * A.dh;
        for (int d = 0; d < passes; d++) {
            int K = D.ndir ? D.order[d] : 0;
            const int *st = D.st[d];
            group_fwd(&w, q, kx, v, A, r0, c0, st, K, false);
            for (int i = 0; i < A.k; i++)
                for (int a = 0; a < A.dh; a++)
                    for (int m = 0; m <= K; m++)
                        AL3(w.go, i, a, A.dh, m, 0) =
                            m == 0 && d > 0
                                ? 0
                                : (double)gy[(size_t)st[m] * A.len + (size_t)(r0 + i) * A.c + c0 + a] *
                                      attn_fact(m);
            attn_group_bwd(&w, K, A.scale);
            pf_real *gin[3] = {gq, gk, gv};
            double *src[3] = {w.gq, w.gk, w.gv};
            for (int j = 0; j < 3; j++) {
                if (!gin[j]) continue;
                for (int i = 0; i < A.k; i++)
                    for (int a = 0; a < A.dh; a++)
                        for (int m = 0; m <= K; m++)
                            gin[j][(size_t)st[m] * A.len + (size_t)(r0 + i) * A.c + c0 + a] +=
                                (pf_real)(AL3(src[j], i, a, A.dh, m, 0) / attn_fact(m));
            }
        }
    }
}

static unsigned attn_grid(const attn_shape &A)
{
    size_t work = (size_t)A.groups * A.h, threads = work < ATTN_THREADS ? work : ATTN_THREADS;
    size_t b = (threads + ATTN_BLOCK - 1) / ATTN_BLOCK;
    return (unsigned)(b < 1 ? 1 : b);
}

static void attention_fwd_launch(const pf_real *q, const pf_real *kx, const pf_real *v, pf_real *y,
                                 double *ws, const attn_shape &A, const attn_dirs &D, cudaStream_t st)
{
    attention_fwd_kernel<<<attn_grid(A), ATTN_BLOCK, 0, st>>>(q, kx, v, y, ws, A, D);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void attention_bwd_launch(const pf_real *q, const pf_real *kx, const pf_real *v,
                                 const pf_real *gy, pf_real *gq, pf_real *gk, pf_real *gv, double *ws,
                                 const attn_shape &A, const attn_dirs &D, cudaStream_t st)
{
    attention_bwd_kernel<<<attn_grid(A), ATTN_BLOCK, 0, st>>>(q, kx, v, gy, gq, gk, gv, ws, A, D);
    PF_CUDA_CHECK(cudaGetLastError());
}

/* -------------------------------------------------------------- entries */

static attn_shape attn_shape_of(const struct pf_node *y)
{
    PF_ASSERT(y->op == PF_OP_ATTENTION && y->nin == 3);
    attn_shape A;
    A.k = y->i0;
    A.h = (int)y->p;
    A.c = y->c;
    PF_ASSERT(A.k >= 1 && A.h >= 1 && A.c % A.h == 0 && y->n % A.k == 0 && y->layout.ncoll == 0);
    for (int j = 0; j < 3; j++) PF_ASSERT(y->in[j]->n == y->n && y->in[j]->c == y->c && y->in[j]->S == y->S);
    A.dh = A.c / A.h;
    A.groups = y->n / A.k;
    A.len = pf_node_stream_len(y);
    A.scale = 1 / sqrt((double)A.dh);
    return A;
}

static attn_dirs attn_dirs_of(const pf_jet_layout *L)
{
    attn_dirs D = {};
    D.ndir = L->ndir;
    for (int d = 0; d < L->ndir; d++) {
        D.order[d] = L->order[d];
        for (int m = 1; m <= L->order[d]; m++) D.st[d][m] = pf_jet_stream(L, d, m);
    }
    return D;
}

size_t pf_cuda_attention_scratch(const struct pf_node *y)
{
    int k = y->i0, h = (int)y->p;
    size_t work = (size_t)(y->n / k) * h, threads = work < ATTN_THREADS ? work : ATTN_THREADS;
    size_t launched = ((threads + ATTN_BLOCK - 1) / ATTN_BLOCK) * ATTN_BLOCK;
    if (launched < ATTN_BLOCK) launched = ATTN_BLOCK;
    return launched * attn_ws_doubles(k, y->c / h) * sizeof(double);
}

void pf_cuda_attention_fwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    attn_shape A = attn_shape_of(y);
    attn_dirs D = attn_dirs_of(&y->layout);
    attention_fwd_launch(y->in[0]->val, y->in[1]->val, y->in[2]->val, y->val, (double *)y->scratch, A,
                         D, ctx->stream);
}

void pf_cuda_attention_bwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    attn_shape A = attn_shape_of(y);
    attn_dirs D = attn_dirs_of(&y->layout);
    pf_real *g[3];
    for (int j = 0; j < 3; j++) {
        g[j] = y->in[j]->grad;
        if (g[j] && !y->in_acc[j])
            PF_CUDA_CHECK(cudaMemsetAsync(g[j], 0, pf_node_len(y->in[j]) * sizeof(pf_real), ctx->stream));
    }
    attention_bwd_launch(y->in[0]->val, y->in[1]->val, y->in[2]->val, y->grad, g[0], g[1], g[2],
                         (double *)y->scratch, A, D, ctx->stream);
}
