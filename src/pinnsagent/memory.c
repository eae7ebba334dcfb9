/* memory.c — what PINNsAgent's run database says for one iteration: the
 * importance scores with the UCT bonus, and the replayed configurations
 * (memory.h). */
#include "pinnsagent/memory.h"

#include <math.h>
#include <stdio.h>

#include "pinnsagent/db.h"
#include "pinnsagent/labels.h"
#include "pinnsagent/memory_tree.h"
#include "pinnsagent/pgkr.h"
#include "spec/pinnsagent_space.h"

/* A database row as a configuration (a point count the file lacks is left
 * out: PINNsAgent's prompt shows it as "?"). */
static json_t *row_config(const pf_pa_row *r)
{
    json_t *o = json_object();
    for (int p = 0; o && p < PF_PA_PARAM_COUNT; p++) {
        double v = r->value[p];
        if (pf_pa_param_categorical((pf_pa_param)p))
            json_object_set_new(o, pf_pa_param_name((pf_pa_param)p), json_string(pf_pa_value_name((pf_pa_param)p, (int)v)));
        else if (isfinite(v))
            json_object_set_new(o, pf_pa_param_name((pf_pa_param)p),
                                p == PF_PA_LR ? json_real(v) : json_integer((json_int_t)llround(v)));
    }
    return o;
}

static pf_status replay_of(const pf_pa_db *db, const pf_pde *p, json_t **out)
{
    pf_pa_labels *ls;
    PF_TRY(pf_pa_labels_open(&ls));
    pf_pgkr_hit hit[PF_PGKR_K];
    int n = 0;
    pf_status st = pf_pgkr_retrieve(db, ls, p->name, PF_PGKR_K, hit, &n);
    json_t *a = json_array();
    for (int i = 0; st == PF_OK && i < n; i++) {
        const pf_pa_row *r = pf_pa_db_row(db, hit[i].best_row);
        const pf_pa_task *t = pf_pa_db_task(db, hit[i].task);
        json_array_append_new(a, json_pack("{s:s, s:f, s:f, s:o}", "pde", t->pde ? t->pde : t->name, "similarity",
                                           hit[i].cosine, "mse", r->mse, "config", row_config(r)));
    }
    pf_pa_labels_free(ls);
    if (st != PF_OK) {
        json_decref(a);
        return st;
    }
    *out = a;
    return PF_OK;
}

pf_status pf_pa_memory(const pf_pde *p, const json_t *history, json_t **scores, json_t **replay)
{
    *scores = NULL;
    if (replay) *replay = NULL;
    pf_pa_db *db;
    PF_TRY(pf_pa_db_open(&db));
    double s[PF_PA_PARAM_COUNT];
    int others;
    pf_status st = pf_memtree_target(db, p->name, s, &others);
    /* every configuration sets all ten parameters: each was visited once
     * per earlier iteration that produced a configuration */
    int visits = (int)json_array_size(history);
    json_t *a = json_array();
    for (int i = 0; st == PF_OK && i < PF_PA_PARAM_COUNT; i++)
        json_array_append_new(a, json_pack("{s:s, s:f, s:f, s:i}", "param", pf_pa_param_name((pf_pa_param)i), "score",
                                           pf_memtree_uct(s[i], visits, PF_MEMTREE_LAMBDA), "base", s[i], "visits",
                                           visits));
    if (st == PF_OK && replay) st = replay_of(db, p, replay);
    pf_pa_db_free(db);
    if (st != PF_OK) {
        json_decref(a);
        return st;
    }
    *scores = a;
    return PF_OK;
}
