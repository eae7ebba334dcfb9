/*
 * pf-bench — time full PINN training steps (forward, backward, Adam) of the
 * engine on the cases below, alternating with a PyTorch comparator of the
 * same cases in the same run, and print one table plus JSON lines. The
 * comparators are ours, beside this file: bench/torch_pinn_step.py for the
 * MLP cases (--torch or $PF_TORCH_BENCH name another) and
 * bench/torch_pinnsformer_step.py for pinnsformer.
 *
 * The bound: the GEMMs a Taylor-mode forward + reverse pass must do at least
 * (taylor_min_flop below), timed here with the same BLAS on the same
 * shapes. A step can't beat it; the ratio ms / bound_ms says how much the
 * elementwise jet work and the rest cost on top.
 *
 * The pinnsformer case is PINNsFormer (the released sizes) on burgers_1d,
 * pinnsformer_quick the same at the quick profile's sizes, both compared
 * with our own bench/torch_pinnsformer_step.py; they have no such bound
 * (attention is no GEMM), so their bound columns print "-".
 *
 * The loaded columns: the same rounds again, ours and the comparator's, with
 * two busy-loop processes of our own spinning beside them (forked here,
 * stopped by PID when the case is done, or at exit), as when other work
 * shares the cores (--no-loaded skips them).
 *
 * Then the hard-constraint rows: the training graph of poisson_5d with
 * typical.json's design, soft, with its box_bubble transform, and with the
 * transform but no constant folding, alternated in each round, each as ms
 * per step and its ratio to the soft one (time_hard_rows).
 *
 * Then whole candidates: pf-train runs data/specs/typical.json (4 x 64 tanh,
 * 4,096 Sobol points with RAD, Adam 900 + L-BFGS 100) at low fidelity on
 * poisson_5d and burgers_1d, and the line gives the process's wall time, the
 * time inside optimizer steps, and everything else (setup, sampling, probes,
 * evaluation, evidence, writing the artifacts) as a share of the steps.
 */
#include <cblas.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "core/parse.h"
#include "core/rng.h"
#include "io/msgpack_json.h"
#include "nn/model.h"
#include "search/artifact.h"
#include "tensor/device.h"
#include "tensor/graph.h"
#include "registry.h"
#include "tensor/threads.h"
#include "train/adam.h"
#include "train/train_graph.h"

typedef enum { PDE_BURGERS, PDE_POISSON5D, PDE_KS } pde_kind;

typedef struct bench_case {
    const char *name;
    pde_kind pde;
    int depth, width, n, n_ic, n_bc;
    int K; /* jet streams carried per collocation point (per token for a sequence model) */
    pf_arch arch; /* a tanh MLP, or PINNsFormer (width is its d_model) */
    int d_ff, d_hidden; /* PINNsFormer's other widths (0: the released 256 and 512) */
} bench_case;

/* The comparators, relative to the repository root (where make bench runs
 * pf-bench): the MLP cases' (the default of --torch and $PF_TORCH_BENCH)
 * and the sequence cases'. */
#define MLP_TORCH_SCRIPT "bench/torch_pinn_step.py"
#define SEQ_TORCH_SCRIPT "bench/torch_pinnsformer_step.py"

