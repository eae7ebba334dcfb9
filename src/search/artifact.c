/* artifact.c — the msgpack run files: proposal, memory, knowledge, final
 * (artifact.h); evidence and result.h5 are in artifact_training.c, the
 * candidate and run walks in artifact_run.c. */
#include "search/artifact.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "io/msgpack_json.h"
#include "search/artifact_internal.h"

/* ------------------------------------------------------------ reading */

static pf_status artifact_read(const char *path, const char *format, json_t **out)
{
    *out = NULL;
    json_t *doc;
    PF_TRY(pf_msgpack_read_file(path, &doc));
    const char *f = json_string_value(json_object_get(doc, "format"));
    const json_t *v = json_object_get(doc, "version");
    pf_status st = PF_OK;
    if (!json_is_object(doc)) st = pf_fail(PF_ERR_INVALID, "'%s' is not a %s file (it holds no map)", path, format);
    else if (!f || strcmp(f, format))
        st = pf_fail(PF_ERR_INVALID, "'%s' is not a %s file (its format is '%s')", path, format, f ? f : "?");
    else if (!json_is_integer(v) || json_integer_value(v) != PF_ARTIFACT_VERSION)
        st = pf_fail(PF_ERR_INVALID, "'%s' is %s version %s, and this build reads version %d", path, format,
                     json_is_integer(v) ? "another" : "of no", PF_ARTIFACT_VERSION);
    if (st != PF_OK) {
        json_decref(doc);
        return st;
    }
    *out = doc;
    return PF_OK;
}

pf_status pf_artifact_load(const char *path, const char *format, pf_artifact_parse_fn parse, void *f)
{
    json_t *doc;
    PF_TRY(artifact_read(path, format, &doc));
    pf_status st = parse(path, doc, f);
    json_decref(doc);
    return st;
}

pf_status pf_artifact_str(const char *path, const json_t *o, const char *key, bool required, char *buf, size_t cap)
{
    const json_t *x = json_object_get(o, key);
    buf[0] = 0;
    if (!x && !required) return PF_OK;
    if (!json_is_string(x)) return pf_fail(PF_ERR_INVALID, "'%s': \"%s\" needs a string", path, key);
    if (json_string_length(x) >= cap)
        return pf_fail(PF_ERR_INVALID, "'%s': \"%s\" is longer than %zu bytes", path, key, cap - 1);
    memcpy(buf, json_string_value(x), json_string_length(x) + 1);
    return PF_OK;
}

pf_status pf_artifact_text(const char *path, const json_t *o, const char *key, char **out)
{
    const json_t *x = json_object_get(o, key);
    *out = NULL;
    if (!x || json_is_null(x)) return PF_OK;
    if (!json_is_string(x)) return pf_fail(PF_ERR_INVALID, "'%s': \"%s\" needs a string", path, key);
    if (!(*out = strdup(json_string_value(x)))) return pf_fail(PF_ERR_NOMEM, "out of memory");
    return PF_OK;
}

pf_status pf_artifact_int(const char *path, const json_t *o, const char *key, bool required, long lo, long hi,
                          long *v)
{
    const json_t *x = json_object_get(o, key);
    if (!x && !required) return PF_OK;
    if (!json_is_integer(x) || json_integer_value(x) < lo || json_integer_value(x) > hi)
        return pf_fail(PF_ERR_INVALID, "'%s': \"%s\" needs an integer in %ld..%ld", path, key, lo, hi);
    *v = (long)json_integer_value(x);
    return PF_OK;
}

pf_status pf_artifact_num(const char *path, const json_t *o, const char *key, double *v, bool *present)
{
    const json_t *x = json_object_get(o, key);
    if (present) *present = json_is_number(x);
    if (!x || json_is_null(x)) return PF_OK;
    if (!json_is_number(x)) return pf_fail(PF_ERR_INVALID, "'%s': \"%s\" needs a number or null", path, key);
    *v = json_number_value(x);
    return PF_OK;
}

pf_status pf_artifact_bool(const char *path, const json_t *o, const char *key, bool *v)
{
    const json_t *x = json_object_get(o, key);
    if (!json_is_boolean(x)) return pf_fail(PF_ERR_INVALID, "'%s': \"%s\" needs true or false", path, key);
    *v = json_is_true(x);
    return PF_OK;
}

bool pf_artifact_is_hash(const char *h)
{
    return strlen(h) == PF_SPEC_HASH_HEX - 1 && strspn(h, "0123456789abcdef") == PF_SPEC_HASH_HEX - 1;
}

