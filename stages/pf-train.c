/*
 * pf-train — train one candidate spec on one PDE and write its result and
 * evidence (design.md section 6).
 *
 *   pf-train SPEC --pde P --fidelity low|high --seed S --out DIR [--budget paper|quick]
 *
 * SPEC is a spec (JSON) or a proposal (pf-propose's candK.proposal.msgpack).
 * A proposal that holds no valid spec (invalid after the re-asks, or
 * skipped after a stop decision) is not trained: evidence.msgpack and
 * result.h5 (root attributes only) then say so (status "invalid" or
 * "skipped") and the exit code is 0.
 *
 * writes DIR/result.h5 (curves, predictions, parameters; the spec and its
 * hash as attributes) and DIR/evidence.msgpack ({y, status, evidence, ...}),
 * both atomically. A training that fails (NaN, divergence, time limit) is a
 * result: exit 0 with its status. Exit 1: the candidate could not be set up
 * or written (a data file missing, a full disk). Exit 2: bad usage, an
 * unknown PDE or a spec that does not validate (the reasons on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/status.h"
#include "io/h5.h"
#include "io/msgpack_json.h"
#include "registry.h"
#include "search/run.h"
#include "spec/spec.h"
#include "tensor/device.h"
#include "train/trainer.h"

extern void openblas_set_num_threads(int);

typedef struct opts {
    const char *spec, *pde, *out, *fidelity, *budget, *device;
    unsigned long long seed;
    int threads, quiet, every;
    double timeout;
} opts;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-train SPEC --pde P --fidelity low|high --seed S --out DIR [--budget paper|quick]\n"
            "                [--device cpu|cuda|auto] [--threads T] [--timeout SECONDS]\n"
            "                [--progress-every N] [--quiet]\n"
            "Trains the AlgorithmSpec in SPEC (JSON; - for stdin; or a pf-propose proposal,\n"
            "*.proposal.msgpack) on PDE P and writes\n"
            "DIR/result.h5 (loss curves per term, evaluation MSE curve, predictions at the\n"
            "evaluation points, final parameters; spec and hash as attributes) and\n"
            "DIR/evidence.msgpack (y = evaluation MSE, status, evidence). A spec written for\n"
            "one fidelity runs at the other with every stage's steps scaled to its budget\n"
            "(paper: low 1,000, high 10,000 steps; quick: low 200, high 1,000, and smaller\n"
            "limits). A proposal without a valid spec is not trained: evidence.msgpack and\n"
            "result.h5 say why (status invalid or skipped). Progress: a bar on a terminal, else a line\n"
            "every N steps (default: a tenth of the run) on stderr.\n"
            "--device: where to train (default: $PF_DEVICE, else auto = cuda when this build\n"
            "has it and a GPU is visible, else cpu); evidence records the device.\n"
            "Exit codes: 0 trained (whatever the status: ok, nan, diverged, timeout),\n"
            "1 setup or I/O failure, 2 bad usage, unknown PDE or invalid spec.\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "pf-train: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    return 2;
}

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.fidelity = "low", .budget = "paper", .threads = 0};
    static const struct option lo[] = {
        {"pde", 1, 0, 'p'},     {"fidelity", 1, 0, 'f'}, {"seed", 1, 0, 's'},
        {"out", 1, 0, 'o'},     {"threads", 1, 0, 't'},  {"timeout", 1, 0, 'T'},
        {"progress-every", 1, 0, 'e'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'}, {"budget", 1, 0, 'b'},
        {"device", 1, 0, 'd'},
        {0, 0, 0, 0}};
    int ch;
    bool seed = false;
    char *end;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'p': o->pde = optarg; break;
        case 'f': o->fidelity = optarg; break;
        case 'b': o->budget = optarg; break;
        case 's':
            errno = 0;
            o->seed = strtoull(optarg, &end, 10);
            if (errno || *end || optarg[0] == '-') return bad("--seed wants a non-negative integer, not '%s'", optarg);
            seed = true;
            break;
        case 'o': o->out = optarg; break;
        case 'd': o->device = optarg; break;
        case 't':
            o->threads = (int)strtol(optarg, &end, 10);
            if (*end || o->threads < 1) return bad("--threads wants an integer >= 1, not '%s'", optarg);
            break;
        case 'T':
            o->timeout = strtod(optarg, &end);
            if (*end || !(o->timeout > 0)) return bad("--timeout wants seconds > 0, not '%s'", optarg);
            break;
        case 'e':
            o->every = (int)strtol(optarg, &end, 10);
            if (*end || o->every < 1) return bad("--progress-every wants an integer >= 1, not '%s'", optarg);
            break;
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) return bad("%s", optind < argc ? "give exactly one SPEC file" : "SPEC is missing (see --help)");
    o->spec = argv[optind];
    if (!o->pde) return bad("%s", "--pde is required");
    if (!o->out) return bad("%s", "--out is required");
    if (!seed) return bad("%s", "--seed is required");
    return 0;
}

/* ------------------------------------------------------------ progress */

