/*
 * pf-train — train one candidate spec on one PDE and write its result and
 * evidence (docs/architecture.md, "Design targets:
 * training one candidate and its evidence").
 *
 *   pf-train SPEC --pde P --fidelity low|high|baseline --seed S --out DIR [--budget paper|quick|smoke]
 *
 * SPEC is a spec (JSON) or a proposal (pf-propose's candK.proposal.msgpack);
 * a proposal names its PDE, and --pde, when given, must agree.
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
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/parse.h"
#include "core/status.h"
#include "io/msgpack_json.h"
#include "registry.h"
#include "search/artifact.h"
#include "spec/spec.h"
#include "tensor/device.h"
#include "train/trainer.h"

extern void openblas_set_num_threads(int);

#define PF_TRAIN_MAX_THREADS 1024

typedef struct opts {
    const char *spec, *pde, *out, *fidelity, *budget, *device, *eval;
    int physics_check;
    uint64_t seed;
    int threads, quiet, every;
    double timeout;
} opts;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-train SPEC --pde P --fidelity low|high|baseline --seed S --out DIR [--budget paper|quick|smoke]\n"
            "                [--device cpu|cuda|auto] [--threads T] [--timeout SECONDS]\n"
            "                [--progress-every N] [--quiet] [--eval paper|heldout] [--physics-check]\n"
            "Trains the AlgorithmSpec in SPEC (JSON; - for stdin; or a pf-propose proposal,\n"
            "*.proposal.msgpack) on PDE P and writes (a proposal names its PDE: --pde may\n"
            "then be left out, and one that differs is refused)\n"
            "DIR/result.h5 (loss curves per term, evaluation MSE curve, predictions at the\n"
            "evaluation points, final parameters; spec and hash as attributes) and\n"
            "DIR/evidence.msgpack (y = evaluation MSE, status, evidence). A spec written for\n"
            "one fidelity runs at another with every stage's steps scaled to its budget\n"
            "(paper: low 1,000, high 10,000, baseline 20,000 steps; quick: low 200, high\n"
            "1,000, baseline 1,000, and smaller limits; baseline is one candidate of a\n"
            "baseline method, METHOD=vanilla|ropinn|pinnsformer|pinnsagent). A proposal without a valid spec is not trained: evidence.msgpack and\n"
            "result.h5 say why (status invalid or skipped). Progress: a bar on a terminal, else a line\n"
            "every N steps (default: a tenth of the run) on stderr.\n"
            "--eval heldout: y is the MSE on the selection half of the evaluation points and\n"
            "y_report on the report half (a fixed, stratified split); paper (default): y on all.\n"
            "--physics-check: after training, the PDE residual (RMS, max) on fresh points, twice\n"
            "the evaluation set, and each constraint's MSE on a fresh draw, in the evidence.\n"
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
        {"device", 1, 0, 'd'}, {"eval", 1, 0, 'E'}, {"physics-check", 0, 0, 'P'},
        {0, 0, 0, 0}};
    int ch;
    bool seed = false;
    char *end;
    long v;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'p': o->pde = optarg; break;
        case 'f': o->fidelity = optarg; break;
        case 'b': o->budget = optarg; break;
        case 's':
            /* the artifacts keep the seed as a signed 64-bit integer (msgpack via JSON, HDF5 read back as int64) */
            if (pf_parse_u64(optarg, INT64_MAX, &o->seed) != PF_OK)
                return bad("--seed wants an integer in 0..2^63-1, not '%s'", optarg);
            seed = true;
            break;
        case 'o': o->out = optarg; break;
        case 'd': o->device = optarg; break;
        case 'E':
            if (strcmp(optarg, "paper") && strcmp(optarg, "heldout"))
                return bad("--eval wants paper or heldout, not '%s'", optarg);
            o->eval = optarg;
            break;
        case 'P': o->physics_check = 1; break;
        case 't':
            if (pf_parse_long(optarg, 1, PF_TRAIN_MAX_THREADS, &v) != PF_OK)
                return bad("--threads wants an integer in 1..1024, not '%s'", optarg);
            o->threads = (int)v;
            break;
        case 'T':
            errno = 0;
            o->timeout = strtod(optarg, &end);
            if (errno || end == optarg || *end || !isfinite(o->timeout) || !(o->timeout > 0))
                return bad("--timeout wants seconds > 0, not '%s'", optarg);
            break;
        case 'e':
            if (pf_parse_long(optarg, 1, INT_MAX, &v) != PF_OK)
                return bad("--progress-every wants an integer in 1..2147483647, not '%s'", optarg);
            o->every = (int)v;
            break;
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout); return -1;
        default: usage(stderr); return 2;
        }
    }
    if (optind + 1 != argc) return bad("%s", optind < argc ? "give exactly one SPEC file" : "SPEC is missing (see --help)");
    o->spec = argv[optind];
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

