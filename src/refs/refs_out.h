/*
 * refs_out.h — what a reference solver (refs/, `make refs`) writes: the
 * reference file in our reader's format (io/pinnacle_dat.h) and its
 * manifest, plus the comparison of two resolutions.
 *
 *     pf_refs_write_rows(path, "% x t u", n, 3, rows);        // steady layout
 *     json_t *m = json_pack("{s:s, ...}", "solver", ...);
 *     pf_refs_write_manifest(mpath, m, path);                   // adds sha256
 *
 * Numbers are written with 17 significant digits (the doubles exactly);
 * the reader rounds them to float32 as it does PINNacle's files. Files are
 * written atomically (io/msgpack_json.h), so an interrupted `make refs`
 * leaves no half file that Make would take as built.
 */
#ifndef PF_REFS_REFS_OUT_H
#define PF_REFS_REFS_OUT_H

#include <jansson.h>
#include <stddef.h>

#include "core/status.h"

/* Steady layout: a '%' header line (without the '%'), then n rows of cols
 * values from rows[n][cols]. */
pf_status pf_refs_write_rows(const char *path, const char *header, size_t n, int cols, const double *rows);

/* COMSOL time-snapshot layout: one line per node, its d_space coordinates
 * coords[node][d_space], then for each of the K times the d_out fields
 * values[node][k][f]; the header's last line names every column
 * "<name> @ t=<time>", the way the reader takes the snapshot times. */
pf_status pf_refs_write_snapshots(const char *path, size_t nodes, int d_space, const char *const *space_names,
                                  const double *coords, int K, const double *times, int d_out,
                                  const char *const *names, const double *values);

/* Adds "file" (the base name of dat_path) and "sha256" (of that file) to m
 * and writes m as indented JSON to path. PF_ERR_IO naming the file. */
pf_status pf_refs_write_manifest(const char *path, json_t *m, const char *dat_path);

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
 * to m, writes it to a->manifest for the file a->out
 * (pf_refs_write_manifest), and prints one summary line on stdout. */
pf_status pf_refs_finish(const char *pde, const pf_refs_args *a, json_t *m, const pf_refs_run *coarse,
                         const pf_refs_run *fine, double conv);

/* Seconds on a monotonic clock, for the manifests' wall times. */
double pf_refs_now(void);

#endif
