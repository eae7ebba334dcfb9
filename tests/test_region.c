/*
 * test_region.c — RoPINN's region optimization (src/train/region.h): the
 * radius and its clipping, the one-sided perturbation (within r, clamped to
 * the box, kept inside other shapes, deterministic per seed), the points a
 * training graph actually sees (the interior moved, every other set not),
 * and sigma read back through the backend. The noise level itself is checked
 * against a hand computation in test_backend.c (grad_noise); the trainer's
 * use of all this in test_train_options.c (training_region_optimization),
 * test_backend.c (the recorded step) and test_train.c (no allocation).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "geom/geometry.h"
#include "registry.h"
#include "spec_configs.h"
#include "train/region.h"
#include "train/train_graph.h"

static const pf_region_config RO = {.enabled = true, .r0 = 1e-4, .history = 10, .max_radius = 0.01};

/* r = clip(r0 / sigma, 0, max_radius): sigma = 1 gives r0; a small sigma
 * hits the cap; a large one shrinks r towards 0, and an infinite or NaN one
 * gives exactly 0 (the lower clip). */
Test(region, radius_is_r0_over_sigma_clipped_at_both_ends)
{
    cr_expect_eq(pf_region_radius(&RO, 1), 1e-4);
    cr_expect_eq(pf_region_radius(&RO, 0.5), 2e-4);
    cr_expect_eq(pf_region_radius(&RO, 4), 2.5e-5);
    cr_expect_eq(pf_region_radius(&RO, 0.01), 0.01, "r0 / sigma = 0.01 is the cap itself");
    cr_expect_eq(pf_region_radius(&RO, 1e-3), 0.01, "0.1 is clipped to max_radius");
    cr_expect_eq(pf_region_radius(&RO, 1e-12), 0.01);
    cr_expect_float_eq(pf_region_radius(&RO, 1e8), 1e-12, 1e-24);
    cr_expect_eq(pf_region_radius(&RO, INFINITY), 0, "the lower clip");
    cr_expect_eq(pf_region_radius(&RO, NAN), 0);
    cr_expect_eq(pf_region_radius(&RO, -1), 0);
    pf_region_config big = RO;
    big.r0 = 0.5;
    big.max_radius = 1;
    cr_expect_eq(pf_region_radius(&big, 1), 0.5);
    cr_expect_eq(pf_region_radius(&big, 0.25), 1);
}

/* On a box: every coordinate moves by [0, r) (one-sided), clamped to the
 * box; the draws are d per point from the stream, so the same seed gives
 * the same points. */
