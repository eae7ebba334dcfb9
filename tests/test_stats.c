/*
 * test_stats.c — src/stats: descriptive statistics, Friedman, Wilcoxon,
 * Holm, Kendall's W, Welch's t-test, the table of means and the comparison,
 * against hand-computed cases, textbook examples and the paper's own tables (tests/fixtures/paper_*.csv, typed from
 * docs/paper/pinnforge.tex: Table 1 / B.6 and Table B.7).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/bootstrap.h"
#include "stats/compare.h"
#include "stats/describe.h"
#include "stats/friedman.h"
#include "stats/holm.h"
#include "stats/kendall.h"
#include "stats/means.h"
#include "stats/welch.h"
#include "stats/wilcoxon.h"

#define TABLE1 "tests/fixtures/paper_table1.csv"
#define ABLATION "tests/fixtures/paper_ablation.csv"

static void near(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.10g, want %.10g (+- %g)", what, got, want, tol);
}

static void rel(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol * fabs(want), "%s: %.10g, want %.10g (relative %g)", what, got, want, tol);
}

static double jnum(const json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b) v = json_object_get(v, b);
    cr_assert(json_is_number(v), "%s.%s is not a number", a, b ? b : "");
    return json_number_value(v);
}

/* ------------------------------------------------------------ describe */

Test(stats, describe_hand_values)
{
    double x[] = {4, 1, 3, 2};
    near(pf_stats_mean(x, 4), 2.5, 1e-15, "mean");
    near(pf_stats_median(x, 4), 2.5, 1e-15, "median of 4");
    near(pf_stats_median(x, 3), 3, 1e-15, "median of 3");
    near(pf_stats_std(x, 4), sqrt(5.0 / 3), 1e-15, "sample std");
    near(pf_stats_cv(x, 4), sqrt(5.0 / 3) / 2.5, 1e-15, "cv");
    near(pf_stats_std(x, 1), 0, 0, "std of one value");
    double g[] = {1, 10, 100};
    near(pf_stats_geomean(g, 3), 10, 1e-12, "geometric mean");
    double z[] = {1, 0};
    cr_assert(isnan(pf_stats_geomean(z, 2)), "geometric mean with a zero");
    cr_assert(isnan(pf_stats_mean(x, 0)) && isnan(pf_stats_median(x, 0)));
    cr_assert_eq(x[0], 4, "the median sorted the caller's array");
}

Test(stats, ranks_average_ties)
{
    double x[] = {3, 1, 3, 2, 3, 1}, r[6];
    double ties = pf_stats_ranks(x, 6, r);
    double want[] = {5, 1.5, 5, 3, 5, 1.5};
    for (int i = 0; i < 6; i++) near(r[i], want[i], 0, "rank");
    near(ties, (27 - 3) + (8 - 2), 0, "tie term");
    double u[] = {0.3, 0.1, 0.2};
    cr_assert_eq(pf_stats_ranks(u, 3, r), 0);
    near(r[0], 3, 0, "untied rank");
}

/* ------------------------------------------------------------ friedman */

/* 3 tasks x 3 methods, one tie in task 2. By hand: ranks (1,2,3),
 * (2.5,2.5,1), (3,1,2); R = 6.5, 5.5, 6; chi2 = 12/36 * 108.5 - 36 = 1/6;
 * tie correction 1 - 6/72; chi2_F = 2/11; p = exp(-chi2_F/2) (df 2). */
