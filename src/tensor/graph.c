#include "tensor/graph.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "tensor/node.h"

typedef struct param_info {
    char name[48];
    int rows, cols;
    unsigned flags;
    pf_init init;
    size_t offset; /* in the trainable or the frozen buffer */
} param_info;

typedef struct loss_info {
    char name[48];
    pf_node *node;
    double value;
} loss_info;

struct pf_graph {
    const pf_backend *be;
    pf_node **nodes;
    int nnodes, cap_nodes;
    param_info *params;
    int nparam, cap_params;
    loss_info *losses;
    int nloss, cap_losses;
    size_t ntrain, nfrozen; /* scalars */
    bool compiled;
    bool keep_grads;
    bool no_fold;           /* compute constant nodes in every step (pf_graph_set_fold) */
    bool any_stale;         /* an input was set since the last prepare */
    bool stale_all;         /* every constant node is to be recomputed */
    size_t chunk_bytes;     /* target bytes of a node's buffer per chunk; 0 = no chunks */
    int nchunks;            /* K: chunks of every family that feeds a loss */
    int ncls;
    int *cls_n, *cls_cap;   /* per family: points in all, per chunk */
    bool *cls_loss;         /* per family: feeds a loss (so goes through chunks) */
    pf_real *host_tmp;      /* host buffer for seeding input streams */
    pf_real *host_w;        /* [nloss] host staging of the loss weights */
    void *mem;              /* the one backend allocation */
    size_t mem_bytes;
    pf_real *train, *grads, *frozen;
    pf_real *wdev;          /* [PF_GRAPH_WEIGHT_SETS][nloss] loss weights in backend memory */
    double *prof; /* [4 * nnodes]: forward, backward seconds, then runs; NULL = off */
};

static const char *const op_names[PF_OP_COUNT] = {
    "input", "param_field", "linear", "linear_rwf", "unary", "mul", "add", "sub",
    "affine", "scale_param", "concat", "slice", "deriv", "mean_square", "waveact", "tokens", "attention", "token_select",
};

const char *pf_op_name(pf_op op) { return op < PF_OP_COUNT ? op_names[op] : "?"; }

static const char *const unary_names[PF_UNARY_COUNT] = {
    "tanh", "sin", "cos", "exp", "log", "sqrt", "square", "reciprocal", "pow",
    "sigmoid", "softplus", "silu", "gelu", "elu", "selu", "relu", "gaussian",
};

const char *pf_unary_name(pf_unary_op op) { return op < PF_UNARY_COUNT ? unary_names[op] : "?"; }

/* Grow an array by doubling; aborts on out-of-memory while building (the
 * graph is small; compile reports the big allocation properly). */
static void *grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap) return p;
    int nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    void *q = realloc(p, (size_t)nc * elem);
    PF_ASSERT_MSG(q != NULL, "out of memory while building a graph");
    *cap = nc;
    return q;
}

pf_graph *pf_graph_alloc(const pf_backend *backend)
{
    pf_graph *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->be = backend;
    g->chunk_bytes = backend->host_memory ? PF_GRAPH_CHUNK_BYTES : 0; /* chunks pay for caches, not GPUs */
    return g;
}

void pf_graph_free(pf_graph *g)
{
    if (!g) return;
    for (int i = 0; i < g->nnodes; i++) {
        free(g->nodes[i]->in);
        free(g->nodes[i]->in_acc);
        free(g->nodes[i]->vec);
        free(g->nodes[i]);
    }
    free(g->nodes);
    free(g->params);
    free(g->losses);
    free(g->prof);
    free(g->cls_n);
    free(g->cls_cap);
    free(g->cls_loss);
    free(g->host_tmp);
    free(g->host_w);
    if (g->mem) g->be->free(g->mem);
    free(g);
}

/* ------------------------------------------------------------------ building */

int pf_param(pf_graph *g, const char *name, int rows, int cols, unsigned flags, pf_init init)
{
    PF_ASSERT_MSG(!g->compiled, "pf_param '%s' after compile", name);
    PF_ASSERT(rows > 0 && cols > 0);
    PF_ASSERT_MSG(init.kind != PF_INIT_RWF_V || (init.ref >= 0 && init.ref < g->nparam &&
                                                  g->params[init.ref].rows == rows &&
                                                  g->params[init.ref].cols == 1),
                  "rwf init of '%s' needs an earlier %d x 1 scale parameter", name, rows);
    g->params = grow(g->params, &g->cap_params, g->nparam + 1, sizeof *g->params);
    param_info *p = &g->params[g->nparam];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->rows = rows;
    p->cols = cols;
    p->flags = flags;
    p->init = init;
    size_t len = (size_t)rows * cols;
    if (flags & PF_PARAM_TRAINABLE) {
        p->offset = g->ntrain;
        g->ntrain += len;
    } else {
        p->offset = g->nfrozen;
        g->nfrozen += len;
    }
    return g->nparam++;
}

static pf_node *node_new(pf_graph *g, pf_op op, int n, int c, const pf_jet_layout *L, int nin,
                         pf_node *const *in)
{
    PF_ASSERT_MSG(!g->compiled, "adding a %s node after compile", pf_op_name(op));
    PF_ASSERT(n > 0 && c > 0);
    pf_node *x = calloc(1, sizeof *x);
    PF_ASSERT_MSG(x != NULL, "out of memory while building a graph");
    x->op = op;
    x->n = x->n_full = x->n_cap = n;
    x->cls = -1;
    x->rpp = nin && op != PF_OP_MEAN_SQUARE ? in[0]->rpp : 1;
    x->c = c;
    x->layout = L ? *L : pf_jet_layout_none();
    PF_ASSERT_MSG(pf_jet_layout_valid(&x->layout), "%s", pf_errmsg());
    x->S = pf_jet_nstreams(&x->layout);
    x->nin = nin;
    if (nin) {
        x->in = malloc((size_t)nin * sizeof *x->in);
        x->in_acc = calloc((size_t)nin, sizeof *x->in_acc);
        PF_ASSERT_MSG(x->in && x->in_acc, "out of memory while building a graph");
        for (int i = 0; i < nin; i++) x->in[i] = in[i];
    }
    for (int k = 0; k < PF_NODE_MAX_PARAMS; k++) x->param[k] = -1;
    g->nodes = grow(g->nodes, &g->cap_nodes, g->nnodes + 1, sizeof *g->nodes);
    x->id = g->nnodes;
    g->nodes[g->nnodes++] = x;
    return x;
}

