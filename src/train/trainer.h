/*
 * trainer.h — train one candidate (a PDE, a model, a training config) and
 * gather its execution evidence (docs/architecture.md, "Design targets: training one
 * candidate and its evidence").
 *
 *     pf_train_options o = pf_train_options_default();
 *     o.seed = 3;
 *     pf_train_result r;
 *     if (pf_train_run(pde, &mc, &tc, &o, &r) != PF_OK) ...; // setup failed: pf_errmsg()
 *     printf("%s %g\n", pf_train_status_name(r.status), r.has_y ? r.y : NAN);
 *     pf_train_result_release(&r);
 *
 * pf_train_run fails only when the candidate cannot be set up (a data file
 * or the reference file missing or damaged, out of memory, a sampler that
 * cannot fill the domain); only a PDE that has no reference at all
 * (PF_REF_MISSING) trains without y, with y_missing saying so. A
 * training that goes wrong is a RESULT: NaN or Inf in the loss or the
 * gradient ends it with status nan, a loss above `diverge_factor`
 * (PF_TRAIN_DIVERGED_FACTOR) times its starting value with status diverged, the wall-clock limit with status timeout; the
 * search's time limit (time_limit_s, step_limit) ends it with status ok and time_limited, scored where it stopped; the
 * network then goes back to the last parameters whose loss was finite, and
 * everything below is still filled in from there.
 *
 * ----------------------------------------------------------- one step
 *
 * Stages run in order; a step is one optimizer step (an L-BFGS step is one
 * outer iteration, line search included). Before the pass of global step s:
 *   - resampling (s > 0, s % resample_every == 0): every sampled set is
 *     redrawn with the next seed of its stream;
 *   - RAD (s > 0, s % every == 0): a pool of PF_TRAIN_POOL_FACTOR x interior
 *     uniform points is drawn, |r| computed there, and the interior set
 *     replaced by `interior` pool points drawn without replacement with
 *     probability ~ |r|^k / mean |r|^k + c (Efraimidis-Spirakis keys);
 *   - RAR-D (same test): `add` points drawn that way are appended, up to
 *     `cap` interior points (the graph is rebuilt with the new size);
 *   - lr annealing (s > 0, s % annealing.every == 0): one extra pass per
 *     term gives max |grad L_pde| and mean |grad L_t|, and
 *     w_t <- alpha w_t + (1 - alpha) max |grad L_pde| / mean |grad L_t|.
 * Then the pass (all losses and gradients with the current weights), the
 * finite/divergence checks, and the optimizer on the network with the
 * stage's schedule: Adam/AdamW or SGD (clipped to grad_clip), or MultiAdam
 * (train/multiadam.h), whose pass is one forward and two backward passes,
 * one per group of terms (group 1: the PDE residual's losses at their
 * weights, the others at 0; group 2 the reverse), each group's gradient
 * feeding its own moments; the checks, region optimization and the
 * self-adaptive ascent see the sum of the two. With self-adaptive
 * weighting, an Adam ASCENT step of rate sa_lr on the point weights
 * (clamped at >= 0) follows every such step. Causal weights are recomputed after every pass
 * from its chunk losses: chunk i gets exp(-epsilon sum_{j<i} L_j), used by
 * the next pass (one step of lag; the weights carry no gradient).
 *
 * L-BFGS minimises a fixed objective, so in L-BFGS stages the weights
 * (annealing, causal, self-adaptive ascent from the last gradient) are
 * refreshed every PF_TRAIN_LBFGS_REFRESH steps, points change on their own
 * schedule, and any such change restarts the L-BFGS history. An L-BFGS
 * stage that converges or stalls ends early; its unused steps are recorded.
 *
 * Residual normalisation "initial" divides each term's weight by the term's
 * value at step 0.
 *
 * Region optimization (tc->region, RoPINN; config.h): before the pass of
 * every gradient step (adam, adamw, sgd, multiadam: every stage but
 * L-BFGS; "Adam" below), after the point updates and before lr annealing's
 * passes, the interior points that step sees are the set's own moved by
 * U[0, r)^d (train/region.h), uploaded once; the step's raw network
 * gradient (before clipping) goes into the ring on the backend inside the
 * recorded step, and sigma is read back with the gradient norm, for the
 * next step's radius. The ring and sigma carry over from one Adam stage to
 * the next; after each Adam stage the set's own points are uploaded again,
 * so L-BFGS stages, the final passes, the evidence and the physics check
 * never see moved points, and the recorded interior points
 * (x_interior) are the set's own.
 *
 * -------------------------------------------------------- what it records
 *
 * Every log_every steps (and at the last step): the total weighted loss,
 * each term's unweighted value and weight, and the interior point count;
 * every eval_every steps (and at the end): the MSE on the PDE's evaluation
 * points. At the end: the per-term first and last values and gradient
 * norms ||grad_theta L_t||_2, residual statistics and hotspot boxes on
 * PF_TRAIN_EVIDENCE_POINTS fixed uniform points, stagnation length, the
 * predictions at the evaluation points and all parameters. The time spent
 * in steps and outside them (sampling, probes, evaluation) is split.
 *
 * Threads: between steps, every PF_TRAIN_REGRANT_S of wall time, the
 * trainer calls pf_threads_regrant() (tensor/threads.h): a process whose
 * count is auto under make's jobserver then grows into the job slots that
 * have come free and gives back those make wants, from the next step on;
 * any other count stays as it is. The result records the count at the start
 * and the counts the steps ran with (threads, threads_max, threads_mean).
 *
 * Everything is a pure function of (pde, configs, seed) on a given backend
 * (on the CPU: with any thread count, changing or not). The gradient steps (adam, adamw,
 * sgd, multiadam) are recorded once and replayed where the backend records
 * (backend.h, capture; on by default, the numbers are the same as op by op,
 * see no_capture).
 */
