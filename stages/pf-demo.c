/*
 * pf-demo — train one PINN for real on an analytic PDE and report its error.
 *
 * The main job until the search pipeline exists (issue 6): it exercises the
 * whole engine (jets, graph, model, Adam then L-BFGS) on
 *   poisson1d  u'' = -pi^2 sin(pi x) on [-1, 1], u(+-1) = 0, u* = sin(pi x)
 *   poisson5d  PINNacle's PoissonND(dim=5): Lap u + (pi^2/4) sum sin(pi x_i/2) = 0
 *              on [0,1]^5, u = u* on the boundary, u* = sum sin(pi x_i / 2),
 *              evaluated on PINNacle's 8^5 grid x_i in {k/9}.
 * The PDE definitions here are the demo's own; the benchmark library (pdes/,
 * issue 3) replaces them.
 */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rng.h"
#include "nn/model.h"
#include "train/adam.h"
#include "train/graph_objective.h"
#include "train/lbfgs.h"

extern void openblas_set_num_threads(int);

static const double PI = 3.14159265358979323846;

typedef struct opts {
    const char *pde;
    int adam, lbfgs, width, depth, points, bpoints, threads;
    double lr;
    unsigned long seed;
} opts;

typedef struct problem {
    int dim, n_eval;
    pf_graph *g;
    pf_node *u_eval;
    double *u_star; /* exact solution at the evaluation points */
} problem;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double exact(const char *pde, const pf_real *x, int dim)
{
    if (!strcmp(pde, "poisson1d")) return sin(PI * x[0]);
    double u = 0;
    for (int i = 0; i < dim; i++) u += sin(PI * x[i] / 2);
    return u;
}

/* Build the loss graph: PDE residual on interior points (a jet carrying the
 * second derivatives the operator needs), Dirichlet data on boundary points,
 * and the network on the evaluation points. */
static pf_status build(problem *p, const opts *o)
{
    int d = !strcmp(o->pde, "poisson1d") ? 1 : 5;
    p->dim = d;
    pf_rng *r = pf_rng_alloc(pf_rng_derive(o->seed, "points"));
    p->g = pf_graph_alloc(pf_backend_cpu());
    if (!r || !p->g) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_model_config mc = pf_model_config_default(d, 1);
    mc.width = o->width;
    mc.depth = o->depth;
    pf_model *net = pf_model_alloc(p->g, &mc);
    if (!net) return PF_ERR_INVALID;

    /* d directions of order 1 plus one collapsed Laplacian stream; in 1-D the
     * plain second-order stream is the Laplacian. */
    pf_jet_layout L = pf_jet_layout_none();
    pf_real dirs[25] = {0}, ones[5] = {1, 1, 1, 1, 1};
    for (int i = 0; i < d; i++) dirs[i * d + i] = 1;
    if (d == 1) pf_jet_add_dir(&L, 2);
    else {
        for (int i = 0; i < d; i++) pf_jet_add_dir(&L, 1);
        pf_jet_add_collapsed(&L, ones);
    }
    int n = o->points, nb = o->bpoints;
    p->n_eval = d == 1 ? 1001 : 8 * 8 * 8 * 8 * 8;
    pf_node *x = pf_input(p->g, "x", n, d, &L, dirs);
    pf_node *f = pf_input(p->g, "f", n, 1, NULL, NULL);
    pf_node *xb = pf_input(p->g, "xb", nb, d, NULL, NULL);
    pf_node *ub = pf_input(p->g, "ub", nb, 1, NULL, NULL);
    pf_node *xe = pf_input(p->g, "xe", p->n_eval, d, NULL, NULL);
    pf_node *u = pf_model_apply(net, p->g, x);
    pf_node *lap = d == 1 ? pf_deriv(p->g, u, 0, 2) : pf_deriv_collapsed(p->g, u, 0);
    pf_loss(p->g, "pde", pf_mean_square(p->g, pf_sub(p->g, lap, f), NULL));
    pf_loss(p->g, "bc", pf_mean_square(p->g, pf_sub(p->g, pf_model_apply(net, p->g, xb), ub), NULL));
    p->u_eval = pf_model_apply(net, p->g, xe);
    pf_model_free(net);
    PF_TRY(pf_graph_compile(p->g, o->seed));

    size_t big = (size_t)(n > p->n_eval ? n : p->n_eval) * d;
    pf_real *X = malloc(big * sizeof *X), *V = malloc((size_t)(n > nb ? n : nb) * sizeof *V);
    p->u_star = malloc((size_t)p->n_eval * sizeof *p->u_star);
    if (!X || !V || !p->u_star) return pf_fail(PF_ERR_NOMEM, "out of memory");
    double lo = d == 1 ? -1 : 0, hi = 1;
    for (int i = 0; i < n; i++) { /* interior: uniform; f = Lap u* */
        for (int j = 0; j < d; j++) X[i * d + j] = (pf_real)pf_rng_uniform_in(r, lo, hi);
        V[i] = (pf_real)(d == 1 ? -PI * PI * sin(PI * X[i]) : -PI * PI / 4 * exact(o->pde, X + i * d, d));
    }
    pf_graph_set_input(p->g, x, X);
    pf_graph_set_input(p->g, f, V);
    for (int i = 0; i < nb; i++) { /* boundary: one coordinate pinned to a face */
        for (int j = 0; j < d; j++) X[i * d + j] = (pf_real)pf_rng_uniform_in(r, lo, hi);
        X[i * d + pf_rng_int(r, (uint64_t)d)] = (pf_real)(pf_rng_int(r, 2) ? hi : lo);
        V[i] = (pf_real)exact(o->pde, X + i * d, d);
    }
    pf_graph_set_input(p->g, xb, X);
    pf_graph_set_input(p->g, ub, V);
    for (int i = 0; i < p->n_eval; i++) {
        if (d == 1) X[i] = (pf_real)(-1 + 2.0 * i / (p->n_eval - 1));
        else
            for (int j = 0, k = i; j < d; j++, k /= 8) X[i * d + j] = (pf_real)((k % 8 + 1) / 9.0);
        p->u_star[i] = exact(o->pde, X + i * d, d);
    }
    pf_graph_set_input(p->g, xe, X);
    free(X);
    free(V);
    pf_rng_free(r);
    return PF_OK;
}

