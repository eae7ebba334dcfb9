/*
 * offline_edit.c — the rationale notes, editing a working spec and making
 * it valid.
 *
 * The operators work on a spec in canonical shape (every key present, the
 * variant objects spelled out), replacing whole variant objects when they
 * switch one ("adaptive": {"method": "rad", ...}), so no stale key survives.
 * Validity is then established by pf_spec_check() itself, never guessed:
 * pf_off_validate() runs the check, applies the fix each reason asks for
 * (too many parameters: narrower; too many points: fewer; steps: rescaled;
 * ...), and when reasons remain takes the offending sections from the base
 * spec (the parent, or the PDE default), then the base, then PINNacle's
 * default, which is valid by construction. The proposer never emits an
 * invalid spec.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/offline_impl.h"
#include "nn/model.h"

void pf_off_note(pf_off *o, const char *fmt, ...)
{
    if (o->nnotes >= PF_OFF_MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->notes[o->nnotes++], PF_OFF_NOTE_LEN, fmt, ap);
    va_end(ap);
}

json_t *pf_off_sec(json_t *spec, const char *name)
{
    return pf_off_obj(spec, name);
}

json_t *pf_off_obj(json_t *parent, const char *key)
{
    json_t *v = json_object_get(parent, key);
    if (!json_is_object(v)) {
        v = json_object();
        json_object_set_new(parent, key, v);
    }
    return v;
}

double pf_off_num(const json_t *obj, const char *key, double dflt)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

const char *pf_off_str(const json_t *obj, const char *key, const char *dflt)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

double pf_off_field_num(const json_t *obj, pf_spec_key k)
{
    const json_t *v = json_object_get(obj, pf_spec_key_name(k));
    return json_is_number(v) ? json_number_value(v) : pf_spec_default_num(pf_spec_paths[k]);
}

const char *pf_off_field_str(const json_t *obj, pf_spec_key k)
{
    const json_t *v = json_object_get(obj, pf_spec_key_name(k));
    return json_is_string(v) ? json_string_value(v) : pf_spec_default_name(pf_spec_paths[k]);
}

static json_t *stages_of(const json_t *spec)
{
    return json_object_get(json_object_get(spec, PF_SK(OPT)), PF_SK(OPT_STAGES));
}

long pf_off_steps(const json_t *spec)
{
    long n = 0;
    size_t i;
    json_t *s;
    json_array_foreach(stages_of(spec), i, s) n += (long)pf_off_num(s, PF_SK(STAGE_ADAM_STEPS), 0);
    return n;
}

double pf_off_first_lr(const json_t *spec)
{
    const json_t *s = json_array_get(stages_of(spec), 0);
    return pf_off_field_num(s, PF_SK_STAGE_ADAM_LR);
}

void pf_off_fit_budget(json_t *spec, long budget)
{
    json_t *st = stages_of(spec);
    size_t n = json_array_size(st);
    if (!n || n > (size_t)budget) {
        json_t *a = json_array(), *s = json_object();
        json_object_set_new(s, PF_SK(STAGE_OPTIMIZER), json_string("adam"));
        json_object_set_new(s, PF_SK(STAGE_ADAM_STEPS), json_integer(budget));
        json_array_append_new(a, s);
        json_object_set_new(pf_off_sec(spec, PF_SK(OPT)), PF_SK(OPT_STAGES), a);
        return;
    }
    long total = pf_off_steps(spec);
    if (total == budget) return;
    long used = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(st, i);
        long old = (long)pf_off_num(s, PF_SK(STAGE_ADAM_STEPS), 1), v;
        long left = (long)(n - i - 1); /* stages after this one need >= 1 each */
        if (i + 1 == n)
            v = budget - used;
        else
            v = total > 0 ? (long)llround((double)old * (double)budget / (double)total) : budget / (long)n;
        if (v < 1) v = 1;
        if (v > budget - used - left) v = budget - used - left;
        json_object_set_new(s, PF_SK(STAGE_ADAM_STEPS), json_integer(v));
        used += v;
    }
}

int pf_off_hard_index(const json_t *spec, const pf_pde *p)
{
    const json_t *c = json_object_get(spec, PF_SK(CONS));
    if (strcmp(pf_off_field_str(c, PF_SK_CONS_MODE), "hard")) return -1;
    const char *t = pf_off_str(c, PF_SK(CONS_HARD_TRANSFORM), p->nhard ? p->hard[0].name : "");
    for (int i = 0; i < p->nhard; i++)
        if (!strcmp(t, p->hard[i].name)) return i;
    return p->nhard ? 0 : -1;
}

