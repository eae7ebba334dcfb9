/* time_budget_file.c — RUN/time_budget.json (time_budget_file.h). */
#include "search/time_budget_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/file.h"
#include "core/lock.h"
#include "llm/method.h"
#include "search/time_budget.h"

#define GENERATIONS 10 /* a search's generations (pipeline.mk's GENS) */
#define LOCK_NAME ".time_budget.lock"

static double wall_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static pf_status file_path(const char *dir, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s/" PF_TIME_BUDGET_FILE, dir);
    return n >= 0 && (size_t)n < cap ? PF_OK : pf_fail(PF_ERR_INVALID, "run folder name '%s' is too long", dir);
}

static double num_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *session(double started_at, double last_at)
{
    json_t *s = json_object();
    json_object_set_new(s, "started_at", json_real(started_at));
    json_object_set_new(s, "last_at", json_real(last_at));
    return s;
}

/* o's "sessions", checked; a file written before them (one clock from
 * "started_at") is read as one session from "started_at" to its last
 * write (the file's modification time, st_mtime). */
static pf_status check_sessions(const char *path, json_t *o)
{
    json_t *ss = json_object_get(o, "sessions");
    if (!ss) {
        struct stat st;
        if (stat(path, &st) != 0) return pf_fail(PF_ERR_IO, "cannot stat '%s': %s", path, strerror(errno));
        double last = (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec;
        double start = num_of(o, "started_at");
        ss = json_array();
        json_array_append_new(ss, session(start, last > start ? last : start));
        json_object_set_new(o, "sessions", ss);
        return PF_OK;
    }
    size_t n = json_is_array(ss) ? json_array_size(ss) : 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(ss, i);
        double a = num_of(e, "started_at"), b = num_of(e, "last_at");
        if (!(isfinite(a) && isfinite(b) && b >= a))
            return pf_fail(PF_ERR_INVALID, "'%s': sessions[%zu] is not {\"started_at\": T0, \"last_at\": T1} with "
                           "T0 <= T1 (seconds since 1970)", path, i);
    }
    if (!n) return pf_fail(PF_ERR_INVALID, "'%s': \"sessions\" must be a non-empty array", path);
    return PF_OK;
}

pf_status pf_time_budget_read(const char *dir, json_t **out)
{
    *out = NULL;
    char path[4200];
    PF_TRY(file_path(dir, path, sizeof path));
    if (access(path, F_OK) != 0 && errno == ENOENT) return PF_OK;
    char *text;
    size_t len;
    PF_TRY(pf_file_read_as(path, PF_FILE_SETTINGS, &text, &len));
    json_error_t err;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!o || !json_is_object(o) || !json_is_number(json_object_get(o, "started_at")) ||
        !json_is_object(json_object_get(o, "trainings"))) {
        json_decref(o);
        return pf_fail(PF_ERR_INVALID, "'%s' is not a time budget record (%s)", path,
                       o ? "it needs \"started_at\" and \"trainings\"" : err.text);
    }
    pf_status st = check_sessions(path, o);
    if (st != PF_OK) {
        json_decref(o);
        return st;
    }
    *out = o;
    return PF_OK;
}

/* The run's time on the clock at `now`: each earlier session from its
 * start to its last record, the current one (the last) from its start to
 * now. Time between a session's last record and the next one's start (a
 * make killed, the run left for an hour) is not counted. */
static double elapsed_of(const json_t *o, double now)
{
    const json_t *ss = json_object_get(o, "sessions");
    size_t n = json_array_size(ss);
    double t = 0;
    for (size_t i = 0; i + 1 < n; i++)
        t += num_of(json_array_get(ss, i), "last_at") - num_of(json_array_get(ss, i), "started_at");
    return t + now - num_of(json_array_get(ss, n - 1), "started_at");
}

/* The current session's last record is now. */
static void stamp(json_t *o, double now)
{
    json_t *ss = json_object_get(o, "sessions");
    json_object_set_new(json_array_get(ss, json_array_size(ss) - 1), "last_at", json_real(now));
}