Test(stats, friedman_hand_case_with_ties)
{
    double x[] = {1, 2, 3, 2, 2, 1, 3, 1, 2};
    pf_friedman f;
    cr_assert_eq(pf_friedman_test(x, 3, 3, &f), PF_OK, "%s", pf_errmsg());
    near(f.tie_correction, 66.0 / 72, 1e-15, "tie correction");
    near(f.chi2, 2.0 / 11, 1e-13, "chi2_F");
    near(f.p, exp(-1.0 / 11), 1e-12, "p");
    near(f.avg_rank[0], 6.5 / 3, 1e-15, "rank 0");
    near(f.avg_rank[1], 5.5 / 3, 1e-15, "rank 1");
    near(f.avg_rank[2], 2, 1e-15, "rank 2");
    pf_friedman_release(&f);
    cr_assert_eq(pf_friedman_test(x, 1, 3, &f), PF_ERR_INVALID, "one task");
    x[4] = NAN;
    cr_assert_eq(pf_friedman_test(x, 3, 3, &f), PF_ERR_INVALID, "a NaN");
}

/* A textbook case, R's friedman.test example: the rounding-first-base times
 * of 22 baseball players under 3 methods (round out, narrow angle, wide
 * angle), Hollander & Wolfe, Nonparametric Statistical Methods (1973),
 * p. 140: "Friedman chi-squared = 11.143, df = 2, p-value = 0.003805"
 * (with ties: the tie-corrected statistic). */
Test(stats, friedman_textbook_rounding_times)
{
    static const double x[] = {5.40, 5.50, 5.55, 5.85, 5.70, 5.75, 5.20, 5.60, 5.50, 5.55, 5.50, 5.40, 5.90, 5.85,
                               5.70, 5.45, 5.55, 5.60, 5.40, 5.40, 5.35, 5.45, 5.50, 5.35, 5.25, 5.15, 5.00, 5.85,
                               5.80, 5.70, 5.25, 5.20, 5.10, 5.65, 5.55, 5.45, 5.60, 5.35, 5.45, 5.05, 5.00, 4.95,
                               5.50, 5.50, 5.40, 5.45, 5.55, 5.50, 5.55, 5.55, 5.35, 5.45, 5.50, 5.55, 5.50, 5.45,
                               5.25, 5.65, 5.60, 5.40, 5.70, 5.65, 5.55, 6.30, 6.30, 6.25};
    pf_friedman f;
    cr_assert_eq(pf_friedman_test(x, 22, 3, &f), PF_OK, "%s", pf_errmsg());
    near(f.chi2, 11.143, 5e-4, "chi2_F");
    rel(f.p, 0.003805, 2e-4, "p");
    near(f.avg_rank[0] * 22, 53, 1e-12, "rank sum, round out");
    near(f.avg_rank[2] * 22, 32, 1e-12, "rank sum, wide angle");
    pf_friedman_release(&f);
}

/* ------------------------------------------------------------ kendall */

/* By hand from the definition (Kendall & Babington Smith 1939): 3 raters
 * rank 4 objects (1,2,3,4), (1,3,2,4), (2,1,3,4); R = 4, 6, 8, 12, mean
 * 7.5, S = 35, W = 12 * 35 / (9 * 60) = 7/9, chi2 = 3 * 3 * W = 7 (df 3),
 * p = Q(7; 3) = erfc(sqrt(3.5)) + sqrt(14 / pi) exp(-3.5) = 0.0718978.
 * Perfect agreement is W = 1, rank sums all equal (a Latin square) W = 0. */
Test(stats, kendall_hand_cases)
{
    double x[] = {1, 2, 3, 4, 1, 3, 2, 4, 2, 1, 3, 4};
    pf_kendall k;
    cr_assert_eq(pf_kendall_w(x, 3, 4, &k), PF_OK, "%s", pf_errmsg());
    near(k.w, 7.0 / 9, 1e-14, "W");
    near(k.chi2, 7, 1e-12, "chi2");
    cr_assert_eq(k.df, 3);
    near(k.p, 0.0718978, 1e-6, "p");
    near(k.ties, 0, 0, "no ties");
    double same[] = {0.1, 0.5, 0.3, 10, 50, 30};
    cr_assert_eq(pf_kendall_w(same, 2, 3, &k), PF_OK);
    near(k.w, 1, 1e-14, "the same order twice");
    double latin[] = {1, 2, 3, 2, 3, 1, 3, 1, 2};
    cr_assert_eq(pf_kendall_w(latin, 3, 3, &k), PF_OK);
    near(k.w, 0, 1e-14, "a Latin square");
    near(k.p, 1, 1e-14, "p of W = 0");
    double tied[] = {1, 1, 1, 2, 2, 2};
    cr_assert_eq(pf_kendall_w(tied, 2, 3, &k), PF_ERR_INVALID, "every rater ties everything");
    cr_assert_eq(pf_kendall_w(x, 1, 4, &k), PF_ERR_INVALID, "one rater");
    x[5] = NAN;
    cr_assert_eq(pf_kendall_w(x, 3, 4, &k), PF_ERR_INVALID, "a NaN");
}