static const bench_case cases[] = {
    {"burgers_4x64", PDE_BURGERS, 4, 64, 4096, 512, 512, 4, PF_ARCH_MLP, 0, 0},
    {"burgers_6x128", PDE_BURGERS, 6, 128, 10000, 512, 512, 4, PF_ARCH_MLP, 0, 0},
    {"poisson5d_4x64", PDE_POISSON5D, 4, 64, 4096, 1024, 0, 7, PF_ARCH_MLP, 0, 0},
    {"ks_4x64", PDE_KS, 4, 64, 4096, 1024, 0, 6, PF_ARCH_MLP, 0, 0},
    {"pinnacle_default_5x100", PDE_BURGERS, 5, 100, 8192, 2048, 2048, 4, PF_ARCH_MLP, 0, 0},
    /* PINNsFormer on burgers_1d: 5 tokens per point; residual and boundary
     * over every token, initial condition on token 0 */
    {"pinnsformer", PDE_BURGERS, 1, 32, 1024, 512, 512, 4, PF_ARCH_PINNSFORMER, 0, 0},
    /* the same at the quick profile's sizes (search/baseline.c's recipe
     * fitted to 5,000 parameters and 2,048 points: 4,913 parameters) */
    {"pinnsformer_quick", PDE_BURGERS, 1, 4, 1365, 341, 341, 4, PF_ARCH_PINNSFORMER, 25, 51},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* A sequence model's case: tokens per point, its own comparator, no GEMM bound. */
static bool is_seq(const bench_case *c) { return pf_arch_def_of(c->arch)->seq; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Whether `name` is one of the comma-separated names in `list` (NULL: all). */
static int selected(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static int input_dim(const bench_case *c) { return c->pde == PDE_POISSON5D ? 5 : 2; }

/* The Taylor-mode minimum GEMM FLOPs per step, for the MLP cases only:
 * layer 1 (d -> w) a forward on the values and its weight gradient, every
 * later layer a forward, a weight gradient and an input adjoint over the K
 * jet streams of each collocation point (one stream at a boundary point).
 * A sequence case's attention is no GEMM, so it has no such bound here (the
 * table prints "-"). */
static double taylor_min_flop(const bench_case *c)
{
    double d = input_dim(c), w = c->width, first = 2 * d * w;
    double rest = 2 * ((c->depth - 1) * w * w + w * 1);
    int nb = c->n_ic + c->n_bc;
    return c->n * (2 * first + 3 * c->K * rest) + nb * (2 * first + 3 * rest);
}

/* Time the GEMMs of that minimum with our BLAS (best of several rounds).
 * Inputs stay fixed (outputs go to separate buffers), so no value drifts
 * into denormals or infinities between rounds. */
static double gemm_bound_ms(const bench_case *c)
{
    int w = c->width, rows = c->K * c->n, nb = c->n_ic + c->n_bc;
    size_t big = (size_t)(rows > nb ? rows : nb) * w;
    pf_real *X = malloc(big * sizeof *X), *Y = malloc(big * sizeof *Y), *DX = malloc(big * sizeof *DX);
    pf_real *W = malloc((size_t)w * w * sizeof *W), *G = malloc((size_t)w * w * sizeof *G);
    for (size_t i = 0; i < big; i++) X[i] = Y[i] = (pf_real)((int)(i % 97) - 48) * 0.01f;
    for (size_t i = 0; i < (size_t)w * w; i++) W[i] = (pf_real)((int)(i % 89) - 44) * 0.01f;
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double t0 = now();
        for (int l = 1; l < c->depth + 1; l++) { /* layer 1 (d -> w) is in the FLOP count but tiny */
            int out = l < c->depth ? w : 1;
            for (int part = 0; part < 2; part++) {
                int m = part ? nb : rows;
#ifdef PF_DOUBLE
#define GEMM cblas_dgemm
#else
#define GEMM cblas_sgemm
#endif
                GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, m, out, w, 1, X, w, W, w, 0, DX, out);
                GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, out, w, m, 1, Y, out, X, w, 0, G, w);
                GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, w, out, 1, Y, out, W, w, 0, DX, w);
            }
        }
        double t = now() - t0;
        if (t < best) best = t;
    }
    free(X), free(Y), free(DX), free(W), free(G);
    return best * 1e3;
}

/* A sequence model's boundary terms, as the released PINNsFormer code has
 * them: the initial condition (xi, ui) on token 0 (pf_model_apply: the
 * trunk on every token, pf_token_select, then the head on token 0 alone),
 * the boundary (xs, where u = 0) on every token. */
static void seq_boundary_losses(pf_graph *g, pf_model *net, pf_node *xi, pf_node *ui, pf_node *xs)
{
    const pf_model_config *mc = pf_model_cfg(net);
    pf_node *ts = pf_model_apply_seq(net, g, pf_tokens(g, xs, mc->seq_len, (pf_real)mc->seq_dt));
    pf_loss(g, "ic", pf_mean_square(g, pf_sub(g, pf_model_apply(net, g, xi), ui), NULL));
    pf_loss(g, "bc", pf_mean_square(g, ts, NULL));
}

/* Build the case's loss graph with the same networks, points and residuals
 * as the comparator. */
static long chunk_kib = -1; /* --chunk-kib; -1: the graph's default */
static const pf_backend *bench_be; /* --device */

