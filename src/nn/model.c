#include "nn/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "nn/pinnsformer.h"

#define TWO_PI 6.283185307179586476925286766559

const pf_unary_op pf_activations[PF_NACTIVATIONS] = {
    PF_UNARY_TANH, PF_UNARY_SIN,  PF_UNARY_SILU, PF_UNARY_GELU, PF_UNARY_SOFTPLUS, PF_UNARY_SIGMOID,
    PF_UNARY_ELU,  PF_UNARY_SELU, PF_UNARY_RELU, PF_UNARY_GAUSSIAN,
};

#define ENCODERS 2 /* the dense encoders a row may ask for: U, V */

/* Parameter ids of one linear layer; -1 = absent. */
typedef struct layer {
    int s, W, b; /* rwf scale, weight (V under rwf), bias */
    int a;       /* adaptive slope; -1 for the output layer or without adaptation */
} layer;

struct pf_model {
    pf_model_config cfg;
    pf_graph *g;
    int B[PF_MODEL_MAX_SCALES]; /* Fourier matrices (2 pi B_k), -1 = none */
    layer enc[ENCODERS]; /* modified MLP: U, V */
    int nhidden;
    layer *hidden;  /* forward order */
    layer out;
    pf_pinnsformer *seq; /* a sequence model's trunk after the representation */
};

/* The hooks of archs.def's rows, defined with the building code below. */
static pf_status seq_check(const pf_model_config *c);
static size_t dense_nparams(const pf_model_config *c);
static size_t seq_nparams(const pf_model_config *c);
static pf_status dense_alloc(pf_model *m);
static pf_status seq_alloc(pf_model *m);
static pf_node *mlp_apply(pf_model *m, pf_graph *g, pf_node *x);
static pf_node *modified_mlp_apply(pf_model *m, pf_graph *g, pf_node *x);
static pf_node *resnet_apply(pf_model *m, pf_graph *g, pf_node *x);
static pf_node *seq_apply(pf_model *m, pf_graph *g, pf_node *x);

static const pf_arch_def ARCHS[PF_ARCH_COUNT] = {
#define PF_ARCH(ID, nm, dc, mind, maxd, sq, pr, per, enc, cap, chk, np, al, ap)                                        \
    [PF_ARCH_##ID] = {.id = PF_ARCH_##ID, .name = #nm, .doc = dc, .min_depth = mind, .max_depth = maxd, .seq = sq,    \
                      .pre = pr, .per_depth = per, .encoders = enc, .deeper_cap = cap, .check = chk, .nparams = np,    \
                      .alloc = al, .apply = ap},
#include "nn/archs.def"
#undef PF_ARCH
};

