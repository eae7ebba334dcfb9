/*
 * test_memory_tree.c — PINNsAgent's importance scores (src/pinnsagent/memory_tree.h):
 * one PDE's ten scores against a hand computation on a 12-row fixture
 * (tests/fixtures/pinnsagent/memtree.csv), the mean over the other PDEs
 * (memtree_avg.csv, by hand too), the UCT bonus, and burgers_1d's scores
 * from the released table.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pinnsagent/memory_tree.h"
#include "pinnsagent_fixture.h"

/*
 * memtree.csv: 12 Burgers1D rows, y = log10 mse by row 1..12:
 *   y = -11 -9 -7 -5 | -10 -8 -6 -4 | -3 -2 -1 0
 * sorted: -11 -10 -9 -8 ...; 25th percentile at h = 11 * 0.25 = 2.75:
 *   -9 + 0.75 (-8 - -9) = -8.25, so rows 1, 2, 5 (y -11, -9, -10) succeed.
 *
 * activation: tanh rows 1-4 (mean -8, 2 of 4 succeed), sin rows 5-8 (mean -7,
 *   1 of 4), relu rows 9-12 (mean -1.5, 0): gap 6.5; rates .5 .25 0, mean .25,
 *   population sd sqrt((.0625 + 0 + .0625)/3) = sqrt(1/24)
 *   -> 6.5 (1 + sqrt(1/24)) = 7.826807
 * net: fnn odd rows (y -11 -7 -10 -6 -3 -1, mean -38/6, 2 of 6), laaf even rows
 *   (-9 -5 -8 -4 -2 0, mean -28/6, 1 of 6): gap 10/6; rates 1/3 1/6, sd 1/12
 *   -> (10/6)(13/12) = 1.805556
 * optimizer: adam only: one value -> 0
 * initializer: Glorot normal rows 1-8 (mean -60/8 = -7.5, 3 of 8), zeros rows
 *   9-12 (mean -1.5, 0): gap 6; rates .375 0, sd .1875 -> 6 * 1.1875 = 7.125
 * lr: 0.001 rows 1-6, 0.0001 rows 7-12. Sorted (stable): rows 7-12, 1-6.
 *   low = first 4 = rows 7-10 (y -6 -4 -3 -2, mean -3.75); high = last 4 =
 *   rows 3-6 (y -7 -5 -10 -8, mean -7.5): |gap| 3.75. Spearman: lr ranks 9.5
 *   (rows 1-6) and 3.5 (rows 7-12), deviations +-3; y ranks (y + 12) sum 22 on
 *   rows 1-6 and 56 on rows 7-12, mean 6.5: sum dx dy = 3(22 - 39) - 3(56 - 39)
 *   = -102, sum dx^2 = 108, sum dy^2 = 143: rho = -102/sqrt(15444) = -17/sqrt(429)
 *   -> 3.75 (1 + 17/sqrt(429)) = 6.827879
 * width: 16, 32, ..., 192 by row (sorted = file order). low rows 1-4 mean -8,
 *   high rows 9-12 mean -1.5: gap 6.5. Spearman without ties: y ranks by row
 *   1 3 5 7 2 4 6 8 9 10 11 12, d = 0 -1 -2 -3 3 2 1 0 0 0 0 0, sum d^2 = 28,
 *   rho = 1 - 6*28/(12*143) = 129/143 -> 6.5 (272/143) = 1768/143 = 12.363636
 * depth: 5 everywhere. Thirds in file order: gap 6.5; rho undefined -> 0 -> 6.5
 * num_domain_points: 100 (rows 1-4), 600 (5-8), 1100 (9-12): gap 6.5. Ranks 2.5,
 *   6.5, 10.5 (dx -4 0 4); y ranks sum 16 on rows 1-4, 42 on 9-12: sum dx dy =
 *   -4(16 - 26) + 4(42 - 26) = 104, sum dx^2 = 128: rho = 104/sqrt(128*143)
 *   -> 6.5 (1 + 104/sqrt(18304)) = 11.496590
 * num_boundary_points: 7 rows have it (1 3 5 7 9 11 12: 5100 4100 3100 2100
 *   1100 600 100). Sorted: rows 12 11 9 7 5 3 1, y 0 -1 -3 -6 -10 -7 -11.
 *   low = first floor(7/3) = 2 (mean -0.5), high = last ceil(7/3) = 3 (-10 -7
 *   -11, mean -28/3): gap 53/6. y ranks 7 6 5 4 2 3 1 against 1..7: d^2 = 36 16
 *   4 0 9 9 36 = 110, rho = 1 - 660/336 = -27/28
 *   -> (53/6)(55/28) = 2915/168 = 17.351190
 * num_initial_points: 5 rows have it (< 6) -> 0
 * Normalised: min 0, max 17.351190 (num_boundary_points): raw / (2915/168).
 */
