/*
 * test_nn.c — the model zoo (src/nn/): parameter counts, initialisation
 * statistics, forward values and Taylor streams against an independent
 * plain-loop reference, exact periodicity, normalisation, parameter sharing
 * between applications, reverse-mode gradients against finite differences
 * (double build), configuration checks and enum names.
 *
 * The reference (ref_forward) re-implements every architecture and embedding
 * in double from the formulas in nn/model.h, reading the parameter values the
 * graph initialised (by their documented names). Its input derivatives are
 * taken by 5-point finite differences, so the engine's jets are checked
 * against something that shares no code with them.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/real.h"
#include "core/status.h"
#include "nn/model.h"
#include "nn/pinnsformer.h"
#include "tensor/backend.h"
#include "tensor/graph.h"

#define TWO_PI 6.283185307179586476925286766559

#ifdef PF_DOUBLE
#define IS_DOUBLE 1
#else
#define IS_DOUBLE 0
#endif

/* Relative tolerance of engine values against the double reference. */
#define VAL_TOL (IS_DOUBLE ? 1e-9 : 2e-5)

/* ------------------------------------------------------------- helpers */

/* A small deterministic generator for test points (xorshift64*). */
static uint64_t rng_state = 88172645463325252ull;
static double urand(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    double u = (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
    return lo + (hi - lo) * u;
}

static int param_id(pf_graph *g, const char *name)
{
    for (int id = 0; id < pf_graph_param_count(g); id++)
        if (strcmp(pf_graph_param_name(g, id), name) == 0) return id;
    return -1;
}

/* A graph holding one model applied to a jet input x of n points with
 * direction 0 = e_0 up to order 2 and (in_dim > 1) direction 1 = e_1, first
 * order. With losses: L = ms(u) + ms(u_00) (+ ms(u_1)). */
typedef struct rig {
    pf_graph *g;
    pf_model *m;
    pf_node *x, *u;
    pf_jet_layout L;
    int n;
} rig;

static rig rig_new(const pf_model_config *c, int n, uint64_t seed, bool losses)
{
    rig r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.g = pf_graph_alloc(pf_backend_cpu());
    cr_assert(r.g != NULL);
    r.m = pf_model_alloc(r.g, c);
    cr_assert(r.m != NULL, "pf_model_alloc: %s", pf_errmsg());
    r.L = pf_jet_layout_none();
    pf_jet_add_dir(&r.L, 2);
    if (c->in_dim > 1) pf_jet_add_dir(&r.L, 1);
    pf_real dirs[2 * PF_MODEL_MAX_IN] = {0};
    dirs[0] = 1;
    if (c->in_dim > 1) dirs[c->in_dim + 1] = 1;
    r.x = pf_input(r.g, "x", n, c->in_dim, &r.L, dirs);
    r.u = pf_model_apply(r.m, r.g, r.x);
    cr_assert_eq(pf_node_n(r.u), n);
    cr_assert_eq(pf_node_c(r.u), c->out_dim);
    cr_assert(pf_jet_layout_equal(pf_node_layout(r.u), &r.L));
    if (losses) {
        pf_loss(r.g, "value", pf_mean_square(r.g, pf_deriv(r.g, r.u, 0, 0), NULL));
        pf_loss(r.g, "u_00", pf_mean_square(r.g, pf_deriv(r.g, r.u, 0, 2), NULL));
        if (c->in_dim > 1)
            pf_loss(r.g, "u_1", pf_mean_square(r.g, pf_deriv(r.g, r.u, 1, 1), NULL));
    }
    cr_assert_eq(pf_graph_compile(r.g, seed), PF_OK, "compile: %s", pf_errmsg());
    return r;
}

static void rig_free(rig *r)
{
    pf_model_free(r->m);
    pf_graph_free(r->g);
}

/* Random points, input i uniform in [lo_i, hi_i]. */
static void random_points(pf_real *x, int n, int d, const double *lo, const double *hi)
{
    for (int p = 0; p < n; p++)
        for (int i = 0; i < d; i++) x[p * d + i] = (pf_real)urand(lo[i], hi[i]);
}

/* --------------------------------------------------------- the reference */

static double act_ref(pf_unary_op op, double z)
{
    switch (op) {
    case PF_UNARY_TANH: return tanh(z);
    case PF_UNARY_SIN: return sin(z);
    case PF_UNARY_SILU: return z / (1 + exp(-z));
    case PF_UNARY_GELU: return 0.5 * z * (1 + erf(z / sqrt(2.0)));
    case PF_UNARY_SOFTPLUS: return log1p(exp(z));
    case PF_UNARY_SIGMOID: return 1 / (1 + exp(-z));
    case PF_UNARY_ELU: return z > 0 ? z : expm1(z);
    case PF_UNARY_SELU: return 1.0507009873554805 * (z > 0 ? z : 1.6732632423543772 * expm1(z));
    case PF_UNARY_RELU: return z > 0 ? z : 0;
    case PF_UNARY_GAUSSIAN: return exp(-z * z / (2 * 0.1 * 0.1));
    default: cr_assert_fail("no reference for activation %d", (int)op);
    }
    return 0;
}

#define REF_MAX 1024

/* y = [act](n a (diag(exp(s)) V x + b)) for the layer `name` ("h1", "out"). */
static int ref_dense(pf_graph *g, const pf_model_config *c, const char *name, const double *x,
                     int in, double *y, bool activated)
{
    char nm[48];
    snprintf(nm, sizeof nm, "%s.W", name);
    int W = param_id(g, nm);
    cr_assert(W >= 0, "no parameter '%s'", nm);
    int rows, cols;
    pf_graph_param_shape(g, W, &rows, &cols);
    cr_assert_eq(cols, in, "'%s' is %dx%d, input has %d", nm, rows, cols, in);
    snprintf(nm, sizeof nm, "%s.b", name);
    int b = param_id(g, nm);
    snprintf(nm, sizeof nm, "%s.s", name);
    int s = param_id(g, nm);
    snprintf(nm, sizeof nm, "%s.a", name);
    int a = param_id(g, nm);
    cr_assert(b >= 0);
    cr_assert_eq(s >= 0, c->rwf, "layer %s: rwf scale present = %d", name, s >= 0);
    cr_assert_eq(a >= 0, activated && c->adapt == PF_ADAPT_LAYERWISE);
    if (activated && c->adapt == PF_ADAPT_GLOBAL) a = param_id(g, "act.a"); /* one slope for all */
    const pf_real *Wd = pf_graph_param_data(g, W), *bd = pf_graph_param_data(g, b);
    for (int i = 0; i < rows; i++) {
        double scale = s >= 0 ? exp((double)pf_graph_param_data(g, s)[i]) : 1;
        double z = bd[i];
        for (int j = 0; j < in; j++) z += scale * Wd[i * in + j] * x[j];
        if (activated) {
            if (a >= 0) z *= c->adapt_factor * pf_graph_param_data(g, a)[0];
            z = act_ref(c->activation, z);
        }
        y[i] = z;
    }
    return rows;
}

/* The representation: normalise -> periodic -> Fourier, into f; returns its
 * length. */
static int ref_embed(pf_graph *g, const pf_model_config *c, const double *x, double *f)
{
    double e[REF_MAX];
    int ne = 0;
    for (int i = 0; i < c->in_dim; i++) {
        if (c->periodic[i]) {
            for (int k = 1; k <= c->harmonics[i]; k++) e[ne++] = cos(TWO_PI * k * x[i] / c->period[i]);
            for (int k = 1; k <= c->harmonics[i]; k++) e[ne++] = sin(TWO_PI * k * x[i] / c->period[i]);
        } else if (c->normalize) {
            e[ne++] = 2 * (x[i] - c->lo[i]) / (c->hi[i] - c->lo[i]) - 1;
        } else {
            e[ne++] = x[i];
        }
    }
    if (c->fourier_features == 0) {
        memcpy(f, e, (size_t)ne * sizeof *e);
        return ne;
    }
    int S = c->fourier_scales, nf = 0;
    for (int k = 0; k < S; k++) { /* [cos z_k, sin z_k] per scale, z_k = 2 pi B_k e */
        char name[32];
        snprintf(name, sizeof name, S == 1 ? "fourier.B" : "fourier.B%d", k);
        int B = param_id(g, name), m, cols;
        cr_assert(B >= 0, "no parameter %s", name);
        pf_graph_param_shape(g, B, &m, &cols);
        const pf_real *Bd = pf_graph_param_data(g, B); /* holds 2 pi B_k */
        for (int j = 0; j < m; j++) {
            double z = 0;
            for (int l = 0; l < ne; l++) z += Bd[j * ne + l] * e[l];
            f[nf + j] = cos(z);
            f[nf + m + j] = sin(z);
        }
        nf += 2 * m;
    }
    return nf;
}

/* The whole model at one point, in the paper's own form of each arch. */
static void ref_forward(pf_graph *g, const pf_model_config *c, const double *x, double *u)
{
    double f[REF_MAX], h[REF_MAX], t[REF_MAX], t2[REF_MAX];
    int nf = ref_embed(g, c, x, f), w = c->width;
    char nm[16];
    switch (c->arch) {
    case PF_ARCH_MLP:
        ref_dense(g, c, "h1", f, nf, h, true);
        for (int k = 2; k <= c->depth; k++) {
            snprintf(nm, sizeof nm, "h%d", k);
            ref_dense(g, c, nm, h, w, t, true);
            memcpy(h, t, (size_t)w * sizeof *h);
        }
        break;
    case PF_ARCH_MODIFIED_MLP: {
        double U[REF_MAX], V[REF_MAX];
        ref_dense(g, c, "U", f, nf, U, true);
        ref_dense(g, c, "V", f, nf, V, true);
        ref_dense(g, c, "h1", f, nf, h, true);
        for (int k = 2; k <= c->depth; k++) {
            snprintf(nm, sizeof nm, "h%d", k);
            ref_dense(g, c, nm, h, w, t, true);   /* Z_k */
            for (int j = 0; j < w; j++) h[j] = (1 - t[j]) * U[j] + t[j] * V[j];
        }
        break;
    }
    case PF_ARCH_RESNET:
        ref_dense(g, c, "h1", f, nf, h, true);
        for (int b = 1; b <= c->depth; b++) {
            snprintf(nm, sizeof nm, "h%d", 2 * b);
            ref_dense(g, c, nm, h, w, t, true);
            snprintf(nm, sizeof nm, "h%d", 2 * b + 1);
            ref_dense(g, c, nm, t, w, t2, true);
            for (int j = 0; j < w; j++) h[j] += t2[j];
        }
        break;
    default: cr_assert_fail("bad arch");
    }
    ref_dense(g, c, "out", h, w, u, false);
}

/* Reference at x + k h e_dir, k = -2..2. */
static void ref_stencil(pf_graph *g, const pf_model_config *c, const double *x, int dir, double h,
                        double v[5][PF_MODEL_MAX_OUT])
{
    double xs[PF_MODEL_MAX_IN];
    for (int k = 0; k < 5; k++) {
        memcpy(xs, x, (size_t)c->in_dim * sizeof *xs);
        xs[dir] += (k - 2) * h;
        ref_forward(g, c, xs, v[k]);
    }
}

/* Reference value and 5-point finite-difference derivatives along e_dir:
 * d1 = du/dx_dir (step 1e-4), d2 = d2u/dx_dir^2 (step 3e-4), either may be
 * NULL. Truncation error ~ (h f)^4 / 30 for a feature frequency f (up to
 * ~100 with periodic and Fourier features), rounding ~ eps / h^k. */
static void ref_derivs(pf_graph *g, const pf_model_config *c, const double *x, int dir,
                       double *u, double *d1, double *d2)
{
    const double h1 = 1e-4, h2 = 3e-4;
    double v[5][PF_MODEL_MAX_OUT], w[5][PF_MODEL_MAX_OUT];
    ref_stencil(g, c, x, dir, h1, v);
    ref_stencil(g, c, x, dir, h2, w);
    for (int o = 0; o < c->out_dim; o++) {
        if (u) u[o] = v[2][o];
        if (d1) d1[o] = (v[0][o] - 8 * v[1][o] + 8 * v[3][o] - v[4][o]) / (12 * h1);
        if (d2)
            d2[o] = (-w[0][o] + 16 * w[1][o] - 30 * w[2][o] + 16 * w[3][o] - w[4][o]) / (12 * h2 * h2);
    }
}

/* Compare the engine's value, u_0, u_00 (and u_1) at random points with the
 * reference. Tolerances are relative to the largest reference entry of each
 * stream (float: the engine's rounding; double: the 5-point rule's error). */
static void check_against_reference(const pf_model_config *c, uint64_t seed, const double *lo,
                                    const double *hi)
{
    enum { N = 7 };
    rig r = rig_new(c, N, seed, false);
    int d = c->in_dim, o = c->out_dim;
    pf_real x[N * PF_MODEL_MAX_IN];
    random_points(x, N, d, lo, hi);
    pf_graph_set_input(r.g, r.x, x);
    pf_graph_forward(r.g);
    int S = pf_node_nstreams(r.u);
    pf_real *out = malloc((size_t)S * N * o * sizeof *out);
    cr_assert(out);
    pf_graph_read(r.g, r.u, out);

    int streams[4] = {0, pf_jet_stream(&r.L, 0, 1), pf_jet_stream(&r.L, 0, 2),
                      d > 1 ? pf_jet_stream(&r.L, 1, 1) : -1};
    static const char *const sname[4] = {"value", "u_0", "u_00", "u_1"};
    double ref[4][N][PF_MODEL_MAX_OUT];
    for (int p = 0; p < N; p++) {
        double xp[PF_MODEL_MAX_IN];
        for (int i = 0; i < d; i++) xp[i] = x[p * d + i];
        ref_derivs(r.g, c, xp, 0, ref[0][p], ref[1][p], ref[2][p]);
        if (d > 1) ref_derivs(r.g, c, xp, 1, NULL, ref[3][p], NULL);
    }
    double vscale = 1e-3;
    for (int p = 0; p < N; p++)
        for (int k = 0; k < o; k++) vscale = fmax(vscale, fabs(ref[0][p][k]));
    for (int q = 0; q < 4; q++) {
        if (streams[q] < 0) continue;
        double scale = vscale;   /* the differences' rounding scales with u */
        for (int p = 0; p < N; p++)
            for (int k = 0; k < o; k++) scale = fmax(scale, fabs(ref[q][p][k]));
        /* double: the 5-point rules' error; float: the engine's rounding */
        double tol = q == 0 ? VAL_TOL : IS_DOUBLE ? 1e-7 : q == 2 ? 2e-4 : 5e-5;
        for (int p = 0; p < N; p++)
            for (int k = 0; k < o; k++) {
                double got = out[((size_t)streams[q] * N + p) * o + k], want = ref[q][p][k];
                cr_assert(fabs(got - want) <= tol * scale,
                          "%s %s: point %d output %d: engine %.10g, reference %.10g "
                          "(scale %.3g, tol %.2g)",
                          pf_arch_name(c->arch), sname[q], p, k, got, want, scale, tol);
            }
    }
    free(out);
    rig_free(&r);
}

static const double box_lo[PF_MODEL_MAX_IN] = {-1, 0, -0.5, 0.2};
static const double box_hi[PF_MODEL_MAX_IN] = {1, 1, 0.5, 0.9};

/* ------------------------------------------------------ parameter counts */

/* Build a graph with only this model and return pf_graph_nparams(). */
static size_t built_nparams(const pf_model_config *c)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_model *m = pf_model_alloc(g, c);
    cr_assert(m != NULL, "%s", pf_errmsg());
    pf_node *x = pf_input(g, "x", 3, c->in_dim, NULL, NULL);
    pf_loss(g, "u", pf_mean_square(g, pf_model_apply(m, g, x), NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    size_t n = pf_graph_nparams(g);
    pf_model_free(m);
    pf_graph_free(g);
    return n;
}

/* Every row of nn/archs.def: its count hook is the built graph's count,
 * with each adaptation (and rwf where it applies). */
Test(arch, each_rows_count_hook_is_what_the_model_builds)
{
    for (int i = 0; i < PF_ARCH_COUNT; i++) {
        const pf_arch_def *d = pf_arch_def_of((pf_arch)i);
        for (int adapt = 0; adapt < (d->seq ? 1 : PF_ADAPT_COUNT); adapt++) {
            pf_model_config c = pf_model_config_default(2, 1);
            c.arch = d->id;
            c.depth = d->min_depth + 1;
            c.width = 16;
            c.adapt = (pf_adapt)adapt;
            c.rwf = !d->seq && adapt == PF_ADAPT_LAYERWISE;
            size_t n = built_nparams(&c);
            cr_assert_eq(n, d->nparams(&c), "%s adapt %d: built %zu, hook %zu", d->name, adapt, n, d->nparams(&c));
            cr_assert_eq(n, pf_model_config_nparams(&c));
        }
    }
}

/* The MLP family, whose options (activations, adaptation, rwf, init) the
 * loops below vary; the sequence model (pinnsformer) has tests of its own. */
#define MLP_ARCHS PF_ARCH_PINNSFORMER

Test(nn, nparams_hand_counted)
{
    /* PINNacle's default network: 2 -> 5 x 100 -> 1 tanh MLP:
     * 2*100+100 + 4*(100*100+100) + 100+1 = 300 + 40400 + 101 */
    pf_model_config c = pf_model_config_default(2, 1);
    cr_assert_eq(pf_model_config_nparams(&c), 40801);
    cr_assert_eq(built_nparams(&c), 40801);

    /* rwf: one scale per output unit of every layer, 5*100 + 1 */
    c.rwf = true;
    cr_assert_eq(pf_model_config_nparams(&c), 40801 + 501);
    c.rwf = false;
    /* layer-wise adaptive activation: one slope per hidden layer */
    c.adapt = PF_ADAPT_LAYERWISE;
    cr_assert_eq(pf_model_config_nparams(&c), 40806);
    /* global adaptive activation: one slope in all */
    c.adapt = PF_ADAPT_GLOBAL;
    cr_assert_eq(pf_model_config_nparams(&c), 40802);
    cr_assert_eq(built_nparams(&c), 40802);
    c.adapt = PF_ADAPT_NONE;
    /* 64 Fourier features: first layer 128 -> 100 (12,900 instead of 300),
     * plus B = 64 x 2 when trainable */
    c.fourier_features = 64;
    cr_assert_eq(pf_model_config_features(&c), 128);
    cr_assert_eq(pf_model_config_nparams(&c), 40801 - 300 + 12900);
    c.fourier_trainable = true;
    cr_assert_eq(pf_model_config_nparams(&c), 40801 - 300 + 12900 + 128);
    c.fourier_features = 0;
    /* periodic x with 3 harmonics: 7 features, first layer 7*100+100 */
    c.periodic[0] = true;
    c.period[0] = 2;
    c.harmonics[0] = 3;
    cr_assert_eq(pf_model_config_features(&c), 7);
    cr_assert_eq(pf_model_config_nparams(&c), 40801 - 300 + 800);

    /* modified MLP 2 -> depth 4, width 50 -> 1: U, V, h1 = 3 * (2*50+50),
     * h2..h4 = 3 * (50*50+50), out = 50+1 */
    pf_model_config mm = pf_model_config_default(2, 1);
    mm.arch = PF_ARCH_MODIFIED_MLP;
    mm.depth = 4;
    mm.width = 50;
    cr_assert_eq(pf_model_config_nparams(&mm), 450 + 7650 + 51);
    cr_assert_eq(built_nparams(&mm), 8151);

    /* residual MLP 3 -> 2 blocks of width 20 -> 2: input layer 3*20+20,
     * four 20x20 layers 4 * 420, out 20*2+2 */
    pf_model_config rn = pf_model_config_default(3, 2);
    rn.arch = PF_ARCH_RESNET;
    rn.depth = 2;
    rn.width = 20;
    cr_assert_eq(pf_model_config_nparams(&rn), 80 + 1680 + 42);
    cr_assert_eq(built_nparams(&rn), 1802);
}

Test(nn, nparams_match_graph)
{
    /* every arch x every option that changes the count: the formula the
     * validator uses equals what the graph actually registers */
    for (int arch = 0; arch < MLP_ARCHS; arch++)
        for (int variant = 0; variant < 10; variant++) {
            pf_model_config c = pf_model_config_default(3, 2);
            c.arch = (pf_arch)arch;
            c.depth = 3;
            c.width = 9;
            switch (variant) {
            case 1: c.rwf = true; break;
            case 2: c.adapt = PF_ADAPT_LAYERWISE; break;
            case 3: c.fourier_features = 5; break;
            case 4: c.fourier_features = 5; c.fourier_trainable = true; break;
            case 5: c.periodic[1] = true; c.period[1] = 1; c.harmonics[1] = 2; break;
            case 7: c.fourier_features = 7; c.fourier_scales = 3; c.fourier_trainable = true; break;
            case 8: c.adapt = PF_ADAPT_GLOBAL; break;
            case 9: c.adapt = PF_ADAPT_GLOBAL; c.rwf = true; c.fourier_features = 4; break;
            case 6:
                c.rwf = true;
                c.adapt = PF_ADAPT_LAYERWISE;
                c.periodic[0] = true;
                c.period[0] = 3;
                c.harmonics[0] = 4;
                c.fourier_features = 6;
                c.fourier_trainable = true;
                c.normalize = true;
                break;
            default: break;
            }
            size_t want = pf_model_config_nparams(&c);
            cr_assert_gt(want, 0, "%s", pf_errmsg());
            cr_assert_eq(built_nparams(&c), want, "arch %s variant %d: graph %zu, formula %zu",
                         pf_arch_name(c.arch), variant, built_nparams(&c), want);
        }
}

Test(nn, pinnsformer_nparams_match_graph)
{
    /* the sequence model behind each representation: the count is the
     * trunk's on the feature channels, plus a trainable Fourier matrix */
    for (int variant = 0; variant < 4; variant++) {
        pf_model_config c = pf_model_config_default(3, 2);
        c.arch = PF_ARCH_PINNSFORMER;
        c.depth = 2;
        c.width = 8;
        c.d_ff = 12;
        c.d_hidden = 10;
        c.seq_len = 3;
        switch (variant) {
        case 1: c.fourier_features = 5; c.fourier_trainable = true; break;
        case 2: c.periodic[1] = true; c.period[1] = 1; c.harmonics[1] = 2; break;
        case 3: c.normalize = true; break;
        default: break;
        }
        size_t want = pf_model_config_nparams(&c);
        cr_assert_gt(want, 0, "%s", pf_errmsg());
        cr_assert_eq(built_nparams(&c), want, "variant %d: graph %zu, formula %zu", variant, built_nparams(&c), want);
    }
    pf_model_config c = pf_model_config_default(2, 1);
    c.arch = PF_ARCH_PINNSFORMER;
    c.depth = 1;
    c.width = 32;
    cr_assert_eq(pf_model_config_nparams(&c), 453561); /* the released sizes (pinnsformer.h) */
    c.adapt = PF_ADAPT_GLOBAL;
    cr_assert_eq(pf_model_config_check(&c), PF_ERR_INVALID);
    c.adapt = PF_ADAPT_NONE;
    c.heads = 3;
    cr_assert_eq(pf_model_config_check(&c), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "heads must divide"), "%s", pf_errmsg());
}

Test(nn, nparams_invalid_config_is_zero)
{
    pf_model_config c = pf_model_config_default(2, 1);
    c.width = 0;
    cr_assert_eq(pf_model_config_nparams(&c), 0);
    cr_assert_eq(pf_model_config_features(&c), 0);
    cr_assert(strstr(pf_errmsg(), "width") != NULL);
}

/* ------------------------------------------------------------ initialisation */

static void mean_std(const pf_real *v, size_t n, double *mean, double *sd)
{
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    *mean = s / n;
    for (size_t i = 0; i < n; i++) s2 += (v[i] - *mean) * (v[i] - *mean);
    *sd = sqrt(s2 / (n - 1));
}

Test(nn, glorot_normal_statistics)
{
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 2;
    c.width = 200;   /* h2.W is 200 x 200 */
    rig r = rig_new(&c, 1, 42, false);
    int W = param_id(r.g, "h2.W");
    double mean, sd, want = sqrt(2.0 / (200 + 200));
    mean_std(pf_graph_param_data(r.g, W), 200 * 200, &mean, &sd);
    cr_assert(fabs(sd - want) <= 0.05 * want, "std %g, Glorot %g", sd, want);
    cr_assert(fabs(mean) <= 0.05 * want, "mean %g", mean);
    /* the input layer 200 x 2: std sqrt(2/202) */
    mean_std(pf_graph_param_data(r.g, param_id(r.g, "h1.W")), 400, &mean, &sd);
    cr_assert(fabs(sd - sqrt(2.0 / 202)) <= 0.1 * sqrt(2.0 / 202), "h1 std %g", sd);
    /* every bias is exactly zero */
    const char *biases[3] = {"h1.b", "h2.b", "out.b"};
    for (int k = 0; k < 3; k++) {
        int b = param_id(r.g, biases[k]), rows, cols;
        pf_graph_param_shape(r.g, b, &rows, &cols);
        const pf_real *bd = pf_graph_param_data(r.g, b);
        for (int i = 0; i < rows * cols; i++) cr_assert_eq(bd[i], 0, "%s[%d] = %g", biases[k], i, bd[i]);
    }
    rig_free(&r);
}

Test(nn, glorot_uniform_statistics)
{
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 2;
    c.width = 200;
    c.init = PF_WEIGHT_INIT_GLOROT_UNIFORM;
    rig r = rig_new(&c, 1, 43, false);
    const pf_real *w = pf_graph_param_data(r.g, param_id(r.g, "h2.W"));
    double mean, sd, want = sqrt(2.0 / 400), l = sqrt(6.0 / 400), amax = 0;
    mean_std(w, 40000, &mean, &sd);
    for (int i = 0; i < 40000; i++) amax = fmax(amax, fabs(w[i]));
    cr_assert(fabs(sd - want) <= 0.05 * want, "std %g, Glorot %g", sd, want);
    cr_assert(amax <= l * (1 + 1e-6) && amax >= 0.99 * l, "max |W| %g, limit %g", amax, l);
    rig_free(&r);
}

/* Kaiming (He) initialisation, torch's kaiming_*_ with fan_in and gain
 * sqrt(2): on a 400 x 300 layer (fan_in 300, 120,000 draws) the sample
 * standard deviation of N(0, 2/300) is within 1% of sqrt(2/300) (its own
 * relative standard error is 1/sqrt(2 x 120,000) = 0.2%), the mean within
 * 1% of it (0.3% standard error); U(-l, l) with l = sqrt(6/300) has the
 * same variance, and max |W| within 1% below l. The input layer (fan_in
 * = the 3 features) gets std sqrt(2/3). */
static void check_he(pf_weight_init init, uint64_t seed)
{
    pf_model_config c = pf_model_config_default(3, 1);
    c.depth = 3;
    c.width = 300;
    c.init = init;
    rig r = rig_new(&c, 1, seed, false);
    /* h2.W is 300 x 300; build a 400 x 300 sample from h2.W and part of h3.W */
    const pf_real *w2 = pf_graph_param_data(r.g, param_id(r.g, "h2.W"));
    const pf_real *w3 = pf_graph_param_data(r.g, param_id(r.g, "h3.W"));
    enum { M = 400 * 300 };
    pf_real *w = malloc(M * sizeof *w);
    cr_assert(w);
    memcpy(w, w2, 300 * 300 * sizeof *w);
    memcpy(w + 300 * 300, w3, 100 * 300 * sizeof *w);
    double mean, sd, want = sqrt(2.0 / 300), l = sqrt(6.0 / 300), amax = 0;
    mean_std(w, M, &mean, &sd);
    for (int i = 0; i < M; i++) amax = fmax(amax, fabs(w[i]));
    const char *name = pf_weight_init_name(init);
    cr_assert(fabs(sd - want) <= 0.01 * want, "%s: std %g, want sqrt(2/fan_in) = %g", name, sd, want);
    cr_assert(fabs(mean) <= 0.01 * want, "%s: mean %g", name, mean);
    if (init == PF_WEIGHT_INIT_HE_UNIFORM)
        cr_assert(amax <= l * (1 + 1e-6) && amax >= 0.99 * l, "%s: max |W| %g, bound %g", name, amax, l);
    else
        cr_assert(amax > l, "%s: a normal sample of 120,000 exceeds sqrt(3) sd (max %g)", name, amax);
    free(w);
    /* the first layer, 300 x 3: fan_in 3 */
    mean_std(pf_graph_param_data(r.g, param_id(r.g, "h1.W")), 900, &mean, &sd);
    cr_assert(fabs(sd - sqrt(2.0 / 3)) <= 0.1 * sqrt(2.0 / 3), "%s: h1 std %g, want %g", name, sd, sqrt(2.0 / 3));
    /* the output layer, 1 x 300: |W| <= sqrt(6/300) for the uniform one */
    const pf_real *wo = pf_graph_param_data(r.g, param_id(r.g, "out.W"));
    for (int i = 0; init == PF_WEIGHT_INIT_HE_UNIFORM && i < 300; i++) cr_assert_leq(fabs(wo[i]), l * (1 + 1e-6));
    const pf_real *b = pf_graph_param_data(r.g, param_id(r.g, "h2.b"));
    for (int i = 0; i < 300; i++) cr_assert_eq(b[i], 0, "%s: biases are zero", name);
    rig_free(&r);
}

Test(nn, he_normal_statistics) { check_he(PF_WEIGHT_INIT_HE_NORMAL, 44); }
Test(nn, he_uniform_statistics) { check_he(PF_WEIGHT_INIT_HE_UNIFORM, 45); }

/* zeros: every weight and bias 0, on every arch (the slopes keep 1/n):
 * the network is the zero function and its output is exactly 0. */
Test(nn, zeros_init)
{
    for (int arch = 0; arch < MLP_ARCHS; arch++) {
        pf_model_config c = pf_model_config_default(2, 2);
        c.arch = (pf_arch)arch;
        c.depth = 2;
        c.width = 7;
        c.init = PF_WEIGHT_INIT_ZEROS;
        c.adapt = PF_ADAPT_GLOBAL;
        rig r = rig_new(&c, 3, 46, false);
        for (int id = 0; id < pf_graph_param_count(r.g); id++) {
            const char *nm = pf_graph_param_name(r.g, id);
            int rows, cols;
            pf_graph_param_shape(r.g, id, &rows, &cols);
            const pf_real *v = pf_graph_param_data(r.g, id);
            pf_real want = strcmp(nm, "act.a") ? 0 : (pf_real)0.1;
            for (int i = 0; i < rows * cols; i++)
                cr_assert_eq(v[i], want, "%s: %s[%d] = %g", pf_arch_name(c.arch), nm, i, (double)v[i]);
        }
        pf_real x[6] = {0.1f, 0.2f, -0.5f, 0.7f, 0.9f, -0.3f}, u[2 * 3 * 5];
        pf_graph_set_input(r.g, r.x, x);
        pf_graph_forward(r.g);
        pf_graph_read(r.g, r.u, u);
        for (int i = 0; i < pf_node_nstreams(r.u) * 3 * 2; i++) cr_assert_eq(u[i], 0);
        rig_free(&r);
    }
}

Test(nn, init_is_seeded)
{
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 3;
    c.width = 30;
    c.rwf = true;
    c.adapt = PF_ADAPT_LAYERWISE;
    rig a = rig_new(&c, 1, 7, false), b = rig_new(&c, 1, 7, false), d = rig_new(&c, 1, 8, false);
    size_t n = pf_graph_nparams(a.g);
    cr_assert_eq(n, pf_model_config_nparams(&c));
    cr_assert(memcmp(pf_graph_params(a.g), pf_graph_params(b.g), n * sizeof(pf_real)) == 0,
              "same seed, different parameters");
    /* a different seed changes every random entry; the slopes (constant
     * 1/n) and the biases (zero) are the same by construction */
    size_t same = 0, random = 0;
    for (int id = 0; id < pf_graph_param_count(a.g); id++) {
        const char *nm = pf_graph_param_name(a.g, id);
        size_t len = strlen(nm);
        if (nm[len - 1] != 'W' && nm[len - 1] != 's') continue;
        int rows, cols;
        pf_graph_param_shape(a.g, id, &rows, &cols);
        const pf_real *pa = pf_graph_param_data(a.g, id), *pd = pf_graph_param_data(d.g, id);
        for (int i = 0; i < rows * cols; i++) same += pa[i] == pd[i];
        random += (size_t)rows * cols;
    }
    cr_assert_gt(random, 1000);
    cr_assert_eq(same, 0, "%zu of %zu random entries equal under another seed", same, random);
    rig_free(&a);
    rig_free(&b);
    rig_free(&d);
}

Test(nn, rwf_and_adaptive_init)
{
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 2;
    c.width = 200;
    c.rwf = true;
    c.adapt = PF_ADAPT_LAYERWISE;
    c.adapt_factor = 5;
    rig r = rig_new(&c, 1, 11, false);
    /* s ~ N(1, 0.1^2) */
    double mean, sd;
    mean_std(pf_graph_param_data(r.g, param_id(r.g, "h2.s")), 200, &mean, &sd);
    cr_assert(fabs(mean - 1.0) <= 0.03, "s mean %g", mean);
    cr_assert(fabs(sd - 0.1) <= 0.015, "s std %g", sd);
    /* W = diag(exp(s)) V starts Glorot normal */
    const pf_real *s = pf_graph_param_data(r.g, param_id(r.g, "h2.s"));
    const pf_real *V = pf_graph_param_data(r.g, param_id(r.g, "h2.W"));
    pf_real *W = malloc(40000 * sizeof *W);
    cr_assert(W);
    for (int i = 0; i < 200; i++)
        for (int j = 0; j < 200; j++) W[i * 200 + j] = (pf_real)(exp((double)s[i]) * V[i * 200 + j]);
    double want = sqrt(2.0 / 400);
    mean_std(W, 40000, &mean, &sd);
    cr_assert(fabs(sd - want) <= 0.05 * want, "effective W std %g, Glorot %g", sd, want);
    free(W);
    /* slopes a = 1/n, so n a = 1 at the start */
    for (int k = 1; k <= 2; k++) {
        char nm[24];
        snprintf(nm, sizeof nm, "h%d.a", k);
        int a = param_id(r.g, nm);
        cr_assert(a >= 0);
        cr_assert_eq(pf_graph_param_data(r.g, a)[0], (pf_real)0.2);
    }
    cr_assert_eq(param_id(r.g, "out.a"), -1, "the linear output layer has no slope");
    cr_assert(param_id(r.g, "out.s") >= 0, "rwf covers the output layer");
    rig_free(&r);
}

/* Global adaptive activation (GAAF): ONE slope "act.a" = 1/n, registered
 * after the output layer, so every other parameter is drawn exactly as
 * without adaptation, and the network starts as the plain one (n a = 1). */
Test(nn, global_adaptive_has_one_slope_and_keeps_the_init)
{
    for (int arch = 0; arch < MLP_ARCHS; arch++) {
        pf_model_config c = pf_model_config_default(2, 1);
        c.arch = (pf_arch)arch;
        c.depth = 2;
        c.width = 8;
        c.adapt = PF_ADAPT_GLOBAL;
        c.adapt_factor = 4;
        pf_model_config plain = c;
        plain.adapt = PF_ADAPT_NONE;
        rig r = rig_new(&c, 5, 12, false), p = rig_new(&plain, 5, 12, false);
        int nslope = 0;
        for (int id = 0; id < pf_graph_param_count(r.g); id++) {
            const char *nm = pf_graph_param_name(r.g, id);
            if (nm[strlen(nm) - 1] == 'a' && nm[strlen(nm) - 2] == '.') nslope++;
        }
        cr_assert_eq(nslope, 1, "%s: %d slopes", pf_arch_name(c.arch), nslope);
        int a = param_id(r.g, "act.a"), rows, cols;
        cr_assert_eq(a, pf_graph_param_count(r.g) - 1, "act.a is registered last");
        pf_graph_param_shape(r.g, a, &rows, &cols);
        cr_assert(rows == 1 && cols == 1);
        cr_assert_eq(pf_graph_param_data(r.g, a)[0], (pf_real)0.25);
        size_t n = pf_graph_nparams(p.g);
        cr_assert_eq(pf_graph_nparams(r.g), n + 1);
        cr_assert(memcmp(pf_graph_params(r.g), pf_graph_params(p.g), n * sizeof(pf_real)) == 0,
                  "%s: the weights differ from the unadapted network's", pf_arch_name(c.arch));
        pf_real x[10] = {0.3f, 0.1f, -0.7f, 0.9f, 0.2f, 0.4f, -0.1f, 0.5f, 0.8f, 0.6f};
        pf_real ur[5 * 6], up[5 * 6];
        pf_graph_set_input(r.g, r.x, x);
        pf_graph_set_input(p.g, p.x, x);
        pf_graph_forward(r.g);
        pf_graph_forward(p.g);
        pf_graph_read(r.g, r.u, ur);
        pf_graph_read(p.g, p.u, up);
        for (int i = 0; i < pf_node_nstreams(r.u) * 5; i++)
            cr_assert_float_eq(ur[i], up[i], 1e-6 * (1 + fabs((double)up[i])), "%s: entry %d", pf_arch_name(c.arch), i);
        rig_free(&r);
        rig_free(&p);
    }
}

Test(nn, fourier_matrix_init_and_frozen)
{
    pf_model_config c = pf_model_config_default(4, 1);
    c.depth = 1;
    c.width = 4;
    c.fourier_features = 1024;
    c.fourier_sigma = 2.5;
    rig r = rig_new(&c, 1, 5, true);
    int B = param_id(r.g, "fourier.B"), rows, cols;
    pf_graph_param_shape(r.g, B, &rows, &cols);
    cr_assert(rows == 1024 && cols == 4);
    double mean, sd, want = TWO_PI * 2.5;   /* the parameter holds 2 pi B */
    mean_std(pf_graph_param_data(r.g, B), 4096, &mean, &sd);
    cr_assert(fabs(sd - want) <= 0.05 * want, "std of 2 pi B %g, want %g", sd, want);
    cr_assert_null(pf_graph_param_grad(r.g, B), "a frozen B has no gradient");
    cr_assert_eq(pf_graph_nparams(r.g), pf_model_config_nparams(&c));
    rig_free(&r);
}

Test(nn, multiscale_fourier_groups_and_scales)
{
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 1;
    c.width = 4;
    c.fourier_features = 3001;
    c.fourier_sigma = 0.5;
    c.fourier_scales = 3;
    c.fourier_ratio = 4;
    rig r = rig_new(&c, 1, 5, true);
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "fourier.B%d", k);
        int B = param_id(r.g, name), rows, cols;
        cr_assert_geq(B, 0, "no %s", name);
        pf_graph_param_shape(r.g, B, &rows, &cols);
        cr_assert(rows == (k == 0 ? 1001 : 1000) && cols == 2, "%s is %d x %d", name, rows, cols);
        double mean, sd, want = TWO_PI * 0.5 * pow(4, k);
        mean_std(pf_graph_param_data(r.g, B), rows * cols, &mean, &sd);
        cr_assert(fabs(sd - want) <= 0.06 * want, "%s: std %g, want %g", name, sd, want);
    }
    cr_assert_eq(pf_model_config_features(&c), 2 * 3001);
    rig_free(&r);
    /* more scales than features, or a ratio <= 1, is refused */
    c.fourier_features = 2;
    cr_assert_eq(pf_model_config_check(&c), PF_ERR_INVALID);
    c.fourier_features = 6;
    c.fourier_ratio = 1;
    cr_assert_eq(pf_model_config_check(&c), PF_ERR_INVALID);
}

