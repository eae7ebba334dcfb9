/* trainer.c — the training loop and its evidence (trainer.h). */
#include "train/trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mem.h"
#include "core/rng.h"
#include "tensor/threads.h"
#include "train/adam.h"
#include "train/graph_objective.h"
#include "train/lbfgs.h"
#include "train/multiadam.h"
#include "train/region.h"
#include "train/schedule.h"
#include "train/sgd.h"
#include "train/step0.h"
#include "train/train_graph.h"

const char *pf_train_status_name(pf_train_status s)
{
    static const char *const n[] = {"ok", "nan", "diverged", "timeout"};
    return (unsigned)s < 4 ? n[s] : "?";
}

pf_train_options pf_train_options_default(void)
{
    return (pf_train_options){.seed = 0, .timeout_s = 0, .diverge_factor = PF_TRAIN_DIVERGED_FACTOR};
}

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double now(void) { return clock_s(CLOCK_MONOTONIC); }

/* Everything the loop carries between steps. */
typedef struct run {
    pf_train_graph *t;
    const pf_train_config *tc;
    const pf_train_options *o;
    pf_train_result *r;
    pf_reference ref;
    bool has_ref;
    unsigned char *report;              /* heldout: 1 marks a report point (NULL: none) */
    double base[PF_TRAIN_MAX_TERMS];    /* fixed / annealed weights */
    double norm[PF_TRAIN_MAX_TERMS];    /* residual normalisation factors */
    double causal[PF_TRAIN_MAX_CHUNKS]; /* causal chunk weights */
    double term_val[PF_TRAIN_MAX_TERMS];
    double total;                       /* weighted loss of the last pass */
    const pf_backend *be;               /* where the graphs and the optimizer state live */
    pf_real *good;                      /* last parameters with a finite loss (backend) */
    pf_real *cand;                      /* a recorded step's parameters before it (backend) */
    double *gnorm;                      /* a step's gradient norm (backend) */
    pf_real *host_grad;                 /* [nmodel] the gradient on the host (statistics) */
    pf_adam *sa;                        /* ascent on the self-adaptive weights */
    size_t sa_n;
    pf_region *region;                  /* region optimization, NULL when off */
    pf_real *grp[2];                    /* multiadam: the groups' gradients (backend, grp_n each) */
    size_t grp_n;                       /* the flat parameter count they were made for */
    pf_real wgrp[2][PF_TRAIN_MAX_LOSSES]; /* multiadam: the groups' loss weights */
    long step, total_steps;
    double t0, t_steps;
    int threads;                        /* the count the next step runs with */
    double thread_steps;                /* the sum over steps of their counts */
    double t_regrant;                   /* when the count was last regranted */
    int log_cap, eval_cap;
    int pool_draws;
    int stage;                          /* the stage running (progress events) */
    bool stop;
} run;

/* ------------------------------------------------------------- weights */

static void set_weights(run *R)
{
    pf_train_graph *t = R->t;
    for (int l = 0; l < t->nloss; l++) {
        int k = t->loss_term[l];
        double w = t->term_hard[k] ? 0 : R->base[k] * R->norm[k];
        if (t->loss_chunk[l] >= 0) w *= R->causal[t->loss_chunk[l]] / t->nchunks;
        t->w[l] = (pf_real)w;
    }
}

/* Per-term unweighted values and the weighted total of the last pass. */
static void read_losses(run *R)
{
    pf_train_graph *t = R->t;
    for (int k = 0; k < t->nterms; k++) R->term_val[k] = 0;
    R->total = 0;
    for (int l = 0; l < t->nloss; l++) {
        double v = pf_graph_loss_value(t->g, l);
        R->term_val[t->loss_term[l]] += t->loss_chunk[l] >= 0 ? v / t->nchunks : v;
        R->total += (double)t->w[l] * v;
    }
}

/* Causal weights from the chunk losses of the last pass. */
static void update_causal(run *R)
{
    pf_train_graph *t = R->t;
    if (!R->tc->loss.causal) return;
    double chunk[PF_TRAIN_MAX_CHUNKS] = {0};
    for (int l = 0; l < t->nloss; l++)
        if (t->loss_chunk[l] >= 0) chunk[t->loss_chunk[l]] += pf_graph_loss_value(t->g, l);
    double acc = 0;
    for (int i = 0; i < t->nchunks; i++) {
        R->causal[i] = exp(-R->tc->loss.causal_epsilon * acc);
        acc += chunk[i];
    }
}

/* One pass with only term k switched on: its gradient statistics over the
 * network's parameters. */
static void term_grad(run *R, int k, double *gmax, double *gmean, double *gnorm)
{
    pf_train_graph *t = R->t;
    pf_real w[PF_TRAIN_MAX_LOSSES];
    for (int l = 0; l < t->nloss; l++)
        w[l] = t->loss_term[l] != k ? 0
               : t->loss_chunk[l] >= 0 ? (pf_real)(R->causal[t->loss_chunk[l]] / t->nchunks)
                                       : 1;
    pf_graph_forward_backward(t->g, w);
    R->be->download(R->host_grad, pf_graph_grads(t->g), sizeof(pf_real) * t->nmodel);
    const pf_real *g = R->host_grad;
    double mx = 0, sa = 0, s2 = 0;
    for (size_t i = 0; i < t->nmodel; i++) {
        double a = fabs((double)g[i]);
        mx = a > mx ? a : mx;
        sa += a;
        s2 += a * a;
    }
    *gmax = mx;
    *gmean = sa / (double)t->nmodel;
    *gnorm = sqrt(s2);
}

static void anneal(run *R)
{
    pf_train_graph *t = R->t;
    double gmax, gmean, gnorm, pmax;
    term_grad(R, 0, &pmax, &gmean, &gnorm);
    double a = R->tc->loss.annealing_alpha;
    for (int k = 1; k < t->nterms; k++) {
        if (t->term_hard[k] || R->base[k] == 0 || t->term_set[k] < 0) continue;
        term_grad(R, k, &gmax, &gmean, &gnorm);
        if (gmean > 0 && isfinite(pmax / gmean)) R->base[k] = a * R->base[k] + (1 - a) * pmax / gmean;
    }
}

/* ------------------------------------------------------------- records */

