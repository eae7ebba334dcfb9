/*
 * grad_noise.h — one parameter's gradient-noise ratio for RoPINN's region
 * optimization (backend.h, grad_noise), written once for the CPU backend
 * (tensor/cpu_vec.c) and the CUDA kernel (kernels/grad_noise.cu), so the
 * two compute the same number the same way.
 *
 *     double r = pf_grad_noise_ratio(ring, n, T, j);   // parameter j
 *
 * ring holds T gradients of n parameters, slot t at ring + t * n. The
 * ratio is std_t(g_j) / (mean_t |g_j| + 1e-6), two passes in double.
 */
#ifndef PF_TENSOR_GRAD_NOISE_H
#define PF_TENSOR_GRAD_NOISE_H

#include <math.h>
#include <stddef.h>

#include "core/real.h"

#ifdef __CUDACC__
#define PF_HOST_DEVICE __host__ __device__
#else
#define PF_HOST_DEVICE
#endif

PF_HOST_DEVICE static inline double pf_grad_noise_ratio(const pf_real *ring, size_t n, int T, size_t j)
{
    double mean = 0, mabs = 0, var = 0;
    for (int t = 0; t < T; t++) {
        double v = (double)ring[(size_t)t * n + j];
        mean += v;
        mabs += fabs(v);
    }
    mean /= T;
    mabs /= T;
    for (int t = 0; t < T; t++) {
        double e = (double)ring[(size_t)t * n + j] - mean;
        var += e * e;
    }
    return sqrt(var / T) / (mabs + 1e-6);
}

#endif
