/*
 * test_train_options.c — every AlgorithmSpec option changes what training
 * does: one test per option (closely related keys grouped where one
 * observable covers them) runs tiny trainings through the whole path
 * spec -> pf_spec_check -> pf_spec_instantiate -> pf_train_run and checks an
 * observable effect of the option: parameter counts and names, point counts
 * and positions, loss weights in the records, loss curves, stage logs.
 *
 * Runs are tiny (depth 1-2, width 8-16, 64-256 points) and short: the specs
 * are written for the low-fidelity budget (stage steps summing to 1,000, as
 * pf_spec_check demands) and pf_train_config_scale_steps() then shrinks the
 * stages to the `budget` of the test (1 to 80 steps). That rescales the stage
 * steps and the schedule lengths measured in steps (decay_steps, step_size,
 * warmup_steps) by the same factor, but NOT the other step counts of the
 * spec (sampling.resample_every, sampling.adaptive.every,
 * loss.weighting.every, training.log_every / eval_every): those are written
 * here in steps of the shrunk run.
 *
 * Many checks compare two runs that differ in one key and share the seed:
 * parameter initialisation (per parameter id and name) and point draws
 * depend only on the seed and the shapes, so such runs start from the same
 * network and points when the key adds no parameter before others, and a
 * single-threaded run is a deterministic function of its inputs (exact
 * equality of curves is meaningful). Tolerances hold in both precisions.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data_fixture.h"
#include "registry.h"
#include "spec/spec.h"
#include "stats/describe.h"
#include "train/trainer.h"

/* ------------------------------------------------------------- helpers */

static const double PI = 3.14159265358979323846;

typedef struct trained {
    pf_train_result r;
    pf_model_config mc;
    pf_train_config tc;
} trained;

/* JSON with ' for " (readable specs in C strings). */
static json_t *load(const char *text)
{
    char *s = strdup(text);
    cr_assert_not_null(s);
    for (char *c = s; *c; c++)
        if (*c == '\'') *c = '"';
    json_t *j = NULL;
    cr_assert_eq(pf_spec_parse(s, &j), PF_OK, "spec does not parse: %s\n%s", pf_errmsg(), s);
    free(s);
    return j;
}

static const pf_pde *pde(const char *name)
{
    const pf_pde *p = NULL;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", pf_errmsg());
    return p;
}

/* Train `pde_name` with a tiny base spec overridden by `patch` (merged
 * recursively: objects key by key, anything else replaced — so a patch's
 * "stages" replaces the whole list). The spec is checked at low fidelity
 * (its steps must sum to 1,000), instantiated, and its stages are scaled to
 * `budget` steps (see the file comment). */
static trained train_any(const char *pde_name, const char *patch, uint64_t seed, long budget)
{
    const pf_pde *p = pde(pde_name);
    require_pde_data(p); /* skips without them */
    json_t *spec = load(p->time_input >= 0
                            ? "{'representation': {}, 'architecture': {'depth': 1, 'width': 8},"
                              " 'sampling': {'interior': 128, 'boundary': 64, 'initial': 64},"
                              " 'constraints': {}, 'loss': {},"
                              " 'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01}]},"
                              " 'training': {'log_every': 1, 'eval_every': 10000}}"
                            : "{'representation': {}, 'architecture': {'depth': 1, 'width': 8},"
                              " 'sampling': {'interior': 128, 'boundary': 64},"
                              " 'constraints': {}, 'loss': {},"
                              " 'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01}]},"
                              " 'training': {'log_every': 1, 'eval_every': 10000}}");
    if (patch) {
        json_t *pj = load(patch);
        cr_assert_eq(json_object_update_recursive(spec, pj), 0);
        json_decref(pj);
    }
    json_t *norm = NULL;
    static pf_spec_report rep;
    if (pf_spec_check(spec, p, PF_FIDELITY_LOW, &norm, &rep) != PF_OK) {
        for (int i = 0; i < rep.n; i++) cr_log_info("reason: %s", rep.reason[i]);
        cr_assert_fail("spec rejected for %s: %s (patch %s)", pde_name, rep.n ? rep.reason[0] : "?",
                       patch ? patch : "none");
    }
    trained t;
    memset(&t, 0, sizeof t);
    cr_assert_eq(pf_spec_instantiate(norm, p, &t.mc, &t.tc), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_train_config_scale_steps(&t.tc, budget), PF_OK, "%s", pf_errmsg());
    json_decref(norm);
    json_decref(spec);
    pf_train_options o = pf_train_options_default();
    o.seed = seed;
    cr_assert_eq(pf_train_run(p, &t.mc, &t.tc, &o, &t.r), PF_OK, "training %s failed to start: %s", pde_name,
                 pf_errmsg());
    return t;
}

/* train_any, and the run must complete its budget with status ok. */
static trained train(const char *pde_name, const char *patch, uint64_t seed, long budget)
{
    trained t = train_any(pde_name, patch, seed, budget);
    cr_assert_eq(t.r.status, PF_TRAIN_OK, "training %s (patch %s) ended %s: %s", pde_name,
                 patch ? patch : "none", pf_train_status_name(t.r.status), t.r.detail);
    cr_assert_eq(t.r.steps, budget, "trained %ld steps, not the %ld planned", t.r.steps, budget);
    return t;
}

static void done(trained *t) { pf_train_result_release(&t->r); }

/* The parameter called `name`, or NULL. */
static const pf_train_param *find_param(const pf_train_result *r, const char *name)
{
    for (int i = 0; i < r->nparam; i++)
        if (!strcmp(r->param[i].name, name)) return &r->param[i];
    return NULL;
}

static const pf_train_param *param(const pf_train_result *r, const char *name)
{
    const pf_train_param *q = find_param(r, name);
    if (!q) {
        char all[1024] = "";
        for (int i = 0; i < r->nparam; i++) {
            strncat(all, r->param[i].name, sizeof all - strlen(all) - 2);
            strncat(all, " ", sizeof all - strlen(all) - 1);
        }
        cr_assert_fail("no parameter '%s' among: %s", name, all);
    }
    return q;
}

static size_t psize(const pf_train_param *q) { return (size_t)q->rows * (size_t)q->cols; }

/* max |a - b| over two parameters of the same shape */
static double pdiff(const pf_train_param *a, const pf_train_param *b)
{
    cr_assert(a->rows == b->rows && a->cols == b->cols, "%s: shapes %dx%d and %dx%d", a->name, a->rows,
              a->cols, b->rows, b->cols);
    double m = 0;
    for (size_t i = 0; i < psize(a); i++) m = fmax(m, fabs((double)a->data[i] - (double)b->data[i]));
    return m;
}

/* Euclidean norm of every network parameter ("sa." point weights excluded). */
static double net_norm(const pf_train_result *r)
{
    double s = 0;
    for (int i = 0; i < r->nparam; i++) {
        if (!strncmp(r->param[i].name, "sa.", 3)) continue;
        for (size_t j = 0; j < psize(&r->param[i]); j++) s += (double)r->param[i].data[j] * r->param[i].data[j];
    }
    return sqrt(s);
}

static int term_index(const pf_train_result *r, const char *name)
{
    for (int k = 0; k < r->nterms; k++)
        if (!strcmp(r->term[k].name, name)) return k;
    cr_assert_fail("no loss term '%s'", name);
    return -1;
}

static double weight_at(const pf_train_result *r, int i, int k) { return r->log_weight[i * r->nterms + k]; }

static bool same_curve(const trained *a, const trained *b)
{
    if (a->r.nlog != b->r.nlog) return false;
    for (int i = 0; i < a->r.nlog; i++)
        if (a->r.log_total[i] != b->r.log_total[i]) return false;
    return true;
}

/* First index where the loss curves differ (nlog if nowhere). */
static int first_difference(const trained *a, const trained *b)
{
    cr_assert_eq(a->r.nlog, b->r.nlog);
    for (int i = 0; i < a->r.nlog; i++)
        if (a->r.log_total[i] != b->r.log_total[i]) return i;
    return a->r.nlog;
}

static bool same_points(const trained *a, const trained *b)
{
    if (a->r.n_interior != b->r.n_interior) return false;
    size_t m = (size_t)a->r.n_interior * (size_t)a->r.d_in;
    return !memcmp(a->r.x_interior, b->r.x_interior, sizeof(pf_real) * m);
}

static bool rel_close(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)); }

/* Network outputs at n points x for the parameters of r under config mc
 * (parameters matched by name): an independent evaluation of a trained net. */
static void predict(const pf_model_config *mc, const pf_train_result *r, const pf_real *x, int n, pf_real *u)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_model *m = pf_model_alloc(g, mc);
    cr_assert_not_null(m, "%s", pf_errmsg());
    pf_node *in = pf_input(g, "x", n, mc->in_dim, NULL, NULL);
    pf_node *out = pf_model_apply(m, g, in);
    pf_model_free(m);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    for (int id = 0; id < pf_graph_param_count(g); id++) {
        const pf_train_param *q = param(r, pf_graph_param_name(g, id));
        int rows, cols;
        pf_graph_param_shape(g, id, &rows, &cols);
        cr_assert(rows == q->rows && cols == q->cols, "%s: shape mismatch", q->name);
        memcpy(pf_graph_param_data(g, id), q->data, sizeof(pf_real) * psize(q));
    }
    pf_graph_set_input(g, in, x);
    pf_graph_forward(g);
    pf_graph_read(g, out, u);
    pf_graph_free(g);
}

/* ====================================================== representation */

/* normalize: the trained network maps each input affinely to [-1, 1] before
 * its first layer: its predictions equal those of the same parameters
 * without normalisation at the mapped points (and differ at the raw ones). */
