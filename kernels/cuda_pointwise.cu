/*
 * cuda_pointwise.cu — the light jet ops on the GPU: products (Leibniz rule),
 * sums, affine maps, scale by a parameter, channel concat/slice, derivative
 * extraction, mean-square reduction, parameter fields. The semantics, the
 * broadcasting rules (S = 1: zero derivative streams; c = 1: spans every
 * channel) and the write-or-add rule per input are those of
 * src/tensor/cpu_pointwise.c; see there for the derivations.
 *
 * Elementwise kernels run one thread per output element (grid-stride). A
 * gradient that sums over a broadcast dimension is summed inside one thread
 * in the CPU's order, so nothing is accumulated with atomics.
 */
#include "cuda_ops.h"

/* Threads per block of every elementwise kernel. */
constexpr int PW_BLOCK = 256;
/* Fixed grid of the mean-square reduction: blocks x threads (a power of 2). */
constexpr int MS_BLOCKS = 128;
constexpr int MS_THREADS = 256;
/* Kernels that update one scalar. */
constexpr int SCALAR_THREADS = 1;

/* Position of element i in a [S][n][c] buffer. */
struct elem {
    int s, j;
    size_t p;
};

static __device__ inline elem locate(size_t i, int n, int c)
{
    size_t len = (size_t)n * c;
    elem e;
    e.s = (int)(i / len);
    size_t r = i - (size_t)e.s * len;
    e.p = r / (size_t)c;
    e.j = (int)(r - e.p * (size_t)c);
    return e;
}

/* Offset of channel j of point p in a stream of cs channels, where a
 * one-channel stream spans all c channels. */
static __device__ inline size_t at(size_t p, int j, int cs, int c)
{
    return p * (size_t)cs + (cs == c ? (size_t)j : 0);
}

/* ------------------------------------------------------------ products */

/* One Leibniz term of y = a * b: output stream s gets coef * A[sa] * B[sb]. */
struct term {
    int s, sa, sb;
    pf_real coef;
};

#define MAX_TERMS (PF_JET_MAX_DIRS * 15 + PF_JET_MAX_COLL * (2 + PF_JET_MAX_DIRS) + 1)

/* The terms, grouped by the stream k of the buffer they write (y's stream
 * forward, an operand's stream backward): group k is [first[k], first[k+1])
 * and each of its terms adds coef * P[s1] * Q[s2]. At most 2.4 KB: it travels
 * by value as a __grid_constant__ kernel parameter. */
struct term_plan {
    int first[PF_JET_MAX_STREAMS + 1];
    int s1[MAX_TERMS], s2[MAX_TERMS];
    pf_real coef[MAX_TERMS];
};

/* Which buffer a plan writes: y (P = a, Q = b), or the gradient of a or of
 * b (P = y->grad, Q = the other operand's value). */
enum term_role { FOR_Y, FOR_GRAD_A, FOR_GRAD_B };

static int binomial(int k, int j)
{
    static const int row[5][5] = {{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}};
    return row[k][j];
}

static term make_term(int s, int sa, int sb, pf_real coef)
{
    term t = {s, sa, sb, coef};
    return t;
}

/* The terms of y = a * b in the order of product_terms() in the CPU file
 * (that order is the order of the additions): the value, then for every
 * direction and order the binomial expansion, then the collapsed streams.
 * Streams an operand lacks (S = 1) are zero, so their terms are dropped. */
static int leibniz_terms(const struct pf_node *y, term *t)
{
    const pf_jet_layout *L = &y->layout;
    bool da = y->in[0]->S > 1, db = y->in[1]->S > 1;
    int nt = 0;
    t[nt++] = make_term(0, 0, 0, 1);
    for (int d = 0; d < L->ndir; d++)
        for (int k = 1; k <= L->order[d]; k++) {
            int s = pf_jet_stream(L, d, k);
            for (int j = 0; j <= k; j++)
                if ((j == 0 || da) && (j == k || db))
                    t[nt++] = make_term(s, pf_jet_stream(L, d, j), pf_jet_stream(L, d, k - j),
                                        (pf_real)binomial(k, j));
        }
    for (int c = 0; c < L->ncoll; c++) {
        int s = pf_jet_collapsed(L, c);
        if (da) t[nt++] = make_term(s, s, 0, 1);
        if (db) t[nt++] = make_term(s, 0, s, 1);
        if (da && db)
            for (int d = 0; d < L->ndir; d++)
                if (L->coll_w[c][d] != 0) {
                    int s1 = pf_jet_stream(L, d, 1);
                    t[nt++] = make_term(s, s1, s1, 2 * L->coll_w[c][d]);
                }
    }
    return nt;
}

