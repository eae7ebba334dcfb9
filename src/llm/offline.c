/*
 * offline.c — the offline rule-based proposer (no LLM): reading the
 * context, answering, and the provider vtable.
 *
 * pf_offline_answer() reads the structured context (offline.h) into a
 * pf_off, runs the role (generation 0) or the strategy (g >= 1), makes the
 * result valid with pf_spec_check() (offline_edit.c), enforces the escape
 * rules when asked, and writes the answer as an LLM is asked to: a short
 * rationale (the notes the operators wrote, 2..6 lines) and one ```json
 * block with the complete canonical spec. The posterior task is
 * offline_posterior.c.
 *
 * Determinism: the operator rng is pf_rng_derive(seed, request hash) (the
 * hash of the context when no request hash is given), so the same seed and
 * request give the same bytes and two slots of one generation differ.
 *
 * Ablations (appendix A.6) are honoured twice: what the context leaves out
 * cannot be read, and the method says what must not be read even if
 * present (no_feedback: no y, status, evidence or memory; no_knowledge: no
 * knowledge or memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "core/sha256.h"
#include "llm/offline.h"
#include "llm/offline_impl.h"
#include "registry.h"

#define SELF "offline rule-based proposer (no LLM)"

/* ------------------------------------------------------ reading the context */


static pf_status bad(const char *fmt, const char *what)
{
    return pf_fail(PF_ERR_INVALID, SELF ": %s%s", fmt, what ? what : "");
}

static void off_release(pf_off *o)
{
    for (int i = 0; i < o->npar; i++) json_decref(o->par[i].spec);
    json_decref(o->failed);
    json_decref(o->good);
    json_decref(o->tried);
    pf_rng_free(o->rng);
}

static pf_status read_parents(pf_off *o, const json_t *cx)
{
    const json_t *ps = json_object_get(cx, "parents");
    if (ps && !json_is_array(ps)) return bad("context \"parents\" must be an array", NULL);
    size_t i;
    json_t *p;
    json_array_foreach(ps, i, p) {
        if (o->npar >= PF_OFF_MAX_PARENTS) break;
        json_t *norm = NULL;
        pf_spec_report rep;
        if (pf_spec_normalize(json_object_get(p, "spec"), o->pde, &norm, &rep) != PF_OK) continue; /* not a spec: skip */
        pf_off_parent *q = &o->par[o->npar++];
        q->spec = norm;
        q->y = NAN;
        if (!pf_method_has_feedback(o->method)) continue;
        const json_t *y = json_object_get(p, "y");
        q->y = json_is_number(y) ? json_number_value(y) : NAN;
        q->status = json_string_value(json_object_get(p, "status"));
        q->evidence = json_is_object(json_object_get(p, "evidence")) ? json_object_get(p, "evidence") : NULL;
    }
    o->feedback = pf_method_has_feedback(o->method);
    return PF_OK;
}

