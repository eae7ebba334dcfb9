/*
 * test_seq_train.c — a sequence model (PINNsFormer) in the training graph
 * (train/train_graph.h): the losses a tiny case builds are recomputed from
 * the network's token outputs alone, read from a separate value-only graph
 * with the same parameters:
 *   - the initial condition compares token 0 with the data;
 *   - the boundary condition averages over every token;
 *   - the PDE residual averages over every token, each token's derivatives
 *     those of its output as a function of its point (central differences,
 *     double build);
 *   - predictions (the value probe) are token 0.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "spec_configs.h"
#include "train/train_graph.h"

#define PI 3.14159265358979323846
#define NU (0.01 / PI) /* burgers_1d's viscosity (pdes/burgers_1d.c) */

typedef struct seq_case {
    const pf_pde *p;
    pf_model_config mc;
    pf_train_config tc;
    pf_train_graph *t;
    int k;
} seq_case;

static void seq_case_init_on(seq_case *c, const char *pde)
{
    cr_assert_eq(pf_pdes_lookup(pde, &c->p), PF_OK);
    /* dt 0.05: tokens far enough apart that token 0 and the others differ */
    spec_configs("{\"representation\": {}, \"architecture\": {\"type\": \"pinnsformer\", \"depth\": 1, \"width\": 4,"
                 " \"pinnsformer\": {\"tokens\": 3, \"dt\": 0.05, \"d_ff\": 6, \"d_hidden\": 5, \"heads\": 2}},"
                 " \"sampling\": {\"interior\": 7, \"boundary\": 5, \"initial\": 6}, \"constraints\": {}, \"loss\": {},"
                 " \"optimization\": {\"stages\": [{\"optimizer\": \"adam\", \"steps\": 1000}]}, \"training\": {}}",
                 c->p, PF_SPEC_BUDGET_LOW, &c->mc, &c->tc);
    cr_assert_eq(c->mc.arch, PF_ARCH_PINNSFORMER);
    c->k = pf_model_tokens(&c->mc);
    cr_assert_eq(c->k, 3);
    cr_assert_eq(pf_train_graph_alloc_on(pf_backend_cpu(), c->p, &c->mc, &c->tc, 11, &c->t), PF_OK, "%s",
                 pf_errmsg());
    pf_graph_forward(c->t->g);
}

static void seq_case_init(seq_case *c) { seq_case_init_on(c, "burgers_1d"); }

/* Every token's output at the n points x (n x d_in): u[(p k + i) d_out + o]. */
static void token_outputs(const seq_case *c, const pf_real *x, int n, double *u)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_model *m = pf_model_alloc(g, &c->mc);
    cr_assert_not_null(m, "%s", pf_errmsg());
    pf_node *xi = pf_input(g, "x", n, c->p->d_in, NULL, NULL);
    pf_node *out = pf_model_apply_seq(m, g, pf_tokens(g, xi, c->k, (pf_real)c->mc.seq_dt));
    pf_model_free(m);
    cr_assert_eq(pf_graph_compile(g, 0), PF_OK, "%s", pf_errmsg());
    for (int id = 0; id < c->t->nmodel_ids; id++) {
        int r, cc;
        pf_graph_param_shape(c->t->g, id, &r, &cc);
        memcpy(pf_graph_param_data(g, id), pf_graph_param_data(c->t->g, id), sizeof(pf_real) * (size_t)r * (size_t)cc);
    }
    pf_graph_set_input(g, xi, x);
    pf_graph_forward(g);
    size_t len = (size_t)n * (size_t)c->k * (size_t)c->p->d_out;
    pf_real *v = malloc(sizeof(pf_real) * len);
    pf_graph_read(g, out, v);
    for (size_t i = 0; i < len; i++) u[i] = (double)v[i];
    free(v);
    pf_graph_free(g);
}

static const pf_train_set *set_named(const seq_case *c, const char *name)
{
    for (int s = 0; s < c->t->nsets; s++)
        if (!strcmp(c->t->set[s].name, name)) return &c->t->set[s];
    cr_assert_fail("no set %s", name);
    return NULL;
}

