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
void pf_cpu_pointwise_fwd(struct pf_node *y);
void pf_cpu_pointwise_bwd(struct pf_node *y);

/* dst = src (acc = 0) or dst += src (acc = 1), n elements. */
void pf_cpu_put(pf_real *restrict dst, const pf_real *restrict src, size_t n, int acc);

/* Reductions split their range into this many fixed chunks, sum each in
 * double (in parallel), then add the chunk sums in order: the result depends
 * on the sizes only, never on the thread count. */
#define PF_CPU_NCHUNK 64

#endif
