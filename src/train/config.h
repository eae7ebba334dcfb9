/*
 * config.h — what a training run does, beyond the model: plain C structs,
 * no JSON.
 *
 * The AlgorithmSpec layer (spec/spec.h) fills a pf_train_config from the
 * sections sampling, constraints, loss, optimization and training of a
 * validated spec (the model itself goes into a pf_model_config, nn/model.h);
 * the trainer reads it. Every field documented here is something the
 * trainer must honour: the spec validator admits no option that training
 * would ignore.
 *
 *     pf_train_config tc = pf_train_config_default();
 *     tc.sampling.adaptive.method = PF_ADAPTIVE_RAD;
 *     tc.nstages = 2;
 *     tc.stages[0] = pf_stage_default(PF_OPT_ADAM);  tc.stages[0].steps = 800;
 *     tc.stages[1] = pf_stage_default(PF_OPT_LBFGS); tc.stages[1].steps = 200;
 *
 * Point counts: `interior`, `boundary` and `initial` are the collocation
 * points drawn at the start (and at every resampling). `boundary` is the
 * total over all boundary constraints of the PDE (the trainer splits it
 * among them); `initial` is the number of points on the initial slice
 * (0 for steady PDEs). With RAR-D the interior set grows by `add` points
 * every `every` steps up to `cap`, so the point budget counts `cap` in place
 * of `interior` (pf_train_config_points()).
 *
 * High fidelity: a spec's stages are written for the low-fidelity budget
 * (1,000 steps) or the high one (10,000 steps; paper, appendix A.1 and
 * B.1); pf_train_config_scale_steps() rescales the stages of one budget to
 * another, preserving their order and proportions (largest-remainder
 * rounding, so the sum is exact).
 */
#ifndef PF_TRAIN_CONFIG_H
#define PF_TRAIN_CONFIG_H

#include <stdbool.h>

#include "core/status.h"
#include "geom/sample.h"
#include "train/adam.h"
#include "train/lbfgs.h"
#include "train/schedule.h"

#define PF_TRAIN_MAX_STAGES 8    /* optimization stages */
#define PF_TRAIN_MAX_TERMS 16    /* loss terms: "pde" + one per constraint */
#define PF_TRAIN_MAX_CHUNKS 64   /* causal weighting: time chunks */

/* ------------------------------------------------------------ sampling */

typedef enum pf_adaptive_method {
    PF_ADAPTIVE_NONE = 0, /* "none": points fixed (up to resampling)            */
    PF_ADAPTIVE_RAD,      /* "rad": residual-based adaptive distribution (Wu et
                             al. 2023): every `every` steps, redraw the interior
                             set from a dense candidate pool with probability
                             p(x) ~ |r(x)|^k / mean |r|^k + c                    */
    PF_ADAPTIVE_RAR_D,    /* "rar_d": residual-based adaptive refinement with
                             distribution (Wu et al. 2023): every `every` steps,
                             add `add` points drawn with the RAD density to the
                             interior set, up to `cap` interior points          */
    PF_ADAPTIVE_COUNT
} pf_adaptive_method;

typedef struct pf_adaptive_config {
    pf_adaptive_method method;
    double k;            /* exponent of |r| in the density (1)                  */
    double c;            /* additive constant of the density (1)                */
    int every;           /* steps between adaptive updates (100)                */
    int add;             /* rar_d: points added per update (100)                */
    int cap;             /* rar_d: most interior points ever held (16384)       */
} pf_adaptive_config;

typedef struct pf_sampling_config {
    int interior;              /* interior collocation points (8192)            */
    int boundary;              /* boundary points, all constraints together (2048) */
    int initial;               /* initial-slice points (2048; 0 when steady)    */
    pf_sample_method method;   /* interior / initial sampler (uniform)          */
    int resample_every;        /* redraw all points every this many steps with
                                  a fresh seed stream; 0 = never (0)            */
    pf_adaptive_config adaptive;
} pf_sampling_config;

/* ---------------------------------------------------------- constraints */

typedef enum pf_constraint_mode {
    PF_CONSTRAINT_SOFT = 0, /* "soft": every constraint is a loss term           */
    PF_CONSTRAINT_HARD,     /* "hard": the PDE's transform `transform` makes the
                               constraints it `satisfies` exact (their loss
                               terms are dropped); the others stay soft          */
    PF_CONSTRAINT_MODE_COUNT
} pf_constraint_mode;