static pf_graph *build_case(const bench_case *c, uint64_t seed)
{
    pf_graph *g = pf_graph_alloc(bench_be);
    if (bench_be->host_memory && chunk_kib >= 0) /* a device backend's graph has no chunks */
        pf_graph_set_chunk_bytes(g, (size_t)chunk_kib << 10);
    pf_rng *r = pf_rng_alloc(seed);
    int d = input_dim(c), nb = c->n_ic + c->n_bc;
    pf_model_config mc = pf_model_config_default(d, 1);
    mc.arch = c->arch; /* the default's other sizes are the released ones */
    mc.depth = c->depth;
    mc.width = c->width;
    if (c->d_ff) mc.d_ff = c->d_ff;
    if (c->d_hidden) mc.d_hidden = c->d_hidden;
    pf_model *net = pf_model_alloc(g, &mc);

    pf_jet_layout L = pf_jet_layout_none();
    pf_real dirs[8 * 5] = {0};
    if (c->pde == PDE_POISSON5D) {
        pf_real ones[5] = {1, 1, 1, 1, 1};
        for (int i = 0; i < 5; i++) {
            pf_jet_add_dir(&L, 1);
            dirs[i * 5 + i] = 1;
        }
        pf_jet_add_collapsed(&L, ones);
    } else {
        pf_jet_add_dir(&L, c->pde == PDE_KS ? 4 : 2); /* x */
        pf_jet_add_dir(&L, 1);                         /* t */
        dirs[0] = 1;
        dirs[2 + 1] = 1;
    }
    pf_real *X = malloc((size_t)c->n * d * sizeof *X), *XB = malloc((size_t)nb * d * sizeof *XB);
    pf_real *F = malloc((size_t)c->n * sizeof *F), *UB = malloc((size_t)nb * sizeof *UB);
    const double pi = 3.14159265358979323846;
    for (int p = 0; p < c->n; p++) {
        double f = 0;
        for (int j = 0; j < d; j++) {
            double v = pf_rng_uniform(r);
            if (c->pde == PDE_BURGERS && j == 0) v = 2 * v - 1;
            if (c->pde == PDE_KS && j == 0) v *= 2 * pi;
            X[p * d + j] = (pf_real)v;
            f += sin(pi * v);
        }
        F[p] = (pf_real)(pi * pi * f);
    }
    for (int p = 0; p < nb; p++) {
        for (int j = 0; j < d; j++) XB[p * d + j] = (pf_real)pf_rng_uniform(r);
        if (c->pde == PDE_BURGERS) {
            if (p < c->n_ic) { /* t = 0, u = -sin(pi x) */
                XB[p * d] = (pf_real)(2 * XB[p * d] - 1);
                XB[p * d + 1] = 0;
                UB[p] = (pf_real)-sin(pi * XB[p * d]);
            } else { /* x = +-1, u = 0 */
                XB[p * d] = pf_rng_int(r, 2) ? 1 : -1;
                UB[p] = 0;
            }
        } else if (c->pde == PDE_POISSON5D) {
            XB[p * d + pf_rng_int(r, 5)] = (pf_real)pf_rng_int(r, 2);
            double u = 0;
            for (int j = 0; j < d; j++) u += sin(pi * XB[p * d + j]);
            UB[p] = (pf_real)u;
        } else { /* KS initial condition */
            double x = 2 * pi * XB[p * d];
            XB[p * d] = (pf_real)x;
            XB[p * d + 1] = 0;
            UB[p] = (pf_real)(cos(x) * (1 + sin(x)));
        }
    }
    pf_node *x = pf_input(g, "x", c->n, d, &L, dirs);
    pf_node *f = pf_input(g, "f", c->n, 1, NULL, NULL);
    /* a sequence case splits the boundary rows: xb, ub the initial ones, xs the others */
    int nxb = is_seq(c) ? c->n_ic : nb;
    pf_node *xb = pf_input(g, "xb", nxb, d, NULL, NULL);
    pf_node *ub = pf_input(g, "ub", nxb, 1, NULL, NULL);
    pf_node *xs = is_seq(c) ? pf_input(g, "xs", c->n_bc, d, NULL, NULL) : NULL;
    pf_node *u = is_seq(c) ? pf_model_apply_seq(net, g, pf_tokens(g, x, mc.seq_len, (pf_real)mc.seq_dt))
                        : pf_model_apply(net, g, x), *res;
    if (c->pde == PDE_BURGERS) {
        double nu = 0.01 / pi;
        pf_node *ux = pf_deriv(g, u, 0, 1);
        res = pf_add(g, pf_deriv(g, u, 1, 1), pf_mul(g, pf_deriv(g, u, 0, 0), ux));
        res = pf_sub(g, res, pf_scale(g, pf_deriv(g, u, 0, 2), (pf_real)nu));
    } else if (c->pde == PDE_POISSON5D) {
        res = pf_add(g, pf_deriv_collapsed(g, u, 0), f);
    } else {
        double a = 100.0 / 16, b = 100.0 / (16 * 16), cc = 100.0 / (16.0 * 16 * 16 * 16);
        pf_node *uux = pf_mul(g, pf_deriv(g, u, 0, 0), pf_deriv(g, u, 0, 1));
        res = pf_add(g, pf_deriv(g, u, 1, 1), pf_scale(g, uux, (pf_real)a));
        res = pf_add(g, res, pf_scale(g, pf_deriv(g, u, 0, 2), (pf_real)b));
        res = pf_add(g, res, pf_scale(g, pf_deriv(g, u, 0, 4), (pf_real)cc));
    }
    pf_loss(g, "pde", pf_mean_square(g, res, NULL));
    if (is_seq(c))
        seq_boundary_losses(g, net, xb, ub, xs);
    else
        pf_loss(g, "bc", pf_mean_square(g, pf_sub(g, pf_model_apply(net, g, xb), ub), NULL));
    if (pf_graph_compile(g, seed) != PF_OK) {
        fprintf(stderr, "pf-bench: %s\n", pf_errmsg());
        exit(1);
    }
    pf_graph_set_input(g, x, X);
    pf_graph_set_input(g, f, F);
    pf_graph_set_input(g, xb, XB);
    pf_graph_set_input(g, ub, UB);
    if (xs) pf_graph_set_input(g, xs, XB + (size_t)c->n_ic * d);
    free(X), free(XB), free(F), free(UB);
    pf_model_free(net);
    pf_rng_free(r);
    return g;
}

/* Per-node times summed by op, in ms per step, to stderr. */
static void print_profile(const pf_graph *g, int steps)
{
    int n = pf_graph_profile_rows(g, NULL, 0);
    pf_profile_row *rows = malloc((size_t)n * sizeof *rows);
    pf_graph_profile_rows(g, rows, n);
    fprintf(stderr, "  %-12s %5s %5s %3s %9s %9s\n", "op", "n", "c", "S", "fwd_ms", "bwd_ms");
    double tf = 0, tb = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].fwd_s + rows[i].bwd_s < 1e-5 * steps) continue;
        fprintf(stderr, "  %-12s %5d %5d %3d %9.3f %9.3f\n", rows[i].op, rows[i].n, rows[i].c,
                rows[i].S, 1e3 * rows[i].fwd_s / steps, 1e3 * rows[i].bwd_s / steps);
        tf += rows[i].fwd_s, tb += rows[i].bwd_s;
    }
    fprintf(stderr, "  %-12s %17s %9.3f %9.3f\n", "total", "", 1e3 * tf / steps, 1e3 * tb / steps);
    free(rows);
}

