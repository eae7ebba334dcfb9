/* train_order.c — predictions and the longest-first plan (train_order.h). */
#include "search/train_order.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/lock.h"
#include "llm/method.h"
#include "search/artifact.h"
#include "search/launch_record.h"
#include "spec/spec.h"

#define MAX_TRAININGS ((PF_RUN_MAX_GENERATION + 1) * PF_RUN_MAX_SLOTS)

static int before(const double *p, int a, int b) /* slot a starts before slot b */
{
    bool na = !isfinite(p[a]), nb = !isfinite(p[b]);
    if (na != nb) return nb;
    if (!na && p[a] != p[b]) return p[a] > p[b];
    return a < b;
}

void pf_train_order(const double *predicted_s, int n, int *order)
{
    for (int i = 0; i < n; i++) { /* insertion sort: a handful of slots */
        int k = i, j = i;
        for (; j > 0 && before(predicted_s, k, order[j - 1]); j--) order[j] = order[j - 1];
        order[j] = k;
    }
}

static const char *pf_or(const char *s, const char *dflt) { return s ? s : dflt; }

static double num_at(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

pf_status pf_cost_calibrate(const pf_run *r, int g, pf_cost_model *m)
{
    double *w = calloc(MAX_TRAININGS, sizeof *w), *t = calloc(MAX_TRAININGS, sizeof *t);
    pf_status st = w && t ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    int n = 0, last = g == PF_RUN_HIFI ? PF_RUN_MAX_GENERATION : g - 1;
    char path[4200];
    for (int h = 0; h <= last && st == PF_OK; h++) {
        st = pf_run_path(r->dir, PF_RUN_GENERATION, h, 0, path, sizeof path);
        if (st != PF_OK || access(path, F_OK) != 0) break; /* the generations are made in order */
        for (int k = 0; k < pf_run_slots(r->method, h) && st == PF_OK; k++) {
            st = pf_run_path(r->dir, PF_RUN_EVIDENCE, h, k, path, sizeof path);
            pf_evidence_file f;
            if (st != PF_OK || access(path, F_OK) != 0 || (st = pf_evidence_file_read(path, &f)) != PF_OK) continue;
            const json_t *time = json_object_get(f.evidence, "time");
            double work = num_at(time, "work"), steps_s = num_at(time, "steps_s");
            if (work > 0 && steps_s > 0 && f.steps > 0) w[n] = work, t[n++] = steps_s / (double)f.steps;
            pf_evidence_file_release(&f);
        }
    }
    if (st == PF_OK) *m = pf_cost_fit(w, t, n);
    free(w), free(t);
    return st;
}

pf_train_prediction pf_cost_prediction_of(const pf_cost_model *m, const pf_pde *p, const pf_model_config *mc,
                                          const pf_train_config *tc)
{
    double work = pf_cost_work((double)pf_model_config_nparams(mc), (double)pf_train_config_points(tc),
                               pf_cost_streams(p->orders, p->d_in));
    long steps = pf_train_config_steps(tc);
    return (pf_train_prediction){.work = work, .step_s = pf_cost_predict(m, work, 1),
                                 .total_s = pf_cost_predict(m, work, steps), .c = m->c, .overhead_s = m->overhead_s,
                                 .trainings = m->n};
}

/* The cost model group g's plan recorded (*found false when there is no plan). */
static pf_status plan_model(const pf_run *r, int g, pf_cost_model *m, bool *found)
{
    char path[4200], *text;
    size_t len;
    *found = false;
    PF_TRY(pf_run_path(r->dir, PF_RUN_PLAN, g, 0, path, sizeof path));
    if (access(path, F_OK) != 0) return PF_OK;
    PF_TRY(pf_file_read_as(path, PF_FILE_SETTINGS, &text, &len));
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL), *cm = json_object_get(o, "cost_model");
    free(text);
    double c = num_at(cm, "c"), oh = num_at(cm, "overhead_s");
    json_t *n = json_object_get(cm, "trainings");
    if ((*found = c > 0 && oh >= 0 && json_is_integer(n)))
        *m = (pf_cost_model){.c = c, .overhead_s = oh, .n = (int)json_integer_value(n)};
    json_decref(o);
    return *found ? PF_OK : pf_fail(PF_ERR_INVALID, "'%s' has no cost_model {c, overhead_s, trainings}", path);
}

