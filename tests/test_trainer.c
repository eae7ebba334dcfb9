/* The trainer end to end: accuracy on poisson_5d, determinism, progress
 * events (and no stderr output), failures as results (nan, timeout), a
 * missing reference, fidelity scaling. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "data_fixture.h"
#include "registry.h"
#include "spec_configs.h"
#include "search/artifact.h"
#include "spec/spec.h"
#include "train/train_graph.h"
#include "train/trainer.h"

/* A small PINN that solves poisson_5d in about a second: 3 x 32 tanh,
 * 1,024 Sobol interior and 512 boundary points, Adam then L-BFGS. */
static const char *SMALL =
    "{\"representation\": {}, \"architecture\": {\"depth\": 3, \"width\": 32},"
    " \"sampling\": {\"interior\": 1024, \"boundary\": 512, \"method\": \"sobol\"},"
    " \"constraints\": {}, \"loss\": {},"
    " \"optimization\": {\"stages\": [{\"optimizer\": \"adam\", \"steps\": 200, \"lr\": 0.01},"
    "                                 {\"optimizer\": \"lbfgs\", \"steps\": 800}]},"
    " \"training\": {}}";

/* A tinier one for runs whose accuracy does not matter. */
static const char *TINY =
    "{\"representation\": {}, \"architecture\": {\"depth\": 2, \"width\": 16},"
    " \"sampling\": {\"interior\": 256, \"boundary\": 128, \"initial\": %d},"
    " \"constraints\": {}, \"loss\": {},"
    " \"optimization\": {\"stages\": [{\"optimizer\": \"adam\", \"steps\": 1000, \"lr\": 0.003}]},"
    " \"training\": {\"log_every\": 10, \"eval_every\": 50}}";

static const pf_pde *pde(const char *name)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", pf_errmsg());
    return p;
}

static void tiny(const pf_pde *p, long steps, pf_model_config *mc, pf_train_config *tc)
{
    char text[1024];
    snprintf(text, sizeof text, TINY, p->time_input >= 0 ? 64 : 0);
    spec_configs(text, p, steps, mc, tc);
}

/* Skips the test when p's data are absent (data_fixture.h). */
static void train(const pf_pde *p, const pf_model_config *mc, const pf_train_config *tc, uint64_t seed,
                  double timeout, pf_train_result *r)
{
    require_pde_data(p);
    pf_train_options o = pf_train_options_default();
    o.seed = seed;
    o.timeout_s = timeout;
    cr_assert_eq(pf_train_run(p, mc, tc, &o, r), PF_OK, "%s: %s", p->name, pf_errmsg());
}

Test(trainer, poisson_5d_small_spec_reaches_mse_below_1e4)
{
    const pf_pde *p = pde("poisson_5d");
    pf_model_config mc;
    pf_train_config tc;
    spec_configs(SMALL, p, PF_SPEC_BUDGET_LOW, &mc, &tc);
    pf_train_result r;
    train(p, &mc, &tc, 0, 0, &r);
    cr_assert_eq(r.status, PF_TRAIN_OK, "status %s: %s", pf_train_status_name(r.status), r.detail);
    cr_assert(r.has_y, "no y: %s", r.y_missing);
    cr_assert_lt(r.y, 1e-4, "MSE %.3e after %ld steps", r.y, r.steps);
    cr_assert_eq(r.steps, 1000);
    /* the curves: records every 100 steps and at the end, and the last
     * evaluation MSE is y */
    cr_assert_eq(r.nlog, 11, "%d records, last at step %ld; L-BFGS %s after %ld", r.nlog, r.log_step[r.nlog - 1], r.stage[1].outcome, r.stage[1].done);
    cr_assert_eq(r.log_step[10], 1000);
    cr_assert_eq(r.neval, 11);
    cr_assert_float_eq(r.eval_mse[10], r.y, 1e-12 + 1e-9 * r.y);
    cr_assert_lt(r.loss_last, 1e-2 * r.loss_first, "loss %.3e -> %.3e", r.loss_first, r.loss_last);
    /* evidence */
    cr_assert_eq(r.nterms, 2);
    cr_assert_str_eq(r.term[0].name, "pde");
    cr_assert_str_eq(r.term[1].name, "bc");
    for (int k = 0; k < 2; k++) {
        cr_assert(isfinite(r.term[k].grad_first) && r.term[k].grad_first > 0);
        cr_assert(isfinite(r.term[k].grad_last) && r.term[k].grad_last > 0);
    }
    cr_assert(r.residual.mean > 0 && r.residual.mean <= r.residual.p95 && r.residual.p95 <= r.residual.max);
    cr_assert_gt(r.nhot, 0);
    for (int d = 0; d < 5; d++) cr_assert(r.hot[0].lo[d] >= 0 && r.hot[0].hi[d] <= 1 && r.hot[0].lo[d] < r.hot[0].hi[d]);
    cr_assert_eq(r.n_interior, 1024);
    cr_assert_eq(r.n_boundary, 512);
    cr_assert_eq(r.nparams, pf_model_config_nparams(&mc));
    cr_assert_str_eq(r.stage[0].outcome, "completed");
    cr_assert_eq(r.stage[0].done, 200);
    pf_train_result_release(&r);
}

