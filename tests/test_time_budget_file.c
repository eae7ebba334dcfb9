/*
 * test_time_budget_file.c — search/time_budget_file.h: the clock of a
 * TIME_BUDGET run on fake time_budget.json files. A run whose make was
 * killed and made again an hour later is charged its sessions, not the
 * hour between them (the time used, the elapsed time a grant sees, the
 * stop rule); a file from before sessions is read as one session to its
 * last write; malformed sessions are refused naming the file.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "search/time_budget_file.h"

enum { BUDGET = 600, DOWN = 3600, WORKED = 100 };

static char dir[64], path[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pf_time_budget_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/" PF_TIME_BUDGET_FILE, dir);
}

static void teardown(void)
{
    char p[160];
    unlink(path);
    snprintf(p, sizeof p, "%s/.time_budget.lock", dir);
    unlink(p);
    rmdir(dir);
}

TestSuite(time_budget_file, .init = setup, .fini = teardown);

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static pf_run run_of(void)
{
    pf_run r = {.method = PF_METHOD_PINNFORGE, .time_budget_s = BUDGET};
    snprintf(r.dir, sizeof r.dir, "%s", dir);
    return r;
}

static void write_json(json_t *o)
{
    cr_assert_eq(json_dump_file(o, path, JSON_INDENT(1)), 0);
    json_decref(o);
}

static double used_s(const pf_run *r)
{
    json_t *s;
    cr_assert_eq(pf_time_budget_summary(r, &s), PF_OK, "%s", pf_errmsg());
    double u = json_number_value(json_object_get(s, "used_s"));
    json_decref(s);
    return u;
}

/* A record of one session, from t0 to its last stamp t1. */
static json_t *session_file(double t0, double t1)
{
    json_t *o = json_pack("{s:i, s:f, s:[{s:f, s:f}], s:i, s:{}, s:{}}", "time_budget_s", BUDGET, "started_at", t0,
                          "sessions", "started_at", t0, "last_at", t1, "jobs", 1, "trainings", "prompts");
    cr_assert_not_null(o);
    return o;
}

/* The first make ran WORKED s, its last record DOWN s ago; it was killed
 * then, and the make now starting is charged WORKED s, not DOWN + WORKED. */
Test(time_budget_file, an_interrupted_and_resumed_run_is_not_charged_its_down_time)
{
    double t = now(), t0 = t - DOWN - WORKED;
    write_json(session_file(t0, t0 + WORKED));

    /* the next make: pf-context starts a session */
    cr_assert_eq(pf_time_budget_start(dir, BUDGET, false, false), PF_OK, "%s", pf_errmsg());
    pf_run r = run_of();
    double u = used_s(&r);
    cr_assert(u >= WORKED && u < WORKED + 30, "used %.1f s: %d s of work, %d s down", u, WORKED, DOWN);

    /* a grant sees the same clock, and stamps the session */
    pf_time_grant g;
    cr_assert_eq(pf_time_budget_grant(&r, 0, 0, "hash0", 1e6, 100, 1, &g), PF_OK, "%s", pf_errmsg());
    cr_assert_gt(g.limit_s, 1, "a limit of %.2f s out of %d s with %d s used", g.limit_s, BUDGET, WORKED);
    json_t *o;
    cr_assert_eq(pf_time_budget_read(dir, &o), PF_OK, "%s", pf_errmsg());
    double at = json_number_value(json_object_get(json_object_get(json_object_get(o, "trainings"), "gen00/cand0"),
                                                  "elapsed_at_start_s"));
    cr_assert(at >= WORKED && at < WORKED + 30, "the grant saw %.1f s elapsed", at);
    json_t *ss = json_object_get(o, "sessions");
    cr_assert_eq(json_array_size(ss), 2);
    double s1 = json_number_value(json_object_get(json_array_get(ss, 1), "started_at"));
    double l1 = json_number_value(json_object_get(json_array_get(ss, 1), "last_at"));
    cr_assert(s1 >= t && l1 >= s1, "session 2: %f .. %f, made after %f", s1, l1, t);
    cr_assert_eq(json_number_value(json_object_get(o, "started_at")), t0, "the run's start is kept");
    json_decref(o);

    /* 100 s of 450 s (the low-fidelity share) after generation 0: go on */
    bool stop = true;
    char why[256];
    cr_assert_eq(pf_time_budget_stop(&r, 0, &stop, why, sizeof why), PF_OK, "%s", pf_errmsg());
    cr_assert(!stop, "stopped: %s", why);
}

