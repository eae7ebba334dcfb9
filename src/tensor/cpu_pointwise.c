/*
 * The light ops on jets: products (Leibniz rule), sums, affine maps, channel
 * concat/slice, derivative extraction, mean-square reduction, parameter
 * fields. Operands may broadcast: a value-only jet (S = 1) has zero
 * derivative streams, and a one-channel operand spans every channel.
 */
#include <string.h>

#include "tensor/cpu_ops.h"

void pf_cpu_put(pf_real *restrict dst, const pf_real *restrict src, size_t n, int acc)
{
    if (acc)
        for (size_t i = 0; i < n; i++) dst[i] += src[i];
    else
        memcpy(dst, src, n * sizeof *dst);
}

static void zero(pf_real *p, size_t n) { memset(p, 0, n * sizeof *p); }

/* ------------------------------------------------------------ products, sums */

/* One term of a product: out stream s gets coef * A[sa] * B[sb]. */
typedef struct term {
    int s, sa, sb;
    pf_real coef;
} term;

#define MAX_TERMS (PF_JET_MAX_DIRS * 15 + PF_JET_MAX_COLL * (2 + PF_JET_MAX_DIRS) + 1)

static int binom(int k, int j)
{
    static const int C[5][5] = {{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}};
    return C[k][j];
}

/* The Leibniz terms of y = a * b; streams an operand lacks (S = 1) are zero. */
static int product_terms(const struct pf_node *y, term *t)
{
    const pf_jet_layout *L = &y->layout;
    int fa = y->in[0]->S > 1, fb = y->in[1]->S > 1, nt = 0;
    t[nt++] = (term){0, 0, 0, 1};
    for (int d = 0; d < L->ndir; d++)
        for (int k = 1; k <= L->order[d]; k++) {
            int s = pf_jet_stream(L, d, k);
            for (int j = 0; j <= k; j++) {
                if ((j > 0 && !fa) || (k - j > 0 && !fb)) continue;
                t[nt++] = (term){s, pf_jet_stream(L, d, j), pf_jet_stream(L, d, k - j),
                                 (pf_real)binom(k, j)};
            }
        }
    for (int c = 0; c < L->ncoll; c++) {
        int s = pf_jet_collapsed(L, c);
        if (fa) t[nt++] = (term){s, s, 0, 1};
        if (fb) t[nt++] = (term){s, 0, s, 1};
        if (fa && fb)
            for (int d = 0; d < L->ndir; d++)
                if (L->coll_w[c][d] != 0) {
                    int s1 = pf_jet_stream(L, d, 1);
                    t[nt++] = (term){s, s1, s1, 2 * L->coll_w[c][d]};
                }
    }
    return nt;
}

/* y[s] (+)= coef * A * B elementwise with channel broadcasting. */
static void term_fwd(pf_real *restrict y, const pf_real *restrict A, const pf_real *restrict B,
                     pf_real coef, int n, int c, int ca, int cb, int acc)
{
    if (ca == c && cb == c) {
        size_t len = (size_t)n * c;
        if (acc)
            for (size_t i = 0; i < len; i++) y[i] += coef * A[i] * B[i];
        else
            for (size_t i = 0; i < len; i++) y[i] = coef * A[i] * B[i];
        return;
    }
    int sa = ca == c, sb = cb == c;
    for (int p = 0; p < n; p++)
        for (int j = 0; j < c; j++) {
            pf_real v = coef * A[(size_t)p * ca + j * sa] * B[(size_t)p * cb + j * sb];
            y[(size_t)p * c + j] = acc ? y[(size_t)p * c + j] + v : v;
        }
}

/* gA (+)= coef * gy * B, summing over channels when A broadcasts. */
static void term_bwd(pf_real *restrict gA, const pf_real *restrict gy, const pf_real *restrict B,
                     pf_real coef, int n, int c, int ca, int cb, int acc)
{
    int sb = cb == c;
    if (ca == c) {
        if (cb == c) {
            size_t len = (size_t)n * c;
            if (acc)
                for (size_t i = 0; i < len; i++) gA[i] += coef * gy[i] * B[i];
            else
                for (size_t i = 0; i < len; i++) gA[i] = coef * gy[i] * B[i];
            return;
        }
        for (int p = 0; p < n; p++)
            for (int j = 0; j < c; j++) {
                pf_real v = coef * gy[(size_t)p * c + j] * B[(size_t)p * cb + j * sb];
                gA[(size_t)p * c + j] = acc ? gA[(size_t)p * c + j] + v : v;
            }
        return;
    }
    for (int p = 0; p < n; p++) {
        pf_real v = 0;
        for (int j = 0; j < c; j++) v += gy[(size_t)p * c + j] * B[(size_t)p * cb + j * sb];
        gA[p] = acc ? gA[p] + coef * v : coef * v;
    }
}