/* A textbook case with ties: the anxiety ratings of 20 subjects by 3 raters
 * in the R package irr (Gamer, Lemon, Fellows & Singh), whose manual's
 * example kendall(anxiety, TRUE) prints "Wt = 0.54, Chisq(19) = 30.8,
 * p-value = 0.0429". */
Test(stats, kendall_textbook_anxiety_with_ties)
{
    static const double x[] = {3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3,  /* rater 1 */
                               3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4,  /* rater 2 */
                               2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2}; /* rater 3 */
    pf_kendall k;
    cr_assert_eq(pf_kendall_w(x, 3, 20, &k), PF_OK, "%s", pf_errmsg());
    near(k.w, 0.54, 5e-3, "Wt");
    near(k.chi2, 30.8, 5e-2, "chi2");
    cr_assert_eq(k.df, 19);
    near(k.p, 0.0429, 5e-5, "p");
    cr_assert(k.ties > 0, "the ratings tie");
    /* by hand from the ratings: rater 1 gives the scores 1..6 to 2, 6, 5, 2,
     * 4, 1 subjects, rater 2 to 1, 5, 8, 4, 0, 2, rater 3 to 7, 5, 5, 2, 0,
     * 1: T = sum (t^3 - t) = 1674 */
    near(k.ties, 1674, 1e-9, "the tie term");
}

/* ------------------------------------------------------------ welch */

/* x = {0, 2}, y = {3, 5}: means 1 and 4, variances 2: t = -3 / sqrt(2),
 * df = 2, whose t distribution has P(|T| > t) = 1 - t / sqrt(2 + t^2):
 * p = 1 - 3 / sqrt(13) = 0.16795. x = {1, 2, 3, 4}, y = {2, 4}: t =
 * -0.5 / sqrt(5/12 + 1), df = (17/12)^2 / ((5/12)^2 / 3 + 1) = 1.89716. */
Test(stats, welch_hand_cases)
{
    double x[] = {0, 2}, y[] = {3, 5};
    pf_welch w;
    cr_assert_eq(pf_welch_test(x, 2, y, 2, &w), PF_OK, "%s", pf_errmsg());
    near(w.t, -3 / sqrt(2), 1e-14, "t");
    near(w.df, 2, 1e-14, "df");
    near(w.p, 1 - 3 / sqrt(13), 1e-12, "p");
    double a[] = {1, 2, 3, 4}, b[] = {2, 4};
    cr_assert_eq(pf_welch_test(a, 4, b, 2, &w), PF_OK);
    near(w.t, -0.5 / sqrt(17.0 / 12), 1e-14, "t, unequal sizes");
    near(w.df, (17.0 / 12) * (17.0 / 12) / (25.0 / 144 / 3 + 1), 1e-12, "df, unequal sizes");
    cr_assert(w.p > 0.5 && w.p < 1, "p %g", w.p);
    double c1[] = {1, 1}, c2[] = {2, 2};
    cr_assert_eq(pf_welch_test(c1, 2, c2, 2, &w), PF_OK);
    cr_assert(w.p == 0 && isinf(w.t) && w.t < 0, "two different constants: p %g, t %g", w.p, w.t);
    cr_assert_eq(pf_welch_test(c1, 2, c1, 2, &w), PF_OK);
    cr_assert(w.p == 1, "the same constant: p %g", w.p);
    cr_assert_eq(pf_welch_test(x, 1, y, 2, &w), PF_ERR_INVALID, "one value");
}