static bool same(const void *a, const void *b, size_t n) { return !memcmp(a, b, n); }

Test(trainer, same_seed_is_bit_identical_and_another_seed_is_not)
{
    const pf_pde *p = pde("burgers_1d");
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 120, &mc, &tc);
    tc.nstages = 2; /* some of each optimizer */
    tc.stages[0].steps = 100;
    tc.stages[1] = pf_stage_default(PF_OPT_LBFGS);
    tc.stages[1].steps = 20;
    pf_train_result a, b, c;
    train(p, &mc, &tc, 7, 0, &a);
    train(p, &mc, &tc, 7, 0, &b);
    train(p, &mc, &tc, 8, 0, &c);
    cr_assert_eq(a.nlog, b.nlog);
    cr_assert(same(a.log_total, b.log_total, sizeof(double) * a.nlog));
    cr_assert(same(a.log_term, b.log_term, sizeof(double) * a.nlog * a.nterms));
    cr_assert_eq(a.neval, b.neval);
    cr_assert(same(a.eval_mse, b.eval_mse, sizeof(double) * a.neval));
    cr_assert(same(a.u_eval, b.u_eval, sizeof(pf_real) * a.n_eval * a.d_out));
    cr_assert_eq(a.nparam, b.nparam);
    for (int i = 0; i < a.nparam; i++)
        cr_assert(same(a.param[i].data, b.param[i].data, sizeof(pf_real) * a.param[i].rows * a.param[i].cols),
                  "parameter %s differs", a.param[i].name);
    cr_assert(!same(a.log_total, c.log_total, sizeof(double) * a.nlog), "seed 8 gave seed 7's curve");
    pf_train_result_release(&a);
    pf_train_result_release(&b);
    pf_train_result_release(&c);
}

/* TINY with 50 Adam steps, then 10 of L-BFGS. */
static void adam_then_lbfgs(const pf_pde *p, pf_model_config *mc, pf_train_config *tc)
{
    tiny(p, 60, mc, tc);
    tc->nstages = 2;
    tc->stages[0].steps = 50;
    tc->stages[1] = pf_stage_default(PF_OPT_LBFGS);
    tc->stages[1].steps = 10;
}

/* Constant folding (tensor/graph.h) runs the lifts, bubbles, coefficient
 * fields and sources once per point set instead of every step: a training
 * with it and one without (PF_GRAPH_FOLD=0) give the same bits, with the
 * points moved every step (region optimization), redrawn (RAD, resampling),
 * and both optimizers. */