Test(region, box_perturbation_is_one_sided_within_r_and_clamped)
{
    pf_geom *g = NULL;
    cr_assert_eq(pf_geom_box_alloc(2, (double[]){-1, 0}, (double[]){1, 1}, NULL, &g), PF_OK);
    enum { N = 4000 };
    static pf_real x[2 * N], y[2 * N], z[2 * N];
    pf_rng *src = pf_rng_alloc(5);
    for (int i = 0; i < N; i++) {
        x[2 * i] = (pf_real)pf_rng_uniform_in(src, -1, 1);
        x[2 * i + 1] = (pf_real)pf_rng_uniform_in(src, 0, 1);
    }
    x[0] = 1, x[1] = 1;             /* a corner: both coordinates clamp */
    x[2] = (pf_real)0.999, x[3] = 0; /* 1e-3 from the right edge */
    pf_rng_free(src);
    const double r = 0.01;
    pf_rng *a = pf_rng_alloc(pf_rng_derive(7, PF_REGION_RNG_TAG)), *b = pf_rng_alloc(pf_rng_derive(7, PF_REGION_RNG_TAG));
    cr_expect_eq(pf_region_perturb(g, r, a, x, N, 2, y), 0, "a box keeps every moved point");
    cr_expect_eq(pf_region_perturb(g, r, b, x, N, 2, z), 0);
    cr_expect_eq(memcmp(y, z, sizeof y), 0, "same stream, different points");
    double hi[2] = {1, 1}, most = 0;
    int below = 0, beyond = 0, outside = 0, clamped = 0, moved = 0;
    const double ulp = 4e-7; /* float rounding of a coordinate of size <= 1 */
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 2; k++) {
            double dx = (double)y[2 * i + k] - (double)x[2 * i + k];
            below += dx < -ulp;
            beyond += dx >= r + ulp;
            outside += y[2 * i + k] > (pf_real)hi[k];
            clamped += y[2 * i + k] == (pf_real)hi[k] && x[2 * i + k] != (pf_real)hi[k];
            moved += dx > 0;
            most = fmax(most, dx);
        }
    cr_expect_eq(below, 0, "%d coordinates moved down: the region is one-sided", below);
    cr_expect_eq(beyond, 0, "%d coordinates moved by r or more", beyond);
    cr_expect_eq(outside, 0, "%d coordinates left the box", outside);
    cr_expect_geq(clamped, 1, "the point near the right edge clamps");
    cr_expect_eq(y[0], 1);
    cr_expect_eq(y[1], 1);
    cr_expect_gt(moved, 2 * N - 20, "only %d of %d coordinates moved", moved, 2 * N);
    cr_expect_gt(most, 0.9 * r, "the largest move %g uses the region", most);
    /* the mean move of U[0, r) is r / 2 */
    double mean = 0;
    for (int i = 2; i < N; i++) mean += ((double)y[2 * i + 1] - (double)x[2 * i + 1]) / (N - 2);
    cr_expect_float_eq(mean, r / 2, 0.05 * r, "mean move %g, expected %g", mean, r / 2);
    /* another seed: other points */
    pf_rng *c = pf_rng_alloc(pf_rng_derive(8, PF_REGION_RNG_TAG));
    pf_region_perturb(g, r, c, x, N, 2, z);
    cr_expect_neq(memcmp(y, z, sizeof y), 0);
    /* r = 0: the points themselves */
    pf_region_perturb(g, 0, c, x, N, 2, z);
    cr_expect_eq(memcmp(x, z, sizeof x), 0);
    pf_rng_free(a), pf_rng_free(b), pf_rng_free(c);
    pf_geom_free(g);
}

/* Another shape: a point whose moved position falls into a hole keeps its
 * own position; the others move as on a box. */
Test(region, points_that_would_leave_a_shape_stay)
{
    pf_geom *g = NULL, *box = NULL, *hole = NULL;
    pf_geom_box_alloc(2, (double[]){0, 0}, (double[]){1, 1}, NULL, &box);
    pf_geom_disk_alloc(0.5, 0.5, 0.25, "hole", &hole);
    cr_assert_eq(pf_geom_difference_alloc(box, hole, &g), PF_OK, "%s", pf_errmsg());
    /* just below and left of the hole, and far from it */
    pf_real x[8] = {0.5f, 0.2499f, 0.2499f, 0.5f, 0.1f, 0.1f, 0.9f, 0.9f}, y[8];
    pf_rng *r = pf_rng_alloc(3);
    int kept = pf_region_perturb(g, 0.01, r, x, 4, 2, y);
    cr_expect_eq(kept, 2, "the two points at the hole's edge stay, got %d", kept);
    cr_expect_eq(memcmp(y, x, 4 * sizeof *x), 0, "the points at the hole keep their position");
    for (int k = 4; k < 8; k++) cr_expect(y[k] > x[k] && y[k] < x[k] + 0.01f, "coordinate %d: %g -> %g", k, x[k], y[k]);
    pf_rng_free(r);
    pf_geom_free(g);
}

/* Inputs of a training graph: after an upload of the drawn points the
 * interior input holds them (within r of the set's own, one-sided), every
 * other set's input is still its own points, the set itself is unchanged,
 * and uploading the set's own points restores it. */
