/*
 * model.h — the model zoo: MLP, modified MLP and residual MLP with their
 * input representations, built from the public graph ops of graph.h.
 *
 * A model is a plain configuration (pf_model_config, copyable, no pointers)
 * plus the parameters it registers in a graph. pf_model_alloc() registers the
 * parameters; pf_model_apply() then builds the forward pass on an input node
 * and can be called several times on different inputs that share the same
 * parameters — which is how a PINN uses its network: once on the interior
 * collocation jet (value + derivative streams), once on each set of boundary
 * or initial points (often value-only), once on the evaluation points.
 *
 *     pf_model_config cfg = pf_model_config_default(2, 1);   // (x, t) -> u
 *     cfg.arch = PF_ARCH_MODIFIED_MLP;
 *     cfg.depth = 4;  cfg.width = 64;
 *     cfg.normalize = true;                                  // x in [-1, 1] ...
 *     cfg.lo[1] = 0;  cfg.hi[1] = 1;                         // ... t in [0, 1]
 *     if (pf_model_config_check(&cfg) != PF_OK) return ...;  // pf_errmsg() says why
 *     if (pf_model_config_nparams(&cfg) > budget) return ...;
 *
 *     pf_graph *g = pf_graph_alloc(pf_backend_cpu());
 *     pf_model *m = pf_model_alloc(g, &cfg);                 // registers parameters
 *     pf_node *xi = pf_input(g, "interior", N, 2, &L, dirs); // a jet
 *     pf_node *xb = pf_input(g, "boundary", M, 2, NULL, NULL);
 *     pf_node *ui = pf_model_apply(m, g, xi);                // N x 1, layout of xi
 *     pf_node *ub = pf_model_apply(m, g, xb);                // M x 1, same weights
 *     ... residuals, pf_loss(...) ...
 *     pf_model_free(m);                     // the parameters stay in the graph
 *     if (pf_graph_compile(g, seed) != PF_OK) ...;           // initialises them
 *
 * Every application must happen before pf_graph_compile(). The model holds
 * only parameter ids and a pointer to its graph: it may be freed as soon as
 * the last application is built, and must not be used after the graph dies.
 *
 * ---------------------------------------------------------- representation
 *
 * The input x (n x in_dim, any jet layout) passes through, in this order:
 *
 *  1. normalisation (cfg.normalize): each NON-periodic input i is mapped
 *     affinely to [-1, 1],  x_i -> 2 (x_i - lo[i]) / (hi[i] - lo[i]) - 1.
 *     Periodic inputs are left in physical units (their features below are
 *     bounded anyway, and their period stays in the units the PDE uses).
 *  2. periodic embedding (cfg.periodic[i]): input i is replaced, in place, by
 *     the 2 H channels [cos(w x_i), cos(2 w x_i), ..., cos(H w x_i),
 *     sin(w x_i), ..., sin(H w x_i)] with w = 2 pi / period[i] and
 *     H = harmonics[i]; other inputs pass through in their order. The
 *     network is then exactly periodic in x_i with period period[i].
 *  3. Fourier features (cfg.fourier_features = m > 0): the e channels so far
 *     become the 2 m channels [cos(2 pi B z), sin(2 pi B z)], B an m x e
 *     matrix with entries ~ N(0, sigma^2) (Tancik et al. 2020). The graph
 *     parameter "fourier.B" stores 2 pi B (initialised N(0, (2 pi sigma)^2))
 *     so no extra scaling node is needed; it is frozen (no gradient, not
 *     counted as trainable) unless fourier_trainable.
 *     Multiscale (fourier_scales = S > 1, Wang, Wang & Perdikaris 2021): the
 *     m rows are split into S groups (m / S each, the remainder to the first
 *     ones), group k drawn with sigma_k = sigma * fourier_ratio^k, each its
 *     own parameter "fourier.B<k>"; the channels are [cos, sin] of group 0,
 *     then of group 1, ...
 *
 * pf_model_config_features() is the channel count that reaches the first
 * layer: 2 m with Fourier features, else sum_i (periodic[i] ? 2 H_i : 1).
 *
 * ------------------------------------------------------------ architectures
 *
 * Write d0 for that feature count, w for width, L(a -> b) for a linear layer
 * a -> b (weight b x a plus bias b) and act() for the activation. The output
 * layer L(w -> out_dim) is linear (no activation) in every architecture.
 *
 *  PF_ARCH_MLP          depth hidden layers: h_1 = act(L(d0 -> w) x),
 *                       h_k = act(L(w -> w) h_{k-1}), k = 2..depth.
 *  PF_ARCH_MODIFIED_MLP Wang, Teng & Perdikaris 2021 ("Understanding and
 *                       mitigating gradient pathologies", eqs. 40-43), with
 *                       depth = the number of hidden layers H_1..H_depth
 *                       (the encoders U, V are not counted; depth >= 2):
 *                         U = act(L_U x),  V = act(L_V x)      (d0 -> w)
 *                         H_1 = act(L_1 x)                     (d0 -> w)
 *                         Z_k = act(L_k H_{k-1}),  k = 2..depth (w -> w)
 *                         H_k = (1 - Z_k) * U + Z_k * V
 *                       so it has the MLP's layers of the same depth plus the
 *                       two encoders. The gate is computed as
 *                       U + Z_k * (V - U), with V - U formed once.
 *  PF_ARCH_RESNET       depth = the number of residual BLOCKS (>= 1), after
 *                       an input layer: h_0 = act(L(d0 -> w) x), then
 *                         h_b = h_{b-1} + act(L_b2 act(L_b1 h_{b-1})),
 *                       b = 1..depth, two w -> w layers per block; in all
 *                       1 + 2 depth hidden layers.
 *
 *  PF_ARCH_PINNSFORMER  PINNsFormer (Zhao et al. 2024, nn/pinnsformer.h), a
 *                       sequence model: each point becomes seq_len tokens,
 *                       token i with its LAST input shifted by i seq_dt;
 *                       the representation (steps 1-3) applies to every
 *                       token; then Linear(d0 -> width), depth encoder and
 *                       depth decoder layers of `heads`-head attention over
 *                       a point's tokens and a d_ff feed-forward block, and
 *                       a d_hidden head, all with WaveActs, Xavier-uniform
 *                       weights and biases 0.01 as released: activation,
 *                       init, adaptive activation and rwf do not apply (check
 *                       refuses adapt and rwf). pf_model_apply gives token
 *                       0 (the point itself); pf_model_apply_seq every token
 *                       (the training graph's residual and boundary losses).
 *                       Attention carries no collapsed streams.
 *
 * Options that apply to every hidden layer (never to the output layer's
 * missing activation):
 *
 *  - adaptive activation: act(n a z) with a trainable slope a initialised
 *    to 1/n, so that n a = 1 at the start; n = adapt_factor (10 by default).
 *    PF_ADAPT_LAYERWISE (LAAF, Jagtap, Kawaguchi & Karniadakis 2020, Proc.
 *    R. Soc. A): one slope per hidden layer (the modified MLP's encoders
 *    included). PF_ADAPT_GLOBAL (GAAF, Jagtap, Kawaguchi & Karniadakis 2020,
 *    J. Comput. Phys.): ONE slope shared by every hidden layer (and the
 *    encoders), registered after the output layer, so the weights are drawn
 *    exactly as without adaptation.
 *  - random weight factorisation (cfg.rwf, Wang et al. 2022): every linear
 *    layer, the output layer included, uses W = diag(exp(s)) V with a
 *    trainable scale s per output unit, s ~ N(rwf_mean, rwf_sigma^2), and
 *    V = Glorot normal / exp(s), so W starts Glorot normal. rwf requires
 *    init = PF_WEIGHT_INIT_GLOROT_NORMAL.
 *  - initialisation (biases always zero), with fan_in = in, fan_out = out of
 *    the layer's out x in weight:
 *      glorot_normal (default)  N(0, 2 / (fan_in + fan_out))
 *      glorot_uniform           U(-l, l), l = sqrt(6 / (fan_in + fan_out))
 *      he_normal                N(0, 2 / fan_in)      (Kaiming, gain sqrt 2)
 *      he_uniform               U(-l, l), l = sqrt(6 / fan_in)
 *      zeros                    every weight 0 (PINNsAgent's search space has
 *                               it; every unit of a layer then gets the same
 *                               gradient, so the layers stay rank-deficient)
 *    These are torch's xavier_normal_/xavier_uniform_/kaiming_normal_/
 *    kaiming_uniform_ (fan_in, relu gain)/zeros_, which DeepXDE's PyTorch
 *    backend (PINNacle, PINNsAgent) maps its initializer names to.
 *
 * ------------------------------------------------------------- parameters
 *
 * Parameters are registered in forward order under these names (k counts the
 * hidden layers from 1 in forward order: for the residual MLP h1 is the
 * input layer and block b holds h(2b) and h(2b+1)):
 *
 *     fourier.B (fourier.B0, B1, ...) m x e (m_k x e per scale; see above)
 *     U.* V.*                        the modified MLP's encoders
 *     h<k>.s  h<k>.W  h<k>.b  h<k>.a rwf scale (out x 1), weight (out x in;
 *                                    the V factor under rwf), bias (1 x out),
 *                                    layer-wise adaptive slope (1 x 1)
 *     out.s   out.W   out.b          the output layer
 *     act.a                          the global adaptive slope (1 x 1)
 *
 * where .s exists only with rwf, h<k>.a only with layerwise and act.a only
 * with global adaptation. The trainable count is pf_model_config_nparams();
 * with lin(a, b) = a b + b (+ b with rwf) and S = 1 with layerwise
 * adaptation (else 0) it is
 *
 *     MLP:           lin(d0,w) + (depth-1) lin(w,w) + depth S + lin(w,out)
 *     modified MLP:  3 lin(d0,w) + (depth-1) lin(w,w) + (depth+2) S + lin(w,out)
 *     residual MLP:  lin(d0,w) + 2 depth lin(w,w) + (2 depth+1) S + lin(w,out)
 *
 * plus 1 with global adaptation and m e when the Fourier matrix is
 * trainable. For example PINNacle's
 * default 2 -> 5 x 100 -> 1 tanh MLP has 300 + 4 * 10,100 + 101 = 40,801.
 *
 * Errors: configuration problems are reported by pf_model_config_check()
 * (and pf_model_alloc(), which calls it) as PF_ERR_INVALID with a one-line
 * message naming the field, its value and what is allowed. Building with a
 * wrong input (channel count != in_dim, another graph) is a contract
 * violation and aborts.
 */