/* Make room for `cap` records of `each` bytes in *p. */
static pf_status resize(void *p, int cap, size_t each)
{
    void *q = realloc(*(void **)p, (size_t)cap * each);
    if (!q) return pf_fail(PF_ERR_NOMEM, "out of memory for the training records");
    *(void **)p = q;
    return PF_OK;
}

static pf_status record_log(run *R)
{
    pf_train_result *r = R->r;
    pf_train_graph *t = R->t;
    int n = r->nlog, T = t->nterms;
    if (n && r->log_step[n - 1] == R->step) return PF_OK; /* recorded already */
    if (n == R->log_cap) {
        int c = n ? 2 * n : 64;
        PF_TRY(resize(&r->log_step, c, sizeof *r->log_step));
        PF_TRY(resize(&r->log_total, c, sizeof *r->log_total));
        PF_TRY(resize(&r->log_interior, c, sizeof *r->log_interior));
        PF_TRY(resize(&r->log_term, c, sizeof *r->log_term * T));
        PF_TRY(resize(&r->log_weight, c, sizeof *r->log_weight * T));
        R->log_cap = c;
    }
    r->log_step[n] = R->step;
    r->log_total[n] = R->total;
    r->log_interior[n] = pf_train_graph_interior(t);
    for (int k = 0; k < T; k++) {
        r->log_term[n * T + k] = R->term_val[k];
        r->log_weight[n * T + k] = t->term_hard[k] ? 0 : R->base[k] * R->norm[k];
    }
    r->nlog++;
    return PF_OK;
}

/* MSE over the selection points (every point without a split) and, with a
 * split, over the report points into *rep (probes synced; rep may be NULL). */
static pf_status eval_mse(run *R, pf_real *u, double *mse, double *rep)
{
    PF_TRY(pf_train_graph_values(R->t, R->ref.x, R->ref.n, u));
    double s[2] = {0, 0};
    size_t c[2] = {0, 0}, d = (size_t)R->ref.d_out;
    for (size_t i = 0; i < (size_t)R->ref.n; i++) {
        int set = R->report ? R->report[i] : 0;
        for (size_t j = 0; j < d; j++) {
            double e = (double)u[i * d + j] - (double)R->ref.u[i * d + j];
            s[set] += e * e;
        }
        c[set] += d;
    }
    *mse = s[0] / (double)c[0];
    if (rep) *rep = c[1] ? s[1] / (double)c[1] : NAN;
    return PF_OK;
}

static pf_status record_eval(run *R)
{
    if (!R->has_ref) return PF_OK;
    pf_train_result *r = R->r;
    int n = r->neval;
    if (n && r->eval_step[n - 1] == R->step) return PF_OK;
    if (n == R->eval_cap) {
        int c = n ? 2 * n : 64;
        PF_TRY(resize(&r->eval_step, c, sizeof *r->eval_step));
        PF_TRY(resize(&r->eval_mse, c, sizeof *r->eval_mse));
        R->eval_cap = c;
    }
    pf_train_graph_sync_probes(R->t);
    PF_TRY(eval_mse(R, r->u_eval, &r->eval_mse[n], NULL));
    r->eval_step[n] = R->step;
    r->neval++;
    return PF_OK;
}

/* ------------------------------------------------------------- sampling */

typedef struct keyed {
    double key;
    int i;
} keyed;

static int by_key_desc(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? 1 : -1;
    return x->i - y->i;
}

/* Draw m points out of a fresh uniform pool, without replacement, with
 * probability ~ |r|^k / mean |r|^k + c, into out (m x d_in). */
static pf_status draw_by_residual(run *R, int pool_n, int m, pf_real *out)
{
    pf_train_graph *t = R->t;
    const pf_adaptive_config *ac = &R->tc->sampling.adaptive;
    char tag[64];
    snprintf(tag, sizeof tag, "train.pool.%d", R->pool_draws++);
    uint64_t seed = pf_rng_derive(R->o->seed, tag);
    pf_point_set pool = {0};
    PF_TRY(pf_sample_interior(t->geom, PF_SAMPLE_UNIFORM, pool_n, seed, &pool));
    double *res = malloc(sizeof(double) * (size_t)pool.n);
    keyed *key = malloc(sizeof(keyed) * (size_t)pool.n);
    pf_rng *rng = pf_rng_alloc(pf_rng_derive(seed, "keys"));
    pf_status st = !res || !key || !rng ? pf_fail(PF_ERR_NOMEM, "out of memory for a pool of %d", pool.n) : PF_OK;
    if (st == PF_OK) {
        pf_train_graph_sync_probes(t);
        st = pf_train_graph_residual(t, pool.x, pool.n, res);
    }
    if (st == PF_OK) {
        double mean = 0;
        for (int i = 0; i < pool.n; i++) {
            res[i] = isfinite(res[i]) ? pow(res[i], ac->k) : 0;
            mean += res[i] / pool.n;
        }
        for (int i = 0; i < pool.n; i++) {
            double p = (mean > 0 ? res[i] / mean : 0) + ac->c;
            double u = pf_rng_uniform(rng);
            key[i].key = p > 0 ? log(u > 0 ? u : 1e-300) / p : -INFINITY;
            key[i].i = i;
        }
        qsort(key, (size_t)pool.n, sizeof *key, by_key_desc);
        int d = t->pde->d_in;
        for (int j = 0; j < m; j++) memcpy(out + (size_t)j * d, pool.x + (size_t)key[j].i * d, sizeof(pf_real) * d);
    }
    pf_rng_free(rng);
    free(key);
    free(res);
    pf_point_set_release(&pool);
    return st;
}

/* Point updates scheduled before the pass of step s; *changed says if the
 * objective changed. */
