/*
 * data_fixture.h — skip a test when the data it reads are not there:
 * PINNacle's reference files (PF_DATA_DIR, io/data_dir.h) and PINNsAgent's
 * files (PF_PINNSAGENT_DIR, pinnsagent/db.h), which `make data`
 * (scripts/fetch-data.sh) puts in place and `make test` fetches first.
 *
 *     require_data("burgers1d.dat");         // skips without the file
 *     require_pde_data(p);                   // every file PDE p reads
 *     require_pa_data(PF_PA_DB_FILE);        // PINNsAgent's CSV
 *
 * A test over many PDEs checks those whose files are there, then skips,
 * naming the first absent one, when some were not:
 *
 *     data_gaps gaps = {0};
 *     for (...) {
 *         if (pde_data_absent(p)) { data_gap(&gaps, p->name); continue; }
 *         ...
 *     }
 *     data_gaps_skip(&gaps, "PDEs");        // returns when none was absent
 *
 * A skip's message starts with PF_DATA_MISSING, then names the file, the
 * folder, and what to run or set (`make data`, PF_DATA_DIR,
 * PF_PINNSAGENT_DIR): the Makefile's test-run counts those skips. Only an
 * absent file skips: one that is there but wrong (cut, edited, another
 * version) is read, and the test fails on it. A test that checks the
 * message of a missing file on purpose points the folder elsewhere itself
 * and calls none of these.
 */
#ifndef PF_TESTS_DATA_FIXTURE_H
#define PF_TESTS_DATA_FIXTURE_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"
#include "geom/pde.h"
#include "io/data_dir.h"
#include "pinnsagent/db.h"

/* The first words of every skip for want of data (the Makefile counts them). */
#define PF_DATA_MISSING "data missing: "

/* True when `name` is not in the data folder (pf_data_path's message, which
 * names it, the folder and `make data`, left in pf_errmsg()). */
static inline bool data_absent(const char *name)
{
    char path[PF_DATA_PATH_MAX];
    return pf_data_path(name, path, sizeof path) != PF_OK;
}

/* Skip the test unless the PINNacle file `name` is in PF_DATA_DIR. */
static inline void require_data(const char *name)
{
    if (data_absent(name)) cr_skip_test(PF_DATA_MISSING "%s", pf_errmsg());
}

/* True when one of p's data_files (the files its hooks read: coefficient
 * tables, observation points) is absent from PF_DATA_DIR; the first absent
 * one is in pf_errmsg(). */
static inline bool pde_data_files_absent(const pf_pde *p)
{
    for (const char *f = p->data_files; f && *f;) {
        const char *e = strchr(f, ',');
        size_t len = e ? (size_t)(e - f) : strlen(f);
        char name[256];
        cr_assert_lt(len, sizeof name, "%s: data file name too long", p->name);
        memcpy(name, f, len);
        name[len] = 0;
        if (data_absent(name)) return true;
        f = e ? e + 1 : f + len;
    }
    return false;
}

/* True when a file p needs from PF_DATA_DIR to train is absent: one of its
 * data_files, or its reference file when that is PINNacle's (PF_REF_DATA;
 * a PF_REF_GENERATED one only takes y away until `make refs`). The first
 * absent one is in pf_errmsg(). */
static inline bool pde_data_absent(const pf_pde *p)
{
    return pde_data_files_absent(p) || (p->ref == PF_REF_DATA && p->ref_file && data_absent(p->ref_file));
}

/* Skip the test unless every file PDE p reads from PF_DATA_DIR is there. */
static inline void require_pde_data(const pf_pde *p)
{
    if (pde_data_absent(p)) cr_skip_test(PF_DATA_MISSING "%s: %s", p->name, pf_errmsg());
}

/* What a test over many cases did not check for want of data. */
typedef struct data_gaps {
    int n;             /* cases left out */
    char first[1024];  /* the first one and why */
} data_gaps;

/* Case `what` is left out; pf_errmsg() says why (as pde_data_absent leaves it). */
static inline void data_gap(data_gaps *g, const char *what)
{
    if (!g->n++) snprintf(g->first, sizeof g->first, "%s: %s", what, pf_errmsg());
}

/* At the end of the test: skip it, saying how many `cases` were left out
 * and the first, when any was; else return. */
static inline void data_gaps_skip(const data_gaps *g, const char *cases)
{
    if (g->n)
        cr_skip_test(PF_DATA_MISSING "%d %s left out, their files absent (the others checked); the first: %s", g->n,
                     cases, g->first);
}

/* Skip the test unless `name` is in PF_DATA_DIR/regenerated/: coefficient
 * fields written by PINNacle's own generator under NumPy (docs/pdes.md
 * R.1), which PINNacle does not publish, so that `make data` cannot fetch
 * them; the tests compare our port against them where someone has them. */
static inline void require_regenerated(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "regenerated/%s", name);
    if (data_absent(rel))
        cr_skip_test(PF_DATA_MISSING "regenerated coefficient field '%s' not found in '%s/regenerated' "
                                     "(PF_DATA_DIR); `make data` cannot fetch it (PINNacle does not publish "
                                     "it): set PF_DATA_DIR to a folder with regenerated/ (docs/pdes.md R.1)",
                     name, pf_data_dir());
}

/* Skip the test unless PINNsAgent's file `name` is in PF_PINNSAGENT_DIR. */
static inline void require_pa_data(const char *name)
{
    char path[PF_PA_PATH_MAX];
    if (pf_pa_path(name, path, sizeof path) != PF_OK) cr_skip_test(PF_DATA_MISSING "%s", pf_errmsg());
}

#endif