/* MSE and relative L2 error against u* on the evaluation points. */
static void evaluate(problem *p, double *mse, double *rel_l2)
{
    pf_real *u = malloc((size_t)p->n_eval * sizeof *u);
    pf_graph_forward(p->g);
    pf_graph_read(p->g, p->u_eval, u);
    double e2 = 0, s2 = 0;
    for (int i = 0; i < p->n_eval; i++) {
        double e = u[i] - p->u_star[i];
        e2 += e * e;
        s2 += p->u_star[i] * p->u_star[i];
    }
    free(u);
    *mse = e2 / p->n_eval;
    *rel_l2 = sqrt(e2 / s2);
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-demo [--pde poisson1d|poisson5d] [--adam N] [--lbfgs N] [--lr X]\n"
            "               [--width W] [--depth D] [--points N] [--bpoints N]\n"
            "               [--seed S] [--threads T]\n"
            "Trains a tanh MLP PINN on an analytic PDE with Adam then L-BFGS and\n"
            "prints its MSE and relative L2 error against the exact solution.\n"
            "Defaults: --pde poisson5d --adam 2000 --lbfgs 500 --lr 1e-3 --width 64\n"
            "          --depth 4 --points 4096 --bpoints 2048 --seed 0 --threads 2\n"
            "Progress goes to stderr, the summary to stdout.\n");
}

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){"poisson5d", 2000, 500, 64, 4, 4096, 2048, 2, 1e-3, 0};
    static const struct option lo[] = {
        {"pde", 1, 0, 'p'},    {"adam", 1, 0, 'a'},  {"lbfgs", 1, 0, 'l'},   {"lr", 1, 0, 'r'},
        {"width", 1, 0, 'w'},  {"depth", 1, 0, 'd'}, {"points", 1, 0, 'n'}, {"bpoints", 1, 0, 'b'},
        {"seed", 1, 0, 's'},   {"threads", 1, 0, 't'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (ch) {
        case 'p': o->pde = optarg; break;
        case 'a': o->adam = atoi(optarg); break;
        case 'l': o->lbfgs = atoi(optarg); break;
        case 'r': o->lr = atof(optarg); break;
        case 'w': o->width = atoi(optarg); break;
        case 'd': o->depth = atoi(optarg); break;
        case 'n': o->points = atoi(optarg); break;
        case 'b': o->bpoints = atoi(optarg); break;
        case 's': o->seed = strtoul(optarg, NULL, 10); break;
        case 't': o->threads = atoi(optarg); break;
        case 'h': usage(stdout); exit(0);
        default: return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "pf-demo: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (strcmp(o->pde, "poisson1d") && strcmp(o->pde, "poisson5d")) {
        fprintf(stderr, "pf-demo: --pde must be poisson1d or poisson5d (got '%s')\n", o->pde);
        return 2;
    }
    if (o->adam < 0 || o->lbfgs < 0 || o->points < 1 || o->bpoints < 2 || o->threads < 1 ||
        !(o->lr > 0)) {
        fprintf(stderr, "pf-demo: steps must be >= 0, points >= 1, bpoints >= 2, threads >= 1, lr > 0\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc) {
        usage(stderr);
        return rc;
    }
    omp_set_num_threads(o.threads);
    openblas_set_num_threads(o.threads);
    problem p = {0};
    pf_status st = build(&p, &o);
    if (st != PF_OK) {
        fprintf(stderr, "pf-demo: %s\n", pf_errmsg());
        return pf_status_exit_code(st);
    }
    size_t n = pf_graph_nparams(p.g);
    fprintf(stderr, "pf-demo: %s, %dx%d tanh MLP (%zu parameters), %d interior + %d boundary points, "
            "%s, %d threads\n", o.pde, o.depth, o.width, n, o.points, o.bpoints, PF_REAL_NAME, o.threads);
    pf_adam_config ac = pf_adam_config_default();
    pf_adam *adam = pf_adam_alloc(n, &ac);
    pf_lbfgs_config lc = pf_lbfgs_config_default();
    pf_lbfgs *lbfgs = pf_lbfgs_alloc(n, &lc);
    if (!adam || !lbfgs) {
        fprintf(stderr, "pf-demo: %s\n", pf_errmsg());
        return 1;
    }
    int total = o.adam + o.lbfgs, every = total / 20 > 0 ? total / 20 : 1, step = 0;
    double t0 = now(), loss = 0;
    for (; step < o.adam; step++) {
        pf_graph_forward_backward(p.g, NULL);
        pf_adam_step(adam, pf_graph_params(p.g), pf_graph_grads(p.g), o.lr);
        loss = pf_graph_total_loss(p.g, NULL);
        if (!isfinite(loss)) break;
        if ((step + 1) % every == 0)
            fprintf(stderr, "  adam  %6d/%d  loss %.4e  (pde %.3e, bc %.3e)  %.1f s\n", step + 1,
                    total, loss, pf_graph_loss_value(p.g, 0), pf_graph_loss_value(p.g, 1), now() - t0);
    }
    pf_graph_objective ctx = {p.g, NULL, 0};
    pf_lbfgs_objective obj = pf_graph_objective_lbfgs(&ctx);
    const char *stop = "step budget";
    for (int it = 0; it < o.lbfgs && isfinite(loss); it++, step++) {
        pf_lbfgs_step_info info;
        if (pf_lbfgs_step(lbfgs, pf_graph_params(p.g), pf_graph_grads(p.g), &obj, &info) != PF_OK) {
            fprintf(stderr, "pf-demo: %s\n", pf_errmsg());
            stop = "non-finite loss";
            break;
        }
        loss = info.loss_after;
        if ((step + 1) % every == 0)
            fprintf(stderr, "  lbfgs %6d/%d  loss %.4e  (%ld evaluations)  %.1f s\n", step + 1, total,
                    loss, ctx.evals, now() - t0);
        if (info.outcome != PF_LBFGS_PROGRESS) {
            stop = pf_lbfgs_outcome_name(info.outcome);
            step++;
            break;
        }
    }
    double secs = now() - t0, mse, rel;
    evaluate(&p, &mse, &rel);
    printf("pde        %s\nnetwork    %dx%d tanh MLP, %zu parameters\nsteps      %d (adam %d, "
           "lbfgs %d, %ld L-BFGS evaluations; stopped: %s)\nloss       %.4e\nmse        %.4e\n"
           "rel_l2     %.4e\nwall_s     %.2f\n",
           o.pde, o.depth, o.width, n, step, step < o.adam ? step : o.adam,
           step > o.adam ? step - o.adam : 0, ctx.evals, stop, loss, mse, rel, secs);
    pf_lbfgs_free(lbfgs);
    pf_adam_free(adam);
    free(p.u_star);
    pf_graph_free(p.g);
    return isfinite(loss) ? 0 : 1;
}