/* ---------------------------------------------------- forward vs reference */

Test(nn, mlp_forward_matches_reference)
{
    /* 2 -> 3 x 4 -> 1 tanh */
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 3;
    c.width = 4;
    check_against_reference(&c, 101, box_lo, box_hi);
    /* and each other activation on a 3 -> 2 x 5 -> 2 net; the global
     * adaptive slope with the last four (PINNsAgent's) */
    for (int i = 0; i < PF_NACTIVATIONS; i++) {
        pf_model_config a = pf_model_config_default(3, 2);
        a.depth = 2;
        a.width = 5;
        a.activation = pf_activations[i];
        if (i >= 6) a.adapt = PF_ADAPT_GLOBAL, a.adapt_factor = 2;
        check_against_reference(&a, 200 + i, box_lo, box_hi);
    }
    /* layers wider than one vector of the thin loop (tensor/cpu_linear.c):
     * 3 -> 19 (few inputs), 19 -> 19 (a GEMM), 19 -> 2 (few outputs) */
    pf_model_config w = pf_model_config_default(3, 2);
    w.depth = 2;
    w.width = 19;
    check_against_reference(&w, 300, box_lo, box_hi);
}

Test(nn, modified_mlp_forward_matches_reference)
{
    pf_model_config c = pf_model_config_default(2, 2);
    c.arch = PF_ARCH_MODIFIED_MLP;
    c.depth = 3;
    c.width = 5;
    check_against_reference(&c, 102, box_lo, box_hi);
    c.activation = PF_UNARY_SIN;
    c.init = PF_WEIGHT_INIT_GLOROT_UNIFORM;
    check_against_reference(&c, 103, box_lo, box_hi);
}

