/*
 * samples_file.h — a PDE's collocation points as an HDF5 file, format
 * "pinnforge.samples" (what `pf-pde sample` writes; h5py reads it):
 *
 *   / attrs   format, version 1, generator, pde, inputs, outputs, parts,
 *             seed, method, n, precision
 *   /interior                    x (n x d_in)
 *   /constraints/<name>          x, and where the set has them normal,
 *                                part (indices into the "names" attribute),
 *                                v (observed values), x_image (periodic)
 *   each group's attrs: pde, inputs, kind, parts, method, source, seed,
 *   sampler_seed (sampled sets), precision, n
 *
 *     pf_samples_opts o = {.n = 1000, .seed = 7, .method = PF_SAMPLE_UNIFORM};
 *     char summary[8192];
 *     PF_TRY(pf_samples_write(p, &o, "pts.h5", summary, sizeof summary));
 *
 * Each set's seed derives from o->seed and the set's name, so a set does
 * not change when another is added. The file is written atomically
 * (io/h5.h); summary gets one line per set.
 *
 * pf_samples_parse_args reads `pf-pde sample`'s words:
 *
 *     pf_samples_args a;   // from {"burgers_1d", "--n=100", "--out", "pts.h5"}
 *     if (pf_samples_parse_args(argc - 2, argv + 2, &a) != PF_OK)
 *         ...   // PF_ERR_USAGE, pf_errmsg() says what is wrong
 */
#ifndef PF_GEOM_SAMPLES_FILE_H
#define PF_GEOM_SAMPLES_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "geom/pde.h"
#include "geom/sample.h"

typedef struct pf_samples_opts {
    int n;                   /* points per set */
    uint64_t seed;
    pf_sample_method method; /* interior and initial slice */
} pf_samples_opts;

/* Sample every set of p (its interior, each constraint's points) into the
 * HDF5 file path; summary[cap] (may be NULL) one line per set. */
pf_status pf_samples_write(const pf_pde *p, const pf_samples_opts *o, const char *path, char *summary, size_t cap);

/* `NAME --n N --out F.h5 [--seed S] [--method M]`, options in any order, as
 * "--opt VALUE" or "--opt=VALUE". */
typedef struct pf_samples_args {
    const char *name;     /* the PDE */
    const char *out;      /* the .h5 file */
    pf_samples_opts opts; /* seed 0 and PF_SAMPLE_UNIFORM unless given */
    bool help;            /* --help or -h: the words after it are not read */
} pf_samples_args;

/* Fill *a from words[0..n) (those after "sample"). PF_ERR_USAGE naming the
 * word at fault, the value out of range (--n 1..PF_SAMPLE_MAX_POINTS, --seed
 * 0..2^64-1, --method a sampler's name) or what is missing. */
pf_status pf_samples_parse_args(int n, char **words, pf_samples_args *a);

#endif
