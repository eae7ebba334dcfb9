/*
 * cuda_backend.h — the CUDA backend's C interface (pure C; the .cu files
 * stay internal). Built only when nvcc exists (CUDA=0 drops it); the
 * library reaches it through tensor/device.h, which compiles it in with
 * PF_WITH_CUDA.
 *
 * The backend runs a graph on one GPU (device 0): its arena is one
 * cudaMalloc; GEMMs are cuBLAS calls and every other op a kernel of
 * kernels/ (cuda_ops.h), all queued on one stream; a recorded step is a
 * CUDA graph (stream capture) replayed with cudaGraphLaunch.
 */
#ifndef PF_KERNELS_CUDA_BACKEND_H
#define PF_KERNELS_CUDA_BACKEND_H

#include "core/status.h"
#include "tensor/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GPUs the runtime can see; 0 when there is none or no driver (never fails). */
int pf_cuda_device_count(void);

/* The backend, initialised on first use (stream, cuBLAS handle, scratch);
 * PF_ERR_UNSUPPORTED with the runtime's reason when no GPU can be used. */
pf_status pf_cuda_backend_open(const pf_backend **out);

#ifdef __cplusplus
}
#endif

#endif