static void mul_fwd(struct pf_node *y)
{
    const struct pf_node *a = y->in[0], *b = y->in[1];
    term t[MAX_TERMS];
    int nt = product_terms(y, t);
    size_t la = pf_node_stream_len(a), lb = pf_node_stream_len(b), ly = pf_node_stream_len(y);
    for (int i = 0; i < nt; i++) {
        int first = i == 0 || t[i].s != t[i - 1].s;
        term_fwd(y->val + t[i].s * ly, a->val + t[i].sa * la, b->val + t[i].sb * lb, t[i].coef,
                 y->n, y->c, a->c, b->c, !first);
    }
}

static void mul_bwd(struct pf_node *y)
{
    for (int side = 0; side < 2; side++) {
        struct pf_node *u = y->in[side], *v = y->in[1 - side];
        if (!u->grad) continue;
        term t[MAX_TERMS];
        int nt = product_terms(y, t);
        bool written[PF_JET_MAX_STREAMS] = {false};
        size_t lu = pf_node_stream_len(u), lv = pf_node_stream_len(v), ly = pf_node_stream_len(y);
        for (int i = 0; i < nt; i++) {
            int su = side ? t[i].sb : t[i].sa, sv = side ? t[i].sa : t[i].sb;
            int acc = y->in_acc[side] || written[su];
            term_bwd(u->grad + su * lu, y->grad + t[i].s * ly, v->val + sv * lv, t[i].coef, y->n,
                     y->c, u->c, v->c, acc);
            written[su] = true;
        }
    }
}

/* dst[p, j] (+)= coef * src[p, j or 0]: src has cs = c or 1 channels. */
static void bcast_put(pf_real *restrict dst, const pf_real *restrict src, pf_real coef, int n, int c,
                      int cs, int acc)
{
    if (cs == c) {
        size_t len = (size_t)n * c;
        if (acc)
            for (size_t i = 0; i < len; i++) dst[i] += coef * src[i];
        else
            for (size_t i = 0; i < len; i++) dst[i] = coef * src[i];
        return;
    }
    for (int p = 0; p < n; p++)
        for (int j = 0; j < c; j++)
            dst[(size_t)p * c + j] = (acc ? dst[(size_t)p * c + j] : 0) + coef * src[p];
}

/* y = a + sign * b; a stream an operand lacks (S = 1) counts as zero. */
static void add_fwd(struct pf_node *y, pf_real sign)
{
    size_t ly = pf_node_stream_len(y);
    for (int s = 0; s < y->S; s++) {
        pf_real *ys = y->val + s * ly;
        for (int side = 0; side < 2; side++) {
            const struct pf_node *u = y->in[side];
            if (s >= u->S) {
                if (side == 0) zero(ys, ly);
                continue;
            }
            bcast_put(ys, u->val + s * pf_node_stream_len(u), side ? sign : 1, y->n, y->c, u->c,
                      side);
        }
    }
}

static void add_bwd(struct pf_node *y, pf_real sign)
{
    size_t ly = pf_node_stream_len(y);
    for (int side = 0; side < 2; side++) {
        struct pf_node *u = y->in[side];
        if (!u->grad) continue;
        pf_real coef = side ? sign : 1;
        int acc = y->in_acc[side];
        size_t lu = pf_node_stream_len(u);
        for (int s = 0; s < u->S; s++) {
            pf_real *gs = u->grad + s * lu;
            const pf_real *gy = y->grad + s * ly;
            if (u->c == y->c) {
                bcast_put(gs, gy, coef, y->n, y->c, y->c, acc);
                continue;
            }
            for (int p = 0; p < y->n; p++) { /* broadcast operand: sum over channels */
                pf_real v = 0;
                for (int j = 0; j < y->c; j++) v += gy[(size_t)p * y->c + j];
                gs[p] = (acc ? gs[p] : 0) + coef * v;
            }
        }
    }
}