/* depths within the model's limits; a sequence model has no dense layers, a dense one at least one per depth */
#define PF_ARCH(ID, nm, dc, mind, maxd, sq, pr, per, enc, ...)                                                         \
    _Static_assert(1 <= (mind) && (mind) <= (maxd) && (maxd) <= PF_MODEL_MAX_DEPTH, #nm ": depths");                   \
    _Static_assert((sq) ? !(pr) && !(per) && !(enc) : (per) >= 1 && (enc) <= ENCODERS, #nm ": layers");
#include "nn/archs.def"
#undef PF_ARCH

/* ------------------------------------------------------------------ names */

static const char *const arch_names[PF_ARCH_COUNT] = {
#define PF_ARCH(ID, nm, ...) [PF_ARCH_##ID] = #nm,
#include "nn/archs.def"
#undef PF_ARCH
};
static const char *const adapt_names[PF_ADAPT_COUNT] = {"none", "layerwise", "global"};
static const char *const init_names[PF_WEIGHT_INIT_COUNT] = {"glorot_normal", "glorot_uniform", "he_normal",
                                                             "he_uniform", "zeros"};

const char *pf_arch_name(pf_arch a) { return (unsigned)a < PF_ARCH_COUNT ? arch_names[a] : "?"; }
const char *pf_adapt_name(pf_adapt a) { return (unsigned)a < PF_ADAPT_COUNT ? adapt_names[a] : "?"; }
const char *pf_weight_init_name(pf_weight_init i)
{
    return (unsigned)i < PF_WEIGHT_INIT_COUNT ? init_names[i] : "?";
}

static const char *activation_list(char *buf, size_t cap)
{
    const char *names[PF_NACTIVATIONS];
    for (int i = 0; i < PF_NACTIVATIONS; i++) names[i] = pf_unary_name(pf_activations[i]);
    return pf_name_join(buf, cap, names, PF_NACTIVATIONS);
}

const pf_arch_def *pf_arch_def_of(pf_arch a) { return (unsigned)a < PF_ARCH_COUNT ? &ARCHS[a] : NULL; }

const pf_arch_def *pf_arch_named(const char *name)
{
    int i;
    return pf_name_lookup("arch", name, arch_names, PF_ARCH_COUNT, &i) == PF_OK ? &ARCHS[i] : NULL;
}

pf_status pf_arch_from_name(const char *name, pf_arch *out)
{
    const pf_arch_def *d = pf_arch_named(name);
    if (!d) return PF_ERR_INVALID;
    *out = d->id;
    return PF_OK;
}

pf_status pf_adapt_from_name(const char *name, pf_adapt *out)
{
    int i;
    PF_TRY(pf_name_lookup("adapt", name, adapt_names, PF_ADAPT_COUNT, &i));
    *out = (pf_adapt)i;
    return PF_OK;
}

pf_status pf_weight_init_from_name(const char *name, pf_weight_init *out)
{
    int i;
    PF_TRY(pf_name_lookup("init", name, init_names, PF_WEIGHT_INIT_COUNT, &i));
    *out = (pf_weight_init)i;
    return PF_OK;
}

bool pf_activation_allowed(pf_unary_op op)
{
    for (int i = 0; i < PF_NACTIVATIONS; i++)
        if (pf_activations[i] == op) return true;
    return false;
}

pf_status pf_activation_from_name(const char *name, pf_unary_op *out)
{
    for (int i = 0; name && i < PF_NACTIVATIONS; i++)
        if (strcmp(name, pf_unary_name(pf_activations[i])) == 0) {
            *out = pf_activations[i];
            return PF_OK;
        }
    char buf[128];
    return pf_fail(PF_ERR_INVALID, "activation '%s' is unknown; allowed: %s", name ? name : "",
                   activation_list(buf, sizeof buf));
}

/* ----------------------------------------------------------------- config */

pf_model_config pf_model_config_default(int in_dim, int out_dim)
{
    pf_model_config c;
    memset(&c, 0, sizeof c);
    c.arch = PF_ARCH_MLP;
    c.in_dim = in_dim;
    c.out_dim = out_dim;
    c.depth = 5;
    c.width = 100;
    c.activation = PF_UNARY_TANH;
    c.init = PF_WEIGHT_INIT_GLOROT_NORMAL;
    c.adapt = PF_ADAPT_NONE;
    c.adapt_factor = 10;
    c.rwf = false;
    c.rwf_mean = 1.0;
    c.rwf_sigma = 0.1;
    c.normalize = false;
    for (int i = 0; i < PF_MODEL_MAX_IN; i++) {
        c.lo[i] = -1;
        c.hi[i] = 1;
        c.periodic[i] = false;
        c.period[i] = 0;
        c.harmonics[i] = 1;
    }
    c.fourier_features = 0;
    c.fourier_sigma = 1;
    c.fourier_trainable = false;
    c.fourier_scales = 1;
    c.fourier_ratio = 10;
    pf_pinnsformer_config pc = pf_pinnsformer_config_default(in_dim, out_dim);
    c.seq_len = pc.seq_len;
    c.seq_dt = pc.seq_dt;
    c.d_ff = pc.d_ff;
    c.d_hidden = pc.d_hidden;
    c.heads = pc.heads;
    return c;
}

static bool in_range(int v, int lo, int hi) { return v >= lo && v <= hi; }

static int embed_dim(const pf_model_config *c);

/* The PINNsFormer trunk behind the representation: its input is the
 * feature count, width is d_model and depth the layers. */
static pf_pinnsformer_config seq_config(const pf_model_config *c)
{
    pf_pinnsformer_config pc = {
        .in_dim = c->fourier_features > 0 ? 2 * c->fourier_features : embed_dim(c),
        .out_dim = c->out_dim, .seq_len = c->seq_len, .seq_dt = c->seq_dt, .d_model = c->width,
        .d_ff = c->d_ff, .d_hidden = c->d_hidden, .heads = c->heads, .layers = c->depth};
    return pc;
}

int pf_model_tokens(const pf_model_config *c) { return pf_arch_def_of(c->arch)->seq ? c->seq_len : 1; }

pf_status pf_model_config_check(const pf_model_config *c)
{
    char buf[128];
    if ((unsigned)c->arch >= PF_ARCH_COUNT)
        return pf_fail(PF_ERR_INVALID, "arch %d is unknown; allowed: %s", (int)c->arch,
                       pf_name_join(buf, sizeof buf, arch_names, PF_ARCH_COUNT));
    if (!in_range(c->in_dim, 1, PF_MODEL_MAX_IN))
        return pf_fail(PF_ERR_INVALID, "in_dim must be an integer in [1, %d] (got %d)",
                       PF_MODEL_MAX_IN, c->in_dim);
    if (!in_range(c->out_dim, 1, PF_MODEL_MAX_OUT))
        return pf_fail(PF_ERR_INVALID, "out_dim must be an integer in [1, %d] (got %d)",
                       PF_MODEL_MAX_OUT, c->out_dim);
    if (!in_range(c->depth, 1, PF_MODEL_MAX_DEPTH))
        return pf_fail(PF_ERR_INVALID, "depth must be an integer in [1, %d] (got %d)",
                       PF_MODEL_MAX_DEPTH, c->depth);
    const pf_arch_def *d = &ARCHS[c->arch];
    if (!in_range(c->depth, d->min_depth, d->max_depth))
        return pf_fail(PF_ERR_INVALID, "depth must be an integer in [%d, %d] for arch %s (got %d)", d->min_depth,
                       d->max_depth, d->name, c->depth);
    if (!in_range(c->width, 1, PF_MODEL_MAX_WIDTH))
        return pf_fail(PF_ERR_INVALID, "width must be an integer in [1, %d] (got %d)",
                       PF_MODEL_MAX_WIDTH, c->width);
    if ((unsigned)c->activation >= PF_UNARY_COUNT)
        return pf_fail(PF_ERR_INVALID, "activation %d is unknown; allowed: %s",
                       (int)c->activation, activation_list(buf, sizeof buf));
    if (!pf_activation_allowed(c->activation))
        return pf_fail(PF_ERR_INVALID, "activation '%s' is not allowed; allowed: %s",
                       pf_unary_name(c->activation), activation_list(buf, sizeof buf));
    if ((unsigned)c->init >= PF_WEIGHT_INIT_COUNT)
        return pf_fail(PF_ERR_INVALID, "init %d is unknown; allowed: %s", (int)c->init,
                       pf_name_join(buf, sizeof buf, init_names, PF_WEIGHT_INIT_COUNT));
    if ((unsigned)c->adapt >= PF_ADAPT_COUNT)
        return pf_fail(PF_ERR_INVALID, "adapt %d is unknown; allowed: %s", (int)c->adapt,
                       pf_name_join(buf, sizeof buf, adapt_names, PF_ADAPT_COUNT));
    if (c->adapt != PF_ADAPT_NONE && !(isfinite(c->adapt_factor) && c->adapt_factor > 0))
        return pf_fail(PF_ERR_INVALID,
                       "adapt_factor must be a positive finite number with adapt %s "
                       "(got %g)", pf_adapt_name(c->adapt), c->adapt_factor);
    if (c->rwf) {
        if (!isfinite(c->rwf_mean))
            return pf_fail(PF_ERR_INVALID, "rwf_mean must be a finite number (got %g)",
                           c->rwf_mean);
        if (!(isfinite(c->rwf_sigma) && c->rwf_sigma >= 0))
            return pf_fail(PF_ERR_INVALID, "rwf_sigma must be a finite number >= 0 (got %g)",
                           c->rwf_sigma);
        if (c->init != PF_WEIGHT_INIT_GLOROT_NORMAL)
            return pf_fail(PF_ERR_INVALID,
                           "init must be glorot_normal with rwf (V is Glorot normal / exp(s)) "
                           "(got %s)", pf_weight_init_name(c->init));
    }
    for (int i = 0; i < c->in_dim; i++) {
        if (c->periodic[i]) {
            if (!(isfinite(c->period[i]) && c->period[i] > 0))
                return pf_fail(PF_ERR_INVALID,
                               "period[%d] must be a positive finite number for periodic input "
                               "%d (got %g)", i, i, c->period[i]);
            if (!in_range(c->harmonics[i], 1, PF_MODEL_MAX_HARMONICS))
                return pf_fail(PF_ERR_INVALID,
                               "harmonics[%d] must be an integer in [1, %d] for periodic input "
                               "%d (got %d)", i, PF_MODEL_MAX_HARMONICS, i, c->harmonics[i]);
        } else if (c->normalize) {
            if (!(isfinite(c->lo[i]) && isfinite(c->hi[i]) && c->lo[i] < c->hi[i]))
                return pf_fail(PF_ERR_INVALID,
                               "lo[%d] and hi[%d] must be finite with lo < hi to normalize "
                               "input %d (got lo %g, hi %g)", i, i, i, c->lo[i], c->hi[i]);
        }
    }
    if (!in_range(c->fourier_features, 0, PF_MODEL_MAX_FOURIER))
        return pf_fail(PF_ERR_INVALID, "fourier_features must be an integer in [0, %d] (got %d)",
                       PF_MODEL_MAX_FOURIER, c->fourier_features);
    if (c->fourier_scales < 1 || c->fourier_scales > PF_MODEL_MAX_SCALES ||
        (c->fourier_features > 0 && c->fourier_scales > c->fourier_features))
        return pf_fail(PF_ERR_INVALID, "fourier_scales must be an integer in [1, %d] and at most fourier_features "
                       "(got %d scales for %d features)", PF_MODEL_MAX_SCALES, c->fourier_scales, c->fourier_features);
    if (c->fourier_scales > 1 && !(isfinite(c->fourier_ratio) && c->fourier_ratio > 1))
        return pf_fail(PF_ERR_INVALID, "fourier_ratio must be a finite number > 1 with several scales (got %g)",
                       c->fourier_ratio);
    if (c->fourier_features > 0 && !(isfinite(c->fourier_sigma) && c->fourier_sigma > 0))
        return pf_fail(PF_ERR_INVALID,
                       "fourier_sigma must be a positive finite number with fourier_features > 0 "
                       "(got %g)", c->fourier_sigma);
    return d->check ? d->check(c) : PF_OK;
}

/* Channels after normalisation and the periodic embedding (e). */
static int embed_dim(const pf_model_config *c)
{
    int e = 0;
    for (int i = 0; i < c->in_dim; i++) e += c->periodic[i] ? 2 * c->harmonics[i] : 1;
    return e;
}

int pf_model_config_features(const pf_model_config *c)
{
    if (pf_model_config_check(c) != PF_OK) return 0;
    return c->fourier_features > 0 ? 2 * c->fourier_features : embed_dim(c);
}

/* Dense hidden layers in forward order, the encoders excluded (0 for a
 * sequence model). */
static int hidden_count(const pf_model_config *c)
{
    const pf_arch_def *d = &ARCHS[c->arch];
    return d->pre + d->per_depth * c->depth;
}

size_t pf_model_config_nparams(const pf_model_config *c)
{
    if (pf_model_config_check(c) != PF_OK) return 0;
    size_t ff = c->fourier_features > 0 && c->fourier_trainable ? (size_t)c->fourier_features * (size_t)embed_dim(c) : 0;
    return ARCHS[c->arch].nparams(c) + ff;
}

/* The dense architectures' count (model.h's formulas). */
static size_t dense_nparams(const pf_model_config *c)
{
    size_t d0 = (size_t)pf_model_config_features(c), w = (size_t)c->width;
    size_t extra = c->rwf ? 1 : 0, slope = c->adapt == PF_ADAPT_LAYERWISE ? 1 : 0;
#define LIN(a, b) ((a) * (b) + (b) + extra * (b))
    size_t n = LIN(d0, w) + (size_t)(hidden_count(c) - 1) * LIN(w, w) + LIN(w, (size_t)c->out_dim);
    n += (size_t)hidden_count(c) * slope;
    n += (size_t)ARCHS[c->arch].encoders * (LIN(d0, w) + slope);
    if (c->adapt == PF_ADAPT_GLOBAL) n += 1;
#undef LIN
    return n;
}

/* ---------------------------------------------------- the sequence model */

/* PINNsFormer's WaveActs take neither adaptation nor rwf. */
static pf_status seq_check(const pf_model_config *c)
{
    if (c->adapt != PF_ADAPT_NONE || c->rwf)
        return pf_fail(PF_ERR_INVALID, "arch %s takes no adaptive activation and no rwf (its activations are "
                       "WaveActs with their own trainable weights)", ARCHS[c->arch].name);
    pf_pinnsformer_config pc = seq_config(c);
    return pf_pinnsformer_config_check(&pc) != PF_OK ? PF_ERR_INVALID : PF_OK;
}

static size_t seq_nparams(const pf_model_config *c)
{
    pf_pinnsformer_config pc = seq_config(c);
    return pf_pinnsformer_nparams(&pc);
}

static pf_status seq_alloc(pf_model *m)
{
    pf_pinnsformer_config pc = seq_config(&m->cfg);
    m->seq = pf_pinnsformer_alloc(m->g, &pc);
    return m->seq ? PF_OK : PF_ERR_NOMEM;
}

/* Token 0 of the point's tokens. */
static pf_node *seq_apply(pf_model *m, pf_graph *g, pf_node *x)
{
    const pf_model_config *c = &m->cfg;
    pf_node *s = pf_tokens(g, x, c->seq_len, (pf_real)c->seq_dt);
    return pf_pinnsformer_apply_seq_token(m->seq, g, pf_model_embed(m, g, s), 0);
}

/* ------------------------------------------------------------------ model */

/* Register one linear layer named `name` (in -> out), with a slope when it is
 * followed by an adaptive activation. The rwf scale comes before its V: the
 * engine initialises V from the already drawn s. */
static layer add_layer(pf_graph *g, const pf_model_config *c, const char *name, int in, int out,
                       bool activated)
{
    char nm[48];
    layer L = {-1, -1, -1, -1};
    if (c->rwf) {
        snprintf(nm, sizeof nm, "%s.s", name);
        L.s = pf_param(g, nm, out, 1, PF_PARAM_TRAINABLE, pf_init_normal(c->rwf_mean, c->rwf_sigma));
    }
    pf_init wi = pf_init_glorot_normal();
    switch (c->init) {
    case PF_WEIGHT_INIT_GLOROT_NORMAL: wi = pf_init_glorot_normal(); break;
    case PF_WEIGHT_INIT_GLOROT_UNIFORM: wi = pf_init_glorot_uniform(); break;
    case PF_WEIGHT_INIT_HE_NORMAL: wi = pf_init_he_normal(); break;
    case PF_WEIGHT_INIT_HE_UNIFORM: wi = pf_init_he_uniform(); break;
    case PF_WEIGHT_INIT_ZEROS: wi = pf_init_zero(); break;
    case PF_WEIGHT_INIT_COUNT: PF_ABORT("bad init");
    }
    if (c->rwf) wi = pf_init_rwf_v(L.s); /* pf_model_config_check: rwf needs glorot_normal */
    snprintf(nm, sizeof nm, "%s.W", name);
    L.W = pf_param(g, nm, out, in, PF_PARAM_TRAINABLE, wi);
    snprintf(nm, sizeof nm, "%s.b", name);
    L.b = pf_param(g, nm, 1, out, PF_PARAM_TRAINABLE, pf_init_zero());
    if (activated && c->adapt == PF_ADAPT_LAYERWISE) {
        snprintf(nm, sizeof nm, "%s.a", name);
        L.a = pf_param(g, nm, 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1.0 / c->adapt_factor));
    }
    return L;
}

pf_model *pf_model_alloc(pf_graph *g, const pf_model_config *cfg)
{
    if (pf_model_config_check(cfg) != PF_OK) return NULL;
    const pf_model_config *c = cfg;
    int nh = hidden_count(c);
    pf_model *m = calloc(1, sizeof *m);
    layer *hidden = calloc((size_t)nh + 1, sizeof *hidden);
    if (!m || !hidden) {
        free(m);
        free(hidden);
        pf_fail(PF_ERR_NOMEM, "out of memory allocating a model");
        return NULL;
    }
    m->cfg = *c;
    m->g = g;
    m->nhidden = nh;
    m->hidden = hidden;
    for (int k = 0; k < PF_MODEL_MAX_SCALES; k++) m->B[k] = -1;

    int e = embed_dim(c), S = c->fourier_features > 0 ? c->fourier_scales : 0;
    double sigma = c->fourier_sigma;
    for (int k = 0; k < S; k++, sigma *= c->fourier_ratio) {
        int rows = c->fourier_features / S + (k < c->fourier_features % S);
        char name[32];
        snprintf(name, sizeof name, S == 1 ? "fourier.B" : "fourier.B%d", k);
        m->B[k] = pf_param(g, name, rows, e, c->fourier_trainable ? PF_PARAM_TRAINABLE : PF_PARAM_FROZEN,
                           pf_init_normal(0, TWO_PI * sigma));
    }
    if (ARCHS[c->arch].alloc(m) != PF_OK) {
        pf_model_free(m);
        return NULL;
    }
    return m;
}

/* The dense architectures' parameters: the encoders, the hidden layers,
 * the output layer, then the global slope. */
static pf_status dense_alloc(pf_model *m)
{
    static const char *const enc_names[ENCODERS] = {"U", "V"};
    const pf_model_config *c = &m->cfg;
    pf_graph *g = m->g;
    int d0 = pf_model_config_features(c), w = c->width, nenc = ARCHS[c->arch].encoders;
    for (int k = 0; k < nenc; k++) m->enc[k] = add_layer(g, c, enc_names[k], d0, w, true);
    for (int k = 0; k < m->nhidden; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "h%d", k + 1);
        m->hidden[k] = add_layer(g, c, nm, k == 0 ? d0 : w, w, true);
    }
    m->out = add_layer(g, c, "out", w, c->out_dim, false);
    if (c->adapt == PF_ADAPT_GLOBAL) {
        /* GAAF: one slope, registered last so that every other parameter
         * keeps the id (and the initial values) it has without adaptation */
        int a = pf_param(g, "act.a", 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1.0 / c->adapt_factor));
        for (int k = 0; k < m->nhidden; k++) m->hidden[k].a = a;
        for (int k = 0; k < nenc; k++) m->enc[k].a = a;
    }
    return PF_OK;
}

