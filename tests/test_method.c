/*
 * test_method.c — the table of methods (llm/methods.def, llm/method.h):
 * every row is whole and consistent, the flags give the paper's
 * information table (appendix A.6), the tables' column order is a
 * permutation, each baseline's slots are named, and Make reads the same
 * list of methods (pipeline.mk's ALL_METHODS and BASELINE_METHODS).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/asset_dir.h"
#include "llm/method.h"
#include "search/run.h"

Test(method, every_row_is_whole_and_the_orders_a_permutation)
{
    bool order_seen[PF_METHOD_COUNT] = {false};
    for (int i = 0; i < PF_METHOD_COUNT; i++) {
        const pf_method_def *d = pf_method_def_of((pf_method)i);
        cr_assert(d && d->id == (pf_method)i && d->name && *d->name && d->label && *d->label, "row %d", i);
        cr_assert(d->order >= 0 && d->order < PF_METHOD_COUNT && !order_seen[d->order], "%s: order %d", d->name,
                  d->order);
        order_seen[d->order] = true;
        cr_assert_eq(pf_method_def_named(d->name), d);
        pf_method m;
        cr_assert_eq(pf_method_from_name(d->name, &m), PF_OK);
        cr_assert_eq(m, (pf_method)i);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(d->label, pf_method_def_of((pf_method)j)->label, "two columns labelled alike");
        bool base = d->flags & PF_MF_BASELINE;
        cr_assert_eq(base, pf_method_is_baseline(m));
        cr_assert_eq(base, d->slot_names != NULL, "%s: a baseline names its slots, a search does not", d->name);
        int total = 0;
        for (int g = 0; g <= PF_RUN_MAX_GENERATION; g++) {
            int n = pf_run_slots(m, g);
            total += n;
            for (int k = 0; k < n; k++) cr_assert(pf_run_slot_name(m, g, k), "%s gen %d slot %d", d->name, g, k);
            cr_assert_null(pf_run_slot_name(m, g, n));
        }
        if (base) cr_assert_eq(total, 5, "%s: a baseline has five candidates (paper B.8), not %d", d->name, total);
    }
    cr_assert_null(pf_method_def_of(PF_METHOD_COUNT));
    cr_assert_null(pf_method_def_named("pinn_forge"));
    pf_method m;
    cr_assert_eq(pf_method_from_name("pinn_forge", &m), PF_ERR_INVALID);
}

/* Appendix A.6: what each search method may see. */
Test(method, the_flags_are_the_papers_information_table)
{
    static const struct {
        const char *name;
        bool k, m, f, p, ablation;
    } want[] = {{"pinnforge", 1, 1, 1, 1, 0},
                {"no_knowledge", 0, 0, 1, 1, 1},
                {"no_feedback", 1, 0, 0, 1, 1},
                {"no_evolution", 1, 1, 1, 0, 1}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        pf_method m;
        cr_assert_eq(pf_method_from_name(want[i].name, &m), PF_OK);
        cr_expect_eq(pf_method_has_knowledge(m), want[i].k, "%s", want[i].name);
        cr_expect_eq(pf_method_has_memory(m), want[i].m, "%s", want[i].name);
        cr_expect_eq(pf_method_has_feedback(m), want[i].f, "%s", want[i].name);
        cr_expect_eq(pf_method_has_parents(m), want[i].p, "%s", want[i].name);
        cr_expect_eq(pf_method_is_ablation(m), want[i].ablation, "%s", want[i].name);
        cr_expect_not(pf_method_is_baseline(m), "%s", want[i].name);
        cr_expect_eq(pf_run_slots(m, 0), PF_RUN_GEN0_SLOTS);
        cr_expect_eq(pf_run_slots(m, 9), PF_RUN_GEN_SLOTS);
    }
    for (int i = 0; i < PF_METHOD_COUNT; i++)
        if (pf_method_is_baseline((pf_method)i))
            cr_expect(!pf_method_has_knowledge((pf_method)i) && !pf_method_has_memory((pf_method)i) &&
                          !pf_method_has_feedback((pf_method)i) && !pf_method_has_parents((pf_method)i),
                      "%s sees the search", pf_method_name((pf_method)i));
}