/* ------------------------------------------------------------ writing */

json_t *pf_artifact_begin(const char *format)
{
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "format", json_string(format));
    json_object_set_new(o, "version", json_integer(PF_ARTIFACT_VERSION));
    return o;
}

/* jansson refuses non-finite reals (json_real returns NULL, and a set of
 * NULL is skipped): the key is then absent, which the readers take as
 * "none". */
pf_status pf_artifact_finish(const char *path, json_t *o, size_t keys)
{
    pf_status st = PF_OK;
    if (!o || json_object_size(o) < keys)
        st = pf_fail(PF_ERR_NOMEM, "cannot build '%s': a value could not be encoded (out of memory, or text that is not UTF-8)", path);
    else st = pf_msgpack_write_file(path, o);
    json_decref(o);
    return st;
}

/* Free text (reasons, rationale) as valid, bounded UTF-8: it may quote
 * the bytes of a broken input, which jansson would refuse. */
static json_t *text_or_empty(const char *s)
{
    char *t = pf_text_sanitize_dup(s, PF_TEXT_BLOCK_MAX);
    json_t *j = t ? json_string(t) : NULL;
    free(t);
    return j;
}

/* "usage": {prompt_tokens, completion_tokens}, the tokens of an LLM call
 * (proposals and memories). */
static json_t *usage_json(long prompt_tokens, long completion_tokens)
{
    return json_pack("{s:I, s:I}", "prompt_tokens", (json_int_t)prompt_tokens, "completion_tokens",
                     (json_int_t)completion_tokens);
}

/* o["usage"] into *pt and *ct (untouched when absent); *present says whether it was there. */
static pf_status usage_read(const char *path, const json_t *o, long *pt, long *ct, bool *present)
{
    const json_t *u = json_object_get(o, "usage");
    if (present) *present = u != NULL;
    if (!u) return PF_OK;
    PF_TRY(pf_artifact_int(path, u, "prompt_tokens", true, 0, LONG_MAX, pt));
    return pf_artifact_int(path, u, "completion_tokens", true, 0, LONG_MAX, ct);
}

/* ------------------------------------------------------------ proposal */

static void copy_name(char *dst, const char *src)
{
    snprintf(dst, PF_ARTIFACT_NAME, "%s", src ? src : "");
}

void pf_proposal_file_init(pf_proposal_file *f, const pf_run *r, int g, int k, bool escape, pf_proposal *call)
{
    memset(f, 0, sizeof *f);
    copy_name(f->pde, r->pde->name);
    copy_name(f->method, pf_method_name(r->method));
    f->generation = g;
    f->index = k;
    snprintf(f->slot, sizeof f->slot, "gen%02d/%s", g, pf_run_slot_name(r->method, g, k));
    copy_name(f->role, pf_run_slot_name(r->method, g, k));
    f->low_fidelity_y = NAN;
    if (!call) {
        f->skipped = true;
        f->call.reasons = strdup("the search stopped before this generation");
        return;
    }
    f->escape = escape;
    f->call = *call;
    f->skipped = call->stopped; /* the LLM budget stopped it: not trained, asked again when the cap changes */
    memset(call, 0, sizeof *call);
}

void pf_proposal_file_init_hifi(pf_proposal_file *f, const pf_run *r, const pf_select *sel, int k)
{
    memset(f, 0, sizeof *f);
    copy_name(f->pde, r->pde->name);
    f->generation = PF_RUN_HIFI;
    f->index = k;
    copy_name(f->slot, "hifi");
    f->low_fidelity_y = NAN;
    if (k < 0 || k >= sel->ntop3) {
        f->skipped = true;
        f->call.reasons = strdup("the Global Top-3 holds fewer designs");
        return;
    }
    const pf_candidate *c = &sel->cand[sel->top3[k]];
    f->call.valid = true;
    f->call.spec = json_incref(c->spec);
    memcpy(f->call.spec_hash, c->spec_hash, sizeof f->call.spec_hash);
    f->low_fidelity_y = c->y;
}