static int profile_ops;

/* A step as the backend records it: pass, then Adam. */
typedef struct bench_step {
    pf_graph *g;
    pf_adam *opt;
} bench_step;

static void step_body(void *arg)
{
    bench_step *b = arg;
    pf_graph_pass(b->g);
    pf_adam_apply(b->opt, pf_graph_params(b->g), pf_graph_grads(b->g));
}

/* Median ms per full step of g over `steps` timed steps after `warmup`.
 * Where the backend records steps (and the graph is unchunked, and no
 * profile is asked for) a step is one replay, as in the trainer; every step
 * ends with the loss values on the host, so a GPU step is timed to its end.
 * The profile is printed under `name`. */
static double time_graph(pf_graph *g, const char *name, int warmup, int steps, double *loss)
{
    const pf_backend *be = pf_graph_backend(g);
    pf_adam_config ac = pf_adam_config_default();
    pf_adam *opt = pf_adam_alloc_on(be, pf_graph_nparams(g), &ac);
    double *t = malloc((size_t)steps * sizeof *t);
    bench_step bs = {g, opt};
    void *exec = NULL;
    if (be->capture && pf_graph_nchunks(g) == 1 && !profile_ops) {
        pf_graph_set_loss_weights(g, NULL);
        pf_graph_prepare(g); /* the constant nodes, once: not in the recording */
        if (be->capture(step_body, &bs, &exec) != PF_OK) {
            fprintf(stderr, "pf-bench: %s\n", pf_errmsg());
            exit(1);
        }
    }
    for (int s = 0; s < warmup + steps; s++) {
        double t0 = now();
        if (exec) {
            pf_adam_prepare(opt, 1e-3);
            if (be->replay(exec) != PF_OK) {
                fprintf(stderr, "pf-bench: %s\n", pf_errmsg());
                exit(1);
            }
            pf_graph_read_losses(g);
        } else {
            pf_graph_forward_backward(g, NULL);
            pf_adam_step(opt, pf_graph_params(g), pf_graph_grads(g), 1e-3);
        }
        if (s >= warmup) t[s - warmup] = (now() - t0) * 1e3;
        if (profile_ops && s + 1 == warmup) pf_graph_profile(g, true);
    }
    if (exec) be->drop(exec);
    if (profile_ops) {
        fprintf(stderr, "%s: time per node and step\n", name);
        print_profile(g, steps);
    }
    *loss = 0;
    for (int j = 0; j < pf_graph_nloss(g); j++) *loss += pf_graph_loss_value(g, j);
    double med = median(t, steps);
    free(t);
    pf_adam_free(opt);
    return med;
}

static double time_engine(const bench_case *c, int warmup, int steps, double *loss, size_t *nparams)
{
    pf_graph *g = build_case(c, 0);
    *nparams = pf_graph_nparams(g);
    double ms = time_graph(g, c->name, warmup, steps, loss);
    pf_graph_free(g);
    return ms;
}

/* The hard-constraint rows: the training graph pf-train builds for
 * poisson_5d with data/specs/typical.json's design (4 x 64 tanh, inputs
 * normalised, 4,096 Sobol interior and 1,024 boundary points), soft, with
 * the box_bubble transform, and with it but no constant folding
 * (PF_GRAPH_FOLD=0: the lift and bubble computed in every step). */
typedef struct hard_row {
    const char *name;
    int transform; /* -1: soft */
    const char *fold; /* PF_GRAPH_FOLD */
} hard_row;

static const hard_row hard_rows[] = {
    {"poisson5d_soft", -1, "1"},
    {"poisson5d_box_bubble", 0, "1"},
    {"poisson5d_box_bubble_nofold", 0, "0"},
};
#define NHARD (int)(sizeof hard_rows / sizeof hard_rows[0])

static double time_hard_row(const hard_row *h, int warmup, int steps)
{
    const pf_pde *p;
    if (pf_pdes_lookup("poisson_5d", &p) != PF_OK) {
        fprintf(stderr, "pf-bench: %s\n", pf_errmsg());
        exit(1);
    }
    pf_model_config mc = pf_model_config_default(p->d_in, p->d_out);
    mc.depth = 4;
    mc.width = 64;
    mc.normalize = true;
    pf_train_config tc = pf_train_config_default();
    tc.sampling.interior = 4096;
    tc.sampling.boundary = 1024;
    tc.sampling.method = PF_SAMPLE_SOBOL;
    if (h->transform >= 0) tc.constraints = (pf_constraints_config){PF_CONSTRAINT_HARD, h->transform};
    setenv("PF_GRAPH_FOLD", h->fold, 1); /* read when the graph compiles */
    pf_train_graph *t;
    pf_status st = pf_train_graph_alloc_on(bench_be, p, &mc, &tc, 0, &t);
    unsetenv("PF_GRAPH_FOLD");
    if (st != PF_OK) {
        fprintf(stderr, "pf-bench: %s: %s\n", h->name, pf_errmsg());
        exit(1);
    }
    double loss, ms = time_graph(t->g, h->name, warmup, steps, &loss);
    pf_train_graph_free(t);
    return ms;
}

