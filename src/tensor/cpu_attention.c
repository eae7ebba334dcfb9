/*
 * Scaled dot-product attention over the k tokens of each point, in Taylor
 * mode (graph.h, pf_attention): the CPU driver of attention_core.h, which
 * holds the arithmetic of one group (a point's tokens, one head, one
 * direction) and its reverse.
 *
 * The core runs ATTN_LANES groups at once, one per vector lane: a batch is
 * ATTN_LANES consecutive points (the last batch's unused lanes hold zeros,
 * which stay finite, and are never stored). Per direction d of order K and
 * head, the batch's Q, K, V streams are loaded as Taylor coefficients
 * (stream m / m!), the forward runs, and its output is stored back as
 * streams; the value stream, the same in every direction's pass, is stored
 * in the first. The backward recomputes each batch's forward per direction
 * and runs its reverse; the value stream's output gradient is seeded in the
 * first pass only, and the operands' gradients are cleared first where
 * this op is their first writer, then added to, direction by direction and
 * operand by operand as one group at a time would (the same bits).
 *
 * The batches are cut into ATTN_SLICES contiguous runs, and OpenMP shares
 * the runs out; a run has its own workspace in the scratch, so a step
 * allocates nothing. A point's groups (all heads and directions) are done
 * by one thread, and groups write disjoint rows, so no sum crosses threads
 * and the results do not depend on the thread count. The number of runs is
 * a constant, not the thread count, so the scratch planned at compile fits
 * any thread count set later; a node of fewer than ATTN_PAR_MIN batches runs
 * on the calling thread.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Groups per batch: 4 doubles, one AVX register. */
#define ATTN_LANES 4
#define PF_ATTN_LANES ATTN_LANES
#include "tensor/attention_core.h"
#include "tensor/cpu_ops.h"

/* Runs of batches, each with its workspace: enough for the threads of a
 * CPU node to share evenly, few enough that the scratch stays small
 * (128 KiB a run of 4-lane batches for the released PINNsFormer's 5 tokens x
 * 16 channels, 4 MiB a node). */
#define ATTN_SLICES 32

size_t pf_cpu_attention_scratch(const struct pf_node *y)
{
    return ATTN_SLICES * attn_ws_doubles(y->i0, y->c / (int)y->p) * sizeof(double);
}

/* Run s's workspace, and its points [*g0, *g1). */
static attn_ws slice_of(const struct pf_node *y, int s, int *g0, int *g1)
{
    int k = y->i0, dh = y->c / (int)y->p, groups = y->n / k;
    int64_t batches = (groups + ATTN_LANES - 1) / ATTN_LANES;
    int b0 = (int)(batches * s / ATTN_SLICES), b1 = (int)(batches * (s + 1) / ATTN_SLICES);
    *g0 = b0 * ATTN_LANES;
    *g1 = b1 * ATTN_LANES < groups ? b1 * ATTN_LANES : groups;
    return attn_ws_of((double *)y->scratch + (size_t)s * attn_ws_doubles(k, dh), k, dh);
}

/* Streams of direction d: st[m] for m = 0..K (st[0] = 0, the value). */
static int dir_streams(const pf_jet_layout *L, int d, int st[KS])
{
    st[0] = 0;
    if (d < 0) return 0;
    for (int m = 1; m <= L->order[d]; m++) st[m] = pf_jet_stream(L, d, m);
    return L->order[d];
}

/* x / m!, the same number as the division: m! is 1 or 2 up to m = 2, and
 * halving is exact; a division in the loads costs more than the rest of a
 * load. */
static double div_fact(double x, int m) { return m < 2 ? x : m == 2 ? 0.5 * x : x / attn_fact(m); }

/* A batch: nl points from point p0, head at channel c0, the direction's
 * streams st of order K, in a [S][n][c] buffer of stream length len. */
typedef struct batch {
    int p0, nl, c0, K;
    const int *st;
    size_t len;
} batch;

