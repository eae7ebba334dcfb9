/*
 * test_select.c — appendix B.5's search controller (src/search/select.h),
 * driven by synthetic histories: I(x, y), the ranking of candidates, the
 * global distinct Top-3, b, B, m, A, each stagnation test firing alone and
 * not firing just past its threshold, windows, escape success by each of
 * its conditions, escape failure, termination, and select.msgpack's round
 * trip.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/msgpack_json.h"
#include "search/artifact.h"
#include "search/select.h"

/* ---------------------------------------------------------------- helpers --- */

#define NONE (-1) /* a fresh spec (hash never used before) */

static void hash_of(int id, char out[PF_SPEC_HASH_HEX])
{
    snprintf(out, PF_SPEC_HASH_HEX, "%064x", (unsigned)id);
}

static pf_candidate cand(int g, int k, int id, double y)
{
    pf_candidate c = {.generation = g, .index = k, .valid = true, .status = PF_CANDIDATE_OK, .has_y = true, .y = y};
    hash_of(id, c.spec_hash);
    snprintf(c.slot, sizeof c.slot, "slot%d", k);
    return c;
}

/* A chain of generations; s[g] the selection after generation g. */
typedef struct chain {
    pf_select *s[16];
    int n;     /* generations completed */
    int maxg;
} chain;

static void chain_init(chain *c, int maxg)
{
    memset(c, 0, sizeof *c);
    c->maxg = maxg;
}

static void chain_free(chain *c)
{
    for (int i = 0; i < c->n; i++) pf_select_free(c->s[i]);
    c->n = 0;
}

/* Complete the next generation with candidates given by y (NAN: a nan run)
 * and ids (NONE: a fresh spec, id 1000 * (g + 1) + k). */
static pf_select *gen_ids(chain *c, int n, const double *ys, const int *ids)
{
    int g = c->n;
    pf_candidate *cs = calloc((size_t)n, sizeof *cs);
    for (int k = 0; k < n; k++) {
        int id = ids && ids[k] != NONE ? ids[k] : 1000 * (g + 1) + k;
        cs[k] = cand(g, k, id, ys[k]);
        if (isnan(ys[k])) cs[k].status = PF_CANDIDATE_NAN, cs[k].has_y = false;
    }
    pf_select *s = NULL;
    pf_status st = pf_select_step(g ? c->s[g - 1] : NULL, cs, n, g, c->maxg, "burgers_1d", "pinnforge", &s);
    free(cs);
    cr_assert_eq(st, PF_OK, "generation %d: %s", g, pf_errmsg());
    c->s[c->n++] = s;
    return s;
}

#define Y(...) (int)(sizeof((double[]){__VA_ARGS__}) / sizeof(double)), (double[]){__VA_ARGS__}
#define GEN(c, ...) gen_ids((c), Y(__VA_ARGS__), NULL)
#define GENI(c, ids, ...) gen_ids((c), Y(__VA_ARGS__), (int[])ids)
#define IDS(...) {__VA_ARGS__}

static void expect_tests(const pf_select *s, bool gb, bool ea, bool pop)
{
    cr_expect_eq(s->tests.global_best, gb, "generation %d: global_best %d, expected %d", s->generation,
                 s->tests.global_best, gb);
    cr_expect_eq(s->tests.elite_archive, ea, "generation %d: elite_archive %d, expected %d", s->generation,
                 s->tests.elite_archive, ea);
    cr_expect_eq(s->tests.population, pop, "generation %d: population %d, expected %d", s->generation,
                 s->tests.population, pop);
}

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1, fabs(b));
}

/* ---------------------------------------------------------------- I(x, y) --- */

Test(select, improvement)
{
    cr_expect(close_to(pf_select_improvement(2, 1), 0.5));
    cr_expect(close_to(pf_select_improvement(1, 0), 1));
    cr_expect(close_to(pf_select_improvement(-2, -3), 0.5), "|x| in the denominator");
    cr_expect_eq(pf_select_improvement(1, 2), 0, "a worse value is no improvement");
    cr_expect_eq(pf_select_improvement(1, 1), 0);
    cr_expect_eq(pf_select_improvement(0, -1), 0, "x = 0");
    cr_expect_eq(pf_select_improvement(INFINITY, 1), 0, "x = inf");
    cr_expect_eq(pf_select_improvement(1, -INFINITY), 0, "y = -inf");
    cr_expect_eq(pf_select_improvement(1, INFINITY), 0, "y = inf");
    cr_expect_eq(pf_select_improvement(NAN, 1), 0, "x = NaN");
    cr_expect_eq(pf_select_improvement(1, NAN), 0, "y = NaN");
    cr_expect(pf_select_improvement(1, 0.989) > PF_SELECT_STEP_TOL);
    cr_expect(pf_select_improvement(1, 0.991) < PF_SELECT_STEP_TOL);
}