Test(nn, resnet_forward_matches_reference)
{
    pf_model_config c = pf_model_config_default(3, 1);
    c.arch = PF_ARCH_RESNET;
    c.depth = 2;
    c.width = 6;
    check_against_reference(&c, 104, box_lo, box_hi);
    c.activation = PF_UNARY_GELU;
    check_against_reference(&c, 105, box_lo, box_hi);
}

Test(nn, options_forward_match_reference)
{
    /* every representation and layer option at once, on each arch */
    for (int arch = 0; arch < MLP_ARCHS; arch++) {
        pf_model_config c = pf_model_config_default(3, 2);
        c.arch = (pf_arch)arch;
        c.depth = 2;
        c.width = 6;
        c.activation = PF_UNARY_SILU;
        c.normalize = true;
        c.lo[0] = -2, c.hi[0] = 3;
        c.lo[2] = 0.1, c.hi[2] = 0.6;
        c.periodic[1] = true;
        c.period[1] = 0.7;
        c.harmonics[1] = 2;
        c.fourier_features = 4;
        c.fourier_sigma = 0.3;
        c.fourier_trainable = arch == 1;
        c.adapt = PF_ADAPT_LAYERWISE;
        c.adapt_factor = 4;
        c.rwf = true;
        static const double lo[3] = {-2, -1, 0.1}, hi[3] = {3, 1, 0.6};
        check_against_reference(&c, 300 + arch, lo, hi);
    }
}

