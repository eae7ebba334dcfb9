/*
 * test_jet.c — the jet engine (src/tensor/): layout helpers, Taylor-mode
 * streams against hand computations, closed forms and finite differences
 * (suite "jet"), and the reverse-mode gradient of every op against central
 * finite differences (suite "grad", double build only).
 *
 * Most checks share one harness, the prelude: an input jet x with a random
 * shape (3-7 points, 2-3 channels), one of seven layouts (value only, one
 * direction of order 1..4, several directions with collapsed streams) and
 * random directions that are never axis-aligned feeds a small trainable
 * network x -> tanh(x W1^T + b1) -> heads y, y2 (c = 1..5 channels) and y1
 * (one channel), so every stream of an op's operands is nonzero and depends
 * on the parameters. An op_builder applies the op under test to the heads.
 *   - grad: every stream s of the op's output z becomes its own loss term
 *     L_s = mean_square(z_s * R_s) with fixed random data R_s, and the
 *     gradient of sum_s w_s L_s (random w) from pf_graph_backward() must match
 *     central differences in every trainable parameter; each case runs twice,
 *     the second time with the operands consumed again later, so the op's
 *     backward must accumulate into their gradients instead of writing them.
 *   - jet: the streams of z along each v_d must match finite differences of
 *     z's value at x + t v_d.
 *
 * Tolerances (double): gradients |g - g_fd| <= 1e-6 max(1, |g|), h = 1e-6;
 * streams against closed forms 1e-12..1e-14 relative, against long double
 * finite differences 1e-7, against finite differences of the engine's values
 * 1e-9 (orders 1, 2) to 2e-5 (order 4). The float build runs the hand, closed
 * form and long double reference checks with float tolerances (stated per
 * test) and skips the gradient checks and the checks that differentiate the
 * engine's own float values numerically.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/real.h"
#include "core/status.h"
#include "tensor/graph.h"
#include "tensor/jet.h"
#include "tensor/threads.h"

#ifdef PF_DOUBLE
#define REQUIRE_DOUBLE() ((void)0)
#define BY_PRECISION(dbl, flt) (dbl)
#else
#define REQUIRE_DOUBLE() cr_skip_test("gradient checks need PRECISION=double")
#define BY_PRECISION(dbl, flt) (flt)
#endif

/* ------------------------------------------------------------ random numbers */

/* SplitMix64: the tests' own generator, independent of the library's. */
static uint64_t rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double rnd_u(uint64_t *s) { return (double)(rnd_next(s) >> 11) * 0x1.0p-53; }
static double rnd_in(uint64_t *s, double lo, double hi) { return lo + (hi - lo) * rnd_u(s); }
static int rnd_int(uint64_t *s, int lo, int hi) { return lo + (int)(rnd_next(s) % (uint64_t)(hi - lo + 1)); }

/* A nonzero component in +-[0.3, 1]: directions built from these are never
 * axis-aligned. */
static double rnd_comp(uint64_t *s) { return rnd_in(s, 0.3, 1.0) * (rnd_u(s) < 0.5 ? -1 : 1); }

/* FNV-1a of a name, mixed with an index: one reproducible seed per case. */
static uint64_t seed_of(const char *name, int k)
{
    uint64_t h = 1469598103934665603u;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211u;
    return h ^ ((uint64_t)k * 0x9e3779b97f4a7c15u);
}

/* |got - want| / max(|want|, floor) */
static double rel_err(double got, double want, double floor)
{
    return fabs(got - want) / fmax(fabs(want), floor);
}

/* ------------------------------------------------------ finite differences */

/* Weights of the 7-point central stencils on offsets -3..3 (units of h) for
 * d^k/dt^k, k = 1..4: orders 1 and 2 have error O(h^6), orders 3 and 4 O(h^4). */
static const long double stencil_w[5][7] = {
    {0},
    {-1 / 60.0L, 9 / 60.0L, -45 / 60.0L, 0, 45 / 60.0L, -9 / 60.0L, 1 / 60.0L},
    {2 / 180.0L, -27 / 180.0L, 270 / 180.0L, -490 / 180.0L, 270 / 180.0L, -27 / 180.0L, 2 / 180.0L},
    {1 / 8.0L, -1, 13 / 8.0L, 0, -13 / 8.0L, 1, -1 / 8.0L},
    {-1 / 6.0L, 2, -13 / 2.0L, 28 / 3.0L, -13 / 2.0L, 2, -1 / 6.0L},
};

/* Samples f(j h / 2), j = -6..6, at index j + 6. */
#define NSAMPLE 13

/* d^k f / dt^k at t = 0: the stencil at h and at h/2, Richardson-extrapolated
 * (the leading error term cancels). */
static long double fd_richardson(int k, const long double f[NSAMPLE], long double h)
{
    long double coarse = 0, fine = 0;
    for (int j = -3; j <= 3; j++) {
        coarse += stencil_w[k][j + 3] * f[2 * j + 6];
        fine += stencil_w[k][j + 3] * f[j + 6];
    }
    coarse /= powl(h, k);
    fine /= powl(h / 2, k);
    long double r = k <= 2 ? 64 : 16; /* 2^(order of accuracy) */
    return (r * fine - coarse) / (r - 1);
}

/* The same for a function of t. */
typedef long double (*scalar_fn)(long double t, const void *ctx);

static long double fd_deriv(scalar_fn F, const void *ctx, int k, long double h)
{
    long double f[NSAMPLE];
    for (int j = -6; j <= 6; j++) f[j + 6] = F(j * h / 2, ctx);
    return fd_richardson(k, f, h);
}

/* ----------------------------------------------------------------- unary ops */

/* Where a case evaluates its op: on any argument a; on a^2 + 1.5 > 0 (log,
 * sqrt, reciprocal, powers; and the linear branch of the kinked functions);
 * on -(a^2 + 0.5) < 0 (the exponential or zero branch of elu, selu, relu),
 * so that the finite differences never straddle a kink. */
enum { ON_ANY, ON_POSITIVE, ON_NEGATIVE };

typedef struct unary_case {
    const char *name;
    pf_unary_op op;
    pf_real p;
    int domain;  /* ON_* */
    double pre;  /* the argument is multiplied by this first (0: not) */
} unary_case;

/* The gaussian exp(-50 x^2) varies on a scale of 0.1: it is evaluated on
 * 0.1 a, where the tests' O(1) arguments sweep its bump and the stencils
 * (h ~ 1e-2) resolve it. relu's negative branch is identically 0, with no
 * gradient to check: kinked_and_gaussian_activations_match_closed_forms
 * covers it. */
static const unary_case unary_cases[] = {
    {"tanh", PF_UNARY_TANH, 0, ON_ANY, 0},       {"sin", PF_UNARY_SIN, 0, ON_ANY, 0},
    {"cos", PF_UNARY_COS, 0, ON_ANY, 0},         {"exp", PF_UNARY_EXP, 0, ON_ANY, 0},
    {"log", PF_UNARY_LOG, 0, ON_POSITIVE, 0},    {"sqrt", PF_UNARY_SQRT, 0, ON_POSITIVE, 0},
    {"square", PF_UNARY_SQUARE, 0, ON_ANY, 0},   {"reciprocal", PF_UNARY_RECIP, 0, ON_POSITIVE, 0},
    {"pow 1.7", PF_UNARY_POW, 1.7, ON_POSITIVE, 0}, {"pow -2.5", PF_UNARY_POW, -2.5, ON_POSITIVE, 0},
    {"sigmoid", PF_UNARY_SIGMOID, 0, ON_ANY, 0}, {"softplus", PF_UNARY_SOFTPLUS, 0, ON_ANY, 0},
    {"silu", PF_UNARY_SILU, 0, ON_ANY, 0},       {"gelu", PF_UNARY_GELU, 0, ON_ANY, 0},
    {"elu x > 0", PF_UNARY_ELU, 0, ON_POSITIVE, 0},   {"elu x < 0", PF_UNARY_ELU, 0, ON_NEGATIVE, 0},
    {"selu x > 0", PF_UNARY_SELU, 0, ON_POSITIVE, 0}, {"selu x < 0", PF_UNARY_SELU, 0, ON_NEGATIVE, 0},
    {"relu x > 0", PF_UNARY_RELU, 0, ON_POSITIVE, 0}, {"gaussian", PF_UNARY_GAUSSIAN, 0, ON_ANY, 0.1},
};
#define NUNARY (int)(sizeof unary_cases / sizeof unary_cases[0])

static long double unary_ref(pf_unary_op op, long double p, long double a)
{
    switch (op) {
    case PF_UNARY_TANH: return tanhl(a);
    case PF_UNARY_SIN: return sinl(a);
    case PF_UNARY_COS: return cosl(a);
    case PF_UNARY_EXP: return expl(a);
    case PF_UNARY_LOG: return logl(a);
    case PF_UNARY_SQRT: return sqrtl(a);
    case PF_UNARY_SQUARE: return a * a;
    case PF_UNARY_RECIP: return 1 / a;
    case PF_UNARY_POW: return powl(a, p);
    case PF_UNARY_SIGMOID: return 1 / (1 + expl(-a));
    case PF_UNARY_SOFTPLUS: return log1pl(expl(a));
    case PF_UNARY_SILU: return a / (1 + expl(-a));
    case PF_UNARY_GELU: return a * 0.5L * erfcl(-a / sqrtl(2));
    case PF_UNARY_ELU: return a > 0 ? a : expm1l(a);
    case PF_UNARY_SELU: return 1.0507009873554804934193349852946L * (a > 0 ? a : 1.6732632423543772848170429916717L * expm1l(a));
    case PF_UNARY_RELU: return a > 0 ? a : 0;
    case PF_UNARY_GAUSSIAN: return expl(-50 * a * a); /* exp(-a^2 / (2 * 0.1^2)) */
    default: return NAN;
    }
}

/* ----------------------------------------------------------------- the prelude */

#define MAX_DATA 128
#define MAX_ARGS 8

/* A graph under construction with its data inputs (values are drawn at build
 * time and uploaded after compile). */
typedef struct prelude {
    pf_graph *g;
    uint64_t rs;          /* random state */
    int n, c, cin;        /* points, op channels, input channels */
    pf_jet_layout L;
    pf_real dirs[PF_JET_MAX_DIRS * 3]; /* of x: dirs[d * cin + j] */
    char lname[64];       /* the layout in words, for messages */
    pf_node *x;           /* input jet */
    pf_node *h;           /* tanh(x W1^T + b1) */
    pf_node *y, *y2, *y1; /* heads: c, c and 1 channels */
    pf_node *loss_w;      /* point weights of the stream losses, or NULL */
    int nargs;            /* trainable operands of the op under test */
    pf_node *args[MAX_ARGS];
    bool const_values;    /* value_of() gives data, not a head's value (stream checks) */
    const unary_case *uc; /* the op of op_unary() */
    int ndata;
    pf_node *data[MAX_DATA];
    pf_real *data_val[MAX_DATA];
} prelude;

/* A data input of n points and c channels with values in [lo, hi]; layout
 * NULL makes it value-only. */
static pf_node *data_in(prelude *P, int n, int c, const pf_jet_layout *L, const pf_real *dirs,
                        double lo, double hi)
{
    cr_assert_lt(P->ndata, MAX_DATA, "test bug: too many data inputs");
    pf_node *x = pf_input(P->g, "data", n, c, L, dirs);
    pf_real *v = malloc((size_t)n * c * sizeof *v);
    cr_assert_not_null(v);
    for (int i = 0; i < n * c; i++) v[i] = (pf_real)rnd_in(&P->rs, lo, hi);
    P->data[P->ndata] = x;
    P->data_val[P->ndata++] = v;
    return x;
}

static pf_node *data(prelude *P, int c, double lo, double hi)
{
    return data_in(P, P->n, c, NULL, NULL, lo, hi);
}

static int tparam(prelude *P, const char *name, int rows, int cols, pf_init init)
{
    return pf_param(P->g, name, rows, cols, PF_PARAM_TRAINABLE, init);
}

/* The layouts every op is checked on:
 *   0      value only
 *   1..4   one direction of order 1..4
 *   5      directions of order 4, 2, 1 and a collapsed stream (w0, 0, w2)
 *   6      two first-order directions, collapsed (1, 1) and (0.3, -2)
 *   7      directions of order 4, 2, 1 without collapsed streams (only for
 *          ops that do not take collapsed streams: attention) */
#define NLAYOUTS 7

static pf_jet_layout grad_layout(int kind, uint64_t *rs, char *name, size_t cap)
{
    pf_jet_layout L = pf_jet_layout_none();
    if (kind == 0) {
        snprintf(name, cap, "value only");
    } else if (kind <= 4) {
        pf_jet_add_dir(&L, kind);
        snprintf(name, cap, "one direction of order %d", kind);
    } else if (kind == 5) {
        pf_jet_add_dir(&L, 4);
        pf_jet_add_dir(&L, 2);
        pf_jet_add_dir(&L, 1);
        pf_real w[3] = {(pf_real)rnd_in(rs, 0.5, 1.5), 0, (pf_real)rnd_in(rs, -1.5, -0.5)};
        pf_jet_add_collapsed(&L, w);
        snprintf(name, cap, "orders 4,2,1 + collapsed (%.2f, 0, %.2f)", (double)w[0], (double)w[2]);
    } else if (kind == 7) { /* not in the NLAYOUTS loop: for ops without collapsed streams */
        pf_jet_add_dir(&L, 4);
        pf_jet_add_dir(&L, 2);
        pf_jet_add_dir(&L, 1);
        snprintf(name, cap, "orders 4,2,1");
    } else {
        pf_jet_add_dir(&L, 1);
        pf_jet_add_dir(&L, 1);
        pf_real lap[2] = {1, 1}, ab[2] = {0.3, -2};
        pf_jet_add_collapsed(&L, lap);
        pf_jet_add_collapsed(&L, ab);
        snprintf(name, cap, "orders 1,1 + collapsed (1, 1) and (0.3, -2)");
    }
    return L;
}

/* x (layout `kind`, random directions) -> h -> heads y, y2, y1; n points and
 * c head channels, or a random small shape for n = 0. */
static void prelude_init(prelude *P, uint64_t seed, int kind, int n, int c)
{
    memset(P, 0, sizeof *P);
    P->rs = seed;
    P->g = pf_graph_alloc(pf_backend_cpu());
    cr_assert_not_null(P->g);
    P->n = rnd_int(&P->rs, 3, 7);
    P->c = rnd_int(&P->rs, 1, 5);
    if (n) P->n = n, P->c = c;
    P->cin = rnd_int(&P->rs, 2, 3);
    P->L = grad_layout(kind, &P->rs, P->lname, sizeof P->lname);
    for (int i = 0; i < P->L.ndir * P->cin; i++) P->dirs[i] = (pf_real)rnd_comp(&P->rs);
    P->x = data_in(P, P->n, P->cin, &P->L, P->dirs, -1, 1);

    const int H = 5;
    int W1 = tparam(P, "W1", H, P->cin, pf_init_glorot_normal());
    int b1 = tparam(P, "b1", 1, H, pf_init_normal(0, 0.3));
    P->h = pf_unary(P->g, PF_UNARY_TANH, pf_linear(P->g, P->x, W1, b1), 0);
    int W2 = tparam(P, "W2", P->c, H, pf_init_glorot_normal());
    int b2 = tparam(P, "b2", 1, P->c, pf_init_normal(0, 0.3));
    P->y = pf_linear(P->g, P->h, W2, b2);
    int W3 = tparam(P, "W3", P->c, H, pf_init_glorot_normal());
    int b3 = tparam(P, "b3", 1, P->c, pf_init_normal(0, 0.3));
    P->y2 = pf_linear(P->g, P->h, W3, b3);
    int W4 = tparam(P, "W4", 1, H, pf_init_glorot_normal());
    int b4 = tparam(P, "b4", 1, 1, pf_init_normal(0, 0.3));
    P->y1 = pf_linear(P->g, P->h, W4, b4);
    P->args[P->nargs++] = P->y;
    P->args[P->nargs++] = P->y2;
    P->args[P->nargs++] = P->y1;
}

/* Record an operand built inside an op builder (see reuse_operands). */
static pf_node *arg(prelude *P, pf_node *x)
{
    cr_assert_lt(P->nargs, MAX_ARGS, "test bug: too many operands");
    P->args[P->nargs++] = x;
    return x;
}

