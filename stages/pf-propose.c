/*
 * pf-propose — settle one proposal slot of a generation (design.md section 8).
 *
 *   pf-propose --run RUN --generation G --slot K
 *
 * reads RUN/context.json, RUN/knowledge.msgpack and, for G >= 1, the
 * previous generation's select.msgpack (Global Top-3, escape flag) and
 * memory.msgpack (M_{G-1}); asks the proposer (the run's llm setting) for
 * slot K — role K at generation 0, strategy K later — with up to three
 * re-asks, stores every call under RUN/llm/, and writes
 * RUN/genGG/candK.proposal.msgpack atomically. After a stop decision the
 * proposal is written as skipped without asking anyone.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "llm/provider.h"
#include "search/context.h"
#include "search/prompt.h"
#include "search/propose.h"
#include "search/run.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-propose --run RUN --generation G --slot K [--quiet]\n"
            "Asks the run's proposer for one AlgorithmSpec: generation 0 has 8 slots (the\n"
            "roles robust_reference ... cross_component_novelty), later generations 5 (the\n"
            "strategies refine, physics_guided, architecture_guided, synthesis, novelty).\n"
            "Reads RUN/context.json, RUN/knowledge.msgpack and, from generation 1, the\n"
            "previous generation's select.msgpack and memory.msgpack. Writes\n"
            "RUN/genGG/candK.proposal.msgpack: {valid, spec, spec_hash, rationale, reasons,\n"
            "attempts, requests, usage, latency_s, provider, ...}; every call is stored in\n"
            "RUN/llm/. The proposer comes from the run's \"llm\" setting (offline, http,\n"
            "replay, auto) and PF_LLM_URL, PF_LLM_MODEL, PF_LLM_API_KEY, PF_LLM_TIMEOUT,\n"
            "PF_LLM_RETRIES (see the README).\n"
            "Exit codes: 0 written (valid or not), 1 failure (proposer, files), 2 bad usage.\n");
}

static int fail(const char *what)
{
    fprintf(stderr, "pf-propose: %s\n", what);
    return 1;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || !*s || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* Whether a select.msgpack decided `what` for the next generation. */
static bool next_is(const json_t *sel, const char *what)
{
    const char *n = json_string_value(json_object_get(sel, "next"));
    return n && !strcmp(n, what);
}

/* The previous generation's Top-3 as candidates (views into sel). */
static int parents_of(const json_t *sel, pf_candidate *par)
{
    json_t *top = json_object_get(sel, "top3");
    int n = 0;
    size_t i;
    json_t *t;
    json_array_foreach(top, i, t) {
        if (n == PF_RUN_TOP) break;
        json_t *y = json_object_get(t, "y");
        par[n++] = (pf_candidate){.generation = (int)json_integer_value(json_object_get(t, "generation")),
                                  .slot = json_string_value(json_object_get(t, "slot")),
                                  .spec_hash = json_string_value(json_object_get(t, "spec_hash")),
                                  .spec = json_object_get(t, "spec"), .has_y = json_is_number(y),
                                  .y = json_number_value(y), .status = "ok",
                                  .evidence = json_object_get(t, "evidence")};
    }
    return n;
}