static void check_param(const pf_graph *g, int id, int rows, int cols, const char *what)
{
    PF_ASSERT_MSG(id >= 0 && id < g->nparam, "%s: no parameter %d", what, id);
    const param_info *p = &g->params[id];
    PF_ASSERT_MSG(p->rows == rows && p->cols == cols, "%s: parameter '%s' is %dx%d, expected %dx%d",
                  what, p->name, p->rows, p->cols, rows, cols);
}

pf_node *pf_input(pf_graph *g, const char *name, int n, int c, const pf_jet_layout *layout,
                  const pf_real *dirs)
{
    pf_node *x = node_new(g, PF_OP_INPUT, n, c, layout, 0, NULL);
    snprintf(x->name, sizeof x->name, "%s", name ? name : "");
    int D = x->layout.ndir;
    PF_ASSERT_MSG(D == 0 || dirs != NULL, "input '%s' has %d directions but no direction vectors",
                  name, D);
    if (D) { /* read on the host only, to seed the streams: nvec stays 0 (no cvec) */
        x->vec = malloc((size_t)D * c * sizeof *x->vec);
        PF_ASSERT(x->vec != NULL);
        memcpy(x->vec, dirs, (size_t)D * c * sizeof *x->vec);
    }
    return x;
}

pf_node *pf_param_field(pf_graph *g, int param)
{
    PF_ASSERT(param >= 0 && param < g->nparam);
    const param_info *p = &g->params[param];
    pf_node *x = node_new(g, PF_OP_PARAM_FIELD, p->rows * p->cols, 1, NULL, 0, NULL);
    x->param[0] = param;
    return x;
}

static pf_node *linear_common(pf_graph *g, pf_op op, pf_node *x, int W, int s, int b)
{
    PF_ASSERT(W >= 0 && W < g->nparam);
    int out = g->params[W].rows;
    check_param(g, W, out, x->c, pf_op_name(op));
    if (s >= 0) check_param(g, s, out, 1, "linear_rwf scale");
    if (b >= 0) check_param(g, b, 1, out, "linear bias");
    pf_node *y = node_new(g, op, x->n, out, &x->layout, 1, &x);
    y->param[0] = W;
    y->param[1] = b;
    y->param[2] = s;
    return y;
}

pf_node *pf_linear(pf_graph *g, pf_node *x, int W, int b)
{
    return linear_common(g, PF_OP_LINEAR, x, W, -1, b);
}

pf_node *pf_linear_rwf(pf_graph *g, pf_node *x, int V, int s, int b)
{
    PF_ASSERT(s >= 0);
    return linear_common(g, PF_OP_LINEAR_RWF, x, V, s, b);
}

pf_node *pf_unary(pf_graph *g, pf_unary_op op, pf_node *x, pf_real p)
{
    PF_ASSERT(op >= 0 && op < PF_UNARY_COUNT);
    pf_node *y = node_new(g, PF_OP_UNARY, x->n, x->c, &x->layout, 1, &x);
    y->unary = op;
    y->p = op == PF_UNARY_SQRT ? (pf_real)0.5 : op == PF_UNARY_RECIP ? (pf_real)-1
         : op == PF_UNARY_SQUARE ? (pf_real)2 : p;
    return y;
}

static pf_node *binary(pf_graph *g, pf_op op, pf_node *a, pf_node *b)
{
    PF_ASSERT_MSG(a->n == b->n, "%s: %d points vs %d", pf_op_name(op), a->n, b->n);
    PF_ASSERT_MSG(a->c == b->c || a->c == 1 || b->c == 1, "%s: %d channels vs %d",
                  pf_op_name(op), a->c, b->c);
    const pf_jet_layout *L = &a->layout;
    if (a->S == 1) L = &b->layout;
    else PF_ASSERT_MSG(b->S == 1 || pf_jet_layout_equal(&a->layout, &b->layout),
                       "%s: operands have different jet layouts", pf_op_name(op));
    pf_node *in[2] = {a, b};
    return node_new(g, op, a->n, a->c > b->c ? a->c : b->c, L, 2, in);
}

pf_node *pf_mul(pf_graph *g, pf_node *a, pf_node *b) { return binary(g, PF_OP_MUL, a, b); }
pf_node *pf_add(pf_graph *g, pf_node *a, pf_node *b) { return binary(g, PF_OP_ADD, a, b); }
pf_node *pf_sub(pf_graph *g, pf_node *a, pf_node *b) { return binary(g, PF_OP_SUB, a, b); }

pf_node *pf_affine(pf_graph *g, pf_node *x, const pf_real *scale, const pf_real *shift)
{
    pf_node *y = node_new(g, PF_OP_AFFINE, x->n, x->c, &x->layout, 1, &x);
    y->vec = malloc(2 * (size_t)x->c * sizeof *y->vec);
    PF_ASSERT(y->vec != NULL);
    y->nvec = 2 * x->c;
    for (int j = 0; j < x->c; j++) {
        y->vec[j] = scale ? scale[j] : 1;
        y->vec[x->c + j] = shift ? shift[j] : 0;
    }
    return y;
}

pf_node *pf_scale(pf_graph *g, pf_node *x, pf_real s)
{
    pf_node *y = pf_affine(g, x, NULL, NULL);
    for (int j = 0; j < x->c; j++) y->vec[j] = s;
    return y;
}

pf_node *pf_add_const(pf_graph *g, pf_node *x, pf_real c)
{
    pf_node *y = pf_affine(g, x, NULL, NULL);
    for (int j = 0; j < x->c; j++) y->vec[x->c + j] = c;
    return y;
}

pf_node *pf_scale_param(pf_graph *g, pf_node *x, int p, pf_real factor)
{
    check_param(g, p, 1, 1, "scale_param");
    pf_node *y = node_new(g, PF_OP_SCALE_PARAM, x->n, x->c, &x->layout, 1, &x);
    y->param[0] = p;
    y->p = factor;
    return y;
}

pf_node *pf_waveact(pf_graph *g, pf_node *x, int w1, int w2)
{
    check_param(g, w1, 1, 1, "waveact w1");
    check_param(g, w2, 1, 1, "waveact w2");
    pf_node *y = node_new(g, PF_OP_WAVEACT, x->n, x->c, &x->layout, 1, &x);
    y->param[0] = w1;
    y->param[1] = w2;
    return y;
}

pf_node *pf_tokens(pf_graph *g, pf_node *x, int k, pf_real dt)
{
    PF_ASSERT_MSG(k >= 1 && x->n <= INT_MAX / k, "tokens: k = %d for %d points", k, x->n);
    pf_node *y = node_new(g, PF_OP_TOKENS, x->n * k, x->c, &x->layout, 1, &x);
    y->rpp = x->rpp * k;
    y->i0 = k;
    y->p = dt;
    return y;
}

