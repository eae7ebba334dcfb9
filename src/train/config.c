/* config.c — defaults, names and step scaling of pf_train_config. */
#include "train/config.h"

#include <math.h>

#include "core/names.h"
#include "train/multiadam.h"

static const char *const adaptive_names[] = {"none", "rad", "rar_d"};
static const char *const mode_names[] = {"soft", "hard"};
static const char *const weighting_names[] = {"fixed", "lr_annealing", "self_adaptive"};
static const char *const rnorm_names[] = {"none", "initial"};
static const char *const opt_names[] = {"adam", "adamw", "lbfgs", "sgd", "multiadam"};
_Static_assert(sizeof adaptive_names / sizeof *adaptive_names == PF_ADAPTIVE_COUNT, "names");
_Static_assert(sizeof mode_names / sizeof *mode_names == PF_CONSTRAINT_MODE_COUNT, "names");
_Static_assert(sizeof weighting_names / sizeof *weighting_names == PF_WEIGHTING_COUNT, "names");
_Static_assert(sizeof rnorm_names / sizeof *rnorm_names == PF_RESIDUAL_NORM_COUNT, "names");
_Static_assert(sizeof opt_names / sizeof *opt_names == PF_OPT_COUNT, "names");

#define NAME_FUNCS(fn, type, table, kind, count)                                   \
    const char *fn##_name(type v)                                                  \
    {                                                                              \
        return ((int)v >= 0 && (int)v < (count)) ? table[v] : "?";                 \
    }                                                                              \
    pf_status fn##_from_name(const char *name, type *out)                          \
    {                                                                              \
        int i;                                                                     \
        PF_TRY(pf_name_lookup(kind, name, table, (count), &i));                    \
        *out = (type)i;                                                            \
        return PF_OK;                                                              \
    }

NAME_FUNCS(pf_adaptive_method, pf_adaptive_method, adaptive_names, "adaptive method", PF_ADAPTIVE_COUNT)
NAME_FUNCS(pf_constraint_mode, pf_constraint_mode, mode_names, "constraint mode", PF_CONSTRAINT_MODE_COUNT)
NAME_FUNCS(pf_weighting, pf_weighting, weighting_names, "weighting", PF_WEIGHTING_COUNT)
NAME_FUNCS(pf_residual_norm, pf_residual_norm, rnorm_names, "residual normalization", PF_RESIDUAL_NORM_COUNT)
NAME_FUNCS(pf_optimizer_kind, pf_optimizer_kind, opt_names, "optimizer", PF_OPT_COUNT)

pf_stage_config pf_stage_default(pf_optimizer_kind kind)
{
    pf_stage_config s = {0};
    s.optimizer = kind;
    s.steps = 0;
    s.adam = kind == PF_OPT_ADAMW       ? pf_adamw_config_default()
             : kind == PF_OPT_MULTIADAM ? pf_multiadam_config_default()
                                        : pf_adam_config_default();
    s.lbfgs = pf_lbfgs_config_default();
    s.schedule = pf_schedule_defaults(PF_SCHEDULE_CONSTANT, kind == PF_OPT_LBFGS ? 1.0 : 1e-3);
    s.grad_clip = 0;
    return s;
}

pf_train_config pf_train_config_default(void)
{
    pf_train_config tc = {0};
    tc.sampling.interior = 8192;
    tc.sampling.boundary = 2048;
    tc.sampling.initial = 2048;
    tc.sampling.method = PF_SAMPLE_UNIFORM;
    tc.sampling.resample_every = 0;
    tc.sampling.adaptive = (pf_adaptive_config){
        .method = PF_ADAPTIVE_NONE, .k = 1, .c = 1, .every = 100, .add = 100, .cap = 16384};
    tc.constraints.mode = PF_CONSTRAINT_SOFT;
    tc.constraints.transform = -1;
    tc.loss.weighting = PF_WEIGHTING_FIXED;
    tc.loss.nterms = 1;
    for (int i = 0; i < PF_TRAIN_MAX_TERMS; i++) tc.loss.weights[i] = 1;
    tc.loss.annealing_alpha = 0.9;
    tc.loss.annealing_every = 10;
    tc.loss.sa_lr = 0.005;
    tc.loss.causal = false;
    tc.loss.causal_epsilon = 1.0;
    tc.loss.causal_chunks = 32;
    tc.loss.residual_norm = PF_RESIDUAL_NORM_NONE;
    tc.nstages = 0;
    tc.region = (pf_region_config){.enabled = false, .r0 = 1e-4, .history = 10, .max_radius = 0.01};
    tc.log_every = 100;
    tc.eval_every = 100;
    return tc;
}

long pf_train_config_points(const pf_train_config *tc)
{
    const pf_sampling_config *s = &tc->sampling;
    long in = s->adaptive.method == PF_ADAPTIVE_RAR_D ? s->adaptive.cap : s->interior;
    return in + (long)s->boundary + (long)s->initial;
}

long pf_train_config_steps(const pf_train_config *tc)
{
    long n = 0;
    for (int i = 0; i < tc->nstages; i++) n += tc->stages[i].steps;
    return n;
}

static long scale_len(long v, double f)
{
    long r = lround((double)v * f);
    return r < 1 ? 1 : r;
}

pf_status pf_train_config_scale_steps(pf_train_config *tc, long budget)
{
    long total = pf_train_config_steps(tc);
    if (tc->nstages < 1 || total <= 0 || budget <= 0)
        return pf_fail(PF_ERR_INVALID, "cannot scale %d stages of %ld steps to %ld steps",
                       tc->nstages, total, budget);
    long got[PF_TRAIN_MAX_STAGES], sum = 0;
    double rem[PF_TRAIN_MAX_STAGES];
    for (int i = 0; i < tc->nstages; i++) {
        double exact = (double)tc->stages[i].steps * (double)budget / (double)total;
        got[i] = (long)floor(exact);
        rem[i] = exact - (double)got[i];
        sum += got[i];
    }
    /* Largest remainder first; ties go to the earlier stage. */
    while (sum < budget) {
        int best = 0;
        for (int i = 1; i < tc->nstages; i++)
            if (rem[i] > rem[best]) best = i;
        got[best]++;
        rem[best] = -1;
        sum++;
    }
    /* Keep every stage alive when the budget allows: take from the largest. */
    if (budget >= tc->nstages)
        for (int i = 0; i < tc->nstages; i++)
            while (got[i] < 1) {
                int big = 0;
                for (int j = 1; j < tc->nstages; j++)
                    if (got[j] > got[big]) big = j;
                got[big]--;
                got[i]++;
            }
    for (int i = 0; i < tc->nstages; i++) {
        pf_stage_config *s = &tc->stages[i];
        double f = s->steps > 0 ? (double)got[i] / (double)s->steps : 1.0;
        s->schedule.decay_steps = scale_len(s->schedule.decay_steps, f);
        s->schedule.step_size = scale_len(s->schedule.step_size, f);
        if (s->schedule.warmup_steps > 0) s->schedule.warmup_steps = scale_len(s->schedule.warmup_steps, f);
        s->steps = got[i];
    }
    return PF_OK;
}
