#include "train/lbfgs.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* Nocedal & Wright eq. 3.7 constants, as torch's _strong_wolfe. */
static const double c1 = 1e-4, c2 = 0.9;

struct pf_lbfgs {
    const pf_backend *be; /* where the vectors live and the vector ops run */
    size_t n, stride;     /* stride: n rounded up to whole cache lines */
    pf_lbfgs_config cfg;
    int head, count;      /* next history slot to write; pairs stored */
    long iter;            /* iterations since the last reset */
    bool have_point;      /* x0, f0, g0 describe the current point */
    double f0, h_diag;    /* loss at x0; initial Hessian scale s'y / y'y */
    pf_real *s, *y;       /* [m][stride]: curvature pairs, circular */
    pf_real *x0, *g0;     /* current point and its gradient */
    pf_real *d, *xt;      /* search direction; trial point */
    pf_real *pool[3];     /* gradients of line-search points */
    double *rho, *alpha;  /* [m]: 1 / y's; two-loop coefficients (host) */
    void *block;          /* the vectors, backend memory */
};

typedef struct point {
    double t, f, gtd; /* step length, loss, directional derivative g'd */
    pf_real *g;       /* gradient: o->g0 or one of o->pool */
} point;

pf_lbfgs_config pf_lbfgs_config_default(void)
{
    return (pf_lbfgs_config){.history = 10, .lr = 1.0, .max_evals = 25, .tolerance_grad = 1e-7,
                             .tolerance_change = 1e-9, .line_search = true, .max_iter = 1, .max_eval = 0};
}

pf_status pf_lbfgs_config_check(const pf_lbfgs_config *cfg)
{
    if (cfg->history < 1 || cfg->history > 100000)
        return pf_fail(PF_ERR_INVALID, "l-bfgs: history must be in [1, 100000], not %d", cfg->history);
    if (!(cfg->lr > 0 && isfinite(cfg->lr)))
        return pf_fail(PF_ERR_INVALID, "l-bfgs: lr must be positive, not %g", cfg->lr);
    if (cfg->max_evals < 1)
        return pf_fail(PF_ERR_INVALID, "l-bfgs: max_evals must be >= 1, not %d", cfg->max_evals);
    if (cfg->max_iter < 1 || cfg->max_iter > 100000)
        return pf_fail(PF_ERR_INVALID, "l-bfgs: max_iter must be in [1, 100000], not %d", cfg->max_iter);
    if (cfg->max_eval < 0)
        return pf_fail(PF_ERR_INVALID, "l-bfgs: max_eval must be >= 0, not %d", cfg->max_eval);
    if (!(cfg->tolerance_grad >= 0) || !(cfg->tolerance_change >= 0))
        return pf_fail(PF_ERR_INVALID, "l-bfgs: tolerances must be >= 0");
    return PF_OK;
}

pf_lbfgs *pf_lbfgs_alloc_on(const pf_backend *be, size_t n, const pf_lbfgs_config *cfg)
{
    PF_ASSERT(n > 0 && cfg != NULL);
    if (pf_lbfgs_config_check(cfg) != PF_OK) return NULL;
    if (n > INT_MAX) {
        pf_fail(PF_ERR_INVALID, "l-bfgs: %zu parameters exceed cblas's int range", n);
        return NULL;
    }
    const size_t m = (size_t)cfg->history;
    const size_t per_line = PF_ALIGN / sizeof(pf_real);
    const size_t stride = (n + per_line - 1) / per_line * per_line; /* keeps vectors aligned */
    const size_t vectors = 2 * m + 7;
    pf_lbfgs *o = calloc(1, sizeof *o);
    double *coef = calloc(2 * m, sizeof *coef);
    void *block = NULL;
    if (o && coef && stride <= SIZE_MAX / 2 / sizeof(pf_real) / vectors &&
        be->alloc(vectors * stride * sizeof(pf_real), &block) != PF_OK)
        block = NULL;
    if (!block) {
        free(o);
        free(coef);
        pf_fail(PF_ERR_NOMEM, "l-bfgs: cannot allocate work memory for %zu parameters, history %zu",
                n, m);
        return NULL;
    }
    o->be = be;
    o->n = n;
    o->stride = stride;
    o->cfg = *cfg;
    o->block = block;
    pf_real *v = block;
    o->s = v, v += m * stride;
    o->y = v, v += m * stride;
    o->x0 = v, v += stride;
    o->g0 = v, v += stride;
    o->d = v, v += stride;
    o->xt = v, v += stride;
    for (int k = 0; k < 3; k++) o->pool[k] = v, v += stride;
    o->rho = coef;
    o->alpha = coef + m;
    pf_lbfgs_reset(o);
    return o;
}

