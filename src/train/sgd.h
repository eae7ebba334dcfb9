/*
 * sgd.h — plain gradient descent over the flat parameter buffer.
 *
 * One step is, element-wise, torch.optim.SGD with its defaults (no
 * momentum, dampening, Nesterov or weight decay):
 *
 *     p = p - lr * g
 *
 * with lr the stage's rate for this step (its schedule, train/schedule.h).
 * The rate lives in backend memory (one pf_real), so a step can be recorded
 * once and replayed (backend.h, capture) with each step's rate: prepare
 * puts the rate there (a host copy, not recordable), apply queues the
 * update (backend.h, sgd).
 *
 *     pf_sgd *opt = pf_sgd_alloc_on(be, n);
 *     for (long k = 0; k < steps; k++) {
 *         ... forward + backward into grads ...
 *         pf_sgd_step(opt, params, grads, pf_schedule_lr(&sched, k, steps));
 *     }
 *     pf_sgd_free(opt);
 *
 * pf_sgd owns only its rate buffer; it allocates nothing in a step.
 */
#ifndef PF_TRAIN_SGD_H
#define PF_TRAIN_SGD_H

#include <stddef.h>

#include "core/real.h"
#include "tensor/backend.h"

typedef struct pf_sgd pf_sgd;

/* An optimizer for n > 0 parameters in backend `be`'s memory; NULL, with
 * the reason in pf_errmsg(), when memory runs out. */
pf_sgd *pf_sgd_alloc_on(const pf_backend *be, size_t n);
void pf_sgd_free(pf_sgd *s); /* NULL is allowed */

/* The two halves of a step (recordable: apply) and the whole step. */
void pf_sgd_prepare(pf_sgd *s, double lr);
void pf_sgd_apply(pf_sgd *s, pf_real *params, const pf_real *grads);
void pf_sgd_step(pf_sgd *s, pf_real *params, const pf_real *grads, double lr);

#endif
