/*
 * pinnsagent_fixture.h — PINNsAgent's shared data for the tests of
 * pinnsagent/db.h, labels.h, pgkr.h and memory_tree.h:
 * the released files from $PF_PINNSAGENT_DIR (the test skips, saying
 * "data missing:" and why, when they are absent: data_fixture.h; a file
 * that is there but wrong fails), the
 * committed fixtures, and small files written for one test.
 *
 *     pf_pa_db *db = shared_db();          // skips without the shared data
 *     pf_pa_labels *ls = shared_labels();
 *     ...
 *     pf_pa_db_free(db);
 *     pf_pa_labels_free(ls);
 */
#ifndef PF_TESTS_PINNSAGENT_FIXTURE_H
#define PF_TESTS_PINNSAGENT_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "data_fixture.h"
#include "pinnsagent/db.h"
#include "pinnsagent/labels.h"

#define PA_FIXTURES "tests/fixtures/pinnsagent"

static inline pf_pa_db *shared_db(void)
{
    require_pa_data(PF_PA_DB_FILE);
    pf_pa_db *db = NULL;
    cr_assert_eq(pf_pa_db_open(&db), PF_OK, "%s", pf_errmsg());
    return db;
}

static inline pf_pa_labels *shared_labels(void)
{
    require_pa_data(PF_PA_LABEL_FILE);
    pf_pa_labels *ls = NULL;
    cr_assert_eq(pf_pa_labels_open(&ls), PF_OK, "%s", pf_errmsg());
    return ls;
}

static inline pf_pa_db *fixture_db(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", PA_FIXTURES, name);
    pf_pa_db *db = NULL;
    cr_assert_eq(pf_pa_db_load(path, &db), PF_OK, "%s", pf_errmsg());
    return db;
}

/* text into a fresh file under /tmp; its path (static, one per call site
 * in turn: copy it before the next call). */
static inline const char *temp_file(const char *stem, const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/pf_pa_%s_XXXXXX", stem);
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0, "mkstemp");
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#endif