/* How move() goes between a [S][n][c] buffer and a workspace array. */
enum { LOAD, LOAD_GRAD, STORE, ADD_GRAD };

/* Move a batch's channels between buf and ws (coefficient = stream / m!):
 * LOAD ws = buf's coefficients, LOAD_GRAD ws = dL/dcoef (m! buf), zero below
 * stream m0, both zero in unused lanes; STORE buf = ws's streams from m0 on;
 * ADD_GRAD buf += ws / m! (a coefficient's gradient as the stream's). */
static inline __attribute__((always_inline)) void move(int how, pf_real *buf, double *ws, int c, const attn_ws *w,
                                                       const batch *b, int m0)
{
    int k = w->k, dh = w->dh, K = b->K;
    size_t so[KS], da = (size_t)KS * ATTN_LANES; /* streams' offsets; ws's step per channel */
    for (int m = 0; m <= K; m++) so[m] = (size_t)b->st[m] * b->len;
    for (int g = 0; g < ATTN_LANES; g++)
        for (int i = 0; i < k; i++)
            for (int m = 0; m <= K; m++) {
                double *d = &AL3(ws, i, 0, dh, m, g);
                if (g >= b->nl) { /* an unused lane */
                    if (how == LOAD || how == LOAD_GRAD)
                        for (int a = 0; a < dh; a++) d[a * da] = 0;
                    continue;
                }
                pf_real *x = buf + so[m] + (size_t)((b->p0 + g) * k + i) * c + b->c0;
                if (how == LOAD)
                    for (int a = 0; a < dh; a++) d[a * da] = div_fact((double)x[a], m);
                else if (how == LOAD_GRAD)
                    for (int a = 0; a < dh; a++) d[a * da] = m < m0 ? 0 : (double)x[a] * attn_fact(m);
                else if (how == STORE) {
                    if (m >= m0)
                        for (int a = 0; a < dh; a++) x[a] = (pf_real)(d[a * da] * attn_fact(m));
                } else
                    for (int a = 0; a < dh; a++) x[a] += (pf_real)div_fact(d[a * da], m);
            }
}

/* The group's forward (with the output o, or only what the reverse
 * needs) and reverse with the order K a constant in each case, so the
 * compiler unrolls the coefficient loops (flatten inlines
 * attention_core.h's code into every case); the arithmetic is the same. */
#define FWD_CASE(K_)                                                                                                   \
    attn_group_probs(w, K_, scale);                                                                                    \
    if (out) attn_group_out(w, K_);                                                                                    \
    break
__attribute__((flatten)) static void group_fwd_k(attn_ws *w, int K, double scale, int out)
{
    switch (K) {
    case 0: FWD_CASE(0);
    case 1: FWD_CASE(1);
    case 2: FWD_CASE(2);
    case 3: FWD_CASE(3);
    default: FWD_CASE(4);
    }
}
#undef FWD_CASE

__attribute__((flatten)) static void group_bwd_k(attn_ws *w, int K, double scale)
{
    switch (K) {
    case 0: attn_group_bwd(w, 0, scale); break;
    case 1: attn_group_bwd(w, 1, scale); break;
    case 2: attn_group_bwd(w, 2, scale); break;
    case 3: attn_group_bwd(w, 3, scale); break;
    default: attn_group_bwd(w, 4, scale); break;
    }
}

/* Load a batch's q, k, v (the node's three operands) and run its forward
 * (with o where out is set): each pass of the forward and the backward
 * starts with it. */
static void batch_fwd(attn_ws *w, struct pf_node *const *in, int c, const batch *b, double scale, int out)
{
    move(LOAD, in[0]->val, w->q, c, w, b, 0);
    move(LOAD, in[1]->val, w->kk, c, w, b, 0);
    move(LOAD, in[2]->val, w->v, c, w, b, 0);
    group_fwd_k(w, b->K, scale, out);
}

