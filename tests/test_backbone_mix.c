/*
 * test_backbone_mix.c — search/backbone_mix.h: a mixture's names checked
 * against the backbones file (llm/backbones.h pf_llm_mix_parse), the
 * reward, UCB1's values by hand on a small history, the virtual-pull rule
 * for the slots of one generation, and the seeded tie-break.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "llm/backbones.h"
#include "search/backbone_mix.h"

static const char FILE_TEXT[] = "[{\"name\": \"good\", \"url\": \"http://127.0.0.1:1/v1\", \"model\": \"g\"},"
                                " {\"name\": \"poor\", \"url\": \"http://127.0.0.1:2/v1\", \"model\": \"p\"},"
                                " {\"name\": \"flaky\", \"url\": \"http://127.0.0.1:3/v1\", \"model\": \"f\"}]";

static pf_llm_backbones *table(void)
{
    pf_llm_backbones *t = NULL;
    cr_assert_eq(pf_llm_backbones_parse(FILE_TEXT, strlen(FILE_TEXT), "llms.json", &t), PF_OK, "%s", pf_errmsg());
    return t;
}

Test(backbone_mix, a_mixture_names_backbones_of_the_file)
{
    pf_llm_backbones *t = table();
    pf_llm_mix m;
    cr_assert_eq(pf_llm_mix_parse(t, "mix:flaky,good", &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(m.n, 2);
    cr_assert_str_eq(m.arm[0]->name, "flaky");
    cr_assert_str_eq(m.arm[1]->name, "good");
    cr_assert(pf_llm_is_mix("mix:a,b") && !pf_llm_is_mix("good") && !pf_llm_is_mix(NULL));
    static const struct {
        const char *value, *says;
    } bad[] = {
        {"good,poor", "not a mixture"},
        {"mix:good", "at least 2"},
        {"mix:good,good", "'good' is named twice"},
        {"mix:good,nope", "no backbone 'nope' in llms.json (it has: good, poor, flaky"},
        {"mix:good,,poor", "empty"},
        {"mix:", "empty"},
        {"mix:good,offline", "'offline' cannot be an arm"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_eq(pf_llm_mix_parse(t, bad[i].value, &m), PF_ERR_INVALID, "%s", bad[i].value);
        cr_assert(strstr(pf_errmsg(), bad[i].says), "%s: %s", bad[i].value, pf_errmsg());
        if (strncmp(bad[i].value, "mix:", 4) == 0)
            cr_assert(strstr(pf_errmsg(), bad[i].value), "names the value: %s", pf_errmsg());
    }
    /* the longest mixture leaves room for its run folder's name (<method>@mix+..., 255 bytes at most) */
    char names[PF_LLM_MIX_MAX][PF_LLM_BACKBONE_NAME_MAX + 1], longest[PF_LLM_MIX_TEXT_MAX + 64];
    int n;
    snprintf(longest, sizeof longest, "mix:%060d,%060d,%060d,%053d", 1, 2, 3, 4); /* 240 characters */
    cr_assert_eq(strlen(longest), PF_LLM_MIX_TEXT_MAX);
    cr_assert_eq(pf_llm_mix_names(longest, names, &n), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(n, 4);
    cr_assert_leq(strlen("no_evolution@") + strlen(longest), 255);
    strcat(longest, "5");
    cr_assert_eq(pf_llm_mix_names(longest, names, &n), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "at most 240 characters"), "%s", pf_errmsg());
    pf_llm_backbones_free(t);
}

Test(backbone_mix, the_reward_is_log10_against_the_median_clipped)
{
    cr_assert_eq(pf_mix_reward(false, true, 1e-3, 1e-3), 0);
    cr_assert_eq(pf_mix_reward(true, false, NAN, 1e-3), 0);
    cr_assert_float_eq(pf_mix_reward(true, true, 1e-3, 1e-3), 0.5, 1e-15);
    cr_assert_float_eq(pf_mix_reward(true, true, 1e-4, 1e-3), 1.0, 1e-15);
    cr_assert_float_eq(pf_mix_reward(true, true, 1e-6, 1e-3), 1.0, 1e-15);
    cr_assert_float_eq(pf_mix_reward(true, true, 1e-2, 1e-3), 0.0, 1e-15);
    cr_assert_float_eq(pf_mix_reward(true, true, 1e-3 / sqrt(10), 1e-3), 0.75, 1e-12);
    cr_assert_eq(pf_mix_reward(true, true, 1.0, NAN), 0);
}

static void arm(pf_mix_arm *a, const char *name, int pulls, double reward, int pending)
{
    memset(a, 0, sizeof *a);
    strcpy(a->name, name);
    a->pulls = pulls, a->reward = reward, a->pending = pending;
}

