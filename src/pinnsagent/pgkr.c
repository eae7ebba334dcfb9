/* pgkr.c — Physics-Guided Knowledge Replay (pgkr.h). */
#include "pinnsagent/pgkr.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Position of l among the labels, the tie-break of rule 3. */
static int label_index(const pf_pa_labels *ls, const pf_pa_label *l)
{
    for (int i = 0; i < pf_pa_labels_count(ls); i++)
        if (pf_pa_labels_at(ls, i) == l) return i;
    PF_ABORT("label '%s' is not in its set", l->name);
}

static bool is_target(const pf_pa_task *t, const pf_pa_label *target)
{
    return !strcmp(t->name, target->name) || (t->pde && target->pde && !strcmp(t->pde, target->pde));
}

pf_status pf_pgkr_rank(const pf_pa_db *db, const pf_pa_labels *ls, const char *target, pf_pgkr_hit *out, int *n)
{
    *n = 0;
    const pf_pa_label *me = pf_pa_labels_find(ls, target);
    if (!me) return pf_fail(PF_ERR_INVALID, "PDE '%s' has no PINNsAgent labels", target);
    int *order = malloc((size_t)pf_pa_db_task_count(db) * sizeof *order + 1);
    if (!order) return pf_fail(PF_ERR_NOMEM, "out of memory ranking PDEs");
    for (int t = 0; t < pf_pa_db_task_count(db); t++) {
        const pf_pa_task *task = pf_pa_db_task(db, t);
        const pf_pa_label *l = pf_pa_labels_find(ls, task->name);
        if (!l || is_target(task, me)) continue;
        pf_pgkr_hit h = {.task = t, .label = l, .cosine = pf_pa_label_cosine(me, l), .best_row = pf_pa_db_best_row(db, t)};
        int key = label_index(ls, l), i = *n;
        /* insertion: after every hit with a higher cosine, or an equal one earlier in the labels */
        while (i > 0 && (out[i - 1].cosine < h.cosine || (out[i - 1].cosine == h.cosine && order[i - 1] > key))) {
            out[i] = out[i - 1];
            order[i] = order[i - 1];
            i--;
        }
        out[i] = h;
        order[i] = key;
        (*n)++;
    }
    free(order);
    return PF_OK;
}

pf_status pf_pgkr_retrieve(const pf_pa_db *db, const pf_pa_labels *ls, const char *target, int k, pf_pgkr_hit *hits,
                           int *n)
{
    PF_ASSERT(k >= 1);
    *n = 0;
    pf_pgkr_hit *all = malloc((size_t)pf_pa_db_task_count(db) * sizeof *all + 1);
    if (!all) return pf_fail(PF_ERR_NOMEM, "out of memory ranking PDEs");
    int m;
    pf_status st = pf_pgkr_rank(db, ls, target, all, &m);
    for (int i = 0; st == PF_OK && i < m && i < k; i++)
        if (pf_pa_db_row(db, all[i].best_row)->mse <= PF_PGKR_MSE_MAX) hits[(*n)++] = all[i];
    free(all);
    return st;
}