Test(train_options, representation_normalize)
{
    trained a = train("poisson_5d", "{'representation': {'normalize': true}}", 5, 20);
    trained b = train("poisson_5d", "{'representation': {'normalize': false}}", 5, 20);
    cr_assert_neq(a.r.loss_first, b.r.loss_first, "normalize left the initial loss unchanged (%g)", a.r.loss_first);
    cr_assert_gt(a.r.n_eval, 0, "poisson_5d has an analytic reference");
    int n = a.r.n_eval < 512 ? a.r.n_eval : 512, d = a.r.d_in;
    pf_real *xm = malloc(sizeof(pf_real) * (size_t)n * d), *u = malloc(sizeof(pf_real) * (size_t)n);
    const pf_pde *p = pde("poisson_5d");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++)
            xm[i * d + j] = (pf_real)(2 * (a.r.x_eval[i * d + j] - p->lo[j]) / (p->hi[j] - p->lo[j]) - 1);
    pf_model_config plain = a.mc;
    plain.normalize = false;
    predict(&plain, &a.r, xm, n, u);
    double err = 0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs((double)u[i] - (double)a.r.u_eval[i]));
    cr_assert_lt(err, 1e-4, "normalized net at x != plain net at the mapped x: max diff %g", err);
    predict(&plain, &a.r, a.r.x_eval, n, u);
    err = 0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs((double)u[i] - (double)a.r.u_eval[i]));
    cr_assert_gt(err, 1e-3, "normalize made no difference to the predictions (max diff %g)", err);
    free(xm);
    free(u);
    done(&a);
    done(&b);
}

/* fourier.features: a frozen m x e matrix "fourier.B" feeds 2m channels to the
 * first layer and does not count as trainable. */
Test(train_options, fourier_features)
{
    trained a = train("burgers_1d", "{'representation': {'fourier': {'features': 12}}}", 3, 30);
    const pf_train_param *B = param(&a.r, "fourier.B"), *W = param(&a.r, "h1.W");
    cr_assert(B->rows == 12 && B->cols == 2, "fourier.B is %dx%d, want 12x2", B->rows, B->cols);
    cr_assert_not(B->trainable, "fourier.B must be frozen by default");
    cr_assert_eq(W->cols, 24, "h1.W takes %d channels, want 2 m = 24", W->cols);
    cr_assert_eq(a.r.nparams, pf_model_config_nparams(&a.mc));
    cr_assert_eq(a.r.nparams, (size_t)(24 * 8 + 8 + 8 + 1), "nparams %zu", a.r.nparams);
    trained b = train("burgers_1d", "{'representation': {'fourier': {'features': 0}}}", 3, 30);
    cr_assert_null(find_param(&b.r, "fourier.B"), "features 0 still has fourier.B");
    cr_assert_neq(a.r.loss_last, b.r.loss_last);
    done(&a);
    done(&b);
}

/* fourier.sigma: B ~ N(0, sigma^2) (stored as 2 pi B): same draws, scaled. */
Test(train_options, fourier_sigma)
{
    trained a = train("burgers_1d", "{'representation': {'fourier': {'features': 16, 'sigma': 1.0}}}", 3, 10);
    trained b = train("burgers_1d", "{'representation': {'fourier': {'features': 16, 'sigma': 10.0}}}", 3, 10);
    const pf_train_param *Ba = param(&a.r, "fourier.B"), *Bb = param(&b.r, "fourier.B");
    double sa = 0, sb = 0;
    for (size_t i = 0; i < psize(Ba); i++) {
        sa += (double)Ba->data[i] * Ba->data[i];
        sb += (double)Bb->data[i] * Bb->data[i];
    }
    sa = sqrt(sa / psize(Ba));
    sb = sqrt(sb / psize(Bb));
    cr_log_info("fourier.B rms: sigma 1 -> %g (2 pi = 6.28), sigma 10 -> %g", sa, sb);
    cr_assert(rel_close(sb / sa, 10, 1e-4), "rms(B) ratio %g for sigma 10 vs 1, want 10", sb / sa);
    cr_assert(sa > 2 * PI * 0.5 && sa < 2 * PI * 1.5, "rms(2 pi B) %g for sigma 1, want about 2 pi", sa);
    cr_assert_neq(a.r.loss_first, b.r.loss_first);
    done(&a);
    done(&b);
}

/* fourier.trainable: B is trained (moves, counts as parameters); frozen B is
 * the same whatever the training does. */
Test(train_options, fourier_trainable)
{
    trained f1 = train("burgers_1d", "{'representation': {'fourier': {'features': 8, 'trainable': false}}}", 4, 40);
    trained f2 = train("burgers_1d",
                       "{'representation': {'fourier': {'features': 8, 'trainable': false}},"
                       " 'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.05}]}}",
                       4, 40);
    trained t = train("burgers_1d", "{'representation': {'fourier': {'features': 8, 'trainable': true}}}", 4, 40);
    const pf_train_param *B1 = param(&f1.r, "fourier.B"), *B2 = param(&f2.r, "fourier.B"),
                         *Bt = param(&t.r, "fourier.B");
    cr_assert_eq(pdiff(B1, B2), 0, "a frozen fourier.B moved with training (max diff %g)", pdiff(B1, B2));
    cr_assert(Bt->trainable, "trainable fourier.B is not marked trainable");
    cr_assert_gt(pdiff(Bt, B1), 1e-3, "trainable fourier.B did not move (max diff %g)", pdiff(Bt, B1));
    cr_assert_eq(t.r.nparams, f1.r.nparams + 8 * 2, "nparams %zu (trainable) vs %zu (frozen)", t.r.nparams,
                 f1.r.nparams);
    cr_assert_eq(t.r.nparams, pf_model_config_nparams(&t.mc));
    done(&f1);
    done(&f2);
    done(&t);
}

/* periodic.inputs / harmonics: x replaced by 2H channels makes the periodic-x
 * loss terms vanish (the net is exactly periodic in x) while periodic-y
 * stays; without the embedding periodic-x is a real error. */
Test(train_options, periodic_inputs_harmonics)
{
    trained a = train("burgers_2d", "{'representation': {'periodic': {'inputs': ['x'], 'harmonics': 3}}}", 2, 20);
    trained b = train("burgers_2d", "{'representation': {'periodic': {'inputs': []}}}", 2, 20);
    trained c = train("burgers_2d", "{'representation': {'periodic': {'inputs': ['x', 'y'], 'harmonics': 1}}}", 2, 20);
    const char *px[] = {"periodic_x_u", "periodic_x_v"}, *py[] = {"periodic_y_u", "periodic_y_v"};
    for (int i = 0; i < 2; i++) {
        int kx = term_index(&a.r, px[i]), ky = term_index(&a.r, py[i]);
        cr_assert_lt(a.r.term[kx].loss_first, 1e-9, "%s with x periodic: %g", px[i], a.r.term[kx].loss_first);
        cr_assert_lt(a.r.term[kx].loss_last, 1e-9, "%s with x periodic: %g", px[i], a.r.term[kx].loss_last);
        cr_assert_gt(a.r.term[ky].loss_first, 1e-6, "%s with only x periodic: %g", py[i], a.r.term[ky].loss_first);
        cr_assert_gt(b.r.term[kx].loss_first, 1e-6, "%s without embedding: %g", px[i], b.r.term[kx].loss_first);
        cr_assert_lt(c.r.term[kx].loss_last, 1e-9, "%s with x, y periodic: %g", px[i], c.r.term[kx].loss_last);
        cr_assert_lt(c.r.term[ky].loss_last, 1e-9, "%s with x, y periodic: %g", py[i], c.r.term[ky].loss_last);
    }
    /* channels into the first layer: 2H for x, then y and t */
    cr_assert_eq(param(&a.r, "h1.W")->cols, 2 * 3 + 2, "h1.W takes %d channels", param(&a.r, "h1.W")->cols);
    cr_assert_eq(param(&b.r, "h1.W")->cols, 3);
    cr_assert_eq(param(&c.r, "h1.W")->cols, 2 + 2 + 1);
    cr_assert_eq(a.r.nparams, pf_model_config_nparams(&a.mc));
    done(&a);
    done(&b);
    done(&c);
}

/* ======================================================== architecture */

/* type, depth, width: the parameter count and names of each architecture
 * (burgers_1d: 2 inputs, 1 output; lin(a, b) = a b + b). */
Test(train_options, architecture_type_depth_width)
{
    struct {
        const char *patch;
        size_t nparams;
        const char *has[3];
    } c[] = {
        {"{'architecture': {'type': 'mlp', 'depth': 2, 'width': 8}}", 24 + 72 + 9, {"h1.W", "h2.W", "out.W"}},
        {"{'architecture': {'type': 'mlp', 'depth': 1, 'width': 12}}", 36 + 13, {"h1.W", "h1.b", "out.b"}},
        {"{'architecture': {'type': 'modified_mlp', 'depth': 2, 'width': 8}}", 3 * 24 + 72 + 9,
         {"U.W", "V.W", "h2.W"}},
        {"{'architecture': {'type': 'resnet', 'depth': 1, 'width': 8}}", 24 + 2 * 72 + 9, {"h1.W", "h2.W", "h3.W"}},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        trained t = train("burgers_1d", c[i].patch, 1, 5);
        cr_assert_eq(t.r.nparams, c[i].nparams, "%s: nparams %zu, want %zu", c[i].patch, t.r.nparams,
                     c[i].nparams);
        cr_assert_eq(t.r.nparams, pf_model_config_nparams(&t.mc), "%s", c[i].patch);
        for (int j = 0; j < 3; j++) param(&t.r, c[i].has[j]);
        done(&t);
    }
}

/* activation: the same initial parameters through each activation give six
 * different initial losses. */
Test(train_options, architecture_activation)
{
    const char *act[] = {"tanh", "sin", "silu", "gelu", "softplus", "sigmoid", "elu", "selu", "relu", "gaussian"};
    double first[10];
    for (int i = 0; i < 10; i++) {
        char patch[128];
        snprintf(patch, sizeof patch, "{'architecture': {'activation': '%s'}}", act[i]);
        trained t = train("burgers_1d", patch, 1, 2);
        first[i] = t.r.loss_first;
        done(&t);
        for (int j = 0; j < i; j++)
            cr_assert_not(rel_close(first[i], first[j], 1e-4), "%s and %s give the same initial loss %g", act[i],
                          act[j], first[i]);
    }
}

/* init: Glorot uniform weights lie within sqrt(6 / (fan_in + fan_out)); Glorot
 * normal ones exceed it (about 8% of them). One step at lr 1e-7 leaves the
 * parameters at their initial values. */