pf_lbfgs *pf_lbfgs_alloc(size_t n, const pf_lbfgs_config *cfg)
{
    return pf_lbfgs_alloc_on(pf_backend_cpu(), n, cfg);
}

void pf_lbfgs_free(pf_lbfgs *o)
{
    if (!o) return;
    o->be->free(o->block);
    free(o->rho);
    free(o);
}

void pf_lbfgs_reset(pf_lbfgs *o)
{
    o->head = o->count = 0;
    o->iter = 0;
    o->have_point = false;
    o->h_diag = 1.0;
}

void pf_lbfgs_set_lr(pf_lbfgs *o, double lr)
{
    PF_ASSERT(lr > 0);
    o->cfg.lr = lr;
}

const char *pf_lbfgs_outcome_name(pf_lbfgs_outcome outcome)
{
    switch (outcome) {
    case PF_LBFGS_PROGRESS: return "progress";
    case PF_LBFGS_CONVERGED: return "converged";
    case PF_LBFGS_STALLED: return "stalled";
    case PF_LBFGS_LINE_SEARCH_FAILED: return "line search failed";
    }
    return "?";
}

static double dot(const pf_lbfgs *o, const pf_real *a, const pf_real *b)
{
    return o->be->reduce(PF_VEC_DOT, a, b, o->n);
}

static double max_abs(const pf_lbfgs *o, const pf_real *a)
{
    return o->be->reduce(PF_VEC_AMAX, a, NULL, o->n);
}

/* Two-loop recursion (Nocedal & Wright Alg. 7.4): d = -H g0. */
static void direction(pf_lbfgs *o)
{
    const int m = o->cfg.history;
    const size_t stride = o->stride;
    o->be->copy(o->d, o->g0, o->n);
    o->be->scal(o->n, -1, o->d);
    for (int k = o->count - 1; k >= 0; k--) {
        size_t i = (size_t)((o->head - o->count + k + m) % m);
        o->alpha[i] = o->rho[i] * dot(o, o->s + i * stride, o->d);
        o->be->axpy(o->n, (pf_real)-o->alpha[i], o->y + i * stride, o->d);
    }
    o->be->scal(o->n, (pf_real)o->h_diag, o->d);
    for (int k = 0; k < o->count; k++) {
        size_t i = (size_t)((o->head - o->count + k + m) % m);
        double beta = o->rho[i] * dot(o, o->y + i * stride, o->d);
        o->be->axpy(o->n, (pf_real)(o->alpha[i] - beta), o->s + i * stride, o->d);
    }
}

/* Loss, gradient (into p->g) and g'd at x0 + p->t d. */
static pf_status evaluate(pf_lbfgs *o, const pf_lbfgs_objective *obj, point *p, int *evals)
{
    o->be->copy(o->xt, o->x0, o->n);
    o->be->axpy(o->n, (pf_real)p->t, o->d, o->xt);
    p->f = obj->fdf(obj->ctx, o->xt, p->g);
    (*evals)++;
    if (!isfinite(p->f))
        return pf_fail(PF_ERR_NUMERIC, "l-bfgs: the objective returned %g at step length %g", p->f,
                       p->t);
    p->gtd = dot(o, p->g, o->d);
    if (!isfinite(p->gtd))
        return pf_fail(PF_ERR_NUMERIC, "l-bfgs: non-finite gradient at step length %g", p->t);
    return PF_OK;
}

/* A pool buffer that neither a nor b refers to. */
static pf_real *spare(pf_lbfgs *o, const point *a, const point *b)
{
    for (int k = 0; k < 3; k++)
        if (o->pool[k] != a->g && o->pool[k] != b->g) return o->pool[k];
    PF_ABORT("l-bfgs: no spare gradient buffer");
}

/* Minimiser of the cubic through (t1, f1, g1) and (t2, f2, g2), clamped to
 * [lo, hi]; the midpoint when the cubic has none (torch's _cubic_interpolate,
 * N&W eq. 3.59). */
static double cubic(double t1, double f1, double g1, double t2, double f2, double g2, double lo,
                    double hi)
{
    double d1 = g1 + g2 - 3 * (f1 - f2) / (t1 - t2);
    double d2sq = d1 * d1 - g1 * g2;
    if (d2sq >= 0) {
        double d2 = sqrt(d2sq), t;
        if (t1 <= t2)
            t = t2 - (t2 - t1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2));
        else
            t = t1 - (t1 - t2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
        if (isfinite(t)) return fmin(fmax(t, lo), hi);
    }
    return (lo + hi) / 2;
}