static pf_status update_points(run *R, bool *changed)
{
    const pf_sampling_config *sc = &R->tc->sampling;
    pf_train_graph *t = R->t;
    long s = R->step;
    if (s == 0) return PF_OK;
    if (sc->resample_every > 0 && s % sc->resample_every == 0) {
        PF_TRY(pf_train_graph_resample(t));
        *changed = true;
    }
    const pf_adaptive_config *ac = &sc->adaptive;
    if (ac->method == PF_ADAPTIVE_NONE || s % ac->every) return PF_OK;
    int n = pf_train_graph_interior(t);
    if (ac->method == PF_ADAPTIVE_RAD) {
        pf_real *x = malloc(sizeof(pf_real) * (size_t)n * t->pde->d_in);
        if (!x) return pf_fail(PF_ERR_NOMEM, "out of memory");
        pf_status st = draw_by_residual(R, PF_TRAIN_POOL_FACTOR * n, n, x);
        if (st == PF_OK) st = pf_train_graph_set_interior(t, x);
        free(x);
        *changed = true;
        return st;
    }
    int add = ac->cap - n < ac->add ? ac->cap - n : ac->add;
    if (add <= 0) return PF_OK;
    pf_real *x = malloc(sizeof(pf_real) * (size_t)add * t->pde->d_in);
    if (!x) return pf_fail(PF_ERR_NOMEM, "out of memory");
    int pool = PF_TRAIN_POOL_FACTOR * (n > add ? n : add);
    pf_status st = draw_by_residual(R, pool, add, x);
    if (st == PF_OK) st = pf_train_graph_add_interior(t, x, add);
    free(x);
    *changed = true;
    return st;
}

/* ------------------------------------------------------------- the pass */

/* The loss check after a pass: false (and the status set) on NaN/Inf or
 * divergence. */
static bool healthy(run *R)
{
    pf_train_result *r = R->r;
    if (!isfinite(R->total)) {
        const char *which = "the total";
        for (int k = 0; k < R->t->nterms; k++)
            if (!isfinite(R->term_val[k])) {
                which = R->t->term_name[k];
                break;
            }
        r->status = PF_TRAIN_NAN;
        snprintf(r->detail, sizeof r->detail, "the loss (%s term) became non-finite at step %ld", which, R->step);
        return false;
    }
    if (R->total > R->o->diverge_factor * r->loss_first && R->total > 1) {
        r->status = PF_TRAIN_DIVERGED;
        snprintf(r->detail, sizeof r->detail, "the loss diverged at step %ld: %.3g, %.3g times its start",
                 R->step, R->total, R->total / r->loss_first);
        return false;
    }
    return true;
}

/* The ascent optimizer of the self-adaptive weights, sized to the graph
 * (RAR-D rebuilds restart its state); false without self-adaptive weights. */
static bool sa_ready(run *R)
{
    pf_train_graph *t = R->t;
    if (!R->sa) return false;
    size_t n = pf_graph_nparams(t->g) - t->nmodel;
    if (n != R->sa_n) {
        pf_adam_free(R->sa);
        pf_adam_config ac = pf_adam_config_default();
        R->sa = pf_adam_alloc_on(R->be, n, &ac);
        R->sa_n = n;
        if (!R->sa) return false;
        pf_adam_set_ascent(R->sa, true);
    }
    return true;
}

/* The queued half of the ascent: Adam climbing the gradient in the graph,
 * then the weights clamped at >= 0. */
static void sa_apply(run *R)
{
    pf_train_graph *t = R->t;
    pf_real *p = pf_graph_params(t->g) + t->nmodel;
    pf_adam_apply(R->sa, p, pf_graph_grads(t->g) + t->nmodel);
    R->be->clamp_min(p, R->sa_n, 0);
}

/* Adam ascent on the self-adaptive weights from the gradient in the graph. */
static void sa_ascent(run *R)
{
    if (!sa_ready(R)) return;
    pf_adam_prepare(R->sa, R->tc->loss.sa_lr);
    sa_apply(R);
}

/* A progress event to the caller's callback (trainer.h, progress). */
static void progress(run *R, bool last)
{
    const pf_train_options *o = R->o;
    if (!o->on_progress) return;
    double el = now() - R->t0;
    pf_train_progress e = {.step = R->step,
                           .total_steps = R->total_steps,
                           .loss = R->total,
                           .elapsed_s = el,
                           .steps_per_s = el > 0 ? R->step / el : 0,
                           .stage = R->stage,
                           .optimizer = R->tc->stages[R->stage].optimizer,
                           .last = last};
    o->on_progress(&e, o->progress_user);
}

/* One pass (losses + gradients) with the current weights; records. */
static pf_status pass(run *R, bool *ok)
{
    pf_train_graph *t = R->t;
    set_weights(R);
    pf_graph_forward_backward(t->g, t->w);
    read_losses(R);
    *ok = healthy(R);
    return PF_OK;
}

static pf_status after_pass(run *R)
{
    const pf_train_config *tc = R->tc;
    if (R->step % tc->log_every == 0) PF_TRY(record_log(R));
    if (R->step % tc->eval_every == 0) PF_TRY(record_eval(R));
    return PF_OK;
}

static bool out_of_time(run *R)
{
    if (R->o->timeout_s > 0 && now() - R->t0 > R->o->timeout_s) {
        R->r->status = PF_TRAIN_TIMEOUT;
        snprintf(R->r->detail, sizeof R->r->detail, "the %.0f s time limit ran out at step %ld",
                 R->o->timeout_s, R->step);
        return true;
    }
    /* a search's time budget (or the step it stopped at before, on a
     * replay): the training ends here and is scored as it stands */
    if ((R->o->time_limit_s > 0 && now() - R->t0 >= R->o->time_limit_s) ||
        (R->o->step_limit > 0 && R->step >= R->o->step_limit)) {
        R->r->time_limited = true;
        return true;
    }
    return false;
}

/* A step is done: count its threads; every PF_TRAIN_REGRANT_S, the count
 * for the next steps (trainer.h, "Threads"). Not step time. */
static void step_threads(run *R)
{
    R->thread_steps += R->threads;
    if (R->threads > R->r->threads_max) R->r->threads_max = R->threads;
    double t = now();
    if (t - R->t_regrant < PF_TRAIN_REGRANT_S) return;
    R->threads = pf_threads_regrant();
    R->t_regrant = t;
}

/* ------------------------------------------------------ gradient stages */

/* The optimizer of a gradient stage (adam, adamw, sgd, multiadam), in two
 * halves like pf_adam: prepare (host: the step's coefficients to the
 * backend) and apply (queued, recordable). */
typedef struct grad_opt {
    pf_optimizer_kind kind;
    pf_adam *adam;       /* adam, adamw */
    pf_sgd *sgd;         /* sgd */
    pf_multiadam *multi; /* multiadam */
    bool groups;         /* multiadam over two groups (two backward passes a step) */
} grad_opt;

/* MultiAdam's loss weights: wgrp[0] keeps the losses of the PDE residual
 * (term 0) at their weights in t->w and zeroes the others, wgrp[1] the
 * reverse (train/multiadam.h). */
