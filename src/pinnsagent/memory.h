/*
 * memory.h — what PINNsAgent's run database (pinnsagent/db.h) says for one
 * iteration of its planner (pinnsagent/plan.h): the memory-tree importance
 * scores with the UCT bonus (pinnsagent/memory_tree.h) and the replayed
 * configurations of the most similar PDEs (pinnsagent/pgkr.h).
 *
 *     json_t *scores, *replay;
 *     PF_TRY(pf_pa_memory(p, history, &scores, g == 0 ? &replay : NULL));
 */
#ifndef PF_PINNSAGENT_MEMORY_H
#define PF_PINNSAGENT_MEMORY_H

#include <jansson.h>

#include "core/status.h"
#include "geom/pde.h"

/* What PINNsAgent's run database says for the next iteration on PDE p (the
 * target's own rows left out: PINNsAgent's simulate-new-PDE mode): *scores,
 * the memory-tree importance of each parameter averaged over the other
 * PDEs, with the UCT bonus for the parameters the earlier iterations set
 * (every configuration sets all ten, so each has been visited once per
 * entry of history);
 * and, when replay is not NULL, *replay, the best row of each of the three
 * most similar PDEs (physics-guided knowledge replay). history is the
 * earlier iterations, [{"config", "mse"?, "status"}] in iteration order
 * (pinnsagent/plan.h's pf_pa_plan_in.history). New references. The database
 * is read from $PF_PINNSAGENT_DIR (pinnsagent/db.h). */
pf_status pf_pa_memory(const pf_pde *p, const json_t *history, json_t **scores, json_t **replay);

#endif