static void folded_equals_unfolded(const char *name, int hard, bool region, int fourier)
{
    const pf_pde *p = pde(name);
    pf_model_config mc;
    pf_train_config tc;
    adam_then_lbfgs(p, &mc, &tc);
    mc.fourier_features = fourier; /* frozen: a constant branch */
    tc.sampling.resample_every = 20;
    tc.sampling.adaptive.method = PF_ADAPTIVE_RAD;
    tc.sampling.adaptive.every = 15;
    if (hard >= 0) tc.constraints = (pf_constraints_config){PF_CONSTRAINT_HARD, hard};
    if (region) tc.region = (pf_region_config){.enabled = true, .r0 = 0.01, .history = 5, .max_radius = 0.01};
    pf_train_result a, b;
    train(p, &mc, &tc, 3, 0, &a);
    cr_assert_eq(setenv("PF_GRAPH_FOLD", "0", 1), 0);
    train(p, &mc, &tc, 3, 0, &b);
    unsetenv("PF_GRAPH_FOLD");
    cr_assert_eq(a.status, PF_TRAIN_OK, "%s: %s", name, a.detail);
    cr_assert_geq(a.steps, 50, "%s: %ld steps (%s)", name, a.steps, a.detail); /* L-BFGS may stop early */
    cr_assert_eq(a.steps, b.steps);
    cr_assert_eq(a.nlog, b.nlog);
    cr_assert(same(a.log_total, b.log_total, sizeof(double) * a.nlog), "%s: the loss curves differ", name);
    cr_assert(a.log_total[a.nlog - 1] != a.log_total[0], "%s: the loss did not move", name);
    cr_assert_eq(a.neval, b.neval);
    cr_assert(same(a.eval_mse, b.eval_mse, sizeof(double) * a.neval), "%s: y %a vs %a", name, a.y, b.y);
    cr_assert_eq(a.nparam, b.nparam);
    for (int i = 0; i < a.nparam; i++)
        cr_assert(same(a.param[i].data, b.param[i].data, sizeof(pf_real) * a.param[i].rows * a.param[i].cols),
                  "%s: parameter %s differs", name, a.param[i].name);
    pf_train_result_release(&a);
    pf_train_result_release(&b);
}

Test(trainer, constant_folding_changes_no_bit_of_a_hard_poisson_5d_training)
{
    folded_equals_unfolded("poisson_5d", 0, true, 0);
}

/* darcy_flow_2d's coefficient field a(x, y) and its source are constant
 * branches of the residual; soft, then with its box_bubble transform */
Test(trainer, constant_folding_changes_no_bit_of_a_darcy_flow_2d_training)
{
    folded_equals_unfolded("darcy_flow_2d", -1, false, 0);
    folded_equals_unfolded("darcy_flow_2d", 0, true, 0);
}

/* Fixed Fourier features (a frozen matrix) under the box_bubble transform,
 * with evaluations every 50 steps, RAD draws and resampling: the probes
 * read the matrix, and the result is the unfolded one to the bit. */
Test(trainer, constant_folding_changes_no_bit_of_a_fourier_feature_training)
{
    folded_equals_unfolded("poisson_5d", 0, false, 8);
}

/* Forward runs of every node of t's graph so far. */
static pf_profile_row *node_runs(const pf_train_graph *t, int n)
{
    pf_profile_row *r = calloc((size_t)n, sizeof *r);
    cr_assert_not_null(r);
    pf_graph_profile_rows(t->g, r, n);
    return r;
}

/* The same design's constants (the lift, the bubble, the Fourier features
 * x B^T and their sines and cosines) are computed once per point set: the
 * probe syncs and evaluations between steps (what record_eval, the RAD
 * draws and the evidence do) read the frozen matrix and leave them be. */
