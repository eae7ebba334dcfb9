/*
 * collect.h — what finished runs under a runs/ tree say, for the tables.
 *
 * Walks ROOT/<pde>/<method>[@<backbone>]/run<R>/ (search/run.h) and reads, never
 * writes: context.json (the profile), final.msgpack (the high-fidelity MSE
 * and the budget; pf-final) and the last non-skipped genGG/select.msgpack
 * (the trajectory: the best Generation-0 MSE, the best low-fidelity MSE and
 * its generation). A run without final.msgpack is collected with
 * final = false (still running, or stopped before high fidelity), so the
 * caller can say which runs it left out. Folders that are not runs (no
 * context.json) are ignored. Runs come sorted by PDE (registry order),
 * method, backbone and run number.
 *
 * Backbones (issue 37): a run of an LLM-driven method (methods.def's
 * PF_MF_LLM) made with the backbone b lives in <pde>/<method>@b/run<R> and
 * its context.json may say "backbone": b; a plain <method> folder holds the
 * runs of the proposer kind context.json's "llm" names ("offline": the
 * offline proposer). A method that asks no LLM (vanilla, ropinn,
 * pinnsformer, and methods of other tools) has no backbone: its runs are
 * shared by every backbone's tables.
 * A run's cell is its method folder's name: method, or method@backbone
 * (its trajectory and links name that folder).
 */
#ifndef PF_STATS_COLLECT_H
#define PF_STATS_COLLECT_H

#include <stdbool.h>

#include "core/status.h"
#include "llm/backbones.h"
#include "search/run.h"
#include "stats/means.h"

typedef struct pf_run_summary {
    char dir[1024];
    char pde[64], method[64], profile[32], llm[16]; /* llm: the run's proposer (offline, http, replay, auto) */
    char backbone[PF_RUN_BACKBONE_CAP]; /* "" for a method that asks no LLM (above); a
                                         * mixture in its folder spelling, mix+a+b+c */
    char cell[PF_RUN_BACKBONE_CAP + 64]; /* method, or method@backbone: its folder's name */
    int run;
    bool final;               /* final.msgpack exists */
    double hf_mse;            /* final: the selected high-fidelity MSE (the split that
                                 steered the run); else NaN */
    double report_mse;        /* final: the MSE to report (hf_mse under EVAL=paper or
                                 when the file predates EVAL; the held-out half under
                                 EVAL=heldout); else NaN */
    char eval[16];            /* the run's EVAL: "paper", "heldout" */
    pf_run_context context;   /* its context.json: the settings a cell's runs share */
    double g0_best;           /* lowest ok MSE of generation 0; NaN if none */
    double best_lf;           /* lowest ok low-fidelity MSE of the search; NaN if none */
    int best_lf_generation;   /* its generation; -1 if none */
    int generations;          /* generations with a select (0 before gen 0 ends) */
    /* final only (pf-final's budget): */
    long steps_lf, steps_hf, steps_base, llm_calls, prompt_tokens, completion_tokens, candidates, invalid;
    double wall_lf_s, wall_hf_s, wall_base_s, llm_s; /* base: a baseline's candidates */
    double cost;              /* the LLM calls' cost (NaN: a file older than the cost) */
    bool priced;              /* every call had a price (llm/usage.h)               */
    char stopped[32];         /* what ended the search early ("llm budget", ...; "" none) */
} pf_run_summary;

/* Which final MSE the means are built from. */
typedef enum pf_metric {
    PF_METRIC_HF = 0,  /* hf_mse (default) */
    PF_METRIC_REPORT,  /* report_mse */
} pf_metric;

typedef struct pf_collection {
    pf_run_summary *run;
    int n;
    pf_metric metric;  /* set by the caller after pf_collect; PF_METRIC_HF there */
    const char *backbone; /* set by the caller: the means take only this backbone's runs of
                             LLM-driven methods (and every run without a backbone); NULL
                             (pf_collect's): all runs, and a cell with two backbones is an error */
} pf_collection;

/* Whether run s is one of c->backbone's tables' runs: no backbone set, a
 * run without a backbone (shared), or a run of that backbone. */
bool pf_collection_takes(const pf_collection *c, const pf_run_summary *s);

/* The distinct backbones of c's finished runs, sorted by name, into
 * names[0 .. cap - 1] (pointers into c->run: valid while c is); their count. */
int pf_collection_backbones(const pf_collection *c, const char **names, int cap);

/* The run's final MSE under c's metric (NaN when not final). */
double pf_collection_mse(const pf_collection *c, const pf_run_summary *s);

/* Fewer final EVAL=heldout runs than this: no optimism gap is printed. */
#define PF_OPTIMISM_GAP_MIN_RUNS 3

/* The optimism gap of final EVAL=heldout runs (those pf_collection_takes):
 * n of them, the median of their report_mse / hf_mse and its 95%
 * percentile bootstrap interval over runs (stats/bootstrap.h: PF_BOOTSTRAP_RESAMPLES, PF_BOOTSTRAP_SEED; NaN
 * for none, and lo, hi NaN below PF_OPTIMISM_GAP_MIN_RUNS). */
typedef struct pf_optimism_gap {
    int n;
    double median, lo, hi;
} pf_optimism_gap;

pf_status pf_collection_optimism_gap(const pf_collection *c, pf_optimism_gap *g);

/* One run folder (it must have context.json): its settings, trajectory and,
 * once final.msgpack exists, the final figures. The PDE is context.json's
 * name, any name (one not in the registry is tabled after the registry's);
 * for a .pde file's path there, the run's <pde> folder, the name the file
 * declares (dir must then be <pde>/<method>/run<R>). PF_ERR_IO naming an
 * artifact that cannot be read. */
pf_status pf_run_summarize(const char *dir, pf_run_summary *s);

/* Every run under root (pde: only that PDE's folder; NULL: all). A
 * missing root is PF_ERR_IO; an unreadable artifact inside a run is
 * PF_ERR_IO naming it (nothing is guessed). */
pf_status pf_collect(const char *root, const char *pde, pf_collection *out);
void pf_collection_release(pf_collection *c);

/* PF_ERR_INVALID when two final runs of one (PDE, method) were made with
 * settings that change their results (pf_run_context_settings_differ: the
 * profile, eval, llm, a .pde file's SHA-256 or its data's), naming both
 * runs and what differs: a cell of the tables never averages them. */
pf_status pf_collection_check_cells(const pf_collection *c);

/* Mean, sample std (NaN from one run) and count of the final MSE (c's
 * metric) over the final runs, per (PDE, method), of c->backbone's runs
 * (above); `keep(method, ctx)` picks the methods (NULL: all). First
 * pf_collection_check_cells: its error; PF_ERR_INVALID naming the cell
 * when c->backbone is NULL and a cell has runs of two backbones. */
pf_status pf_collection_means(const pf_collection *c, bool (*keep)(const char *method, const void *ctx),
                              const void *ctx, pf_means *out);

#endif
