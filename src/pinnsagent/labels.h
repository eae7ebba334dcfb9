/*
 * labels.h — PINNsAgent's ten physics labels per PDE, their
 * one-hot encoding and the cosine similarity its Physics-Guided Knowledge
 * Replay ranks PDEs by (database/pde_encoder.py, database/similarity.py of
 * qingpowuwu/PINNsAgent_Codes; docs/baselines.md, "PINNsAgent: knowledge base").
 *
 *     pf_pa_labels *ls;
 *     PF_TRY(pf_pa_labels_open(&ls));   // shared pde_labels.tsv + ours
 *     const pf_pa_label *a = pf_pa_labels_find(ls, "burgers_1d");
 *     const pf_pa_label *b = pf_pa_labels_find(ls, "wave_1d");
 *     printf("%.4f\n", pf_pa_label_cosine(a, b));     // 0.7000
 *     pf_pa_labels_free(ls);
 *
 * ------------------------------------------------------------- the scheme
 *
 * Ten fields, each one-hot encoded, concatenated in this order into
 * PF_PA_LABEL_DIM = 34 numbers:
 *
 *   family      8  Burgers Poisson Heat NS Wave Chaotic Inverse Darcy
 *   type        4  parabolic elliptic hyperbolic mixed
 *   dimension   5  1d 2d 3d nd inverse
 *   linearity   2  linear nonlinear
 *   time        2  time-independent time-dependent
 *   boundary    4  dirichlet neumann robin periodic;
 *                  no-boundary-condition is all zeros, mixed-boundary all ones
 *   initial     2  initial-condition no-initial-condition
 *   coefficient 3  constant-coefficient variable-coefficient inverse-coefficient
 *   horizon     2  short-time long-time
 *   geometry    2  simple-geometry complex-geometry
 *
 * Similarity is the plain cosine a.b / (|a| |b|) of two such vectors (0
 * when one is all zeros, as sklearn's cosine_similarity gives), not the
 * weighted cosine the PINNsAgent paper describes: the released code is
 * unweighted. Every vector has the family bit, so none is zero here.
 *
 * ------------------------------------------------------------- the files
 *
 * Two tab-separated files with the same 11 columns (name, then the ten
 * fields in the order above); lines starting with '#' and empty lines are
 * skipped:
 *
 *   pde_labels.tsv (shared, PF_PINNSAGENT_DIR; pinnsagent/db.h)
 *       PINNsAgent's labels, keyed by PINNacle task name: 17 of our PDEs
 *       (pf_pa_task_pde maps the names) and Wave2D_LongTime, which is none
 *       of ours and is kept under its task name (pde NULL);
 *   data/pinnsagent/labels.tsv (ours, committed; io/asset_dir.h finds it)
 *       the other 8 of our 25 PDEs, keyed by our name, each with a comment
 *       saying why, assigned by the same scheme.
 *
 * Failures, PF_ERR_INVALID with "<file>:<line>: <why>": not 11 columns, a
 * label that is not one of its field's values (the message lists them), a
 * name given twice (in either file), in our file a name that is not one of
 * our PDEs (registry.h). An unreadable file is PF_ERR_IO (each is read
 * whole, a regular file of at most 16 MiB: core/file.h). pf_pa_labels_open()
 * also checks the shared file's SHA-256 against PF_PA_LABELS_SHA256, as
 * pf_pa_db_open() checks the CSV's: a damaged label (",eat2D_VaryingCoef"
 * for Heat2D_VaryingCoef would still parse, as a task none of ours) changes
 * which PDEs the knowledge replay retrieves, so it is PF_ERR_IO "'PATH' is
 * not PINNsAgent's released pde_labels.tsv (its SHA-256 is ...)".
 */
#ifndef PF_PINNSAGENT_LABELS_H
#define PF_PINNSAGENT_LABELS_H

#include "core/status.h"

#define PF_PA_LABEL_FILE "pde_labels.tsv"   /* in pf_pa_dir() */
/* SHA-256 of pde_labels.tsv as scripts/pinnsagent-labels.py derives it
 * (data/pinnsagent.sha256): pf_pa_labels_open() refuses any other file. */
#define PF_PA_LABELS_SHA256 "e2a9824fe6507ad69f0dd83d0b1ca62752a60de61150ddf8b65907183de307c3"
#define PF_PA_OWN_LABELS "labels.tsv"       /* in data/pinnsagent/ */
#define PF_PA_LABEL_DIM 34

typedef enum pf_pa_field {
    PF_PA_FAMILY,
    PF_PA_TYPE,
    PF_PA_DIMENSION,
    PF_PA_LINEARITY,
    PF_PA_TIME,
    PF_PA_BOUNDARY,
    PF_PA_INITIAL,
    PF_PA_COEFFICIENT,
    PF_PA_HORIZON,
    PF_PA_GEOMETRY,
    PF_PA_FIELD_COUNT
} pf_pa_field;

/* "family", "type", ...; the count of a field's labels and label i's name
 * ("no-boundary-condition" and "mixed-boundary" are boundary labels 4 and
 * 5, after the four one-hot ones); NULL out of range. */
const char *pf_pa_field_name(pf_pa_field f);
int pf_pa_field_label_count(pf_pa_field f);
const char *pf_pa_field_label(pf_pa_field f, int i);

/* One PDE's labels. */
typedef struct pf_pa_label {
    const char *name;                 /* column 1: a PINNacle task (shared file) or our PDE name */
    const char *pde;                  /* our PDE name; NULL for a task that is none of ours */
    int label[PF_PA_FIELD_COUNT];     /* index of each field's label (pf_pa_field_label) */
    const char *file;                 /* the file it came from, as opened */
    int line;
} pf_pa_label;

typedef struct pf_pa_labels pf_pa_labels;

/* Load the shared file and ours (see above), shared entries first, each in
 * file order: that order breaks ties in pinnsagent/pgkr.h. No hash check (the
 * tests' fixtures, a user's own labels). *out NULL on failure. */
pf_status pf_pa_labels_load(const char *shared_tsv, const char *own_tsv, pf_pa_labels **out);

/* pf_pa_labels_load of $PF_PINNSAGENT_DIR/pde_labels.tsv and
 * data/pinnsagent/labels.tsv, the shared file's SHA-256 checked first
 * (PF_PA_LABELS_SHA256; the bytes checked are the bytes parsed). */
pf_status pf_pa_labels_open(pf_pa_labels **out);

void pf_pa_labels_free(pf_pa_labels *ls);

int pf_pa_labels_count(const pf_pa_labels *ls);
const pf_pa_label *pf_pa_labels_at(const pf_pa_labels *ls, int i);   /* 0 <= i < count */

/* The entry whose PDE name or column-1 name is `name`; NULL if none. */
const pf_pa_label *pf_pa_labels_find(const pf_pa_labels *ls, const char *name);

/* The 34-number one-hot vector of l (each 0 or 1). */
void pf_pa_label_encode(const pf_pa_label *l, double v[PF_PA_LABEL_DIM]);

/* Plain cosine similarity of the two encodings, in [0, 1]. */
double pf_pa_label_cosine(const pf_pa_label *a, const pf_pa_label *b);

#endif