/* The raw spec in o->spec: JSON, or the spec of a proposal (msgpack),
 * whose PDE then names the problem (--pde may repeat it, never contradict
 * it). A proposal without a valid spec sets *untrained to its status and
 * *why to the reason (both owned by *prop, which the caller releases). */
static int read_spec(opts *o, json_t **raw, pf_proposal_file *prop, const char **untrained, const char **why)
{
    *raw = NULL;
    *untrained = *why = NULL;
    memset(prop, 0, sizeof *prop);
    if (ends_with(o->spec, ".msgpack")) {
        if (pf_proposal_file_read(o->spec, prop) != PF_OK) return bad("%s", pf_errmsg());
        /* --pde may be a .pde file's path; a proposal records the name it declares */
        const pf_pde *p;
        const char *named = o->pde && pf_pdes_lookup(o->pde, &p) == PF_OK ? p->name : o->pde;
        if (named && strcmp(named, prop->pde)) {
            fprintf(stderr, "pf-train: %s is a proposal for PDE '%s', not '%s' (--pde)\n", o->spec, prop->pde, o->pde);
            return 2;
        }
        if (!o->pde) o->pde = prop->pde;
        if (prop->call.valid) {
            *raw = json_incref(prop->call.spec);
            return 0;
        }
        *untrained = prop->skipped ? "skipped" : "invalid";
        *why = prop->call.reasons ? prop->call.reasons : "the proposal holds no valid spec";
        return 0;
    }
    if (!o->pde) return bad("%s", "--pde is required (a proposal names its PDE; a JSON spec does not)");
    char *text;
    size_t len;
    if (pf_file_read_as(o->spec, PF_FILE_SPEC, &text, &len) != PF_OK) return bad("%s", pf_errmsg());
    pf_status st = pf_spec_parse(text, raw);
    free(text);
    return st == PF_OK ? 0 : bad("%s", pf_errmsg());
}

static pf_status out_path(const opts *o, const char *name, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s/%s", o->out, name);
    return n >= 0 && (size_t)n < cap ? PF_OK : pf_fail(PF_ERR_INVALID, "--out '%s' is too long", o->out);
}

/* pf_spec_load (spec/spec.h): 0, or 2 with the reasons printed, 1 on
 * another failure. */
static int load_spec(const opts *o, const pf_pde *p, const pf_budget *b, pf_fidelity f, json_t *raw, json_t **norm,
                     char *hash, pf_model_config *mc, pf_train_config *tc, bool *scaled)
{
    pf_spec_report *rep = malloc(sizeof *rep);
    if (!rep) return bad("%s", "out of memory");
    rep->n = 0;
    int rc = 0;
    if (pf_spec_load(raw, p, b, f, norm, hash, mc, tc, scaled, rep) != PF_OK) {
        if (rep->n) {
            fprintf(stderr, "pf-train: %s: the spec is invalid for %s:\n", o->spec, p->name);
            for (int i = 0; i < rep->n; i++) fprintf(stderr, "  %s\n", rep->reason[i]);
            rc = 2;
        } else {
            rc = bad("%s", pf_errmsg());
        }
    }
    free(rep);
    return rc;
}

/* The evidence and result.h5 of a proposal that was not trained. */
static int write_untrained(const opts *o, const char *pde, const char *status, const char *why)
{
    char mp[4096], h5[4096];
    pf_evidence_file ev;
    pf_status st = pf_mkdirs(o->out);
    if (st == PF_OK) st = out_path(o, "evidence.msgpack", mp, sizeof mp);
    if (st == PF_OK) st = out_path(o, "result.h5", h5, sizeof h5);
    /* result.h5 too, so both outputs exist whatever the proposal held */
    if (st == PF_OK) st = pf_result_write_untrained(h5, status, why);
    if (st == PF_OK && (st = pf_evidence_file_init_untrained(&ev, pde, status, why, o->fidelity, o->budget, o->seed)) == PF_OK) {
        st = pf_evidence_file_write(mp, &ev);
        pf_evidence_file_release(&ev);
    }
    if (st != PF_OK) {
        fprintf(stderr, "pf-train: %s\n", pf_errmsg());
        return 1;
    }
    if (!o->quiet) fprintf(stderr, "pf-train: %s: not trained (%s); wrote %s\n", o->spec, status, mp);
    return 0;
}