static void group_weights(run *R)
{
    pf_train_graph *t = R->t;
    for (int l = 0; l < t->nloss; l++) {
        bool pde = t->loss_term[l] == 0;
        R->wgrp[0][l] = pde ? t->w[l] : 0;
        R->wgrp[1][l] = pde ? 0 : t->w[l];
    }
}

/* Whether both groups hold a loss of nonzero weight now. A weight that is
 * 0 stays 0 (hard terms, zero base weights): causal, annealing and
 * normalisation factors are positive. */
static bool two_groups(run *R)
{
    set_weights(R);
    group_weights(R);
    bool any[2] = {false, false};
    for (int l = 0; l < R->t->nloss; l++) {
        any[0] |= R->wgrp[0][l] != 0;
        any[1] |= R->wgrp[1][l] != 0;
    }
    return any[0] && any[1];
}

/* The groups' gradient buffers, sized to the graph's flat count (RAR-D
 * rebuilds change it with self-adaptive weights); *remade when they were
 * (re)allocated. */
static pf_status group_buffers(run *R, bool *remade)
{
    size_t n = pf_graph_nparams(R->t->g);
    *remade = false;
    if (R->grp_n == n) return PF_OK;
    for (int k = 0; k < 2; k++) {
        if (R->grp[k]) R->be->free(R->grp[k]);
        void *p = NULL;
        R->grp[k] = NULL;
        PF_TRY(R->be->alloc(sizeof(pf_real) * n, &p));
        R->grp[k] = p;
    }
    R->grp_n = n;
    *remade = true;
    return PF_OK;
}

static pf_status grad_opt_alloc(run *R, const pf_stage_config *sg, grad_opt *o)
{
    size_t n = R->t->nmodel;
    *o = (grad_opt){.kind = sg->optimizer};
    switch (sg->optimizer) {
    case PF_OPT_ADAM:
    case PF_OPT_ADAMW: o->adam = pf_adam_alloc_on(R->be, n, &sg->adam); break;
    case PF_OPT_SGD: o->sgd = pf_sgd_alloc_on(R->be, n); break;
    case PF_OPT_MULTIADAM:
        o->groups = two_groups(R);
        o->multi = pf_multiadam_alloc_on(R->be, n, o->groups ? 2 : 1, &sg->adam);
        break;
    case PF_OPT_LBFGS:
    case PF_OPT_COUNT: PF_ABORT("not a gradient stage: %d", (int)sg->optimizer);
    }
    if (!o->adam && !o->sgd && !o->multi) return PF_ERR_INVALID;
    bool remade;
    return o->groups ? group_buffers(R, &remade) : PF_OK;
}

static void grad_opt_free(grad_opt *o)
{
    pf_adam_free(o->adam);
    pf_sgd_free(o->sgd);
    pf_multiadam_free(o->multi);
}

static void grad_opt_prepare(grad_opt *o, double lr)
{
    if (o->adam) pf_adam_prepare(o->adam, lr);
    if (o->sgd) pf_sgd_prepare(o->sgd, lr);
    if (o->multi) pf_multiadam_prepare(o->multi, lr);
}

/* The update of the network's parameters from the gradient in the graph
 * (the groups' buffers for two-group MultiAdam). Queued only. */
static void grad_opt_apply(run *R, grad_opt *o)
{
    pf_train_graph *t = R->t;
    pf_real *p = pf_graph_params(t->g);
    const pf_real *g = pf_graph_grads(t->g);
    if (o->adam) pf_adam_apply(o->adam, p, g);
    if (o->sgd) pf_sgd_apply(o->sgd, p, g);
    if (o->multi) {
        const pf_real *gg[2] = {o->groups ? R->grp[0] : g, R->grp[1]};
        pf_multiadam_apply(o->multi, p, gg);
    }
}

/* With the groups' gradients in grp[0] and grp[1]: the graph's gradient
 * buffer becomes their sum, the whole gradient, which the checks, region
 * optimization and the self-adaptive ascent read. Queued only. */
static void sum_groups(run *R)
{
    pf_graph *g = R->t->g;
    R->be->copy(pf_graph_grads(g), R->grp[1], R->grp_n);
    R->be->axpy(R->grp_n, 1.0, R->grp[0], pf_graph_grads(g));
}

/* A two-group MultiAdam pass op by op: one forward and a backward per
 * group, chunk by chunk (pf_graph_forward_backward_sets), then sum_groups;
 * *ok as pass(). */
static pf_status pass_groups(run *R, bool *ok)
{
    pf_train_graph *t = R->t;
    set_weights(R);
    group_weights(R);
    pf_graph_forward_backward_sets(t->g, 2, (const pf_real *const[]){R->wgrp[0], R->wgrp[1]}, R->grp);
    sum_groups(R);
    read_losses(R);
    *ok = healthy(R);
    return PF_OK;
}

/* A gradient step as the backend records it once and replays: the
 * parameters kept (they become `good` if the pass is healthy), the pass
 * (two-group MultiAdam: the forward and a backward per group, weight sets 1
 * and 2), the clipped norm, the update and the self-adaptive ascent. Only
 * queued work: the host reads the losses and the norm after the replay. */
typedef struct recorded_step {
    run *R;
    grad_opt *opt;
    double clip;
    void *exec;
    int builds;   /* the graph it was recorded on (RAR-D rebuilds it; only a
                   * rebuild changes the self-adaptive weights' count) */
} recorded_step;

static void recorded_body(void *arg)
{
    recorded_step *rs = arg;
    run *R = rs->R;
    pf_train_graph *t = R->t;
    R->be->copy(R->cand, pf_graph_params(t->g), t->nmodel);
    if (rs->opt->groups) {
        pf_graph_pass_set(t->g, 1);
        R->be->copy(R->grp[0], pf_graph_grads(t->g), R->grp_n);
        pf_graph_backward_set(t->g, 2);
        R->be->copy(R->grp[1], pf_graph_grads(t->g), R->grp_n);
        sum_groups(R);
    } else {
        pf_graph_pass(t->g);
    }
    if (R->region) pf_region_push(R->region, pf_graph_grads(t->g));
    R->be->clip_norm(pf_graph_grads(t->g), t->nmodel, rs->clip, R->gnorm);
    grad_opt_apply(R, rs->opt);
    if (R->sa) sa_apply(R);
}

