/*
 * cuda_kernels.h — the C interface of the CUDA kernels in kernels/ (pure C; the .cu files
 * stay internal). Built only when nvcc exists (CUDA=0 drops it); nothing in
 * libpinnforge.a depends on it. Issue 8 puts these behind the backend vtable
 * of tensor/backend.h as the CUDA backend.
 *
 * Every launcher takes device pointers and a cudaStream_t passed as void *,
 * checks its launch, and returns 0 or the CUDA error code.
 */
#ifndef PF_KERNELS_CUDA_KERNELS_H
#define PF_KERNELS_CUDA_KERNELS_H

#include <stddef.h>

#include "core/real.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One Adam/AdamW update over the flat buffers, the same arithmetic as
 * pf_adam_step() on the CPU (train/adam.c): with t the 1-based step,
 *   p  <- p * shrink              (shrink = 1 - lr * wd for AdamW, else 1)
 *   g' <- g + l2 * p              (l2 = wd for Adam's L2 form, else 0)
 *   m  <- b1 m + (1 - b1) g'
 *   v  <- b2 v + (1 - b2) g'^2
 *   p  <- p - (lr / bc1) m / (sqrt(v) / sqrt(bc2) + eps),  bcK = 1 - bK^t.
 * m and v are the two halves of one 2n buffer. */
int pf_cuda_adam_step(pf_real *params, const pf_real *grads, pf_real *mv, size_t n, double lr,
                      double beta1, double beta2, double eps, double weight_decay, int decoupled,
                      long t, void *stream);

#ifdef __cplusplus
}
#endif

#endif