#ifndef PF_NN_MODEL_H
#define PF_NN_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "tensor/graph.h"

/* Limits checked by pf_model_config_check(). */
#define PF_MODEL_MAX_IN 16          /* in_dim */
#define PF_MODEL_MAX_OUT 64         /* out_dim */
#define PF_MODEL_MAX_DEPTH 128      /* depth */
#define PF_MODEL_MAX_WIDTH 8192     /* width */
#define PF_MODEL_MAX_HARMONICS 64   /* harmonics[i] */
#define PF_MODEL_MAX_FOURIER 4096   /* fourier_features */
#define PF_MODEL_MAX_SCALES 8       /* fourier_scales */

/* The architectures: one row each in nn/archs.def (see "architectures"
 * above; pf_arch_def below). */
typedef enum pf_arch {
#define PF_ARCH(ID, ...) PF_ARCH_##ID,
#include "nn/archs.def"
#undef PF_ARCH
    PF_ARCH_COUNT
} pf_arch;

typedef enum pf_adapt {
    PF_ADAPT_NONE,        /* "none" */
    PF_ADAPT_LAYERWISE,   /* "layerwise": one slope per hidden layer (LAAF) */
    PF_ADAPT_GLOBAL,      /* "global": one slope for all hidden layers (GAAF) */
    PF_ADAPT_COUNT
} pf_adapt;