Test(trainer, fourier_feature_constants_are_computed_once_per_point_set)
{
    const pf_pde *p = pde("poisson_5d");
    pf_model_config mc;
    pf_train_config tc;
    adam_then_lbfgs(p, &mc, &tc);
    mc.fourier_features = 8;
    tc.constraints = (pf_constraints_config){PF_CONSTRAINT_HARD, 0};
    pf_train_graph *t;
    cr_assert_eq(pf_train_graph_alloc_on(pf_backend_cpu(), p, &mc, &tc, 3, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_graph_profile(t->g, true), PF_OK);
    int n = pf_graph_profile_rows(t->g, NULL, 0);
    for (int l = 0; l < t->nloss; l++) t->w[l] = 1;
    pf_graph_forward_backward(t->g, t->w);
    pf_profile_row *r0 = node_runs(t, n);
    enum { EVALS = 4, M = 16 };
    pf_real u[M * 8];
    cr_assert_leq(M * p->d_out, (int)(sizeof u / sizeof *u));
    for (int s = 0; s < EVALS; s++) {
        pf_train_graph_sync_probes(t);
        cr_assert_eq(pf_train_graph_values(t, t->set[0].ps.x, M, u), PF_OK, "%s", pf_errmsg());
        cr_assert(isfinite(u[0]));
        pf_graph_forward_backward(t->g, t->w);
    }
    pf_profile_row *r1 = node_runs(t, n);
    int nfold = 0, features = 0, nstep = 0;
    for (int i = 0; i < n; i++) {
        if (!r0[i].nfwd) continue; /* inputs */
        if (r0[i].fold) {
            nfold++;
            features += !strcmp(r0[i].op, "linear"); /* x B^T: the only linear without a trainable weight */
            cr_expect_eq(r1[i].nfwd, r0[i].nfwd, "constant node %d (%s): %ld runs after %d evaluations, %ld before",
                         i, r1[i].op, r1[i].nfwd, EVALS, r0[i].nfwd);
        } else {
            nstep++;
            cr_expect_eq(r1[i].nfwd, (EVALS + 1) * r0[i].nfwd, "node %d (%s): %ld runs", i, r1[i].op, r1[i].nfwd);
        }
    }
    cr_expect_geq(features, 1, "no Fourier features among the %d constant nodes", nfold);
    cr_expect_gt(nfold, 10);
    cr_expect_gt(nstep, 10);
    free(r0);
    free(r1);
    pf_train_graph_free(t);
}

/* An L-BFGS stage of torch's steps (max_iter 20, history 100, no line
 * search, as PINNsAgent's lbfgs) counts its steps in the budget and records
 * the iterations and evaluations behind them: more iterations than steps,
 * at most 20 per step; the default stage runs one iteration per step. */
Test(trainer, torch_like_lbfgs_steps_record_their_iterations)
{
    const pf_pde *p = pde("burgers_1d");
    pf_model_config mc;
    pf_train_config tc;
    adam_then_lbfgs(p, &mc, &tc);
    tc.stages[1].lbfgs.max_iter = 20;
    tc.stages[1].lbfgs.history = 100;
    tc.stages[1].lbfgs.line_search = false;
    pf_train_result r;
    train(p, &mc, &tc, 3, 0, &r);
    const pf_train_stage_log *lg = &r.stage[1];
    cr_assert_eq(lg->optimizer, PF_OPT_LBFGS);
    cr_assert_gt(lg->done, 0);
    cr_assert_eq(r.steps, 50 + lg->done, "the budget counts steps: %ld", r.steps);
    cr_assert(lg->iterations > lg->done && lg->iterations <= 20 * lg->done, "%ld iterations in %ld steps",
              lg->iterations, lg->done);
    cr_assert(lg->evaluations >= lg->iterations && lg->evaluations <= lg->iterations + lg->done + 1,
              "%ld evaluations for %ld iterations", lg->evaluations, lg->iterations);
    cr_assert_eq(r.stage[0].iterations, 0, "a gradient stage records no iterations");
    pf_train_result_release(&r);
    tc.stages[1] = pf_stage_default(PF_OPT_LBFGS);
    tc.stages[1].steps = 10;
    train(p, &mc, &tc, 3, 0, &r);
    cr_assert_eq(r.stage[1].iterations, r.stage[1].done, "the default: one iteration per step");
    pf_train_result_release(&r);
}

/* What a progress callback saw. */
typedef struct events {
    int n, nlast;
    pf_train_progress first, prev, final;
    bool steps_in_order, elapsed_in_order, losses_finite, last_was_final;
    int stage_changes;
} events;

static void on_progress(const pf_train_progress *e, void *user)
{
    events *ev = user;
    if (ev->n == 0) ev->first = *e;
    else {
        ev->steps_in_order &= e->last ? e->step >= ev->prev.step : e->step == ev->prev.step + 1;
        ev->elapsed_in_order &= e->elapsed_s >= ev->prev.elapsed_s;
        ev->stage_changes += e->stage != ev->prev.stage;
    }
    ev->losses_finite &= isfinite(e->loss) && isfinite(e->steps_per_s);
    ev->last_was_final = e->last; /* stays true only if the last call is the last event */
    ev->nlast += e->last;
    if (e->last) ev->final = *e;
    ev->prev = *e;
    ev->n++;
}

/* Two Adam stages on burgers_1d, 100 + 20 steps. */
static void two_stages(const pf_pde *p, pf_model_config *mc, pf_train_config *tc)
{
    tiny(p, 120, mc, tc);
    tc->nstages = 2;
    tc->stages[0].steps = 100;
    tc->stages[1] = tc->stages[0];
    tc->stages[1].steps = 20;
}

Test(trainer, a_progress_callback_sees_every_step_and_the_library_prints_nothing, .init = cr_redirect_stderr)
{
    const pf_pde *p = pde("burgers_1d");
    require_pde_data(p);
    pf_model_config mc;
    pf_train_config tc;
    two_stages(p, &mc, &tc);
    events ev = {.steps_in_order = true, .elapsed_in_order = true, .losses_finite = true};
    pf_train_options o = pf_train_options_default();
    o.seed = 7;
    o.on_progress = on_progress;
    o.progress_user = &ev;
    pf_train_result r;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r.status, PF_TRAIN_OK, "%s", r.detail);
    cr_assert_eq(r.steps, 120);
    /* one event per step, then the final one */
    cr_assert_eq(ev.n, 121, "%d events", ev.n);
    cr_assert_eq(ev.first.step, 1);
    cr_assert_eq(ev.first.total_steps, 120);
    cr_assert_eq(ev.first.stage, 0);
    cr_assert_eq(ev.first.optimizer, PF_OPT_ADAM);
    cr_assert(ev.steps_in_order, "the steps do not grow by one");
    cr_assert(ev.elapsed_in_order, "the elapsed time went back");
    cr_assert(ev.losses_finite);
    cr_assert_eq(ev.stage_changes, 1, "%d stage changes", ev.stage_changes);
    cr_assert_eq(ev.nlast, 1);
    cr_assert(ev.last_was_final, "an event came after the last one");
    cr_assert_eq(ev.final.step, 120);
    cr_assert_eq(ev.final.total_steps, 120);
    cr_assert_eq(ev.final.stage, 1);
    cr_assert_eq(ev.final.loss, r.loss_last);
    cr_assert(ev.final.elapsed_s > 0 && ev.final.elapsed_s <= r.wall_s + 1, "elapsed %g, wall %g",
              ev.final.elapsed_s, r.wall_s);
    pf_train_result_release(&r);
    fflush(stderr);
    cr_assert_stderr_eq_str("", "the library wrote to stderr during a training");
}

