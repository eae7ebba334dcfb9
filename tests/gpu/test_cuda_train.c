/*
 * test_cuda_train.c — training on the GPU (pf-gpu-tests): 1,000 steps on
 * poisson_5d and burgers_1d (and burgers_1d with region optimization, and
 * with SGD then MultiAdam stages) reach the CPU's evaluation MSE within
 * 10%, and a replayed recorded step (CUDA graph) gives exactly the numbers
 * of the same steps run op by op, with and without region optimization,
 * and for SGD and MultiAdam steps; the same for a PINNsFormer, and for a
 * hard transform whose constant nodes are folded out of the replay. Skipped,
 * saying why, where no GPU can be used.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../data_fixture.h"
#include "../spec_configs.h"
#include "registry.h"
#include "spec/spec.h"
#include "tensor/device.h"
#include "train/trainer.h"

/* PINNacle's default PINN scaled down to a test: 5 x 100 tanh would do too,
 * but 3 x 64 keeps the CPU half of the comparison to seconds. */
static const char *SPEC =
    "{\"representation\": {}, \"architecture\": {\"depth\": 3, \"width\": 64},"
    " \"sampling\": {\"interior\": 2048, \"boundary\": 512, \"initial\": %d},"
    " \"constraints\": {}, \"loss\": {%s},"
    " \"optimization\": {\"stages\": [%s]},"
    " \"training\": {\"log_every\": 50, \"eval_every\": 250%s}}";
static const char *ADAM = "{\"optimizer\": \"adam\", \"steps\": 1000, \"lr\": 0.001}";
/* SGD then MultiAdam (two groups on burgers_1d: pde | ic + bc) */
static const char *SGD_MULTIADAM = "{\"optimizer\": \"sgd\", \"steps\": 300, \"lr\": 0.01, \"schedule\": \"cosine\"},"
                                   " {\"optimizer\": \"multiadam\", \"steps\": 700, \"lr\": 0.001}";

static const pf_backend *gpu(void)
{
    const pf_backend *be;
    if (pf_device_open("cuda", &be) != PF_OK) cr_skip_test("%s", pf_errmsg());
    return be;
}

static void configs(const pf_pde *p, const char *loss, const char *stages, const char *training,
                    pf_model_config *mc, pf_train_config *tc)
{
    char text[1024];
    snprintf(text, sizeof text, SPEC, p->time_input >= 0 ? 512 : 0, loss, stages, training);
    spec_configs(text, p, PF_SPEC_BUDGET_LOW, mc, tc); /* the spec's own steps */
}

static void train_stages(const char *pde, const char *loss, const char *stages, const char *training,
                         const pf_backend *be, bool no_capture, pf_train_result *r)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(pde, &p), PF_OK, "%s", pf_errmsg());
    require_pde_data(p); /* skips without them */
    pf_model_config mc;
    pf_train_config tc;
    configs(p, loss, stages, training, &mc, &tc);
    pf_train_options o = pf_train_options_default();
    o.seed = 4;
    o.backend = be;
    o.no_capture = no_capture;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r->status, PF_TRAIN_OK, "%s on %s: %s", pde, be->name, r->detail);
    cr_assert(r->has_y, "%s: %s", pde, r->y_missing);
}

static void train_with(const char *pde, const char *loss, const char *training, const pf_backend *be,
                       bool no_capture, pf_train_result *r)
{
    train_stages(pde, loss, ADAM, training, be, no_capture, r);
}

static void train(const char *pde, const char *loss, const pf_backend *be, bool no_capture, pf_train_result *r)
{
    train_with(pde, loss, "", be, no_capture, r);
}

static void same_mse(const char *pde)
{
    const pf_backend *cu = gpu();
    pf_train_result c, g;
    train(pde, "", pf_backend_cpu(), false, &c);
    train(pde, "", cu, false, &g);
    cr_log_info("%s: cpu y %.4e (%.0f steps/s), cuda y %.4e (%.0f steps/s on %s)", pde, c.y,
                c.steps / c.step_s, g.y, g.steps / g.step_s, g.device.name);
    cr_expect_leq(fabs(g.y - c.y), 0.1 * c.y, "%s: cuda y %.4e vs cpu %.4e", pde, g.y, c.y);
    pf_train_result_release(&c);
    pf_train_result_release(&g);
}

Test(cuda_train, poisson_5d_matches_the_cpu_within_10_percent, .timeout = 300) { same_mse("poisson_5d"); }

Test(cuda_train, burgers_1d_matches_the_cpu_within_10_percent, .timeout = 300) { same_mse("burgers_1d"); }

/* Recorded and replayed vs op by op, with self-adaptive weights in the
 * recorded step: identical losses, predictions and parameters. */