typedef struct pf_constraints_config {
    pf_constraint_mode mode;
    int transform;              /* hard: index into pde->hard[], else -1        */
} pf_constraints_config;

/* ----------------------------------------------------------------- loss */

typedef enum pf_weighting {
    PF_WEIGHTING_FIXED = 0,    /* "fixed": L = sum_t w_t L_t                     */
    PF_WEIGHTING_LR_ANNEALING, /* "lr_annealing" (Wang, Teng & Perdikaris 2021,
                                  Alg. 1): every `every` steps,
                                  w_t <- alpha w_t + (1 - alpha) max|grad L_pde| /
                                  mean|grad L_t|, starting from the fixed weights */
    PF_WEIGHTING_SELF_ADAPTIVE,/* "self_adaptive" (McClenny & Braga-Neto 2023):
                                  one trainable weight per point and term,
                                  lambda_i >= 0, ascended with rate `lr` by
                                  Adam while the network descends              */
    PF_WEIGHTING_COUNT
} pf_weighting;

typedef enum pf_residual_norm {
    PF_RESIDUAL_NORM_NONE = 0, /* "none"                                         */
    PF_RESIDUAL_NORM_INITIAL,  /* "initial": each term divided by its value at
                                  step 0 (so every term starts at 1)            */
    PF_RESIDUAL_NORM_COUNT
} pf_residual_norm;

typedef struct pf_loss_config {
    pf_weighting weighting;
    /* weights[i] multiplies term i: term 0 is the PDE residual ("pde", all
     * equations), term 1 + j is constraint j of the PDE (its name); fixed
     * weights, and the starting weights of lr_annealing (1 each). */
    int nterms;
    double weights[PF_TRAIN_MAX_TERMS];
    double annealing_alpha;   /* lr_annealing: moving-average factor (0.9)      */
    int annealing_every;      /* lr_annealing: steps between updates (10)       */
    double sa_lr;             /* self_adaptive: ascent rate of the weights (0.005) */
    /* Causal weighting (Wang, Sankaran & Perdikaris 2024): the time interval
     * is cut into `causal_chunks` chunks; the residual loss of chunk i is
     * weighted by exp(-epsilon * sum_{j<i} L_j) (weights not differentiated).
     * Time-dependent PDEs only. */
    bool causal;
    double causal_epsilon;    /* (1.0)                                          */
    int causal_chunks;        /* (32)                                           */
    pf_residual_norm residual_norm;
} pf_loss_config;

/* --------------------------------------------------------- optimization */

typedef enum pf_optimizer_kind {
    PF_OPT_ADAM = 0,  /* "adam"  */
    PF_OPT_ADAMW,     /* "adamw" */
    PF_OPT_LBFGS,     /* "lbfgs" */
    PF_OPT_SGD,       /* "sgd": p -= lr g, no momentum (train/sgd.h)           */
    PF_OPT_MULTIADAM, /* "multiadam": Adam with moments per loss group: group 1
                         the PDE residual terms, group 2 all other terms
                         (train/multiadam.h; betas (0.99, 0.99), eps 1e-8, no
                         weight decay); a group whose terms all have weight 0
                         (e.g. every constraint made exact by a hard
                         transform) is left out, and with one group left it
                         is Adam with those betas on the whole gradient     */
    PF_OPT_COUNT
} pf_optimizer_kind;

/* Whether stages of this kind take gradient steps with a schedule (adam,
 * adamw, sgd, multiadam: every kind but lbfgs). */
static inline bool pf_optimizer_is_gradient(pf_optimizer_kind k) { return k != PF_OPT_LBFGS; }

typedef struct pf_stage_config {
    pf_optimizer_kind optimizer;
    long steps;                /* optimizer steps of this stage (an L-BFGS step
                                  is one pf_lbfgs_step, line search included) */
    pf_schedule schedule;      /* lr lives in schedule.lr; lbfgs: constant      */
    pf_adam_config adam;       /* adam / adamw: betas, eps, weight decay;
                                  multiadam: betas, eps (decay 0)               */
    pf_lbfgs_config lbfgs;     /* lbfgs: history, line_search (lr = schedule.lr) */
    double grad_clip;          /* adam / adamw / sgd: clip the global gradient
                                  norm to this; 0 = no clipping (0)             */
} pf_stage_config;

/* -------------------------------------------------- region optimization */

