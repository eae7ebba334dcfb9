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
 * A fixed-spec baseline run (a row of llm/methods.def flagged baseline and
 * not LLM; search/baseline.h) asks no one:
 * slot K of generation 0 (K < 5) is the method's own spec. A pinnsagent run
 * asks its planner once per generation 0..4 (pinnsagent/plan.h),
 * from PINNsAgent's run database (replay, importance scores) and the
 * earlier iterations' configurations and MSEs.
 *
 * Which of these a run does is its method's hook, the last column of
 * llm/methods.def; this stage expands it, since the hooks live in two
 * layers (search/slot.h, pinnsagent/slot.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "io/msgpack_json.h"
#include "pinnsagent/slot.h"
#include "search/run.h"
#include "search/slot.h"

/* The hook of each method: the last column of llm/methods.def. */
static const pf_slot_fn HOOKS[PF_METHOD_COUNT] = {
#define PF_METHOD(ID, nm, lbl, ord, fl, gens, slots, names, note, propose, spec) [PF_METHOD_##ID] = propose,
#include "llm/methods.def"
#undef PF_METHOD
};

static void usage(FILE *to)
{
    char fixed[256], planned[128];
    pf_method_names(PF_MF_BASELINE, PF_MF_LLM, ", ", " or ", fixed, sizeof fixed);
    pf_method_names(PF_MF_BASELINE | PF_MF_LLM, 0, ", ", " or ", planned, sizeof planned);
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
            "replay, auto), its \"backbone\" (make's BACKBONE=NAME, a backbone of $LLMS_FILE)\n"
            "and PF_LLM_URL, PF_LLM_MODEL, PF_LLM_API_KEY, PF_LLM_TIMEOUT, PF_LLM_RETRIES.\n"
            "With BACKBONE=mix:a,b,c a search draws the slot's backbone by UCB1 from\n"
            "the earlier generations' outcomes; the proposal records \"backbone\" and the\n"
            "draw (\"mix\"). See docs/llm.md.\n"
            "A baseline run (%s) has 5 slots in generation 0 and asks no\n"
            "one: each proposal is the method's spec (five independently initialized\n"
            "candidates; pf-final reports the lowest MSE). It needs no knowledge.msgpack.\n"
            "A %s run has one slot in each of generations 0..4: PINNsAgent's planner,\n"
            "asked through the same proposers (offline, http, replay) with its own prompts\n"
            "(data/prompts/pinnsagent/), from its run database ($PF_PINNSAGENT_DIR) and the\n"
            "earlier iterations; the proposal also holds the configuration (\"plan\").\n"
            "Exit codes: 0 written (valid or not), 1 failure (proposer, files), 2 bad usage.\n",
            fixed, planned);
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
    char path[4096], out[4096], slot[64], done[512] = "";
    if (pf_run_path(r.dir, PF_RUN_PROPOSAL, g, k, out, sizeof out) != PF_OK ||
        pf_run_path(r.dir, PF_RUN_GENERATION, g, 0, path, sizeof path) != PF_OK)
        return fail(pf_errmsg());
    if (pf_mkdirs(path) != PF_OK) return fail(pf_errmsg());
    snprintf(slot, sizeof slot, "gen%02d/%s", g, pf_run_slot_name(r.method, g, k));
    if (!quiet) fprintf(stderr, "pf-propose: start %s slot %s\n", r.pde->name, slot);
    if (HOOKS[r.method](&r, g, k, slot, out, done, sizeof done) != PF_OK) {
        fprintf(stderr, "pf-propose: %s: %s\n", slot, pf_errmsg());
        return 1;
    }
    if (!quiet) fprintf(stderr, "pf-propose: done %s: %s; wrote %s\n", slot, done, out);
    return 0;
}
