// The CUDA backend (cuda_backend.h): memory, the op dispatch, the
// optimizers' vector ops and recorded steps, on one stream of device 0.
#include <cstdio>
#include <cstring>

#include "cuda_ops.h"

extern "C" {
#include "cuda_backend.h"
}

namespace {

// cuBLAS workspace given to the handle up front: a captured GEMM must not
// allocate its own.
constexpr size_t BLAS_WORKSPACE = (size_t)32 << 20;

struct cuda_state {
    bool ready;
    pf_cuda_ctx ctx;
    void *blas_ws;
    double *part;    // PF_CUDA_RED_BLOCKS partials + one result, for reduce()
    cudaDeviceProp prop;
};

cuda_state S;

// Zeroed on the work stream: a plain cudaMemset runs on the legacy default
// stream, which the non-blocking work stream does not wait for, so the
// clearing could land after the uploads and kernels that follow it (it did,
// on the first run on a GPU: losses read back as 0).
pf_status alloc_on(cudaStream_t stream, size_t bytes, void **out)
{
    *out = nullptr;
    cudaError_t e = cudaMalloc(out, bytes ? bytes : 1);
    if (e == cudaSuccess) e = cudaMemsetAsync(*out, 0, bytes, stream);
    if (e != cudaSuccess) {
        if (*out) cudaFree(*out);
        *out = nullptr;
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        return pf_fail(PF_ERR_NOMEM, "cannot allocate %zu MiB on the GPU (%zu MiB free): %s",
                       bytes >> 20, free_b >> 20, cudaGetErrorString(e));
    }
    return PF_OK;
}

pf_status cuda_alloc(size_t bytes, void **out) { return alloc_on(S.ctx.stream, bytes, out); }

void cuda_free(void *p)
{
    if (p) PF_CUDA_CHECK(cudaFree(p));
}

void cuda_upload(void *dst, const void *src, size_t bytes)
{
    // From pageable host memory the copy is staged before the call returns,
    // so src may be reused at once; it stays ordered on the stream.
    if (bytes) PF_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, S.ctx.stream));
}

void cuda_download(void *dst, const void *src, size_t bytes)
{
    if (!bytes) return;
    PF_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, S.ctx.stream));
    PF_CUDA_CHECK(cudaStreamSynchronize(S.ctx.stream));
}

void cuda_zero(void *p, size_t bytes)
{
    if (bytes) PF_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, S.ctx.stream));
}

bool is_linear(const pf_node *x) { return x->op == PF_OP_LINEAR || x->op == PF_OP_LINEAR_RWF; }

size_t cuda_scratch_bytes(const pf_node *x)
{
    if (is_linear(x)) return pf_cuda_linear_scratch(x);
    if (x->op == PF_OP_UNARY) return 0;
    if (x->op == PF_OP_WAVEACT) return pf_cuda_waveact_scratch(x);
    if (x->op == PF_OP_ATTENTION) return pf_cuda_attention_scratch(x);
    return pf_cuda_pointwise_scratch(x);
}

void cuda_forward(pf_node *y)
{
    switch (y->op) {
    case PF_OP_LINEAR:
    case PF_OP_LINEAR_RWF: pf_cuda_linear_fwd(y, &S.ctx); break;
    case PF_OP_UNARY: pf_cuda_unary_fwd(y, &S.ctx); break;
    case PF_OP_WAVEACT: pf_cuda_waveact_fwd(y, &S.ctx); break;
    case PF_OP_ATTENTION: pf_cuda_attention_fwd(y, &S.ctx); break;
    case PF_OP_INPUT:
    case PF_OP_PARAM_FIELD: break;
    default: pf_cuda_pointwise_fwd(y, &S.ctx); break;
    }
}