Test(region, a_training_graph_sees_moved_interior_points_only)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup("burgers_1d", &p), PF_OK);
    pf_model_config mc;
    pf_train_config tc;
    spec_configs("{\"representation\": {}, \"architecture\": {\"depth\": 1, \"width\": 8},"
                 " \"sampling\": {\"interior\": 200, \"boundary\": 64, \"initial\": 48}, \"constraints\": {}, \"loss\": {},"
                 " \"optimization\": {\"stages\": [{\"optimizer\": \"adam\", \"steps\": 1000}]},"
                 " \"training\": {\"region_optimization\": {\"enabled\": true, \"r0\": 0.01, \"max_radius\": 0.05}}}",
                 p, PF_SPEC_BUDGET_LOW, &mc, &tc);
    cr_assert(tc.region.enabled && tc.region.r0 == 0.01);
    pf_train_graph *t;
    cr_assert_eq(pf_train_graph_alloc_on(pf_backend_cpu(), p, &mc, &tc, 4, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_graph_nchunks(t->g), 1);
    cr_assert_geq(t->nsets, 3, "interior, initial, boundary");
    /* every set's points, as the graph holds them now */
    pf_real *before[PF_TRAIN_MAX_SETS];
    for (int s = 0; s < t->nsets; s++) {
        size_t m = (size_t)t->set[s].ps.n * p->d_in;
        before[s] = malloc(m * sizeof(pf_real) + 1);
        memcpy(before[s], t->set[s].ps.x, m * sizeof(pf_real));
    }
    pf_region *rg = pf_region_alloc_on(pf_backend_cpu(), t->nmodel, &tc.region, 4);
    cr_assert_not_null(rg, "%s", pf_errmsg());
    const pf_real *y;
    int n = pf_train_graph_interior(t), d = p->d_in;
    cr_assert_eq(pf_region_draw(rg, t->geom, t->set[0].ps.x, n, d, &y), PF_OK);
    cr_expect_eq(pf_region_last_radius(rg), 0.01, "sigma 1 before any gradient: r = r0");
    cr_assert_eq(pf_train_graph_upload_interior(t, y), PF_OK);
    for (int s = 0; s < t->nsets; s++) {
        const pf_node *in = t->set[s].ctx.x;
        size_t m = (size_t)t->set[s].ps.n * d, len = (size_t)pf_node_nstreams(in) * pf_node_n(in) * pf_node_c(in);
        pf_real *v = malloc(len * sizeof(pf_real));
        pf_graph_read(t->g, in, v);
        cr_expect_eq(memcmp(t->set[s].ps.x, before[s], m * sizeof(pf_real)), 0, "set %s changed", t->set[s].name);
        if (s == 0) {
            cr_expect_eq(memcmp(v, y, m * sizeof(pf_real)), 0, "the interior input is not the drawn points");
            int bad = 0, moved = 0;
            for (size_t i = 0; i < m; i++) {
                double dx = (double)v[i] - (double)before[0][i];
                bad += dx < -1e-6 || dx >= 0.01 + 1e-6;
                moved += dx > 0;
            }
            cr_expect_eq(bad, 0, "%d interior coordinates outside [x, x + r)", bad);
            cr_expect_gt(moved, (int)m - 5, "only %d of %zu interior coordinates moved", moved, m);
        } else {
            cr_expect_eq(memcmp(v, before[s], m * sizeof(pf_real)), 0, "the %s points moved", t->set[s].name);
        }
        free(v);
    }
    /* undo */
    cr_assert_eq(pf_train_graph_upload_interior(t, t->set[0].ps.x), PF_OK);
    const pf_node *in = t->set[0].ctx.x;
    pf_real *v = malloc((size_t)pf_node_nstreams(in) * pf_node_n(in) * pf_node_c(in) * sizeof(pf_real));
    pf_graph_read(t->g, in, v);
    cr_expect_eq(memcmp(v, before[0], (size_t)n * d * sizeof(pf_real)), 0, "the set's own points are back");
    free(v);
    /* sigma through the backend: 1 after the first gradient (one has no
     * spread), then the noise level of the gradients held, from the second
     * push on, as released */
    pf_real *g = pf_graph_grads(t->g);
    for (int k = 0; k < tc.region.history; k++) {
        for (size_t j = 0; j < t->nmodel; j++) g[j] = (pf_real)(1 + 0.1 * ((k + (int)j) % 3));
        pf_region_push(rg, g);
        double s = pf_region_read(rg);
        if (k == 0) cr_expect_eq(s, 1, "push 0: sigma %g from one gradient", s);
        else cr_expect(s > 0 && s < 0.1 && s == pf_region_sigma(rg), "push %d: sigma %g", k, s);
    }
    cr_assert_eq(pf_region_draw(rg, t->geom, t->set[0].ps.x, n, d, &y), PF_OK);
    cr_expect_eq(pf_region_last_radius(rg), pf_region_radius(&tc.region, pf_region_sigma(rg)));
    cr_expect_eq(pf_region_last_radius(rg), 0.05, "a small sigma: the cap");
    pf_region_free(rg);
    for (int s = 0; s < t->nsets; s++) free(before[s]);
    pf_train_graph_free(t);
}

