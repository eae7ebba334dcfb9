/*
 * fuzz_template.c — prompt templates (search/template.h) through
 * pf_template_render with the variables the real templates in
 * data/prompts/ use: some set to text, some empty, and one set to a value
 * that looks like a tag (values are inserted verbatim, never expanded).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "search/template.h"

static json_t *vars;

static const json_t *the_vars(void)
{
    if (vars) return vars;
    vars = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "pde_name", "burgers_1d",
                     "pde_description", "u_t + u u_x = nu u_xx", "budget", "quick", "generation", "3", "evidence",
                     "{{pde_name}}", "history", "", "knowledge", "- id: a\n- id: b", "memory", "", "parents",
                     "{{#escape}}x{{/escape}}", "reasons", "- too wide", "role", "optimization", "space",
                     "architecture.width: 8..512");
    if (!vars) abort();
    return vars;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = pf_fuzz_text(data, size);
    if (!src) return 0;
    char *out = NULL;
    if (pf_template_render(src, "fuzz.md", the_vars(), &out) == PF_OK) {
        if (!out) abort();
        /* a template without tags renders as itself */
        if (!strstr(src, "{{") && strcmp(out, src)) abort();
        free(out);
    } else if (out) {
        abort();
    }
    free(src);
    return 0;
}