/* ------------------------------------------------------------ wilcoxon */

/* d = 1, -2, 3, 4, 5: W+ = 13, W- = 2; P(W- <= 2) = 3/32 (sums 0, 1, 2). */
Test(stats, wilcoxon_exact_hand_case)
{
    double x[] = {1, 0, 3, 4, 5}, y[] = {0, 2, 0, 0, 0};
    pf_wilcoxon w;
    cr_assert_eq(pf_wilcoxon_test(x, y, 5, &w), PF_OK);
    cr_assert(w.exact && !w.ties);
    near(w.w_plus, 13, 0, "W+");
    near(w.w_minus, 2, 0, "W-");
    near(w.p, 6.0 / 32, 1e-15, "exact two-sided p");
    /* swapping the samples mirrors W and keeps p */
    pf_wilcoxon v;
    cr_assert_eq(pf_wilcoxon_test(y, x, 5, &v), PF_OK);
    near(v.w_plus, 2, 0, "mirrored W+");
    near(v.p, w.p, 0, "mirrored p");
    /* all 25 positive: p = 2 / 2^25 */
    double a[25], b[25];
    for (int i = 0; i < 25; i++) a[i] = i + 1.5, b[i] = 0;
    cr_assert_eq(pf_wilcoxon_test(a, b, 25, &v), PF_OK);
    near(v.p, 2 / 33554432.0, 1e-22, "all positive, n = 25");
}

/* d = 0, 1, -1, 2, 2, 3, 4, 5, -6, 7: the zero is dropped (n = 9), ties
 * -> normal approximation. Ranks of |d|: 1.5 1.5 3.5 3.5 5 6 7 8 9;
 * W+ = 35.5, W- = 9.5, mean 22.5, variance 9*10*19/24 - (6 + 6)/48 = 71,
 * z = (13 - 0.5) / sqrt(71), p = erfc(z / sqrt 2). */
Test(stats, wilcoxon_normal_with_ties_and_zero)
{
    double d[] = {0, 1, -1, 2, 2, 3, 4, 5, -6, 7}, zero[10] = {0};
    pf_wilcoxon w;
    cr_assert_eq(pf_wilcoxon_test(d, zero, 10, &w), PF_OK);
    cr_assert(!w.exact && w.ties);
    cr_assert_eq(w.zeros, 1);
    cr_assert_eq(w.n, 9);
    near(w.w_plus, 35.5, 0, "W+");
    near(w.w_minus, 9.5, 0, "W-");
    near(w.z, 12.5 / sqrt(71.0), 1e-12, "z");
    near(w.p, erfc(12.5 / sqrt(71.0) / sqrt(2.0)), 1e-12, "p");
    near(w.p, 0.13794770351393681, 1e-12, "p (number)");
    /* no nonzero difference: p = 1 */
    cr_assert_eq(pf_wilcoxon_test(zero, zero, 10, &w), PF_OK);
    near(w.p, 1, 0, "all zero");
}

/* Above 50 pairs the normal approximation is used even without ties. */
Test(stats, wilcoxon_large_n_normal)
{
    double x[60], y[60];
    for (int i = 0; i < 60; i++) x[i] = (i % 3 ? 1 : -1) * (i + 1.0), y[i] = 0;
    pf_wilcoxon w;
    cr_assert_eq(pf_wilcoxon_test(x, y, 60, &w), PF_OK);
    cr_assert(!w.exact && !w.ties);
    double mean = 60 * 61 / 4.0, sd = sqrt(60 * 61 * 121 / 24.0);
    near(w.z, (fabs(w.w_plus - mean) - 0.5) / sd, 1e-12, "z");
}

