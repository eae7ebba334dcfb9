/*
 * graph.h — a static computation graph over jets, with hand-written reverse mode.
 *
 * A PINN's loss is built ONCE per candidate as a graph of jet ops: inputs are
 * jets seeded with their directions, every op maps jets to jets (Taylor mode
 * for the input derivatives, see jet.h), derivative extraction turns a jet
 * into value-only fields, and mean-square reductions produce the loss terms.
 * pf_graph_compile() plans every buffer into one arena and initialises the
 * parameters; after that a training step is
 *
 *     pf_graph_forward(g);               // all nodes, loss terms
 *     pf_graph_backward(g, weights);     // grads of sum_t weights[t] * L_t
 *     optimizer(pf_graph_params(g), pf_graph_grads(g), pf_graph_nparams(g));
 *
 * or, the same in one call that goes through chunks of points when the graph
 * is large, pf_graph_forward_backward(g, weights). A step allocates nothing.
 * Trainable parameters live in ONE flat buffer and their gradients in
 * another; frozen parameters (fixed Fourier features) live in a separate
 * constant buffer and get no gradient.
 *
 * Example, 1-D Poisson u'' = f on N points with a 1x32x1 tanh network:
 *
 *     pf_graph *g = pf_graph_alloc(pf_backend_cpu());
 *     pf_jet_layout L = pf_jet_layout_none();
 *     pf_jet_add_dir(&L, 2);                        // u, u_x, u_xx
 *     pf_real e_x[1] = {1};
 *     pf_node *x  = pf_input(g, "x", N, 1, &L, e_x);
 *     pf_node *f  = pf_input(g, "f", N, 1, NULL, NULL);   // value-only data
 *     int W1 = pf_param(g, "W1", 32, 1, PF_PARAM_TRAINABLE, pf_init_glorot_normal());
 *     ... b1, W2, b2 ...
 *     pf_node *h  = pf_unary(g, PF_UNARY_TANH, pf_linear(g, x, W1, b1), 0);
 *     pf_node *u  = pf_linear(g, h, W2, b2);
 *     pf_node *r  = pf_sub(g, pf_deriv(g, u, 0, 2), f);
 *     pf_loss(g, "pde", pf_mean_square(g, r, NULL));
 *     if (pf_graph_compile(g, seed) != PF_OK) ...;
 *     pf_graph_set_input(g, x, xs);  pf_graph_set_input(g, f, fs);
 *
 * Ownership: nodes, parameters and buffers belong to the graph and die with
 * pf_graph_free(). Builder functions never fail at run time; misuse (shape or
 * layout mismatch, building after compile) is a contract violation and
 * aborts with file:line. Compilation can fail (out of memory) and says why.
 *
 * Broadcasting: mul/add/sub accept one value-only operand (S = 1) against a
 * full jet; its derivative streams count as zero (a field that does not
 * depend on the inputs, e.g. data). A one-channel operand broadcasts over
 * the channels of the other.
 */
#ifndef PF_TENSOR_GRAPH_H
#define PF_TENSOR_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/real.h"
#include "core/status.h"
#include "tensor/backend.h"
#include "tensor/jet.h"

typedef struct pf_graph pf_graph;
typedef struct pf_node pf_node;

/* ---------------------------------------------------------------- parameters */

enum pf_param_flags {
    PF_PARAM_FROZEN = 0,          /* constant buffer, no gradient */
    PF_PARAM_TRAINABLE = 1 << 0,  /* flat trainable buffer, has a gradient */
};

typedef enum pf_init_kind {
    PF_INIT_ZERO,
    PF_INIT_CONST,          /* every entry = a */
    PF_INIT_NORMAL,         /* N(a, b^2) */
    PF_INIT_UNIFORM,        /* U(a, b) */
    PF_INIT_GLOROT_NORMAL,  /* N(0, 2/(fan_in+fan_out)), fan_in = cols, fan_out = rows */
    PF_INIT_GLOROT_UNIFORM, /* U(-l, l), l = sqrt(6/(fan_in+fan_out)) */
    PF_INIT_RWF_V,          /* random weight factorisation: Glorot normal / exp(s_row),
                               s = the parameter whose id is `ref` */
    PF_INIT_HE_NORMAL,      /* N(0, 2/fan_in): Kaiming normal, gain sqrt(2) (torch's
                               kaiming_normal_, mode fan_in, relu) */
    PF_INIT_HE_UNIFORM,     /* U(-l, l), l = sqrt(6/fan_in) (torch's kaiming_uniform_) */
} pf_init_kind;