static double loss_of_term(const seq_case *c, int term)
{
    for (int l = 0; l < c->t->nloss; l++)
        if (c->t->loss_term[l] == term) return pf_graph_loss_value(c->t->g, l);
    cr_assert_fail("no loss of term %d", term);
    return 0;
}

#define TOL (sizeof(pf_real) == sizeof(double) ? 1e-10 : 2e-5)

Test(seq_train, initial_condition_on_token_0_boundary_on_every_token)
{
    seq_case c;
    seq_case_init(&c);
    const pf_train_set *ic = set_named(&c, "initial"), *bc = set_named(&c, "bc");
    int n = ic->ps.n, k = c.k;
    double *u = malloc(sizeof(double) * (size_t)(n * k));
    token_outputs(&c, ic->ps.x, n, u);
    double tok0 = 0, all = 0;
    for (int p = 0; p < n; p++) {
        double g = -sin(PI * (double)ic->ps.x[2 * p]);
        tok0 += (u[p * k] - g) * (u[p * k] - g) / n;
        for (int i = 0; i < k; i++) all += (u[p * k + i] - g) * (u[p * k + i] - g) / (n * k);
    }
    double got = loss_of_term(&c, 1); /* term 1 + 0: ic */
    cr_expect(fabs(got - tok0) <= TOL * tok0, "ic loss %.12g, token 0 gives %.12g", got, tok0);
    cr_expect(fabs(all - tok0) > 1e-3 * tok0, "the case must tell token 0 from all tokens (%g vs %g)", all, tok0);
    free(u);

    n = bc->ps.n;
    u = malloc(sizeof(double) * (size_t)(n * k));
    token_outputs(&c, bc->ps.x, n, u);
    tok0 = all = 0;
    for (int p = 0; p < n; p++) {
        tok0 += u[p * k] * u[p * k] / n;
        for (int i = 0; i < k; i++) all += u[p * k + i] * u[p * k + i] / (n * k);
    }
    got = loss_of_term(&c, 2); /* bc: u = 0 on the walls */
    cr_expect(fabs(got - all) <= TOL * all, "bc loss %.12g, every token gives %.12g", got, all);
    cr_expect(fabs(all - tok0) > 1e-3 * all, "the case must tell token 0 from all tokens (%g vs %g)", all, tok0);
    free(u);
    pf_train_graph_free(c.t);
}

/* A boundary condition's data are evaluated at each token's own shifted
 * time, as the released code evaluates them on its shifted sequences:
 * navier_stokes_2d_long_time's inlet u = sin(pi y)(sin(pi t) + sin(3 pi t)
 * + sin(5 pi t)) on x = 0, token i at t + i dt. */
static double inlet(double y, double t)
{
    return sin(PI * y) * (sin(PI * t) + sin(3 * PI * t) + sin(5 * PI * t));
}

Test(seq_train, a_boundary_target_is_taken_at_each_tokens_shifted_time)
{
    seq_case c;
    seq_case_init_on(&c, "navier_stokes_2d_long_time");
    const pf_train_set *bc = set_named(&c, "inlet_u");
    int n = bc->ps.n, k = c.k, d = c.p->d_out;
    double dt = c.mc.seq_dt;
    cr_assert_gt(n, 0);
    double *u = malloc(sizeof(double) * (size_t)(n * k * d));
    token_outputs(&c, bc->ps.x, n, u);
    double shifted = 0, tok0 = 0;
    for (int p = 0; p < n; p++) {
        double y = bc->ps.x[3 * p + 1], t = bc->ps.x[3 * p + 2];
        cr_assert_eq(bc->ps.x[3 * p], 0, "an inlet point on x = 0");
        for (int i = 0; i < k; i++) {
            double ui = u[(p * k + i) * d]; /* u, output 0, of token i */
            double a = ui - inlet(y, t + i * dt), b = ui - inlet(y, t);
            shifted += a * a / (n * k);
            tok0 += b * b / (n * k);
        }
    }
    double got = loss_of_term(&c, 1 + 3); /* inlet_u, constraint 3 */
    cr_expect(fabs(got - shifted) <= TOL * shifted, "inlet loss %.12g, targets at t + i dt give %.12g", got,
              shifted);
    cr_expect(fabs(tok0 - shifted) > 1e-3 * shifted, "the case must tell the shifted targets from token 0's (%g vs %g)",
              tok0, shifted);
    free(u);
    pf_train_graph_free(c.t);
}