Test(train_options, architecture_init)
{
    const char *fmt = "{'architecture': {'depth': 2, 'width': 16, 'init': '%s'},"
                      " 'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 1e-7}]}}";
    char pu[256], pn[256];
    snprintf(pu, sizeof pu, fmt, "glorot_uniform");
    snprintf(pn, sizeof pn, fmt, "glorot_normal");
    trained u = train("burgers_1d", pu, 8, 1), n = train("burgers_1d", pn, 8, 1);
    const pf_train_param *Wu = param(&u.r, "h2.W"), *Wn = param(&n.r, "h2.W");
    double lim = sqrt(6.0 / 32), mu = 0, mn = 0;
    for (size_t i = 0; i < psize(Wu); i++) {
        mu = fmax(mu, fabs((double)Wu->data[i]));
        mn = fmax(mn, fabs((double)Wn->data[i]));
    }
    cr_assert_leq(mu, lim + 1e-5, "glorot_uniform h2.W reaches %g > %g", mu, lim);
    cr_assert_gt(mu, 0.8 * lim, "glorot_uniform h2.W only reaches %g of %g", mu, lim);
    cr_assert_gt(mn, lim, "glorot_normal h2.W stays within %g (max %g)", lim, mn);
    done(&u);
    done(&n);
}

/* init he_uniform / he_normal (fan_in only, gain sqrt 2): he_uniform h2.W
 * lies within sqrt(6 / fan_in) = sqrt(6/16) and comes near it; he_normal's
 * standard deviation is sqrt(2/16) (256 draws: within 15%), and some exceed
 * the uniform bound. zeros: every weight and bias starts at 0; tanh(0) = 0
 * passes nothing on, so after a step only the output bias has moved. */
Test(train_options, architecture_init_he_and_zeros)
{
    const char *fmt = "{'architecture': {'depth': 2, 'width': 16, 'init': '%s'},"
                      " 'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 1e-7}]}}";
    char pu[256], pn[256], pz[256];
    snprintf(pu, sizeof pu, fmt, "he_uniform");
    snprintf(pn, sizeof pn, fmt, "he_normal");
    snprintf(pz, sizeof pz, fmt, "zeros");
    trained u = train("burgers_1d", pu, 8, 1), n = train("burgers_1d", pn, 8, 1), z = train("burgers_1d", pz, 8, 1);
    const pf_train_param *Wu = param(&u.r, "h2.W"), *Wn = param(&n.r, "h2.W");
    double lim = sqrt(6.0 / 16), mu = 0, mn = 0, s2 = 0;
    for (size_t i = 0; i < psize(Wu); i++) {
        mu = fmax(mu, fabs((double)Wu->data[i]));
        mn = fmax(mn, fabs((double)Wn->data[i]));
        s2 += (double)Wn->data[i] * Wn->data[i];
    }
    double sd = sqrt(s2 / (double)psize(Wn));
    cr_assert_leq(mu, lim + 1e-5, "he_uniform h2.W reaches %g > %g", mu, lim);
    cr_assert_gt(mu, 0.9 * lim, "he_uniform h2.W only reaches %g of %g", mu, lim);
    cr_assert(fabs(sd - sqrt(2.0 / 16)) < 0.15 * sqrt(2.0 / 16), "he_normal h2.W std %g, want %g", sd, sqrt(2.0 / 16));
    cr_assert_gt(mn, lim, "he_normal h2.W stays within %g (max %g)", lim, mn);
    for (int i = 0; i < z.r.nparam; i++) {
        const pf_train_param *q = &z.r.param[i];
        double mx = 0;
        for (size_t j = 0; j < psize(q); j++) mx = fmax(mx, fabs((double)q->data[j]));
        if (!strcmp(q->name, "out.b"))
            cr_assert_gt(mx, 0, "zeros: the output bias did not move");
        else
            cr_assert_eq(mx, 0, "zeros: %s is %g after one step", q->name, mx);
    }
    done(&u);
    done(&n);
    done(&z);
}

/* adaptive / adapt_factor: one slope h<k>.a per hidden layer, initialised to
 * 1/n so n a = 1 (the same function, hence the same initial loss, for any
 * n), then trained; n scales the slope's effect, so the runs part. */
Test(train_options, architecture_adaptive_factor)
{
    trained a = train("burgers_1d", "{'architecture': {'depth': 2, 'adaptive': 'layerwise', 'adapt_factor': 10}}", 6, 40);
    trained b = train("burgers_1d", "{'architecture': {'depth': 2, 'adaptive': 'layerwise', 'adapt_factor': 2}}", 6, 40);
    trained z = train("burgers_1d", "{'architecture': {'depth': 2, 'adaptive': 'none'}}", 6, 40);
    cr_assert_eq(a.r.nparams, z.r.nparams + 2, "layerwise adds one slope per hidden layer: %zu vs %zu",
                 a.r.nparams, z.r.nparams);
    cr_assert_null(find_param(&z.r, "h1.a"));
    cr_assert(rel_close(a.r.loss_first, b.r.loss_first, 1e-5), "n a = 1 at the start: %g vs %g", a.r.loss_first,
              b.r.loss_first);
    cr_assert_not(rel_close(a.r.loss_last, b.r.loss_last, 1e-4), "adapt_factor 10 and 2 end at the same loss %g",
                  a.r.loss_last);
    double a10 = param(&a.r, "h1.a")->data[0], a2 = param(&b.r, "h2.a")->data[0];
    cr_assert_gt(fabs(10 * a10 - 1), 1e-3, "h1.a did not train (n a = %g)", 10 * a10);
    cr_assert_gt(fabs(2 * a2 - 1), 1e-3, "h2.a did not train (n a = %g)", 2 * a2);
    done(&a);
    done(&b);
    done(&z);
}

/* adaptive global (GAAF): ONE slope act.a for all hidden layers, 1/n at
 * the start, so the network starts as the one without adaptation (same
 * weights, n a = 1); then the slope trains and the runs part. */
Test(train_options, architecture_adaptive_global)
{
    trained g = train("burgers_1d", "{'architecture': {'depth': 2, 'adaptive': 'global', 'adapt_factor': 10}}", 6, 40);
    trained z = train("burgers_1d", "{'architecture': {'depth': 2, 'adaptive': 'none'}}", 6, 40);
    cr_assert_eq(g.r.nparams, z.r.nparams + 1, "global adds one slope: %zu vs %zu", g.r.nparams, z.r.nparams);
    cr_assert_null(find_param(&g.r, "h1.a"));
    cr_assert_null(find_param(&g.r, "h2.a"));
    const pf_train_param *a = param(&g.r, "act.a");
    cr_assert(a->rows == 1 && a->cols == 1);
    cr_assert(rel_close(g.r.loss_first, z.r.loss_first, 1e-5), "n a = 1 at the start: %g vs %g", g.r.loss_first,
              z.r.loss_first);
    cr_assert_gt(fabs(10 * a->data[0] - 1), 1e-3, "act.a did not train (n a = %g)", 10 * a->data[0]);
    cr_assert_not(rel_close(g.r.loss_last, z.r.loss_last, 1e-4), "global adaptation changed nothing: %g", g.r.loss_last);
    done(&g);
    done(&z);
}

/* rwf / rwf_mean / rwf_sigma: a scale h<k>.s per output unit (out.s too),
 * s ~ N(mean, sigma^2); one step at lr 1e-7 shows the initial values. */
Test(train_options, architecture_rwf)
{
    const char *opt = "'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 1e-7}]}";
    char p1[256], p2[256];
    snprintf(p1, sizeof p1, "{'architecture': {'depth': 2, 'width': 16, 'rwf': true, 'rwf_mean': 0.5, 'rwf_sigma': 0}, %s}", opt);
    snprintf(p2, sizeof p2, "{'architecture': {'depth': 2, 'width': 16, 'rwf': true, 'rwf_mean': -1, 'rwf_sigma': 0.3}, %s}", opt);
    trained a = train("burgers_1d", p1, 9, 1), b = train("burgers_1d", p2, 9, 1);
    trained z = train("burgers_1d", "{'architecture': {'depth': 2, 'width': 16, 'rwf': false}}", 9, 1);
    cr_assert_eq(a.r.nparams, z.r.nparams + 16 + 16 + 1, "rwf adds a scale per output unit: %zu vs %zu",
                 a.r.nparams, z.r.nparams);
    cr_assert_null(find_param(&z.r, "h1.s"));
    const char *sn[] = {"h1.s", "h2.s", "out.s"};
    double sum = 0, sum2 = 0;
    int cnt = 0;
    for (int i = 0; i < 3; i++) {
        const pf_train_param *sa = param(&a.r, sn[i]), *sb = param(&b.r, sn[i]);
        for (size_t j = 0; j < psize(sa); j++) {
            cr_assert_lt(fabs(sa->data[j] - 0.5), 1e-5, "%s[%zu] = %g with mean 0.5, sigma 0", sn[i], j,
                         (double)sa->data[j]);
            sum += sb->data[j];
            sum2 += (double)sb->data[j] * sb->data[j];
            cnt++;
        }
    }
    double mean = sum / cnt, sd = sqrt(sum2 / cnt - mean * mean);
    cr_assert_lt(fabs(mean + 1), 0.2, "mean of s %g, want -1", mean);
    cr_assert(sd > 0.15 && sd < 0.5, "sd of s %g, want 0.3", sd);
    /* and the scales train */
    trained t = train("burgers_1d", "{'architecture': {'depth': 2, 'width': 16, 'rwf': true, 'rwf_sigma': 0}}", 9, 30);
    cr_assert_gt(fabs(param(&t.r, "out.s")->data[0] - 1), 1e-3, "out.s did not train");
    done(&a);
    done(&b);
    done(&z);
    done(&t);
}

/* ============================================================ sampling */