/* --------------------------------------------------------- representation */

Test(nn, normalization_maps_box_to_unit_cube)
{
    pf_model_config c = pf_model_config_default(2, 1);
    c.normalize = true;
    c.lo[0] = -2, c.hi[0] = 3;
    c.lo[1] = 0, c.hi[1] = 10;
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_model *m = pf_model_alloc(g, &c);
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 1);
    pf_real dirs[2] = {1, 0};
    pf_node *x = pf_input(g, "x", 3, 2, &L, dirs);
    pf_node *e = pf_model_embed(m, g, x);
    cr_assert_eq(pf_node_c(e), 2);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK);
    pf_real xs[6] = {-2, 0, 3, 10, 0.5, 5}, v[2 * 3 * 2];
    pf_graph_set_input(g, x, xs);
    pf_graph_forward(g);
    pf_graph_read(g, e, v);
    const double want[6] = {-1, -1, 1, 1, 0, 0};   /* lo -> -1, hi -> 1, mid -> 0 */
    for (int i = 0; i < 6; i++)
        cr_assert(fabs(v[i] - want[i]) <= 1e-6, "entry %d: %g, want %g", i, v[i], want[i]);
    /* the x-derivative stream is the chain-rule factor 2 / (hi - lo) */
    for (int p = 0; p < 3; p++) {
        cr_assert(fabs(v[6 + 2 * p] - 0.4) <= 1e-6, "d xn/dx = %g", v[6 + 2 * p]);
        cr_assert_eq(v[6 + 2 * p + 1], 0);
    }
    pf_model_free(m);
    pf_graph_free(g);
}

