/*
 * lbfgs.h — L-BFGS with a strong-Wolfe line search (or a fixed step), one
 * iteration per call by default, up to max_iter per call as torch's step.
 *
 * The objective is a function of the flat parameter vector: fdf(ctx, x, grad)
 * returns the loss at x[0..n) and writes its gradient into grad[0..n). The
 * engine implements it by copying x into its parameter buffer and running
 * forward + backward. With max_iter = 1 (the default) each pf_lbfgs_step()
 * is ONE outer iteration: a direction from the stored curvature pairs
 * (two-loop recursion, Nocedal & Wright Alg. 7.4, initial scaling
 * gamma = s'y / y'y), a line search along it (or the fixed step lr), and
 * the update of x, grad and the history. With max_iter > 1 a step runs up
 * to max_iter such iterations, as one torch.optim.LBFGS.step() does (see
 * "Contrast" below). The loop, its stopping rule and the logging stay with
 * the caller:
 *
 *     static double fdf(void *ctx, const pf_real *x, pf_real *grad) { ... }
 *
 *     pf_lbfgs_config cfg = pf_lbfgs_config_default();
 *     pf_lbfgs *opt = pf_lbfgs_alloc(n, &cfg);
 *     if (!opt) return ...;                              // message in pf_errmsg()
 *     pf_lbfgs_objective obj = {fdf, engine};
 *     for (int it = 0; it < max_iters; it++) {
 *         pf_lbfgs_step_info info;
 *         pf_status st = pf_lbfgs_step(opt, x, grad, &obj, &info);
 *         if (st != PF_OK) return st;                    // non-finite loss
 *         log(it, info.loss_after, info.evals, info.step);
 *         if (info.outcome != PF_LBFGS_PROGRESS) break;  // as torch stops
 *     }
 *     pf_lbfgs_free(opt);
 *
 * The line search is the one of torch.optim.LBFGS(line_search_fn=
 * "strong_wolfe") (its _strong_wolfe: bracketing with cubic extrapolation,
 * then the cubic-interpolation zoom of Nocedal & Wright Alg. 3.5/3.6, with
 * c1 = 1e-4, c2 = 0.9), and the iteration matches torch's: the first step
 * since a reset is lr * min(1, 1/|g|_1), later ones start from lr; a pair
 * (s, y) enters the history only if y's > 1e-10. So a run of our steps
 * follows the path of torch's iterations (up to rounding, and except where a
 * line search runs out of its budget).
 *
 * OBJECTIVE EVALUATIONS PER STEP. This is the contract, counted in
 * info->evals:
 *   - +1 at the start point, only on the first call, after pf_lbfgs_reset(),
 *     or when x differs from the point the previous call returned (the step
 *     keeps loss and gradient at its current point, so it does not
 *     re-evaluate it otherwise);
 *   - then nothing more if that point has converged (outcome CONVERGED) or
 *     no descent is possible (STALLED, see below);
 *   - otherwise, with the line search on, between 1 and max_evals
 *     evaluations (default 25); usually 1 once the quasi-Newton model is good
 *     (the unit step is accepted) and 2-4 early on;
 *   - with the line search off, exactly 1 (the fixed step is taken whatever
 *     the loss does).
 * So a step makes at most max_evals + 1 evaluations, and at most max_evals
 * when the previous step's point is reused.
 *
 * (Per ITERATION; a step of max_iter > 1 iterations adds them up, and
 * stops early when an iteration does not return PROGRESS or when 1 + its
 * evaluations reach max_eval.)
 *
 * Contrast with torch.optim.LBFGS: one opt.step(closure) there runs up to
 * max_iter (default 20) of these iterations, stops early once max_eval
 * (default max_iter * 5/4) closure calls were made in total but only checks
 * that between iterations (one strong-Wolfe search alone may call the
 * closure 26 times), and calls the closure once at the start of every
 * opt.step() even though the previous call ended at that point. With
 * max_iter = 1 one of our steps is one torch iteration; torch's
 * LBFGS(max_iter=20) in a loop of K calls is then roughly 20 K of our steps
 * plus K extra evaluations. With max_iter = 20, max_eval 0 (25) and the line
 * search off, one of our steps is one torch step: the same iterations (the
 * closure call torch makes at the start of each step is the point we keep,
 * so we make one evaluation fewer per step). Torch's default has NO line
 * search (line_search_fn=None); ours has it on.
 *
 * Aliasing: the step reads x on entry and writes x and grad only before it
 * returns; in between it evaluates the objective at its own trial buffers,
 * so the objective may overwrite the memory behind x and grad (x may be the
 * engine's parameter buffer itself). On return x is the accepted point and
 * grad its gradient, also when the objective's last evaluation was elsewhere.
 *
 * Memory: pf_lbfgs_alloc makes all of it, (2 m + 7) n pf_reals and 2 m
 * doubles; a step makes no heap allocation. Dot products are the backend's
 * reduce (on the CPU: cblas sdot/ddot over fixed blocks of 4096 elements
 * summed in double), deterministic whatever the thread count.
 */
#ifndef PF_TRAIN_LBFGS_H
#define PF_TRAIN_LBFGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/real.h"
#include "core/status.h"
#include "tensor/backend.h"

