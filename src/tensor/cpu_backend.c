/*
 * The CPU reference backend: host memory, OpenBLAS GEMMs (OpenMP build, so
 * BLAS and our elementwise loops share one thread pool), OpenMP loops.
 */
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "tensor/cpu_ops.h"

static pf_status cpu_alloc(size_t bytes, void **out)
{
    *out = pf_aligned_alloc(bytes);
    if (!*out)
        return pf_fail(PF_ERR_NOMEM, "cannot allocate %zu MiB for the graph's buffers", bytes >> 20);
    memset(*out, 0, bytes);
    return PF_OK;
}

static void cpu_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
}

static void cpu_zero(void *p, size_t bytes)
{
    if (bytes) memset(p, 0, bytes);
}

static void cpu_forward(struct pf_node *y)
{
    switch (y->op) {
    case PF_OP_LINEAR:
    case PF_OP_LINEAR_RWF: pf_cpu_linear_fwd(y); break;
    case PF_OP_UNARY: pf_cpu_unary_fwd(y); break;
    case PF_OP_WAVEACT: pf_cpu_waveact_fwd(y); break;
    case PF_OP_ATTENTION: pf_cpu_attention_fwd(y); break;
    case PF_OP_INPUT:
    case PF_OP_PARAM_FIELD: break;
    default: pf_cpu_pointwise_fwd(y); break;
    }
}

static void cpu_backward(struct pf_node *y)
{
    switch (y->op) {
    case PF_OP_LINEAR:
    case PF_OP_LINEAR_RWF: pf_cpu_linear_bwd(y); break;
    case PF_OP_UNARY: pf_cpu_unary_bwd(y); break;
    case PF_OP_WAVEACT: pf_cpu_waveact_bwd(y); break;
    case PF_OP_ATTENTION: pf_cpu_attention_bwd(y); break;
    case PF_OP_INPUT: break;
    default: pf_cpu_pointwise_bwd(y); break;
    }
}

static size_t cpu_scratch_bytes(const struct pf_node *x)
{
    if (x->op == PF_OP_LINEAR || x->op == PF_OP_LINEAR_RWF) return pf_cpu_linear_scratch(x);
    if (x->op == PF_OP_WAVEACT) return pf_cpu_waveact_scratch(x);
    if (x->op == PF_OP_ATTENTION) return pf_cpu_attention_scratch(x);
    return 0;
}

static const pf_backend cpu_backend = {
    .name = "cpu",
    .host_memory = true,
    .supports_op = NULL,
    .alloc = cpu_alloc,
    .free = free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .scratch_bytes = cpu_scratch_bytes,
    .zero = cpu_zero,
    .forward = cpu_forward,
    .backward = cpu_backward,
    .copy = pf_cpu_copy_real,
    .axpy = pf_cpu_axpy,
    .scal = pf_cpu_scal,
    .clamp_min = pf_cpu_clamp_min,
    .reduce = pf_cpu_reduce,
    .clip_norm = pf_cpu_clip_norm,
    .adam = pf_cpu_adam,
    .sgd = pf_cpu_sgd,
    .grad_noise = pf_cpu_grad_noise,
    .capture = pf_cpu_capture,
    .replay = pf_cpu_replay,
    .drop = pf_cpu_drop,
    .info = pf_cpu_info,
};

const pf_backend *pf_backend_cpu(void) { return &cpu_backend; }
