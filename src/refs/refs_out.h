/*
 * refs_out.h — what a reference solver (refs/, `make refs`) writes: the
 * reference file in our reader's format (io/pinnacle_dat.h) and its
 * manifest, plus the comparison of two resolutions.
 *
 *     pf_refs_text t;
 *     pf_refs_rows_text("x t u", n, 3, rows, &t);             // steady layout
 *     json_t *m = json_pack("{s:s, ...}", "solver", ...);
 *     pf_refs_write(dat_path, manifest_path, &t, m);          // adds sha256
 *
 * Numbers are written with 17 significant digits (the doubles exactly);
 * the reader rounds them to float32 as it does PINNacle's files. Files are
 * written atomically (io/msgpack_json.h), the manifest first: the
 * reference file, which Make takes as built, appears only when whole and
 * with its manifest beside it.
 */
#ifndef PF_REFS_REFS_OUT_H
#define PF_REFS_REFS_OUT_H

#include <jansson.h>
#include <stddef.h>

#include "core/status.h"

/* A reference file's text, built in memory (buf malloc'ed). */
typedef struct pf_refs_text {
    char *buf;
    size_t len;
} pf_refs_text;

/* Steady layout: a '%' header line (without the '%'), then n rows of cols
 * values from rows[n][cols]. PF_ERR_NOMEM. */
pf_status pf_refs_rows_text(const char *header, size_t n, int cols, const double *rows, pf_refs_text *out);

/* COMSOL time-snapshot layout: one line per node, its d_space coordinates
 * coords[node][d_space], then for each of the K times the d_out fields
 * values[node][k][f]; the header's last line names every column
 * "<name> @ t=<time>", the way the reader takes the snapshot times.
 * PF_ERR_NOMEM. */
pf_status pf_refs_snapshots_text(size_t nodes, int d_space, const char *const *space_names, const double *coords,
                                 int K, const double *times, int d_out, const char *const *names,
                                 const double *values, pf_refs_text *out);

/* Adds "file" (the base name of dat_path) and "sha256" (of the text) to m,
 * writes m as indented JSON to manifest_path, then the text to dat_path.
 * Frees the text. PF_ERR_IO naming the file that could not be written. */
pf_status pf_refs_write(const char *dat_path, const char *manifest_path, pf_refs_text *text, json_t *m);

/* ||a - b|| / ||b|| over n values (the self-convergence estimate: a the
 * coarse run, b the fine one). */
double pf_refs_rel_l2(const double *a, const double *b, size_t n);

/* A reference solver's command line:
 *   --out FILE.dat --manifest FILE.json [--n N] [--substeps S]
 * n and substeps (the solver's grid and time steps per sample interval of
 * the coarse run; the fine run doubles both) default to the caller's values.
 * PF_ERR_USAGE naming the bad argument. */
typedef struct pf_refs_args {
    const char *out, *manifest;
    long n, substeps;
} pf_refs_args;
pf_status pf_refs_parse_args(int argc, char **argv, pf_refs_args *a);

/* One run of a solver, as the manifest records it. */
typedef struct pf_refs_run {
    long n;      /* grid points per axis */
    double h;    /* time step */
    long steps;  /* time steps in all */
    double wall; /* seconds */
} pf_refs_run;

/* The manifest's common tail: adds "resolutions" (coarse, then fine),
 * "written" (the fine run), "self_convergence_rel_l2" = conv and "wall_s"
 * to m, writes the manifest and the text to a->manifest and a->out
 * (pf_refs_write, which frees the text), and prints one summary line on
 * stdout. */
pf_status pf_refs_finish(const char *pde, const pf_refs_args *a, json_t *m, pf_refs_text *text,
                         const pf_refs_run *coarse, const pf_refs_run *fine, double conv);

/* Seconds on a monotonic clock, for the manifests' wall times. */
double pf_refs_now(void);

#endif