/* How pf-train shows the trainer's progress events (trainer.h): a bar
 * redrawn at most every 0.2 s when stderr is a terminal and no
 * --progress-every was given, else a line every `every` steps (0: a tenth of
 * the run); either way once more at the end. The trainer reports every
 * step; what is shown is decided here. */
typedef struct progress {
    bool bar;
    int every;
    double shown;   /* elapsed_s when the bar was last drawn */
} progress;

static void show_progress(const pf_train_progress *e, void *user)
{
    progress *pr = user;
    if (pr->bar) {
        if (!e->last && e->elapsed_s - pr->shown < 0.2) return;
        pr->shown = e->elapsed_s;
        int w = 30, f = (int)(w * (double)e->step / e->total_steps);
        char bar[64];
        for (int i = 0; i < w; i++) bar[i] = i < f ? '#' : '.';
        bar[w] = 0;
        fprintf(stderr, "\rpf-train [%s] %ld/%ld loss %.3e %.0f steps/s%s", bar, e->step, e->total_steps, e->loss,
                e->steps_per_s, e->last ? "\n" : "");
        fflush(stderr);
        return;
    }
    long every = pr->every > 0 ? pr->every : e->total_steps / 10 > 0 ? e->total_steps / 10 : 1;
    if (!e->last && e->step % every) return;
    fprintf(stderr, "pf-train: step %ld/%ld loss %.4e %.1f steps/s %.1f s\n", e->step, e->total_steps, e->loss,
            e->steps_per_s, e->elapsed_s);
}

/* ---------------------------------------------------------------- spec */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The raw spec in o->spec: JSON, or the "spec" of a proposal (msgpack).
 * A proposal without one sets *untrained to its status and *why to the
 * reason (both owned by *proposal, which the caller releases). */
static int read_spec(const opts *o, json_t **raw, json_t **proposal, const char **untrained, const char **why)
{
    *raw = *proposal = NULL;
    *untrained = *why = NULL;
    if (ends_with(o->spec, ".msgpack")) {
        if (pf_run_read(o->spec, "pinnforge.proposal", proposal) != PF_OK) return bad("%s", pf_errmsg());
        if (json_is_true(json_object_get(*proposal, "valid"))) {
            *raw = json_incref(json_object_get(*proposal, "spec"));
            return 0;
        }
        *untrained = json_is_true(json_object_get(*proposal, "skipped")) ? "skipped" : "invalid";
        *why = json_string_value(json_object_get(*proposal, "reasons"));
        if (!*why) *why = "the proposal holds no valid spec";
        return 0;
    }
    char *text;
    size_t len;
    if (pf_file_read(o->spec, &text, &len) != PF_OK) return bad("%s", pf_errmsg());
    pf_status st = pf_spec_parse(text, raw);
    free(text);
    return st == PF_OK ? 0 : bad("%s", pf_errmsg());
}

/* Validate at fidelity f within budget b; a spec whose steps fit the other
 * fidelity is accepted too and scaled. Returns 0, or 2 with the reasons
 * printed. */
