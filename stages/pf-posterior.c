/*
 * pf-posterior — the run memory M_g after generation g (paper section 3.1,
 * appendix A.3).
 *
 *   pf-posterior --run RUN --generation G
 *
 * reads RUN/genGG/select.msgpack (the history H_G), every candidate's
 * proposal and evidence, and M_{G-1}; makes the posterior-summary call
 * (temperature 0.1, stored under RUN/llm/) and writes RUN/genGG/memory.msgpack
 * {format, version, generation, text, provider, usage, latency_s}. Methods
 * that form no memory (no_knowledge, no_feedback) write text null with the
 * reason; a generation after a stop decision carries M_{G-1} over, and so
 * does one whose proposals the LLM budget stopped (no call).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "search/context.h"
#include "search/prompt.h"
#include "search/propose.h"
#include "search/artifact.h"

static void usage(FILE *to)
{
    char none[256];
    pf_method_names(PF_MF_LLM, PF_MF_MEMORY | PF_MF_BASELINE, ", ", ", ", none, sizeof none);
    fprintf(to, "usage: pf-posterior --run RUN --generation G [--quiet]\n"
                "Summarizes the run's history through generation G into the run memory M_G\n"
                "(RUN/genGG/memory.msgpack) with the run's proposer; the call is stored in\n"
                "RUN/llm/. Methods without memory (%s) write an empty\n"
                "memory with the reason.\n"
                "Exit codes: 0 written, 1 failure, 2 bad usage.\n",
            none);
}

/* H_G as candidates: the selection's valid entries (invalid slots never
 * enter the history), each with the spec and evidence of its files. */
static pf_status history_of(const pf_run *r, const pf_select *sel, pf_candidate **out, int *n)
{
    *n = 0;
    *out = calloc((size_t)sel->ncand + 1, sizeof **out);
    if (!*out) return pf_fail(PF_ERR_NOMEM, "out of memory");
    for (int i = 0; i < sel->ncand; i++) {
        const pf_candidate *h = &sel->cand[i];
        if (!h->valid) continue;
        pf_run_candidate rc;
        PF_TRY(pf_run_candidate_read(r->dir, h->generation, h->index, &rc));
        pf_candidate *c = &(*out)[(*n)++];
        *c = *h;
        c->spec = json_incref(rc.cand.spec);
        c->evidence = json_incref(rc.cand.evidence);
        pf_run_candidate_release(&rc);
    }
    return PF_OK;
}

static void history_free(pf_candidate *c, int n)
{
    for (int i = 0; c && i < n; i++) pf_candidate_release(&c[i]);
    free(c);
}

static pf_status summarize(const pf_run *r, int g, const pf_select *sel, const char *prev, pf_memory_file *mem)
{
    json_t *ctx = NULL;
    pf_candidate *hist = NULL;
    int n = 0;
    pf_llm_provider *llm = NULL;
    pf_llm_options o;
    char prompts[4096], slot[32];
    snprintf(slot, sizeof slot, "gen%02d/posterior", g);
    pf_status st = history_of(r, sel, &hist, &n);
    pf_context_in in = {.pde = r->pde, .fidelity = PF_FIDELITY_LOW, .budget = r->budget, .method = r->method,
                        .generation = g, .memory = prev, .nhistory = n, .history = hist};
    if (st == PF_OK) st = pf_context_posterior(&in, &ctx);
    if (st == PF_OK) st = pf_run_provider(r, &o, &llm);
    if (st == PF_OK) st = pf_prompt_dir(prompts, sizeof prompts);
    char *text = NULL;
    pf_llm_response resp;
    if (st == PF_OK) st = pf_summarize(llm, o.model, prompts, ctx, slot, &text, &resp);
    if (st == PF_OK) st = pf_memory_file_init(mem, g, text, NULL);
    if (st == PF_OK) {
        mem->has_call = true;
        snprintf(mem->provider, sizeof mem->provider, "%s", resp.provider);
        snprintf(mem->backbone, sizeof mem->backbone, "%s", resp.backbone);
        mem->prompt_tokens = resp.prompt_tokens;
        mem->completion_tokens = resp.completion_tokens;
        mem->latency_s = resp.latency_s;
        mem->candidates = n;
    }
    free(text);
    history_free(hist, n);
    pf_llm_provider_free(llm);
    json_decref(ctx);
    return st;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"run", 1, 0, 'r'}, {"generation", 1, 0, 'g'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *dir = NULL;
    int g = -1, quiet = 0, ch;
    long v;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': dir = optarg; break;
        case 'g':
            if (pf_parse_long(optarg, 0, PF_RUN_MAX_GENERATION, &v) != PF_OK)
                return fprintf(stderr, "pf-posterior: --generation wants 0..%d, not '%s'\n", PF_RUN_MAX_GENERATION, optarg), 2;
            g = (int)v;
            break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!dir || g < 0 || optind != argc) {
        fprintf(stderr, "pf-posterior: --run and --generation are required (see --help)\n");
        return 2;
    }
    pf_run r;
    char path[4096], out[4096];
    pf_select *sel = NULL;
    pf_memory_file prev = {0}, mem = {0};
    pf_status st = pf_run_open(dir, &r);
    if (st == PF_OK) st = pf_run_path(r.dir, PF_RUN_MEMORY, g, 0, out, sizeof out);
    if (st == PF_OK) st = pf_run_path(r.dir, PF_RUN_SELECT, g, 0, path, sizeof path);
    if (st == PF_OK) st = pf_select_read(path, &sel);
    if (st == PF_OK && g > 0 && (st = pf_run_path(r.dir, PF_RUN_MEMORY, g - 1, 0, path, sizeof path)) == PF_OK)
        st = pf_memory_file_read(path, &prev);
    if (st != PF_OK) {
        pf_select_free(sel);
        return fprintf(stderr, "pf-posterior: %s\n", pf_errmsg()), 1;
    }
    if (!quiet) fprintf(stderr, "pf-posterior: start %s generation %d\n", r.pde->name, g);
    if (!pf_method_has_memory(r.method)) {
        char why[128];
        snprintf(why, sizeof why, "method %s forms no posterior memory (appendix A.6)", pf_method_name(r.method));
        st = pf_memory_file_init(&mem, g, NULL, why);
    } else if (sel->skipped) {
        st = pf_memory_file_init(&mem, g, prev.text, "the search stopped before this generation: M carried over");
    } else if (sel->next == PF_SELECT_STOP && !strcmp(sel->cause, PF_SELECT_CAUSE_LLM)) {
        /* no proposal will read it, and the budget is spent: no call */
        st = pf_memory_file_init(&mem, g, prev.text, "the LLM budget is spent: M carried over");
    } else {
        st = summarize(&r, g, sel, prev.text, &mem);
    }
    if (st == PF_OK) st = pf_memory_file_write(out, &mem);
    pf_memory_file_release(&mem);
    pf_memory_file_release(&prev);
    pf_select_free(sel);
    if (st != PF_OK) return fprintf(stderr, "pf-posterior: %s\n", pf_errmsg()), 1;
    if (!quiet) fprintf(stderr, "pf-posterior: done generation %d; wrote %s\n", g, out);
    return 0;
}