typedef enum pf_weight_init {
    PF_WEIGHT_INIT_GLOROT_NORMAL,  /* "glorot_normal":  N(0, 2 / (fan_in + fan_out)) */
    PF_WEIGHT_INIT_GLOROT_UNIFORM, /* "glorot_uniform": U(-l, l), l = sqrt(6 / (fan_in + fan_out)) */
    PF_WEIGHT_INIT_HE_NORMAL,      /* "he_normal":      N(0, 2 / fan_in) */
    PF_WEIGHT_INIT_HE_UNIFORM,     /* "he_uniform":     U(-l, l), l = sqrt(6 / fan_in) */
    PF_WEIGHT_INIT_ZEROS,          /* "zeros":          all weights 0 */
    PF_WEIGHT_INIT_COUNT
} pf_weight_init;

/* The activations a model may use, in the order the spec layer lists them:
 * tanh, sin, silu, gelu, softplus, sigmoid, elu, selu, relu, gaussian (the
 * last four from PINNsAgent's search space; graph.h defines them and their
 * derivatives at the kinks). */
#define PF_NACTIVATIONS 10
extern const pf_unary_op pf_activations[PF_NACTIVATIONS];

typedef struct pf_model_config {
    /* architecture */
    pf_arch arch;
    int in_dim, out_dim;          /* 1..PF_MODEL_MAX_IN, 1..PF_MODEL_MAX_OUT */
    int depth;                    /* hidden layers (resnet: blocks), see above */
    int width;                    /* units per hidden layer */
    pf_unary_op activation;       /* one of pf_activations */
    pf_weight_init init;

    /* adaptive activation: act(adapt_factor * a * z) */
    pf_adapt adapt;
    double adapt_factor;          /* n > 0 (default 10) */

    /* random weight factorisation */
    bool rwf;
    double rwf_mean, rwf_sigma;   /* s ~ N(mean, sigma^2) (defaults 1.0, 0.1) */

    /* representation, applied in the order of the fields */
    bool normalize;
    double lo[PF_MODEL_MAX_IN], hi[PF_MODEL_MAX_IN];   /* lo < hi per input */
    bool periodic[PF_MODEL_MAX_IN];
    double period[PF_MODEL_MAX_IN];                    /* > 0 where periodic */
    int harmonics[PF_MODEL_MAX_IN];                    /* 1..PF_MODEL_MAX_HARMONICS */
    int fourier_features;         /* m, 0 = none */
    double fourier_sigma;         /* > 0 when m > 0 (default 1) */
    bool fourier_trainable;
    int fourier_scales;           /* S in 1..PF_MODEL_MAX_SCALES, <= m (default 1) */
    double fourier_ratio;         /* sigma_{k+1} / sigma_k, > 1 (default 10) */

    /* PF_ARCH_PINNSFORMER only (see "sequence models" above) */
    int seq_len;                  /* k tokens per point, 1..16 (default 5) */
    double seq_dt;                /* the last input's shift per token (default 1e-4) */
    int d_ff, d_hidden;           /* feed-forward and head widths (defaults 256, 512) */
    int heads;                    /* attention heads, divides width (default 2) */
} pf_model_config;

