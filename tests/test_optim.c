/*
 * test_optim.c — Adam/AdamW, SGD, MultiAdam, gradient clipping,
 * learning-rate schedules and L-BFGS (src/train/). Expected numbers are computed independently of the
 * library: by hand (derivations in the comments) or from closed forms.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/real.h"
#include "core/status.h"
#include "train/adam.h"
#include "train/lbfgs.h"
#include "train/multiadam.h"
#include "train/schedule.h"
#include "train/sgd.h"

/* |actual - expected| <= rel * |expected| (or rel, near zero) */
#define assert_close(actual, expected, rel, ...)                                   \
    do {                                                                           \
        double a_ = (double)(actual), e_ = (double)(expected);                    \
        cr_assert(fabs(a_ - e_) <= (rel) * fmax(fabs(e_), 1e-12), __VA_ARGS__);   \
        (void)0;                                                                   \
    } while (0)

/* ---------------------------------------------------------------- Adam --- */

/* Two steps from p0 = [1, -2] with g1 = [0.1, -0.3], g2 = [-0.2, 0.4],
 * lr 0.1, betas (0.9, 0.999), eps 1e-8; values from the formulas in adam.h
 * evaluated by hand in double:
 *   step 1: m = 0.1 g1, v = 0.001 g1^2, mhat = g1, vhat = g1^2, so
 *           p1 = p0 - 0.1 g1 / (|g1| + 1e-8) = [0.900000009999999, -1.90000000333333]
 *   step 2: m = 0.09 g1 + 0.1 g2 = [-0.011, 0.013],
 *           v = 0.000999 g1^2 + 0.001 g2^2 = [4.999e-5, 2.4991e-4],
 *           mhat = m / 0.19, vhat = v / 0.001999 (1 - 0.9^2, 1 - 0.999^2),
 *           p2 = p1 - 0.1 mhat / (sqrt(vhat) + 1e-8)
 *              = [0.936610360388489, -1.91935104369969]  */
static const pf_real g1[2] = {0.1, -0.3}, g2[2] = {-0.2, 0.4};

static void two_steps(const pf_adam_config *cfg, pf_real p1[2], pf_real p2[2])
{
    pf_adam *a = pf_adam_alloc(2, cfg);
    cr_assert_not_null(a, "pf_adam_alloc succeeds: %s", pf_errmsg());
    pf_real p[2] = {1, -2};
    pf_adam_step(a, p, g1, 0.1);
    p1[0] = p[0], p1[1] = p[1];
    pf_adam_step(a, p, g2, 0.1);
    p2[0] = p[0], p2[1] = p[1];
    pf_adam_free(a);
}

Test(optim, adam_matches_hand_computed_two_steps)
{
    pf_adam_config cfg = pf_adam_config_default();
    pf_real p1[2], p2[2];
    two_steps(&cfg, p1, p2);
    assert_close(p1[0], 0.900000009999999, 1e-6, "adam step 1, p[0]");
    assert_close(p1[1], -1.90000000333333, 1e-6, "adam step 1, p[1]");
    assert_close(p2[0], 0.936610360388489, 1e-6, "adam step 2, p[0]");
    assert_close(p2[1], -1.91935104369969, 1e-6, "adam step 2, p[1]");
}

/* AdamW, wd 0.1: each step first multiplies p by 1 - lr wd = 0.99, the rest
 * is the Adam update above (same m, v):
 *   p1 = 0.99 p0 - 0.1 g1 / (|g1| + 1e-8) = [0.890000009999999, -1.88000000333333]
 *   p2 = 0.99 p1 - (Adam step 2 increment)  = [0.917710360288489, -1.88055104366636] */
Test(optim, adamw_decoupled_decay_matches_hand_computed_two_steps)
{
    pf_adam_config cfg = pf_adamw_config_default();
    cfg.weight_decay = 0.1;
    pf_real p1[2], p2[2];
    two_steps(&cfg, p1, p2);
    assert_close(p1[0], 0.890000009999999, 1e-6, "adamw step 1, p[0]");
    assert_close(p1[1], -1.88000000333333, 1e-6, "adamw step 1, p[1]");
    assert_close(p2[0], 0.917710360288489, 1e-6, "adamw step 2, p[0]");
    assert_close(p2[1], -1.88055104366636, 1e-6, "adamw step 2, p[1]");
}

/* Adam with L2 decay 0.1: g' = g + 0.1 p, so g1' = [0.2, -0.5] and
 *   p1 = p0 - 0.1 g1' / (|g1'| + 1e-8) = [0.900000005, -1.900000002]
 *   g2' = g2 + 0.1 p1 = [-0.1099999995, 0.2099999998],
 *   m = 0.09 g1' + 0.1 g2' = [0.00700000005, -0.02400000002],
 *   v = 0.000999 g1'^2 + 0.001 g2'^2 = [5.205999989e-5, 2.9384999992e-4],
 *   p2 = [0.877170382467154, -1.86705411690669] */
Test(optim, adam_l2_decay_matches_hand_computed_two_steps)
{
    pf_adam_config cfg = pf_adam_config_default();
    cfg.weight_decay = 0.1;
    pf_real p1[2], p2[2];
    two_steps(&cfg, p1, p2);
    assert_close(p1[0], 0.900000005, 1e-6, "adam+l2 step 1, p[0]");
    assert_close(p1[1], -1.900000002, 1e-6, "adam+l2 step 1, p[1]");
    assert_close(p2[0], 0.877170382467154, 1e-6, "adam+l2 step 2, p[0]");
    assert_close(p2[1], -1.86705411690669, 1e-6, "adam+l2 step 2, p[1]");
}