Test(select, median_top3)
{
    cr_expect(isnan(pf_select_median_top3((double[]){1, 2}, 2)));
    cr_expect_eq(pf_select_median_top3((double[]){3, 1, 2}, 3), 2);
    cr_expect_eq(pf_select_median_top3((double[]){9, 5, 1, 7, 2, 2}, 6), 2, "duplicates count");
    cr_expect_eq(pf_select_median_top3((double[]){4, 8, 6, 5}, 4), 5);
}

/* ---------------------------------------------------------------- ranking --- */

Test(select, only_ranked_candidates_count)
{
    pf_candidate c[7];
    c[0] = cand(0, 0, 1, 1.0);                                  /* ranked            */
    c[1] = cand(0, 1, 2, 0.1), c[1].status = PF_CANDIDATE_NAN;     /* nan with a y      */
    c[2] = cand(0, 2, 3, 0.01), c[2].status = PF_CANDIDATE_TIMEOUT;
    c[3] = cand(0, 3, 4, 0.02), c[3].status = PF_CANDIDATE_DIVERGED;
    c[4] = cand(0, 4, 5, 0.03), c[4].has_y = false;             /* ok, no y          */
    c[5] = cand(0, 5, 6, INFINITY);                             /* ok, y not finite  */
    c[6] = cand(0, 6, 7, 0.001), c[6].valid = false, c[6].status = PF_CANDIDATE_INVALID, c[6].spec_hash[0] = 0;
    pf_select *s;
    cr_assert_eq(pf_select_step(NULL, c, 7, 0, 10, NULL, NULL, &s), PF_OK, "%s", pf_errmsg());
    cr_expect_eq(s->ncand, 7, "every candidate stays in the history");
    cr_expect_eq(s->ntop3, 1);
    cr_expect_eq(s->top3[0], 0);
    cr_expect_eq(s->b[0], 1.0);
    cr_expect_eq(s->B[0], 1.0);
    cr_expect(isnan(s->m[0]), "one ranked candidate: m undefined");
    cr_expect(isnan(s->A[0]), "one archive entry: A undefined");
    cr_expect(s->new_elite[0]);
    for (int i = 1; i < 7; i++) cr_expect(!pf_candidate_ranked(&s->cand[i]), "candidate %d", i);
    cr_expect_eq(s->next, PF_SELECT_NORMAL);
    pf_select_free(s);

    /* a generation with nothing ranked: b = +inf, B carried */
    chain ch;
    chain_init(&ch, 10);
    GEN(&ch, 1.0, 2.0, 3.0);
    pf_select *s1 = GEN(&ch, NAN, NAN);
    cr_expect(isinf(s1->b[1]) && s1->b[1] > 0);
    cr_expect_eq(s1->B[1], 1.0);
    cr_expect(isnan(s1->m[1]));
    cr_expect_eq(s1->A[1], 2.0);
    cr_expect(!s1->new_elite[1]);
    chain_free(&ch);
}

Test(select, statistics_and_top3)
{
    chain ch;
    chain_init(&ch, 10);
    pf_select *s0 = GEN(&ch, 5.0, 3.0, 4.0, 8.0);
    cr_expect_eq(s0->b[0], 3.0);
    cr_expect_eq(s0->m[0], 4.0);
    cr_expect_eq(s0->A[0], 4.0);
    cr_assert_eq(s0->ntop3, 3);
    cr_expect_eq(s0->cand[s0->top3[0]].y, 3.0);
    cr_expect_eq(s0->cand[s0->top3[1]].y, 4.0);
    cr_expect_eq(s0->cand[s0->top3[2]].y, 5.0);
    pf_select *s1 = GEN(&ch, 6.0, 3.5, 7.0);
    cr_expect_eq(s1->b[1], 3.5);
    cr_expect_eq(s1->B[1], 3.0);
    cr_expect_eq(s1->m[1], 6.0, "the generation's own three best");
    cr_expect_eq(s1->A[1], 3.5, "archive 3, 3.5, 4");
    cr_expect(s1->new_elite[1]);
    cr_expect_eq(s1->cand[s1->top3[1]].generation, 1);
    chain_free(&ch);
}