static void count_events(const pf_train_progress *e, void *user)
{
    (void)e;
    ++*(int *)user;
}

/* The callback runs between steps and feeds nothing back: the numbers are
 * those of a run without one. */
Test(trainer, a_progress_callback_changes_no_number)
{
    const pf_pde *p = pde("burgers_1d");
    pf_model_config mc;
    pf_train_config tc;
    two_stages(p, &mc, &tc);
    pf_train_result a, b;
    train(p, &mc, &tc, 7, 0, &a);
    int n = 0;
    pf_train_options o = pf_train_options_default();
    o.seed = 7;
    o.on_progress = count_events;
    o.progress_user = &n;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, &b), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(n, 121);
    cr_assert_eq(a.nlog, b.nlog);
    cr_assert(same(a.log_total, b.log_total, sizeof(double) * a.nlog));
    cr_assert_eq(a.neval, b.neval);
    cr_assert(same(a.eval_mse, b.eval_mse, sizeof(double) * a.neval));
    cr_assert_eq(a.nparam, b.nparam);
    for (int i = 0; i < a.nparam; i++)
        cr_assert(same(a.param[i].data, b.param[i].data, sizeof(pf_real) * a.param[i].rows * a.param[i].cols),
                  "parameter %s differs", a.param[i].name);
    pf_train_result_release(&a);
    pf_train_result_release(&b);
}

/* lr = 1e3 makes every parameter jump by about 1e3 per Adam step. On
 * burgers_1d the loss explodes (finite, 1e8 times its start within two
 * steps: diverged); on poisson_5d the tanh units saturate instead and the
 * loss stays finite and bounded, so training goes on (a bad result, not a
 * failure). Either way: no crash, and the evidence of the last good state. */
