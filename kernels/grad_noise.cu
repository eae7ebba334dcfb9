// RoPINN's gradient-noise level (backend.h, grad_noise): push the gradient
// into its ring slot, then the mean over the parameters of
// std_t / (mean_t |g| + 1e-6) as a deterministic reduction (a fixed grid of
// PF_CUDA_RED_BLOCKS blocks, each thread summing a fixed stride of
// parameters in double, a tree per block, one block adding the partials by
// the same tree). The count of pushes lives in device memory (state[0]) and
// only the last kernel advances it, so a recorded step replays correctly.
#include <cmath>

#include "cuda_ops.h"
#include "tensor/grad_noise.h"

namespace {

constexpr int PUSH_BLOCK = 256;

__global__ void push_kernel(pf_real *__restrict__ ring, size_t n, int T, const pf_real *__restrict__ g,
                            const double *__restrict__ state)
{
    pf_real *slot = ring + (size_t)((long long)state[0] % T) * n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        slot[i] = g[i];
}

// Tree over the block's PF_CUDA_RED_THREADS values in sh[]; the sum in sh[0].
__device__ void block_sum(double *sh)
{
    for (int w = PF_CUDA_RED_THREADS / 2; w > 0; w /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    }
    __syncthreads();
}

// part[b] = block b's sum of ratios over the gradients the ring holds
// (all of them from the first push, as released).
__global__ void noise_partial(const pf_real *__restrict__ ring, size_t n, int T,
                              const double *__restrict__ state, double *__restrict__ part)
{
    __shared__ double sh[PF_CUDA_RED_THREADS];
    double acc = 0;
    const int m = pf_grad_noise_count((long long)state[0] + 1, T);
    const size_t stride = (size_t)PF_CUDA_RED_BLOCKS * PF_CUDA_RED_THREADS;
    for (size_t j = (size_t)blockIdx.x * PF_CUDA_RED_THREADS + threadIdx.x; j < n; j += stride)
        acc += pf_grad_noise_ratio(ring, n, m, j);
    sh[threadIdx.x] = acc;
    block_sum(sh);
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

// state[1] = sigma (1 when it is 0: after the first push); state[0] += 1.
__global__ void noise_final(const double *__restrict__ part, size_t n, double *__restrict__ state)
{
    __shared__ double sh[PF_CUDA_RED_THREADS];
    double acc = 0;
    for (int b = threadIdx.x; b < PF_CUDA_RED_BLOCKS; b += PF_CUDA_RED_THREADS) acc += part[b];
    sh[threadIdx.x] = acc;
    block_sum(sh);
    if (threadIdx.x == 0) {
        double sigma = n == 0 ? 1 : sh[0] / (double)n;
        state[1] = sigma == 0 ? 1 : sigma;
        state[0] = state[0] + 1;
    }
}

}  // namespace

void pf_cuda_grad_noise(pf_real *ring, size_t n, int T, const pf_real *g, double *state, double *part,
                        cudaStream_t stream)
{
    if (n) {
        push_kernel<<<pf_cuda_grid(n, PUSH_BLOCK), PUSH_BLOCK, 0, stream>>>(ring, n, T, g, state);
        PF_CUDA_CHECK(cudaGetLastError());
    }
    noise_partial<<<PF_CUDA_RED_BLOCKS, PF_CUDA_RED_THREADS, 0, stream>>>(ring, n, T, state, part);
    PF_CUDA_CHECK(cudaGetLastError());
    noise_final<<<1, PF_CUDA_RED_THREADS, 0, stream>>>(part, n, state);
    PF_CUDA_CHECK(cudaGetLastError());
}
