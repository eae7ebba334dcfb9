/*
 * test_pinnsagent_labels.c — PINNsAgent's PDE labels (src/pinnsagent/labels.h):
 * all 25 of our PDEs are labelled (17 by the shared file, 8 by ours), the
 * 34-number one-hot encoding as docs/baselines.md gives it (the special
 * boundary codes included), the cosine matrix of three PDEs against a hand
 * computation, malformed label files named by file and line.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "pinnsagent_fixture.h"
#include "registry.h"

#define OWN_LABELS "data/pinnsagent/labels.tsv"

/* A label from its ten names, in field order. */
static pf_pa_label make(const char *const names[PF_PA_FIELD_COUNT])
{
    pf_pa_label l = {.name = "made"};
    for (int f = 0; f < PF_PA_FIELD_COUNT; f++) {
        l.label[f] = -1;
        for (int i = 0; i < pf_pa_field_label_count(f); i++)
            if (!strcmp(pf_pa_field_label(f, i), names[f])) l.label[f] = i;
        cr_assert_geq(l.label[f], 0, "label '%s'", names[f]);
    }
    return l;
}

static const char *const burgers_1d[] = {"Burgers", "parabolic", "1d", "nonlinear", "time-dependent",
                                         "dirichlet", "initial-condition", "constant-coefficient", "short-time",
                                         "simple-geometry"};

Test(pa_labels, encoding_follows_the_shared_readme)
{
    double v[PF_PA_LABEL_DIM];
    pf_pa_label b = make(burgers_1d);
    pf_pa_label_encode(&b, v);
    /* the vector agents/retriever.py prints for Burgers1D */
    static const double want[PF_PA_LABEL_DIM] = {1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1,
                                                 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0};
    for (int i = 0; i < PF_PA_LABEL_DIM; i++) cr_assert_eq(v[i], want[i], "index %d", i);

    /* boundary (numbers 21..24): mixed-boundary all ones, no-boundary-condition all zeros */
    static const char *const heat_nd[] = {"Heat", "parabolic", "nd", "linear", "time-dependent", "mixed-boundary",
                                          "initial-condition", "constant-coefficient", "short-time", "simple-geometry"};
    pf_pa_label h = make(heat_nd);
    pf_pa_label_encode(&h, v);
    for (int i = 21; i < 25; i++) cr_assert_eq(v[i], 1);
    cr_assert_eq(v[2], 1, "Heat is family 3 of 8");
    cr_assert_eq(v[15], 1, "nd is dimension 4 of 5 (numbers 12..16)");
    double sum = 0;
    for (int i = 0; i < PF_PA_LABEL_DIM; i++) sum += v[i];
    cr_assert_eq(sum, 13);

    static const char *const inv[] = {"Inverse", "elliptic", "inverse", "linear", "time-independent",
                                      "no-boundary-condition", "no-initial-condition", "inverse-coefficient",
                                      "long-time", "complex-geometry"};
    pf_pa_label q = make(inv);
    pf_pa_label_encode(&q, v);
    static const double want_inv[PF_PA_LABEL_DIM] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0,
                                                     0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1};
    for (int i = 0; i < PF_PA_LABEL_DIM; i++) cr_assert_eq(v[i], want_inv[i], "index %d", i);
}