#ifndef PF_TRAIN_TRAINER_H
#define PF_TRAIN_TRAINER_H

#include <stdbool.h>
#include <stdint.h>

#include "geom/pde.h"
#include "nn/model.h"
#include "tensor/backend.h"
#include "train/config.h"
#include "train/evidence.h"

#define PF_TRAIN_DIVERGED_FACTOR 1e8  /* default diverge_factor */
#define PF_TRAIN_POOL_FACTOR 4        /* RAD / RAR-D pool: this many x the interior points */
#define PF_TRAIN_LBFGS_REFRESH 25     /* L-BFGS stages: steps between weight refreshes */
#define PF_TRAIN_EVIDENCE_POINTS 4096 /* uniform points of the residual evidence */
#define PF_TRAIN_MAX_HOTSPOTS 5       /* hotspot boxes kept */
#define PF_TRAIN_HOTSPOT_CELLS 256    /* cells the domain is cut into for them */

#define PF_TRAIN_CHECK_POINTS_MAX 131072
#define PF_TRAIN_REGRANT_S 0.5        /* seconds between pf_threads_regrant calls (above) */

/* How a training ended (a result, not a failure of pf_train_run). */
typedef enum pf_train_status {
    PF_TRAIN_OK = 0,    /* none of the below (L-BFGS stages may have ended early) */
    PF_TRAIN_NAN,       /* a loss or the gradient became NaN or Inf */
    PF_TRAIN_DIVERGED,  /* the loss passed diverge_factor times its start */
    PF_TRAIN_TIMEOUT,   /* timeout_s ran out */
} pf_train_status;

/* "ok", "nan", "diverged", "timeout". */
const char *pf_train_status_name(pf_train_status s);

/* ----------------------------------------------------------- progress
 *
 * The trainer prints nothing (core/log.h: the library's only voice is the
 * log sink). A caller that shows progress sets pf_train_options.on_progress;
 * the trainer then calls it
 *   - after every optimizer step, except a step that ends the run with
 *     NaN or divergence, and
 *   - once more at the end, with `last` set, after the final pass and the
 *     evidence (only when pf_train_run returns PF_OK).
 * So `step` grows by one from event to event up to the last one, whose
 * step is the steps performed (r->steps: the budget unless the run stopped
 * early) and may equal the step of the event before it.
 *
 * The callback decides what to show and how often: the trainer does not
 * throttle. pf-train draws a bar at most every 0.2 s on a terminal, else a
 * line every N steps:
 *
 *     static void show(const pf_train_progress *e, void *user)
 *     {
 *         if (e->last || e->step % 100 == 0)
 *             fprintf(stderr, "step %ld/%ld loss %.4e\n", e->step, e->total_steps, e->loss);
 *     }
 *     ...
 *     o.on_progress = show;
 *     o.progress_user = NULL;
 *
 * Cost and timing: an event costs one clock read and the call. It runs on
 * the calling thread between steps, outside the time counted as step time
 * (r->step_s), and nothing it sees feeds back into the arithmetic: a run
 * gives the same numbers with or without a callback.
 * Keep it cheap all the same (a comparison, and now and then a print): it
 * runs thousands of times per run. With on_progress NULL (the default) the
 * trainer reads no clock for it.
 *
 * The event lives only during the call; copy what you keep. The callback
 * must not call back into the trainer.
 */