/* ------------------------------------------------------------ affine, scale */

static void affine_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    int c = y->c;
    const pf_real *sc = y->vec, *sh = y->vec + c;
    for (int s = 0; s < y->S; s++) {
        const pf_real *xs = x->val + s * pf_node_stream_len(x);
        pf_real *ys = y->val + s * pf_node_stream_len(y);
        for (int p = 0; p < y->n; p++)
            for (int j = 0; j < c; j++)
                ys[(size_t)p * c + j] = sc[j] * xs[(size_t)p * c + j] + (s == 0 ? sh[j] : 0);
    }
}

static void affine_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    int c = y->c, acc = y->in_acc[0];
    const pf_real *sc = y->vec;
    for (int s = 0; s < y->S; s++) {
        pf_real *gx = x->grad + s * pf_node_stream_len(x);
        const pf_real *gy = y->grad + s * pf_node_stream_len(y);
        for (int p = 0; p < y->n; p++)
            for (int j = 0; j < c; j++) {
                size_t i = (size_t)p * c + j;
                gx[i] = (acc ? gx[i] : 0) + sc[j] * gy[i];
            }
    }
}

/* Deterministic dot product: fixed chunking, double partial sums. */
static double dot_fixed(const pf_real *a, const pf_real *b, size_t n)
{
    double part[PF_CPU_NCHUNK] = {0};
    size_t chunk = (n + PF_CPU_NCHUNK - 1) / PF_CPU_NCHUNK;
#pragma omp parallel for schedule(static) if (n > PF_CPU_PAR_MIN)
    for (int k = 0; k < PF_CPU_NCHUNK; k++) {
        size_t lo = (size_t)k * chunk, hi = lo + chunk < n ? lo + chunk : n;
        double acc = 0;
        for (size_t i = lo; i < hi; i++) acc += (double)a[i] * b[i];
        part[k] = acc;
    }
    double s = 0;
    for (int k = 0; k < PF_CPU_NCHUNK; k++) s += part[k];
    return s;
}

static void scale_param_fwd(struct pf_node *y)
{
    pf_real s = y->p * y->pw[0][0];
    const pf_real *xv = y->in[0]->val;
    size_t len = pf_node_len(y);
    for (size_t i = 0; i < len; i++) y->val[i] = s * xv[i];
}

static void scale_param_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    size_t len = pf_node_len(y);
    if (y->pg[0]) y->pg[0][0] += y->p * (pf_real)dot_fixed(y->grad, x->val, len);
    if (!x->grad) return;
    pf_real s = y->p * y->pw[0][0];
    if (y->in_acc[0])
        for (size_t i = 0; i < len; i++) x->grad[i] += s * y->grad[i];
    else
        for (size_t i = 0; i < len; i++) x->grad[i] = s * y->grad[i];
}

/* ------------------------------------------------------------------- tokens */

/* y [S][n k][c]: row p k + i = x's row p, plus i dt on the last channel of
 * the value stream. x [S][n][c]. */
static void tokens_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    int k = y->i0, c = y->c, n = x->n;
    for (int s = 0; s < y->S; s++) {
        const pf_real *xs = x->val + (size_t)s * n * c;
        pf_real *ys = y->val + (size_t)s * y->n * c;
        for (int p = 0; p < n; p++)
            for (int i = 0; i < k; i++) {
                pf_real *row = ys + ((size_t)p * k + i) * c;
                memcpy(row, xs + (size_t)p * c, (size_t)c * sizeof *row);
                if (s == 0) row[c - 1] += (pf_real)i * y->p;
            }
    }
}

/* gx row p (+)= sum over i of gy row p k + i, tokens added in order. */
static void tokens_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    int k = y->i0, c = y->c, n = x->n, acc = y->in_acc[0];
    for (int s = 0; s < y->S; s++) {
        const pf_real *gs = y->grad + (size_t)s * y->n * c;
        pf_real *gx = x->grad + (size_t)s * n * c;
        for (int p = 0; p < n; p++)
            for (int j = 0; j < c; j++) {
                pf_real t = 0;
                for (int i = 0; i < k; i++) t += gs[((size_t)p * k + i) * c + j];
                gx[(size_t)p * c + j] = acc ? gx[(size_t)p * c + j] + t : t;
            }
    }
}

