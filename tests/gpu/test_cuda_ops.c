/*
 * test_cuda_ops.c — the CUDA backend against the CPU reference, op by op
 * (pf-gpu-tests; `make test-gpu`). Every test skips, saying why, where no
 * GPU can be used.
 *
 * Each case builds the same graph on both backends from the same seed and
 * inputs, runs one forward + backward with random loss weights, and compares
 * by normalized MSE, nmse(a, b) = sum (a - b)^2 / sum b^2 (docs/architecture.md, "Style:
 * testing derivatives, backends and numerics"):
 * the loss values, the flat parameter gradient, and the value and gradient
 * buffers of every node the case records. Tolerances (float build): values
 * and gradients 1e-9 for the light ops (sums, products, copies: they differ
 * only by fused multiply-adds and summation order), 1e-8 for the unary
 * functions (CUDA's libm differs from glibc by a few ulp) and 1e-7 where
 * order-4 streams multiply such differences.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor/device.h"
#include "tensor/graph.h"

/* The CUDA backend, or the test is skipped with the reason. */
static const pf_backend *gpu(void)
{
    const pf_backend *be;
    if (pf_device_open("cuda", &be) != PF_OK) cr_skip_test("%s", pf_errmsg());
    return be;
}

static double nmse(const pf_real *a, const pf_real *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)a[i] - (double)b[i];
        num += d * d;
        den += (double)b[i] * b[i];
    }
    return den > 0 ? num / den : num;
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double uni(uint64_t *s) { return (double)(mix(s) >> 11) * 0x1.0p-53; }

/* ------------------------------------------------------------- the harness */

#define MAX_REC 32
#define MAX_IN 4

/* What a builder leaves behind: inputs to fill, nodes to compare. */
typedef struct rec {
    pf_node *in[MAX_IN];
    int nin;
    pf_node *node[MAX_REC];
    const char *what[MAX_REC];
    int nnode;
} rec;

typedef void (*builder)(pf_graph *g, rec *r, int variant);

static void keep(rec *r, pf_node *x, const char *what)
{
    cr_assert_lt(r->nnode, MAX_REC);
    r->node[r->nnode] = x;
    r->what[r->nnode++] = what;
}

/* Everything one backend produced. */
typedef struct out {
    int nloss;
    double loss[64];
    size_t np;
    pf_real *grads;
    pf_real *val[MAX_REC], *grad[MAX_REC];
    size_t len[MAX_REC];
    const char *what[MAX_REC];
    int nnode;
} out;

static void run_on(const pf_backend *be, builder b, int variant, out *o)
{
    pf_graph *g = pf_graph_alloc(be);
    pf_graph_set_chunk_bytes(g, 0);
    pf_graph_keep_grads(g, true);
    rec r = {0};
    b(g, &r, variant);
    cr_assert_eq(pf_graph_compile(g, 11), PF_OK, "%s", pf_errmsg());
    uint64_t s = 5;
    for (int i = 0; i < r.nin; i++) { /* inputs in [0.1, 0.9] */
        size_t m = (size_t)pf_node_n(r.in[i]) * pf_node_c(r.in[i]);
        pf_real *v = malloc(m * sizeof *v);
        for (size_t k = 0; k < m; k++) v[k] = (pf_real)(0.1 + 0.8 * uni(&s));
        pf_graph_set_input(g, r.in[i], v);
        free(v);
    }
    o->nloss = pf_graph_nloss(g);
    cr_assert_leq(o->nloss, 64);
    pf_real w[64];
    for (int t = 0; t < o->nloss; t++) w[t] = (pf_real)(0.5 + uni(&s));
    pf_graph_forward(g);
    pf_graph_forward_backward(g, w);
    for (int t = 0; t < o->nloss; t++) o->loss[t] = pf_graph_loss_value(g, t);
    o->np = pf_graph_nparams(g);
    o->grads = malloc((o->np + 1) * sizeof(pf_real));
    be->download(o->grads, pf_graph_grads(g), o->np * sizeof(pf_real));
    o->nnode = r.nnode;
    for (int k = 0; k < r.nnode; k++) {
        pf_node *x = r.node[k];
        o->what[k] = r.what[k];
        o->len[k] = (size_t)pf_node_nstreams(x) * pf_node_n(x) * pf_node_c(x);
        o->val[k] = malloc(o->len[k] * sizeof(pf_real));
        o->grad[k] = malloc(o->len[k] * sizeof(pf_real));
        pf_graph_read(g, x, o->val[k]);
        pf_graph_read_grad(g, x, o->grad[k]);
    }
    pf_graph_free(g);
}