Test(select, duplicates_are_one_archive_entry)
{
    chain ch;
    chain_init(&ch, 10);
    /* hash 7 twice in generation 0: one entry with its best y */
    pf_select *s0 = GENI(&ch, IDS(7, 7, 8), 2.0, 1.0, 3.0);
    cr_assert_eq(s0->ntop3, 2);
    cr_expect_eq(s0->cand[s0->top3[0]].index, 1);
    cr_expect_eq(s0->cand[s0->top3[0]].y, 1.0);
    cr_expect_eq(s0->cand[s0->top3[1]].y, 3.0);
    cr_expect(isnan(s0->A[0]), "two distinct specs: A undefined");
    cr_expect_eq(s0->m[0], 2.0, "m counts candidates, not distinct specs");
    /* hash 8 again at the same y: the earliest (generation, index) stays its representative;
     * a tie in y between different specs goes to the earliest too */
    pf_select *s1 = GENI(&ch, IDS(8, 9, NONE), 3.0, 1.0, 9.0);
    cr_assert_eq(s1->ntop3, 3);
    cr_expect_eq(s1->cand[s1->top3[0]].generation, 0, "tie at 1.0: generation 0 first");
    cr_expect_eq(s1->cand[s1->top3[1]].generation, 1);
    cr_expect_eq(s1->cand[s1->top3[1]].index, 1);
    cr_expect_eq(s1->cand[s1->top3[2]].generation, 0, "hash 8 keeps its generation-0 representative");
    cr_expect_eq(s1->cand[s1->top3[2]].index, 2);
    cr_expect(s1->new_elite[1], "hash 9 is new");
    /* hash 8 re-proposed with a better y moves up, but is not a new elite */
    pf_select *s2 = GENI(&ch, IDS(8), 0.5);
    cr_expect_eq(s2->cand[s2->top3[0]].generation, 2);
    cr_expect_eq(s2->cand[s2->top3[0]].y, 0.5);
    cr_expect(!s2->new_elite[2], "a re-proposed spec is not previously unseen");
    int top[3], nt;
    pf_select_top3(s2->cand, s2->ncand, 1, top, &nt);
    cr_expect_eq(nt, 3);
    cr_expect_eq(s2->cand[top[2]].y, 3.0, "Top-3 as of generation 1");
    chain_free(&ch);
}

/* ---------------------------------------------------------------- stagnation --- */

Test(select, healthy_run_stops_after_generation_9)
{
    chain ch;
    chain_init(&ch, PF_SELECT_DEFAULT_MAX_GENERATIONS);
    for (int g = 0; g < 10; g++) {
        double v = pow(0.5, g);
        pf_select *s = GEN(&ch, v, 1.1 * v, 1.2 * v, 1.3 * v, 1.4 * v);
        expect_tests(s, false, false, false);
        cr_expect(s->new_elite[g]);
        cr_expect_eq(s->next, g < 9 ? PF_SELECT_NORMAL : PF_SELECT_STOP, "generation %d", g);
        cr_expect_not(s->has_escape);
    }
    cr_expect_str_eq(ch.s[9]->reason, "generation 9 completed, the last of 10: stop");
    cr_expect_eq(ch.s[9]->state.escape_generation, -1);
    cr_expect_eq(ch.s[9]->state.window_start, 0);
    /* nothing follows a stop */
    pf_candidate c = cand(10, 0, 1, 1.0);
    pf_select *s;
    cr_expect_neq(pf_select_step(ch.s[9], &c, 1, 10, 11, NULL, NULL, &s), PF_OK);
    cr_expect_null(s);
    chain_free(&ch);
}

Test(select, max_generations_configurable)
{
    chain ch;
    chain_init(&ch, 2);
    cr_expect_eq(GEN(&ch, 1.0)->next, PF_SELECT_NORMAL);
    cr_expect_eq(GEN(&ch, 0.5)->next, PF_SELECT_STOP);
    chain_free(&ch);
    pf_candidate c = cand(2, 0, 1, 1.0);
    pf_select *s;
    cr_expect_neq(pf_select_step(NULL, &c, 1, 2, 2, NULL, NULL, &s), PF_OK, "generation past the limit");
}

Test(select, no_test_before_generation_3)
{
    chain ch;
    chain_init(&ch, 10);
    for (int g = 0; g < 3; g++) {
        pf_select *s = GENI(&ch, IDS(1, 2, 3), 1.0, 2.0, 3.0); /* perfectly flat */
        expect_tests(s, false, false, false);
        cr_expect_eq(s->next, PF_SELECT_NORMAL);
    }
    pf_select *s3 = GENI(&ch, IDS(1, 2, 3), 1.0, 2.0, 3.0);
    expect_tests(s3, true, true, true);
    cr_expect_eq(s3->next, PF_SELECT_ESCAPE);
    cr_expect_eq(s3->state.escape_generation, 4, "the earliest escape generation");
    cr_expect_eq(s3->state.stall_generation, 3);
    cr_expect_str_eq(s3->reason,
                     "global-best, elite-archive and population stagnation after generation 3: escape generation 4 "
                     "scheduled");
    chain_free(&ch);
}

/* gen0 {1, 2, 3}; then one new best a little better each generation (a
 * new elite each time, one ranked candidate: no population test). */
static void small_steps(chain *ch, double f1, double f2, double f3)
{
    GEN(ch, 1.0, 2.0, 3.0);
    GEN(ch, f1);
    GEN(ch, f1 * f2);
    GEN(ch, f1 * f2 * f3);
}