static pf_status read_context(pf_off *o, const json_t *cx, uint64_t seed, const char *hash)
{
    memset(o, 0, sizeof *o);
    o->role = o->strategy = -1;
    o->failed = json_array();
    o->good = json_array();
    o->tried = json_array();
    const char *pde = json_string_value(json_object_get(cx, "pde"));
    if (!pde) return bad("context has no \"pde\"", NULL);
    if (pf_pdes_lookup(pde, &o->pde) != PF_OK)
        return pf_fail(PF_ERR_INVALID, SELF ": %s", pf_errmsg());
    const char *fid = json_string_value(json_object_get(cx, "fidelity"));
    if (!fid) return bad("context has no \"fidelity\" (low or high)", NULL);
    if (pf_fidelity_from_name(fid, &o->fid) != PF_OK)
        return pf_fail(PF_ERR_INVALID, SELF ": %s", pf_errmsg());
    const char *budget = json_string_value(json_object_get(cx, "budget"));
    o->budget = pf_budget_paper();
    if (budget && pf_budget_lookup(budget, &o->budget) != PF_OK)
        return pf_fail(PF_ERR_INVALID, SELF ": %s", pf_errmsg());
    const char *m = json_string_value(json_object_get(cx, "method"));
    o->method = PF_METHOD_PINNFORGE;
    if (m && pf_method_from_name(m, &o->method) != PF_OK)
        return pf_fail(PF_ERR_INVALID, SELF ": %s", pf_errmsg());
    o->escape = json_is_true(json_object_get(cx, "escape"));
    if (pf_method_has_knowledge(o->method)) o->knowledge = json_object_get(cx, "knowledge");
    const char *st = json_string_value(json_object_get(cx, "strategy"));
    const char *role = json_string_value(json_object_get(cx, "role"));
    if (st) {
        if ((o->strategy = pf_offline_strategy_index(st)) < 0)
            return bad("unknown strategy; allowed: refine, physics_guided, architecture_guided, synthesis, novelty; got ", st);
    } else if (role) {
        if ((o->role = pf_offline_role_index(role)) < 0)
            return bad("unknown role; allowed: robust_reference, constraint_causality, localized_sampling, representation, "
                       "residual_loss, optimization, capacity_topology, cross_component_novelty; got ",
                       role);
    } else {
        return bad("a propose context needs a \"role\" (generation 0) or a \"strategy\" (generation >= 1)", NULL);
    }
    PF_TRY(read_parents(o, cx));
    if (pf_method_has_memory(o->method))
        pf_off_read_memory(o, json_string_value(json_object_get(cx, "memory")));
    char tag[PF_SHA256_HEX + 16];
    if (hash) {
        snprintf(tag, sizeof tag, "offline/%s", hash);
    } else {
        char *s = json_dumps(cx, JSON_COMPACT | JSON_SORT_KEYS), hex[PF_SHA256_HEX];
        if (!s) return pf_fail(PF_ERR_NOMEM, SELF ": cannot serialize the context");
        pf_status hs = pf_sha256_hex(s, strlen(s), hex);
        free(s);
        if (hs != PF_OK) return hs;
        snprintf(tag, sizeof tag, "offline/%s", hex);
    }
    o->rng = pf_rng_alloc(pf_rng_derive(seed, tag));
    if (!o->rng) return pf_fail(PF_ERR_NOMEM, SELF ": cannot allocate the rng");
    return PF_OK;
}

/* ------------------------------------------------------ the answer */

static char *answer_text(const pf_off *o, const json_t *norm)
{
    char *js = json_dumps(norm, JSON_INDENT(2));
    if (!js) return NULL;
    size_t cap = strlen(js) + PF_OFF_MAX_NOTES * (PF_OFF_NOTE_LEN + 2) + 64;
    char *out = malloc(cap);
    if (!out) {
        free(js);
        return NULL;
    }
    size_t n = 0;
    for (int i = 0; i < o->nnotes; i++) n += (size_t)snprintf(out + n, cap - n, "%s\n", o->notes[i]);
    snprintf(out + n, cap - n, "\n```json\n%s\n```\n", js);
    free(js);
    return out;
}

static int equals_a_parent(const pf_off *o, const json_t *norm)
{
    for (int i = 0; i < o->npar; i++)
        if (!pf_spec_sections_differing(norm, o->par[i].spec, PF_SPEC_SECTIONS)) return 1;
    return 0;
}

/* A proposal identical to a parent would only re-measure it: change one
 * more section (consumes norm). */
static json_t *not_a_parent(pf_off *o, json_t *norm)
{
    for (int round = 0; round < 8 && equals_a_parent(o, norm); round++) {
        json_t *cand = json_deep_copy(norm);
        int s = pf_off_pick(o, PF_SPEC_SECTIONS - 1);
        if (o->nnotes < PF_OFF_MAX_NOTES - 1)
            pf_off_note(o, "That alone would repeat a parent, so %s changes too.", pf_spec_section_name(s));
        pf_off_perturb_section(o, cand, s);
        int fb;
        json_t *next = pf_off_validate(o, cand, norm, &fb);
        json_decref(norm);
        norm = next;
    }
    return norm;
}