/* ------------------------------------------------------------ holm */

Test(stats, holm_worked_example)
{
    double p[] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    cr_assert_eq(pf_holm(p, 4, adj), PF_OK);
    /* sorted 0.005 0.01 0.03 0.04 -> x4 x3 x2 x1 = 0.02 0.03 0.06 0.04 -> monotone 0.02 0.03 0.06 0.06 */
    double want[] = {0.03, 0.06, 0.06, 0.02};
    for (int i = 0; i < 4; i++) near(adj[i], want[i], 1e-15, "holm");
    double q[] = {0.5, NAN, 0.6}, qa[3];
    cr_assert_eq(pf_holm(q, 3, qa), PF_OK);
    near(qa[0], 1, 0, "capped at 1");
    near(qa[2], 1, 0, "kept monotone");
    cr_assert(isnan(qa[1]), "NaN stays NaN");
}

/* ------------------------------------------------------------ means */

static void read_table(const char *path, pf_means *m)
{
    cr_assert_eq(access(path, R_OK), 0, "%s is missing (run the tests from the repository root)", path);
    cr_assert_eq(pf_means_read_csv(path, m), PF_OK, "%s", pf_errmsg());
}

static pf_status parse_text(const char *text, pf_means *m)
{
    char path[] = "/tmp/pf-means-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    pf_status st = pf_means_read_csv(path, m);
    unlink(path);
    return st;
}

Test(stats, means_csv_round_trip)
{
    pf_means m;
    read_table(TABLE1, &m);
    cr_assert_eq(m.npde, 25);
    cr_assert_eq(m.nmethod, 4);
    near(pf_means_mean(&m, pf_means_pde(&m, "kovasznay_flow_2d"), pf_means_method(&m, "pinnforge")), 1.77e-9, 1e-24,
         "a cell");
    char *csv = pf_means_csv(&m);
    pf_means b;
    cr_assert_eq(parse_text(csv, &b), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(b.npde * b.nmethod, 100);
    for (int i = 0; i < m.npde; i++)
        for (int j = 0; j < m.nmethod; j++) {
            rel(pf_means_mean(&b, i, j), pf_means_mean(&m, i, j), 1e-9, "mean after the round trip");
            rel(pf_means_std(&b, i, j), pf_means_std(&m, i, j), 1e-9, "std after the round trip");
        }
    free(csv);
    pf_means_release(&m);
    pf_means_release(&b);
}

Test(stats, means_csv_errors_name_the_line)
{
    pf_means m;
    cr_assert_eq(parse_text("pde,method,std\na,b,1\n", &m), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "no column 'mean'"), "%s", pf_errmsg());
    cr_assert_eq(parse_text("# c\n\npde,method,mean\na,b,1\na,c,x1\n", &m), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), ":5:") && strstr(pf_errmsg(), "'x1'"), "%s", pf_errmsg());
    cr_assert_eq(parse_text("pde,method,mean\na,b,1\na,b,2\n", &m), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "twice"), "%s", pf_errmsg());
    cr_assert_eq(parse_text("method,extra,mean,pde\nb,?,1e-3,a\n", &m), PF_OK, "%s", pf_errmsg());
    near(pf_means_mean(&m, 0, 0), 1e-3, 0, "columns in any order");
    cr_assert(isnan(pf_means_std(&m, 0, 0)), "no std column");
    pf_means_release(&m);
}

