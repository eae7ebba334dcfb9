/*
 * test_backend.c — the backend interface on the CPU: the optimizers'
 * vector ops, the recorded step (capture/replay), the three-call pass of
 * the graph, device selection, and the trainer's recorded Adam step against
 * the same steps run op by op. (The CUDA backend is tested against these in
 * tests/gpu/, a binary of its own: this one never initialises CUDA.)
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_fixture.h"
#include "registry.h"
#include "spec_configs.h"
#include "spec/spec.h"
#include "tensor/device.h"
#include "tensor/graph.h"
#include "train/adam.h"
#include "train/trainer.h"

static const pf_backend *cpu(void) { return pf_backend_cpu(); }

Test(backend, reductions_match_plain_sums)
{
    enum { N = 10007 };
    static pf_real x[N], y[N];
    double dot = 0, adot = 0, asum = 0, amax = 0;
    for (int i = 0; i < N; i++) {
        x[i] = (pf_real)sin(0.37 * i);
        y[i] = (pf_real)cos(0.11 * i);
        dot += (double)x[i] * y[i];
        adot += fabs((double)x[i] * y[i]);
        asum += fabs((double)x[i]);
        amax = fmax(amax, fabs((double)x[i]));
    }
    /* cblas sums each block of 4096 in pf_real */
    cr_expect_leq(fabs(cpu()->reduce(PF_VEC_DOT, x, y, N) - dot), (sizeof(pf_real) == 4 ? 1e-5 : 1e-12) * adot);
    cr_expect_leq(fabs(cpu()->reduce(PF_VEC_ASUM, x, NULL, N) - asum), 1e-12 * asum);
    cr_expect_eq(cpu()->reduce(PF_VEC_AMAX, x, NULL, N), amax);
    x[5] = NAN; /* skipped, as fmax does */
    cr_expect_eq(cpu()->reduce(PF_VEC_AMAX, x, NULL, N), amax);
}

Test(backend, clip_norm_scales_only_above_the_limit)
{
    pf_real g[4] = {3, 4, 0, 0};
    double norm;
    cpu()->clip_norm(g, 4, 10, &norm);
    cr_expect_eq(norm, 5);
    cr_expect_eq(g[0], 3);
    cpu()->clip_norm(g, 4, 1, &norm);
    cr_expect_eq(norm, 5);
    cr_expect_float_eq(g[0], 3 / (5 + 1e-6), 1e-6);
    cr_expect_float_eq(g[1], 4 / (5 + 1e-6), 1e-6);
}

/* Ascent flips the gradient inside the update: the same parameters as a
 * descent on the negated gradient, with the gradient left as it was. */
Test(backend, adam_ascent_equals_descent_on_the_negated_gradient)
{
    pf_adam_config c = pf_adamw_config_default();
    pf_adam *up = pf_adam_alloc(3, &c), *down = pf_adam_alloc(3, &c);
    pf_adam_set_ascent(up, true);
    pf_real p1[3] = {0.5f, -1, 2}, p2[3] = {0.5f, -1, 2}, g[3] = {0.1f, -0.3f, 0.7f}, ng[3];
    for (int i = 0; i < 3; i++) ng[i] = -g[i];
    for (int t = 0; t < 4; t++) {
        pf_adam_step(up, p1, g, 0.01);
        pf_adam_step(down, p2, ng, 0.01);
    }
    cr_expect_eq(memcmp(p1, p2, sizeof p1), 0);
    cr_expect_eq(g[0], 0.1f);
    cr_expect_gt(p1[0], 0.5f); /* climbed */
    pf_adam_free(up);
    pf_adam_free(down);
}

/* RoPINN's gradient-noise level by hand: n = 3 parameters, a ring of
 * T = 3 gradients. Per parameter std_t(g) / (mean_t |g| + 1e-6) over the
 * gradients held (std with divisor their count), averaged: after one
 * gradient that is 0, read as 1; from the second, the partly filled ring's
 * value, as thuml/RoPINN computes it; a fourth gradient replaces the
 * oldest; a sigma of 0 (constant gradients) reads 1. */