static void release(out *o)
{
    free(o->grads);
    for (int k = 0; k < o->nnode; k++) {
        free(o->val[k]);
        free(o->grad[k]);
    }
}

/* Build case `b` on the CPU and the GPU and compare everything. */
static void compare(const char *name, builder b, int variant, double tol)
{
    const pf_backend *cuda = gpu();
    out c = {0}, d = {0};
    run_on(pf_backend_cpu(), b, variant, &c);
    run_on(cuda, b, variant, &d);
    for (int t = 0; t < c.nloss; t++) {
        double e = fabs(d.loss[t] - c.loss[t]) / fmax(fabs(c.loss[t]), 1e-30);
        cr_expect_leq(e * e, tol, "%s/%d: loss %d: cpu %.9g cuda %.9g", name, variant, t, c.loss[t],
                      d.loss[t]);
    }
    cr_expect_leq(nmse(d.grads, c.grads, c.np), tol, "%s/%d: parameter gradient nmse %.3g", name,
                  variant, nmse(d.grads, c.grads, c.np));
    for (int k = 0; k < c.nnode; k++) {
        double ev = nmse(d.val[k], c.val[k], c.len[k]), eg = nmse(d.grad[k], c.grad[k], c.len[k]);
        cr_expect_leq(ev, tol, "%s/%d: %s values nmse %.3g", name, variant, c.what[k], ev);
        cr_expect_leq(eg, tol, "%s/%d: %s gradient nmse %.3g", name, variant, c.what[k], eg);
    }
    release(&c);
    release(&d);
}

/* x: n points, 2 channels, direction 0 up to `order`, direction 1 of order
 * 1, and a collapsed stream (w = 1, 2) when order >= 2. */
static pf_node *jet_input(pf_graph *g, rec *r, int n, int order)
{
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, order);
    pf_jet_add_dir(&L, 1);
    if (order >= 2) {
        pf_real w[2] = {1, 2};
        pf_jet_add_collapsed(&L, w);
    }
    pf_real dirs[4] = {0.8f, -0.6f, 0.3f, 0.9f};
    pf_node *x = pf_input(g, "x", n, 2, &L, dirs);
    r->in[r->nin++] = x;
    return x;
}

/* One loss per stream of z (value-only copies through deriv). */
static void stream_losses(pf_graph *g, pf_node *z)
{
    const pf_jet_layout *L = pf_node_layout(z);
    pf_loss(g, "value", pf_mean_square(g, pf_deriv(g, z, 0, 0), NULL));
    for (int d = 0; d < L->ndir; d++)
        for (int k = 1; k <= L->order[d]; k++) {
            char name[32];
            snprintf(name, sizeof name, "d%d^%d", d, k);
            pf_loss(g, name, pf_mean_square(g, pf_deriv(g, z, d, k), NULL));
        }
    for (int c = 0; c < L->ncoll; c++) pf_loss(g, "collapsed", pf_mean_square(g, pf_deriv_collapsed(g, z, c), NULL));
}

/* ------------------------------------------------------------------ cases */

/* x -> linear -> [positive shift] -> unary -> linear(1), variant =
 * op * 4 + order - 1. The kinked ops (elu, selu, relu) see arguments on
 * both sides of 0; no argument falls within rounding of it, so both
 * backends take the same branch (the test below covers 0 itself). */