int pf_off_active_terms(const json_t *spec, const pf_pde *p, const char **names, int cap)
{
    int h = pf_off_hard_index(spec, p), n = 0;
    if (n < cap) names[n++] = "pde";
    for (int i = 0; i < p->ncon && n < cap; i++)
        if (h < 0 || !pf_hard_satisfies(&p->hard[h], p->con[i].name)) names[n++] = p->con[i].name;
    return n;
}

void pf_off_fit_weights(json_t *spec, const pf_pde *p)
{
    const char *names[PF_PDE_MAX_CONSTRAINTS + 1];
    int n = pf_off_active_terms(spec, p, names, PF_PDE_MAX_CONSTRAINTS + 1);
    json_t *w = json_object_get(json_object_get(spec, PF_SK(LOSS)), PF_SK(LOSS_WEIGHTS));
    if (!json_is_object(w)) return;
    const char *key;
    json_t *val;
    void *tmp;
    json_object_foreach_safe(w, tmp, key, val) {
        int ok = 0;
        for (int i = 0; i < n; i++) ok |= !strcmp(names[i], key);
        if (!ok) json_object_del(w, key);
    }
}

/* Consistency that the operators may have broken by combining sections:
 * rad redraws (no resample), rar_d's cap covers the interior, rwf needs
 * glorot_normal, weights follow the constraints, steps follow the budget. */
static void tidy(pf_off *o, json_t *spec)
{
    json_t *s = pf_off_sec(spec, PF_SK(SAMP));
    const char *m = pf_off_field_str(json_object_get(s, PF_SK(SAMP_ADAPTIVE)), PF_SK_SAMP_ADAPTIVE_METHOD);
    if (!strcmp(m, "rad")) json_object_set_new(s, PF_SK(SAMP_RESAMPLE_EVERY), json_integer(0));
    if (!strcmp(m, "rar_d")) {
        json_t *a = json_object_get(s, PF_SK(SAMP_ADAPTIVE));
        long in = (long)pf_off_field_num(s, PF_SK_SAMP_INTERIOR);
        if (pf_off_field_num(a, PF_SK_SAMP_ADAPTIVE_RAR_D_CAP) < in)
            json_object_set_new(a, PF_SK(SAMP_ADAPTIVE_RAR_D_CAP), json_integer(in));
    }
    if (o->pde->time_input < 0) {
        json_object_set_new(s, PF_SK(SAMP_INITIAL), json_integer(0));
        json_object_set_new(pf_off_sec(spec, PF_SK(LOSS)), PF_SK(LOSS_CAUSAL),
                            json_pack("{s:b}", PF_SK(LOSS_CAUSAL_ENABLED), 0));
    }
    json_t *a = pf_off_sec(spec, PF_SK(ARCH));
    if (json_is_true(json_object_get(a, PF_SK(ARCH_RWF))))
        json_object_set_new(a, PF_SK(ARCH_INIT), json_string("glorot_normal"));
    const pf_arch_def *d = pf_arch_named(pf_off_field_str(a, PF_SK_ARCH_TYPE));
    if (d && pf_off_field_num(a, PF_SK_ARCH_DEPTH) < d->min_depth)
        json_object_set_new(a, PF_SK(ARCH_DEPTH), json_integer(d->min_depth));
    pf_off_fit_weights(spec, o->pde);
    pf_off_fit_budget(spec, o->budget->steps[o->fid]);
}

static void scale_int(json_t *obj, const char *key, double f, long lo)
{
    long v = (long)pf_off_num(obj, key, 0);
    long w = (long)floor((double)v * f);
    if (v > 0 && w < lo) w = lo;
    json_object_set_new(obj, key, json_integer(w));
}