static int load_spec(const opts *o, const pf_pde *p, const pf_budget *b, pf_fidelity f, json_t *raw, json_t **norm,
                     char *hash, pf_model_config *mc, pf_train_config *tc, bool *scaled)
{
    pf_spec_report *rep = malloc(sizeof *rep), *alt = malloc(sizeof *alt);
    if (!rep || !alt) return 1;
    *scaled = false;
    pf_fidelity other = f == PF_FIDELITY_LOW ? PF_FIDELITY_HIGH : PF_FIDELITY_LOW;
    pf_status st = pf_spec_check_budget(raw, p, b, f, norm, rep);
    if (st != PF_OK && pf_spec_check_budget(raw, p, b, other, norm, alt) == PF_OK) *scaled = true, st = PF_OK;
    int rc = 0;
    if (st != PF_OK) {
        fprintf(stderr, "pf-train: %s: the spec is invalid for %s:\n", o->spec, p->name);
        for (int i = 0; i < rep->n; i++) fprintf(stderr, "  %s\n", rep->reason[i]);
        rc = 2;
    } else {
        pf_spec_hash(*norm, hash);
        if (pf_spec_instantiate(*norm, p, mc, tc) != PF_OK) rc = bad("%s", pf_errmsg());
        else if (*scaled && pf_train_config_scale_steps(tc, b->steps[f]) != PF_OK)
            rc = bad("%s", pf_errmsg());
    }
    free(rep);
    free(alt);
    return rc;
}

/* ------------------------------------------------------------ result.h5 */

static pf_status write_f64(pf_h5 *f, const char *path, const double *v, int n, const char *meaning)
{
    PF_TRY(pf_h5_write_f64(f, path, v, (size_t)n));
    return pf_h5_attr_str(f, path, "meaning", meaning);
}

static pf_status write_steps(pf_h5 *f, const char *path, const long *s, int n)
{
    double *v = malloc(sizeof(double) * (size_t)n + 1);
    if (!v) return pf_fail(PF_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) v[i] = (double)s[i];
    pf_status st = write_f64(f, path, v, n, "optimizer step of each record");
    free(v);
    return st;
}

static pf_status write_h5(const char *path, const pf_pde *p, const pf_train_result *r, const char *spec_text,
                          const char *hash, const opts *o)
{
    pf_h5 *f;
    PF_TRY(pf_h5_create(path, &f));
    pf_status st = PF_OK;
#define T(x) if (st == PF_OK) st = (x)
    T(pf_h5_attr_str(f, "/", "format", "pinnforge.result"));
    T(pf_h5_attr_i64(f, "/", "version", 1));
    T(pf_h5_attr_str(f, "/", "pde", p->name));
    T(pf_h5_attr_str(f, "/", "spec", spec_text));
    T(pf_h5_attr_str(f, "/", "spec_hash", hash));
    T(pf_h5_attr_str(f, "/", "fidelity", o->fidelity));
    T(pf_h5_attr_u64(f, "/", "seed", o->seed));
    T(pf_h5_attr_str(f, "/", "status", pf_train_status_name(r->status)));
    T(pf_h5_attr_str(f, "/", "detail", r->detail));
    T(pf_h5_attr_i64(f, "/", "steps", r->steps));
    T(pf_h5_attr_str(f, "/", "precision", PF_REAL_NAME));
    int n = r->nlog, T = r->nterms;
    double *col = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!col) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    T(pf_h5_group(f, "/loss"));
    T(write_steps(f, "/loss/step", r->log_step, n));
    T(write_f64(f, "/loss/total", r->log_total, n, "weighted total loss"));
    T(pf_h5_group(f, "/loss/terms"));
    T(pf_h5_group(f, "/loss/weights"));
    for (int k = 0; st == PF_OK && k < T; k++) {
        char p1[128];
        for (int i = 0; i < n; i++) col[i] = r->log_term[i * T + k];
        snprintf(p1, sizeof p1, "/loss/terms/%s", r->term[k].name);
        T(write_f64(f, p1, col, n, "unweighted loss term"));
        for (int i = 0; i < n; i++) col[i] = r->log_weight[i * T + k];
        snprintf(p1, sizeof p1, "/loss/weights/%s", r->term[k].name);
        T(write_f64(f, p1, col, n, "the term's weight"));
    }
    T(pf_h5_write_int(f, "/loss/n_interior", r->log_interior, (size_t)n));
    T(pf_h5_group(f, "/eval"));
    T(write_steps(f, "/eval/step", r->eval_step, r->neval));
    T(write_f64(f, "/eval/mse", r->eval_mse, r->neval, "MSE on the evaluation points"));
    T(pf_h5_group(f, "/predictions"));
    if (r->n_eval) {
        T(pf_h5_write_real(f, "/predictions/x", r->x_eval, (size_t)r->n_eval, (size_t)r->d_in));
        T(pf_h5_write_real(f, "/predictions/u", r->u_eval, (size_t)r->n_eval, (size_t)r->d_out));
        T(pf_h5_write_real(f, "/predictions/u_ref", r->u_ref, (size_t)r->n_eval, (size_t)r->d_out));
    }
    T(pf_h5_group(f, "/points"));
    T(pf_h5_write_real(f, "/points/interior", r->x_interior, (size_t)r->n_interior, (size_t)r->d_in));
    T(pf_h5_group(f, "/params"));
    for (int i = 0; st == PF_OK && i < r->nparam; i++) {
        char p1[128];
        snprintf(p1, sizeof p1, "/params/%02d.%s", i, r->param[i].name);
        T(pf_h5_write_real(f, p1, r->param[i].data, (size_t)r->param[i].rows, (size_t)r->param[i].cols));
        T(pf_h5_attr_str(f, p1, "kind", r->param[i].trainable ? "trainable" : "frozen"));
    }