/* Whether this step can be the recorded one: the backend records, the
 * graph is unchunked, and no evaluation is due (it reads the parameters
 * between the pass and the update). */
static bool recordable(const run *R)
{
    return R->be->capture && !R->o->no_capture && pf_graph_nchunks(R->t->g) == 1 &&
           R->step % R->tc->eval_every != 0;
}

/* One recorded gradient step (see recorded_body); *ok as pass(). The
 * gradient norm comes back in *gn. */
static pf_status recorded_step_run(run *R, recorded_step *rs, double lr, bool *ok, double *gn)
{
    pf_train_graph *t = R->t;
    set_weights(R);
    pf_graph_set_loss_weights(t->g, t->w);
    if (rs->opt->groups) {
        group_weights(R);
        pf_graph_set_loss_weight_set(t->g, 1, R->wgrp[0]);
        pf_graph_set_loss_weight_set(t->g, 2, R->wgrp[1]);
    }
    grad_opt_prepare(rs->opt, lr);
    if (sa_ready(R)) pf_adam_prepare(R->sa, R->tc->loss.sa_lr);
    if (rs->exec && rs->builds != t->builds) {
        R->be->drop(rs->exec);
        rs->exec = NULL;
    }
    pf_graph_prepare(t->g); /* the constant nodes of new points: not in the recording */
    if (!rs->exec) {
        PF_TRY(R->be->capture(recorded_body, rs, &rs->exec));
        rs->builds = t->builds;
    }
    PF_TRY(R->be->replay(rs->exec));
    pf_graph_read_losses(t->g);
    read_losses(R);
    *ok = healthy(R);
    R->be->download(gn, R->gnorm, sizeof *gn);
    if (*ok) R->be->copy(R->good, R->cand, t->nmodel);
    return PF_OK;
}

/* Region optimization: this step's interior points, perturbed from the
 * set's own and uploaded (trainer.h; train/region.h). */
static pf_status region_points(run *R)
{
    pf_train_graph *t = R->t;
    const pf_real *y;
    PF_TRY(pf_region_draw(R->region, t->geom, t->set[0].ps.x, pf_train_graph_interior(t), t->pde->d_in, &y));
    return pf_train_graph_upload_interior(t, y);
}

static pf_status grad_stage(run *R, const pf_stage_config *sg, pf_train_stage_log *lg)
{
    pf_train_graph *t = R->t;
    grad_opt opt;
    pf_status st = grad_opt_alloc(R, sg, &opt);
    if (st != PF_OK) {
        grad_opt_free(&opt);
        return st;
    }
    const double clip = sg->grad_clip > 0 ? sg->grad_clip : INFINITY;
    recorded_step rs = {.R = R, .opt = &opt, .clip = clip};
    for (long k = 0; k < sg->steps && !R->stop; k++) {
        bool changed = false, ok;
        st = update_points(R, &changed);
        double rt = 0; /* the moved points are step work: counted as step time */
        if (st == PF_OK && R->region) {
            rt = now();
            st = region_points(R);
            rt = now() - rt;
        }
        if (st == PF_OK && R->tc->loss.weighting == PF_WEIGHTING_LR_ANNEALING && R->step > 0 &&
            R->step % R->tc->loss.annealing_every == 0)
            anneal(R);
        bool remade = false;
        if (st == PF_OK && opt.groups) st = group_buffers(R, &remade);
        if (st != PF_OK) break;
        if (remade && rs.exec) { /* the recording holds the old buffers */
            R->be->drop(rs.exec);
            rs.exec = NULL;
        }
        double b = now() - rt, gn;
        double lr = pf_schedule_lr(&sg->schedule, k, sg->steps);
        bool rec = recordable(R);
        if (rec) {
            st = recorded_step_run(R, &rs, lr, &ok, &gn);
            if (st != PF_OK) break;
        } else {
            if (opt.groups) pass_groups(R, &ok);
            else pass(R, &ok);
            if (R->region) pf_region_push(R->region, pf_graph_grads(t->g));
        }
        if (R->region) pf_region_read(R->region);
        if (!ok) {
            R->stop = true;
            break;
        }
        if (!rec) R->be->copy(R->good, pf_graph_params(t->g), t->nmodel);
        double a = now();
        st = after_pass(R); /* records at step s: the state after s updates */
        b += now() - a;     /* the records are not step time */
        if (st != PF_OK) break;
        update_causal(R);
        if (!rec) {
            R->be->clip_norm(pf_graph_grads(t->g), t->nmodel, clip, R->gnorm);
            R->be->download(&gn, R->gnorm, sizeof gn);
        }
        if (!isfinite(gn)) {
            R->r->status = PF_TRAIN_NAN;
            snprintf(R->r->detail, sizeof R->r->detail, "the gradient became non-finite at step %ld", R->step);
            R->stop = true;
            break;
        }
        if (!rec) {
            grad_opt_prepare(&opt, lr);
            grad_opt_apply(R, &opt);
            sa_ascent(R);
        }
        R->t_steps += now() - b;
        R->step++;
        lg->done++;
        step_threads(R);
        progress(R, false);
        if (out_of_time(R)) R->stop = true;
    }
    if (rs.exec) R->be->drop(rs.exec);
    grad_opt_free(&opt);
    /* later stages and the final passes see the set's own points */
    if (R->region) {
        pf_status up = pf_train_graph_upload_interior(t, t->set[0].ps.x);
        if (st == PF_OK) st = up;
    }
    return st;
}