pf_node *pf_token_select(pf_graph *g, pf_node *x, int k, int i)
{
    PF_ASSERT_MSG(k >= 1 && x->rpp % k == 0 && i >= 0 && i < k,
                  "token_select: token %d of %d, but the operand has %d rows per point", i, k, x->rpp);
    pf_node *y = node_new(g, PF_OP_TOKEN_SELECT, x->n / k, x->c, &x->layout, 1, &x);
    y->rpp = x->rpp / k;
    y->i0 = k;
    y->p = (pf_real)i;
    return y;
}

pf_node *pf_attention(pf_graph *g, pf_node *q, pf_node *k, pf_node *v, int ntok, int heads)
{
    pf_node *in[3] = {q, k, v};
    for (int i = 1; i < 3; i++) {
        PF_ASSERT_MSG(in[i]->n == q->n && in[i]->c == q->c && in[i]->rpp == q->rpp,
                      "attention: Q is %d x %d (%d rows per point), operand %d is %d x %d (%d)", q->n,
                      q->c, q->rpp, i, in[i]->n, in[i]->c, in[i]->rpp);
        PF_ASSERT_MSG(pf_jet_layout_equal(&in[i]->layout, &q->layout),
                      "attention: Q, K and V have different jet layouts");
    }
    PF_ASSERT_MSG(ntok >= 1 && q->rpp % ntok == 0,
                  "attention: %d tokens per point, but its operands have %d rows per point", ntok,
                  q->rpp);
    PF_ASSERT_MSG(heads >= 1 && q->c % heads == 0, "attention: %d channels in %d heads", q->c, heads);
    PF_ASSERT_MSG(q->layout.ncoll == 0, "attention: layouts with collapsed streams are not supported");
    pf_node *y = node_new(g, PF_OP_ATTENTION, q->n, q->c, &q->layout, 3, in);
    y->i0 = ntok;
    y->p = (pf_real)heads;
    return y;
}

pf_node *pf_concat(pf_graph *g, int k, pf_node *const *xs)
{
    PF_ASSERT(k >= 1);
    int c = 0;
    for (int i = 0; i < k; i++) {
        PF_ASSERT_MSG(xs[i]->n == xs[0]->n, "concat: %d points vs %d", xs[i]->n, xs[0]->n);
        PF_ASSERT_MSG(pf_jet_layout_equal(&xs[i]->layout, &xs[0]->layout),
                      "concat: operands have different jet layouts");
        c += xs[i]->c;
    }
    return node_new(g, PF_OP_CONCAT, xs[0]->n, c, &xs[0]->layout, k, xs);
}

pf_node *pf_slice(pf_graph *g, pf_node *x, int c0, int nc)
{
    PF_ASSERT_MSG(c0 >= 0 && nc >= 1 && c0 + nc <= x->c, "slice [%d, %d) of %d channels", c0,
                  c0 + nc, x->c);
    pf_node *y = node_new(g, PF_OP_SLICE, x->n, nc, &x->layout, 1, &x);
    y->i0 = c0;
    return y;
}

pf_node *pf_deriv(pf_graph *g, pf_node *x, int dir, int k)
{
    int s = pf_jet_stream(&x->layout, dir, k);
    pf_node *y = node_new(g, PF_OP_DERIV, x->n, x->c, NULL, 1, &x);
    y->i0 = s;
    return y;
}

pf_node *pf_deriv_collapsed(pf_graph *g, pf_node *x, int c)
{
    int s = pf_jet_collapsed(&x->layout, c);
    pf_node *y = node_new(g, PF_OP_DERIV, x->n, x->c, NULL, 1, &x);
    y->i0 = s;
    return y;
}

pf_node *pf_mean_square(pf_graph *g, pf_node *r, pf_node *w)
{
    if (w) {
        PF_ASSERT_MSG(w->n == r->n && w->c == 1 && w->S == 1,
                      "mean_square: weights must be value-only %d x 1", r->n);
        pf_node *in[2] = {r, w};
        return node_new(g, PF_OP_MEAN_SQUARE, 1, 1, NULL, 2, in);
    }
    return node_new(g, PF_OP_MEAN_SQUARE, 1, 1, NULL, 1, &r);
}

int pf_loss(pf_graph *g, const char *name, pf_node *scalar)
{
    PF_ASSERT_MSG(!g->compiled, "pf_loss '%s' after compile", name);
    PF_ASSERT_MSG(scalar->n == 1 && scalar->c == 1 && scalar->S == 1, "loss '%s' is not a scalar",
                  name);
    for (int t = 0; t < g->nloss; t++)
        PF_ASSERT_MSG(g->losses[t].node != scalar, "node declared twice as a loss");
    g->losses = grow(g->losses, &g->cap_losses, g->nloss + 1, sizeof *g->losses);
    loss_info *l = &g->losses[g->nloss];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->node = scalar;
    return g->nloss++;
}

/* ----------------------------------------------------------------- compiling */

static bool op_has_trainable(const pf_graph *g, const pf_node *x)
{
    for (int k = 0; k < PF_NODE_MAX_PARAMS; k++)
        if (x->param[k] >= 0 && (g->params[x->param[k]].flags & PF_PARAM_TRAINABLE)) return true;
    return false;
}

/* reach[i]: node i feeds some loss. */
static void find_reach(const pf_graph *g, bool *reach)
{
    for (int t = 0; t < g->nloss; t++) reach[g->losses[t].node->id] = true;
    for (int i = g->nnodes - 1; i >= 0; i--) {
        pf_node *x = g->nodes[i];
        if (!reach[i]) continue;
        for (int j = 0; j < x->nin; j++) reach[x->in[j]->id] = true;
    }
}

/* needs_grad = depends on a trainable parameter AND reaches a loss; then the
 * first consumer in reverse order overwrites a gradient, later ones add. */
static void plan_gradients(pf_graph *g, const bool *reach)
{
    int N = g->nnodes;
    size_t nn = (size_t)(unsigned)N + 1;
    bool *dep = calloc(nn, 1), *seen = calloc(nn, 1);
    PF_ASSERT(dep && seen);
    for (int i = 0; i < N; i++) {
        pf_node *x = g->nodes[i];
        dep[i] = op_has_trainable(g, x);
        for (int j = 0; j < x->nin; j++) dep[i] |= dep[x->in[j]->id];
    }
    for (int i = 0; i < N; i++) g->nodes[i]->needs_grad = dep[i] && reach[i];
    for (int t = 0; t < g->nloss; t++) seen[g->losses[t].node->id] = true;
    for (int i = N - 1; i >= 0; i--) {
        pf_node *x = g->nodes[i];
        if (!x->needs_grad) continue;
        for (int j = 0; j < x->nin; j++) {
            pf_node *u = x->in[j];
            if (!u->needs_grad) continue;
            x->in_acc[j] = seen[u->id];
            seen[u->id] = true;
        }
    }
    free(dep);
    free(seen);
}

