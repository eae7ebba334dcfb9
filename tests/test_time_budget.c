/*
 * test_time_budget.c — search/time_budget.h: TIME_BUDGET's text, the rule
 * that gives each training its time limit, and the cost model's fit.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "search/time_budget.h"

Test(time_budget, parse)
{
    long s;
    cr_assert_eq(pf_time_budget_parse("45m", &s), PF_OK);
    cr_assert_eq(s, 2700);
    cr_assert_eq(pf_time_budget_parse("2h", &s), PF_OK);
    cr_assert_eq(s, 7200);
    cr_assert_eq(pf_time_budget_parse("90s", &s), PF_OK);
    cr_assert_eq(s, 90);
    cr_assert_eq(pf_time_budget_parse("300", &s), PF_OK);
    cr_assert_eq(s, 300);
    const char *bad[] = {"", "0", "-5m", "45x", "m", "4.5m", "45mm", " 45m", "31d", "721h"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(pf_time_budget_parse(bad[i], &s), PF_ERR_INVALID, "'%s' was taken", bad[i]);
}

static pf_time_plan search_plan(double budget, double elapsed, int jobs, int g, int done)
{
    pf_time_plan p = {.budget_s = budget, .elapsed_s = elapsed, .jobs = jobs, .generation = g, .ngen = 10,
                      .top = 3, .done = done, .hifi_share = PF_TIME_BUDGET_HIFI_SHARE};
    for (int h = 0; h < 10; h++) p.slots[h] = h == 0 ? 8 : 5;
    return p;
}

/* The rule by hand: 2,700 s at -j2: the low fidelity ends at 2,025 s; gen 0
 * has 4 waves (8 slots), gens 1..9 3 waves each (5 slots): 31 waves. */
Test(time_budget, limit_rule)
{
    pf_time_plan p = search_plan(2700, 0, 2, 0, 0);
    cr_assert_float_eq(pf_time_budget_limit(&p), PF_TIME_BUDGET_SAFETY * 2025.0 / 31, 1e-9);
    /* two of generation 0 done, 100 s later: one wave less */
    p = search_plan(2700, 100, 2, 0, 2);
    cr_assert_float_eq(pf_time_budget_limit(&p), PF_TIME_BUDGET_SAFETY * 1925.0 / 30, 1e-9);
    /* generation 9 at 1,900 s: 3 waves in the 125 s left */
    p = search_plan(2700, 1900, 2, 9, 0);
    cr_assert_float_eq(pf_time_budget_limit(&p), PF_TIME_BUDGET_SAFETY * 125.0 / 3, 1e-9);
    /* the high-fidelity Top-3 at 2,000 s: 2 waves in the 700 s left */
    p = search_plan(2700, 2000, 2, -1, 0);
    cr_assert_float_eq(pf_time_budget_limit(&p), PF_TIME_BUDGET_SAFETY * 350.0, 1e-9);
    /* one job: 8 + 45 waves */
    p = search_plan(2700, 0, 1, 0, 0);
    cr_assert_float_eq(pf_time_budget_limit(&p), PF_TIME_BUDGET_SAFETY * 2025.0 / 53, 1e-9);
    /* spent: the minimum, whatever is asked */
    p = search_plan(2700, 2600, 2, 5, 0);
    cr_assert_eq(pf_time_budget_limit(&p), PF_TIME_BUDGET_MIN_S);
    p = search_plan(2700, 9000, 2, -1, 0);
    cr_assert_eq(pf_time_budget_limit(&p), PF_TIME_BUDGET_MIN_S);
    /* a baseline (no Top-3): all of the budget for its five, at -j5 one wave */
    pf_time_plan b = {.budget_s = 600, .jobs = 5, .generation = 0, .ngen = 10, .slots = {5}, .top = 0,
                      .hifi_share = PF_TIME_BUDGET_HIFI_SHARE};
    cr_assert_float_eq(pf_time_budget_limit(&b), PF_TIME_BUDGET_SAFETY * 600.0, 1e-9);
}

/* Every limit of a search that uses exactly its limits: the trainings end
 * within the budget (the safety factor is what is left over). */
Test(time_budget, limits_fit_the_budget)
{
    for (int jobs = 1; jobs <= 5; jobs++) {
        double t = 0;
        for (int g = 0; g < 10; g++) {
            int n = g == 0 ? 8 : 5;
            for (int done = 0; done < n; done += jobs) {
                pf_time_plan p = search_plan(3600, t, jobs, g, done);
                t += pf_time_budget_limit(&p); /* one wave, its trainings side by side */
            }
        }
        cr_assert_leq(t, 0.75 * 3600 + 1e-6, "-j%d: low fidelity took %g s", jobs, t);
        for (int done = 0; done < 3; done += jobs) {
            pf_time_plan p = search_plan(3600, t, jobs, -1, done);
            t += pf_time_budget_limit(&p);
        }
        cr_assert_leq(t, 3600 + 1e-6, "-j%d: %g s", jobs, t);
        cr_assert_geq(t, 0.75 * 3600, "-j%d: %g s leaves most of the budget unused", jobs, t);
    }
}

Test(time_budget, streams_and_work)
{
    int orders[] = {2, 2, 1};
    cr_assert_eq(pf_cost_streams(orders, 3), 6);
    cr_assert_eq(pf_cost_streams(orders, 0), 1);
    cr_assert_float_eq(pf_cost_work(1000, 2048, 6), 12288000.0, 1e-6);
}

/* Exact data t = c w + o is fitted back; one training gives the ratio; none
 * the default; a negative slope falls back to the ratio. */
Test(time_budget, cost_fit)
{
    double w[] = {1e6, 4e6, 2e7, 5e5, NAN}, t[5];
    for (int i = 0; i < 4; i++) t[i] = 3e-9 * w[i] + 2e-3;
    t[4] = 1;
    pf_cost_model m = pf_cost_fit(w, t, 5);
    cr_assert_eq(m.n, 4);
    cr_assert_float_eq(m.c, 3e-9, 1e-15);
    cr_assert_float_eq(m.overhead_s, 2e-3, 1e-9);
    cr_assert_float_eq(pf_cost_predict(&m, 1e7, 100), 100 * (3e-2 + 2e-3), 1e-9);
    m = pf_cost_fit(w, t, 1);
    cr_assert_eq(m.n, 1);
    cr_assert_float_eq(m.c, t[0] / w[0], 1e-18);
    cr_assert_eq(m.overhead_s, 0);
    m = pf_cost_fit(w, t, 0);
    cr_assert_eq(m.n, 0);
    cr_assert_eq(m.c, PF_COST_DEFAULT_C);
    double wd[] = {1e6, 2e6}, td[] = {2e-3, 1e-3};
    m = pf_cost_fit(wd, td, 2);
    cr_assert_float_eq(m.c, 3e-3 / 3e6, 1e-18);
    cr_assert_eq(m.overhead_s, 0);
    char line[512];
    pf_cost_prompt_line(&(pf_cost_model){.c = 1e-9, .overhead_s = 0.01}, 100, 12, line, sizeof line);
    cr_assert(strstr(line, "1e+09"), "%s", line);
    cr_assert(strstr(line, "about 12 s for each training"), "%s", line);
}