/* The rows alternate within each round (load on a shared machine hits
 * them alike); medians over rounds, and each one's ratio to the soft row. */
static void time_hard_rows(const char *only, int rounds, int warmup, int steps, int threads, FILE *js)
{
    double ms[NHARD][16];
    int nr = rounds < 16 ? rounds : 16, any = 0;
    for (int i = 0; i < NHARD; i++) any |= selected(only, hard_rows[i].name) || selected(only, "hard");
    if (!any) return;
    printf("\nhard constraints (poisson_5d, typical.json's design, training graph, %d threads):\n", threads);
    printf("%-28s %10s %12s\n", "case", "ms/step", "x soft");
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < NHARD; i++) ms[i][r] = time_hard_row(&hard_rows[i], warmup, steps);
    double soft = median(ms[0], nr);
    for (int i = 0; i < NHARD; i++) {
        double m = i ? median(ms[i], nr) : soft;
        printf("%-28s %10.3f %12.3f\n", hard_rows[i].name, m, m / soft);
        if (js)
            fprintf(js, "{\"case\":\"%s\",\"ms\":%.4f,\"ratio_to_soft\":%.4f,\"threads\":%d,\"rounds\":%d,"
                        "\"steps\":%d,\"precision\":\"%s\",\"backend\":\"%s\"}\n",
                    hard_rows[i].name, m, m / soft, threads, nr, steps, PF_REAL_NAME, bench_be->name);
    }
    fflush(stdout);
}

/* The Python the comparators run under: $PF_PYTHON when set; else python3
 * on PATH when it imports torch, else /usr/bin/python3 (Debian's
 * python3-torch, which make bench installs) when that does; else python3,
 * whose error the comparator's run then shows. Probed once. */
static const char *torch_python(void)
{
    static const char *py;
    if (py) return py;
    const char *env = getenv("PF_PYTHON");
    if (env && *env) return py = env;
    static const char *const cand[] = {"python3", "/usr/bin/python3"};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import torch' >/dev/null 2>&1", cand[i]);
        if (system(cmd) == 0) {
            if (i) fprintf(stderr, "pf-bench: python3 on PATH has no torch; the comparators run under %s\n", cand[i]);
            return py = cand[i];
        }
    }
    return py = "python3";
}

/* Run the comparator for one case; returns its median ms or -1, and its
 * trainable parameter count in *nparams (-1 if it gave none). The
 * comparator prints one JSON line per case; one that cannot time the case
 * under torch.compile (PyTorch < 2.0, or no double backward through the
 * compiled graph) gives no "ms_per_step_median" but "compile_error" and
 * exits 0: its reason goes to why (empty otherwise), and the time is -1,
 * as for a comparator that failed. */
static double time_torch(const char *script, const bench_case *c, int threads, int warmup,
                         int steps, int compiled, long *nparams, char *why, size_t nwhy)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s '%s' --threads %d --blas-threads 1 --no-flops --cases %s "
             "--steps %d --warmup %d --device %s%s%s",
             torch_python(), script, threads, c->name, steps < 20 ? 20 : steps, warmup, bench_be->name,
             compiled ? " --compile" : "",
#ifdef PF_DOUBLE
             " --double"
#else
             ""
#endif
    );
    if (nwhy) why[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[4096];
    double ms = -1;
    while (fgets(line, sizeof line, p)) {
        json_t *o = json_loads(line, 0, NULL);
        if (!json_is_object(o)) {
            json_decref(o);
            continue;
        }
        json_t *v = json_object_get(o, "ms_per_step_median");
        if (json_is_number(v)) ms = json_number_value(v);
        v = json_object_get(o, "params");
        if (json_is_integer(v)) *nparams = (long)json_integer_value(v);
        v = json_object_get(o, "compile_error");
        if (json_is_string(v) && nwhy) snprintf(why, nwhy, "%s", json_string_value(v));
        json_decref(o);
    }
    if (pclose(p) != 0) return -1;
    return ms;
}