typedef struct pf_train_progress {
    long step;            /* optimizer steps done so far (1, 2, ...) */
    long total_steps;     /* steps planned: the sum of the stages' steps (r->budget) */
    double loss;          /* the weighted total loss of the last pass: before this
                             step's update for Adam, at the accepted point for
                             L-BFGS; at the last event r->loss_last */
    double elapsed_s;     /* wall-clock seconds since pf_train_run began (setup,
                             probes and evaluation included) */
    double steps_per_s;   /* step / elapsed_s (0 while elapsed_s is 0): the run's
                             pace so far, not the evidence's steps per second
                             (which counts step time only) */
    int stage;            /* the stage the step belongs to, 0-based index into
                             tc->stages (at the last event: the stage the run
                             ended in) */
    pf_optimizer_kind optimizer; /* that stage's optimizer */
    bool last;            /* the final event (see above) */
} pf_train_progress;

/* The progress callback: e as above, user as given in progress_user. */
typedef void (*pf_train_progress_fn)(const pf_train_progress *e, void *user);

typedef struct pf_train_options {
    uint64_t seed;
    double timeout_s;     /* wall-clock limit, 0 = none: a failure (status timeout) */
    double time_limit_s;  /* a search's time budget for this training (search/time_budget.h),
                             0 = none: the steps stop once this many seconds have passed
                             since the start and the training is scored as it stands
                             (status ok, time_limited) */
    long step_limit;      /* the same at a number of steps, 0 = none: a replay of a
                             budgeted run stops where the original stopped */
    double diverge_factor;/* loss / starting loss that counts as divergence
                             (PF_TRAIN_DIVERGED_FACTOR; INFINITY: never) */
    pf_train_progress_fn on_progress; /* progress events (NULL: none; see above) */
    void *progress_user;  /* passed to on_progress as it is */
    const pf_backend *backend; /* where to train (NULL: the CPU; see tensor/device.h) */
    bool no_capture;      /* run every gradient step op by op instead of replaying a
                             recorded one (the results are the same) */
    bool heldout;         /* EVAL=heldout: y is the MSE on the selection half of
                             the evaluation set, y_report on the report half
                             (pf_reference_split); else y covers every point */
    bool physics_check;   /* after training, the checks on fresh points below */
} pf_train_options;

/* Seed 0, no time limit, PF_TRAIN_DIVERGED_FACTOR, no progress callback,
 * the CPU, recorded steps where the backend records. */
pf_train_options pf_train_options_default(void);

/* One loss term: the PDE residual (term 0), then each constraint. */
typedef struct pf_train_term {
    const char *name;     /* "pde", or the constraint's name */
    bool hard;            /* satisfied exactly by the hard transform (weight 0) */
    double weight;        /* final weight */
    double loss_first, loss_last;     /* unweighted, at step 0 and at the end */
    double grad_first, grad_last;     /* ||grad_theta L_t||_2 at step 0 and at the end */
} pf_train_term;

/* What became of one stage of tc->stages. */
typedef struct pf_train_stage_log {
    pf_optimizer_kind optimizer;
    long planned, done;   /* steps in the config, steps performed */
    long iterations;      /* lbfgs: iterations that moved the parameters
                             (up to max_iter per step); 0 otherwise     */
    long evaluations;     /* lbfgs: loss and gradient evaluations; 0 otherwise */
    const char *outcome;  /* "completed", or L-BFGS's "converged" / "stalled" / ...;
                             a stage cut short by the run's end: its status name
                             ("nan", "timeout", ...), or "not reached" */
} pf_train_stage_log;

/* One parameter of the graph after training, on the host (owned by the
 * result). */
typedef struct pf_train_param {
    char name[64];        /* as the model registered it ("h1.W", ...) */
    int rows, cols;       /* data is rows x cols, row-major */
    bool trainable;       /* false: frozen (fourier.B unless fourier_trainable) */
    pf_real *data;
} pf_train_param;

/* A caller's prediction of a training's time (search/train_order.h: the
 * cost model, seconds/step = c * work + overhead_s, fitted to `trainings`
 * finished trainings), kept for the evidence; total_s 0: none. */
typedef struct pf_train_prediction {
    double work;          /* parameters * points * derivative streams */
    double step_s, total_s; /* seconds per step, and for the planned steps */
    double c, overhead_s;
    int trainings;
} pf_train_prediction;

/* Everything a training gives back. Arrays are owned by the result and
 * freed by pf_train_result_release(). */