Test(nn, normalized_model_equals_plain_model_on_mapped_points)
{
    /* same parameters (same names, same seed); the normalised model at lo, hi
     * and a random point equals the plain model at the mapped points */
    pf_model_config a = pf_model_config_default(2, 1), b;
    a.depth = 2;
    a.width = 8;
    b = a;
    a.normalize = true;
    a.lo[0] = 1, a.hi[0] = 5;
    a.lo[1] = -4, a.hi[1] = -3;
    rig ra = rig_new(&a, 3, 9, false), rb = rig_new(&b, 3, 9, false);
    pf_real xa[6] = {1, -4, 5, -3, 2, -3.25}, xb[6] = {-1, -1, 1, 1, -0.5, 0.5};
    pf_real ua[3 * 4], ub[3 * 4];
    pf_graph_set_input(ra.g, ra.x, xa);
    pf_graph_set_input(rb.g, rb.x, xb);
    pf_graph_forward(ra.g);
    pf_graph_forward(rb.g);
    pf_graph_read(ra.g, ra.u, ua);
    pf_graph_read(rb.g, rb.u, ub);
    for (int p = 0; p < 3; p++) {
        cr_assert(fabs(ua[p] - ub[p]) <= 1e-5 * (1 + fabs(ub[p])), "point %d: %g vs %g", p,
                  ua[p], ub[p]);
        /* chain rule: du/dx = (2 / (hi - lo)) du/dxn = 0.5 du/dxn */
        int s1 = pf_jet_stream(&ra.L, 0, 1);
        cr_assert(fabs(ua[s1 * 3 + p] - 0.5 * ub[s1 * 3 + p]) <= 1e-5 * (1 + fabs(ub[s1 * 3 + p])));
    }
    rig_free(&ra);
    rig_free(&rb);
}

Test(nn, periodic_embedding_channels)
{
    /* input 0 periodic (P = 2, H = 2), input 1 normalised to [-1, 1]:
     * channels [cos(pi x), cos(2 pi x), sin(pi x), sin(2 pi x), tn] */
    pf_model_config c = pf_model_config_default(2, 1);
    c.normalize = true;
    c.lo[1] = 0, c.hi[1] = 4;
    c.periodic[0] = true;
    c.period[0] = 2;
    c.harmonics[0] = 2;
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_model *m = pf_model_alloc(g, &c);
    pf_node *x = pf_input(g, "x", 2, 2, NULL, NULL);
    pf_node *e = pf_model_embed(m, g, x);
    cr_assert_eq(pf_node_c(e), 5);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK);
    pf_real xs[4] = {0.3, 1, -1.7, 3}, v[10];
    pf_graph_set_input(g, x, xs);
    pf_graph_forward(g);
    pf_graph_read(g, e, v);
    for (int p = 0; p < 2; p++) {
        double w = TWO_PI / 2, t = xs[2 * p];
        double want[5] = {cos(w * t), cos(2 * w * t), sin(w * t), sin(2 * w * t),
                          xs[2 * p + 1] / 2 - 1};
        for (int j = 0; j < 5; j++)
            cr_assert(fabs(v[5 * p + j] - want[j]) <= 1e-6, "point %d channel %d: %g, want %g", p,
                      j, v[5 * p + j], want[j]);
    }
    pf_model_free(m);
    pf_graph_free(g);
}

Test(nn, periodic_model_is_exactly_periodic)
{
    /* u(x + P, t) == u(x, t), for the value and all carried derivatives */
    for (int arch = 0; arch < MLP_ARCHS; arch++) {
        pf_model_config c = pf_model_config_default(2, 1);
        c.arch = (pf_arch)arch;
        c.depth = 3;
        c.width = 16;
        c.normalize = true;
        c.lo[1] = 0, c.hi[1] = 1;
        c.periodic[0] = true;
        c.period[0] = 1;
        c.harmonics[0] = 2;
        enum { N = 16 };
        rig r = rig_new(&c, 2 * N, 77 + arch, false);
        pf_real x[2 * N * 2];
        for (int p = 0; p < N; p++) {
            x[2 * p] = (pf_real)urand(0, 1);
            x[2 * p + 1] = (pf_real)urand(0, 1);
            x[2 * (N + p)] = x[2 * p] + (pf_real)c.period[0];
            x[2 * (N + p) + 1] = x[2 * p + 1];
        }
        pf_graph_set_input(r.g, r.x, x);
        pf_graph_forward(r.g);
        int S = pf_node_nstreams(r.u);
        pf_real u[4 * 2 * N];
        cr_assert(S <= 4);
        pf_graph_read(r.g, r.u, u);
        for (int s = 0; s < S; s++) {
            double scale = 1;
            for (int p = 0; p < 2 * N; p++) scale = fmax(scale, fabs(u[s * 2 * N + p]));
            for (int p = 0; p < N; p++) {
                double a = u[s * 2 * N + p], b = u[s * 2 * N + N + p];
                cr_assert(fabs(a - b) <= 1e-5 * scale, "%s stream %d point %d: u(x) %.9g, u(x+P) %.9g",
                          pf_arch_name(c.arch), s, p, a, b);
            }
        }
        rig_free(&r);
    }
}

/* --------------------------------------------------------- applications */