void pf_model_free(pf_model *m)
{
    if (!m) return;
    pf_pinnsformer_free(m->seq);
    free(m->hidden);
    free(m);
}

const pf_model_config *pf_model_cfg(const pf_model *m) { return &m->cfg; }

/* ------------------------------------------------------------- building */

pf_node *pf_model_embed(pf_model *m, pf_graph *g, pf_node *x)
{
    const pf_model_config *c = &m->cfg;
    PF_ASSERT_MSG(g == m->g, "pf_model_apply: the model belongs to another graph");
    PF_ASSERT_MSG(pf_node_c(x) == c->in_dim, "pf_model_apply: input has %d channels, model expects %d",
                  pf_node_c(x), c->in_dim);
    int d = c->in_dim;
    bool any_periodic = false, any_plain = false;
    for (int i = 0; i < d; i++) {
        any_periodic |= c->periodic[i];
        any_plain |= !c->periodic[i];
    }

    /* 1. normalisation of the non-periodic inputs: one affine node */
    pf_node *h = x;
    if (c->normalize && any_plain) {
        pf_real scale[PF_MODEL_MAX_IN], shift[PF_MODEL_MAX_IN];
        for (int i = 0; i < d; i++) {
            double s = c->periodic[i] ? 1 : 2 / (c->hi[i] - c->lo[i]);
            scale[i] = (pf_real)s;
            shift[i] = (pf_real)(c->periodic[i] ? 0 : -1 - s * c->lo[i]);
        }
        h = pf_affine(g, h, scale, shift);
    }

    /* 2. periodic embedding: runs of plain inputs pass through as one slice;
     * a periodic input becomes H copies scaled by k w (one affine), then cos
     * and sin of them. */
    if (any_periodic) {
        pf_node *pieces[2 * PF_MODEL_MAX_IN];
        int np = 0;
        for (int i = 0; i < d;) {
            if (!c->periodic[i]) {
                int j = i;
                while (j < d && !c->periodic[j]) j++;
                pieces[np++] = (i == 0 && j == d) ? h : pf_slice(g, h, i, j - i);
                i = j;
                continue;
            }
            int H = c->harmonics[i];
            pf_node *xi = d == 1 ? h : pf_slice(g, h, i, 1);
            pf_node *copies[PF_MODEL_MAX_HARMONICS];
            pf_real scale[PF_MODEL_MAX_HARMONICS];
            for (int k = 0; k < H; k++) {
                copies[k] = xi;
                scale[k] = (pf_real)(TWO_PI * (k + 1) / c->period[i]);
            }
            pf_node *rep = H == 1 ? xi : pf_concat(g, H, copies);
            pf_node *arg = pf_affine(g, rep, scale, NULL);
            pieces[np++] = pf_unary(g, PF_UNARY_COS, arg, 0);
            pieces[np++] = pf_unary(g, PF_UNARY_SIN, arg, 0);
            i++;
        }
        h = pf_concat(g, np, pieces);
    }

    /* 3. Fourier features; the parameter already holds 2 pi B */
    if (m->B[0] >= 0) {
        pf_node *cs[2 * PF_MODEL_MAX_SCALES];
        int n = 0;
        for (int k = 0; k < PF_MODEL_MAX_SCALES && m->B[k] >= 0; k++) {
            pf_node *z = pf_linear(g, h, m->B[k], -1);
            cs[n++] = pf_unary(g, PF_UNARY_COS, z, 0);
            cs[n++] = pf_unary(g, PF_UNARY_SIN, z, 0);
        }
        h = pf_concat(g, n, cs);
    }
    return h;
}