typedef struct pf_init {
    pf_init_kind kind;
    double a, b;
    int ref;
} pf_init;

static inline pf_init pf_init_zero(void) { return (pf_init){PF_INIT_ZERO, 0, 0, -1}; }
static inline pf_init pf_init_const(double v) { return (pf_init){PF_INIT_CONST, v, 0, -1}; }
static inline pf_init pf_init_normal(double mean, double sd) { return (pf_init){PF_INIT_NORMAL, mean, sd, -1}; }
static inline pf_init pf_init_uniform(double lo, double hi) { return (pf_init){PF_INIT_UNIFORM, lo, hi, -1}; }
static inline pf_init pf_init_glorot_normal(void) { return (pf_init){PF_INIT_GLOROT_NORMAL, 0, 0, -1}; }
static inline pf_init pf_init_glorot_uniform(void) { return (pf_init){PF_INIT_GLOROT_UNIFORM, 0, 0, -1}; }
static inline pf_init pf_init_he_normal(void) { return (pf_init){PF_INIT_HE_NORMAL, 0, 0, -1}; }
static inline pf_init pf_init_he_uniform(void) { return (pf_init){PF_INIT_HE_UNIFORM, 0, 0, -1}; }
static inline pf_init pf_init_rwf_v(int s_param) { return (pf_init){PF_INIT_RWF_V, 0, 0, s_param}; }

/* Register a rows x cols parameter (row-major); returns its id (0, 1, ...).
 * Parameters are initialised in id order at compile time, each from its own
 * sub-stream of the seed keyed by its id and name, so a parameter registered
 * after the others never changes them (one inserted before them does: the
 * later ids shift). */
int pf_param(pf_graph *g, const char *name, int rows, int cols, unsigned flags, pf_init init);

/* --------------------------------------------------------------------- nodes */

typedef enum pf_unary_op {
    PF_UNARY_TANH,
    PF_UNARY_SIN,
    PF_UNARY_COS,
    PF_UNARY_EXP,
    PF_UNARY_LOG,
    PF_UNARY_SQRT,
    PF_UNARY_SQUARE,
    PF_UNARY_RECIP,
    PF_UNARY_POW,      /* x^p for the constant p given to pf_unary */
    PF_UNARY_SIGMOID,
    PF_UNARY_SOFTPLUS, /* log(1 + e^x) */
    PF_UNARY_SILU,     /* x * sigmoid(x) */
    PF_UNARY_GELU,     /* x * Phi(x), the exact (erf) form */
    PF_UNARY_ELU,      /* x > 0 ? x : e^x - 1 (alpha 1, PyTorch's default) */
    PF_UNARY_SELU,     /* lambda (x > 0 ? x : alpha (e^x - 1)), PF_SELU_* below */
    PF_UNARY_RELU,     /* max(x, 0) */
    PF_UNARY_GAUSSIAN, /* exp(-x^2 / (2 sigma^2)), sigma = PF_GAUSSIAN_SIGMA */
    PF_UNARY_COUNT
} pf_unary_op;

/* The kinked functions (elu, selu, relu) take their derivatives at x = 0
 * from the left branch (x <= 0), as PyTorch's backward does: relu'(0) = 0;
 * elu'(0) = 1 (continuous: elu is C1) but elu''(0) = 1 where the right limit
 * is 0 (no higher derivative is continuous at 0); selu'(0) = lambda alpha
 * (~1.7581) where the right limit is lambda (selu is only C0). Away from 0
 * every derivative is exact: the linear branch has f' = 1 (lambda for selu)
 * and f^(k) = 0 for k >= 2, the exponential branch f^(k) = lambda alpha e^x.
 * SELU's constants are Klambauer et al. 2017's (PyTorch's), the gaussian's
 * width is PINNsAgent's (docs/baselines.md, "PINNsAgent: search space"): exp(-x^2 / (2 * 0.1^2)) =
 * exp(-50 x^2), whose k-th derivative is (-sqrt 50)^k H_k(sqrt(50) x) times
 * itself (physicists' Hermite polynomials). */