/* interior / boundary / initial: the point counts of the run. */
Test(train_options, sampling_counts)
{
    trained a = train("burgers_1d", "{'sampling': {'interior': 200, 'boundary': 100, 'initial': 50}}", 1, 5);
    cr_assert_eq(a.r.n_interior, 200);
    cr_assert_eq(a.r.n_boundary, 100);
    cr_assert_eq(a.r.n_initial, 50);
    for (int i = 0; i < a.r.nlog; i++) cr_assert_eq(a.r.log_interior[i], 200);
    trained b = train("poisson_2d_classic", "{'sampling': {'interior': 96, 'boundary': 40}}", 1, 5);
    cr_assert_eq(b.r.n_interior, 96);
    cr_assert_eq(b.r.n_boundary, 40);
    cr_assert_eq(b.r.n_initial, 0);
    done(&a);
    done(&b);
}

/* Per axis of burgers_1d's box, the number of the n equal strata that hold
 * exactly one of the n interior points. */
static int strata_filled(const trained *t, int axis)
{
    const pf_pde *p = pde("burgers_1d");
    int n = t->r.n_interior, ok = 0, *cnt = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        double u = ((double)t->r.x_interior[i * 2 + axis] - p->lo[axis]) / (p->hi[axis] - p->lo[axis]);
        int s = (int)floor(u * n);
        cnt[s < 0 ? 0 : s >= n ? n - 1 : s]++;
    }
    for (int s = 0; s < n; s++) ok += cnt[s] == 1;
    free(cnt);
    return ok;
}

static int distinct(const trained *t, int axis)
{
    int n = t->r.n_interior, k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = t->r.x_interior[j * 2 + axis] == t->r.x_interior[i * 2 + axis];
        k += !seen;
    }
    return k;
}

/* method: sobol and lhs stratify each axis (one point in each of the n = 256
 * strata), uniform does not, grid puts the points on few distinct lines. */