Test(backend, grad_noise_matches_a_hand_computation)
{
    pf_real ring[9] = {0};
    double state[2] = {0, 0};
    const pf_real g[4][3] = {{1, 2, 0}, {3, 2, 0}, {2, -4, 0}, {5, 2, 0}};
    cpu()->grad_noise(ring, 3, 3, g[0], state);
    cr_expect_eq(state[0], 1);
    cr_expect_eq(state[1], 1, "one gradient: sigma %g", state[1]);
    cpu()->grad_noise(ring, 3, 3, g[1], state);
    /* two of three: parameter 0: 1, 3 (mean 2, var 1); 1: 2, 2 (var 0); 2: zeros */
    double two = (1.0 / (2 + 1e-6) + 0 + 0) / 3;
    cr_expect_leq(fabs(state[1] - two), 1e-12 * two, "two of three gradients: sigma %.15g, by hand %.15g", state[1],
                  two);
    cpu()->grad_noise(ring, 3, 3, g[2], state);
    cr_expect_eq(state[0], 3);
    /* parameter 0: 1, 3, 2 (mean 2, var 2/3); 1: 2, 2, -4 (mean 0, var 8,
     * mean |g| 8/3); 2: zeros, ratio 0 */
    double want = (sqrt(2.0 / 3) / (2 + 1e-6) + sqrt(8.0) / (8.0 / 3 + 1e-6) + 0) / 3;
    cr_expect_leq(fabs(state[1] - want), 1e-12 * want, "sigma %.15g, by hand %.15g", state[1], want);
    cpu()->grad_noise(ring, 3, 3, g[3], state);
    const pf_real slots[9] = {5, 2, 0, 3, 2, 0, 2, -4, 0}; /* the oldest (slot 0) replaced */
    cr_expect_eq(memcmp(ring, slots, sizeof ring), 0, "ring layout");
    /* parameter 0 now 5, 3, 2: mean 10/3, var (25 + 1 + 16) / 27 */
    want = (sqrt(42.0 / 27) / (10.0 / 3 + 1e-6) + sqrt(8.0) / (8.0 / 3 + 1e-6)) / 3;
    cr_expect_leq(fabs(state[1] - want), 1e-12 * want, "after the wrap: sigma %.15g, by hand %.15g", state[1], want);
    cr_expect_eq(state[0], 4);
    pf_real r2[4] = {0}, c[2] = {1, -1};
    double s2[2] = {0, 0};
    cpu()->grad_noise(r2, 2, 2, c, s2);
    cpu()->grad_noise(r2, 2, 2, c, s2);
    cr_expect_eq(s2[1], 1, "constant gradients: sigma 0 reads as 1, got %g", s2[1]);
}

static void count(void *arg) { ++*(int *)arg; }

Test(backend, capture_records_without_running_and_replay_runs)
{
    int n = 0;
    void *exec;
    cr_assert_eq(cpu()->capture(count, &n, &exec), PF_OK);
    cr_expect_eq(n, 0);
    cr_assert_eq(cpu()->replay(exec), PF_OK);
    cr_assert_eq(cpu()->replay(exec), PF_OK);
    cr_expect_eq(n, 2);
    cpu()->drop(exec);
}

/* A 1-D network with a second derivative, two losses; in chunks of about
 * `chunk_bytes` per node buffer (0: none). */
static pf_graph *small_graph_chunked(pf_node **x, size_t chunk_bytes)
{
    pf_graph *g = pf_graph_alloc(cpu());
    pf_graph_set_chunk_bytes(g, chunk_bytes);
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_real e[1] = {1};
    *x = pf_input(g, "x", 64, 1, &L, e);
    int W1 = pf_param(g, "W1", 16, 1, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 16, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1));
    int W2 = pf_param(g, "W2", 1, 16, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *u = pf_linear(g, pf_unary(g, PF_UNARY_TANH, pf_linear(g, *x, W1, b1), 0), W2, -1);
    pf_loss(g, "u_xx", pf_mean_square(g, pf_deriv(g, u, 0, 2), NULL));
    pf_loss(g, "u", pf_mean_square(g, pf_deriv(g, u, 0, 0), NULL));
    cr_assert_eq(pf_graph_compile(g, 3), PF_OK);
    pf_real v[64];
    for (int i = 0; i < 64; i++) v[i] = (pf_real)(i / 63.0);
    pf_graph_set_input(g, *x, v);
    return g;
}

static pf_graph *small_graph(pf_node **x) { return small_graph_chunked(x, 0); }