/* Constant folding (graph.h, pf_graph_prepare): a node is constant when it
 * is an input, or an op with no trainable parameter whose operands are all
 * constant (a point-weight field and a reduction never are). A constant
 * non-input that feeds a loss is a fold node; one that a non-fold node
 * reads is cached. */
static void plan_fold(pf_graph *g)
{
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        bool cst = x->op != PF_OP_PARAM_FIELD && x->op != PF_OP_MEAN_SQUARE && !op_has_trainable(g, x);
        for (int j = 0; j < x->nin; j++) cst &= x->in[j]->op == PF_OP_INPUT || x->in[j]->fold;
        x->fold = !g->no_fold && cst && x->op != PF_OP_INPUT && x->feeds_loss;
        x->cached = false;
    }
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        if (x->fold) continue;
        for (int j = 0; j < x->nin; j++) x->in[j]->cached |= x->in[j]->fold;
    }
}

static int uf_find(int *parent, int i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* Point families and chunks. Pointwise ops join their operands' points into
 * one family; a mean-square reduction joins its residual and weights but
 * starts a new (scalar) family. Families that feed a loss go through K chunks
 * of ceil(n / K) points, K chosen so the largest node buffer of those
 * families is about chunk_bytes per chunk; the others (evaluation branches)
 * stay whole, so they can be read. Chunking needs the loss terms to be sums
 * over points: it is off when a reduction's output feeds another op. */
static pf_status plan_chunks(pf_graph *g, const bool *reach)
{
    int N = g->nnodes;
    int *parent = malloc(((size_t)N + 1) * sizeof *parent);
    if (!parent) return pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    bool chunkable = g->chunk_bytes > 0;
    for (int i = 0; i < N; i++) parent[i] = i;
    for (int i = 0; i < N; i++) {
        pf_node *y = g->nodes[i];
        for (int j = 0; j < y->nin; j++) {
            if (y->in[j]->op == PF_OP_MEAN_SQUARE) chunkable = false;
            int a = uf_find(parent, y->op == PF_OP_MEAN_SQUARE ? y->in[0]->id : y->id);
            int b = uf_find(parent, y->in[j]->id);
            parent[a] = b;
        }
    }
    int *cls_of_root = malloc(((size_t)N + 1) * sizeof *cls_of_root);
    if (!cls_of_root) {
        free(parent);
        return pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    }
    g->ncls = 0;
    for (int i = 0; i < N; i++) cls_of_root[i] = -1;
    for (int i = 0; i < N; i++) {
        int r = uf_find(parent, i);
        if (cls_of_root[r] < 0) cls_of_root[r] = g->ncls++;
        g->nodes[i]->cls = cls_of_root[r];
    }
    free(cls_of_root);
    free(parent);
    g->cls_n = calloc((size_t)g->ncls + 1, sizeof *g->cls_n);
    g->cls_cap = calloc((size_t)g->ncls + 1, sizeof *g->cls_cap);
    g->cls_loss = calloc((size_t)g->ncls + 1, sizeof *g->cls_loss);
    if (!g->cls_n || !g->cls_cap || !g->cls_loss)
        return pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    size_t biggest = 0;
    int most = 1; /* points of the largest family that feeds a loss */
    for (int c = 0; c < g->ncls; c++) g->cls_n[c] = -1;
    for (int i = 0; i < N; i++) {
        pf_node *x = g->nodes[i];
        /* every node of a family holds rpp rows per point of it */
        int pts = x->n_full / x->rpp;
        if (g->cls_n[x->cls] < 0) g->cls_n[x->cls] = pts;
        PF_ASSERT_MSG(pts * x->rpp == x->n_full && pts == g->cls_n[x->cls],
                      "%s node: %d rows are not %d per point of its family's %d points "
                      "(rows beside tokens must come from pf_tokens)",
                      pf_op_name(x->op), x->n_full, x->rpp, g->cls_n[x->cls]);
        bool scalar = x->op == PF_OP_MEAN_SQUARE;
        if (reach[i] && !scalar) {
            g->cls_loss[x->cls] = true;
            size_t bytes = pf_node_len(x) * sizeof(pf_real);
            if (bytes > biggest) biggest = bytes;
            if (pts > most) most = pts;
        }
    }
    /* A chunk's GEMMs read every weight matrix again: the budget grows to 8
     * of the largest, so each chunk has the rows to pay for packing it (the
     * released PINNsFormer's 512 x 512 head: 8 MiB chunks step 10% faster
     * than 512 KiB ones, as fast as none, in 40% of the memory). Widths up
     * to 128 in float keep chunk_bytes. */
    size_t budget = g->chunk_bytes, wmax = 0;
    for (int i = 0; i < N; i++) {
        const pf_node *x = g->nodes[i];
        if (reach[i] && (x->op == PF_OP_LINEAR || x->op == PF_OP_LINEAR_RWF)) {
            size_t w = (size_t)x->c * x->in[0]->c * sizeof(pf_real);
            if (w > wmax) wmax = w;
        }
    }
    if (8 * wmax > budget) budget = 8 * wmax;
    int K = 1;
    if (chunkable && biggest > budget) {
        size_t k = (biggest + budget - 1) / budget;
        K = k < (size_t)most ? (int)k : most;
    }
    g->nchunks = K;
    for (int c = 0; c < g->ncls; c++)
        g->cls_cap[c] = g->cls_loss[c] ? (g->cls_n[c] + K - 1) / K : g->cls_n[c];
    for (int i = 0; i < N; i++) {
        pf_node *x = g->nodes[i];
        x->n = x->n_cap = x->op == PF_OP_MEAN_SQUARE ? 1 : g->cls_cap[x->cls] * x->rpp;
    }
    return PF_OK;
}

static pf_real *param_data(const pf_graph *g, int id)
{
    const param_info *p = &g->params[id];
    return (p->flags & PF_PARAM_TRAINABLE ? g->train : g->frozen) + p->offset;
}

static pf_real *param_grad(pf_graph *g, int id)
{
    const param_info *p = &g->params[id];
    return p->flags & PF_PARAM_TRAINABLE ? g->grads + p->offset : NULL;
}

static size_t align_up(size_t n) { return (n + PF_ALIGN - 1) / PF_ALIGN * PF_ALIGN; }

/* Gradient buffers by liveness. Backward visits nodes from last to first; the
 * gradient of node x is first written by its last consumer (index `birth`;
 * loss seeds: before backward) and last read by x's own backward (index x).
 * A buffer whose node's backward ran strictly before another gradient is
 * born can hold it. Best fit among the free ones, else a new piece. Writes
 * offsets into o_val[4 i + 1] and advances *off. */
static pf_status plan_grad_buffers(pf_graph *g, size_t *o_val, size_t *off)
{
    int N = g->nnodes;
    int *birth = malloc(((size_t)N + 1) * sizeof *birth);
    size_t *bsize = malloc(((size_t)N + 1) * sizeof *bsize), *boff = malloc(((size_t)N + 1) * sizeof *boff);
    int *bfree_after = malloc(((size_t)N + 1) * sizeof *bfree_after); /* node index whose backward frees it */
    if (!birth || !bsize || !boff || !bfree_after) {
        free(birth), free(bsize), free(boff), free(bfree_after);
        return pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    }
    for (int i = 0; i < N; i++) birth[i] = -1;
    for (int t = 0; t < g->nloss; t++) birth[g->losses[t].node->id] = N;
    for (int i = 0; i < N; i++) {
        pf_node *y = g->nodes[i];
        if (!y->needs_grad) continue;
        for (int j = 0; j < y->nin; j++)
            if (y->in[j]->needs_grad && birth[y->in[j]->id] < i) birth[y->in[j]->id] = i;
    }
    int nbuf = 0;
    for (int step = N; step >= 0; step--) { /* nodes born at `step`, in backward order */
        for (int i = 0; i < N; i++) {
            pf_node *x = g->nodes[i];
            if (!x->needs_grad || birth[i] != step) continue;
            size_t need = align_up(pf_node_len(x) * sizeof(pf_real));
            int best = -1;
            if (!g->keep_grads)
                for (int b = 0; b < nbuf; b++)
                    if (bfree_after[b] > step && bsize[b] >= need && (best < 0 || bsize[b] < bsize[best]))
                        best = b;
            if (best < 0) {
                best = nbuf++;
                bsize[best] = need;
                boff[best] = *off;
                *off += need;
            }
            bfree_after[best] = i; /* busy until x's own backward (index i) has run */
            o_val[4 * i + 1] = boff[best];
        }
    }
    free(birth), free(bsize), free(boff), free(bfree_after);
    return PF_OK;
}

/* Lay out an input's derivative streams for its current n points:
 * stream (d, 1) = v_d at every point, higher ones zero. */
static void seed_input(pf_graph *g, pf_node *x)
{
    size_t len = pf_node_stream_len(x), sz = sizeof(pf_real);
    for (int d = 0; d < x->layout.ndir; d++)
        for (int k = 1; k <= x->layout.order[d]; k++) {
            for (int p = 0; p < x->n; p++)
                for (int j = 0; j < x->c; j++)
                    g->host_tmp[(size_t)p * x->c + j] = k == 1 ? x->vec[(size_t)d * x->c + j] : 0;
            g->be->upload(x->val + pf_jet_stream(&x->layout, d, k) * len, g->host_tmp, len * sz);
        }
    for (int c = 0; c < x->layout.ncoll; c++)
        g->be->zero(x->val + pf_jet_collapsed(&x->layout, c) * len, len * sz);
    x->seeded_n = x->n;
}

pf_status pf_graph_compile(pf_graph *g, uint64_t seed)
{
    PF_ASSERT_MSG(!g->compiled, "graph compiled twice");
    for (int t = 0; t < g->nloss; t++)
        for (int i = 0; i < g->nnodes; i++)
            for (int j = 0; j < g->nodes[i]->nin; j++)
                PF_ASSERT_MSG(g->nodes[i]->in[j] != g->losses[t].node,
                              "loss '%s' is also an operand of a %s node", g->losses[t].name,
                              pf_op_name(g->nodes[i]->op));
    for (int i = 0; i < g->nnodes; i++)
        if (g->be->supports_op && !g->be->supports_op(g->nodes[i]))
            return pf_fail(PF_ERR_UNSUPPORTED, "backend '%s' does not implement op '%s'",
                           g->be->name, pf_op_name(g->nodes[i]->op));
    bool *reach = calloc((size_t)g->nnodes + 1, 1);
    if (!reach) return pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    find_reach(g, reach);
    for (int i = 0; i < g->nnodes; i++) g->nodes[i]->feeds_loss = reach[i];
    plan_gradients(g, reach);
    const char *env = getenv("PF_GRAPH_FOLD");
    if (env && strcmp(env, "0") && strcmp(env, "1")) {
        free(reach);
        return pf_fail(PF_ERR_INVALID, "PF_GRAPH_FOLD='%s': expected 0 (no constant folding) or 1", env);
    }
    if (env) g->no_fold = !strcmp(env, "0");
    plan_fold(g);
    pf_status cst = plan_chunks(g, reach);
    free(reach);
    PF_TRY(cst);

    /* Plan: trainable params, grads, frozen params, then per node val and
     * scratch; gradient buffers after that, shared where lives allow. */
    size_t off = 0, sz = sizeof(pf_real);
    size_t o_train = off; off += align_up(g->ntrain * sz);
    size_t o_grads = off; off += align_up(g->ntrain * sz);
    size_t o_frozen = off; off += align_up(g->nfrozen * sz);
    size_t o_w = off; off += align_up((size_t)(PF_GRAPH_WEIGHT_SETS * g->nloss + 1) * sz);
    size_t *o_val = malloc((size_t)g->nnodes * 4 * sizeof *o_val);
    if (!o_val) return pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        size_t scratch = g->be->scratch_bytes ? g->be->scratch_bytes(x) : 0;
        /* a cached node keeps every chunk's values, one buffer each */
        x->slot = align_up(pf_node_len(x) * sz) / sz;
        o_val[4 * i] = off; off += x->op == PF_OP_PARAM_FIELD ? 0 : (x->cached ? g->nchunks : 1) * x->slot * sz;
        o_val[4 * i + 2] = off; off += align_up(scratch);
        o_val[4 * i + 3] = off; off += align_up((size_t)x->nvec * sz);
    }
    /* inputs of chunked families keep all their values in a stage */
    size_t *o_stage = calloc((size_t)g->nnodes + 1, sizeof *o_stage), tmp_len = 1;
    if (!o_stage) {
        free(o_val);
        return pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    }
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        if (x->op != PF_OP_INPUT) continue;
        if (x->n_cap < x->n_full) {
            o_stage[i] = off;
            off += align_up((size_t)x->n_full * x->c * sz);
        }
        if (pf_node_stream_len(x) > tmp_len) tmp_len = pf_node_stream_len(x);
    }
    pf_status pst = plan_grad_buffers(g, o_val, &off);
    if (pst != PF_OK) {
        free(o_val);
        return pst;
    }
    g->mem_bytes = off;
    g->host_tmp = malloc(tmp_len * sz);
    g->host_w = malloc((size_t)(g->nloss + 1) * sz);
    pf_status st = g->host_tmp && g->host_w ? g->be->alloc(off ? off : PF_ALIGN, &g->mem)
                               : pf_fail(PF_ERR_NOMEM, "out of memory planning a graph");
    if (st != PF_OK) {
        free(o_val);
        free(o_stage);
        return st;
    }
    char *base = g->mem;
    g->train = (pf_real *)(base + o_train);
    g->grads = (pf_real *)(base + o_grads);
    g->frozen = (pf_real *)(base + o_frozen);
    g->wdev = (pf_real *)(base + o_w);
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        x->val = x->val0 = (pf_real *)(base + o_val[4 * i]);
        x->grad = x->needs_grad ? (pf_real *)(base + o_val[4 * i + 1]) : NULL;
        x->scratch = (pf_real *)(base + o_val[4 * i + 2]);
        x->cvec = x->nvec ? (pf_real *)(base + o_val[4 * i + 3]) : NULL;
        if (x->nvec) g->be->upload(x->cvec, x->vec, (size_t)x->nvec * sz);
        x->stage = o_stage[i] ? (pf_real *)(base + o_stage[i]) : NULL;
        for (int k = 0; k < PF_NODE_MAX_PARAMS; k++) {
            int id = x->param[k];
            x->pw[k] = id >= 0 ? param_data(g, id) : NULL;
            x->pg[k] = id >= 0 ? param_grad(g, id) : NULL;
        }
        if (x->op == PF_OP_PARAM_FIELD) x->val = x->pw[0];
    }
    free(o_val);
    free(o_stage);
    g->compiled = true;
    for (int i = 0; i < g->nnodes; i++) { /* for n_cap points; a shorter chunk reseeds */
        pf_node *x = g->nodes[i];
        x->seeded_n = -1;
        if (x->op == PF_OP_INPUT && x->layout.ndir) seed_input(g, x);
    }
    pf_graph_init_params(g, seed); /* marks every constant node stale */
    for (int k = 0; k < PF_GRAPH_WEIGHT_SETS; k++) pf_graph_set_loss_weight_set(g, k, NULL);
    return PF_OK;
}

