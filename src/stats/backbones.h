/*
 * backbones.h — the methods' results across LLM backbones (issue 37), from
 * collected runs (collect.h: a run's backbone, the runs without one shared
 * by all). Per backbone B, "B's table" is Table 1 of B's runs: the means
 * over runs (c->backbone = B) of every method but the ablations.
 *
 *   friedman  per LLM-driven method (methods.def's PF_MF_LLM) with finished
 *             runs: the Friedman test across backbones (friedman.h) with
 *             blocks = the PDEs where every backbone has finished runs of
 *             the method, treatments = the backbones, values = the mean
 *             final MSE of the method's runs; the other PDEs are left out
 *             and listed;
 *   kendall   the agreement of the method rankings: per backbone, each
 *             method's mean rank over the PDEs (rank 1 = lowest mean MSE
 *             on a PDE, ties averaged), over the PDEs where every backbone's
 *             table has every method that all the backbones' tables share;
 *             Kendall's W over backbones (raters) x methods (objects) of
 *             these mean ranks, tie-corrected, with its chi-square p-value
 *             (kendall.h); methods and PDEs left out are listed;
 *   wtl       per backbone, the reference (B's runs) against every other
 *             method of B's table on each PDE both have: Welch's t-test on
 *             log10 of the runs' MSEs (welch.h); a tie when p >= alpha
 *             (PF_STATS_ALPHA, no correction across PDEs), else a win when
 *             the reference's mean log10 MSE is the lower, a loss when it
 *             is the higher; "untested" when a side has fewer than 2
 *             finished runs or an MSE that is not positive.
 *
 * The result is one JSON object (statistics.json's "backbones"):
 *   {"backbones": [B...], "reference", "alpha",
 *    "friedman": {method: {"chi2", "p", "df", "pdes", "avg_ranks": {B: r},
 *                          "left_out": [pde...]} | {"why", "left_out"}},
 *    "kendall": {"w", "chi2", "df", "p", "ties", "pdes": [pde...],
 *                "methods": [m...], "avg_ranks": {B: {m: r}},
 *                "left_out": [pde...], "methods_left_out": [m...]} | {"why"},
 *    "wtl": {B: {method: {"wins", "ties", "losses", "untested"}}}}
 */
#ifndef PF_STATS_BACKBONES_H
#define PF_STATS_BACKBONES_H

#include <jansson.h>

#include "core/status.h"
#include "stats/collect.h"

/* PF_ERR_INVALID when c holds fewer than 2 backbones, or as
 * pf_collection_means (cells of other settings). *out is a new reference. */
pf_status pf_backbones_compare(const pf_collection *c, const char *reference, json_t **out);

#endif
