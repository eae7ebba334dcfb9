/* The prompt template language: variables, conditional blocks, errors with
 * lines, no re-expansion of values. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "search/template.h"

static char *render(const char *src, json_t *vars)
{
    char *out = NULL;
    cr_assert_eq(pf_template_render(src, "t.md", vars, &out), PF_OK, "%s", pf_errmsg());
    json_decref(vars);
    return out;
}

Test(template, variables_and_blocks)
{
    char *s = render("A {{x}} B\n{{#y}}\ny is {{y}}\n{{/y}}\n{{^z}}\nno z\n{{/z}}\nend",
                     json_pack("{s:s, s:s}", "x", "1", "y", "two"));
    cr_assert_str_eq(s, "A 1 B\ny is two\nno z\nend");
    free(s);
    /* an empty value counts as unset; inline blocks keep their surroundings */
    s = render("[{{#y}}Y{{/y}}{{^y}}N{{/y}}]", json_pack("{s:s}", "y", ""));
    cr_assert_str_eq(s, "[N]");
    free(s);
    /* nested blocks, the inner one skipped */
    s = render("{{#a}}a{{#b}}b{{/b}}{{/a}}.", json_pack("{s:s}", "a", "1"));
    cr_assert_str_eq(s, "a.");
    free(s);
    /* values are inserted verbatim, never expanded */
    s = render("{{x}}", json_pack("{s:s}", "x", "{{y}} {{#y}}"));
    cr_assert_str_eq(s, "{{y}} {{#y}}");
    free(s);
}

Test(template, errors_name_the_line)
{
    char *out;
    json_t *v = json_pack("{s:s}", "x", "1");
    cr_assert_eq(pf_template_render("a\nb {{x}}\n{{y}}\n", "p.md", v, &out), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "p.md:3") && strstr(pf_errmsg(), "'y'"), "%s", pf_errmsg());
    cr_assert_eq(pf_template_render("a\n{{#x}}\nopen", "p.md", v, &out), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "never closed"), "%s", pf_errmsg());
    cr_assert_eq(pf_template_render("{{#x}}{{/y}}", "p.md", v, &out), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "p.md:1"), "%s", pf_errmsg());
    cr_assert_eq(pf_template_render("\n\n{{x", "p.md", v, &out), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "p.md:3"), "%s", pf_errmsg());
    cr_assert_eq(pf_template_render("{{a b}}", "p.md", v, &out), PF_ERR_INVALID);
    /* a skipped block is still parsed: its errors count */
    cr_assert_eq(pf_template_render("{{#nope}}{{#x}}{{/nope}}", "p.md", v, &out), PF_ERR_INVALID);
    json_decref(v);
}