#define PF_SELU_ALPHA 1.6732632423543772
#define PF_SELU_SCALE 1.0507009873554805
#define PF_GAUSSIAN_SIGMA 0.1
#define PF_GAUSSIAN_C 50.0 /* 1 / (2 sigma^2): the gaussian is exp(-C x^2) */

const char *pf_unary_name(pf_unary_op op);

/* An input jet of n points and c channels. With a layout of D directions,
 * dirs[d*c + j] is component j of direction v_d: the input's first-order
 * stream along v_d is v_d at every point, higher streams are zero. layout
 * NULL means value-only data (targets, source terms, point weights). */
pf_node *pf_input(pf_graph *g, const char *name, int n, int c, const pf_jet_layout *layout,
                  const pf_real *dirs);

/* A value-only node of n points, 1 channel, whose values ARE trainable
 * parameter `param` (rows*cols == n): self-adaptive point weights. */
pf_node *pf_param_field(pf_graph *g, int param);

/* y = x W^T + b over all streams (one GEMM); W is out x in, b is 1 x out
 * (b = -1: no bias) and is added to the value stream only. */
pf_node *pf_linear(pf_graph *g, pf_node *x, int W, int b);

/* The same with a factorised weight W = diag(exp(s)) V (random weight
 * factorisation, Wang et al. 2022): V is out x in, s is out x 1. */
pf_node *pf_linear_rwf(pf_graph *g, pf_node *x, int V, int s, int b);

/* Elementwise function on every channel, with its Taylor streams by
 * Faa di Bruno's formula (orders up to 4); p is the exponent for PF_UNARY_POW. */
pf_node *pf_unary(pf_graph *g, pf_unary_op op, pf_node *x, pf_real p);

pf_node *pf_mul(pf_graph *g, pf_node *a, pf_node *b);   /* Leibniz rule */
pf_node *pf_add(pf_graph *g, pf_node *a, pf_node *b);
pf_node *pf_sub(pf_graph *g, pf_node *a, pf_node *b);

/* y = s * x (all streams). */
pf_node *pf_scale(pf_graph *g, pf_node *x, pf_real s);
/* y = x + c (value stream only). */
pf_node *pf_add_const(pf_graph *g, pf_node *x, pf_real c);
/* Per channel: y_j = scale[j] * x_j + shift[j] (shift on the value stream);
 * the arrays are copied. Input normalisation to [-1, 1] is one affine. */
pf_node *pf_affine(pf_graph *g, pf_node *x, const pf_real *scale, const pf_real *shift);
/* y = factor * p * x for the scalar trainable parameter p (1 x 1):
 * layer-wise adaptive activation slopes (Jagtap et al. 2020). */
pf_node *pf_scale_param(pf_graph *g, pf_node *x, int p, pf_real factor);

/* WaveAct (PINNsFormer, Zhao et al. 2024): y = w1 sin(x) + w2 cos(x) on
 * every channel, for the scalar trainable parameters w1, w2 (1 x 1 each; the
 * released model initialises both to 1, pf_init_const(1)). Its Taylor
 * streams are Faa di Bruno's formula (as pf_unary, orders up to 4 and
 * collapsed streams) with f^(k) = w1 sin^(k)(x) + w2 cos^(k)(x); the
 * backward gives x's gradient from the same polynomials and, since y is
 * linear in (w1, w2), dL/dw1 = <dL/dy, jet of sin(x)> and dL/dw2 =
 * <dL/dy, jet of cos(x)> over every stream. */
pf_node *pf_waveact(pf_graph *g, pf_node *x, int w1, int w2);

/* The pseudo-sequence of PINNsFormer (Zhao et al. 2024): each of x's n
 * points becomes k tokens, n k rows in all; row p k + i is point p with its
 * LAST channel shifted by i dt on the value stream. The derivative streams
 * are copied (d token / d point = identity), so every op after it sees
 * exact jets; token 0 is the point itself. The backward sums the k tokens'
 * gradients into their point's.
 *
 * The rows of a token node count k per point of its family: chunks cut
 * whole points (k rows each), and an op that combines it with other nodes
 * needs them to be token-aligned too (data goes through pf_tokens, with
 * dt = 0 for plain copies); mixing a token node with an unrelated input of
 * n k rows aborts at compile. */