Test(memtree, one_pde_by_hand)
{
    pf_pa_db *db = fixture_db("memtree.csv");
    const pf_pa_task *t = pf_pa_db_task(db, 0);
    cr_assert_eq(t->nrows, 12);
    double raw[PF_PA_PARAM_COUNT], s[PF_PA_PARAM_COUNT];
    cr_assert_eq(pf_memtree_raw(db, t->rows, t->nrows, raw), PF_OK);
    double want[PF_PA_PARAM_COUNT];
    want[PF_PA_ACTIVATION] = 6.5 * (1 + sqrt(1.0 / 24));
    want[PF_PA_NET] = (10.0 / 6) * (13.0 / 12);
    want[PF_PA_OPTIMIZER] = 0;
    want[PF_PA_INITIALIZER] = 7.125;
    want[PF_PA_LR] = 3.75 * (1 + 17 / sqrt(429));
    want[PF_PA_WIDTH] = 1768.0 / 143;
    want[PF_PA_DEPTH] = 6.5;
    want[PF_PA_DOMAIN_POINTS] = 6.5 * (1 + 104 / sqrt(18304));
    want[PF_PA_BOUNDARY_POINTS] = 2915.0 / 168;
    want[PF_PA_INITIAL_POINTS] = 0;
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
        cr_assert_float_eq(raw[p], want[p], 1e-9, "%s: %.9f, not %.9f", pf_pa_param_name(p), raw[p], want[p]);
    /* the decimals above */
    cr_assert_float_eq(raw[PF_PA_ACTIVATION], 7.826807, 1e-6);
    cr_assert_float_eq(raw[PF_PA_LR], 6.827879, 1e-6);
    cr_assert_float_eq(raw[PF_PA_DOMAIN_POINTS], 11.496590, 1e-6);
    cr_assert_float_eq(raw[PF_PA_BOUNDARY_POINTS], 17.351190, 1e-6);

    cr_assert_eq(pf_memtree_task(db, 0, s), PF_OK);
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
        cr_assert_float_eq(s[p], want[p] / (2915.0 / 168), 1e-9, "%s", pf_pa_param_name(p));
    cr_assert_eq(s[PF_PA_BOUNDARY_POINTS], 1.0);
    cr_assert_eq(s[PF_PA_OPTIMIZER], 0.0);
    cr_assert_float_eq(s[PF_PA_WIDTH], (1768.0 / 143) / (2915.0 / 168), 1e-12);
    cr_assert_float_eq(s[PF_PA_WIDTH], 0.712553, 1e-6);
    pf_pa_db_free(db);
}

/*
 * memtree_avg.csv: three tasks of three rows; continuous scores are 0 (< 6
 * rows).
 *   Burgers1D y -1 -3 -5 (sorted; percentile -5 + .5 * 2 = -4: row 3 succeeds):
 *     activation tanh (-1) / sin (-3 -5, mean -4): gap 3, rates 0 .5, sd .25 -> 3.75
 *     net fnn (-1 -3, mean -2) / laaf (-5): gap 3, rates 0 1, sd .5 -> 4.5
 *     optimizer adam only -> 0; initializer Glorot normal / zeros as net -> 4.5
 *     normalised: activation 3.75/4.5 = 5/6, net 1, initializer 1, the rest 0
 *   Wave1D y -2 -2 -4 (percentile -4 + .5 * 2 = -3: row 3 succeeds):
 *     activation, net one value -> 0
 *     optimizer sgd (-2) / lbfgs (-2 -4, mean -3): gap 1, rates 0 .5 -> 1.25
 *     initializer He normal (-2 -2) / He uniform (-4): gap 2, rates 0 1 -> 3
 *     normalised: optimizer 1.25/3 = 5/12, initializer 1, the rest 0
 *   KuramotoSivashinskyEquation: one configuration (its mse 0 row left out):
 *     every raw score 0 -> every score 0.5
 */