static int add_stream_losses(prelude *P, pf_node *z);

/* Later consumers for every operand (its own stream losses, so a gradient
 * arrives in every stream): then the op under test is no longer the first
 * consumer in reverse order and must ADD to its operands' gradients
 * (in_acc = 1) instead of writing them. */
static int reuse_operands(prelude *P)
{
    int nt = 0;
    for (int i = 0; i < P->nargs; i++) nt += add_stream_losses(P, P->args[i]);
    return nt;
}

/* One loss term mean_square(z_s * R_s, P->loss_w) per stream s of z. */
static int add_stream_losses(prelude *P, pf_node *z)
{
    const pf_jet_layout *L = pf_node_layout(z);
    pf_node *streams[PF_JET_MAX_STREAMS];
    int ns = 0;
    streams[ns++] = pf_deriv(P->g, z, 0, 0);
    for (int d = 0; d < L->ndir; d++)
        for (int k = 1; k <= L->order[d]; k++) streams[ns++] = pf_deriv(P->g, z, d, k);
    for (int c = 0; c < L->ncoll; c++) streams[ns++] = pf_deriv_collapsed(P->g, z, c);
    cr_assert_eq(ns, pf_node_nstreams(z), "test bug: %d loss streams for %d", ns, pf_node_nstreams(z));
    int k = pf_node_n(z) / P->n; /* rows per point: k after pf_tokens */
    for (int s = 0; s < ns; s++) {
        pf_node *R = data(P, pf_node_c(z), -1, 1);
        if (k > 1) R = pf_tokens(P->g, R, k, 0); /* token-aligned data */
        pf_node *r = pf_mul(P->g, streams[s], R);
        char name[16];
        snprintf(name, sizeof name, "%d:s%d", pf_graph_nloss(P->g), s);
        pf_loss(P->g, name, pf_mean_square(P->g, r, P->loss_w));
    }
    return ns;
}

static void prelude_compile(prelude *P)
{
    cr_assert_eq(pf_graph_compile(P->g, rnd_next(&P->rs)), PF_OK, "compile: %s", pf_errmsg());
    for (int i = 0; i < P->ndata; i++) pf_graph_set_input(P->g, P->data[i], P->data_val[i]);
}

static void prelude_free(prelude *P)
{
    pf_graph_free(P->g);
    for (int i = 0; i < P->ndata; i++) free(P->data_val[i]);
}

/* ---------------------------------------------------------------- op builders */

/* An op under test applied to the prelude's heads: y, y2 (c channels) and y1
 * (one channel), all jets with every stream nonzero. Operands built here that
 * have a gradient are recorded with arg() (for reuse_operands). */
typedef pf_node *(*op_builder)(prelude *P);

static pf_node *op_identity(prelude *P) { return P->y; }

static pf_node *op_linear(prelude *P)
{
    int out = rnd_int(&P->rs, 1, 5);
    int W = tparam(P, "Wop", out, P->c, pf_init_glorot_normal());
    int b = tparam(P, "bop", 1, out, pf_init_normal(0, 0.3));
    return pf_linear(P->g, P->y, W, b);
}

static pf_node *op_linear_nobias(prelude *P)
{
    int W = tparam(P, "Wop", rnd_int(&P->rs, 1, 5), P->c, pf_init_glorot_normal());
    return pf_linear(P->g, P->y, W, -1);
}

/* Thin layers wider than a vector (tensor/cpu_linear.c, thin_rows): c ->
 * 19 (few inputs), 19 -> 11 (a GEMM), 11 -> 3 (few outputs, its input
 * gradient by the thin loop too). */
static pf_node *op_linear_thin(prelude *P)
{
    int W1 = tparam(P, "Wt1", 19, P->c, pf_init_glorot_normal());
    int b1 = tparam(P, "bt1", 1, 19, pf_init_normal(0, 0.3));
    int W2 = tparam(P, "Wt2", 11, 19, pf_init_glorot_normal());
    int W3 = tparam(P, "Wt3", 3, 11, pf_init_glorot_normal());
    int b3 = tparam(P, "bt3", 1, 3, pf_init_normal(0, 0.3));
    pf_node *h = arg(P, pf_linear(P->g, P->y, W1, b1));
    h = arg(P, pf_linear(P->g, h, W2, -1));
    return pf_linear(P->g, h, W3, b3);
}

/* frozen weight, trainable bias (e.g. after fixed Fourier features) */
static pf_node *op_linear_frozen_weight(prelude *P)
{
    int out = rnd_int(&P->rs, 1, 5);
    int W = pf_param(P->g, "Wfrozen", out, P->c, PF_PARAM_FROZEN, pf_init_normal(0, 1));
    int b = tparam(P, "bop", 1, out, pf_init_normal(0, 0.3));
    return pf_linear(P->g, P->y, W, b);
}

static pf_node *op_linear_rwf(prelude *P)
{
    int out = rnd_int(&P->rs, 1, 5);
    int s = tparam(P, "s", out, 1, pf_init_normal(0.3, 0.2));
    int V = tparam(P, "V", out, P->c, pf_init_rwf_v(s));
    int b = tparam(P, "bop", 1, out, pf_init_normal(0, 0.3));
    return pf_linear_rwf(P->g, P->y, V, s, b);
}

/* frozen scale s, trainable V */
static pf_node *op_linear_rwf_frozen_scale(prelude *P)
{
    int out = rnd_int(&P->rs, 1, 5);
    int s = pf_param(P->g, "sfrozen", out, 1, PF_PARAM_FROZEN, pf_init_normal(0.3, 0.2));
    int V = tparam(P, "V", out, P->c, pf_init_glorot_normal());
    return pf_linear_rwf(P->g, P->y, V, s, -1);
}

static pf_node *op_linear_rwf_nobias(prelude *P)
{
    int out = rnd_int(&P->rs, 1, 5);
    int s = tparam(P, "s", out, 1, pf_init_normal(-0.2, 0.2));
    int V = tparam(P, "V", out, P->c, pf_init_rwf_v(s));
    return pf_linear_rwf(P->g, P->y, V, s, -1);
}

/* The op on y, square(y) + 1.5 or -square(y) - 0.5 (unary_case.domain),
 * scaled by pre. */
static pf_node *op_unary(prelude *P)
{
    pf_node *a = P->y;
    if (P->uc->domain == ON_POSITIVE)
        a = arg(P, pf_add_const(P->g, pf_unary(P->g, PF_UNARY_SQUARE, a, 0), 1.5));
    if (P->uc->domain == ON_NEGATIVE)
        a = arg(P, pf_add_const(P->g, pf_scale(P->g, pf_unary(P->g, PF_UNARY_SQUARE, a, 0), -1), -0.5));
    if (P->uc->pre) a = arg(P, pf_scale(P->g, a, (pf_real)P->uc->pre));
    return pf_unary(P->g, P->uc->op, a, P->uc->p);
}

/* A value-only operand shaped like head x: x's value stream (trainable, so it
 * has a gradient) — or, for the stream checks, data: the engine takes a
 * value-only operand's derivative streams as zero, which is right only if it
 * does not depend on the inputs. */
static pf_node *value_of(prelude *P, pf_node *x)
{
    if (P->const_values) return data(P, pf_node_c(x), -1, 1);
    return arg(P, pf_deriv(P->g, x, 0, 0));
}

static pf_node *op_mul_jets(prelude *P) { return pf_mul(P->g, P->y, P->y2); }
static pf_node *op_mul_same(prelude *P) { return pf_mul(P->g, P->y, P->y); }
static pf_node *op_mul_value(prelude *P) { return pf_mul(P->g, P->y, value_of(P, P->y2)); }
static pf_node *op_mul_value_first(prelude *P) { return pf_mul(P->g, value_of(P, P->y2), P->y); }
static pf_node *op_mul_data(prelude *P) { return pf_mul(P->g, data(P, P->c, -1, 1), P->y); }
static pf_node *op_mul_one_channel(prelude *P) { return pf_mul(P->g, P->y1, P->y); }
static pf_node *op_mul_one_channel_second(prelude *P) { return pf_mul(P->g, P->y, P->y1); }
static pf_node *op_mul_one_channel_value(prelude *P) { return pf_mul(P->g, value_of(P, P->y1), P->y); }
static pf_node *op_mul_one_channel_data(prelude *P) { return pf_mul(P->g, P->y, data(P, 1, -1, 1)); }

static pf_node *op_add(prelude *P) { return pf_add(P->g, P->y, P->y2); }
static pf_node *op_sub(prelude *P) { return pf_sub(P->g, P->y, P->y2); }
static pf_node *op_add_same(prelude *P) { return pf_add(P->g, P->y, P->y); }
static pf_node *op_add_one_channel(prelude *P) { return pf_add(P->g, P->y1, P->y); }
static pf_node *op_sub_one_channel(prelude *P) { return pf_sub(P->g, P->y, P->y1); }
static pf_node *op_sub_one_channel_first(prelude *P) { return pf_sub(P->g, P->y1, P->y); }
static pf_node *op_add_value(prelude *P) { return pf_add(P->g, value_of(P, P->y2), P->y); }
static pf_node *op_sub_value(prelude *P) { return pf_sub(P->g, P->y, value_of(P, P->y2)); }
static pf_node *op_sub_value_first(prelude *P) { return pf_sub(P->g, value_of(P, P->y1), P->y); }
static pf_node *op_sub_data(prelude *P) { return pf_sub(P->g, data(P, P->c, -1, 1), P->y); }

static pf_node *op_scale(prelude *P) { return pf_scale(P->g, P->y, -1.7); }
static pf_node *op_add_const(prelude *P) { return pf_add_const(P->g, P->y, 0.9); }

static pf_node *op_affine(prelude *P)
{
    pf_real sc[5], sh[5];
    cr_assert_leq(P->c, 5, "test bug: affine of %d channels", P->c);
    for (int j = 0; j < P->c; j++) sc[j] = (pf_real)rnd_in(&P->rs, -2, 2), sh[j] = (pf_real)rnd_in(&P->rs, -1, 1);
    return pf_affine(P->g, P->y, sc, sh);
}

static pf_node *op_scale_param(prelude *P)
{
    int a = tparam(P, "a", 1, 1, pf_init_normal(0.8, 0.2));
    return pf_scale_param(P->g, P->y, a, 1.3);
}

static pf_node *op_concat(prelude *P)
{
    pf_node *xs[3] = {P->y, P->y1, P->y2};
    return pf_concat(P->g, 3, xs);
}

static pf_node *op_concat_same(prelude *P)
{
    pf_node *xs[3] = {P->y, P->y2, P->y};
    return pf_concat(P->g, 3, xs);
}

static pf_node *op_slice(prelude *P)
{
    int c0 = rnd_int(&P->rs, 0, P->c - 1), nc = rnd_int(&P->rs, 1, P->c - c0);
    return pf_slice(P->g, P->y, c0, nc);
}

/* slices of a concat, re-joined in another order */
static pf_node *op_slice_concat(prelude *P)
{
    pf_node *xs[2] = {P->y, P->y2};
    pf_node *cat = arg(P, pf_concat(P->g, 2, xs));
    pf_node *parts[3] = {pf_slice(P->g, cat, P->c, P->c), pf_slice(P->g, cat, 0, 1),
                         pf_slice(P->g, cat, P->c - 1, 2)};
    return pf_concat(P->g, 3, parts);
}

static pf_node *op_ms_data_weights(prelude *P)
{
    P->loss_w = data(P, 1, 0.2, 2);
    return P->y;
}

static pf_node *op_ms_field_weights(prelude *P)
{
    P->loss_w = arg(P, pf_param_field(P->g, tparam(P, "lambda", P->n, 1, pf_init_uniform(0.5, 1.5))));
    return P->y;
}

static pf_node *op_param_field_mul(prelude *P)
{
    pf_node *f = arg(P, pf_param_field(P->g, tparam(P, "field", 1, P->n, pf_init_normal(0, 1))));
    return pf_mul(P->g, P->y, f);
}

/* one parameter behind two param_field nodes */
static pf_node *op_param_field_twice(prelude *P)
{
    int id = tparam(P, "field", P->n, 1, pf_init_normal(0, 1));
    pf_node *f1 = arg(P, pf_param_field(P->g, id)), *f2 = arg(P, pf_param_field(P->g, id));
    return pf_mul(P->g, pf_add(P->g, f1, P->y), f2);
}

static pf_node *op_param_field_add(prelude *P)
{
    pf_node *f = arg(P, pf_param_field(P->g, tparam(P, "field", P->n, 1, pf_init_normal(0, 1))));
    return pf_add(P->g, f, P->y);
}

/* WaveAct: two trainable scalars, drawn away from the released init (1, 1)
 * so that the two terms weigh differently. */
static pf_node *op_waveact_on(prelude *P, pf_node *x)
{
    int w1 = tparam(P, "w1", 1, 1, pf_init_normal(1, 0.4)), w2 = tparam(P, "w2", 1, 1, pf_init_normal(-0.7, 0.4));
    return pf_waveact(P->g, x, w1, w2);
}

static pf_node *op_waveact(prelude *P) { return op_waveact_on(P, P->y); }

static pf_node *op_waveact_init_one(prelude *P)
{
    int w1 = tparam(P, "w1", 1, 1, pf_init_const(1)), w2 = tparam(P, "w2", 1, 1, pf_init_const(1));
    return pf_waveact(P->g, P->y, w1, w2);
}

static pf_node *op_waveact_frozen_w2(prelude *P)
{
    int w1 = tparam(P, "w1", 1, 1, pf_init_normal(1, 0.4));
    int w2 = pf_param(P->g, "w2", 1, 1, PF_PARAM_FROZEN, pf_init_normal(0.5, 0.2));
    return pf_waveact(P->g, P->y2, w1, w2);
}

/* on data: no input gradient, only the parameters' */
static pf_node *op_waveact_data(prelude *P)
{
    int w1 = tparam(P, "w1", 1, 1, pf_init_normal(1, 0.4)), w2 = tparam(P, "w2", 1, 1, pf_init_normal(1, 0.4));
    return pf_mul(P->g, pf_waveact(P->g, data(P, P->c, -2, 2), w1, w2), P->y);
}

/* Token layouts: k = 3 with a large shift (so the shifted values matter),
 * ops on the tokens, tokens of tokens (6 rows per point), k = 1. */
static pf_node *op_tokens(prelude *P) { return pf_tokens(P->g, P->y, 3, 0.05); }

static pf_node *op_tokens_then_ops(prelude *P)
{
    pf_node *t = arg(P, pf_tokens(P->g, P->y, 4, 0.1)), *t2 = pf_tokens(P->g, P->y2, 4, -0.2);
    return pf_mul(P->g, t, pf_unary(P->g, PF_UNARY_SIN, t2, 0));
}

static pf_node *op_tokens_twice(prelude *P)
{
    return pf_tokens(P->g, pf_tokens(P->g, P->y, 2, 0.3), 3, 0.05);
}

static pf_node *op_tokens_one(prelude *P) { return pf_tokens(P->g, P->y, 1, 0.5); }

/* Token selection: token 0 back from a token layout; token 2 of a product
 * of token layouts whose operand is consumed again; token 1 of 3 inside
 * tokens of tokens (2 rows per point remain). */
static pf_node *op_token_select_first(prelude *P)
{
    return pf_token_select(P->g, pf_tokens(P->g, P->y, 3, 0.1), 3, 0);
}

static pf_node *op_token_select_of_product(prelude *P)
{
    pf_node *t = arg(P, pf_tokens(P->g, P->y, 3, 0.1));
    return pf_token_select(P->g, pf_mul(P->g, t, pf_tokens(P->g, P->y2, 3, -0.2)), 3, 2);
}

static pf_node *op_token_select_inner(prelude *P)
{
    return pf_token_select(P->g, pf_tokens(P->g, pf_tokens(P->g, P->y, 2, 0.3), 3, 0.05), 3, 1);
}

/* Attention over the tokens of each point (no collapsed streams: layouts
 * 0..4 and 7). One head with V = Q (an operand given twice); two heads of
 * width 2 behind trainable projections; groups of 3 inside 6 rows per
 * point (tokens of tokens), cross-attention (K, V from another head). */
