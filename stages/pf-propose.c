/*
 * pf-propose — settle one proposal slot of a generation (docs/architecture.md,
 * "Design targets: stages, artifacts and Make").
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
 *
 * A baseline run (METHOD=vanilla|ropinn|pinnsformer; search/baseline.h) asks no one:
 * slot K of generation 0 (K < 5) is the method's own spec. A pinnsagent run
 * asks its planner once per generation 0..4 (search/pinnsagent_plan.h),
 * from PINNsAgent's run database (replay, importance scores) and the
 * earlier iterations' configurations and MSEs.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "io/msgpack_json.h"
#include "llm/provider.h"
#include "search/context.h"
#include "search/prompt.h"
#include "search/propose.h"
#include "search/artifact.h"
#include "search/baseline.h"
#include "search/pinnsagent_plan.h"

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
            "PF_LLM_RETRIES (see docs/llm.md).\n"
            "A baseline run (vanilla, ropinn or pinnsformer) has 5 slots in generation 0 and asks no\n"
            "one: each proposal is the method's spec (five independently initialized\n"
            "candidates; pf-final reports the lowest MSE). It needs no knowledge.msgpack.\n"
            "A pinnsagent run has one slot in each of generations 0..4: PINNsAgent's planner,\n"
            "asked through the same proposers (offline, http, replay) with its own prompts\n"
            "(data/prompts/pinnsagent/), from its run database ($PF_PINNSAGENT_DIR) and the\n"
            "earlier iterations; the proposal also holds the configuration (\"plan\").\n"
            "Exit codes: 0 written (valid or not), 1 failure (proposer, files), 2 bad usage.\n");
}

static int fail(const char *what)
{
    fprintf(stderr, "pf-propose: %s\n", what);
    return 1;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    long v;
    if (pf_parse_long(s, lo, hi, &v) != PF_OK) return -1;
    *out = (int)v;
    return 0;
}

/* The previous generation's Top-3 as candidates (views into sel). */
static int parents_of(const pf_select *sel, pf_candidate *par)
{
    for (int k = 0; k < sel->ntop3; k++) par[k] = sel->cand[sel->top3[k]];
    return sel->ntop3;
}

static int write_proposal(const char *out, pf_proposal_file *f)
{
    pf_status st = pf_proposal_file_write(out, f);
    pf_proposal_file_release(f);
    return st == PF_OK ? 0 : fail(pf_errmsg());
}

/* The earlier iterations of a pinnsagent run: [{"config", "mse"?, "status"}]. */
static pf_status pa_history(const pf_run *r, int g, json_t **out)
{
    *out = json_array();
    for (int i = 0; i < g; i++) {
        pf_run_candidate c;
        PF_TRY(pf_run_candidate_read(r->dir, i, 0, &c));
        json_t *e = json_pack("{s:O?, s:s}", "config", c.proposal.plan, "status", pf_candidate_status_name(c.cand.status));
        if (e && pf_candidate_ranked(&c.cand)) json_object_set_new(e, "mse", json_real(c.cand.y));
        pf_run_candidate_release(&c);
        if (!e) return pf_fail(PF_ERR_NOMEM, "out of memory");
        if (!json_object_get(e, "config")) {
            json_decref(e);
            continue; /* an iteration whose planner gave nothing valid */
        }
        json_array_append_new(*out, e);
    }
    return PF_OK;
}

/* Iteration g of a pinnsagent run: the planner's configuration. */
static int propose_pinnsagent(const pf_run *r, int g, const char *slot, const char *out, bool quiet)
{
    pf_pa_plan_in in = {.pde = r->pde, .budget = r->budget, .iteration = g};
    json_t *history = NULL, *scores = NULL, *replay = NULL, *ctx = NULL, *config = NULL;
    pf_llm_options o;
    pf_llm_provider *llm = NULL;
    char prompts[4096];
    pf_proposal pr = {0};
    pf_status st = pa_history(r, g, &history);
    if (st == PF_OK) st = pf_pa_memory(r->pde, history, &scores, g == 0 ? &replay : NULL);
    in.history = history, in.scores = scores, in.replay = replay;
    if (st == PF_OK) st = pf_pa_context(&in, &ctx);
    if (st == PF_OK) st = pf_mkdirs(r->llm_dir);
    if (st == PF_OK) st = pf_run_provider(r, &o, &llm);
    if (st == PF_OK) st = pf_prompt_dir(prompts, sizeof prompts);
    if (st == PF_OK) st = pf_pa_plan(llm, o.model, prompts, ctx, slot, &pr, &config);
    int rc = 1;
    if (st == PF_OK) {
        pf_proposal_file file;
        pf_proposal_file_init(&file, r, g, 0, false, &pr); /* takes pr's content */
        file.plan = config;
        config = NULL;
        if (!quiet)
            fprintf(stderr, "pf-propose: done %s: %s after %d call%s (%s, %ld+%ld tokens, %.2f s); wrote %s\n", slot,
                    file.call.valid ? "valid" : "INVALID", file.call.attempts, file.call.attempts == 1 ? "" : "s",
                    pf_llm_provider_describe(llm), file.call.prompt_tokens, file.call.completion_tokens,
                    file.call.latency_s, out);
        rc = write_proposal(out, &file);
    } else {
        fprintf(stderr, "pf-propose: %s: %s\n", slot, pf_errmsg());
    }
    pf_proposal_release(&pr);
    pf_llm_provider_free(llm);
    json_decref(config);
    json_decref(ctx);
    json_decref(replay);
    json_decref(scores);
    json_decref(history);
    return rc;
}

