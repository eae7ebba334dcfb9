/*
 * Training end to end: a 1-D Poisson PINN reaches the exact solution, and a
 * training step allocates nothing (the bare graph and optimizers, and the
 * trainer's Adam steps with and without region optimization).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "nn/model.h"
#include "data_fixture.h"
#include "registry.h"
#include "spec_configs.h"
#include "train/adam.h"
#include "train/graph_objective.h"
#include "train/lbfgs.h"
#include "train/trainer.h"

static const double PI = 3.14159265358979323846;

/* u'' = -pi^2 sin(pi x) on [-1, 1], u(-1) = u(1) = 0; exact u = sin(pi x). */
typedef struct poisson1d {
    pf_graph *g;
    pf_model *net;
    pf_node *u_eval;
    int n_eval;
} poisson1d;

static poisson1d poisson1d_build(int n, int width, int depth, int n_eval, uint64_t seed)
{
    poisson1d p = {0};
    p.g = pf_graph_alloc(pf_backend_cpu());
    pf_model_config mc = pf_model_config_default(1, 1);
    mc.width = width;
    mc.depth = depth;
    p.net = pf_model_alloc(p.g, &mc);
    cr_assert_not_null(p.net, "%s", pf_errmsg());

    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_real ex[1] = {1};
    pf_node *x = pf_input(p.g, "x", n, 1, &L, ex);
    pf_node *f = pf_input(p.g, "f", n, 1, NULL, NULL);
    pf_node *xb = pf_input(p.g, "xb", 2, 1, NULL, NULL);
    pf_node *xe = pf_input(p.g, "xe", n_eval, 1, NULL, NULL);
    pf_node *u = pf_model_apply(p.net, p.g, x);
    pf_loss(p.g, "pde", pf_mean_square(p.g, pf_sub(p.g, pf_deriv(p.g, u, 0, 2), f), NULL));
    pf_loss(p.g, "bc", pf_mean_square(p.g, pf_model_apply(p.net, p.g, xb), NULL));
    p.u_eval = pf_model_apply(p.net, p.g, xe);
    p.n_eval = n_eval;
    cr_assert_eq(pf_graph_compile(p.g, seed), PF_OK, "%s", pf_errmsg());

    pf_real *xs = malloc(sizeof(pf_real) * (size_t)(n > n_eval ? n : n_eval));
    pf_real *fs = malloc(sizeof(pf_real) * (size_t)n);
    for (int i = 0; i < n; i++) { /* midpoints of a regular grid */
        xs[i] = (pf_real)(-1 + (2.0 * i + 1) / n);
        fs[i] = (pf_real)(-PI * PI * sin(PI * xs[i]));
    }
    pf_graph_set_input(p.g, x, xs);
    pf_graph_set_input(p.g, f, fs);
    pf_real bs[2] = {-1, 1};
    pf_graph_set_input(p.g, xb, bs);
    for (int i = 0; i < n_eval; i++) xs[i] = (pf_real)(-1 + 2.0 * i / (n_eval - 1));
    pf_graph_set_input(p.g, xe, xs);
    free(xs);
    free(fs);
    return p;
}

static double poisson1d_mse(poisson1d *p)
{
    pf_real *u = malloc(sizeof(pf_real) * (size_t)p->n_eval);
    pf_graph_forward(p->g);
    pf_graph_read(p->g, p->u_eval, u);
    double s = 0;
    for (int i = 0; i < p->n_eval; i++) {
        double x = -1 + 2.0 * i / (p->n_eval - 1), e = u[i] - sin(PI * x);
        s += e * e;
    }
    free(u);
    return s / p->n_eval;
}

static void poisson1d_free(poisson1d *p)
{
    pf_model_free(p->net);
    pf_graph_free(p->g);
}

