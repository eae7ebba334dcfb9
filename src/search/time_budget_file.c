/* time_budget_file.c — RUN/time_budget.json (time_budget_file.h). */
#include "search/time_budget_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    *out = o;
    return PF_OK;
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
    json_t *o = json_object();
    json_object_set_new(o, "time_budget_s", json_integer(budget_s));
    json_object_set_new(o, "started_at", json_real(wall_now()));
    json_object_set_new(o, "jobs", json_integer(1));
    json_object_set_new(o, "trainings", json_object());
    json_object_set_new(o, "prompts", json_object());
    return o;
}

pf_status pf_time_budget_start(const char *dir, long budget_s, bool restart, bool keep)
{
    char path[4200];
    PF_TRY(file_path(dir, path, sizeof path));
    if (budget_s <= 0) {
        if (unlink(path) != 0 && errno != ENOENT) return pf_fail(PF_ERR_IO, "cannot remove '%s': %s", path, strerror(errno));
        return PF_OK;
    }
    json_t *old = NULL;
    if (pf_time_budget_read(dir, &old) != PF_OK) old = NULL; /* unreadable: start again */
    bool same = old && json_integer_value(json_object_get(old, "time_budget_s")) == budget_s;
    if (same && !restart) {
        json_decref(old);
        return PF_OK;
    }
    json_t *o = fresh(budget_s);
    if (old && keep) {
        json_object_set_new(o, "replay", json_true()); /* decisions come from the record only */
        if (json_object_get(old, "stopped_after")) json_object_set(o, "stopped_after", json_object_get(old, "stopped_after"));
        json_object_set(o, "trainings", json_object_get(old, "trainings"));
        if (json_is_object(json_object_get(old, "prompts"))) json_object_set(o, "prompts", json_object_get(old, "prompts"));
    }
    json_decref(old);
    pf_status st = write_file(dir, o);
    json_decref(o);
    return st;
}

/* Run fn(o, user) on the file's JSON under its lock and write it back when
 * fn asks (*write); a missing file is a fresh one (the clock starts now). */
typedef pf_status (*update_fn)(const pf_run *r, json_t *o, void *user, bool *write);

static pf_status update(const pf_run *r, update_fn fn, void *user)
{
    int fd;
    PF_TRY(pf_lock_open_named(r->dir, LOCK_NAME, &fd));
    pf_status st = pf_lock_wait(fd);
    json_t *o = NULL;
    if (st == PF_OK) st = pf_time_budget_read(r->dir, &o);
    if (st == PF_OK && !o) o = fresh(r->time_budget_s);
    bool write = false;
    if (st == PF_OK) st = fn(r, o, user, &write);
    if (st == PF_OK && write) st = write_file(r->dir, o);
    json_decref(o);
    close(fd);
    return st;
}

static void key_of(int g, int k, char *buf, size_t cap)
{
    if (g == PF_RUN_HIFI) snprintf(buf, cap, "hifi/top%d", k);
    else snprintf(buf, cap, "gen%02d/cand%d", g, k);
}

static double num_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
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
    pf_time_plan p = {.budget_s = (double)r->time_budget_s, .elapsed_s = wall_now() - num_of(o, "started_at"),
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

static pf_status grant(const pf_run *r, json_t *o, void *user, bool *write)
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
    *write = true;
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

static pf_status record(const pf_run *r, json_t *o, void *user, bool *write)
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
    *write = true;
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

static pf_status prompt(const pf_run *r, json_t *o, void *user, bool *write)
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
    *write = true;
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
    json_object_set_new(s, "used_s", json_real(wall_now() - num_of(o, "started_at")));
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

static pf_status stop_rule(const pf_run *r, json_t *o, void *user, bool *write)
{
    stop_job *j = user;
    const json_t *at = json_object_get(o, "stopped_after");
    if (json_is_integer(at) || json_is_true(json_object_get(o, "replay"))) { /* the record decides */
        *j->stop = json_is_integer(at) && json_integer_value(at) == j->g;
    } else {
        double share = pf_method_is_baseline(r->method) ? 0 : PF_TIME_BUDGET_HIFI_SHARE;
        double elapsed = wall_now() - num_of(o, "started_at");
        double left = (1 - share) * (double)r->time_budget_s - elapsed;
        *j->stop = left < PF_TIME_BUDGET_STOP_FRACTION * elapsed / (j->g + 1);
        if (*j->stop) json_object_set_new(o, "stopped_after", json_integer(j->g)), *write = true;
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
