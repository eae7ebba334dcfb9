/*
 * cuda_backend.h — the CUDA backend's C interface (pure C; the .cu files
 * stay internal). Built only when nvcc exists (CUDA=0 drops it), as its own
 * shared library, build/lib/libpinnforge_cuda.so, which alone links cuBLAS
 * and the CUDA runtime: tensor/device.c loads it (dlopen) the first time a
 * run asks for a GPU, so a program that never does starts without loading
 * them (linking cuBLAS costs every process about 0.2 s at start).
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
#include "tensor/jet.h"
#include "tensor/node.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's file name, found in the folder "../lib" beside the
 * program's own (build/bin/pf-train -> build/lib/), or at $PF_CUDA_LIB. */
#define PF_CUDA_LIB_FILE "libpinnforge_cuda.so"

/* The few functions of libpinnforge the backend calls, passed in when it is
 * loaded (kernels/host_link.cu defines them in the library as calls through
 * this table): the library stays free of the program's symbols. */
typedef struct pf_cuda_host {
    pf_status (*fail)(pf_status st, const char *fmt, ...);
    void (*abort_at)(const char *file, int line, const char *fmt, ...);
    int (*jet_stream)(const pf_jet_layout *L, int dir, int k);
    int (*jet_collapsed)(const pf_jet_layout *L, int c);
    const char *(*op_name)(pf_op op);
} pf_cuda_host;

/* The library's entry points, the only symbols it exports (it is compiled
 * with hidden visibility); tensor/device.c finds them with dlsym. */
#define PF_CUDA_EXPORT __attribute__((visibility("default")))

/* Called once, right after loading, before anything else. */
PF_CUDA_EXPORT void pf_cuda_link(const pf_cuda_host *host);

/* GPUs the runtime can see; 0 when there is none or no driver (never fails). */
PF_CUDA_EXPORT int pf_cuda_device_count(void);

/* The backend, initialised on first use (stream, cuBLAS handle, scratch);
 * PF_ERR_UNSUPPORTED with the runtime's reason when no GPU can be used. */
PF_CUDA_EXPORT pf_status pf_cuda_backend_open(const pf_backend **out);

#ifdef __cplusplus
}
#endif

#endif