Test(select, global_best_fires_alone)
{
    chain ch;
    chain_init(&ch, 10);
    small_steps(&ch, 0.995, 0.995, 0.995); /* 0.5% steps, 1.5% in all */
    pf_select *s = ch.s[3];
    expect_tests(s, true, false, false);
    cr_expect_eq(s->next, PF_SELECT_ESCAPE);
    cr_expect_str_eq(s->cause, "global-best stagnation");
    cr_expect(close_to(s->state.B_stall, 0.995 * 0.995 * 0.995));
    cr_expect(close_to(s->state.A_stall, 0.995 * 0.995), "archive {0.985, 0.990, 0.995}");
    chain_free(&ch);
}

Test(select, global_best_not_at_1_1_percent_steps)
{
    chain ch;
    chain_init(&ch, 10);
    small_steps(&ch, 0.989, 0.989, 0.989);
    expect_tests(ch.s[3], false, false, false);
    cr_expect_eq(ch.s[3]->next, PF_SELECT_NORMAL);
    chain_free(&ch);
    /* one step of 1.1% is enough */
    chain_init(&ch, 10);
    small_steps(&ch, 0.995, 0.989, 0.995);
    expect_tests(ch.s[3], false, false, false);
    chain_free(&ch);
}

Test(select, global_best_cumulative_condition)
{
    chain ch;
    chain_init(&ch, 10);
    small_steps(&ch, 0.991, 0.991, 0.991); /* each step 0.9% < 1%, but 2.7% in all */
    expect_tests(ch.s[3], false, false, false);
    chain_free(&ch);
}

Test(select, elite_archive_fires_alone)
{
    chain ch;
    chain_init(&ch, 10);
    GENI(&ch, IDS(1, 2, 3, 4), 1.0, 2.0, 3.0, 4.0);
    /* the best improves a lot each generation, but only by re-proposed specs */
    GENI(&ch, IDS(1, NONE), 0.5, 5.0);
    GENI(&ch, IDS(2, NONE), 0.4, 6.0);
    /* id 4 (generation 0, never in the Top-3) now enters it: seen before, so not new */
    pf_select *s = GENI(&ch, IDS(4, NONE), 0.3, 7.0);
    cr_expect_eq(s->cand[s->top3[0]].generation, 3);
    for (int g = 1; g <= 3; g++) cr_expect(!s->new_elite[g], "generation %d", g);
    cr_expect(s->new_elite[0]);
    expect_tests(s, false, true, false);
    cr_expect_eq(s->next, PF_SELECT_ESCAPE);
    cr_expect_str_eq(s->cause, "elite-archive stagnation");
    chain_free(&ch);
}

Test(select, elite_archive_not_with_a_new_elite_each_generation)
{
    chain ch;
    chain_init(&ch, 10);
    GEN(&ch, 1.0, 2.0, 3.0, 4.0);
    GEN(&ch, 0.5, 5.0);
    GEN(&ch, 0.4, 6.0);
    pf_select *s = GEN(&ch, 0.3, 7.0);
    expect_tests(s, false, false, false);
    cr_expect_eq(s->next, PF_SELECT_NORMAL);
    chain_free(&ch);
}

Test(select, elite_archive_window_is_three_generations)
{
    chain ch;
    chain_init(&ch, 10);
    GENI(&ch, IDS(1, 2, 3), 1.0, 2.0, 3.0);
    GENI(&ch, IDS(1, NONE), 0.5, 1.5); /* a new elite (1.5) in generation 1 only */
    GENI(&ch, IDS(1), 0.4);
    pf_select *s3 = GENI(&ch, IDS(1), 0.3);
    expect_tests(s3, false, false, false); /* window 1..3 holds the new elite */
    pf_select *s4 = GENI(&ch, IDS(1), 0.2);
    expect_tests(s4, false, true, false); /* window 2..4 does not */
    cr_expect_eq(s4->state.escape_generation, 5);
    chain_free(&ch);
}

Test(select, new_elite_must_enter_the_top3)
{
    chain ch;
    chain_init(&ch, 10);
    GENI(&ch, IDS(1, 2, 3), 1.0, 2.0, 3.0);
    pf_select *s1 = GEN(&ch, 4.0, 5.0); /* fresh, but outside the Top-3 */
    cr_expect(!s1->new_elite[1]);
    pf_select *s2 = GEN(&ch, 2.5);
    cr_expect(s2->new_elite[2]);
    chain_free(&ch);
}

