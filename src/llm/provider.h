/*
 * provider.h — one interface to whoever answers a prompt.
 *
 *     pf_llm_options o;
 *     pf_llm_options_from_env(&o);             // PF_LLM_URL, PF_LLM_MODEL, ...
 *     o.transcripts = "runs/poisson_5d/pinnforge/run0/llm";
 *     pf_llm_provider *p;
 *     PF_TRY(pf_llm_provider_alloc(&o, &p));   // kind: o.kind, else http if a URL is set, else offline
 *     pf_llm_response r;
 *     PF_TRY(pf_llm_call(p, &q, &r));          // complete, then store the transcript
 *     ...
 *     pf_llm_response_release(&r);
 *     pf_llm_provider_free(p);
 *
 * Providers:
 *   http     OpenAI-compatible POST {url}/chat/completions through libcurl
 *            (OpenAI, vLLM, Ollama, llama.cpp server, ...). The API key is
 *            read from PF_LLM_API_KEY when the provider is made, sent in the
 *            Authorization header, and never written, logged or echoed in an
 *            error message: whatever the server sends back is scrubbed of
 *            it on arrival (secret.h), so r->text never holds it, nor any
 *            piece of it of 8+ characters. Retries 429, 5xx, timeouts,
 *            and a 200 whose body is not JSON (a proxy's error page) or
 *            whose choices[0].message.content is null, with bounded
 *            exponential backoff; 401, 404 and other malformed bodies are
 *            errors that say what to check. When the retries are spent on
 *            an answer of the last kind, the call is settled as unusable
 *            (pf_llm_response.unusable, transcript.h), not failed: its
 *            slot ends like an invalid answer and the search goes on.
 *            With o.max_in_flight > 0, each request (its retries
 *            included) first takes one of that many slots shared by all
 *            processes (core/slots.h, folder $PF_LLM_SLOTS_DIR or the temp
 *            dir, named by the backbone and a hash of the URL), and gives it
 *            back when the answer or the error is in.
 *   replay   answers only from the transcripts in o.transcripts; a miss is an
 *            error naming the request hash and the folder.
 *   offline  the offline rule-based proposer (no LLM), offline.h: reads the
 *            request's structured context, deterministic given o.seed.
 *
 * pf_llm_call() stores every answered call under o.transcripts (when set),
 * whatever the provider; replay does not store again.
 *
 * A run's LLM budget (LLM_MAX_TOKENS, LLM_MAX_COST; docs/llm.md, "Cost
 * budget"): after pf_llm_provider_set_budget(), pf_llm_call() first sums
 * the calls stored in o.transcripts for the generations before the
 * request's (its slot's "genGG/"; all, for a slot without one; llm/usage.h:
 * every process's, so the sum is exact across make's jobs and restarts, and
 * the same whichever of a generation's calls ran first) and, when they have
 * reached a cap, makes no call: the response says so in r->stopped. A call already
 * stored there is answered as before, whatever the budget: it costs nothing
 * new.
 */
#ifndef PF_LLM_PROVIDER_H
#define PF_LLM_PROVIDER_H

#include <stdint.h>

#include "core/status.h"
#include "llm/transcript.h"

typedef enum pf_llm_kind {
    PF_LLM_OFFLINE = 0, /* "offline" */
    PF_LLM_HTTP,        /* "http"    */
    PF_LLM_REPLAY,      /* "replay"  */
    PF_LLM_KIND_COUNT,
    PF_LLM_AUTO = -1    /* http when url is set, else offline */
} pf_llm_kind;

const char *pf_llm_kind_name(pf_llm_kind k);
pf_status pf_llm_kind_from_name(const char *name, pf_llm_kind *out);

typedef struct pf_llm_options {
    pf_llm_kind kind;
    const char *url;          /* http: base URL, e.g. "http://127.0.0.1:8000/v1" */
    const char *model;        /* the model name sent in requests (all providers) */
    double connect_timeout_s; /* http: TCP connect limit (default 10)           */
    double timeout_s;         /* http: whole-request limit per attempt (default 300) */
    int max_attempts;         /* http: attempts per call, >= 1 (default 5)      */
    double backoff_s;         /* http: first retry delay, doubled each retry (default 1) */
    double backoff_max_s;     /* http: cap on one delay (default 30)            */
    const char *transcripts;  /* the run's llm/ folder; NULL: do not store (replay needs it) */
    uint64_t seed;            /* offline: the run's seed                         */
    /* From a backbone (llm/backbones.h, PF_LLM_BACKBONE); the defaults leave them off. */
    const char *backbone;     /* its name, NULL: none (PF_LLM_URL)              */
    const char *key_env;      /* http: the variable holding the key; NULL: PF_LLM_API_KEY, "": no key */
    const char *extra_json;   /* http: a JSON object of extra request fields merged into each body
                                 over the request's own (temperature, reasoning_effort, ...); NULL: none */
    int max_in_flight;        /* http: requests at once over all processes (core/slots.h); 0: no limit */
    const char *mix;          /* a mixture "mix:a,b,c" (BACKBONE; llm/backbones.h): the arms a search
                                 draws from per proposal (search/backbone_mix.h); the first is
                                 applied; NULL: none */
    double price_in, price_out; /* per million prompt / completion tokens (the cost budget
                                   and the accounting price calls from the file: llm/usage.h) */
} pf_llm_options;