Test(pa_labels, cosine_matrix_of_three_pdes_by_hand)
{
    pf_pa_labels *ls = shared_labels();
    const char *names[3] = {"burgers_1d", "heat_5d", "gray_scott_2d"};
    const pf_pa_label *l[3];
    for (int i = 0; i < 3; i++) cr_assert_not_null(l[i] = pf_pa_labels_find(ls, names[i]), "%s", names[i]);
    /* Burgers1D has 10 ones, HeatND 13 (mixed-boundary: 1111), GrayScott 9 (no boundary: 0000).
     * shared ones: B.H: parabolic, time-dependent, dirichlet.1111 = 1, initial, constant, short, simple = 7
     *              B.G: parabolic, nonlinear, time-dependent, initial, constant, simple = 6
     *              H.G: parabolic, time-dependent, initial, constant, simple = 5 */
    const double want[3][3] = {{1, 7 / sqrt(130), 6 / sqrt(90)},
                               {7 / sqrt(130), 1, 5 / sqrt(117)},
                               {6 / sqrt(90), 5 / sqrt(117), 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cr_assert_float_eq(pf_pa_label_cosine(l[i], l[j]), want[i][j], 1e-15, "%s %s", names[i], names[j]);
    cr_assert_float_eq(want[0][1], 0.6139406135149205, 1e-15);
    cr_assert_float_eq(want[0][2], 0.6324555320336759, 1e-15);
    cr_assert_float_eq(want[1][2], 0.4622501635210242, 1e-15);
    /* and the one retriever.py prints: Burgers1D vs Burgers2D (1d/2d, dirichlet/periodic) = 8/10 */
    cr_assert_float_eq(pf_pa_label_cosine(l[0], pf_pa_labels_find(ls, "Burgers2D")), 0.8, 1e-15);
    pf_pa_labels_free(ls);
}

Test(pa_labels, all_25_of_our_pdes_are_labelled)
{
    pf_pa_labels *ls = shared_labels();
    cr_assert_eq(pf_pa_labels_count(ls), 26, "18 shared (Wave2D_LongTime included) + 8 ours");
    cr_assert_eq(pf_pdes_count(), 25);
    int ours = 0;
    for (int i = 0; i < pf_pdes_count(); i++) {
        const char *name = pf_pdes_at(i)->name;
        const pf_pa_label *l = pf_pa_labels_find(ls, name);
        cr_assert_not_null(l, "%s has no labels", name);
        cr_assert_str_eq(l->pde, name);
        ours += !strcmp(l->file + strlen(l->file) - strlen(OWN_LABELS), OWN_LABELS);
    }
    cr_assert_eq(ours, 8);
    const pf_pa_label *w = pf_pa_labels_find(ls, "Wave2D_LongTime");
    cr_assert_not_null(w);
    cr_assert_null(w->pde);
    cr_assert_str_eq(pf_pa_field_label(PF_PA_HORIZON, w->label[PF_PA_HORIZON]), "long-time");
    /* a shared entry by task and by PDE name alike */
    cr_assert_eq(pf_pa_labels_find(ls, "Heat2D_Multiscale"), pf_pa_labels_find(ls, "heat_2d_multiscale"));
    pf_pa_labels_free(ls);
}

Test(pa_labels, our_file_loads_on_its_own)
{
    /* without the shared data: an empty shared file and ours */
    char shared[64];
    strcpy(shared, temp_file("shared", "# nothing\n"));
    pf_pa_labels *ls;
    cr_assert_eq(pf_pa_labels_load(shared, OWN_LABELS, &ls), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_pa_labels_count(ls), 8);
    static const char *const darcy[] = {"Darcy", "elliptic", "2d", "linear", "time-independent", "dirichlet",
                                        "no-initial-condition", "variable-coefficient", "short-time",
                                        "simple-geometry"};
    pf_pa_label want = make(darcy);
    const pf_pa_label *got = pf_pa_labels_find(ls, "darcy_flow_2d");
    cr_assert_not_null(got);
    cr_assert_eq(memcmp(got->label, want.label, sizeof want.label), 0);
    cr_assert_float_eq(pf_pa_label_cosine(got, &want), 1.0, 1e-15);
    pf_pa_labels_free(ls);
    unlink(shared);
}

Test(pa_labels, malformed_files_are_named_by_file_and_line)
{
    static const struct {
        int own;                 /* the bad text is our file, else the shared one */
        const char *text, *msg;  /* msg follows "<path>:" */
    } cases[] = {
        {0, "# c\nBurgers1D\tBurgers\tparabolic\t1d\n", "2: 4 tab-separated columns, not 11 (name and ten labels)"},
        {0,
         "Burgers1D\tBurgers\tparabolic\t1d\tnonlinear\ttime-dependent\tdirichlet\tinitial-condition\tconstant-coefficient"
         "\tshort-time\tsimple\n",
         "1: geometry 'simple' is unknown; allowed: simple-geometry, complex-geometry"},
        {1,
         "\nallen_cahn\tHeat\tparabolic\t1d\tnonlinear\ttime-dependent\tdirichlet\tinitial-condition"
         "\tconstant-coefficient\tshort-time\tsimple-geometry\n",
         "2: 'allen_cahn' is not one of our PDEs (pf-pde list)"},
        {1,
         "burgers_1d\tHeat\tparabolic\t1d\tnonlinear\ttime-dependent\tdirichlet\tinitial-condition"
         "\tconstant-coefficient\tshort-time\tsimple-geometry\n",
         "1: 'burgers_1d' is labelled twice (first at SHARED:1)"},
    };
    const char *good_shared = "Burgers1D\tBurgers\tparabolic\t1d\tnonlinear\ttime-dependent\tdirichlet"
                              "\tinitial-condition\tconstant-coefficient\tshort-time\tsimple-geometry\n";
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char shared[64], own[64], want[512];
        strcpy(shared, temp_file("shared", cases[i].own ? good_shared : cases[i].text));
        strcpy(own, temp_file("own", cases[i].own ? cases[i].text : ""));
        pf_pa_labels *ls = (pf_pa_labels *)1;
        cr_assert_eq(pf_pa_labels_load(shared, own, &ls), PF_ERR_INVALID, "case %zu", i);
        cr_assert_null(ls);
        const char *at = strstr(cases[i].msg, "SHARED");
        if (at)
            snprintf(want, sizeof want, "%s:%.*s%s%s", own, (int)(at - cases[i].msg), cases[i].msg, shared, at + 6);
        else
            snprintf(want, sizeof want, "%s:%s", cases[i].own ? own : shared, cases[i].msg);
        cr_assert_str_eq(pf_errmsg(), want, "case %zu", i);
        unlink(shared);
        unlink(own);
    }
    pf_pa_labels *ls;
    cr_assert_eq(pf_pa_labels_load("/nonexistent/l.tsv", OWN_LABELS, &ls), PF_ERR_IO);
    cr_assert_str_eq(pf_errmsg(), "cannot read the PDE labels '/nonexistent/l.tsv': No such file or directory");
}

/* The shared file is checked by its SHA-256, as the CSV is: one damaged
 * name (",eat2D_VaryingCoef") still parses, as a task none of ours, and
 * would change which PDEs the knowledge replay retrieves. */
Test(pa_labels, a_shared_file_that_is_not_the_release_is_refused)
{
    char dir[] = "/tmp/pf_pa_lbl_XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/" PF_PA_LABEL_FILE, dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(",eat2D_VaryingCoef\tHeat\tparabolic\t2d\tlinear\ttime-dependent\tdirichlet\tinitial-condition"
          "\tvariable-coefficient\tshort-time\tsimple-geometry\n",
          f);
    fclose(f);
    char *old = getenv(PF_PA_DIR_ENV) ? strdup(getenv(PF_PA_DIR_ENV)) : NULL;
    setenv(PF_PA_DIR_ENV, dir, 1);
    pf_pa_labels *ls = (pf_pa_labels *)1;
    pf_status st = pf_pa_labels_open(&ls);
    char want[256];
    snprintf(want, sizeof want, "'%s' is not PINNsAgent's released pde_labels.tsv (its SHA-256 is ", path);
    cr_assert_eq(st, PF_ERR_IO);
    cr_assert_null(ls);
    cr_assert_eq(strncmp(pf_errmsg(), want, strlen(want)), 0, "%s", pf_errmsg());
    cr_assert(strstr(pf_errmsg(), "the release's is e2a9824fe6507ad6..."), "%s", pf_errmsg());
    /* without the check the same file loads, the damaged name a task of its own */
    cr_assert_eq(pf_pa_labels_load(path, OWN_LABELS, &ls), PF_OK, "%s", pf_errmsg());
    cr_assert_not_null(pf_pa_labels_find(ls, ",eat2D_VaryingCoef"));
    cr_assert_null(pf_pa_labels_find(ls, ",eat2D_VaryingCoef")->pde);
    pf_pa_labels_free(ls);
    if (old) setenv(PF_PA_DIR_ENV, old, 1), free(old);
    else unsetenv(PF_PA_DIR_ENV);
    unlink(path);
    rmdir(dir);
}

Test(pa_labels, the_released_file_passes_its_check)
{
    require_pa_data(PF_PA_LABEL_FILE);
    char path[PF_PA_PATH_MAX];
    cr_assert_eq(pf_pa_path(PF_PA_LABEL_FILE, path, sizeof path), PF_OK, "%s", pf_errmsg());
    char *text;
    size_t len;
    cr_assert_eq(pf_file_read_as(path, PF_FILE_KNOWLEDGE, &text, &len), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_pa_sha256_check(path, text, len, PF_PA_LABELS_SHA256, PF_PA_LABEL_FILE, "-"), PF_OK, "%s",
                 pf_errmsg());
    char *at = strstr(text, "\nHeat2D_VaryingCoef\t");
    cr_assert_not_null(at, "the release labels Heat2D_VaryingCoef");
    at[1] = ','; /* the damage of the issue: one byte */
    cr_assert_eq(pf_pa_sha256_check(path, text, len, PF_PA_LABELS_SHA256, PF_PA_LABEL_FILE, "-"), PF_ERR_IO);
    free(text);
}