static pf_status lbfgs_stage(run *R, const pf_stage_config *sg, pf_train_stage_log *lg)
{
    pf_train_graph *t = R->t;
    pf_lbfgs_config lc = sg->lbfgs;
    lc.lr = sg->schedule.lr;
    pf_lbfgs *opt = pf_lbfgs_alloc_on(R->be, t->nmodel, &lc);
    if (!opt) return PF_ERR_INVALID;
    pf_status st = PF_OK;
    if (R->step % R->tc->log_every == 0 || R->step % R->tc->eval_every == 0) {
        bool ok; /* the state this stage starts from is due a record (its records come after each step) */
        pass(R, &ok);
        st = ok ? after_pass(R) : PF_OK;
        R->stop = !ok;
    }
    for (long k = 0; k < sg->steps && !R->stop; k++) {
        bool changed = false, ok;
        st = update_points(R, &changed);
        if (st != PF_OK) break;
        if (k > 0 && k % PF_TRAIN_LBFGS_REFRESH == 0) {
            update_causal(R);
            if (R->tc->loss.weighting == PF_WEIGHTING_LR_ANNEALING) anneal(R);
            if (R->sa) {
                pass(R, &ok); /* the self-adaptive weights' gradient at the current point */
                if (ok) sa_ascent(R);
            }
            changed = changed || R->tc->loss.causal || R->tc->loss.weighting != PF_WEIGHTING_FIXED;
        }
        if (changed) pf_lbfgs_reset(opt);
        double b = now();
        set_weights(R);
        pf_graph_objective ctx = {t->g, t->w, t->nmodel, 0};
        pf_lbfgs_objective obj = pf_graph_objective_lbfgs(&ctx);
        pf_lbfgs_step_info info;
        R->be->copy(R->good, pf_graph_params(t->g), t->nmodel);
        pf_status ls = pf_lbfgs_step(opt, pf_graph_params(t->g), pf_graph_grads(t->g), &obj, &info);
        R->t_steps += now() - b;
        if (ls != PF_OK) { /* non-finite: the step kept the last good point */
            R->r->status = PF_TRAIN_NAN;
            snprintf(R->r->detail, sizeof R->r->detail,
                     "the loss became non-finite in an L-BFGS line search at step %ld", R->step);
            R->stop = true;
            break;
        }
        R->step++;
        lg->done++;
        step_threads(R);
        lg->iterations += info.iterations;
        lg->evaluations += info.evals;
        if (R->step % R->tc->log_every == 0 || R->step == R->total_steps) {
            pass(R, &ok); /* the terms at the accepted point (the last evaluation may be a trial) */
        } else {
            R->total = info.loss_after;
            ok = healthy(R);
        }
        if (!ok) {
            R->stop = true;
            break;
        }
        st = after_pass(R);
        if (st != PF_OK) break;
        progress(R, false);
        /* A torch-like step (max_iter > 1) that stalled after moving ends
         * only itself: torch's next step() iterates on from there. */
        bool torch_goes_on = lc.max_iter > 1 && info.outcome == PF_LBFGS_STALLED && info.iterations > 0;
        if (info.outcome != PF_LBFGS_PROGRESS && !torch_goes_on) {
            lg->outcome = pf_lbfgs_outcome_name(info.outcome);
            break;
        }
        if (out_of_time(R)) R->stop = true;
    }
    pf_lbfgs_free(opt);
    return st;
}

/* ------------------------------------------------------------ evidence */

static pf_status first_pass(run *R)
{
    pf_train_graph *t = R->t;
    pf_train_result *r = R->r;
    double gmax, gmean;
    for (int k = 0; k < t->nterms; k++) term_grad(R, k, &gmax, &gmean, &r->term[k].grad_first);
    read_losses(R); /* every pass computes every loss: the values do not depend on the weights */
    if (R->tc->loss.residual_norm == PF_RESIDUAL_NORM_INITIAL)
        for (int k = 0; k < t->nterms; k++)
            R->norm[k] = R->term_val[k] > 0 && isfinite(R->term_val[k]) ? 1 / R->term_val[k] : 1;
    set_weights(R);
    read_losses(R);
    for (int k = 0; k < t->nterms; k++) r->term[k].loss_first = R->term_val[k];
    r->loss_first = R->total;
    return PF_OK;
}

static pf_status last_pass(run *R)
{
    pf_train_graph *t = R->t;
    pf_train_result *r = R->r;
    double gmax, gmean;
    for (int k = 0; k < t->nterms; k++) term_grad(R, k, &gmax, &gmean, &r->term[k].grad_last);
    set_weights(R);
    read_losses(R);
    for (int k = 0; k < t->nterms; k++) {
        r->term[k].loss_last = R->term_val[k];
        r->term[k].weight = t->term_hard[k] ? 0 : R->base[k] * R->norm[k];
    }
    r->loss_last = R->total;
    r->stagnation = pf_stagnation_steps(r->log_step, r->log_total, r->nlog, 0.01);
    update_causal(R);
    r->causal_min = R->tc->loss.causal ? 1 : NAN;
    for (int i = 0; R->tc->loss.causal && i < t->nchunks; i++) r->causal_min = fmin(r->causal_min, R->causal[i]);
    /* residual statistics and hotspots on fixed uniform points */
    pf_point_set ps = {0};
    PF_TRY(pf_sample_interior(t->geom, PF_SAMPLE_UNIFORM, PF_TRAIN_EVIDENCE_POINTS,
                              pf_rng_derive(R->o->seed, "train.evidence"), &ps));
    double *res = malloc(sizeof(double) * 2 * (size_t)ps.n);
    pf_status st = res ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_train_graph_sync_probes(t);
    if (st == PF_OK) st = pf_train_graph_residual(t, ps.x, ps.n, res);
    if (st == PF_OK) {
        r->residual = pf_abs_stats(res, ps.n, res + ps.n);
        r->nhot = pf_hotspots(ps.x, res, ps.n, t->pde->d_in, t->pde->lo, t->pde->hi, PF_TRAIN_HOTSPOT_CELLS,
                              PF_TRAIN_MAX_HOTSPOTS, r->hot);
    }
    free(res);
    pf_point_set_release(&ps);
    PF_TRY(st);
    if (R->has_ref) {
        PF_TRY(eval_mse(R, r->u_eval, &r->y, &r->y_report));
        r->has_y = isfinite(r->y);
        r->has_y_report = R->report && isfinite(r->y_report);
        if (!r->has_y) snprintf(r->y_missing, sizeof r->y_missing, "the predictions are not finite");
    }
    return PF_OK;
}