/* With eps 1e-8 the two steps above cannot tell where eps goes; with eps 0.1
 * they can: p1 = p0 - 0.1 g1 / (|g1| + 0.1) = [0.95, -1.925] (eps inside the
 * sqrt would give 0.96985 for p[0], eps on the uncorrected sqrt(v) 0.99693).
 * Step 2 as above with + 0.1: p2 = [0.972427858072617, -1.94008473291851]. */
Test(optim, adam_eps_is_added_after_sqrt_of_bias_corrected_v)
{
    pf_adam_config cfg = pf_adam_config_default();
    cfg.eps = 0.1;
    pf_real p1[2], p2[2];
    two_steps(&cfg, p1, p2);
    assert_close(p1[0], 0.95, 1e-6, "eps placement, step 1, p[0]");
    assert_close(p1[1], -1.925, 1e-6, "eps placement, step 1, p[1]");
    assert_close(p2[0], 0.972427858072617, 1e-6, "eps placement, step 2, p[0]");
    assert_close(p2[1], -1.94008473291851, 1e-6, "eps placement, step 2, p[1]");
}

Test(optim, adam_moments_are_m_then_v)
{
    pf_adam_config cfg = pf_adam_config_default();
    pf_adam *a = pf_adam_alloc(2, &cfg);
    pf_real p[2] = {1, -2};
    pf_adam_step(a, p, g1, 0.1);
    pf_adam_step(a, p, g2, 0.1);
    const pf_real *mv = pf_adam_moments(a);
    cr_assert_eq(pf_adam_step_count(a), 2, "two steps counted");
    assert_close(mv[0], -0.011, 1e-6, "m[0] = 0.09 g1 + 0.1 g2");
    assert_close(mv[3], 2.4991e-4, 1e-6, "v[1] = 0.000999 g1^2 + 0.001 g2^2");
    pf_adam_free(a);
}

Test(optim, adam_rejects_bad_config)
{
    pf_adam_config cfg = pf_adam_config_default();
    cfg.beta1 = 1.0;
    cr_assert_null(pf_adam_alloc(4, &cfg), "beta1 = 1 is refused");
    cr_assert_eq(pf_adam_config_check(&cfg), PF_ERR_INVALID, "the check says invalid");
}

/* ----------------------------------------------------------------- SGD --- */

/* p -= lr g, exactly (every number below is a short binary fraction):
 * [1, -2] - 0.5 [0.5, 0.25] = [0.75, -2.125], then with the rate of the
 * next step, [0.75, -2.125] - 0.25 [0.5, -1] = [0.625, -1.875]. */
Test(optim, sgd_steps_are_exact)
{
    pf_sgd *s = pf_sgd_alloc_on(pf_backend_cpu(), 2);
    cr_assert_not_null(s, "%s", pf_errmsg());
    pf_real p[2] = {1, -2};
    const pf_real ga[2] = {0.5, 0.25}, gb[2] = {0.5, -1};
    pf_sgd_step(s, p, ga, 0.5);
    cr_assert(p[0] == 0.75 && p[1] == -2.125, "step 1: [%g, %g]", (double)p[0], (double)p[1]);
    pf_sgd_prepare(s, 0.25); /* the two halves: the rate is read when apply runs */
    pf_sgd_apply(s, p, gb);
    cr_assert(p[0] == 0.625 && p[1] == -1.875, "step 2: [%g, %g]", (double)p[0], (double)p[1]);
    cr_assert(ga[0] == 0.5 && ga[1] == 0.25, "the gradient is read only");
    pf_sgd_free(s);
}

/* ----------------------------------------------------------- MultiAdam --- */

/* Two groups, two steps from p0 = [1, -2], lr 0.1, betas (0.99, 0.99),
 * eps 1e-8 (PINNacle's defaults), group A's gradients gA1 = [0.1, -0.3],
 * gA2 = [-0.2, 0.4], group B's gB1 = [2, 0.5], gB2 = [1, -1]; by
 * multiadam.h, p -= lr (1/2) sum_k mhat_k / (sqrt(vhat_k) + eps), evaluated
 * by hand with 40-digit decimals:
 *   step 1 (bc1 = bc2 = 0.01): mhat_k = g_k1, vhat_k = g_k1^2, so each
 *     group adds g / (|g| + 1e-8):
 *     p1 = p0 - 0.05 ([0.1/0.10000001, -0.3/0.30000001] + [2/2.00000001, 0.5/0.50000001])
 *        = [0.90000000524999950, -2.00000000066666663]
 *   step 2 (bc1 = bc2 = 1 - 0.99^2 = 0.0199):
 *     mA = 0.0099 gA1 + 0.01 gA2 = [-0.00101, 0.00103],  vA = [0.000499, 0.002491]
 *     mB = 0.0099 gB1 + 0.01 gB2 = [0.0298, -0.00505],   vB = [0.0496, 0.012475]
 *     p2 = p1 - 0.05 sum_k (m_k / 0.0199) / (sqrt(v_k / 0.0199) + 1e-8)
 *        = [0.86859935290889201, -1.99128904541273962]
 * One Adam on the summed gradient would give other numbers: step 1 alone
 * gives p1 = p0 - 0.1 sign(gA1 + gB1) = [0.9, -2.1]. */
