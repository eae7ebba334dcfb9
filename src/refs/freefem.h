/*
 * freefem.h — running the project's FreeFEM scripts (refs/<name>.edp) for
 * the finite-element references (`make refs`), and reading what they write.
 *
 *     char edp[PF_FF_PATH_MAX];
 *     PF_TRY(pf_ff_prepare("heat_2d_complex_geometry.edp", edp, sizeof edp));
 *     pf_ff_work w;
 *     PF_TRY(pf_ff_work_open(&w, "heat", nodes, 2, xy));   // $TMPDIR/pf-ref-heat-XXXXXX/points.txt
 *     const char *args[] = {"-n", "32", "-pts", w.pts, "-out", out, NULL};
 *     PF_TRY(pf_ff_run(edp, args, log));                  // FreeFem++ -nw -ne edp args...
 *     pf_ff_table t;
 *     PF_TRY(pf_ff_table_read(out, &t));                  // "rows cols", rows, "end"
 *     pf_ff_work_close(&w);
 *
 * FreeFem++ (Debian package freefem++, scripts/install-deps.sh) is found on
 * PATH, or is $PF_FREEFEM when set; it runs through posix_spawn, no shell,
 * stdin /dev/null, stdout and stderr into the log file. When it is absent
 * every call fails with PF_ERR_EXTERNAL saying how to install it.
 */
#ifndef PF_REFS_FREEFEM_H
#define PF_REFS_FREEFEM_H

#include <stddef.h>

#include "core/status.h"

#define PF_FF_PATH_MAX 4096
#define PF_FF_ENV "PF_FREEFEM"

/* The FreeFem++ executable into buf: $PF_FREEFEM when set and non-empty
 * (it must be executable), else the first FreeFem++ on PATH.
 * PF_ERR_EXTERNAL naming what is missing and the package to install. */
pf_status pf_ff_find(char *buf, size_t cap);

/* The project's script refs/<name>: $PF_REFS_EDP_DIR/<name> when that
 * variable is set, else refs/<name> under the working directory, else in
 * the first of up to four folders above the executable (build/bin/pf-ref-x
 * finds the checkout's refs/). PF_ERR_IO naming the places looked at. */
pf_status pf_ff_script(const char *name, char *buf, size_t cap);

/* pf_ff_find (into a buffer of its own: only that it exists matters here),
 * then pf_ff_script(name): what every solver checks before any work, so
 * that a missing FreeFem++ or script is one message and exit 2. */
pf_status pf_ff_prepare(const char *name, char *buf, size_t cap);

/* A solver's working folder: $TMPDIR/pf-ref-<tag>-XXXXXX (/tmp without
 * TMPDIR), holding pts, the points file the scripts read with -pts: the
 * line "n", then n lines of d coordinates x[q * d + i]. */
typedef struct pf_ff_work {
    char dir[PF_FF_PATH_MAX];
    char pts[PF_FF_PATH_MAX + 16];
    int open;
} pf_ff_work;

/* PF_ERR_IO naming the folder or file that could not be made. */
pf_status pf_ff_work_open(pf_ff_work *w, const char *tag, size_t n, int d, const double *x);
/* Removes the points file and the folder, which stays when the solver
 * left its logs there (kept after a failure, for a look). */
void pf_ff_work_close(pf_ff_work *w);

/* Runs `FreeFem++ -nw -ne script args...` (args NULL-terminated), its
 * stdout and stderr into log (created or truncated). A non-zero exit or a
 * signal is PF_ERR_EXTERNAL quoting the log's last lines. */
pf_status pf_ff_run(const char *script, const char *const *args, const char *log);

/* A script's numeric output: the line "rows cols", rows lines of cols
 * numbers, then the line "end" (a cut file is refused). v[r * cols + c]. */
typedef struct pf_ff_table {
    size_t rows;
    int cols;
    double *v;
} pf_ff_table;

/* PF_ERR_IO (absent or unreadable) or PF_ERR_INVALID (malformed, cut, not
 * finite) naming the file and the line. */
pf_status pf_ff_table_read(const char *path, pf_ff_table *t);
void pf_ff_table_free(pf_ff_table *t);

#endif
