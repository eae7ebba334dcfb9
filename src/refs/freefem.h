/*
 * freefem.h — running the project's FreeFEM scripts (refs/<name>.edp) for
 * the finite-element references (`make refs`), and reading what they write.
 *
 *     char edp[PF_FF_PATH_MAX];
 *     PF_TRY(pf_ff_script("heat_2d_complex_geometry.edp", edp, sizeof edp));
 *     const char *args[] = {"-n", "32", "-pts", pts, "-out", out, NULL};
 *     PF_TRY(pf_ff_run(edp, args, log));                  // FreeFem++ -nw -ne edp args...
 *     pf_ff_table t;
 *     PF_TRY(pf_ff_table_read(out, &t));                  // "rows cols", rows, "end"
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
