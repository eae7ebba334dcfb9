/*
 * pde_summary.h — what `pf-pde list` and `pf-pde show` say about a PDE
 * beyond its description (pde.h, pf_pde_describe): its property tags, the
 * status of its reference (is the file there?), the size of its evaluation
 * set, and whether its hard transforms' boundary-only lifts already solve it.
 *
 *     pf_pde_summary s;
 *     pf_pde_summarize(p, &s);
 *     pf_pde_summary_print_header(stdout);
 *     pf_pde_summary_print_line(stdout, &s);
 *     // burgers_1d                   x,t -> u                 time_dependent,steep,nonlinear    1111  data
 *     PF_TRY(pf_pde_summary_print_json(stdout, &s, NULL));
 *     // {"name":"burgers_1d","inputs":["x","t"],...,"reference":"data","eval_points":1111}
 *
 * The reference status is one of
 *   "analytic"          an exact solution;
 *   "data"              a PINNacle file in PF_DATA_DIR (io/data_dir.h),
 *                       ref_note its path; or a table beside a .pde file;
 *   "data (generated)"  a file of `make refs`, built (ref_note its path);
 *   "data-missing"      the file is absent: ref_note then names the file and
 *                       the folder, for a generated file what to run;
 *   "missing"           no reference (it trains without an MSE).
 * The JSON form says "missing" for an absent file and "generated" for a
 * built one.
 */
#ifndef PF_GEOM_PDE_SUMMARY_H
#define PF_GEOM_PDE_SUMMARY_H

#include <stdio.h>

#include "core/status.h"
#include "geom/pde.h"
#include "io/data_dir.h"

typedef struct pf_pde_summary {
    const pf_pde *pde;
    const char *tags[PF_TAG_COUNT]; /* names of the tags set, in bit order */
    int ntags;
    const char *ref;                 /* the status above (a literal) */
    char ref_note[PF_DATA_PATH_MAX]; /* the file's path, why it is missing, or "" */
    int eval_points;                 /* points in the evaluation set; -1 when it has none here */
} pf_pde_summary;

/* Fill *s for p: looks for the reference file and builds the evaluation
 * set (pf_pde_reference) to count it. */
void pf_pde_summarize(const pf_pde *p, pf_pde_summary *s);

/* The listing's column heads, and one PDE's line under them: name,
 * "inputs -> outputs", tags, evaluation points ("-" for none), reference
 * status (an absent file as "missing (<note>)"). */
void pf_pde_summary_print_header(FILE *out);
void pf_pde_summary_print_line(FILE *out, const pf_pde_summary *s);

/* One PDE as a compact JSON object on one line: name, inputs, outputs,
 * tags, reference, eval_points (null for none) and, when file is not NULL,
 * file (the .pde file it was compiled from). PF_ERR_NOMEM when out of
 * memory, nothing printed. */
pf_status pf_pde_summary_print_json(FILE *out, const pf_pde_summary *s, const char *file);

/* What `pf-pde show` prints after the description: for each hard transform
 * whether its lift (the transform with N = 0, built from boundary data only:
 * geom/lift.h) solves the PDE and why (pf_hard_transform's lift_exact), the
 * reference status with its note, the evaluation points and, for a PDE that
 * reads data files, whether they are present (pf_pde_data_check). */
void pf_pde_summary_print_details(FILE *out, const pf_pde_summary *s);

#endif