static pf_status write_file(const char *dir, const json_t *o)
{
    char path[4200];
    PF_TRY(file_path(dir, path, sizeof path));
    char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(1));
    if (!s) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = pf_file_write_atomic(path, s, strlen(s));
    free(s);
    return st;
}

static json_t *fresh(long budget_s)
{
    json_t *o = json_object(), *ss = json_array();
    double now = wall_now();
    json_object_set_new(o, "time_budget_s", json_integer(budget_s));
    json_object_set_new(o, "started_at", json_real(now));
    json_array_append_new(ss, session(now, now));
    json_object_set_new(o, "sessions", ss);
    json_object_set_new(o, "jobs", json_integer(1));
    json_object_set_new(o, "trainings", json_object());
    json_object_set_new(o, "prompts", json_object());
    return o;
}

/* pf_time_budget_start under the file's lock. The next make of a run (the
 * same budget, the same settings) starts a session: its clock runs from now. */
static pf_status start_locked(const char *dir, long budget_s, bool restart, bool keep)
{
    json_t *old = NULL;
    pf_status st = pf_time_budget_read(dir, &old);
    if (st != PF_OK && !restart) return st; /* a damaged record is refused, named */
    bool same = old && json_integer_value(json_object_get(old, "time_budget_s")) == budget_s;
    json_t *o;
    if (same && !restart) {
        double now = wall_now();
        json_array_append_new(json_object_get(old, "sessions"), session(now, now));
        o = old;
    } else {
        o = fresh(budget_s);
        if (old && keep) {
            json_object_set_new(o, "replay", json_true()); /* decisions come from the record only */
            if (json_object_get(old, "stopped_after"))
                json_object_set(o, "stopped_after", json_object_get(old, "stopped_after"));
            json_object_set(o, "trainings", json_object_get(old, "trainings"));
            if (json_is_object(json_object_get(old, "prompts")))
                json_object_set(o, "prompts", json_object_get(old, "prompts"));
        }
        json_decref(old);
    }
    st = write_file(dir, o);
    json_decref(o);
    return st;
}

pf_status pf_time_budget_start(const char *dir, long budget_s, bool restart, bool keep)
{
    char path[4200];
    PF_TRY(file_path(dir, path, sizeof path));
    if (budget_s <= 0) {
        if (unlink(path) != 0 && errno != ENOENT) return pf_fail(PF_ERR_IO, "cannot remove '%s': %s", path, strerror(errno));
        return PF_OK;
    }
    int fd;
    PF_TRY(pf_lock_open_named(dir, LOCK_NAME, &fd));
    pf_status st = pf_lock_wait(fd);
    if (st == PF_OK) st = start_locked(dir, budget_s, restart, keep);
    close(fd);
    return st;
}

/* Run fn(o, user) on the file's JSON under its lock and write it back with
 * the current session's last record now (a grant, an outcome, a prompt, a
 * stop decision: the run is being made); a missing file is a fresh one (the
 * clock starts now). */
typedef pf_status (*update_fn)(const pf_run *r, json_t *o, void *user);

static pf_status update(const pf_run *r, update_fn fn, void *user)
{
    int fd;
    PF_TRY(pf_lock_open_named(r->dir, LOCK_NAME, &fd));
    pf_status st = pf_lock_wait(fd);
    json_t *o = NULL;
    if (st == PF_OK) st = pf_time_budget_read(r->dir, &o);
    if (st == PF_OK && !o) o = fresh(r->time_budget_s);
    if (st == PF_OK) st = fn(r, o, user);
    if (st == PF_OK) {
        stamp(o, wall_now());
        st = write_file(r->dir, o);
    }
    json_decref(o);
    close(fd);
    return st;
}

static void key_of(int g, int k, char *buf, size_t cap)
{
    if (g == PF_RUN_HIFI) snprintf(buf, cap, "hifi/top%d", k);
    else snprintf(buf, cap, "gen%02d/cand%d", g, k);
}

