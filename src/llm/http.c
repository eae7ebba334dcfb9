/*
 * http.c — the http LLM provider (provider.h): OpenAI-compatible chat
 * completions through libcurl.
 *
 *   POST {url}/chat/completions          (a trailing '/' of url is dropped;
 *                                         a url that already ends in
 *                                         /chat/completions is used as is)
 *   Content-Type: application/json
 *   Authorization: Bearer $PF_LLM_API_KEY (only when set and non-empty;
 *                  a backbone's key_env names another variable, or none)
 *   {"model", "messages": [{"role", "content"}, ...], "temperature",
 *    "max_tokens" (when > 0), "stream": false, then a backbone's extra
 *    options (o.extra_json), which replace fields of the same name}
 *
 * With o.max_in_flight > 0 every attempt first takes one of that many
 * slots (core/slots.h) named "<backbone or http>-<12 hex digits of the
 * endpoint's SHA-256>" under $PF_LLM_SLOTS_DIR (default: the temp dir),
 * waiting while all are held by this or other processes, and gives it back
 * as soon as curl returns (an answer, an HTTP error or a failure alike);
 * the backoff between attempts holds none.
 *
 * The answer is choices[0].message.content; usage.prompt_tokens and
 * usage.completion_tokens are read when present (0 otherwise). The latency
 * is left to pf_llm_complete(), which times the whole call.
 *
 * Retries: up to max_attempts attempts on HTTP 429, 5xx, a failed
 * connection (or name resolution), an empty or cut reply, a timeout, and a
 * 2xx that holds no usable answer (a body that is not JSON, such as a
 * proxy's error page, or a choices[0].message.content that is null),
 * sleeping backoff_s * 2^(k-1) before retry k, or the server's Retry-After
 * (seconds), either capped at backoff_max_s; one log line per retry. When
 * the last attempt was a 2xx without a usable answer, the call is settled
 * as unusable (r->unusable says what came back; provider.h), so that its
 * slot ends like an invalid answer instead of stopping the search. 401,
 * 403, 404, other 4xx and bodies of another API (JSON without
 * choices[0].message) are not retried: they fail at once with a message
 * that says what to check.
 *
 * The API key is read from PF_LLM_API_KEY when the provider is made, into
 * memory the provider owns and wipes when freed; the header buffers that
 * hold it are wiped too. Servers and models may send it back (an error
 * text that quotes the refused key, an answer that repeats the prompt or
 * the conversation), so everything received is scrubbed of it
 * (llm/secret.h: the key, any piece of 8 or more characters, JSON-escaped
 * or not) the moment curl hands it over, before it is parsed, quoted,
 * truncated or returned: the raw body (hence the answer, the usage and
 * every other field) and curl's error text; the raw body is then wiped.
 * The answer is scrubbed once more after JSON decoding, and every error
 * message and log line built here once more before it leaves. So neither
 * the transcript (transcript.c stores the answer and no headers), nor a
 * proposal, a memory, a re-ask prompt, a log line or an error message can
 * hold it, whatever code comes after.
 *
 * curl_global_init() runs once per process, from pf_llm_http_alloc() under
 * pthread_once(), so concurrent first calls are safe; curl_global_cleanup()
 * is never called (the process exit reclaims it). Each call uses its own
 * easy handle, so one provider may serve several threads at once.
 */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/log.h"
#include "core/parse.h"
#include "core/sha256.h"
#include "core/slots.h"
#include "llm/provider.h"
#include "llm/secret.h"

#define BODY_CAP ((size_t)16 << 20) /* largest response body accepted */
#define QUOTE_BYTES 200             /* how much of a bad body an error quotes */
#define QUOTE_FIELD 80              /* how much of a header or a short field */
#define PF_LLM_SLOT_NAME 96         /* backbone name, '-', 12 hex digits of the endpoint's hash */