Test(nn, applications_share_parameters)
{
    /* an interior jet and value-only boundary points through one model */
    pf_model_config c = pf_model_config_default(2, 3);
    c.arch = PF_ARCH_MODIFIED_MLP;
    c.depth = 3;
    c.width = 7;
    c.periodic[0] = true;
    c.period[0] = 2;
    c.fourier_features = 3;
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_model *m = pf_model_alloc(g, &c);
    int nparam = pf_graph_param_count(g);
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 1);
    pf_real dirs[4] = {1, 0, 0, 1};
    pf_node *xi = pf_input(g, "interior", 4, 2, &L, dirs);
    pf_node *xb = pf_input(g, "boundary", 4, 2, NULL, NULL);
    pf_node *ui = pf_model_apply(m, g, xi), *ub = pf_model_apply(m, g, xb);
    cr_assert_eq(pf_graph_param_count(g), nparam, "apply registered parameters");
    cr_assert_eq(pf_node_nstreams(ub), 1);
    cr_assert_eq(pf_node_nstreams(ui), 4);
    pf_model_free(m);   /* the nodes and parameters live on in g */
    cr_assert_eq(pf_graph_compile(g, 3), PF_OK);
    cr_assert_eq(pf_graph_nparams(g), pf_model_config_nparams(&c));
    pf_real xs[8] = {0.1, 0.2, -0.7, 0.5, 1.3, -0.2, 0.9, 0.9};
    pf_graph_set_input(g, xi, xs);
    pf_graph_set_input(g, xb, xs);
    pf_graph_forward(g);
    pf_real vi[4 * 4 * 3], vb[4 * 3];
    pf_graph_read(g, ui, vi);
    pf_graph_read(g, ub, vb);
    for (int i = 0; i < 12; i++)
        cr_assert(fabs(vi[i] - vb[i]) <= 1e-5 * (1 + fabs(vb[i])), "entry %d: %g vs %g", i, vi[i],
                  vb[i]);
    pf_graph_free(g);
}

/* ------------------------------------------------- gradients (double build) */

/* Total loss after a forward pass. */
static double total_loss(pf_graph *g)
{
    pf_graph_forward(g);
    double s = 0;
    for (int t = 0; t < pf_graph_nloss(g); t++) s += pf_graph_loss_value(g, t);
    return s;
}

/* Every trainable parameter: backward vs central differences of the total
 * loss; returns the gradient for further checks (caller frees). */
static pf_real *check_gradients(const pf_model_config *c, uint64_t seed, const double *lo,
                                const double *hi, rig *out_rig)
{
    enum { N = 5 };
    rig r = rig_new(c, N, seed, true);
    pf_real x[N * PF_MODEL_MAX_IN];
    random_points(x, N, c->in_dim, lo, hi);
    pf_graph_set_input(r.g, r.x, x);
    double L0 = total_loss(r.g);
    cr_assert(isfinite(L0) && L0 > 0, "loss %g", L0);
    pf_graph_backward(r.g, NULL);
    size_t n = pf_graph_nparams(r.g);
    pf_real *grad = malloc(n * sizeof *grad), *p = pf_graph_params(r.g);
    cr_assert(grad);
    memcpy(grad, pf_graph_grads(r.g), n * sizeof *grad);
    const double h = 1e-5;
    for (int id = 0; id < pf_graph_param_count(r.g); id++) {
        pf_real *gd = pf_graph_param_grad(r.g, id);
        if (!gd) continue;   /* frozen */
        int rows, cols;
        pf_graph_param_shape(r.g, id, &rows, &cols);
        size_t off = pf_graph_param_offset(r.g, id);
        for (int i = 0; i < rows * cols; i++) {
            pf_real keep = p[off + i];
            p[off + i] = keep + h;
            double lp = total_loss(r.g);
            p[off + i] = keep - h;
            double lm = total_loss(r.g);
            p[off + i] = keep;
            double fd = (lp - lm) / (2 * h), an = grad[off + i];
            cr_assert(fabs(fd - an) <= 1e-6 * fmax(fabs(fd), fabs(an)) + 1e-8 * (1 + L0),
                      "%s %s: d loss / d %s[%d]: backward %.10g, finite difference %.10g",
                      pf_arch_name(c->arch), pf_unary_name(c->activation), pf_graph_param_name(r.g, id), i, an, fd);
        }
    }
    if (out_rig) *out_rig = r;
    else rig_free(&r);
    return grad;
}

#define SKIP_UNLESS_DOUBLE()                                                    \
    do {                                                                        \
        if (!IS_DOUBLE) cr_skip_test("gradient checks need the double build"); \
    } while (0)

Test(nn, gradcheck_mlp)
{
    SKIP_UNLESS_DOUBLE();
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 2;
    c.width = 4;
    free(check_gradients(&c, 401, box_lo, box_hi, NULL));
}

Test(nn, gradcheck_modified_mlp)
{
    SKIP_UNLESS_DOUBLE();
    pf_model_config c = pf_model_config_default(2, 2);
    c.arch = PF_ARCH_MODIFIED_MLP;
    c.depth = 3;
    c.width = 4;
    free(check_gradients(&c, 402, box_lo, box_hi, NULL));
}

Test(nn, gradcheck_resnet)
{
    SKIP_UNLESS_DOUBLE();
    pf_model_config c = pf_model_config_default(2, 1);
    c.arch = PF_ARCH_RESNET;
    c.depth = 2;
    c.width = 4;
    c.activation = PF_UNARY_SIN;
    free(check_gradients(&c, 403, box_lo, box_hi, NULL));
}

Test(nn, gradcheck_embeddings)
{
    /* normalisation, periodic embedding and a TRAINABLE Fourier matrix */
    SKIP_UNLESS_DOUBLE();
    pf_model_config c = pf_model_config_default(2, 1);
    c.depth = 2;
    c.width = 4;
    c.activation = PF_UNARY_SOFTPLUS;
    c.normalize = true;
    c.lo[1] = 0, c.hi[1] = 2;
    c.periodic[0] = true;
    c.period[0] = 1.5;
    c.harmonics[0] = 2;
    c.fourier_features = 3;
    c.fourier_sigma = 0.5;
    c.fourier_trainable = true;
    rig r;
    pf_real *grad = check_gradients(&c, 404, box_lo, box_hi, &r);
    int B = param_id(r.g, "fourier.B");
    double norm = 0;
    for (int i = 0; i < 3 * 5; i++) norm += fabs(grad[pf_graph_param_offset(r.g, B) + i]);
    cr_assert_gt(norm, 1e-6, "trainable B gets a gradient");
    free(grad);
    rig_free(&r);
}

/* Slopes (.a) and rwf scales (.s) get nonzero gradients that match finite
 * differences, on every arch. */
Test(nn, gradcheck_adaptive_and_rwf)
{
    SKIP_UNLESS_DOUBLE();
    for (int arch = 0; arch < MLP_ARCHS; arch++) {
        pf_model_config c = pf_model_config_default(2, 1);
        c.arch = (pf_arch)arch;
        c.depth = 2;
        c.width = 4;
        c.activation = arch == 2 ? PF_UNARY_GELU : PF_UNARY_TANH;
        c.adapt = PF_ADAPT_LAYERWISE;
        c.adapt_factor = 3;
        c.rwf = true;
        rig r;
        pf_real *grad = check_gradients(&c, 405 + arch, box_lo, box_hi, &r);
        int nslope = 0, nscale = 0;
        for (int id = 0; id < pf_graph_param_count(r.g); id++) {
            const char *nm = pf_graph_param_name(r.g, id);
            char kind = nm[strlen(nm) - 1];
            if (kind != 'a' && kind != 's') continue;
            int rows, cols;
            pf_graph_param_shape(r.g, id, &rows, &cols);
            double norm = 0;
            for (int i = 0; i < rows * cols; i++)
                norm += fabs(grad[pf_graph_param_offset(r.g, id) + i]);
            cr_assert_gt(norm, 1e-8, "%s: %s has a zero gradient", pf_arch_name(c.arch), nm);
            nslope += kind == 'a';
            nscale += kind == 's';
        }
        int hidden = arch == PF_ARCH_RESNET ? 5 : arch == PF_ARCH_MODIFIED_MLP ? 4 : 2;
        cr_assert_eq(nslope, hidden, "%s: %d slopes", pf_arch_name(c.arch), nslope);
        cr_assert_eq(nscale, hidden + 1, "%s: %d rwf scales", pf_arch_name(c.arch), nscale);
        free(grad);
        rig_free(&r);
    }
}

/* Global adaptive activation: the one slope act.a gets a nonzero gradient
 * that matches central differences (with every other parameter), on every
 * arch; and the new activations under gradient checks (he init, their
 * usual pairing; the random points put no pre-activation within the
 * differences' step of relu's or elu's kink). */
Test(nn, gradcheck_global_adaptive_and_new_activations)
{
    SKIP_UNLESS_DOUBLE();
    const pf_unary_op acts[4] = {PF_UNARY_ELU, PF_UNARY_SELU, PF_UNARY_RELU, PF_UNARY_GAUSSIAN};
    for (int arch = 0; arch < MLP_ARCHS; arch++)
        for (int k = 0; k < 4; k++) {
            pf_model_config c = pf_model_config_default(2, 1);
            c.arch = (pf_arch)arch;
            c.depth = 2;
            c.width = 4;
            c.activation = acts[k];
            c.init = k % 2 ? PF_WEIGHT_INIT_HE_UNIFORM : PF_WEIGHT_INIT_HE_NORMAL;
            /* the gaussian's second derivative is -100 at 0: u_00 of stacked
             * gaussian layers grows like 100^layers and central differences
             * lose the digits, so it is checked on the MLP (2 layers) only;
             * test_jet.c's grad checks cover the op itself */
            if (acts[k] == PF_UNARY_GAUSSIAN && arch != PF_ARCH_MLP) continue;
            c.adapt = PF_ADAPT_GLOBAL;
            c.adapt_factor = 3;
            rig r;
            pf_real *grad = check_gradients(&c, 420 + 4 * arch + k, box_lo, box_hi, &r);
            int a = param_id(r.g, "act.a");
            cr_assert_geq(a, 0);
            double ga = grad[pf_graph_param_offset(r.g, a)];
            cr_assert(fabs(ga) > 1e-8, "%s %s: the global slope's gradient is %g", pf_arch_name(c.arch),
                      pf_unary_name(c.activation), ga);
            free(grad);
            rig_free(&r);
        }
}

