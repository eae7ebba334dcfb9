/*
 * Scaled dot-product attention over the k tokens of each point, in Taylor
 * mode (graph.h, pf_attention): the CPU driver of attention_core.h, which
 * holds the arithmetic of one group (a point's tokens, one head, one
 * direction) and its reverse.
 *
 * Per direction d of order K the group's Q, K, V streams are loaded as
 * Taylor coefficients (stream m / m!), the group's forward runs, and its
 * output is stored back as streams; the value stream is the same in every
 * direction's pass. The backward recomputes each group's forward per
 * direction and runs its reverse; the value stream's output gradient is
 * seeded in the first pass only, and the operands' gradients are cleared
 * first where this op is their first writer, then added to.
 *
 * The points' groups are cut into ATTN_SLICES contiguous runs, and OpenMP
 * shares the runs out; a run has its own workspace in the scratch, so a
 * step allocates nothing. A point's groups (all heads and directions) are
 * done by one thread in the serial order, and groups write disjoint rows,
 * so no sum crosses threads and the results do not depend on the thread
 * count. The number of runs is a constant, not the thread count, so the
 * scratch planned at compile fits any thread count set later.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tensor/attention_core.h"
#include "tensor/cpu_ops.h"

/* Runs of groups, each with its workspace: enough for the threads of a
 * CPU node to share evenly, few enough that the scratch stays small
 * (32 KiB a run for the released PINNsFormer's 5 tokens x 16 channels). */
#define ATTN_SLICES 32

size_t pf_cpu_attention_scratch(const struct pf_node *y)
{
    return ATTN_SLICES * attn_ws_doubles(y->i0, y->c / (int)y->p) * sizeof(double);
}