typedef struct pf_train_result {
    pf_train_status status;
    char detail[320];            /* one sentence: how the run ended */
    long budget, steps;          /* planned and performed optimizer steps */
    double wall_s, step_s, other_s; /* total, inside steps, outside (sampling, probes, eval) */
    bool time_limited;           /* stopped by time_limit_s or step_limit at `steps` */
    double time_limit_s;         /* the time limit applied (options' time_limit_s; 0 none) */
    pf_train_prediction predicted; /* the caller's prediction, kept for the evidence */
    double cpu_s;                /* CPU seconds of the process (every thread) over wall_s */
    double started_unix;         /* when pf_train_run began: seconds since the epoch
                                    (CLOCK_REALTIME), so that trainings run by different
                                    processes can be laid on one time line */
    int threads;                 /* CPU threads at the start (pf_threads_count) */
    int threads_max;             /* the most any step ran with (threads when no step ran) */
    double threads_mean;         /* the steps' counts averaged over the steps (threads
                                    when no step ran): above threads when it grew */
    const char *backend;         /* "cpu", "cuda" */
    pf_device_info device;       /* where it trained */
    size_t nparams;              /* trainable network scalars */
    int n_interior, n_initial, n_boundary, n_observed;

    int nterms;
    pf_train_term term[PF_TRAIN_MAX_TERMS];
    double loss_first, loss_last;  /* total weighted loss */
    long stagnation;             /* pf_stagnation_steps of the total loss, tol 1% */
    double causal_min;           /* causal weighting: the smallest chunk weight at
                                    the end (1 = every time chunk trained), else NaN */
    double region_sigma;         /* region optimization: the last gradient-noise level
                                    sigma and the radius of the last Adam step (NaN
                                    when off; not written to the run's files) */
    double region_radius;
    int nstages;
    pf_train_stage_log stage[PF_TRAIN_MAX_STAGES];

    /* curves */
    int nlog;
    long *log_step;
    double *log_total;           /* nlog */
    double *log_term;            /* nlog x nterms, unweighted */
    double *log_weight;          /* nlog x nterms */
    int *log_interior;           /* nlog */
    int neval;
    long *eval_step;
    double *eval_mse;

    /* y */
    bool has_y;
    double y;
    char y_missing[320];         /* why there is no y */
    bool has_y_report;           /* heldout: the MSE on the report half */
    double y_report;

    /* physics_check: on fresh points no training drew, after the run: the
     * PDE residual (the root of the sum over equations of the squared
     * residuals) at check_points uniform interior points, twice the
     * evaluation set's size (at least PF_TRAIN_EVIDENCE_POINTS, at most
     * PF_TRAIN_CHECK_POINTS_MAX), seed derived from the run's seed; and each
     * term's unweighted loss on a fresh draw of every training set (the
     * constraints' mean squared errors, term k of term[]) */
    bool has_check;
    int check_points;
    double check_rms, check_max;
    double check_term[PF_TRAIN_MAX_TERMS];

    /* evidence on the fixed residual points */
    pf_stats residual;
    int nhot;
    pf_hotspot hot[PF_TRAIN_MAX_HOTSPOTS];

    /* predictions at the evaluation points (n_eval = 0 without a reference) */
    int n_eval, d_in, d_out;
    pf_real *x_eval, *u_eval, *u_ref;
    /* the final interior points */
    pf_real *x_interior;
    /* the parameters (network, then self-adaptive weights) */
    int nparam;
    pf_train_param *param;
} pf_train_result;

/* Train; see above. On PF_OK *r is filled (release it); otherwise *r is
 * empty and pf_errmsg() says why the candidate could not be set up. */
pf_status pf_train_run(const pf_pde *p, const pf_model_config *mc, const pf_train_config *tc,
                       const pf_train_options *o, pf_train_result *r);

/* Step 0 alone, written to `path` for a parity check against another
 * implementation (train/step0.h; pf-train --step0): the set-up of
 * pf_train_run (points, parameters, weights, residual normalisation), then
 * step 0's pass with the weights that step uses, and the file. It trains
 * nothing and reads no reference. The gradient written is that of the
 * weighted total loss (for MultiAdam the sum of its two groups'). spec: the
 * canonical spec JSON to record, or NULL. A spec with region optimization
 * is refused (PF_ERR_INVALID): its step 0 sees moved points. */
pf_status pf_train_step0(const pf_pde *p, const pf_model_config *mc, const pf_train_config *tc,
                         const pf_train_options *o, const char *spec, const char *path);

/* Free what *r owns and zero it (safe on a zeroed result). */
void pf_train_result_release(pf_train_result *r);

#endif