Test(train_options, sampling_method)
{
    const char *m[] = {"uniform", "sobol", "lhs", "grid"};
    trained t[4];
    for (int i = 0; i < 4; i++) {
        char patch[128];
        snprintf(patch, sizeof patch, "{'sampling': {'interior': 256, 'method': '%s'}}", m[i]);
        t[i] = train("burgers_1d", patch, 11, 3);
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            cr_assert_not(same_points(&t[i], &t[j]), "%s and %s give the same interior points", m[i], m[j]);
    for (int ax = 0; ax < 2; ax++) {
        cr_assert_eq(strata_filled(&t[1], ax), 256, "sobol: %d of 256 strata of axis %d hold one point",
                     strata_filled(&t[1], ax), ax);
        cr_assert_eq(strata_filled(&t[2], ax), 256, "lhs: %d of 256 strata of axis %d hold one point",
                     strata_filled(&t[2], ax), ax);
        cr_assert_lt(strata_filled(&t[0], ax), 200, "uniform looks stratified on axis %d", ax);
        cr_assert_lt(distinct(&t[3], ax), 64, "grid: %d distinct values on axis %d", distinct(&t[3], ax), ax);
    }
    for (int i = 0; i < 4; i++) done(&t[i]);
}

/* method hammersley: the interior points are DeepXDE's Hammersley set on
 * burgers_1d's box [-1, 1] x [0, 1]: x = -1 + 2 phi_2(i + 1), t = (i + 1) / 257,
 * so the t axis has one point in each of the 256 strata, and another seed
 * gives the same points. */
Test(train_options, sampling_method_hammersley)
{
    const char *patch = "{'sampling': {'interior': 256, 'method': 'hammersley'}}";
    trained a = train("burgers_1d", patch, 11, 3), b = train("burgers_1d", patch, 12, 3);
    cr_assert(same_points(&a, &b), "hammersley points depend on the seed");
    int bad = 0;
    for (int i = 0; i < 256; i++) {
        double phi = 0, f = 0.5;
        for (unsigned j = (unsigned)i + 1; j; j /= 2, f /= 2) phi += (j % 2) * f;
        bad += fabs(a.r.x_interior[2 * i] - (-1 + 2 * phi)) > 1e-6 ||
               fabs(a.r.x_interior[2 * i + 1] - (i + 1) / 257.0) > 1e-6;
    }
    cr_assert_eq(bad, 0, "%d of 256 points differ from the Hammersley set", bad);
    cr_assert_eq(strata_filled(&a, 1), 256, "t: %d of 256 strata hold one point", strata_filled(&a, 1));
    done(&a);
    done(&b);
}

/* resample_every: the points are redrawn at the multiples of it (step > 0);
 * 0 keeps the initial draw. */
Test(train_options, sampling_resample_every)
{
    trained keep = train("burgers_1d", "{'sampling': {'resample_every': 0}}", 12, 40);
    trained early = train("burgers_1d", "{'sampling': {'resample_every': 20}}", 12, 20); /* steps 0..19: none */
    trained re = train("burgers_1d", "{'sampling': {'resample_every': 20}}", 12, 40);
    cr_assert(same_points(&keep, &early), "resample_every 20 changed the points before step 20");
    cr_assert_not(same_points(&keep, &re), "resample_every 20 did not redraw the points by step 40");
    cr_assert_eq(re.r.n_interior, 128);
    /* the loss curves agree until the redraw at step 20 */
    int d = first_difference(&keep, &re);
    cr_assert_eq(d, 20, "curves part at step %d, want 20 (the redraw)", d);
    done(&keep);
    done(&early);
    done(&re);
}

/* rad (k, c, every): every `every` steps the interior set is redrawn with
 * the same count. k = 0 makes the density constant, so c does not matter;
 * with k = 1, c and k change which points are drawn; every beyond the run
 * means no redraw. */
Test(train_options, sampling_rad)
{
    trained none = train("burgers_1d", NULL, 13, 30);
    trained k1c0 = train("burgers_1d", "{'sampling': {'adaptive': {'method': 'rad', 'k': 1, 'c': 0, 'every': 10}}}", 13, 30);
    trained k1c5 = train("burgers_1d", "{'sampling': {'adaptive': {'method': 'rad', 'k': 1, 'c': 5, 'every': 10}}}", 13, 30);
    trained k3c0 = train("burgers_1d", "{'sampling': {'adaptive': {'method': 'rad', 'k': 3, 'c': 0, 'every': 10}}}", 13, 30);
    trained k0c0 = train("burgers_1d", "{'sampling': {'adaptive': {'method': 'rad', 'k': 0, 'c': 0, 'every': 10}}}", 13, 30);
    trained k0c5 = train("burgers_1d", "{'sampling': {'adaptive': {'method': 'rad', 'k': 0, 'c': 5, 'every': 10}}}", 13, 30);
    trained late = train("burgers_1d", "{'sampling': {'adaptive': {'method': 'rad', 'every': 100}}}", 13, 30);
    cr_assert_eq(k1c0.r.n_interior, 128, "rad changed the point count to %d", k1c0.r.n_interior);
    for (int i = 0; i < k1c0.r.nlog; i++) cr_assert_eq(k1c0.r.log_interior[i], 128);
    cr_assert_not(same_points(&none, &k1c0), "rad did not move the points");
    cr_assert_eq(first_difference(&none, &k1c0), 10, "rad's first redraw is at step 10");
    cr_assert_not(same_points(&k1c0, &k1c5), "rad: c = 0 and c = 5 drew the same points");
    cr_assert_not(same_points(&k1c0, &k3c0), "rad: k = 1 and k = 3 drew the same points");
    cr_assert(same_points(&k0c0, &k0c5), "rad with k = 0 (constant density): c changed the points");
    cr_assert(same_points(&none, &late), "rad every 100 redrew within 30 steps");
    done(&none);
    done(&k1c0);
    done(&k1c5);
    done(&k3c0);
    done(&k0c0);
    done(&k0c5);
    done(&late);
}

/* rar_d (k, c, every, add, cap): the interior count is
 * min(cap, interior + add floor(s / every)) at step s, exactly; the original
 * points stay first. */
Test(train_options, sampling_rar_d)
{
    trained none = train("burgers_1d", NULL, 14, 60);
    trained a = train("burgers_1d",
                      "{'sampling': {'adaptive': {'method': 'rar_d', 'every': 10, 'add': 16, 'cap': 180}}}", 14, 60);
    for (int i = 0; i < a.r.nlog; i++) {
        long s = a.r.log_step[i], want = 128 + 16 * (s / 10);
        if (s == a.r.steps) want = 128 + 16 * ((s - 1) / 10); /* the final record: no update at the end */
        if (want > 180) want = 180;
        cr_assert_eq(a.r.log_interior[i], want, "step %ld: %d interior points, want %ld", s, a.r.log_interior[i],
                     want);
    }
    cr_assert_eq(a.r.n_interior, 180);
    cr_assert_eq(memcmp(a.r.x_interior, none.r.x_interior, sizeof(pf_real) * 128 * 2), 0,
                 "rar_d replaced the original points instead of appending");
    trained b = train("burgers_1d",
                      "{'sampling': {'adaptive': {'method': 'rar_d', 'every': 25, 'add': 7, 'cap': 1000}}}", 14, 60);
    cr_assert_eq(b.r.n_interior, 128 + 2 * 7, "every 25, add 7 over 60 steps: %d points", b.r.n_interior);
    trained c = train("burgers_1d",
                      "{'sampling': {'adaptive': {'method': 'rar_d', 'k': 0, 'c': 2, 'every': 25, 'add': 7, 'cap': 1000}}}",
                      14, 60);
    cr_assert_eq(c.r.n_interior, 142);
    cr_assert_neq(memcmp(b.r.x_interior + 2 * 128, c.r.x_interior + 2 * 128, sizeof(pf_real) * 14 * 2), 0,
                  "rar_d: k, c did not change the added points");
    done(&none);
    done(&a);
    done(&b);
    done(&c);
}

/* ========================================================= constraints */

/* mode hard (+ transform): the terms the transform satisfies are exact
 * (zero loss from the start), marked hard, with weight 0; the transform
 * chosen decides which terms those are. */
Test(train_options, constraints_hard_transform)
{
    trained h = train("burgers_1d", "{'constraints': {'mode': 'hard', 'transform': 'initial_and_walls'}}", 15, 30);
    trained s = train("burgers_1d", "{'constraints': {'mode': 'soft'}}", 15, 30);
    const char *sat[] = {"ic", "bc"};
    for (int i = 0; i < 2; i++) {
        int k = term_index(&h.r, sat[i]);
        cr_assert(h.r.term[k].hard, "%s not marked hard", sat[i]);
        cr_assert_eq(h.r.term[k].weight, 0);
        cr_assert_lt(h.r.term[k].loss_first, 1e-8, "%s under the hard transform: %g", sat[i], h.r.term[k].loss_first);
        cr_assert_lt(h.r.term[k].loss_last, 1e-8, "%s under the hard transform: %g", sat[i], h.r.term[k].loss_last);
        for (int j = 0; j < h.r.nlog; j++) cr_assert_eq(weight_at(&h.r, j, k), 0);
        cr_assert_not(s.r.term[k].hard);
        cr_assert_gt(s.r.term[k].loss_first, 1e-4, "soft %s: %g", sat[i], s.r.term[k].loss_first);
    }
    cr_assert_not(h.r.term[0].hard);
    /* shallow_water_2d: "initial" satisfies the ics, "initial_positive" also h_min */
    trained a = train("shallow_water_2d", "{'constraints': {'mode': 'hard', 'transform': 'initial'}}", 15, 5);
    trained b = train("shallow_water_2d", "{'constraints': {'mode': 'hard', 'transform': 'initial_positive'}}", 15, 5);
    int kh = term_index(&a.r, "h_min"), ki = term_index(&a.r, "ic_h");
    cr_assert(a.r.term[ki].hard && b.r.term[ki].hard);
    cr_assert_not(a.r.term[kh].hard, "transform 'initial' does not satisfy h_min");
    cr_assert(b.r.term[kh].hard, "transform 'initial_positive' satisfies h_min");
    cr_assert_lt(b.r.term[kh].loss_last, 1e-8, "h_min under initial_positive: %g", b.r.term[kh].loss_last);
    done(&h);
    done(&s);
    done(&a);
    done(&b);
}

/* ================================================================ loss */

/* weights (fixed): recorded in every log entry, and the total is their
 * weighted sum of the terms. */
Test(train_options, loss_fixed_weights)
{
    trained t = train("burgers_1d", "{'loss': {'weighting': 'fixed', 'weights': {'pde': 2, 'ic': 10, 'bc': 0.5}}}", 16, 20);
    double w[] = {2, 10, 0.5};
    for (int i = 0; i < t.r.nlog; i++) {
        double sum = 0;
        for (int k = 0; k < 3; k++) {
            cr_assert_eq(weight_at(&t.r, i, k), w[k], "log %d term %s: weight %g", i, t.r.term[k].name,
                         weight_at(&t.r, i, k));
            sum += w[k] * t.r.log_term[i * 3 + k];
        }
        cr_assert(rel_close(sum, t.r.log_total[i], 1e-5), "log %d: total %g != sum w L %g", i, t.r.log_total[i], sum);
    }
    for (int k = 0; k < 3; k++) cr_assert_eq(t.r.term[k].weight, w[k]);
    done(&t);
}

/* lr_annealing (alpha, every): the weights stay until step `every`, then
 * move; the first update is alpha w0 + (1 - alpha) ratio with the same ratio
 * for every alpha (the runs are identical until then). pde keeps weight 1. */
Test(train_options, loss_lr_annealing)
{
    trained a0 = train("burgers_1d", "{'loss': {'weighting': {'method': 'lr_annealing', 'alpha': 0.0, 'every': 10}}}", 17, 30);
    trained a5 = train("burgers_1d", "{'loss': {'weighting': {'method': 'lr_annealing', 'alpha': 0.5, 'every': 10}}}", 17, 30);
    trained e20 = train("burgers_1d", "{'loss': {'weighting': {'method': 'lr_annealing', 'alpha': 0.5, 'every': 20}}}", 17, 30);
    for (int k = 1; k < 3; k++) {
        for (int i = 0; i < 10; i++) cr_assert_eq(weight_at(&a5.r, i, k), 1, "weight moved before step 10");
        for (int i = 0; i < 20; i++) cr_assert_eq(weight_at(&e20.r, i, k), 1, "every 20: weight moved before step 20");
        double r0 = weight_at(&a0.r, 10, k), r5 = weight_at(&a5.r, 10, k);
        cr_assert_neq(r0, 1, "alpha 0: %s weight unchanged at step 10", a0.r.term[k].name);
        cr_assert(rel_close(r5, 0.5 + 0.5 * r0, 1e-4), "alpha 0.5: %s weight %g, want 0.5 + 0.5 * %g", a0.r.term[k].name,
                  r5, r0);
        cr_assert_neq(weight_at(&e20.r, 20, k), 1, "every 20: weight unchanged at step 20");
    }
    for (int i = 0; i < a0.r.nlog; i++) cr_assert_eq(weight_at(&a0.r, i, 0), 1, "pde weight must stay 1");
    done(&a0);
    done(&a5);
    done(&e20);
}

/* self_adaptive (lr): one trainable weight per point and soft term, named
 * sa.<term>, starting at 1 and ascended (>= 0): they grow above 1, further
 * with a larger lr; the network count is unchanged. */
Test(train_options, loss_self_adaptive)
{
    trained z = train("burgers_1d", NULL, 18, 40);
    trained s1 = train("burgers_1d", "{'loss': {'weighting': {'method': 'self_adaptive', 'lr': 0.005}}}", 18, 40);
    trained s2 = train("burgers_1d", "{'loss': {'weighting': {'method': 'self_adaptive', 'lr': 0.05}}}", 18, 40);
    cr_assert_eq(s1.r.nparams, z.r.nparams, "self-adaptive weights are not network parameters");
    const char *sn[] = {"sa.pde", "sa.ic", "sa.bc"};
    int npts[] = {128, 64, 64};
    for (int i = 0; i < 3; i++) {
        const pf_train_param *a = param(&s1.r, sn[i]), *b = param(&s2.r, sn[i]);
        cr_assert_eq((int)psize(a), npts[i], "%s has %zu weights, want %d", sn[i], psize(a), npts[i]);
        double mx = 0, dev1 = 0, dev2 = 0;
        for (size_t j = 0; j < psize(a); j++) {
            cr_assert_geq(a->data[j], 0, "%s[%zu] < 0", sn[i], j);
            mx = fmax(mx, a->data[j]);
            dev1 += fabs(a->data[j] - 1);
            dev2 += fabs(b->data[j] - 1);
        }
        cr_assert_gt(mx, 1.01, "%s never grew above 1 (max %g)", sn[i], mx);
        cr_assert_gt(dev2, 3 * dev1, "%s: lr 0.05 moved the weights %g, lr 0.005 %g", sn[i], dev2, dev1);
    }
    cr_assert_null(find_param(&z.r, "sa.pde"));
    done(&z);
    done(&s1);
    done(&s2);
}

/* causal (epsilon, chunks): chunk i is weighted exp(-epsilon sum_{j<i} L_j);
 * with M chunks sum_j L_j = M L_pde, so -log(causal_min) / (epsilon L_pde)
 * lies in [0, M] and for evenly spread residuals near M - 1. */

/* L-BFGS optimises the network only: the self-adaptive weights after it are
 * the ascent's (>= 1 from their start at 1, refreshed every
 * PF_TRAIN_LBFGS_REFRESH steps), never values the line search made up. The
 * objective once copied all parameters from L-BFGS's shorter buffer, which
 * zeroed the weights and drove the loss to ~1e-46 in one step. */
Test(train_options, loss_self_adaptive_with_lbfgs)
{
    trained t = train("burgers_1d",
                      "{'loss': {'weighting': {'method': 'self_adaptive', 'lr': 0.01}},"
                      " 'optimization': {'stages': [{'optimizer': 'adam', 'steps': 500, 'lr': 0.01},"
                      " {'optimizer': 'lbfgs', 'steps': 500, 'lr': 1.0}]}}",
                      31, 40);
    const char *sn[] = {"sa.pde", "sa.ic", "sa.bc"};
    for (int i = 0; i < 3; i++) {
        const pf_train_param *a = param(&t.r, sn[i]);
        double mn = INFINITY;
        for (size_t j = 0; j < psize(a); j++) mn = fmin(mn, a->data[j]);
        cr_assert_geq(mn, 1 - 1e-6, "%s: a weight fell to %g", sn[i], mn);
    }
    double adam_end = t.r.log_total[20];
    for (int i = 21; i < t.r.nlog; i++)
        cr_assert_gt(t.r.log_total[i], 1e-3 * adam_end, "L-BFGS step %d: loss %g after %g at the Adam stage's end", i,
                     t.r.log_total[i], adam_end);
    done(&t);
}
Test(train_options, loss_causal)
{
    trained off = train("burgers_1d", "{'loss': {'causal': false}}", 19, 20);
    trained e1 = train("burgers_1d", "{'loss': {'causal': {'enabled': true, 'epsilon': 1, 'chunks': 4}}}", 19, 20);
    trained e2 = train("burgers_1d", "{'loss': {'causal': {'enabled': true, 'epsilon': 1, 'chunks': 32}}}", 19, 20);
    trained big = train("burgers_1d", "{'loss': {'causal': {'enabled': true, 'epsilon': 100, 'chunks': 8}}}", 19, 20);
    trained tiny = train("burgers_1d", "{'loss': {'causal': {'enabled': true, 'epsilon': 1e-4, 'chunks': 8}}}", 19, 20);
    cr_assert(isnan(off.r.causal_min), "causal_min without causal weighting: %g", off.r.causal_min);
    cr_assert_lt(big.r.causal_min, 0.5, "epsilon 100: causal_min %g", big.r.causal_min);
    cr_assert_gt(tiny.r.causal_min, 0.99, "epsilon 1e-4: causal_min %g", tiny.r.causal_min);
    cr_assert_lt(tiny.r.causal_min, 1, "epsilon 1e-4: causal_min %g", tiny.r.causal_min);
    double q4 = -log(e1.r.causal_min) / e1.r.term[0].loss_last, q32 = -log(e2.r.causal_min) / e2.r.term[0].loss_last;
    cr_log_info("causal: -log(min)/(eps L) = %g (4 chunks), %g (32 chunks)", q4, q32);
    cr_assert(q4 > 0 && q4 <= 4 + 1e-3, "4 chunks: %g outside [0, 4]", q4);
    cr_assert(q32 > 4 && q32 <= 32 + 1e-3, "32 chunks: %g outside (4, 32]", q32);
    cr_assert_neq(e1.r.loss_last, off.r.loss_last);
    done(&off);
    done(&e1);
    done(&e2);
    done(&big);
    done(&tiny);
}

/* residual_normalization initial: every term's weight becomes 1 / its value
 * at step 0, so each weighted term starts at 1 (total = number of terms). */
Test(train_options, loss_residual_normalization)
{
    trained n = train("burgers_1d", "{'loss': {'residual_normalization': 'initial', 'weights': {'ic': 3}}}", 20, 10);
    trained z = train("burgers_1d", "{'loss': {'residual_normalization': 'none', 'weights': {'ic': 3}}}", 20, 10);
    for (int k = 0; k < 3; k++) {
        double wl = weight_at(&n.r, 0, k) * n.r.term[k].loss_first;
        cr_assert(rel_close(wl, k == 1 ? 3 : 1, 1e-5), "%s: w L at step 0 = %g", n.r.term[k].name, wl);
        cr_assert_eq(weight_at(&z.r, 0, k), k == 1 ? 3 : 1);
    }
    cr_assert(rel_close(n.r.loss_first, 5, 1e-5), "normalized initial total %g, want 1 + 3 + 1", n.r.loss_first);
    done(&n);
    done(&z);
}

/* ======================================================== optimization */

/* stages: run in order, each recorded with its optimizer, planned and done
 * steps and outcome; the L-BFGS stage continues from the Adam one. */
Test(train_options, optimization_stages)
{
    trained t = train("burgers_1d",
                      "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 500, 'lr': 0.01},"
                      " {'optimizer': 'adamw', 'steps': 250, 'lr': 0.005}, {'optimizer': 'lbfgs', 'steps': 250}]}}",
                      21, 40);
    cr_assert_eq(t.r.nstages, 3);
    pf_optimizer_kind want[] = {PF_OPT_ADAM, PF_OPT_ADAMW, PF_OPT_LBFGS};
    long planned[] = {20, 10, 10}, sum = 0;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(t.r.stage[i].optimizer, want[i]);
        cr_assert_eq(t.r.stage[i].planned, planned[i], "stage %d planned %ld", i, t.r.stage[i].planned);
        sum += t.r.stage[i].done;
    }
    cr_assert_eq(t.r.stage[0].done, 20);
    cr_assert_str_eq(t.r.stage[0].outcome, "completed");
    cr_assert_eq(t.r.stage[1].done, 10);
    cr_assert_str_eq(t.r.stage[1].outcome, "completed");
    cr_assert(t.r.stage[2].done >= 1 && t.r.stage[2].done <= 10);
    cr_assert_eq(sum, t.r.steps);
    cr_assert_lt(t.r.loss_last, t.r.loss_first);
    trained a = train("burgers_1d", NULL, 21, 40); /* adam alone */
    cr_assert_eq(first_difference(&a, &t), 21, "the second stage starts at step 20 (curves part at %d)",
                 first_difference(&a, &t));
    done(&t);
    done(&a);
}