/* The number at a "/"-separated path of a JSON object, or NaN. */
static double jnum(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(json_object_get(o, a), b);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* One full low-fidelity candidate through the pf-train binary. */
static int time_candidate(const char *train, const char *spec, const char *pde, int threads, const char *dir,
                          FILE *js)
{
    char cmd[4096], ev[2048];
    snprintf(cmd, sizeof cmd, "%s %s --pde %s --fidelity low --seed 0 --out %s/%s --threads %d --device %s --quiet",
             train, spec, pde, dir, pde, threads, bench_be->name);
    double t0 = now();
    int rc = system(cmd);
    double wall = now() - t0;
    snprintf(ev, sizeof ev, "%s/%s/evidence.msgpack", dir, pde);
    pf_evidence_file e;
    if (rc != 0 || pf_evidence_file_read(ev, &e) != PF_OK) {
        fprintf(stderr, "pf-bench: '%s' failed (exit %d)\n", cmd, rc);
        return 1;
    }
    double steps_s = jnum(e.evidence, "time", "steps_s"), y = e.has_y ? e.y : NAN;
    double other = wall - steps_s;
    printf("%-24s %8.2f s wall %8.2f s in steps %6.2f s else (%4.1f%% of the steps)  %s, y %.3e\n", pde, wall,
           steps_s, other, 100 * other / steps_s, e.status, y);
    char ys[32] = "null";
    if (isfinite(y)) snprintf(ys, sizeof ys, "%.6g", y);
    if (js)
        fprintf(js,
                "{\"candidate\":\"%s\",\"spec\":\"%s\",\"wall_s\":%.3f,\"steps_s\":%.3f,\"other_s\":%.3f,"
                "\"other_pct\":%.2f,\"y\":%s,\"threads\":%d,\"precision\":\"%s\"}\n",
                pde, spec, wall, steps_s, other, 100 * other / steps_s, ys, threads, PF_REAL_NAME);
    pf_evidence_file_release(&e);
    return 0;
}

/* The loaded columns' load: busy-loop processes, stopped by PID. */
enum { NBUSY = 2 };
static pid_t busy_pid[NBUSY];

static void busy_stop(void)
{
    for (int i = 0; i < NBUSY; i++)
        if (busy_pid[i] > 0) {
            kill(busy_pid[i], SIGTERM);
            waitpid(busy_pid[i], NULL, 0);
            busy_pid[i] = 0;
        }
}

static bool busy_start(void)
{
    static bool registered;
    if (!registered) atexit(busy_stop), registered = true;
    fflush(NULL);
    for (int i = 0; i < NBUSY; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("pf-bench: fork of a busy loop");
            busy_stop();
            return false;
        }
        if (pid == 0) { /* spin until told to stop, or until pf-bench dies */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() == 1) _exit(0);
            for (volatile unsigned long x = 0;; x++) continue;
        }
        busy_pid[i] = pid;
    }
    return true;
}

/* A case's medians: ours, the comparator's (NaN without), its compiled form's. */
typedef struct medians {
    double ms, tms, cms, bound, loss;
    int nt, nc;
    size_t np;
    long tnp;
    char why[320];
} medians;

/* Each round: our steps, the comparator's, the GEMM bound; medians over
 * rounds, so a burst of load on a shared machine moves little. */
static void measure(const bench_case *c, const char *cmp, int nr, int torch, int compiled, int threads, int warmup,
                    int steps, medians *m)
{
    double ours[16], theirs[16], comp[16], bounds[16];
    *m = (medians){.tnp = -1};
    for (int r = 0; r < nr; r++) {
        ours[r] = time_engine(c, warmup, steps, &m->loss, &m->np);
        if (torch) {
            double t = time_torch(cmp, c, threads, warmup, steps, 0, &m->tnp, NULL, 0);
            if (t > 0) theirs[m->nt++] = t;
        }
        if (torch && compiled) {
            double t = time_torch(cmp, c, threads, warmup, steps, 1, &m->tnp, m->why, sizeof m->why);
            if (t > 0) comp[m->nc++] = t;
        }
        bounds[r] = is_seq(c) ? NAN : gemm_bound_ms(c);
    }
    m->ms = median(ours, nr);
    m->tms = m->nt ? median(theirs, m->nt) : NAN;
    m->cms = m->nc ? median(comp, m->nc) : NAN;
    m->bound = is_seq(c) ? NAN : median(bounds, nr);
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-bench [--out FILE] [--cases a,b,...] [--rounds R] [--steps N]\n"
            "                [--warmup N] [--threads T] [--torch SCRIPT | --no-torch]\n"
            "                [--profile] [--chunk-kib K] [--device cpu|cuda|auto] [--compile]\n"
            "                [--no-loaded]\n"
            "Times full training steps (forward, backward, Adam) of the engine on the\n"
            "comparator's cases, alternating with the PyTorch comparator (run with\n"
            "--threads T --blas-threads 1), and prints case, our median ms/step,\n"
            "PyTorch's, their ratio, our GEMM GFLOP/s and the Taylor-mode GEMM bound\n"
            "(\"-\" for the pinnsformer cases: attention has no such bound; -1 in the JSON).\n"
            "The comparators are ours, relative to the repository root (run pf-bench\n"
            "there, as make bench does): the pinnsformer cases (PINNsFormer on burgers_1d,\n"
            "the released sizes and pinnsformer_quick, the quick profile's) are compared\n"
            "with " SEQ_TORCH_SCRIPT ", the others with --torch.\n"
            "Each case runs again beside two busy-loop processes that pf-bench starts\n"
            "and stops (ld_ms, ld_torch, ld_ratio: the same medians under that load;\n"
            "--no-loaded skips it). Idle OpenMP threads sleep (OMP_WAIT_POLICY=passive\n"
            "unless the environment sets it).\n"
            "--profile prints the time per graph node (stderr); --chunk-kib sets the\n"
            "graph's chunk size (0: no chunks; default: the graph's own).\n"
            "Then poisson_5d's training graph (typical.json's design) soft, with the\n"
            "box_bubble transform and with it unfolded (PF_GRAPH_FOLD=0), alternated,\n"
            "with ratios to the soft one (--cases hard, or the rows' names, selects them).\n"
            "Then one full low-fidelity candidate (pf-train on data/specs/typical.json)\n"
            "per PDE of --candidates (default poisson_5d,burgers_1d; none: skip), as wall\n"
            "time, split into optimizer steps and the rest.\n"
            "--device: where both sides run (default auto: $PF_DEVICE, else cuda when built in\n"
            "and a GPU is visible, else cpu); --compile also times the comparator under\n"
            "torch.compile (torch_c_ms, ratio_c; nan, with the reason on stderr, where\n"
            "the comparator cannot: PyTorch < 2.0 has none, and torch.compile has no\n"
            "double backward). ms/step is also seconds per 1,000 steps.\n"
            "Defaults: --rounds 5 --steps 25 --warmup 5 --threads 2\n"
            "          --torch " MLP_TORCH_SCRIPT " (or $PF_TORCH_BENCH)\n"
            "The comparators run under $PF_PYTHON (default: python3 on PATH if it has\n"
            "torch, else /usr/bin/python3), in float32 (float64 in a PRECISION=double\n"
            "build: --double).\n");
}