static const pf_real gA[2][2] = {{0.1, -0.3}, {-0.2, 0.4}}, gB[2][2] = {{2, 0.5}, {1, -1}};

static void multiadam_two_steps(double scale_b, pf_real p1[2], pf_real p2[2], pf_real mv_a[4])
{
    pf_adam_config cfg = pf_multiadam_config_default();
    cr_assert(cfg.beta1 == 0.99 && cfg.beta2 == 0.99 && cfg.eps == 1e-8 && cfg.weight_decay == 0);
    pf_multiadam *m = pf_multiadam_alloc_on(pf_backend_cpu(), 2, 2, &cfg);
    cr_assert_not_null(m, "%s", pf_errmsg());
    cr_assert_eq(pf_multiadam_groups(m), 2);
    pf_real p[2] = {1, -2};
    for (int t = 0; t < 2; t++) {
        pf_real b[2] = {(pf_real)(scale_b * gB[t][0]), (pf_real)(scale_b * gB[t][1])};
        pf_multiadam_step(m, p, (const pf_real *const[]){gA[t], b}, 0.1);
        pf_real *dst = t ? p2 : p1;
        dst[0] = p[0], dst[1] = p[1];
    }
    cr_assert_eq(pf_multiadam_step_count(m), 2);
    memcpy(mv_a, pf_multiadam_moments(m, 0), 4 * sizeof *mv_a);
    pf_multiadam_free(m);
}

Test(optim, multiadam_matches_hand_computed_two_steps)
{
    pf_real p1[2], p2[2], mv[4];
    multiadam_two_steps(1, p1, p2, mv);
    assert_close(p1[0], 0.90000000524999950, 1e-6, "multiadam step 1, p[0] = %.17g", (double)p1[0]);
    assert_close(p1[1], -2.00000000066666663, 1e-6, "multiadam step 1, p[1] = %.17g", (double)p1[1]);
    assert_close(p2[0], 0.86859935290889201, 1e-6, "multiadam step 2, p[0] = %.17g", (double)p2[0]);
    assert_close(p2[1], -1.99128904541273962, 1e-6, "multiadam step 2, p[1] = %.17g", (double)p2[1]);
    /* group A's own moments: m = [-0.00101, 0.00103], v = [0.000499, 0.002491] */
    assert_close(mv[0], -0.00101, 1e-6, "m_A[0]");
    assert_close(mv[1], 0.00103, 1e-6, "m_A[1]");
    assert_close(mv[2], 0.000499, 1e-6, "v_A[0]");
    assert_close(mv[3], 0.002491, 1e-6, "v_A[1]");
}

/* Each group's update is scale-invariant: group B's gradients x1000 move
 * the parameters by the same steps (only eps feels the scale: 5e-10 here). */
Test(optim, multiadam_groups_are_scale_invariant)
{
    pf_real p1[2], p2[2], q1[2], q2[2], mv[4];
    multiadam_two_steps(1, p1, p2, mv);
    multiadam_two_steps(1000, q1, q2, mv);
    for (int i = 0; i < 2; i++) {
        assert_close(q1[i], p1[i], 1e-6, "step 1, p[%d]: %.17g vs %.17g", i, (double)q1[i], (double)p1[i]);
        assert_close(q2[i], p2[i], 1e-6, "step 2, p[%d]: %.17g vs %.17g", i, (double)q2[i], (double)p2[i]);
    }
}

/* One group is Adam with the same betas on that gradient, bit for bit; and
 * weight decay is refused. */
Test(optim, multiadam_with_one_group_is_adam)
{
    pf_adam_config cfg = pf_multiadam_config_default();
    pf_multiadam *m = pf_multiadam_alloc_on(pf_backend_cpu(), 2, 1, &cfg);
    pf_adam *a = pf_adam_alloc(2, &cfg);
    pf_real p[2] = {1, -2}, q[2] = {1, -2};
    for (int t = 0; t < 2; t++) {
        pf_multiadam_step(m, p, (const pf_real *const[]){gA[t]}, 0.1);
        pf_adam_step(a, q, gA[t], 0.1);
    }
    cr_assert(p[0] == q[0] && p[1] == q[1], "[%.17g, %.17g] vs Adam [%.17g, %.17g]", (double)p[0], (double)p[1],
              (double)q[0], (double)q[1]);
    pf_multiadam_free(m);
    pf_adam_free(a);
    cfg.weight_decay = 1e-3;
    cr_assert_null(pf_multiadam_alloc_on(pf_backend_cpu(), 2, 2, &cfg));
    cr_assert(strstr(pf_errmsg(), "weight decay") != NULL, "%s", pf_errmsg());
}

/* ------------------------------------------------------------ clipping --- */

Test(optim, clip_grad_norm_returns_the_norm_before_clipping)
{
    pf_real g[3] = {3, 4, 12}; /* norm 13 */
    cr_assert_float_eq(pf_clip_grad_norm(g, 3, 1.0), 13.0, 1e-5, "returns 13");
}

