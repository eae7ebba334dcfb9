/*
 * fuzz_spec.c — AlgorithmSpec JSON (spec/spec.h) as a proposer or a user
 * writes it: pf_spec_parse, then the checks against a time-dependent PDE
 * (burgers_1d, low fidelity, the quick budget) and a steady one
 * (poisson_2d_classic, high fidelity), and for an accepted spec its hash,
 * the sections it differs in from the other PDE's and instantiation into
 * the model and training configurations.
 */
#include <stdlib.h>

#include "input.h"
#include "nn/model.h"
#include "spec/spec.h"
#include "train/trainer.h"

static void check_one(const json_t *raw, const char *pde, pf_fidelity fid, const char *budget, json_t **norm)
{
    const pf_pde *p = pf_fuzz_pde(pde);
    const pf_budget *b = NULL;
    if (budget && pf_budget_lookup(budget, &b) != PF_OK) abort();
    pf_spec_report rep;
    *norm = NULL;
    if (pf_spec_check_budget(raw, p, b, fid, norm, &rep) != PF_OK) {
        if (*norm || rep.n < 1) abort(); /* the contract: a rejection says why and gives nothing */
        json_t *loose;
        if (pf_spec_normalize(raw, p, &loose, &rep) == PF_OK) json_decref(loose);
        return;
    }
    char hex[PF_SPEC_HASH_HEX];
    if (pf_spec_hash(*norm, hex) != PF_OK) abort();
    char *canon = pf_spec_canonical(*norm);
    free(canon);
    pf_model_config mc;
    pf_train_config tc;
    pf_spec_instantiate(*norm, p, &mc, &tc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pf_fuzz_text(data, size);
    if (!text) return 0;
    json_t *raw;
    if (pf_spec_parse(text, &raw) == PF_OK) {
        json_t *a, *b;
        check_one(raw, "burgers_1d", PF_FIDELITY_LOW, "quick", &a);
        check_one(raw, "poisson_2d_classic", PF_FIDELITY_HIGH, NULL, &b);
        if (a && b) pf_spec_sections_differing(a, b, PF_SPEC_SECTIONS);
        json_decref(a);
        json_decref(b);
        json_decref(raw);
    }
    free(text);
    return 0;
}