/* medians 2.0, 1.99, 1.98, 1.97 (0.5% steps) under a best that halves */
Test(select, population_fires_alone)
{
    chain ch;
    chain_init(&ch, 10);
    GEN(&ch, 1.0, 2.0, 2.1);
    GEN(&ch, 0.5, 1.99, 2.2);
    GEN(&ch, 0.25, 1.98, 2.3);
    pf_select *s = GEN(&ch, 0.125, 1.97, 2.4);
    cr_expect_eq(s->m[3], 1.97);
    expect_tests(s, false, false, true);
    cr_expect_eq(s->next, PF_SELECT_ESCAPE);
    cr_expect_str_eq(s->cause, "population stagnation");
    chain_free(&ch);
}

Test(select, population_not_at_2_1_percent)
{
    chain ch;
    chain_init(&ch, 10);
    GEN(&ch, 1.0, 2.0, 2.1);
    GEN(&ch, 0.5, 2.0 * 0.979, 2.2);
    GEN(&ch, 0.25, 2.0 * 0.979 * 0.979, 2.3);
    pf_select *s = GEN(&ch, 0.125, 2.0 * 0.979 * 0.979 * 0.979, 2.4);
    expect_tests(s, false, false, false);
    chain_free(&ch);
    /* one transition of 2.1% is enough */
    chain_init(&ch, 10);
    GEN(&ch, 1.0, 2.0, 2.1);
    GEN(&ch, 0.5, 1.99, 2.2);
    GEN(&ch, 0.25, 1.99 * 0.979, 2.3);
    s = GEN(&ch, 0.125, 1.99 * 0.979 * 0.995, 2.4);
    expect_tests(s, false, false, false);
    chain_free(&ch);
}

Test(select, population_skipped_with_fewer_than_3_ranked)
{
    chain ch;
    chain_init(&ch, 10);
    GEN(&ch, 1.0, 2.0, 2.1);
    GEN(&ch, 0.5, 1.99, 2.2);
    GEN(&ch, 0.25, 1.98, NAN, NAN); /* two ranked */
    pf_select *s3 = GEN(&ch, 0.125, 1.97, 2.4);
    cr_expect(isnan(s3->m[2]));
    expect_tests(s3, false, false, false);
    pf_select *s4 = GEN(&ch, 0.0625, 1.96, 2.5);
    expect_tests(s4, false, false, false); /* window 2..4 still holds generation 2 */
    pf_select *s5 = GEN(&ch, 0.03125, 1.95, 2.6);
    expect_tests(s5, false, false, true);
    chain_free(&ch);
}

Test(select, nothing_ranked_is_global_best_stagnation)
{
    chain ch;
    chain_init(&ch, 10);
    for (int g = 0; g < 3; g++) GEN(&ch, NAN, NAN);
    pf_select *s = GEN(&ch, NAN);
    cr_expect(isinf(s->B[3]));
    expect_tests(s, true, true, false);
    cr_expect_eq(s->ntop3, 0);
    chain_free(&ch);
}

Test(select, stagnation_at_the_last_generation_stops)
{
    chain ch;
    chain_init(&ch, 10);
    for (int g = 0; g < 7; g++) {
        double v = pow(0.5, g);
        GEN(&ch, v, 1.1 * v);
    }
    for (int g = 7; g < 9; g++) cr_expect_eq(GEN(&ch, 100.0)->next, PF_SELECT_NORMAL, "generation %d", g);
    pf_select *s9 = GEN(&ch, 100.0);
    expect_tests(s9, true, true, false);
    cr_expect_eq(s9->next, PF_SELECT_STOP, "stagnation at generation 9: no escape");
    cr_expect_eq(s9->state.escape_generation, -1);
    cr_expect_str_eq(s9->reason, "global-best and elite-archive stagnation after generation 9, the last of 10: stop");
    chain_free(&ch);
    /* the same with a limit of 4 generations: stagnation at 3 stops */
    chain_init(&ch, 4);
    small_steps(&ch, 0.995, 0.995, 0.995);
    expect_tests(ch.s[3], true, false, false);
    cr_expect_eq(ch.s[3]->next, PF_SELECT_STOP);
    chain_free(&ch);
}

/* ---------------------------------------------------------------- escape --- */

/* global-best stagnation after generation 3 (B_stall 0.985..., A_stall
 * 0.990...), archive {gen3 (id 4000), gen2 (3000), gen1 (2000)}; generation
 * 0 was ids 1000..1002 at 1, 2, 3. */
static void stall_at_3(chain *ch)
{
    chain_init(ch, 10);
    small_steps(ch, 0.995, 0.995, 0.995);
    cr_assert_eq(ch->s[3]->next, PF_SELECT_ESCAPE);
}

static void expect_escape(const pf_select *s, bool nb, bool ne, bool ai)
{
    cr_assert(s->has_escape);
    cr_expect_eq(s->escape.new_best, nb, "new_best %d", s->escape.new_best);
    cr_expect_eq(s->escape.new_elite, ne, "new_elite %d", s->escape.new_elite);
    cr_expect_eq(s->escape.archive_improved, ai, "archive_improved %d", s->escape.archive_improved);
    cr_expect_eq(s->escape.success, nb || ne || ai);
    expect_tests(s, false, false, false);
}

