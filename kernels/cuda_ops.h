/*
 * cuda_ops.h — the CUDA backend's op implementations (internal to kernels/,
 * C++ only). The mirror of src/tensor/cpu_ops.h: every op has a forward that
 * fills y->val and a backward that, given y->grad, writes (in_acc[i] = 0) or
 * adds (in_acc[i] = 1) its inputs' gradients and ADDS to its parameter
 * gradients (the flat gradient buffer is cleared once per pass).
 *
 * Every pointer in a node (val, grad, scratch, cvec, pw, pg) is device
 * memory: kernels read them, host code never dereferences them. Scalars
 * that live in device memory (a loss node's seeded gradient y->grad[0], a
 * 1x1 parameter pw[0][0]) are read inside kernels, never on the host, so a
 * step can be captured in a CUDA graph: no op synchronises, allocates or
 * copies from host memory. Host values (y->p, the layout, sizes) are passed
 * to kernels by value.
 *
 * Every op is deterministic: reductions sum in double over a fixed grid of
 * blocks with a fixed tree, then add the block sums in a fixed order; no
 * atomics in any accumulation. cuBLAS calls run on ctx->stream.
 *
 * Each op family follows three layers (docs/architecture.md, "Style: three layers per CUDA op"): a `static __global__`
 * kernel, a `static` launcher that sizes its grid from a named block-size
 * constant and checks the launch (PF_CUDA_CHECK(cudaGetLastError())), and
 * the entry below.
 */
#ifndef PF_KERNELS_CUDA_OPS_H
#define PF_KERNELS_CUDA_OPS_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stddef.h>

extern "C" {
#include "tensor/backend.h"
#include "tensor/node.h"
}

/* Abort with file:line and CUDA's message when a call fails: a failed
 * launch inside a training step is a programming error, as on the CPU. */
#define PF_CUDA_CHECK(call)                                                            \
    do {                                                                               \
        cudaError_t pf_cuda_e_ = (call);                                               \
        if (pf_cuda_e_ != cudaSuccess)                                                 \
            pf_abort_at(__FILE__, __LINE__, "CUDA: %s", cudaGetErrorString(pf_cuda_e_)); \
    } while (0)
#define PF_CUBLAS_CHECK(call)                                                          \
    do {                                                                               \
        cublasStatus_t pf_cublas_s_ = (call);                                          \
        if (pf_cublas_s_ != CUBLAS_STATUS_SUCCESS)                                     \
            pf_abort_at(__FILE__, __LINE__, "cuBLAS: status %d", (int)pf_cublas_s_);    \
    } while (0)

struct pf_cuda_ctx {
    cudaStream_t stream;
    cublasHandle_t blas;
};

/* Grid for n elements with `block` threads each, capped (grid-stride loops). */
static inline unsigned pf_cuda_grid(size_t n, int block)
{
    size_t b = (n + (size_t)block - 1) / (size_t)block;
    if (b < 1) b = 1;
    return (unsigned)(b > 65535 ? 65535 : b);
}

/* ------------------------------------------------------------ reductions */

/* Blocks of the fixed reduction grid; a reduction needs PF_CUDA_RED_BLOCKS
 * doubles of device scratch for its partial sums. */
#define PF_CUDA_RED_BLOCKS 128
#define PF_CUDA_RED_THREADS 256

/* *out = the reduction `kind` (backend.h's pf_vec_red) of n elements, in
 * double, deterministic (depends on n only). part: PF_CUDA_RED_BLOCKS doubles
 * of device memory; out: device. */
void pf_cuda_reduce(pf_vec_red kind, const pf_real *x, const pf_real *y, size_t n, double *part,
                    double *out, cudaStream_t stream);

/* ------------------------------------------------------- optimizer vectors */

/* The backend.h slots adam, sgd, clamp_min and clip_norm (kernels/adam.cu);
 * part: PF_CUDA_RED_BLOCKS doubles of device scratch. */
void pf_cuda_adam(pf_real *p, const pf_real *g, pf_real *mv, size_t n, const pf_real *coef,
                  cudaStream_t stream);
void pf_cuda_sgd(pf_real *p, const pf_real *g, size_t n, const pf_real *lr, cudaStream_t stream);
void pf_cuda_clamp_min(pf_real *x, size_t n, double lo, cudaStream_t stream);
void pf_cuda_clip_norm(pf_real *g, size_t n, double max_norm, double *norm, double *part,
                       cudaStream_t stream);
/* The backend.h slot grad_noise (kernels/grad_noise.cu); part:
 * PF_CUDA_RED_BLOCKS doubles of device scratch. */
void pf_cuda_grad_noise(pf_real *ring, size_t n, int T, const pf_real *g, double *state, double *part,
                        cudaStream_t stream);

/* ------------------------------------------------------------------- ops */

size_t pf_cuda_linear_scratch(const struct pf_node *y);
void pf_cuda_linear_fwd(struct pf_node *y, const pf_cuda_ctx *ctx);
void pf_cuda_linear_bwd(struct pf_node *y, const pf_cuda_ctx *ctx);

void pf_cuda_unary_fwd(struct pf_node *y, const pf_cuda_ctx *ctx);
void pf_cuda_unary_bwd(struct pf_node *y, const pf_cuda_ctx *ctx);

/* WaveAct (cuda_unary.cu), the unary kernels with WaveAct's derivative table;
 * the parameter gradients are dot products of dL/dy with the jets of sin(x)
 * and cos(x), built in scratch. */
size_t pf_cuda_waveact_scratch(const struct pf_node *y);
void pf_cuda_waveact_fwd(struct pf_node *y, const pf_cuda_ctx *ctx);
void pf_cuda_waveact_bwd(struct pf_node *y, const pf_cuda_ctx *ctx);

/* Attention over each point's tokens (cuda_attention.cu): scratch holds a
 * workspace per thread of the kernels. */
size_t pf_cuda_attention_scratch(const struct pf_node *y);
void pf_cuda_attention_fwd(struct pf_node *y, const pf_cuda_ctx *ctx);
void pf_cuda_attention_bwd(struct pf_node *y, const pf_cuda_ctx *ctx);

/* Everything else: mul, add, sub, affine, scale_param, tokens,
 * token_select, concat, slice, deriv, mean_square, param_field (backward). */
size_t pf_cuda_pointwise_scratch(const struct pf_node *y);
void pf_cuda_pointwise_fwd(struct pf_node *y, const pf_cuda_ctx *ctx);
void pf_cuda_pointwise_bwd(struct pf_node *y, const pf_cuda_ctx *ctx);

#endif