/* The cost model from the finished trainings. */
static pf_cost_model model_of(const json_t *trainings)
{
    size_t n = json_object_size(trainings), i = 0;
    double *w = calloc(n + 1, sizeof *w), *t = calloc(n + 1, sizeof *t);
    if (!w || !t) {
        free(w), free(t);
        return pf_cost_fit(NULL, NULL, 0);
    }
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)trainings, key, e) {
        double steps = num_of(e, "steps");
        w[i] = num_of(e, "work");
        t[i++] = steps > 0 ? num_of(e, "step_s") / steps : NAN;
    }
    pf_cost_model m = pf_cost_fit(w, t, (int)i);
    free(w), free(t);
    return m;
}

/* The limit rule's plan for a training of generation g. */
static pf_time_plan plan_of(const pf_run *r, const json_t *o, int g, int jobs)
{
    pf_time_plan p = {.budget_s = (double)r->time_budget_s, .elapsed_s = elapsed_of(o, wall_now()),
                      .jobs = jobs, .generation = g, .ngen = GENERATIONS,
                      .top = pf_method_is_baseline(r->method) ? 0 : PF_RUN_TOP,
                      .hifi_share = PF_TIME_BUDGET_HIFI_SHARE};
    for (int h = 0; h < GENERATIONS; h++) p.slots[h] = pf_run_slots(r->method, h);
    char prefix[16];
    if (g == PF_RUN_HIFI) snprintf(prefix, sizeof prefix, "hifi/");
    else snprintf(prefix, sizeof prefix, "gen%02d/", g);
    const char *key;
    json_t *e;
    json_object_foreach(json_object_get(o, "trainings"), key, e)
        if (!strncmp(key, prefix, strlen(prefix)) && json_is_integer(json_object_get(e, "steps"))) p.done++;
    return p;
}

/* A training's time outside its steps (set-up, the final evaluation, the
 * physics check): the mean of the finished trainings' at the same fidelity
 * (the high-fidelity stage or not), else of all; 0 before any. */
static double overhead_of(const json_t *trainings, bool hifi)
{
    double sum[2] = {0, 0};
    int n[2] = {0, 0};
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)trainings, key, e) {
        double other = num_of(e, "wall_s") - num_of(e, "step_s");
        if (!(other >= 0)) continue;
        int same = hifi == !strncmp(key, "hifi/", 5);
        sum[same] += other, n[same]++;
    }
    return n[1] ? sum[1] / n[1] : n[0] ? sum[0] / n[0] : 0;
}

typedef struct grant_job {
    int g, k, jobs;
    const char *hash;
    double work, predicted_s;
    pf_time_grant *out;
} grant_job;

static pf_status grant(const pf_run *r, json_t *o, void *user)
{
    grant_job *j = user;
    json_t *tr = json_object_get(o, "trainings");
    char key[32];
    key_of(j->g, j->k, key, sizeof key);
    json_t *e = json_object_get(tr, key);
    const char *h = json_string_value(json_object_get(e, "spec_hash"));
    bool same = h && !strcmp(h, j->hash);
    pf_time_grant *out = j->out;
    *out = (pf_time_grant){0};
    if (same && json_is_integer(json_object_get(e, "steps"))) { /* trained before: the same steps */
        out->replay = true;
        if (json_is_true(json_object_get(e, "time_limited")))
            out->step_limit = (long)json_integer_value(json_object_get(e, "steps"));
        return PF_OK;
    }
    if (same && num_of(e, "limit_s") > 0) { /* killed mid-training: the limit it had */
        out->limit_s = num_of(e, "limit_s");
        return PF_OK;
    }
    json_object_set_new(o, "jobs", json_integer(j->jobs));
    pf_time_plan p = plan_of(r, o, j->g, j->jobs);
    out->limit_s = pf_time_budget_limit(&p) - overhead_of(tr, j->g == PF_RUN_HIFI);
    if (out->limit_s < PF_TIME_BUDGET_MIN_S) out->limit_s = PF_TIME_BUDGET_MIN_S;
    e = json_object();
    json_object_set_new(e, "spec_hash", json_string(j->hash));
    json_object_set_new(e, "limit_s", json_real(out->limit_s));
    json_object_set_new(e, "predicted_s", json_real(j->predicted_s));
    json_object_set_new(e, "work", json_real(j->work));
    json_object_set_new(e, "elapsed_at_start_s", json_real(p.elapsed_s));
    json_object_set_new(tr, key, e);
    return PF_OK;
}

