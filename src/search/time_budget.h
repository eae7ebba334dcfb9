/*
 * time_budget.h — a search's wall-clock budget (TIME_BUDGET=45m): how long
 * each training may take, and what a training will take.
 *
 *     long b;
 *     PF_TRY(pf_time_budget_parse("45m", &b));           // 2700 s
 *     pf_time_plan p = {.budget_s = b, .elapsed_s = 600, .jobs = 2, .generation = 3,
 *                       .ngen = 10, .slots = {8, 5, 5, 5, 5, 5, 5, 5, 5, 5}, .top = 3,
 *                       .hifi_share = PF_TIME_BUDGET_HIFI_SHARE};
 *     double limit = pf_time_budget_limit(&p);           // seconds for this training
 *
 * ------------------------------------------------------------- the rule
 *
 * The budget B is spent by the time the run is being made, from its start
 * (its time_budget.json's sessions, search/time_budget_file.h: the time a
 * killed make was down does not count). The high-fidelity Top-3 get the last
 * hifi_share of it (0.25 in a search; 0 for a baseline, which has none);
 * the low-fidelity trainings the rest, (1 - hifi_share) B. A training
 * starting at elapsed time t in generation g gets
 *
 *     limit = PF_TIME_BUDGET_SAFETY * (end - t) / waves
 *
 * where end is (1 - hifi_share) B at low fidelity and B at high, and waves
 * is the number of rounds of `jobs` trainings still to run at that fidelity:
 * ceil(slots_h / jobs) summed over generations h = g .. ngen-1 (ceil(top /
 * jobs) at high fidelity), less floor(done / jobs) for the done trainings of
 * g's own round; less the mean time the run's finished trainings (at the
 * same fidelity, else all) spent outside their steps (set-up, the final
 * evaluation, the physics check: time_budget_file.c). Time a generation does not use (a training that ends early,
 * a search that stops) goes to those after it. The safety factor leaves room
 * for the stages between trainings and each training's final evaluation. A
 * limit below PF_TIME_BUDGET_MIN_S (the time is spent) is that minimum: the
 * training still takes its first step and is scored.
 *
 * ------------------------------------------------------------- stopping
 *
 * After generation g the search stops (the later generations are skipped,
 * the Top-3 retrained) when the low-fidelity time left, (1 - hifi_share) B
 * - t, is less than PF_TIME_BUDGET_STOP_FRACTION of the mean time of the
 * generations so far, t / (g + 1): a run whose stages cost more than its
 * trainings' limits (many short trainings) ends near its budget instead of
 * running every generation at one step each.
 *
 * ------------------------------------------------------------- the cost model
 *
 * A step of a design costs about
 *
 *     seconds/step = c * work + o,   work = parameters * points * streams
 *
 * with streams = 1 + the sum over inputs of the highest derivative order the
 * PDE needs (the jet's Taylor coefficients per point). c and the overhead o
 * are fitted by least squares to finished trainings (their work and
 * measured seconds per step: search/train_order.h fits the earlier
 * generations' evidence for every training's prediction, time_budget_file.c
 * the budget's record for the proposers' throughput); with one training, or a fit that is not
 * positive, o = 0 and c = sum t / sum work; with none, c =
 * PF_COST_DEFAULT_C, o = 0. The throughput told to the proposers is 1 / c:
 * parameter-point-stream steps per second.
 */
#ifndef PF_SEARCH_TIME_BUDGET_H
#define PF_SEARCH_TIME_BUDGET_H

#include <stddef.h>

#include "core/status.h"

#define PF_TIME_BUDGET_HIFI_SHARE 0.25 /* of the budget, for the high-fidelity Top-3 */
#define PF_TIME_BUDGET_SAFETY 0.85     /* of each share, for the stages between trainings */
#define PF_TIME_BUDGET_MIN_S 0.05      /* the least limit: one step */
#define PF_TIME_BUDGET_STOP_FRACTION 0.5 /* of a generation's mean time: less left stops the search */
#define PF_TIME_BUDGET_MAX_GEN 100
#define PF_COST_DEFAULT_C 2e-10        /* seconds per unit of work, before a training finished */

/* "45m", "2h", "90s" or "300" (seconds): whole seconds 1 .. 30 days into
 * *seconds; PF_ERR_INVALID naming the text otherwise. */
pf_status pf_time_budget_parse(const char *text, long *seconds);

/* What a training's limit depends on (the rule above). */
typedef struct pf_time_plan {
    double budget_s, elapsed_s;
    int jobs;                          /* trainings at once (make -j), 1 or more */
    int generation;                    /* the training's; -1 the high-fidelity stage */
    int ngen;                          /* generations at low fidelity */
    int slots[PF_TIME_BUDGET_MAX_GEN]; /* trainings in each */
    int top;                           /* high-fidelity trainings (0: none) */
    int done;                          /* trainings of this generation (stage) already finished */
    double hifi_share;
} pf_time_plan;

/* The training's time limit in seconds (>= PF_TIME_BUDGET_MIN_S). */
double pf_time_budget_limit(const pf_time_plan *p);

/* The stream count of a PDE whose inputs need derivatives up to orders[i]. */
int pf_cost_streams(const int *orders, int d_in);

/* parameters * points * streams */
double pf_cost_work(double params, double points, int streams);

typedef struct pf_cost_model {
    double c, overhead_s; /* seconds/step = c * work + overhead_s */
    int n;                /* trainings it was fitted to (0: the default) */
} pf_cost_model;

/* Fit to n finished trainings: work[i] and measured seconds per step t[i]
 * (entries that are not finite and positive are left out). */
pf_cost_model pf_cost_fit(const double *work, const double *t, int n);

/* Predicted seconds for `steps` steps of `work`. */
double pf_cost_predict(const pf_cost_model *m, double work, long steps);

/* The proposers' line: throughput and the time left for one training,
 * e.g. "Time budget: 412 s left; ...". Into buf (cap bytes). */
void pf_cost_prompt_line(const pf_cost_model *m, double left_s, double per_training_s, char *buf, size_t cap);

#endif
