#include "train/schedule.h"

#include <math.h>
#include <string.h>

#include "core/names.h"

static const double pi = 3.14159265358979323846;

static const char *const kind_names[PF_SCHEDULE_COUNT] = {
    [PF_SCHEDULE_CONSTANT] = "constant",
    [PF_SCHEDULE_EXPONENTIAL] = "exponential",
    [PF_SCHEDULE_STEP] = "step",
    [PF_SCHEDULE_COSINE] = "cosine",
    [PF_SCHEDULE_ONE_CYCLE] = "one_cycle",
};

pf_schedule pf_schedule_defaults(pf_schedule_kind kind, double lr)
{
    return (pf_schedule){
        .kind = kind,
        .lr = lr,
        .gamma = 0.1,
        .decay_steps = 1000,
        .step_size = 1000,
        .lr_min = 0.0,
        .warmup_steps = 0,
        .pct_start = 0.3,
        .div_factor = 25.0,
        .final_div_factor = 1e4,
        .anneal_linear = false,
    };
}

pf_status pf_schedule_check(const pf_schedule *s)
{
    if ((unsigned)s->kind >= PF_SCHEDULE_COUNT)
        return pf_fail(PF_ERR_INVALID, "unknown schedule kind %d", (int)s->kind);
    const char *name = kind_names[s->kind];
    if (!(s->lr > 0 && isfinite(s->lr)))
        return pf_fail(PF_ERR_INVALID, "%s schedule: lr must be positive, not %g", name, s->lr);
    switch (s->kind) {
    case PF_SCHEDULE_EXPONENTIAL:
    case PF_SCHEDULE_STEP:
        if (!(s->gamma > 0 && isfinite(s->gamma)))
            return pf_fail(PF_ERR_INVALID, "%s schedule: gamma must be positive, not %g",
                           name, s->gamma);
        if (s->kind == PF_SCHEDULE_EXPONENTIAL && s->decay_steps < 1)
            return pf_fail(PF_ERR_INVALID, "exponential schedule: decay_steps must be >= 1, not %ld",
                           s->decay_steps);
        if (s->kind == PF_SCHEDULE_STEP && s->step_size < 1)
            return pf_fail(PF_ERR_INVALID, "step schedule: step_size must be >= 1, not %ld",
                           s->step_size);
        break;
    case PF_SCHEDULE_COSINE:
        if (!(s->lr_min >= 0 && s->lr_min <= s->lr))
            return pf_fail(PF_ERR_INVALID, "cosine schedule: lr_min must be in [0, lr], not %g",
                           s->lr_min);
        if (s->warmup_steps < 0)
            return pf_fail(PF_ERR_INVALID, "cosine schedule: warmup_steps must be >= 0, not %ld",
                           s->warmup_steps);
        break;
    case PF_SCHEDULE_ONE_CYCLE:
        if (!(s->pct_start > 0 && s->pct_start < 1))
            return pf_fail(PF_ERR_INVALID, "one_cycle schedule: pct_start must be in (0, 1), not %g",
                           s->pct_start);
        if (!(s->div_factor > 0 && s->final_div_factor > 0))
            return pf_fail(PF_ERR_INVALID,
                           "one_cycle schedule: div_factor and final_div_factor must be positive");
        break;
    default:
        break;
    }
    return PF_OK;
}

static double clamp01(double p) { return p < 0 ? 0 : p > 1 ? 1 : p; }

/* Fraction of a phase, 1 when the phase has no length (torch divides by zero). */
static double fraction(double num, double den) { return den > 0 ? clamp01(num / den) : 1.0; }

static double anneal(const pf_schedule *s, double a, double b, double p)
{
    if (s->anneal_linear) return a + (b - a) * p;
    return b + (a - b) * 0.5 * (1.0 + cos(pi * p));
}

/* One-cycle follows torch.optim.lr_scheduler.OneCycleLR.get_lr (phase ends
 * at pct_start * T - 1 and T - 1, a phase's own anneal fraction) so that
 * runs compare step for step with PyTorch baselines. */
double pf_schedule_lr(const pf_schedule *s, long step, long total_steps)
{
    PF_ASSERT((unsigned)s->kind < PF_SCHEDULE_COUNT);
    if (step < 0) step = 0;
    double k = (double)step;
    switch (s->kind) {
    case PF_SCHEDULE_CONSTANT:
        return s->lr;
    case PF_SCHEDULE_EXPONENTIAL:
        return s->lr * pow(s->gamma, k / (double)s->decay_steps);
    case PF_SCHEDULE_STEP:
        return s->lr * pow(s->gamma, (double)(step / s->step_size));
    case PF_SCHEDULE_COSINE: {
        PF_ASSERT(total_steps > 0);
        long w = s->warmup_steps;
        if (step < w) return s->lr * (k + 1.0) / (double)w;
        double u = fraction(k - (double)w, (double)(total_steps - w));
        return s->lr_min + (s->lr - s->lr_min) * 0.5 * (1.0 + cos(pi * u));
    }
    case PF_SCHEDULE_ONE_CYCLE: {
        PF_ASSERT(total_steps > 0);
        double lr0 = s->lr / s->div_factor, lr1 = lr0 / s->final_div_factor;
        double end1 = s->pct_start * (double)total_steps - 1.0, end2 = (double)total_steps - 1.0;
        if (k <= end1) return anneal(s, lr0, s->lr, fraction(k, end1));
        return anneal(s, s->lr, lr1, fraction(k - end1, end2 - end1));
    }
    case PF_SCHEDULE_COUNT:
        break;
    }
    PF_ABORT("unreachable schedule kind %d", (int)s->kind);
}

const char *pf_schedule_kind_name(pf_schedule_kind kind)
{
    return (unsigned)kind < PF_SCHEDULE_COUNT ? kind_names[kind] : "?";
}

pf_status pf_schedule_parse_kind(const char *name, pf_schedule_kind *out)
{
    int k;
    PF_TRY(pf_name_lookup("schedule", name, kind_names, PF_SCHEDULE_COUNT, &k));
    *out = (pf_schedule_kind)k;
    return PF_OK;
}
