/*
 * transcript.h — LLM requests and responses, and the content-addressed
 * transcript store that makes every run replayable.
 *
 * Every call, whatever the provider (http, replay, offline), is stored in
 * the run's llm/ folder under the SHA-256 of its CANONICAL request: the
 * compact JSON {"model", "messages": [{"role", "content"}, ...],
 * "temperature", "slot"} (keys in this order, reals with %.17g). The
 * maximum token count and the offline proposer's structured context are
 * stored with the request but are not part of its address: the same
 * question asked again is the same transcript.
 *
 *     pf_llm_message msg[2] = {{"system", sys}, {"user", prompt}};
 *     pf_llm_request q = {.model = "qwen", .nmsg = 2, .msg = msg,
 *                         .temperature = 0.7, .max_tokens = 4096, .slot = "gen03/refine"};
 *     pf_llm_response a = {...};                   // from a provider
 *     PF_TRY(pf_transcript_write("runs/p/run0/llm", &q, &a));
 *     ...
 *     pf_llm_response b;
 *     PF_TRY(pf_transcript_read("runs/p/run0/llm", &q, &b));   // replay
 *     pf_llm_response_release(&b);
 *
 * A transcript file <hash>.msgpack (written atomically) holds
 *   {"format": "pinnforge.transcript", "version": 1, "hash",
 *    "request": {model, messages, temperature, slot, max_tokens[, context]},
 *    "response": text, "usage": {"prompt_tokens", "completion_tokens"},
 *    "latency_s", "provider"[, "backbone"][, "unusable"]}.
 * "backbone" names the backbone that answered (llm/backbones.h; "offline"
 * for the offline proposer), absent when none was named (PF_LLM_URL) and in
 * transcripts older than backbones; the accounting (llm/usage.h) reads it.
 * "unusable" is there only for a call whose server never gave a usable
 * answer (pf_llm_response.unusable; "response" is then ""): the call is
 * settled all the same, so a rerun or a replay settles it the same way.
 * Nothing else: no header, no URL, no key — secrets never reach disk (the
 * http provider scrubs the key from the answer before it is returned, so a
 * model that repeats it is stored with "[REDACTED]"; llm/secret.h).
 */
#ifndef PF_LLM_TRANSCRIPT_H
#define PF_LLM_TRANSCRIPT_H

#include <jansson.h>
#include <stdbool.h>

#include "core/sha256.h"
#include "core/status.h"

/* A backbone's name with its NUL (llm/backbones.h: at most 64 characters). */
#define PF_LLM_NAME_MAX 65

typedef struct pf_llm_message {
    const char *role;     /* "system", "user", "assistant" */
    const char *content;
} pf_llm_message;

typedef struct pf_llm_request {
    const char *model;
    int nmsg;
    const pf_llm_message *msg;
    double temperature;
    int max_tokens;
    const char *slot;     /* which proposal this is, e.g. "gen00/role3" */
    /* The structured context the prompt was rendered from (offline.h gives
     * its shape), for the offline proposer; NULL when there is none. It is
     * stored with the request but is not part of its address: the messages
     * already carry everything it says. */
    const json_t *context;
} pf_llm_request;

typedef struct pf_llm_response {
    char *text;           /* malloc'ed; "" when unusable is set */
    /* NULL for an answer. Set (malloc'ed, valid UTF-8, no key) when the
     * server answered but never with anything usable, every retry spent
     * (http: a 2xx body that is not JSON, or whose message content is
     * null): why, in words for a proposal's reasons. The caller treats the
     * call as an invalid answer that ends its slot. */
    char *unusable;
    /* NULL for a call. Set (malloc'ed) when the run's LLM budget was spent
     * before the call (pf_llm_call with a budget, llm/provider.h): no call
     * was made, nothing is stored, text is "", and this says why. */
    char *stopped;
    long prompt_tokens, completion_tokens;
    double latency_s;
    char provider[32];    /* "http", "replay", "offline" */
    char backbone[PF_LLM_NAME_MAX]; /* who answered: a backbone's name, "offline", or "" (PF_LLM_URL) */
} pf_llm_response;

void pf_llm_response_release(pf_llm_response *r);

/* The canonical request text (malloc'ed) and its SHA-256. */
char *pf_llm_request_canonical(const pf_llm_request *q);
pf_status pf_llm_request_hash(const pf_llm_request *q, char hex[PF_SHA256_HEX]);

/* Store the call in dir/<hash>.msgpack (dir must exist), atomically. */
pf_status pf_transcript_write(const char *dir, const pf_llm_request *q, const pf_llm_response *r);

/* Whether dir holds a transcript at q's address (dir/<hash>.msgpack). */
bool pf_transcript_exists(const char *dir, const pf_llm_request *q);

/* The stored response to q. A miss is PF_ERR_IO naming the request hash
 * and the folder; a file whose request differs from q (a hash collision or
 * an edited file) is PF_ERR_INVALID. provider is the one that answered. */
pf_status pf_transcript_read(const char *dir, const pf_llm_request *q, pf_llm_response *r);

#endif