typedef struct http_provider {
    char *endpoint; /* {url}/chat/completions */
    char *model;    /* default model when a request names none */
    char *key;      /* PF_LLM_API_KEY, NULL when unset */
    size_t keylen;
    double connect_timeout_s, timeout_s;
    int max_attempts;
    double backoff_s, backoff_max_s;
    char key_env[136];   /* the variable the key came from, for messages */
    json_t *extra;       /* extra request fields (o.extra_json), NULL: none */
    int max_in_flight;   /* 0: no limit */
    char slots_dir[1024];
    char slots_name[PF_LLM_SLOT_NAME];
} http_provider;

/* ------------------------------------------------------------ helpers */

static void wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;
    while (n--) *v++ = 0;
}

/* pf_fail() with the key scrubbed from the message (a last guard: what the
 * server sent was scrubbed when received). */
static pf_status fail(const http_provider *h, pf_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static pf_status fail(const http_provider *h, pf_status st, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pf_secret_scrub_buf(h->key, h->keylen, msg, sizeof msg);
    return pf_fail(st, "%s", msg);
}

/* At most n bytes of s as printable text: control bytes become ' ', a cut
 * is marked with "...". out holds n + 4 bytes. */
static void quote(char *out, const char *s, size_t len, size_t n)
{
    size_t k = len < n ? len : n;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    strcpy(out + k, len > n ? "..." : "");
}

static void sleep_s(double s)
{
    if (!(s > 0)) return;
    struct timespec t = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;
static void curl_init(void) { curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* ------------------------------------------------------------ curl callbacks */

typedef struct reply {
    char *buf;
    size_t len, cap;
    int overflow;
    double retry_after; /* Retry-After in seconds, -1 when absent */
} reply;

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
    reply *r = user;
    size_t add = size * n;
    if (r->len + add + 1 > BODY_CAP) {
        r->overflow = 1;
        return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
    }
    if (r->len + add + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 16384;
        while (cap < r->len + add + 1) cap *= 2;
        if (cap > BODY_CAP) cap = BODY_CAP;
        char *b = malloc(cap); /* not realloc: the old bytes are wiped before they are freed */
        if (!b) return 0;
        if (r->buf) {
            memcpy(b, r->buf, r->len);
            wipe(r->buf, r->cap);
            free(r->buf);
        }
        r->buf = b;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, data, add);
    r->len += add;
    r->buf[r->len] = 0;
    return add;
}

static size_t on_header(char *data, size_t size, size_t n, void *user)
{
    reply *r = user;
    size_t len = size * n;
    static const char name[] = "retry-after:";
    if (len > sizeof name - 1 && strncasecmp(data, name, sizeof name - 1) == 0) {
        char v[64];
        size_t k = len - (sizeof name - 1);
        if (k >= sizeof v) k = sizeof v - 1;
        memcpy(v, data + sizeof name - 1, k);
        v[k] = 0;
        char *end;
        double s = strtod(v, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
        if (end != v && !*end && isfinite(s) && s >= 0) r->retry_after = s; /* an HTTP date is ignored */
    }
    return len;
}

/* Replace what the server sent (the body, curl's error text) by its copy
 * scrubbed of the key (secret.h), and wipe the raw body. This runs right
 * after every transfer, before anything reads the reply. 0 when out of
 * memory (the raw body is wiped and dropped all the same). */
static int scrub_received(const http_provider *h, reply *rp, char *errbuf)
{
    pf_secret_scrub_buf(h->key, h->keylen, errbuf, CURL_ERROR_SIZE);
    if (!h->key || !rp->buf) return 1;
    size_t n;
    char *clean = pf_secret_scrub(h->key, h->keylen, rp->buf, rp->len, &n);
    wipe(rp->buf, rp->cap);
    free(rp->buf);
    rp->buf = clean;
    rp->len = clean ? n : 0;
    rp->cap = clean ? n + 1 : 0;
    return clean != NULL;
}

/* ------------------------------------------------------------ bodies */

/* The JSON body, malloc'ed; NULL (with pf_fail) when a string is not
 * valid UTF-8 or memory runs out. */
static char *request_body(const http_provider *h, const pf_llm_request *q)
{
    json_t *o = json_object(), *m = json_array();
    json_t *model = json_string(q->model && *q->model ? q->model : h->model);
    int ok = o && m && model && json_object_set_new(o, "model", model) == 0;
    for (int i = 0; ok && i < q->nmsg; i++) {
        json_t *e = json_pack("{s:s, s:s}", "role", q->msg[i].role ? q->msg[i].role : "user", "content",
                              q->msg[i].content ? q->msg[i].content : "");
        ok = e && json_array_append_new(m, e) == 0;
    }
    ok = ok && json_object_set_new(o, "messages", json_incref(m)) == 0;
    json_object_set_new(o, "temperature", json_real(q->temperature));
    if (q->max_tokens > 0) json_object_set_new(o, "max_tokens", json_integer(q->max_tokens));
    json_object_set_new(o, "stream", json_false());
    if (ok && h->extra) ok = json_object_update(o, h->extra) == 0; /* the backbone's options win */
    char *s = ok ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(m);
    json_decref(o);
    if (!s) pf_fail(PF_ERR_INVALID, "cannot serialize the LLM request (slot '%s'): the model name or a message "
                                    "is not valid UTF-8", q->slot ? q->slot : "");
    return s;
}

/* The server's own error text in a non-2xx body, if it has one:
 * {"error": {"message"}} (OpenAI, vLLM, llama.cpp), {"error": "..."}
 * (Ollama), {"message"} or {"detail"}. Else the body's first bytes. The
 * decoded text is scrubbed again before it is cut to a quote. */
static void server_message(const http_provider *h, char *out, size_t cap, const reply *r)
{
    out[0] = 0;
    if (!r->len) return;
    json_t *j = json_loadb(r->buf, r->len, 0, NULL);
    const char *s = NULL;
    if (j) {
        json_t *e = json_object_get(j, "error");
        s = json_string_value(json_object_get(e, "message"));
        if (!s) s = json_string_value(e);
        if (!s) s = json_string_value(json_object_get(j, "message"));
        if (!s) s = json_string_value(json_object_get(j, "detail"));
    }
    char q[QUOTE_BYTES + 4];
    size_t n = 0;
    char *clean = s ? pf_secret_scrub(h->key, h->keylen, s, strlen(s), &n) : NULL;
    if (clean)
        quote(q, clean, n, QUOTE_BYTES);
    else
        quote(q, r->buf, r->len, QUOTE_BYTES); /* no text field (or no memory): the scrubbed body */
    snprintf(out, cap, ": %s", q);
    free(clean);
    json_decref(j);
}

/* Why a 2xx body that is not JSON is no answer: its status, content
 * type, size and first bytes (already scrubbed), in why[]. */
static void not_json(const reply *rp, long code, const char *ctype, char *why, size_t cap)
{
    char ct[QUOTE_FIELD + 4], q[QUOTE_BYTES + 4];
    quote(ct, ctype ? ctype : "", ctype ? strlen(ctype) : 0, QUOTE_FIELD);
    quote(q, rp->buf ? rp->buf : "", rp->len, QUOTE_BYTES);
    if (!rp->len)
        snprintf(why, cap, "the server answered %ld with an empty body (Content-Type %s), not JSON", code,
                 ct[0] ? ct : "none");
    else
        snprintf(why, cap, "the server answered %ld with a body that is not JSON (Content-Type %s, %zu bytes): '%s'",
                 code, ct[0] ? ct : "none", rp->len, q);
}

/* What a message content that is not a string is, in words. */
static const char *content_kind(const json_t *content)
{
    if (!content) return "missing";
    if (json_is_null(content)) return "null";
    if (json_is_array(content)) return "an array, not a string";
    if (json_is_object(content)) return "an object, not a string";
    return "not a string";
}

/* Why a choice whose message content is not a string is no answer: what
 * the content is, and the finish_reason (why the model stopped). */
static void no_content(const json_t *choice, const json_t *content, long code, const pf_llm_request *q, char *why,
                       size_t cap)
{
    const char *fr = json_string_value(json_object_get(choice, "finish_reason")), *what = content_kind(content);
    char f[QUOTE_FIELD + 4], hint[96] = "";
    quote(f, fr ? fr : "", fr ? strlen(fr) : 0, QUOTE_FIELD);
    if (fr && strcmp(fr, "length") == 0 && q->max_tokens > 0)
        snprintf(hint, sizeof hint, ": the model spent its %d tokens before it wrote an answer", q->max_tokens);
    if (fr)
        snprintf(why, cap, "the server answered %ld with choices[0].message.content %s (finish_reason \"%s\"%s)", code,
                 what, f, hint);
    else
        snprintf(why, cap, "the server answered %ld with choices[0].message.content %s (no finish_reason)", code, what);
}

/* A 2xx body -> r's text (scrubbed again once decoded: a key with
 * characters outside ASCII, written as \u escapes, is whole only now) and
 * usage. Two bodies hold no answer yet say nothing against the settings,
 * and another attempt may well answer, as after a 5xx: one that is not
 * JSON (a proxy's or load balancer's error page, a reply cut short) and
 * one whose choices[0].message.content is not a string (null: a model
 * stopped by a filter or by max_tokens before it wrote). For those
 * *unusable is set, why[] says what came back, r is untouched and PF_OK is
 * returned. JSON without choices[0].message is another API than chat
 * completions: an error that says to check PF_LLM_URL. */
static pf_status parse_answer(const http_provider *h, const reply *rp, long code, const char *ctype,
                              const pf_llm_request *q, pf_llm_response *r, int *unusable, char *why, size_t cap)
{
    *unusable = 0;
    json_t *j = rp->len ? json_loadb(rp->buf, rp->len, 0, NULL) : NULL;
    if (!j) {
        not_json(rp, code, ctype, why, cap);
        *unusable = 1;
        return PF_OK;
    }
    json_t *choice = json_array_get(json_object_get(j, "choices"), 0), *msg = json_object_get(choice, "message");
    json_t *content = json_object_get(msg, "content");
    const char *text = json_string_value(content);
    pf_status st = PF_OK;
    if (!json_is_object(msg)) {
        char b[QUOTE_BYTES + 4];
        quote(b, rp->buf, rp->len, QUOTE_BYTES);
        st = fail(h, PF_ERR_IO,
                  "malformed reply from %s: no choices[0].message, so no choices[0].message.content (is PF_LLM_URL "
                  "an OpenAI-compatible /v1 base?); the body begins '%s'", h->endpoint, b);
    } else if (!text) {
        no_content(choice, content, code, q, why, cap);
        *unusable = 1;
    } else if (!(r->text = pf_secret_scrub(h->key, h->keylen, text, strlen(text), NULL))) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory");
    } else {
        json_t *u = json_object_get(j, "usage");
        r->prompt_tokens = (long)json_integer_value(json_object_get(u, "prompt_tokens"));
        r->completion_tokens = (long)json_integer_value(json_object_get(u, "completion_tokens"));
    }
    json_decref(j);
    return st;
}

/* Every attempt spent, the last one a 2xx without a usable answer: the
 * call is settled as unusable (provider.h), with why in words fit for a
 * proposal's reasons (no endpoint: a URL may hold credentials). */
static pf_status settle_unusable(const http_provider *h, pf_llm_response *r, int attempts, const char *last)
{
    char msg[PF_TEXT_LINE_MAX];
    snprintf(msg, sizeof msg, "no usable answer from the LLM server in %d attempt%s (PF_LLM_RETRIES); the last: %s",
             attempts, attempts == 1 ? "" : "s", last);
    pf_secret_scrub_buf(h->key, h->keylen, msg, sizeof msg); /* a last guard, as in fail() */
    r->text = strdup("");
    r->unusable = pf_text_sanitize_dup(msg, PF_TEXT_LINE_MAX); /* quoted bytes may not be UTF-8 */
    if (!r->text || !r->unusable) {
        free(r->text);
        free(r->unusable);
        r->text = r->unusable = NULL;
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    pf_log(PF_LOG_WARN, "LLM request to %s: %s; the call ends as an invalid answer", h->endpoint, r->unusable);
    return PF_OK;
}

/* ------------------------------------------------------------ the call */

static int retryable_curl(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE: return 1;
    default: return 0;
    }
}

/* A short cause for a curl failure, with what to check. */
static void curl_cause(char *out, size_t cap, const http_provider *h, CURLcode rc, const char *errbuf)
{
    const char *detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        snprintf(out, cap, "timed out (connect limit %g s, request limit %g s; PF_LLM_TIMEOUT raises the latter): %s",
                 h->connect_timeout_s, h->timeout_s, detail);
        break;
    case CURLE_COULDNT_CONNECT:
        snprintf(out, cap, "could not connect (is the server running? check PF_LLM_URL): %s", detail);
        break;
    case CURLE_COULDNT_RESOLVE_HOST:
        snprintf(out, cap, "could not resolve the host (check PF_LLM_URL): %s", detail);
        break;
    default: snprintf(out, cap, "%s", detail); break;
    }
}

/* Append a header line (curl copies it); 0 when out of memory. */
static int add_header(struct curl_slist **l, const char *line)
{
    struct curl_slist *t = curl_slist_append(*l, line);
    if (t) *l = t;
    return t != NULL;
}

static pf_status http_complete(void *self, const pf_llm_request *q, pf_llm_response *r)
{
    http_provider *h = self;
    char *body = request_body(h, q);
    if (!body) return PF_ERR_INVALID;
    CURL *c = curl_easy_init();
    if (!c) {
        free(body);
        return pf_fail(PF_ERR_EXTERNAL, "curl_easy_init failed");
    }
    struct curl_slist *hdr = NULL;
    int ok = add_header(&hdr, "Content-Type: application/json") && add_header(&hdr, "Accept: application/json") &&
             add_header(&hdr, "Expect:"); /* no 100-continue round trip before the body */
    if (ok && h->key) {
        static const char pre[] = "Authorization: Bearer ";
        size_t n = sizeof pre + h->keylen;
        char *auth = malloc(n);
        ok = auth != NULL;
        if (auth) {
            memcpy(auth, pre, sizeof pre - 1);
            memcpy(auth + sizeof pre - 1, h->key, h->keylen + 1);
            ok = add_header(&hdr, auth);
            wipe(auth, n);
            free(auth);
        }
    }
    char errbuf[CURL_ERROR_SIZE];
    reply rp = {0};
    curl_easy_setopt(c, CURLOPT_URL, h->endpoint);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)ceil(h->connect_timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)ceil(h->timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &rp);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &rp);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "pinnforge");

    pf_status st = ok ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    char last[1024] = "";
    int attempt = 0, done = !ok;
    while (!done) {
        attempt++;
        rp.len = 0;
        rp.overflow = 0;
        rp.retry_after = -1;
        if (rp.buf) rp.buf[0] = 0;
        errbuf[0] = 0;
        pf_slot slot = {-1, -1};
        if (h->max_in_flight > 0 && pf_slots_take(h->slots_dir, h->slots_name, h->max_in_flight, &slot) != PF_OK) {
            st = fail(h, PF_ERR_IO, "LLM request to %s: cannot take one of its %d in-flight slots: %s", h->endpoint,
                      h->max_in_flight, pf_errmsg());
            break;
        }
        CURLcode rc = curl_easy_perform(c);
        pf_slots_give(&slot); /* the response (or the failure) is in: the next request may go */
        if (!scrub_received(h, &rp, errbuf)) {
            st = pf_fail(PF_ERR_NOMEM, "out of memory");
            break;
        }
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        int retry = 0, unusable = 0;
        if (rc != CURLE_OK) {
            if (rp.overflow) {
                st = fail(h, PF_ERR_IO, "the reply from %s is larger than %zu MiB; refusing it", h->endpoint,
                          BODY_CAP >> 20);
                break;
            }
            curl_cause(last, sizeof last, h, rc, errbuf);
            if (!retryable_curl(rc)) {
                st = fail(h, PF_ERR_IO, "LLM request to %s failed: %s", h->endpoint, last);
                break;
            }
            retry = 1;
        } else if (code >= 200 && code < 300) {
            char ctype[256] = "", *ct = NULL;
            curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
            if (ct) snprintf(ctype, sizeof ctype, "%s", ct);
            pf_secret_scrub_buf(h->key, h->keylen, ctype, sizeof ctype); /* a header is received text too */
            st = parse_answer(h, &rp, code, ctype, q, r, &unusable, last, sizeof last);
            if (st != PF_OK || !unusable) break;
            retry = 1;
        } else if (code == 429 || code >= 500) {
            char msg[QUOTE_BYTES + 16];
            server_message(h, msg, sizeof msg, &rp);
            snprintf(last, sizeof last, "HTTP %ld%s%s", code, code == 429 ? " (rate limited)" : " (server error)",
                     msg);
            retry = 1;
        } else if (code == 401 || code == 403) {
            st = fail(h, PF_ERR_INVALID,
                      "LLM request to %s: HTTP %ld: the server refused the API key: check %s%s",
                      h->endpoint, code, h->key_env[0] ? h->key_env : "the backbone's key_env (it has none)",
                      h->key || !h->key_env[0] ? "" : " (it is not set)");
            break;
        } else if (code == 404) {
            st = fail(h, PF_ERR_INVALID,
                      "LLM request to %s: HTTP 404: no such endpoint or model: check PF_LLM_URL (it should end in "
                      "/v1 for OpenAI-compatible servers) and PF_LLM_MODEL (now '%s')",
                      h->endpoint, q->model && *q->model ? q->model : h->model);
            break;
        } else {
            char msg[QUOTE_BYTES + 16];
            server_message(h, msg, sizeof msg, &rp);
            st = fail(h, code >= 400 && code < 500 ? PF_ERR_INVALID : PF_ERR_IO,
                      "LLM request to %s: HTTP %ld%s", h->endpoint, code, msg);
            break;
        }
        if (retry && attempt >= h->max_attempts && unusable) {
            st = settle_unusable(h, r, attempt, last);
            break;
        }
        if (retry && attempt >= h->max_attempts) {
            st = fail(h, PF_ERR_IO, "LLM request to %s failed after %d attempt%s; last: %s", h->endpoint, attempt,
                      attempt == 1 ? "" : "s", last);
            break;
        }
        double wait = h->backoff_s * ldexp(1.0, attempt - 1);
        if (rp.retry_after >= 0) wait = rp.retry_after;
        if (wait > h->backoff_max_s) wait = h->backoff_max_s;
        pf_secret_scrub_buf(h->key, h->keylen, last, sizeof last); /* a last guard, as in fail() */
        pf_log(PF_LOG_WARN, "LLM request to %s: attempt %d of %d failed (%s); retrying in %.3g s", h->endpoint,
               attempt, h->max_attempts, last, wait);
        sleep_s(wait);
    }
    for (struct curl_slist *s = hdr; s; s = s->next) wipe(s->data, strlen(s->data));
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    free(rp.buf);
    free(body);
    return st;
}