/* Both outputs of a finished training, each written atomically. */
static pf_status write_outputs(const opts *o, const pf_pde *p, const pf_train_result *r, const json_t *norm,
                               const char *hash)
{
    char h5[4096], mp[4096];
    PF_TRY(out_path(o, "result.h5", h5, sizeof h5));
    PF_TRY(out_path(o, "evidence.msgpack", mp, sizeof mp));
    char *spec_text = pf_spec_canonical(norm);
    if (!spec_text) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = pf_result_write(h5, p, r, spec_text, hash, o->fidelity, o->seed);
    free(spec_text);
    pf_evidence_file ev;
    if (st == PF_OK && (st = pf_evidence_file_init(&ev, p, r, hash, o->fidelity, o->budget, o->seed)) == PF_OK) {
        st = pf_evidence_file_write(mp, &ev);
        pf_evidence_file_release(&ev);
    }
    return st;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    pf_fidelity fid;
    if (pf_fidelity_from_name(o.fidelity, &fid) != PF_OK) return bad("%s", pf_errmsg());
    const pf_budget *budget;
    if (pf_budget_lookup(o.budget, &budget) != PF_OK) return bad("%s", pf_errmsg());
    json_t *raw;
    pf_proposal_file prop;
    const char *untrained, *why;
    if ((rc = read_spec(&o, &raw, &prop, &untrained, &why))) {
        pf_proposal_file_release(&prop);
        return rc;
    }
    const pf_pde *p;
    if (pf_pdes_lookup(o.pde, &p) != PF_OK) {
        rc = bad("%s", pf_errmsg());
    } else if (untrained) {
        rc = write_untrained(&o, p->name, untrained, why);
    }
    pf_proposal_file_release(&prop); /* o.pde is p->name from here on */
    if (rc || untrained) {
        json_decref(raw);
        return rc;
    }
    o.pde = p->name;
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
    if (rc) return rc;
    if (pf_mkdirs(o.out) != PF_OK) {
        fprintf(stderr, "pf-train: %s\n", pf_errmsg());
        json_decref(norm);
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
    to.heldout = o.eval && !strcmp(o.eval, "heldout");
    to.physics_check = o.physics_check;
    progress pr = {.bar = isatty(2) && !o.every, .every = o.every};
    if (!o.quiet) {
        to.on_progress = show_progress;
        to.progress_user = &pr;
    }
    if (!o.quiet)
        fprintf(stderr, "pf-train: start %s, spec %.12s, %s fidelity (%ld steps%s), seed %llu, %zu parameters, on %s\n",
                p->name, hash, o.fidelity, pf_train_config_steps(&tc), scaled ? ", scaled" : "", (unsigned long long)o.seed,
                pf_model_config_nparams(&mc), to.backend->name);
    pf_train_result r;
    pf_status st = pf_train_run(p, &mc, &tc, &to, &r);
    if (st != PF_OK) {
        fprintf(stderr, "pf-train: %s: %s\n", p->name, pf_errmsg());
        json_decref(norm);
        return 1;
    }
    st = write_outputs(&o, p, &r, norm, hash);
    if (st != PF_OK) fprintf(stderr, "pf-train: %s\n", pf_errmsg());
    else if (!o.quiet) {
        char y[64];
        if (r.has_y) snprintf(y, sizeof y, "y %.4e", r.y);
        else snprintf(y, sizeof y, "no y");
        fprintf(stderr, "pf-train: done %s: %s, %s; %s; %.1f s (%.0f steps/s); wrote %s\n", p->name,
                pf_train_status_name(r.status), y, r.detail, r.wall_s, r.step_s > 0 ? r.steps / r.step_s : 0, o.out);
    }
    json_decref(norm);
    pf_train_result_release(&r);
    return st == PF_OK ? 0 : 1;
}
