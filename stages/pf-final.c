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
 *   pf-final --run RUN
 *       a baseline run (llm/methods.def, search/baseline.h): picks the
 *       lowest MSE among RUN/gen00/cand0..4 and writes RUN/final.msgpack
 *       {spec, spec_hash, hf_mse, budget, candidates, ...}
 *   pf-final --run RUN --status
 *       one line: the generation reached, the best low-fidelity MSE, the
 *       Top-3, and the state (running, stopped, final with its HF MSE); for a
 *       baseline, the candidates trained and their best MSE
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/parse.h"
#include "io/msgpack_json.h"
#include "search/final.h"

static void usage(FILE *to)
{
    char b[256];
    fprintf(to,
            "usage: pf-final --run RUN --last-generation G [--hifi-proposal K] [--quiet]\n"
            "       pf-final --run RUN [--quiet]          (a baseline run: METHOD=%s)\n"
            "       pf-final --run RUN --status\n"
            "With --hifi-proposal K: writes RUN/hifi/topK.proposal.msgpack, the K-th design of\n"
            "the Global Top-3 after generation G (genGG/select.msgpack), for pf-train\n"
            "--fidelity high. Without: reads RUN/hifi/top0..2/evidence.msgpack, picks the\n"
            "lowest high-fidelity MSE and writes RUN/final.msgpack {spec, spec_hash, hf_mse,\n"
            "budget, top3, generations, stop_reason, stopped, ...}; budget counts optimizer\n"
            "steps (low and high fidelity, and their sum), wall time per stage, and LLM calls,\n"
            "tokens and cost, in all and per backbone (cost at the prices of the backbones file,\n"
            "$LLMS_FILE or data/llms.json; calls to a server it does not list cost 0, priced\n"
            "false). stopped: \"llm budget\" when LLM_MAX_TOKENS or LLM_MAX_COST ended the search,\n"
            "\"time budget\" when TIME_BUDGET did, else null.\n"
            "A baseline run has no generations to select from: pf-final --run RUN reads its\n"
            "five candidates RUN/gen00/cand0..4/evidence.msgpack, picks the lowest MSE and\n"
            "writes RUN/final.msgpack with all five MSEs (candidates) and their budget.\n"
            "With --status: one line about the run (generation reached, best low-fidelity\n"
            "MSE, Top-3, state).\n"
            "Exit codes: 0 written, 1 failure (files, no high-fidelity MSE), 2 bad usage.\n",
            pf_method_names(PF_MF_BASELINE, 0, "|", "|", b, sizeof b));
}

static int fail(void)
{
    fprintf(stderr, "pf-final: %s\n", pf_errmsg());
    return 1;
}

static pf_status hifi_proposal(const pf_run *r, const pf_select *sel, int k, bool quiet)
{
    char dir[4096], out[4200];
    PF_TRY(pf_run_path(r->dir, PF_RUN_GENERATION, PF_RUN_HIFI, k, dir, sizeof dir));
    PF_TRY(pf_run_path(r->dir, PF_RUN_PROPOSAL, PF_RUN_HIFI, k, out, sizeof out));
    PF_TRY(pf_mkdirs(dir));
    pf_proposal_file f;
    pf_proposal_file_init_hifi(&f, r, sel, k);
    pf_status st = pf_proposal_file_write(out, &f);
    if (st == PF_OK && !quiet) fprintf(stderr, "pf-final: wrote %s (%s)\n", out, f.skipped ? "skipped" : "Top-3 design");
    pf_proposal_file_release(&f);
    return st;
}

/* The run's LLM calls per backbone, their cost, and the stop when the
 * LLM budget made it. */
static void llm_line(const pf_final_file *f)
{
    const pf_llm_usage *u = &f->budget.llm_by;
    for (int i = 0; i < u->n; i++)
        fprintf(stderr, "pf-final: LLM %s: %ld calls, %ld + %ld tokens, %.1f s, cost %.4g%s\n", u->b[i].name,
                u->b[i].calls, u->b[i].prompt_tokens, u->b[i].completion_tokens, u->b[i].llm_s, u->b[i].cost,
                u->b[i].priced ? "" : " (no price: neither offline nor a backbone of the backbones file; counted as 0)");
    if (f->stopped[0]) fprintf(stderr, "pf-final: stopped early: %s (%s)\n", f->stopped, f->stop_reason ? f->stop_reason : "");
}

static pf_status final(const pf_run *r, int last, const pf_select *sel, bool quiet)
{
    pf_final_file f;
    char path[4200];
    PF_TRY(pf_run_path(r->dir, PF_RUN_FINAL, 0, 0, path, sizeof path));
    PF_TRY(pf_final_build(r, sel, last, &f));
    pf_status st = pf_final_file_write(path, &f);
    if (st == PF_OK && !quiet)
        fprintf(stderr, "pf-final: %s run %d: high-fidelity MSE %.4e (spec %.12s), %d generations, %ld + %ld steps, "
                        "%ld LLM calls; wrote %s\n",
                r->pde->name, r->run, f.hf_mse, f.spec_hash, f.generations, f.budget.steps_low, f.budget.steps_high,
                f.budget.calls, path);
    if (st == PF_OK && !quiet) llm_line(&f);
    if (st == PF_OK && !quiet && f.time_budget)
        fprintf(stderr, "pf-final: time budget %lld s, used %.0f s, %s\n",
                (long long)json_integer_value(json_object_get(f.time_budget, "budget_s")),
                json_number_value(json_object_get(f.time_budget, "used_s")),
                json_is_true(json_object_get(f.time_budget, "budget_bound")) ? "bound (some trainings were stopped by their limit)"
                                                                              : "not bound");
    pf_final_file_release(&f);
    return st;
}

