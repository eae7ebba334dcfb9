/*
 * node.h — the graph node, shared by the graph and the backends (internal:
 * model and PDE code use graph.h only).
 *
 * Chunks: nodes whose points are connected by pointwise ops form a family
 * (cls). A node holds rpp rows per point of its family (1, or k after
 * pf_tokens), so a chunk of points is rpp times as many of its rows. A family that feeds a loss may be processed in chunks of points;
 * then n is the current chunk's size (<= n_cap) and every op loops over n
 * points, while reductions normalise by n_full. Streams are laid out for the
 * current n ([S][n][c]), so a shorter last chunk just uses less buffer.
 *
 * Gradient flow: backward visits nodes in reverse order. The first consumer
 * (in that order) of a node writes its gradient buffer, later ones add to it
 * (in_acc[i] = 0 / 1), so no gradient buffer is ever cleared. Parameter
 * gradients are accumulated into the flat gradient buffer, which backward
 * clears once.
 */
#ifndef PF_TENSOR_NODE_H
#define PF_TENSOR_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "tensor/graph.h"
#include "tensor/jet.h"

typedef enum pf_op {
    PF_OP_INPUT,
    PF_OP_PARAM_FIELD,
    PF_OP_LINEAR,
    PF_OP_LINEAR_RWF,
    PF_OP_UNARY,
    PF_OP_MUL,
    PF_OP_ADD,
    PF_OP_SUB,
    PF_OP_AFFINE,
    PF_OP_SCALE_PARAM,
    PF_OP_CONCAT,
    PF_OP_SLICE,
    PF_OP_DERIV,
    PF_OP_MEAN_SQUARE,
    PF_OP_WAVEACT,
    PF_OP_TOKENS,
    PF_OP_ATTENTION,
    PF_OP_TOKEN_SELECT,
    PF_OP_COUNT
} pf_op;

const char *pf_op_name(pf_op op);

#define PF_NODE_MAX_PARAMS 3

struct pf_node {
    int id;
    pf_op op;
    char name[32];          /* inputs: the builder's name, for messages */
    int n, c, S;            /* points in the current chunk, channels, streams */
    int n_full;             /* points in all (what the builder was given) */
    int n_cap;              /* points the buffers hold: n_full, or a chunk's */
    int cls;                /* point family: nodes that go through chunks together */
    int rpp;                /* rows per point of the family: 1, times k per pf_tokens;
                               n, n_full, n_cap and off count rows */
    int off;                /* first point of the current chunk */
    bool idle;              /* skipped in the current chunk */
    pf_jet_layout layout;
    int nin;
    struct pf_node **in;    /* inputs */
    bool *in_acc;           /* per input: accumulate (true) or overwrite its grad */

    /* op arguments */
    pf_unary_op unary;
    pf_real p;              /* unary exponent; scale factor */
    int param[PF_NODE_MAX_PARAMS]; /* parameter ids, -1 = none */
    int i0;                 /* deriv: source stream; slice: first channel */
    pf_real *vec;           /* affine: scale[c] then shift[c]; input: dirs[ndir][c] (host) */
    int nvec;               /* elements of vec copied to cvec (affine; 0 for inputs) */

    /* resolved by compile */
    pf_real *val;           /* [S][n][c] */
    pf_real *grad;          /* [S][n][c], NULL when no gradient flows here */
    pf_real *scratch;       /* op workspace, sized by the backend's scratch_bytes() */
    pf_real *cvec;          /* vec copied into backend memory (NULL when nvec = 0) */
    pf_real *stage;         /* input of a chunked family: all n_full x c values */
    int seeded_n;           /* input: the point count its derivative streams are laid out for */
    pf_real *pw[PF_NODE_MAX_PARAMS];   /* parameter data */
    pf_real *pg[PF_NODE_MAX_PARAMS];   /* parameter gradients, NULL if frozen */
    bool needs_grad;        /* depends on a trainable parameter and reaches a loss */
    bool feeds_loss;        /* some loss depends on it (else: evaluation only) */

    /* constant folding (graph.h, pf_graph_prepare) */
    bool fold;              /* depends on inputs and frozen parameters only, and feeds a
                               loss: computed by the prepare pass, never in a step */
    bool cached;            /* a fold node some step node reads: one buffer per chunk */
    bool stale;             /* input: set since the last prepare; fold node: to recompute */
    pf_real *val0;          /* cached: chunk 0's buffer; chunk k's is val0 + k * slot */
    size_t slot;            /* cached: elements between two chunks' buffers */
};

/* Elements of one stream / of the whole buffer. */
static inline size_t pf_node_stream_len(const struct pf_node *x) { return (size_t)x->n * x->c; }
static inline size_t pf_node_len(const struct pf_node *x) { return (size_t)x->S * x->n * x->c; }

/* Whether a unary op's backward takes f_0 from the output (y->val) instead
 * of recomputing it from the input; every backend uses this one list. */
static inline bool pf_unary_reuses_output(pf_unary_op op)
{
    return op == PF_UNARY_TANH || op == PF_UNARY_EXP || op == PF_UNARY_LOG || op == PF_UNARY_POW ||
           op == PF_UNARY_SQRT || op == PF_UNARY_RECIP;
}

#endif