Test(optim, clip_grad_norm_leaves_norm_equal_to_max_norm)
{
    pf_real g[3] = {3, 4, 12};
    pf_clip_grad_norm(g, 3, 2.0);
    double after = sqrt((double)g[0] * g[0] + (double)g[1] * g[1] + (double)g[2] * g[2]);
    assert_close(after, 2.0, 1e-6, "post-clip norm is max_norm (within torch's 1e-6 guard)");
    assert_close(g[0] / g[2], 0.25, 1e-6, "direction kept");
}

Test(optim, clip_grad_norm_below_max_is_untouched)
{
    pf_real g[2] = {0.3f, 0.4f};
    pf_clip_grad_norm(g, 2, 1.0);
    cr_assert(g[0] == (pf_real)0.3f && g[1] == (pf_real)0.4f, "gradients unchanged");
}

Test(optim, clip_grad_norm_nonfinite_leaves_gradients)
{
    pf_real g[2] = {INFINITY, 1};
    double norm = pf_clip_grad_norm(g, 2, 1.0);
    cr_assert(!isfinite(norm) && g[1] == 1, "inf norm returned, gradients untouched");
}

Test(optim, clip_grad_norm_independent_of_thread_count)
{
    const size_t n = (size_t)1 << 20;
    pf_real *g = malloc(n * sizeof *g);
    for (size_t i = 0; i < n; i++) g[i] = (pf_real)sin((double)i * 0.37) * 1e-3f;
    omp_set_num_threads(1);
    double one = pf_clip_grad_norm(g, n, 1e9);
    omp_set_num_threads(4);
    double four = pf_clip_grad_norm(g, n, 1e9);
    omp_set_num_threads(3);
    double three = pf_clip_grad_norm(g, n, 1e9);
    cr_assert(one == four && one == three, "bitwise equal norms: %.17g %.17g %.17g", one, four,
              three);
    free(g);
}

Test(optim, clip_grad_value_clamps)
{
    pf_real g[4] = {-3, -0.5f, 0.5f, 3};
    pf_clip_grad_value(g, 4, 1.0);
    cr_assert(g[0] == -1 && g[1] == -0.5f && g[2] == 0.5f && g[3] == 1, "clamped to [-1, 1]");
}

/* ------------------------------------------------------------ schedule --- */

Test(schedule, constant_is_lr)
{
    pf_schedule s = pf_schedule_defaults(PF_SCHEDULE_CONSTANT, 3e-4);
    cr_assert_float_eq(pf_schedule_lr(&s, 12345, 0), 3e-4, 1e-18, "constant");
}

/* 0.1 * 0.5^(step / 10) */
Test(schedule, exponential_values)
{
    pf_schedule s = pf_schedule_defaults(PF_SCHEDULE_EXPONENTIAL, 0.1);
    s.gamma = 0.5;
    s.decay_steps = 10;
    assert_close(pf_schedule_lr(&s, 0, 100), 0.1, 1e-14, "step 0");
    assert_close(pf_schedule_lr(&s, 5, 100), 0.07071067811865477, 1e-14, "step 5: 0.1/sqrt(2)");
    assert_close(pf_schedule_lr(&s, 25, 100), 0.01767766952966369, 1e-14, "step 25: 0.1*0.5^2.5");
}

/* 0.1 * 0.1^floor(step / 30) */
Test(schedule, step_values)
{
    pf_schedule s = pf_schedule_defaults(PF_SCHEDULE_STEP, 0.1);
    s.step_size = 30;
    assert_close(pf_schedule_lr(&s, 29, 100), 0.1, 1e-14, "step 29");
    assert_close(pf_schedule_lr(&s, 30, 100), 0.01, 1e-14, "step 30");
    assert_close(pf_schedule_lr(&s, 65, 100), 0.001, 1e-14, "step 65");
}

/* lr 1, lr_min 0.1, warmup 10, total 110:
 *   step 0 -> 1/10, step 9 -> 1, step 10 -> 1 (u = 0), step 35 -> u = 1/4:
 *   0.1 + 0.45 (1 + cos(pi/4)) = 0.8681980515339464, step 60 -> u = 1/2: 0.55,
 *   step 110 and after -> 0.1 */
Test(schedule, cosine_values)
{
    pf_schedule s = pf_schedule_defaults(PF_SCHEDULE_COSINE, 1.0);
    s.lr_min = 0.1;
    s.warmup_steps = 10;
    assert_close(pf_schedule_lr(&s, 0, 110), 0.1, 1e-14, "warmup step 0");
    assert_close(pf_schedule_lr(&s, 9, 110), 1.0, 1e-14, "warmup step 9");
    assert_close(pf_schedule_lr(&s, 10, 110), 1.0, 1e-14, "start of decay");
    assert_close(pf_schedule_lr(&s, 35, 110), 0.8681980515339464, 1e-14, "quarter way");
    assert_close(pf_schedule_lr(&s, 60, 110), 0.55, 1e-14, "half way");
    assert_close(pf_schedule_lr(&s, 200, 110), 0.1, 1e-14, "past the end");
}

/* max lr 1, total 100, pct_start 0.3, div 25, final div 1e4:
 *   lr0 = 0.04, lr1 = 4e-6, E1 = 29;
 *   step 0 -> 0.04; step 10 -> 1 + (0.04 - 1)(1 + cos(10 pi / 29)) / 2
 *   = 0.29516394846410077; step 29 -> 1; step 64 -> p = 35/70:
 *   4e-6 + (1 - 4e-6) / 2 = 0.500002; step 99 -> 4e-6 */