/* The checks on fresh points (pf_train_result's physics_check fields). */
static pf_status physics_check(run *R)
{
    pf_train_graph *t = R->t;
    pf_train_result *r = R->r;
    int n = 2 * (R->has_ref ? R->ref.n : 0);
    n = n < PF_TRAIN_EVIDENCE_POINTS ? PF_TRAIN_EVIDENCE_POINTS : n > PF_TRAIN_CHECK_POINTS_MAX ? PF_TRAIN_CHECK_POINTS_MAX : n;
    pf_point_set ps = {0};
    PF_TRY(pf_sample_interior(t->geom, PF_SAMPLE_UNIFORM, n, pf_rng_derive(R->o->seed, "train.check"), &ps));
    double *res = malloc(sizeof(double) * (size_t)ps.n + 1);
    pf_status st = res ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_train_graph_sync_probes(t);
    if (st == PF_OK) st = pf_train_graph_residual(t, ps.x, ps.n, res);
    if (st == PF_OK) {
        double s = 0, mx = 0;
        for (int i = 0; i < ps.n; i++) s += res[i] * res[i], mx = fmax(mx, res[i]);
        r->check_points = ps.n;
        r->check_rms = sqrt(s / ps.n);
        r->check_max = mx;
    }
    free(res);
    pf_point_set_release(&ps);
    PF_TRY(st);
    /* every training set drawn again from its stream: points no step used */
    PF_TRY(pf_train_graph_resample(t));
    bool ok;
    PF_TRY(pass(R, &ok));
    for (int k = 0; k < t->nterms; k++) r->check_term[k] = R->term_val[k];
    r->has_check = true;
    return PF_OK;
}

static pf_status copy_out(run *R)
{
    pf_train_graph *t = R->t;
    pf_train_result *r = R->r;
    int n = pf_train_graph_interior(t), d = t->pde->d_in;
    r->n_interior = n;
    r->x_interior = malloc(sizeof(pf_real) * (size_t)n * d + 1);
    int np = pf_graph_param_count(t->g);
    r->param = calloc((size_t)np, sizeof *r->param);
    if (!r->x_interior || !r->param) return pf_fail(PF_ERR_NOMEM, "out of memory");
    memcpy(r->x_interior, t->set[0].ps.x, sizeof(pf_real) * (size_t)n * d);
    for (int id = 0; id < np; id++) {
        pf_train_param *q = &r->param[id];
        snprintf(q->name, sizeof q->name, "%s", pf_graph_param_name(t->g, id));
        pf_graph_param_shape(t->g, id, &q->rows, &q->cols);
        q->trainable = pf_graph_param_grad(t->g, id) != NULL;
        size_t m = (size_t)q->rows * q->cols;
        q->data = malloc(sizeof(pf_real) * m + 1);
        if (!q->data) return pf_fail(PF_ERR_NOMEM, "out of memory");
        R->be->download(q->data, pf_graph_param_read(t->g, id), sizeof(pf_real) * m);
        r->nparam++;
    }
    return PF_OK;
}

static pf_status setup(run *R, const pf_pde *p, const pf_model_config *mc)
{
    pf_train_result *r = R->r;
    const pf_train_config *tc = R->tc;
    PF_TRY(pf_train_graph_alloc_on(R->be, p, mc, tc, R->o->seed, &R->t));
    pf_train_graph *t = R->t;
    r->nterms = t->nterms;
    r->nparams = t->nmodel;
    r->d_in = p->d_in;
    r->d_out = p->d_out;
    for (int k = 0; k < t->nterms; k++) {
        r->term[k].name = t->term_name[k];
        r->term[k].hard = t->term_hard[k];
        R->base[k] = k < tc->loss.nterms ? tc->loss.weights[k] : 1;
        R->norm[k] = 1;
    }
    for (int i = 0; i < PF_TRAIN_MAX_CHUNKS; i++) R->causal[i] = 1;
    for (int s = 1; s < t->nsets; s++) {
        int n = t->set[s].ps.n;
        if (!strcmp(t->set[s].name, "initial")) r->n_initial += n;
        else if (t->set[s].sampled) r->n_boundary += n;
        else r->n_observed += n;
    }
    size_t nflat = pf_graph_nparams(t->g);
    void *good = NULL, *cand = NULL, *norm = NULL;
    PF_TRY(R->be->alloc(sizeof(pf_real) * t->nmodel, &good));
    R->good = good;
    PF_TRY(R->be->alloc(sizeof(pf_real) * t->nmodel, &cand));
    R->cand = cand;
    PF_TRY(R->be->alloc(sizeof(double), &norm));
    R->gnorm = norm;
    R->host_grad = malloc(sizeof(pf_real) * t->nmodel + 1);
    if (!R->host_grad) return pf_fail(PF_ERR_NOMEM, "out of memory");
    bool gradient = false;
    for (int i = 0; i < tc->nstages; i++) gradient |= pf_optimizer_is_gradient(tc->stages[i].optimizer);
    if (tc->region.enabled && gradient) {
        R->region = pf_region_alloc_on(R->be, t->nmodel, &tc->region, R->o->seed);
        if (!R->region) return pf_fail(PF_ERR_INVALID, "%s", pf_errmsg());
    }
    if (tc->loss.weighting == PF_WEIGHTING_SELF_ADAPTIVE && nflat > t->nmodel) {
        pf_adam_config ac = pf_adam_config_default();
        R->sa_n = nflat - t->nmodel;
        R->sa = pf_adam_alloc_on(R->be, R->sa_n, &ac);
        if (!R->sa) return PF_ERR_NOMEM;
        pf_adam_set_ascent(R->sa, true);
    }
    return PF_OK;
}

/* The reference: a PDE without one trains without y (and says why); one
 * whose reference cannot be built (a missing or damaged file) is a set-up
 * failure, not a result. */
static pf_status load_reference(run *R, const pf_pde *p)
{
    pf_train_result *r = R->r;
    pf_status st = pf_pde_reference(p, &R->ref);
    if (st != PF_OK && st != PF_ERR_UNSUPPORTED) return pf_fail(st, "%s", pf_errmsg());
    if (st == PF_OK) {
        R->has_ref = true;
        r->n_eval = R->ref.n;
        r->x_eval = malloc(sizeof(pf_real) * (size_t)R->ref.n * p->d_in + 1);
        r->u_eval = malloc(sizeof(pf_real) * (size_t)R->ref.n * p->d_out + 1);
        r->u_ref = malloc(sizeof(pf_real) * (size_t)R->ref.n * p->d_out + 1);
        if (!r->x_eval || !r->u_eval || !r->u_ref) return pf_fail(PF_ERR_NOMEM, "out of memory");
        memcpy(r->x_eval, R->ref.x, sizeof(pf_real) * (size_t)R->ref.n * p->d_in);
        memcpy(r->u_ref, R->ref.u, sizeof(pf_real) * (size_t)R->ref.n * p->d_out);
        if (R->o->heldout) {
            if (!(R->report = malloc((size_t)R->ref.n + 1))) return pf_fail(PF_ERR_NOMEM, "out of memory");
            PF_TRY(pf_reference_split(p, &R->ref, R->report));
        }
    } else {
        snprintf(r->y_missing, sizeof r->y_missing, "no reference solution: %s", pf_errmsg());
    }
    return PF_OK;
}