pf_status pf_proposal_file_write(const char *path, const pf_proposal_file *f)
{
    const pf_proposal *p = &f->call;
    bool hifi = f->generation == PF_RUN_HIFI;
    json_t *o = pf_artifact_begin("pinnforge.proposal");
    if (!o) return pf_fail(PF_ERR_NOMEM, "out of memory building '%s'", path);
    json_object_set_new(o, "pde", json_string(f->pde));
    if (!hifi) {
        json_object_set_new(o, "method", json_string(f->method));
        json_object_set_new(o, "generation", json_integer(f->generation));
    }
    json_object_set_new(o, "index", json_integer(f->index));
    json_object_set_new(o, "slot", json_string(f->slot));
    if (!hifi) {
        json_object_set_new(o, f->generation == 0 ? "role" : "strategy", json_string(f->role));
        json_object_set_new(o, "escape", json_boolean(f->escape));
    }
    json_object_set_new(o, "valid", json_boolean(p->valid));
    json_object_set_new(o, "skipped", json_boolean(f->skipped));
    size_t keys = hifi ? 7 : 11;
    if (p->stopped) json_object_set_new(o, "stopped", json_string(PF_PROPOSAL_STOPPED_LLM)), keys++;
    if (f->skipped || !p->valid) {
        json_object_set_new(o, "reasons", text_or_empty(p->reasons));
        keys += 1;
    } else {
        json_object_set_new(o, "spec", json_incref(p->spec));
        json_object_set_new(o, "spec_hash", json_string(p->spec_hash));
        if (hifi) json_object_set_new(o, "low_fidelity_y", json_real(f->low_fidelity_y));
        else json_object_set_new(o, "rationale", text_or_empty(p->rationale));
        keys += 3;
        if (f->plan) json_object_set_new(o, "plan", json_incref(f->plan)), keys++;
    }
    if (!hifi && (!f->skipped || p->stopped)) {
        json_t *req = json_array();
        for (int i = 0; i < p->attempts; i++) json_array_append_new(req, json_string(p->request[i]));
        json_object_set_new(o, "attempts", json_integer(p->attempts));
        json_object_set_new(o, "requests", req);
        json_object_set_new(o, "usage", usage_json(p->prompt_tokens, p->completion_tokens));
        json_object_set_new(o, "latency_s", json_real(p->latency_s));
        json_object_set_new(o, "provider", json_string(p->provider));
        keys += 5;
        if (p->backbone[0]) json_object_set_new(o, "backbone", json_string(p->backbone)), keys++;
    }
    if (f->mix) json_object_set_new(o, "mix", json_incref(f->mix)), keys++;
    return pf_artifact_finish(path, o, keys);
}

static pf_status proposal_calls(const char *path, const json_t *o, pf_proposal *p)
{
    long attempts = 0, pt = 0, ct = 0;
    PF_TRY(pf_artifact_int(path, o, "attempts", false, 0, PF_PROPOSAL_MAX_CALLS, &attempts));
    p->attempts = (int)attempts;
    const json_t *req = json_object_get(o, "requests");
    if (req && (!json_is_array(req) || json_array_size(req) > PF_PROPOSAL_MAX_CALLS))
        return pf_fail(PF_ERR_INVALID, "'%s': \"requests\" needs an array of at most %d hashes", path,
                       PF_PROPOSAL_MAX_CALLS);
    for (size_t i = 0; i < json_array_size(req); i++) {
        const char *h = json_string_value(json_array_get(req, i));
        if (!h || strlen(h) >= sizeof p->request[0])
            return pf_fail(PF_ERR_INVALID, "'%s': requests[%zu] needs a transcript hash", path, i);
        memcpy(p->request[i], h, strlen(h) + 1);
    }
    PF_TRY(usage_read(path, o, &pt, &ct, NULL));
    p->prompt_tokens = pt;
    p->completion_tokens = ct;
    PF_TRY(pf_artifact_num(path, o, "latency_s", &p->latency_s, NULL));
    PF_TRY(pf_artifact_str(path, o, "backbone", false, p->backbone, sizeof p->backbone));
    return pf_artifact_str(path, o, "provider", false, p->provider, sizeof p->provider);
}