void cuda_backward(pf_node *y)
{
    switch (y->op) {
    case PF_OP_LINEAR:
    case PF_OP_LINEAR_RWF: pf_cuda_linear_bwd(y, &S.ctx); break;
    case PF_OP_UNARY: pf_cuda_unary_bwd(y, &S.ctx); break;
    case PF_OP_WAVEACT: pf_cuda_waveact_bwd(y, &S.ctx); break;
    case PF_OP_ATTENTION: pf_cuda_attention_bwd(y, &S.ctx); break;
    case PF_OP_INPUT: break;
    default: pf_cuda_pointwise_bwd(y, &S.ctx); break;
    }
}

void cuda_copy(pf_real *dst, const pf_real *src, size_t n)
{
    if (n)
        PF_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(pf_real), cudaMemcpyDeviceToDevice,
                                      S.ctx.stream));
}

#ifdef PF_DOUBLE
#define blas_axpy cublasDaxpy
#define blas_scal cublasDscal
#else
#define blas_axpy cublasSaxpy
#define blas_scal cublasSscal
#endif

void cuda_axpy(size_t n, double a, const pf_real *x, pf_real *y)
{
    const pf_real alpha = (pf_real)a;
    if (n) PF_CUBLAS_CHECK(blas_axpy(S.ctx.blas, (int)n, &alpha, x, 1, y, 1));
}

void cuda_scal(size_t n, double a, pf_real *x)
{
    const pf_real alpha = (pf_real)a;
    if (n) PF_CUBLAS_CHECK(blas_scal(S.ctx.blas, (int)n, &alpha, x, 1));
}

void cuda_clamp_min(pf_real *x, size_t n, double lo) { pf_cuda_clamp_min(x, n, lo, S.ctx.stream); }

double cuda_reduce(pf_vec_red kind, const pf_real *x, const pf_real *y, size_t n)
{
    double *out = S.part + PF_CUDA_RED_BLOCKS, r;
    pf_cuda_reduce(kind, x, y, n, S.part, out, S.ctx.stream);
    cuda_download(&r, out, sizeof r);
    return r;
}

void cuda_clip_norm(pf_real *g, size_t n, double max_norm, double *norm)
{
    pf_cuda_clip_norm(g, n, max_norm, norm, S.part, S.ctx.stream);
}

void cuda_adam(pf_real *p, const pf_real *g, pf_real *mv, size_t n, const pf_real *coef)
{
    pf_cuda_adam(p, g, mv, n, coef, S.ctx.stream);
}

void cuda_sgd(pf_real *p, const pf_real *g, size_t n, const pf_real *lr)
{
    pf_cuda_sgd(p, g, n, lr, S.ctx.stream);
}

void cuda_grad_noise(pf_real *ring, size_t n, int T, const pf_real *g, double *state)
{
    pf_cuda_grad_noise(ring, n, T, g, state, S.part, S.ctx.stream);
}

pf_status cuda_capture(void (*body)(void *), void *arg, void **exec)
{
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t ge = nullptr;
    cudaError_t e = cudaStreamBeginCapture(S.ctx.stream, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        body(arg);
        e = cudaStreamEndCapture(S.ctx.stream, &graph);
    }
    if (e == cudaSuccess) e = cudaGraphInstantiate(&ge, graph, 0);
    if (graph) cudaGraphDestroy(graph);
    if (e != cudaSuccess)
        return pf_fail(PF_ERR_UNSUPPORTED, "cannot record the training step as a CUDA graph: %s",
                       cudaGetErrorString(e));
    *exec = ge;
    return PF_OK;
}

pf_status cuda_replay(void *exec)
{
    cudaError_t e = cudaGraphLaunch((cudaGraphExec_t)exec, S.ctx.stream);
    if (e != cudaSuccess)
        return pf_fail(PF_ERR_UNSUPPORTED, "cannot replay the recorded step: %s", cudaGetErrorString(e));
    return PF_OK;
}

void cuda_drop(void *exec)
{
    if (exec) PF_CUDA_CHECK(cudaGraphExecDestroy((cudaGraphExec_t)exec));
}