static void unary_case(pf_graph *g, rec *r, int variant)
{
    pf_unary_op op = (pf_unary_op)(variant / 4);
    int order = variant % 4 + 1;
    pf_node *x = jet_input(g, r, 301, order);
    int W1 = pf_param(g, "W1", 8, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 8, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1));
    int W2 = pf_param(g, "W2", 1, 8, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *h = pf_linear(g, x, W1, b1);
    keep(r, h, "linear");
    bool positive = op == PF_UNARY_LOG || op == PF_UNARY_SQRT || op == PF_UNARY_RECIP || op == PF_UNARY_POW;
    if (positive) {
        h = pf_add_const(g, pf_unary(g, PF_UNARY_SQUARE, h, 0), 0.5f);
        keep(r, h, "shifted");
    }
    pf_node *u = pf_unary(g, op, h, 1.5f);
    keep(r, u, pf_unary_name(op));
    pf_node *z = pf_linear(g, u, W2, -1);
    keep(r, z, "head");
    stream_losses(g, z);
}

/* Every other op, on a jet of order 3 with a collapsed stream:
 * rwf layer, a one-channel head (channel broadcast), value-only data
 * (stream broadcast), mul, add, sub, affine, scale, add_const,
 * scale_param, concat, slice, weighted mean squares with a parameter
 * field. variant = 0: fresh gradients; 1: every operand consumed twice
 * (accumulating backward). */
static void pointwise_case(pf_graph *g, rec *r, int variant)
{
    const int n = 257;
    pf_node *x = jet_input(g, r, n, 3);
    pf_node *data = pf_input(g, "data", n, 5, NULL, NULL);
    r->in[r->nin++] = data;
    int s = pf_param(g, "s", 5, 1, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1));
    int V = pf_param(g, "V", 5, 2, PF_PARAM_TRAINABLE, pf_init_rwf_v(s));
    int b = pf_param(g, "b", 1, 5, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1));
    int W = pf_param(g, "W", 1, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int a = pf_param(g, "a", 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1.3));
    int sa = pf_param(g, "sa", n, 1, PF_PARAM_TRAINABLE, pf_init_uniform(0.5, 1.5));
    pf_node *h = pf_unary(g, PF_UNARY_TANH, pf_linear_rwf(g, x, V, s, b), 0);
    keep(r, h, "rwf+tanh");
    pf_node *one = pf_linear(g, x, W, -1);
    keep(r, one, "thin head");
    pf_node *m1 = pf_mul(g, h, one);
    keep(r, m1, "mul (channel broadcast)");
    pf_node *m2 = pf_mul(g, h, data);
    keep(r, m2, "mul (value-only operand)");
    pf_node *m3 = pf_mul(g, h, h);
    keep(r, m3, "mul (jet x jet)");
    pf_node *sum = pf_sub(g, pf_add(g, m1, m2), m3);
    keep(r, sum, "add/sub");
    pf_node *bc = pf_add(g, sum, one);
    keep(r, bc, "add (channel broadcast)");
    pf_real scale[5] = {0.5f, -1, 2, 0.25f, 1.5f}, shift[5] = {0.1f, 0, -0.2f, 0.3f, 1};
    pf_node *af = pf_add_const(g, pf_scale(g, pf_affine(g, bc, scale, shift), 0.9f), -0.05f);
    keep(r, af, "affine/scale/add_const");
    pf_node *sp = pf_scale_param(g, af, a, 0.7f);
    keep(r, sp, "scale_param");
    pf_node *parts[2] = {sp, one};
    pf_node *cc = pf_concat(g, 2, parts);
    keep(r, cc, "concat");
    pf_node *sl = pf_slice(g, cc, 1, 3);
    keep(r, sl, "slice");
    pf_node *w = pf_param_field(g, sa);
    pf_loss(g, "weighted", pf_mean_square(g, pf_deriv(g, sl, 0, 0), w));
    pf_loss(g, "d0^2", pf_mean_square(g, pf_deriv(g, sl, 0, 2), NULL));
    pf_loss(g, "d0^3", pf_mean_square(g, pf_deriv(g, sl, 0, 3), NULL));
    pf_loss(g, "d1", pf_mean_square(g, pf_deriv(g, sl, 1, 1), w));
    pf_loss(g, "collapsed", pf_mean_square(g, pf_deriv_collapsed(g, sl, 0), NULL));
    if (variant == 1) { /* consumers after the first: backward must add */
        pf_loss(g, "again h", pf_mean_square(g, pf_deriv(g, h, 0, 1), NULL));
        pf_loss(g, "again one", pf_mean_square(g, pf_deriv(g, pf_mul(g, one, one), 0, 2), w));
        pf_loss(g, "again sum", pf_mean_square(g, pf_deriv_collapsed(g, sum, 0), NULL));
        pf_loss(g, "again cc", pf_mean_square(g, pf_deriv(g, cc, 1, 1), NULL));
    }
}