/* By hand: A 4 pulls, rewards 3.0 (mean 0.75); B 2 pulls, 0.2 (0.1); C 1
 * pull, 0 (0). N = 7: UCB_A = 0.75 + sqrt(2 ln 7 / 4) = 1.7363849,
 * UCB_B = 0.1 + sqrt(2 ln 7 / 2) = 1.4949588, UCB_C = sqrt(2 ln 7) =
 * 1.9727697: C. With C holding 2 pending pulls more (n_C = 3, N = 9):
 * UCB_A = 0.75 + sqrt(2 ln 9 / 4) = 1.7981471, UCB_B = 1.5823038,
 * UCB_C = sqrt(2 ln 9 / 3) = 1.2102960: A. */
Test(backbone_mix, ucb1_values_by_hand)
{
    pf_mix_arm a[3];
    arm(&a[0], "A", 4, 3.0, 0), arm(&a[1], "B", 2, 0.2, 0), arm(&a[2], "C", 1, 0.0, 0);
    int ties = 0;
    cr_assert_eq(pf_mix_ucb1(a, 3, 7, 1, 0, &ties), 2);
    cr_assert_eq(ties, 1);
    cr_assert_float_eq(a[0].mean, 0.75, 1e-15);
    cr_assert_float_eq(a[1].mean, 0.1, 1e-15);
    cr_assert_float_eq(a[0].ucb, 1.7363848511, 1e-9);
    cr_assert_float_eq(a[1].ucb, 1.4949588342, 1e-9);
    cr_assert_float_eq(a[2].ucb, 1.9727697022, 1e-9);
    a[2].pending = 2;
    cr_assert_eq(pf_mix_ucb1(a, 3, 7, 1, 0, &ties), 0);
    cr_assert_float_eq(a[0].ucb, 1.7981470740, 1e-9);
    cr_assert_float_eq(a[1].ucb, 1.5823038074, 1e-9);
    cr_assert_float_eq(a[2].ucb, 1.2102959906, 1e-9);
}

/* Slots of one generation: each earlier slot is a pending pull of its arm.
 * From the history above, slot 0 goes to C (1.97); slot 1 sees n_C = 2,
 * N = 8: A 0.75 + sqrt(2 ln 8 / 4) = 1.7697, B 0.1 + sqrt(ln 8) = 1.5420,
 * C sqrt(ln 8) = 1.4420: A; slot 2 sees n_A = 5, N = 9: A 0.75 +
 * sqrt(2 ln 9 / 5) = 1.6874, B 1.5823, C sqrt(ln 9) = 1.4823: A again. */
Test(backbone_mix, earlier_slots_are_pending_pulls)
{
    static const int want[] = {2, 0, 0};
    for (int k = 0; k < 3; k++) {
        pf_mix_arm a[3];
        arm(&a[0], "A", 4, 3.0, 0), arm(&a[1], "B", 2, 0.2, 0), arm(&a[2], "C", 1, 0.0, 0);
        cr_assert_eq(pf_mix_allocate(a, 3, 7, 1, k, NULL), want[k], "slot %d", k);
        int pending = a[0].pending + a[1].pending + a[2].pending;
        cr_assert_eq(pending, k, "slot %d sees its %d earlier slots as pending pulls", k, k);
    }
    pf_mix_arm a[3];
    arm(&a[0], "A", 4, 3.0, 0), arm(&a[1], "B", 2, 0.2, 0), arm(&a[2], "C", 1, 0.0, 0);
    pf_mix_allocate(a, 3, 7, 1, 2, NULL);
    cr_assert_float_eq(a[0].ucb, 0.75 + sqrt(2 * log(9.0) / 5), 1e-12);
    cr_assert_float_eq(a[2].ucb, sqrt(log(9.0)), 1e-12);
    /* Untried arms come first: the first three slots of generation 0 take all three. */
    int seen = 0;
    for (int k = 0; k < 3; k++) {
        pf_mix_arm u[3];
        arm(&u[0], "A", 0, 0, 0), arm(&u[1], "B", 0, 0, 0), arm(&u[2], "C", 0, 0, 0);
        seen |= 1 << pf_mix_allocate(u, 3, 11, 0, k, NULL);
    }
    cr_assert_eq(seen, 7);
}

Test(backbone_mix, ties_are_broken_by_the_seed)
{
    int count[3] = {0}, differ = 0;
    for (int seed = 0; seed < 30; seed++) {
        pf_mix_arm a[3];
        arm(&a[0], "A", 2, 1.0, 0), arm(&a[1], "B", 2, 1.0, 0), arm(&a[2], "C", 2, 1.0, 0);
        int ties = 0, first = pf_mix_ucb1(a, 3, (uint64_t)seed, 2, 1, &ties);
        cr_assert_eq(ties, 3);
        cr_assert_eq(pf_mix_ucb1(a, 3, (uint64_t)seed, 2, 1, NULL), first, "the same seed, the same draw");
        count[first]++;
        differ += pf_mix_ucb1(a, 3, (uint64_t)seed, 2, 2, NULL) != first; /* another slot, another draw */
    }
    for (int i = 0; i < 3; i++) cr_assert_gt(count[i], 0, "arm %d never drawn in 30 seeds", i);
    cr_assert_gt(differ, 0);
}