static pf_status final_baseline(const pf_run *r, bool quiet)
{
    pf_final_file f;
    char path[4200];
    PF_TRY(pf_run_path(r->dir, PF_RUN_FINAL, 0, 0, path, sizeof path));
    PF_TRY(pf_final_build_baseline(r, &f));
    pf_status st = pf_final_file_write(path, &f);
    if (st == PF_OK && !quiet) {
        fprintf(stderr, "pf-final: %s %s run %d: MSE %.4e (%s; candidates", r->pde->name, pf_method_name(r->method), r->run,
                f.hf_mse, f.found_in);
        for (int k = 0; k < f.ncand; k++) fprintf(stderr, " %.3e", f.cand[k].has_y ? f.cand[k].y : NAN);
        fprintf(stderr, "), %ld steps; wrote %s\n", f.budget.steps_baseline, path);
    }
    pf_final_file_release(&f);
    return st;
}

/* A final line's tail: "final: <MSE>" when path exists; 1 on a bad file. */
static int final_tail(const char *path)
{
    pf_final_file fin;
    if (pf_final_file_read(path, &fin) != PF_OK) {
        printf("\n");
        return fail();
    }
    printf("  final: %s %.3e\n", fin.ncand ? "MSE" : "HF MSE", fin.hf_mse);
    pf_final_file_release(&fin);
    return 0;
}

/* A baseline's status: its candidates trained so far and their best MSE. */
static int status_baseline(const pf_run *r, const char *path)
{
    int trained = 0, n = 0;
    double best = INFINITY;
    for (int g = 0; pf_run_slots(r->method, g) > 0; g++)
        for (int k = 0; k < pf_run_slots(r->method, g); k++, n++) {
            pf_run_candidate c;
            char ev[4200];
            if (pf_run_path(r->dir, PF_RUN_EVIDENCE, g, k, ev, sizeof ev) != PF_OK) return fail();
            if (access(ev, F_OK) != 0) continue;
            if (pf_run_candidate_read(r->dir, g, k, &c) != PF_OK) return fail();
            trained++;
            if (pf_candidate_ranked(&c.cand) && c.cand.y < best) best = c.cand.y;
            pf_run_candidate_release(&c);
        }
    printf("%-40s %s: %d of %d candidates trained, best %.3e", r->dir, pf_method_name(r->method), trained, n,
           isfinite(best) ? best : NAN);
    if (access(path, F_OK) == 0) return final_tail(path);
    printf("  %s\n", trained == n ? "final pending" : "running");
    return 0;
}

/* One line about a run, from whatever artifacts exist. */
static int status(const char *dir)
{
    pf_run r;
    if (pf_run_open(dir, &r) != PF_OK) return fail();
    char path[4200];
    if (pf_run_path(dir, PF_RUN_FINAL, 0, 0, path, sizeof path) != PF_OK) return fail();
    if (pf_method_is_baseline(r.method)) return status_baseline(&r, path);
    pf_select *last;
    int reached;
    if (pf_run_last_select(r.dir, &last, &reached) != PF_OK) return fail();
    printf("%-40s ", dir);
    if (!last) {
        printf("no generation completed yet\n");
        return 0;
    }
    printf("gen %02d  top-3", reached);
    for (int k = 0; k < last->ntop3; k++) printf(" %.3e", last->cand[last->top3[k]].y);
    if (access(path, F_OK) == 0) {
        pf_select_free(last);
        return final_tail(path);
    } else if (last->next == PF_SELECT_STOP)
        printf("  stopped (%s); high fidelity pending\n", last->reason);
    else
        printf("  running (next: %s)\n", pf_select_next_name(last->next));
    pf_select_free(last);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"run", 1, 0, 'r'},   {"last-generation", 1, 0, 'g'}, {"hifi-proposal", 1, 0, 'k'},
                                       {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},            {"status", 0, 0, 's'},
                                       {0, 0, 0, 0}};
    const char *dir = NULL;
    int g = -1, k = -1, quiet = 0, want_status = 0, ch;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': dir = optarg; break;
        case 'g':
        case 'k': {
            long v;
            if (pf_parse_long(optarg, 0, PF_RUN_MAX_GENERATION, &v) != PF_OK)
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
    if (!dir || optind != argc) {
        fprintf(stderr, "pf-final: --run is required (see --help)\n");
        return 2;
    }
    if (k >= PF_RUN_TOP) return fprintf(stderr, "pf-final: --hifi-proposal wants 0..%d\n", PF_RUN_TOP - 1), 2;
    pf_run r;
    if (pf_run_open(dir, &r) != PF_OK) return fail();
    if (pf_method_is_baseline(r.method)) {
        if (g >= 0 || k >= 0)
            return fprintf(stderr, "pf-final: %s is a %s run (a baseline): no generations, no --last-generation or "
                                   "--hifi-proposal\n", dir, pf_method_name(r.method)), 2;
        return final_baseline(&r, quiet) == PF_OK ? 0 : fail();
    }
    if (g < 0) {
        fprintf(stderr, "pf-final: a %s run needs --last-generation (see --help)\n", pf_method_name(r.method));
        return 2;
    }
    char path[4096];
    pf_select *sel;
    if (pf_run_path(r.dir, PF_RUN_SELECT, g, 0, path, sizeof path) != PF_OK || pf_select_read(path, &sel) != PF_OK)
        return fail();
    pf_status st = k >= 0 ? hifi_proposal(&r, sel, k, quiet) : final(&r, g, sel, quiet);
    pf_select_free(sel);
    return st == PF_OK ? 0 : fail();
}