void cuda_info(pf_device_info *out)
{
    size_t len = strnlen(S.prop.name, sizeof out->name - 1);
    memcpy(out->name, S.prop.name, len);
    out->name[len] = 0;
    out->memory_gib = (double)S.prop.totalGlobalMem / (double)(1u << 30);
}

pf_backend make_backend()
{
    pf_backend b;
    memset(&b, 0, sizeof b);
    b.name = "cuda";
    b.host_memory = false;
    b.supports_op = nullptr;
    b.alloc = cuda_alloc;
    b.free = cuda_free;
    b.upload = cuda_upload;
    b.download = cuda_download;
    b.scratch_bytes = cuda_scratch_bytes;
    b.zero = cuda_zero;
    b.forward = cuda_forward;
    b.backward = cuda_backward;
    b.copy = cuda_copy;
    b.axpy = cuda_axpy;
    b.scal = cuda_scal;
    b.clamp_min = cuda_clamp_min;
    b.reduce = cuda_reduce;
    b.clip_norm = cuda_clip_norm;
    b.adam = cuda_adam;
    b.sgd = cuda_sgd;
    b.grad_noise = cuda_grad_noise;
    b.capture = cuda_capture;
    b.replay = cuda_replay;
    b.drop = cuda_drop;
    b.info = cuda_info;
    return b;
}

const pf_backend backend = make_backend();

pf_status unusable(const char *what, cudaError_t e)
{
    return pf_fail(PF_ERR_UNSUPPORTED, "CUDA: %s: %s", what, cudaGetErrorString(e));
}

}  // namespace

extern "C" int pf_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); // clear the sticky "no device" error
        return 0;
    }
    return n;
}

extern "C" pf_status pf_cuda_backend_open(const pf_backend **out)
{
    *out = nullptr;
    if (!S.ready) {
        // built in s and kept only when all of it exists; a failure destroys
        // what was made, so a later call starts again from nothing
        cuda_state s = {};
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) return unusable("no usable GPU", e);
        if (n == 0) return pf_fail(PF_ERR_UNSUPPORTED, "CUDA: no GPU is visible");
        if ((e = cudaSetDevice(0)) != cudaSuccess) return unusable("cannot select GPU 0", e);
        if ((e = cudaGetDeviceProperties(&s.prop, 0)) != cudaSuccess)
            return unusable("cannot read GPU 0's properties", e);
        if ((e = cudaStreamCreateWithFlags(&s.ctx.stream, cudaStreamNonBlocking)) != cudaSuccess)
            return unusable("cannot create a stream", e);
        pf_status st = PF_OK;
        if (cublasCreate(&s.ctx.blas) != CUBLAS_STATUS_SUCCESS) {
            s.ctx.blas = nullptr;
            st = pf_fail(PF_ERR_UNSUPPORTED, "cuBLAS: cannot create a handle");
        }
        if (st == PF_OK) {
            PF_CUBLAS_CHECK(cublasSetStream(s.ctx.blas, s.ctx.stream));
            PF_CUBLAS_CHECK(cublasSetPointerMode(s.ctx.blas, CUBLAS_POINTER_MODE_HOST));
            st = alloc_on(s.ctx.stream, BLAS_WORKSPACE, &s.blas_ws);
        }
        if (st == PF_OK) {
            PF_CUBLAS_CHECK(cublasSetWorkspace(s.ctx.blas, s.blas_ws, BLAS_WORKSPACE));
            void *part = nullptr;
            st = alloc_on(s.ctx.stream, (PF_CUDA_RED_BLOCKS + 1) * sizeof(double), &part);
            s.part = (double *)part;
        }
        if (st != PF_OK) {
            if (s.blas_ws) cudaFree(s.blas_ws);
            if (s.ctx.blas) cublasDestroy(s.ctx.blas);
            cudaStreamDestroy(s.ctx.stream);
            return st;
        }
        s.ready = true;
        S = s;
    }
    *out = &backend;
    return PF_OK;
}
