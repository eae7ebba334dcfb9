/* artifact_select.c — genGG/select.msgpack (artifact.h): the controller's
 * state after a generation written as a map, and read back with its
 * statistics and Top-3 recomputed by the controller (select.h) and checked
 * against the stored ones. Errors read "select: KEY ...". */
#include "search/artifact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/msgpack_json.h"
#include "search/artifact_internal.h"

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *v)
{
    return v ? json_string(v) : json_null();
}

static json_t *series(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, num_or_null(v[i]));
    return a;
}

pf_status pf_select_to_json(const pf_select *s, json_t **out)
{
    int G = s->generation + 1;
    json_t *o = json_object();
    json_object_set_new(o, "format", json_string("pinnforge.select"));
    json_object_set_new(o, "version", json_integer(1));
    json_object_set_new(o, "pde", str_or_null(s->pde));
    json_object_set_new(o, "method", str_or_null(s->method));
    json_object_set_new(o, "generation", json_integer(s->generation));
    json_object_set_new(o, "max_generations", json_integer(s->max_generations));
    json_t *h = json_array();
    for (int i = 0; i < s->ncand; i++) {
        const pf_candidate *c = &s->cand[i];
        json_t *e = json_object();
        json_object_set_new(e, "generation", json_integer(c->generation));
        json_object_set_new(e, "index", json_integer(c->index));
        json_object_set_new(e, "slot", json_string(c->slot));
        json_object_set_new(e, "spec_hash", c->valid ? json_string(c->spec_hash) : json_null());
        json_object_set_new(e, "valid", json_boolean(c->valid));
        json_object_set_new(e, "status", json_string(pf_candidate_status_name(c->status)));
        json_object_set_new(e, "y", c->has_y ? num_or_null(c->y) : json_null());
        json_object_set_new(e, "ranked", json_boolean(pf_candidate_ranked(c)));
        json_array_append_new(h, e);
    }
    json_object_set_new(o, "history", h);
    json_t *t = json_array();
    for (int k = 0; k < s->ntop3; k++) {
        const pf_candidate *c = &s->cand[s->top3[k]];
        json_t *e = json_object();
        json_object_set_new(e, "spec_hash", json_string(c->spec_hash));
        json_object_set_new(e, "y", json_real(c->y));
        json_object_set_new(e, "generation", json_integer(c->generation));
        json_object_set_new(e, "index", json_integer(c->index));
        json_object_set_new(e, "slot", json_string(c->slot));
        json_object_set_new(e, "spec", c->spec ? json_incref(c->spec) : json_null());
        json_object_set_new(e, "evidence", c->evidence ? json_incref(c->evidence) : json_null());
        json_array_append_new(t, e);
    }
    json_object_set_new(o, "top3", t);
    json_object_set_new(o, "b", series(s->b, G));
    json_object_set_new(o, "B", series(s->B, G));
    json_object_set_new(o, "m", series(s->m, G));
    json_object_set_new(o, "A", series(s->A, G));
    json_t *ne = json_array();
    for (int g = 0; g < G; g++) json_array_append_new(ne, json_boolean(s->new_elite[g]));
    json_object_set_new(o, "new_elite", ne);
    json_object_set_new(o, "state",
                        json_pack("{s:i, s:i, s:i, s:o, s:o}", "window_start", s->state.window_start,
                                  "escape_generation", s->state.escape_generation, "stall_generation",
                                  s->state.stall_generation, "B_stall", num_or_null(s->state.B_stall), "A_stall",
                                  num_or_null(s->state.A_stall)));
    json_object_set_new(o, "stagnation",
                        json_pack("{s:b, s:b, s:b}", "global_best", s->tests.global_best, "elite_archive",
                                  s->tests.elite_archive, "population", s->tests.population));
    json_object_set_new(o, "escape_result",
                        s->has_escape ? json_pack("{s:b, s:b, s:b, s:b}", "new_best", s->escape.new_best,
                                                  "new_elite", s->escape.new_elite, "archive_improved",
                                                  s->escape.archive_improved, "success", s->escape.success)
                                      : json_null());
    json_object_set_new(o, "next", json_string(pf_select_next_name(s->next)));
    json_object_set_new(o, "reason", json_string(s->reason));
    json_object_set_new(o, "cause", json_string(s->cause));
    if (s->skipped) {
        json_object_set_new(o, "skipped", json_true());
        json_object_set_new(o, "skipped_generation", json_integer(s->skipped_generation));
    }
    if (json_object_size(o) != (s->skipped ? 21u : 19u)) { /* a json_pack or allocation failed: its key is missing */
        json_decref(o);
        return pf_fail(PF_ERR_NOMEM, "out of memory building select.msgpack");
    }
    *out = o;
    return PF_OK;
}

