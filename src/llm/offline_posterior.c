/*
 * offline_posterior.c — mechanisms, the posterior memory M_g, and reading
 * it back.
 *
 * A mechanism is a design choice that departs from PINNacle's default PINN
 * (a 5 x 100 tanh MLP, uniform points, soft constraints, fixed unit weights,
 * constant-rate Adam), named by a short stable string. The posterior task
 * summarizes the history H_g over these names:
 *
 *   prose (3..6 lines): the best y and its mechanisms, the mechanisms of the
 *   best candidates, the failures (status nan/diverged/timeout, or y at
 *   least PF_OFF_MUCH_WORSE times the best) and the mechanisms that never
 *   worked; then
 *
 *   ```json
 *   {"best_y": 1.2e-4 | null, "candidates": 16,
 *    "failures": [{"spec_hash", "status", "reason", "mechanisms": [..]}, ..],
 *    "mechanisms": {"rad": {"tried": 3, "ok": 2, "best_y": .., "median_y": ..}, ..}}
 *   ```
 *
 * "ok" counts candidates with status ok and a finite y; best_y and median_y
 * are over those (null when none). Later offline calls read the block back:
 * a mechanism is "failed" when it was tried and never ok, or its best y is
 * PF_OFF_MUCH_WORSE times the overall best or worse; "good" when its best y
 * is within a factor 3 of the overall best.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/offline.h"
#include "llm/offline_impl.h"

#define PF_OFF_MUCH_WORSE 10.0

static void add(json_t *a, const char *s) { json_array_append_new(a, json_string(s)); }

/* Whether the name of field k (spec.h) in obj departs from the table's default. */
static bool not_default(const json_t *obj, pf_spec_key k)
{
    return strcmp(pf_off_field_str(obj, k), pf_spec_default_name(pf_spec_paths[k])) != 0;
}

bool pf_off_json_has_string(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    if (!s) return false;
    json_array_foreach(arr, i, v) if (json_is_string(v) && !strcmp(json_string_value(v), s)) return true;
    return false;
}

static void repr_mechs(const json_t *r, json_t *out)
{
    if (json_is_true(json_object_get(r, PF_SK(REPR_NORMALIZE)))) add(out, "normalize");
    const json_t *f = json_object_get(r, PF_SK(REPR_FOURIER));
    if (pf_off_field_num(f, PF_SK_REPR_FOURIER_FEATURES) > 0) {
        add(out, "fourier");
        if (pf_off_field_num(f, PF_SK_REPR_FOURIER_SCALES) > 1) add(out, "fourier:multiscale");
        if (json_is_true(json_object_get(f, PF_SK(REPR_FOURIER_TRAINABLE)))) add(out, "fourier:trainable");
    }
    if (json_array_size(json_object_get(json_object_get(r, PF_SK(REPR_PERIODIC)), PF_SK(REPR_PERIODIC_INPUTS))))
        add(out, "periodic");
}

static void arch_mechs(const json_t *a, json_t *out)
{
    char b[64];
    static const struct {
        pf_spec_key k;
        const char *mech;
    } named[] = {{PF_SK_ARCH_TYPE, "arch"}, {PF_SK_ARCH_ACTIVATION, "act"}, {PF_SK_ARCH_INIT, "init"}};
    for (int i = 0; i < 3; i++)
        if (not_default(a, named[i].k))
            snprintf(b, sizeof b, "%s:%s", named[i].mech, pf_off_field_str(a, named[i].k)), add(out, b);
    if (!strcmp(pf_off_field_str(a, PF_SK_ARCH_ADAPTIVE), "layerwise")) add(out, "adaptive_act");
    if (!strcmp(pf_off_field_str(a, PF_SK_ARCH_ADAPTIVE), "global")) add(out, "adaptive_act:global");
    if (json_is_true(json_object_get(a, PF_SK(ARCH_RWF)))) add(out, "rwf");
}