Test(backend, pass_in_three_calls_equals_forward_backward)
{
    pf_node *x;
    pf_graph *g = small_graph(&x);
    pf_real w[2] = {0.25f, 3};
    pf_graph_forward_backward(g, w);
    size_t n = pf_graph_nparams(g);
    pf_real *ref = malloc(n * sizeof *ref);
    memcpy(ref, pf_graph_grads(g), n * sizeof *ref);
    double l0 = pf_graph_loss_value(g, 0), l1 = pf_graph_loss_value(g, 1);
    pf_graph_set_loss_weights(g, NULL); /* ones, then the real ones */
    pf_graph_pass(g);
    pf_graph_set_loss_weights(g, w);
    pf_graph_pass(g);
    pf_graph_read_losses(g);
    cr_expect_eq(memcmp(ref, pf_graph_grads(g), n * sizeof *ref), 0);
    cr_expect_eq(pf_graph_loss_value(g, 0), l0);
    cr_expect_eq(pf_graph_loss_value(g, 1), l1);
    cr_expect_eq(pf_graph_backend(g), cpu());
    free(ref);
    pf_graph_free(g);
}

/* Weight sets: one forward, then a backward per set, gives each set's
 * gradient as a full pass with those weights does (bit for bit); sets are
 * independent of set 0 and of each other; the one-call pass with set k is
 * the same. */
Test(backend, weight_sets_give_each_weightings_gradient_from_one_forward)
{
    pf_node *x;
    pf_graph *g = small_graph(&x);
    size_t n = pf_graph_nparams(g);
    const pf_real w1[2] = {1, 0}, w2[2] = {0, 2.5f}, w0[2] = {0.25f, 3};
    pf_real *r1 = malloc(n * sizeof *r1), *r2 = malloc(n * sizeof *r2), *got = malloc(n * sizeof *got);
    pf_graph_forward_backward(g, w1);
    memcpy(r1, pf_graph_grads(g), n * sizeof *r1);
    pf_graph_forward_backward(g, w2);
    memcpy(r2, pf_graph_grads(g), n * sizeof *r2);
    double l0 = pf_graph_loss_value(g, 0);
    pf_graph_set_loss_weights(g, w0);
    pf_graph_set_loss_weight_set(g, 1, w1);
    pf_graph_set_loss_weight_set(g, 2, w2);
    pf_graph_pass_set(g, 1);
    memcpy(got, pf_graph_grads(g), n * sizeof *got);
    cr_expect_eq(memcmp(got, r1, n * sizeof *got), 0, "set 1 after its pass");
    pf_graph_backward_set(g, 2);
    cr_expect_eq(memcmp(pf_graph_grads(g), r2, n * sizeof *r2), 0, "set 2 from set 1's forward");
    pf_graph_backward_set(g, 1);
    cr_expect_eq(memcmp(pf_graph_grads(g), r1, n * sizeof *r1), 0, "set 1 again");
    pf_graph_pass_set(g, 2);
    cr_expect_eq(memcmp(pf_graph_grads(g), r2, n * sizeof *r2), 0, "set 2 in one call");
    pf_graph_read_losses(g);
    cr_expect_eq(pf_graph_loss_value(g, 0), l0, "the losses do not depend on the weights");
    /* set 0 kept its weights */
    pf_graph_forward_backward(g, w0);
    memcpy(got, pf_graph_grads(g), n * sizeof *got);
    pf_graph_set_loss_weight_set(g, 1, w1); /* filling another set leaves set 0 alone */
    pf_graph_pass(g);
    cr_expect_eq(memcmp(pf_graph_grads(g), got, n * sizeof *got), 0, "set 0");
    double d = 0;
    for (size_t i = 0; i < n; i++) d += fabs((double)r1[i] - (double)r2[i]);
    cr_expect_gt(d, 0, "the two weightings differ");
    free(r1), free(r2), free(got);
    pf_graph_free(g);
}

/* The per-weighting gradients from one forward on the host: on an
 * unchunked graph bit for bit those of pf_graph_pass_set; in chunks, those
 * of a whole pass per weighting (the same sums in another order: 1e-5);
 * the loss values as a full pass gives them. */
