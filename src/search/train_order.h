/*
 * train_order.h — what each training of a run is predicted to take, and
 * the order a group of trainings starts in: the longest first.
 *
 *     pf_train_prediction pr;                            // fitted to generations 0..2:
 *     PF_TRY(pf_cost_predict_training(&run, 3, pde, &mc, &tc, &pr));   // pr.total_s
 *     PF_TRY(pf_train_plan_write(&run, 3, NULL, 0));     // RUN/gen03/plan.json
 *     int k;
 *     PF_TRY(pf_train_plan_slot(&run, 3, 0, &k));        // the slot that starts first
 *
 * A group is a generation's candidates, the high-fidelity Top-3
 * (PF_RUN_HIFI) or a baseline's side-by-side slots. Make starts the
 * prerequisites of a target in the order they are listed, and that order
 * is fixed when make reads pipeline.mk, before any proposal exists. So a
 * group's trainings are made through its plan (pipeline.mk): the plan, made
 * once every proposal of the group exists, lists the slots by decreasing
 * predicted time, and rank r's rule trains the slot at rank r, the ranks
 * listed 0, 1, ...: with -j N the longest N start first, and a long
 * training started last no longer keeps one core busy while the others
 * wait. Each slot also keeps a rule of its own, for its outputs deleted
 * (pf_training_stale, under pf_training_lock_open's lock).
 *
 * The prediction is the cost model of search/time_budget.h (seconds/step =
 * c * work + overhead) fitted to the run's trainings of the stages before
 * the group (generations 0..g-1; for the Top-3 every generation), as their
 * evidence recorded them (time.work, time.steps_s, steps): files that are
 * all in place when the group's proposals are, so the plan and each
 * training's prediction are the same numbers however make interleaves the
 * group's trainings. No earlier training (generation 0, a baseline): the
 * default c, which orders by work * steps. The prediction is kept in the
 * evidence (pf-train: time.predicted_s, predicted_step_s, work,
 * cost_model) beside the measured time. The order changes no result: every
 * training has its own seed.
 *
 * RUN/genGG/plan.json (hifi/plan.json), written atomically:
 *     {"format": "pinnforge.plan", "version": 1, "generation": 3,
 *      "cost_model": {"c": 2.1e-10, "overhead_s": 0.0004, "trainings": 13},
 *      "order": [{"rank": 0, "slot": 2, "predicted_s": 41.2, "predicted_step_s": 0.206,
 *                 "work": 1.9e8, "steps": 200}, ...,
 *                {"rank": 4, "slot": 1, "predicted_s": 0, "untrained": "skipped"}]}
 */
#ifndef PF_SEARCH_TRAIN_ORDER_H
#define PF_SEARCH_TRAIN_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "search/run.h"
#include "search/time_budget.h"
#include "train/trainer.h"

#define PF_TRAIN_PLAN_FORMAT "pinnforge.plan"
#define PF_TRAIN_PLAN_VERSION 1

/* The ranks of n trainings: order[r] is the slot that starts r-th, by
 * decreasing predicted_s[slot]; equal predictions (and any that is not a
 * number) in slot order, the latter last. */
void pf_train_order(const double *predicted_s, int n, int *order);

/* The cost model for the trainings of group g of run r (PF_RUN_HIFI: the
 * Top-3): fitted to the finished trainings of the generations before it
 * whose evidence records time.work. A file that does not read is an error
 * naming it. */
pf_status pf_cost_calibrate(const pf_run *r, int g, pf_cost_model *m);

/* The prediction for a training of the spec instantiated as mc, tc on
 * PDE p under model m. */
pf_train_prediction pf_cost_prediction_of(const pf_cost_model *m, const pf_pde *p, const pf_model_config *mc,
                                          const pf_train_config *tc);

/* pf-train's: the model group g's plan recorded (no plan: that of
 * pf_cost_calibrate(r, g), the same numbers; r NULL, a training outside a
 * run: the default model), then pf_cost_prediction_of. */
pf_status pf_cost_predict_training(const pf_run *r, int g, const pf_pde *p, const pf_model_config *mc,
                                   const pf_train_config *tc, pf_train_prediction *out);

/* Write group g's plan (every proposal of the group read and its spec
 * instantiated as pf-train would; a proposal without a valid spec is not
 * trained and predicted 0). `say` (when cap > 0) gets one line naming the
 * slots in their order with their predictions. */
pf_status pf_train_plan_write(const pf_run *r, int g, char *say, size_t cap);

/* The slot at rank `rank` of group g's plan (PF_ERR_INVALID naming the
 * file when it holds no such rank). */
pf_status pf_train_plan_slot(const pf_run *r, int g, int rank, int *slot);

/* Whether training (g, k) is to be done: its evidence.msgpack or result.h5
 * is missing, or older than its proposal (make's rule, to the nanosecond). */
pf_status pf_training_stale(const pf_run *r, int g, int k, bool *stale);

/* The lock a training is made under (its folder's PF_TRAIN_LOCK_FILE,
 * core/lock.h, created with the folder): two recipes that may train one
 * slot (its rank's and its own, pipeline.mk) take it, then ask
 * pf_training_stale, so the second finds the first's outputs and trains
 * nothing. *fd is open, not yet locked. */
#define PF_TRAIN_LOCK_FILE ".train.lock"
pf_status pf_training_lock_open(const pf_run *r, int g, int k, int *fd);

/* When training (g, k)'s launcher last recorded a failure (its folder's
 * launch.txt "failed RC EPOCH", scripts/launch.sh): *epoch, else 0. */
pf_status pf_training_failed_at(const pf_run *r, int g, int k, long *epoch);

#endif