static void http_free(void *self)
{
    http_provider *h = self;
    if (!h) return;
    if (h->key) {
        wipe(h->key, h->keylen);
        free(h->key);
    }
    free(h->endpoint);
    free(h->model);
    json_decref(h->extra);
    free(h);
}

static const pf_llm_vtable HTTP_VT = {http_complete, http_free};

pf_status pf_llm_http_alloc(const pf_llm_options *o, const pf_llm_vtable **vt, void **self)
{
    *vt = NULL;
    *self = NULL;
    if (!(o->timeout_s > 0) || !(o->connect_timeout_s > 0) || !isfinite(o->timeout_s) ||
        !isfinite(o->connect_timeout_s))
        return pf_fail(PF_ERR_INVALID, "http LLM provider: timeouts must be positive (connect %g s, request %g s)",
                       o->connect_timeout_s, o->timeout_s);
    if (o->max_attempts < 1)
        return pf_fail(PF_ERR_INVALID, "http LLM provider: max_attempts must be at least 1, not %d", o->max_attempts);
    if (!(o->backoff_s >= 0) || !(o->backoff_max_s >= 0))
        return pf_fail(PF_ERR_INVALID, "http LLM provider: backoff delays must be >= 0");
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return pf_fail(PF_ERR_EXTERNAL, "curl_global_init failed: %s", curl_easy_strerror(curl_init_rc));

    http_provider *h = calloc(1, sizeof *h);
    if (!h) return pf_fail(PF_ERR_NOMEM, "out of memory");
    size_t n = strlen(o->url);
    while (n > 0 && o->url[n - 1] == '/') n--;
    static const char tail[] = "/chat/completions";
    int has_tail = n >= sizeof tail - 1 && memcmp(o->url + n - (sizeof tail - 1), tail, sizeof tail - 1) == 0;
    h->endpoint = malloc(n + sizeof tail);
    if (h->endpoint) {
        memcpy(h->endpoint, o->url, n);
        strcpy(h->endpoint + n, has_tail ? "" : tail);
    }
    h->model = strdup(o->model ? o->model : "");
    const char *key_env = o->key_env ? o->key_env : "PF_LLM_API_KEY";
    const char *key = *key_env ? getenv(key_env) : NULL;
    snprintf(h->key_env, sizeof h->key_env, "%s", key_env);
    for (const char *k = key; k && *k; k++)
        if ((unsigned char)*k < 0x20 || *k == 0x7f) {
            http_free(h);
            return pf_fail(PF_ERR_INVALID, "%s contains a control character (a line break?): "
                                           "set it to the key alone", key_env);
        }
    if (key && *key) {
        h->keylen = strlen(key);
        h->key = strdup(key);
    }
    if (!h->endpoint || !h->model || (key && *key && !h->key)) {
        http_free(h);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    h->connect_timeout_s = o->connect_timeout_s;
    h->timeout_s = o->timeout_s;
    h->max_attempts = o->max_attempts;
    h->backoff_s = o->backoff_s;
    h->backoff_max_s = o->backoff_max_s;
    if (o->extra_json) {
        json_error_t err;
        h->extra = json_loads(o->extra_json, 0, &err);
        if (!json_is_object(h->extra)) {
            http_free(h);
            return pf_fail(PF_ERR_INVALID, "http LLM provider: the extra request fields are not a JSON object");
        }
    }
    if (o->max_in_flight < 0 || o->max_in_flight > PF_SLOTS_MAX) {
        http_free(h);
        return pf_fail(PF_ERR_INVALID, "http LLM provider: max_in_flight must be 0 (no limit) to %d, not %d",
                       PF_SLOTS_MAX, o->max_in_flight);
    }
    if ((h->max_in_flight = o->max_in_flight) > 0) {
        char hex[PF_SHA256_HEX];
        pf_status st = pf_slots_dir("PF_LLM_SLOTS_DIR", h->slots_dir, sizeof h->slots_dir);
        if (st == PF_OK) st = pf_sha256_hex(h->endpoint, strlen(h->endpoint), hex);
        if (st != PF_OK) {
            http_free(h);
            return st;
        }
        snprintf(h->slots_name, sizeof h->slots_name, "%s-%.12s", o->backbone ? o->backbone : "http", hex);
    }
    *vt = &HTTP_VT;
    *self = h;
    return PF_OK;
}