static pf_status propose(pf_off *o, char **text)
{
    json_t *raw = o->strategy >= 0 ? pf_off_strategy(o, o->strategy) : pf_off_role(o, o->role);
    const json_t *base = o->npar ? o->par[0].spec : NULL;
    int fb = 0;
    json_t *norm = pf_off_validate(o, raw, base, &fb);
    if (fb && o->nnotes < PF_OFF_MAX_NOTES)
        pf_off_note(o, "Parts of the change did not fit the allowed space and were taken from %s instead.",
                    base ? "the parent" : "PINNacle's default");
    if (o->escape && o->npar)
        norm = pf_off_enforce_escape(o, norm);
    else
        norm = not_a_parent(o, norm);
    if (o->nnotes < 2) pf_off_note(o, "Everything else is kept as it was, so the effect of this change can be read from the next evaluation.");
    *text = answer_text(o, norm);
    json_decref(norm);
    return *text ? PF_OK : pf_fail(PF_ERR_NOMEM, SELF ": out of memory");
}

pf_status pf_offline_answer(const json_t *context, uint64_t seed, const char *request_hash, char **text)
{
    *text = NULL;
    if (!json_is_object(context))
        return bad("the request has no structured context (pf_llm_request.context), which it reads instead of the prompt", NULL);
    const char *task = json_string_value(json_object_get(context, "task"));
    if (!task) return bad("context has no \"task\" (propose, posterior or pinnsagent)", NULL);
    if (!strcmp(task, "posterior")) return pf_off_posterior(context, text);
    if (!strcmp(task, "pinnsagent")) return pf_off_pinnsagent(context, seed, text);
    if (strcmp(task, "propose")) return bad("unknown task; allowed: propose, posterior, pinnsagent; got ", task);
    pf_off o;
    pf_status st = read_context(&o, context, seed, request_hash);
    if (st == PF_OK) st = propose(&o, text);
    off_release(&o);
    return st;
}

/* ------------------------------------------------------ provider */

typedef struct offline_self {
    uint64_t seed;
} offline_self;

/* Token counts are whitespace-separated words: a rough, deterministic stand-in. */
static long words(const char *s)
{
    long n = 0;
    int in = 0;
    for (; s && *s; s++) {
        int sp = *s == ' ' || *s == '\n' || *s == '\t' || *s == '\r';
        if (!sp && !in) n++;
        in = !sp;
    }
    return n;
}

static pf_status offline_complete(void *self, const pf_llm_request *q, pf_llm_response *r)
{
    const offline_self *s = self;
    memset(r, 0, sizeof *r); /* tests call the vtable directly, without pf_llm_complete() */
    char hash[PF_SHA256_HEX];
    PF_TRY(pf_llm_request_hash(q, hash));
    char *text = NULL;
    PF_TRY(pf_offline_answer(q->context, s->seed, hash, &text));
    r->text = text;
    for (int i = 0; i < q->nmsg; i++) r->prompt_tokens += words(q->msg[i].content);
    r->completion_tokens = words(text);
    /* latency_s stays 0: pf_llm_complete() times the call */
    snprintf(r->provider, sizeof r->provider, "offline");
    return PF_OK;
}

static void offline_free(void *self) { free(self); }

static const pf_llm_vtable offline_vt = {offline_complete, offline_free};

pf_status pf_llm_offline_alloc(const pf_llm_options *o, const pf_llm_vtable **vt, void **self)
{
    offline_self *s = malloc(sizeof *s);
    if (!s) return pf_fail(PF_ERR_NOMEM, SELF ": out of memory");
    s->seed = o ? o->seed : 0;
    *vt = &offline_vt;
    *self = s;
    return PF_OK;
}
