/*
 * multiadam.h — MultiAdam over the flat parameter buffer: Adam with one pair
 * of moment estimates per group of loss terms (Yao, Su, Hao, Liu, Su & Zhu,
 * "MultiAdam: Parameter-wise Scale-invariant Optimizer for Multiscale
 * Training of Physics-informed Neural Networks", ICML 2023; as PINNacle's
 * src/optimizer/multiadam.py implements it).
 *
 * The loss terms are split into G groups and g_k is the gradient of group
 * k's part of the loss (the trainer, train/trainer.h: group 1 the PDE
 * residual terms, group 2 every other term — initial, boundary,
 * observation —, as PINNacle's benchmark passes loss_group_idx = [number of
 * PDE terms]). One step, element-wise, with t counted from 1 and the same
 * betas and eps for every group:
 *
 *     m_k = beta1 m_k + (1 - beta1) g_k            k = 1..G
 *     v_k = beta2 v_k + (1 - beta2) g_k^2
 *     mhat_k = m_k / (1 - beta1^t),   vhat_k = v_k / (1 - beta2^t)
 *     p = p - lr * (1/G) sum_k mhat_k / (sqrt(vhat_k) + eps)
 *
 * That is PINNacle's sadam() with its defaults: group_weights 1/G each,
 * betas (0.99, 0.99), eps 1e-8 outside the square root, weight_decay 0,
 * amsgrad and agg_momentum off, maximize false. Weight decay is not
 * offered (pf_multiadam_alloc_on refuses it). Each group's update is
 * scale-invariant in its own gradient: multiplying a group's loss by a
 * constant changes nothing (up to eps).
 *
 * The update runs as G successive Adam updates (train/adam.h: the backend's
 * adam op), group k's on its own moments with step lr / G: without weight
 * decay no update reads the parameters, so the result is the formula above
 * with the sum over groups rounded term by term. So MultiAdam runs on every
 * backend that runs Adam, and records and replays like it: prepare puts the
 * step's coefficients in backend memory (a host copy), apply only queues.
 *
 *     pf_adam_config cfg = pf_multiadam_config_default();
 *     pf_multiadam *opt = pf_multiadam_alloc_on(be, n, 2, &cfg);
 *     ... g[0], g[1]: the two groups' gradients (backend memory) ...
 *     pf_multiadam_step(opt, params, (const pf_real *const[]){g[0], g[1]}, lr);
 *
 * The optimizer owns its moments (one allocation of 2 n G pf_reals on the
 * backend, group k's m then v at moments + 2 n k) and allocates nothing in
 * a step. */
#ifndef PF_TRAIN_MULTIADAM_H
#define PF_TRAIN_MULTIADAM_H

#include <stddef.h>

#include "core/real.h"
#include "core/status.h"
#include "tensor/backend.h"
#include "train/adam.h"

#define PF_MULTIADAM_MAX_GROUPS 4

/* PINNacle's defaults: betas (0.99, 0.99), eps 1e-8, no weight decay. */
pf_adam_config pf_multiadam_config_default(void);

typedef struct pf_multiadam pf_multiadam;

/* An optimizer for n > 0 parameters and 1..PF_MULTIADAM_MAX_GROUPS groups,
 * zeroed moments, t = 0. NULL with the reason in pf_errmsg() when cfg fails
 * pf_adam_config_check(), has weight_decay != 0, or memory runs out. */
pf_multiadam *pf_multiadam_alloc_on(const pf_backend *be, size_t n, int groups, const pf_adam_config *cfg);
void pf_multiadam_free(pf_multiadam *m); /* NULL is allowed */

int pf_multiadam_groups(const pf_multiadam *m);
long pf_multiadam_step_count(const pf_multiadam *m);
/* Group k's moments, m[0..n) then v[0..n) (backend memory). */
pf_real *pf_multiadam_moments(pf_multiadam *m, int k);

/* One update from grads[0..G) (each n pf_reals, backend memory) at rate
 * lr: prepare (t += 1, coefficients to the backend) then apply (queued,
 * recordable). */
void pf_multiadam_prepare(pf_multiadam *m, double lr);
void pf_multiadam_apply(pf_multiadam *m, pf_real *params, const pf_real *const *grads);
void pf_multiadam_step(pf_multiadam *m, pf_real *params, const pf_real *const *grads, double lr);

#endif