/* The defaults: a tanh MLP of 5 hidden layers of 100 units (PINNacle's
 * network), Glorot normal, no adaptive activation, no rwf (but mean 1.0,
 * sigma 0.1 ready), adapt_factor 10, no normalisation (lo = -1, hi = 1, the
 * identity, ready to be edited), nothing periodic (harmonics 1), no Fourier
 * features (sigma 1, frozen). */
pf_model_config pf_model_config_default(int in_dim, int out_dim);

/* PF_OK, or PF_ERR_INVALID with one sentence in pf_errmsg() naming the first
 * bad field, its value and the allowed values, e.g.
 * "depth must be an integer in [1, 128] (got 0)". Fields that are switched
 * off (lo/hi without normalize, period without periodic, ...) are ignored. */
pf_status pf_model_config_check(const pf_model_config *cfg);

/* Channels entering the first layer (d0 above); 0 if the config is invalid. */
int pf_model_config_features(const pf_model_config *cfg);

/* Trainable scalars the model registers, computed from the config alone (the
 * spec validator's parameter budget); 0 if the config is invalid. After
 * building a graph that holds only this model, pf_graph_nparams() equals it. */
size_t pf_model_config_nparams(const pf_model_config *cfg);

typedef struct pf_model pf_model;

/* Check cfg and register the model's parameters in g (which must not be
 * compiled yet). Returns NULL if the config is invalid or memory runs out,
 * with the reason in pf_errmsg(); nothing is registered then. The config is
 * copied. */
