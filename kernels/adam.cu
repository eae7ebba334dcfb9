// The optimizers' element-wise kernels (cuda_ops.h): the Adam/AdamW update
// with its coefficients read from device memory (backend.h, PF_ADAM_*), and
// the SGD update with its rate read from device memory, so a recorded step
// replays with the current step's values; the clamp of the self-adaptive
// weights; the scaling of clip_norm.
#include <cmath>

#include "cuda_ops.h"

namespace {

constexpr int VEC_BLOCK = 256;

__global__ void adam_kernel(pf_real *__restrict__ p, const pf_real *__restrict__ g,
                            pf_real *__restrict__ m, pf_real *__restrict__ v, size_t n,
                            const pf_real *__restrict__ c)
{
    const pf_real b1 = c[PF_ADAM_B1], b2 = c[PF_ADAM_B2], one_b1 = c[PF_ADAM_ONE_B1];
    const pf_real one_b2 = c[PF_ADAM_ONE_B2], step = c[PF_ADAM_STEP], bc2_sqrt = c[PF_ADAM_BC2_SQRT];
    const pf_real eps = c[PF_ADAM_EPS], shrink = c[PF_ADAM_SHRINK], l2 = c[PF_ADAM_L2];
    const pf_real sign = c[PF_ADAM_SIGN];
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        pf_real pi = p[i] * shrink;
        pf_real gi = sign * g[i] + l2 * pi;
        pf_real mi = b1 * m[i] + one_b1 * gi;
        pf_real vi = b2 * v[i] + one_b2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = pi - step * mi / (sqrt(vi) / bc2_sqrt + eps);
    }
}

// p -= lr[0] g, as pf_cpu_sgd.
__global__ void sgd_kernel(pf_real *__restrict__ p, const pf_real *__restrict__ g, size_t n,
                           const pf_real *__restrict__ lr)
{
    const pf_real a = lr[0];
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        p[i] -= a * g[i];
}

__global__ void clamp_kernel(pf_real *__restrict__ x, size_t n, pf_real lo)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (x[i] < lo) x[i] = lo;
}

// *norm holds the sum of squares on entry and the norm on exit (one thread).
__global__ void norm_kernel(double *norm) { *norm = sqrt(*norm); }

__global__ void clip_kernel(pf_real *__restrict__ g, size_t n, double max_norm,
                            const double *__restrict__ norm)
{
    const double nrm = *norm;
    if (!isfinite(nrm) || !(nrm > max_norm)) return;
    const pf_real scale = (pf_real)(max_norm / (nrm + 1e-6));
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        g[i] *= scale;
}

}  // namespace

void pf_cuda_adam(pf_real *p, const pf_real *g, pf_real *mv, size_t n, const pf_real *coef,
                  cudaStream_t stream)
{
    if (n == 0) return;
    adam_kernel<<<pf_cuda_grid(n, VEC_BLOCK), VEC_BLOCK, 0, stream>>>(p, g, mv, mv + n, n, coef);
    PF_CUDA_CHECK(cudaGetLastError());
}

void pf_cuda_sgd(pf_real *p, const pf_real *g, size_t n, const pf_real *lr, cudaStream_t stream)
{
    if (n == 0) return;
    sgd_kernel<<<pf_cuda_grid(n, VEC_BLOCK), VEC_BLOCK, 0, stream>>>(p, g, n, lr);
    PF_CUDA_CHECK(cudaGetLastError());
}

void pf_cuda_clamp_min(pf_real *x, size_t n, double lo, cudaStream_t stream)
{
    if (n == 0) return;
    clamp_kernel<<<pf_cuda_grid(n, VEC_BLOCK), VEC_BLOCK, 0, stream>>>(x, n, (pf_real)lo);
    PF_CUDA_CHECK(cudaGetLastError());
}

void pf_cuda_clip_norm(pf_real *g, size_t n, double max_norm, double *norm, double *part,
                       cudaStream_t stream)
{
    pf_cuda_reduce(PF_VEC_DOT, g, NULL, n, part, norm, stream);
    norm_kernel<<<1, 1, 0, stream>>>(norm);
    PF_CUDA_CHECK(cudaGetLastError());
    if (n == 0) return;
    clip_kernel<<<pf_cuda_grid(n, VEC_BLOCK), VEC_BLOCK, 0, stream>>>(g, n, max_norm, norm);
    PF_CUDA_CHECK(cudaGetLastError());
}