/* Parameters after ONE Adam step: p = p0 - lr g / (|g| + eps) elementwise,
 * so two runs with lr and 2 lr differ by lr g / (|g| + eps): by lr where
 * |g| >> eps. `eps` 0 keeps the default; `w` scales every loss weight. */
static void first_step_diff(double lr, double eps, double w, double *median, double *mx)
{
    char e[64] = "", p1[512], p2[512];
    if (eps > 0) snprintf(e, sizeof e, ", 'eps': %g", eps);
    const char *fmt = "{'loss': {'weights': {'pde': %g, 'ic': %g, 'bc': %g}},"
                      " 'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': %g%s}]}}";
    snprintf(p1, sizeof p1, fmt, w, w, w, lr, e);
    snprintf(p2, sizeof p2, fmt, w, w, w, 2 * lr, e);
    trained a = train("burgers_1d", p1, 22, 1), b = train("burgers_1d", p2, 22, 1);
    double *d = malloc(sizeof(double) * a.r.nparams);
    size_t n = 0;
    *mx = 0;
    for (int i = 0; i < a.r.nparam; i++)
        for (size_t j = 0; j < psize(&a.r.param[i]); j++) {
            d[n] = fabs((double)a.r.param[i].data[j] - (double)b.r.param[i].data[j]);
            *mx = fmax(*mx, d[n]);
            n++;
        }
    cr_assert_eq(n, a.r.nparams);
    *median = pf_stats_median(d, n); /* n = 33 (1 x 8 tanh on (x, t)): odd, the middle value */
    free(d);
    done(&a);
    done(&b);
}

/* lr and eps: the first Adam step moves each parameter by lr (sign of its
 * gradient); a large eps damps it. */
Test(train_options, optimization_lr_eps)
{
    double med, mx;
    first_step_diff(1e-3, 0, 1, &med, &mx);
    cr_assert(fabs(med - 1e-3) < 2e-5 && fabs(mx - 1e-3) < 2e-5, "lr 1e-3 vs 2e-3: step difference median %g max %g",
              med, mx);
    first_step_diff(4e-3, 0, 1, &med, &mx);
    cr_assert(fabs(med - 4e-3) < 4e-5, "lr 4e-3 vs 8e-3: step difference median %g", med);
    /* loss weights 1e-3 scale every gradient down to about eps = 0.01 */
    first_step_diff(1e-3, 1e-8, 1e-3, &med, &mx);
    cr_assert(fabs(med - 1e-3) < 2e-5, "small weights, eps 1e-8: step difference median %g", med);
    first_step_diff(1e-3, 0.01, 1e-3, &med, &mx);
    cr_log_info("eps 0.01: step difference median %g max %g", med, mx);
    cr_assert_lt(med, 0.5e-3, "eps 0.01 did not damp the first step (median %g)", med);
}

/* betas: the first Adam step is the same for any betas (bias correction);
 * later steps differ, for beta1 and for beta2. */
Test(train_options, optimization_betas)
{
    trained a = train("burgers_1d", NULL, 23, 20);
    trained b1 = train("burgers_1d", "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01, 'betas': [0.5, 0.999]}]}}", 23, 20);
    trained b2 = train("burgers_1d", "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01, 'betas': [0.9, 0.9]}]}}", 23, 20);
    cr_assert(rel_close(a.r.log_total[1], b1.r.log_total[1], 1e-5), "beta1 changed the first step: %g vs %g",
              a.r.log_total[1], b1.r.log_total[1]);
    cr_assert(rel_close(a.r.log_total[1], b2.r.log_total[1], 1e-5), "beta2 changed the first step");
    cr_assert_not(rel_close(a.r.loss_last, b1.r.loss_last, 1e-4), "beta1 0.5 vs 0.9: same final loss %g", a.r.loss_last);
    cr_assert_not(rel_close(a.r.loss_last, b2.r.loss_last, 1e-4), "beta2 0.9 vs 0.999: same final loss %g", a.r.loss_last);
    done(&a);
    done(&b1);
    done(&b2);
}

/* weight_decay and adamw: decay shrinks the parameters; adamw's decay is
 * decoupled (not Adam's L2), and adamw without decay is Adam. */
Test(train_options, optimization_adamw_weight_decay)
{
    const char *fmt = "{'optimization': {'stages': [{'optimizer': '%s', 'steps': 1000, 'lr': 0.01, 'weight_decay': %g}]}}";
    char p[256];
    snprintf(p, sizeof p, fmt, "adam", 0.0);
    trained adam0 = train("burgers_1d", p, 24, 60);
    snprintf(p, sizeof p, fmt, "adam", 1.0);
    trained adam1 = train("burgers_1d", p, 24, 60);
    snprintf(p, sizeof p, fmt, "adamw", 0.0);
    trained w0 = train("burgers_1d", p, 24, 60);
    snprintf(p, sizeof p, fmt, "adamw", 1.0);
    trained w1 = train("burgers_1d", p, 24, 60);
    trained wdef = train("burgers_1d", "{'optimization': {'stages': [{'optimizer': 'adamw', 'steps': 1000, 'lr': 0.01}]}}", 24, 60);
    double n0 = net_norm(&adam0.r), na = net_norm(&adam1.r), nw = net_norm(&w1.r);
    cr_log_info("parameter norms: adam %g, adam wd 1 %g, adamw wd 1 %g", n0, na, nw);
    cr_assert(same_curve(&adam0, &w0), "adamw with weight_decay 0 is not adam");
    cr_assert_lt(na, 0.95 * n0, "adam weight_decay 1 did not shrink the parameters: %g vs %g", na, n0);
    cr_assert_lt(nw, 0.95 * n0, "adamw weight_decay 1 did not shrink the parameters: %g vs %g", nw, n0);
    cr_assert_not(same_curve(&adam1, &w1), "adam's L2 decay and adamw's decoupled decay give the same run");
    cr_assert_not(same_curve(&adam0, &wdef), "adamw's default decay (0.01) has no effect");
    done(&adam0);
    done(&adam1);
    done(&w0);
    done(&w1);
    done(&wdef);
}

/* |p(2 lr) - p(lr)| per network parameter after ONE step of `opt` from the
 * same start (same seed), with every loss weight `w`; returns the count. */
static size_t first_step_diffs(const char *opt, double lr, double w, double d[64])
{
    char p1[512], p2[512];
    const char *fmt = "{'loss': {'weights': {'pde': %g, 'ic': %g, 'bc': %g}},"
                      " 'optimization': {'stages': [{'optimizer': '%s', 'steps': 1000, 'lr': %g}]}}";
    snprintf(p1, sizeof p1, fmt, w, w, w, opt, lr);
    snprintf(p2, sizeof p2, fmt, w, w, w, opt, 2 * lr);
    trained a = train("burgers_1d", p1, 22, 1), b = train("burgers_1d", p2, 22, 1);
    size_t n = 0;
    for (int i = 0; i < a.r.nparam; i++)
        for (size_t j = 0; j < psize(&a.r.param[i]) && n < 64; j++, n++)
            d[n] = fabs((double)a.r.param[i].data[j] - (double)b.r.param[i].data[j]);
    cr_assert_eq(n, a.r.nparams);
    done(&a);
    done(&b);
    return n;
}