Test(train, poisson1d_reaches_exact_solution, .timeout = 120)
{
#ifdef PF_DOUBLE
    cr_skip_test("the training acceptance test runs in the float build");
#endif
    poisson1d p = poisson1d_build(128, 32, 3, 1001, 1);
    size_t n = pf_graph_nparams(p.g);
    pf_adam_config ac = pf_adam_config_default();
    pf_adam *adam = pf_adam_alloc(n, &ac);
    int adam_steps = 1000, lbfgs_steps = 1000, steps = 0;
    for (; steps < adam_steps; steps++) {
        pf_graph_forward_backward(p.g, NULL);
        pf_adam_step(adam, pf_graph_params(p.g), pf_graph_grads(p.g), 3e-3);
    }
    double mse_adam = poisson1d_mse(&p);
    pf_lbfgs_config lc = pf_lbfgs_config_default();
    pf_lbfgs *lbfgs = pf_lbfgs_alloc(n, &lc);
    pf_graph_objective ctx = {p.g, NULL, 0, 0};
    pf_lbfgs_objective obj = pf_graph_objective_lbfgs(&ctx);
    for (int it = 0; it < lbfgs_steps; it++, steps++) {
        pf_lbfgs_step_info info;
        cr_assert_eq(pf_lbfgs_step(lbfgs, pf_graph_params(p.g), pf_graph_grads(p.g), &obj, &info),
                     PF_OK, "%s", pf_errmsg());
        if (info.outcome != PF_LBFGS_PROGRESS) break;
    }
    double mse = poisson1d_mse(&p);
    cr_log_info("poisson1d: MSE %.3g after %d Adam steps, %.3g after %d steps in all (%ld L-BFGS "
                "evaluations)", mse_adam, adam_steps, mse, steps, ctx.evals);
    cr_expect_leq(steps, 2000);
    cr_expect_lt(mse, 1e-6, "MSE against sin(pi x) is %g after %d steps", mse, steps);
    pf_lbfgs_free(lbfgs);
    pf_adam_free(adam);
    poisson1d_free(&p);
}

/* ------------------------------------------------------------------------
 * No heap allocation in a training step: this binary interposes malloc and
 * friends (glibc's __libc_* entry points underneath) and counts calls while
 * `counting` is set. ASan interposes them itself, so the sanitizer build
 * skips the check. */
#if !defined(__SANITIZE_ADDRESS__) && defined(__GLIBC__)
#define PF_COUNT_ALLOCS 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
static volatile int counting;
static volatile long allocs;
void *malloc(size_t n);
void *calloc(size_t k, size_t n);
void *realloc(void *p, size_t n);
void *aligned_alloc(size_t a, size_t n);
int posix_memalign(void **out, size_t a, size_t n);
void free(void *p);
void *malloc(size_t n)
{
    if (counting) allocs++;
    return __libc_malloc(n);
}
void *calloc(size_t k, size_t n)
{
    if (counting) allocs++;
    return __libc_calloc(k, n);
}
void *realloc(void *p, size_t n)
{
    if (counting) allocs++;
    return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n)
{
    if (counting) allocs++;
    return __libc_memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n)
{
    if (counting) allocs++;
    *out = __libc_memalign(a, n);
    return *out ? 0 : 12; /* ENOMEM */
}
void free(void *p) { __libc_free(p); }
#endif