static void init_one(pf_rng *r, const param_info *p, pf_real *v, const pf_real *host_all,
                     const param_info *all)
{
    size_t len = (size_t)p->rows * p->cols;
    double fan = p->rows + p->cols;
    for (size_t i = 0; i < len; i++) {
        double x = 0;
        switch (p->init.kind) {
        case PF_INIT_ZERO: x = 0; break;
        case PF_INIT_CONST: x = p->init.a; break;
        case PF_INIT_NORMAL: x = p->init.a + pf_rng_normal(r, p->init.b); break;
        case PF_INIT_UNIFORM: x = pf_rng_uniform_in(r, p->init.a, p->init.b); break;
        case PF_INIT_GLOROT_NORMAL: x = pf_rng_normal(r, sqrt(2.0 / fan)); break;
        case PF_INIT_GLOROT_UNIFORM: {
            double l = sqrt(6.0 / fan);
            x = pf_rng_uniform_in(r, -l, l);
            break;
        }
        case PF_INIT_HE_NORMAL: x = pf_rng_normal(r, sqrt(2.0 / p->cols)); break;
        case PF_INIT_HE_UNIFORM: {
            double l = sqrt(6.0 / p->cols);
            x = pf_rng_uniform_in(r, -l, l);
            break;
        }
        case PF_INIT_RWF_V: {
            const param_info *s = &all[p->init.ref];
            const pf_real *sv = host_all + s->offset; /* see pf_graph_init_params */
            x = pf_rng_normal(r, sqrt(2.0 / fan)) / exp((double)sv[i / p->cols]);
            break;
        }
        }
        v[i] = (pf_real)x;
    }
}