Test(select, escape_success_by_new_best)
{
    chain ch;
    stall_at_3(&ch);
    /* a spec of generation 0 (y 2.0, id 1001) again at 0.9: 8.6% better than B_stall, not unseen,
     * archive median 0.990 -> 0.985 */
    pf_select *s = GENI(&ch, IDS(1001), 0.9);
    expect_escape(s, true, false, false);
    cr_expect_eq(s->next, PF_SELECT_NORMAL);
    cr_expect_eq(s->state.window_start, 4);
    cr_expect_str_eq(s->reason,
                     "escape generation 4 succeeded (new best): stagnation history cleared, normal evolution resumes");
    chain_free(&ch);
}

Test(select, escape_success_by_new_elite)
{
    chain ch;
    stall_at_3(&ch);
    pf_select *s = GEN(&ch, 0.992, 5.0); /* third place, nothing better */
    expect_escape(s, false, true, false);
    cr_expect_eq(s->next, PF_SELECT_NORMAL);
    cr_expect_str_eq(s->cause, "escape succeeded: new elite");
    chain_free(&ch);
}

Test(select, escape_success_by_archive_median)
{
    chain ch;
    stall_at_3(&ch);
    /* re-proposed specs of generations 1 and 2: best 1.6% better, median 2.0% better */
    pf_select *s = GENI(&ch, IDS(2000, 3000), 0.969, 0.970);
    cr_expect(close_to(s->A[4], 0.970));
    expect_escape(s, false, false, true);
    cr_expect_eq(s->next, PF_SELECT_NORMAL);
    chain_free(&ch);
}

Test(select, escape_just_below_thresholds_fails)
{
    chain ch;
    stall_at_3(&ch);
    double B = ch.s[3]->state.B_stall;
    /* best 1.9% better (re-proposed, median barely moves) */
    pf_select *s = GENI(&ch, IDS(2000), B * 0.981);
    expect_escape(s, false, false, false);
    cr_expect_eq(s->next, PF_SELECT_STOP);
    cr_expect_str_eq(s->reason, "escape generation 4 failed: stop");
    cr_expect_str_eq(s->cause, "escape generation 4 failed");
    /* nothing follows */
    pf_candidate c = cand(5, 0, 77, 0.1);
    pf_select *t;
    cr_expect_eq(pf_select_step(s, &c, 1, 5, 10, NULL, NULL, &t), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "generation 5 follows a stop decision"), "%s", pf_errmsg());
    chain_free(&ch);
}

Test(select, escape_failure_with_nothing_ranked)
{
    chain ch;
    stall_at_3(&ch);
    pf_select *s = GEN(&ch, NAN, NAN, NAN);
    expect_escape(s, false, false, false);
    cr_expect_eq(s->next, PF_SELECT_STOP);
    chain_free(&ch);
}

Test(select, window_restarts_after_successful_escape)
{
    chain ch;
    stall_at_3(&ch);
    GENI(&ch, IDS(1001), 0.9); /* success by new best, no new elite at 4 */
    /* no stagnation test at g_esc + 1; elite-archive over 4..6 at g_esc + 2 */
    pf_select *s5 = GEN(&ch, 50.0);
    expect_tests(s5, false, false, false);
    cr_expect_eq(s5->next, PF_SELECT_NORMAL);
    pf_select *s6 = GEN(&ch, 50.0);
    expect_tests(s6, false, true, false); /* window 4..6 */
    cr_expect_eq(s6->next, PF_SELECT_ESCAPE);
    cr_expect_eq(s6->state.stall_generation, 6);
    cr_expect_eq(s6->state.escape_generation, 7);
    cr_expect_eq(s6->state.B_stall, 0.9);
    cr_expect_eq(s6->state.window_start, 4);
    chain_free(&ch);
}

Test(select, global_best_after_escape_waits_for_g_esc_plus_3)
{
    chain ch;
    stall_at_3(&ch);
    GEN(&ch, 0.992); /* success by new elite; B_4 = 0.985 */
    double B = ch.s[4]->B[4];
    for (int g = 5; g <= 6; g++) {
        B *= 0.999;
        pf_select *s = GEN(&ch, B); /* tiny new bests: new elites, no elite-archive */
        expect_tests(s, false, false, false);
        cr_expect_eq(s->next, PF_SELECT_NORMAL);
    }
    pf_select *s7 = GEN(&ch, B * 0.999);
    expect_tests(s7, true, false, false);
    cr_expect_eq(s7->state.escape_generation, 8);
    /* a second escape, generation 8: success, then generation 9 stops */
    pf_select *s8 = GEN(&ch, 0.5, 0.6);
    expect_escape(s8, true, true, true);
    cr_expect_eq(s8->next, PF_SELECT_NORMAL);
    cr_expect_eq(s8->state.window_start, 8);
    pf_select *s9 = GEN(&ch, 0.4);
    expect_tests(s9, false, false, false);
    cr_expect_eq(s9->next, PF_SELECT_STOP);
    chain_free(&ch);
}

