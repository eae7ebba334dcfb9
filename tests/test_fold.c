/*
 * test_fold.c — constant folding in the static graph (graph.h,
 * pf_graph_prepare): a graph with constant branches (a hard transform's
 * lift and bubble, fixed Fourier features of a frozen parameter, the input
 * normalisation, a boundary datum) gives bit-identical losses, gradients
 * and evaluations with folding on and off, whole and in chunks, across new
 * points and a rewritten frozen parameter; a constant node runs once per
 * point set and never backward, and reading a frozen parameter does not
 * run it again; a bad PF_GRAPH_FOLD is refused.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tensor/graph.h"

enum { N = 40, NB = 12, NE = 7, H = 8, NF = 3 };

typedef struct fold_case {
    pf_graph *g;
    pf_node *x, *xb, *f, *xe, *eval;
    int B; /* the frozen Fourier matrix */
} fold_case;

/* The network on points p (2 channels): [affine(p), sin(p B^T), cos(p B^T)]
 * -> tanh(W1 . + b1) -> W2 . + b2. */
static pf_node *net(pf_graph *g, pf_node *p, int B, const int *w)
{
    const pf_real scale[2] = {2, 2}, shift[2] = {-1, -1};
    pf_node *pb = pf_linear(g, p, B, -1);
    pf_node *parts[3] = {pf_affine(g, p, scale, shift), pf_unary(g, PF_UNARY_SIN, pb, 0),
                         pf_unary(g, PF_UNARY_COS, pb, 0)};
    pf_node *h = pf_unary(g, PF_UNARY_TANH, pf_linear(g, pf_concat(g, 3, parts), w[0], w[1]), 0);
    return pf_linear(g, h, w[2], w[3]);
}

/* Points of a seed: interior in (0, 1)^2, boundary and evaluation too. */
static void points(unsigned seed, pf_real *x, int n)
{
    for (int i = 0; i < 2 * n; i++) x[i] = (pf_real)(0.05 + 0.9 * fmod(0.6180339887 * (i + 1) + 0.1 * seed, 1.0));
}

/* u = sin(pi x0) x1 + x0 (1 - x0) x1 (1 - x1) net(x); -lap u = f inside,
 * net(xb) = sin(3 xb0) on the boundary set; net(xe) for evaluation. */
static fold_case fold_case_build(bool fold, size_t chunk_bytes)
{
    fold_case c = {0};
    pf_graph *g = c.g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_fold(g, fold);
    pf_graph_set_chunk_bytes(g, chunk_bytes);
    c.B = pf_param(g, "B", NF, 2, PF_PARAM_FROZEN, pf_init_normal(0, 2));
    int w[4] = {pf_param(g, "W1", H, 2 + 2 * NF, PF_PARAM_TRAINABLE, pf_init_glorot_normal()),
                pf_param(g, "b1", 1, H, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1)),
                pf_param(g, "W2", 1, H, PF_PARAM_TRAINABLE, pf_init_glorot_normal()),
                pf_param(g, "b2", 1, 1, PF_PARAM_TRAINABLE, pf_init_zero())};
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 2);
    pf_real dirs[4] = {1, 0, 0, 1};
    c.x = pf_input(g, "x", N, 2, &L, dirs);
    c.f = pf_input(g, "f", N, 1, NULL, NULL);
    c.xb = pf_input(g, "xb", NB, 2, NULL, NULL);
    c.xe = pf_input(g, "xe", NE, 2, NULL, NULL);
    pf_node *x0 = pf_slice(g, c.x, 0, 1), *x1 = pf_slice(g, c.x, 1, 1);
    pf_node *lift = pf_mul(g, pf_unary(g, PF_UNARY_SIN, pf_scale(g, x0, (pf_real)3.14159265358979), 0), x1);
    pf_node *b0 = pf_mul(g, x0, pf_add_const(g, pf_scale(g, x0, -1), 1));
    pf_node *bubble = pf_mul(g, b0, pf_mul(g, x1, pf_add_const(g, pf_scale(g, x1, -1), 1)));
    pf_node *u = pf_add(g, lift, pf_mul(g, bubble, net(g, c.x, c.B, w)));
    pf_node *lap = pf_add(g, pf_deriv(g, u, 0, 2), pf_deriv(g, u, 1, 2));
    pf_loss(g, "pde", pf_mean_square(g, pf_add(g, lap, c.f), NULL));
    pf_node *gb = pf_unary(g, PF_UNARY_SIN, pf_scale(g, pf_slice(g, c.xb, 0, 1), 3), 0);
    pf_loss(g, "bc", pf_mean_square(g, pf_sub(g, net(g, c.xb, c.B, w), gb), NULL));
    c.eval = net(g, c.xe, c.B, w);
    cr_assert_eq(pf_graph_compile(g, 11), PF_OK, "%s", pf_errmsg());
    pf_real xs[2 * N], fs[N], xb[2 * NB], xe[2 * NE];
    points(1, xs, N);
    points(2, xb, NB);
    points(3, xe, NE);
    for (int i = 0; i < N; i++) fs[i] = (pf_real)(i % 5) - 2;
    pf_graph_set_input(g, c.x, xs);
    pf_graph_set_input(g, c.f, fs);
    pf_graph_set_input(g, c.xb, xb);
    pf_graph_set_input(g, c.xe, xe);
    return c;
}

