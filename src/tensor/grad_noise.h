/*
 * grad_noise.h — one parameter's gradient-noise ratio for RoPINN's region
 * optimization (backend.h, grad_noise), written once for the CPU backend
 * (tensor/cpu_vec.c) and the CUDA kernel (kernels/grad_noise.cu), so the
 * two compute the same number the same way.
 *
 *     double r = pf_grad_noise_ratio(ring, n, m, j);   // parameter j
 *
 * ring holds gradients of n parameters, slot t at ring + t * n; the ratio
 * is over its first m slots (the m = min(pushes, T) gradients it holds:
 * while the ring fills, slots 0 .. pushes - 1), std_t(g_j) / (mean_t |g_j|
 * + 1e-6) with divisor m (numpy's np.std), two passes in double.
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

PF_HOST_DEVICE static inline double pf_grad_noise_ratio(const pf_real *ring, size_t n, int m, size_t j)
{
    double mean = 0, mabs = 0, var = 0;
    for (int t = 0; t < m; t++) {
        double v = (double)ring[(size_t)t * n + j];
        mean += v;
        mabs += fabs(v);
    }
    mean /= m;
    mabs /= m;
    for (int t = 0; t < m; t++) {
        double e = (double)ring[(size_t)t * n + j] - mean;
        var += e * e;
    }
    return sqrt(var / m) / (mabs + 1e-6);
}

/* The gradients a ring of T slots holds after `pushes` pushes. */
PF_HOST_DEVICE static inline int pf_grad_noise_count(long long pushes, int T)
{
    return pushes < T ? (int)pushes : T;
}

#endif
