/*
 * final.h — the end of a run (paper section 3.4): the final Global Top-3,
 * retrained from scratch at high fidelity, and the one with the lowest
 * high-fidelity MSE reported, with everything the run spent; or, for a
 * baseline, the best of its independently initialized candidates.
 *
 *     pf_select *sel;                              // the last generation's selection
 *     pf_final_file fin;
 *     PF_TRY(pf_final_build(&run, sel, 9, &fin));  // reads each hifi/topK/evidence.msgpack
 *     PF_TRY(pf_final_file_write(path, &fin));
 *     pf_final_file_release(&fin);
 */
#ifndef PF_SEARCH_FINAL_H
#define PF_SEARCH_FINAL_H

#include "core/status.h"
#include "search/artifact.h"
#include "search/run.h"
#include "search/select.h"

/* final.msgpack's content for run r after generation `last` (sel is its
 * selection): every Top-3 design's high-fidelity evidence (each must be
 * readable), the lowest MSE among those that ended ok, the budget of
 * generations 0..last plus the high-fidelity trainings, the run's eval
 * mode with report_mse (under heldout the chosen design's y_report, which
 * must exist; else its hf_mse) and its physics_check when recorded.
 * PF_ERR_INVALID when no high-fidelity training ended ok with an MSE. */
pf_status pf_final_build(const pf_run *r, const pf_select *sel, int last, pf_final_file *out);

/* final.msgpack's content for a baseline run r (search/baseline.h): its
 * PF_RUN_BASELINE_CANDIDATES candidates of generation 0, each trained (the
 * evidence must exist), the lowest ok MSE selected (the first on a tie),
 * all of their MSEs, the budget of the trainings, report_mse and
 * physics_check as above. PF_ERR_INVALID when r is not a baseline run, a
 * candidate is missing or untrained, or none ended ok with an MSE. */
pf_status pf_final_build_baseline(const pf_run *r, pf_final_file *out);

#endif