static pf_node *op_attention_one_head(prelude *P)
{
    pf_node *q = arg(P, pf_tokens(P->g, P->y, 3, 0.1)), *k = arg(P, pf_tokens(P->g, P->y2, 3, -0.05));
    return pf_attention(P->g, q, k, q, 3, 1);
}

static pf_node *op_attention_two_heads(prelude *P)
{
    int Wq = tparam(P, "Wq", 4, P->c, pf_init_glorot_normal());
    int Wk = tparam(P, "Wk", 4, P->c, pf_init_glorot_normal());
    int Wv = tparam(P, "Wv", 4, P->c, pf_init_glorot_normal());
    pf_node *t = arg(P, pf_tokens(P->g, P->y, 4, 0.1)), *t2 = arg(P, pf_tokens(P->g, P->y2, 4, 0.2));
    return pf_attention(P->g, pf_linear(P->g, t, Wq, -1), pf_linear(P->g, t2, Wk, -1),
                        pf_linear(P->g, t, Wv, -1), 4, 2);
}

static pf_node *op_attention_groups_in_rows(prelude *P)
{
    pf_node *t = arg(P, pf_tokens(P->g, pf_tokens(P->g, P->y, 2, 0.3), 3, 0.05));
    pf_node *t2 = arg(P, pf_tokens(P->g, pf_tokens(P->g, P->y2, 2, 0.3), 3, 0.05));
    return pf_attention(P->g, t, t2, t2, 3, 1);
}

typedef struct layout_op {
    const char *name;
    op_builder build;
} layout_op;

static const layout_op attention_cases[] = {
    {"attention, one head, V = Q", op_attention_one_head},
    {"attention, two heads", op_attention_two_heads},
    {"attention, groups of 3 in 6 rows, K = V", op_attention_groups_in_rows},
};
#define NATTN (int)(sizeof attention_cases / sizeof attention_cases[0])
static const int attention_layouts[] = {0, 1, 2, 3, 4, 7};

/* Every op variant, by family (one grad Test() per family). The unary ops
 * are op_unary over unary_cases[]. */
typedef struct op_case {
    const char *family, *name;
    op_builder build;
} op_case;

static const op_case op_cases[] = {
    {"deriv", "deriv of every stream", op_identity},
    {"linear", "linear", op_linear},
    {"linear", "linear without bias", op_linear_nobias},
    {"linear", "linear with a frozen weight", op_linear_frozen_weight},
    {"linear", "thin linear layers wider than a vector", op_linear_thin},
    {"linear_rwf", "linear_rwf", op_linear_rwf},
    {"linear_rwf", "linear_rwf without bias", op_linear_rwf_nobias},
    {"linear_rwf", "linear_rwf with a frozen scale", op_linear_rwf_frozen_scale},
    {"mul", "mul jet * jet", op_mul_jets},
    {"mul", "mul(a, a)", op_mul_same},
    {"mul", "mul jet * value-only", op_mul_value},
    {"mul", "mul value-only * jet", op_mul_value_first},
    {"mul", "mul data * jet", op_mul_data},
    {"mul", "mul one-channel * multi-channel", op_mul_one_channel},
    {"mul", "mul multi-channel * one-channel", op_mul_one_channel_second},
    {"mul", "mul one-channel value-only * jet", op_mul_one_channel_value},
    {"mul", "mul jet * one-channel data", op_mul_one_channel_data},
    {"add_sub", "add", op_add},
    {"add_sub", "sub", op_sub},
    {"add_sub", "add(a, a)", op_add_same},
    {"add_sub", "add one-channel + multi-channel", op_add_one_channel},
    {"add_sub", "sub multi-channel - one-channel", op_sub_one_channel},
    {"add_sub", "sub one-channel - multi-channel", op_sub_one_channel_first},
    {"add_sub", "add value-only + jet", op_add_value},
    {"add_sub", "sub jet - value-only", op_sub_value},
    {"add_sub", "sub one-channel value-only - jet", op_sub_value_first},
    {"add_sub", "sub data - jet", op_sub_data},
    {"affine", "scale", op_scale},
    {"affine", "add_const", op_add_const},
    {"affine", "affine", op_affine},
    {"affine", "scale_param", op_scale_param},
    {"concat_slice", "concat", op_concat},
    {"concat_slice", "concat(a, b, a)", op_concat_same},
    {"concat_slice", "slice", op_slice},
    {"concat_slice", "slices of a concat", op_slice_concat},
    {"mean_square", "mean_square with data weights", op_ms_data_weights},
    {"mean_square", "mean_square with trainable param_field weights", op_ms_field_weights},
    {"mean_square", "param_field (1 x n) * jet", op_param_field_mul},
    {"mean_square", "param_field (n x 1) + jet", op_param_field_add},
    {"mean_square", "one parameter, two param_fields", op_param_field_twice},
    {"waveact", "waveact", op_waveact},
    {"waveact", "waveact with w1 = w2 = 1", op_waveact_init_one},
    {"waveact", "waveact with a frozen w2", op_waveact_frozen_w2},
    {"waveact", "waveact of data", op_waveact_data},
    {"tokens", "tokens k = 3", op_tokens},
    {"tokens", "ops on tokens", op_tokens_then_ops},
    {"tokens", "tokens of tokens", op_tokens_twice},
    {"tokens", "tokens k = 1", op_tokens_one},
    {"tokens", "token 0 of tokens", op_token_select_first},
    {"tokens", "token 2 of a product of tokens", op_token_select_of_product},
    {"tokens", "token 1 of 3 in tokens of tokens", op_token_select_inner},
};
#define NOPS (int)(sizeof op_cases / sizeof op_cases[0])

/* ------------------------------------------------- finite-difference checks */

/* sum_t w_t L_t after a forward pass (w NULL: all ones). */
static double total_loss(pf_graph *g, const pf_real *w)
{
    pf_graph_forward(g);
    double s = 0;
    for (int t = 0; t < pf_graph_nloss(g); t++) s += (w ? w[t] : 1) * pf_graph_loss_value(g, t);
    return s;
}

/* "W2[3]": the parameter that owns flat trainable index i. */
static void flat_name(pf_graph *g, size_t i, char *buf, size_t cap)
{
    snprintf(buf, cap, "#%zu", i);
    for (int id = 0; id < pf_graph_param_count(g); id++) {
        int r, c;
        pf_graph_param_shape(g, id, &r, &c);
        size_t off = pf_graph_param_offset(g, id);
        if (pf_graph_param_grad(g, id) && i >= off && i < off + (size_t)r * c) {
            snprintf(buf, cap, "%s[%zu]", pf_graph_param_name(g, id), i - off);
            return;
        }
    }
}

#define FD_H 1e-6

/* The gradient of sum_t w_t L_t from pf_graph_backward(g, w) against central
 * differences (L(p + h) - L(p - h)) / 2h in every trainable parameter:
 * |g_i - fd_i| <= tol max(1, |g_i|), reported once for the worst parameter.
 * Also: the gradient is not identically zero, and a second backward gives it
 * again bit for bit (no stale accumulation in node gradient buffers). */
static void assert_grads_match_fd(pf_graph *g, const pf_real *w, double tol, const char *what)
{
    size_t np = pf_graph_nparams(g);
    pf_real *p = pf_graph_params(g);
    pf_real *g1 = malloc((np + 1) * sizeof *g1);
    cr_assert_not_null(g1);
    pf_graph_forward(g);
    pf_graph_backward(g, w);
    memcpy(g1, pf_graph_grads(g), np * sizeof *g1);
    pf_graph_backward(g, w);
    cr_expect(memcmp(g1, pf_graph_grads(g), np * sizeof *g1) == 0,
              "%s: a second backward reproduces the gradient exactly", what);

    double worst = -1, gmax = 0, fd_worst = 0;
    size_t iw = 0;
    for (size_t i = 0; i < np; i++) {
        pf_real p0 = p[i];
        pf_real pp = (pf_real)(p0 + FD_H), pm = (pf_real)(p0 - FD_H);
        p[i] = pp;
        double lp = total_loss(g, w);
        p[i] = pm;
        double lm = total_loss(g, w);
        p[i] = p0;
        double fd = (lp - lm) / ((double)pp - (double)pm);
        double err = fabs((double)g1[i] - fd) / fmax(1, fabs((double)g1[i]));
        if (err > worst) worst = err, iw = i, fd_worst = fd;
        gmax = fmax(gmax, fabs((double)g1[i]));
    }
    pf_graph_forward(g); /* leave the graph at the unperturbed parameters */
    char pname[64];
    flat_name(g, iw, pname, sizeof pname);
    cr_expect(gmax > 0, "%s: the gradient is not identically zero", what);
    cr_expect(worst <= tol,
              "%s: backward matches central differences in all %zu parameters "
              "(worst dL/d%s: backward %.12g, differences %.12g, rel. error %.2e > %.1e)",
              what, np, pname, (double)g1[iw], fd_worst, worst, tol);
    free(g1);
}

/* Random loss weights in +-[0.5, 2]: every check exercises pf_graph_backward's
 * per-term weights. */
static void random_weights(uint64_t *rs, pf_real *w, int nt)
{
    for (int t = 0; t < nt; t++) w[t] = (pf_real)(rnd_in(rs, 0.5, 2) * (rnd_u(rs) < 0.3 ? -1 : 1));
}

/* The gradient check of one op on layout `kind` (shape as prelude_init), once
 * as the only consumer of its operands and once with its operands consumed
 * again later (so both the write and the accumulate paths of its backward
 * run). */
static void check_op_on(const char *name, op_builder build, const unary_case *uc, double tol,
                        int kind, int n, int c)
{
    for (int reuse = 0; reuse < 2; reuse++) {
        prelude P;
        prelude_init(&P, seed_of(name, 2 * kind + reuse + 1000 * n), kind, n, c);
        P.uc = uc;
        pf_node *z = build(&P);
        int nt = reuse ? reuse_operands(&P) : 0;
        nt += add_stream_losses(&P, z);
        prelude_compile(&P);
        pf_real w[(MAX_ARGS + 1) * PF_JET_MAX_STREAMS];
        random_weights(&P.rs, w, nt);
        char what[200];
        snprintf(what, sizeof what, "%s%s [%s; n=%d, c=%d, %d input channels]", name,
                 reuse ? ", operands reused" : "", P.lname, P.n, P.c, P.cin);
        assert_grads_match_fd(P.g, w, tol, what);
        prelude_free(&P);
    }
}

/* ... on every layout of grad_layout(), random small shapes. */
static void check_op(const char *name, op_builder build, const unary_case *uc, double tol)
{
    for (int kind = 0; kind < NLAYOUTS; kind++) check_op_on(name, build, uc, tol, kind, 0, 0);
}

#define GRAD_TOL 1e-6

/* check_op on every variant of a family of op_cases[]. */
static void check_family(const char *family)
{
    int n = 0;
    for (int i = 0; i < NOPS; i++)
        if (!strcmp(op_cases[i].family, family)) {
            check_op(op_cases[i].name, op_cases[i].build, NULL, GRAD_TOL);
            n++;
        }
    cr_assert_gt(n, 0, "test bug: no op family '%s'", family);
}

#define STREAM_FD_H 2e-2

/* Forward Taylor mode of an op against finite differences of the engine's own
 * value stream: for every layout with directions, z = build(prelude) along
 * each v_d is sampled at x + t v_d (13 points, t = j h/2, h = STREAM_FD_H) and
 * stream (d, k) must equal d^k z / dt^k (Richardson-extrapolated stencils),
 * collapsed stream c must equal sum_d w_cd d^2 z / dt_d^2. The error is
 * relative to max(|ref|, 1); tol[k] per order (collapsed: tol[2]). */
static void check_op_streams_on(const char *name, op_builder build, const unary_case *uc,
                                const double tol[5], int kind, int n, int nc)
{
    prelude P;
    prelude_init(&P, seed_of(name, 100 + kind + 1000 * n), kind, n, nc);
    P.const_values = true;
    P.uc = uc;
    pf_node *z = build(&P);
    prelude_compile(&P);
    const pf_jet_layout *L = pf_node_layout(z);
    size_t len = (size_t)pf_node_n(z) * pf_node_c(z), xlen = (size_t)P.n * P.cin;
    pf_real *jet = malloc((size_t)pf_node_nstreams(z) * len * sizeof *jet);
    pf_real *val = malloc((size_t)pf_node_nstreams(z) * len * sizeof *val);
    pf_real *xs = malloc(xlen * sizeof *xs);
    long double(*f)[NSAMPLE] = malloc(len * sizeof *f);
    double(*d2)[PF_JET_MAX_DIRS] = calloc(len, sizeof *d2);
    cr_assert(jet && val && xs && f && d2);
    pf_graph_forward(P.g);
    pf_graph_read(P.g, z, jet);

    double worst[5] = {0};
    for (int d = 0; d < L->ndir; d++) {
        for (int j = -6; j <= 6; j++) {
            for (size_t i = 0; i < xlen; i++)
                xs[i] = P.data_val[0][i] + (pf_real)(j * STREAM_FD_H / 2) * P.dirs[d * P.cin + i % P.cin];
            pf_graph_set_input(P.g, P.x, xs);
            pf_graph_forward(P.g);
            pf_graph_read(P.g, z, val);
            for (size_t i = 0; i < len; i++) f[i][j + 6] = val[i];
        }
        for (size_t i = 0; i < len; i++) {
            for (int k = 1; k <= L->order[d]; k++) {
                double ref = (double)fd_richardson(k, f[i], STREAM_FD_H);
                worst[k] = fmax(worst[k], rel_err(jet[(size_t)pf_jet_stream(L, d, k) * len + i], ref, 1));
            }
            d2[i][d] = (double)fd_richardson(2, f[i], STREAM_FD_H);
        }
    }
    double worst_coll = 0;
    for (int c = 0; c < L->ncoll; c++)
        for (size_t i = 0; i < len; i++) {
            double ref = 0;
            for (int d = 0; d < L->ndir; d++) ref += L->coll_w[c][d] * d2[i][d];
            worst_coll = fmax(worst_coll, rel_err(jet[(size_t)pf_jet_collapsed(L, c) * len + i], ref, 1));
        }
    int K = 0; /* highest direction order */
    for (int d = 0; d < L->ndir; d++) K = L->order[d] > K ? L->order[d] : K;
    for (int k = 1; k <= K; k++) {
        cr_expect(worst[k] <= tol[k], "%s [%s]: streams of order %d match finite differences "
                  "of the value (rel. error %.2e > %.0e)", name, P.lname, k, worst[k], tol[k]);
    }
    if (L->ncoll) {
        cr_expect(worst_coll <= tol[2], "%s [%s]: collapsed streams match finite differences "
                  "of the value (rel. error %.2e > %.0e)", name, P.lname, worst_coll, tol[2]);
    }
    free(jet);
    free(val);
    free(xs);
    free(f);
    free(d2);
    prelude_free(&P);
}

/* ... on every layout with directions, random small shapes. */
static void check_op_streams(const char *name, op_builder build, const unary_case *uc,
                             const double tol[5])
{
    for (int kind = 1; kind < NLAYOUTS; kind++) check_op_streams_on(name, build, uc, tol, kind, 0, 0);
}

/* ------------------------------------------------------------ jet: layouts */

