/* test_search_time.c — the trainings of a search on one time line
 * (search/search_time.h), against hand-computed unions and sums. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "search/artifact.h"
#include "search/search_time.h"

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf-search-time-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(search_time, .init = setup, .fini = teardown);

Test(search_time, the_union_of_intervals_counts_overlaps_once_and_clips_to_the_window)
{
    /* [0,4] [1,2] [3,6] -> [0,6]; [8,9]; [10,20] clipped to 12; an empty one */
    double lo[] = {10, 3, 0, 8, 1, 5}, hi[] = {20, 6, 4, 9, 2, 4};
    cr_assert_float_eq(pf_interval_union(lo, hi, 6, -100, 12), 6 + 1 + 2, 1e-12);
    double lo2[] = {10, 3, 0, 8, 1}, hi2[] = {20, 6, 4, 9, 2};
    /* the window [2, 8.5]: [2,6] and [8,8.5] */
    cr_assert_float_eq(pf_interval_union(lo2, hi2, 5, 2, 8.5), 4 + 0.5, 1e-12);
    cr_assert_float_eq(pf_interval_union(lo2, hi2, 0, 0, 100), 0, 0);
    /* sorted in place by start, the ends moving with them */
    cr_assert_float_eq(lo2[0], 0, 0);
    cr_assert_float_eq(hi2[0], 4, 0);
    cr_assert_float_eq(hi2[4], 20, 0);
}

/* evidence of a training with these times at DIR/rel/evidence.msgpack;
 * cpu < 0: a file written before cpu_s was recorded */
static void write_evidence(const char *rel, double start, double wall, double cpu)
{
    char d[256], path[300];
    snprintf(d, sizeof d, "%s/%s", dir, rel);
    cr_assert_eq(pf_mkdirs(d), PF_OK, "%s", pf_errmsg());
    snprintf(path, sizeof path, "%s/evidence.msgpack", d);
    pf_evidence_file e = {.has_y = true, .y = 1e-3, .seed = 7};
    snprintf(e.status, sizeof e.status, "ok");
    snprintf(e.pde, sizeof e.pde, "burgers_1d");
    snprintf(e.spec_hash, sizeof e.spec_hash, "%064x", 5u);
    snprintf(e.fidelity, sizeof e.fidelity, "low");
    snprintf(e.budget, sizeof e.budget, "quick");
    json_t *t = json_pack("{s:f, s:f}", "wall_s", wall, "started_unix", start);
    if (cpu >= 0) json_object_set_new(t, "cpu_s", json_real(cpu));
    e.evidence = json_pack("{s:s, s:i, s:o}", "status", "ok", "steps", 200, "time", t);
    cr_assert_eq(pf_evidence_file_write(path, &e), PF_OK, "%s", pf_errmsg());
    json_decref(e.evidence);
}

Test(search_time, a_run_folder_sums_its_trainings_and_lays_them_on_one_line)
{
    const double t0 = 1.8e9; /* seconds since the epoch */
    write_evidence("p/pinnforge/run0/gen00/cand0", t0 + 1, 3, 2.5);  /* [1,4]   */
    write_evidence("p/pinnforge/run0/gen00/cand1", t0 + 2, 4, 3.5);  /* [2,6]   */
    write_evidence("p/pinnforge/run0/gen01/cand0", t0 + 10, 2, 1.0); /* [10,12] */
    write_evidence("p/pinnforge/run0/hifi/top0", t0 + 13, 5, 4.0);   /* [13,18] */
    write_evidence("p/pinnforge/run1/gen00/cand0", t0 - 50, 60, 9.0); /* before the window: left out */
    /* an untrained proposal's evidence: no times, not a training */
    char path[300];
    snprintf(path, sizeof path, "%s/p/pinnforge/run0/gen01/cand1", dir);
    cr_assert_eq(pf_mkdirs(path), PF_OK);
    strcat(path, "/evidence.msgpack");
    pf_evidence_file u;
    cr_assert_eq(pf_evidence_file_init_untrained(&u, "burgers_1d", "invalid", "bad width", "low", "quick", 7), PF_OK);
    cr_assert_eq(pf_evidence_file_write(path, &u), PF_OK, "%s", pf_errmsg());
    pf_evidence_file_release(&u);

    pf_search_time t;
    cr_assert_eq(pf_search_time_collect(dir, t0, t0 + 20, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(t.trainings, 4);
    cr_assert_eq(t.earlier, 1);
    cr_assert_float_eq(t.train_s, 3 + 4 + 2 + 5, 1e-6);
    cr_assert_float_eq(t.cpu_s, 2.5 + 3.5 + 1.0 + 4.0, 1e-6);
    cr_assert_float_eq(t.busy_s, 5 + 2 + 5, 1e-5); /* [1,6] [10,12] [13,18] */
    /* the window clips: [0, 15] keeps [1,6] [10,12] [13,15] */
    cr_assert_eq(pf_search_time_collect(dir, t0, t0 + 15, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_float_eq(t.busy_s, 5 + 2 + 2, 1e-5);
    /* an earlier window takes the earlier training in: [-50, 10] all busy, and the others */
    cr_assert_eq(pf_search_time_collect(dir, t0 - 60, t0 + 20, &t), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(t.trainings, 5);
    cr_assert_eq(t.earlier, 0);
    cr_assert_float_eq(t.train_s, 3 + 4 + 2 + 5 + 60, 1e-6);
    cr_assert_float_eq(t.busy_s, 60 + 2 + 5, 1e-5); /* [-50,10] [10,12] [13,18] */
}

Test(search_time, evidence_without_cpu_seconds_is_refused_naming_the_file)
{
    write_evidence("p/vanilla/run0/gen00/cand0", 1.8e9, 3, 1);
    write_evidence("p/vanilla/run0/gen00/cand1", 1.8e9, 3, -1);
    pf_search_time t;
    cr_assert_eq(pf_search_time_collect(dir, 0, 2e9, &t), PF_ERR_INVALID);
    cr_assert(strstr(pf_errmsg(), "cand1/evidence.msgpack") && strstr(pf_errmsg(), "cpu_s"), "%s", pf_errmsg());
    char missing[128];
    snprintf(missing, sizeof missing, "%s/nothing", dir);
    cr_assert_eq(pf_search_time_collect(missing, 0, 1, &t), PF_ERR_IO);
    cr_assert(strstr(pf_errmsg(), missing), "%s", pf_errmsg());
}