/* Slot k of a baseline run: the method's spec. */
static int propose_baseline(const pf_run *r, int k, const char *slot, const char *out, bool quiet)
{
    pf_proposal pr;
    if (pf_baseline_propose(r->method, r->pde, r->budget, &pr) != PF_OK) return fail(pf_errmsg());
    pf_proposal_file file;
    char hash[PF_SPEC_HASH_HEX];
    memcpy(hash, pr.spec_hash, sizeof hash);
    pf_proposal_file_init(&file, r, 0, k, false, &pr); /* takes pr's content */
    if (write_proposal(out, &file)) return 1;
    if (!quiet) fprintf(stderr, "pf-propose: done %s: %s spec %.12s; wrote %s\n", slot, pf_method_name(r->method), hash, out);
    return 0;
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
    pf_run r;
    if (pf_run_open(dir, &r) != PF_OK) return fail(pf_errmsg());
    if (k >= pf_run_slots(r.method, g)) {
        fprintf(stderr, "pf-propose: generation %d of a %s run has %d slots, not slot %d\n", g,
                pf_method_name(r.method), pf_run_slots(r.method, g), k);
        return 2;
    }
    char slot[64], path[4096], out[4096];
    snprintf(slot, sizeof slot, "gen%02d/%s", g, pf_run_slot_name(r.method, g, k));
    if (pf_run_path(r.dir, PF_RUN_PROPOSAL, g, k, out, sizeof out) != PF_OK ||
        pf_run_path(r.dir, PF_RUN_GENERATION, g, 0, path, sizeof path) != PF_OK)
        return fail(pf_errmsg());
    if (pf_mkdirs(path) != PF_OK) return fail(pf_errmsg());
    if (!quiet) fprintf(stderr, "pf-propose: start %s slot %s\n", r.pde->name, slot);
    if (r.method == PF_METHOD_PINNSAGENT) return propose_pinnsagent(&r, g, slot, out, quiet);
    if (pf_method_is_baseline(r.method)) return propose_baseline(&r, k, slot, out, quiet);
    if (pf_mkdirs(r.llm_dir) != PF_OK) return fail(pf_errmsg());

    pf_select *sel = NULL;
    pf_memory_file mem = {0};
    json_t *kb = NULL, *ctx = NULL;
    pf_proposal_file file;
    pf_candidate par[PF_RUN_TOP];
    pf_context_in in = {.pde = r.pde, .fidelity = PF_FIDELITY_LOW, .budget = r.budget, .method = r.method,
                        .generation = g};
    int rc = 1;
    pf_status st = PF_OK;
    if (g == 0) {
        in.role = pf_run_slot_name(r.method, g, k);
    } else {
        in.strategy = pf_run_slot_name(r.method, g, k);
        if ((st = pf_run_path(r.dir, PF_RUN_SELECT, g - 1, 0, path, sizeof path)) == PF_OK)
            st = pf_select_read(path, &sel);
        if (st == PF_OK && sel->next == PF_SELECT_STOP) {
            pf_select_free(sel);
            pf_proposal_file_init(&file, &r, g, k, false, NULL);
            if (write_proposal(out, &file)) return 1;
            if (!quiet) fprintf(stderr, "pf-propose: done %s: skipped (the search stopped); wrote %s\n", slot, out);
            return 0;
        }
        if (st == PF_OK) {
            in.escape = sel->next == PF_SELECT_ESCAPE;
            in.nparents = parents_of(sel, par);
            in.parents = par;
        }
        if (st == PF_OK && (st = pf_run_path(r.dir, PF_RUN_MEMORY, g - 1, 0, path, sizeof path)) == PF_OK &&
            (st = pf_memory_file_read(path, &mem)) == PF_OK)
            in.memory = mem.text;
    }
    if (st == PF_OK && (st = pf_run_path(r.dir, PF_RUN_KNOWLEDGE, 0, 0, path, sizeof path)) == PF_OK &&
        (st = pf_knowledge_file_read(path, &kb)) == PF_OK)
        in.knowledge = kb;
    if (st == PF_OK) st = pf_context_propose(&in, &ctx);

    pf_llm_options o;
    pf_llm_provider *llm = NULL;
    char prompts[4096];
    if (st == PF_OK) st = pf_run_provider(&r, &o, &llm);
    if (st == PF_OK) st = pf_prompt_dir(prompts, sizeof prompts);
    pf_proposal pr = {0};
    if (st == PF_OK) st = pf_propose(llm, o.model, prompts, ctx, slot, &pr);
    if (st == PF_OK) {
        pf_proposal_file_init(&file, &r, g, k, in.escape, &pr); /* takes pr's content */
        st = pf_proposal_file_write(out, &file);
        pr = file.call;
        memset(&file.call, 0, sizeof file.call);
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
    pf_memory_file_release(&mem);
    pf_select_free(sel);
    return rc;
}
