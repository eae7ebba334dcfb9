/*
 * db.h — PINNsAgent's knowledge base: the 3,872 PINNacle
 * random-search runs of dataset_for_retrieval.csv (issue 17;
 * docs/baselines.md, "PINNsAgent: knowledge base"). The PGKR retrieval (pinnsagent/pgkr.h) and the
 * memory-tree scores (pinnsagent/memory_tree.h) read it.
 *
 *     pf_pa_db *db;
 *     PF_TRY(pf_pa_db_open(&db));        // $PF_PINNSAGENT_DIR, SHA-256 checked
 *     int t = pf_pa_db_find(db, "burgers_1d");
 *     const pf_pa_task *task = pf_pa_db_task(db, t);
 *     const pf_pa_row *best = pf_pa_db_row(db, pf_pa_db_best_row(db, t));
 *     char cfg[512];
 *     printf("%s: %s mse %g\n", task->name, pf_pa_row_format(best, cfg, sizeof cfg), best->mse);
 *     pf_pa_db_free(db);
 *
 * (pa = PINNsAgent throughout: pf_pa_* here and in pinnsagent/labels.h.)
 *
 * ------------------------------------------------------------- the files
 *
 * PINNsAgent's files are never part of the project. They live in the
 * folder named by PF_PINNSAGENT_DIR; unset or empty, PF_PA_DIR_DEFAULT
 * relative to the working directory: data/ref/pinnsagent, beside the
 * PINNacle files and git-ignored like them, which `make data`
 * (scripts/fetch-data.sh, data/pinnsagent.sha256) fills. The Makefile
 * exports the absolute path of the checkout's folder, or the team's
 * ../shared/data/pinnsagent when that holds both files (as it does
 * PF_DATA_DIR). The CSV must be the released one: pf_pa_db_open() refuses
 * a file whose SHA-256 is not PF_PA_DB_SHA256 (qingpowuwu/PINNsAgent_Codes
 * at commit 478d8e4e, data/dataset_for_retrieval.csv). pde_labels.tsv
 * (pinnsagent/labels.h) is no file of that repository: `make data`
 * derives it from the PDE_LABELS dict of its database/pde_encoder.py
 * (scripts/pinnsagent-labels.py).
 *
 * ------------------------------------------------------------- the format
 *
 * A CSV (RFC 4180 quoting: a field in double quotes may hold commas, "" is
 * a quote; no field spans lines; "\r\n" ends a line as well as "\n"). Line 1
 * is the header; it must name, once each, the columns task, run_time, mse,
 * activation, net, optimizer, lr, width, depth, num_domain_points,
 * num_boundary_points, num_initial_points, initializer and pde_list, in any
 * order; other columns (train_loss, l2rel, ...) are read past. Every line
 * after it is one run and has as many fields as the header:
 *
 *   task         non-empty; mapped to our PDE names by pf_pa_task_pde()
 *   run_time     a finite number >= 0 (seconds)
 *   mse          a finite number >= 0
 *   activation, net, optimizer, initializer
 *                one of the values pf_pa_value_name() lists (docs/baselines.md's
 *                vocabulary; "Glorot normal" with its space)
 *   lr           a finite number > 0
 *   width        an integer in 1..PF_PA_MAX_INT; depth likewise
 *   num_*_points an integer in 0..PF_PA_MAX_INT, or exactly the row's
 *                pde_list text: the released file has 340 rows where a point
 *                count column holds the task list ("['Burgers1D']") instead
 *                of the count. The count is then unknown (NAN): PINNsAgent's
 *                memory tree skips such values (its float() fails), so do
 *                we (pinnsagent/memory_tree.h); a retrieved config prints "?".
 *
 * Anything else fails with PF_ERR_INVALID and "<path>:<line>: <why>" (the
 * path as given, the line counted from 1 = header): a missing or repeated
 * header column, a wrong number of fields, an empty line, a quote left
 * open, text after a closing quote, a quote inside an unquoted field, a
 * value that is not a number or outside its range, an unknown categorical
 * value (the message lists the allowed ones), a file with a header and no
 * rows. A file that cannot be read is PF_ERR_IO. Rows that repeat another
 * exactly (the released file has some: the same run logged twice, with
 * different run times) are all kept, as PINNsAgent keeps them.
 */
#ifndef PF_PINNSAGENT_DB_H
#define PF_PINNSAGENT_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "spec/pinnsagent_space.h"

/* Where PINNsAgent's files are (see above). */
#define PF_PA_DIR_ENV "PF_PINNSAGENT_DIR"
#define PF_PA_DIR_DEFAULT "data/ref/pinnsagent"
#define PF_PA_DB_FILE "dataset_for_retrieval.csv"
#define PF_PA_DB_SHA256 "e158dc3c83ae48760efe6d9bb85f8a4fb120854037ffa1fb573b93c8847bdc64"
#define PF_PA_PATH_MAX 4096
#define PF_PA_MAX_INT 1000000000