Test(seq_train, predictions_are_token_0)
{
    seq_case c;
    seq_case_init(&c);
    const pf_train_set *in = &c.t->set[0];
    int n = in->ps.n, k = c.k;
    double *u = malloc(sizeof(double) * (size_t)(n * k));
    pf_real *v = malloc(sizeof(pf_real) * (size_t)n);
    token_outputs(&c, in->ps.x, n, u);
    pf_train_graph_sync_probes(c.t);
    cr_assert_eq(pf_train_graph_values(c.t, in->ps.x, n, v), PF_OK, "%s", pf_errmsg());
    for (int p = 0; p < n; p++) {
        cr_expect(fabs((double)v[p] - u[p * k]) <= TOL * (1 + fabs(u[p * k])), "point %d: probe %.12g, token 0 %.12g",
                  p, (double)v[p], u[p * k]);
        cr_expect(fabs(u[p * k + 1] - u[p * k]) > 1e-6, "point %d: tokens 0 and 1 agree (%g)", p, u[p * k]);
    }
    free(u);
    free(v);
    pf_train_graph_free(c.t);
}

#ifdef PF_DOUBLE
/* The residual loss is the mean over every token of u_t + u u_x - nu u_xx,
 * each token's derivatives taken by moving its point (the shift fixed):
 * central differences of the token outputs, h = 1e-4. */
Test(seq_train, residual_averages_every_token_with_derivatives_by_the_point)
{
    seq_case c;
    seq_case_init(&c);
    const pf_train_set *in = &c.t->set[0];
    int n = in->ps.n, k = c.k;
    const double h = 1e-4;
    double *u[5];
    pf_real *x = malloc(sizeof(pf_real) * (size_t)(2 * n));
    for (int v = 0; v < 5; v++) { /* 0: x, 1/2: x -+ h, 3/4: t -+ h */
        u[v] = malloc(sizeof(double) * (size_t)(n * k));
        memcpy(x, in->ps.x, sizeof(pf_real) * (size_t)(2 * n));
        for (int p = 0; p < n && v > 0; p++) x[2 * p + (v - 1) / 2] += (v % 2 ? -h : h);
        token_outputs(&c, x, n, u[v]);
    }
    double want = 0, tok0 = 0;
    for (int r = 0; r < n * k; r++) {
        double ux = (u[2][r] - u[1][r]) / (2 * h), ut = (u[4][r] - u[3][r]) / (2 * h);
        double uxx = (u[2][r] - 2 * u[0][r] + u[1][r]) / (h * h);
        double res = ut + u[0][r] * ux - NU * uxx;
        want += res * res / (n * k);
        if (r % k == 0) tok0 += res * res / n;
    }
    double got = loss_of_term(&c, 0);
    cr_expect(fabs(got - want) <= 1e-6 * want, "pde loss %.12g, differences give %.12g", got, want);
    cr_expect(fabs(tok0 - want) > 1e-3 * want, "the case must tell token 0 from all tokens (%g vs %g)", tok0, want);
    for (int v = 0; v < 5; v++) free(u[v]);
    free(x);
    pf_train_graph_free(c.t);
}
#endif

/* The tokens shift the last input: on every time-dependent PDE that is the
 * time, as the released code shifts t (steady PDEs: the last coordinate). */
Test(seq_train, the_shifted_input_is_time_where_there_is_one)
{
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        cr_expect(p->time_input < 0 || p->time_input == p->d_in - 1, "%s: time is input %d of %d", p->name,
                  p->time_input, p->d_in);
    }
}