void pf_graph_init_params(pf_graph *g, uint64_t seed)
{
    PF_ASSERT(g->compiled);
    size_t sz = sizeof(pf_real);
    pf_real *ht = malloc((g->ntrain + 1) * sz), *hf = malloc((g->nfrozen + 1) * sz);
    PF_ASSERT_MSG(ht && hf, "out of memory initialising parameters");
    for (int id = 0; id < g->nparam; id++) {
        const param_info *p = &g->params[id];
        char tag[80];
        snprintf(tag, sizeof tag, "param:%d:%s", id, p->name);
        pf_rng *r = pf_rng_alloc(pf_rng_derive(seed, tag));
        PF_ASSERT_MSG(r != NULL, "out of memory initialising parameters");
        bool tr = p->flags & PF_PARAM_TRAINABLE;
        /* an RWF scale must live in the same buffer kind as its V */
        PF_ASSERT(p->init.kind != PF_INIT_RWF_V ||
                  (bool)(g->params[p->init.ref].flags & PF_PARAM_TRAINABLE) == tr);
        init_one(r, p, (tr ? ht : hf) + p->offset, tr ? ht : hf, g->params);
        pf_rng_free(r);
    }
    g->be->upload(g->train, ht, g->ntrain * sz);
    g->be->upload(g->frozen, hf, g->nfrozen * sz);
    free(ht);
    free(hf);
    g->stale_all = true; /* frozen parameters feed constant nodes */
}

/* ------------------------------------------------------------------- running */

void pf_graph_set_input(pf_graph *g, pf_node *x, const pf_real *v)
{
    PF_ASSERT(g->compiled && x->op == PF_OP_INPUT);
    size_t bytes = (size_t)x->n_full * x->c * sizeof(pf_real);
    if (x->stage) g->be->upload(x->stage, v, bytes);
    else g->be->upload(x->val, v, bytes);
    x->stale = g->any_stale = true;
}

/* Point every node at chunk k of its family: its count n, its first point
 * off; inputs get their chunk's values, parameter fields their slice. A
 * chunk past a small family's points is empty (idle). Families that do not
 * go through chunks run whole in chunk 0 and idle in the others. */
static void set_chunk(pf_graph *g, int k)
{
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        if (x->op == PF_OP_MEAN_SQUARE) continue;
        if (!g->cls_loss[x->cls]) {
            x->idle = k > 0;
            continue;
        }
        int cap = g->cls_cap[x->cls], nf = g->cls_n[x->cls];
        int start = k * cap < nf ? k * cap : nf, n = nf - start < cap ? nf - start : cap;
        x->idle = n == 0;
        if (x->idle) continue;
        x->n = n * x->rpp;
        x->off = start * x->rpp;
        if (x->cached) x->val = x->val0 + (size_t)k * x->slot;
        if (x->op == PF_OP_INPUT) {
            if (x->stage)
                g->be->upload(x->val, x->stage + (size_t)start * x->c,
                              (size_t)n * x->c * sizeof(pf_real));
            if (x->layout.ndir && x->seeded_n != n) seed_input(g, x);
        }
        if (x->op == PF_OP_PARAM_FIELD) x->val = x->pw[0] + start;
    }
}