static void huge_lr(const char *name, pf_train_result *r)
{
    const pf_pde *p = pde(name);
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 200, &mc, &tc);
    tc.stages[0].schedule.lr = 1e3;
    train(p, &mc, &tc, 0, 0, r);
}

Test(trainer, a_huge_learning_rate_fails_as_a_result_with_its_evidence)
{
    pf_train_result r;
    huge_lr("burgers_1d", &r);
    cr_assert(r.status == PF_TRAIN_DIVERGED || r.status == PF_TRAIN_NAN, "status %s (%s), loss %.3e -> %.3e",
              pf_train_status_name(r.status), r.detail, r.loss_first, r.loss_last);
    cr_assert_lt(r.steps, 10, "%s", r.detail);
    /* everything is reported from the last parameters whose loss was finite
     * and below the divergence bound */
    cr_assert(isfinite(r.loss_first) && isfinite(r.loss_last) && isfinite(r.term[0].loss_first));
    cr_assert_lt(r.loss_last, PF_TRAIN_DIVERGED_FACTOR * r.loss_first);
    cr_assert_gt(r.nlog, 0);
    cr_assert(r.has_y ? isfinite(r.y) : r.y_missing[0] != 0);
    cr_assert(isfinite(r.residual.mean));
    cr_assert(r.nparam > 0 && (r.n_eval > 0) == r.has_y);
    pf_train_result_release(&r);
    huge_lr("poisson_5d", &r);
    cr_assert_eq(r.status, PF_TRAIN_OK, "%s", r.detail);
    cr_assert_gt(r.y, 0.1, "a saturated network should be far off, MSE %.3e", r.y);
    pf_train_result_release(&r);
}

/* A non-finite loss is caught where it appears: L-BFGS without line
 * search at step length 1e30 overflows at once in float and within a few
 * steps in double, once divergence is not called first. (At step length 10
 * the way to overflow hung on OpenBLAS's kernel: with one it stalled at a
 * finite 3.6e38.) */
Test(trainer, a_non_finite_loss_ends_as_nan)
{
    const pf_pde *p = pde("burgers_1d");
    require_pde_data(p);
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 1000, &mc, &tc);
    tc.stages[0] = pf_stage_default(PF_OPT_LBFGS);
    tc.stages[0].steps = 1000; /* ends long before */
    tc.stages[0].schedule.lr = 1e30;
    tc.stages[0].lbfgs.line_search = false;
    pf_train_result r;
    pf_train_options o = pf_train_options_default();
    o.diverge_factor = INFINITY;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, &r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r.status, PF_TRAIN_NAN, "status %s (%s) loss %g -> %g", pf_train_status_name(r.status), r.detail,
                 r.loss_first, r.loss_last);
    cr_assert(strstr(r.detail, "non-finite"), "%s", r.detail);
    cr_assert(isfinite(r.loss_last), "the evidence must come from the last finite state");
    pf_train_result_release(&r);
}

Test(trainer, the_time_limit_ends_as_timeout)
{
    const pf_pde *p = pde("poisson_5d");
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 1000, &mc, &tc);
    pf_train_result r;
    train(p, &mc, &tc, 0, 1e-9, &r);
    cr_assert_eq(r.status, PF_TRAIN_TIMEOUT, "%s", pf_train_status_name(r.status));
    cr_assert_eq(r.steps, 1);
    cr_assert_str_eq(r.stage[0].outcome, "timeout");
    cr_assert(r.has_y);
    pf_train_result_release(&r);
}

/* A search's time limit (search/time_budget.h) ends the steps but not the
 * result: status ok, time_limited, scored where it stopped; and the step it
 * stopped at, given as a step limit (a replay), gives the same numbers. */