static pf_status proposal_parse(const char *path, const json_t *o, void *out)
{
    pf_proposal_file *f = out;
    pf_proposal *p = &f->call;
    long g = PF_RUN_HIFI, k = 0;
    PF_TRY(pf_artifact_str(path, o, "pde", true, f->pde, sizeof f->pde));
    PF_TRY(pf_artifact_str(path, o, "method", false, f->method, sizeof f->method));
    PF_TRY(pf_artifact_int(path, o, "generation", false, 0, PF_RUN_MAX_GENERATION, &g));
    PF_TRY(pf_artifact_int(path, o, "index", true, 0, PF_RUN_MAX_GENERATION, &k));
    f->generation = (int)g;
    f->index = (int)k;
    PF_TRY(pf_artifact_str(path, o, "slot", false, f->slot, sizeof f->slot));
    PF_TRY(pf_artifact_str(path, o, g == 0 ? "role" : "strategy", false, f->role, sizeof f->role));
    if (json_object_get(o, "escape")) PF_TRY(pf_artifact_bool(path, o, "escape", &f->escape));
    PF_TRY(pf_artifact_bool(path, o, "valid", &p->valid));
    if (json_object_get(o, "skipped")) PF_TRY(pf_artifact_bool(path, o, "skipped", &f->skipped));
    if (f->skipped && p->valid) return pf_fail(PF_ERR_INVALID, "'%s' is both skipped and valid", path);
    char stopped[32] = "";
    PF_TRY(pf_artifact_str(path, o, "stopped", false, stopped, sizeof stopped));
    if (*stopped && (strcmp(stopped, PF_PROPOSAL_STOPPED_LLM) || !f->skipped))
        return pf_fail(PF_ERR_INVALID, "'%s': \"stopped\" is \"%s\" in a skipped proposal or absent", path,
                       PF_PROPOSAL_STOPPED_LLM);
    p->stopped = *stopped != 0;
    PF_TRY(pf_artifact_text(path, o, "reasons", &p->reasons));
    PF_TRY(pf_artifact_text(path, o, "rationale", &p->rationale));
    PF_TRY(pf_artifact_num(path, o, "low_fidelity_y", &f->low_fidelity_y, NULL));
    if (p->valid) {
        PF_TRY(pf_artifact_str(path, o, "spec_hash", true, p->spec_hash, sizeof p->spec_hash));
        if (!pf_artifact_is_hash(p->spec_hash))
            return pf_fail(PF_ERR_INVALID, "'%s': a valid proposal needs a spec_hash of 64 hex digits", path);
        json_t *spec = json_object_get(o, "spec");
        if (!json_is_object(spec))
            return pf_fail(PF_ERR_INVALID, "'%s': a valid proposal needs its spec (an object)", path);
        p->spec = json_incref(spec);
        json_t *plan = json_object_get(o, "plan");
        if (plan && !json_is_object(plan)) return pf_fail(PF_ERR_INVALID, "'%s': \"plan\" needs an object", path);
        f->plan = plan ? json_incref(plan) : NULL;
    }
    json_t *mix = json_object_get(o, "mix");
    if (mix && !json_is_object(mix)) return pf_fail(PF_ERR_INVALID, "'%s': \"mix\" needs an object", path);
    f->mix = mix ? json_incref(mix) : NULL;
    return proposal_calls(path, o, p);
}

pf_status pf_proposal_file_read(const char *path, pf_proposal_file *f)
{
    memset(f, 0, sizeof *f);
    f->low_fidelity_y = NAN;
    pf_status st = pf_artifact_load(path, "pinnforge.proposal", proposal_parse, f);
    if (st != PF_OK) pf_proposal_file_release(f);
    return st;
}

void pf_proposal_file_release(pf_proposal_file *f)
{
    pf_proposal_release(&f->call);
    json_decref(f->plan);
    json_decref(f->mix);
    f->plan = NULL;
    f->mix = NULL;
}

/* ------------------------------------------------------------ memory */

