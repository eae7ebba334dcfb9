/*
 * PINNsFormer's network from graph ops (pinnsformer.h). Parameters are
 * registered once, in forward order, under names like "enc0.attn.Wq",
 * "enc0.ff.a1.w1", "dec0.act1.w2", "out.W2"; every application reuses them.
 */
#include "nn/pinnsformer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_LAYERS 8

typedef struct lin {
    int W, b;
} lin;

typedef struct wave {
    int w1, w2;
} wave;

typedef struct layer {
    wave act1, act2, ff_a1, ff_a2;
    lin q, k, v, o, ff1, ff2, ff3;
} layer;

struct pf_pinnsformer {
    pf_graph *g;
    pf_pinnsformer_config cfg;
    lin emb, out1, out2, out3;
    layer enc[MAX_LAYERS], dec[MAX_LAYERS];
    wave enc_act, dec_act, out_a1, out_a2;
};

pf_pinnsformer_config pf_pinnsformer_config_default(int in_dim, int out_dim)
{
    pf_pinnsformer_config c = {.in_dim = in_dim, .out_dim = out_dim, .seq_len = 5, .seq_dt = 1e-4,
                               .d_model = 32, .d_ff = 256, .d_hidden = 512, .heads = 2, .layers = 1};
    return c;
}

static pf_status check_int(const char *name, int v, int lo, int hi)
{
    if (v < lo || v > hi)
        return pf_fail(PF_ERR_INVALID, "%s must be an integer in [%d, %d] (got %d)", name, lo, hi, v);
    return PF_OK;
}

pf_status pf_pinnsformer_config_check(const pf_pinnsformer_config *c)
{
    PF_TRY(check_int("in_dim", c->in_dim, 1, 16));
    PF_TRY(check_int("out_dim", c->out_dim, 1, 64));
    PF_TRY(check_int("seq_len", c->seq_len, 1, 16));
    PF_TRY(check_int("d_model", c->d_model, 1, 4096));
    PF_TRY(check_int("d_ff", c->d_ff, 1, 4096));
    PF_TRY(check_int("d_hidden", c->d_hidden, 1, 4096));
    PF_TRY(check_int("heads", c->heads, 1, c->d_model));
    PF_TRY(check_int("layers", c->layers, 1, MAX_LAYERS));
    if (c->d_model % c->heads)
        return pf_fail(PF_ERR_INVALID, "heads must divide d_model (%d heads, d_model %d)", c->heads,
                       c->d_model);
    if (!isfinite(c->seq_dt))
        return pf_fail(PF_ERR_INVALID, "seq_dt must be a finite number (got %g)", c->seq_dt);
    return PF_OK;
}

static size_t nlin(size_t a, size_t b) { return a * b + b; }

size_t pf_pinnsformer_nparams(const pf_pinnsformer_config *c)
{
    if (pf_pinnsformer_config_check(c) != PF_OK) return 0;
    size_t dm = (size_t)c->d_model, ff = (size_t)c->d_ff, hid = (size_t)c->d_hidden;
    size_t per_layer = 4 * nlin(dm, dm) + nlin(dm, ff) + nlin(ff, ff) + nlin(ff, dm) + 4 * 2;
    return nlin((size_t)c->in_dim, dm) + 2 * (size_t)c->layers * per_layer + 2 * 2 + nlin(dm, hid) +
           nlin(hid, hid) + nlin(hid, (size_t)c->out_dim) + 2 * 2;
}

static lin reg_lin_init(pf_graph *g, const char *name, int in, int out, pf_init w, pf_init b)
{
    char n[64];
    lin l;
    snprintf(n, sizeof n, "%s.W", name);
    l.W = pf_param(g, n, out, in, PF_PARAM_TRAINABLE, w);
    snprintf(n, sizeof n, "%s.b", name);
    l.b = pf_param(g, n, 1, out, PF_PARAM_TRAINABLE, b);
    return l;
}

