/*
 * pf-final — the high-fidelity end of a run (paper section 3.4).
 *
 *   pf-final --run RUN --last-generation G --hifi-proposal K
 *       writes RUN/hifi/topK.proposal.msgpack: the K-th spec of the final
 *       Global Top-3 (genGG/select.msgpack), for pf-train --fidelity high
 *       (skipped when the archive holds fewer than K+1 designs)
 *   pf-final --run RUN --last-generation G
 *       picks the lowest high-fidelity MSE among RUN/hifi/top*, and writes
 *       RUN/final.msgpack: {spec, spec_hash, hf_mse, budget, top3, ...}
 *   pf-final --run RUN --status
 *       one line: the generation reached, the best low-fidelity MSE, the
 *       Top-3, and the state (running, stopped, final with its HF MSE)
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/msgpack_json.h"
#include "search/run.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-final --run RUN --last-generation G [--hifi-proposal K] [--quiet]\n"
            "       pf-final --run RUN --status\n"
            "With --hifi-proposal K: writes RUN/hifi/topK.proposal.msgpack, the K-th design of\n"
            "the Global Top-3 after generation G (genGG/select.msgpack), for pf-train\n"
            "--fidelity high. Without: reads RUN/hifi/top0..2/evidence.msgpack, picks the\n"
            "lowest high-fidelity MSE and writes RUN/final.msgpack {spec, spec_hash, hf_mse,\n"
            "budget, top3, generations, stop_reason, ...}; budget counts optimizer steps\n"
            "(low and high fidelity), wall time per stage, and LLM calls and tokens.\n"
            "With --status: one line about the run (generation reached, best low-fidelity\n"
            "MSE, Top-3, state).\n"
            "Exit codes: 0 written, 1 failure (files, no high-fidelity MSE), 2 bad usage.\n");
}

static int fail(void)
{
    fprintf(stderr, "pf-final: %s\n", pf_errmsg());
    return 1;
}

static pf_status hifi_proposal(const pf_run *r, const json_t *sel, int k, bool quiet)
{
    char dir[4096], out[4200];
    snprintf(dir, sizeof dir, "%s/hifi", r->dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return pf_fail(PF_ERR_IO, "cannot create '%s': %s", dir, strerror(errno));
    snprintf(out, sizeof out, "%s/top%d.proposal.msgpack", dir, k);
    json_t *t = json_array_get(json_object_get(sel, "top3"), (size_t)k);
    json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:s}", "format", "pinnforge.proposal", "version", 1, "pde",
                          r->pde->name, "index", k, "slot", "hifi");
    json_object_set_new(o, "valid", json_boolean(t != NULL));
    json_object_set_new(o, "skipped", json_boolean(t == NULL));
    if (t) {
        json_object_set(o, "spec", json_object_get(t, "spec"));
        json_object_set(o, "spec_hash", json_object_get(t, "spec_hash"));
        json_object_set(o, "low_fidelity_y", json_object_get(t, "y"));
    } else {
        json_object_set_new(o, "reasons", json_string("the Global Top-3 holds fewer designs"));
    }
    pf_status st = pf_msgpack_write_file(out, o);
    json_decref(o);
    if (st == PF_OK && !quiet) fprintf(stderr, "pf-final: wrote %s (%s)\n", out, t ? "Top-3 design" : "skipped");
    return st;
}

typedef struct tally {
    long steps_low, steps_high, calls, prompt_tokens, completion_tokens, candidates, invalid;
    double wall_low, wall_high, llm_s;
} tally;

static void add_usage(tally *t, const json_t *doc, long calls)
{
    json_t *u = json_object_get(doc, "usage");
    if (!u) return;
    t->calls += calls;
    t->prompt_tokens += (long)json_integer_value(json_object_get(u, "prompt_tokens"));
    t->completion_tokens += (long)json_integer_value(json_object_get(u, "completion_tokens"));
    t->llm_s += json_number_value(json_object_get(doc, "latency_s"));
}

static void add_training(const json_t *ev, long *steps, double *wall)
{
    json_t *e = json_object_get(ev, "evidence");
    *steps += (long)json_integer_value(json_object_get(e, "steps"));
    *wall += json_number_value(json_object_get(json_object_get(e, "time"), "wall_s"));
}

/* Everything the run spent, from the artifacts of generations 0..G. */
static void count(const pf_run *r, int last, tally *t, int *generations)
{
    memset(t, 0, sizeof *t);
    *generations = 0;
    char path[4096];
    for (int g = 0; g <= last; g++) {
        bool ran = false;
        for (int k = 0; k < pf_run_slots(g); k++) {
            json_t *p = NULL, *ev = NULL;
            if (pf_run_path(r->dir, "proposal", g, k, path, sizeof path) != PF_OK ||
                pf_run_read(path, "pinnforge.proposal", &p) != PF_OK)
                continue;
            if (!json_is_true(json_object_get(p, "skipped"))) {
                ran = true;
                t->candidates++;
                t->invalid += !json_is_true(json_object_get(p, "valid"));
                add_usage(t, p, (long)json_integer_value(json_object_get(p, "attempts")));
            }
            if (pf_run_path(r->dir, "evidence", g, k, path, sizeof path) == PF_OK &&
                pf_run_read(path, "pinnforge.evidence", &ev) == PF_OK)
                add_training(ev, &t->steps_low, &t->wall_low);
            json_decref(p);
            json_decref(ev);
        }
        *generations += ran;
        json_t *m = NULL;
        if (pf_run_path(r->dir, "memory", g, 0, path, sizeof path) == PF_OK &&
            pf_run_read(path, "pinnforge.memory", &m) == PF_OK && ran)
            add_usage(t, m, 1);
        json_decref(m);
    }
}