/* The ten hyperparameters (pf_pa_param), their names and values are
 * spec/pinnsagent_space.h's: activation, net, optimizer and initializer
 * are categorical; lr, width, depth and the three point counts continuous
 * here (as PINNsAgent's memory_tree.py has them: lr is continuous there,
 * its decades a number). */

/* One run (one CSV line). value[p] holds every hyperparameter as a number:
 * a categorical one as the index of its value (pf_pa_value_name), a
 * continuous one as written; NAN for a point count the file lacks. */
typedef struct pf_pa_row {
    int line;                      /* its line in the file (header = 1) */
    int task;                      /* index for pf_pa_db_task() */
    double run_time, mse;
    double value[PF_PA_PARAM_COUNT];
} pf_pa_row;

/* The rows of one task, in file order. */
typedef struct pf_pa_task {
    const char *name;              /* as in the CSV: a PINNacle class name */
    const char *pde;               /* our PDE name, NULL when it is none of ours */
    int nrows;
    const int *rows;               /* nrows indexes for pf_pa_db_row() */
} pf_pa_task;

/* Our PDE name of a PINNacle task name as docs/baselines.md maps them
 * ("Burgers1D" -> "burgers_1d"); NULL for a task that is none of our 25
 * (Wave2D_LongTime) and for an unknown name. The strings are static. */
const char *pf_pa_task_pde(const char *task);

typedef struct pf_pa_db pf_pa_db;

/* PINNsAgent's folder: $PF_PINNSAGENT_DIR when set and non-empty, else
 * PF_PA_DIR_DEFAULT. */
const char *pf_pa_dir(void);

/* "<dir>/<name>" into buf[0..cap), checked to be a regular file.
 * PF_ERR_IO when it is not, naming the file, the folder and where the
 * folder came from (PF_PINNSAGENT_DIR or the default), and saying how to
 * get the files (`make data`, or point PF_PINNSAGENT_DIR at them); buf
 * holds the path even then (when it fits). PF_ERR_INVALID when it does not
 * fit. */
pf_status pf_pa_path(const char *name, char *buf, size_t cap);

/* The SHA-256 of the file at path must be PF_PA_DB_SHA256: PF_ERR_IO
 * naming the file and both hashes otherwise (another version, an edited
 * or cut copy). */
pf_status pf_pa_db_verify(const char *path);

/* The SHA-256 of text[0..len), the bytes of `path`, must be want (PINNsAgent's
 * released `file`): PF_ERR_IO "'PATH' is not PINNsAgent's released FILE (its
 * SHA-256 is ..., the release's is ...): another version or a damaged copy;
 * HOW" otherwise. The one check of both shared files (pinnsagent/labels.h). */
pf_status pf_pa_sha256_check(const char *path, const char *text, size_t len, const char *want, const char *file,
                             const char *how);

/* Load the CSV at path (see above) without a hash check: the fixtures of
 * the tests, a user's own table. *out NULL on failure. */
pf_status pf_pa_db_load(const char *path, pf_pa_db **out);

/* pf_pa_path(PF_PA_DB_FILE), then the file read once (a regular file of
 * at most 1 GiB, core/file.h), its SHA-256 checked as pf_pa_db_verify does
 * and the same bytes loaded as pf_pa_db_load does. */
pf_status pf_pa_db_open(pf_pa_db **out);

void pf_pa_db_free(pf_pa_db *db);

int pf_pa_db_row_count(const pf_pa_db *db);
const pf_pa_row *pf_pa_db_row(const pf_pa_db *db, int i);   /* 0 <= i < count */

/* Tasks in the order of their first row. */
int pf_pa_db_task_count(const pf_pa_db *db);
const pf_pa_task *pf_pa_db_task(const pf_pa_db *db, int t); /* 0 <= t < count */

/* Index of the task whose CSV name or PDE name is `name`, -1 if none. */
int pf_pa_db_find(const pf_pa_db *db, const char *name);

/* Row index of task t's best run: the lowest mse, ties to the earliest
 * line (PINNsAgent takes pandas' sort_values(mse).head(1), whose order
 * among equal values is not specified; ties in the released file are
 * exact repeats of one configuration). */
int pf_pa_db_best_row(const pf_pa_db *db, int t);

/* The ten hyperparameters of r as "activation=sin net=fnn optimizer=adam
 * lr=0.001 width=100 depth=5 num_domain_points=8192
 * num_boundary_points=2048 num_initial_points=2024
 * initializer=Glorot normal" (a missing count is "?") into buf; returns
 * buf (cut to cap). */
const char *pf_pa_row_format(const pf_pa_row *r, char *buf, size_t cap);

#endif
