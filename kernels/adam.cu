// Adam / AdamW over the flat parameter buffer (see cuda_kernels.h).
#include <cmath>
#include <cuda_runtime.h>

#include "cuda_kernels.h"

namespace {

constexpr int ADAM_BLOCK = 256;

struct adam_scalars {
    pf_real b1, b2, one_b1, one_b2, step_size, bc2_sqrt, eps, shrink, l2;
};

__global__ void adam_kernel(pf_real *__restrict__ p, const pf_real *__restrict__ g,
                            pf_real *__restrict__ m, pf_real *__restrict__ v, size_t n,
                            adam_scalars s)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        pf_real pi = p[i] * s.shrink;
        pf_real gi = g[i] + s.l2 * pi;
        pf_real mi = s.b1 * m[i] + s.one_b1 * gi;
        pf_real vi = s.b2 * v[i] + s.one_b2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = pi - s.step_size * mi / (sqrt(vi) / s.bc2_sqrt + s.eps);
    }
}

}  // namespace

extern "C" int pf_cuda_adam_step(pf_real *params, const pf_real *grads, pf_real *mv, size_t n,
                                 double lr, double beta1, double beta2, double eps,
                                 double weight_decay, int decoupled, long t, void *stream)
{
    if (n == 0) return 0;
    const double bc1 = 1.0 - std::pow(beta1, (double)t), bc2 = 1.0 - std::pow(beta2, (double)t);
    adam_scalars s;
    s.b1 = (pf_real)beta1;
    s.b2 = (pf_real)beta2;
    s.one_b1 = (pf_real)(1.0 - beta1);
    s.one_b2 = (pf_real)(1.0 - beta2);
    s.step_size = (pf_real)(lr / bc1);
    s.bc2_sqrt = (pf_real)std::sqrt(bc2);
    s.eps = (pf_real)eps;
    s.shrink = (pf_real)(decoupled ? 1.0 - lr * weight_decay : 1.0);
    s.l2 = (pf_real)(decoupled ? 0.0 : weight_decay);
    size_t blocks = (n + ADAM_BLOCK - 1) / ADAM_BLOCK;
    if (blocks > 65535) blocks = 65535;
    adam_kernel<<<(unsigned)blocks, ADAM_BLOCK, 0, (cudaStream_t)stream>>>(params, grads, mv,
                                                                         mv + n, n, s);
    return (int)cudaGetLastError();
}