/* An integer option in lo..hi into *v; false (after saying why) otherwise. */
static bool int_opt(const char *name, const char *arg, long lo, long hi, int *v)
{
    long x;
    if (pf_parse_long(arg, lo, hi, &x) != PF_OK) {
        fprintf(stderr, "pf-bench: %s: %s\n", name, pf_errmsg());
        return false;
    }
    *v = (int)x;
    return true;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *only = NULL, *script = getenv("PF_TORCH_BENCH");
    const char *candidates = "poisson_5d,burgers_1d";
    int rounds = 5, steps = 25, warmup = 5, threads = 2, torch = 1, compiled = 0, loaded = 1;
    const char *device = NULL;
    pf_threads_passive_wait(argv, "pf-bench");
    if (!script || !*script) script = MLP_TORCH_SCRIPT;
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'},    {"cases", required_argument, 0, 'c'},
        {"rounds", required_argument, 0, 'r'}, {"steps", required_argument, 0, 's'},
        {"warmup", required_argument, 0, 'w'}, {"threads", required_argument, 0, 't'},
        {"torch", required_argument, 0, 'T'},  {"no-torch", no_argument, 0, 'N'},
        {"profile", no_argument, 0, 'P'},      {"chunk-kib", required_argument, 0, 'k'},
        {"candidates", required_argument, 0, 'C'}, {"device", required_argument, 0, 'd'},
        {"compile", no_argument, 0, 'x'},      {"no-loaded", no_argument, 0, 'L'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case 'c': only = optarg; break;
        case 'r': if (!int_opt("--rounds", optarg, 1, 1000000, &rounds)) return 2; break;
        case 's': if (!int_opt("--steps", optarg, 1, 100000000, &steps)) return 2; break;
        case 'w': if (!int_opt("--warmup", optarg, 0, 100000000, &warmup)) return 2; break;
        case 't': if (!int_opt("--threads", optarg, 1, 1024, &threads)) return 2; break;
        case 'T': script = optarg; break;
        case 'N': torch = 0; break;
        case 'L': loaded = 0; break;
        case 'P': profile_ops = 1; break;
        case 'k':
            if (pf_parse_long(optarg, 0, LONG_MAX / 1024, &chunk_kib) != PF_OK) {
                fprintf(stderr, "pf-bench: --chunk-kib: %s\n", pf_errmsg());
                return 2;
            }
            break;
        case 'C': candidates = optarg; break;
        case 'd': device = optarg; break;
        case 'x': compiled = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc || rounds < 1 || steps < 1 || warmup < 0 || threads < 1) {
        usage(stderr);
        return 2;
    }
    for (int i = 0; torch && i < NCASES; i++) { /* the comparators of the cases asked for */
        const char *cmp = is_seq(&cases[i]) ? SEQ_TORCH_SCRIPT : script;
        if (!selected(only, cases[i].name) || !access(cmp, R_OK)) continue;
        fprintf(stderr, "pf-bench: comparator '%s' not found (run pf-bench from the repository root%s), or %s\n", cmp,
                is_seq(&cases[i]) ? "" : "; or name it with --torch or $PF_TORCH_BENCH", "use --no-torch");
        return 2;
    }
    if (pf_device_open(device, &bench_be) != PF_OK) {
        fprintf(stderr, "pf-bench: %s\n", pf_errmsg());
        return 2;
    }
    pf_threads_set(threads); /* before the device's name, which counts them */
    pf_device_info info;
    bench_be->info(&info);
    FILE *js = out ? fopen(out, "w") : NULL;
    if (out && !js) {
        fprintf(stderr, "pf-bench: cannot write '%s'\n", out);
        return 1;
    }
    fprintf(stderr, "pf-bench: %s on %s (%s), %d threads, %d rounds x %d steps (after %d warm-up)\n",
            PF_REAL_NAME, bench_be->name, info.name, threads, rounds, steps, warmup);
    if (torch) torch_python(); /* probed once, before the first case */
    printf("%-24s %10s %10s %7s %10s %7s %9s %10s %8s %10s %10s %8s\n", "case", "ms/step", "torch_ms",
           "ratio", "torch_c_ms", "ratio_c", "GFLOP/s", "bound_ms", "x_bound", "ld_ms", "ld_torch", "ld_ratio");
    for (int i = 0; i < NCASES; i++) {
        const bench_case *c = &cases[i];
        if (!selected(only, c->name)) continue;
        int nr = rounds < 16 ? rounds : 16;
        const char *cmp = is_seq(c) ? SEQ_TORCH_SCRIPT : script;
        medians q, ld = {.ms = NAN, .tms = NAN};
        measure(c, cmp, nr, torch, compiled, threads, warmup, steps, &q);
        if (loaded) {
            if (!busy_start()) return 1;
            measure(c, cmp, nr, torch, 0, threads, warmup, steps, &ld);
            busy_stop();
        }
        size_t np = q.np;
        long tnp = q.tnp;
        int nt = q.nt, nc = q.nc;
        double loss = q.loss;
        const char *why = q.why;
        fprintf(stderr, "pf-bench: %s: %zu trainable parameters, the comparator's %ld%s\n", c->name, np, tnp,
                tnp >= 0 && (size_t)tnp != np ? " (DIFFERENT networks)" : "");
        if (torch && nt == 0) {
            fprintf(stderr, "pf-bench: the comparator failed on %s (run it by hand to see why)\n",
                    c->name);
            return 1;
        }
        if (torch && compiled && nc == 0)
            fprintf(stderr, "pf-bench: %s: no compiled PyTorch time (%s)\n", c->name,
                    why[0] ? why : "the comparator failed with --compile; run it by hand to see why");
        double ms = q.ms, tms = q.tms, cms = q.cms, bound = q.bound;
        double gf = is_seq(c) ? NAN : taylor_min_flop(c) * 1e-9;
        printf("%-24s %10.3f %10.2f %7.2f %10.2f %7.2f ", c->name, ms, tms, tms / ms, cms, cms / ms);
        if (is_seq(c)) /* no GEMM bound for a network with attention (taylor_min_flop) */
            printf("%9s %10s %8s", "-", "-", "-");
        else
            printf("%9.1f %10.2f %8.2f", gf / (ms * 1e-3), bound, ms / bound);
        printf(" %10.3f %10.2f %8.2f\n", ld.ms, ld.tms, ld.tms / ld.ms);
        fflush(stdout);
        if (js)
            fprintf(js,
                    "{\"case\":\"%s\",\"ms\":%.4f,\"torch_ms\":%.3f,\"ratio\":%.3f,"
                    "\"torch_compile_ms\":%.3f,\"ratio_compile\":%.3f,\"bound_ms\":%.3f,"
                    "\"gflops\":%.2f,\"taylor_min_gflop\":%.4f,\"threads\":%d,\"rounds\":%d,"
                    "\"steps\":%d,\"precision\":\"%s\",\"final_loss\":%.9g,\"backend\":\"%s\","
                    "\"device\":\"%s\",\"params\":%zu,\"torch_params\":%ld,\"loaded_ms\":%.4f,"
                    "\"loaded_torch_ms\":%.3f,\"loaded_ratio\":%.3f}\n",
                    c->name, ms, nt ? tms : -1.0, nt ? tms / ms : -1.0, nc ? cms : -1.0,
                    nc ? cms / ms : -1.0, is_seq(c) ? -1.0 : bound, is_seq(c) ? -1.0 : gf / (ms * 1e-3),
                    is_seq(c) ? -1.0 : gf, threads, nr, steps, PF_REAL_NAME, loss, bench_be->name,
                    info.name, np, tnp, loaded ? ld.ms : -1.0, ld.nt ? ld.tms : -1.0,
                    ld.nt ? ld.tms / ld.ms : -1.0);
        if (js) fflush(js); /* each case kept if the run is stopped */
    }
    time_hard_rows(only, rounds, warmup, steps, threads, js);
    if (strcmp(candidates, "none")) {
        /* pf-train sits beside pf-bench in the build's bin folder */
        char train[2048], dir[] = "/tmp/pf_bench_XXXXXX";
        snprintf(train, sizeof train, "%s", argv[0]);
        char *slash = strrchr(train, '/');
        snprintf(slash ? slash + 1 : train, sizeof train - (size_t)(slash ? slash + 1 - train : 0), "pf-train");
        if (!mkdtemp(dir)) {
            fprintf(stderr, "pf-bench: cannot make a temporary folder\n");
            return 1;
        }
        printf("\nfull low-fidelity candidates (data/specs/typical.json, 1,000 steps, %d threads):\n", threads);
        char list[512];
        snprintf(list, sizeof list, "%s", candidates);
        int rc = 0;
        for (char *tok = strtok(list, ","); tok && !rc; tok = strtok(NULL, ","))
            rc = time_candidate(train, "data/specs/typical.json", tok, threads, dir, js);
        char rm[128];
        snprintf(rm, sizeof rm, "rm -rf %s", dir);
        if (system(rm) != 0) fprintf(stderr, "pf-bench: could not remove %s\n", dir);
        if (rc) return 1;
    }
    if (js) fclose(js);
    return 0;
}
