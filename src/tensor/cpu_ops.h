/*
 * cpu_ops.h — the CPU backend's op implementations (internal to tensor/).
 *
 * Each op has a forward that fills y->val and a backward that, given y->grad,
 * writes or accumulates its inputs' gradients (y->in_acc) and accumulates
 * parameter gradients. Loops over elements are OpenMP-parallel when there is
 * enough work; reductions use a fixed partition so results do not depend on
 * the thread count.
 */
#ifndef PF_TENSOR_CPU_OPS_H
#define PF_TENSOR_CPU_OPS_H

#include <stddef.h>

#include "tensor/node.h"

/* Elements below which an elementwise loop stays on one thread. */
#define PF_CPU_PAR_MIN 32768

size_t pf_cpu_linear_scratch(const struct pf_node *y);
void pf_cpu_linear_fwd(struct pf_node *y);
void pf_cpu_linear_bwd(struct pf_node *y);
void pf_cpu_unary_fwd(struct pf_node *y);
void pf_cpu_unary_bwd(struct pf_node *y);
/* WaveAct (cpu_unary.c): scratch holds per-block parts of dL/dw1, dL/dw2. */
size_t pf_cpu_waveact_scratch(const struct pf_node *y);
/* Attention (cpu_attention.c): scratch holds a group workspace per run of points. */
size_t pf_cpu_attention_scratch(const struct pf_node *y);
void pf_cpu_attention_fwd(struct pf_node *y);
void pf_cpu_attention_bwd(struct pf_node *y);
void pf_cpu_waveact_fwd(struct pf_node *y);
void pf_cpu_waveact_bwd(struct pf_node *y);
void pf_cpu_pointwise_fwd(struct pf_node *y);
void pf_cpu_pointwise_bwd(struct pf_node *y);

/* dst = src (acc = 0) or dst += src (acc = 1), n elements. */
void pf_cpu_put(pf_real *restrict dst, const pf_real *restrict src, size_t n, int acc);

/* The flat-vector ops and capture (cpu_vec.c; see backend.h). */
void pf_cpu_copy_real(pf_real *dst, const pf_real *src, size_t n);
void pf_cpu_axpy(size_t n, double a, const pf_real *x, pf_real *y);
void pf_cpu_scal(size_t n, double a, pf_real *x);
void pf_cpu_clamp_min(pf_real *x, size_t n, double lo);
double pf_cpu_reduce(pf_vec_red kind, const pf_real *x, const pf_real *y, size_t n);
void pf_cpu_clip_norm(pf_real *g, size_t n, double max_norm, double *norm);
void pf_cpu_adam(pf_real *params, const pf_real *grads, pf_real *mv, size_t n, const pf_real *coef);
void pf_cpu_sgd(pf_real *params, const pf_real *grads, size_t n, const pf_real *lr);
void pf_cpu_grad_noise(pf_real *ring, size_t n, int T, const pf_real *g, double *state);
pf_status pf_cpu_capture(void (*body)(void *), void *arg, void **exec);
pf_status pf_cpu_replay(void *exec);
void pf_cpu_drop(void *exec);
void pf_cpu_info(pf_device_info *out);

/* Reductions split their range into this many fixed chunks, sum each in
 * double (in parallel), then add the chunk sums in order: the result depends
 * on the sizes only, never on the thread count. */
#define PF_CPU_NCHUNK 64

#endif
