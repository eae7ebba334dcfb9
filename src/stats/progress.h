/*
 * progress.h — how far a study has come (`make study-status`, pf-study):
 * one line per PDE x method (or method@backbone) over the study's run
 * numbers, from the run folders (search/run.h) and the launcher's state
 * files. A cell with a backbone asks for llm http (replay when the study's
 * llm is replay); one without, for the study's llm.
 *
 *     pf_study st = {.root = "runs", .budget = b};            // pdes, methods,
 * runs set too pf_cell_progress *cells; PF_TRY(pf_study_progress(&st, &cells));
 * // npdes * nmethods cells pf_study_print(stdout, &st, cells);
 *
 * A run is done when final.msgpack exists; failed when a training of it
 * failed (OUT/launch.txt "failed ...", scripts/launch.sh) and it is not
 * done; running when a training of it is running or queued ("running" or
 * "submitted"; a local one whose process is gone on this host is not);
 * otherwise waiting. A run whose context.json holds other settings than
 * the study asks for (profile, eval, llm, a .pde file's SHA-256 or its
 * data's, the backbone: pf_run_context_settings_differ) is stale, whatever it holds:
 * `make study` would redo it, so it counts as not started. Steps: the optimizer steps trained (every evidence,
 * high fidelity included) and planned (a search's ten generations and its
 * Top-3 at high fidelity, a baseline's five candidates, at the study's
 * budget; a search that stopped early counts what it trained).
 */
#ifndef PF_STATS_PROGRESS_H
#define PF_STATS_PROGRESS_H

#include <stdio.h>

#include "core/status.h"
#include "spec/spec.h"

typedef struct pf_study {
    const char *root;           /* the runs folder                 */
    const char *const *pdes;    /* npdes names                     */
    const char *const *methods; /* nmethods cells: a method (llm/method.h), or
                                 * method@backbone, the runs of an LLM-driven
                                 * method with that backbone (search/run.h) */
    const int *runs;            /* nruns run numbers               */
    int npdes, nmethods, nruns; /* the three lists' lengths        */
    const pf_budget *budget;    /* the study's profile             */
    const char *llm, *eval;     /* the study's LLM and EVAL (NULL: any) */
    long time_budget_s;         /* the study's TIME_BUDGET in seconds (0: none) */
    const char *const *pde_args; /* the PDEs as given (a .pde file's path;
                                  * NULL: pdes), whose hashes are compared */
} pf_study;

typedef struct pf_cell_progress {
    const char *pde, *method;     /* the study's strings                */
    int done, running, failed;    /* runs in each state (of nruns)      */
    int stale;                    /* runs made with other settings      */
    int stale_run;                /* the first stale run's number       */
    char stale_why[256];          /* what differs, its settings first   */
    int trainings_running;        /* trainings running or queued now    */
    double best, mean;            /* final MSE over done runs; NaN: none */
    long steps_done, steps_total; /* optimizer steps trained, planned   */
    double wall_s;                /* training seconds of steps_done     */
} pf_cell_progress;

/* npdes * nmethods cells, PDE-major, into *out (malloc'ed; free()).
 * PF_ERR_INVALID naming an unknown method; PF_ERR_IO naming an artifact
 * that exists and cannot be read. */
pf_status pf_study_progress(const pf_study *s, pf_cell_progress **out);

/* The table (a stale run: a line saying what differs) and a total line: runs done / running / failed, steps, the
 * measured steps per second of one training and an estimate of the time
 * left at the number of trainings running now (at least one). */
void pf_study_print(FILE *f, const pf_study *s, const pf_cell_progress *cells);

/* Whether every run of the study is done or failed (nothing to wait for). */
int pf_study_settled(const pf_study *s, const pf_cell_progress *cells);

#endif
