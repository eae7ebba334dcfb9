/*
 * report.h — the paper's tables from collected runs (collect.h), written
 * under one folder; nothing is re-run.
 *
 *   main.{md,tex,csv}        mean ± std of the final (high-fidelity) MSE per
 *                            PDE and method (every method but the
 *                            ablations), best per row in bold; rows for the
 *                            Friedman average rank, the Wilcoxon verdict
 *                            against the reference and the median CV
 *                            (Table 1); the test statistics as notes
 *   ablation.{md,tex,csv}    the ablations and the reference per PDE, with
 *                            the median error ratio row (Table B.7); only
 *                            when ablation runs exist
 *   trajectory.{md,tex,csv}  per run: Generation-0 best, best low-fidelity
 *                            (with its generation), final high-fidelity
 *                            MSE and the two improvement ratios (Table C.1)
 *   budget.{md,tex,csv}      per method and backbone over every finished
 *                            run, mean per run and sum: LLM calls, input
 *                            and output tokens, cost, LLM wall time,
 *                            training wall time, optimizer steps (beyond the
 *                            paper, which leaves wall time and LLM cost
 *                            out); the main table's notes point to it
 *   budget_pde.{md,tex,csv}  the same per PDE and method, means over
 *                            finished runs, with steps and wall time per
 *                            fidelity
 *   statistics.json          {"main": compare.h's object, "ablation": ...,
 *                            "table1@B": ..., "backbones": ...}
 *
 * With finished runs of two or more backbones (collect.h), the main and
 * ablation tables hold one backbone's runs of the LLM-driven methods
 * (pf_report_options.backbone) beside the shared baselines, and the
 * cross-backbone tables are added (report_backbones.c, docs/reports.md):
 *   table1@B.{md,tex,csv}            Table 1 of backbone B, one per backbone
 *   backbones_friedman.{md,tex,csv}  per LLM-driven method, the Friedman test
 *                                    across backbones over the PDEs
 *   backbones_kendall.{md,tex,csv}   the methods' mean ranks per backbone and
 *                                    their agreement, Kendall's W
 *   backbones_wtl.{md,tex,csv}       the reference's wins, ties and losses
 *                                    against each baseline, per backbone
 *
 * main.csv and ablation.csv are means.h CSVs (pde, method, runs, mean,
 * std), the input `pf-stats --from-table` takes; the others are one row per
 * table row with plain numbers. Files are written atomically.
 */
#ifndef PF_STATS_REPORT_H
#define PF_STATS_REPORT_H

#include <stdbool.h>

#include "core/status.h"
#include "stats/collect.h"

typedef struct pf_report_options {
    const char *out_dir;    /* created if missing */
    const char *reference;  /* the method the others are compared with ("pinnforge") */
    bool quiet;             /* no "wrote PATH" messages (PF_LOG_INFO, core/log.h) */
    const char *backbone;   /* the main and ablation tables' backbone; NULL: "offline" when it
                               has finished runs, else the first by name */
} pf_report_options;

/* Whether a method is one of the paper's ablations of PINNForge. */
bool pf_report_is_ablation(const char *method);
/* The column name of a method: "PINNForge", "RoPINN", "w/o Knowledge
 * Guidance", ...; unknown methods, and a method@backbone cell (collect.h),
 * as they are. */
const char *pf_report_label(const char *method);

/* Write the tables above. *written counts the files written. */
pf_status pf_report_tables(const pf_collection *c, const pf_report_options *o, int *written);

/* out_dir/index.md for one PDE's report: the tables written in out_dir,
 * each run with its state and MSEs, and every PNG found in
 * out_dir/<method>/run<R>/ (pf-plot's output) linked beside its run. */
pf_status pf_report_index(const pf_collection *c, const pf_report_options *o, const char *pde);

#endif