/* sigma during the warm-up, as thuml/RoPINN computes it: after k < T0
 * gradients, the mean over parameters of std / (mean |g| + 1e-6) over those
 * k (np.std, divisor k), not 1 until the window is full. Two parameters,
 * T0 = 10, gradients (1, 2), (3, 2), (2, 5): after two, parameter 0 has
 * std 1 and mean |g| 2, parameter 1 none; after three, std sqrt(2/3), mean
 * 2 and std sqrt(2), mean 3. The radius of the next draw follows. */
Test(region, sigma_is_computed_from_the_second_gradient_as_released)
{
    const pf_backend *be = pf_backend_cpu();
    pf_region *rg = pf_region_alloc_on(be, 2, &RO, 1);
    cr_assert_not_null(rg, "%s", pf_errmsg());
    const pf_real gs[3][2] = {{1, 2}, {3, 2}, {2, 5}};
    const double want[3] = {1, (1 / (2 + 1e-6) + 0) / 2, (sqrt(2.0 / 3) / (2 + 1e-6) + sqrt(2.0) / (3 + 1e-6)) / 2};
    void *dg;
    cr_assert_eq(be->alloc(sizeof gs[0], &dg), PF_OK);
    for (int k = 0; k < 3; k++) {
        be->upload(dg, gs[k], sizeof gs[k]);
        pf_region_push(rg, dg);
        double s = pf_region_read(rg);
        cr_expect_leq(fabs(s - want[k]), 1e-12 * want[k], "after %d gradients: sigma %.15g, released %.15g", k + 1, s,
                      want[k]);
    }
    pf_geom *g = NULL;
    cr_assert_eq(pf_geom_box_alloc(1, (double[]){0}, (double[]){1}, NULL, &g), PF_OK);
    pf_real x[1] = {0.5};
    const pf_real *y;
    cr_assert_eq(pf_region_draw(rg, g, x, 1, 1, &y), PF_OK);
    cr_expect_float_eq(pf_region_last_radius(rg), 1e-4 / want[2], 1e-18, "radius %g", pf_region_last_radius(rg));
    be->free(dg);
    pf_region_free(rg);
    pf_geom_free(g);
}

/* The clamp we keep (docs/baselines.md, RoPINN): a point moved past the
 * upper face of its box lands on the face, never beyond, even at the
 * largest radius; the released scripts, on their analytic 1-D problems,
 * let it go up to r outside. */
Test(region, a_point_at_the_upper_face_stays_on_it)
{
    pf_geom *g = NULL;
    cr_assert_eq(pf_geom_box_alloc(2, (double[]){0, 0}, (double[]){1, 1}, NULL, &g), PF_OK);
    pf_real x[4] = {1, 1, 0.995f, 0.5f}, y[4];
    pf_rng *r = pf_rng_alloc(11);
    for (int rep = 0; rep < 100; rep++) {
        pf_region_perturb(g, RO.max_radius, r, x, 2, 2, y);
        cr_expect(y[0] == 1 && y[1] == 1, "the corner moved to (%g, %g)", y[0], y[1]);
        cr_expect(y[2] >= x[2] && y[2] <= 1, "x %g -> %g", x[2], y[2]);
        cr_expect(y[3] >= x[3] && y[3] < x[3] + (pf_real)RO.max_radius, "y %g -> %g", x[3], y[3]);
    }
    pf_rng_free(r);
    pf_geom_free(g);
}

/* A bad configuration is refused with a message. */
Test(region, a_bad_configuration_is_refused)
{
    pf_region_config c = RO;
    c.history = 0;
    cr_expect_null(pf_region_alloc_on(pf_backend_cpu(), 10, &c, 1));
    cr_expect_not_null(strstr(pf_errmsg(), "history"), "%s", pf_errmsg());
    c = RO;
    c.r0 = 0;
    cr_expect_null(pf_region_alloc_on(pf_backend_cpu(), 10, &c, 1));
}