Test(backend, forward_backward_sets_equal_a_pass_per_weighting)
{
    const pf_real w1[2] = {1, 0}, w2[2] = {0, 2.5f};
    for (int chunked = 0; chunked < 2; chunked++) {
        pf_node *x;
        pf_graph *g = small_graph_chunked(&x, chunked ? 1024 : 0);
        cr_assert_eq(pf_graph_nchunks(g) > 1, chunked, "chunks: %d", pf_graph_nchunks(g));
        size_t n = pf_graph_nparams(g);
        pf_real *r1 = malloc(n * sizeof *r1), *r2 = malloc(n * sizeof *r2), *o1 = malloc(n * sizeof *o1),
                *o2 = malloc(n * sizeof *o2);
        pf_graph_forward_backward(g, w1);
        memcpy(r1, pf_graph_grads(g), n * sizeof *r1);
        pf_graph_forward_backward(g, w2);
        memcpy(r2, pf_graph_grads(g), n * sizeof *r2);
        double l0 = pf_graph_loss_value(g, 0), l1 = pf_graph_loss_value(g, 1);
        pf_graph_forward_backward_sets(g, 2, (const pf_real *const[]){w1, w2}, (pf_real *const[]){o1, o2});
        cr_expect_eq(pf_graph_loss_value(g, 0), l0);
        cr_expect_eq(pf_graph_loss_value(g, 1), l1);
        double e1 = 0, e2 = 0, m = 0;
        for (size_t i = 0; i < n; i++) {
            e1 = fmax(e1, fabs((double)o1[i] - (double)r1[i]));
            e2 = fmax(e2, fabs((double)o2[i] - (double)r2[i]));
            m = fmax(m, fmax(fabs((double)r1[i]), fabs((double)r2[i])));
        }
        if (chunked) {
            cr_expect_leq(e1, 1e-5 * m, "chunked, weighting 1: %g", e1);
            cr_expect_leq(e2, 1e-5 * m, "chunked, weighting 2: %g", e2);
        } else {
            cr_expect_eq(e1, 0, "weighting 1 differs by %g", e1);
            cr_expect_eq(e2, 0, "weighting 2 differs by %g", e2);
        }
        free(r1), free(r2), free(o1), free(o2);
        pf_graph_free(g);
    }
}

/* The SGD update: p -= lr g with the rate read from backend memory. */
Test(backend, sgd_update_reads_the_rate_from_backend_memory)
{
    pf_real p[3] = {1, -2, 0.5f}, g[3] = {0.5f, 0.25f, -1}, lr = 0.5f;
    cpu()->sgd(p, g, 3, &lr);
    cr_expect(p[0] == 0.75f && p[1] == -2.125f && p[2] == 1, "[%g, %g, %g]", (double)p[0], (double)p[1],
              (double)p[2]);
    lr = 0;
    cpu()->sgd(p, g, 3, &lr);
    cr_expect(p[0] == 0.75f, "lr 0 leaves p");
}

Test(backend, device_names)
{
    const pf_backend *be;
    unsetenv("PF_DEVICE");
    cr_expect_eq(pf_device_open("cpu", &be), PF_OK);
    cr_expect_eq(be, cpu());
    cr_expect_eq(pf_device_open("tpu", &be), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "'tpu'") != NULL, "%s", pf_errmsg());
    setenv("PF_DEVICE", "cpu", 1);
    cr_expect_eq(pf_device_open(NULL, &be), PF_OK);
    cr_expect_eq(be, cpu());
    cr_expect_eq(pf_device_open("auto", &be), PF_OK);
    cr_expect_eq(be, cpu());
    setenv("PF_DEVICE", "gpu", 1);
    cr_expect_eq(pf_device_open(NULL, &be), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "PF_DEVICE") != NULL, "%s", pf_errmsg());
    cr_expect_eq(pf_device_open("cpu", &be), PF_OK, "an explicit name wins over PF_DEVICE");
    unsetenv("PF_DEVICE");
    if (!pf_device_cuda_built()) {
        cr_expect_eq(pf_device_open("cuda", &be), PF_ERR_UNSUPPORTED);
        cr_expect(strstr(pf_errmsg(), "no CUDA backend") != NULL, "%s", pf_errmsg());
    }
}

/* The trainer's recorded Adam step (capture once, replay) against the same
 * steps run op by op: identical numbers, with self-adaptive weights and
 * causal weighting, whose updates ride in the recorded step or around it. */
#define ADAM_STAGE "{\"optimizer\": \"adam\", \"steps\": 1000, \"lr\": 0.003, \"grad_clip\": 1.0}"