/* torch's _strong_wolfe: bracket with cubic extrapolation, then zoom
 * (N&W Alg. 3.5/3.6). `start` is t = 0; at most max_evals evaluations. */
static pf_status strong_wolfe(pf_lbfgs *o, const pf_lbfgs_objective *obj, const point *start,
                              double t, point *out, bool *wolfe, int *evals)
{
    const double f0 = start->f, gtd0 = start->gtd, dmax = max_abs(o, o->d);
    const int budget = o->cfg.max_evals;
    const int base = *evals; /* *evals - base: evaluations made here */
    point br[2]; /* bracket */
    point prev = *start, cur = {.t = t, .g = spare(o, &prev, &prev)};
    *wolfe = false;
    PF_TRY(evaluate(o, obj, &cur, evals));
    for (int ls_iter = 0;; ls_iter++) {
        /* The checks in torch's order: Armijo fails or the loss rose,
         * strong Wolfe holds, the slope turned: N&W Alg. 3.5 lines 5-10. */
        bool bracketed = cur.f > f0 + c1 * cur.t * gtd0 || (ls_iter > 1 && cur.f >= prev.f);
        *wolfe = !bracketed && fabs(cur.gtd) <= -c2 * gtd0;
        if (!bracketed && !*wolfe) bracketed = cur.gtd >= 0;
        if (bracketed) {
            br[0] = prev;
            br[1] = cur;
            break;
        }
        if (*wolfe || *evals - base >= budget) {
            *out = cur.f <= prev.f ? cur : prev;
            return PF_OK;
        }
        double t_next = cubic(prev.t, prev.f, prev.gtd, cur.t, cur.f, cur.gtd,
                              cur.t + 0.01 * (cur.t - prev.t), cur.t * 10);
        prev = cur;
        cur = (point){.t = t_next, .g = spare(o, &prev, &prev)};
        PF_TRY(evaluate(o, obj, &cur, evals));
    }

    int lo = br[0].f <= br[1].f ? 0 : 1;
    bool insufficient = false;
    while (*evals - base < budget && fabs(br[1].t - br[0].t) * dmax >= o->cfg.tolerance_change) {
        double tmin = fmin(br[0].t, br[1].t), tmax = fmax(br[0].t, br[1].t);
        double tn = cubic(br[0].t, br[0].f, br[0].gtd, br[1].t, br[1].f, br[1].gtd, tmin, tmax);
        /* Keep the trial 10% away from the ends unless the last one made
         * enough progress there (torch's insuf_progress safeguard). */
        double eps = 0.1 * (tmax - tmin);
        if (fmin(tmax - tn, tn - tmin) < eps) {
            if (insufficient || tn >= tmax || tn <= tmin) {
                tn = fabs(tn - tmax) < fabs(tn - tmin) ? tmax - eps : tmin + eps;
                insufficient = false;
            } else {
                insufficient = true;
            }
        } else {
            insufficient = false;
        }
        point p = {.t = tn, .g = spare(o, &br[0], &br[1])};
        PF_TRY(evaluate(o, obj, &p, evals));
        if (p.f > f0 + c1 * p.t * gtd0 || p.f >= br[lo].f) {
            br[1 - lo] = p;
            lo = br[0].f <= br[1].f ? 0 : 1;
        } else {
            if (fabs(p.gtd) <= -c2 * gtd0)
                *wolfe = true;
            else if (p.gtd * (br[1 - lo].t - br[lo].t) >= 0)
                br[1 - lo] = br[lo];
            br[lo] = p;
            if (*wolfe) break;
        }
    }
    *out = br[lo];
    return PF_OK;
}

/* Store s = t d, y = g_new - g0 if the curvature y's is positive enough
 * (torch's threshold 1e-10), so that H stays positive definite. */
static void remember(pf_lbfgs *o, double t, const pf_real *g_new)
{
    const int m = o->cfg.history;
    const size_t stride = o->stride;
    pf_real *s = o->s + (size_t)o->head * stride, *y = o->y + (size_t)o->head * stride;
    o->be->copy(s, o->d, o->n);
    o->be->scal(o->n, (pf_real)t, s);
    o->be->copy(y, g_new, o->n);
    o->be->axpy(o->n, -1, o->g0, y);
    double ys = dot(o, y, s);
    if (ys > 1e-10) {
        o->rho[o->head] = 1.0 / ys;
        o->h_diag = ys / dot(o, y, y);
        o->head = (o->head + 1) % m;
        if (o->count < m) o->count++;
    }
}