static pf_status final(const pf_run *r, int last, const json_t *sel, bool quiet)
{
    tally t;
    int generations;
    count(r, last, &t, &generations);
    json_t *top = json_array(), *best = NULL;
    double best_y = INFINITY;
    size_t n = json_array_size(json_object_get(sel, "top3"));
    char path[4096];
    for (size_t k = 0; k < n; k++) {
        json_t *lo = json_array_get(json_object_get(sel, "top3"), k), *ev = NULL;
        snprintf(path, sizeof path, "%s/hifi/top%zu/evidence.msgpack", r->dir, k);
        pf_status st = pf_run_read(path, "pinnforge.evidence", &ev);
        if (st != PF_OK) {
            json_decref(top);
            return st;
        }
        add_training(ev, &t.steps_high, &t.wall_high);
        json_t *y = json_object_get(ev, "y");
        const char *status = json_string_value(json_object_get(ev, "status"));
        json_t *e = json_pack("{s:O, s:O, s:O, s:s, s:O}", "spec_hash", json_object_get(lo, "spec_hash"), "y_low",
                              json_object_get(lo, "y"), "y_high", y ? y : json_null(), "status", status ? status : "?",
                              "seed", json_object_get(ev, "seed"));
        json_array_append_new(top, e);
        if (status && !strcmp(status, "ok") && json_is_number(y) && json_number_value(y) < best_y) {
            best_y = json_number_value(y);
            best = lo;
        }
        json_decref(ev);
    }
    if (!best) {
        json_decref(top);
        return pf_fail(PF_ERR_INVALID, "no high-fidelity candidate of %s ended ok with an MSE: nothing to select", r->dir);
    }
    json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:i, s:s}", "format", "pinnforge.final", "version", 1, "pde",
                          r->pde->name, "method", pf_method_name(r->method), "run", r->run, "profile", r->budget->name);
    json_object_set(o, "spec", json_object_get(best, "spec"));
    json_object_set(o, "spec_hash", json_object_get(best, "spec_hash"));
    json_object_set_new(o, "hf_mse", json_real(best_y));
    json_object_set(o, "lf_mse", json_object_get(best, "y"));
    json_object_set(o, "found_in", json_object_get(best, "slot"));
    json_object_set_new(o, "top3", top);
    json_object_set_new(o, "generations", json_integer(generations));
    json_object_set(o, "stop_reason", json_object_get(sel, "reason"));
    json_object_set_new(o, "budget",
                        json_pack("{s:{s:I, s:I}, s:{s:f, s:f, s:f}, s:{s:I, s:I, s:I}, s:I, s:I}", "optimizer_steps",
                                  "low_fidelity", (json_int_t)t.steps_low, "high_fidelity", (json_int_t)t.steps_high,
                                  "wall_s", "low_fidelity", t.wall_low, "high_fidelity", t.wall_high, "llm", t.llm_s,
                                  "llm", "calls", (json_int_t)t.calls, "prompt_tokens", (json_int_t)t.prompt_tokens,
                                  "completion_tokens", (json_int_t)t.completion_tokens, "candidates",
                                  (json_int_t)t.candidates, "invalid", (json_int_t)t.invalid));
    snprintf(path, sizeof path, "%s/final.msgpack", r->dir);
    pf_status st = pf_msgpack_write_file(path, o);
    json_decref(o);
    if (st == PF_OK && !quiet)
        fprintf(stderr, "pf-final: %s run %d: high-fidelity MSE %.4e (spec %.12s), %d generations, %ld + %ld steps, "
                        "%ld LLM calls; wrote %s\n",
                r->pde->name, r->run, best_y, json_string_value(json_object_get(best, "spec_hash")), generations,
                t.steps_low, t.steps_high, t.calls, path);
    return st;
}