Test(schedule, one_cycle_values)
{
    pf_schedule s = pf_schedule_defaults(PF_SCHEDULE_ONE_CYCLE, 1.0);
    assert_close(pf_schedule_lr(&s, 0, 100), 0.04, 1e-14, "initial rate");
    assert_close(pf_schedule_lr(&s, 10, 100), 0.29516394846410077, 1e-14, "cosine warmup");
    assert_close(pf_schedule_lr(&s, 29, 100), 1.0, 1e-14, "peak at E1");
    assert_close(pf_schedule_lr(&s, 64, 100), 0.500002, 1e-14, "half way down");
    assert_close(pf_schedule_lr(&s, 99, 100), 4e-6, 1e-12, "final rate");
    s.anneal_linear = true;
    assert_close(pf_schedule_lr(&s, 10, 100), 0.37103448275862067, 1e-14, "linear warmup");
}

Test(schedule, names_round_trip)
{
    for (int k = 0; k < PF_SCHEDULE_COUNT; k++) {
        pf_schedule_kind got = PF_SCHEDULE_COUNT;
        cr_assert_eq(pf_schedule_parse_kind(pf_schedule_kind_name((pf_schedule_kind)k), &got),
                     PF_OK, "parse '%s'", pf_schedule_kind_name((pf_schedule_kind)k));
        cr_assert_eq((int)got, k, "round trip of kind %d", k);
    }
}

Test(schedule, unknown_name_is_invalid)
{
    pf_schedule_kind got = PF_SCHEDULE_CONSTANT;
    cr_assert_eq(pf_schedule_parse_kind("cosin", &got), PF_ERR_INVALID, "typo refused");
    cr_assert(strstr(pf_errmsg(), "cosin") != NULL, "message names it: %s", pf_errmsg());
}

Test(schedule, check_rejects_bad_pct_start)
{
    pf_schedule s = pf_schedule_defaults(PF_SCHEDULE_ONE_CYCLE, 1.0);
    s.pct_start = 1.0;
    cr_assert_eq(pf_schedule_check(&s), PF_ERR_INVALID, "pct_start = 1 refused");
}

/* --------------------------------------------------------------- L-BFGS --- */

typedef struct counter {
    long evals;
    long poison_after;   /* return NaN from this evaluation on (0: never) */
    pf_real *alias;      /* if set, copy x here, as the engine does */
    size_t n;
} counter;

/* Extended Rosenbrock: independent pairs (x0, x1), (x2, x3), ...; minimum at
 * all ones, f = 0. The n = 2 case is the classic one. */
static double rosenbrock(void *ctx, const pf_real *x, pf_real *grad)
{
    counter *c = ctx;
    c->evals++;
    if (c->alias)
        for (size_t i = 0; i < c->n; i++) c->alias[i] = x[i];
    if (c->poison_after && c->evals >= c->poison_after) return NAN;
    double f = 0;
    for (size_t i = 0; i + 1 < c->n; i += 2) {
        double a = x[i], b = x[i + 1], r = b - a * a;
        f += 100 * r * r + (1 - a) * (1 - a);
        grad[i] = (pf_real)(-400 * a * r - 2 * (1 - a));
        grad[i + 1] = (pf_real)(200 * r);
    }
    return f;
}

/* f = 1/2 x'Ax - b'x with A = tridiag(-1, 3, -1) (SPD, condition < 5) and
 * b = A xs for xs_i = sin(i + 1): the minimum is xs. */
static double xs_at(size_t i) { return sin((double)i + 1.0); }

static double quadratic(void *ctx, const pf_real *x, pf_real *grad)
{
    counter *c = ctx;
    c->evals++;
    const size_t n = c->n;
    double f = 0;
    for (size_t i = 0; i < n; i++) {
        double ax = 3 * x[i], axs = 3 * xs_at(i);
        if (i > 0) ax -= x[i - 1], axs -= xs_at(i - 1);
        if (i + 1 < n) ax -= x[i + 1], axs -= xs_at(i + 1);
        f += 0.5 * x[i] * ax - axs * x[i];
        grad[i] = (pf_real)(ax - axs);
    }
    return f;
}

/* Iterate while steps make progress; returns the iterations made. */
static int minimise(pf_lbfgs *o, pf_real *x, pf_real *g, const pf_lbfgs_objective *obj,
                    int max_iters, long *evals_reported)
{
    int it = 0;
    for (; it < max_iters; it++) {
        pf_lbfgs_step_info info;
        pf_status st = pf_lbfgs_step(o, x, g, obj, &info);
        cr_assert_eq(st, PF_OK, "step %d: %s", it, pf_errmsg());
        if (evals_reported) *evals_reported += info.evals;
        if (info.outcome != PF_LBFGS_PROGRESS) break;
    }
    return it;
}

#ifdef PF_DOUBLE
static const double xtol = 1e-6;
#else
static const double xtol = 1e-3;
#endif