/* Whether x differs from the point the last step returned. */
static bool moved(pf_lbfgs *o, const pf_real *x)
{
    if (o->be->host_memory) return memcmp(x, o->x0, o->n * sizeof(pf_real)) != 0;
    o->be->copy(o->xt, x, o->n);
    o->be->axpy(o->n, -1, o->x0, o->xt);
    return !(max_abs(o, o->xt) == 0);
}

/* One iteration from the stored point (x0, f0, g0): direction, step (line
 * search or fixed), update. Sets info's outcome, step, wolfe, loss_after;
 * counts its evaluations into *evals and a move into info->iterations. */
static pf_status iterate(pf_lbfgs *o, const pf_lbfgs_objective *obj, pf_lbfgs_step_info *info, int *evals)
{
    if (max_abs(o, o->g0) <= o->cfg.tolerance_grad) {
        info->outcome = PF_LBFGS_CONVERGED;
        return PF_OK;
    }
    direction(o);
    point start = {.t = 0, .f = o->f0, .gtd = dot(o, o->g0, o->d), .g = o->g0};
    double t = o->cfg.lr;
    if (o->iter++ == 0) t *= fmin(1.0, 1.0 / o->be->reduce(PF_VEC_ASUM, o->g0, NULL, o->n));
    if (!(start.gtd <= -o->cfg.tolerance_change)) {
        info->outcome = PF_LBFGS_STALLED;
        return PF_OK;
    }

    point next = {.t = t, .g = o->pool[0]};
    PF_TRY(o->cfg.line_search ? strong_wolfe(o, obj, &start, t, &next, &info->wolfe, evals)
                              : evaluate(o, obj, &next, evals));
    if (o->cfg.line_search && !(next.f < o->f0)) {
        info->outcome = PF_LBFGS_LINE_SEARCH_FAILED;
        return PF_OK;
    }

    remember(o, next.t, next.g);
    o->be->axpy(o->n, (pf_real)next.t, o->d, o->x0);
    o->be->copy(o->g0, next.g, o->n);
    info->step = next.t;
    info->iterations++;
    if (fabs(next.t) * max_abs(o, o->d) <= o->cfg.tolerance_change ||
        fabs(next.f - o->f0) < o->cfg.tolerance_change)
        info->outcome = PF_LBFGS_STALLED;
    o->f0 = info->loss_after = next.f;
    if (max_abs(o, o->g0) <= o->cfg.tolerance_grad) info->outcome = PF_LBFGS_CONVERGED;
    return PF_OK;
}

pf_status pf_lbfgs_step(pf_lbfgs *o, pf_real *x, pf_real *grad, const pf_lbfgs_objective *obj,
                        pf_lbfgs_step_info *info)
{
    const size_t n = o->n;
    pf_lbfgs_step_info scratch;
    if (!info) info = &scratch;
    *info = (pf_lbfgs_step_info){.outcome = PF_LBFGS_PROGRESS};

    /* The stored point is only valid if the caller has not moved x. */
    if (!o->have_point || moved(o, x)) {
        pf_lbfgs_reset(o);
        o->be->copy(o->x0, x, n);
        o->f0 = obj->fdf(obj->ctx, o->x0, o->g0);
        info->evals = 1;
        if (!isfinite(o->f0))
            return pf_fail(PF_ERR_NUMERIC, "l-bfgs: the objective returned %g at the start point",
                           o->f0);
        if (!isfinite(dot(o, o->g0, o->g0)))
            return pf_fail(PF_ERR_NUMERIC, "l-bfgs: non-finite gradient at the start point");
        o->have_point = true;
    }
    info->loss_before = info->loss_after = o->f0;

    /* torch's count: its call at the start point, then each iteration's */
    const int budget = o->cfg.max_eval ? o->cfg.max_eval : o->cfg.max_iter * 5 / 4;
    int used = 1;
    pf_status st = PF_OK;
    for (;;) {
        int ev = 0;
        st = iterate(o, obj, info, &ev);
        info->evals += ev;
        used += ev;
        if (st != PF_OK || info->outcome != PF_LBFGS_PROGRESS || info->iterations >= o->cfg.max_iter ||
            used >= budget)
            break;
    }

    /* Also after a failure: the objective may have overwritten x and grad. */
    o->be->copy(x, o->x0, n);
    o->be->copy(grad, o->g0, n);
    info->grad_max = max_abs(o, o->g0);
    return st;
}
