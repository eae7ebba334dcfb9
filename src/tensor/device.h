/*
 * device.h — choosing the backend a run trains on.
 *
 *     const pf_backend *be;
 *     if (pf_device_open(getenv_or_flag, &be) != PF_OK) ...;   // pf_errmsg() says why
 *     pf_graph *g = pf_graph_alloc(be);
 *
 * Names: "cpu", "cuda", or "auto" (also NULL or ""): the PF_DEVICE
 * environment variable when it is set, else "cuda" when this build has the
 * CUDA backend (nvcc was found, CUDA=0 not given) and a GPU is visible,
 * else "cpu". Asking for "cuda" where it cannot run is an error, never a
 * silent CPU run. The CUDA backend is a shared library
 * (kernels/cuda_backend.h) loaded when "cuda" is opened, or when "auto"
 * finds the NVIDIA driver's /dev/nvidiactl, so a CPU run never loads
 * cuBLAS. Opening "cuda" initialises the CUDA runtime in this process (a
 * test runner that forks must not do it before forking).
 */
#ifndef PF_TENSOR_DEVICE_H
#define PF_TENSOR_DEVICE_H

#include <stdbool.h>

#include "core/status.h"
#include "tensor/backend.h"

/* PF_ERR_INVALID for an unknown name, PF_ERR_UNSUPPORTED when CUDA is not
 * built in or finds no device. */
pf_status pf_device_open(const char *name, const pf_backend **out);

/* Whether this build contains the CUDA backend. */
bool pf_device_cuda_built(void);

#endif