/* Run s's workspace, and its groups [*g0, *g1). */
static attn_ws slice_of(const struct pf_node *y, int s, int *g0, int *g1)
{
    int k = y->i0, dh = y->c / (int)y->p, groups = y->n / k;
    *g0 = (int)((int64_t)groups * s / ATTN_SLICES);
    *g1 = (int)((int64_t)groups * (s + 1) / ATTN_SLICES);
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

/* Load channels [c0, c0 + dh) of rows [r0, r0 + k) of a [S][n][c] buffer as
 * Taylor coefficients. */
static void load(double *dst, const pf_real *src, size_t len, int c, int r0, int c0, const attn_ws *w,
                 const int st[KS], int K)
{
    for (int i = 0; i < w->k; i++)
        for (int a = 0; a < w->dh; a++)
            for (int m = 0; m <= K && m < KS; m++)
                A3(dst, i, a, w->dh, m) = div_fact((double)src[(size_t)st[m] * len + (size_t)(r0 + i) * c + c0 + a], m);
}

/* The group's forward and reverse with the order K a constant in each
 * case, so the compiler unrolls the coefficient loops (flatten inlines
 * attention_core.h's code into every case); the arithmetic is the same. */
__attribute__((flatten)) static void group_fwd_k(attn_ws *w, int K, double scale)
{
    switch (K) {
    case 0: attn_group_fwd(w, 0, scale); break;
    case 1: attn_group_fwd(w, 1, scale); break;
    case 2: attn_group_fwd(w, 2, scale); break;
    case 3: attn_group_fwd(w, 3, scale); break;
    default: attn_group_fwd(w, 4, scale); break;
    }
}

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

/* Load one group's q, k, v (the node's three operands; head at channel
 * c0, rows from r0) and run its forward: each pass of the forward and the
 * backward starts with it. */
static void group_fwd(attn_ws *w, struct pf_node *const *in, size_t len, int c, int r0, int c0, const int st[KS],
                      int K, double scale)
{
    load(w->q, in[0]->val, len, c, r0, c0, w, st, K);
    load(w->kk, in[1]->val, len, c, r0, c0, w, st, K);
    load(w->v, in[2]->val, len, c, r0, c0, w, st, K);
    group_fwd_k(w, K, scale);
}

/* Every direction's pass of group g (one point's k tokens), every head. */
static void fwd_point(struct pf_node *y, attn_ws *w, int g)
{
    int k = y->i0, h = (int)y->p, c = y->c, dh = c / h;
    double scale = 1 / sqrt((double)dh);
    size_t len = pf_node_stream_len(y);
    const pf_jet_layout *L = &y->layout;
    int passes = L->ndir ? L->ndir : 1;
    for (int d = 0; d < passes; d++) {
        int st[KS] = {0, 0, 0, 0, 0};
        int K = dir_streams(L, L->ndir ? d : -1, st);
        for (int hd = 0; hd < h; hd++) {
            group_fwd(w, y->in, len, c, g * k, hd * dh, st, K, scale);
            for (int i = 0; i < k; i++)
                for (int a = 0; a < dh; a++)
                    for (int m = 0; m <= K && m < KS; m++)
                        y->val[(size_t)st[m] * len + (size_t)(g * k + i) * c + hd * dh + a] =
                            (pf_real)(A3(w->o, i, a, dh, m) * attn_fact(m));
        }
    }
}

void pf_cpu_attention_fwd(struct pf_node *y)
{
#pragma omp parallel for schedule(static)
    for (int s = 0; s < ATTN_SLICES; s++) {
        int g0, g1;
        attn_ws w = slice_of(y, s, &g0, &g1);
        for (int g = g0; g < g1; g++) fwd_point(y, &w, g);
    }
}

/* Add a group's coefficient gradient (divided back by m!: stream = m! coef)
 * into a [S][n][c] gradient buffer. */
static void store_grad(pf_real *dst, const double *src, size_t len, int c, int r0, int c0,
                       const attn_ws *w, const int st[KS], int K)
{
    for (int i = 0; i < w->k; i++)
        for (int a = 0; a < w->dh; a++)
            for (int m = 0; m <= K && m < KS; m++)
                dst[(size_t)st[m] * len + (size_t)(r0 + i) * c + c0 + a] += (pf_real)div_fact(A3(src, i, a, w->dh, m), m);
}

/* The reverse of fwd_point: every direction's pass of group g, adding
 * into the operands' gradients. */
static void bwd_point(struct pf_node *y, attn_ws *w, int g)
{
    struct pf_node *in[3] = {y->in[0], y->in[1], y->in[2]};
    int k = y->i0, h = (int)y->p, c = y->c, dh = c / h;
    double scale = 1 / sqrt((double)dh);
    size_t len = pf_node_stream_len(y);
    const pf_jet_layout *L = &y->layout;
    int passes = L->ndir ? L->ndir : 1;
    for (int d = 0; d < passes; d++) {
        int st[KS] = {0, 0, 0, 0, 0};
        int K = dir_streams(L, L->ndir ? d : -1, st);
        for (int hd = 0; hd < h; hd++) {
            group_fwd(w, y->in, len, c, g * k, hd * dh, st, K, scale);
            /* dL/dcoef_m = m! dL/dstream_m; the value's only in pass 0 */
            for (int i = 0; i < k; i++)
                for (int a = 0; a < dh; a++)
                    for (int m = 0; m <= K && m < KS; m++)
                        A3(w->go, i, a, dh, m) =
                            m == 0 && d > 0 ? 0
                                           : (double)y->grad[(size_t)st[m] * len + (size_t)(g * k + i) * c + hd * dh + a] * attn_fact(m);
            group_bwd_k(w, K, scale);
            double *gin[3] = {w->gq, w->gk, w->gv};
            for (int j = 0; j < 3; j++)
                if (in[j]->grad) store_grad(in[j]->grad, gin[j], len, c, g * k, hd * dh, w, st, K);
        }
    }
}

void pf_cpu_attention_bwd(struct pf_node *y)
{
    /* first writers clear (an operand given twice is cleared once: only its
     * first slot has in_acc = 0), then every pass adds */
    for (int j = 0; j < 3; j++)
        if (y->in[j]->grad && !y->in_acc[j]) memset(y->in[j]->grad, 0, pf_node_len(y->in[j]) * sizeof(pf_real));
#pragma omp parallel for schedule(static)
    for (int s = 0; s < ATTN_SLICES; s++) {
        int g0, g1;
        attn_ws w = slice_of(y, s, &g0, &g1);
        for (int g = g0; g < g1; g++) bwd_point(y, &w, g);
    }
}