static void replay_equals_uncaptured_stages(const char *stages, const char *training)
{
    const pf_backend *cu = gpu();
    pf_train_result a, b;
    const char *loss = "\"weighting\": \"self_adaptive\"";
    train_stages("burgers_1d", loss, stages, training, cu, false, &a);
    train_stages("burgers_1d", loss, stages, training, cu, true, &b);
    cr_expect_eq(a.y, b.y, "replayed y %.9e, uncaptured %.9e", a.y, b.y);
    cr_expect_eq(a.loss_last, b.loss_last);
    cr_assert_eq(a.nparam, b.nparam);
    for (int i = 0; i < a.nparam; i++) {
        size_t m = (size_t)a.param[i].rows * a.param[i].cols;
        cr_expect_eq(memcmp(a.param[i].data, b.param[i].data, m * sizeof(pf_real)), 0,
                     "parameter %s differs", a.param[i].name);
    }
    cr_expect(a.region_sigma == b.region_sigma || (isnan(a.region_sigma) && isnan(b.region_sigma)),
              "region sigma replayed %.17g, uncaptured %.17g", a.region_sigma, b.region_sigma);
    pf_train_result_release(&a);
    pf_train_result_release(&b);
}

static void replay_equals_uncaptured(const char *training) { replay_equals_uncaptured_stages(ADAM, training); }

Test(cuda_train, replay_equals_uncaptured_steps, .timeout = 300) { replay_equals_uncaptured(""); }

/* SGD (its rate read from device memory at replay) and two-group MultiAdam
 * (weight sets 1 and 2, one forward and two backward passes, the groups'
 * buffers and their sum inside the CUDA graph). */
Test(cuda_train, replay_equals_uncaptured_sgd_and_multiadam_steps, .timeout = 300)
{
    replay_equals_uncaptured_stages(SGD_MULTIADAM, "");
}

/* SGD then MultiAdam on the GPU and on the CPU: the evaluation MSE within
 * 10%. */
Test(cuda_train, sgd_and_multiadam_match_the_cpu_within_10_percent, .timeout = 300)
{
    const pf_backend *cu = gpu();
    pf_train_result c, g;
    train_stages("burgers_1d", "", SGD_MULTIADAM, "", pf_backend_cpu(), false, &c);
    train_stages("burgers_1d", "", SGD_MULTIADAM, "", cu, false, &g);
    cr_log_info("sgd + multiadam: cpu y %.4e, cuda y %.4e", c.y, g.y);
    cr_expect_leq(fabs(g.y - c.y), 0.1 * c.y, "cuda y %.4e vs cpu %.4e", g.y, c.y);
    pf_train_result_release(&c);
    pf_train_result_release(&g);
}

/* The same with region optimization: the moved points uploaded before each
 * replay, the gradient ring and its count advanced inside the CUDA graph. */
Test(cuda_train, replay_equals_uncaptured_steps_with_region_optimization, .timeout = 300)
{
    replay_equals_uncaptured(", \"region_optimization\": {\"enabled\": true, \"r0\": 0.01, \"history\": 5}");
}

/* Region optimization on the GPU and on the CPU: the same draws (on the
 * host, from the seed) and the same noise statistic, so the evaluation MSE
 * within 10% and sigma (a statistic of the trajectory) within a factor 2. */
Test(cuda_train, region_optimization_matches_the_cpu_within_10_percent, .timeout = 300)
{
    const pf_backend *cu = gpu();
    const char *ro = ", \"region_optimization\": {\"enabled\": true, \"r0\": 0.001}";
    pf_train_result c, g;
    train_with("burgers_1d", "", ro, pf_backend_cpu(), false, &c);
    train_with("burgers_1d", "", ro, cu, false, &g);
    cr_log_info("region optimization: cpu y %.4e sigma %.4g, cuda y %.4e sigma %.4g", c.y, c.region_sigma, g.y,
                g.region_sigma);
    cr_expect_leq(fabs(g.y - c.y), 0.1 * c.y, "cuda y %.4e vs cpu %.4e", g.y, c.y);
    cr_expect(g.region_sigma > 0.5 * c.region_sigma && g.region_sigma < 2 * c.region_sigma,
              "cuda sigma %.4g vs cpu %.4g", g.region_sigma, c.region_sigma);
    pf_train_result_release(&c);
    pf_train_result_release(&g);
}

/* PINNsFormer (tokens, attention, WaveActs, token 0 for the initial
 * condition): 500 steps on the GPU reach the CPU's evaluation MSE within
 * 10%, and the recorded step replays exactly what op-by-op steps give. */