/* --- parsing helpers: each fails with "select: KEY ..." */

static pf_status get_int(const json_t *o, const char *key, const char *where, int *v)
{
    long x;
    if (!pf_json_int(json_object_get(o, key), -1, 1000000, &x))
        return pf_fail(PF_ERR_INVALID, "select: %s%s needs an integer in -1..1000000", where, key);
    *v = (int)x;
    return PF_OK;
}

static pf_status get_bool(const json_t *o, const char *key, const char *where, bool *v)
{
    const json_t *x = json_object_get(o, key);
    if (!json_is_boolean(x)) return pf_fail(PF_ERR_INVALID, "select: %s%s needs a boolean", where, key);
    *v = json_is_true(x);
    return PF_OK;
}

/* a number, or null -> dflt */
static pf_status get_num(const json_t *o, const char *key, const char *where, double dflt, double *v)
{
    const json_t *x = json_object_get(o, key);
    if (json_is_null(x)) *v = dflt;
    else if (json_is_number(x)) *v = json_number_value(x);
    else return pf_fail(PF_ERR_INVALID, "select: %s%s needs a number or null", where, key);
    return PF_OK;
}

static pf_status get_str(const json_t *o, const char *key, const char *where, bool nullable, const char **v)
{
    const json_t *x = json_object_get(o, key);
    if (nullable && json_is_null(x)) *v = NULL;
    else if (json_is_string(x)) *v = json_string_value(x);
    else return pf_fail(PF_ERR_INVALID, "select: %s%s needs a string", where, key);
    return PF_OK;
}

static pf_status parse_cand(const json_t *e, int i, pf_candidate *c)
{
    char where[48];
    snprintf(where, sizeof where, "history[%d].", i);
    if (!json_is_object(e)) return pf_fail(PF_ERR_INVALID, "select: history[%d] is not an object", i);
    memset(c, 0, sizeof *c);
    PF_TRY(get_int(e, "generation", where, &c->generation));
    PF_TRY(get_int(e, "index", where, &c->index));
    PF_TRY(get_bool(e, "valid", where, &c->valid));
    const char *slot = NULL, *hash = NULL, *status = NULL;
    PF_TRY(get_str(e, "slot", where, false, &slot));
    PF_TRY(get_str(e, "spec_hash", where, !c->valid, &hash));
    PF_TRY(get_str(e, "status", where, false, &status));
    if (strlen(slot) >= sizeof c->slot) return pf_fail(PF_ERR_INVALID, "select: %sslot is too long", where);
    snprintf(c->slot, sizeof c->slot, "%s", slot);
    if (hash) {
        if (!pf_artifact_is_hash(hash)) return pf_fail(PF_ERR_INVALID, "select: %sspec_hash is not 64 hex digits", where);
        snprintf(c->spec_hash, sizeof c->spec_hash, "%s", hash);
    }
    int stt = pf_candidate_status_lookup(status);
    if (stt < 0) return pf_fail(PF_ERR_INVALID, "select: %sstatus '%s' is unknown", where, status);
    c->status = (pf_candidate_status)stt;
    PF_TRY(get_num(e, "y", where, NAN, &c->y));
    c->has_y = !isnan(c->y);
    return PF_OK;
}

static pf_status check_series(const json_t *doc, const char *key, const double *v, int G)
{
    const json_t *a = json_object_get(doc, key);
    if (!json_is_array(a) || (int)json_array_size(a) != G)
        return pf_fail(PF_ERR_INVALID, "select: %s needs %d entries", key, G);
    for (int g = 0; g < G; g++) {
        const json_t *x = json_array_get(a, (size_t)g);
        bool ok = json_is_null(x) ? !isfinite(v[g]) : json_is_number(x) && json_number_value(x) == v[g];
        if (!ok) return pf_fail(PF_ERR_INVALID, "select: %s[%d] disagrees with the history", key, g);
    }
    return PF_OK;
}