pf_status pf_cost_predict_training(const pf_run *r, int g, const pf_pde *p, const pf_model_config *mc,
                                   const pf_train_config *tc, pf_train_prediction *out)
{
    pf_cost_model m = pf_cost_fit(NULL, NULL, 0);
    bool planned = false;
    if (r) PF_TRY(plan_model(r, g, &m, &planned));
    if (r && !planned) PF_TRY(pf_cost_calibrate(r, g, &m));
    *out = pf_cost_prediction_of(&m, p, mc, tc);
    return PF_OK;
}

/* Slot k's entry of group g's plan (without its rank) and its prediction. */
static pf_status slot_entry(const pf_run *r, int g, int k, const pf_cost_model *m, json_t *e, double *predicted_s)
{
    pf_run_training t;
    PF_TRY(pf_run_training_of(r, g, k, &t));
    pf_training_input in;
    PF_TRY(pf_training_input_read(t.proposal, r->pde->name, &in));
    json_object_set_new(e, "slot", json_integer(k));
    *predicted_s = 0;
    if (in.untrained) {
        json_object_set_new(e, "predicted_s", json_real(0));
        json_object_set_new(e, "untrained", json_string(in.untrained));
        pf_training_input_release(&in);
        return PF_OK;
    }
    json_t *norm = NULL;
    char hash[PF_SPEC_HASH_HEX];
    pf_model_config mc;
    pf_train_config tc;
    bool scaled;
    pf_spec_report *rep = calloc(1, sizeof *rep);
    pf_status st = rep ? pf_spec_load(in.spec, r->pde, r->budget, t.fidelity, &norm, hash, &mc, &tc, &scaled, rep)
                       : pf_fail(PF_ERR_NOMEM, "out of memory");
    if (st != PF_OK && rep && rep->n)
        st = pf_fail(PF_ERR_INVALID, "'%s': the spec is invalid for %s: %s", t.proposal, r->pde->name, rep->reason[0]);
    free(rep);
    json_decref(norm);
    pf_training_input_release(&in);
    PF_TRY(st);
    pf_train_prediction pr = pf_cost_prediction_of(m, r->pde, &mc, &tc);
    *predicted_s = pr.total_s;
    json_object_set_new(e, "predicted_s", json_real(pr.total_s));
    json_object_set_new(e, "predicted_step_s", json_real(pr.step_s));
    json_object_set_new(e, "work", json_real(pr.work));
    json_object_set_new(e, "steps", json_integer(pf_train_config_steps(&tc)));
    return PF_OK;
}

static void slot_name(int g, int k, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%d", g == PF_RUN_HIFI ? "top" : "cand", k);
}

pf_status pf_train_plan_write(const pf_run *r, int g, char *say, size_t cap)
{
    int n = pf_run_group_slots(r, g);
    if (n <= 0 || n > PF_RUN_MAX_SLOTS)
        return pf_fail(PF_ERR_INVALID, "a run of %s has no trainings in generation %d", pf_method_name(r->method), g);
    pf_cost_model m;
    PF_TRY(pf_cost_calibrate(r, g, &m));
    json_t *e[PF_RUN_MAX_SLOTS] = {0};
    double pred[PF_RUN_MAX_SLOTS];
    pf_status st = PF_OK;
    for (int k = 0; k < n && st == PF_OK; k++)
        st = (e[k] = json_object()) ? slot_entry(r, g, k, &m, e[k], &pred[k]) : pf_fail(PF_ERR_NOMEM, "out of memory");
    int order[PF_RUN_MAX_SLOTS];
    json_t *o = json_object(), *model = json_object(), *list = json_array();
    if (st == PF_OK && !(o && model && list)) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    if (st == PF_OK) {
        pf_train_order(pred, n, order);
        json_object_set_new(o, "format", json_string(PF_TRAIN_PLAN_FORMAT));
        json_object_set_new(o, "version", json_integer(PF_TRAIN_PLAN_VERSION));
        json_object_set_new(o, "generation", g == PF_RUN_HIFI ? json_string("hifi") : json_integer(g));
        json_object_set_new(model, "c", json_real(m.c));
        json_object_set_new(model, "overhead_s", json_real(m.overhead_s));
        json_object_set_new(model, "trainings", json_integer(m.n));
        json_object_set(o, "cost_model", model);
        size_t at = cap ? (size_t)snprintf(say, cap, "longest first:") : 0;
        for (int i = 0; i < n; i++) {
            json_t *x = json_object();
            json_object_set_new(x, "rank", json_integer(i));
            json_object_update(x, e[order[i]]); /* e's keys in their order after "rank" */
            json_array_append_new(list, x);
            char name[16];
            slot_name(g, order[i], name, sizeof name);
            if (at < cap) at += (size_t)snprintf(say + at, cap - at, "%s %s %.3g s", i ? "," : "", name, pred[order[i]]);
        }
        if (at < cap) snprintf(say + at, cap - at, " (cost model of %d training%s)", m.n, m.n == 1 ? "" : "s");
        json_object_set(o, "order", list);
    }
    char path[4200];
    if (st == PF_OK) st = pf_run_path(r->dir, PF_RUN_PLAN, g, 0, path, sizeof path);
    char *text = st == PF_OK ? json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(1)) : NULL;
    if (st == PF_OK && !text) st = pf_fail(PF_ERR_NOMEM, "out of memory");
    if (st == PF_OK) st = pf_file_write_atomic(path, text, strlen(text));
    free(text);
    for (int k = 0; k < n; k++) json_decref(e[k]);
    json_decref(o), json_decref(model), json_decref(list);
    return st;
}