static json_t *proposal_json(const pf_run *r, int g, int k, const char *slot, bool escape, const pf_proposal *pr)
{
    json_t *o = json_object();
    json_object_set_new(o, "format", json_string("pinnforge.proposal"));
    json_object_set_new(o, "version", json_integer(1));
    json_object_set_new(o, "pde", json_string(r->pde->name));
    json_object_set_new(o, "method", json_string(pf_method_name(r->method)));
    json_object_set_new(o, "generation", json_integer(g));
    json_object_set_new(o, "index", json_integer(k));
    json_object_set_new(o, "slot", json_string(slot));
    json_object_set_new(o, g == 0 ? "role" : "strategy", json_string(pf_run_slot_name(g, k)));
    json_object_set_new(o, "escape", json_boolean(escape));
    json_object_set_new(o, "valid", json_boolean(pr && pr->valid));
    json_object_set_new(o, "skipped", json_boolean(pr == NULL));
    if (!pr) {
        json_object_set_new(o, "reasons", json_string("the search stopped before this generation"));
        return o;
    }
    if (pr->valid) {
        json_object_set_new(o, "spec", json_incref(pr->spec));
        json_object_set_new(o, "spec_hash", json_string(pr->spec_hash));
        json_object_set_new(o, "rationale", json_string(pr->rationale ? pr->rationale : ""));
    } else {
        json_object_set_new(o, "reasons", json_string(pr->reasons ? pr->reasons : ""));
    }
    json_object_set_new(o, "attempts", json_integer(pr->attempts));
    json_t *req = json_array();
    for (int i = 0; i < pr->attempts; i++) json_array_append_new(req, json_string(pr->request[i]));
    json_object_set_new(o, "requests", req);
    json_object_set_new(o, "usage", json_pack("{s:I, s:I}", "prompt_tokens", (json_int_t)pr->prompt_tokens,
                                              "completion_tokens", (json_int_t)pr->completion_tokens));
    json_object_set_new(o, "latency_s", json_real(pr->latency_s));
    json_object_set_new(o, "provider", json_string(pr->provider));
    return o;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"run", 1, 0, 'r'},   {"generation", 1, 0, 'g'}, {"slot", 1, 0, 'k'},
                                       {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},       {0, 0, 0, 0}};
    const char *dir = NULL;
    int g = -1, k = -1, quiet = 0, ch;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': dir = optarg; break;
        case 'g':
            if (parse_int(optarg, 0, 99, &g)) return fprintf(stderr, "pf-propose: --generation wants 0..99, not '%s'\n", optarg), 2;
            break;
        case 'k':
            if (parse_int(optarg, 0, 99, &k)) return fprintf(stderr, "pf-propose: --slot wants 0..99, not '%s'\n", optarg), 2;
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!dir || g < 0 || k < 0 || optind != argc) {
        fprintf(stderr, "pf-propose: --run, --generation and --slot are required (see --help)\n");
        return 2;
    }
    if (k >= pf_run_slots(g)) {
        fprintf(stderr, "pf-propose: generation %d has %d slots (0..%d), not %d\n", g, pf_run_slots(g),
                pf_run_slots(g) - 1, k);
        return 2;
    }
    pf_run r;
    if (pf_run_open(dir, &r) != PF_OK) return fail(pf_errmsg());
    char slot[64], path[4096], out[4096];
    snprintf(slot, sizeof slot, "gen%02d/%s", g, pf_run_slot_name(g, k));
    if (pf_run_path(r.dir, "proposal", g, k, out, sizeof out) != PF_OK) return fail(pf_errmsg());
    snprintf(path, sizeof path, "%s/gen%02d", r.dir, g);
    if (pf_mkdirs(path) != PF_OK || pf_mkdirs(r.llm_dir) != PF_OK) return fail(pf_errmsg());
    if (!quiet) fprintf(stderr, "pf-propose: start %s slot %s\n", r.pde->name, slot);

    json_t *sel = NULL, *mem = NULL, *kb = NULL, *ctx = NULL;
    pf_candidate par[PF_RUN_TOP];
    pf_context_in in = {.pde = r.pde, .fidelity = PF_FIDELITY_LOW, .budget = r.budget, .method = r.method,
                        .generation = g};
    int rc = 1;
    pf_status st = PF_OK;
    if (g == 0) {
        in.role = pf_run_slot_name(g, k);
    } else {
        in.strategy = pf_run_slot_name(g, k);
        if ((st = pf_run_path(r.dir, "select", g - 1, 0, path, sizeof path)) == PF_OK)
            st = pf_run_read(path, "pinnforge.select", &sel);
        if (st == PF_OK && next_is(sel, "stop")) {
            json_t *o = proposal_json(&r, g, k, slot, false, NULL);
            st = pf_msgpack_write_file(out, o);
            json_decref(o);
            json_decref(sel);
            if (st != PF_OK) return fail(pf_errmsg());
            if (!quiet) fprintf(stderr, "pf-propose: done %s: skipped (the search stopped); wrote %s\n", slot, out);
            return 0;
        }
        if (st == PF_OK) {
            in.escape = next_is(sel, "escape");
            in.nparents = parents_of(sel, par);
            in.parents = par;
        }
        if (st == PF_OK && (st = pf_run_path(r.dir, "memory", g - 1, 0, path, sizeof path)) == PF_OK &&
            (st = pf_run_read(path, "pinnforge.memory", &mem)) == PF_OK)
            in.memory = json_string_value(json_object_get(mem, "text"));
    }
    if (st == PF_OK) {
        snprintf(path, sizeof path, "%s/knowledge.msgpack", r.dir);
        if ((st = pf_run_read(path, "pinnforge.knowledge", &kb)) == PF_OK) in.knowledge = json_object_get(kb, "entries");
    }
    if (st == PF_OK) st = pf_context_propose(&in, &ctx);

    pf_llm_options o;
    pf_llm_provider *llm = NULL;
    char prompts[4096];
    if (st == PF_OK) st = pf_run_provider(&r, &o, &llm);
    if (st == PF_OK) st = pf_prompt_dir(prompts, sizeof prompts);
    pf_proposal pr = {0};
    if (st == PF_OK) st = pf_propose(llm, o.model, prompts, ctx, slot, &pr);
    if (st == PF_OK) {
        json_t *doc = proposal_json(&r, g, k, slot, in.escape, &pr);
        st = pf_msgpack_write_file(out, doc);
        json_decref(doc);
    }
    if (st == PF_OK) {
        rc = 0;
        if (!quiet)
            fprintf(stderr, "pf-propose: done %s: %s after %d call%s (%s, %ld+%ld tokens, %.2f s); wrote %s\n", slot,
                    pr.valid ? "valid" : "INVALID", pr.attempts, pr.attempts == 1 ? "" : "s",
                    pf_llm_provider_describe(llm), pr.prompt_tokens, pr.completion_tokens, pr.latency_s, out);
    } else {
        fprintf(stderr, "pf-propose: %s: %s\n", slot, pf_errmsg());
    }
    pf_proposal_release(&pr);
    pf_llm_provider_free(llm);
    json_decref(ctx);
    json_decref(kb);
    json_decref(mem);
    json_decref(sel);
    return rc;
}