Test(lbfgs, rosenbrock_2d_reaches_minimum)
{
    counter c = {.n = 2};
    pf_lbfgs_objective obj = {rosenbrock, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    cfg.tolerance_grad = 1e-10; /* run to machine precision: torch's */
    cfg.tolerance_change = 0;   /* 1e-9 stops Rosenbrock near 1e-6  */
    pf_lbfgs *o = pf_lbfgs_alloc(2, &cfg);
    pf_real x[2] = {-1.2, 1}, g[2];
    minimise(o, x, g, &obj, 200, NULL);
    cr_assert(fabs(x[0] - 1) <= xtol && fabs(x[1] - 1) <= xtol,
              "reaches (1, 1) within %g: (%.10g, %.10g) after %ld evaluations", xtol, x[0], x[1],
              c.evals);
    pf_lbfgs_free(o);
}

Test(lbfgs, rosenbrock_2d_in_double_build)
{
#ifndef PF_DOUBLE
    cr_skip_test("needs the double build");
#else
    counter c = {.n = 2};
    pf_lbfgs_objective obj = {rosenbrock, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    cfg.tolerance_grad = 1e-10; /* run to machine precision: torch's */
    cfg.tolerance_change = 0;   /* 1e-9 stops Rosenbrock near 1e-6  */
    pf_lbfgs *o = pf_lbfgs_alloc(2, &cfg);
    pf_real x[2] = {-1.2, 1}, g[2];
    int iters = minimise(o, x, g, &obj, 200, NULL);
    cr_assert(fabs(x[0] - 1) <= 1e-6 && fabs(x[1] - 1) <= 1e-6 && iters < 100,
              "(1, 1) to 1e-6 in under 100 iterations: (%.12g, %.12g), %d iterations", x[0], x[1],
              iters);
    pf_lbfgs_free(o);
#endif
}

Test(lbfgs, extended_rosenbrock_10d_reaches_minimum)
{
    enum { N = 10 };
    counter c = {.n = N};
    pf_lbfgs_objective obj = {rosenbrock, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    cfg.tolerance_grad = 1e-10; /* run to machine precision: torch's */
    cfg.tolerance_change = 0;   /* 1e-9 stops Rosenbrock near 1e-6  */
    pf_lbfgs *o = pf_lbfgs_alloc(N, &cfg);
    pf_real x[N], g[N];
    for (int i = 0; i < N; i++) x[i] = i % 2 ? 1 : -1.2;
    minimise(o, x, g, &obj, 500, NULL);
    double worst = 0;
    for (int i = 0; i < N; i++) worst = fmax(worst, fabs(x[i] - 1));
    cr_assert(worst <= xtol, "all ones within %g: worst error %g", xtol, worst);
    pf_lbfgs_free(o);
}

Test(lbfgs, quadratic_reaches_known_minimum)
{
    enum { N = 50 };
    counter c = {.n = N};
    pf_lbfgs_objective obj = {quadratic, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    cfg.tolerance_grad = 1e-10; /* run to machine precision: torch's */
    cfg.tolerance_change = 0;   /* 1e-9 stops Rosenbrock near 1e-6  */
    pf_lbfgs *o = pf_lbfgs_alloc(N, &cfg);
    pf_real x[N] = {0}, g[N];
    int iters = minimise(o, x, g, &obj, 300, NULL);
    double worst = 0;
    for (int i = 0; i < N; i++) worst = fmax(worst, fabs(x[i] - xs_at((size_t)i)));
    cr_assert(worst <= xtol, "x = xs within %g: worst error %g after %d iterations", xtol, worst,
              iters);
    pf_lbfgs_free(o);
}

Test(lbfgs, evaluation_count_contract)
{
    counter c = {.n = 2};
    pf_lbfgs_objective obj = {rosenbrock, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    cfg.max_evals = 4;
    pf_lbfgs *o = pf_lbfgs_alloc(2, &cfg);
    pf_real x[2] = {-1.2, 1}, g[2];
    pf_lbfgs_step_info info;
    long before = c.evals;
    pf_lbfgs_step(o, x, g, &obj, &info);
    cr_assert(info.evals == c.evals - before && info.evals >= 2 && info.evals <= 5,
              "first step: start point + 1..max_evals (reported %d, made %ld)", info.evals,
              c.evals - before);
    bool within = true, honest = true;
    for (int k = 0; k < 30; k++) {
        before = c.evals;
        pf_lbfgs_step(o, x, g, &obj, &info);
        within = within && info.evals >= (info.outcome == PF_LBFGS_PROGRESS ? 1 : 0) &&
                 info.evals <= cfg.max_evals;
        honest = honest && info.evals == c.evals - before;
    }
    cr_assert(within && honest, "later steps: at most max_evals, counted exactly");
    pf_lbfgs_free(o);
}

Test(lbfgs, no_line_search_evaluates_once_per_step)
{
    enum { N = 50 };
    counter c = {.n = N};
    pf_lbfgs_objective obj = {quadratic, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    cfg.line_search = false;
    cfg.lr = 0.5;
    pf_lbfgs *o = pf_lbfgs_alloc(N, &cfg);
    pf_real x[N] = {0}, g[N];
    pf_lbfgs_step_info info;
    pf_lbfgs_step(o, x, g, &obj, &info);
    int first = info.evals;
    bool once = true;
    for (int k = 0; k < 10; k++) {
        pf_lbfgs_step(o, x, g, &obj, &info);
        once = once && info.evals == 1;
    }
    cr_assert(first == 2 && once, "2 evaluations on the first step, then exactly 1 (first %d)",
              first);
    pf_lbfgs_free(o);
}

Test(lbfgs, converged_start_costs_one_evaluation_then_none)
{
    counter c = {.n = 2};
    pf_lbfgs_objective obj = {rosenbrock, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    pf_lbfgs *o = pf_lbfgs_alloc(2, &cfg);
    pf_real x[2] = {1, 1}, g[2];
    pf_lbfgs_step_info a, b;
    pf_lbfgs_step(o, x, g, &obj, &a);
    pf_lbfgs_step(o, x, g, &obj, &b);
    cr_assert(a.outcome == PF_LBFGS_CONVERGED && a.evals == 1 && b.evals == 0,
              "converged at (1, 1): 1 then 0 evaluations (%d, %d)", a.evals, b.evals);
    pf_lbfgs_free(o);
}

Test(lbfgs, moved_x_is_re_evaluated)
{
    counter c = {.n = 2};
    pf_lbfgs_objective obj = {rosenbrock, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    pf_lbfgs *o = pf_lbfgs_alloc(2, &cfg);
    pf_real x[2] = {-1.2, 1}, g[2];
    pf_lbfgs_step_info info;
    pf_lbfgs_step(o, x, g, &obj, &info);
    x[0] = 0.5f, x[1] = 0.5f; /* say, some Adam epochs in between */
    pf_lbfgs_step(o, x, g, &obj, &info);
    cr_assert(info.loss_before == 100 * 0.25 * 0.25 + 0.25,
              "loss_before is the loss at the moved x (%.17g)", info.loss_before);
    pf_lbfgs_free(o);
}

Test(lbfgs, nonfinite_loss_fails_and_keeps_last_good_point)
{
    counter c = {.n = 2, .poison_after = 2};
    pf_lbfgs_objective obj = {rosenbrock, &c};
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    pf_lbfgs *o = pf_lbfgs_alloc(2, &cfg);
    pf_real x[2] = {-1.2, 1}, g[2], start[2] = {-1.2, 1}, g_start[2];
    counter plain = {.n = 2};
    rosenbrock(&plain, start, g_start);
    pf_lbfgs_step_info info;
    pf_status st = pf_lbfgs_step(o, x, g, &obj, &info);
    cr_assert(st == PF_ERR_NUMERIC && x[0] == start[0] && x[1] == start[1] &&
                  g[0] == g_start[0] && g[1] == g_start[1] && strstr(pf_errmsg(), "l-bfgs") != NULL,
              "PF_ERR_NUMERIC, x and grad at the start point: (%g, %g), '%s'", x[0], x[1],
              pf_errmsg());
    pf_lbfgs_free(o);
}

/* The engine's objective copies each trial point into its parameter buffer;
 * passing that buffer as x must give the same iterates as a separate x. */
Test(lbfgs, objective_may_overwrite_x)
{
    pf_lbfgs_config cfg = pf_lbfgs_config_default();
    pf_real params[2] = {-1.2, 1}, g[2], x[2] = {-1.2, 1}, h[2];
    counter ca = {.n = 2, .alias = params}, cb = {.n = 2};
    pf_lbfgs_objective oa = {rosenbrock, &ca}, ob = {rosenbrock, &cb};
    pf_lbfgs *a = pf_lbfgs_alloc(2, &cfg), *b = pf_lbfgs_alloc(2, &cfg);
    for (int k = 0; k < 5; k++) {
        pf_lbfgs_step(a, params, g, &oa, NULL);
        pf_lbfgs_step(b, x, h, &ob, NULL);
    }
    cr_assert(params[0] == x[0] && params[1] == x[1] && ca.evals == cb.evals,
              "aliased run follows the plain one: (%g, %g) vs (%g, %g)", params[0], params[1],
              x[0], x[1]);
    pf_lbfgs_free(a);
    pf_lbfgs_free(b);
}

/* ---------------------------------------------- torch-like steps (max_iter) */

/* torch.optim.LBFGS(lr, max_iter, history_size=m, line_search_fn=None) as
 * plain double code, written here independently of src/train/lbfgs.c: `its`
 * iterations of extended Rosenbrock from x (n <= 8), continuing the state
 * across torch's step() calls, which changes nothing without a line search.
 * The first iteration's step is lr min(1, 1/|g|_1), later ones lr; a pair
 * (s, y) is kept when y's > 1e-10, the oldest dropped beyond m. */
static void torch_reference(double *x, int n, int its, int m, double lr)
{
    double g[8], gp[8], d[8], S[64][8], Y[64][8], rho[64], al[64], h = 1, t = 0;
    int k = 0;
    for (int it = 0; it < its; it++) {
        /* the exact gradient in double */
        for (int i = 0; i + 1 < n; i += 2) {
            double a = x[i], b = x[i + 1], r = b - a * a;
            g[i] = -400 * a * r - 2 * (1 - a);
            g[i + 1] = 200 * r;
        }
        if (it > 0) {
            double ys = 0, yy = 0;
            for (int i = 0; i < n; i++) {
                double s = d[i] * t, y = g[i] - gp[i];
                ys += y * s, yy += y * y;
            }
            if (ys > 1e-10) {
                if (k == m) { /* drop the oldest */
                    memmove(S, S[1], sizeof S[0] * (size_t)(m - 1));
                    memmove(Y, Y[1], sizeof Y[0] * (size_t)(m - 1));
                    memmove(rho, rho + 1, sizeof rho[0] * (size_t)(m - 1));
                    k--;
                }
                for (int i = 0; i < n; i++) S[k][i] = d[i] * t, Y[k][i] = g[i] - gp[i];
                rho[k++] = 1 / ys;
                h = ys / yy;
            }
        }
        for (int i = 0; i < n; i++) d[i] = -g[i];
        for (int j = k - 1; j >= 0; j--) {
            double a = 0;
            for (int i = 0; i < n; i++) a += S[j][i] * d[i];
            al[j] = a * rho[j];
            for (int i = 0; i < n; i++) d[i] -= al[j] * Y[j][i];
        }
        for (int i = 0; i < n; i++) d[i] *= h;
        for (int j = 0; j < k; j++) {
            double b = 0;
            for (int i = 0; i < n; i++) b += Y[j][i] * d[i];
            b *= rho[j];
            for (int i = 0; i < n; i++) d[i] += (al[j] - b) * S[j][i];
        }
        memcpy(gp, g, sizeof g);
        double asum = 0;
        for (int i = 0; i < n; i++) asum += fabs(g[i]);
        t = it == 0 ? fmin(1, 1 / asum) * lr : lr;
        for (int i = 0; i < n; i++) x[i] += t * d[i];
    }
}

/* Our L-BFGS with max_iter 5, no line search and history m follows the
 * reference iterate for iterate, step after step (5 iterations each), for a
 * history that is exceeded (m = 1, 3) and one that is not (m = 64). */
Test(lbfgs, torch_like_steps_follow_an_independent_reference)
{
    enum { N = 4, ITER = 5, STEPS = 4 };
    static const int hist[3] = {1, 3, 64};
#ifdef PF_DOUBLE
    const double tol = 1e-9;
#else
    const double tol = 2e-3;
#endif
    for (int h = 0; h < 3; h++) {
        counter c = {.n = N};
        pf_lbfgs_objective obj = {rosenbrock, &c};
        pf_lbfgs_config cfg = pf_lbfgs_config_default();
        cfg.line_search = false;
        cfg.lr = 0.1;
        cfg.max_iter = ITER;
        cfg.history = hist[h];
        cfg.tolerance_change = 0;
        pf_lbfgs *o = pf_lbfgs_alloc(N, &cfg);
        pf_real x[N] = {-1.2f, 1, 0.5f, -0.3f}, g[N];
        double ref[N];
        for (int i = 0; i < N; i++) ref[i] = (double)x[i];
        for (int s = 0; s < STEPS; s++) {
            pf_lbfgs_step_info info;
            long before = c.evals;
            cr_assert_eq(pf_lbfgs_step(o, x, g, &obj, &info), PF_OK, "%s", pf_errmsg());
            cr_assert_eq(info.outcome, PF_LBFGS_PROGRESS, "m %d, step %d: %s", hist[h], s,
                         pf_lbfgs_outcome_name(info.outcome));
            cr_assert_eq(info.iterations, ITER, "m %d, step %d: %d iterations", hist[h], s, info.iterations);
            cr_assert_eq(info.evals, ITER + (s == 0), "m %d, step %d: %d evaluations", hist[h], s, info.evals);
            cr_assert_eq(c.evals - before, info.evals);
            double want[N];
            memcpy(want, ref, sizeof want);
            torch_reference(want, N, ITER * (s + 1), hist[h], 0.1);
            for (int i = 0; i < N; i++)
                cr_assert(fabs(x[i] - want[i]) <= tol * fmax(1, fabs(want[i])),
                          "m %d, after step %d (%d iterations): x[%d] = %.10g, reference %.10g", hist[h], s,
                          ITER * (s + 1), i, (double)x[i], want[i]);
        }
        pf_lbfgs_free(o);
    }
}

/* A step stops at max_iter iterations, or earlier once 1 + its evaluations
 * reach max_eval (torch's rule; 0: max_iter * 5 / 4); max_iter 1 is one
 * iteration per step, as before the option existed. */
Test(lbfgs, max_iter_and_max_eval_bound_a_step)
{
    enum { N = 6 };
    static const struct {
        int max_iter, max_eval, want;
    } cases[] = {{1, 0, 1}, {20, 0, 20}, {20, 6, 5}, {3, 100, 3}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        counter c = {.n = N};
        pf_lbfgs_objective obj = {rosenbrock, &c};
        pf_lbfgs_config cfg = pf_lbfgs_config_default();
        cfg.line_search = false;
        cfg.lr = 0.05;
        cfg.tolerance_change = 0;
        cfg.max_iter = cases[k].max_iter;
        cfg.max_eval = cases[k].max_eval;
        pf_lbfgs *o = pf_lbfgs_alloc(N, &cfg);
        pf_real x[N] = {-1.2f, 1, -1.2f, 1, -1.2f, 1}, g[N];
        for (int s = 0; s < 3; s++) {
            pf_lbfgs_step_info info;
            cr_assert_eq(pf_lbfgs_step(o, x, g, &obj, &info), PF_OK);
            cr_assert_eq(info.iterations, cases[k].want, "max_iter %d, max_eval %d: %d iterations",
                         cases[k].max_iter, cases[k].max_eval, info.iterations);
        }
        pf_lbfgs_free(o);
    }
    pf_lbfgs_config bad = pf_lbfgs_config_default();
    bad.max_iter = 0;
    cr_assert_eq(pf_lbfgs_config_check(&bad), PF_ERR_INVALID);
    bad = pf_lbfgs_config_default();
    bad.max_eval = -1;
    cr_assert_eq(pf_lbfgs_config_check(&bad), PF_ERR_INVALID);
}