/* sgd: p -= lr g, so one step moves each parameter by lr |g_i| — in
 * proportion to the loss (weights x10: ten times the step, where Adam's
 * step does not change) and not by lr itself; and it trains. */
Test(train_options, optimization_sgd)
{
    double d1[64], d10[64], a1[64], a10[64];
    size_t n = first_step_diffs("sgd", 0.01, 1, d1);
    first_step_diffs("sgd", 0.01, 10, d10);
    first_step_diffs("adam", 0.01, 1, a1);
    first_step_diffs("adam", 0.01, 10, a10);
    size_t checked = 0, not_lr = 0;
    for (size_t i = 0; i < n; i++) {
        cr_assert(fabs(a10[i] - a1[i]) <= 1e-6, "adam: parameter %zu moved %g and %g", i, a1[i], a10[i]);
        not_lr += fabs(d1[i] - 0.01) > 1e-3;
        if (d1[i] < 1e-4) continue; /* too small a difference for float */
        checked++;
        cr_assert(fabs(d10[i] / d1[i] - 10) < 0.05, "sgd: parameter %zu moved %g with weights 1, %g with 10", i, d1[i],
                  d10[i]);
    }
    cr_assert_gt(checked, n / 2, "only %zu of %zu parameters moved measurably", checked, n);
    cr_assert_gt(not_lr, n / 2, "sgd moved most parameters by lr, as Adam would");
    trained t = train("burgers_1d", "{'optimization': {'stages': [{'optimizer': 'sgd', 'steps': 1000, 'lr': 0.05}]}}", 27, 40);
    cr_assert_eq(t.r.stage[0].optimizer, PF_OPT_SGD);
    cr_assert_lt(t.r.loss_last, 0.9 * t.r.loss_first, "sgd did not learn: %g -> %g", t.r.loss_first, t.r.loss_last);
    done(&t);
}

/* multiadam (groups: pde | ic + bc on burgers_1d):
 *   - the first step moves each parameter by lr (sA + sB) / 2, sK the sign
 *     of group K's gradient: by lr where the groups agree and by 0 where
 *     they disagree (Adam: lr everywhere);
 *   - each group is scale-invariant: ic and bc weighted x1000 leave the run
 *     as it was (the pde term's curve), where Adam's changes;
 *   - betas default to [0.99, 0.99];
 *   - with the constraints exact (hard transform) one group is left: Adam
 *     with betas (0.99, 0.99), bit for bit. */
Test(train_options, optimization_multiadam)
{
    double d[64];
    size_t n = first_step_diffs("multiadam", 1e-3, 1, d), zero = 0, full = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] < 2e-5) zero++;
        else if (fabs(d[i] - 1e-3) < 2e-5) full++;
        else cr_assert_fail("parameter %zu moved %g, neither 0 nor lr = 1e-3", i, d[i]);
    }
    cr_log_info("multiadam first step: %zu parameters moved by lr, %zu by 0 (group gradients of opposite signs)", full, zero);
    cr_assert_gt(zero, 0, "the groups agreed in sign everywhere");
    cr_assert_gt(full, 0);
    const char *ma = "{'loss': {'weights': {'ic': %g, 'bc': %g}},"
                     " 'optimization': {'stages': [{'optimizer': '%s', 'steps': 1000, 'lr': 0.01}]}}";
    char p[512];
    snprintf(p, sizeof p, ma, 1.0, 1.0, "multiadam");
    trained m1 = train("burgers_1d", p, 28, 20);
    snprintf(p, sizeof p, ma, 1000.0, 1000.0, "multiadam");
    trained m1000 = train("burgers_1d", p, 28, 20);
    snprintf(p, sizeof p, ma, 1.0, 1.0, "adam");
    trained a1 = train("burgers_1d", p, 28, 20);
    snprintf(p, sizeof p, ma, 1000.0, 1000.0, "adam");
    trained a1000 = train("burgers_1d", p, 28, 20);
    int k = term_index(&m1.r, "pde"), T = m1.r.nterms, last = m1.r.nlog - 1;
    double mgap = 0, agap = 0;
    for (int i = 0; i <= last; i++) {
        mgap = fmax(mgap, fabs(m1.r.log_term[i * T + k] / m1000.r.log_term[i * T + k] - 1));
        agap = fmax(agap, fabs(a1.r.log_term[i * T + k] / a1000.r.log_term[i * T + k] - 1));
    }
    cr_log_info("pde term under ic, bc x1000: multiadam moves %.2e, adam %.2e (largest relative change)", mgap, agap);
    cr_assert_lt(mgap, 1e-3, "multiadam is not scale-invariant per group: %g", mgap);
    cr_assert_gt(agap, 100 * mgap, "adam reacted as little as multiadam: %g vs %g", agap, mgap);
    trained b = train("burgers_1d",
                      "{'optimization': {'stages': [{'optimizer': 'multiadam', 'steps': 1000, 'lr': 0.01, 'betas': [0.99, 0.99]}]}}",
                      28, 20);
    cr_assert(same_curve(&m1, &b), "explicit betas [0.99, 0.99] differ from the default");
    trained b9 = train("burgers_1d",
                       "{'optimization': {'stages': [{'optimizer': 'multiadam', 'steps': 1000, 'lr': 0.01, 'betas': [0.9, 0.999]}]}}",
                       28, 20);
    cr_assert_not(same_curve(&m1, &b9), "betas have no effect");
    const char *hard = "{'constraints': {'mode': 'hard', 'transform': 'initial_and_walls'},"
                       " 'optimization': {'stages': [{'optimizer': '%s', 'steps': 1000, 'lr': 0.01%s}]}}";
    snprintf(p, sizeof p, hard, "multiadam", "");
    trained h1 = train("burgers_1d", p, 29, 20);
    snprintf(p, sizeof p, hard, "adam", ", 'betas': [0.99, 0.99]");
    trained h2 = train("burgers_1d", p, 29, 20);
    cr_assert(same_curve(&h1, &h2), "one group left: not Adam with betas (0.99, 0.99)");
    cr_assert_eq(pdiff(param(&h1.r, "out.W"), param(&h2.r, "out.W")), 0);
    trained *all[] = {&m1, &m1000, &a1, &a1000, &b, &b9, &h1, &h2};
    for (int i = 0; i < 8; i++) done(all[i]);
}

/* grad_clip: a clip far above the gradient norm changes nothing; a tiny one
 * (far below Adam's eps per element) freezes the loss near its start. */
Test(train_options, optimization_grad_clip)
{
    trained a = train("burgers_1d", NULL, 25, 30);
    trained big = train("burgers_1d", "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01, 'grad_clip': 1e6}]}}", 25, 30);
    trained mid = train("burgers_1d", "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01, 'grad_clip': 0.01}]}}", 25, 30);
    trained tiny = train("burgers_1d", "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01, 'grad_clip': 1e-10}]}}", 25, 30);
    cr_assert(same_curve(&a, &big), "grad_clip 1e6 changed the run");
    cr_assert_not(same_curve(&a, &mid), "grad_clip 0.01 did not change the run");
    cr_assert_lt(a.r.loss_last, 0.9 * a.r.loss_first, "the unclipped run should learn: %g -> %g", a.r.loss_first,
                 a.r.loss_last);
    cr_assert(rel_close(tiny.r.loss_last, tiny.r.loss_first, 0.02), "grad_clip 1e-10: loss %g -> %g",
              tiny.r.loss_first, tiny.r.loss_last);
    done(&a);
    done(&big);
    done(&mid);
    done(&tiny);
}

static trained sched(const char *schedule, long budget)
{
    char p[512];
    snprintf(p, sizeof p, "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 1000, 'lr': 0.01, 'schedule': %s}]}}",
             schedule);
    return train("burgers_1d", p, 26, budget);
}

/* schedule exponential (gamma, decay_steps): lr gamma^(k / decay_steps) —
 * gamma 1 is the constant rate; otherwise the rate drops from step 1 on. */
Test(train_options, schedule_exponential)
{
    trained c = sched("'constant'", 40);
    trained g1 = sched("{'kind': 'exponential', 'gamma': 1.0, 'decay_steps': 100}", 40);
    trained e = sched("{'kind': 'exponential', 'gamma': 0.01, 'decay_steps': 500}", 40);
    trained e2 = sched("{'kind': 'exponential', 'gamma': 0.01, 'decay_steps': 100}", 40);
    trained e3 = sched("{'kind': 'exponential', 'gamma': 0.5, 'decay_steps': 500}", 40);
    cr_assert(same_curve(&c, &g1), "exponential with gamma 1 differs from constant");
    cr_assert_eq(first_difference(&c, &e), 2, "exponential: curves part at %d, want 2 (lr drops at step 1)",
                 first_difference(&c, &e));
    cr_assert_eq(first_difference(&e, &e2), 2, "decay_steps: curves part at %d", first_difference(&e, &e2));
    cr_assert_eq(first_difference(&e, &e3), 2, "gamma: curves part at %d", first_difference(&e, &e3));
    done(&c);
    done(&g1);
    done(&e);
    done(&e2);
    done(&e3);
}

/* schedule step (gamma, step_size): constant until step_size (scaled with
 * the budget: 250 of 1,000 -> 10 of 40), then lr gamma. */