Test(stats, means_csv_refuses_a_negative_or_non_finite_std_and_odd_run_counts)
{
    pf_means m;
    static const char *const bad[][2] = {
        {"pde,method,mean,std\na,b,1e-3,-2e-4\n", ":2: std '-2e-4' is not a standard deviation"},
        {"pde,method,mean,std\na,b,1e-3,nan\n", ":2: std 'nan' is not a standard deviation"},
        {"pde,method,mean,std\na,b,1e-3,inf\n", ":2: std 'inf' is not a standard deviation"},
        {"pde,method,mean,std,runs\na,b,1e-3,0,-1\n", ":2: runs '-1' is not a count of runs"},
        {"pde,method,mean,std,runs\na,b,1e-3,0,2.5\n", ":2: runs '2.5' is not a count of runs"},
        {"pde,method,mean,std,runs\na,b,1e-3,0,1e300\n", ":2: runs '1e300' is not a count of runs"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_eq(parse_text(bad[i][0], &m), PF_ERR_INVALID, "case %zu", i);
        cr_assert(strstr(pf_errmsg(), bad[i][1]), "case %zu: %s", i, pf_errmsg());
    }
    /* zero, and an empty std or runs (not given), are fine */
    cr_assert_eq(parse_text("pde,method,mean,std,runs\na,b,1e-3,0,3\na,c,2e-3,,\n", &m), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(pf_means_std(&m, 0, 0), 0);
    cr_assert(isnan(pf_means_std(&m, 0, 1)));
    pf_means_release(&m);
}

Test(stats, means_sort_paper_order)
{
    pf_means m = {0};
    cr_assert_eq(pf_means_set(&m, "wave_1d", "pinnforge", 1, 0, 1), PF_OK);
    cr_assert_eq(pf_means_set(&m, "burgers_1d", "zeta", 2, 0, 1), PF_OK);
    cr_assert_eq(pf_means_set(&m, "burgers_1d", "pinnsagent", 3, 0, 1), PF_OK);
    cr_assert_eq(pf_means_set(&m, "burgers_1d", "ropinn", 4, 0, 1), PF_OK);
    pf_means_sort(&m, "pinnforge");
    cr_assert_str_eq(m.pde[0], "burgers_1d");
    cr_assert_str_eq(m.method[0], "ropinn");
    cr_assert_str_eq(m.method[1], "pinnsagent");
    cr_assert_str_eq(m.method[2], "zeta");
    cr_assert_str_eq(m.method[3], "pinnforge");
    near(pf_means_mean(&m, 0, 0), 4, 0, "cells follow their names");
    near(pf_means_mean(&m, 1, 3), 1, 0, "cells follow their names");
    cr_assert(isnan(pf_means_mean(&m, 1, 0)), "a missing cell");
    pf_means_drop_sparse(&m, 2);
    cr_assert_eq(m.npde, 1, "wave_1d has one method");
    cr_assert_str_eq(m.pde[0], "burgers_1d");
    near(pf_means_mean(&m, 0, 0), 4, 0, "the kept row");
    pf_means_release(&m);
}

/* ------------------------------------------------------------ golden */

/* The paper's Table 1: chi2_F = 42.696, p = 2.86e-9, average ranks
 * 3.04 / 2.96 / 2.96 / 1.04, Holm-adjusted Wilcoxon p = 1.79e-7 for each
 * baseline, median CVs 0.177 / 0.184 / 0.497 / 0.182; section 4.2: best on
 * 24 of 25, median reduction 59.85%, geometric-mean ratio 2.78x. */
Test(stats, golden_paper_table1)
{
    pf_means m;
    read_table(TABLE1, &m);
    json_t *c;
    cr_assert_eq(pf_compare(&m, "pinnforge", &c), PF_OK, "%s", pf_errmsg());
    json_t *f = json_object_get(c, "friedman");
    near(jnum(f, "chi2", NULL), 42.696, 5e-4, "chi2_F");
    rel(jnum(f, "p", NULL), 2.86e-9, 5e-3, "Friedman p");
    cr_assert_eq(json_integer_value(json_object_get(f, "df")), 3);
    const char *methods[] = {"ropinn", "pinnsformer", "pinnsagent", "pinnforge"};
    double ranks[] = {3.04, 2.96, 2.96, 1.04}, cv[] = {0.177, 0.184, 0.497, 0.182};
    for (int j = 0; j < 4; j++) {
        near(jnum(json_object_get(f, "avg_ranks"), methods[j], NULL), ranks[j], 1e-12, "average rank");
        near(jnum(json_object_get(c, "median_cv"), methods[j], NULL), cv[j], 5e-4, "median CV");
    }
    for (int j = 0; j < 3; j++) {
        json_t *w = json_object_get(json_object_get(c, "wilcoxon"), methods[j]);
        rel(jnum(w, "p_holm", NULL), 1.79e-7, 5e-3, "Holm-adjusted Wilcoxon p");
        cr_assert_str_eq(json_string_value(json_object_get(w, "verdict")), "+", "%s", methods[j]);
        cr_assert_str_eq(json_string_value(json_object_get(w, "method")), "exact");
    }
    json_t *b = json_object_get(c, "best_other");
    cr_assert_eq(json_integer_value(json_object_get(b, "wins")), 24);
    near(jnum(b, "median_reduction", NULL), 0.5985, 5e-5, "median MSE reduction");
    near(jnum(b, "geomean_ratio", NULL), 2.78, 5e-3, "geometric-mean ratio");
    char *text = pf_compare_text(c);
    cr_assert(strstr(text, "chi2_F = 42.696"), "%s", text);
    free(text);
    json_decref(c);
    pf_means_release(&m);
}

/* Table B.7: median task-wise error ratios 3.74x / 12.10x / 10.10x. */
Test(stats, golden_paper_ablation_ratios)
{
    pf_means m;
    read_table(ABLATION, &m);
    json_t *c;
    cr_assert_eq(pf_compare(&m, "pinnforge", &c), PF_OK, "%s", pf_errmsg());
    json_t *r = json_object_get(c, "median_ratio");
    near(jnum(r, "no_knowledge", NULL), 3.74, 5e-3, "w/o knowledge");
    near(jnum(r, "no_feedback", NULL), 12.10, 5e-3, "w/o feedback");
    near(jnum(r, "no_evolution", NULL), 10.10, 5e-3, "w/o evolution");
    near(jnum(r, "pinnforge", NULL), 1, 0, "the reference");
    json_decref(c);
    pf_means_release(&m);
}

/* Missing cells: Friedman uses complete tasks only; Wilcoxon pairs per method. */
Test(stats, compare_with_missing_cells)
{
    pf_means m = {0};
    const double a[] = {1e-3, 2e-3, 3e-3, 4e-3}, b[] = {2e-3, 3e-3, 1e-3, 9e-3};
    const char *pdes[] = {"p1", "p2", "p3", "p4"};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(pf_means_set(&m, pdes[i], "pinnforge", a[i], a[i] / 10, 3), PF_OK);
        if (i != 2) cr_assert_eq(pf_means_set(&m, pdes[i], "other", b[i], NAN, 0), PF_OK);
    }
    json_t *c;
    cr_assert_eq(pf_compare(&m, "pinnforge", &c), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(c, "friedman"), "tasks")), 3);
    json_t *w = json_object_get(json_object_get(c, "wilcoxon"), "other");
    cr_assert_eq(json_integer_value(json_object_get(w, "n")), 3);
    near(jnum(w, "w_plus", NULL), 6, 0, "other is worse on all three shared tasks");
    near(jnum(c, "median_cv", "pinnforge"), 0.1, 1e-12, "median CV");
    cr_assert(json_is_null(json_object_get(json_object_get(c, "median_cv"), "other")), "no std: no CV");
    near(jnum(c, "median_ratio", "other"), 2, 1e-12, "median of 2, 1.5, 2.25");
    json_decref(c);
    cr_assert_eq(pf_means_set(&m, "p3", "other", -1, NAN, 0), PF_OK);
    cr_assert_eq(pf_compare(&m, "pinnforge", &c), PF_ERR_INVALID, "a negative mean");
    cr_assert_eq(pf_compare(&m, "nobody", &c), PF_ERR_INVALID, "an unknown reference");
    pf_means_release(&m);
}

