/*
 * provider.c — the provider layer's dispatch (provider.h): options from the
 * environment, choosing a provider, timing and naming its answers, and
 * storing every answered call as a transcript.
 *
 * The providers themselves live in http.c, replay.c and offline.c; each
 * fills a pf_llm_vtable and an opaque self pointer. This file owns what is
 * common to all of them: the response is zeroed on failure, its latency is
 * measured here when the provider leaves it 0 (http: the whole call,
 * retries included), and its provider name is set here when the provider
 * leaves it empty (replay keeps the name recorded in the transcript, so a
 * replayed run reproduces the original run's records byte for byte).
 */
#include "llm/provider.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/parse.h"
#include "llm/backbones.h"
#include "llm/usage.h"

struct pf_llm_provider {
    pf_llm_kind kind;
    const pf_llm_vtable *vt;
    void *self;
    char *transcripts; /* copy of o.transcripts, NULL: do not store */
    char *describe;
    char *backbone;    /* copy of o.backbone, NULL: none named */
    long max_tokens;   /* the run's LLM budget (0: none) */
    double max_cost;
};

static const char *const KIND_NAMES[PF_LLM_KIND_COUNT] = {"offline", "http", "replay"};

const char *pf_llm_kind_name(pf_llm_kind k)
{
    if (k == PF_LLM_AUTO) return "auto";
    if (k >= 0 && k < PF_LLM_KIND_COUNT) return KIND_NAMES[k];
    return "?";
}

pf_status pf_llm_kind_from_name(const char *name, pf_llm_kind *out)
{
    if (name) {
        for (int k = 0; k < PF_LLM_KIND_COUNT; k++)
            if (strcmp(name, KIND_NAMES[k]) == 0) {
                *out = (pf_llm_kind)k;
                return PF_OK;
            }
        if (strcmp(name, "auto") == 0) {
            *out = PF_LLM_AUTO;
            return PF_OK;
        }
    }
    return pf_fail(PF_ERR_INVALID, "unknown LLM provider '%s' (expected offline, http, replay or auto)",
                   name ? name : "(null)");
}

void pf_llm_options_default(pf_llm_options *o)
{
    *o = (pf_llm_options){
        .kind = PF_LLM_AUTO,
        .url = NULL,
        .model = "offline-rules",
        .connect_timeout_s = 10,
        .timeout_s = 300,
        .max_attempts = 5,
        .backoff_s = 1,
        .backoff_max_s = 30,
        .transcripts = NULL,
        .seed = 0,
    };
}

/* The variable's value, NULL when unset or empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* Every backbones table PF_LLM_BACKBONE loaded, kept (reachable) for the
 * rest of the process: the options point into them. */
typedef struct kept_table {
    pf_llm_backbones *t;
    struct kept_table *next;
} kept_table;
static kept_table *kept;

/* o takes the backbone `name` (provider.h pf_llm_options_for_backbone): one of
 * the file, "offline", or a mixture, whose first backbone applies. */