typedef struct pf_lbfgs_config {
    int history;             /* m, curvature pairs kept (10; torch's default
                                is 100, PINN codes often use 50)            */
    double lr;               /* initial step length of the search (1)       */
    int max_evals;           /* line-search evaluation budget per step (25) */
    double tolerance_grad;   /* CONVERGED when max |grad| <= this (1e-7)   */
    double tolerance_change; /* STALLED below this change in loss or x, or
                                when g'd > -this (1e-9); absolute, as in
                                torch; 0 runs to machine precision       */
    bool line_search;        /* strong Wolfe (true); false: fixed step lr   */
    int max_iter;            /* iterations per step (1); torch's max_iter   */
    int max_eval;            /* a step stops iterating once 1 + its
                                iterations' evaluations reach this (torch's
                                max_eval, checked between iterations);
                                0: max_iter * 5 / 4, torch's default (0)  */
} pf_lbfgs_config;

/* The defaults in parentheses above (tolerances as torch.optim.LBFGS). */
pf_lbfgs_config pf_lbfgs_config_default(void);

/* PF_ERR_INVALID with a message if history or max_iter is outside
 * [1, 100000], lr <= 0, max_evals < 1, max_eval < 0 or a tolerance is
 * negative. */
pf_status pf_lbfgs_config_check(const pf_lbfgs_config *cfg);

/* Loss and gradient at x; see the overview. Must return a finite loss for a
 * usable point; a non-finite one stops the step with PF_ERR_NUMERIC. */
typedef struct pf_lbfgs_objective {
    double (*fdf)(void *ctx, const pf_real *x, pf_real *grad);
    void *ctx;
} pf_lbfgs_objective;

typedef enum pf_lbfgs_outcome {
    PF_LBFGS_PROGRESS = 0,   /* moved to a lower loss; call again          */
    PF_LBFGS_CONVERGED,      /* max |grad| <= tolerance_grad at x (on entry
                                or after this step's move)                */
    PF_LBFGS_STALLED,        /* moved, but the loss changed by less than
                                tolerance_change or max |t d| <= it; or no
                                descent direction exists: x unchanged      */
    PF_LBFGS_LINE_SEARCH_FAILED, /* no lower loss found along d within the
                                budget: x and grad unchanged, history kept */
} pf_lbfgs_outcome;

typedef struct pf_lbfgs_step_info {
    double loss_before;  /* loss at x on entry                              */
    double loss_after;   /* loss at x on return                             */
    int evals;           /* objective evaluations made by this call         */
    int iterations;      /* iterations that moved x (<= max_iter)           */
    double step;         /* accepted step length t: x_new = x_old + t d     */
    double grad_max;     /* max |grad| at x on return                       */
    bool wolfe;          /* the accepted point satisfies strong Wolfe       */
    pf_lbfgs_outcome outcome;
} pf_lbfgs_step_info;

typedef struct pf_lbfgs pf_lbfgs;

/* An optimizer for n > 0 parameters (n <= INT_MAX, for cblas); the
 * configuration is copied. Returns NULL, with the reason in pf_errmsg(), if
 * the configuration fails pf_lbfgs_config_check() or memory runs out. */
pf_lbfgs *pf_lbfgs_alloc(size_t n, const pf_lbfgs_config *cfg);

/* The same with the vectors in backend `be`'s memory (x and grad passed to
 * pf_lbfgs_step are then that backend's memory too); the vector ops run
 * there and each dot product returns to the host. */
pf_lbfgs *pf_lbfgs_alloc_on(const pf_backend *be, size_t n, const pf_lbfgs_config *cfg);

/* Frees the optimizer; NULL is allowed. */
void pf_lbfgs_free(pf_lbfgs *o);

/* Forget the history and the stored point: the next step starts afresh,
 * evaluating at its x. */
void pf_lbfgs_reset(pf_lbfgs *o);

/* One iteration from x (see the overview). On PF_OK, x holds the new point,
 * grad its gradient and *info (optional, NULL allowed) what happened. grad
 * is output only: the step keeps its own copy of the gradient at x. If x is
 * not the point the previous call returned, the step forgets its history
 * and starts afresh, as after pf_lbfgs_reset().
 * If the objective returns a non-finite loss (or gradient), the step returns
 * PF_ERR_NUMERIC with a message, and x and grad hold the last good point,
 * where this step's last completed iteration ended (the start of the step
 * when none did; if the start point itself is non-finite, x is untouched
 * and grad unspecified). The state is kept, so the caller may
 * retry after pf_lbfgs_set_lr() with a smaller lr. Makes no heap
 * allocation. */
pf_status pf_lbfgs_step(pf_lbfgs *o, pf_real *x, pf_real *grad,
                        const pf_lbfgs_objective *obj, pf_lbfgs_step_info *info);

/* Change the initial step length of later steps. lr > 0. */
void pf_lbfgs_set_lr(pf_lbfgs *o, double lr);

/* A short name for an outcome ("progress", "converged", ...). */
const char *pf_lbfgs_outcome_name(pf_lbfgs_outcome outcome);

#endif