static void samp_mechs(const json_t *s, json_t *out)
{
    char b[64];
    const json_t *ad = json_object_get(s, PF_SK(SAMP_ADAPTIVE));
    if (not_default(s, PF_SK_SAMP_METHOD))
        snprintf(b, sizeof b, "sampling:%s", pf_off_field_str(s, PF_SK_SAMP_METHOD)), add(out, b);
    if (not_default(ad, PF_SK_SAMP_ADAPTIVE_METHOD)) add(out, pf_off_field_str(ad, PF_SK_SAMP_ADAPTIVE_METHOD));
    if (pf_off_field_num(s, PF_SK_SAMP_RESAMPLE_EVERY) > 0) add(out, "resample");
}

static void loss_mechs(const json_t *l, json_t *out)
{
    char b[64];
    const json_t *w = json_object_get(l, PF_SK(LOSS_WEIGHTING));
    if (not_default(w, PF_SK_LOSS_WEIGHTING_METHOD))
        snprintf(b, sizeof b, "weight:%s", pf_off_field_str(w, PF_SK_LOSS_WEIGHTING_METHOD)), add(out, b);
    const char *k;
    json_t *v;
    int custom = 0;
    json_object_foreach(json_object_get(l, PF_SK(LOSS_WEIGHTS)), k, v) custom |=
        json_is_number(v) && json_number_value(v) != pf_spec_default_num(PF_SK_PATH(LOSS_WEIGHTS));
    if (custom) add(out, "weights");
    if (json_is_true(json_object_get(json_object_get(l, PF_SK(LOSS_CAUSAL)), PF_SK(LOSS_CAUSAL_ENABLED))))
        add(out, "causal");
    if (not_default(l, PF_SK_LOSS_RESIDUAL_NORMALIZATION)) add(out, "residual_normalization");
}

static void opt_mechs(const json_t *o, json_t *out)
{
    char b[64];
    size_t i;
    json_t *st;
    json_array_foreach(json_object_get(o, PF_SK(OPT_STAGES)), i, st) {
        const char *k = pf_off_str(st, PF_SK(STAGE_OPTIMIZER), "adam");
        if (!strcmp(k, "adamw") && !pf_off_json_has_string(out, "adamw")) add(out, "adamw");
        if (!strcmp(k, "lbfgs") && !pf_off_json_has_string(out, "lbfgs")) add(out, "lbfgs");
        if (!strcmp(k, "sgd") && !pf_off_json_has_string(out, "sgd")) add(out, "sgd");
        if (!strcmp(k, "multiadam") && !pf_off_json_has_string(out, "multiadam")) add(out, "multiadam");
        if (strcmp(k, "lbfgs")) {
            const json_t *sc = json_object_get(st, PF_SK(STAGE_ADAM_SCHED));
            const char *sk = pf_off_field_str(sc, PF_SK_STAGE_ADAM_SCHED_KIND);
            snprintf(b, sizeof b, "schedule:%s", sk);
            if (not_default(sc, PF_SK_STAGE_ADAM_SCHED_KIND) && !pf_off_json_has_string(out, b)) add(out, b);
            if (pf_off_field_num(st, PF_SK_STAGE_ADAM_GRAD_CLIP) > 0 && !pf_off_json_has_string(out, "grad_clip"))
                add(out, "grad_clip");
        }
    }
}

json_t *pf_offline_mechanisms(const json_t *norm)
{
    json_t *out = json_array();
    if (!json_is_object(norm)) return out;
    repr_mechs(json_object_get(norm, PF_SK(REPR)), out);
    arch_mechs(json_object_get(norm, PF_SK(ARCH)), out);
    samp_mechs(json_object_get(norm, PF_SK(SAMP)), out);
    if (!strcmp(pf_off_field_str(json_object_get(norm, PF_SK(CONS)), PF_SK_CONS_MODE), "hard")) add(out, "hard");
    loss_mechs(json_object_get(norm, PF_SK(LOSS)), out);
    opt_mechs(json_object_get(norm, PF_SK(OPT)), out);
    if (json_is_true(json_object_get(json_object_get(json_object_get(norm, PF_SK(TRAIN)), PF_SK(TRAIN_REGION)),
                                     PF_SK(TRAIN_REGION_ENABLED))))
        add(out, "region_optimization");
    return out;
}