static pf_status use_backbone(pf_llm_options *o, const char *name)
{
    if (strcmp(name, "offline") == 0) {
        o->kind = PF_LLM_OFFLINE;
        return PF_OK;
    }
    pf_llm_backbones *t;
    if (pf_llm_backbones_load(NULL, &t) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "PF_LLM_BACKBONE='%s': %s", name, pf_errmsg());
    const pf_llm_backbone *b;
    pf_status st = pf_llm_backbones_first(t, name, &b);
    if (st != PF_OK) {
        st = pf_fail(PF_ERR_INVALID, "PF_LLM_BACKBONE: %s", pf_errmsg());
        pf_llm_backbones_free(t);
        return st;
    }
    kept_table *k = malloc(sizeof *k);
    if (!k) {
        pf_llm_backbones_free(t);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    *k = (kept_table){t, kept};
    kept = k;
    pf_llm_backbone_apply(b, o); /* a mixture's first: what a caller that draws no arm uses */
    if (pf_llm_is_mix(name)) o->mix = name; /* search/backbone_mix.h draws each proposal's */
    return PF_OK;
}

pf_status pf_llm_options_from_env(pf_llm_options *o)
{
    return pf_llm_options_for_backbone(o, env("PF_LLM_BACKBONE"));
}

pf_status pf_llm_options_for_backbone(pf_llm_options *o, const char *backbone)
{
    pf_llm_options_default(o);
    const char *v;
    if ((v = env("PF_LLM_URL"))) o->url = v;
    if ((v = env("PF_LLM_MODEL"))) o->model = v;
    if (backbone && *backbone) PF_TRY(use_backbone(o, backbone));
    if ((v = env("PF_LLM_PROVIDER"))) {
        if (pf_llm_kind_from_name(v, &o->kind) != PF_OK)
            return pf_fail(PF_ERR_INVALID, "PF_LLM_PROVIDER='%s': expected offline, http, replay or auto", v);
    }
    if ((v = env("PF_LLM_TIMEOUT"))) {
        char *end;
        errno = 0;
        double t = strtod(v, &end);
        if (end == v || *end || errno || !isfinite(t) || t <= 0)
            return pf_fail(PF_ERR_INVALID,
                           "PF_LLM_TIMEOUT='%s': expected a positive number of seconds per attempt (e.g. 300)", v);
        o->timeout_s = t;
    }
    if ((v = env("PF_LLM_RETRIES"))) {
        long n;
        if (pf_parse_long(v, 0, 100, &n) != PF_OK)
            return pf_fail(PF_ERR_INVALID,
                           "PF_LLM_RETRIES='%s': expected a whole number of retries after the first attempt, "
                           "0 to 100 (e.g. 4)", v);
        o->max_attempts = (int)n + 1;
    }
    return PF_OK;
}

static char *dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

pf_status pf_llm_provider_alloc(const pf_llm_options *o, pf_llm_provider **out)
{
    *out = NULL;
    pf_llm_kind kind = o->kind;
    if (kind == PF_LLM_AUTO) kind = o->url && *o->url ? PF_LLM_HTTP : PF_LLM_OFFLINE;
    if (kind < 0 || kind >= PF_LLM_KIND_COUNT) return pf_fail(PF_ERR_INVALID, "invalid LLM provider kind %d", (int)kind);
    if (kind == PF_LLM_HTTP && !(o->url && *o->url))
        return pf_fail(PF_ERR_INVALID, "the http LLM provider needs a URL: set PF_LLM_URL "
                                       "(e.g. http://localhost:8000/v1)");
    if (kind == PF_LLM_REPLAY && !(o->transcripts && *o->transcripts))
        return pf_fail(PF_ERR_INVALID, "the replay LLM provider needs the run's transcripts folder (llm/)");

    pf_llm_provider *p = calloc(1, sizeof *p);
    if (!p) return pf_fail(PF_ERR_NOMEM, "out of memory");
    p->kind = kind;
    if ((o->transcripts && *o->transcripts && !(p->transcripts = strdup(o->transcripts))) ||
        (o->backbone && !(p->backbone = strdup(o->backbone)))) {
        pf_llm_provider_free(p);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    switch (kind) {
    case PF_LLM_HTTP:
        p->describe = dup_printf("http %s model %s%s%s%s", o->url, o->model ? o->model : "",
                                 o->backbone ? " (backbone " : "", o->backbone ? o->backbone : "",
                                 o->backbone ? ")" : "");
        break;
    case PF_LLM_REPLAY: p->describe = dup_printf("replay %s", o->transcripts); break;
    default: p->describe = strdup("offline rule-based proposer (no LLM)"); break;
    }
    if (!p->describe) {
        pf_llm_provider_free(p);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    pf_status st;
    switch (kind) {
    case PF_LLM_HTTP: st = pf_llm_http_alloc(o, &p->vt, &p->self); break;
    case PF_LLM_REPLAY: st = pf_llm_replay_alloc(o, &p->vt, &p->self); break;
    default: st = pf_llm_offline_alloc(o, &p->vt, &p->self); break;
    }
    if (st != PF_OK) {
        p->vt = NULL;
        pf_llm_provider_free(p);
        return st;
    }
    *out = p;
    return PF_OK;
}

void pf_llm_provider_free(pf_llm_provider *p)
{
    if (!p) return;
    if (p->vt && p->vt->free) p->vt->free(p->self);
    free(p->transcripts);
    free(p->describe);
    free(p->backbone);
    free(p);
}

pf_llm_kind pf_llm_provider_kind(const pf_llm_provider *p) { return p->kind; }

const char *pf_llm_provider_describe(const pf_llm_provider *p) { return p->describe; }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

pf_status pf_llm_complete(pf_llm_provider *p, const pf_llm_request *q, pf_llm_response *r)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    pf_status st = p->vt->complete(p->self, q, r);
    double dt = now_s() - t0;
    if (st == PF_OK && !r->text) st = pf_fail(PF_ERR_INVALID, "the %s LLM provider returned no text", pf_llm_kind_name(p->kind));
    if (st != PF_OK) {
        pf_llm_response_release(r);
        return st;
    }
    if (r->latency_s == 0) r->latency_s = dt > 0 ? dt : 1e-9;
    if (!r->provider[0]) snprintf(r->provider, sizeof r->provider, "%s", pf_llm_kind_name(p->kind));
    /* who answered: replay keeps the transcript's name; an older transcript
     * without one was answered by the offline proposer or this backbone */
    const char *who = !strcmp(r->provider, "offline") ? "offline" : p->backbone;
    if (!r->backbone[0] && who) snprintf(r->backbone, sizeof r->backbone, "%s", who);
    return PF_OK;
}

void pf_llm_provider_set_budget(pf_llm_provider *p, long max_tokens, double max_cost)
{
    p->max_tokens = max_tokens > 0 ? max_tokens : 0;
    p->max_cost = max_cost > 0 ? max_cost : 0;
}

/* Whether the run's budget is spent before q's generation, from the calls
 * stored for the earlier ones (all of them, when q's slot names none): *why
 * (malloc'ed) when it is, NULL when a call may be made. Those calls are all
 * made before any of q's generation (make's order), so the answer does not
 * depend on which of the generation's calls ran first (-j). */
static pf_status budget_spent(const pf_llm_provider *p, const pf_llm_request *q, char **why)
{
    *why = NULL;
    pf_llm_usage u = {0};
    int g = pf_llm_slot_generation(q->slot);
    PF_TRY(pf_llm_usage_of_transcripts(p->transcripts, g, &u));
    char before[48] = "";
    if (g >= 0) snprintf(before, sizeof before, " before generation %d", g);
    long tokens = pf_llm_usage_tokens(&u);
    if (p->max_tokens && tokens >= p->max_tokens) {
        *why = dup_printf("the run's LLM budget is spent: its %ld calls stored%s used %ld tokens of LLM_MAX_TOKENS=%ld",
                          pf_llm_usage_calls(&u), before, tokens, p->max_tokens);
        return *why ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    if (!p->max_cost) return PF_OK;
    pf_llm_backbones *t;
    PF_TRY(pf_llm_prices(&t));
    pf_llm_usage_price(&u, t);
    pf_llm_backbones_free(t);
    for (int i = 0; i < u.n; i++)
        if (!u.b[i].priced)
            return pf_fail(PF_ERR_INVALID,
                           "LLM_MAX_COST: the run's calls to '%s' have no price (a server named by PF_LLM_URL, or a "
                           "backbone the backbones file does not list): name a backbone of the file with prices "
                           "(PF_LLM_BACKBONE, LLMS_FILE), or cap the tokens instead (LLM_MAX_TOKENS)", u.b[i].name);
    double cost = pf_llm_usage_cost(&u);
    if (cost >= p->max_cost) {
        *why = dup_printf("the run's LLM budget is spent: its %ld calls stored%s cost %.6g of LLM_MAX_COST=%.6g",
                          pf_llm_usage_calls(&u), before, cost, p->max_cost);
        return *why ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    return PF_OK;
}

pf_status pf_llm_call(pf_llm_provider *p, const pf_llm_request *q, pf_llm_response *r)
{
    /* A stage killed after an http call was stored, before its own output,
     * asks the same question when make reruns it: the stored answer is that
     * call, so a completed call is never paid for (or answered anew) twice. */
    bool stored = p->transcripts && pf_transcript_exists(p->transcripts, q);
    if (p->kind == PF_LLM_HTTP && stored) return pf_transcript_read(p->transcripts, q, r);
    if ((p->max_tokens || p->max_cost) && p->transcripts && !stored) {
        memset(r, 0, sizeof *r);
        PF_TRY(budget_spent(p, q, &r->stopped));
        if (r->stopped) {
            snprintf(r->provider, sizeof r->provider, "%s", pf_llm_kind_name(p->kind));
            const char *who = p->kind == PF_LLM_OFFLINE ? "offline" : p->backbone;
            if (who) snprintf(r->backbone, sizeof r->backbone, "%s", who);
            if (!(r->text = strdup(""))) {
                pf_llm_response_release(r);
                return pf_fail(PF_ERR_NOMEM, "out of memory");
            }
            return PF_OK;
        }
    }
    PF_TRY(pf_llm_complete(p, q, r));
    if (p->kind == PF_LLM_REPLAY || !p->transcripts) return PF_OK;
    pf_status st = pf_transcript_write(p->transcripts, q, r);
    if (st != PF_OK) pf_llm_response_release(r);
    return st;
}