Test(train, step_makes_no_heap_allocation)
{
#ifndef PF_COUNT_ALLOCS
    cr_skip_test("allocation counting needs glibc and no AddressSanitizer");
#else
    poisson1d p = poisson1d_build(64, 16, 2, 11, 3);
    size_t n = pf_graph_nparams(p.g);
    pf_adam_config ac = pf_adamw_config_default();
    pf_adam *adam = pf_adam_alloc(n, &ac);
    pf_lbfgs_config lc = pf_lbfgs_config_default();
    pf_lbfgs *lbfgs = pf_lbfgs_alloc(n, &lc);
    pf_graph_objective ctx = {p.g, NULL, 0, 0};
    pf_lbfgs_objective obj = pf_graph_objective_lbfgs(&ctx);
    pf_lbfgs_step_info info;
    for (int warm = 0; warm < 2; warm++) { /* thread pools, BLAS buffers start here */
        pf_graph_forward_backward(p.g, NULL);
        pf_adam_step(adam, pf_graph_params(p.g), pf_graph_grads(p.g), 1e-3);
        pf_lbfgs_step(lbfgs, pf_graph_params(p.g), pf_graph_grads(p.g), &obj, &info);
    }
    allocs = 0;
    counting = 1;
    void *volatile probe = malloc(16); /* proves the hook is live */
    counting = 0;
    free(probe);
    cr_assert_eq(allocs, 1, "the malloc hook is not active");
    allocs = 0;
    counting = 1;
    for (int s = 0; s < 5; s++) {
        pf_graph_forward_backward(p.g, NULL);
        pf_clip_grad_norm(pf_graph_grads(p.g), n, 1.0);
        pf_adam_step(adam, pf_graph_params(p.g), pf_graph_grads(p.g), 1e-3);
    }
    long adam_allocs = allocs;
    for (int s = 0; s < 3; s++)
        pf_lbfgs_step(lbfgs, pf_graph_params(p.g), pf_graph_grads(p.g), &obj, &info);
    counting = 0;
    cr_expect_eq(adam_allocs, 0, "5 Adam training steps made %ld heap allocations", adam_allocs);
    cr_expect_eq(allocs - adam_allocs, 0, "3 L-BFGS steps made %ld heap allocations",
                 allocs - adam_allocs);
    cr_expect_gt(ctx.evals, 0);
    pf_lbfgs_free(lbfgs);
    pf_adam_free(adam);
    poisson1d_free(&p);
#endif
}

/* The same for a graph with PINNsFormer's pieces: a token layout (k = 5,
 * dt = 1e-4) of a 2-D jet with a second-order direction, x + MHA(x) with
 * 2 heads over each point's tokens, WaveAct, a residual over every token,
 * run in several chunks of whole points. */
Test(train, token_attention_waveact_step_makes_no_heap_allocation)
{
#ifndef PF_COUNT_ALLOCS
    cr_skip_test("allocation counting needs glibc and no AddressSanitizer");
#else
    enum { N = 200, K = 5, W = 16 };
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, (size_t)32 << 10);
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 1);
    pf_real dirs[4] = {1, 0, 0, 1};
    pf_node *x = pf_input(g, "x", N, 2, &L, dirs);
    int W1 = pf_param(g, "W1", W, 2, PF_PARAM_TRAINABLE, pf_init_glorot_uniform());
    int b1 = pf_param(g, "b1", 1, W, PF_PARAM_TRAINABLE, pf_init_const(0.01));
    int a1 = pf_param(g, "a1", 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
    int a2 = pf_param(g, "a2", 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
    int W2 = pf_param(g, "W2", 1, W, PF_PARAM_TRAINABLE, pf_init_glorot_uniform());
    pf_node *t = pf_tokens(g, x, K, (pf_real)1e-4);
    pf_node *h = pf_linear(g, t, W1, b1);
    h = pf_add(g, h, pf_attention(g, h, h, h, K, 2));
    pf_node *u = pf_linear(g, pf_waveact(g, h, a1, a2), W2, -1);
    pf_node *r = pf_sub(g, pf_deriv(g, u, 1, 1), pf_deriv(g, u, 0, 2));
    pf_loss(g, "pde", pf_mean_square(g, r, NULL));
    cr_assert_eq(pf_graph_compile(g, 4), PF_OK, "%s", pf_errmsg());
    cr_assert_gt(pf_graph_nchunks(g), 1, "the test needs chunks");
    pf_real xs[2 * N];
    for (int i = 0; i < 2 * N; i++) xs[i] = (pf_real)((i * 37 % 101) / 101.0);
    pf_graph_set_input(g, x, xs);
    size_t n = pf_graph_nparams(g);
    pf_adam_config ac = pf_adamw_config_default();
    pf_adam *adam = pf_adam_alloc(n, &ac);
    for (int warm = 0; warm < 2; warm++) {
        pf_graph_forward_backward(g, NULL);
        pf_adam_step(adam, pf_graph_params(g), pf_graph_grads(g), 1e-3);
    }
    allocs = 0;
    counting = 1;
    for (int s = 0; s < 5; s++) {
        pf_graph_forward_backward(g, NULL);
        pf_adam_step(adam, pf_graph_params(g), pf_graph_grads(g), 1e-3);
    }
    counting = 0;
    cr_expect_eq(allocs, 0, "5 token/attention/waveact training steps made %ld heap allocations", allocs);
    cr_expect(isfinite(pf_graph_loss_value(g, 0)), "the loss is finite");
    pf_adam_free(adam);
    pf_graph_free(g);
#endif
}

#ifdef PF_COUNT_ALLOCS
/* Allocations between consecutive progress events, i.e. in one step of the
 * trainer's loop; only steps with no record, evaluation or first recording
 * due count. */
typedef struct alloc_watch {
    int log_every, eval_every;
    long steps, allocs, worst_step;
} alloc_watch;

static void watch(const pf_train_progress *e, void *user)
{
    alloc_watch *w = user;
    counting = 0;
    long s = e->step - 1; /* the loop iteration that just ended */
    if (!e->last && s > 2 && s % w->log_every && s % w->eval_every) {
        w->steps++;
        if (allocs && !w->allocs) w->worst_step = s;
        w->allocs += allocs;
    }
    allocs = 0;
    counting = !e->last;
}

static alloc_watch train_watched(const char *stage, const char *training, const char *arch)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("burgers_1d", &p), PF_OK);
    require_pde_data(p);
    char text[1024];
    snprintf(text, sizeof text,
             "{\"representation\": {}, \"architecture\": %s,"
             " \"sampling\": {\"interior\": 256, \"boundary\": 64, \"initial\": 64}, \"constraints\": {},"
             " \"loss\": {\"causal\": true}, \"optimization\": {\"stages\": [{\"optimizer\": \"%s\", \"steps\": 1000}]},"
             " \"training\": {\"log_every\": 20, \"eval_every\": 40%s}}",
             arch, stage, training);
    pf_model_config mc;
    pf_train_config tc;
    spec_configs(text, p, 60, &mc, &tc);
    alloc_watch w = {.log_every = tc.log_every, .eval_every = tc.eval_every};
    pf_train_options o = pf_train_options_default();
    o.on_progress = watch;
    o.progress_user = &w;
    pf_train_result r;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, &r), PF_OK, "%s", pf_errmsg());
    counting = 0;
    cr_assert_eq(r.status, PF_TRAIN_OK, "%s", r.detail);
    pf_train_result_release(&r);
    return w;
}
#endif

