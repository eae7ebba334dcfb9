/*
 * test_pde_summary.c — what `pf-pde list` and `show` say about a PDE
 * (src/geom/pde_summary.h): tags, reference status, evaluation points, the
 * listing's line and JSON object, and the boundary-only lifts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data_fixture.h"
#include "geom/pde_summary.h"
#include "registry.h"

static pf_pde_summary summary_of(const char *name)
{
    const pf_pde *p;
    cr_assert_eq(pf_pdes_lookup(name, &p), PF_OK, "%s", pf_errmsg());
    pf_pde_summary s;
    pf_pde_summarize(p, &s);
    return s;
}

/* What print(out, s) writes, malloc'ed. */
typedef enum { LINE, JSON, DETAILS } form;
static char *printed(const pf_pde_summary *s, form k, const char *file)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    if (k == LINE) pf_pde_summary_print_line(f, s);
    if (k == JSON) cr_assert_eq(pf_pde_summary_print_json(f, s, file), PF_OK);
    if (k == DETAILS) pf_pde_summary_print_details(f, s);
    cr_assert_eq(fclose(f), 0);
    return text;
}

Test(pde_summary, an_analytic_pde_has_its_tags_and_evaluation_points)
{
    pf_pde_summary s = summary_of("wave_1d");
    cr_expect_str_eq(s.ref, "analytic");
    cr_expect_str_eq(s.ref_note, "");
    cr_expect_eq(s.eval_points, 2500);
    cr_assert_eq(s.ntags, 2);
    cr_expect_str_eq(s.tags[0], "time_dependent");
    cr_expect_str_eq(s.tags[1], "multiscale");
    char *line = printed(&s, LINE, NULL);
    cr_expect_str_eq(line, "wave_1d                      x,t -> u                 time_dependent,multiscale           "
                           "                    2500  analytic\n");
    free(line);
    char *json = printed(&s, JSON, NULL);
    cr_expect_str_eq(json, "{\"name\":\"wave_1d\",\"inputs\":[\"x\",\"t\"],\"outputs\":[\"u\"],\"tags\":"
                           "[\"time_dependent\",\"multiscale\"],\"reference\":\"analytic\",\"eval_points\":2500}\n");
    free(json);
    json = printed(&s, JSON, "w.pde");
    cr_expect(strstr(json, ",\"eval_points\":2500,\"file\":\"w.pde\"}\n"), "%s", json);
    free(json);
}

Test(pde_summary, a_data_reference_names_its_file)
{
    require_data("burgers1d.dat");
    pf_pde_summary s = summary_of("burgers_1d");
    cr_expect_str_eq(s.ref, "data");
    const char *slash = strrchr(s.ref_note, '/');
    cr_expect(slash && !strcmp(slash, "/burgers1d.dat"), "%s", s.ref_note);
    cr_expect_eq(s.eval_points, 1111);
    char *line = printed(&s, LINE, NULL);
    cr_expect(strstr(line, " time_dependent,steep,nonlinear ") && strstr(line, "   1111  data\n"), "%s", line);
    free(line);
    char *details = printed(&s, DETAILS, NULL);
    char want[PF_DATA_PATH_MAX + 64];
    snprintf(want, sizeof want, "\nreference: data %s\nevaluation points: 1111\n", s.ref_note);
    cr_expect(strstr(details, want), "%s", details);
    free(details);
}

/* A reference of `make refs` that is not built says what to run, and is
 * "missing" in the listing. */
Test(pde_summary, an_unbuilt_generated_reference_says_what_to_run)
{
    char dir[] = "/tmp/pf_test_summary_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    setenv(PF_REFS_DIR_ENV, dir, 1);
    pf_pde_summary s = summary_of("burgers_2d");
    cr_expect_str_eq(s.ref, "data-missing");
    char want[256];
    snprintf(want, sizeof want, "%s/burgers_2d.dat not built: run make refs PDE=burgers_2d", dir);
    cr_expect_str_eq(s.ref_note, want);
    cr_expect_eq(s.eval_points, -1);
    char *line = printed(&s, LINE, NULL);
    char tail[320];
    snprintf(tail, sizeof tail, "      -  missing (%s)\n", want);
    cr_expect(strstr(line, tail), "%s", line);
    free(line);
    char *json = printed(&s, JSON, NULL);
    cr_expect(strstr(json, "\"reference\":\"missing\",\"eval_points\":null}"), "%s", json);
    free(json);
    unsetenv(PF_REFS_DIR_ENV);
    rmdir(dir);
}

/* Each hard transform's lift: exact for every output, some, or none. */
Test(pde_summary, details_say_which_lifts_solve_the_pde)
{
    pf_pde_summary s = summary_of("allen_cahn_1d");
    char *details = printed(&s, DETAILS, NULL);
    const char *head = "boundary-only lifts (each transform with N = 0):\n"
                       "  front_and_walls    solves the PDE exactly: the front ";
    cr_expect(!strncmp(details, head, strlen(head)), "%s", details);
    cr_expect(strstr(details, "\nreference: analytic\nevaluation points: 2556\n"), "%s", details);
    free(details);
    s = summary_of("kovasznay_flow_2d");
    details = printed(&s, DETAILS, NULL);
    cr_expect(strstr(details, "\n  walls              exact for p only: "), "%s", details);
    free(details);
    s = summary_of("wave_1d");
    details = printed(&s, DETAILS, NULL);
    cr_expect_str_eq(details, "boundary-only lifts (each transform with N = 0):\n"
                              "  initial_and_walls  not the solution: the network carries the rest\n"
                              "reference: analytic\nevaluation points: 2500\n");
    free(details);
}