/* Make's lists come from the same rows: `make` prints them, and each
 * baseline's candidates (generation.slot pairs: the count and the last). */
Test(method, make_reads_the_same_methods)
{
    char root[PF_ASSET_PATH_MAX], cmd[PF_ASSET_PATH_MAX + 512];
    cr_assert_eq(pf_asset_path("src", "llm/methods.def", NULL, root, sizeof root), PF_OK, "%s", pf_errmsg());
    root[strlen(root) - strlen("src/llm/methods.def")] = 0; /* the checkout: "" or ".../" */
    if (!*root) strcpy(root, ".");
    snprintf(cmd, sizeof cmd,
             "printf 'include Makefile\\np:\\n\\t@echo \"MA: $(ALL_METHODS)\"\\n\\t@echo \"MB: $(BASELINE_METHODS)\"\\n"
             "\\t@echo \"MC: $(foreach m,$(BASELINE_METHODS),$(m):$(words $(call baseline_cands,$(m))):$(lastword "
             "$(call baseline_cands,$(m))))\"\\n' | "
             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' -f - p 2>&1 | grep '^M[ABC]: '",
             root);
    FILE *p = popen(cmd, "r");
    cr_assert(p);
    char all[512] = "", base[512] = "", cands[512] = "";
    cr_assert(fgets(all, sizeof all, p) && fgets(base, sizeof base, p) && fgets(cands, sizeof cands, p),
              "make printed: %s", all);
    pclose(p);
    char want_all[512] = "MA: ", want_base[512] = "MB: ", want_cands[512] = "MC: ";
    for (int i = 0; i < PF_METHOD_COUNT; i++) {
        const pf_method_def *d = pf_method_def_of((pf_method)i);
        strcat(strcat(want_all, i ? " " : ""), d->name);
        if (!(d->flags & PF_MF_BASELINE)) continue;
        strcat(strcat(want_base, want_base[4] ? " " : ""), d->name);
        size_t n = strlen(want_cands);
        snprintf(want_cands + n, sizeof want_cands - n, "%s%s:%d:%d.%d", want_cands[4] ? " " : "", d->name,
                 d->generations * d->slots, d->generations - 1, d->slots - 1);
    }
    strcat(want_all, "\n"), strcat(want_base, "\n"), strcat(want_cands, "\n");
    cr_expect_str_eq(all, want_all);
    cr_expect_str_eq(base, want_base);
    cr_expect_str_eq(cands, want_cands);
}

/* The stages' --help name methods from the table (issue 35, item 11:
 * pf-propose's said "vanilla or ropinn" after pinnsformer came): the fixed-
 * spec baselines, the planned one, every baseline, in row order; a list
 * that does not fit is cut, never overrun. */
Test(method, help_lists_come_from_the_table)
{
    char b[256];
    cr_expect_str_eq(pf_method_names(PF_MF_BASELINE, PF_MF_LLM, ", ", " or ", b, sizeof b),
                     "vanilla, ropinn or pinnsformer");
    cr_expect_str_eq(pf_method_names(PF_MF_BASELINE | PF_MF_LLM, 0, ", ", " or ", b, sizeof b), "pinnsagent");
    cr_expect_str_eq(pf_method_names(PF_MF_BASELINE, 0, "|", "|", b, sizeof b), "vanilla|ropinn|pinnsagent|pinnsformer");
    cr_expect_str_eq(pf_method_names(PF_MF_LLM, PF_MF_MEMORY | PF_MF_BASELINE, ", ", ", ", b, sizeof b),
                     "no_knowledge, no_feedback");
    cr_expect_str_eq(pf_method_names(PF_MF_BASELINE | PF_MF_ABLATION, 0, ", ", " or ", b, sizeof b), "");
    char small[10];
    cr_expect_str_eq(pf_method_names(PF_MF_BASELINE, 0, "|", "|", small, sizeof small), "vanilla|r");
    int n = 0;
    for (int m = 0; m < PF_METHOD_COUNT; m++) n += pf_method_is_baseline((pf_method)m);
    pf_method_names(PF_MF_BASELINE, 0, "|", "|", b, sizeof b);
    int bars = 0;
    for (const char *p = b; *p; p++) bars += *p == '|';
    cr_expect_eq(bars + 1, n, "every baseline of the table: %s", b);
}