/* Group the terms by the stream they write for `role`, nkeys streams, keeping
 * the list order inside a group. */
static void plan_terms(const term *t, int nt, term_role role, int nkeys, term_plan *pl)
{
    int m = 0;
    for (int k = 0; k < nkeys; k++) {
        pl->first[k] = m;
        for (int i = 0; i < nt; i++) {
            int key = role == FOR_Y ? t[i].s : role == FOR_GRAD_A ? t[i].sa : t[i].sb;
            if (key != k) continue;
            pl->s1[m] = role == FOR_Y ? t[i].sa : t[i].s;
            pl->s2[m] = role == FOR_Y ? t[i].sb : role == FOR_GRAD_A ? t[i].sb : t[i].sa;
            pl->coef[m] = t[i].coef;
            m++;
        }
    }
    pl->first[nkeys] = m;
}

/* out[k][p][j] = (acc ? out : 0) + sum over group k of coef * P[s1][p][j] *
 * Q[s2][p][j], P of cp and Q of cq channels (c or 1), out of c. */
static __global__ void leibniz_kernel(pf_real *__restrict__ out, const pf_real *__restrict__ P,
                                      const pf_real *__restrict__ Q,
                                      const __grid_constant__ term_plan pl, int nkeys, int n,
                                      int c, int cp, int cq, int acc)
{
    size_t total = (size_t)nkeys * n * c, lp = (size_t)n * cp, lq = (size_t)n * cq;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        elem e = locate(i, n, c);
        size_t ip = at(e.p, e.j, cp, c), iq = at(e.p, e.j, cq, c);
        pf_real v = acc ? out[i] : 0;
        for (int t = pl.first[e.s]; t < pl.first[e.s + 1]; t++)
            v += pl.coef[t] * P[pl.s1[t] * lp + ip] * Q[pl.s2[t] * lq + iq];
        out[i] = v;
    }
}

/* The gradient of a one-channel operand: out[k][p] = (acc ? out : 0) + sum
 * over group k of coef * sum_j P[s1][p][j] * Q[s2][p][j], P = y->grad of c
 * channels, Q of cq (c or 1); the channel sum runs in one thread. */
static __global__ void leibniz_sum_kernel(pf_real *__restrict__ out, const pf_real *__restrict__ P,
                                          const pf_real *__restrict__ Q,
                                          const __grid_constant__ term_plan pl, int nkeys, int n,
                                          int c, int cq, int acc)
{
    size_t total = (size_t)nkeys * n, lp = (size_t)n * c, lq = (size_t)n * cq;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        int k = (int)(i / (size_t)n);
        size_t p = i - (size_t)k * n;
        pf_real v = acc ? out[i] : 0;
        for (int t = pl.first[k]; t < pl.first[k + 1]; t++) {
            const pf_real *Ps = P + pl.s1[t] * lp, *Qs = Q + pl.s2[t] * lq;
            pf_real dot = 0;
            for (int j = 0; j < c; j++) dot += Ps[p * c + j] * Qs[at(p, j, cq, c)];
            v += pl.coef[t] * dot;
        }
        out[i] = v;
    }
}

