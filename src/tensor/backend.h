/*
 * backend.h — where a graph's buffers live and its ops run.
 *
 * A backend is a small vtable. The graph plans buffers and the order of ops;
 * the backend owns the memory and executes one node at a time. The CPU
 * backend (OpenBLAS GEMMs, OpenMP elementwise loops) is the reference every
 * other backend is checked against; the CUDA backend (kernels/) plugs in the
 * same way. PDE and model code never see a backend: only the graph does.
 *
 * Pointers handed to forward/backward (node buffers, parameters) are in the
 * backend's memory. Host code reaches them only through upload/download.
 *
 * Besides the graph's ops, a backend runs the optimizers' work on flat
 * vectors of pf_real in its memory (copy, axpy, scal, reductions, the
 * clipped norm, the Adam and SGD updates), so parameters never leave the device
 * during training. Ops that return a number to the host (reduce) wait for
 * the device; the others are only queued (ordered on the backend's one
 * stream) and can be recorded once and replayed (capture).
 */
#ifndef PF_TENSOR_BACKEND_H
#define PF_TENSOR_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "core/real.h"
#include "core/status.h"

struct pf_node;

/* Reductions that return to the host. */
typedef enum pf_vec_red {
    PF_VEC_DOT,  /* sum x[i] y[i] (y NULL: x[i]^2), accumulated in double */
    PF_VEC_ASUM, /* sum |x[i]| */
    PF_VEC_AMAX, /* max |x[i]|, NaN entries skipped (as fmax) */
} pf_vec_red;

/* The Adam update's coefficients, an array of PF_ADAM_NCOEF pf_reals in
 * backend memory (so a replayed step reads the current ones); with t the
 * 1-based step and bcK = 1 - betaK^t:
 *   p <- p * SHRINK;  g' = SIGN * g + L2 * p
 *   m <- B1 m + ONE_B1 g';  v <- B2 v + ONE_B2 g'^2
 *   p <- p - STEP m / (sqrt(v) / BC2_SQRT + EPS)     (STEP = lr / bc1)
 * SIGN = -1 climbs (the self-adaptive weights' ascent). */
enum {
    PF_ADAM_B1, PF_ADAM_B2, PF_ADAM_ONE_B1, PF_ADAM_ONE_B2, PF_ADAM_STEP, PF_ADAM_BC2_SQRT,
    PF_ADAM_EPS, PF_ADAM_SHRINK, PF_ADAM_L2, PF_ADAM_SIGN, PF_ADAM_NCOEF
};

/* What evidence records about where a run trained. */
typedef struct pf_device_info {
    char name[96];      /* "NVIDIA H100 80GB HBM3", "x86_64 CPU, 2 threads" */
    double memory_gib;  /* device memory (GPU) or physical memory (CPU) */
} pf_device_info;

typedef struct pf_backend {
    const char *name;
    /* True when the backend buffers are ordinary host memory. */
    bool host_memory;
    /* Whether the backend implements this node's op (optional: NULL = all). */
    bool (*supports_op)(const struct pf_node *x);
    /* Allocate `bytes` of zeroed, PF_ALIGN-aligned memory. */
    pf_status (*alloc)(size_t bytes, void **out);
    void (*free)(void *p);
    /* Host -> backend and backend -> host copies. */
    void (*upload)(void *dst, const void *src, size_t bytes);
    void (*download)(void *dst, const void *src, size_t bytes);
    /* Workspace bytes this backend's ops need for node x, planned into the
     * graph's one allocation (x->scratch) (optional: NULL = none). */
    size_t (*scratch_bytes)(const struct pf_node *x);
    /* Set `bytes` of backend memory to zero. */
    void (*zero)(void *p, size_t bytes);
    /* Compute x->val from its inputs. */
    void (*forward)(struct pf_node *x);
    /* Given x->grad, write or accumulate its inputs' gradients (per edge, see
     * node.h) and accumulate parameter gradients. */
    void (*backward)(struct pf_node *x);

    /* ---- flat vectors of n pf_reals in backend memory ---- */
    /* dst = src (backend to backend; the ranges do not overlap). */
    void (*copy)(pf_real *dst, const pf_real *src, size_t n);
    /* y += a x. */
    void (*axpy)(size_t n, double a, const pf_real *x, pf_real *y);
    /* x *= a. */
    void (*scal)(size_t n, double a, pf_real *x);
    /* x[i] = max(x[i], lo) (NaN stays NaN). */
    void (*clamp_min)(pf_real *x, size_t n, double lo);
    /* A reduction, deterministic (the result depends on n only); waits. */
    double (*reduce)(pf_vec_red kind, const pf_real *x, const pf_real *y, size_t n);
    /* *norm = ||g||_2 (a double in backend memory) and, when it is finite and
     * above max_norm, g *= max_norm / (norm + 1e-6), as torch's
     * clip_grad_norm_. Queued: read *norm with download. */
    void (*clip_norm)(pf_real *g, size_t n, double max_norm, double *norm);
    /* One Adam update of p from g with moments mv = [m | v] (2n) and the
     * coefficients coef[PF_ADAM_NCOEF] (backend memory). */
    void (*adam)(pf_real *p, const pf_real *g, pf_real *mv, size_t n, const pf_real *coef);
    /* One plain gradient-descent update p <- p - lr[0] g (torch.optim.SGD
     * without momentum or decay); lr is one pf_real in backend memory, so a
     * replayed step reads the current rate. */
    void (*sgd)(pf_real *p, const pf_real *g, size_t n, const pf_real *lr);
    /* RoPINN's gradient-noise level (train/config.h, region optimization)
     * over a ring of the last T >= 1 gradients: `ring` is T x n pf_reals
     * (slot k at ring + k n), `state` two doubles, state[0] the gradients
     * pushed so far and state[1] the result, all in backend memory:
     *   slot (state[0] mod T) <- g;  state[0] += 1;  m = min(state[0], T);
     *   state[1] = sigma = (1/n) sum_j std_t(ring[t][j]) / (mean_t |ring[t][j]| + 1e-6)
     *   over the m gradients held (t < m; std with divisor m, numpy's
     *   default; all in double), and 1 where sigma comes out 0 (after the
     *   first push: one gradient has no spread), as thuml/RoPINN computes it
     *   from its partly filled history. Deterministic (fixed partition of j,
     *   partial sums added in order); queued: read state[1] with download. */
    void (*grad_noise)(pf_real *ring, size_t n, int T, const pf_real *g, double *state);

    /* ---- recording a step (optional: NULL = the backend has no capture) ----
     * capture runs body(arg) once, recording the work it queues instead of
     * running it, into *exec; replay runs the recording (with the memory's
     * contents at replay time); drop frees it. body must queue work only (no
     * reduce, no download, no allocation). */
    pf_status (*capture)(void (*body)(void *), void *arg, void **exec);
    pf_status (*replay)(void *exec);
    void (*drop)(void *exec);

    /* Describe the device (name, memory). */
    void (*info)(pf_device_info *out);
} pf_backend;

/* The CPU reference backend. */
const pf_backend *pf_backend_cpu(void);

#endif