/* x -> linear -> waveact(w1, w2) -> linear(1) on a jet of order
 * variant % 4 + 1 (with a collapsed stream from order 2); for variant >= 4
 * the hidden layer is consumed again and a second waveact shares w1, w2,
 * so input gradients accumulate and each parameter gradient sums two
 * nodes' parts. */
static void waveact_case(pf_graph *g, rec *r, int variant)
{
    int order = variant % 4 + 1;
    pf_node *x = jet_input(g, r, 301, order);
    int W1 = pf_param(g, "W1", 8, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 8, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1));
    int w1 = pf_param(g, "w1", 1, 1, PF_PARAM_TRAINABLE, pf_init_normal(1, 0.3));
    int w2 = pf_param(g, "w2", 1, 1, PF_PARAM_TRAINABLE, pf_init_normal(-0.5, 0.3));
    int W2 = pf_param(g, "W2", 1, 8, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *h = pf_linear(g, x, W1, b1);
    keep(r, h, "linear");
    pf_node *u = pf_waveact(g, h, w1, w2);
    keep(r, u, "waveact");
    pf_node *z = pf_linear(g, u, W2, -1);
    keep(r, z, "head");
    stream_losses(g, z);
    if (variant >= 4) {
        pf_node *u2 = pf_waveact(g, pf_scale(g, h, 0.5f), w1, w2);
        keep(r, u2, "second waveact");
        pf_loss(g, "again", pf_mean_square(g, pf_deriv(g, u2, 0, 1), NULL));
    }
}

Test(cuda_ops, waveact_at_orders_1_to_4)
{
    gpu();
    for (int variant = 0; variant < 8; variant++)
        compare("waveact", waveact_case, variant, variant % 4 == 3 ? 1e-7 : 1e-8);
}

/* x -> tokens (k = 5, dt = 1e-2) -> linear -> tanh -> linear(1) on a jet
 * of order 3 with a collapsed stream, with token-aligned data in the
 * residual and a loss on one selected token (token_select); variant 1 consumes the token node twice and takes tokens of
 * tokens (k = 2 then 3), so the backward accumulates. */
static void tokens_case(pf_graph *g, rec *r, int variant)
{
    const int n = 97;
    pf_node *x = jet_input(g, r, n, 3);
    pf_node *data = pf_input(g, "data", n, 1, NULL, NULL);
    r->in[r->nin++] = data;
    int W1 = pf_param(g, "W1", 8, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 8, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1));
    int W2 = pf_param(g, "W2", 1, 8, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *h0 = pf_linear(g, x, W1, b1);
    keep(r, h0, "linear on the points");
    pf_node *t = variant ? pf_tokens(g, pf_tokens(g, h0, 2, 0.5f), 3, 0.01f) : pf_tokens(g, h0, 5, 0.01f);
    keep(r, t, "tokens");
    pf_node *z = pf_linear(g, pf_unary(g, PF_UNARY_TANH, t, 0), W2, -1);
    keep(r, z, "head");
    pf_node *d = variant ? pf_tokens(g, pf_tokens(g, data, 2, 0), 3, 0) : pf_tokens(g, data, 5, 0);
    pf_loss(g, "data", pf_mean_square(g, pf_mul(g, pf_deriv(g, z, 0, 2), d), NULL));
    stream_losses(g, z);
    pf_node *z0 = pf_token_select(g, z, variant ? 3 : 5, variant ? 2 : 0);
    keep(r, z0, "token_select");
    pf_loss(g, "token", pf_mean_square(g, pf_deriv(g, z0, 0, 1), NULL));
    if (variant) pf_loss(g, "again", pf_mean_square(g, pf_deriv(g, t, 0, 1), NULL));
}