pf_node *pf_tokens(pf_graph *g, pf_node *x, int k, pf_real dt);

/* Token i of every group of k rows: row p of y = row p k + i of x, every
 * stream (PINNsFormer's predictions and initial-condition loss use token
 * 0). x's rows per point must be a multiple of k; y has k times fewer. The
 * backward puts y's gradient in the selected rows and zeros in the others
 * (or adds to the selected rows only, when x already has a gradient). */
pf_node *pf_token_select(pf_graph *g, pf_node *x, int k, int i);

/* Scaled dot-product attention with `heads` heads over each group of ntok
 * consecutive rows (the tokens of one point, after pf_tokens with k =
 * ntok): Q, K, V are n x d_model jets with equal layouts (d_model divisible
 * by heads, dh = d_model / heads), and per group and head, with the head's
 * channels,
 *     y_i = sum_j softmax_j(q_i . k_j / sqrt(dh)) v_j,   i, j < ntok.
 * Taylor mode to order 4 along every direction (the jets of Q, K, V through
 * the scores, the softmax and the product with V; cpu_attention.c), with a
 * hand-written reverse mode through that computation. The operands' rows
 * per point must be a multiple of ntok, so chunks never split a group.
 * Not supported: layouts with collapsed streams. ntok = 1 gives y = V. */
pf_node *pf_attention(pf_graph *g, pf_node *q, pf_node *k, pf_node *v, int ntok, int heads);

/* Concatenate channels of k jets with equal n and layout. */
pf_node *pf_concat(pf_graph *g, int k, pf_node *const *xs);
/* Channels [c0, c0 + nc). */
pf_node *pf_slice(pf_graph *g, pf_node *x, int c0, int nc);

/* Value-only field of d^k x / dv_dir^k (k = 0: the value). */
pf_node *pf_deriv(pf_graph *g, pf_node *x, int dir, int k);
/* Value-only field of collapsed stream c (e.g. the Laplacian). */
pf_node *pf_deriv_collapsed(pf_graph *g, pf_node *x, int c);

/* Scalar (1 x 1): (1 / (n c)) sum_i w_i sum_j r_ij^2 over the value stream of
 * r; w is a value-only n x 1 node or NULL (all ones). */
pf_node *pf_mean_square(pf_graph *g, pf_node *r, pf_node *w);

/* Declare a scalar node a loss term; returns its index t (0, 1, ...). */
int pf_loss(pf_graph *g, const char *name, pf_node *scalar);

/* ---------------------------------------------------------------- lifecycle */

pf_graph *pf_graph_alloc(const pf_backend *backend);
void pf_graph_free(pf_graph *g);

/* Plan and allocate every buffer, decide which nodes need gradients, and
 * initialise the parameters from `seed`. After this no node can be added. */
pf_status pf_graph_compile(pf_graph *g, uint64_t seed);

/* Re-initialise all parameters from `seed` (same streams as compile). */
void pf_graph_init_params(pf_graph *g, uint64_t seed);

/* Set an input's values: v is n x c (row-major). Derivative streams are
 * seeded from the input's directions. */
void pf_graph_set_input(pf_graph *g, pf_node *input, const pf_real *v);

/* Constant folding. A node that depends on inputs and frozen parameters
 * alone (no trainable parameter, no point-weight field) and feeds a loss —
 * a hard transform's lift and distance factor, a coefficient field, the
 * input normalisation, fixed Fourier features — is a *constant* node: the
 * prepare pass computes it once per point set, and steps skip it. Constant
 * nodes that a step's node reads keep their values (one buffer per chunk
 * of points), and no gradient flows into them. Setting an input marks what
 * depends on it for recomputation (a frozen parameter, through
 * pf_graph_param_data or pf_graph_init_params, marks every constant node);
 * forward, forward_backward(_sets) and pass call pf_graph_prepare first, so
 * a host-driven step always sees the current points. A recorded pass
 * (backend.h, capture) replays the work queued when it was recorded: call
 * pf_graph_prepare before recording and before each replay (it queues only
 * the constant nodes whose inputs changed, and nothing when none did). The
 * same kernels run on the same values, so folding changes no bit of any
 * result. pf_graph_set_fold(g, false) (before compile) or PF_GRAPH_FOLD=0
 * in the environment (read at compile: 0 or 1) computes every node in every
 * step, as a reference. */