static void launch_leibniz(pf_real *out, const pf_real *P, const pf_real *Q, const term_plan &pl,
                           int nkeys, int n, int c, int cp, int cq, int acc, cudaStream_t st)
{
    size_t total = (size_t)nkeys * n * c;
    leibniz_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(out, P, Q, pl, nkeys, n, c,
                                                                      cp, cq, acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_leibniz_sum(pf_real *out, const pf_real *P, const pf_real *Q,
                               const term_plan &pl, int nkeys, int n, int c, int cq, int acc,
                               cudaStream_t st)
{
    size_t total = (size_t)nkeys * n;
    leibniz_sum_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(out, P, Q, pl, nkeys, n,
                                                                          c, cq, acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void mul_fwd(struct pf_node *y, cudaStream_t st)
{
    const struct pf_node *a = y->in[0], *b = y->in[1];
    term t[MAX_TERMS];
    term_plan pl;
    plan_terms(t, leibniz_terms(y, t), FOR_Y, y->S, &pl);
    launch_leibniz(y->val, a->val, b->val, pl, y->S, y->n, y->c, a->c, b->c, 0, st);
}

/* Every stream of an operand with a gradient has at least one term (its own
 * stream times the other's value), so with acc = 0 every element of its
 * gradient is written, as the CPU's written[] bookkeeping does. */
static void mul_bwd(struct pf_node *y, cudaStream_t st)
{
    term t[MAX_TERMS];
    int nt = leibniz_terms(y, t);
    for (int side = 0; side < 2; side++) {
        struct pf_node *u = y->in[side], *v = y->in[1 - side];
        if (!u->grad) continue;
        term_plan pl;
        plan_terms(t, nt, side ? FOR_GRAD_B : FOR_GRAD_A, u->S, &pl);
        if (u->c == y->c)
            launch_leibniz(u->grad, y->grad, v->val, pl, u->S, y->n, y->c, y->c, v->c,
                           y->in_acc[side], st);
        else
            launch_leibniz_sum(u->grad, y->grad, v->val, pl, u->S, y->n, y->c, v->c,
                               y->in_acc[side], st);
    }
}

/* ------------------------------------------------------------ sums */

/* y = a + sign * b; a stream an operand lacks (s >= its S) counts as zero. */
static __global__ void add_fwd_kernel(pf_real *__restrict__ y, const pf_real *__restrict__ a,
                                      const pf_real *__restrict__ b, int S, int n, int c, int Sa,
                                      int ca, int Sb, int cb, pf_real sign)
{
    size_t total = (size_t)S * n * c, la = (size_t)n * ca, lb = (size_t)n * cb;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        elem e = locate(i, n, c);
        pf_real v = e.s < Sa ? a[e.s * la + at(e.p, e.j, ca, c)] : 0;
        if (e.s < Sb) v += sign * b[e.s * lb + at(e.p, e.j, cb, c)];
        y[i] = v;
    }
}

/* gu (+)= coef * gy over gu's Su streams; a one-channel gu sums gy over its
 * c channels in one thread. */
static __global__ void add_bwd_kernel(pf_real *__restrict__ gu, const pf_real *__restrict__ gy,
                                      int Su, int n, int c, int cu, pf_real coef, int acc)
{
    size_t total = (size_t)Su * n * cu, ly = (size_t)n * c;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        elem e = locate(i, n, cu);
        const pf_real *g = gy + e.s * ly + e.p * c;
        pf_real v;
        if (cu == c) {
            v = coef * g[e.j];
        } else {
            pf_real sum = 0;
            for (int j = 0; j < c; j++) sum += g[j];
            v = coef * sum;
        }
        gu[i] = acc ? gu[i] + v : v;
    }
}

static void launch_add_fwd(pf_real *y, const pf_real *a, const pf_real *b, int S, int n, int c,
                           int Sa, int ca, int Sb, int cb, pf_real sign, cudaStream_t st)
{
    size_t total = (size_t)S * n * c;
    add_fwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(y, a, b, S, n, c, Sa, ca, Sb,
                                                                      cb, sign);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_add_bwd(pf_real *gu, const pf_real *gy, int Su, int n, int c, int cu,
                           pf_real coef, int acc, cudaStream_t st)
{
    size_t total = (size_t)Su * n * cu;
    add_bwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(gu, gy, Su, n, c, cu, coef,
                                                                      acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void add_fwd(struct pf_node *y, pf_real sign, cudaStream_t st)
{
    const struct pf_node *a = y->in[0], *b = y->in[1];
    launch_add_fwd(y->val, a->val, b->val, y->S, y->n, y->c, a->S, a->c, b->S, b->c, sign, st);
}

static void add_bwd(struct pf_node *y, pf_real sign, cudaStream_t st)
{
    for (int side = 0; side < 2; side++) {
        struct pf_node *u = y->in[side];
        if (u->grad)
            launch_add_bwd(u->grad, y->grad, u->S, y->n, y->c, u->c, side ? sign : 1,
                           y->in_acc[side], st);
    }
}

/* ------------------------------------------------------------ affine, scale */

/* y = scale[j] x (+ shift[j] on the value stream); cv = scale[c] then shift[c]. */
static __global__ void affine_fwd_kernel(pf_real *__restrict__ y, const pf_real *__restrict__ x,
                                         const pf_real *__restrict__ cv, int S, int n, int c)
{
    size_t total = (size_t)S * n * c;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        elem e = locate(i, n, c);
        y[i] = cv[e.j] * x[i] + (e.s == 0 ? cv[c + e.j] : 0);
    }
}

/* gx (+)= scale[j] gy. */
static __global__ void affine_bwd_kernel(pf_real *__restrict__ gx, const pf_real *__restrict__ gy,
                                         const pf_real *__restrict__ scale, int S, int n, int c,
                                         int acc)
{
    size_t total = (size_t)S * n * c;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        pf_real v = scale[locate(i, n, c).j] * gy[i];
        gx[i] = acc ? gx[i] + v : v;
    }
}

static void launch_affine_fwd(pf_real *y, const pf_real *x, const pf_real *cv, int S, int n, int c,
                              cudaStream_t st)
{
    size_t total = (size_t)S * n * c;
    affine_fwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(y, x, cv, S, n, c);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_affine_bwd(pf_real *gx, const pf_real *gy, const pf_real *scale, int S, int n,
                              int c, int acc, cudaStream_t st)
{
    size_t total = (size_t)S * n * c;
    affine_bwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(gx, gy, scale, S, n, c,
                                                                         acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void affine_fwd(struct pf_node *y, cudaStream_t st)
{
    launch_affine_fwd(y->val, y->in[0]->val, y->cvec, y->S, y->n, y->c, st);
}

static void affine_bwd(struct pf_node *y, cudaStream_t st)
{
    struct pf_node *x = y->in[0];
    if (x->grad) launch_affine_bwd(x->grad, y->grad, y->cvec, y->S, y->n, y->c, y->in_acc[0], st);
}

/* dst (+)= factor * w[0] * src over len elements; w is the 1x1 parameter,
 * read here because it lives in device memory. */
static __global__ void scale_param_kernel(pf_real *__restrict__ dst,
                                          const pf_real *__restrict__ src,
                                          const pf_real *__restrict__ w, pf_real factor, size_t len,
                                          int acc)
{
    pf_real s = factor * w[0];
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len;
         i += (size_t)gridDim.x * blockDim.x) {
        pf_real v = s * src[i];
        dst[i] = acc ? dst[i] + v : v;
    }
}

/* gw[0] += factor * dot[0], the dot product rounded to pf_real first. */
static __global__ void scale_param_grad_kernel(pf_real *__restrict__ gw,
                                               const double *__restrict__ dot, pf_real factor)
{
    gw[0] += factor * (pf_real)dot[0];
}

static void launch_scale_param(pf_real *dst, const pf_real *src, const pf_real *w, pf_real factor,
                               size_t len, int acc, cudaStream_t st)
{
    scale_param_kernel<<<pf_cuda_grid(len, PW_BLOCK), PW_BLOCK, 0, st>>>(dst, src, w, factor, len,
                                                                        acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_scale_param_grad(pf_real *gw, const double *dot, pf_real factor,
                                    cudaStream_t st)
{
    scale_param_grad_kernel<<<1, SCALAR_THREADS, 0, st>>>(gw, dot, factor);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void scale_param_fwd(struct pf_node *y, cudaStream_t st)
{
    launch_scale_param(y->val, y->in[0]->val, y->pw[0], y->p, pf_node_len(y), 0, st);
}

/* Scratch: PF_CUDA_RED_BLOCKS partials, then the dot product (doubles). */
static void scale_param_bwd(struct pf_node *y, cudaStream_t st)
{
    struct pf_node *x = y->in[0];
    size_t len = pf_node_len(y);
    if (y->pg[0]) {
        double *part = (double *)y->scratch, *dot = part + PF_CUDA_RED_BLOCKS;
        pf_cuda_reduce(PF_VEC_DOT, y->grad, x->val, len, part, dot, st);
        launch_scale_param_grad(y->pg[0], dot, y->p, st);
    }
    if (x->grad) launch_scale_param(x->grad, y->grad, y->pw[0], y->p, len, y->in_acc[0], st);
}

/* ------------------------------------------------------------------ tokens */

/* y [S][n k][c] from x [S][n][c]: one thread per element of y; row p k + i
 * is x's row p, plus i dt on the last channel of the value stream. */
static __global__ void tokens_fwd_kernel(pf_real *__restrict__ y, const pf_real *__restrict__ x,
                                         int S, int n, int k, int c, pf_real dt)
{
    size_t rows = (size_t)n * k, total = (size_t)S * rows * c;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total;
         e += (size_t)gridDim.x * blockDim.x) {
        size_t s = e / (rows * c), r = e / c % rows;
        int j = (int)(e % c), i = (int)(r % k);
        pf_real v = x[(s * n + r / k) * c + j];
        if (s == 0 && j == c - 1) v += (pf_real)i * dt;
        y[e] = v;
    }
}

/* gx [S][n][c] (+)= the sum of its k tokens' rows of gy, in token order:
 * one thread per element of gx, no atomics. */
static __global__ void tokens_bwd_kernel(pf_real *__restrict__ gx, const pf_real *__restrict__ gy,
                                         int S, int n, int k, int c, int acc)
{
    size_t total = (size_t)S * n * c;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total;
         e += (size_t)gridDim.x * blockDim.x) {
        size_t s = e / ((size_t)n * c), p = e / c % n;
        int j = (int)(e % c);
        const pf_real *g = gy + (s * n * k + p * k) * c + j;
        pf_real t = 0;
        for (int i = 0; i < k; i++) t += g[(size_t)i * c];
        gx[e] = acc ? gx[e] + t : t;
    }
}

static void launch_tokens_fwd(pf_real *y, const pf_real *x, int S, int n, int k, int c, pf_real dt,
                              cudaStream_t st)
{
    size_t total = (size_t)S * n * k * c;
    tokens_fwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(y, x, S, n, k, c, dt);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_tokens_bwd(pf_real *gx, const pf_real *gy, int S, int n, int k, int c, int acc,
                              cudaStream_t st)
{
    size_t total = (size_t)S * n * c;
    tokens_bwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(gx, gy, S, n, k, c, acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void tokens_check(const struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    PF_ASSERT(y->i0 >= 1 && y->n == x->n * y->i0 && y->c == x->c && y->S == x->S);
}

static void tokens_fwd(struct pf_node *y, cudaStream_t st)
{
    tokens_check(y);
    launch_tokens_fwd(y->val, y->in[0]->val, y->S, y->in[0]->n, y->i0, y->c, y->p, st);
}

static void tokens_bwd(struct pf_node *y, cudaStream_t st)
{
    struct pf_node *x = y->in[0];
    tokens_check(y);
    if (x->grad) launch_tokens_bwd(x->grad, y->grad, y->S, x->n, y->i0, y->c, y->in_acc[0], st);
}

/* y [S][n][c] = rows p k + i of x [S][n k][c]; one thread per element of y. */
static __global__ void token_select_fwd_kernel(pf_real *__restrict__ y, const pf_real *__restrict__ x,
                                               int S, int n, int k, int i, int c)
{
    size_t total = (size_t)S * n * c;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total;
         e += (size_t)gridDim.x * blockDim.x) {
        size_t s = e / ((size_t)n * c), p = e / c % n;
        y[e] = x[(s * n * k + p * k + i) * c + e % c];
    }
}

/* gx [S][n k][c]: the selected rows get gy's (written or added), the others
 * 0 when written (acc = 0) and stay when added; one thread per element of gx. */
static __global__ void token_select_bwd_kernel(pf_real *__restrict__ gx, const pf_real *__restrict__ gy,
                                               int S, int n, int k, int i, int c, int acc)
{
    size_t rows = (size_t)n * k, total = (size_t)S * rows * c;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total;
         e += (size_t)gridDim.x * blockDim.x) {
        size_t s = e / (rows * c), r = e / c % rows;
        pf_real v = (int)(r % k) == i ? gy[(s * n + r / k) * c + e % c] : 0;
        gx[e] = acc ? gx[e] + v : v;
    }
}

static void launch_token_select_fwd(pf_real *y, const pf_real *x, int S, int n, int k, int i, int c,
                                    cudaStream_t st)
{
    size_t total = (size_t)S * n * c;
    token_select_fwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(y, x, S, n, k, i, c);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_token_select_bwd(pf_real *gx, const pf_real *gy, int S, int n, int k, int i, int c,
                                    int acc, cudaStream_t st)
{
    size_t total = (size_t)S * n * k * c;
    token_select_bwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(gx, gy, S, n, k, i, c,
                                                                               acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void token_select_check(const struct pf_node *y)
{
    const struct pf_node *x = y->in[0];
    PF_ASSERT(y->i0 >= 1 && x->n == y->n * y->i0 && (int)y->p >= 0 && (int)y->p < y->i0);
    PF_ASSERT(y->c == x->c && y->S == x->S);
}

static void token_select_fwd(struct pf_node *y, cudaStream_t st)
{
    token_select_check(y);
    launch_token_select_fwd(y->val, y->in[0]->val, y->S, y->n, y->i0, (int)y->p, y->c, st);
}

static void token_select_bwd(struct pf_node *y, cudaStream_t st)
{
    struct pf_node *x = y->in[0];
    token_select_check(y);
    if (x->grad)
        launch_token_select_bwd(x->grad, y->grad, y->S, y->n, y->i0, (int)y->p, y->c, y->in_acc[0], st);
}

/* ------------------------------------------------------------ concat, slice */

/* Over S streams and n points: dst channels [d0, d0+nc) of cd (+)= src
 * channels [s0, s0+nc) of cs. */
static __global__ void copy_channels_kernel(pf_real *__restrict__ dst, int cd, int d0,
                                            const pf_real *__restrict__ src, int cs, int s0,
                                            int nc, int S, int n, int acc)
{
    size_t total = (size_t)S * n * nc, ld = (size_t)n * cd, ls = (size_t)n * cs;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        elem e = locate(i, n, nc);
        pf_real v = src[e.s * ls + e.p * cs + s0 + e.j];
        pf_real *d = dst + e.s * ld + e.p * cd + d0 + e.j;
        *d = acc ? *d + v : v;
    }
}

/* The gradient of a slice's input, every element of it: channels [c0, c0+cy)
 * (+)= gy, the others (+)= 0 (the CPU zeroes, then adds). */
static __global__ void slice_bwd_kernel(pf_real *__restrict__ gx, const pf_real *__restrict__ gy,
                                        int S, int n, int cx, int cy, int c0, int acc)
{
    size_t total = (size_t)S * n * cx, ly = (size_t)n * cy;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        elem e = locate(i, n, cx);
        int jy = e.j - c0;
        pf_real v = jy >= 0 && jy < cy ? gy[e.s * ly + e.p * cy + jy] : 0;
        gx[i] = acc ? gx[i] + v : v;
    }
}

static void launch_copy_channels(pf_real *dst, int cd, int d0, const pf_real *src, int cs, int s0,
                                 int nc, int S, int n, int acc, cudaStream_t st)
{
    size_t total = (size_t)S * n * nc;
    copy_channels_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(dst, cd, d0, src, cs,
                                                                            s0, nc, S, n, acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_slice_bwd(pf_real *gx, const pf_real *gy, int S, int n, int cx, int cy, int c0,
                             int acc, cudaStream_t st)
{
    size_t total = (size_t)S * n * cx;
    slice_bwd_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(gx, gy, S, n, cx, cy, c0,
                                                                        acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void concat_fwd(struct pf_node *y, cudaStream_t st)
{
    int c0 = 0;
    for (int k = 0; k < y->nin; k++) {
        const struct pf_node *x = y->in[k];
        launch_copy_channels(y->val, y->c, c0, x->val, x->c, 0, x->c, y->S, y->n, 0, st);
        c0 += x->c;
    }
}

static void concat_bwd(struct pf_node *y, cudaStream_t st)
{
    int c0 = 0;
    for (int k = 0; k < y->nin; k++) {
        struct pf_node *x = y->in[k];
        if (x->grad)
            launch_copy_channels(x->grad, x->c, 0, y->grad, y->c, c0, x->c, y->S, y->n,
                                 y->in_acc[k], st);
        c0 += x->c;
    }
}

static void slice_fwd(struct pf_node *y, cudaStream_t st)
{
    const struct pf_node *x = y->in[0];
    launch_copy_channels(y->val, y->c, 0, x->val, x->c, y->i0, y->c, y->S, y->n, 0, st);
}

static void slice_bwd(struct pf_node *y, cudaStream_t st)
{
    struct pf_node *x = y->in[0];
    if (x->grad)
        launch_slice_bwd(x->grad, y->grad, x->S, y->n, x->c, y->c, y->i0, y->in_acc[0], st);
}

/* ------------------------------------------------------ extraction, reduction */

/* Over S streams of len elements: dst (+)= src on stream sel, (+)= 0 on the
 * others. */
static __global__ void put_stream_kernel(pf_real *__restrict__ dst, const pf_real *__restrict__ src,
                                         size_t len, int S, int sel, int acc)
{
    size_t total = (size_t)S * len;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t s = i / len;
        pf_real v = (int)s == sel ? src[i - s * len] : 0;
        dst[i] = acc ? dst[i] + v : v;
    }
}

static void launch_put_stream(pf_real *dst, const pf_real *src, size_t len, int S, int sel, int acc,
                              cudaStream_t st)
{
    size_t total = (size_t)S * len;
    put_stream_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(dst, src, len, S, sel,
                                                                         acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void deriv_fwd(struct pf_node *y, cudaStream_t st)
{
    size_t len = pf_node_stream_len(y);
    launch_copy_channels(y->val, y->c, 0, y->in[0]->val + y->i0 * len, y->c, 0, y->c, 1, y->n, 0,
                         st);
}

/* Writing: stream i0 = gy and every other stream 0. Adding: stream i0 only. */
static void deriv_bwd(struct pf_node *y, cudaStream_t st)
{
    struct pf_node *x = y->in[0];
    if (!x->grad) return;
    size_t len = pf_node_stream_len(y);
    if (y->in_acc[0])
        launch_put_stream(x->grad + y->i0 * len, y->grad, len, 1, 0, 1, st);
    else
        launch_put_stream(x->grad, y->grad, len, x->S, y->i0, 0, st);
}

/* part[block] = this block's share of sum_p w_p sum_j r_pj^2 (w NULL: 1), in
 * double; points go to threads by a fixed grid stride, blocks sum by a tree. */
static __global__ void ms_partial_kernel(double *__restrict__ part, const pf_real *__restrict__ r,
                                         const pf_real *__restrict__ w, int n, int c)
{
    __shared__ double sh[MS_THREADS];
    double acc = 0;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < (size_t)n;
         p += (size_t)gridDim.x * blockDim.x) {
        double q = 0;
        for (int j = 0; j < c; j++) {
            double v = r[p * c + j];
            q += v * v;
        }
        acc += w ? w[p] * q : q;
    }
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int h = MS_THREADS / 2; h > 0; h /= 2) {
        if ((int)threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

/* y[0] = (sum of the partials in block order) / denom. */
static __global__ void ms_finish_kernel(pf_real *__restrict__ y, const double *__restrict__ part,
                                        double denom)
{
    double s = 0;
    for (int k = 0; k < MS_BLOCKS; k++) s += part[k];
    y[0] = (pf_real)(s / denom);
}

/* gr = 2 g w_p r on the value stream, 0 on the others (S = 1 when adding:
 * only the value stream changes), g = gy[0] / denom read here. */
static __global__ void ms_grad_r_kernel(pf_real *__restrict__ gr, const pf_real *__restrict__ r,
                                        const pf_real *__restrict__ w,
                                        const pf_real *__restrict__ gy, pf_real denom, int S,
                                        int n, int c, int acc)
{
    pf_real g = gy[0] / denom;
    size_t total = (size_t)S * n * c;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        elem e = locate(i, n, c);
        pf_real v = 0;
        if (e.s == 0) {
            pf_real wp = w ? w[e.p] : 1;
            v = 2 * g * wp * r[i];
        }
        gr[i] = acc ? gr[i] + v : v;
    }
}

/* gw[p] (+)= g sum_j r_pj^2, summed in pf_real as the CPU does. */
static __global__ void ms_grad_w_kernel(pf_real *__restrict__ gw, const pf_real *__restrict__ r,
                                        const pf_real *__restrict__ gy, pf_real denom, int n,
                                        int c, int acc)
{
    pf_real g = gy[0] / denom;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < (size_t)n;
         p += (size_t)gridDim.x * blockDim.x) {
        pf_real q = 0;
        for (int j = 0; j < c; j++) q += r[p * c + j] * r[p * c + j];
        gw[p] = (acc ? gw[p] : 0) + g * q;
    }
}

static void launch_ms_fwd(pf_real *y, double *part, const pf_real *r, const pf_real *w, int n,
                          int c, double denom, cudaStream_t st)
{
    ms_partial_kernel<<<MS_BLOCKS, MS_THREADS, 0, st>>>(part, r, w, n, c);
    PF_CUDA_CHECK(cudaGetLastError());
    ms_finish_kernel<<<1, SCALAR_THREADS, 0, st>>>(y, part, denom);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_ms_grad_r(pf_real *gr, const pf_real *r, const pf_real *w, const pf_real *gy,
                             pf_real denom, int S, int n, int c, int acc, cudaStream_t st)
{
    size_t total = (size_t)S * n * c;
    ms_grad_r_kernel<<<pf_cuda_grid(total, PW_BLOCK), PW_BLOCK, 0, st>>>(gr, r, w, gy, denom, S, n,
                                                                        c, acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

static void launch_ms_grad_w(pf_real *gw, const pf_real *r, const pf_real *gy, pf_real denom, int n,
                             int c, int acc, cudaStream_t st)
{
    ms_grad_w_kernel<<<pf_cuda_grid((size_t)n, PW_BLOCK), PW_BLOCK, 0, st>>>(gw, r, gy, denom, n, c,
                                                                            acc);
    PF_CUDA_CHECK(cudaGetLastError());
}

/* Scratch: MS_BLOCKS partial sums (doubles). */
static void mean_square_fwd(struct pf_node *y, cudaStream_t st)
{
    const struct pf_node *r = y->in[0], *w = y->nin > 1 ? y->in[1] : NULL;
    launch_ms_fwd(y->val, (double *)y->scratch, r->val, w ? w->val : NULL, r->n, r->c,
                  (double)r->n_full * r->c, st);
}

static void mean_square_bwd(struct pf_node *y, cudaStream_t st)
{
    struct pf_node *r = y->in[0], *w = y->nin > 1 ? y->in[1] : NULL;
    pf_real denom = (pf_real)((double)r->n_full * r->c);
    if (r->grad) {
        int acc = y->in_acc[0];
        launch_ms_grad_r(r->grad, r->val, w ? w->val : NULL, y->grad, denom, acc ? 1 : r->S, r->n,
                         r->c, acc, st);
    }
    if (w && w->grad)
        launch_ms_grad_w(w->grad, r->val, y->grad, denom, r->n, r->c, y->in_acc[1], st);
}

/* dst[i] += src[i], i < len. */
static __global__ void add_into_kernel(pf_real *__restrict__ dst, const pf_real *__restrict__ src,
                                       size_t len)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] += src[i];
}

static void launch_add_into(pf_real *dst, const pf_real *src, size_t len, cudaStream_t st)
{
    add_into_kernel<<<pf_cuda_grid(len, PW_BLOCK), PW_BLOCK, 0, st>>>(dst, src, len);
    PF_CUDA_CHECK(cudaGetLastError());
}

/* The field's gradient is its points' slice of the parameter's gradient. */
static void param_field_bwd(struct pf_node *y, cudaStream_t st)
{
    if (y->pg[0]) launch_add_into(y->pg[0] + y->off, y->grad, (size_t)y->n, st);
}

/* ------------------------------------------------------------------ entries */

size_t pf_cuda_pointwise_scratch(const struct pf_node *y)
{
    switch (y->op) {
    case PF_OP_SCALE_PARAM: return (PF_CUDA_RED_BLOCKS + 1) * sizeof(double);
    case PF_OP_MEAN_SQUARE: return MS_BLOCKS * sizeof(double);
    default: return 0;
    }
}

void pf_cuda_pointwise_fwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    cudaStream_t st = ctx->stream;
    switch (y->op) {
    case PF_OP_INPUT:
    case PF_OP_PARAM_FIELD: break;
    case PF_OP_MUL: mul_fwd(y, st); break;
    case PF_OP_ADD: add_fwd(y, 1, st); break;
    case PF_OP_SUB: add_fwd(y, -1, st); break;
    case PF_OP_AFFINE: affine_fwd(y, st); break;
    case PF_OP_SCALE_PARAM: scale_param_fwd(y, st); break;
    case PF_OP_TOKENS: tokens_fwd(y, st); break;
    case PF_OP_TOKEN_SELECT: token_select_fwd(y, st); break;
    case PF_OP_CONCAT: concat_fwd(y, st); break;
    case PF_OP_SLICE: slice_fwd(y, st); break;
    case PF_OP_DERIV: deriv_fwd(y, st); break;
    case PF_OP_MEAN_SQUARE: mean_square_fwd(y, st); break;
    default: PF_ABORT("op %s is not pointwise", pf_op_name(y->op));
    }
}

void pf_cuda_pointwise_bwd(struct pf_node *y, const pf_cuda_ctx *ctx)
{
    cudaStream_t st = ctx->stream;
    switch (y->op) {
    case PF_OP_INPUT: break;
    case PF_OP_MUL: mul_bwd(y, st); break;
    case PF_OP_ADD: add_bwd(y, 1, st); break;
    case PF_OP_SUB: add_bwd(y, -1, st); break;
    case PF_OP_AFFINE: affine_bwd(y, st); break;
    case PF_OP_SCALE_PARAM: scale_param_bwd(y, st); break;
    case PF_OP_TOKENS: tokens_bwd(y, st); break;
    case PF_OP_TOKEN_SELECT: token_select_bwd(y, st); break;
    case PF_OP_CONCAT: concat_bwd(y, st); break;
    case PF_OP_SLICE: slice_bwd(y, st); break;
    case PF_OP_DERIV: deriv_bwd(y, st); break;
    case PF_OP_MEAN_SQUARE: mean_square_bwd(y, st); break;
    case PF_OP_PARAM_FIELD: param_field_bwd(y, st); break;
    default: PF_ABORT("op %s is not pointwise", pf_op_name(y->op));
    }
}