/* Within one make the clock runs from the session's start to now. */
Test(time_budget_file, the_current_session_counts_to_now)
{
    double t0 = now() - WORKED;
    write_json(session_file(t0, t0 + 1));
    pf_run r = run_of();
    double u = used_s(&r);
    cr_assert(u >= WORKED && u < WORKED + 30, "used %.1f s", u);
}

/* A file written before sessions: one session from "started_at" to its
 * modification time; the next make starts a second one. */
Test(time_budget_file, an_old_file_is_one_session_to_its_last_write)
{
    double t = now(), t0 = t - DOWN - WORKED;
    json_t *o = json_pack("{s:i, s:f, s:i, s:{}, s:{}}", "time_budget_s", BUDGET, "started_at", t0, "jobs", 1,
                          "trainings", "prompts");
    cr_assert_not_null(o);
    write_json(o);
    struct timeval tv[2] = {{(time_t)(t0 + WORKED), 0}, {(time_t)(t0 + WORKED), 0}};
    cr_assert_eq(utimes(path, tv), 0);
    cr_assert_eq(pf_time_budget_read(dir, &o), PF_OK, "%s", pf_errmsg());
    json_t *s0 = json_array_get(json_object_get(o, "sessions"), 0);
    cr_assert_eq(json_array_size(json_object_get(o, "sessions")), 1);
    cr_assert_eq(json_number_value(json_object_get(s0, "started_at")), t0);
    cr_assert_float_eq(json_number_value(json_object_get(s0, "last_at")), (double)(time_t)(t0 + WORKED), 1e-6);
    json_decref(o);

    cr_assert_eq(pf_time_budget_start(dir, BUDGET, false, false), PF_OK, "%s", pf_errmsg());
    pf_run r = run_of();
    double u = used_s(&r);
    cr_assert(u >= WORKED - 1 && u < WORKED + 30, "used %.1f s", u);
    cr_assert_eq(pf_time_budget_read(dir, &o), PF_OK, "%s", pf_errmsg());
    cr_assert_eq(json_array_size(json_object_get(o, "sessions")), 2, "the upgrade is written");
    json_decref(o);
}

/* sessions that are not [{started_at <= last_at}, ...]: refused, naming the
 * file, by the readers and by the next make's pf-context. */
Test(time_budget_file, malformed_sessions_are_refused_naming_the_file)
{
    static const char *const bad[] = {
        "[]", "{}", "[{\"started_at\": 10}]", "[{\"started_at\": \"10\", \"last_at\": 20}]",
        "[{\"started_at\": 30, \"last_at\": 20}]", "[{\"started_at\": 10, \"last_at\": 20}, 7]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fprintf(f, "{\"time_budget_s\": %d, \"started_at\": 10, \"sessions\": %s, \"jobs\": 1, \"trainings\": {}}",
                BUDGET, bad[i]);
        fclose(f);
        json_t *o = (json_t *)1;
        cr_assert_eq(pf_time_budget_read(dir, &o), PF_ERR_INVALID, "sessions %s taken", bad[i]);
        cr_assert_null(o);
        cr_assert(strstr(pf_errmsg(), path) && strstr(pf_errmsg(), "sessions"), "%s", pf_errmsg());
        cr_assert_eq(pf_time_budget_start(dir, BUDGET, false, false), PF_ERR_INVALID, "sessions %s: started", bad[i]);
        cr_assert(strstr(pf_errmsg(), path), "%s", pf_errmsg());
    }
    /* new settings replace the record */
    cr_assert_eq(pf_time_budget_start(dir, BUDGET, true, false), PF_OK, "%s", pf_errmsg());
}
