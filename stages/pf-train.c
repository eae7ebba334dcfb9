/*
 * pf-train — train one candidate spec on one PDE and write its result.h5
 * and evidence.msgpack (search/artifact.h), both atomically: a spec or a
 * proposal given with its settings, or a slot of a run, whose folder holds
 * the settings (--run; search/run.h pf_run_training_of). A proposal without
 * a valid spec is not trained, and both outputs say why. A training that
 * fails (NaN, divergence, time limit) is a result: exit 0 with its status.
 * Exit 1: the candidate could not be set up or written; 2: bad usage, an
 * unknown PDE or a spec that does not validate. `pf-train --help` says more.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/parse.h"
#include "registry.h"
#include "search/artifact.h"
#include "search/time_budget_file.h"
#include "search/train_order.h"
#include "spec/spec.h"
#include "tensor/device.h"
#include "tensor/threads.h"
#include "train/progress_show.h"
#include "train/trainer.h"

#define PF_TRAIN_MAX_THREADS 1024

typedef struct opts {
    const char *spec, *pde, *out, *fidelity, *budget, *device, *eval, *step0;
    uint64_t seed;
    int threads, quiet, every, physics_check, jobs;
    double timeout, time_limit;
    const char *run, *generation, *slot; /* --run mode */
    int g, k;                            /* --run mode: the generation (PF_RUN_HIFI) and slot */
    bool set[128];                       /* the options given, by their getopt code */
    pf_run r;                            /* --run mode: the run and the training */
    pf_run_training t;
} opts;

static void usage(FILE *to)
{
    char b[256];
    fprintf(to,
            "usage: pf-train SPEC --pde P --fidelity low|high|baseline --seed S --out DIR [--budget paper|quick|smoke]\n"
            "                [--eval paper|heldout] [--physics-check] [MACHINE...]\n"
            "       pf-train SPEC --pde P --fidelity low|high|baseline --seed S --step0 FILE.h5 [--budget B] [MACHINE...]\n"
            "       pf-train --run DIR --generation G|hifi --slot K [MACHINE...]\n"
            "MACHINE: [--device cpu|cuda|auto] [--threads T|auto] [--timeout SECONDS] [--time-limit SECONDS] [--jobs J]\n"
            "         [--progress-every N] [--quiet]\n"
            "Trains the AlgorithmSpec in SPEC (JSON; - for stdin; or a pf-propose proposal, *.proposal.msgpack,\n"
            "which names its PDE: --pde may then be left out, and one that differs is refused) on PDE P and writes\n"
            "DIR/result.h5 (loss curves per term, evaluation MSE curve, predictions at the evaluation points, final\n"
            "parameters; spec and hash as attributes) and DIR/evidence.msgpack (y = evaluation MSE, status,\n"
            "evidence). A spec written for one fidelity runs at another with every stage's steps scaled to its\n"
            "budget (paper: low 1,000, high 10,000, baseline 20,000 steps; quick: low 200, high 1,000, baseline\n"
            "1,000, and smaller limits; baseline: a candidate of METHOD=%s).\n"
            "A proposal without a valid spec is not trained: both outputs say why (status invalid or skipped).\n"
            "--eval heldout: y is the MSE on the selection half of the evaluation points and y_report on the\n"
            "report half (a fixed, stratified split); paper (default): y on all.\n"
            "--physics-check: after training, the PDE residual (RMS, max) on fresh points, twice the evaluation\n"
            "set, and each constraint's MSE on a fresh draw, in the evidence.\n"
            "--step0 FILE.h5: train nothing; set the candidate up as a training would and write step 0 to\n"
            "FILE.h5: the initial parameters, every set's points, each loss's value and weight, the total loss and\n"
            "its gradient w.r.t. every parameter (format pinnforge.step0, docs/spec.md; tests/torch_parity.py\n"
            "recomputes it in PyTorch). Not with --out, --eval, --physics-check or --run.\n"
            "--run: slot K of generation G, or of the high-fidelity stage (hifi), of the run in DIR, as make runs\n"
            "it: the proposal DIR/genGG/candK.proposal.msgpack (hifi/topK...), the outputs in DIR/genGG/candK/,\n"
            "the PDE, budget and evaluation from DIR/context.json, fidelity baseline for a baseline method, high\n"
            "for hifi, else low, seed R*100000 + G*100 + K (hifi: R*100000 + 9900 + K), --physics-check at high\n"
            "fidelity and for baselines.\n"
            "--timeout: a failure (status timeout); --time-limit: the steps stop there and the training is\n"
            "scored where it stopped (status ok, evidence time_limited and stopped_at_step). A run made with\n"
            "TIME_BUDGET gives each --run training its limit from DIR/time_budget.json (the rule in\n"
            "docs/search.md, with J trainings at once: make's -j), or on a rerun the steps it stopped at before.\n"
            "--device: where to train (default: $PF_DEVICE, else auto = cuda when this build has it and a GPU is\n"
            "visible, else cpu); the evidence records it. Progress on stderr: a bar on a terminal, else a line\n"
            "every N steps (default: a tenth of the run).\n"
            "--threads: CPU threads (default auto: under make -j, this training's job slot plus the free ones\n"
            "taken from make's jobserver, at the start and again every 0.5 s between steps (given back for a\n"
            "moment each time, so make can start a job with them), all given back at exit, for a recipe marked\n"
            "'+'; else every CPU this process may use, as its affinity mask and cgroup quota say; on a GPU, 1;\n"
            "the evidence records the counts: device.threads, threads_max, threads_mean). Idle threads sleep\n"
            "(OMP_WAIT_POLICY=passive unless the environment sets it). Results do not depend on the count.\n"
            "Exit codes: 0 trained (whatever the status: ok, nan, diverged, timeout), 1 setup or I/O failure,\n"
            "2 bad usage, unknown PDE or invalid spec.\n", pf_method_names(PF_MF_BASELINE, 0, "|", "|", b, sizeof b));
}