pf_status pf_train_plan_slot(const pf_run *r, int g, int rank, int *slot)
{
    char path[4200], *text;
    size_t len;
    PF_TRY(pf_run_path(r->dir, PF_RUN_PLAN, g, 0, path, sizeof path));
    PF_TRY(pf_file_read_as(path, PF_FILE_SETTINGS, &text, &len));
    json_error_t err;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    const json_t *x = json_array_get(json_object_get(o, "order"), (size_t)rank);
    const json_t *k = json_object_get(x, "slot"), *at = json_object_get(x, "rank");
    int n = pf_run_group_slots(r, g);
    pf_status st = PF_OK;
    if (!o) st = pf_fail(PF_ERR_INVALID, "'%s' is not JSON: %s (line %d)", path, err.text, err.line);
    else if (strcmp(pf_or(json_string_value(json_object_get(o, "format")), ""), PF_TRAIN_PLAN_FORMAT) ||
             json_integer_value(json_object_get(o, "version")) != PF_TRAIN_PLAN_VERSION)
        st = pf_fail(PF_ERR_INVALID, "'%s' is not a plan (format %s, version %d)", path, PF_TRAIN_PLAN_FORMAT,
                     PF_TRAIN_PLAN_VERSION);
    else if (rank < 0 || !json_is_integer(k) || !json_is_integer(at) || json_integer_value(at) != rank ||
             json_integer_value(k) < 0 || json_integer_value(k) >= n)
        st = pf_fail(PF_ERR_INVALID, "'%s' has no rank %d with a slot in 0..%d", path, rank, n - 1);
    else *slot = (int)json_integer_value(k);
    json_decref(o);
    return st;
}

static pf_status mtime_of(const char *path, bool need, struct timespec *t, bool *exists)
{
    struct stat sb;
    *exists = stat(path, &sb) == 0;
    if (*exists) *t = sb.st_mtim;
    else if (errno != ENOENT || need) return pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    return PF_OK;
}

pf_status pf_training_stale(const pf_run *r, int g, int k, bool *stale)
{
    pf_run_training t;
    PF_TRY(pf_run_training_of(r, g, k, &t));
    char path[4200];
    struct timespec prop = {0}, out = {0};
    bool exists;
    PF_TRY(mtime_of(t.proposal, true, &prop, &exists));
    *stale = false;
    for (int i = 0; i < 2 && !*stale; i++) {
        PF_TRY(pf_run_path(r->dir, i ? PF_RUN_RESULT : PF_RUN_EVIDENCE, g, k, path, sizeof path));
        PF_TRY(mtime_of(path, false, &out, &exists));
        *stale = !exists || prop.tv_sec > out.tv_sec || (prop.tv_sec == out.tv_sec && prop.tv_nsec > out.tv_nsec);
    }
    return PF_OK;
}

pf_status pf_training_lock_open(const pf_run *r, int g, int k, int *fd)
{
    pf_run_training t;
    PF_TRY(pf_run_training_of(r, g, k, &t));
    return pf_lock_open_named(t.out, PF_TRAIN_LOCK_FILE, fd);
}

pf_status pf_training_failed_at(const pf_run *r, int g, int k, long *epoch)
{
    *epoch = 0;
    pf_run_training t;
    PF_TRY(pf_run_training_of(r, g, k, &t));
    pf_launch_record l = pf_launch_record_read(t.out);
    if (l.state == PF_LAUNCH_FAILED) *epoch = l.failed_at;
    return PF_OK;
}