Test(cuda_ops, tokens_forward_and_backward)
{
    gpu();
    for (int variant = 0; variant < 2; variant++) compare("tokens", tokens_case, variant, 1e-8);
}

/* x -> tokens (k = 5) -> linear -> x + MHA(x) (2 heads of 4 channels;
 * variant 1: cross-attention with K = V from a second projection and Q
 * given twice, Q = V, so the backward accumulates) -> linear(1), on a jet
 * of order variant 2: order 4 with a second direction (no collapsed
 * stream: attention takes none). */
static void attention_case(pf_graph *g, rec *r, int variant)
{
    const int n = 67;
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, variant == 2 ? 4 : 2);
    pf_jet_add_dir(&L, 1);
    pf_real dirs[4] = {0.8f, -0.6f, 0.3f, 0.9f};
    pf_node *x = pf_input(g, "x", n, 2, &L, dirs);
    r->in[r->nin++] = x;
    int W1 = pf_param(g, "W1", 8, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 8, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.1));
    int Wk = pf_param(g, "Wk", 8, 8, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int W2 = pf_param(g, "W2", 1, 8, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *h = pf_unary(g, PF_UNARY_TANH, pf_linear(g, pf_tokens(g, x, 5, 0.01f), W1, b1), 0);
    keep(r, h, "embedded tokens");
    pf_node *kv = pf_linear(g, h, Wk, -1);
    pf_node *a = variant == 1 ? pf_attention(g, h, kv, h, 5, 2) : pf_attention(g, h, kv, kv, 5, 2);
    keep(r, a, "attention");
    pf_node *z = pf_linear(g, pf_add(g, h, a), W2, -1);
    keep(r, z, "head");
    stream_losses(g, z);
}

Test(cuda_ops, attention_forward_and_backward)
{
    gpu();
    for (int variant = 0; variant < 3; variant++)
        compare("attention", attention_case, variant, variant == 2 ? 1e-7 : 1e-8);
}

Test(cuda_ops, every_unary_op_at_orders_1_to_4)
{
    gpu();
    for (int op = 0; op < PF_UNARY_COUNT; op++)
        for (int order = 1; order <= 4; order++)
            compare(pf_unary_name((pf_unary_op)op), unary_case, op * 4 + order - 1,
                    order == 4 ? 1e-7 : 1e-8);
}

/* The kinked activations branch the same way on both backends: elu, selu,
 * relu and the gaussian on a jet of order 4 at points around and AT 0 (the
 * left branch, graph.h), forward streams and input gradient. */
Test(cuda_ops, kinked_activations_agree_at_and_around_zero)
{
    const pf_backend *cu = gpu();
    enum { N = 6 };
    const pf_real xs[N] = {-1.5f, -1e-3f, 0, 0, 1e-3f, 0.7f};
    const pf_unary_op ops[4] = {PF_UNARY_ELU, PF_UNARY_SELU, PF_UNARY_RELU, PF_UNARY_GAUSSIAN};
    for (int o = 0; o < 4; o++) {
        pf_real val[2][5 * N], grad[2][5 * N];
        for (int b = 0; b < 2; b++) {
            pf_graph *g = pf_graph_alloc(b ? cu : pf_backend_cpu());
            pf_graph_keep_grads(g, true);
            pf_jet_layout L = pf_jet_layout_none();
            pf_jet_add_dir(&L, 4);
            const pf_real e = 1;
            pf_node *x = pf_input(g, "x", N, 1, &L, &e);
            int a = pf_param(g, "a", 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
            pf_node *xa = pf_scale_param(g, x, a, 1); /* a gradient reaches x's node */
            pf_node *y = pf_unary(g, ops[o], xa, 0);
            stream_losses(g, y);
            cr_assert_eq(pf_graph_compile(g, 3), PF_OK, "%s", pf_errmsg());
            pf_graph_set_input(g, x, xs);
            pf_graph_forward_backward(g, NULL);
            pf_graph_read(g, y, val[b]);
            pf_graph_read_grad(g, xa, grad[b]);
            pf_graph_free(g);
        }
        double ev = nmse(val[1], val[0], 5 * N), eg = nmse(grad[1], grad[0], 5 * N);
        cr_expect_leq(ev, 1e-10, "%s: streams nmse %.3g", pf_unary_name(ops[o]), ev);
        cr_expect_leq(eg, 1e-10, "%s: input gradient nmse %.3g", pf_unary_name(ops[o]), eg);
        /* at x = 0 exactly: the first derivative of the left branch */
        const double d1 = ops[o] == PF_UNARY_SELU ? 1.0507009873554805 * 1.6732632423543772
                          : ops[o] == PF_UNARY_RELU ? 0 : ops[o] == PF_UNARY_ELU ? 1 : 0;
        cr_expect_leq(fabs((double)val[1][N + 2] - d1), 1e-6, "%s'(0) on the GPU is %g, want %g",
                      pf_unary_name(ops[o]), (double)val[1][N + 2], d1);
    }
}

Test(cuda_ops, every_light_op_forward_and_backward)
{
    gpu();
    compare("light ops", pointwise_case, 0, 1e-9);
}

Test(cuda_ops, backward_accumulates_into_operands_used_twice)
{
    gpu();
    compare("light ops, reused", pointwise_case, 1, 1e-9);
}

/* ------------------------------------------------------- optimizer vectors */

Test(cuda_ops, vector_ops_match_the_cpu)
{
    const pf_backend *cu = gpu(), *cpu = pf_backend_cpu();
    const size_t n = 100003;
    size_t bytes = n * sizeof(pf_real);
    pf_real *x = malloc(bytes), *y = malloc(bytes), *h = malloc(bytes), *h2 = malloc(bytes);
    uint64_t s = 9;
    for (size_t i = 0; i < n; i++) {
        x[i] = (pf_real)(uni(&s) * 2 - 1);
        y[i] = (pf_real)(uni(&s) * 2 - 1);
    }
    void *dx, *dy, *dn, *dc, *dmv;
    cr_assert_eq(cu->alloc(bytes, &dx), PF_OK);
    cr_assert_eq(cu->alloc(bytes, &dy), PF_OK);
    cr_assert_eq(cu->alloc(sizeof(double), &dn), PF_OK);
    cr_assert_eq(cu->alloc(PF_ADAM_NCOEF * sizeof(pf_real), &dc), PF_OK);
    cr_assert_eq(cu->alloc(2 * bytes, &dmv), PF_OK);
    cu->upload(dx, x, bytes);
    cu->upload(dy, y, bytes);
    /* reductions: the same terms summed in double in two orders */
    for (int k = PF_VEC_DOT; k <= PF_VEC_AMAX; k++) {
        double a = cpu->reduce((pf_vec_red)k, x, k == PF_VEC_DOT ? y : NULL, n);
        double b = cu->reduce((pf_vec_red)k, dx, k == PF_VEC_DOT ? dy : NULL, n);
        cr_expect_leq(fabs(a - b), 1e-5 * fabs(a), "reduce %d: cpu %.12g cuda %.12g", k, a, b);
    }
    /* axpy, scal, clamp, copy */
    memcpy(h, y, bytes);
    cpu->axpy(n, 0.37, x, h);
    cpu->scal(n, -1.5, h);
    cpu->clamp_min(h, n, -0.2);
    cu->axpy(n, 0.37, dx, dy);
    cu->scal(n, -1.5, dy);
    cu->clamp_min(dy, n, -0.2);
    cu->copy(dx, dy, n);
    cu->download(h2, dx, bytes);
    cr_expect_leq(nmse(h2, h, n), 1e-12, "axpy/scal/clamp/copy nmse %.3g", nmse(h2, h, n));
    /* clip_norm: the norm and the scaled gradient */
    double nc, ng;
    memcpy(h2, h, bytes);
    cpu->clip_norm(h, n, 1.0, &nc);
    cu->upload(dy, h2, bytes);
    cu->clip_norm(dy, n, 1.0, dn);
    cu->download(&ng, dn, sizeof ng);
    cr_expect_leq(fabs(nc - ng), 1e-9 * nc, "norm cpu %.12g cuda %.12g", nc, ng);
    cu->download(h2, dy, bytes);
    cr_expect_leq(nmse(h2, h, n), 1e-12, "clipped gradient nmse %.3g", nmse(h2, h, n));
    /* three AdamW steps, the last one climbing */
    pf_real coef[PF_ADAM_NCOEF] = {0.9f, 0.999f, 0.1f, 0.001f, 1e-3f, 1, 1e-8f, 0.99999f, 0, 1};
    pf_real *mv = calloc(2 * n, sizeof *mv);
    void *dp;
    cr_assert_eq(cu->alloc(bytes, &dp), PF_OK);
    cu->upload(dp, x, bytes);
    memcpy(h2, x, bytes);
    for (int t = 0; t < 3; t++) {
        coef[PF_ADAM_SIGN] = t == 2 ? -1 : 1;
        cpu->adam(h2, h, mv, n, coef);
        cu->upload(dc, coef, sizeof coef);
        cu->adam(dp, dy, dmv, n, dc);
    }
    cu->download(y, dp, bytes);
    cr_expect_leq(nmse(y, h2, n), 1e-12, "adam nmse %.3g", nmse(y, h2, n));
    /* two SGD steps with the rate in device memory (changed between them) */
    for (int t = 0; t < 2; t++) {
        pf_real lr = t ? 0.25f : 0.01f;
        cpu->sgd(h2, h, n, &lr);
        cu->upload(dc, &lr, sizeof lr);
        cu->sgd(dp, dy, n, dc);
    }
    cu->download(y, dp, bytes);
    cr_expect_leq(nmse(y, h2, n), 1e-12, "sgd nmse %.3g", nmse(y, h2, n));
    cu->free(dx), cu->free(dy), cu->free(dn), cu->free(dc), cu->free(dmv), cu->free(dp);
    free(x), free(y), free(h), free(h2), free(mv);
}

/* RoPINN's gradient-noise level: seven gradients through a ring of five,
 * the count and sigma after each push (from the second push on, over the
 * gradients held, as released), then the ring itself. */
Test(cuda_ops, grad_noise_matches_the_cpu)
{
    const pf_backend *cu = gpu(), *cpu = pf_backend_cpu();
    const size_t n = 100003;
    const int T = 5;
    size_t bytes = n * sizeof(pf_real);
    pf_real *ring = calloc((size_t)T * n, sizeof(pf_real)), *back = malloc((size_t)T * bytes), *g = malloc(bytes);
    double state[2] = {0, 0}, dstate_h[2];
    void *dring, *dg, *dstate;
    cr_assert_eq(cu->alloc((size_t)T * bytes, &dring), PF_OK);
    cr_assert_eq(cu->alloc(bytes, &dg), PF_OK);
    cr_assert_eq(cu->alloc(2 * sizeof(double), &dstate), PF_OK);
    uint64_t s = 17;
    for (int k = 0; k < 7; k++) {
        for (size_t i = 0; i < n; i++) g[i] = (pf_real)((uni(&s) * 2 - 1) * (1 + (double)(i % 7)));
        cpu->grad_noise(ring, n, T, g, state);
        cu->upload(dg, g, bytes);
        cu->grad_noise(dring, n, T, dg, dstate);
        cu->download(dstate_h, dstate, sizeof dstate_h);
        cr_expect_eq(dstate_h[0], state[0], "push %d: count cuda %g cpu %g", k, dstate_h[0], state[0]);
        cr_expect_leq(fabs(dstate_h[1] - state[1]), 1e-9 * state[1], "push %d: sigma cuda %.15g cpu %.15g", k,
                      dstate_h[1], state[1]);
        if (k == 0) cr_expect_eq(dstate_h[1], 1, "push 0: one gradient has no spread");
        else cr_expect_neq(dstate_h[1], 1, "push %d: sigma from the %d gradients held", k, k < T ? k + 1 : T);
    }
    cu->download(back, dring, (size_t)T * bytes);
    cr_expect_eq(memcmp(back, ring, (size_t)T * bytes), 0, "the rings differ");
    cu->free(dring), cu->free(dg), cu->free(dstate);
    free(ring), free(back), free(g);
}