/* A node runs in this chunk unless its family idles here. */
static bool runs(const pf_node *x)
{
    return !(x->op == PF_OP_MEAN_SQUARE ? x->in[0]->idle : x->idle);
}

/* One node's forward (or backward), timed and counted when profiling. */
static void run_node(pf_graph *g, pf_node *x, bool back)
{
    double t0 = g->prof ? omp_get_wtime() : 0;
    if (back) g->be->backward(x);
    else g->be->forward(x);
    if (g->prof) {
        g->prof[4 * x->id + back] += omp_get_wtime() - t0;
        g->prof[4 * x->id + 2 + back] += 1;
    }
}

/* Forward every node (all = true) or only those that feed a loss; constant
 * nodes are the prepare pass's. */
static void forward_nodes(pf_graph *g, bool all)
{
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        if (x->op == PF_OP_INPUT || x->op == PF_OP_PARAM_FIELD || x->fold || !(all || x->feeds_loss)) continue;
        if (!runs(x)) {
            if (x->op == PF_OP_MEAN_SQUARE) g->be->zero(x->val, sizeof(pf_real));
            continue;
        }
        run_node(g, x, false);
    }
}

void pf_graph_set_fold(pf_graph *g, bool on)
{
    PF_ASSERT_MSG(!g->compiled, "pf_graph_set_fold after compile");
    g->no_fold = !on;
}

/* The constant nodes whose inputs changed (all of them after a frozen
 * parameter did), chunk by chunk, in node order; then nothing is stale. */
void pf_graph_prepare(pf_graph *g)
{
    PF_ASSERT_MSG(g->compiled, "prepare before compile");
    if (!g->any_stale && !g->stale_all) return;
    bool any = false;
    for (int i = 0; i < g->nnodes; i++) {
        pf_node *x = g->nodes[i];
        if (!x->fold) continue;
        x->stale = g->stale_all;
        for (int j = 0; j < x->nin; j++) x->stale |= x->in[j]->stale;
        any |= x->stale;
    }
    for (int k = 0; any && k < g->nchunks; k++) {
        set_chunk(g, k);
        for (int i = 0; i < g->nnodes; i++) {
            pf_node *x = g->nodes[i];
            if (x->fold && x->stale && runs(x)) run_node(g, x, false);
        }
    }
    for (int i = 0; i < g->nnodes; i++) g->nodes[i]->stale = false;
    g->any_stale = g->stale_all = false;
}

static void add_losses(pf_graph *g)
{
    for (int t = 0; t < g->nloss; t++) {
        pf_real v;
        g->be->download(&v, g->losses[t].node->val, sizeof v);
        g->losses[t].value += v;
    }
}

/* Seeds each loss's gradient with its weight from weight set `set`
 * (backend to backend). */
static void backward_nodes(pf_graph *g, int set)
{
    const pf_real *w = g->wdev + (size_t)set * g->nloss;
    for (int t = 0; t < g->nloss; t++) {
        pf_node *l = g->losses[t].node;
        if (l->needs_grad) g->be->copy(l->grad, w + t, 1);
    }
    for (int i = g->nnodes - 1; i >= 0; i--) {
        pf_node *x = g->nodes[i];
        if (!x->needs_grad || x->op == PF_OP_INPUT || !runs(x)) continue;
        run_node(g, x, true);
    }
}

static void clear_losses(pf_graph *g)
{
    for (int t = 0; t < g->nloss; t++) g->losses[t].value = 0;
}

void pf_graph_forward(pf_graph *g)
{
    PF_ASSERT_MSG(g->compiled, "forward before compile");
    pf_graph_prepare(g);
    clear_losses(g);
    for (int k = 0; k < g->nchunks; k++) {
        set_chunk(g, k);
        forward_nodes(g, true);
        add_losses(g);
    }
}

void pf_graph_set_loss_weight_set(pf_graph *g, int set, const pf_real *weights)
{
    PF_ASSERT_MSG(g->compiled, "set_loss_weights before compile");
    PF_ASSERT(set >= 0 && set < PF_GRAPH_WEIGHT_SETS);
    for (int t = 0; t < g->nloss; t++) g->host_w[t] = weights ? weights[t] : 1;
    g->be->upload(g->wdev + (size_t)set * g->nloss, g->host_w, (size_t)g->nloss * sizeof *g->host_w);
}

void pf_graph_set_loss_weights(pf_graph *g, const pf_real *weights)
{
    pf_graph_set_loss_weight_set(g, 0, weights);
}

void pf_graph_pass_set(pf_graph *g, int set)
{
    PF_ASSERT_MSG(g->compiled, "pass before compile");
    PF_ASSERT_MSG(g->nchunks == 1, "pf_graph_pass on a graph in %d chunks (needs 1)", g->nchunks);
    PF_ASSERT(set >= 0 && set < PF_GRAPH_WEIGHT_SETS);
    pf_graph_prepare(g);
    set_chunk(g, 0);
    g->be->zero(g->grads, g->ntrain * sizeof(pf_real));
    forward_nodes(g, false);
    backward_nodes(g, set);
}

void pf_graph_pass(pf_graph *g) { pf_graph_pass_set(g, 0); }

void pf_graph_backward_set(pf_graph *g, int set)
{
    PF_ASSERT_MSG(g->compiled, "backward before compile");
    PF_ASSERT_MSG(g->nchunks == 1, "pf_graph_backward_set on a graph in %d chunks (needs 1)", g->nchunks);
    PF_ASSERT(set >= 0 && set < PF_GRAPH_WEIGHT_SETS);
    g->be->zero(g->grads, g->ntrain * sizeof(pf_real));
    backward_nodes(g, set);
}

void pf_graph_read_losses(pf_graph *g)
{
    clear_losses(g);
    add_losses(g);
}

void pf_graph_forward_backward(pf_graph *g, const pf_real *weights)
{
    PF_ASSERT_MSG(g->compiled, "forward_backward before compile");
    pf_graph_set_loss_weights(g, weights);
    pf_graph_prepare(g);
    clear_losses(g);
    g->be->zero(g->grads, g->ntrain * sizeof(pf_real));
    for (int k = 0; k < g->nchunks; k++) {
        set_chunk(g, k);
        forward_nodes(g, false);
        add_losses(g);
        backward_nodes(g, 0);
    }
}