pf_status pf_memory_file_init(pf_memory_file *f, int generation, const char *text, const char *reason)
{
    memset(f, 0, sizeof *f);
    f->generation = generation;
    if ((text && !(f->text = strdup(text))) || (reason && !(f->reason = strdup(reason)))) {
        pf_memory_file_release(f);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    return PF_OK;
}

pf_status pf_memory_file_write(const char *path, const pf_memory_file *f)
{
    json_t *o = pf_artifact_begin("pinnforge.memory");
    if (!o) return pf_fail(PF_ERR_NOMEM, "out of memory building '%s'", path);
    json_object_set_new(o, "generation", json_integer(f->generation));
    json_object_set_new(o, "text", f->text ? json_string(f->text) : json_null());
    size_t keys = 4;
    if (f->reason) json_object_set_new(o, "reason", json_string(f->reason)), keys++;
    if (f->has_call) {
        json_object_set_new(o, "provider", json_string(f->provider));
        json_object_set_new(o, "usage", usage_json(f->prompt_tokens, f->completion_tokens));
        json_object_set_new(o, "latency_s", json_real(f->latency_s));
        json_object_set_new(o, "candidates", json_integer(f->candidates));
        keys += 4;
        if (f->backbone[0]) json_object_set_new(o, "backbone", json_string(f->backbone)), keys++;
    }
    return pf_artifact_finish(path, o, keys);
}

static pf_status memory_parse(const char *path, const json_t *o, void *out)
{
    pf_memory_file *f = out;
    long g = 0, pt = 0, ct = 0, n = 0;
    PF_TRY(pf_artifact_int(path, o, "generation", true, 0, PF_RUN_MAX_GENERATION, &g));
    f->generation = (int)g;
    PF_TRY(pf_artifact_text(path, o, "text", &f->text));
    PF_TRY(pf_artifact_text(path, o, "reason", &f->reason));
    PF_TRY(usage_read(path, o, &pt, &ct, &f->has_call));
    if (!f->has_call) return PF_OK;
    PF_TRY(pf_artifact_str(path, o, "provider", false, f->provider, sizeof f->provider));
    PF_TRY(pf_artifact_str(path, o, "backbone", false, f->backbone, sizeof f->backbone));
    PF_TRY(pf_artifact_num(path, o, "latency_s", &f->latency_s, NULL));
    PF_TRY(pf_artifact_int(path, o, "candidates", false, 0, INT32_MAX, &n));
    f->prompt_tokens = pt;
    f->completion_tokens = ct;
    f->candidates = (int)n;
    return PF_OK;
}

pf_status pf_memory_file_read(const char *path, pf_memory_file *f)
{
    memset(f, 0, sizeof *f);
    pf_status st = pf_artifact_load(path, "pinnforge.memory", memory_parse, f);
    if (st != PF_OK) pf_memory_file_release(f);
    return st;
}

void pf_memory_file_release(pf_memory_file *f)
{
    free(f->text);
    free(f->reason);
    f->text = f->reason = NULL;
}

/* ------------------------------------------------------------ knowledge */

pf_status pf_knowledge_file_write(const char *path, const char *pde, json_t *tags, json_t *entries)
{
    if (!json_is_array(tags) || !json_is_array(entries))
        return pf_fail(PF_ERR_INVALID, "'%s': the knowledge's tags and entries are arrays", path);
    json_t *o = pf_artifact_begin("pinnforge.knowledge");
    if (o) {
        json_object_set_new(o, "pde", json_string(pde));
        json_object_set(o, "tags", tags);
        json_object_set(o, "entries", entries);
    }
    return pf_artifact_finish(path, o, 5);
}

pf_status pf_knowledge_file_read(const char *path, json_t **entries)
{
    *entries = NULL;
    json_t *o;
    PF_TRY(artifact_read(path, "pinnforge.knowledge", &o));
    json_t *e = json_object_get(o, "entries");
    pf_status st = PF_OK;
    if (!json_is_array(e)) st = pf_fail(PF_ERR_INVALID, "'%s': \"entries\" needs an array", path);
    else *entries = json_incref(e);
    json_decref(o);
    return st;
}

/* ------------------------------------------------------------ final */

/* final.msgpack's "budget" (artifact.h); NULL when a value failed. */
static json_t *budget_json(const pf_run_budget *b)
{
    json_t *by = json_array();
    for (int i = 0; by && i < b->llm_by.n; i++) {
        const pf_llm_backbone_usage *u = &b->llm_by.b[i];
        json_array_append_new(by, json_pack("{s:s, s:I, s:I, s:I, s:f, s:b, s:f}", "name", u->name, "calls",
                                            (json_int_t)u->calls, "prompt_tokens", (json_int_t)u->prompt_tokens,
                                            "completion_tokens", (json_int_t)u->completion_tokens, "cost", u->cost,
                                            "priced", u->priced, "wall_s", u->llm_s));
    }
    if (!by || json_array_size(by) != (size_t)b->llm_by.n) {
        json_decref(by);
        return NULL;
    }
    return json_pack("{s:{s:I, s:I, s:I, s:I}, s:{s:f, s:f, s:f, s:f, s:f}, s:{s:I, s:I, s:I, s:f, s:b}, s:o, s:I, s:I}",
                     "optimizer_steps", "low_fidelity", (json_int_t)b->steps_low, "high_fidelity",
                     (json_int_t)b->steps_high, "baseline", (json_int_t)b->steps_baseline, "training",
                     (json_int_t)(b->steps_low + b->steps_high + b->steps_baseline), "wall_s", "low_fidelity",
                     b->wall_low, "high_fidelity", b->wall_high, "baseline", b->wall_baseline, "llm", b->llm_s,
                     "training", b->wall_low + b->wall_high + b->wall_baseline, "llm", "calls", (json_int_t)b->calls,
                     "prompt_tokens", (json_int_t)b->prompt_tokens, "completion_tokens",
                     (json_int_t)b->completion_tokens, "cost", b->cost, "priced", b->priced, "llm_backbones", by,
                     "candidates", (json_int_t)b->candidates, "invalid", (json_int_t)b->invalid);
}

/* final.msgpack's budget.llm_backbones back into u (absent: none). */
static pf_status backbones_read(const char *path, const json_t *a, pf_llm_usage *u)
{
    if (!a) return PF_OK;
    if (!json_is_array(a) || json_array_size(a) > PF_LLM_USAGE_MAX)
        return pf_fail(PF_ERR_INVALID, "'%s': budget \"llm_backbones\" needs an array of at most %d entries", path,
                       PF_LLM_USAGE_MAX);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *e = json_array_get(a, i);
        char name[PF_LLM_NAME_MAX];
        long calls = 0, pt = 0, ct = 0;
        double s = 0;
        bool priced = false;
        if (!json_is_object(e)) return pf_fail(PF_ERR_INVALID, "'%s': llm_backbones[%zu] needs a map", path, i);
        PF_TRY(pf_artifact_str(path, e, "name", true, name, sizeof name));
        PF_TRY(pf_artifact_int(path, e, "calls", true, 0, LONG_MAX, &calls));
        PF_TRY(pf_artifact_int(path, e, "prompt_tokens", true, 0, LONG_MAX, &pt));
        PF_TRY(pf_artifact_int(path, e, "completion_tokens", true, 0, LONG_MAX, &ct));
        PF_TRY(pf_artifact_num(path, e, "wall_s", &s, NULL));
        if (json_object_get(e, "priced")) PF_TRY(pf_artifact_bool(path, e, "priced", &priced));
        PF_TRY(pf_llm_usage_add(u, name, calls, pt, ct, s));
        PF_TRY(pf_artifact_num(path, e, "cost", &u->b[u->n - 1].cost, NULL));
        u->b[u->n - 1].priced = priced;
    }
    return PF_OK;
}