/* Defaults (kind AUTO, model "offline-rules", timeouts and retries as above)
 * overridden by PF_LLM_URL, PF_LLM_MODEL, PF_LLM_PROVIDER (offline, http or
 * replay), PF_LLM_TIMEOUT and PF_LLM_RETRIES. PF_LLM_BACKBONE=name takes
 * the url, model, key variable, extra request fields, prices and
 * max_in_flight of that backbone of the backbones file (llm/backbones.h:
 * $LLMS_FILE, else data/llms.json) instead of PF_LLM_URL and PF_LLM_MODEL,
 * and kind http; "offline" is kind offline and reads no file; an unknown
 * name is PF_ERR_INVALID listing the file's names; a mixture
 * "mix:a,b,c" takes its first backbone and sets o->mix. The file's table is
 * kept for the rest of the process (o points into it). PF_LLM_API_KEY (or
 * the backbone's key variable) is NOT read here: only the http provider
 * reads it, into memory it owns. PF_ERR_INVALID for an unparsable value.
 * The other strings point into the environment. */
pf_status pf_llm_options_from_env(pf_llm_options *o);

void pf_llm_options_default(pf_llm_options *o);

/* pf_llm_options_from_env with the backbone `backbone` in place of
 * PF_LLM_BACKBONE, which is not read: NULL or "" names none (PF_LLM_URL and
 * PF_LLM_MODEL then apply), "offline" is kind offline, a mixture
 * "mix:a,b,c" (or its folder spelling mix+a+b+c; llm/backbones.h
 * pf_llm_mix_parse) applies its first backbone and sets o->mix, any other
 * name is the backbones file's. A run's provider is made this way, with the
 * backbone its context.json records (search/run.h). */
pf_status pf_llm_options_for_backbone(pf_llm_options *o, const char *backbone);

typedef struct pf_llm_provider pf_llm_provider;

/* The provider o selects (see pf_llm_kind). http without a URL, or replay
 * without a transcripts folder, is PF_ERR_INVALID. */
pf_status pf_llm_provider_alloc(const pf_llm_options *o, pf_llm_provider **out);
void pf_llm_provider_free(pf_llm_provider *p);
pf_llm_kind pf_llm_provider_kind(const pf_llm_provider *p);
/* "offline rule-based proposer (no LLM)", "http <url> model <model>", "replay <dir>". */
const char *pf_llm_provider_describe(const pf_llm_provider *p);

/* The run's LLM budget: at most max_tokens prompt + completion tokens and
 * max_cost in the backbones file's currency over every call stored in the
 * transcripts folder (0: no cap). A cost cap needs every stored call priced
 * (llm/usage.h): pf_llm_call() refuses, naming the backbone, otherwise. */
void pf_llm_provider_set_budget(pf_llm_provider *p, long max_tokens, double max_cost);

/* Ask. r is filled (text, token usage, latency, provider) on PF_OK and
 * zeroed otherwise; on PF_OK r->unusable may be set instead of an answer
 * (r->text is then ""): the server answered, but never usably. Nothing is
 * stored. */
pf_status pf_llm_complete(pf_llm_provider *p, const pf_llm_request *q, pf_llm_response *r);

/* pf_llm_complete(), then pf_transcript_write() under o.transcripts (unless
 * the provider is replay or no folder was given); an unusable answer is
 * stored too, so that a rerun or a replay settles the call the same way. The http provider first
 * looks in o.transcripts: a request already stored there (a stage killed
 * after the call, before its output, and rerun) is answered from it, not
 * sent again. With a budget (above) that is spent, a call not stored
 * returns PF_OK with r->stopped set (why), r->text "" and nothing stored. */
pf_status pf_llm_call(pf_llm_provider *p, const pf_llm_request *q, pf_llm_response *r);

/* ---- for the provider implementations (provider.c dispatches) ---- */
typedef struct pf_llm_vtable {
    pf_status (*complete)(void *self, const pf_llm_request *q, pf_llm_response *r);
    void (*free)(void *self);
} pf_llm_vtable;

pf_status pf_llm_http_alloc(const pf_llm_options *o, const pf_llm_vtable **vt, void **self);
pf_status pf_llm_replay_alloc(const pf_llm_options *o, const pf_llm_vtable **vt, void **self);
pf_status pf_llm_offline_alloc(const pf_llm_options *o, const pf_llm_vtable **vt, void **self);

#endif