/* ------------------------------------------------------------ config check */

/* The config fails with PF_ERR_INVALID and a message containing `field`. */
static void expect_rejected(const pf_model_config *c, const char *field)
{
    pf_fail(PF_OK, "%s", "");
    cr_assert_eq(pf_model_config_check(c), PF_ERR_INVALID, "accepted; expected an error on %s",
                 field);
    cr_assert(strstr(pf_errmsg(), field) != NULL, "message '%s' does not name '%s'", pf_errmsg(),
              field);
    /* alloc refuses it too and registers nothing */
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    cr_assert_null(pf_model_alloc(g, c));
    cr_assert_eq(pf_graph_param_count(g), 0);
    pf_graph_free(g);
}

Test(nn, config_check)
{
    pf_model_config ok = pf_model_config_default(2, 1), c;
    cr_assert_eq(pf_model_config_check(&ok), PF_OK, "%s", pf_errmsg());

    c = ok; c.depth = 0;
    expect_rejected(&c, "depth");
    cr_assert(strstr(pf_errmsg(), "got 0") != NULL, "%s", pf_errmsg());
    c = ok; c.arch = PF_ARCH_MODIFIED_MLP; c.depth = 1;
    expect_rejected(&c, "depth");
    c = ok; c.width = 0;
    expect_rejected(&c, "width");
    c = ok; c.in_dim = 0;
    expect_rejected(&c, "in_dim");
    c = ok; c.out_dim = PF_MODEL_MAX_OUT + 1;
    expect_rejected(&c, "out_dim");
    c = ok; c.arch = PF_ARCH_COUNT;
    expect_rejected(&c, "arch");
    cr_assert(strstr(pf_errmsg(), "mlp, modified_mlp, resnet") != NULL, "%s", pf_errmsg());
    c = ok; c.activation = PF_UNARY_COS;   /* a unary op, but not an activation */
    expect_rejected(&c, "activation");
    cr_assert(strstr(pf_errmsg(), "tanh, sin, silu, gelu, softplus, sigmoid") != NULL, "%s",
              pf_errmsg());
    c = ok; c.activation = (pf_unary_op)99;
    expect_rejected(&c, "activation");
    c = ok; c.periodic[1] = true; c.period[1] = 0;
    expect_rejected(&c, "period[1]");
    c = ok; c.periodic[0] = true; c.period[0] = -2;
    expect_rejected(&c, "period[0]");
    c = ok; c.periodic[0] = true; c.period[0] = 1; c.harmonics[0] = 0;
    expect_rejected(&c, "harmonics[0]");
    c = ok; c.fourier_features = 8; c.fourier_sigma = 0;
    expect_rejected(&c, "fourier_sigma");
    c = ok; c.fourier_features = 8; c.fourier_sigma = -1;
    expect_rejected(&c, "fourier_sigma");
    c = ok; c.fourier_features = -1;
    expect_rejected(&c, "fourier_features");
    c = ok; c.normalize = true; c.lo[1] = 2; c.hi[1] = 2;
    expect_rejected(&c, "lo[1]");
    c = ok; c.adapt = PF_ADAPT_LAYERWISE; c.adapt_factor = 0;
    expect_rejected(&c, "adapt_factor");
    c = ok; c.adapt = PF_ADAPT_GLOBAL; c.adapt_factor = -1;
    expect_rejected(&c, "adapt_factor");
    cr_assert(strstr(pf_errmsg(), "global") != NULL, "%s", pf_errmsg());
    c = ok; c.rwf = true; c.init = PF_WEIGHT_INIT_HE_NORMAL;
    expect_rejected(&c, "init");
    c = ok; c.rwf = true; c.init = PF_WEIGHT_INIT_ZEROS;
    expect_rejected(&c, "init");
    c = ok; c.rwf = true; c.rwf_sigma = -0.1;
    expect_rejected(&c, "rwf_sigma");
    c = ok; c.rwf = true; c.init = PF_WEIGHT_INIT_GLOROT_UNIFORM;
    expect_rejected(&c, "init");

    /* switched-off fields are ignored */
    c = ok; c.period[0] = -1; c.lo[0] = 5; c.fourier_sigma = 0; c.adapt_factor = -1;
    c.rwf_sigma = -1;
    cr_assert_eq(pf_model_config_check(&c), PF_OK, "%s", pf_errmsg());
    /* a periodic input needs no lo < hi even with normalize */
    c = ok; c.normalize = true; c.periodic[0] = true; c.period[0] = 1; c.lo[0] = c.hi[0] = 0;
    cr_assert_eq(pf_model_config_check(&c), PF_OK, "%s", pf_errmsg());
}

/* ------------------------------------------------------------------ names */

Test(nn, names_round_trip)
{
    for (int a = 0; a < PF_ARCH_COUNT; a++) {
        pf_arch got = PF_ARCH_COUNT;
        cr_assert_eq(pf_arch_from_name(pf_arch_name((pf_arch)a), &got), PF_OK);
        cr_assert_eq((int)got, a);
    }
    for (int a = 0; a < PF_ADAPT_COUNT; a++) {
        pf_adapt got = PF_ADAPT_COUNT;
        cr_assert_eq(pf_adapt_from_name(pf_adapt_name((pf_adapt)a), &got), PF_OK);
        cr_assert_eq((int)got, a);
    }
    for (int i = 0; i < PF_WEIGHT_INIT_COUNT; i++) {
        pf_weight_init got = PF_WEIGHT_INIT_COUNT;
        cr_assert_eq(pf_weight_init_from_name(pf_weight_init_name((pf_weight_init)i), &got), PF_OK);
        cr_assert_eq((int)got, i);
    }
    for (int i = 0; i < PF_NACTIVATIONS; i++) {
        pf_unary_op got = PF_UNARY_COUNT;
        cr_assert(pf_activation_allowed(pf_activations[i]));
        cr_assert_eq(pf_activation_from_name(pf_unary_name(pf_activations[i]), &got), PF_OK);
        cr_assert_eq(got, pf_activations[i]);
    }
    cr_assert_str_eq(pf_arch_name(PF_ARCH_MODIFIED_MLP), "modified_mlp");
    cr_assert_str_eq(pf_adapt_name(PF_ADAPT_LAYERWISE), "layerwise");
    cr_assert_str_eq(pf_adapt_name(PF_ADAPT_GLOBAL), "global");
    cr_assert_str_eq(pf_weight_init_name(PF_WEIGHT_INIT_HE_NORMAL), "he_normal");
    cr_assert_str_eq(pf_weight_init_name(PF_WEIGHT_INIT_HE_UNIFORM), "he_uniform");
    cr_assert_str_eq(pf_weight_init_name(PF_WEIGHT_INIT_ZEROS), "zeros");
    const char *newacts[4] = {"elu", "selu", "relu", "gaussian"};
    for (int i = 0; i < 4; i++) {
        pf_unary_op got;
        cr_assert_eq(pf_activation_from_name(newacts[i], &got), PF_OK, "%s", newacts[i]);
        cr_assert_str_eq(pf_unary_name(got), newacts[i]);
    }
    cr_assert_str_eq(pf_weight_init_name(PF_WEIGHT_INIT_GLOROT_UNIFORM), "glorot_uniform");
    cr_assert_str_eq(pf_arch_name(PF_ARCH_COUNT), "?");

    pf_arch a = PF_ARCH_RESNET;
    cr_assert_eq(pf_arch_from_name("transformer", &a), PF_ERR_INVALID);
    cr_assert_eq(a, PF_ARCH_RESNET, "untouched on failure");
    cr_assert_str_eq(pf_errmsg(), "arch 'transformer' is unknown; allowed: mlp, modified_mlp, resnet, pinnsformer");
    pf_unary_op op = PF_UNARY_TANH;
    cr_assert_eq(pf_activation_from_name("cos", &op), PF_ERR_INVALID, "cos is a unary op, not an activation");
    cr_assert_eq(pf_activation_from_name("leaky_relu", &op), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "'leaky_relu'") != NULL && strstr(pf_errmsg(), "gaussian") != NULL,
              "%s", pf_errmsg());
    cr_assert_eq(pf_adapt_from_name(NULL, &(pf_adapt){0}), PF_ERR_INVALID);
    cr_assert_eq(pf_weight_init_from_name("he", &(pf_weight_init){0}), PF_ERR_INVALID);
    cr_assert(!pf_activation_allowed(PF_UNARY_EXP));
}

/* ------------------------------------------------------------ pinnsformer */

/* The released sizes (in 2, out 1): 453,561 trainable scalars, counted
 * module by module from the released model/pinnsformer.py (pinnsformer.h);
 * the formula agrees with the graph the model builds, and a smaller
 * config's formula with its graph too. */