Test(select, escape_at_generation_9_stops_either_way)
{
    chain ch;
    chain_init(&ch, 10);
    for (int g = 0; g < 6; g++) {
        double v = pow(0.5, g);
        GEN(&ch, v, 1.1 * v);
    }
    GEN(&ch, 100.0);
    GEN(&ch, 100.0);
    pf_select *s8 = GEN(&ch, 100.0); /* B flat over 5..8, no new elite in 6..8 */
    expect_tests(s8, true, true, false);
    cr_expect_eq(s8->next, PF_SELECT_ESCAPE);
    pf_select *s9 = GEN(&ch, 0.001);
    expect_escape(s9, true, true, true);
    cr_expect_eq(s9->next, PF_SELECT_STOP);
    cr_expect(strstr(s9->reason, "succeeded") && strstr(s9->reason, ": stop"), "%s", s9->reason);
    chain_free(&ch);
}

/* ---------------------------------------------------------------- errors --- */

Test(select, step_rejects_bad_input)
{
    pf_candidate c = cand(1, 0, 1, 1.0), d = cand(0, 0, 1, 1.0);
    pf_select *s;
    cr_expect_eq(pf_select_step(NULL, &c, 1, 1, 10, NULL, NULL, &s), PF_ERR_INVALID, "no previous");
    cr_expect_eq(pf_select_step(NULL, &c, 1, 0, 10, NULL, NULL, &s), PF_ERR_INVALID, "wrong generation");
    cr_expect_eq(pf_select_step(NULL, &d, 0, 0, 10, NULL, NULL, &s), PF_ERR_INVALID, "no candidates");
    pf_candidate two[2] = {cand(0, 3, 1, 1.0), cand(0, 3, 2, 2.0)};
    cr_expect_eq(pf_select_step(NULL, two, 2, 0, 10, NULL, NULL, &s), PF_ERR_INVALID, "repeated index");
    d.spec_hash[5] = 'G';
    cr_expect_eq(pf_select_step(NULL, &d, 1, 0, 10, NULL, NULL, &s), PF_ERR_INVALID, "bad hash");
    cr_expect_null(s);
}

Test(select, history_in_index_order)
{
    pf_candidate c[3] = {cand(0, 2, 1, 3.0), cand(0, 0, 2, 1.0), cand(0, 1, 3, 2.0)};
    pf_select *s;
    cr_assert_eq(pf_select_step(NULL, c, 3, 0, 10, NULL, NULL, &s), PF_OK, "%s", pf_errmsg());
    for (int i = 0; i < 3; i++) cr_expect_eq(s->cand[i].index, i);
    pf_select_free(s);
}

/* ---------------------------------------------------------------- JSON --- */

static char *dump(const json_t *v)
{
    return json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
}