/* ------------------------------------------------------ fenced blocks */

json_t *pf_off_fenced_json(const char *text)
{
    if (!text) return NULL;
    const char *p = strstr(text, "```json");
    while (p) {
        const char *b = strchr(p, '\n');
        if (!b) return NULL;
        const char *e = strstr(b, "```");
        if (!e) return NULL;
        json_error_t err;
        json_t *v = json_loadb(b, (size_t)(e - b), 0, &err);
        if (v) return v;
        p = strstr(e + 3, "```json");
    }
    return NULL;
}

/* ------------------------------------------------------ reading M_g */

void pf_off_read_memory(pf_off *o, const char *memory)
{
    json_t *m = pf_off_fenced_json(memory);
    const json_t *mech = json_object_get(m, "mechanisms");
    if (!json_is_object(mech)) {
        json_decref(m);
        return;
    }
    double best = pf_off_num(m, "best_y", NAN);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)mech, k, v) {
        add(o->tried, k);
        double by = pf_off_num(v, "best_y", NAN);
        if (pf_off_num(v, "tried", 0) > 0 &&
            (pf_off_num(v, "ok", 0) == 0 || (isfinite(best) && best > 0 && isfinite(by) && by >= PF_OFF_MUCH_WORSE * best)))
            add(o->failed, k);
        else if (isfinite(best) && isfinite(by) && by <= 3.0 * best)
            add(o->good, k);
    }
    json_decref(m);
}

/* ------------------------------------------------------ the posterior */

typedef struct entry {
    const json_t *h;
    json_t *mech;
    double y;       /* NAN unless ok */
    const char *status;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int fx = isfinite(x->y), fy = isfinite(y->y);
    if (fx != fy) return fy - fx;
    if (fx && x->y != y->y) return (x->y > y->y) - (x->y < y->y);
    return strcmp(pf_off_str(x->h, "spec_hash", ""), pf_off_str(y->h, "spec_hash", ""));
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static char *dump_list(const json_t *a, int max)
{
    char *buf = malloc(1024);
    if (!buf) return NULL;
    size_t n = 0;
    buf[0] = 0;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        if ((int)i >= max) {
            n += (size_t)snprintf(buf + n, 1024 - n, ", ...");
            break;
        }
        if (n < 900) n += (size_t)snprintf(buf + n, 1024 - n, "%s%s", i ? ", " : "", json_string_value(v));
    }
    if (!n) snprintf(buf, 1024, "none beyond the default PINN");
    return buf;
}