/* A step on a host-memory graph: gradients, then p -= 0.05 g. */
static void sgd_step(pf_graph *g)
{
    const pf_real w[2] = {1, (pf_real)0.5};
    pf_graph_forward_backward(g, w);
    pf_real *p = pf_graph_params(g);
    const pf_real *gr = pf_graph_grads(g);
    for (size_t i = 0; i < pf_graph_nparams(g); i++) p[i] -= (pf_real)0.05 * gr[i];
}

static void expect_same(fold_case *a, fold_case *b, int step)
{
    for (int t = 0; t < 2; t++) {
        double la = pf_graph_loss_value(a->g, t), lb = pf_graph_loss_value(b->g, t);
        cr_assert(!memcmp(&la, &lb, sizeof la), "step %d, loss %d: folded %a, unfolded %a", step, t, la, lb);
    }
    size_t n = pf_graph_nparams(a->g);
    cr_assert(!memcmp(pf_graph_grads(a->g), pf_graph_grads(b->g), n * sizeof(pf_real)),
              "step %d: the gradients differ", step);
    cr_assert(!memcmp(pf_graph_params(a->g), pf_graph_params(b->g), n * sizeof(pf_real)),
              "step %d: the parameters differ", step);
}

/* Folding on against off: 12 steps, new interior points after 4, a new
 * frozen Fourier matrix after 8, then an evaluation. */
static void check_fold_changes_no_bit(size_t chunk_bytes, int min_chunks)
{
    fold_case a = fold_case_build(true, chunk_bytes), b = fold_case_build(false, chunk_bytes);
    cr_assert_geq(pf_graph_nchunks(a.g), min_chunks, "the test needs %d chunks, got %d", min_chunks,
                  pf_graph_nchunks(a.g));
    double first = 0;
    for (int s = 0; s < 12; s++) {
        if (s == 4) {
            pf_real xs[2 * N];
            points(5, xs, N);
            pf_graph_set_input(a.g, a.x, xs);
            pf_graph_set_input(b.g, b.x, xs);
        }
        if (s == 8)
            for (fold_case *c = &a; c; c = c == &a ? &b : NULL) {
                pf_real *B = pf_graph_param_data(c->g, c->B);
                for (int i = 0; i < 2 * NF; i++) B[i] = (pf_real)(0.5 * i - 1);
            }
        sgd_step(a.g);
        sgd_step(b.g);
        expect_same(&a, &b, s);
        if (s == 0) first = pf_graph_loss_value(a.g, 0);
    }
    /* the steps did move: the comparison is of numbers that change */
    cr_assert_neq(pf_graph_loss_value(a.g, 0), first);
    pf_graph_forward(a.g);
    pf_graph_forward(b.g);
    pf_real ua[NE], ub[NE];
    pf_graph_read(a.g, a.eval, ua);
    pf_graph_read(b.g, b.eval, ub);
    cr_assert(!memcmp(ua, ub, sizeof ua), "the evaluation differs");
    pf_graph_free(a.g);
    pf_graph_free(b.g);
}