pf_model *pf_model_alloc(pf_graph *g, const pf_model_config *cfg);

/* Build the forward pass on x (n x in_dim, any jet layout) in m's graph g;
 * returns the output node (n x out_dim, x's layout). May be called any number
 * of times before compile; all applications share the parameters. */
pf_node *pf_model_apply(pf_model *m, pf_graph *g, pf_node *x);

/* Only the representation (steps 1-3 above): returns the n x
 * pf_model_config_features() node that the first layer receives, or x itself
 * when there is nothing to do. pf_model_apply() calls it. */
pf_node *pf_model_embed(pf_model *m, pf_graph *g, pf_node *x);

/* Tokens per point: cfg->seq_len for a sequence model (pinnsformer), else 1. */
int pf_model_tokens(const pf_model_config *cfg);

/* A sequence model on its token rows: s holds pf_model_tokens() consecutive
 * rows per point (pf_tokens of the points, any jet layout without collapsed
 * streams); returns every token's output (s's rows x out_dim). For the
 * other architectures this is pf_model_apply (one token per point). */
pf_node *pf_model_apply_seq(pf_model *m, pf_graph *g, pf_node *s);

/* The model's copy of its configuration. */
const pf_model_config *pf_model_cfg(const pf_model *m);

/* Free the model's bookkeeping; its parameters and nodes stay in the graph. */
void pf_model_free(pf_model *m);

/* ------------------------------------------------------------ the table
 *
 * One row of nn/archs.def: what the code around a model (the spec
 * validator, the offline proposer, the benchmark) reads instead of naming
 * an architecture, and the hooks (in model.c) where the architectures
 * differ. */
typedef struct pf_arch_def {
    pf_arch id;
    const char *name;           /* the spec's architecture.type */
    const char *doc;            /* its item in the spec's description */
    int min_depth, max_depth;   /* the depths it allows */
    bool seq;                   /* a sequence model: pf_model_tokens() tokens per point */
    int pre, per_depth;         /* dense hidden layers: pre + per_depth * depth */
    int encoders;               /* dense encoders beside them (the modified MLP's U, V) */
    int deeper_cap;             /* the offline proposer deepens it up to this depth */
    pf_status (*check)(const pf_model_config *cfg); /* checks of its own (NULL: none) */
    size_t (*nparams)(const pf_model_config *cfg);  /* trainable count, Fourier features excluded */
    pf_status (*alloc)(pf_model *m);                /* register the parameters after the representation's */
    pf_node *(*apply)(pf_model *m, pf_graph *g, pf_node *x); /* pf_model_apply */
} pf_arch_def;

/* Row a of the table; NULL for anything but an architecture. */
const pf_arch_def *pf_arch_def_of(pf_arch a);
/* The architecture named name; NULL, with "arch 'x' is unknown; allowed:
 * mlp, ..." in pf_errmsg(), for anything else. */
const pf_arch_def *pf_arch_named(const char *name);

/* ------------------------------------------------------------ names
 *
 * Each enum has a canonical lower-case name (the one the AlgorithmSpec uses)
 * and a parser. A name function returns "?" for a value out of range; a
 * parser stores the value and returns PF_OK, or returns PF_ERR_INVALID with
 * "<kind> 'x' is unknown; allowed: a, b, c" in pf_errmsg() and leaves *out
 * untouched. Iterate 0..PF_<KIND>_COUNT-1 to list the allowed names. */

const char *pf_arch_name(pf_arch a);
pf_status pf_arch_from_name(const char *name, pf_arch *out);

const char *pf_adapt_name(pf_adapt a);
pf_status pf_adapt_from_name(const char *name, pf_adapt *out);

const char *pf_weight_init_name(pf_weight_init i);
pf_status pf_weight_init_from_name(const char *name, pf_weight_init *out);

/* Activations use pf_unary_name() for the name; the parser accepts only
 * pf_activations. */
bool pf_activation_allowed(pf_unary_op op);
pf_status pf_activation_from_name(const char *name, pf_unary_op *out);

#endif