/* Every direction's pass of points [g0, g1) (at most ATTN_LANES), every
 * head. */
static void fwd_batch(struct pf_node *y, attn_ws *w, int g0, int g1)
{
    int h = (int)y->p, c = y->c, dh = c / h;
    double scale = 1 / sqrt((double)dh);
    const pf_jet_layout *L = &y->layout;
    int passes = L->ndir ? L->ndir : 1;
    for (int d = 0; d < passes; d++) {
        int st[KS] = {0, 0, 0, 0, 0};
        int K = dir_streams(L, L->ndir ? d : -1, st);
        for (int hd = 0; hd < h; hd++) {
            batch b = {g0, g1 - g0, hd * dh, K, st, pf_node_stream_len(y)};
            batch_fwd(w, y->in, c, &b, scale, 1);
            move(STORE, y->val, w->o, c, w, &b, d ? 1 : 0); /* the value in pass 0 */
        }
    }
}

/* Whether a node's attention is worth the threads: ATTN_PAR_MIN batches
 * or more (fewer run on the calling thread, for which an OpenMP region's
 * start costs more than it shares out). */
#define ATTN_PAR_MIN 4
#define ATTN_PARALLEL(y) ((y)->n / (y)->i0 >= ATTN_PAR_MIN * ATTN_LANES)

void pf_cpu_attention_fwd(struct pf_node *y)
{
#pragma omp parallel for schedule(static) if (ATTN_PARALLEL(y))
    for (int s = 0; s < ATTN_SLICES; s++) {
        int g0, g1;
        attn_ws w = slice_of(y, s, &g0, &g1);
        for (int g = g0; g < g1; g += ATTN_LANES) fwd_batch(y, &w, g, g + ATTN_LANES < g1 ? g + ATTN_LANES : g1);
    }
}

/* The reverse of fwd_batch: every direction's pass of points [g0, g1),
 * adding into the operands' gradients. */
static void bwd_batch(struct pf_node *y, attn_ws *w, int g0, int g1)
{
    struct pf_node *in[3] = {y->in[0], y->in[1], y->in[2]};
    int h = (int)y->p, c = y->c, dh = c / h;
    double scale = 1 / sqrt((double)dh);
    const pf_jet_layout *L = &y->layout;
    int passes = L->ndir ? L->ndir : 1;
    for (int d = 0; d < passes; d++) {
        int st[KS] = {0, 0, 0, 0, 0};
        int K = dir_streams(L, L->ndir ? d : -1, st);
        for (int hd = 0; hd < h; hd++) {
            batch b = {g0, g1 - g0, hd * dh, K, st, pf_node_stream_len(y)};
            batch_fwd(w, y->in, c, &b, scale, 0);
            move(LOAD_GRAD, y->grad, w->go, c, w, &b, d ? 1 : 0); /* the value's only in pass 0 */
            group_bwd_k(w, K, scale);
            double *gin[3] = {w->gq, w->gk, w->gv};
            for (int j = 0; j < 3; j++)
                if (in[j]->grad) move(ADD_GRAD, in[j]->grad, gin[j], c, w, &b, 0);
        }
    }
}

void pf_cpu_attention_bwd(struct pf_node *y)
{
    /* first writers clear (an operand given twice is cleared once: only its
     * first slot has in_acc = 0), then every pass adds */
    for (int j = 0; j < 3; j++)
        if (y->in[j]->grad && !y->in_acc[j]) memset(y->in[j]->grad, 0, pf_node_len(y->in[j]) * sizeof(pf_real));
#pragma omp parallel for schedule(static) if (ATTN_PARALLEL(y))
    for (int s = 0; s < ATTN_SLICES; s++) {
        int g0, g1;
        attn_ws w = slice_of(y, s, &g0, &g1);
        for (int g = g0; g < g1; g += ATTN_LANES) bwd_batch(y, &w, g, g + ATTN_LANES < g1 ? g + ATTN_LANES : g1);
    }
}