/* One line about a run, from whatever artifacts exist. */
static int status(const char *dir)
{
    pf_run r;
    if (pf_run_open(dir, &r) != PF_OK) return fail();
    char path[4096];
    json_t *last;
    int reached;
    if (pf_run_last_select(r.dir, &last, &reached) != PF_OK) return fail();
    printf("%-40s ", dir);
    if (!last) {
        printf("no generation completed yet\n");
        return 0;
    }
    printf("gen %02d  top-3", reached);
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(last, "top3"), i, t) printf(" %.3e", json_number_value(json_object_get(t, "y")));
    json_t *fin = NULL;
    snprintf(path, sizeof path, "%s/final.msgpack", dir);
    const char *next = json_string_value(json_object_get(last, "next"));
    if (pf_run_read(path, "pinnforge.final", &fin) == PF_OK)
        printf("  final: HF MSE %.3e\n", json_number_value(json_object_get(fin, "hf_mse")));
    else if (next && !strcmp(next, "stop"))
        printf("  stopped (%s); high fidelity pending\n", json_string_value(json_object_get(last, "reason")));
    else
        printf("  running (next: %s)\n", next ? next : "?");
    json_decref(fin);
    json_decref(last);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"run", 1, 0, 'r'},   {"last-generation", 1, 0, 'g'}, {"hifi-proposal", 1, 0, 'k'},
                                       {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},            {"status", 0, 0, 's'},
                                       {0, 0, 0, 0}};
    const char *dir = NULL;
    int g = -1, k = -1, quiet = 0, want_status = 0, ch;
    char *end;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': dir = optarg; break;
        case 'g':
        case 'k': {
            long v = strtol(optarg, &end, 10);
            if (*end || !*optarg || v < 0 || v > 99)
                return fprintf(stderr, "pf-final: %s wants 0..99, not '%s'\n", ch == 'g' ? "--last-generation" : "--hifi-proposal", optarg), 2;
            *(ch == 'g' ? &g : &k) = (int)v;
            break;
        }
        case 'q': quiet = 1; break;
        case 's': want_status = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (want_status && dir && optind == argc) return status(dir);
    if (!dir || g < 0 || optind != argc) {
        fprintf(stderr, "pf-final: --run and --last-generation are required (see --help)\n");
        return 2;
    }
    if (k >= PF_RUN_TOP) return fprintf(stderr, "pf-final: --hifi-proposal wants 0..%d\n", PF_RUN_TOP - 1), 2;
    pf_run r;
    char path[4096];
    json_t *sel;
    if (pf_run_open(dir, &r) != PF_OK || pf_run_path(r.dir, "select", g, 0, path, sizeof path) != PF_OK ||
        pf_run_read(path, "pinnforge.select", &sel) != PF_OK)
        return fail();
    pf_status st = k >= 0 ? hifi_proposal(&r, sel, k, quiet) : final(&r, g, sel, quiet);
    json_decref(sel);
    return st == PF_OK ? 0 : fail();
}