Test(nn, pinnsformer_nparams_released_sizes)
{
    pf_pinnsformer_config c = pf_pinnsformer_config_default(2, 1);
    size_t lin_dm = 32 * 32 + 32, layer = 4 * lin_dm + (32 * 256 + 256) + (256 * 256 + 256) +
                                          (256 * 32 + 32) + 4 * 2;
    size_t hand = (2 * 32 + 32) + 2 * (layer + 2) + (32 * 512 + 512) + 2 + (512 * 512 + 512) + 2 + (512 + 1);
    cr_expect_eq(hand, 453561, "hand count %zu", hand);
    cr_expect_eq(pf_pinnsformer_nparams(&c), 453561, "nparams %zu", pf_pinnsformer_nparams(&c));
    pf_pinnsformer_config small = {3, 2, 4, 0.01, 8, 6, 10, 4, 2};
    pf_pinnsformer_config cs[2] = {c, small};
    for (int i = 0; i < 2; i++) {
        pf_graph *g = pf_graph_alloc(pf_backend_cpu());
        pf_pinnsformer *m = pf_pinnsformer_alloc(g, &cs[i]);
        cr_assert_not_null(m, "%s", pf_errmsg());
        pf_node *x = pf_input(g, "x", 3, cs[i].in_dim, NULL, NULL);
        pf_loss(g, "u", pf_mean_square(g, pf_pinnsformer_apply(m, g, x), NULL));
        pf_pinnsformer_free(m);
        cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
        cr_expect_eq(pf_graph_nparams(g), pf_pinnsformer_nparams(&cs[i]), "config %d: graph %zu, formula %zu",
                     i, pf_graph_nparams(g), pf_pinnsformer_nparams(&cs[i]));
        pf_graph_free(g);
    }
    pf_pinnsformer_config bad = c;
    bad.heads = 3;
    cr_expect_eq(pf_pinnsformer_nparams(&bad), 0, "3 heads do not divide d_model 32");
    cr_expect(strstr(pf_errmsg(), "heads") != NULL, "the message names heads: %s", pf_errmsg());
}

/* Initialisation as released (the demos' init_weights on every nn.Linear,
 * torch's defaults elsewhere): WaveActs 1; the attention's Q, K, V
 * projections, blocks of torch's packed 3d x d in_proj_weight, uniform
 * within that matrix's one Xavier bound sqrt(6 / (d + 3d)) with biases 0;
 * every other linear (the attention's output projection included)
 * Xavier-uniform within sqrt(6 / (fan_in + fan_out)) with biases 0.01.
 * The weights' largest |w| and their variance (l^2 / 3 for U(-l, l)) are
 * checked against the bound: seed 7, deterministic. */
static bool is_in_proj(const char *name)
{
    return strstr(name, ".attn.q.") || strstr(name, ".attn.k.") || strstr(name, ".attn.v.");
}

Test(nn, pinnsformer_init)
{
    pf_pinnsformer_config c = pf_pinnsformer_config_default(2, 1);
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pinnsformer *m = pf_pinnsformer_alloc(g, &c);
    pf_node *x = pf_input(g, "x", 2, 2, NULL, NULL);
    pf_loss(g, "u", pf_mean_square(g, pf_pinnsformer_apply(m, g, x), NULL));
    pf_pinnsformer_free(m);
    cr_assert_eq(pf_graph_compile(g, 7), PF_OK, "%s", pf_errmsg());
    double packed = sqrt(6.0 / (32 + 3 * 32));
    cr_assert_float_eq(pf_pinnsformer_in_proj_bound(32), packed, 1e-15);
    int waves = 0, biases = 0, weights = 0, in_proj = 0;
    for (int id = 0; id < pf_graph_param_count(g); id++) {
        const char *name = pf_graph_param_name(g, id);
        int r, cc;
        pf_graph_param_shape(g, id, &r, &cc);
        const pf_real *v = pf_graph_param_data(g, id);
        size_t len = strlen(name);
        bool qkv = is_in_proj(name);
        if (!strcmp(name + len - 3, ".w1") || !strcmp(name + len - 3, ".w2")) {
            cr_expect(v[0] == 1, "%s = %g", name, (double)v[0]);
            waves++;
        } else if (!strcmp(name + len - 2, ".b")) {
            pf_real want = qkv ? 0 : (pf_real)0.01;
            for (int j = 0; j < r * cc; j++) cr_expect(v[j] == want, "%s[%d] = %g", name, j, (double)v[j]);
            biases++;
        } else {
            double l = qkv ? packed : sqrt(6.0 / (r + cc)), amax = 0, ss = 0;
            for (int j = 0; j < r * cc; j++) {
                amax = fmax(amax, fabs((double)v[j]));
                ss += (double)v[j] * v[j];
            }
            double var = ss / (r * cc), want = l * l / 3;
            cr_expect(amax <= l && amax > (qkv ? 0.95 : 0.5) * l, "%s: max |w| %g within the bound %g", name, amax,
                      l);
            /* 1,024 draws: the sample variance within 15% of l^2 / 3 (about 5 sd) */
            if (qkv) cr_expect(fabs(var - want) < 0.15 * want, "%s: variance %g, U(-l, l) gives %g", name, var, want);
            weights++;
            in_proj += qkv;
        }
    }
    /* 4 per layer + 2 final + 2 in the head WaveActs; 7 linears per layer + emb + 3 */
    cr_expect_eq(waves, 2 * (2 * 4 + 2 + 2));
    cr_expect_eq(biases, 2 * 7 + 4);
    cr_expect_eq(weights, 2 * 7 + 4);
    cr_expect_eq(in_proj, 2 * 3, "Q, K and V of the encoder and the decoder layer");
    pf_graph_free(g);
}

/* pf_pinnsformer_apply runs the head after selecting token 0: every
 * stream of its output equals token 0 of the output of every token (the
 * head on all tokens), to 1e-12 (double) / 1e-5 (float) relative to
 * max(|u|, 1). A small config on a jet with directions of order 2 and 1;
 * chunks off, so both outputs can be read. */
Test(nn, pinnsformer_token_0_is_token_0_of_every_token)
{
    pf_pinnsformer_config c = {2, 1, 3, 0.1, 4, 5, 6, 2, 1};
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, 0);
    pf_pinnsformer *m = pf_pinnsformer_alloc(g, &c);
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 1);
    pf_real dirs[4] = {0.6, -0.8, 0.28, 0.96};
    enum { N = 4 };
    pf_node *x = pf_input(g, "x", N, 2, &L, dirs);
    pf_node *all = pf_token_select(g, pf_pinnsformer_apply_tokens(m, g, x), c.seq_len, 0);
    pf_node *t0 = pf_pinnsformer_apply(m, g, x);
    pf_loss(g, "all", pf_mean_square(g, all, NULL));
    pf_loss(g, "t0", pf_mean_square(g, t0, NULL));
    pf_pinnsformer_free(m);
    cr_assert_eq(pf_graph_compile(g, 5), PF_OK, "%s", pf_errmsg());
    pf_real xs[2 * N] = {0.1, 0.2, -0.5, 0.7, 0.9, -0.3, -0.8, -0.6};
    pf_graph_set_input(g, x, xs);
    pf_graph_forward(g);
    int S = pf_node_nstreams(t0);
    cr_assert_eq(S, 4, "u, x, xx, t streams");
    pf_real a[4 * N], b[4 * N];
    pf_graph_read(g, all, a);
    pf_graph_read(g, t0, b);
    double tol = IS_DOUBLE ? 1e-12 : 1e-5;
    for (int i = 0; i < S * N; i++)
        cr_expect_leq(fabs((double)a[i] - (double)b[i]), tol * fmax(fabs((double)a[i]), 1),
                      "stream %d, point %d: every token's %.17g, token 0's %.17g", i / N, i % N, (double)a[i],
                      (double)b[i]);
    pf_graph_free(g);
}

/* The whole network's reverse mode against central differences (double):
 * a small config (seq_len 3, d_model 4 in 2 heads, d_ff 5, d_hidden 6) on
 * a jet with directions of order 2 and 1 (not along the axes), a loss on
 * every stream of every token's output and one on token 0's value (the
 * initial-condition rule). |g - fd| <= 1e-6 max(1, |g|), h = 1e-6. */
Test(nn, pinnsformer_gradients_match_finite_differences)
{
#ifndef PF_DOUBLE
    cr_skip_test("gradient checks need PRECISION=double");
#endif
    pf_pinnsformer_config c = {2, 1, 3, 0.1, 4, 5, 6, 2, 1};
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_pinnsformer *m = pf_pinnsformer_alloc(g, &c);
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 1);
    pf_real dirs[4] = {0.6, -0.8, 0.28, 0.96};
    enum { N = 4 };
    pf_node *x = pf_input(g, "x", N, 2, &L, dirs);
    pf_node *u = pf_pinnsformer_apply_tokens(m, g, x);
    for (int d = 0; d < 2; d++)
        for (int k = 0; k <= L.order[d]; k++) pf_loss(g, "s", pf_mean_square(g, pf_deriv(g, u, d, k), NULL));
    pf_loss(g, "ic", pf_mean_square(g, pf_deriv(g, pf_pinnsformer_apply(m, g, x), 0, 0), NULL));
    pf_pinnsformer_free(m);
    cr_assert_eq(pf_graph_compile(g, 9), PF_OK, "%s", pf_errmsg());
    pf_real xs[2 * N] = {0.1, 0.2, -0.5, 0.7, 0.9, -0.3, -0.8, -0.6};
    pf_graph_set_input(g, x, xs);
    int nt = pf_graph_nloss(g);
    pf_real w[8] = {1.3, -0.7, 0.9, 1.1, -1.4, 2.0, 0.5, 1};
    cr_assert_leq(nt, 8);
    size_t np = pf_graph_nparams(g);
    pf_real *p = pf_graph_params(g), *g1 = malloc(np * sizeof *g1);
    cr_assert_not_null(g1);
    pf_graph_forward(g);
    pf_graph_backward(g, w);
    memcpy(g1, pf_graph_grads(g), np * sizeof *g1);
    double worst = 0, gmax = 0;
    size_t iw = 0;
    for (size_t i = 0; i < np; i++) {
        pf_real p0 = p[i];
        double l[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            p[i] = p0 + (sgn ? -1e-6 : 1e-6);
            pf_graph_forward(g);
            l[sgn] = 0;
            for (int t = 0; t < nt; t++) l[sgn] += w[t] * pf_graph_loss_value(g, t);
        }
        p[i] = p0;
        double fd = (l[0] - l[1]) / 2e-6, e = fabs(g1[i] - fd) / fmax(1, fabs(g1[i]));
        if (e > worst) worst = e, iw = i;
        gmax = fmax(gmax, fabs(g1[i]));
    }
    cr_expect(gmax > 0, "the gradient is not zero");
    cr_expect(worst <= 1e-6, "all %zu gradients match central differences (worst #%zu: %.2e)", np, iw, worst);
    free(g1);
    pf_graph_free(g);
}