/* y [S][n][c] = rows p k + i of x [S][n k][c]. */
static void token_select_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    int k = y->i0, i = (int)y->p, c = y->c, n = y->n;
    for (int s = 0; s < y->S; s++)
        for (int p = 0; p < n; p++)
            memcpy(y->val + ((size_t)s * n + p) * c, x->val + ((size_t)s * x->n + (size_t)p * k + i) * c,
                   (size_t)c * sizeof(pf_real));
}

/* The selected rows of gx get gy's (written or added); the others are
 * zeroed when this op writes first. */
static void token_select_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    int k = y->i0, i = (int)y->p, c = y->c, n = y->n, acc = y->in_acc[0];
    if (!acc) zero(x->grad, pf_node_len(x));
    for (int s = 0; s < y->S; s++)
        for (int p = 0; p < n; p++)
            pf_cpu_put(x->grad + ((size_t)s * x->n + (size_t)p * k + i) * c, y->grad + ((size_t)s * n + p) * c,
                       (size_t)c, 1);
}

/* ------------------------------------------------------------ concat, slice */

/* Copy channel block [c0, c0+nc) between buffers of cs and cd channels. */
static void copy_channels(pf_real *dst, int cd, int d0, const pf_real *src, int cs, int s0, int nc,
                          int n, int acc)
{
    for (int p = 0; p < n; p++)
        pf_cpu_put(dst + (size_t)p * cd + d0, src + (size_t)p * cs + s0, (size_t)nc, acc);
}

static void concat_fwd(struct pf_node *y)
{
    for (int s = 0; s < y->S; s++) {
        int c0 = 0;
        for (int k = 0; k < y->nin; k++) {
            const struct pf_node *x = y->in[k];
            copy_channels(y->val + s * pf_node_stream_len(y), y->c, c0,
                          x->val + s * pf_node_stream_len(x), x->c, 0, x->c, y->n, 0);
            c0 += x->c;
        }
    }
}

static void concat_bwd(struct pf_node *y)
{
    int c0 = 0;
    for (int k = 0; k < y->nin; k++) {
        struct pf_node *x = y->in[k];
        if (x->grad)
            for (int s = 0; s < y->S; s++)
                copy_channels(x->grad + s * pf_node_stream_len(x), x->c, 0,
                              y->grad + s * pf_node_stream_len(y), y->c, c0, x->c, y->n,
                              y->in_acc[k]);
        c0 += x->c;
    }
}

static void slice_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    for (int s = 0; s < y->S; s++)
        copy_channels(y->val + s * pf_node_stream_len(y), y->c, 0,
                      x->val + s * pf_node_stream_len(x), x->c, y->i0, y->c, y->n, 0);
}

static void slice_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    if (!y->in_acc[0]) zero(x->grad, pf_node_len(x)); /* channels outside the slice get 0 */
    for (int s = 0; s < y->S; s++)
        copy_channels(x->grad + s * pf_node_stream_len(x), x->c, y->i0,
                      y->grad + s * pf_node_stream_len(y), y->c, 0, y->c, y->n, 1);
}

/* ------------------------------------------------------ extraction, reduction */

static void deriv_fwd(struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    size_t len = pf_node_stream_len(y);
    memcpy(y->val, x->val + y->i0 * len, len * sizeof *y->val);
}

static void deriv_bwd(struct pf_node *y)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    size_t len = pf_node_stream_len(y);
    if (!y->in_acc[0]) zero(x->grad, pf_node_len(x));
    pf_cpu_put(x->grad + y->i0 * len, y->grad, len, 1);
}