void pf_graph_set_fold(pf_graph *g, bool on);
void pf_graph_prepare(pf_graph *g);

/* Evaluate every node and every loss term (evaluation branches too). */
void pf_graph_forward(pf_graph *g);

/* One training pass: the loss terms and the gradients of
 * sum_t weights[t] * L_t into pf_graph_grads() (overwritten; also the
 * gradients of pf_param_field point weights). weights NULL = all ones.
 * This is the call a training step makes: it computes only the nodes that
 * feed a loss (not evaluation branches), and with chunks (below) it runs
 * forward and backward chunk by chunk. */
void pf_graph_forward_backward(pf_graph *g, const pf_real *weights);

/* The gradients alone, after pf_graph_forward() with the current
 * parameters. Unchunked graphs reuse the forward's values; chunked ones keep
 * only the last chunk's, so this redoes the forward (use
 * pf_graph_forward_backward() in training loops). */
void pf_graph_backward(pf_graph *g, const pf_real *weights);

/* The same pass in three calls, for a step that is recorded once and
 * replayed (backend.h, capture): set_loss_weights puts the per-loss weights
 * in backend memory (NULL = all ones; they stay until set again);
 * pf_graph_pass queues forward + backward of the loss branches with those
 * weights, and touches no host memory, so it can be recorded; it needs an
 * unchunked graph (pf_graph_nchunks() == 1). pf_graph_read_losses copies
 * the loss values to the host (pf_graph_loss_value). */
void pf_graph_set_loss_weights(pf_graph *g, const pf_real *weights);
void pf_graph_pass(pf_graph *g);
void pf_graph_read_losses(pf_graph *g);

/* Several weightings of one pass, recordable too (MultiAdam's per-group
 * gradients, train/multiadam.h): PF_GRAPH_WEIGHT_SETS weight vectors live in
 * backend memory (all ones after compile); set 0 is the one
 * pf_graph_set_loss_weights fills and pf_graph_pass and the host-side calls
 * use. pf_graph_set_loss_weight_set fills set k (NULL: all ones; a host
 * copy, not recordable); pf_graph_pass_set is pf_graph_pass with set k;
 * pf_graph_backward_set queues only a backward with set k into
 * pf_graph_grads() (overwritten), reusing the node values of the last pass,
 * so one forward gives the gradients of several weightings. Both need an
 * unchunked graph. */
#define PF_GRAPH_WEIGHT_SETS 3
void pf_graph_set_loss_weight_set(pf_graph *g, int set, const pf_real *weights);
void pf_graph_pass_set(pf_graph *g, int set);
void pf_graph_backward_set(pf_graph *g, int set);

/* The same on any graph, chunked too, from the host: one forward (the loss
 * values, as pf_graph_forward_backward) and, for k < n (n <
 * PF_GRAPH_WEIGHT_SETS), the gradient of sum_t weights[k][t] L_t into
 * out[k] (backend memory, pf_graph_nparams() pf_reals each), through
 * weight set k + 1. Per chunk: the forward, then one backward per
 * weighting, each added to its out[k]; pf_graph_grads() is scratch here
 * (it holds the last backward's chunk). On an unchunked graph out[k] is
 * bit for bit what pf_graph_pass_set(k + 1) leaves in pf_graph_grads(). */
void pf_graph_forward_backward_sets(pf_graph *g, int n, const pf_real *const *weights, pf_real *const *out);

