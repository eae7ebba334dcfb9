/*
 * schedule.h — learning-rate schedules.
 *
 * A schedule is a plain value: fill a pf_schedule (start from
 * pf_schedule_defaults(), which sets every field to its documented default),
 * check it once with pf_schedule_check(), then ask for the rate of each step.
 * Nothing is allocated and nothing is stateful, so a run resumed from a
 * checkpoint at step k gets exactly the rates it would have had.
 *
 *     pf_schedule s = pf_schedule_defaults(PF_SCHEDULE_COSINE, 1e-3);
 *     s.lr_min = 1e-5;
 *     s.warmup_steps = 500;
 *     if (pf_schedule_check(&s) != PF_OK) return ...;   // message in pf_errmsg()
 *     for (long step = 0; step < total; step++) {
 *         double lr = pf_schedule_lr(&s, step, total);
 *         pf_adam_step(opt, params, grads, lr);
 *     }
 *
 * Steps count from 0: pf_schedule_lr(s, k, total) is the rate of the
 * (k+1)-th update. `total` is the number of updates of the run; only the
 * cosine and one-cycle schedules use it. Steps at or past the end keep the
 * final rate. With lr = s->lr the formulas are:
 *
 *   constant     lr
 *   exponential  lr * gamma^(step / decay_steps)       (real exponent, smooth)
 *   step         lr * gamma^floor(step / step_size)    (torch StepLR)
 *   cosine       W = warmup_steps, T = total:
 *                  step <  W: lr * (step + 1) / W      (linear warmup, the first
 *                                                       update is not wasted)
 *                  step >= W: u = min(1, (step - W) / (T - W))  (1 if T <= W),
 *                             lr_min + (lr - lr_min) * (1 + cos(pi u)) / 2
 *   one_cycle    Smith & Topping 2019, exactly as torch.optim.lr_scheduler.
 *                OneCycleLR with three_phase=False. Here lr is the PEAK rate:
 *                  lr0  = lr / div_factor                  (initial)
 *                  lr1  = lr0 / final_div_factor           (final)
 *                  E1   = pct_start * T - 1                (end of warmup)
 *                  step <= E1: anneal(lr0, lr,  step / E1)
 *                  step >  E1: anneal(lr,  lr1, (step - E1) / (T - 1 - E1))
 *                with anneal(a, b, p) = b + (a - b) * (1 + cos(pi p)) / 2
 *                (cosine, the default) or a + (b - a) * p when
 *                anneal_linear is set; the fraction p is clamped to [0, 1]
 *                (and is 1 where its denominator is not positive, a run too
 *                short for a phase; torch raises there).
 *
 * Configuration errors (a gamma <= 0, a pct_start outside (0, 1), ...) are
 * reported by pf_schedule_check(); pf_schedule_lr() asserts a checked
 * schedule and a positive `total` for the schedules that use it.
 */
#ifndef PF_TRAIN_SCHEDULE_H
#define PF_TRAIN_SCHEDULE_H

#include <stdbool.h>

#include "core/status.h"

typedef enum pf_schedule_kind {
    PF_SCHEDULE_CONSTANT = 0,
    PF_SCHEDULE_EXPONENTIAL,
    PF_SCHEDULE_STEP,
    PF_SCHEDULE_COSINE,
    PF_SCHEDULE_ONE_CYCLE,
    PF_SCHEDULE_COUNT
} pf_schedule_kind;

typedef struct pf_schedule {
    pf_schedule_kind kind;
    double lr;              /* base rate; the peak rate for one_cycle       */
    double gamma;           /* exponential, step: decay factor (0.1)        */
    long decay_steps;       /* exponential: steps per factor gamma (1000)   */
    long step_size;         /* step: steps between decays (1000)            */
    double lr_min;          /* cosine: final rate (0)                       */
    long warmup_steps;      /* cosine: linear warmup length (0 = none)      */
    double pct_start;       /* one_cycle: warmup fraction of total (0.3)    */
    double div_factor;      /* one_cycle: lr / initial rate (25)            */
    double final_div_factor;/* one_cycle: initial / final rate (1e4)        */
    bool anneal_linear;     /* one_cycle: linear instead of cosine (false)  */
} pf_schedule;

/* A schedule of `kind` with base rate `lr` and every other field at the
 * default shown in parentheses above. */
pf_schedule pf_schedule_defaults(pf_schedule_kind kind, double lr);

/* PF_ERR_INVALID with a message naming the field if the configuration is
 * unusable (lr <= 0, gamma <= 0, decay_steps or step_size < 1,
 * lr_min outside [0, lr], warmup_steps < 0, pct_start outside (0, 1),
 * div factors <= 0, or an unknown kind). */
pf_status pf_schedule_check(const pf_schedule *s);

/* The learning rate of update `step` (0-based) in a run of `total_steps`
 * updates; see the formulas above. Pure function of its arguments. */
double pf_schedule_lr(const pf_schedule *s, long step, long total_steps);

/* The canonical names: "constant", "exponential", "step", "cosine",
 * "one_cycle". pf_schedule_kind_name returns "?" for an invalid kind. */
const char *pf_schedule_kind_name(pf_schedule_kind kind);

/* Parse a canonical name (exact, case-sensitive). PF_ERR_INVALID with a
 * message listing the valid names if `name` is not one; *out is untouched
 * then. */
pf_status pf_schedule_parse_kind(const char *name, pf_schedule_kind *out);

#endif
