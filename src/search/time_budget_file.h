/*
 * time_budget_file.h — RUN/time_budget.json: the clock and the limits of a
 * run made with TIME_BUDGET (search/time_budget.h has the rules).
 *
 *     {"time_budget_s": 2700, "started_at": 1764380000.5,
 *      "sessions": [{"started_at": 1764380000.5, "last_at": 1764380900.2},
 *                   {"started_at": 1764384800.0, "last_at": 1764385100.7}],
 *      "jobs": 2,
 *      "trainings": {"gen00/cand0": {"spec_hash": "...", "limit_s": 61.2, "predicted_s": 40.3,
 *                                    "work": 3.1e8, "steps": 812, "time_limited": true,
 *                                    "wall_s": 61.9, "step_s": 58.0}, ...},
 *      "prompts": {"gen01": "Time budget: ..."}}
 *
 * pf-context starts it (the clock) when a run with a budget begins or its
 * settings change; each pf-train --run asks it for its limit before
 * training (pf_time_budget_grant) and records its outcome after
 * (pf_time_budget_record); pf-propose takes the proposers' time line from
 * it (pf_time_budget_prompt); pf-final reads it. Every change is made under
 * RUN/.time_budget.lock (trainings of one run run side by side) and written
 * atomically.
 *
 * The clock counts the time the run was being made, not the time since it
 * began: each make of the run is a session, which pf-context starts
 * ("started_at", seconds since 1970) and every grant, outcome, prompt line
 * and stop decision stamps ("last_at"). The time used is each earlier
 * session from its start to its last stamp, plus the current (last) one
 * from its start to now: a make killed and started again an hour later is
 * not charged the hour (nor the part of a killed training after its grant).
 * A file without "sessions" (written before them) is read as one session
 * from "started_at" to the file's last write (its modification time);
 * malformed sessions are refused naming the file.
 *
 * Reproducible: a training whose entry has steps for the same spec_hash (a
 * rerun after its outputs were deleted, or a replay of a copied run, whose
 * settings differ only in LLM=replay) is stopped at those steps (step_limit) and
 * not by time; one killed mid-training keeps the limit it was given; the
 * proposers' line of a generation is the one recorded first. So a replay
 * asks the proposers the same questions and trains the same steps.
 */
#ifndef PF_SEARCH_TIME_BUDGET_FILE_H
#define PF_SEARCH_TIME_BUDGET_FILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "search/run.h"
#include "train/trainer.h"

#define PF_TIME_BUDGET_FILE "time_budget.json"

/* pf-context, after writing the settings: budget_s > 0 starts the clock
 * when the file is missing or holds another budget, or when `restart` (the
 * settings changed); `keep` keeps the recorded trainings, prompts and stop
 * and marks the file a replay, whose decisions come from the record only
 * (pf-context: a change to LLM=replay alone); otherwise (the run's next
 * make) it starts a session. budget_s == 0 removes the file. */
pf_status pf_time_budget_start(const char *dir, long budget_s, bool restart, bool keep);

/* The limits of one training (generation g, -1 = PF_RUN_HIFI for the
 * high-fidelity stage; slot k). */
typedef struct pf_time_grant {
    double limit_s;     /* 0: none */
    long step_limit;    /* 0: none (the recorded steps on a rerun) */
    bool replay;        /* the limits come from the record */
} pf_time_grant;

/* Decide (or take from the record) the limits of training (g, k) of run r,
 * whose spec has hash spec_hash, `work` (parameters * points * streams)
 * and the cost model's prediction predicted_s (search/train_order.h; both
 * recorded), with `jobs` trainings at once. */
pf_status pf_time_budget_grant(const pf_run *r, int g, int k, const char *spec_hash, double work, double predicted_s,
                               int jobs, pf_time_grant *out);

/* pf-train --run: the grant of training (g, k), applied to *to (its
 * time_limit_s and step_limit); nothing when the run has no budget. `say`
 * gets the lines to print (each ending in a newline; "" when none). */
pf_status pf_time_budget_apply(const pf_run *r, int g, int k, const char *spec_hash, double work, double predicted_s,
                               int jobs, pf_train_options *to, char *say, size_t cap);

/* Record how training (g, k) ended. */
pf_status pf_time_budget_record(const pf_run *r, int g, int k, const pf_train_result *res);

/* The proposers' line for generation g (the recorded one, else made now
 * and recorded) into buf; "" when the run has no budget. */
pf_status pf_time_budget_prompt(const pf_run *r, int g, char *buf, size_t cap);

/* pf-select after generation g: whether the search stops because the time
 * is spent (search/time_budget.h, "Stopping"), with why. Recorded
 * ("stopped_after"): a replay stops where the original stopped, and only
 * there. */
pf_status pf_time_budget_stop(const pf_run *r, int g, bool *stop, char *why, size_t cap);

/* final.msgpack's "time_budget" (*out NULL when the run has no budget):
 * {"budget_s", "used_s" (the clock's time to now, its sessions'), "budget_bound"
 * (a training was stopped by its limit), "trainings": {"gen00/cand0":
 * {"limit_s", "step_limit"?, "steps", "time_limited", "predicted_s",
 * "wall_s"}, ...}}. */
pf_status pf_time_budget_summary(const pf_run *r, json_t **out);

/* The file as JSON (*out NULL when the run has none). */
pf_status pf_time_budget_read(const char *dir, json_t **out);

#endif