pf_status pf_final_file_write(const char *path, const pf_final_file *f)
{
    json_t *o = pf_artifact_begin("pinnforge.final");
    if (!o) return pf_fail(PF_ERR_NOMEM, "out of memory building '%s'", path);
    json_object_set_new(o, "pde", json_string(f->pde));
    json_object_set_new(o, "method", json_string(f->method));
    json_object_set_new(o, "run", json_integer(f->run));
    json_object_set_new(o, "profile", json_string(f->profile));
    json_object_set_new(o, "spec", json_incref(f->spec));
    json_object_set_new(o, "spec_hash", json_string(f->spec_hash));
    json_object_set_new(o, "hf_mse", json_real(f->hf_mse));
    json_object_set_new(o, "lf_mse", isfinite(f->lf_mse) ? json_real(f->lf_mse) : json_null()); /* null: a baseline */
    json_object_set_new(o, "found_in", json_string(f->found_in));
    json_object_set_new(o, "result", json_string(f->result));
    json_t *top = json_array();
    for (int k = 0; k < f->ntop; k++) {
        const pf_final_top *t = &f->top[k];
        json_array_append_new(top, json_pack("{s:s, s:f, s:o, s:s, s:I}", "spec_hash", t->spec_hash, "y_low", t->y_low,
                                             "y_high", t->has_y_high ? json_real(t->y_high) : json_null(), "status",
                                             t->status, "seed", (json_int_t)t->seed));
    }
    json_object_set_new(o, "top3", top);
    size_t keys = 17;
    json_t *cand = json_array();
    for (int k = 0; k < f->ncand; k++) {
        const pf_final_cand *c = &f->cand[k];
        json_array_append_new(cand, json_pack("{s:s, s:o, s:s, s:I}", "spec_hash", c->spec_hash, "y",
                                              c->has_y ? json_real(c->y) : json_null(), "status", c->status, "seed",
                                              (json_int_t)c->seed));
    }
    if (f->ncand) json_object_set_new(o, "candidates", cand), keys++;
    else json_decref(cand);
    json_object_set_new(o, "generations", json_integer(f->generations));
    json_object_set_new(o, "stop_reason", text_or_empty(f->stop_reason));
    json_object_set_new(o, "stopped", f->stopped[0] ? json_string(f->stopped) : json_null());
    json_object_set_new(o, "budget", budget_json(&f->budget));
    if (f->eval[0]) json_object_set_new(o, "eval", json_string(f->eval)), keys++;
    if (f->has_report) json_object_set_new(o, "report_mse", json_real(f->report_mse)), keys++;
    if (f->physics_check) json_object_set_new(o, "physics_check", json_incref(f->physics_check)), keys++;
    if (f->time_budget) json_object_set_new(o, "time_budget", json_incref(f->time_budget)), keys++;
    if (json_array_size(top) != (size_t)f->ntop) json_object_del(o, "top3");
    if (f->ncand && json_array_size(cand) != (size_t)f->ncand) json_object_del(o, "candidates");
    return pf_artifact_finish(path, o, keys);
}