Test(jet, layout_helpers_index_a_mixed_layout)
{
    pf_jet_layout L = pf_jet_layout_none();
    cr_expect_eq(pf_jet_nstreams(&L), 1, "a value-only layout has one stream");
    cr_expect_eq(pf_jet_max_order(&L), 0, "a value-only layout has order 0");
    int a = pf_jet_add_dir(&L, 2), b = pf_jet_add_dir(&L, 4), c = pf_jet_add_dir(&L, 1);
    cr_expect(a == 0 && b == 1 && c == 2, "pf_jet_add_dir returns 0, 1, 2");
    pf_real w0[3] = {1, 1, 1}, w1[3] = {0.3, 0, -2};
    int l0 = pf_jet_add_collapsed(&L, w0), l1 = pf_jet_add_collapsed(&L, w1);
    cr_expect(l0 == 0 && l1 == 1, "pf_jet_add_collapsed returns 0, 1");
    /* streams: value | d0: 1 2 | d1: 3 4 5 6 | d2: 7 | collapsed: 8 9 */
    cr_expect_eq(pf_jet_nstreams(&L), 10, "S = 1 + (2 + 4 + 1) + 2");
    int want[3][5] = {{0, 1, 2, -1, -1}, {0, 3, 4, 5, 6}, {0, 7, -1, -1, -1}};
    for (int d = 0; d < 3; d++)
        for (int k = 0; k <= L.order[d]; k++)
            cr_expect_eq(pf_jet_stream(&L, d, k), want[d][k], "stream of direction %d, order %d", d, k);
    cr_expect_eq(pf_jet_collapsed(&L, 0), 8, "collapsed stream 0 follows the directions");
    cr_expect_eq(pf_jet_collapsed(&L, 1), 9, "collapsed stream 1 is last");
    cr_expect_eq(pf_jet_max_order(&L), 4, "max order is the highest direction order");
    cr_expect(pf_jet_layout_valid(&L), "the mixed layout is valid: %s", pf_errmsg());
    cr_expect(pf_jet_layout_equal(&L, &L), "a layout equals itself");
    pf_jet_layout M = L;
    M.coll_w[1][2] = -1.5;
    cr_expect(!pf_jet_layout_equal(&L, &M), "layouts differing in a collapsed weight differ");

    pf_jet_layout C = pf_jet_layout_none();
    pf_jet_add_dir(&C, 1);
    pf_jet_add_collapsed(&C, w0);
    cr_expect_eq(pf_jet_max_order(&C), 2, "a collapsed stream has order 2");
    pf_jet_layout bad = pf_jet_layout_none();
    bad.ndir = 1;
    bad.order[0] = 5;
    cr_expect(!pf_jet_layout_valid(&bad), "order 5 is rejected");
    pf_jet_layout ghost = C;
    ghost.coll_w[0][1] = 1; /* direction 1 does not exist, so has no first-order stream */
    cr_expect(!pf_jet_layout_valid(&ghost), "a collapsed weight on a missing direction is rejected");
}

/* An input's stream (d, 1) is v_d at every point, higher streams and the
 * collapsed stream are zero, the value is what was set. */
Test(jet, inputs_are_seeded_with_their_directions)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 3);
    pf_jet_add_dir(&L, 1);
    pf_real w[2] = {1, 1};
    pf_jet_add_collapsed(&L, w);
    enum { N = 3, C = 2 };
    pf_real dirs[2 * C] = {0.6, -0.8, 1.5, 0.25};
    pf_node *x = pf_input(g, "x", N, C, &L, dirs);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_real v[N * C] = {0.1, 0.2, -0.3, 0.4, 0.5, -0.6};
    pf_graph_set_input(g, x, v);
    pf_real buf[6 * N * C];
    pf_graph_read(g, x, buf);
    bool ok = true;
    for (int s = 0; s < 6; s++)
        for (int i = 0; i < N * C; i++) {
            pf_real want = s == 0 ? v[i] : s == 1 ? dirs[i % C] : s == 4 ? dirs[C + i % C] : 0;
            ok &= buf[s * N * C + i] == want;
        }
    cr_expect(ok, "input streams: value, v_0, 0, 0, v_1, 0");
    pf_graph_free(g);
}

/* The value stream of every non-unary op on small value-only inputs, computed
 * by hand:
 *   a = [[1, -2], [0.5, 3]], b = [[4, 0.25], [-1, 2]], s = [[2], [-3]],
 *   w = lambda = [2, 0.5], W = [[1, 2], [-1, 0.5]], bias = [0.1, -0.2],
 *   rwf scale r = [log 2, 0] (so W_eff = [[2, 4], [-1, 0.5]]), p = 0.5.
 * mean_square(a) = (1 + 4 + 0.25 + 9) / 4; with weights w:
 * (2 * 5 + 0.5 * 9.25) / 4. Tolerance 1e-14 double, 1e-6 float (relative to
 * max(|x|, 1)). */
Test(jet, op_values_match_hand_computation)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_node *a = pf_input(g, "a", 2, 2, NULL, NULL), *b = pf_input(g, "b", 2, 2, NULL, NULL);
    pf_node *s = pf_input(g, "s", 2, 1, NULL, NULL), *w = pf_input(g, "w", 2, 1, NULL, NULL);
    int W = pf_param(g, "W", 2, 2, PF_PARAM_TRAINABLE, pf_init_zero());
    int bias = pf_param(g, "bias", 1, 2, PF_PARAM_TRAINABLE, pf_init_zero());
    int r = pf_param(g, "r", 2, 1, PF_PARAM_TRAINABLE, pf_init_zero());
    int p = pf_param(g, "p", 1, 1, PF_PARAM_TRAINABLE, pf_init_zero());
    int lam = pf_param(g, "lambda", 1, 2, PF_PARAM_TRAINABLE, pf_init_zero());
    const pf_real sc[2] = {2, -1}, sh[2] = {1, 0};
    pf_node *as[2] = {a, s};
    pf_node *cat = pf_concat(g, 2, as);
    pf_node *field = pf_param_field(g, lam);
    struct {
        const char *what;
        pf_node *node;
        double want[6];
    } cases[] = {
        {"mul(a, b)", pf_mul(g, a, b), {4, -0.5, -0.5, 6}},
        {"mul(s, a): s spans the channels", pf_mul(g, s, a), {2, -4, -1.5, -9}},
        {"add(a, s)", pf_add(g, a, s), {3, 0, -2.5, 0}},
        {"sub(s, a)", pf_sub(g, s, a), {1, 4, -3.5, -6}},
        {"sub(a, b)", pf_sub(g, a, b), {-3, -2.25, 1.5, 1}},
        {"scale(a, -2)", pf_scale(g, a, -2), {-2, 4, -1, -6}},
        {"add_const(a, 0.5)", pf_add_const(g, a, 0.5), {1.5, -1.5, 1, 3.5}},
        {"affine(a, (2, -1), (1, 0))", pf_affine(g, a, sc, sh), {3, 2, 2, -3}},
        {"scale_param(a, p, 3)", pf_scale_param(g, a, p, 3), {1.5, -3, 0.75, 4.5}},
        {"concat(a, s)", cat, {1, -2, 2, 0.5, 3, -3}},
        {"slice(concat(a, s), 1, 2)", pf_slice(g, cat, 1, 2), {-2, 2, 3, -3}},
        {"linear(a, W, bias)", pf_linear(g, a, W, bias), {-2.9, -2.2, 6.6, 0.8}},
        {"linear(a, W) without bias", pf_linear(g, a, W, -1), {-3, -2, 6.5, 1}},
        {"linear_rwf(a, W, r, bias)", pf_linear_rwf(g, a, W, r, bias), {-5.9, -2.2, 13.1, 0.8}},
        {"deriv(a, value)", pf_deriv(g, a, 0, 0), {1, -2, 0.5, 3}},
        {"param_field(lambda)", field, {2, 0.5}},
        {"mean_square(a)", pf_mean_square(g, a, NULL), {3.5625}},
        {"mean_square(a, w)", pf_mean_square(g, a, w), {3.65625}},
        {"mean_square(a, param_field(lambda))", pf_mean_square(g, a, field), {3.65625}},
    };
    int t = pf_loss(g, "weighted", pf_mean_square(g, b, w));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    const pf_real av[4] = {1, -2, 0.5, 3}, bv[4] = {4, 0.25, -1, 2}, sv[2] = {2, -3}, wv[2] = {2, 0.5};
    const pf_real Wv[4] = {1, 2, -1, 0.5}, biasv[2] = {0.1, -0.2}, rv[2] = {log(2.0), 0};
    memcpy(pf_graph_param_data(g, W), Wv, sizeof Wv);
    memcpy(pf_graph_param_data(g, bias), biasv, sizeof biasv);
    memcpy(pf_graph_param_data(g, r), rv, sizeof rv);
    memcpy(pf_graph_param_data(g, lam), wv, sizeof wv);
    pf_graph_param_data(g, p)[0] = 0.5;
    pf_graph_set_input(g, a, av);
    pf_graph_set_input(g, b, bv);
    pf_graph_set_input(g, s, sv);
    pf_graph_set_input(g, w, wv);
    pf_graph_forward(g);

    double tol = BY_PRECISION(1e-14, 1e-6);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pf_real got[6];
        int len = pf_node_n(cases[i].node) * pf_node_c(cases[i].node);
        cr_assert_eq(pf_node_nstreams(cases[i].node), 1, "%s is value-only", cases[i].what);
        pf_graph_read(g, cases[i].node, got);
        double worst = 0;
        for (int j = 0; j < len; j++) worst = fmax(worst, rel_err(got[j], cases[i].want[j], 1));
        cr_expect(worst <= tol, "%s matches the hand computation (rel. error %.2e)", cases[i].what, worst);
    }
    /* (2 (16 + 1/16) + 0.5 (1 + 4)) / 4 */
    cr_expect(rel_err(pf_graph_loss_value(g, t), (2 * 16.0625 + 2.5) / 4, 1) <= tol,
              "a declared loss term reports the value of its node");
    pf_graph_free(g);
}

/* --------------------------------------------------- jet: closed-form streams */

/* u = exp(g), g = tanh(s), s = sin x, derived by the chain rule. With S = sin x,
 * C = cos x, T = tanh(S) and q = 1 - T^2 = sech^2(S):
 *   tanh' = q, tanh'' = -2Tq, tanh''' = q(6T^2 - 2), tanh'''' = 8Tq(2 - 3T^2)
 *   s' = C, s'' = -S, s''' = -C, s'''' = S
 *   g1 = t1 s1
 *   g2 = t2 s1^2 + t1 s2
 *   g3 = t3 s1^3 + 3 t2 s1 s2 + t1 s3
 *   g4 = t4 s1^4 + 6 t3 s1^2 s2 + t2 (3 s2^2 + 4 s1 s3) + t1 s4
 * and u^(k) = u B_k(g1..gk), the complete Bell polynomials:
 *   u1 = u g1, u2 = u (g2 + g1^2), u3 = u (g3 + 3 g1 g2 + g1^3),
 *   u4 = u (g4 + 4 g1 g3 + 3 g2^2 + 6 g1^2 g2 + g1^4).
 * (Checked against sympy, and against finite differences below.) */
static void exp_tanh_sin_derivs(double x, double u[5])
{
    double S = sin(x), C = cos(x), T = tanh(S), q = 1 - T * T;
    double t1 = q, t2 = -2 * T * q, t3 = q * (6 * T * T - 2), t4 = 8 * T * q * (2 - 3 * T * T);
    double s1 = C, s2 = -S, s3 = -C, s4 = S;
    double g1 = t1 * s1;
    double g2 = t2 * s1 * s1 + t1 * s2;
    double g3 = t3 * s1 * s1 * s1 + 3 * t2 * s1 * s2 + t1 * s3;
    double g4 = t4 * pow(s1, 4) + 6 * t3 * s1 * s1 * s2 + t2 * (3 * s2 * s2 + 4 * s1 * s3) + t1 * s4;
    u[0] = exp(T);
    u[1] = u[0] * g1;
    u[2] = u[0] * (g2 + g1 * g1);
    u[3] = u[0] * (g3 + 3 * g1 * g2 + pow(g1, 3));
    u[4] = u[0] * (g4 + 4 * g1 * g3 + 3 * g2 * g2 + 6 * g1 * g1 * g2 + pow(g1, 4));
}

typedef struct line1 {
    long double x, v;
} line1;

static long double exp_tanh_sin_on_line(long double t, const void *ctx)
{
    const line1 *l = ctx;
    return expl(tanhl(sinl(l->x + t * l->v)));
}

/* Along v = 0.8 (not a unit direction) stream k is v^k u^(k)(x).
 * Tolerance relative to max(|u^(k)|, 1): 1e-12 double, 5e-6 float (seen 4e-7). */
Test(jet, order4_of_exp_tanh_sin_matches_closed_form)
{
    enum { N = 6 };
    const pf_real xs[N] = {-2.1, -0.9, -0.2, 0.35, 1.3, 2.6};
    const pf_real v = 0.8;
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 4);
    pf_node *x = pf_input(g, "x", N, 1, &L, &v);
    pf_node *u = pf_unary(g, PF_UNARY_EXP,
                          pf_unary(g, PF_UNARY_TANH, pf_unary(g, PF_UNARY_SIN, x, 0), 0), 0);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, x, xs);
    pf_graph_forward(g);
    pf_real got[5 * N];
    pf_graph_read(g, u, got);

    double worst[5] = {0}, worst_fd = 0;
    for (int i = 0; i < N; i++) {
        double d[5];
        exp_tanh_sin_derivs(xs[i], d);
        for (int k = 0; k <= 4; k++)
            worst[k] = fmax(worst[k], rel_err(got[k * N + i], pow(v, k) * d[k], 1));
        line1 l = {xs[i], 1};
        for (int k = 1; k <= 4; k++)
            worst_fd = fmax(worst_fd, rel_err((double)fd_deriv(exp_tanh_sin_on_line, &l, k, 1.5e-2L),
                                              d[k], 1));
    }
    cr_expect(worst_fd <= 1e-7, "the closed form u^(1..4) agrees with finite differences (rel %.2e)",
              worst_fd);
    double tol = BY_PRECISION(1e-12, 5e-6);
    for (int k = 0; k <= 4; k++)
        cr_expect(worst[k] <= tol, "exp(tanh(sin x)): stream %d = v^%d u^(%d) (rel. error %.2e > %.0e)",
                  k, k, k, worst[k], tol);
    pf_graph_free(g);
}

/* u = sin(x) exp(y) tanh(x + y) from ops, directions e_x, e_y, e_x + e_y (order 2):
 *   u_xx = B (A'' C + 2 A' C' + A C''),  u_yy = A B (C + 2 C' + C''),
 *   u_xy = B (A' C + A' C' + A C' + A C'')
 * with A = sin x, B = e^y, C = tanh(x + y), C' = 1 - C^2, C'' = -2 C C';
 * u_xy by polarization (D^2_{x+y} u - u_xx - u_yy) / 2.
 * Tolerance relative to max(1, |D^2_{x+y} u| + |u_xx| + |u_yy|): 1e-13 double,
 * 1e-6 float (seen 3e-8). */
Test(jet, mixed_derivative_by_polarization_matches_closed_form)
{
    enum { N = 5 };
    const pf_real xy[2 * N] = {0.4, -0.3, -1.2, 0.7, 0.9, 0.5, 2.0, -1.4, -0.6, -0.8};
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    int dx = pf_jet_add_dir(&L, 2), dy = pf_jet_add_dir(&L, 2), dxy = pf_jet_add_dir(&L, 2);
    const pf_real dirs[6] = {1, 0, 0, 1, 1, 1};
    pf_node *X = pf_input(g, "xy", N, 2, &L, dirs);
    pf_node *x = pf_slice(g, X, 0, 1), *y = pf_slice(g, X, 1, 1);
    pf_node *u = pf_mul(g, pf_mul(g, pf_unary(g, PF_UNARY_SIN, x, 0), pf_unary(g, PF_UNARY_EXP, y, 0)),
                        pf_unary(g, PF_UNARY_TANH, pf_add(g, x, y), 0));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, X, xy);
    pf_graph_forward(g);
    pf_real got[7 * N];
    pf_graph_read(g, u, got);
    const pf_jet_layout *Lu = pf_node_layout(u);
    double e_xx = 0, e_yy = 0, e_xy = 0;
    for (int i = 0; i < N; i++) {
        double px = xy[2 * i], py = xy[2 * i + 1];
        double A = sin(px), A1 = cos(px), A2 = -sin(px), B = exp(py);
        double C = tanh(px + py), C1 = 1 - C * C, C2 = -2 * C * C1;
        double uxx = B * (A2 * C + 2 * A1 * C1 + A * C2);
        double uyy = A * B * (C + 2 * C1 + C2);
        double uxy = B * (A1 * C + A1 * C1 + A * C1 + A * C2);
        double gxx = got[pf_jet_stream(Lu, dx, 2) * N + i], gyy = got[pf_jet_stream(Lu, dy, 2) * N + i];
        double gvv = got[pf_jet_stream(Lu, dxy, 2) * N + i];
        double scale = fmax(1, fabs(gvv) + fabs(gxx) + fabs(gyy));
        e_xx = fmax(e_xx, fabs(gxx - uxx) / scale);
        e_yy = fmax(e_yy, fabs(gyy - uyy) / scale);
        e_xy = fmax(e_xy, fabs((gvv - gxx - gyy) / 2 - uxy) / scale);
    }
    double tol = BY_PRECISION(1e-13, 1e-6);
    cr_expect(e_xx <= tol, "u_xx of sin(x) e^y tanh(x+y) matches the closed form (%.2e)", e_xx);
    cr_expect(e_yy <= tol, "u_yy of sin(x) e^y tanh(x+y) matches the closed form (%.2e)", e_yy);
    cr_expect(e_xy <= tol, "u_xy by polarization matches the closed form (%.2e)", e_xy);
    pf_graph_free(g);
}