static void train_with_stages(const char *loss, const char *training, const char *stages, bool no_capture,
                              pf_train_result *r)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("burgers_1d", &p), PF_OK);
    require_pde_data(p);
    char text[1024];
    snprintf(text, sizeof text,
             "{\"representation\": {}, \"architecture\": {\"depth\": 2, \"width\": 16},"
             " \"sampling\": {\"interior\": 256, \"boundary\": 64, \"initial\": 64},"
             " \"constraints\": {}, \"loss\": {%s},"
             " \"optimization\": {\"stages\": [%s]},"
             " \"training\": {\"log_every\": 10, \"eval_every\": 50%s}}",
             loss, stages, training);
    pf_model_config mc;
    pf_train_config tc;
    spec_configs(text, p, 150, &mc, &tc);
    pf_train_options o = pf_train_options_default();
    o.seed = 2;
    o.no_capture = no_capture;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r->status, PF_TRAIN_OK, "%s", r->detail);
}

static void recorded_equals_op_by_op_stages(const char *loss, const char *training, const char *stages)
{
    pf_train_result a, b;
    train_with_stages(loss, training, stages, false, &a);
    train_with_stages(loss, training, stages, true, &b);
    cr_expect_eq(a.y, b.y, "recorded y %.9e, op by op %.9e", a.y, b.y);
    cr_expect(a.region_sigma == b.region_sigma || (isnan(a.region_sigma) && isnan(b.region_sigma)),
              "region sigma recorded %.17g, op by op %.17g", a.region_sigma, b.region_sigma);
    if (strstr(training, "region")) cr_expect(isfinite(a.region_sigma) && a.region_sigma != 1, "sigma %g", a.region_sigma);
    cr_assert_eq(a.nlog, b.nlog);
    for (int i = 0; i < a.nlog; i++) cr_expect_eq(a.log_total[i], b.log_total[i], "log %d", i);
    cr_assert_eq(a.nparam, b.nparam);
    for (int i = 0; i < a.nparam; i++)
        cr_expect_eq(memcmp(a.param[i].data, b.param[i].data,
                            sizeof(pf_real) * (size_t)a.param[i].rows * a.param[i].cols), 0,
                     "parameter %s", a.param[i].name);
    cr_expect_str_eq(a.backend, "cpu");
    cr_expect(strstr(a.device.name, "CPU") != NULL, "%s", a.device.name);
    cr_expect_gt(a.device.memory_gib, 0);
    pf_train_result_release(&a);
    pf_train_result_release(&b);
}

static void recorded_equals_op_by_op_with(const char *loss, const char *training)
{
    recorded_equals_op_by_op_stages(loss, training, ADAM_STAGE);
}

static void recorded_equals_op_by_op(const char *loss) { recorded_equals_op_by_op_with(loss, ""); }

Test(backend, recorded_adam_step_equals_op_by_op) { recorded_equals_op_by_op(""); }

/* Region optimization: the points uploaded before each replay, the
 * gradient ring pushed inside the recorded step, sigma read after it; with
 * a short history so sigma moves within the run. */
Test(backend, recorded_step_with_region_optimization)
{
    recorded_equals_op_by_op_with("\"weighting\": \"self_adaptive\"",
                                  ", \"region_optimization\": {\"enabled\": true, \"r0\": 0.01, \"history\": 4}");
}

Test(backend, recorded_step_with_self_adaptive_and_causal_weights)
{
    recorded_equals_op_by_op("\"weighting\": \"self_adaptive\", \"causal\": true");
}

/* SGD and MultiAdam steps, recorded and replayed, against op by op: the
 * rate (and MultiAdam's coefficients) read from backend memory at replay,
 * MultiAdam's two group passes through weight sets 1 and 2 in the
 * recording and through two host-weighted passes op by op; with a schedule
 * (the rate changes every step), self-adaptive weights (their ascent reads
 * the summed gradient) and causal weighting (group 1's weights change every
 * step). */
Test(backend, recorded_sgd_and_multiadam_steps_equal_op_by_op)
{
    recorded_equals_op_by_op_stages("", "",
                                    "{\"optimizer\": \"sgd\", \"steps\": 500, \"lr\": 0.01, \"schedule\": \"cosine\","
                                    " \"grad_clip\": 1.0}, {\"optimizer\": \"multiadam\", \"steps\": 500,"
                                    " \"lr\": 0.002, \"schedule\": \"cosine\"}");
    recorded_equals_op_by_op_stages("\"weighting\": \"self_adaptive\", \"causal\": true", "",
                                    "{\"optimizer\": \"multiadam\", \"steps\": 1000, \"lr\": 0.003}");
}
