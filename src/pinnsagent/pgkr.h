/*
 * pgkr.h — PINNsAgent's Physics-Guided Knowledge Replay (agents/retriever.py
 * of qingpowuwu/PINNsAgent_Codes; docs/baselines.md, "PINNsAgent: knowledge replay (PGKR)"): for a target
 * PDE, the best known configurations of the PDEs that look most like it.
 *
 *     pf_pgkr_hit hit[PF_PGKR_K];
 *     int n;
 *     PF_TRY(pf_pgkr_retrieve(db, ls, "burgers_1d", PF_PGKR_K, hit, &n));
 *     for (int i = 0; i < n; i++) {
 *         const pf_pa_row *r = pf_pa_db_row(db, hit[i].best_row);
 *         printf("%s %.4f %g\n", pf_pa_db_task(db, hit[i].task)->name, hit[i].cosine, r->mse);
 *     }
 *
 * The rules, in the order they apply:
 *   1. The target must have labels (pinnsagent/labels.h):
 *      PF_ERR_INVALID otherwise. It need not have rows.
 *   2. Candidates are the database's tasks that have labels and are not
 *      the target (neither its PDE name nor its task name): PINNsAgent's
 *      --simulate_new_pde, which the released run script uses, so the
 *      target's own rows are never retrieved. Labelled PDEs without rows
 *      (Wave2D_LongTime, the PDEs only we have) are no candidates: the
 *      released code would take one into its top k and then find no
 *      record, leaving fewer than k.
 *   3. Candidates are ranked by the plain cosine of the label encodings,
 *      highest first; equal cosines keep the order of the labels (the
 *      shared pde_labels.tsv's lines, which is the order of PINNsAgent's
 *      PDE_LABELS, sorted there with Python's stable sort).
 *   4. The first k are taken; each brings its best row (lowest mse, the
 *      earliest line on ties: pf_pa_db_best_row).
 *   5. A PDE whose best mse is above PF_PGKR_MSE_MAX = 1 is dropped (after
 *      the top k are chosen, as the released code does), so fewer than k
 *      may remain.
 */
#ifndef PF_PINNSAGENT_PGKR_H
#define PF_PINNSAGENT_PGKR_H

#include "core/status.h"
#include "pinnsagent/db.h"
#include "pinnsagent/labels.h"

#define PF_PGKR_K 3            /* the released run script's --pgkr_top_k */
#define PF_PGKR_MSE_MAX 1.0    /* retriever.py's mse_threshold */

typedef struct pf_pgkr_hit {
    int task;                  /* pf_pa_db_task() index */
    const pf_pa_label *label;  /* its labels (owned by the label set) */
    double cosine;             /* similarity to the target */
    int best_row;              /* pf_pa_db_row() index of its best run */
} pf_pgkr_hit;

/* Rules 1-3 for every candidate: out holds pf_pa_db_task_count(db)
 * entries; *n the candidates, best first, each with its best row (rule 5
 * not applied). */
pf_status pf_pgkr_rank(const pf_pa_db *db, const pf_pa_labels *ls, const char *target, pf_pgkr_hit *out, int *n);

/* Rules 1-5: the retrieved PDEs into hits[0..*n), *n <= k (hits holds k,
 * k >= 1). */
pf_status pf_pgkr_retrieve(const pf_pa_db *db, const pf_pa_labels *ls, const char *target, int k,
                           pf_pgkr_hit *hits, int *n);

#endif