/* A random 2-8-8-1 network (tanh, gelu) with random directions a, b: the
 * polarized u_ab = (D^2_{a+b} u - D^2_a u - D^2_b u) / 2 = a^T H b against the
 * 4-point stencil [u(+a+b) - u(+a-b) - u(-a+b) + u(-a-b)] / 4h^2, h = 1e-4,
 * on the engine's values (double only; error ~ h^2 + eps/h^2 ~ 1e-8).
 * Tolerance |err| <= 1e-6 max(1, |u_ab|). */
Test(jet, mixed_derivative_of_a_network_matches_the_mixed_stencil)
{
#ifndef PF_DOUBLE
    cr_skip_test("a mixed finite-difference stencil with h = 1e-4 needs PRECISION=double");
#endif
    enum { N = 5 };
    uint64_t rs = seed_of("polarization", 0);
    pf_real a[2] = {(pf_real)rnd_comp(&rs), (pf_real)rnd_comp(&rs)};
    pf_real b[2] = {(pf_real)rnd_comp(&rs), (pf_real)rnd_comp(&rs)};
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    for (int d = 0; d < 3; d++) pf_jet_add_dir(&L, 2);
    pf_real dirs[6] = {a[0], a[1], b[0], b[1], a[0] + b[0], a[1] + b[1]};
    pf_node *X = pf_input(g, "xy", N, 2, &L, dirs);
    int W1 = pf_param(g, "W1", 8, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 8, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.5));
    int W2 = pf_param(g, "W2", 8, 8, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b2 = pf_param(g, "b2", 1, 8, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.5));
    int W3 = pf_param(g, "W3", 1, 8, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *h = pf_unary(g, PF_UNARY_TANH, pf_linear(g, X, W1, b1), 0);
    h = pf_unary(g, PF_UNARY_GELU, pf_linear(g, h, W2, b2), 0);
    pf_node *u = pf_linear(g, h, W3, -1);
    cr_assert_eq(pf_graph_compile(g, 7), PF_OK, "%s", pf_errmsg());

    pf_real p0[2 * N], buf[7 * N];
    for (int i = 0; i < 2 * N; i++) p0[i] = (pf_real)rnd_in(&rs, -1, 1);
    pf_graph_set_input(g, X, p0);
    pf_graph_forward(g);
    pf_graph_read(g, u, buf);
    double uab[N];
    for (int i = 0; i < N; i++)
        uab[i] = (buf[pf_jet_stream(&L, 2, 2) * N + i] - buf[pf_jet_stream(&L, 0, 2) * N + i] -
                  buf[pf_jet_stream(&L, 1, 2) * N + i]) / 2;

    const double h4 = 1e-4;
    const int sgn[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    double fd[N] = {0};
    for (int m = 0; m < 4; m++) {
        pf_real pm[2 * N];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < 2; j++)
                pm[2 * i + j] = p0[2 * i + j] + (pf_real)(h4 * (sgn[m][0] * a[j] + sgn[m][1] * b[j]));
        pf_graph_set_input(g, X, pm);
        pf_graph_forward(g);
        pf_graph_read(g, u, buf);
        for (int i = 0; i < N; i++) fd[i] += sgn[m][0] * sgn[m][1] * buf[i] / (4 * h4 * h4);
    }
    double worst = 0;
    for (int i = 0; i < N; i++) worst = fmax(worst, fabs(uab[i] - fd[i]) / fmax(1, fabs(uab[i])));
    cr_expect(worst <= 1e-6, "network u_ab by polarization matches the mixed stencil (%.2e)", worst);
    pf_graph_free(g);
}

/* The same network on three layouts (identical parameters: same registration
 * and seed): A = three order-2 directions of a random orthonormal basis, B =
 * the same directions of order 1 plus collapsed streams (1, 1, 1) and
 * (0.3, -2, 0), Cx = the axis directions of order 2. The network mixes linear,
 * tanh, gelu, sin, softplus, a jet*jet product and an add, so every op's
 * collapsed rule takes part. Tolerance relative to max(1, sum |terms|):
 * 1e-13 double, 2e-6 float (seen 1.2e-7). */
static pf_node *lap_net(pf_graph *g, pf_node *x)
{
    int W1 = pf_param(g, "W1", 6, 3, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 6, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.5));
    int W2 = pf_param(g, "W2", 6, 6, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b2 = pf_param(g, "b2", 1, 6, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.5));
    int W3 = pf_param(g, "W3", 6, 6, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b3 = pf_param(g, "b3", 1, 6, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.5));
    int W4 = pf_param(g, "W4", 2, 6, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b4 = pf_param(g, "b4", 1, 2, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.5));
    pf_node *h1 = pf_unary(g, PF_UNARY_TANH, pf_linear(g, x, W1, b1), 0);
    pf_node *h2 = pf_mul(g, pf_unary(g, PF_UNARY_GELU, pf_linear(g, h1, W2, b2), 0),
                         pf_unary(g, PF_UNARY_SIN, pf_linear(g, h1, W3, b3), 0));
    return pf_linear(g, pf_add(g, h2, pf_unary(g, PF_UNARY_SOFTPLUS, h1, 0)), W4, b4);
}

static void lap_eval(const pf_jet_layout *L, const pf_real *dirs, const pf_real *pts, int n,
                     pf_real *out)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_node *x = pf_input(g, "x", n, 3, L, dirs);
    pf_node *u = lap_net(g, x);
    cr_assert_eq(pf_graph_compile(g, 11), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, x, pts);
    pf_graph_forward(g);
    pf_graph_read(g, u, out);
    pf_graph_free(g);
}

Test(jet, collapsed_stream_equals_weighted_sum_of_second_derivatives)
{
    enum { N = 4, C = 2, LEN = N * C };
    uint64_t rs = seed_of("collapsed", 0);
    pf_real pts[3 * N];
    for (int i = 0; i < 3 * N; i++) pts[i] = (pf_real)rnd_in(&rs, -1, 1);
    /* a random orthonormal basis (Gram-Schmidt), stored row d = v_d */
    double Q[3][3];
    for (int d = 0; d < 3; d++) {
        for (int j = 0; j < 3; j++) Q[d][j] = rnd_comp(&rs);
        for (int e = 0; e < d; e++) {
            double dot = 0;
            for (int j = 0; j < 3; j++) dot += Q[d][j] * Q[e][j];
            for (int j = 0; j < 3; j++) Q[d][j] -= dot * Q[e][j];
        }
        double nrm = sqrt(Q[d][0] * Q[d][0] + Q[d][1] * Q[d][1] + Q[d][2] * Q[d][2]);
        for (int j = 0; j < 3; j++) Q[d][j] /= nrm;
    }
    pf_real rot[9], axes[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; i++) rot[i] = (pf_real)Q[i / 3][i % 3];

    pf_jet_layout LA = pf_jet_layout_none(), LB = pf_jet_layout_none();
    for (int d = 0; d < 3; d++) pf_jet_add_dir(&LA, 2), pf_jet_add_dir(&LB, 1);
    const pf_real lap[3] = {1, 1, 1}, ab[3] = {0.3, -2, 0};
    int cl = pf_jet_add_collapsed(&LB, lap), cab = pf_jet_add_collapsed(&LB, ab);
    pf_real A[7 * LEN], B[6 * LEN], X[7 * LEN];
    lap_eval(&LA, rot, pts, N, A);
    lap_eval(&LB, rot, pts, N, B);
    lap_eval(&LA, axes, pts, N, X);

    double e_val = 0, e_d1 = 0, e_lap = 0, e_ab = 0, e_rot = 0;
    for (int i = 0; i < LEN; i++) {
        e_val = fmax(e_val, rel_err(B[i], A[i], 1));
        for (int d = 0; d < 3; d++)
            e_d1 = fmax(e_d1, rel_err(B[pf_jet_stream(&LB, d, 1) * LEN + i],
                                      A[pf_jet_stream(&LA, d, 1) * LEN + i], 1));
        double a2[3], x2[3], sa = 0, sx = 0, mag = 0, magx = 0;
        for (int d = 0; d < 3; d++) {
            a2[d] = A[pf_jet_stream(&LA, d, 2) * LEN + i];
            x2[d] = X[pf_jet_stream(&LA, d, 2) * LEN + i];
            sa += a2[d], sx += x2[d], mag += fabs(a2[d]), magx += fabs(x2[d]);
        }
        double bl = B[pf_jet_collapsed(&LB, cl) * LEN + i], bab = B[pf_jet_collapsed(&LB, cab) * LEN + i];
        e_lap = fmax(e_lap, fabs(bl - sa) / fmax(1, mag));
        e_ab = fmax(e_ab, fabs(bab - (0.3 * a2[0] - 2 * a2[1])) / fmax(1, 0.3 * fabs(a2[0]) + 2 * fabs(a2[1])));
        e_rot = fmax(e_rot, fabs(bl - sx) / fmax(1, magx + mag));
    }
    double tol = BY_PRECISION(1e-13, 2e-6);
    cr_expect(e_val <= tol, "collapsed layout: the value stream is unchanged (%.2e)", e_val);
    cr_expect(e_d1 <= tol, "collapsed layout: first-order streams are unchanged (%.2e)", e_d1);
    cr_expect(e_lap <= tol, "collapsed (1,1,1) = sum of the three second derivatives (%.2e)", e_lap);
    cr_expect(e_ab <= tol, "collapsed (0.3,-2,0) = 0.3 u_11 - 2 u_22 (%.2e)", e_ab);
    cr_expect(e_rot <= tol, "collapsed Laplacian in a rotated basis = u_xx + u_yy + u_zz (%.2e)", e_rot);
}

/* ------------------------------------------- jet: streams vs finite differences */

/* For each unary op f: u = f(q(z)), z = x W^T + b (frozen 2x2), q = z + 0.3 z^2
 * (or z^2 + 1.5 where f needs a positive argument), so that every input
 * stream a_1..a_4 of f is nonzero. Along v = (0.6, -1.1) stream k must be
 * d^k/dt^k f(q(z(x + t v))) at t = 0, computed in the test in long double
 * with libm's long double functions and Richardson-extrapolated 7-point
 * stencils (h = 1.5e-2; the reference is good to ~5e-9). Tolerance relative to
 * max(|ref|, 1): 1e-7 double; float 1e-6 for the value, 2e-5 for streams
 * 1..4 (seen: 9e-8 and 1.7e-6; libmvec's float functions are within 4 ulp). */
typedef struct unary_line {
    const unary_case *uc;
    long double W[2][2], b[2], x[2], v[2];
    int j; /* output channel */
} unary_line;

static long double unary_on_line(long double t, const void *ctx)
{
    const unary_line *l = ctx;
    long double z = l->b[l->j];
    for (int i = 0; i < 2; i++) z += l->W[l->j][i] * (l->x[i] + t * l->v[i]);
    long double q = l->uc->domain == ON_POSITIVE   ? z * z + 1.5L
                    : l->uc->domain == ON_NEGATIVE ? -z * z - 0.5L
                                                   : z + 0.3L * z * z;
    if (l->uc->pre) q *= (pf_real)l->uc->pre;
    return unary_ref(l->uc->op, l->uc->p, q);
}

/* f^(k)(x) of elu, selu, relu and the gaussian written out (graph.h): the
 * kinked ones take the left branch at x = 0. */
static double activation_closed_form(pf_unary_op op, double x, int k)
{
    const double lam = 1.0507009873554805, la = lam * 1.6732632423543772;
    switch (op) {
    case PF_UNARY_ELU:
    case PF_UNARY_SELU: {
        double l = op == PF_UNARY_SELU ? lam : 1, L = op == PF_UNARY_SELU ? la : 1;
        if (x > 0) return k == 0 ? l * x : k == 1 ? l : 0;
        return k == 0 ? L * expm1(x) : L * exp(x);
    }
    case PF_UNARY_RELU: return x > 0 && k <= 1 ? (k == 0 ? x : 1) : 0;
    case PF_UNARY_GAUSSIAN: {
        double g = exp(-50 * x * x), x2 = x * x;
        const double poly[5] = {1, -100 * x, 1e4 * x2 - 100, x * (-1e6 * x2 + 3e4), 1e8 * x2 * x2 - 6e6 * x2 + 3e4};
        return poly[k] * g;
    }
    default: return NAN;
    }
}

/* An input x with a unit direction of order 4 makes stream k of f(x)
 * exactly f^(k)(x): elu, selu, relu and the gaussian at points on both sides
 * of 0 and at 0 itself (where relu' = 0, elu' = elu'' = 1, selu' = lambda
 * alpha: the left branch, as PyTorch), against the closed forms above.
 * Tolerance relative to max(|f^(k)|, 1): 1e-13 double, 2e-6 float. */
Test(jet, kinked_and_gaussian_activations_match_closed_forms)
{
    enum { N = 8 };
    const pf_real xs[N] = {-2, -0.3f, -1e-3f, 0, 1e-3f, 0.05f, 0.12f, 1.7f};
    const pf_unary_op ops[4] = {PF_UNARY_ELU, PF_UNARY_SELU, PF_UNARY_RELU, PF_UNARY_GAUSSIAN};
    for (int o = 0; o < 4; o++) {
        pf_graph *g = pf_graph_alloc(pf_backend_cpu());
        pf_jet_layout L = pf_jet_layout_none();
        pf_jet_add_dir(&L, 4);
        const pf_real e = 1;
        pf_node *x = pf_input(g, "x", N, 1, &L, &e);
        pf_node *y = pf_unary(g, ops[o], x, 0);
        cr_assert_eq(pf_graph_compile(g, 1), PF_OK, "%s", pf_errmsg());
        pf_graph_set_input(g, x, xs);
        pf_graph_forward(g);
        pf_real got[5 * N];
        pf_graph_read(g, y, got);
        for (int i = 0; i < N; i++)
            for (int k = 0; k <= 4; k++) {
                double want = activation_closed_form(ops[o], (double)xs[i], k);
                double err = rel_err(got[k * N + i], want, 1), tol = BY_PRECISION(1e-13, 2e-6);
                cr_expect(err <= tol, "%s: d^%d/dx^%d at x = %g is %.17g, want %.17g (rel. error %.2e)",
                          pf_unary_name(ops[o]), k, k, (double)xs[i], (double)got[k * N + i], want, err);
            }
        pf_graph_free(g);
    }
    /* a NaN argument stays NaN (relu must not hide a broken network) */
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_node *x = pf_input(g, "x", 1, 1, NULL, NULL);
    pf_node *y[4];
    for (int o = 0; o < 4; o++) y[o] = pf_unary(g, ops[o], x, 0);
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK);
    const pf_real nan_in = NAN;
    pf_graph_set_input(g, x, &nan_in);
    pf_graph_forward(g);
    for (int o = 0; o < 4; o++) {
        pf_real v;
        pf_graph_read(g, y[o], &v);
        cr_expect(isnan(v), "%s(NaN) = %g", pf_unary_name(ops[o]), (double)v);
    }
    pf_graph_free(g);
}