/* a number at o[a][b] (b may be NULL), NaN when absent */
static pf_status budget_num(const char *path, const json_t *o, const char *a, const char *b, double *v)
{
    *v = NAN;
    const json_t *x = json_object_get(o, a);
    if (b) x = json_object_get(x, b);
    if (!x || json_is_null(x)) return PF_OK;
    if (!json_is_number(x)) return pf_fail(PF_ERR_INVALID, "'%s': budget \"%s%s%s\" needs a number", path, a,
                                           b ? "." : "", b ? b : "");
    *v = json_number_value(x);
    return PF_OK;
}

static pf_status budget_count(const char *path, const json_t *o, const char *a, const char *b, long *v)
{
    double x;
    PF_TRY(budget_num(path, o, a, b, &x));
    *v = isfinite(x) ? (long)x : 0;
    return PF_OK;
}

static pf_status final_parse(const char *path, const json_t *o, void *out)
{
    pf_final_file *f = out;
    long run = 0, gens = 0;
    PF_TRY(pf_artifact_str(path, o, "pde", false, f->pde, sizeof f->pde));
    PF_TRY(pf_artifact_str(path, o, "method", false, f->method, sizeof f->method));
    PF_TRY(pf_artifact_str(path, o, "profile", false, f->profile, sizeof f->profile));
    PF_TRY(pf_artifact_int(path, o, "run", false, 0, INT32_MAX, &run));
    f->run = (int)run;
    bool has_hf = false;
    PF_TRY(pf_artifact_num(path, o, "hf_mse", &f->hf_mse, &has_hf));
    if (!has_hf || !(f->hf_mse >= 0)) return pf_fail(PF_ERR_INVALID, "'%s': hf_mse is missing or not a number >= 0", path);
    PF_TRY(pf_artifact_num(path, o, "lf_mse", &f->lf_mse, NULL));
    json_t *spec = json_object_get(o, "spec");
    if (spec && !json_is_object(spec) && !json_is_null(spec))
        return pf_fail(PF_ERR_INVALID, "'%s': \"spec\" needs an object", path);
    f->spec = json_is_object(spec) ? json_incref(spec) : NULL;
    PF_TRY(pf_artifact_str(path, o, "spec_hash", false, f->spec_hash, sizeof f->spec_hash));
    PF_TRY(pf_artifact_str(path, o, "found_in", false, f->found_in, sizeof f->found_in));
    PF_TRY(pf_artifact_str(path, o, "result", false, f->result, sizeof f->result));
    PF_TRY(pf_artifact_int(path, o, "generations", false, 0, PF_RUN_MAX_GENERATION + 1, &gens));
    f->generations = (int)gens;
    PF_TRY(pf_artifact_text(path, o, "stop_reason", &f->stop_reason));
    if (!json_is_null(json_object_get(o, "stopped")))
        PF_TRY(pf_artifact_str(path, o, "stopped", false, f->stopped, sizeof f->stopped));
    const json_t *top = json_object_get(o, "top3");
    if (top && (!json_is_array(top) || json_array_size(top) > PF_RUN_TOP))
        return pf_fail(PF_ERR_INVALID, "'%s': \"top3\" needs an array of at most %d entries", path, PF_RUN_TOP);
    for (size_t k = 0; k < json_array_size(top); k++) {
        const json_t *e = json_array_get(top, k);
        pf_final_top *t = &f->top[k];
        long seed = 0;
        t->y_low = t->y_high = NAN;
        if (!json_is_object(e)) return pf_fail(PF_ERR_INVALID, "'%s': top3[%zu] needs an object", path, k);
        PF_TRY(pf_artifact_str(path, e, "spec_hash", false, t->spec_hash, sizeof t->spec_hash));
        PF_TRY(pf_artifact_num(path, e, "y_low", &t->y_low, NULL));
        PF_TRY(pf_artifact_num(path, e, "y_high", &t->y_high, &t->has_y_high));
        PF_TRY(pf_artifact_str(path, e, "status", false, t->status, sizeof t->status));
        PF_TRY(pf_artifact_int(path, e, "seed", false, 0, LONG_MAX, &seed));
        t->seed = (uint64_t)seed;
        f->ntop = (int)k + 1;
    }
    const json_t *cand = json_object_get(o, "candidates");
    if (cand && (!json_is_array(cand) || json_array_size(cand) > PF_RUN_BASELINE_CANDIDATES))
        return pf_fail(PF_ERR_INVALID, "'%s': \"candidates\" needs an array of at most %d entries", path,
                       PF_RUN_BASELINE_CANDIDATES);
    for (size_t k = 0; k < json_array_size(cand); k++) {
        const json_t *e = json_array_get(cand, k);
        pf_final_cand *c = &f->cand[k];
        long seed = 0;
        c->y = NAN;
        if (!json_is_object(e)) return pf_fail(PF_ERR_INVALID, "'%s': candidates[%zu] needs an object", path, k);
        PF_TRY(pf_artifact_str(path, e, "spec_hash", false, c->spec_hash, sizeof c->spec_hash));
        PF_TRY(pf_artifact_num(path, e, "y", &c->y, &c->has_y));
        PF_TRY(pf_artifact_str(path, e, "status", false, c->status, sizeof c->status));
        PF_TRY(pf_artifact_int(path, e, "seed", false, 0, LONG_MAX, &seed));
        c->seed = (uint64_t)seed;
        f->ncand = (int)k + 1;
    }
    PF_TRY(pf_artifact_str(path, o, "eval", false, f->eval, sizeof f->eval));
    PF_TRY(pf_artifact_num(path, o, "report_mse", &f->report_mse, &f->has_report));
    json_t *chk = json_object_get(o, "physics_check");
    if (chk && !json_is_object(chk)) return pf_fail(PF_ERR_INVALID, "'%s': \"physics_check\" needs a map", path);
    f->physics_check = chk ? json_incref(chk) : NULL;
    json_t *tb = json_object_get(o, "time_budget");
    if (tb && !json_is_object(tb)) return pf_fail(PF_ERR_INVALID, "'%s': \"time_budget\" needs a map", path);
    f->time_budget = tb ? json_incref(tb) : NULL;
    const json_t *b = json_object_get(o, "budget");
    pf_run_budget *u = &f->budget;
    PF_TRY(budget_count(path, b, "optimizer_steps", "low_fidelity", &u->steps_low));
    PF_TRY(budget_count(path, b, "optimizer_steps", "high_fidelity", &u->steps_high));
    PF_TRY(budget_count(path, b, "optimizer_steps", "baseline", &u->steps_baseline));
    PF_TRY(budget_num(path, b, "wall_s", "low_fidelity", &u->wall_low));
    PF_TRY(budget_num(path, b, "wall_s", "high_fidelity", &u->wall_high));
    PF_TRY(budget_num(path, b, "wall_s", "baseline", &u->wall_baseline));
    PF_TRY(budget_num(path, b, "wall_s", "llm", &u->llm_s));
    PF_TRY(budget_count(path, b, "llm", "calls", &u->calls));
    PF_TRY(budget_count(path, b, "llm", "prompt_tokens", &u->prompt_tokens));
    PF_TRY(budget_count(path, b, "llm", "completion_tokens", &u->completion_tokens));
    PF_TRY(budget_num(path, b, "llm", "cost", &u->cost));
    const json_t *pr = json_object_get(json_object_get(b, "llm"), "priced");
    if (pr && !json_is_boolean(pr)) return pf_fail(PF_ERR_INVALID, "'%s': budget \"llm.priced\" needs true or false", path);
    u->priced = json_is_true(pr);
    PF_TRY(backbones_read(path, json_object_get(b, "llm_backbones"), &u->llm_by));
    PF_TRY(budget_count(path, b, "candidates", NULL, &u->candidates));
    return budget_count(path, b, "invalid", NULL, &u->invalid);
}

pf_status pf_final_file_read(const char *path, pf_final_file *f)
{
    memset(f, 0, sizeof *f);
    f->hf_mse = f->lf_mse = NAN;
    pf_status st = pf_artifact_load(path, "pinnforge.final", final_parse, f);
    if (st != PF_OK) pf_final_file_release(f);
    return st;
}

void pf_final_file_release(pf_final_file *f)
{
    json_decref(f->physics_check);
    f->physics_check = NULL;
    json_decref(f->time_budget);
    f->time_budget = NULL;
    json_decref(f->spec);
    free(f->stop_reason);
    f->spec = NULL;
    f->stop_reason = NULL;
}