static int bad(const char *fmt, const char *arg)
{
    fputs("pf-train: ", stderr);
    fprintf(stderr, fmt, arg);
    return fputc('\n', stderr), 2;
}

/* --run DIR --generation G|hifi --slot K: the rest from the run (usage above). */
static int run_options(int nargs, opts *o)
{
    static const char taken[] = "pfsobEP", *const names[] = {"--pde", "--fidelity", "--seed", "--out", "--budget",
                                                              "--eval", "--physics-check"};
    for (int i = 0; taken[i]; i++)
        if (o->set[(int)taken[i]]) return bad("%s comes from the run folder with --run: leave it out", names[i]);
    if (nargs) return bad("%s", "--run takes no SPEC: the slot names its proposal");
    if (!o->run || !o->generation || !o->slot) return bad("%s", "--run, --generation and --slot go together");
    int g;
    long k;
    if (pf_run_generation_parse(o->generation, &g) != PF_OK) return bad("%s", pf_errmsg());
    if (pf_parse_long(o->slot, 0, PF_RUN_MAX_SLOTS - 1, &k) != PF_OK)
        return bad("--slot wants a slot number, not '%s'", o->slot);
    if (pf_run_open(o->run, &o->r) != PF_OK || pf_run_training_of(&o->r, g, (int)k, &o->t) != PF_OK)
        return bad("%s", pf_errmsg());
    o->spec = o->t.proposal;
    o->out = o->t.out;
    o->pde = o->r.pde->name;
    o->fidelity = pf_fidelity_name(o->t.fidelity);
    o->budget = o->r.budget->name;
    o->eval = pf_eval_mode_name(o->r.eval);
    o->seed = o->t.seed;
    o->physics_check = o->t.physics_check;
    o->g = g, o->k = (int)k;
    if (o->r.time_budget_s > 0 && o->set['L'])
        return bad("%s", "--time-limit: this run has a time budget, which sets each training's limit");
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.fidelity = "low", .budget = "paper", .threads = 0};
    static const struct option lo[] = {
        {"pde", 1, 0, 'p'},     {"fidelity", 1, 0, 'f'}, {"seed", 1, 0, 's'},
        {"out", 1, 0, 'o'},     {"threads", 1, 0, 't'},  {"timeout", 1, 0, 'T'},
        {"progress-every", 1, 0, 'e'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'}, {"budget", 1, 0, 'b'},
        {"device", 1, 0, 'd'}, {"eval", 1, 0, 'E'}, {"physics-check", 0, 0, 'P'},
        {"run", 1, 0, 'r'}, {"generation", 1, 0, 'g'}, {"slot", 1, 0, 'k'}, {"step0", 1, 0, 'S'},
        {"time-limit", 1, 0, 'L'}, {"jobs", 1, 0, 'j'},
        {0, 0, 0, 0}};
    int ch;
    long v;
    char *end;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        if (ch > 0 && ch < 128) o->set[ch] = true;
        switch (ch) {
        case 'r': o->run = optarg; break;
        case 'g': o->generation = optarg; break;
        case 'k': o->slot = optarg; break;
        case 'p': o->pde = optarg; break;
        case 'f': o->fidelity = optarg; break;
        case 'b': o->budget = optarg; break;
        case 's':
            /* the artifacts keep the seed as a signed 64-bit integer (msgpack via JSON, HDF5 read back as int64) */
            if (pf_parse_u64(optarg, INT64_MAX, &o->seed) != PF_OK)
                return bad("--seed wants an integer in 0..2^63-1, not '%s'", optarg);
            break;
        case 'o': o->out = optarg; break;
        case 'S': o->step0 = optarg; break;
        case 'd': o->device = optarg; break;
        case 'E':
            if (strcmp(optarg, "paper") && strcmp(optarg, "heldout"))
                return bad("--eval wants paper or heldout, not '%s'", optarg);
            o->eval = optarg;
            break;
        case 'P': o->physics_check = 1; break;
        case 't':
            if (strcmp(optarg, "auto") && pf_parse_long(optarg, 1, PF_TRAIN_MAX_THREADS, &v) != PF_OK)
                return bad("--threads wants auto or an integer in 1..1024, not '%s'", optarg);
            o->threads = strcmp(optarg, "auto") ? (int)v : 0; /* 0: auto */
            break;
        case 'T':
        case 'L': {
            errno = 0;
            double t = strtod(optarg, &end);
            if (errno || end == optarg || *end || !isfinite(t) || !(t > 0))
                return bad(ch == 'T' ? "--timeout wants seconds > 0, not '%s'" : "--time-limit wants seconds > 0, not '%s'",
                           optarg);
            *(ch == 'T' ? &o->timeout : &o->time_limit) = t;
            break;
        }
        case 'j':
            if (pf_parse_long(optarg, 1, 4096, &v) != PF_OK)
                return bad("--jobs wants the number of trainings at once, 1..4096, not '%s'", optarg);
            o->jobs = (int)v;
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
    if ((o->run || o->generation || o->slot) && o->step0) return bad("%s", "--step0 takes a SPEC, not --run");
    if (o->run || o->generation || o->slot) return run_options(argc - optind, o);
    if (optind + 1 != argc) return bad("%s", optind < argc ? "give exactly one SPEC file" : "SPEC is missing (see --help)");
    o->spec = argv[optind];
    if (o->step0 && (o->out || o->eval || o->physics_check))
        return bad("%s", "--step0 writes no result: leave out --out, --eval and --physics-check");
    if (!o->out && !o->step0) return bad("%s", "--out is required");
    if (!o->set['s']) return bad("%s", "--seed is required");
    return 0;
}

/* --step0 FILE: step 0 of the training written out (train/step0.h); takes
 * norm. */
static int step0(const opts *o, const pf_pde *p, json_t *norm, const pf_model_config *mc,
                 const pf_train_config *tc, pf_train_options *to)
{
    char *text = pf_spec_canonical(norm);
    json_decref(norm);
    pf_status st = text ? pf_device_open(o->device, &to->backend) : pf_fail(PF_ERR_NOMEM, "out of memory");
    to->seed = o->seed;
    if (st == PF_OK) st = pf_train_step0(p, mc, tc, to, text, o->step0);
    free(text);
    if (st != PF_OK) {
        fprintf(stderr, "pf-train: %s: %s\n", p->name, pf_errmsg());
        return 1;
    }
    if (!o->quiet)
        fprintf(stderr, "pf-train: %s: wrote step 0 (%zu parameters, seed %llu) to %s\n", p->name,
                pf_model_config_nparams(mc), (unsigned long long)o->seed, o->step0);
    return 0;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    pf_threads_passive_wait(argv, "pf-train");
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    pf_fidelity fid;
    if (pf_fidelity_from_name(o.fidelity, &fid) != PF_OK) return bad("%s", pf_errmsg());
    const pf_budget *budget;
    if (pf_budget_lookup(o.budget, &budget) != PF_OK) return bad("%s", pf_errmsg());
    pf_training_input in;
    if (pf_training_input_read(o.spec, o.pde, &in) != PF_OK) return bad("%s", pf_errmsg());
    const pf_pde *p = o.r.pde; /* --run: the run's */
    if (!p && pf_pdes_lookup(in.pde, &p) != PF_OK) {
        rc = bad("%s", pf_errmsg());
    } else if (in.untrained && o.step0) {
        rc = 2, fprintf(stderr, "pf-train: %s: no spec to set up for --step0 (%s: %s)\n", o.spec, in.untrained, in.why);
    } else if (in.untrained) {
        if (pf_training_write_untrained(o.out, p->name, in.untrained, in.why, o.fidelity, o.budget, o.seed) != PF_OK)
            rc = 1, fprintf(stderr, "pf-train: %s\n", pf_errmsg());
        else if (!o.quiet)
            fprintf(stderr, "pf-train: %s: not trained (%s); wrote %s/evidence.msgpack\n", o.spec, in.untrained, o.out);
    }
    json_t *raw = json_incref(in.spec); /* NULL when not trained */
    pf_training_input_release(&in);
    if (rc || !raw) {
        json_decref(raw);
        return rc;
    }
    json_t *norm = NULL;
    char hash[PF_SPEC_HASH_HEX];
    pf_model_config mc;
    pf_train_config tc;
    bool scaled = false;
    pf_spec_report *rep = calloc(1, sizeof *rep);
    if (!rep) {
        rc = bad("%s", "out of memory");
    } else if (pf_spec_load(raw, p, budget, fid, &norm, hash, &mc, &tc, &scaled, rep) != PF_OK) {
        rc = rep->n ? 2 : bad("%s", pf_errmsg());
        if (rep->n) fprintf(stderr, "pf-train: %s: the spec is invalid for %s:\n", o.spec, p->name);
        for (int i = 0; i < rep->n; i++) fprintf(stderr, "  %s\n", rep->reason[i]);
    }
    free(rep);
    json_decref(raw);
    if (rc) return rc;
    pf_train_options to = pf_train_options_default();
    if (o.step0) return step0(&o, p, norm, &mc, &tc, &to);
    pf_status st = pf_mkdirs(o.out);
    if (st == PF_OK && (st = pf_device_open(o.device, &to.backend)) != PF_OK) rc = 2;
    if (st == PF_OK) /* auto on a GPU: this job's own slot, no more */
        pf_threads_set(o.threads ? o.threads : strcmp(to.backend->name, "cpu") ? 1 : pf_threads_auto("pf-train"));
    pf_progress_show pr = pf_progress_show_init(o.every);
    to.seed = o.seed;
    to.timeout_s = o.timeout;
    to.time_limit_s = o.time_limit;
    pf_train_prediction pred = {0}; /* --run: the cost model of the run's earlier trainings */
    char say[256] = "";
    if (st == PF_OK) st = pf_cost_predict_training(o.run ? &o.r : NULL, o.g, p, &mc, &tc, &pred);
    if (st == PF_OK && o.run) /* a run with a time budget: the limit (search/time_budget_file.h) */
        st = pf_time_budget_apply(&o.r, o.g, o.k, hash, pred.work, pred.total_s, o.jobs, &to, say, sizeof say);
    for (char *l = say, *nl; !o.quiet && (nl = strchr(l, '\n')); l = nl + 1)
        fprintf(stderr, "pf-train: %.*s\n", (int)(nl - l), l);
    to.heldout = o.eval && !strcmp(o.eval, "heldout");
    to.physics_check = o.physics_check;
    to.on_progress = o.quiet ? NULL : pf_progress_show_event;
    to.progress_user = &pr;
    if (st == PF_OK && !o.quiet)
        fprintf(stderr, "pf-train: start %s, spec %.12s, %s fidelity (%ld steps%s), seed %llu, %zu parameters, on %s\n",
                p->name, hash, o.fidelity, pf_train_config_steps(&tc), scaled ? ", scaled" : "", (unsigned long long)o.seed,
                pf_model_config_nparams(&mc), to.backend->name);
    pf_train_result r;
    if (st == PF_OK && (st = pf_train_run(p, &mc, &tc, &to, &r)) == PF_OK) {
        r.predicted = pred;
        if (o.run) st = pf_time_budget_record(&o.r, o.g, o.k, &r);
        if (st == PF_OK) st = pf_training_write(o.out, p, &r, norm, hash, o.fidelity, o.budget, o.seed);
        char y[64] = "no y";
        if (r.has_y) snprintf(y, sizeof y, "y %.4e", r.y);
        if (st == PF_OK && !o.quiet)
            fprintf(stderr, "pf-train: done %s: %s, %s; %s; %.1f s (%.0f steps/s); wrote %s\n", p->name,
                    pf_train_status_name(r.status), y, r.detail, r.wall_s, r.step_s > 0 ? r.steps / r.step_s : 0, o.out);
        pf_train_result_release(&r);
    }
    if (st != PF_OK) fprintf(stderr, "pf-train: %s: %s\n", p->name, pf_errmsg());
    json_decref(norm);
    return st == PF_OK ? 0 : rc ? rc : 1;
}