Test(fold, folding_changes_no_bit_of_losses_gradients_or_steps) { check_fold_changes_no_bit(0, 1); }

/* The same in chunks: cached nodes keep one buffer per chunk (a shorter
 * last chunk, and boundary chunks that idle). */
Test(fold, folding_changes_no_bit_in_chunks) { check_fold_changes_no_bit(2048, 4); }

/* Forward runs of every node over 5 steps, new interior points, 5 more. */
Test(fold, a_constant_node_runs_once_per_point_set_and_never_backward)
{
    fold_case c = fold_case_build(true, 0);
    cr_assert_eq(pf_graph_profile(c.g, true), PF_OK);
    int n = pf_graph_profile_rows(c.g, NULL, 0);
    pf_profile_row *r0 = calloc((size_t)n, sizeof *r0), *r1 = calloc((size_t)n, sizeof *r1);
    cr_assert(r0 && r1);
    for (int s = 0; s < 5; s++) sgd_step(c.g);
    pf_graph_profile_rows(c.g, r0, n);
    pf_real xs[2 * N];
    points(6, xs, N);
    pf_graph_set_input(c.g, c.x, xs);
    for (int s = 0; s < 5; s++) sgd_step(c.g);
    pf_graph_profile_rows(c.g, r1, n);
    int nfold[2] = {0, 0}, nstep = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(r0[i].op, "x") || !strcmp(r0[i].op, "xb") || !strcmp(r0[i].op, "f") ||
            !strcmp(r0[i].op, "xe") || r0[i].n == NE)
            continue; /* inputs, the evaluation branch */
        if (r0[i].fold) {
            bool interior = r0[i].n == N;
            nfold[interior]++;
            cr_expect_eq(r0[i].nfwd, 1, "node %d (%s): %ld runs in 5 steps", i, r0[i].op, r0[i].nfwd);
            /* new interior points: the interior's constants again, not the boundary's */
            cr_expect_eq(r1[i].nfwd, interior ? 2 : 1, "node %d (%s) after new points: %ld runs", i, r1[i].op,
                         r1[i].nfwd);
            cr_expect_eq(r1[i].nbwd, 0, "node %d (%s) ran backward", i, r1[i].op);
        } else {
            nstep++;
            cr_expect_eq(r0[i].nfwd, 5, "node %d (%s): %ld runs in 5 steps", i, r0[i].op, r0[i].nfwd);
            cr_expect_eq(r1[i].nfwd, 10, "node %d (%s): %ld runs in 10 steps", i, r1[i].op, r1[i].nfwd);
        }
    }
    /* interior: the lift (2 slices, scale, sin, mul), the bubble (2 x
     * (scale, add_const, mul), mul), the network's features (affine,
     * linear(B), sin, cos, concat) = 17; boundary: the features and the
     * datum (slice, scale, sin) = 8 */
    cr_expect_eq(nfold[1], 17, "%d constant interior nodes", nfold[1]);
    cr_expect_eq(nfold[0], 8, "%d constant boundary nodes", nfold[0]);
    cr_expect_gt(nstep, 10);
    free(r0);
    free(r1);
    pf_graph_free(c.g);
}

/* With folding off every node runs in every step. */
Test(fold, without_folding_every_node_runs_every_step)
{
    fold_case c = fold_case_build(false, 0);
    cr_assert_eq(pf_graph_profile(c.g, true), PF_OK);
    for (int s = 0; s < 3; s++) sgd_step(c.g);
    int n = pf_graph_profile_rows(c.g, NULL, 0);
    pf_profile_row *r = calloc((size_t)n, sizeof *r);
    cr_assert(r);
    pf_graph_profile_rows(c.g, r, n);
    for (int i = 0; i < n; i++) {
        cr_expect(!r[i].fold);
        if (r[i].n == N && strcmp(r[i].op, "x") && strcmp(r[i].op, "f"))
            cr_expect_eq(r[i].nfwd, 3, "node %d (%s): %ld runs", i, r[i].op, r[i].nfwd);
    }
    free(r);
    pf_graph_free(c.g);
}