/* The trainer's gradient steps, recorded and replayed, with causal
 * weighting (its masks follow the moved points): no heap allocation, with
 * region optimization (the draw, the upload, the gradient ring, sigma) and
 * without; SGD's and MultiAdam's steps (two group passes, the weight
 * sets uploaded before each replay); and a pinnsformer's (its tokens, the
 * causal masks repeated over them). */
Test(train, trainer_steps_make_no_heap_allocation, .timeout = 60)
{
#ifndef PF_COUNT_ALLOCS
    cr_skip_test("allocation counting needs glibc and no AddressSanitizer");
#else
    const char *mlp = "{\"depth\": 2, \"width\": 16}",
               *seq = "{\"type\": \"pinnsformer\", \"depth\": 1, \"width\": 8, \"pinnsformer\": {\"d_ff\": 8, \"d_hidden\": 8}}";
    const char *region = ", \"region_optimization\": {\"enabled\": true, \"history\": 4}";
    const char *cases[][4] = {{"adam", "", mlp, "plain Adam"},
                              {"adam", region, mlp, "region optimization"},
                              {"sgd", "", mlp, "SGD"},
                              {"multiadam", "", mlp, "MultiAdam"},
                              {"adam", region, seq, "pinnsformer (tokens, attention) with region optimization"}};
    for (int i = 0; i < 5; i++) {
        alloc_watch w = train_watched(cases[i][0], cases[i][1], cases[i][2]);
        cr_expect_gt(w.steps, 40, "only %ld steps watched", w.steps);
        cr_expect_eq(w.allocs, 0, "%s: %ld heap allocations in %ld trainer steps (first at step %ld)",
                     cases[i][3], w.allocs, w.steps, w.worst_step);
    }
#endif
}