/* Chunks of points. Every op but the loss reduction is pointwise in the
 * points, so the nodes that feed a loss can run forward and backward over
 * chunks of their points: loss terms are sums of per-chunk parts, parameter
 * gradients accumulate, and the working set of one chunk stays in cache
 * (the whole graph's rarely fits). The graph picks K chunks so that its
 * largest node buffer is about `bytes` per chunk, or 8 times its largest
 * weight matrix where that is more; every family of points
 * that feeds a loss is split into K chunks of ceil(n / K). Branches that
 * feed no loss (evaluation points) stay whole and can be read after
 * forward; nodes of chunked branches cannot (pf_graph_read says so). The
 * split changes only the order of floating-point sums, and depends on the
 * sizes alone, never on the thread count. bytes = 0 turns chunks off. Set
 * before compile; the default is PF_GRAPH_CHUNK_BYTES on a backend with
 * host memory, and 0 (no chunks) on a device backend. */
#define PF_GRAPH_CHUNK_BYTES ((size_t)512 << 10)
void pf_graph_set_chunk_bytes(pf_graph *g, size_t bytes);

/* K, after compile (1 when nothing is chunked). */
int pf_graph_nchunks(const pf_graph *g);

/* ----------------------------------------------------------------- queries */

int pf_graph_nloss(const pf_graph *g);
const char *pf_graph_loss_name(const pf_graph *g, int t);
double pf_graph_loss_value(const pf_graph *g, int t);   /* after forward */

size_t pf_graph_nparams(const pf_graph *g);    /* trainable scalars */
pf_real *pf_graph_params(pf_graph *g);         /* flat trainable buffer (backend memory) */
pf_real *pf_graph_grads(pf_graph *g);          /* flat gradient buffer (backend memory) */
int pf_graph_param_count(const pf_graph *g);   /* registered parameters */
/* Data of parameter `id` (trainable or frozen); its gradient or NULL
 * (backend memory: read or write it with the backend's download/upload).
 * pf_graph_param_data is for writing: on a frozen parameter it marks every
 * constant node stale (the next pass recomputes them all); to read a
 * parameter (copy it out, download it) use pf_graph_param_read, which marks
 * nothing, so the folded constants stay computed. */
pf_real *pf_graph_param_data(pf_graph *g, int id);
const pf_real *pf_graph_param_read(const pf_graph *g, int id);
pf_real *pf_graph_param_grad(pf_graph *g, int id);
size_t pf_graph_param_offset(const pf_graph *g, int id); /* in the flat buffer */
const char *pf_graph_param_name(const pf_graph *g, int id);
void pf_graph_param_shape(const pf_graph *g, int id, int *rows, int *cols);

int pf_node_n(const pf_node *x);
int pf_node_c(const pf_node *x);
int pf_node_nstreams(const pf_node *x);
const pf_jet_layout *pf_node_layout(const pf_node *x);

/* Copy a node's buffer ([S][n][c]) to host memory, after forward. */
void pf_graph_read(const pf_graph *g, const pf_node *x, pf_real *dst);
/* Keep every node's gradient after backward (call before compile). By
 * default a gradient buffer lives only from its first writer to its node's
 * own backward, and buffers whose lives do not overlap share memory — less
 * memory, and gradients stay in cache. */
void pf_graph_keep_grads(pf_graph *g, bool keep);

/* Copy a node's gradient buffer to host memory, after backward (zeros if the
 * node needs no gradient). Needs pf_graph_keep_grads(g, true). */
void pf_graph_read_grad(const pf_graph *g, const pf_node *x, pf_real *dst);

/* Bytes in the graph's arena (for reporting). */
size_t pf_graph_bytes(const pf_graph *g);

/* The backend the graph's buffers live on (the flat parameter and gradient
 * buffers are its memory). */
const pf_backend *pf_graph_backend(const pf_graph *g);

/* ----------------------------------------------------------------- profile */

/* Time every node's forward and backward from now on (on = true; the
 * buffer is allocated here, never in a step) or stop and discard. */
pf_status pf_graph_profile(pf_graph *g, bool on);

typedef struct pf_profile_row {
    const char *op;      /* "linear", "unary:tanh", ... */
    int n, c, S;         /* the node's points, channels, streams */
    double fwd_s, bwd_s; /* seconds summed since profiling started */
    long nfwd, nbwd;     /* forward and backward runs since then (one per chunk) */
    bool fold;           /* a constant node (pf_graph_prepare computes it) */
} pf_profile_row;

/* Number of nodes; rows[i] for i < max describes node i. */
int pf_graph_profile_rows(const pf_graph *g, pf_profile_row *rows, int max);

#endif
