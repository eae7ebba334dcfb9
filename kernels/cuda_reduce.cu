// Deterministic reductions (cuda_ops.h): a fixed grid of PF_CUDA_RED_BLOCKS
// blocks, each thread summing a fixed stride of elements in double, a
// shared-memory tree per block into part[], then one block adding the
// partials by the same tree. The order depends on n only.
#include <cmath>

#include "cuda_ops.h"

namespace {

__device__ double term(pf_vec_red kind, const pf_real *x, const pf_real *y, size_t i)
{
    double a = (double)x[i];
    switch (kind) {
    case PF_VEC_DOT: return a * (y ? (double)y[i] : a);
    case PF_VEC_ASUM:
    case PF_VEC_AMAX: return fabs(a);
    }
    return 0;
}

__device__ double combine(pf_vec_red kind, double a, double b)
{
    return kind == PF_VEC_AMAX ? fmax(a, b) : a + b; // fmax skips NaN, as the CPU
}

// Tree over the block's PF_CUDA_RED_THREADS values in sh[]; the result in sh[0].
__device__ void block_tree(pf_vec_red kind, double *sh)
{
    for (int w = PF_CUDA_RED_THREADS / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w) sh[threadIdx.x] = combine(kind, sh[threadIdx.x], sh[threadIdx.x + w]);
    }
    __syncthreads();
}

__global__ void reduce_partial(pf_vec_red kind, const pf_real *__restrict__ x,
                               const pf_real *__restrict__ y, size_t n, double *__restrict__ part)
{
    __shared__ double sh[PF_CUDA_RED_THREADS];
    double acc = 0;
    const size_t stride = (size_t)PF_CUDA_RED_BLOCKS * PF_CUDA_RED_THREADS;
    for (size_t i = (size_t)blockIdx.x * PF_CUDA_RED_THREADS + threadIdx.x; i < n; i += stride)
        acc = combine(kind, acc, term(kind, x, y, i));
    sh[threadIdx.x] = acc;
    block_tree(kind, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

__global__ void reduce_final(pf_vec_red kind, const double *__restrict__ part, double *__restrict__ out)
{
    __shared__ double sh[PF_CUDA_RED_THREADS];
    double acc = 0;
    for (int b = threadIdx.x; b < PF_CUDA_RED_BLOCKS; b += PF_CUDA_RED_THREADS)
        acc = combine(kind, acc, part[b]);
    sh[threadIdx.x] = acc;
    block_tree(kind, sh);
    if (threadIdx.x == 0) *out = sh[0];
}

}  // namespace

void pf_cuda_reduce(pf_vec_red kind, const pf_real *x, const pf_real *y, size_t n, double *part,
                    double *out, cudaStream_t stream)
{
    reduce_partial<<<PF_CUDA_RED_BLOCKS, PF_CUDA_RED_THREADS, 0, stream>>>(kind, x, y, n, part);
    PF_CUDA_CHECK(cudaGetLastError());
    reduce_final<<<1, PF_CUDA_RED_THREADS, 0, stream>>>(kind, part, out);
    PF_CUDA_CHECK(cudaGetLastError());
}