/* R's type-7 quantile by hand: {1, 2, 3, 4} at 0.25 is h = 0.75, 1 + 0.75
 * (2 - 1) = 1.75; at 0.5 the median 2.5; at 0 and 1 the ends. */
Test(stats, quantile_sorted_hand_values)
{
    const double x[] = {1, 2, 3, 4};
    cr_expect_float_eq(pf_stats_quantile_sorted(x, 4, 0.25), 1.75, 1e-15);
    cr_expect_float_eq(pf_stats_quantile_sorted(x, 4, 0.5), 2.5, 1e-15);
    cr_expect_eq(pf_stats_quantile_sorted(x, 4, 0), 1);
    cr_expect_eq(pf_stats_quantile_sorted(x, 4, 1), 4);
    cr_expect(isnan(pf_stats_quantile_sorted(x, 0, 0.5)));
}

/* Identical runs: every resample's median is the value, so the interval
 * has zero width. */
Test(stats, bootstrap_of_identical_runs_has_zero_width)
{
    const double x[] = {0.4, 0.4, 0.4, 0.4, 0.4};
    double lo, hi;
    cr_assert_eq(pf_stats_bootstrap_median(x, 5, PF_BOOTSTRAP_RESAMPLES, 0.95, PF_BOOTSTRAP_SEED, &lo, &hi), PF_OK);
    cr_expect_eq(lo, 0.4);
    cr_expect_eq(hi, 0.4);
}

