/*
 * means.h — a table of per-task means: the input of every comparison.
 *
 * One cell per (PDE, method): the mean and standard deviation of the final
 * MSE over runs, and the number of runs (0 when unknown, as in a table typed
 * from a paper). Missing cells hold NaN. Names keep their first-seen order;
 * pf_means_sort puts PDEs in the benchmark's order and methods in the
 * paper's column order (see pf_means_sort).
 *
 * CSV form (what pf-stats writes as reports/main.csv and reads with
 * --from-table): a header naming at least the columns pde, method, mean
 * (std and runs optional, any other columns ignored, any order), one row per
 * cell; blank lines and lines starting with '#' are skipped. Values are
 * plain numbers (1.08E-03 is fine): the mean finite, the std finite and
 * >= 0, runs an integer >= 0 (an empty std or runs: not given); names are
 * [A-Za-z0-9_.-]+. The file is a data table (at most 1 GiB, core/file.h).
 */
#ifndef PF_STATS_MEANS_H
#define PF_STATS_MEANS_H

#include "core/status.h"

typedef struct pf_means {
    int npde, nmethod;
    char **pde, **method;   /* names (malloc'ed) */
    double *mean, *std;     /* npde x nmethod, row-major; NaN where missing */
    int *runs;              /* npde x nmethod; 0 where unknown */
    int cap_pde, cap_method;
} pf_means;

/* Set one cell, adding the PDE and method as needed (a zeroed pf_means is
 * empty and valid). PF_ERR_INVALID when the cell is already set. */
pf_status pf_means_set(pf_means *m, const char *pde, const char *method, double mean, double std, int runs);

/* Index of a name, or -1. */
int pf_means_pde(const pf_means *m, const char *pde);
int pf_means_method(const pf_means *m, const char *method);

/* Cell accessors (NaN / 0 for a missing cell). */
double pf_means_mean(const pf_means *m, int pde, int method);
double pf_means_std(const pf_means *m, int pde, int method);

/* Order PDEs as the benchmark registry lists them (unknown names after, by
 * name) and methods as the paper's columns: ropinn, pinnsformer,
 * pinnsagent, vanilla, the ablations no_knowledge, no_feedback,
 * no_evolution, then any other method by name, and `reference` last. */
void pf_means_sort(pf_means *m, const char *reference);

/* Drop the PDEs with fewer than `min` methods set. */
void pf_means_drop_sparse(pf_means *m, int min);

/* Read a CSV (above). Errors name the file and line. */
pf_status pf_means_read_csv(const char *path, pf_means *out);
/* The CSV text (malloc'ed) of every set cell, with mean and std in %.6e. */
char *pf_means_csv(const pf_means *m);

void pf_means_release(pf_means *m);

#endif