static pf_status parse_into(const json_t *doc, pf_select *s)
{
    if (!json_is_object(doc)) return pf_fail(PF_ERR_INVALID, "select: not an object");
    const char *fmt = NULL;
    PF_TRY(get_str(doc, "format", "", false, &fmt));
    if (strcmp(fmt, "pinnforge.select"))
        return pf_fail(PF_ERR_INVALID, "select: format is '%s', not 'pinnforge.select'", fmt);
    int version = 0;
    PF_TRY(get_int(doc, "version", "", &version));
    if (version != 1) return pf_fail(PF_ERR_INVALID, "select: version %d is not supported (1 is)", version);
    const char *pde = NULL, *method = NULL;
    PF_TRY(get_str(doc, "pde", "", true, &pde));
    PF_TRY(get_str(doc, "method", "", true, &method));
    s->pde = pde ? strdup(pde) : NULL;
    s->method = method ? strdup(method) : NULL;
    PF_TRY(get_int(doc, "generation", "", &s->generation));
    PF_TRY(get_int(doc, "max_generations", "", &s->max_generations));
    if (s->generation < 0 || s->max_generations < 1 || s->generation >= s->max_generations)
        return pf_fail(PF_ERR_INVALID, "select: generation %d does not fit max_generations %d", s->generation,
                       s->max_generations);
    const json_t *h = json_object_get(doc, "history");
    if (!json_is_array(h)) return pf_fail(PF_ERR_INVALID, "select: history needs an array");
    s->cand = calloc(json_array_size(h) + 1, sizeof *s->cand);
    if (!s->cand) return pf_fail(PF_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < json_array_size(h); i++) {
        pf_candidate c;
        PF_TRY(parse_cand(json_array_get(h, i), (int)i, &c));
        if (c.generation < 0 || c.generation > s->generation)
            return pf_fail(PF_ERR_INVALID, "select: history[%zu] is of generation %d, past %d", i, c.generation,
                           s->generation);
        PF_TRY(pf_select_check_candidate(&c, c.generation, "select"));
        if (s->ncand > 0) {
            const pf_candidate *p = &s->cand[s->ncand - 1];
            if (p->generation > c.generation || (p->generation == c.generation && p->index >= c.index))
                return pf_fail(PF_ERR_INVALID, "select: history[%zu] is out of (generation, index) order", i);
        }
        bool ranked = false;
        PF_TRY(get_bool(json_array_get(h, i), "ranked", "history[].", &ranked));
        if (ranked != pf_candidate_ranked(&c))
            return pf_fail(PF_ERR_INVALID, "select: history[%zu].ranked disagrees with its fields", i);
        pf_select_append(s, &c);
    }
    PF_TRY(pf_select_recompute(s));
    int G = s->generation + 1;
    PF_TRY(check_series(doc, "b", s->b, G));
    PF_TRY(check_series(doc, "B", s->B, G));
    PF_TRY(check_series(doc, "m", s->m, G));
    PF_TRY(check_series(doc, "A", s->A, G));
    const json_t *ne = json_object_get(doc, "new_elite");
    if (!json_is_array(ne) || (int)json_array_size(ne) != G)
        return pf_fail(PF_ERR_INVALID, "select: new_elite needs %d entries", G);
    for (int g = 0; g < G; g++)
        if (!json_is_boolean(json_array_get(ne, (size_t)g)) ||
            json_is_true(json_array_get(ne, (size_t)g)) != s->new_elite[g])
            return pf_fail(PF_ERR_INVALID, "select: new_elite[%d] disagrees with the history", g);
    const json_t *t = json_object_get(doc, "top3");
    if (!json_is_array(t) || (int)json_array_size(t) != s->ntop3)
        return pf_fail(PF_ERR_INVALID, "select: top3 needs %d entries (from the history)", s->ntop3);
    for (int k = 0; k < s->ntop3; k++) {
        const json_t *e = json_array_get(t, (size_t)k);
        pf_candidate *c = &s->cand[s->top3[k]];
        int gen = 0, idx = 0;
        const char *hash = NULL;
        char where[32];
        snprintf(where, sizeof where, "top3[%d].", k);
        if (!json_is_object(e)) return pf_fail(PF_ERR_INVALID, "select: top3[%d] is not an object", k);
        PF_TRY(get_int(e, "generation", where, &gen));
        PF_TRY(get_int(e, "index", where, &idx));
        PF_TRY(get_str(e, "spec_hash", where, false, &hash));
        if (gen != c->generation || idx != c->index || strcmp(hash, c->spec_hash))
            return pf_fail(PF_ERR_INVALID, "select: top3[%d] disagrees with the history", k);
        const json_t *spec = json_object_get(e, "spec"), *ev = json_object_get(e, "evidence");
        if (!json_is_object(spec) && !json_is_null(spec))
            return pf_fail(PF_ERR_INVALID, "select: top3[%d].spec needs an object or null", k);
        if (!json_is_object(ev) && !json_is_null(ev))
            return pf_fail(PF_ERR_INVALID, "select: top3[%d].evidence needs an object or null", k);
        if (json_is_object(spec)) c->spec = json_incref((json_t *)spec);
        if (json_is_object(ev)) c->evidence = json_incref((json_t *)ev);
    }
    const json_t *st = json_object_get(doc, "state");
    if (!json_is_object(st)) return pf_fail(PF_ERR_INVALID, "select: state needs an object");
    PF_TRY(get_int(st, "window_start", "state.", &s->state.window_start));
    PF_TRY(get_int(st, "escape_generation", "state.", &s->state.escape_generation));
    PF_TRY(get_int(st, "stall_generation", "state.", &s->state.stall_generation));
    PF_TRY(get_num(st, "B_stall", "state.", NAN, &s->state.B_stall));
    PF_TRY(get_num(st, "A_stall", "state.", NAN, &s->state.A_stall));
    if (s->state.window_start < 0 || s->state.window_start > s->generation)
        return pf_fail(PF_ERR_INVALID, "select: state.window_start %d is outside 0..%d", s->state.window_start,
                       s->generation);
    const json_t *sg = json_object_get(doc, "stagnation");
    if (!json_is_object(sg)) return pf_fail(PF_ERR_INVALID, "select: stagnation needs an object");
    PF_TRY(get_bool(sg, "global_best", "stagnation.", &s->tests.global_best));
    PF_TRY(get_bool(sg, "elite_archive", "stagnation.", &s->tests.elite_archive));
    PF_TRY(get_bool(sg, "population", "stagnation.", &s->tests.population));
    const json_t *er = json_object_get(doc, "escape_result");
    if (json_is_object(er)) {
        s->has_escape = true;
        PF_TRY(get_bool(er, "new_best", "escape_result.", &s->escape.new_best));
        PF_TRY(get_bool(er, "new_elite", "escape_result.", &s->escape.new_elite));
        PF_TRY(get_bool(er, "archive_improved", "escape_result.", &s->escape.archive_improved));
        PF_TRY(get_bool(er, "success", "escape_result.", &s->escape.success));
    } else if (!json_is_null(er))
        return pf_fail(PF_ERR_INVALID, "select: escape_result needs an object or null");
    const char *next = NULL, *reason = NULL, *cause = NULL;
    PF_TRY(get_str(doc, "next", "", false, &next));
    int nx = pf_select_next_lookup(next);
    if (nx < 0) return pf_fail(PF_ERR_INVALID, "select: next '%s' is not normal, escape or stop", next);
    s->next = (pf_select_next)nx;
    PF_TRY(get_str(doc, "reason", "", false, &reason));
    PF_TRY(get_str(doc, "cause", "", false, &cause));
    snprintf(s->reason, sizeof s->reason, "%s", reason);
    snprintf(s->cause, sizeof s->cause, "%s", cause);
    const json_t *sk = json_object_get(doc, "skipped");
    if (sk) {
        PF_TRY(get_bool(doc, "skipped", "", &s->skipped));
        if (s->skipped) {
            PF_TRY(get_int(doc, "skipped_generation", "", &s->skipped_generation));
            if (s->next != PF_SELECT_STOP || s->skipped_generation <= s->generation)
                return pf_fail(PF_ERR_INVALID, "select: a skipped copy needs next stop and a skipped_generation after %d",
                               s->generation);
        }
    }
    if (s->next == PF_SELECT_ESCAPE && s->state.escape_generation != s->generation + 1)
        return pf_fail(PF_ERR_INVALID, "select: next is escape but state.escape_generation is %d, not %d",
                       s->state.escape_generation, s->generation + 1);
    return PF_OK;
}

pf_status pf_select_from_json(const json_t *doc, pf_select **out)
{
    *out = NULL;
    pf_select *s = calloc(1, sizeof *s);
    if (!s) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = parse_into(doc, s);
    if (st != PF_OK) {
        pf_select_free(s);
        return st;
    }
    *out = s;
    return PF_OK;
}

pf_status pf_select_write(const char *path, const pf_select *s)
{
    json_t *doc;
    PF_TRY(pf_select_to_json(s, &doc));
    pf_status st = pf_msgpack_write_file(path, doc);
    json_decref(doc);
    return st;
}

pf_status pf_select_read(const char *path, pf_select **out)
{
    *out = NULL;
    json_t *doc;
    PF_TRY(pf_msgpack_read_file(path, &doc));
    pf_status st = pf_select_from_json(doc, out);
    json_decref(doc);
    if (st != PF_OK) return pf_fail(st, "%s: %s", path, pf_errmsg());
    return PF_OK;
}
