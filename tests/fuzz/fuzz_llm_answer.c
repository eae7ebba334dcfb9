/*
 * fuzz_llm_answer.c — an LLM's answer, prose around JSON, as a server
 * sends it: pf_extract_json (search/propose.h: the first ```json or ```
 * fenced object, else the first balanced {...}), then what each proposer
 * does with the object: the AlgorithmSpec path (pf_spec_parse and the
 * checks against burgers_1d with the quick budget, as propose.c judges an
 * answer) and PINNsAgent's path (pf_pa_config_read, then its spec, as
 * pinnsagent_plan.c does). The extracted text must be an object that
 * parses, and the prose before it must come from the answer.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "search/propose.h"
#include "spec/pinnsagent_space.h"
#include "spec/spec.h"

static void as_spec(const char *js, const pf_pde *p, const pf_budget *b)
{
    json_t *raw, *norm;
    pf_spec_report rep;
    if (pf_spec_parse(js, &raw) != PF_OK) return; /* a duplicate key: the spec parser refuses those */
    if (pf_spec_check_budget(raw, p, b, PF_FIDELITY_LOW, &norm, &rep) == PF_OK) json_decref(norm);
    json_decref(raw);
}

static void as_pinnsagent(const char *js, const pf_pde *p, const pf_budget *b)
{
    json_t *o = json_loads(js, 0, NULL);
    if (!json_is_object(o)) abort();
    pf_pa_config c;
    char note[PF_PA_NOTE];
    if (pf_pa_config_read(o, &c, note, sizeof note) == PF_OK) {
        json_decref(pf_pa_config_json(&c));
        json_t *spec;
        if (pf_pa_config_spec(&c, p, b, &spec) == PF_OK) json_decref(spec);
    }
    json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pf_fuzz_text(data, size);
    if (!text) return 0;
    char *js, *before;
    if (pf_extract_json(text, &js, &before) == PF_OK) {
        if (!js || !before || strlen(before) > strlen(text)) abort();
        const pf_pde *p = pf_fuzz_pde("burgers_1d");
        const pf_budget *b;
        if (pf_budget_lookup("quick", &b) != PF_OK) abort();
        as_spec(js, p, b);
        as_pinnsagent(js, p, b);
        free(js);
        free(before);
    } else if (js) {
        abort(); /* *json is NULL on failure */
    }
    free(text);
    return 0;
}