static void mean_square_fwd(struct pf_node *y)
{
    const struct pf_node *r = y->in[0], *w = y->nin > 1 ? y->in[1] : NULL;
    int n = r->n, c = r->c;
    double part[PF_CPU_NCHUNK] = {0};
    int chunk = (n + PF_CPU_NCHUNK - 1) / PF_CPU_NCHUNK;
#pragma omp parallel for schedule(static) if ((size_t)n * c > PF_CPU_PAR_MIN)
    for (int k = 0; k < PF_CPU_NCHUNK; k++) {
        int lo = k * chunk, hi = lo + chunk < n ? lo + chunk : n;
        double acc = 0;
        for (int p = lo; p < hi; p++) {
            double q = 0;
            for (int j = 0; j < c; j++) {
                double v = r->val[(size_t)p * c + j];
                q += v * v;
            }
            acc += w ? w->val[p] * q : q;
        }
        part[k] = acc;
    }
    double s = 0;
    for (int k = 0; k < PF_CPU_NCHUNK; k++) s += part[k];
    y->val[0] = (pf_real)(s / ((double)r->n_full * c)); /* this chunk's share of the mean */
}

static void mean_square_bwd(struct pf_node *y)
{
    struct pf_node *r = y->in[0], *w = y->nin > 1 ? y->in[1] : NULL;
    int n = r->n, c = r->c;
    pf_real g = y->grad[0] / (pf_real)((double)r->n_full * c);
    if (r->grad) {
        if (!y->in_acc[0]) zero(r->grad, pf_node_len(r)); /* only the value stream is used */
#pragma omp parallel for schedule(static) if ((size_t)n * c > PF_CPU_PAR_MIN)
        for (int p = 0; p < n; p++) {
            pf_real wp = w ? w->val[p] : 1;
            for (int j = 0; j < c; j++) {
                size_t i = (size_t)p * c + j;
                r->grad[i] += 2 * g * wp * r->val[i];
            }
        }
    }
    if (w && w->grad) {
        int acc = y->in_acc[1];
        for (int p = 0; p < n; p++) {
            pf_real q = 0;
            for (int j = 0; j < c; j++) q += r->val[(size_t)p * c + j] * r->val[(size_t)p * c + j];
            w->grad[p] = (acc ? w->grad[p] : 0) + g * q;
        }
    }
}

static void param_field_bwd(struct pf_node *y)
{
    if (y->pg[0]) pf_cpu_put(y->pg[0] + y->off, y->grad, (size_t)y->n, 1);
}

/* ------------------------------------------------------------------ dispatch */

void pf_cpu_pointwise_fwd(struct pf_node *y)
{
    switch (y->op) {
    case PF_OP_MUL: mul_fwd(y); break;
    case PF_OP_ADD: add_fwd(y, 1); break;
    case PF_OP_SUB: add_fwd(y, -1); break;
    case PF_OP_AFFINE: affine_fwd(y); break;
    case PF_OP_SCALE_PARAM: scale_param_fwd(y); break;
    case PF_OP_TOKENS: tokens_fwd(y); break;
    case PF_OP_TOKEN_SELECT: token_select_fwd(y); break;
    case PF_OP_CONCAT: concat_fwd(y); break;
    case PF_OP_SLICE: slice_fwd(y); break;
    case PF_OP_DERIV: deriv_fwd(y); break;
    case PF_OP_MEAN_SQUARE: mean_square_fwd(y); break;
    default: PF_ABORT("op %s is not pointwise", pf_op_name(y->op));
    }
}

void pf_cpu_pointwise_bwd(struct pf_node *y)
{
    switch (y->op) {
    case PF_OP_MUL: mul_bwd(y); break;
    case PF_OP_ADD: add_bwd(y, 1); break;
    case PF_OP_SUB: add_bwd(y, -1); break;
    case PF_OP_AFFINE: affine_bwd(y); break;
    case PF_OP_SCALE_PARAM: scale_param_bwd(y); break;
    case PF_OP_TOKENS: tokens_bwd(y); break;
    case PF_OP_TOKEN_SELECT: token_select_bwd(y); break;
    case PF_OP_CONCAT: concat_bwd(y); break;
    case PF_OP_SLICE: slice_bwd(y); break;
    case PF_OP_DERIV: deriv_bwd(y); break;
    case PF_OP_MEAN_SQUARE: mean_square_bwd(y); break;
    case PF_OP_PARAM_FIELD: param_field_bwd(y); break;
    default: PF_ABORT("op %s is not pointwise", pf_op_name(y->op));
    }
}