Test(trainer, a_time_limit_is_scored_and_its_steps_replay_bit_for_bit)
{
    const pf_pde *p = pde("poisson_5d");
    require_pde_data(p);
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 1000000, &mc, &tc);
    pf_train_options o = pf_train_options_default();
    o.time_limit_s = 0.3;
    pf_train_result a, b;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, &a), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(a.status, PF_TRAIN_OK, "%s", pf_train_status_name(a.status));
    cr_assert(a.time_limited);
    cr_assert(a.steps >= 1 && a.steps < 1000000, "%ld steps", a.steps);
    cr_assert_str_eq(a.stage[0].outcome, "time limit");
    cr_assert(strstr(a.detail, "time limit"), "%s", a.detail);
    cr_assert(a.has_y && isfinite(a.y));
    cr_assert_eq(a.time_limit_s, 0.3);
    o.time_limit_s = 0;
    o.step_limit = a.steps;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, &b), PF_OK, "%s", pf_errmsg());
    cr_assert(b.time_limited);
    cr_assert_eq(b.steps, a.steps);
    cr_assert(same(&a.y, &b.y, sizeof a.y), "y %.17g vs %.17g", a.y, b.y);
    for (int i = 0; i < a.nparam; i++)
        cr_assert(same(a.param[i].data, b.param[i].data, sizeof(pf_real) * a.param[i].rows * a.param[i].cols),
                  "parameter %s differs", a.param[i].name);
    pf_train_result_release(&a);
    pf_train_result_release(&b);
}

static double realtime_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* make bench-search lays the trainings of a search on one time line and sums
 * their CPU seconds: the start is on the wall clock, between the instants
 * before and after the call, and the CPU time is positive and no more than
 * the wall time times the threads (one here); the evidence carries both. */
Test(trainer, a_training_records_its_cpu_seconds_and_its_start_on_the_wall_clock)
{
    const pf_pde *p = pde("poisson_5d");
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 300, &mc, &tc);
    pf_train_result r;
    double before = realtime_s();
    train(p, &mc, &tc, 0, 0, &r);
    double after = realtime_s();
    cr_assert_eq(r.status, PF_TRAIN_OK, "%s", r.detail);
    cr_assert(r.started_unix >= before - 1e-3 && r.started_unix <= after, "started %.6f not in [%.6f, %.6f]",
              r.started_unix, before, after);
    cr_assert(r.started_unix + r.wall_s <= after + 1e-3, "start + wall %.6f after the call ended (%.6f)",
              r.started_unix + r.wall_s, after);
    cr_assert(r.cpu_s > 0 && r.cpu_s <= r.wall_s * 1.02 + 0.01, "cpu %.6f s over a wall of %.6f s", r.cpu_s,
              r.wall_s);
    json_t *e = pf_evidence_json(p, &r);
    cr_assert_not_null(e);
    json_t *t = json_object_get(e, "time");
    cr_assert_float_eq(json_real_value(json_object_get(t, "cpu_s")), r.cpu_s, 1e-12);
    cr_assert_float_eq(json_real_value(json_object_get(t, "started_unix")), r.started_unix, 1e-6);
    json_decref(e);
    pf_train_result_release(&r);
}

Test(trainer, a_pde_without_reference_trains_without_y)
{
    /* KS's reference is generated (make refs): an empty folder of them has none */
    char dir[] = "/tmp/pf-trainer-noref-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    setenv("PF_REFS_DIR", dir, 1);
    const pf_pde *p = pde("kuramoto_sivashinsky_1d");
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 20, &mc, &tc);
    pf_train_result r;
    train(p, &mc, &tc, 0, 0, &r);
    cr_assert_eq(r.status, PF_TRAIN_OK, "%s", r.detail);
    cr_assert(!r.has_y);
    cr_assert(strstr(r.y_missing, "no reference"), "%s", r.y_missing);
    cr_assert(strstr(r.y_missing, "make refs"), "says how to get one: %s", r.y_missing);
    cr_assert_eq(r.neval, 0);
    cr_assert_eq(r.n_eval, 0);
    cr_assert_eq(r.steps, 20);
    pf_train_result_release(&r);
    rmdir(dir);
}

