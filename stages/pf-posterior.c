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
 * reason; a generation after a stop decision carries M_{G-1} over.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "search/context.h"
#include "search/prompt.h"
#include "search/propose.h"
#include "search/run.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-posterior --run RUN --generation G [--quiet]\n"
                "Summarizes the run's history through generation G into the run memory M_G\n"
                "(RUN/genGG/memory.msgpack) with the run's proposer; the call is stored in\n"
                "RUN/llm/. Methods without memory (no_knowledge, no_feedback) write an empty\n"
                "memory with the reason.\n"
                "Exit codes: 0 written, 1 failure, 2 bad usage.\n");
}

static json_t *memory_doc(int g, const char *text, const char *reason)
{
    json_t *o = json_pack("{s:s, s:i, s:i}", "format", "pinnforge.memory", "version", 1, "generation", g);
    json_object_set_new(o, "text", text ? json_string(text) : json_null());
    if (reason) json_object_set_new(o, "reason", json_string(reason));
    return o;
}

/* H_G as candidates: views into the history, the proposals and evidence
 * (kept alive in keep[]). */
static pf_status history_of(const pf_run *r, const json_t *sel, pf_candidate **out, int *n, json_t *keep)
{
    json_t *h = json_object_get(sel, "history");
    *n = 0;
    *out = calloc(json_array_size(h) + 1, sizeof **out);
    if (!*out) return pf_fail(PF_ERR_NOMEM, "out of memory");
    size_t i;
    json_t *c;
    json_array_foreach(h, i, c) {
        if (!json_is_true(json_object_get(c, "valid"))) continue; /* invalid slots never enter the history */
        int g = (int)json_integer_value(json_object_get(c, "generation"));
        int k = (int)json_integer_value(json_object_get(c, "index"));
        char path[4096];
        json_t *prop, *ev = NULL;
        PF_TRY(pf_run_path(r->dir, "proposal", g, k, path, sizeof path));
        PF_TRY(pf_run_read(path, "pinnforge.proposal", &prop));
        json_array_append_new(keep, prop);
        PF_TRY(pf_run_path(r->dir, "evidence", g, k, path, sizeof path));
        if (pf_run_read(path, "pinnforge.evidence", &ev) == PF_OK) json_array_append_new(keep, ev);
        json_t *y = json_object_get(c, "y");
        (*out)[(*n)++] = (pf_candidate){.generation = g, .slot = json_string_value(json_object_get(c, "slot")),
                                        .spec_hash = json_string_value(json_object_get(c, "spec_hash")),
                                        .spec = json_object_get(prop, "spec"), .has_y = json_is_number(y),
                                        .y = json_number_value(y),
                                        .status = json_string_value(json_object_get(c, "status")),
                                        .evidence = ev ? json_object_get(ev, "evidence") : NULL};
    }
    return PF_OK;
}

static pf_status summarize(const pf_run *r, int g, const json_t *sel, const char *prev, json_t **doc)
{
    json_t *keep = json_array(), *ctx = NULL;
    pf_candidate *hist = NULL;
    int n = 0;
    pf_llm_provider *llm = NULL;
    pf_llm_options o;
    char prompts[4096], slot[32];
    snprintf(slot, sizeof slot, "gen%02d/posterior", g);
    pf_status st = history_of(r, sel, &hist, &n, keep);
    pf_context_in in = {.pde = r->pde, .fidelity = PF_FIDELITY_LOW, .budget = r->budget, .method = r->method,
                        .generation = g, .memory = prev, .nhistory = n, .history = hist};
    if (st == PF_OK) st = pf_context_posterior(&in, &ctx);
    if (st == PF_OK) st = pf_run_provider(r, &o, &llm);
    if (st == PF_OK) st = pf_prompt_dir(prompts, sizeof prompts);
    char *text = NULL;
    pf_llm_response resp;
    if (st == PF_OK) st = pf_summarize(llm, o.model, prompts, ctx, slot, &text, &resp);
    if (st == PF_OK) {
        *doc = memory_doc(g, text, NULL);
        json_object_set_new(*doc, "provider", json_string(resp.provider));
        json_object_set_new(*doc, "usage", json_pack("{s:I, s:I}", "prompt_tokens", (json_int_t)resp.prompt_tokens,
                                                     "completion_tokens", (json_int_t)resp.completion_tokens));
        json_object_set_new(*doc, "latency_s", json_real(resp.latency_s));
        json_object_set_new(*doc, "candidates", json_integer(n));
    }
    free(text);
    free(hist);
    pf_llm_provider_free(llm);
    json_decref(ctx);
    json_decref(keep);
    return st;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"run", 1, 0, 'r'}, {"generation", 1, 0, 'g'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *dir = NULL;
    int g = -1, quiet = 0, ch;
    char *end;
    while ((ch = getopt_long(argc, argv, "hq", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': dir = optarg; break;
        case 'g':
            g = (int)strtol(optarg, &end, 10);
            if (*end || !*optarg || g < 0 || g > 99)
                return fprintf(stderr, "pf-posterior: --generation wants 0..99, not '%s'\n", optarg), 2;
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
    json_t *sel = NULL, *prev = NULL, *doc = NULL;
    pf_status st = pf_run_open(dir, &r);
    if (st == PF_OK) st = pf_run_path(r.dir, "memory", g, 0, out, sizeof out);
    if (st == PF_OK) st = pf_run_path(r.dir, "select", g, 0, path, sizeof path);
    if (st == PF_OK) st = pf_run_read(path, "pinnforge.select", &sel);
    if (st == PF_OK && g > 0 && (st = pf_run_path(r.dir, "memory", g - 1, 0, path, sizeof path)) == PF_OK)
        st = pf_run_read(path, "pinnforge.memory", &prev);
    if (st != PF_OK) return fprintf(stderr, "pf-posterior: %s\n", pf_errmsg()), 1;
    if (!quiet) fprintf(stderr, "pf-posterior: start %s generation %d\n", r.pde->name, g);
    const char *prev_text = prev ? json_string_value(json_object_get(prev, "text")) : NULL;
    if (!pf_method_has_memory(r.method)) {
        char why[128];
        snprintf(why, sizeof why, "method %s forms no posterior memory (appendix A.6)", pf_method_name(r.method));
        doc = memory_doc(g, NULL, why);
    } else if (json_is_true(json_object_get(sel, "skipped"))) {
        doc = memory_doc(g, prev_text, "the search stopped before this generation: M carried over");
    } else {
        st = summarize(&r, g, sel, prev_text, &doc);
    }
    if (st == PF_OK) st = pf_msgpack_write_file(out, doc);
    json_decref(doc);
    json_decref(sel);
    json_decref(prev);
    if (st != PF_OK) return fprintf(stderr, "pf-posterior: %s\n", pf_errmsg()), 1;
    if (!quiet) fprintf(stderr, "pf-posterior: done generation %d; wrote %s\n", g, out);
    return 0;
}