/* RoPINN's region optimization (Wu, Luo, Wang, Wang & Long, NeurIPS 2024),
 * as reconstructed from its paper and the released code of thuml/RoPINN,
 * which covers three 1-D benchmarks and has no PINNacle driver (see
 * docs/baselines.md, "RoPINN"). On every gradient step (adam, adamw, sgd,
 * multiadam; L-BFGS stages are left alone):
 *   - the INTERIOR points seen by that step's pass are x + r u, u ~ U[0, 1)^d
 *     per point and coordinate (one-sided, the same radius for every input,
 *     redrawn each step from the run's seed), clamped to the domain's
 *     bounding box; a point whose moved position leaves a non-box domain
 *     keeps its own position for that step. Boundary, initial and
 *     observation points never move; the drawn points themselves (the
 *     base set that resampling, RAD and RAR-D manage) do not change;
 *   - r = clip(r0 / sigma, 0, max_radius), where sigma is the gradient-noise
 *     level of the last `history` (T0) steps' network gradients (before
 *     clipping): per parameter std_t(g) / (mean_t |g| + 1e-6), averaged over
 *     the parameters, over the gradients that exist while fewer than T0 do
 *     (as the released code: from the second step on); sigma = 1 at the
 *     first step and whenever it comes out 0.
 * The gradient ring lives on the training backend (backend.h, grad_noise).
 * Off by default; the spec leaves it out of the canonical form when off. */
typedef struct pf_region_config {
    bool enabled;              /* (false)                                       */
    double r0;                 /* initial region radius (1e-4)                  */
    int history;               /* T0: steps in the noise estimate (10)          */
    double max_radius;         /* cap on the radius (0.01)                      */
} pf_region_config;

typedef struct pf_train_config {
    pf_sampling_config sampling;
    pf_constraints_config constraints;
    pf_loss_config loss;
    int nstages;
    pf_stage_config stages[PF_TRAIN_MAX_STAGES];
    pf_region_config region;   /* RoPINN's region optimization (off)            */
    int log_every;             /* steps between loss-curve records (100)        */
    int eval_every;            /* steps between evaluation MSEs (100)           */
} pf_train_config;

/* The defaults in parentheses above; no stages (nstages 0), one loss term
 * of weight 1. */
pf_train_config pf_train_config_default(void);

/* A stage of `kind` with the defaults: adam lr 1e-3 (torch betas, eps, no
 * decay), adamw the same with decoupled decay 0.01, sgd lr 1e-3, multiadam
 * lr 1e-3 with betas (0.99, 0.99) and eps 1e-8, lbfgs lr 1 with the
 * pf_lbfgs_config_default() history and strong-Wolfe line search; constant
 * schedule, no clipping, 0 steps. */
pf_stage_config pf_stage_default(pf_optimizer_kind kind);

/* The training points the run may hold at once: (rar_d ? cap : interior) +
 * boundary + initial. The spec validator's point budget. */
long pf_train_config_points(const pf_train_config *tc);

/* Sum of the stages' steps. */
long pf_train_config_steps(const pf_train_config *tc);

/* Rescale the stages so their steps sum to `budget` (> 0), proportionally
 * with largest-remainder rounding (ties to the earlier stage); a stage keeps
 * at least one step when budget >= nstages. Schedule lengths measured in
 * steps (decay_steps, step_size, warmup_steps) scale by the same factor
 * (rounded, at least 1 where they must be). PF_ERR_INVALID if there are no
 * stages or their sum is 0. */
pf_status pf_train_config_scale_steps(pf_train_config *tc, long budget);

/* Names ("rad", "lbfgs", ...); "?" out of range. Parsers give the standard
 * "<kind> 'x' is unknown; allowed: ..." (core/names.h). */
const char *pf_adaptive_method_name(pf_adaptive_method m);
pf_status pf_adaptive_method_from_name(const char *name, pf_adaptive_method *out);
const char *pf_constraint_mode_name(pf_constraint_mode m);
pf_status pf_constraint_mode_from_name(const char *name, pf_constraint_mode *out);
const char *pf_weighting_name(pf_weighting w);
pf_status pf_weighting_from_name(const char *name, pf_weighting *out);
const char *pf_residual_norm_name(pf_residual_norm r);
pf_status pf_residual_norm_from_name(const char *name, pf_residual_norm *out);
const char *pf_optimizer_kind_name(pf_optimizer_kind k);
pf_status pf_optimizer_kind_from_name(const char *name, pf_optimizer_kind *out);

#endif
