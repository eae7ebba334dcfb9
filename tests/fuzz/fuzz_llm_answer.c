/*
 * fuzz_llm_answer.c — an LLM's answer, prose around JSON, as a server
 * sends it: pf_extract_json (search/propose.h: the first ```json or ```
 * fenced object, else the first top-level balanced {...}, never an object
 * inside another; answers over PF_PROPOSE_MAX_ANSWER bytes refused), then
 * what each proposer does with the object: the AlgorithmSpec path
 * (pf_spec_parse and the checks against burgers_1d with the quick budget,
 * as propose.c judges an answer) and PINNsAgent's path (pf_pa_config_read,
 * then its spec, as pinnsagent/plan.c does). The contract: the extracted
 * text is an object that parses and the prose before it comes from the
 * answer; a refusal sets neither output and says why; an answer over the
 * limit is always refused.
 *
 * Inputs may grow past the limit (LLVMFuzzerInitialize below), and an
 * input that starts with a NUL byte is a recipe for a long answer (see
 * recipe()), so that the size refusal, deep nesting and long answers are
 * reached: the extractor was once quadratic in the length and followed any
 * nesting.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "search/propose.h"
#include "spec/pinnsagent_space.h"
#include "spec/spec.h"

#define MAX_TEXT (PF_PROPOSE_MAX_ANSWER + 1024) /* the longest text tried: both sides of the limit */

/* libFuzzer calls this before it reads its flags. Its default -max_len is
 * the largest seed (a few KiB here), far below the inputs that matter for
 * a parser of answers up to PF_PROPOSE_MAX_ANSWER: unless the command line
 * says otherwise (scripts/fuzz.sh does not), inputs may grow 1 KiB past
 * that limit, so both sides of it are reached. replay_main.c never calls
 * it. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static char flag[32], *args[256];
    for (int i = 1; i < *argc; i++)
        if (strncmp((*argv)[i], "-max_len=", 9) == 0) return 0;
    if (*argc < 1 || *argc + 2 > (int)(sizeof args / sizeof *args)) return 0;
    snprintf(flag, sizeof flag, "-max_len=%zu", (size_t)MAX_TEXT);
    args[0] = (*argv)[0];
    args[1] = flag;
    for (int i = 1; i < *argc; i++) args[i + 1] = (*argv)[i];
    args[*argc + 1] = NULL;
    *argc += 1;
    *argv = args;
    return 0;
}

/* An input that starts with a NUL byte (useless as text: it would end
 * there) is a recipe: bytes 1 and 2 a count k (big-endian), then a unit up
 * to the next NUL, then a tail; the text is k copies of the unit, then the
 * tail, cut at MAX_TEXT bytes. A dozen bytes thus reach any length and
 * nesting ("{\"a\":" 65535 times), which mutating a text byte by byte
 * would take very long to reach. malloc'ed; NULL when out of memory. */
static char *recipe(const uint8_t *data, size_t size)
{
    size_t k = size >= 3 ? (size_t)data[1] << 8 | data[2] : 0, at = size >= 3 ? 3 : size;
    const uint8_t *unit = data + at, *nul = memchr(unit, 0, size - at);
    size_t nunit = nul ? (size_t)(nul - unit) : size - at;
    const uint8_t *tail = nul ? nul + 1 : data + size;
    size_t ntail = (size_t)(data + size - tail), total = k * nunit + ntail, len = 0;
    if (total > MAX_TEXT) total = MAX_TEXT;
    char *text = malloc(total + 1);
    if (!text) return NULL;
    for (size_t i = 0; i < k && nunit && len < total; i++) {
        size_t n = nunit < total - len ? nunit : total - len;
        memcpy(text + len, unit, n);
        len += n;
    }
    memcpy(text + len, tail, total - len);
    text[total] = 0; /* a NUL in the tail ends the text early, as for any input */
    return text;
}

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
    char *text = size && !data[0] ? recipe(data, size) : pf_fuzz_text(data, size);
    if (!text) return 0;
    size_t len = strlen(text);
    char *js, *before;
    if (pf_extract_json(text, &js, &before) == PF_OK) {
        if (!js || !before || strlen(before) > len || len > PF_PROPOSE_MAX_ANSWER) abort();
        const pf_pde *p = pf_fuzz_pde("burgers_1d");
        const pf_budget *b;
        if (pf_budget_lookup("quick", &b) != PF_OK) abort();
        as_spec(js, p, b);
        as_pinnsagent(js, p, b);
        free(js);
        free(before);
    } else if (js || before || !pf_errmsg()[0]) {
        abort(); /* *json and *before are NULL on failure, and the message says why */
    } else if (len > PF_PROPOSE_MAX_ANSWER && !strstr(pf_errmsg(), "PF_PROPOSE_MAX_ANSWER")) {
        abort(); /* an answer over the limit is refused as such, before it is read */
    }
    free(text);
    return 0;
}