/* The three finalists, ratios 0.40, 0.35 and 1.43. A resample of
 * three has median 0.35 when two or three draws are 0.35: 3 (1/3)^2 (2/3)
 * + (1/3)^3 = 7/27 = 0.26 of resamples, 1.43 likewise, 0.40 the other
 * 13/27. The 2.5% and 97.5% quantiles of 2,000 medians, sorted, lie in the
 * first and last 26% (ranks 50 and 1,950 of 2,000), so the 95% interval is
 * [0.35, 1.43] exactly; at level 0.4 the 30% and 70% quantiles lie in the
 * middle 48%: [0.40, 0.40]. The same seed gives the same interval. */
Test(stats, bootstrap_percentile_interval_by_hand)
{
    const double x[] = {0.40, 0.35, 1.43};
    double lo, hi, lo2, hi2;
    cr_assert_eq(pf_stats_bootstrap_median(x, 3, 2000, 0.95, PF_BOOTSTRAP_SEED, &lo, &hi), PF_OK);
    cr_expect_eq(lo, 0.35);
    cr_expect_eq(hi, 1.43);
    cr_assert_eq(pf_stats_bootstrap_median(x, 3, 2000, 0.4, PF_BOOTSTRAP_SEED, &lo, &hi), PF_OK);
    cr_expect_eq(lo, 0.40);
    cr_expect_eq(hi, 0.40);
    const double y[] = {1, 5, 2, 8, 3, 9, 4};
    cr_assert_eq(pf_stats_bootstrap_median(y, 7, 500, 0.9, 7, &lo, &hi), PF_OK);
    cr_assert_eq(pf_stats_bootstrap_median(y, 7, 500, 0.9, 7, &lo2, &hi2), PF_OK);
    cr_expect(lo == lo2 && hi == hi2, "deterministic: [%g, %g] then [%g, %g]", lo, hi, lo2, hi2);
    cr_expect(lo >= 1 && lo <= 4 && hi >= 4 && hi <= 9, "[%g, %g] holds the median 4", lo, hi);
    cr_expect_eq(pf_stats_bootstrap_median(y, 0, 500, 0.9, 7, &lo, &hi), PF_ERR_INVALID);
    cr_expect_eq(pf_stats_bootstrap_median(y, 7, 0, 0.9, 7, &lo, &hi), PF_ERR_INVALID);
    cr_expect_eq(pf_stats_bootstrap_median(y, 7, 500, 1, 7, &lo, &hi), PF_ERR_INVALID);
}
