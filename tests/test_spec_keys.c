/*
 * test_spec_keys.c — the spec's field names (spec/spec_keys.def, spec.h's
 * pf_spec_key): the rows are the table's paths, all of them, in the
 * table's order (pf_spec_walk_paths), and each row's key is its path's
 * last member.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "spec/spec.h"

typedef struct walked {
    int n;
    char path[PF_SK_COUNT + 1][PF_SPEC_PATH_MAX];
} walked;

static void collect(const char *path, void *arg)
{
    walked *w = arg;
    cr_assert_lt(w->n, PF_SK_COUNT + 1, "the table has a path spec_keys.def lacks: %s", path);
    cr_assert_lt(strlen(path), PF_SPEC_PATH_MAX);
    strcpy(w->path[w->n++], path);
}

Test(spec_keys, the_rows_are_the_tables_paths_in_order)
{
    static walked w;
    pf_spec_walk_paths(collect, &w);
    for (int k = 0; k < PF_SK_COUNT && k < w.n; k++)
        cr_assert_str_eq(pf_spec_paths[k], w.path[k], "row %d of spec_keys.def", k);
    cr_assert_eq(w.n, PF_SK_COUNT, "the table has %d paths, spec_keys.def %d rows", w.n, PF_SK_COUNT);
    for (int k = 0; k < PF_SK_COUNT; k++)
        for (int j = 0; j < k; j++) cr_assert_str_neq(pf_spec_paths[k], pf_spec_paths[j]);
}

Test(spec_keys, a_rows_key_is_its_paths_last_member)
{
    for (int k = 0; k < PF_SK_COUNT; k++) {
        const char *p = pf_spec_paths[k], *dot = strrchr(p, '.');
        cr_assert_eq(pf_spec_key_name((pf_spec_key)k), dot ? dot + 1 : p, "%s", p);
    }
    cr_assert_str_eq(PF_SK_PATH(ARCH_TYPE), "architecture.type");
    cr_assert_str_eq(PF_SK(ARCH_TYPE), "type");
    cr_assert_str_eq(PF_SK(REPR), "representation");
    cr_assert_str_eq(PF_SK_PATH(STAGE_ADAM_SCHED_COSINE_LR_MIN), "optimization.stages.adam.schedule.cosine.lr_min");
    cr_assert_str_eq(PF_SK_PATH(TRAIN_REGION_R0), "training.region_optimization.true.r0");
    cr_assert_eq(pf_spec_default_num(PF_SK_PATH(ARCH_WIDTH)), 100);
}