#undef T
    free(col);
    if (st != PF_OK) {
        pf_h5_discard(f);
        return st;
    }
    return pf_h5_close(f);
}

/* ------------------------------------------------------ evidence.msgpack */

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *evidence(const pf_pde *p, const pf_train_result *r)
{
    json_t *e = json_object();
    json_object_set_new(e, "status", json_string(pf_train_status_name(r->status)));
    json_object_set_new(e, "detail", json_string(r->detail));
    json_object_set_new(e, "steps", json_integer(r->steps));
    json_object_set_new(e, "budget", json_integer(r->budget));
    json_object_set_new(e, "loss_initial", num(r->loss_first));
    json_object_set_new(e, "loss_final", num(r->loss_last));
    json_object_set_new(e, "loss_reduction", num(r->loss_last > 0 ? r->loss_first / r->loss_last : NAN));
    json_object_set_new(e, "stagnation_steps", json_integer(r->stagnation));
    if (!isnan(r->causal_min)) json_object_set_new(e, "causal_min_weight", num(r->causal_min));
    json_t *terms = json_array();
    double gmin = INFINITY, gmax = 0;
    for (int k = 0; k < r->nterms; k++) {
        const pf_train_term *t = &r->term[k];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(t->name));
        json_object_set_new(o, "mode", json_string(t->hard ? "hard" : "soft"));
        json_object_set_new(o, "weight", num(t->weight));
        json_object_set_new(o, "loss_initial", num(t->loss_first));
        json_object_set_new(o, "loss_final", num(t->loss_last));
        json_object_set_new(o, "reduction", num(t->loss_last > 0 ? t->loss_first / t->loss_last : NAN));
        json_object_set_new(o, "grad_norm_initial", num(t->grad_first));
        json_object_set_new(o, "grad_norm_final", num(t->grad_last));
        json_array_append_new(terms, o);
        if (!t->hard && t->grad_last > 0) {
            gmin = fmin(gmin, t->grad_last);
            gmax = fmax(gmax, t->grad_last);
        }
    }
    json_object_set_new(e, "terms", terms);
    json_object_set_new(e, "grad_imbalance", num(gmax > 0 ? gmax / gmin : NAN));
    json_t *res = json_object();
    json_object_set_new(res, "mean", num(r->residual.mean));
    json_object_set_new(res, "p95", num(r->residual.p95));
    json_object_set_new(res, "max", num(r->residual.max));
    json_object_set_new(res, "points", json_integer(PF_TRAIN_EVIDENCE_POINTS));
    json_object_set_new(e, "residual", res);
    json_t *hot = json_array();
    for (int i = 0; i < r->nhot; i++) {
        json_t *h = json_object(), *lo = json_object(), *hi = json_object();
        for (int d = 0; d < p->d_in; d++) {
            json_object_set_new(lo, p->inputs[d], json_real(r->hot[i].lo[d]));
            json_object_set_new(hi, p->inputs[d], json_real(r->hot[i].hi[d]));
        }
        json_object_set_new(h, "lo", lo);
        json_object_set_new(h, "hi", hi);
        json_object_set_new(h, "mean_abs_residual", num(r->hot[i].mean_abs));
        json_object_set_new(h, "share", num(r->hot[i].share));
        json_object_set_new(h, "points", json_integer(r->hot[i].npoints));
        json_array_append_new(hot, h);
    }
    json_object_set_new(e, "hotspots", hot);
    json_t *con = json_object();
    for (int k = 1; k < r->nterms; k++) json_object_set_new(con, r->term[k].name, num(r->term[k].loss_last));
    json_object_set_new(e, "constraint_errors", con);
    json_t *stages = json_array();
    for (int i = 0; i < r->nstages; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "optimizer", json_string(pf_optimizer_kind_name(r->stage[i].optimizer)));
        json_object_set_new(s, "planned", json_integer(r->stage[i].planned));
        json_object_set_new(s, "done", json_integer(r->stage[i].done));
        json_object_set_new(s, "outcome", json_string(r->stage[i].outcome));
        json_array_append_new(stages, s);
    }
    json_object_set_new(e, "stages", stages);
    json_object_set_new(e, "steps_per_second", num(r->step_s > 0 ? r->steps / r->step_s : NAN));
    json_t *time = json_object();
    json_object_set_new(time, "wall_s", num(r->wall_s));
    json_object_set_new(time, "steps_s", num(r->step_s));
    json_object_set_new(time, "other_s", num(r->other_s));
    json_object_set_new(e, "time", time);
    json_object_set_new(e, "parameters", json_integer((json_int_t)r->nparams));
    json_t *pts = json_object();
    json_object_set_new(pts, "interior", json_integer(r->n_interior));
    json_object_set_new(pts, "initial", json_integer(r->n_initial));
    json_object_set_new(pts, "boundary", json_integer(r->n_boundary));
    json_object_set_new(pts, "observed", json_integer(r->n_observed));
    json_object_set_new(e, "points", pts);
    json_t *dev = json_object();
    json_object_set_new(dev, "backend", json_string(r->backend));
    json_object_set_new(dev, "name", json_string(r->device.name));
    json_object_set_new(dev, "memory_gib", num(r->device.memory_gib));
    json_object_set_new(dev, "steps_per_second", num(r->step_s > 0 ? r->steps / r->step_s : NAN));
    json_object_set_new(dev, "threads", json_integer(omp_get_max_threads()));
    json_object_set_new(dev, "precision", json_string(PF_REAL_NAME));
    json_object_set_new(e, "device", dev);
    return e;
}

