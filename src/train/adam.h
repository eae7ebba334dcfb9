/*
 * adam.h — Adam and AdamW over the flat parameter buffer, and gradient
 * clipping.
 *
 * The engine keeps every trainable parameter in one pf_real array and every
 * gradient in another of the same length n, so an optimizer is a loop over
 * one array. pf_adam owns the two moment vectors (m, then v: one allocation
 * of 2n pf_reals made by pf_adam_alloc) and the step counter t; it does not
 * own the parameters or the gradients.
 *
 *     pf_adam_config cfg = pf_adamw_config_default();   // wd 0.01
 *     pf_adam *opt = pf_adam_alloc(n, &cfg);
 *     if (!opt) return ...;                             // message in pf_errmsg()
 *     for (long step = 0; step < total; step++) {
 *         ... forward + backward into grads ...
 *         double norm = pf_clip_grad_norm(grads, n, 1.0);
 *         if (!isfinite(norm)) return ...;              // grads left untouched
 *         pf_adam_step(opt, params, grads, pf_schedule_lr(&sched, step, total));
 *     }
 *     pf_adam_free(opt);
 *
 * One step is, element-wise, exactly torch.optim.Adam / torch.optim.AdamW
 * (amsgrad=False, maximize=False), with t counted from 1:
 *
 *     if decoupled:  p = p - lr * wd * p           (AdamW, Loshchilov & Hutter)
 *     else:          g = g + wd * p                (Adam's L2 penalty)
 *     m = beta1 * m + (1 - beta1) * g
 *     v = beta2 * v + (1 - beta2) * g * g
 *     mhat = m / (1 - beta1^t),   vhat = v / (1 - beta2^t)
 *     p = p - lr * mhat / (sqrt(vhat) + eps)      (eps outside the sqrt)
 *
 * The scalar factors are computed in double; the element-wise arithmetic is
 * in pf_real. Loops over more than PF_TRAIN_PARALLEL_MIN elements run on
 * OpenMP threads; every loop here is element-wise or a reduction in a fixed
 * order, so results do not depend on the number of threads.
 */
#ifndef PF_TRAIN_ADAM_H
#define PF_TRAIN_ADAM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/real.h"
#include "core/status.h"
#include "tensor/backend.h"

/* Loops shorter than this stay on one thread (thread start-up costs more). */
#define PF_TRAIN_PARALLEL_MIN (1L << 15)

typedef struct pf_adam_config {
    double beta1;        /* first-moment decay (0.9)                     */
    double beta2;        /* second-moment decay (0.999)                  */
    double eps;          /* added to sqrt(vhat) (1e-8)                   */
    double weight_decay; /* wd (Adam 0, AdamW 0.01, the torch defaults)  */
    bool decoupled;      /* true: AdamW's decay; false: L2 added to grad */
} pf_adam_config;

/* torch.optim.Adam defaults: betas (0.9, 0.999), eps 1e-8, no decay. */
pf_adam_config pf_adam_config_default(void);

/* torch.optim.AdamW defaults: as Adam with decoupled decay 0.01. */
pf_adam_config pf_adamw_config_default(void);

/* PF_ERR_INVALID with a message if a beta is outside [0, 1), eps <= 0 or
 * weight_decay < 0. */
pf_status pf_adam_config_check(const pf_adam_config *cfg);

typedef struct pf_adam pf_adam;

/* An optimizer for n > 0 parameters with zeroed moments and t = 0; the
 * configuration is copied. Returns NULL, with the reason in pf_errmsg(), if
 * the configuration fails pf_adam_config_check() or memory runs out. */
pf_adam *pf_adam_alloc(size_t n, const pf_adam_config *cfg);

/* The same with the moments in backend `be`'s memory: params and grads
 * passed to it are then that backend's memory too. */
pf_adam *pf_adam_alloc_on(const pf_backend *be, size_t n, const pf_adam_config *cfg);

/* Frees the optimizer and its moments; NULL is allowed. */
void pf_adam_free(pf_adam *a);

/* One update of params[0..n) from grads[0..n) at learning rate lr (take it
 * from pf_schedule_lr). Increments t. grads is read only, even with L2
 * decay. Makes no heap allocation. */
void pf_adam_step(pf_adam *a, pf_real *params, const pf_real *grads, double lr);

/* A step in two halves, for a recorded step (backend.h, capture): prepare
 * increments t and puts this step's coefficients in backend memory (not
 * recordable: it copies from the host); apply queues the update itself and
 * reads them when it runs. pf_adam_step = prepare + apply. */
void pf_adam_prepare(pf_adam *a, double lr);
void pf_adam_apply(pf_adam *a, pf_real *params, const pf_real *grads);

/* Climb instead of descend (the gradient's sign flipped inside the update;
 * grads stay as they are). */
void pf_adam_set_ascent(pf_adam *a, bool ascent);

/* Zero the moments and the step counter (a fresh start, same config). */
void pf_adam_reset(pf_adam *a);

/* Checkpointing: the moments are one array of 2n pf_reals, m[0..n) then
 * v[0..n), owned by the optimizer (backend memory); write it and the step counter out, and
 * read them back into a fresh optimizer of the same n to resume exactly. */
pf_real *pf_adam_moments(pf_adam *a);
size_t pf_adam_size(const pf_adam *a);
long pf_adam_step_count(const pf_adam *a);
void pf_adam_set_step_count(pf_adam *a, long t);

/* Clip by global L2 norm, as torch.nn.utils.clip_grad_norm_: returns the
 * norm of grads[0..n) before clipping; if it exceeds max_norm, scales every
 * gradient by max_norm / (norm + 1e-6) (torch's 1e-6 guard, so the norm
 * afterwards is max_norm to within 1e-6 absolute). The norm is accumulated in
 * double over fixed blocks summed in a fixed order, so it does not depend on
 * the thread count. A non-finite norm is returned as is and the gradients
 * are left untouched: check it with isfinite() and skip the step. */
double pf_clip_grad_norm(pf_real *grads, size_t n, double max_norm);

/* Clamp every gradient to [-clip_value, clip_value], as
 * torch.nn.utils.clip_grad_value_ (NaN stays NaN). clip_value >= 0. */
void pf_clip_grad_value(pf_real *grads, size_t n, double clip_value);

#endif