pf_status pf_time_budget_grant(const pf_run *r, int g, int k, const char *spec_hash, double work, double predicted_s,
                               int jobs, pf_time_grant *out)
{
    memset(out, 0, sizeof *out);
    if (r->time_budget_s <= 0) return PF_OK;
    grant_job j = {.g = g, .k = k, .jobs = jobs > 0 ? jobs : 1, .hash = spec_hash, .work = work,
                   .predicted_s = predicted_s, .out = out};
    return update(r, grant, &j);
}

pf_status pf_time_budget_apply(const pf_run *r, int g, int k, const char *spec_hash, double work, double predicted_s,
                               int jobs, pf_train_options *to, char *say, size_t cap)
{
    if (cap) say[0] = '\0';
    pf_time_grant gr;
    PF_TRY(pf_time_budget_grant(r, g, k, spec_hash, work, predicted_s, jobs, &gr));
    if (r->time_budget_s <= 0) return PF_OK;
    if (gr.limit_s > 0) to->time_limit_s = gr.limit_s;
    to->step_limit = gr.step_limit;
    size_t n = 0;
    int w = snprintf(say, cap, "time budget: %s; predicted %.1f s\n", gr.step_limit ? "the steps it stopped at before"
                     : gr.replay ? "no limit (it finished before)" : "a limit", predicted_s);
    n = w > 0 && (size_t)w < cap ? (size_t)w : cap;
    if (gr.limit_s > 0 && n < cap) n += (size_t)snprintf(say + n, cap - n, "time limit %.1f s\n", gr.limit_s);
    if (gr.step_limit > 0 && n < cap) snprintf(say + n, cap - n, "step limit %ld\n", gr.step_limit);
    return PF_OK;
}

typedef struct record_job {
    int g, k;
    const pf_train_result *res;
} record_job;

static pf_status record(const pf_run *r, json_t *o, void *user)
{
    (void)r;
    record_job *j = user;
    char key[32];
    key_of(j->g, j->k, key, sizeof key);
    json_t *e = json_object_get(json_object_get(o, "trainings"), key);
    if (!e) return pf_fail(PF_ERR_INVALID, "%s/" PF_TIME_BUDGET_FILE ": no entry for %s (its grant is missing)", r->dir, key);
    json_object_set_new(e, "steps", json_integer(j->res->steps));
    json_object_set_new(e, "time_limited", json_boolean(j->res->time_limited));
    json_object_set_new(e, "wall_s", json_real(j->res->wall_s));
    json_object_set_new(e, "step_s", json_real(j->res->step_s));
    return PF_OK;
}

pf_status pf_time_budget_record(const pf_run *r, int g, int k, const pf_train_result *res)
{
    if (r->time_budget_s <= 0) return PF_OK;
    record_job j = {.g = g, .k = k, .res = res};
    return update(r, record, &j);
}

typedef struct prompt_job {
    int g;
    char *buf;
    size_t cap;
} prompt_job;

