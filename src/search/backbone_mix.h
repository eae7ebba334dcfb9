/*
 * backbone_mix.h — a search over a mixture of LLM backbones
 * (BACKBONE=mix:a,b,c, context.json's "backbone"; docs/llm.md, "A mixture
 * of backbones"): UCB1 draws the backbone of each proposal.
 *
 *     pf_llm_options o;
 *     pf_llm_provider *llm;
 *     pf_mix_draw d;
 *     PF_TRY(pf_mix_provider(&run, g, k, &o, &llm, &d));  // d.n == 0: no mixture
 *     // o.backbone is the drawn arm; pf_mix_draw_json(&d) is the proposal's "mix"
 *
 * Arms and rewards. An arm's pulls are the earlier generations' proposals
 * whose "backbone" is the arm (skipped ones are not pulls). A pull's reward,
 * in [0, 1] as UCB1 assumes (pf_mix_reward):
 *   0                                  an invalid answer, or a design whose
 *                                      training gave no MSE (nan, diverged)
 *   clip(1/2 + 1/2 log10(m / y), 0, 1) a design with MSE y, m the median MSE
 *                                      of its generation's trained designs:
 *                                      the median scores 1/2, ten times
 *                                      better 1, ten times worse 0
 *
 * UCB1 (pf_mix_ucb1). n_i = pulls_i + pending_i, N = sum n_i; mean_i =
 * reward sum / pulls (0 without pulls); UCB_i = mean_i + sqrt(2 ln N / n_i);
 * an arm with n_i = 0 comes first (UCB +inf). The highest UCB wins; a tie
 * (exactly equal values) is broken by a seeded draw, pf_rng_derive(seed,
 * "backbone-mix/G/K").
 *
 * Replay. The slots of a generation are proposed at once by separate
 * processes, so slot k of generation g is drawn from the generations
 * before g only: slots 0..k-1 are drawn first, in order, each one a pending
 * (virtual) pull of its arm with no reward yet, then slot k. The draw
 * depends only on the run's seed and the outcomes of generations < g, so a
 * rerun or a replay makes the same one.
 */
#ifndef PF_SEARCH_BACKBONE_MIX_H
#define PF_SEARCH_BACKBONE_MIX_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "llm/backbones.h"
#include "llm/provider.h"
#include "search/run.h"

typedef struct pf_mix_arm {
    char name[PF_LLM_BACKBONE_NAME_MAX + 1];
    int pulls;        /* earlier generations' proposals it answered */
    double reward;    /* the sum of their rewards                   */
    int pending;      /* earlier slots of this generation drawn to it */
    double mean, ucb; /* set by pf_mix_ucb1; ucb INFINITY when n_i = 0 */
} pf_mix_arm;

typedef struct pf_mix_draw {
    int n;                        /* arms; 0: no mixture          */
    int arm;                      /* the drawn one                */
    int ties;                     /* arms at the highest UCB      */
    int total;                    /* N                            */
    pf_mix_arm arms[PF_LLM_MIX_MAX];
} pf_mix_draw;

/* A pull's reward (above): median is the generation's median MSE. */
double pf_mix_reward(bool valid, bool has_y, double y, double median);

/* Fills every arm's mean and ucb and returns the drawn arm; *ties (may be
 * NULL) the number of arms that shared the highest value. n >= 1. */
int pf_mix_ucb1(pf_mix_arm *arms, int n, uint64_t seed, int g, int k, int *ties);

/* Slots 0..k of generation g drawn in order from arms (pulls and rewards
 * set, pending 0): each earlier slot's arm gets a pending pull; returns
 * slot k's arm, arms[] as UCB1 saw them for it (*ties as above). */
int pf_mix_allocate(pf_mix_arm *arms, int n, uint64_t seed, int g, int k, int *ties);

/* The pulls and rewards of the arms (names set) from generations 0..g-1 of
 * the run in dir, method m: proposals and evidence (PF_ERR_IO naming a
 * file that is missing or unreadable). */
pf_status pf_mix_history(const char *dir, pf_method m, int g, pf_mix_arm *arms, int n);

/* Slot k of generation g: history, then slots 0..k in order (above). */
pf_status pf_mix_draw_slot(const pf_run *r, const pf_llm_mix *mix, int g, int k, pf_mix_draw *d);

/* The draw as the proposal records it: {rule, chosen, reason, total, ties,
 * arms: [{name, pulls, reward, pending, mean, ucb (null: untried)}]}. */
json_t *pf_mix_draw_json(const pf_mix_draw *d);

/* pf_run_provider for slot k of generation g: under a mixture the drawn
 * arm's backbone (*d filled), else the run's provider (d->n = 0). A
 * mixture with the offline proposer (LLM=offline) is PF_ERR_INVALID. */
pf_status pf_mix_provider(const pf_run *r, int g, int k, pf_llm_options *o, pf_llm_provider **out, pf_mix_draw *d);

#endif
