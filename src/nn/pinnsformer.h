/*
 * pinnsformer.h — PINNsFormer's network (Zhao et al., ICLR 2024; the
 * released AdityaLab/pinnsformer model/pinnsformer.py), built from the
 * engine's graph ops: pf_tokens, pf_linear, pf_waveact, pf_attention,
 * pf_token_select.
 *
 * On an input x (n points x in_dim, any jet layout WITHOUT collapsed
 * streams: attention takes none), with a(.) a WaveAct of its own at every
 * place it appears and L(a -> b) a linear layer:
 *     s   = tokens(x, seq_len, seq_dt)         n seq_len rows; the last
 *                                              input shifted by i seq_dt
 *     e   = L_emb(in_dim -> d_model) s
 *     enc = e; per encoder layer:
 *           enc = enc + MHA(a(enc), a(enc), a(enc))      (the same a(enc))
 *           enc = enc + FF(a(enc))
 *     enc = a(enc)                                        final WaveAct
 *     dec = e; per decoder layer:
 *           dec = dec + MHA(a(dec), enc, enc)             cross-attention
 *           dec = dec + FF(a(dec))
 *     dec = a(dec)
 *     u   = L(d_model -> d_hidden), a, L(d_hidden -> d_hidden), a,
 *           L(d_hidden -> out_dim) on dec, per token
 * with FF = L(d_model -> d_ff), a, L(d_ff -> d_ff), a, L(d_ff -> d_model)
 * and MHA(q, k, v) = L_o(attention(L_q q, L_k k, L_v v)) with `heads` heads
 * over the seq_len tokens of each point (d_model x d_model projections with
 * biases, as torch's nn.MultiheadAttention). Initialization as the released
 * demos leave it (model.apply(init_weights) on every nn.Linear, then torch's
 * own MHA defaults): every Linear, the attention's output projection
 * included, Xavier (Glorot) uniform weights and biases 0.01; L_q, L_k, L_v,
 * the blocks of torch's packed 3 d_model x d_model in_proj_weight, uniform
 * within the packed matrix's one Xavier bound sqrt(6 / (4 d_model))
 * (pf_pinnsformer_in_proj_bound) with biases 0; WaveAct's w1 = w2 = 1.
 *
 * pf_pinnsformer_apply_tokens gives every token's output (n seq_len rows:
 * the residual and boundary losses of the released code use all tokens);
 * pf_pinnsformer_apply gives token 0 (n rows: evaluation and the initial
 * condition), selected before the head, which then runs on n rows.
 *
 * Trainable count (pf_pinnsformer_nparams), lin(a, b) = a b + b, 2 per
 * WaveAct, layer = 4 lin(dm, dm) + lin(dm, ff) + lin(ff, ff) + lin(ff, dm)
 * + 4 WaveActs (two inside FF, two before the sub-blocks):
 *     lin(in, dm) + layers (enc + dec) + 2 (two final WaveActs)
 *     + lin(dm, hid) + lin(hid, hid) + lin(hid, out) + 4
 * For the released sizes (in 2, out 1, d_model 32, d_ff 256, d_hidden
 * 512, 2 heads, one layer each) this is 453,561: the released structure
 * counted module by module, the number the released demo prints
 * (docs/baselines.md, "PINNsFormer: parameter count"; issue 18 quoted
 * 453,553, which leaves out four WaveActs).
 */
#ifndef PF_NN_PINNSFORMER_H
#define PF_NN_PINNSFORMER_H

#include <stddef.h>

#include "core/status.h"
#include "tensor/graph.h"

typedef struct pf_pinnsformer_config {
    int in_dim, out_dim;   /* 1..16, 1..64 */
    int seq_len;           /* k, tokens per point, 1..16 (released: 5) */
    double seq_dt;         /* the last input's shift per token (released: 1e-4) */
    int d_model, d_ff, d_hidden; /* 32, 256, 512 released; each 1..4096 */
    int heads;             /* divides d_model (released: 2) */
    int layers;            /* encoder layers = decoder layers, 1..8 (released: 1) */
} pf_pinnsformer_config;

/* The released sizes for in_dim -> out_dim. */
pf_pinnsformer_config pf_pinnsformer_config_default(int in_dim, int out_dim);

/* PF_OK, or PF_ERR_INVALID naming the first bad field in pf_errmsg(). */
pf_status pf_pinnsformer_config_check(const pf_pinnsformer_config *cfg);

/* Trainable scalars (above); 0 if the config is invalid. */
size_t pf_pinnsformer_nparams(const pf_pinnsformer_config *cfg);

/* The bound of L_q, L_k and L_v's uniform initial weights: torch's
 * xavier_uniform_ over the packed 3 d x d in_proj_weight, sqrt(6 / (4 d)). */
double pf_pinnsformer_in_proj_bound(int d_model);

typedef struct pf_pinnsformer pf_pinnsformer;

/* Check cfg and register the parameters in g (not compiled yet); NULL with
 * the reason in pf_errmsg() if the config is invalid or memory runs out. */
pf_pinnsformer *pf_pinnsformer_alloc(pf_graph *g, const pf_pinnsformer_config *cfg);

/* Every token's output: (n seq_len) x out_dim, x's layout. */
pf_node *pf_pinnsformer_apply_tokens(pf_pinnsformer *m, pf_graph *g, pf_node *x);

/* The same on rows that are tokens already (s: seq_len consecutive rows
 * per point, as pf_tokens makes them). */
pf_node *pf_pinnsformer_apply_seq(pf_pinnsformer *m, pf_graph *g, pf_node *s);

/* Token i's output of rows that are tokens already: n x out_dim, the same
 * values as token i of pf_pinnsformer_apply_seq. The head works on each
 * token alone, so it runs after the selection, on n rows instead of
 * n seq_len. */
pf_node *pf_pinnsformer_apply_seq_token(pf_pinnsformer *m, pf_graph *g, pf_node *s, int i);

/* Token 0's output: n x out_dim (the prediction at the points themselves). */
pf_node *pf_pinnsformer_apply(pf_pinnsformer *m, pf_graph *g, pf_node *x);

/* Free the bookkeeping; parameters and nodes stay in the graph. */
void pf_pinnsformer_free(pf_pinnsformer *m);

#endif