static pf_status prompt(const pf_run *r, json_t *o, void *user)
{
    prompt_job *j = user;
    char key[16];
    snprintf(key, sizeof key, "gen%02d", j->g);
    json_t *ps = json_object_get(o, "prompts");
    if (!json_is_object(ps)) json_object_set_new(o, "prompts", ps = json_object());
    const char *had = json_string_value(json_object_get(ps, key));
    if (had) {
        snprintf(j->buf, j->cap, "%s", had);
        return PF_OK;
    }
    long jobs = (long)json_integer_value(json_object_get(o, "jobs"));
    pf_time_plan p = plan_of(r, o, j->g, jobs > 0 ? (int)jobs : 1);
    p.done = 0;
    pf_cost_model m = model_of(json_object_get(o, "trainings"));
    pf_cost_prompt_line(&m, p.budget_s - p.elapsed_s, pf_time_budget_limit(&p), j->buf, j->cap);
    json_object_set_new(ps, key, json_string(j->buf));
    return PF_OK;
}

pf_status pf_time_budget_prompt(const pf_run *r, int g, char *buf, size_t cap)
{
    if (cap) buf[0] = '\0';
    if (r->time_budget_s <= 0) return PF_OK;
    prompt_job j = {.g = g, .buf = buf, .cap = cap};
    return update(r, prompt, &j);
}

pf_status pf_time_budget_summary(const pf_run *r, json_t **out)
{
    *out = NULL;
    if (r->time_budget_s <= 0) return PF_OK;
    json_t *o;
    PF_TRY(pf_time_budget_read(r->dir, &o));
    if (!o) return pf_fail(PF_ERR_IO, "%s/" PF_TIME_BUDGET_FILE " is missing: the run has a time budget (pf-context "
                                      "starts that file)", r->dir);
    json_t *s = json_object(), *tr = json_object();
    bool bound = false;
    const char *key;
    json_t *e;
    json_object_foreach(json_object_get(o, "trainings"), key, e) {
        json_t *t = json_object();
        static const char *const keys[] = {"limit_s", "steps", "time_limited", "predicted_s", "wall_s"};
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
            if (json_object_get(e, keys[i])) json_object_set(t, keys[i], json_object_get(e, keys[i]));
        bound |= json_is_true(json_object_get(e, "time_limited"));
        json_object_set_new(tr, key, t);
    }
    json_object_set_new(s, "budget_s", json_integer(r->time_budget_s));
    json_object_set_new(s, "used_s", json_real(elapsed_of(o, wall_now())));
    json_object_set_new(s, "budget_bound", json_boolean(bound));
    json_object_set_new(s, "jobs", json_incref(json_object_get(o, "jobs")));
    json_object_set_new(s, "trainings", tr);
    json_decref(o);
    *out = s;
    return PF_OK;
}

typedef struct stop_job {
    int g;
    bool *stop;
    char *why;
    size_t cap;
} stop_job;

static pf_status stop_rule(const pf_run *r, json_t *o, void *user)
{
    stop_job *j = user;
    const json_t *at = json_object_get(o, "stopped_after");
    if (json_is_integer(at) || json_is_true(json_object_get(o, "replay"))) { /* the record decides */
        *j->stop = json_is_integer(at) && json_integer_value(at) == j->g;
    } else {
        double share = pf_method_is_baseline(r->method) ? 0 : PF_TIME_BUDGET_HIFI_SHARE;
        double elapsed = elapsed_of(o, wall_now());
        double left = (1 - share) * (double)r->time_budget_s - elapsed;
        *j->stop = left < PF_TIME_BUDGET_STOP_FRACTION * elapsed / (j->g + 1);
        if (*j->stop) json_object_set_new(o, "stopped_after", json_integer(j->g));
    }
    if (*j->stop)
        snprintf(j->why, j->cap, "the time budget's low-fidelity share (%.0f s) is spent after generation %d: stop",
                 (1 - (pf_method_is_baseline(r->method) ? 0 : PF_TIME_BUDGET_HIFI_SHARE)) * (double)r->time_budget_s,
                 j->g);
    return PF_OK;
}

pf_status pf_time_budget_stop(const pf_run *r, int g, bool *stop, char *why, size_t cap)
{
    *stop = false;
    if (cap) why[0] = '\0';
    if (r->time_budget_s <= 0) return PF_OK;
    stop_job j = {.g = g, .stop = stop, .why = why, .cap = cap};
    return update(r, stop_rule, &j);
}