pf_status pf_off_posterior(const json_t *context, char **text)
{
    const json_t *hist = json_object_get(context, "history");
    size_t n = json_array_size(hist);
    entry *e = calloc(n ? n : 1, sizeof *e);
    if (!e) return pf_fail(PF_ERR_NOMEM, "offline posterior: out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *h = json_array_get(hist, i);
        e[i].h = h;
        e[i].mech = pf_offline_mechanisms(json_object_get(h, "spec"));
        e[i].status = pf_off_str(h, "status", json_object_get(h, "y") ? "ok" : "unknown");
        double y = pf_off_num(h, "y", NAN);
        e[i].y = !strcmp(e[i].status, "ok") && isfinite(y) ? y : NAN;
    }
    qsort(e, n, sizeof *e, cmp_entry);
    double best = n && isfinite(e[0].y) ? e[0].y : NAN;

    json_t *failures = json_array(), *mechs = json_object(), *fail_names = json_array(), *top = json_array();
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        char buf[96];
        if (strcmp(e[i].status, "ok")) why = e[i].status;
        else if (!isfinite(e[i].y)) why = "no y";
        else if (isfinite(best) && best > 0 && e[i].y >= PF_OFF_MUCH_WORSE * best) {
            snprintf(buf, sizeof buf, "y %.3g is %.0fx the best", e[i].y, e[i].y / best);
            why = buf;
        }
        if (why)
            json_array_append_new(failures, json_pack("{s:s,s:s,s:s,s:O}", "spec_hash",
                                                      pf_off_str(e[i].h, "spec_hash", ""), "status", e[i].status,
                                                      "reason", why, "mechanisms", e[i].mech));
        size_t j;
        json_t *m;
        json_array_foreach(e[i].mech, j, m) {
            const char *k = json_string_value(m);
            json_t *s = json_object_get(mechs, k);
            if (!s) json_object_set_new(mechs, k, s = json_pack("{s:i,s:i}", "tried", 0, "ok", 0));
            json_object_set_new(s, "tried", json_integer(json_integer_value(json_object_get(s, "tried")) + 1));
            if (isfinite(e[i].y)) json_object_set_new(s, "ok", json_integer(json_integer_value(json_object_get(s, "ok")) + 1));
            if (i < 3 && isfinite(e[i].y) && !pf_off_json_has_string(top, k)) add(top, k);
        }
    }
    /* best and median y per mechanism (entries are sorted by y, so ys is ascending) */
    const char *k;
    json_t *s;
    json_object_foreach(mechs, k, s) {
        double ys[256];
        int c = 0;
        for (size_t i = 0; i < n && c < 256; i++)
            if (isfinite(e[i].y) && pf_off_json_has_string(e[i].mech, k)) ys[c++] = e[i].y;
        json_object_set_new(s, "best_y", num_or_null(c ? ys[0] : NAN));
        json_object_set_new(s, "median_y", num_or_null(c ? (c % 2 ? ys[c / 2] : 0.5 * (ys[c / 2 - 1] + ys[c / 2])) : NAN));
        double by = c ? ys[0] : NAN;
        if (!c || (isfinite(best) && best > 0 && by >= PF_OFF_MUCH_WORSE * best)) add(fail_names, k);
    }
    json_t *block = json_pack("{s:o,s:I,s:O,s:O}", "best_y", num_or_null(best), "candidates", (json_int_t)n, "failures",
                              failures, "mechanisms", mechs);
    char *js = json_dumps(block, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    char *l_best = dump_list(n ? e[0].mech : NULL, 12), *l_top = dump_list(top, 12), *l_fail = dump_list(fail_names, 12);
    size_t cap = js ? strlen(js) + 4096 : 0;
    char *out = js && l_best && l_top && l_fail ? malloc(cap) : NULL;
    if (out) {
        size_t o = 0;
        o += (size_t)snprintf(out + o, cap - o, "Posterior memory written by the offline rule-based proposer (no LLM) from %zu candidates.\n", n);
        if (isfinite(best))
            o += (size_t)snprintf(out + o, cap - o, "Best so far: y = %.4g (%.12s), using %s.\n", best,
                                  pf_off_str(e[0].h, "spec_hash", "?"), l_best);
        else
            o += (size_t)snprintf(out + o, cap - o, "No candidate has finished with a valid y yet.\n");
        o += (size_t)snprintf(out + o, cap - o, "Mechanisms in the three best candidates: %s.\n", l_top);
        o += (size_t)snprintf(out + o, cap - o, "%zu failures (nan, diverged, timeout, or y at least %.0fx the best); mechanisms that never worked: %s.\n",
                              json_array_size(failures), PF_OFF_MUCH_WORSE, json_array_size(fail_names) ? l_fail : "none");
        snprintf(out + o, cap - o, "```json\n%s\n```\n", js);
    }
    free(l_best), free(l_top), free(l_fail), free(js);
    json_decref(block);
    json_decref(failures);
    json_decref(mechs);
    json_decref(fail_names);
    json_decref(top);
    for (size_t i = 0; i < n; i++) json_decref(e[i].mech);
    free(e);
    if (!out) return pf_fail(PF_ERR_NOMEM, "offline posterior: out of memory");
    *text = out;
    return PF_OK;
}