Test(memtree, a_target_averages_the_other_pdes)
{
    pf_pa_db *db = fixture_db("memtree_avg.csv");
    cr_assert_eq(pf_pa_db_task_count(db), 3);
    double s[PF_PA_PARAM_COUNT];
    int n;
    /* burgers_1d: the mean of Wave1D and KS */
    cr_assert_eq(pf_memtree_target(db, "burgers_1d", s, &n), PF_OK);
    cr_assert_eq(n, 2);
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++) {
        double want = p == PF_PA_OPTIMIZER ? (5.0 / 12 + 0.5) / 2 : p == PF_PA_INITIALIZER ? 0.75 : 0.25;
        cr_assert_float_eq(s[p], want, 1e-12, "%s", pf_pa_param_name(p));
    }
    /* by task name alike, and the per-task scores behind it */
    double t[PF_PA_PARAM_COUNT];
    cr_assert_eq(pf_memtree_target(db, "Burgers1D", t, NULL), PF_OK);
    cr_assert_eq(memcmp(s, t, sizeof s), 0);
    cr_assert_eq(pf_memtree_task(db, 0, t), PF_OK);
    cr_assert_float_eq(t[PF_PA_ACTIVATION], 5.0 / 6, 1e-12);
    cr_assert_eq(t[PF_PA_NET], 1.0);
    /* allen_cahn_1d has no rows: the mean of all three */
    cr_assert_eq(pf_memtree_target(db, "allen_cahn_1d", s, &n), PF_OK);
    cr_assert_eq(n, 3);
    cr_assert_float_eq(s[PF_PA_ACTIVATION], (5.0 / 6 + 0 + 0.5) / 3, 1e-12);
    cr_assert_float_eq(s[PF_PA_NET], (1 + 0 + 0.5) / 3, 1e-12);
    cr_assert_float_eq(s[PF_PA_OPTIMIZER], (0 + 5.0 / 12 + 0.5) / 3, 1e-12);
    cr_assert_float_eq(s[PF_PA_WIDTH], 0.5 / 3, 1e-12);
    cr_assert_float_eq(s[PF_PA_INITIALIZER], 2.5 / 3, 1e-12);
    pf_pa_db_free(db);

    /* one task only: nothing to average for it */
    db = fixture_db("memtree.csv");
    cr_assert_eq(pf_memtree_target(db, "burgers_1d", s, &n), PF_ERR_INVALID);
    cr_assert_eq(n, 0);
    cr_assert_str_eq(pf_errmsg(), "no PDE other than 'burgers_1d' in the PINNsAgent table to score from");
    pf_pa_db_free(db);
}

Test(memtree, uct_bonus)
{
    /* unvisited: the score itself; N visits: + 1.4 sqrt(ln(N+1)/(N+1)) */
    cr_assert_eq(pf_memtree_uct(0.3, 0, PF_MEMTREE_LAMBDA), 0.3);
    cr_assert_float_eq(pf_memtree_uct(0.3, 1, PF_MEMTREE_LAMBDA), 0.3 + 1.4 * sqrt(log(2.0) / 2), 1e-15);
    cr_assert_float_eq(pf_memtree_uct(0.3, 1, PF_MEMTREE_LAMBDA) - 0.3, 0.8241870, 1e-7);
    cr_assert_float_eq(pf_memtree_uct(0.3, 4, PF_MEMTREE_LAMBDA), 0.3 + 1.4 * sqrt(log(5.0) / 5), 1e-15);
    cr_assert_float_eq(pf_memtree_uct(0.3, 4, PF_MEMTREE_LAMBDA) - 0.3, 0.7942919, 1e-7);
    cr_assert_float_eq(pf_memtree_uct(0.0, 9, 2.0), 2 * sqrt(log(10.0) / 10), 1e-15);
    /* the bonus shrinks with visits after N = 1 (ln(x)/x falls for x > e) */
    cr_assert_gt(pf_memtree_uct(0, 2, 1.4), pf_memtree_uct(0, 3, 1.4));
}

Test(memtree, burgers_1d_from_the_released_table)
{
    pf_pa_db *db = shared_db();
    double s[PF_PA_PARAM_COUNT];
    int n;
    cr_assert_eq(pf_memtree_target(db, "burgers_1d", s, &n), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(n, 16);
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
        fprintf(stderr, "memtree burgers_1d %-20s %.6f\n", pf_pa_param_name(p), s[p]);
    /* the same numbers as an independent re-implementation of memory_tree.py (Python, stable
     * sorts) gives on the released file */
    static const double want[PF_PA_PARAM_COUNT] = {0.923846, 0.272041, 0.523611, 0.135647, 0.085194,
                                                   0.095063, 0.181450, 0.162967, 0.164826, 0.437157};
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
        cr_assert_float_eq(s[p], want[p], 5e-7, "%s: %.6f", pf_pa_param_name(p), s[p]);
    /* the ranking the prompt would show: activation, optimizer, initializer first */
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
        if (p != PF_PA_ACTIVATION && p != PF_PA_OPTIMIZER && p != PF_PA_INITIALIZER)
            cr_assert_lt(s[p], s[PF_PA_INITIALIZER], "%s", pf_pa_param_name(p));
    pf_pa_db_free(db);
}