Test(fold, a_bad_pf_graph_fold_is_refused_by_name)
{
    setenv("PF_GRAPH_FOLD", "yes", 1);
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_node *x = pf_input(g, "x", 4, 1, NULL, NULL);
    pf_loss(g, "l", pf_mean_square(g, x, NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "PF_GRAPH_FOLD='yes'") != NULL, "%s", pf_errmsg());
    pf_graph_free(g);
}

/* PF_GRAPH_FOLD=0 turns folding off in a graph built with it on. */
Test(fold, pf_graph_fold_0_turns_folding_off)
{
    setenv("PF_GRAPH_FOLD", "0", 1);
    fold_case c = fold_case_build(true, 0);
    int n = pf_graph_profile_rows(c.g, NULL, 0);
    pf_profile_row *r = calloc((size_t)n, sizeof *r);
    cr_assert(r);
    pf_graph_profile_rows(c.g, r, n);
    for (int i = 0; i < n; i++) cr_expect(!r[i].fold, "node %d (%s) folded", i, r[i].op);
    free(r);
    pf_graph_free(c.g);
}

/* Forward runs of every node, after the steps so far. */
static pf_profile_row *runs_now(const pf_graph *g, int n)
{
    pf_profile_row *r = calloc((size_t)n, sizeof *r);
    cr_assert(r);
    pf_graph_profile_rows(g, r, n);
    return r;
}

/* Reading the frozen Fourier matrix (pf_graph_param_read: what a copy into
 * the probes or a download does) between steps leaves the constants
 * computed; writing it (pf_graph_param_data) computes them again, once. */
Test(fold, reading_a_frozen_parameter_keeps_the_constants_and_writing_it_does_not)
{
    fold_case c = fold_case_build(true, 2048);
    cr_assert_eq(pf_graph_profile(c.g, true), PF_OK);
    int n = pf_graph_profile_rows(c.g, NULL, 0);
    sgd_step(c.g);
    pf_profile_row *r0 = runs_now(c.g, n);
    double sum = 0;
    for (int s = 0; s < 4; s++) {
        const pf_real *B = pf_graph_param_read(c.g, c.B);
        for (int i = 0; i < 2 * NF; i++) sum += B[i];
        sgd_step(c.g);
    }
    cr_assert(isfinite(sum));
    pf_profile_row *r1 = runs_now(c.g, n);
    pf_real *B = pf_graph_param_data(c.g, c.B);
    B[0] = (pf_real)0.25;
    sgd_step(c.g);
    pf_profile_row *r2 = runs_now(c.g, n);
    int nfold = 0, nstep = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(r0[i].op, "x") || !strcmp(r0[i].op, "xb") || !strcmp(r0[i].op, "f") || !strcmp(r0[i].op, "xe") ||
            !r0[i].nfwd)
            continue; /* inputs; the evaluation branch, which no step runs */
        if (r0[i].fold) {
            nfold++;
            cr_expect_eq(r1[i].nfwd, r0[i].nfwd, "node %d (%s): %ld runs after 4 reads, %ld before", i, r1[i].op,
                         r1[i].nfwd, r0[i].nfwd);
            cr_expect_eq(r2[i].nfwd, 2 * r0[i].nfwd, "node %d (%s): %ld runs after a write", i, r2[i].op, r2[i].nfwd);
        } else {
            nstep++;
            cr_expect_eq(r1[i].nfwd, 5 * r0[i].nfwd, "node %d (%s) ran %ld times in 5 steps", i, r1[i].op,
                         r1[i].nfwd);
        }
    }
    cr_expect_eq(nfold, 25, "%d constant nodes", nfold); /* as in a_constant_node_runs_once_per_point_set */
    cr_expect_gt(nstep, 10);
    free(r0);
    free(r1);
    free(r2);
    pf_graph_free(c.g);
}