/* linear (rwf-factorised or not), then optionally act(n a z) */
static pf_node *dense(const pf_model *m, pf_graph *g, const layer *L, pf_node *x, bool activated)
{
    pf_node *z = L->s >= 0 ? pf_linear_rwf(g, x, L->W, L->s, L->b) : pf_linear(g, x, L->W, L->b);
    if (!activated) return z;
    if (L->a >= 0) z = pf_scale_param(g, z, L->a, (pf_real)m->cfg.adapt_factor);
    return pf_unary(g, m->cfg.activation, z, 0);
}

pf_node *pf_model_apply_seq(pf_model *m, pf_graph *g, pf_node *s)
{
    if (!m->seq) return pf_model_apply(m, g, s);
    return pf_pinnsformer_apply_seq(m->seq, g, pf_model_embed(m, g, s));
}

pf_node *pf_model_apply(pf_model *m, pf_graph *g, pf_node *x) { return ARCHS[m->cfg.arch].apply(m, g, x); }

static pf_node *mlp_apply(pf_model *m, pf_graph *g, pf_node *x)
{
    pf_node *h = pf_model_embed(m, g, x);
    for (int k = 0; k < m->nhidden; k++) h = dense(m, g, &m->hidden[k], h, true);
    return dense(m, g, &m->out, h, false);
}