static pf_status write_evidence(const char *path, const pf_pde *p, const pf_train_result *r,
                                const char *hash, const opts *o)
{
    json_t *top = json_object();
    json_object_set_new(top, "format", json_string("pinnforge.evidence"));
    json_object_set_new(top, "version", json_integer(1));
    if (r->has_y) json_object_set_new(top, "y", json_real(r->y));
    else json_object_set_new(top, "y_missing", json_string(r->y_missing));
    json_object_set_new(top, "status", json_string(pf_train_status_name(r->status)));
    json_object_set_new(top, "pde", json_string(p->name));
    json_object_set_new(top, "spec_hash", json_string(hash));
    json_object_set_new(top, "fidelity", json_string(o->fidelity));
    json_object_set_new(top, "budget", json_string(o->budget));
    json_object_set_new(top, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(top, "evidence", evidence(p, r));
    pf_status st = pf_msgpack_write_file(path, top);
    json_decref(top);
    return st;
}

/* The evidence of a proposal that was not trained. */
static int write_untrained(const opts *o, const pf_pde *p, const char *status, const char *why)
{
    if (mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "pf-train: cannot create '%s': %s\n", o->out, strerror(errno));
        return 1;
    }
    char mp[4096], h5[4096];
    snprintf(mp, sizeof mp, "%s/evidence.msgpack", o->out);
    snprintf(h5, sizeof h5, "%s/result.h5", o->out);
    /* result.h5 too, so both outputs exist whatever the proposal held */
    pf_h5 *f;
    pf_status hs = pf_h5_create(h5, &f);
    if (hs == PF_OK) {
        hs = pf_h5_attr_str(f, "/", "format", "pinnforge.result");
        if (hs == PF_OK) hs = pf_h5_attr_str(f, "/", "status", status);
        if (hs == PF_OK) hs = pf_h5_attr_str(f, "/", "reason", why);
        pf_status cs = pf_h5_close(f);
        if (hs == PF_OK) hs = cs;
    }
    if (hs != PF_OK) {
        fprintf(stderr, "pf-train: %s\n", pf_errmsg());
        return 1;
    }
    json_t *top = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:I}", "format", "pinnforge.evidence", "version", 1,
                            "y_missing", why, "status", status, "pde", p->name, "fidelity", o->fidelity, "budget",
                            o->budget, "seed", (json_int_t)o->seed);
    pf_status st = pf_msgpack_write_file(mp, top);
    json_decref(top);
    if (st != PF_OK) {
        fprintf(stderr, "pf-train: %s\n", pf_errmsg());
        return 1;
    }
    if (!o->quiet) fprintf(stderr, "pf-train: %s: not trained (%s); wrote %s\n", o->spec, status, mp);
    return 0;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    const pf_pde *p;
    if (pf_pdes_lookup(o.pde, &p) != PF_OK) return bad("%s", pf_errmsg());
    pf_fidelity fid;
    if (pf_fidelity_from_name(o.fidelity, &fid) != PF_OK) return bad("%s", pf_errmsg());
    const pf_budget *budget;
    if (pf_budget_lookup(o.budget, &budget) != PF_OK) return bad("%s", pf_errmsg());
    json_t *raw, *proposal;
    const char *untrained, *why;
    if ((rc = read_spec(&o, &raw, &proposal, &untrained, &why))) return rc;
    if (untrained) {
        rc = write_untrained(&o, p, untrained, why);
        json_decref(proposal);
        return rc;
    }
    if (o.threads) {
        omp_set_num_threads(o.threads);
        openblas_set_num_threads(o.threads);
    }
    json_t *norm = NULL;
    char hash[PF_SPEC_HASH_HEX];
    pf_model_config mc;
    pf_train_config tc;
    bool scaled = false;
    rc = load_spec(&o, p, budget, fid, raw, &norm, hash, &mc, &tc, &scaled);
    json_decref(raw);
    json_decref(proposal);
    if (rc) return rc;
    if (mkdir(o.out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "pf-train: cannot create '%s': %s\n", o.out, strerror(errno));
        return 1;
    }
    pf_train_options to = pf_train_options_default();
    if (pf_device_open(o.device, &to.backend) != PF_OK) {
        fprintf(stderr, "pf-train: %s\n", pf_errmsg());
        json_decref(norm);
        return 2;
    }
    to.seed = o.seed;
    to.timeout_s = o.timeout;
    progress pr = {.bar = isatty(2) && !o.every, .every = o.every};
    if (!o.quiet) {
        to.on_progress = show_progress;
        to.progress_user = &pr;
    }
    if (!o.quiet)
        fprintf(stderr, "pf-train: start %s, spec %.12s, %s fidelity (%ld steps%s), seed %llu, %zu parameters, on %s\n",
                p->name, hash, o.fidelity, pf_train_config_steps(&tc), scaled ? ", scaled" : "", o.seed,
                pf_model_config_nparams(&mc), to.backend->name);
    pf_train_result r;
    pf_status st = pf_train_run(p, &mc, &tc, &to, &r);
    if (st != PF_OK) {
        fprintf(stderr, "pf-train: %s: %s\n", p->name, pf_errmsg());
        json_decref(norm);
        return 1;
    }
    char *spec_text = pf_spec_canonical(norm);
    char h5[4096], mp[4096];
    snprintf(h5, sizeof h5, "%s/result.h5", o.out);
    snprintf(mp, sizeof mp, "%s/evidence.msgpack", o.out);
    st = write_h5(h5, p, &r, spec_text, hash, &o);
    if (st == PF_OK) st = write_evidence(mp, p, &r, hash, &o);
    if (st != PF_OK) fprintf(stderr, "pf-train: %s\n", pf_errmsg());
    else if (!o.quiet) {
        char y[64];
        if (r.has_y) snprintf(y, sizeof y, "y %.4e", r.y);
        else snprintf(y, sizeof y, "no y");
        fprintf(stderr, "pf-train: done %s: %s, %s; %s; %.1f s (%.0f steps/s); wrote %s\n", p->name,
                pf_train_status_name(r.status), y, r.detail, r.wall_s, r.step_s > 0 ? r.steps / r.step_s : 0, o.out);
    }
    free(spec_text);
    json_decref(norm);
    pf_train_result_release(&r);
    return st == PF_OK ? 0 : 1;
}