Test(trainer, a_missing_reference_file_is_a_setup_failure_that_names_it)
{
    const pf_pde *p = pde("burgers_1d");
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 10, &mc, &tc);
    char *old = getenv("PF_DATA_DIR") ? strdup(getenv("PF_DATA_DIR")) : NULL;
    setenv("PF_DATA_DIR", "/nonexistent-pinnforge-data", 1);
    pf_train_options o = pf_train_options_default();
    pf_train_result r;
    pf_status st = pf_train_run(p, &mc, &tc, &o, &r);
    if (old) setenv("PF_DATA_DIR", old, 1);
    else unsetenv("PF_DATA_DIR");
    free(old);
    cr_assert_eq(st, PF_ERR_IO, "a reference that should exist and does not is not a result");
    cr_assert(strstr(pf_errmsg(), "burgers1d.dat") && strstr(pf_errmsg(), "/nonexistent-pinnforge-data"), "%s",
              pf_errmsg());
}

Test(trainer, high_fidelity_scales_every_stage_to_ten_thousand_steps)
{
    const pf_pde *p = pde("poisson_5d");
    pf_model_config mc;
    pf_train_config tc;
    spec_configs(SMALL, p, PF_SPEC_BUDGET_HIGH, &mc, &tc);
    cr_assert_eq(tc.stages[0].steps, 2000);
    cr_assert_eq(tc.stages[1].steps, 8000);
    cr_assert_eq(pf_train_config_steps(&tc), PF_SPEC_BUDGET_HIGH);
}

/* Every benchmark PDE sets up and trains (constraint kinds, auxiliary
 * fields, observations, gauges, periodic pairs, inequality terms), soft and
 * with each of its hard transforms; PDEs whose data files are absent skip. */
/* Every PDE whose data are there trains; then the test skips, "data
 * missing:", when some were not (data_fixture.h). */
Test(trainer, every_pde_trains_soft_and_hard)
{
    data_gaps gaps = {0};
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        if (pde_data_absent(p)) {
            data_gap(&gaps, p->name);
            continue;
        }
        for (int h = -1; h < p->nhard; h++) {
            pf_model_config mc;
            pf_train_config tc;
            tiny(p, 10, &mc, &tc);
            tc.sampling.interior = 64;
            tc.sampling.boundary = 64;
            if (h >= 0) tc.constraints = (pf_constraints_config){PF_CONSTRAINT_HARD, h};
            pf_train_result r;
            train(p, &mc, &tc, 1, 0, &r);
            cr_assert_eq(r.status, PF_TRAIN_OK, "%s (%s): %s", p->name, h < 0 ? "soft" : p->hard[h].name, r.detail);
            cr_assert_eq(r.steps, 10, "%s", p->name);
            for (int k = 0; k < r.nterms; k++)
                cr_assert(isfinite(r.term[k].loss_last), "%s: term %s", p->name, r.term[k].name);
            pf_train_result_release(&r);
        }
    }
    data_gaps_skip(&gaps, "PDEs");
}

Test(trainer, heldout_and_physics_check_add_their_numbers_and_change_no_other)
{
    const pf_pde *p = pde("wave_1d");
    pf_model_config mc;
    pf_train_config tc;
    tiny(p, 20, &mc, &tc);
    pf_train_result a, b;
    train(p, &mc, &tc, 7, 0, &a);
    pf_train_options o = pf_train_options_default();
    o.seed = 7;
    o.heldout = true;
    o.physics_check = true;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, &b), PF_OK, "%s", pf_errmsg());
    cr_assert_not(a.has_y_report);
    cr_assert_not(a.has_check);
    cr_assert(b.has_y && b.has_y_report);
    cr_assert_eq(a.loss_last, b.loss_last, "the training itself is the same");
    /* the two halves average to the whole (same number of points, one output) */
    cr_assert_float_eq(0.5 * (b.y + b.y_report), a.y, 1e-9 * a.y, "%.17g %.17g %.17g", b.y, b.y_report, a.y);
    cr_assert_neq(b.y, b.y_report);
    cr_assert(b.has_check);
    cr_assert_eq(b.check_points, 2 * a.n_eval, "twice the evaluation set");
    cr_assert(isfinite(b.check_rms) && b.check_max >= b.check_rms && b.check_rms > 0);
    for (int k = 1; k < b.nterms; k++) cr_assert(isfinite(b.check_term[k]) && b.check_term[k] >= 0, "%s", b.term[k].name);
    pf_train_result_release(&a);
    pf_train_result_release(&b);
}