/* H_k = (1 - Z) U + Z V = U + Z (V - U): one mul and one add per layer */
static pf_node *modified_mlp_apply(pf_model *m, pf_graph *g, pf_node *x)
{
    pf_node *e = pf_model_embed(m, g, x);
    pf_node *U = dense(m, g, &m->enc[0], e, true);
    pf_node *V = dense(m, g, &m->enc[1], e, true);
    pf_node *D = pf_sub(g, V, U);
    pf_node *h = dense(m, g, &m->hidden[0], e, true);
    for (int k = 1; k < m->nhidden; k++) {
        pf_node *Z = dense(m, g, &m->hidden[k], h, true);
        h = pf_add(g, U, pf_mul(g, Z, D));
    }
    return dense(m, g, &m->out, h, false);
}

static pf_node *resnet_apply(pf_model *m, pf_graph *g, pf_node *x)
{
    pf_node *h = dense(m, g, &m->hidden[0], pf_model_embed(m, g, x), true);
    for (int k = 1; k + 1 < m->nhidden; k += 2) {
        pf_node *t = dense(m, g, &m->hidden[k], h, true);
        t = dense(m, g, &m->hidden[k + 1], t, true);
        h = pf_add(g, h, t);
    }
    return dense(m, g, &m->out, h, false);
}
