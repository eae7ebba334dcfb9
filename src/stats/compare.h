/*
 * compare.h — the paper's comparison of methods across tasks, from a table
 * of per-task means (means.h).
 *
 *   friedman      over the tasks where every method has a mean (complete
 *                 blocks; friedman.h), lower mean = better rank;
 *   wilcoxon      each method against the reference on log10 of the means,
 *                 over the tasks both have (wilcoxon.h), x = the method,
 *                 y = the reference; p_holm by Holm over all the methods
 *                 compared (holm.h); verdict "+" when p_holm < alpha and
 *                 the reference is better (W+ > W-: the method's log10
 *                 means are mostly the larger), "-" when significant the
 *                 other way, "=" otherwise (the paper's Wilcoxon row);
 *   median_cv     per method, the median over tasks of std / mean;
 *   median_ratio  per method, the median over shared tasks of
 *                 mean_method / mean_reference (appendix B.7);
 *   best_other    per task, the best other method's mean over the
 *                 reference's: the median of 1 - 1/ratio (the paper's
 *                 "median MSE reduction", 59.85% on Table 1), the geometric
 *                 mean of the ratio (2.78x), and on how many tasks the
 *                 reference is strictly best (24 of 25).
 *
 * The result is one JSON object (the `pf-stats --from-table --json`
 * output; numbers are null where a statistic cannot be computed, with a
 * "why" beside):
 *   {"reference", "methods": [...], "tasks": n, "alpha",
 *    "friedman": {"chi2", "p", "df", "tasks", "tie_correction",
 *                 "avg_ranks": {method: rank}} | {"why"},
 *    "wilcoxon": {method: {"p", "p_holm", "verdict", "w_plus", "w_minus",
 *                          "n", "zeros", "method": "exact"|"normal"}},
 *    "median_cv": {method: value}, "median_ratio": {method: value},
 *    "best_other": {"median_reduction", "geomean_ratio", "wins", "tasks"}}
 */
#ifndef PF_STATS_COMPARE_H
#define PF_STATS_COMPARE_H

#include <jansson.h>

#include "core/status.h"
#include "stats/means.h"

#define PF_STATS_ALPHA 0.05

/* PF_ERR_INVALID when the reference has no column or a mean is not
 * positive (the log10 would not exist). *out is a new reference. */
pf_status pf_compare(const pf_means *m, const char *reference, json_t **out);

/* The compare object as lines for people (malloc'ed). */
char *pf_compare_text(const json_t *c);

#endif