/* Free what a run holds besides its result. */
static void teardown(run *R)
{
    pf_train_graph_free(R->t);
    pf_reference_release(&R->ref);
    free(R->report);
    pf_adam_free(R->sa);
    pf_region_free(R->region);
    if (R->good) R->be->free(R->good);
    if (R->cand) R->be->free(R->cand);
    if (R->gnorm) R->be->free(R->gnorm);
    for (int k = 0; k < 2; k++)
        if (R->grp[k]) R->be->free(R->grp[k]);
    free(R->host_grad);
}

pf_status pf_train_run(const pf_pde *p, const pf_model_config *mc, const pf_train_config *tc,
                       const pf_train_options *o, pf_train_result *r)
{
    memset(r, 0, sizeof *r);
    double cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    r->started_unix = clock_s(CLOCK_REALTIME);
    run R = {.tc = tc, .o = o, .r = r, .t0 = now(), .be = o->backend ? o->backend : pf_backend_cpu()};
    R.t_regrant = R.t0;
    R.threads = r->threads = r->threads_max = pf_threads_count();
    r->backend = R.be->name;
    R.be->info(&r->device);
    R.total_steps = r->budget = pf_train_config_steps(tc);
    r->time_limit_s = o->time_limit_s;
    pf_status st = setup(&R, p, mc);
    if (st == PF_OK) st = load_reference(&R, p);
    if (st == PF_OK) st = first_pass(&R);
    if (st == PF_OK) st = after_pass(&R); /* the records of step 0 */
    r->nstages = tc->nstages;
    for (int i = 0; i < tc->nstages; i++)
        r->stage[i] = (pf_train_stage_log){
            .optimizer = tc->stages[i].optimizer, .planned = tc->stages[i].steps, .outcome = "completed"};
    if (st == PF_OK && !healthy(&R)) R.stop = true;
    for (int i = 0; st == PF_OK && i < tc->nstages && !R.stop; i++) {
        const pf_stage_config *sg = &tc->stages[i];
        R.stage = i;
        /* an L-BFGS stage that converges ends early; the next stage goes on */
        st = sg->optimizer == PF_OPT_LBFGS ? lbfgs_stage(&R, sg, &r->stage[i]) : grad_stage(&R, sg, &r->stage[i]);
    }
    for (int i = 0; i < tc->nstages; i++)
        if (r->stage[i].done < r->stage[i].planned && !strcmp(r->stage[i].outcome, "completed"))
            r->stage[i].outcome = r->status != PF_TRAIN_OK ? pf_train_status_name(r->status)
                                  : r->time_limited        ? "time limit"
                                                           : "not reached";
    if (st == PF_OK) {
        r->steps = R.step;
        if (r->status == PF_TRAIN_NAN || r->status == PF_TRAIN_DIVERGED)
            R.be->copy(pf_graph_params(R.t->g), R.good, R.t->nmodel);
        else if (r->status == PF_TRAIN_OK && r->time_limited)
            snprintf(r->detail, sizeof r->detail, "trained %ld of %ld steps: stopped by its time limit", R.step,
                     r->budget);
        else if (r->status == PF_TRAIN_OK)
            snprintf(r->detail, sizeof r->detail, "trained %ld of %ld steps", R.step, r->budget);
        /* one pass at the final state; the state after the last update is
         * checked like every other, and falls back to the last good one */
        bool ok;
        pass(&R, &ok);
        if (!ok) {
            R.be->copy(pf_graph_params(R.t->g), R.good, R.t->nmodel);
            pass(&R, &ok);
        }
        st = record_log(&R);
        if (st == PF_OK) st = record_eval(&R);
        if (st == PF_OK) st = last_pass(&R);
        if (st == PF_OK) st = copy_out(&R);
        if (st == PF_OK && o->physics_check) st = physics_check(&R);
        r->region_sigma = R.region ? pf_region_sigma(R.region) : NAN;
        r->region_radius = R.region ? pf_region_last_radius(R.region) : NAN;
        r->wall_s = now() - R.t0;
        r->step_s = R.t_steps;
        r->other_s = r->wall_s - R.t_steps;
        r->cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
        r->threads_mean = R.step > 0 ? R.thread_steps / (double)R.step : r->threads;
        progress(&R, true);
    }
    teardown(&R);
    if (st != PF_OK) pf_train_result_release(r);
    return st;
}

pf_status pf_train_step0(const pf_pde *p, const pf_model_config *mc, const pf_train_config *tc,
                         const pf_train_options *o, const char *spec, const char *path)
{
    if (tc->region.enabled)
        return pf_fail(PF_ERR_INVALID, "%s", "the spec has training.region_optimization, whose step 0 sees moved "
                                             "points, which a step-0 file does not hold");
    pf_train_result r = {0};
    run R = {.tc = tc, .o = o, .r = &r, .t0 = now(), .be = o->backend ? o->backend : pf_backend_cpu()};
    pf_status st = setup(&R, p, mc);
    if (st == PF_OK) st = first_pass(&R);
    if (st == PF_OK) {
        bool ok; /* step 0's pass as grad_stage makes it: the loss may be non-finite, the file says so */
        pass(&R, &ok);
        pf_step0_info info = {.seed = o->seed, .spec = spec, .loss_total = R.total};
        st = pf_step0_write(path, R.t, &info);
    }
    teardown(&R);
    pf_train_result_release(&r);
    return st;
}

void pf_train_result_release(pf_train_result *r)
{
    free(r->log_step);
    free(r->log_total);
    free(r->log_term);
    free(r->log_weight);
    free(r->log_interior);
    free(r->eval_step);
    free(r->eval_mse);
    free(r->x_eval);
    free(r->u_eval);
    free(r->u_ref);
    free(r->x_interior);
    for (int i = 0; i < r->nparam; i++) free(r->param[i].data);
    free(r->param);
    memset(r, 0, sizeof *r);
}