Test(jet, unary_streams_match_finite_differences)
{
    enum { N = 4, C = 2, LEN = N * C };
    const pf_real v[2] = {0.6, -1.1};
    const pf_real pts[N * C] = {0.3, -0.5, -0.8, 0.1, 0.65, 0.9, -0.2, -0.95};
    for (int u = 0; u < NUNARY; u++) {
        const unary_case *uc = &unary_cases[u];
        pf_graph *g = pf_graph_alloc(pf_backend_cpu());
        pf_jet_layout L = pf_jet_layout_none();
        pf_jet_add_dir(&L, 4);
        pf_node *X = pf_input(g, "x", N, C, &L, v);
        int W = pf_param(g, "W", 2, 2, PF_PARAM_FROZEN, pf_init_normal(0, 0.7));
        int b = pf_param(g, "b", 1, 2, PF_PARAM_FROZEN, pf_init_normal(0, 0.3));
        pf_node *z = pf_linear(g, X, W, b), *zz = pf_mul(g, z, z);
        pf_node *q = uc->domain == ON_POSITIVE   ? pf_add_const(g, zz, 1.5)
                     : uc->domain == ON_NEGATIVE ? pf_add_const(g, pf_scale(g, zz, -1), -0.5)
                                                 : pf_add(g, z, pf_scale(g, zz, 0.3));
        if (uc->pre) q = pf_scale(g, q, (pf_real)uc->pre);
        pf_node *y = pf_unary(g, uc->op, q, uc->p);
        cr_assert_eq(pf_graph_compile(g, 5), PF_OK, "%s", pf_errmsg());
        pf_graph_set_input(g, X, pts);
        pf_graph_forward(g);
        pf_real got[5 * LEN];
        pf_graph_read(g, y, got);

        unary_line l = {.uc = uc};
        const pf_real *Wv = pf_graph_param_data(g, W), *bv = pf_graph_param_data(g, b);
        for (int i = 0; i < 4; i++) l.W[i / 2][i % 2] = Wv[i];
        l.b[0] = bv[0], l.b[1] = bv[1], l.v[0] = v[0], l.v[1] = v[1];
        double worst[5] = {0};
        for (int p = 0; p < N; p++)
            for (int j = 0; j < C; j++) {
                l.x[0] = pts[p * C], l.x[1] = pts[p * C + 1], l.j = j;
                for (int k = 0; k <= 4; k++) {
                    long double ref = k ? fd_deriv(unary_on_line, &l, k, 1.5e-2L) : unary_on_line(0, &l);
                    worst[k] = fmax(worst[k], rel_err(got[k * LEN + p * C + j], (double)ref, 1));
                }
            }
        for (int k = 0; k <= 4; k++) {
            double tol = BY_PRECISION(1e-7, k ? 2e-5 : 1e-6);
            cr_expect(worst[k] <= tol, "%s: stream %d along (0.6, -1.1) matches finite differences "
                      "(rel. error %.2e > %.0e)", uc->name, k, worst[k], tol);
        }
        pf_graph_free(g);
    }
}

/* WaveAct y = w1 sin(q) + w2 cos(q) on q = z + 0.3 z^2, z = x W^T + b, with
 * w1, w2 drawn (not 1): stream k along v = (0.6, -1.1), k = 0..4, against
 * long double finite differences of the same function (as
 * unary_streams_match_finite_differences, same tolerances). */
typedef struct wave_line {
    long double W[2][2], b[2], x[2], v[2], w1, w2;
    int j;
} wave_line;

static long double wave_on_line(long double t, const void *ctx)
{
    const wave_line *l = ctx;
    long double z = l->b[l->j];
    for (int i = 0; i < 2; i++) z += l->W[l->j][i] * (l->x[i] + t * l->v[i]);
    long double q = z + 0.3L * z * z;
    return l->w1 * sinl(q) + l->w2 * cosl(q);
}

Test(jet, waveact_streams_match_finite_differences)
{
    enum { N = 4, C = 2, LEN = N * C };
    const pf_real v[2] = {0.6, -1.1};
    const pf_real pts[N * C] = {0.3, -0.5, -0.8, 0.1, 0.65, 0.9, -0.2, -0.95};
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 4);
    pf_node *X = pf_input(g, "x", N, C, &L, v);
    int W = pf_param(g, "W", 2, 2, PF_PARAM_FROZEN, pf_init_normal(0, 0.7));
    int b = pf_param(g, "b", 1, 2, PF_PARAM_FROZEN, pf_init_normal(0, 0.3));
    int w1 = pf_param(g, "w1", 1, 1, PF_PARAM_TRAINABLE, pf_init_normal(1.2, 0.1));
    int w2 = pf_param(g, "w2", 1, 1, PF_PARAM_TRAINABLE, pf_init_normal(-0.6, 0.1));
    pf_node *z = pf_linear(g, X, W, b);
    pf_node *y = pf_waveact(g, pf_add(g, z, pf_scale(g, pf_mul(g, z, z), 0.3)), w1, w2);
    cr_assert_eq(pf_graph_compile(g, 5), PF_OK, "%s", pf_errmsg());
    pf_graph_set_input(g, X, pts);
    pf_graph_forward(g);
    pf_real got[5 * LEN];
    pf_graph_read(g, y, got);

    wave_line l = {.w1 = pf_graph_param_data(g, w1)[0], .w2 = pf_graph_param_data(g, w2)[0]};
    cr_assert(fabsl(l.w1 - 1) > 0.05 && fabsl(l.w2 - 1) > 0.05, "test bug: w1, w2 should not be 1");
    const pf_real *Wv = pf_graph_param_data(g, W), *bv = pf_graph_param_data(g, b);
    for (int i = 0; i < 4; i++) l.W[i / 2][i % 2] = Wv[i];
    l.b[0] = bv[0], l.b[1] = bv[1], l.v[0] = v[0], l.v[1] = v[1];
    double worst[5] = {0};
    for (int p = 0; p < N; p++)
        for (int j = 0; j < C; j++) {
            l.x[0] = pts[p * C], l.x[1] = pts[p * C + 1], l.j = j;
            for (int k = 0; k <= 4; k++) {
                long double ref = k ? fd_deriv(wave_on_line, &l, k, 1.5e-2L) : wave_on_line(0, &l);
                worst[k] = fmax(worst[k], rel_err(got[k * LEN + p * C + j], (double)ref, 1));
            }
        }
    for (int k = 0; k <= 4; k++) {
        double tol = BY_PRECISION(1e-7, k ? 2e-5 : 1e-6);
        cr_expect(worst[k] <= tol, "waveact: stream %d along (0.6, -1.1) matches finite differences "
                  "(rel. error %.2e > %.0e)", k, worst[k], tol);
    }
    pf_graph_free(g);
}

/* pf_tokens copies every stream of its point (d token / d point = identity)
 * and shifts only the value of the last channel by i dt: checked bit for bit
 * on the layout with three directions (orders 4, 2, 1, non-axis) and a
 * collapsed stream, k = 5, dt = 1e-4 (PINNsFormer's); token 0 is the point. */
Test(jet, tokens_copy_their_points_jets_exactly)
{
    prelude P;
    prelude_init(&P, seed_of("tokens", 0), 5, 6, 3);
    enum { K = 5 };
    const pf_real dt = (pf_real)1e-4;
    pf_node *z = pf_tokens(P.g, P.y, K, dt);
    cr_assert_eq(pf_node_n(z), 6 * K);
    prelude_compile(&P);
    pf_graph_forward(P.g);
    int S = pf_node_nstreams(P.y), n = P.n, c = P.c;
    pf_real *y = malloc((size_t)S * n * c * sizeof *y), *t = malloc((size_t)S * n * K * c * sizeof *t);
    cr_assert(y && t);
    pf_graph_read(P.g, P.y, y);
    pf_graph_read(P.g, z, t);
    bool same = true, first = true, moved = true;
    for (int s = 0; s < S; s++)
        for (int p = 0; p < n; p++)
            for (int i = 0; i < K; i++)
                for (int j = 0; j < c; j++) {
                    pf_real want = y[((size_t)s * n + p) * c + j];
                    if (s == 0 && j == c - 1) want += (pf_real)i * dt;
                    pf_real got = t[((size_t)s * n * K + (size_t)p * K + i) * c + j];
                    same &= got == want;
                    if (i == 0) first &= got == y[((size_t)s * n + p) * c + j];
                    if (s == 0 && j == c - 1 && i > 0) moved &= got != y[(size_t)p * c + j];
                }
    cr_expect(same, "token p k + i: the point's streams, the last channel's value + i dt");
    cr_expect(first, "token 0 of every point is the point itself");
    cr_expect(moved, "tokens 1..k-1 are shifted");
    free(y);
    free(t);
    prelude_free(&P);
}

/* A network applied to pf_tokens(x) gives, in token i, the jets of the same
 * network on x with its last coordinate shifted by i dt, computed by a
 * second graph from shifted inputs (same parameters: same seed and
 * registration order). Directions of orders 4 and 1, not along the axes,
 * and a collapsed stream; tolerance 1e-13 (double), 1e-6 (float), relative
 * to max(|ref|, 1): the two differ only in rounding of the shift. */
static pf_graph *token_net(bool tokens, pf_node **x, pf_node **u, int n, int k)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, 0);
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 4);
    pf_jet_add_dir(&L, 1);
    pf_real w[2] = {1, (pf_real)0.5}, dirs[4] = {(pf_real)0.6, (pf_real)-0.8, (pf_real)0.28, (pf_real)0.96};
    pf_jet_add_collapsed(&L, w);
    *x = pf_input(g, "x", tokens ? n : n * k, 2, &L, dirs);
    int W1 = pf_param(g, "W1", 6, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 6, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.3));
    int w1 = pf_param(g, "w1", 1, 1, PF_PARAM_TRAINABLE, pf_init_normal(1, 0.3));
    int w2 = pf_param(g, "w2", 1, 1, PF_PARAM_TRAINABLE, pf_init_normal(1, 0.3));
    int W2 = pf_param(g, "W2", 1, 6, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *in = tokens ? pf_tokens(g, *x, k, (pf_real)0.25) : *x;
    *u = pf_linear(g, pf_waveact(g, pf_linear(g, in, W1, b1), w1, w2), W2, -1);
    cr_assert_eq(pf_graph_compile(g, 3), PF_OK, "%s", pf_errmsg());
    return g;
}

/* Predictions from token 0 (PINNsFormer's evaluation, and its initial-
 * condition loss): token_select(net(tokens(x)), k, 0) is net(x) in every
 * stream, x and the tokens in one graph sharing the parameters; to
 * rounding, 1e-14 (double) / 1e-6 (float). */
Test(jet, token_0_of_a_network_on_tokens_is_the_network_on_the_points)
{
    enum { N = 7, K = 5 };
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 4);
    pf_jet_add_dir(&L, 1);
    pf_real w[2] = {1, 1}, dirs[4] = {(pf_real)0.6, (pf_real)-0.8, (pf_real)0.28, (pf_real)0.96};
    pf_jet_add_collapsed(&L, w);
    pf_node *x = pf_input(g, "x", N, 2, &L, dirs);
    int W1 = pf_param(g, "W1", 6, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, 6, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.3));
    int W2 = pf_param(g, "W2", 1, 6, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *in[2] = {x, pf_tokens(g, x, K, (pf_real)1e-4)}, *u[2];
    for (int k = 0; k < 2; k++)
        u[k] = pf_linear(g, pf_unary(g, PF_UNARY_TANH, pf_linear(g, in[k], W1, b1), 0), W2, -1);
    pf_node *u0 = pf_token_select(g, u[1], K, 0), *u4 = pf_token_select(g, u[1], K, 4);
    cr_assert_eq(pf_graph_compile(g, 2), PF_OK, "%s", pf_errmsg());
    pf_real v[2 * N];
    uint64_t rs = 3;
    for (int i = 0; i < 2 * N; i++) v[i] = (pf_real)rnd_in(&rs, -1, 1);
    pf_graph_set_input(g, x, v);
    pf_graph_forward(g);
    int S = pf_node_nstreams(u0);
    pf_real a[8 * N], b[8 * N], c4[8 * N];
    cr_assert_leq(S, 8);
    pf_graph_read(g, u0, a);
    pf_graph_read(g, u[0], b);
    pf_graph_read(g, u4, c4);
    double worst = 0, moved = 0;
    for (int e = 0; e < S * N; e++) worst = fmax(worst, rel_err(a[e], b[e], 1));
    for (int p = 0; p < N; p++) moved = fmax(moved, fabs((double)c4[p] - b[p]));
    double tol = BY_PRECISION(1e-14, 1e-6);
    cr_expect(worst <= tol, "token 0 = the network on the points in every stream (rel. error %.2e)", worst);
    cr_expect(moved > 0, "token 4 is the network at the shifted point, not the point");
    pf_graph_free(g);
}

Test(jet, a_network_on_tokens_equals_it_on_shifted_points)
{
    enum { N = 7, K = 5 };
    pf_node *xa, *ua, *xb, *ub;
    pf_graph *a = token_net(true, &xa, &ua, N, K), *b = token_net(false, &xb, &ub, N, K);
    pf_real pts[N * 2], shifted[N * K * 2];
    uint64_t rs = 9;
    for (int i = 0; i < N * 2; i++) pts[i] = (pf_real)rnd_in(&rs, -1, 1);
    for (int p = 0; p < N; p++)
        for (int i = 0; i < K; i++) {
            shifted[(p * K + i) * 2] = pts[p * 2];
            shifted[(p * K + i) * 2 + 1] = pts[p * 2 + 1] + (pf_real)i * (pf_real)0.25;
        }
    pf_graph_set_input(a, xa, pts);
    pf_graph_set_input(b, xb, shifted);
    pf_graph_forward(a);
    pf_graph_forward(b);
    int S = pf_node_nstreams(ua);
    cr_assert_eq(S, 7, "value, 4 + 1 directional streams, one collapsed");
    pf_real ga[7 * N * K], gb[7 * N * K];
    pf_graph_read(a, ua, ga);
    pf_graph_read(b, ub, gb);
    double worst = 0;
    for (int e = 0; e < S * N * K; e++) worst = fmax(worst, rel_err(ga[e], gb[e], 1));
    double tol = BY_PRECISION(1e-13, 1e-6);
    cr_expect(worst <= tol, "every stream of every token = the network's on the shifted point "
              "(rel. error %.2e > %.0e)", worst, tol);
    pf_graph_free(a);
    pf_graph_free(b);
}

/* Attention's Taylor streams against finite differences of its values
 * (orders 1..4, the tolerances of every_op_streams_match_finite_differences). */
Test(jet, attention_streams_match_finite_differences)
{
#ifndef PF_DOUBLE
    cr_skip_test("differentiating the engine's values numerically needs PRECISION=double");
#endif
    const double tol[5] = {0, 1e-9, 1e-9, 1e-6, 2e-5};
    for (int i = 0; i < NATTN; i++)
        for (int l = 1; l < 6; l++)
            check_op_streams_on(attention_cases[i].name, attention_cases[i].build, NULL, tol,
                                attention_layouts[l], 0, 0);
}

/* With one token per group the softmax is 1: attention(Q, K, V, 1, h) = V
 * in every stream (Q and K differ from V and have nonzero streams); to
 * rounding, 1e-14 (double) / 1e-6 (float) relative to max(|V|, 1). */
Test(jet, attention_over_one_token_is_v)
{
    for (int kind = 4; kind <= 7; kind += 3) {
        prelude P;
        prelude_init(&P, seed_of("attention k=1", kind), kind, 5, 4);
        pf_node *v = pf_tokens(P.g, P.y2, 1, 0);
        pf_node *k = pf_tokens(P.g, pf_mul(P.g, P.y, P.y2), 1, 0);
        pf_node *z = pf_attention(P.g, pf_tokens(P.g, P.y, 1, 0), k, v, 1, 2);
        prelude_compile(&P);
        pf_graph_forward(P.g);
        size_t len = (size_t)pf_node_nstreams(z) * 5 * 4;
        pf_real got[PF_JET_MAX_STREAMS * 20], want[PF_JET_MAX_STREAMS * 20];
        pf_graph_read(P.g, z, got);
        pf_graph_read(P.g, v, want);
        double worst = 0;
        for (size_t e = 0; e < len; e++) worst = fmax(worst, rel_err(got[e], want[e], 1));
        double tol = BY_PRECISION(1e-14, 1e-6);
        cr_expect(worst <= tol, "[%s] attention over one token = V (rel. error %.2e)", P.lname, worst);
        prelude_free(&P);
    }
}

/* check_op_streams on every op_cases[] variant and every unary op (inside
 * the prelude network, so all input streams of the op are nonzero). With
 * h = 2e-2 the worst errors seen are 3e-12, 4e-11, 6e-8, 1.3e-6 for orders
 * 1..4 (truncation, and roundoff ~ eps / (h/2)^k); tolerances 1e-9, 1e-9,
 * 1e-6, 2e-5 (collapsed: 1e-9). Double only. */
