/*
 * template.h — the prompt templates' small language.
 *
 *     {{name}}                 the value of variable name ("" if unset)
 *     {{#name}} ... {{/name}}  the block, only when name is set and non-empty
 *     {{^name}} ... {{/name}}  the block, only when name is unset or empty
 *
 * Blocks nest (different names). A block's own line breaks are kept as
 * written, except that a tag alone on its line takes its line break with it,
 * so conditional sections leave no blank lines behind. Variables are looked
 * up in a JSON object of strings; values are inserted verbatim (never
 * re-expanded), so a spec or an evidence dump cannot inject a tag.
 *
 *     json_t *vars = json_pack("{s:s}", "pde_name", "burgers_1d");
 *     char *text;
 *     PF_TRY(pf_template_render(src, "propose.md", vars, &text));
 *
 * Errors are PF_ERR_INVALID naming the template and line: an unclosed tag
 * or block, a {{/x}} that closes nothing or another block, a bad name, or a
 * variable used but missing from `vars` that the caller requires (a plain
 * {{x}} whose x is absent is an error; inside {{#x}} it cannot happen).
 */
#ifndef PF_SEARCH_TEMPLATE_H
#define PF_SEARCH_TEMPLATE_H

#include <jansson.h>

#include "core/status.h"

/* Render src (named `name` in messages) with vars; *out malloc'ed. */
pf_status pf_template_render(const char *src, const char *name, const json_t *vars, char **out);

#endif