void pf_graph_forward_backward_sets(pf_graph *g, int n, const pf_real *const *weights, pf_real *const *out)
{
    PF_ASSERT_MSG(g->compiled, "forward_backward before compile");
    PF_ASSERT(n >= 1 && n < PF_GRAPH_WEIGHT_SETS);
    for (int k = 0; k < n; k++) {
        pf_graph_set_loss_weight_set(g, k + 1, weights[k]);
        g->be->zero(out[k], g->ntrain * sizeof(pf_real));
    }
    pf_graph_prepare(g);
    clear_losses(g);
    for (int c = 0; c < g->nchunks; c++) {
        set_chunk(g, c);
        forward_nodes(g, false);
        add_losses(g);
        for (int k = 0; k < n; k++) {
            g->be->zero(g->grads, g->ntrain * sizeof(pf_real));
            backward_nodes(g, k + 1);
            g->be->axpy(g->ntrain, 1.0, g->grads, out[k]); /* 0 + 1 x: exact for one chunk */
        }
    }
}

void pf_graph_backward(pf_graph *g, const pf_real *weights)
{
    PF_ASSERT_MSG(g->compiled, "backward before compile");
    if (g->nchunks > 1) { /* only the last chunk's values are kept: redo them all */
        pf_graph_forward_backward(g, weights);
        return;
    }
    pf_graph_set_loss_weights(g, weights);
    g->be->zero(g->grads, g->ntrain * sizeof(pf_real));
    backward_nodes(g, 0);
}

/* ------------------------------------------------------------------- queries */

int pf_graph_nloss(const pf_graph *g) { return g->nloss; }

const char *pf_graph_loss_name(const pf_graph *g, int t)
{
    PF_ASSERT(t >= 0 && t < g->nloss);
    return g->losses[t].name;
}

double pf_graph_loss_value(const pf_graph *g, int t)
{
    PF_ASSERT(t >= 0 && t < g->nloss);
    return g->losses[t].value;
}

size_t pf_graph_nparams(const pf_graph *g) { return g->ntrain; }
pf_real *pf_graph_params(pf_graph *g) { return g->train; }
pf_real *pf_graph_grads(pf_graph *g) { return g->grads; }
int pf_graph_param_count(const pf_graph *g) { return g->nparam; }

pf_real *pf_graph_param_data(pf_graph *g, int id)
{
    PF_ASSERT(id >= 0 && id < g->nparam && g->compiled);
    if (!(g->params[id].flags & PF_PARAM_TRAINABLE)) g->stale_all = true; /* may be written */
    return param_data(g, id);
}

const pf_real *pf_graph_param_read(const pf_graph *g, int id)
{
    PF_ASSERT(id >= 0 && id < g->nparam && g->compiled);
    return param_data(g, id);
}

pf_real *pf_graph_param_grad(pf_graph *g, int id)
{
    PF_ASSERT(id >= 0 && id < g->nparam && g->compiled);
    return param_grad(g, id);
}

size_t pf_graph_param_offset(const pf_graph *g, int id)
{
    PF_ASSERT(id >= 0 && id < g->nparam);
    return g->params[id].offset;
}

const char *pf_graph_param_name(const pf_graph *g, int id)
{
    PF_ASSERT(id >= 0 && id < g->nparam);
    return g->params[id].name;
}

void pf_graph_param_shape(const pf_graph *g, int id, int *rows, int *cols)
{
    PF_ASSERT(id >= 0 && id < g->nparam);
    *rows = g->params[id].rows;
    *cols = g->params[id].cols;
}

int pf_node_n(const pf_node *x) { return x->n_full; }
int pf_node_c(const pf_node *x) { return x->c; }
int pf_node_nstreams(const pf_node *x) { return x->S; }
const pf_jet_layout *pf_node_layout(const pf_node *x) { return &x->layout; }

static void check_whole(const pf_graph *g, const pf_node *x)
{
    PF_ASSERT_MSG(x->n == x->n_full,
                  "node %d (%s%s%s) is processed in %d chunks of points, so only the last one is "
                  "kept; read nodes of branches that feed no loss, or pf_graph_set_chunk_bytes(g, 0)",
                  x->id, pf_op_name(x->op), x->name[0] ? " " : "", x->name, g->nchunks);
}

void pf_graph_read(const pf_graph *g, const pf_node *x, pf_real *dst)
{
    PF_ASSERT(g->compiled);
    check_whole(g, x);
    g->be->download(dst, x->val, pf_node_len(x) * sizeof(pf_real));
}

void pf_graph_set_chunk_bytes(pf_graph *g, size_t bytes)
{
    PF_ASSERT_MSG(!g->compiled, "pf_graph_set_chunk_bytes after compile");
    g->chunk_bytes = bytes;
}

int pf_graph_nchunks(const pf_graph *g) { return g->nchunks; }

void pf_graph_keep_grads(pf_graph *g, bool keep)
{
    PF_ASSERT_MSG(!g->compiled, "pf_graph_keep_grads after compile");
    g->keep_grads = keep;
}

void pf_graph_read_grad(const pf_graph *g, const pf_node *x, pf_real *dst)
{
    PF_ASSERT(g->compiled);
    PF_ASSERT_MSG(g->keep_grads || !x->grad, "pf_graph_read_grad needs pf_graph_keep_grads(g, true)");
    check_whole(g, x);
    if (x->grad) g->be->download(dst, x->grad, pf_node_len(x) * sizeof(pf_real));
    else memset(dst, 0, pf_node_len(x) * sizeof(pf_real));
}

size_t pf_graph_bytes(const pf_graph *g) { return g->mem_bytes; }

const pf_backend *pf_graph_backend(const pf_graph *g) { return g->be; }

pf_status pf_graph_profile(pf_graph *g, bool on)
{
    free(g->prof);
    g->prof = NULL;
    if (!on) return PF_OK;
    g->prof = calloc(4 * (size_t)g->nnodes + 1, sizeof *g->prof);
    return g->prof ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory for the profile");
}

int pf_graph_profile_rows(const pf_graph *g, pf_profile_row *rows, int max)
{
    for (int i = 0; i < g->nnodes && i < max; i++) {
        const pf_node *x = g->nodes[i];
        rows[i] = (pf_profile_row){x->op == PF_OP_UNARY ? pf_unary_name(x->unary)
                                   : x->op == PF_OP_INPUT ? x->name : pf_op_name(x->op),
                                   x->n_full, x->c, x->S, g->prof ? g->prof[4 * i] : 0,
                                   g->prof ? g->prof[4 * i + 1] : 0, g->prof ? (long)g->prof[4 * i + 2] : 0,
                                   g->prof ? (long)g->prof[4 * i + 3] : 0, x->fold};
    }
    return g->nnodes;
}