Test(jet, every_op_streams_match_finite_differences)
{
#ifndef PF_DOUBLE
    cr_skip_test("differentiating the engine's values numerically needs PRECISION=double");
#endif
    const double tol[5] = {0, 1e-9, 1e-9, 1e-6, 2e-5};
    for (int i = 0; i < NOPS; i++) check_op_streams(op_cases[i].name, op_cases[i].build, NULL, tol);
    /* waveact, as the unary ops: two full blocks of cpu_unary.c and a partial one */
    check_op_streams_on("waveact", op_waveact, NULL, tol, 5, 211, 5);
    for (int u = 0; u < NUNARY; u++) {
        check_op_streams(unary_cases[u].name, op_unary, &unary_cases[u], tol);
        /* 211 x 5 = 1055 elements: two full blocks of cpu_unary.c and a partial one */
        check_op_streams_on(unary_cases[u].name, op_unary, &unary_cases[u], tol, 5, 211, 5);
    }
}

/* ------------------------------------------------------------ grad: op checks */

/* One family of op_cases[] per test, every variant on every layout (twice:
 * sole consumer of its operands, and operands reused), tolerance GRAD_TOL. */
Test(grad, deriv_of_every_stream)
{
    REQUIRE_DOUBLE();
    check_family("deriv"); /* the stream losses extract every stream, collapsed included */
}

Test(grad, linear)
{
    REQUIRE_DOUBLE();
    check_family("linear");
}

Test(grad, linear_rwf)
{
    REQUIRE_DOUBLE();
    check_family("linear_rwf");
}

Test(grad, unary_ops)
{
    REQUIRE_DOUBLE();
    for (int u = 0; u < NUNARY; u++) {
        char name[48];
        snprintf(name, sizeof name, "unary %s", unary_cases[u].name);
        check_op(name, op_unary, &unary_cases[u], GRAD_TOL);
        /* 211 x 5 = 1055 elements: two full blocks of cpu_unary.c and a partial one */
        check_op_on(name, op_unary, &unary_cases[u], GRAD_TOL, 5, 211, 5);
    }
}

/* WaveAct: the input gradient and dL/dw1, dL/dw2 (also a frozen w2, and on
 * data where only the parameters get a gradient), plus 211 x 5 elements:
 * the per-block parts of dL/dw over two full blocks and a partial one. */
Test(grad, waveact)
{
    REQUIRE_DOUBLE();
    check_family("waveact");
    check_op_on("waveact, 211 x 5", op_waveact, NULL, GRAD_TOL, 5, 211, 5);
}

Test(grad, tokens)
{
    REQUIRE_DOUBLE();
    check_family("tokens");
}

/* Attention: every case on layouts 0..4 and 7 (directions never along
 * the axes), sole consumer and operands reused, tolerance GRAD_TOL. */
Test(grad, attention)
{
    REQUIRE_DOUBLE();
    for (int i = 0; i < NATTN; i++)
        for (int l = 0; l < 6; l++)
            check_op_on(attention_cases[i].name, attention_cases[i].build, NULL, GRAD_TOL,
                        attention_layouts[l], 0, 0);
}

Test(grad, mul)
{
    REQUIRE_DOUBLE();
    check_family("mul");
}

Test(grad, add_sub)
{
    REQUIRE_DOUBLE();
    check_family("add_sub");
}

Test(grad, scale_add_const_affine_scale_param)
{
    REQUIRE_DOUBLE();
    check_family("affine");
}

Test(grad, concat_slice)
{
    REQUIRE_DOUBLE();
    check_family("concat_slice");
}

Test(grad, mean_square_weights_and_param_field)
{
    REQUIRE_DOUBLE();
    check_family("mean_square");
}

/* ------------------------------------------------------ grad: graph structure */

/* The loss weights: backward(NULL) is backward(all ones) exactly, and
 * backward(w) is sum_t w_t backward(e_t) (tolerance 1e-12 max(1, |g|)). */
Test(grad, loss_weights_combine_linearly)
{
    REQUIRE_DOUBLE();
    prelude P;
    prelude_init(&P, seed_of("loss weights", 0), 5, 0, 0);
    int nt = add_stream_losses(&P, op_linear(&P));
    prelude_compile(&P);
    size_t np = pf_graph_nparams(P.g);
    pf_real *gw = malloc(np * sizeof *gw), *gsum = calloc(np, sizeof *gsum);
    pf_real w[PF_JET_MAX_STREAMS], ones[PF_JET_MAX_STREAMS], e[PF_JET_MAX_STREAMS];
    random_weights(&P.rs, w, nt);
    for (int t = 0; t < nt; t++) ones[t] = 1;
    pf_graph_forward(P.g);

    pf_graph_backward(P.g, ones);
    memcpy(gw, pf_graph_grads(P.g), np * sizeof *gw);
    pf_graph_backward(P.g, NULL);
    cr_expect(memcmp(gw, pf_graph_grads(P.g), np * sizeof *gw) == 0,
              "backward(NULL) equals backward(all ones)");

    for (int t = 0; t < nt; t++) {
        for (int s = 0; s < nt; s++) e[s] = s == t;
        pf_graph_backward(P.g, e);
        for (size_t i = 0; i < np; i++) gsum[i] += w[t] * pf_graph_grads(P.g)[i];
    }
    pf_graph_backward(P.g, w);
    double worst = 0;
    for (size_t i = 0; i < np; i++)
        worst = fmax(worst, fabs(pf_graph_grads(P.g)[i] - gsum[i]) / fmax(1, fabs(gsum[i])));
    cr_expect(worst <= 1e-12, "backward(w) = sum_t w_t backward(e_t) (%.2e)", worst);
    assert_grads_match_fd(P.g, w, GRAD_TOL, "linear, weighted loss terms");
    free(gw);
    free(gsum);
    prelude_free(&P);
}

/* h feeds six consumers (two linears, mul(h, sin h), concat(h, h), a loss on
 * its value and one on a derivative stream), and a frozen layer sits in front:
 * gradient accumulation into h in reverse order must match central
 * differences; the frozen parameter has no gradient and no trainable slot. */
Test(grad, node_with_many_consumers)
{
    REQUIRE_DOUBLE();
    for (int kind = 1; kind < NLAYOUTS; kind++) {
        prelude P;
        prelude_init(&P, seed_of("many consumers", kind), kind, 0, 0);
        pf_graph *g = P.g;
        int F = pf_param(g, "F", 4, 5, PF_PARAM_FROZEN, pf_init_normal(0, 1));
        pf_node *h = pf_unary(g, PF_UNARY_SIN, pf_linear(g, P.h, F, -1), 0); /* 4 channels */
        int Wa = tparam(&P, "Wa", P.c, 4, pf_init_glorot_normal());
        int Wb = tparam(&P, "Wb", P.c, 8, pf_init_glorot_normal());
        pf_node *hh[2] = {h, h};
        pf_node *a = pf_linear(g, pf_mul(g, h, pf_unary(g, PF_UNARY_TANH, h, 0)), Wa, -1);
        pf_node *b = pf_linear(g, pf_concat(g, 2, hh), Wb, -1);
        pf_node *z = pf_add(g, pf_add(g, a, b), pf_linear(g, h, Wa, -1)); /* Wa shared too */
        int nt = add_stream_losses(&P, z);
        pf_loss(g, "h value", pf_mean_square(g, pf_deriv(g, h, 0, 0), NULL));
        pf_loss(g, "h stream", pf_mean_square(g, pf_mul(g, pf_deriv(g, h, 0, 1), data(&P, 4, -1, 1)), NULL));
        nt += 2;
        prelude_compile(&P);
        cr_expect_null(pf_graph_param_grad(g, F), "a frozen parameter has no gradient");
        /* W1 b1 | W2 b2 W3 b3 | W4 b4 | Wa Wb */
        size_t want = (size_t)(5 * P.cin + 5) + (size_t)(12 * P.c) + 6 + (size_t)(12 * P.c);
        cr_expect_eq(pf_graph_nparams(g), want, "frozen parameters take no trainable slot");
        pf_real w[PF_JET_MAX_STREAMS + 2];
        random_weights(&P.rs, w, nt);
        char what[160];
        snprintf(what, sizeof what, "one node, six consumers [%s]", P.lname);
        assert_grads_match_fd(g, w, GRAD_TOL, what);
        prelude_free(&P);
    }
}

/* A PINN: one network (shared parameters) on interior points with a jet
 * (u_x, u_xx, u_t) and on boundary points value-only; Burgers' residual
 * u_t + u u_x - 0.01 u_xx - f and boundary misfit u - g, weights (1, 10),
 * with a loss term that has no gradient between them (weight 3). */
static pf_node *shared_net(pf_graph *g, pf_node *x, const int *p)
{
    pf_node *h = pf_unary(g, PF_UNARY_TANH, pf_linear(g, x, p[0], p[1]), 0);
    h = pf_unary(g, PF_UNARY_SILU, pf_linear_rwf(g, h, p[2], p[3], p[4]), 0);
    return pf_linear(g, h, p[5], p[6]);
}

Test(grad, shared_parameters_on_interior_and_boundary_points)
{
    REQUIRE_DOUBLE();
    prelude P;
    memset(&P, 0, sizeof P);
    P.rs = seed_of("shared", 0);
    P.g = pf_graph_alloc(pf_backend_cpu());
    pf_graph *g = P.g;
    pf_jet_layout L = pf_jet_layout_none();
    int dx = pf_jet_add_dir(&L, 2), dt = pf_jet_add_dir(&L, 1);
    const pf_real dirs[4] = {1, 0, 0, 1};
    pf_node *xi = data_in(&P, 6, 2, &L, dirs, -1, 1);
    pf_node *xb = data_in(&P, 4, 2, NULL, NULL, -1, 1);
    int p[7];
    p[0] = tparam(&P, "W1", 6, 2, pf_init_glorot_normal());
    p[1] = tparam(&P, "b1", 1, 6, pf_init_normal(0, 0.3));
    p[3] = tparam(&P, "s2", 6, 1, pf_init_normal(0.2, 0.1));
    p[2] = tparam(&P, "V2", 6, 6, pf_init_rwf_v(p[3]));
    p[4] = tparam(&P, "b2", 1, 6, pf_init_normal(0, 0.3));
    p[5] = tparam(&P, "W3", 1, 6, pf_init_glorot_normal());
    p[6] = tparam(&P, "b3", 1, 1, pf_init_normal(0, 0.3));
    pf_node *ui = shared_net(g, xi, p), *ub = shared_net(g, xb, p);
    pf_node *u = pf_deriv(g, ui, 0, 0), *ux = pf_deriv(g, ui, dx, 1);
    pf_node *uxx = pf_deriv(g, ui, dx, 2), *ut = pf_deriv(g, ui, dt, 1);
    pf_node *r = pf_sub(g, pf_add(g, ut, pf_mul(g, u, ux)), pf_scale(g, uxx, 0.01));
    r = pf_sub(g, r, data_in(&P, 6, 1, NULL, NULL, -1, 1));
    pf_loss(g, "pde", pf_mean_square(g, r, NULL));
    pf_loss(g, "data only", pf_mean_square(g, data_in(&P, 4, 1, NULL, NULL, -1, 1), NULL));
    pf_loss(g, "bc", pf_mean_square(g, pf_sub(g, ub, data_in(&P, 4, 1, NULL, NULL, -1, 1)), NULL));
    prelude_compile(&P);
    const pf_real w[3] = {1, 3, 10};
    assert_grads_match_fd(g, w, GRAD_TOL, "shared network, interior jet + boundary values");
    prelude_free(&P);
}

/* Above PF_CPU_PAR_MIN elements the CPU kernels run OpenMP loops, and the
 * reductions use a fixed partition: losses and gradients with 1 and with 4
 * threads must agree (to 1e-12 relative in double, 1e-5 in float: the BLAS
 * may split its GEMMs differently; here they are bit-identical). 7000 points
 * x 5 channels x 9 streams. */
Test(grad, results_do_not_depend_on_the_thread_count)
{
    prelude P;
    prelude_init(&P, seed_of("threads", 0), 5, 7000, 5);
    pf_node *z = op_scale_param(&P);
    z = pf_mul(P.g, pf_unary(P.g, PF_UNARY_GELU, z, 0), P.y2);
    z = op_waveact_on(&P, z); /* its parameter gradients are sums over blocks */
    int nt = add_stream_losses(&P, z);
    prelude_compile(&P);
    size_t np = pf_graph_nparams(P.g);
    pf_real *g1 = malloc(np * sizeof *g1);
    double l1[PF_JET_MAX_STREAMS];
    cr_assert_not_null(g1);
    omp_set_num_threads(1);
    pf_graph_forward(P.g);
    pf_graph_backward(P.g, NULL);
    memcpy(g1, pf_graph_grads(P.g), np * sizeof *g1);
    for (int t = 0; t < nt; t++) l1[t] = pf_graph_loss_value(P.g, t);
    omp_set_num_threads(4);
    pf_graph_forward(P.g);
    pf_graph_backward(P.g, NULL);
    double el = 0, eg = 0;
    for (int t = 0; t < nt; t++) el = fmax(el, rel_err(pf_graph_loss_value(P.g, t), l1[t], 1e-30));
    for (size_t i = 0; i < np; i++) eg = fmax(eg, rel_err(pf_graph_grads(P.g)[i], g1[i], 1));
    double tol = BY_PRECISION(1e-12, 1e-5);
    cr_expect(el <= tol, "loss terms with 4 threads = with 1 thread (rel. error %.2e)", el);
    cr_expect(eg <= tol, "gradients with 4 threads = with 1 thread (rel. error %.2e)", eg);
    free(g1);
    prelude_free(&P);
}

/* Dense layers call BLAS over a fixed split of their rows (and of a weight
 * gradient's rows), one call per block on one thread, so the bits do not
 * follow the thread count: an MLP head of 9-stream jets over 7,000 points
 * (63,000 rows) through a GEMM layer (12 -> 24) and a GEMV layer (24 -> 1),
 * with 1, 2 and 3 threads, bit for bit. */
Test(grad, dense_layers_do_not_depend_on_the_thread_count)
{
    prelude P;
    prelude_init(&P, seed_of("dense threads", 0), 5, 7000, 12);
    int W = tparam(&P, "Wg", 24, 12, pf_init_glorot_normal()), b = tparam(&P, "bg", 1, 24, pf_init_normal(0, 0.3));
    pf_node *z = pf_unary(P.g, PF_UNARY_TANH, pf_linear(P.g, P.y, W, b), 0);
    int W1 = tparam(&P, "Wv", 1, 24, pf_init_glorot_normal()), b1 = tparam(&P, "bv", 1, 1, pf_init_normal(0, 0.3));
    int nt = add_stream_losses(&P, pf_linear(P.g, z, W1, b1));
    prelude_compile(&P);
    size_t np = pf_graph_nparams(P.g);
    pf_real *g1 = malloc(np * sizeof *g1);
    double l1[PF_JET_MAX_STREAMS];
    cr_assert_not_null(g1);
    for (int threads = 1; threads <= 3; threads++) {
        pf_threads_set(threads);
        pf_graph_forward(P.g);
        pf_graph_backward(P.g, NULL);
        for (int t = 0; t < nt && threads == 1; t++) l1[t] = pf_graph_loss_value(P.g, t);
        if (threads == 1) memcpy(g1, pf_graph_grads(P.g), np * sizeof *g1);
        for (int t = 0; t < nt; t++)
            cr_expect_eq(pf_graph_loss_value(P.g, t), l1[t], "loss term %d with %d threads = with 1 thread", t,
                         threads);
        cr_expect_arr_eq(pf_graph_grads(P.g), g1, np * sizeof *g1, "gradients with %d threads = with 1 thread",
                         threads);
    }
    pf_threads_set(1);
    free(g1);
    prelude_free(&P);
}

/* The CPU attention shares runs of groups among threads, each group done
 * by one thread in the serial order, with no sum across threads: losses
 * and gradients with 1 and 3 threads are bit-identical. 200 points (more
 * groups than runs), directions of order 4, 2, 1. */