static void train_seq(const pf_backend *be, bool no_capture, pf_train_result *r)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("burgers_1d", &p), PF_OK, "%s", pf_errmsg());
    require_pde_data(p);
    pf_model_config mc;
    pf_train_config tc;
    spec_configs("{\"representation\": {}, \"architecture\": {\"type\": \"pinnsformer\", \"depth\": 1, \"width\": 16,"
                 " \"pinnsformer\": {\"d_ff\": 32, \"d_hidden\": 32}},"
                 " \"sampling\": {\"interior\": 1024, \"boundary\": 256, \"initial\": 256}, \"constraints\": {},"
                 " \"loss\": {}, \"optimization\": {\"stages\": [{\"optimizer\": \"adam\", \"steps\": 1000}]},"
                 " \"training\": {\"log_every\": 50, \"eval_every\": 250}}",
                 p, 500, &mc, &tc); /* the low budget's 1,000 steps, scaled to 500 */
    pf_train_options o = pf_train_options_default();
    o.seed = 4;
    o.backend = be;
    o.no_capture = no_capture;
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, r), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(r->status, PF_TRAIN_OK, "pinnsformer on %s: %s", be->name, r->detail);
    cr_assert(r->has_y, "%s", r->y_missing);
}

Test(cuda_train, pinnsformer_matches_the_cpu_and_replays_exactly, .timeout = 600)
{
    const pf_backend *cu = gpu();
    pf_train_result c, g, u;
    train_seq(pf_backend_cpu(), false, &c);
    train_seq(cu, false, &g);
    train_seq(cu, true, &u);
    cr_log_info("pinnsformer: cpu y %.4e (%.0f steps/s), cuda y %.4e (%.0f steps/s)", c.y, c.steps / c.step_s, g.y,
                g.steps / g.step_s);
    cr_expect_leq(fabs(g.y - c.y), 0.1 * c.y, "cuda y %.4e vs cpu %.4e", g.y, c.y);
    cr_expect_eq(g.y, u.y, "replayed y %.9e, uncaptured %.9e", g.y, u.y);
    pf_train_result_release(&c);
    pf_train_result_release(&g);
    pf_train_result_release(&u);
}

/* Constant folding on the GPU (tensor/graph.h, pf_graph_prepare): poisson_5d
 * with its box_bubble transform, the points moved before every replay
 * (region optimization) and redrawn every 100 steps. The lift and bubble
 * are computed outside the recorded step, once per point set; the replayed
 * steps give exactly the numbers of op-by-op steps and of steps that
 * compute every node (PF_GRAPH_FOLD=0). */
static void train_hard(const pf_backend *be, bool no_capture, const char *fold, pf_train_result *r)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("poisson_5d", &p), PF_OK, "%s", pf_errmsg());
    pf_model_config mc;
    pf_train_config tc;
    configs(p, "", ADAM, ", \"region_optimization\": {\"enabled\": true, \"r0\": 0.01, \"history\": 5}", &mc, &tc);
    cr_assert_eq(pf_train_config_scale_steps(&tc, 300), PF_OK);
    tc.constraints = (pf_constraints_config){PF_CONSTRAINT_HARD, 0};
    tc.sampling.resample_every = 100;
    pf_train_options o = pf_train_options_default();
    o.seed = 4;
    o.backend = be;
    o.no_capture = no_capture;
    cr_assert_eq(setenv("PF_GRAPH_FOLD", fold, 1), 0);
    cr_assert_eq(pf_train_run(p, &mc, &tc, &o, r), PF_OK, "%s", pf_errmsg());
    unsetenv("PF_GRAPH_FOLD");
    cr_assert_eq(r->status, PF_TRAIN_OK, "box_bubble on %s: %s", be->name, r->detail);
}

static void expect_same_training(const pf_train_result *a, const pf_train_result *b, const char *what)
{
    cr_expect_eq(a->y, b->y, "%s: y %.9e vs %.9e", what, a->y, b->y);
    cr_expect_eq(a->loss_last, b->loss_last, "%s", what);
    cr_assert_eq(a->nparam, b->nparam);
    for (int i = 0; i < a->nparam; i++) {
        size_t m = (size_t)a->param[i].rows * a->param[i].cols;
        cr_expect_eq(memcmp(a->param[i].data, b->param[i].data, m * sizeof(pf_real)), 0, "%s: parameter %s differs",
                     what, a->param[i].name);
    }
}

Test(cuda_train, folded_replays_equal_unfolded_and_uncaptured_steps, .timeout = 300)
{
    const pf_backend *cu = gpu();
    pf_train_result f, n, u;
    train_hard(cu, false, "1", &f);
    train_hard(cu, false, "0", &n);
    train_hard(cu, true, "1", &u);
    cr_log_info("box_bubble on the GPU: %.0f steps/s folded, %.0f unfolded", f.steps / f.step_s, n.steps / n.step_s);
    expect_same_training(&f, &n, "folded vs unfolded");
    expect_same_training(&f, &u, "replayed vs uncaptured");
    pf_train_result_release(&f);
    pf_train_result_release(&n);
    pf_train_result_release(&u);
}