/* An nn.Linear as the released demos initialise it (init_weights):
 * Xavier-uniform weights, biases 0.01. */
static lin reg_lin(pf_graph *g, const char *name, int in, int out)
{
    return reg_lin_init(g, name, in, out, pf_init_glorot_uniform(), pf_init_const(0.01));
}

/* One of Q, K, V: a d x d block of torch's packed in_proj_weight (3d x d),
 * which nn.MultiheadAttention draws with xavier_uniform_ over the packed
 * matrix, bound sqrt(6 / (d + 3d)), and whose in_proj_bias starts at 0. The
 * demos' init_weights does not reach them (they are not an nn.Linear). */
static lin reg_in_proj(pf_graph *g, const char *name, int d)
{
    double l = pf_pinnsformer_in_proj_bound(d);
    return reg_lin_init(g, name, d, d, pf_init_uniform(-l, l), pf_init_zero());
}

double pf_pinnsformer_in_proj_bound(int d_model) { return sqrt(6.0 / (4.0 * d_model)); }

static wave reg_wave(pf_graph *g, const char *name)
{
    char n[64];
    wave w;
    snprintf(n, sizeof n, "%s.w1", name);
    w.w1 = pf_param(g, n, 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
    snprintf(n, sizeof n, "%s.w2", name);
    w.w2 = pf_param(g, n, 1, 1, PF_PARAM_TRAINABLE, pf_init_const(1));
    return w;
}

/* One encoder or decoder layer's parameters, in forward order. */
static void reg_layer(pf_graph *g, const pf_pinnsformer_config *c, const char *pre, layer *L)
{
    char n[48];
#define NAME(s) (snprintf(n, sizeof n, "%s.%s", pre, s), n)
    L->act1 = reg_wave(g, NAME("act1"));
    L->q = reg_in_proj(g, NAME("attn.q"), c->d_model);
    L->k = reg_in_proj(g, NAME("attn.k"), c->d_model);
    L->v = reg_in_proj(g, NAME("attn.v"), c->d_model);
    /* out_proj is an nn.Linear subclass: the demos' init_weights reaches it */
    L->o = reg_lin(g, NAME("attn.o"), c->d_model, c->d_model);
    L->act2 = reg_wave(g, NAME("act2"));
    L->ff1 = reg_lin(g, NAME("ff.l1"), c->d_model, c->d_ff);
    L->ff_a1 = reg_wave(g, NAME("ff.a1"));
    L->ff2 = reg_lin(g, NAME("ff.l2"), c->d_ff, c->d_ff);
    L->ff_a2 = reg_wave(g, NAME("ff.a2"));
    L->ff3 = reg_lin(g, NAME("ff.l3"), c->d_ff, c->d_model);
#undef NAME
}

pf_pinnsformer *pf_pinnsformer_alloc(pf_graph *g, const pf_pinnsformer_config *cfg)
{
    if (pf_pinnsformer_config_check(cfg) != PF_OK) return NULL;
    pf_pinnsformer *m = calloc(1, sizeof *m);
    if (!m) {
        pf_fail(PF_ERR_NOMEM, "out of memory allocating a pinnsformer");
        return NULL;
    }
    m->g = g;
    m->cfg = *cfg;
    m->emb = reg_lin(g, "emb", cfg->in_dim, cfg->d_model);
    for (int l = 0; l < cfg->layers; l++) {
        char pre[16];
        snprintf(pre, sizeof pre, "enc%d", l);
        reg_layer(g, cfg, pre, &m->enc[l]);
    }
    m->enc_act = reg_wave(g, "enc.act");
    for (int l = 0; l < cfg->layers; l++) {
        char pre[16];
        snprintf(pre, sizeof pre, "dec%d", l);
        reg_layer(g, cfg, pre, &m->dec[l]);
    }
    m->dec_act = reg_wave(g, "dec.act");
    m->out1 = reg_lin(g, "out.l1", cfg->d_model, cfg->d_hidden);
    m->out_a1 = reg_wave(g, "out.a1");
    m->out2 = reg_lin(g, "out.l2", cfg->d_hidden, cfg->d_hidden);
    m->out_a2 = reg_wave(g, "out.a2");
    m->out3 = reg_lin(g, "out.l3", cfg->d_hidden, cfg->out_dim);
    return m;
}

static pf_node *L_(pf_graph *g, pf_node *x, lin l) { return pf_linear(g, x, l.W, l.b); }
static pf_node *A_(pf_graph *g, pf_node *x, wave w) { return pf_waveact(g, x, w.w1, w.w2); }

/* x + MHA(a1(x), kv, kv) (kv = NULL: self-attention on a1(x)), then
 * x + FF(a2(x)). */
static pf_node *apply_layer(const pf_pinnsformer *m, pf_graph *g, const layer *L, pf_node *x, pf_node *kv)
{
    const pf_pinnsformer_config *c = &m->cfg;
    pf_node *x2 = A_(g, x, L->act1), *src = kv ? kv : x2;
    pf_node *att = pf_attention(g, L_(g, x2, L->q), L_(g, src, L->k), L_(g, src, L->v), c->seq_len, c->heads);
    x = pf_add(g, x, L_(g, att, L->o));
    pf_node *f = L_(g, A_(g, L_(g, A_(g, L_(g, A_(g, x, L->act2), L->ff1), L->ff_a1), L->ff2), L->ff_a2), L->ff3);
    return pf_add(g, x, f);
}

/* Embedding, encoder and decoder: a(dec), every token's d_model channels. */
static pf_node *trunk(pf_pinnsformer *m, pf_graph *g, pf_node *s)
{
    const pf_pinnsformer_config *c = &m->cfg;
    PF_ASSERT_MSG(g == m->g, "pinnsformer: applied to another graph than its parameters'");
    PF_ASSERT_MSG(pf_node_c(s) == c->in_dim, "pinnsformer: input has %d channels, in_dim is %d",
                  pf_node_c(s), c->in_dim);
    pf_node *e = L_(g, s, m->emb);
    pf_node *enc = e;
    for (int l = 0; l < c->layers; l++) enc = apply_layer(m, g, &m->enc[l], enc, NULL);
    enc = A_(g, enc, m->enc_act);
    pf_node *dec = e;
    for (int l = 0; l < c->layers; l++) dec = apply_layer(m, g, &m->dec[l], dec, enc);
    return A_(g, dec, m->dec_act);
}

/* The output head, row by row (no op in it mixes tokens). */
static pf_node *head(pf_pinnsformer *m, pf_graph *g, pf_node *dec)
{
    pf_node *h = A_(g, L_(g, A_(g, L_(g, dec, m->out1), m->out_a1), m->out2), m->out_a2);
    return L_(g, h, m->out3);
}

pf_node *pf_pinnsformer_apply_seq(pf_pinnsformer *m, pf_graph *g, pf_node *s)
{
    return head(m, g, trunk(m, g, s));
}

pf_node *pf_pinnsformer_apply_seq_token(pf_pinnsformer *m, pf_graph *g, pf_node *s, int i)
{
    return head(m, g, pf_token_select(g, trunk(m, g, s), m->cfg.seq_len, i));
}

pf_node *pf_pinnsformer_apply_tokens(pf_pinnsformer *m, pf_graph *g, pf_node *x)
{
    return pf_pinnsformer_apply_seq(m, g, pf_tokens(g, x, m->cfg.seq_len, (pf_real)m->cfg.seq_dt));
}

pf_node *pf_pinnsformer_apply(pf_pinnsformer *m, pf_graph *g, pf_node *x)
{
    return pf_pinnsformer_apply_seq_token(m, g, pf_tokens(g, x, m->cfg.seq_len, (pf_real)m->cfg.seq_dt), 0);
}

void pf_pinnsformer_free(pf_pinnsformer *m) { free(m); }