Test(train_options, schedule_step)
{
    trained c = sched("'constant'", 40);
    trained s = sched("{'kind': 'step', 'gamma': 0.1, 'step_size': 250}", 40);
    trained s2 = sched("{'kind': 'step', 'gamma': 0.1, 'step_size': 500}", 40);
    trained s3 = sched("{'kind': 'step', 'gamma': 0.5, 'step_size': 250}", 40);
    cr_assert_eq(s.tc.stages[0].schedule.step_size, 10, "step_size scaled to %ld", s.tc.stages[0].schedule.step_size);
    cr_assert_eq(first_difference(&c, &s), 11, "step 250/1000: curves part at %d, want 11", first_difference(&c, &s));
    cr_assert_eq(first_difference(&c, &s2), 21, "step 500/1000: curves part at %d, want 21", first_difference(&c, &s2));
    cr_assert_eq(first_difference(&s, &s3), 11, "gamma: curves part at %d, want 11", first_difference(&s, &s3));
    done(&c);
    done(&s);
    done(&s2);
    done(&s3);
}

/* schedule cosine (lr_min, warmup_steps): lr_min = lr is the constant rate;
 * lr_min below it lowers the rate from step 1; a warmup changes step 0. */
Test(train_options, schedule_cosine)
{
    trained c = sched("'constant'", 40);
    trained flat = sched("{'kind': 'cosine', 'lr_min': 0.01}", 40);
    trained cos0 = sched("{'kind': 'cosine', 'lr_min': 0}", 40);
    trained cos1 = sched("{'kind': 'cosine', 'lr_min': 0.005}", 40);
    trained warm = sched("{'kind': 'cosine', 'lr_min': 0, 'warmup_steps': 250}", 40);
    cr_assert(same_curve(&c, &flat), "cosine with lr_min = lr differs from constant");
    cr_assert_eq(first_difference(&c, &cos0), 2, "cosine: curves part at %d, want 2", first_difference(&c, &cos0));
    cr_assert_eq(first_difference(&cos0, &cos1), 2, "lr_min: curves part at %d", first_difference(&cos0, &cos1));
    cr_assert_eq(first_difference(&cos0, &warm), 1, "warmup: curves part at %d, want 1", first_difference(&cos0, &warm));
    done(&c);
    done(&flat);
    done(&cos0);
    done(&cos1);
    done(&warm);
}

/* schedule one_cycle (pct_start, div_factor, final_div_factor): starts at
 * lr / div_factor, peaks at step pct_start T - 1, then anneals to
 * lr / div_factor / final_div_factor — so final_div_factor changes nothing
 * before the peak. */
Test(train_options, schedule_one_cycle)
{
    trained c = sched("'constant'", 40);
    trained o = sched("{'kind': 'one_cycle', 'pct_start': 0.3, 'div_factor': 25, 'final_div_factor': 10000}", 40);
    trained d = sched("{'kind': 'one_cycle', 'pct_start': 0.3, 'div_factor': 5, 'final_div_factor': 10000}", 40);
    trained p = sched("{'kind': 'one_cycle', 'pct_start': 0.6, 'div_factor': 25, 'final_div_factor': 10000}", 40);
    trained f = sched("{'kind': 'one_cycle', 'pct_start': 0.3, 'div_factor': 25, 'final_div_factor': 10}", 40);
    cr_assert_eq(first_difference(&c, &o), 1, "one_cycle's first step is not lr / div_factor");
    cr_assert_eq(first_difference(&o, &d), 1, "div_factor: curves part at %d, want 1", first_difference(&o, &d));
    cr_assert_eq(first_difference(&o, &p), 2, "pct_start: curves part at %d, want 2", first_difference(&o, &p));
    int fd = first_difference(&o, &f);
    cr_assert(fd > 12 && fd < o.r.nlog, "final_div_factor: curves part at %d, want after the peak (step 11)", fd);
    done(&c);
    done(&o);
    done(&d);
    done(&p);
    done(&f);
}

/* lbfgs history / line_search / lr: the first two iterations use at most one
 * curvature pair, so history 1 and 10 agree there and part later; the strong
 * Wolfe search never increases the loss, even from a step length of 10 that
 * makes the fixed-step run diverge; without the search lr sets the path.
 * (At lr 1 on this problem the search accepts every unit step, so line
 * search on and off give the same curve there.) */
Test(train_options, optimization_lbfgs)
{
    const char *fmt = "{'optimization': {'stages': [{'optimizer': 'lbfgs', 'steps': 1000, 'lr': %g, 'history': %d, 'line_search': %s}]}}";
    char p[256];
    snprintf(p, sizeof p, fmt, 1.0, 10, "true");
    trained h10 = train("burgers_1d", p, 27, 15);
    snprintf(p, sizeof p, fmt, 1.0, 1, "true");
    trained h1 = train("burgers_1d", p, 27, 15);
    snprintf(p, sizeof p, fmt, 10.0, 10, "true");
    trained ls10 = train("burgers_1d", p, 27, 15);
    snprintf(p, sizeof p, fmt, 10.0, 10, "false");
    trained nols10 = train_any("burgers_1d", p, 27, 15);
    snprintf(p, sizeof p, fmt, 1.0, 10, "false");
    trained nols = train("burgers_1d", p, 27, 15);
    snprintf(p, sizeof p, fmt, 0.1, 10, "false");
    trained nols2 = train("burgers_1d", p, 27, 15);
    cr_assert_eq(h10.r.stage[0].optimizer, PF_OPT_LBFGS);
    cr_assert_gt(h10.r.nlog, 4);
    int d = first_difference(&h10, &h1);
    cr_assert(d >= 2 && d < h10.r.nlog, "history 1 vs 10: curves part at %d of %d, want >= 2", d, h10.r.nlog);
    for (int i = 1; i < h10.r.nlog; i++)
        cr_assert_leq(h10.r.log_total[i], h10.r.log_total[i - 1] * (1 + 1e-6), "line search: loss rose at log %d", i);
    cr_assert_leq(h10.r.log_total[0], h10.r.loss_first);
    /* lr 10: the search shortens the steps and keeps descending; the fixed
     * step of 10 blows the loss up */
    for (int i = 1; i < ls10.r.nlog; i++)
        cr_assert_leq(ls10.r.log_total[i], ls10.r.log_total[i - 1] * (1 + 1e-6), "lr 10 with line search: loss rose at log %d", i);
    cr_assert_lt(ls10.r.loss_last, ls10.r.loss_first);
    cr_assert_neq(nols10.r.status, PF_TRAIN_OK, "lr 10 without line search: %s, loss %g -> %g",
                  pf_train_status_name(nols10.r.status), nols10.r.loss_first, nols10.r.loss_last);
    cr_assert_not(same_curve(&nols, &nols2), "without line search, lr does not matter");
    done(&h10);
    done(&h1);
    done(&ls10);
    done(&nols10);
    done(&nols);
    done(&nols2);
}

/* ============================================================ training */

/* log_every / eval_every: records at every multiple below the step count
 * and one at the end. */
Test(train_options, training_log_eval_every)
{
    trained t = train("poisson_5d", "{'training': {'log_every': 7, 'eval_every': 9}}", 28, 30);
    cr_assert_eq(t.r.nlog, 6, "log_every 7 over 30 steps: %d records (0, 7, 14, 21, 28, 30)", t.r.nlog);
    long ls[] = {0, 7, 14, 21, 28, 30}, es[] = {0, 9, 18, 27, 30};
    for (int i = 0; i < 6; i++) cr_assert_eq(t.r.log_step[i], ls[i], "log %d at step %ld", i, t.r.log_step[i]);
    cr_assert_eq(t.r.neval, 5, "eval_every 9 over 30 steps: %d records", t.r.neval);
    for (int i = 0; i < 5; i++) cr_assert_eq(t.r.eval_step[i], es[i], "eval %d at step %ld", i, t.r.eval_step[i]);
    trained u = train("poisson_5d", "{'training': {'log_every': 10, 'eval_every': 30}}", 28, 30);
    cr_assert_eq(u.r.nlog, 4);
    cr_assert_eq(u.r.neval, 2);
    cr_assert_eq(u.r.eval_step[1], 30);
    done(&t);
    done(&u);
}

/* region_optimization (RoPINN): the Adam steps train on moved interior
 * points, so the loss curve leaves the one without it after step 0 (whose
 * record is on the set's own points), while the set itself (x_interior) is
 * the same; sigma has left its start of 1 after `history` steps and the
 * last radius is r0 / sigma clipped to (0, max_radius]; the same seed gives
 * the same run; an L-BFGS tail trains on the set's own points. */
Test(train_options, training_region_optimization)
{
    const char *on = "{'training': {'region_optimization': {'enabled': true, 'r0': 0.01, 'history': 5, 'max_radius': 0.05}}}";
    trained off = train("burgers_1d", NULL, 6, 40), a = train("burgers_1d", on, 6, 40), b = train("burgers_1d", on, 6, 40);
    cr_assert(isnan(off.r.region_sigma) && isnan(off.r.region_radius), "off: sigma %g", off.r.region_sigma);
    cr_assert(same_points(&off, &a), "region optimization changed the interior set itself");
    cr_assert_eq(first_difference(&off, &a), 1, "the curves should part at step 1 (record %d)", first_difference(&off, &a));
    cr_assert(same_curve(&a, &b), "the same seed gave another run");
    cr_assert_eq(pdiff(param(&a.r, "out.W"), param(&b.r, "out.W")), 0);
    cr_assert(isfinite(a.r.region_sigma) && a.r.region_sigma > 0 && a.r.region_sigma != 1, "sigma %g",
              a.r.region_sigma);
    cr_assert(a.r.region_radius > 0 && a.r.region_radius <= 0.05, "radius %g", a.r.region_radius);
    cr_log_info("region optimization on burgers_1d, 40 steps: sigma %.4g, radius %.4g, loss %.4g (off: %.4g)",
                a.r.region_sigma, a.r.region_radius, a.r.loss_last, off.r.loss_last);
    trained c = train("burgers_1d",
                      "{'optimization': {'stages': [{'optimizer': 'adam', 'steps': 800, 'lr': 0.01},"
                      " {'optimizer': 'lbfgs', 'steps': 200}]},"
                      " 'training': {'region_optimization': true}}",
                      6, 20);
    cr_assert_eq(c.r.stage[0].done, 16);
    cr_assert(same_points(&off, &c));
    done(&off);
    done(&a);
    done(&b);
    done(&c);
}