Test(select, json_round_trip)
{
    chain ch;
    stall_at_3(&ch);
    /* generation 4 with specs and evidence, an invalid proposal and a nan run */
    pf_candidate c[4] = {cand(4, 0, 1001, 0.9), cand(4, 1, 55, 0.991), cand(4, 2, 56, 0.1), cand(4, 3, 0, 0)};
    c[0].spec = json_pack("{s:{s:i}}", "architecture", "width", 64);
    c[0].evidence = json_pack("{s:f, s:[i, i]}", "grad_imbalance", 3.5, "hotspots", 1, 2);
    c[2].status = PF_CANDIDATE_NAN;
    c[3].valid = false, c[3].status = PF_CANDIDATE_INVALID, c[3].has_y = false, c[3].spec_hash[0] = 0;
    pf_select *s;
    cr_assert_eq(pf_select_step(ch.s[3], c, 4, 4, 10, NULL, NULL, &s), PF_OK, "%s", pf_errmsg());
    json_decref(c[0].spec), json_decref(c[0].evidence);
    json_t *j;
    cr_assert_eq(pf_select_to_json(s, &j), PF_OK, "%s", pf_errmsg());
    cr_expect_str_eq(json_string_value(json_object_get(j, "format")), "pinnforge.select");
    cr_expect_str_eq(json_string_value(json_object_get(j, "pde")), "burgers_1d");
    cr_expect_str_eq(json_string_value(json_object_get(j, "next")), "normal");
    json_t *top = json_object_get(j, "top3");
    cr_assert_eq(json_array_size(top), 3);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(json_array_get(top, 0), "spec"),
                                                                    "architecture"),
                                                    "width")),
                 64);
    cr_expect(json_is_null(json_object_get(json_array_get(top, 1), "spec")));
    json_t *h = json_object_get(j, "history");
    cr_expect_eq(json_array_size(h), 10);
    json_t *inv = json_array_get(h, 9);
    cr_expect(json_is_null(json_object_get(inv, "spec_hash")));
    cr_expect(json_is_null(json_object_get(inv, "y")));
    cr_expect_str_eq(json_string_value(json_object_get(inv, "status")), "invalid");
    cr_expect(json_is_false(json_object_get(json_array_get(h, 8), "ranked")));
    cr_expect(json_is_null(json_array_get(json_object_get(j, "m"), 4)));
    cr_expect(json_is_object(json_object_get(j, "escape_result")));
    cr_expect(json_is_true(json_object_get(json_object_get(j, "escape_result"), "success")));

    pf_select *back;
    cr_assert_eq(pf_select_from_json(j, &back), PF_OK, "%s", pf_errmsg());
    json_t *j2;
    cr_assert_eq(pf_select_to_json(back, &j2), PF_OK);
    char *a = dump(j), *b = dump(j2);
    cr_expect_str_eq(a, b);
    cr_expect_eq(back->state.window_start, 4);
    cr_expect_eq(back->next, PF_SELECT_NORMAL);
    cr_expect(back->has_escape && back->escape.new_best);

    /* the parsed selection steps on like the original */
    pf_candidate n5 = cand(5, 0, 99, 0.3);
    pf_select *x, *y;
    cr_assert_eq(pf_select_step(s, &n5, 1, 5, 10, NULL, NULL, &x), PF_OK);
    cr_assert_eq(pf_select_step(back, &n5, 1, 5, 10, NULL, NULL, &y), PF_OK);
    json_t *jx, *jy;
    pf_select_to_json(x, &jx), pf_select_to_json(y, &jy);
    char *sx = dump(jx), *sy = dump(jy);
    cr_expect_str_eq(sx, sy);
    free(sx), free(sy), json_decref(jx), json_decref(jy);
    pf_select_free(x), pf_select_free(y);

    /* through a msgpack file */
    char dir[] = "/tmp/pf_select_XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/select.msgpack", dir);
    cr_assert_eq(pf_select_write(path, s), PF_OK, "%s", pf_errmsg());
    pf_select *f;
    cr_assert_eq(pf_select_read(path, &f), PF_OK, "%s", pf_errmsg());
    json_t *j3;
    pf_select_to_json(f, &j3);
    char *c3 = dump(j3);
    cr_expect_str_eq(a, c3);
    unlink(path);
    rmdir(dir);

    /* a stored value that disagrees with the history is rejected */
    json_array_set_new(json_object_get(j2, "B"), 2, json_real(0.5));
    pf_select *bad;
    cr_expect_eq(pf_select_from_json(j2, &bad), PF_ERR_INVALID);
    cr_expect(strstr(pf_errmsg(), "B[2]"), "%s", pf_errmsg());
    cr_expect_null(bad);
    json_object_set_new(j2, "format", json_string("pinnforge.other"));
    cr_expect_eq(pf_select_from_json(j2, &bad), PF_ERR_INVALID);

    free(a), free(b), free(c3);
    json_decref(j), json_decref(j2), json_decref(j3);
    pf_select_free(s), pf_select_free(back), pf_select_free(f);
    chain_free(&ch);
}

Test(select, json_round_trip_generation_0_and_escape_state)
{
    chain ch;
    stall_at_3(&ch);
    for (int g = 0; g < 4; g++) {
        json_t *j;
        cr_assert_eq(pf_select_to_json(ch.s[g], &j), PF_OK);
        pf_select *back;
        cr_assert_eq(pf_select_from_json(j, &back), PF_OK, "generation %d: %s", g, pf_errmsg());
        json_t *j2;
        pf_select_to_json(back, &j2);
        char *a = dump(j), *b = dump(j2);
        cr_expect_str_eq(a, b);
        free(a), free(b);
        json_decref(j), json_decref(j2);
        pf_select_free(back);
    }
    json_t *j;
    pf_select_to_json(ch.s[3], &j);
    json_t *st = json_object_get(j, "state");
    cr_expect_eq(json_integer_value(json_object_get(st, "escape_generation")), 4);
    cr_expect_eq(json_integer_value(json_object_get(st, "stall_generation")), 3);
    cr_expect_str_eq(json_string_value(json_object_get(j, "next")), "escape");
    cr_expect(json_is_true(json_object_get(json_object_get(j, "stagnation"), "global_best")));
    cr_expect(json_is_null(json_object_get(j, "escape_result")));
    json_decref(j);
    pf_select_to_json(ch.s[0], &j);
    cr_expect(json_is_null(json_object_get(json_object_get(j, "state"), "B_stall")));
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(j, "state"), "escape_generation")), -1);
    json_decref(j);
    chain_free(&ch);
}