Test(grad, attention_does_not_depend_on_the_thread_count)
{
    for (int i = 0; i < NATTN; i++) {
        prelude P;
        prelude_init(&P, seed_of("attention threads", i), 7, 200, 4);
        int nt = add_stream_losses(&P, attention_cases[i].build(&P));
        prelude_compile(&P);
        size_t np = pf_graph_nparams(P.g);
        pf_real *g1 = malloc(np * sizeof *g1);
        double l1[PF_JET_MAX_STREAMS];
        cr_assert_not_null(g1);
        omp_set_num_threads(1);
        pf_graph_forward(P.g);
        pf_graph_backward(P.g, NULL);
        memcpy(g1, pf_graph_grads(P.g), np * sizeof *g1);
        for (int t = 0; t < nt; t++) l1[t] = pf_graph_loss_value(P.g, t);
        omp_set_num_threads(3);
        pf_graph_forward(P.g);
        pf_graph_backward(P.g, NULL);
        omp_set_num_threads(1);
        for (int t = 0; t < nt; t++)
            cr_expect_eq(pf_graph_loss_value(P.g, t), l1[t], "%s: loss term %d with 3 threads = with 1 thread",
                         attention_cases[i].name, t);
        cr_expect_arr_eq(pf_graph_grads(P.g), g1, np * sizeof *g1, "%s: gradients with 3 threads = with 1 thread",
                         attention_cases[i].name);
        free(g1);
        prelude_free(&P);
    }
}

/* The CPU attention runs 4 points at once, one per vector lane, the last
 * batch's unused lanes holding zeros: every stream of a point's output is
 * the same bits whether 37 points run (9 full batches and a partial one,
 * shared among threads) or the point alone (one lane used). Two heads of
 * width 2 over 5 tokens of 4-channel points, Q, K and V with different
 * token shifts, directions of order 2 and 1 (no other op in the graph
 * computes anything, so nothing else can depend on a point's place). */
static pf_graph *lane_net(int n, pf_node **x, pf_node **y)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 1);
    pf_real dirs[8] = {1, 0, (pf_real)0.5, (pf_real)-0.25, 0, 1, (pf_real)0.3, (pf_real)0.7};
    *x = pf_input(g, "x", n, 4, &L, dirs);
    pf_node *q = pf_tokens(g, *x, 5, (pf_real)0.1), *k = pf_tokens(g, *x, 5, (pf_real)-0.2);
    *y = pf_attention(g, q, k, pf_tokens(g, *x, 5, (pf_real)0.3), 5, 2);
    cr_assert_eq(pf_graph_compile(g, 17), PF_OK, "%s", pf_errmsg());
    return g;
}

Test(jet, attention_of_a_point_does_not_depend_on_the_points_beside_it)
{
    enum { N = 37, ROWS = 5 * 4 }; /* a point's rows: 5 tokens x 4 channels */
    pf_node *xa, *ya, *xb, *yb;
    pf_graph *a = lane_net(N, &xa, &ya), *b = lane_net(1, &xb, &yb);
    pf_real pts[N * 4];
    uint64_t rs = 11;
    for (int i = 0; i < N * 4; i++) pts[i] = (pf_real)rnd_in(&rs, -2, 2);
    omp_set_num_threads(2);
    pf_graph_set_input(a, xa, pts);
    pf_graph_forward(a);
    int S = pf_node_nstreams(ya);
    cr_assert_eq(S, 4, "value, 2 + 1 directional streams");
    pf_real all[4 * N * ROWS], one[4 * ROWS];
    pf_graph_read(a, ya, all);
    int differ = 0;
    for (int p = 0; p < N; p += 6) { /* lanes 0..3 of several batches, and the last, partial one */
        pf_graph_set_input(b, xb, pts + 4 * p);
        pf_graph_forward(b);
        pf_graph_read(b, yb, one);
        for (int st = 0; st < S; st++)
            differ += memcmp(one + st * ROWS, all + ((size_t)st * N + p) * ROWS, ROWS * sizeof(pf_real)) != 0;
    }
    omp_set_num_threads(1);
    cr_expect_eq(differ, 0, "%d (point, stream) pairs differ between the 37-point run and the point alone", differ);
    pf_graph_free(a);
    pf_graph_free(b);
}

/* ------------------------------------------------------------------ chunks
 * Running a graph in chunks of points changes only the order of sums. A
 * PINN-shaped graph: an interior family (jet with a collapsed stream, data
 * input, 103 points: the last chunk is short), a boundary family of 3 points
 * (fewer than the chunks: some are empty) with trainable point weights, and
 * an evaluation branch that feeds no loss. */
typedef struct chunk_case {
    pf_graph *g;
    pf_node *eval;
} chunk_case;

static chunk_case chunk_case_build(size_t chunk_bytes)
{
    enum { N = 103, NB = 3, NE = 7, W = 6 };
    chunk_case cc;
    pf_graph *g = cc.g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, chunk_bytes);
    int W1 = pf_param(g, "W1", W, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, W, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.3));
    int W2 = pf_param(g, "W2", 1, W, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int lam = pf_param(g, "lambda", NB, 1, PF_PARAM_TRAINABLE, pf_init_uniform(0.5, 2));
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 1);
    pf_real wc[2] = {1, (pf_real)0.5}, dirs[4] = {(pf_real)0.8, (pf_real)0.6, (pf_real)-0.6, (pf_real)0.8};
    pf_jet_add_collapsed(&L, wc);
    pf_node *x = pf_input(g, "x", N, 2, &L, dirs);
    pf_node *f = pf_input(g, "f", N, 1, NULL, NULL);
    pf_node *xb = pf_input(g, "xb", NB, 2, NULL, NULL);
    pf_node *xe = pf_input(g, "xe", NE, 2, NULL, NULL);
    pf_node *in[3] = {x, xb, xe}, *u[3];
    for (int k = 0; k < 3; k++)
        u[k] = pf_linear(g, pf_unary(g, PF_UNARY_TANH, pf_linear(g, in[k], W1, b1), 0), W2, -1);
    pf_node *r = pf_add(g, pf_deriv_collapsed(g, u[0], 0), pf_mul(g, pf_deriv(g, u[0], 1, 1), f));
    r = pf_add(g, r, pf_deriv(g, u[0], 0, 2));
    pf_loss(g, "pde", pf_mean_square(g, r, NULL));
    pf_loss(g, "bc", pf_mean_square(g, u[1], pf_param_field(g, lam)));
    cc.eval = u[2];
    cr_assert_eq(pf_graph_compile(g, 11), PF_OK, "%s", pf_errmsg());
    uint64_t rs = 5;
    pf_real v[2 * N];
    for (int i = 0; i < 2 * N; i++) v[i] = (pf_real)rnd_in(&rs, -1, 1);
    pf_graph_set_input(g, x, v);
    pf_graph_set_input(g, f, v + 7);
    pf_graph_set_input(g, xb, v + 20);
    pf_graph_set_input(g, xe, v + 40);
    return cc;
}

Test(chunks, chunked_graph_matches_whole_graph)
{
    chunk_case whole = chunk_case_build(0), chunked = chunk_case_build(1500);
    cr_assert_eq(pf_graph_nchunks(whole.g), 1);
    cr_assert_gt(pf_graph_nchunks(chunked.g), 3, "the test needs several chunks, got %d",
                 pf_graph_nchunks(chunked.g));
    size_t n = pf_graph_nparams(whole.g);
    cr_assert_eq(n, pf_graph_nparams(chunked.g));
    pf_real w[2] = {(pf_real)0.7, (pf_real)1.9};
    pf_graph_forward_backward(whole.g, w);
    pf_graph_forward_backward(chunked.g, w);
    double tol = sizeof(pf_real) == 8 ? 1e-12 : 2e-5;
    for (int t = 0; t < 2; t++) {
        double a = pf_graph_loss_value(whole.g, t), b = pf_graph_loss_value(chunked.g, t);
        cr_expect(fabs(a - b) <= tol * fabs(a), "loss %d: whole %.17g, chunked %.17g", t, a, b);
    }
    const pf_real *ga = pf_graph_grads(whole.g), *gb = pf_graph_grads(chunked.g);
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)ga[i] - gb[i]) / fmax(1, fabs((double)ga[i]));
        if (e > worst) worst = e;
    }
    cr_expect_leq(worst, tol, "largest relative gradient difference %g", worst);
    /* the evaluation branch is whole in both and readable */
    pf_real ua[7], ub[7];
    pf_graph_read(whole.g, whole.eval, ua);
    pf_graph_read(chunked.g, chunked.eval, ub);
    for (int i = 0; i < 7; i++) cr_expect(fabs((double)ua[i] - ub[i]) <= tol, "eval point %d", i);
    /* forward then backward (which redoes the chunks) gives the same */
    pf_real keep[64];
    cr_assert_leq(n, 64);
    memcpy(keep, gb, n * sizeof *keep);
    pf_graph_forward(chunked.g);
    pf_graph_backward(chunked.g, w);
    cr_expect_arr_eq(keep, pf_graph_grads(chunked.g), n * sizeof *keep,
                     "backward after forward differs from forward_backward");
    pf_graph_free(whole.g);
    pf_graph_free(chunked.g);
}

/* K for 4096 points through x -> linear(h x 1) -> tanh -> linear(h x h) ->
 * mean square, with chunk_bytes = 16384 pf_reals. */
static int chunks_for_width(int h)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, 16384 * sizeof(pf_real));
    int W1 = pf_param(g, "W1", h, 1, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int W2 = pf_param(g, "W2", h, h, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *x = pf_input(g, "x", 4096, 1, NULL, NULL);
    pf_node *z = pf_linear(g, pf_unary(g, PF_UNARY_TANH, pf_linear(g, x, W1, -1), 0), W2, -1);
    pf_loss(g, "ms", pf_mean_square(g, z, NULL));
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK);
    int K = pf_graph_nchunks(g);
    pf_graph_free(g);
    return K;
}

Test(chunks, budget_is_at_least_eight_times_the_largest_weight_matrix)
{
    /* h = 32: 8 x 1024 reals is under the budget: K = 4096 * 32 / 16384 */
    cr_expect_eq(chunks_for_width(32), 8);
    /* h = 128: the budget grows to 8 x 16384 reals, K = 4096 * 128 / 131072
     * (32 chunks of 128 points with chunk_bytes alone) */
    cr_expect_eq(chunks_for_width(128), 4);
}

Test(chunks, reduction_feeding_an_op_turns_chunks_off)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, 64);
    int W1 = pf_param(g, "W1", 4, 1, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_node *x = pf_input(g, "x", 500, 1, NULL, NULL);
    pf_node *ms = pf_mean_square(g, pf_linear(g, x, W1, -1), NULL);
    pf_loss(g, "sqrt", pf_unary(g, PF_UNARY_SQRT, ms, 0)); /* not a sum over points */
    cr_assert_eq(pf_graph_compile(g, 1), PF_OK);
    cr_expect_eq(pf_graph_nchunks(g), 1);
    pf_graph_free(g);
}

/* A token graph through chunks: 103 points x 5 tokens (a short last chunk),
 * a residual over all tokens with token-aligned data, a loss on the points
 * before tokens, and a second token layout of 3 points (fewer than the
 * chunks: some idle). Chunks cut whole points, so the losses and gradients
 * equal the whole graph's up to the order of sums (1e-12 double, 2e-5
 * float). */
static pf_graph *token_chunk_graph(size_t chunk_bytes, bool attention)
{
    enum { N = 103, NB = 3, K = 5, W = 6 };
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_graph_set_chunk_bytes(g, chunk_bytes);
    int W1 = pf_param(g, "W1", W, 2, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    int b1 = pf_param(g, "b1", 1, W, PF_PARAM_TRAINABLE, pf_init_normal(0, 0.3));
    int w1 = pf_param(g, "w1", 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
    int w2 = pf_param(g, "w2", 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
    int W2 = pf_param(g, "W2", 1, W, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 2);
    pf_jet_add_dir(&L, 1);
    pf_real dirs[4] = {(pf_real)0.8, (pf_real)0.6, (pf_real)-0.6, (pf_real)0.8};
    pf_node *x = pf_input(g, "x", N, 2, &L, dirs);
    pf_node *f = pf_input(g, "f", N, 1, NULL, NULL);
    pf_node *xb = pf_input(g, "xb", NB, 2, NULL, NULL);
    pf_node *in[2] = {pf_tokens(g, x, K, (pf_real)1e-2), pf_tokens(g, xb, K, (pf_real)1e-2)}, *u[2];
    for (int k = 0; k < 2; k++) {
        pf_node *h = pf_linear(g, in[k], W1, b1);
        if (attention) h = pf_add(g, h, pf_attention(g, h, h, h, K, 2)); /* x + MHA(x) */
        u[k] = pf_linear(g, pf_waveact(g, h, w1, w2), W2, -1);
    }
    pf_node *r = pf_add(g, pf_deriv(g, u[0], 0, 2), pf_mul(g, pf_deriv(g, u[0], 1, 1), pf_tokens(g, f, K, 0)));
    pf_loss(g, "pde", pf_mean_square(g, r, NULL));
    pf_loss(g, "bc", pf_mean_square(g, u[1], NULL));
    pf_loss(g, "points", pf_mean_square(g, pf_linear(g, x, W1, -1), NULL)); /* the points themselves */
    cr_assert_eq(pf_graph_compile(g, 11), PF_OK, "%s", pf_errmsg());
    uint64_t rs = 5;
    pf_real v[2 * N];
    for (int i = 0; i < 2 * N; i++) v[i] = (pf_real)rnd_in(&rs, -1, 1);
    pf_graph_set_input(g, x, v);
    pf_graph_set_input(g, f, v + 7);
    pf_graph_set_input(g, xb, v + 20);
    return g;
}

static void check_token_chunks(bool attention)
{
    pf_graph *whole = token_chunk_graph(0, attention), *chunked = token_chunk_graph(4000, attention);
    cr_assert_eq(pf_graph_nchunks(whole), 1);
    cr_assert_gt(pf_graph_nchunks(chunked), 3, "the test needs several chunks, got %d",
                 pf_graph_nchunks(chunked));
    size_t n = pf_graph_nparams(whole);
    pf_real w[3] = {(pf_real)0.7, (pf_real)1.9, (pf_real)0.4};
    pf_graph_forward_backward(whole, w);
    pf_graph_forward_backward(chunked, w);
    double tol = sizeof(pf_real) == 8 ? 1e-12 : 2e-5;
    for (int t = 0; t < 3; t++) {
        double a = pf_graph_loss_value(whole, t), b = pf_graph_loss_value(chunked, t);
        cr_expect(fabs(a - b) <= tol * fabs(a), "loss %d: whole %.17g, chunked %.17g", t, a, b);
    }
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs((double)pf_graph_grads(whole)[i] - pf_graph_grads(chunked)[i]) /
                                fmax(1, fabs((double)pf_graph_grads(whole)[i])));
    cr_expect_leq(worst, tol, "largest relative gradient difference %g", worst);
    pf_graph_free(whole);
    pf_graph_free(chunked);
}

Test(chunks, token_graph_chunked_matches_whole_graph) { check_token_chunks(false); }

/* The same with self-attention over each point's 5 tokens (2 heads): it is
 * pointwise in the points, so chunks of whole points change only sums. */
Test(chunks, attention_graph_chunked_matches_whole_graph) { check_token_chunks(true); }

/* Rows of a plain input beside a token node of as many rows are not
 * token-aligned: compile aborts (graph.h, pf_tokens). */
Test(chunks, untokenised_rows_beside_tokens_abort, .signal = SIGABRT)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_node *x = pf_input(g, "x", 4, 2, NULL, NULL), *d = pf_input(g, "d", 12, 2, NULL, NULL);
    pf_loss(g, "l", pf_mean_square(g, pf_mul(g, pf_tokens(g, x, 3, 0), d), NULL));
    pf_graph_compile(g, 1);
}

/* pf_attention's contract: a layout with a collapsed stream, and groups
 * that are not whole points (2 rows per point, groups of 3), abort. */
Test(jet, attention_refuses_collapsed_streams, .signal = SIGABRT)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_jet_layout L = pf_jet_layout_none();
    pf_jet_add_dir(&L, 1);
    pf_real w[1] = {1}, dirs[2] = {1, 0};
    pf_jet_add_collapsed(&L, w);
    pf_node *t = pf_tokens(g, pf_input(g, "x", 4, 2, &L, dirs), 3, 0);
    pf_attention(g, t, t, t, 3, 1);
}

Test(jet, attention_refuses_groups_across_points, .signal = SIGABRT)
{
    pf_graph *g = pf_graph_alloc(pf_backend_cpu());
    pf_node *t = pf_tokens(g, pf_input(g, "x", 6, 2, NULL, NULL), 2, 0);
    pf_attention(g, t, t, t, 3, 1);
}