/* Fix what one reason names; 1 when a fix was applied. */
static int fix_reason(pf_off *o, json_t *spec, const char *r)
{
    if (strstr(r, "trainable parameters")) {
        json_t *a = pf_off_sec(spec, PF_SK(ARCH));
        scale_int(a, PF_SK(ARCH_WIDTH), 0.7, 8);
        json_t *f = pf_off_obj(pf_off_sec(spec, PF_SK(REPR)), PF_SK(REPR_FOURIER));
        if (pf_off_field_num(f, PF_SK_REPR_FOURIER_FEATURES) > 64) scale_int(f, PF_SK(REPR_FOURIER_FEATURES), 0.5, 16);
        if (pf_off_field_num(a, PF_SK_ARCH_DEPTH) > 8) scale_int(a, PF_SK(ARCH_DEPTH), 0.75, 2);
        return 1;
    }
    if (strstr(r, "training points")) {
        json_t *s = pf_off_sec(spec, PF_SK(SAMP));
        scale_int(s, PF_SK(SAMP_INTERIOR), 0.7, 256);
        scale_int(s, PF_SK(SAMP_BOUNDARY), 0.7, 64);
        scale_int(s, PF_SK(SAMP_INITIAL), 0.7, 64);
        json_t *a = json_object_get(s, PF_SK(SAMP_ADAPTIVE));
        if (json_object_get(a, PF_SK(SAMP_ADAPTIVE_RAR_D_CAP))) scale_int(a, PF_SK(SAMP_ADAPTIVE_RAR_D_CAP), 0.7, 256);
        return 1;
    }
    if (strstr(r, "cap must be at least")) {
        json_t *s = pf_off_sec(spec, PF_SK(SAMP));
        json_object_set_new(json_object_get(s, PF_SK(SAMP_ADAPTIVE)), PF_SK(SAMP_ADAPTIVE_RAR_D_CAP),
                            json_integer((long)pf_off_field_num(s, PF_SK_SAMP_INTERIOR)));
        return 1;
    }
    if (strstr(r, "fourier_scales") || strstr(r, "fourier_ratio")) {
        json_t *f = pf_off_obj(pf_off_sec(spec, PF_SK(REPR)), PF_SK(REPR_FOURIER));
        json_object_set_new(f, PF_SK(REPR_FOURIER_SCALES), json_integer(1));
        return 1;
    }
    if (strstr(r, "schedule is invalid")) {
        size_t i;
        json_t *st;
        json_array_foreach(stages_of(spec), i, st) if (json_object_get(st, PF_SK(STAGE_ADAM_SCHED)))
            json_object_set_new(st, PF_SK(STAGE_ADAM_SCHED),
                                json_pack("{s:s}", PF_SK(STAGE_ADAM_SCHED_KIND),
                                          pf_spec_default_name(PF_SK_PATH(STAGE_ADAM_SCHED_KIND))));
        return 1;
    }
    (void)o;
    return 0;
}

/* Which section a reason is about (reasons start with the field path). */
static int reason_section(const char *r)
{
    for (int s = 0; s < PF_SPEC_SECTIONS; s++) {
        size_t n = strlen(pf_spec_section_name(s));
        if (!strncmp(r, pf_spec_section_name(s), n) && (r[n] == '.' || r[n] == ' ' || r[n] == '[')) return s;
    }
    return -1;
}

static json_t *check(pf_off *o, json_t *spec, pf_spec_report *rep)
{
    json_t *norm = NULL;
    tidy(o, spec);
    if (pf_spec_check_budget(spec, o->pde, o->budget, o->fid, &norm, rep) != PF_OK) return NULL;
    return norm;
}

/* Up to `rounds` rounds of check-then-fix; the canonical spec (cand is
 * released) or NULL with the remaining reasons in rep. */
static json_t *fix_rounds(pf_off *o, json_t *cand, int rounds, pf_spec_report *rep)
{
    for (int round = 0; round < rounds; round++) {
        json_t *norm = check(o, cand, rep);
        if (norm) {
            json_decref(cand);
            return norm;
        }
        int fixed = 0;
        for (int i = 0; i < rep->n; i++) fixed |= fix_reason(o, cand, rep->reason[i]);
        if (!fixed) break;
    }
    return NULL;
}

json_t *pf_off_validate(pf_off *o, json_t *cand, const json_t *base, int *fallbacks)
{
    pf_spec_report rep;
    json_t *norm;
    *fallbacks = 0;
    if ((norm = fix_rounds(o, cand, 8, &rep))) return norm;
    /* sections from the base, where reasons remain */
    if (base) {
        *fallbacks = 1;
        for (int i = 0; i < rep.n; i++) {
            int s = reason_section(rep.reason[i]);
            const json_t *b = s >= 0 ? json_object_get(base, pf_spec_section_name(s)) : NULL;
            if (b) json_object_set_new(cand, pf_spec_section_name(s), json_deep_copy(b));
        }
        if ((norm = check(o, cand, &rep))) {
            json_decref(cand);
            return norm;
        }
        json_decref(cand);
        cand = json_deep_copy(base);
        if ((norm = fix_rounds(o, cand, 4, &rep))) return norm;
    }
    *fallbacks = 2;
    json_decref(cand);
    json_t *ex = pf_spec_example_budget(o->pde, o->budget, o->fid);
    norm = check(o, ex, &rep);
    json_decref(ex);
    PF_ASSERT_MSG(norm, "PINNacle's default spec for %s is invalid: %s", o->pde->name, rep.n ? rep.reason[0] : "?");
    return norm;
}

