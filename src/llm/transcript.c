/* transcript.c — canonical LLM requests and the transcript store
 * (transcript.h). */
#include "llm/transcript.h"

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/msgpack_json.h"

void pf_llm_response_release(pf_llm_response *r)
{
    free(r->text);
    free(r->unusable);
    free(r->stopped);
    memset(r, 0, sizeof *r);
}

/* {"model", "messages", "temperature", "slot"}: what the address covers. */
static json_t *request_json(const pf_llm_request *q)
{
    json_t *o = json_object(), *m = json_array();
    json_object_set_new(o, "model", json_string(q->model ? q->model : ""));
    for (int i = 0; i < q->nmsg; i++)
        json_array_append_new(m, json_pack("{s:s, s:s}", "role", q->msg[i].role, "content", q->msg[i].content));
    json_object_set_new(o, "messages", m);
    json_object_set_new(o, "temperature", json_real(q->temperature));
    json_object_set_new(o, "slot", json_string(q->slot ? q->slot : ""));
    return o;
}

static char *dump(const json_t *o)
{
    return json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
}

char *pf_llm_request_canonical(const pf_llm_request *q)
{
    json_t *o = request_json(q);
    char *s = dump(o);
    json_decref(o);
    return s;
}

pf_status pf_llm_request_hash(const pf_llm_request *q, char hex[PF_SHA256_HEX])
{
    char *s = pf_llm_request_canonical(q);
    if (!s) return pf_fail(PF_ERR_NOMEM, "cannot serialize an LLM request");
    pf_status st = pf_sha256_hex(s, strlen(s), hex);
    free(s);
    return st;
}

static void path_of(char *buf, size_t cap, const char *dir, const char *hex)
{
    snprintf(buf, cap, "%s/%s.msgpack", dir, hex);
}

pf_status pf_transcript_write(const char *dir, const pf_llm_request *q, const pf_llm_response *r)
{
    char hex[PF_SHA256_HEX], path[4096];
    PF_TRY(pf_llm_request_hash(q, hex));
    path_of(path, sizeof path, dir, hex);
    json_t *req = request_json(q);
    json_object_set_new(req, "max_tokens", json_integer(q->max_tokens));
    if (q->context) json_object_set(req, "context", (json_t *)q->context);
    json_t *t = json_object();
    json_object_set_new(t, "format", json_string("pinnforge.transcript"));
    json_object_set_new(t, "version", json_integer(1));
    json_object_set_new(t, "hash", json_string(hex));
    json_object_set_new(t, "request", req);
    json_object_set_new(t, "response", json_string(r->text ? r->text : ""));
    json_object_set_new(t, "usage", json_pack("{s:I, s:I}", "prompt_tokens", (json_int_t)r->prompt_tokens,
                                              "completion_tokens", (json_int_t)r->completion_tokens));
    json_object_set_new(t, "latency_s", json_real(r->latency_s));
    json_object_set_new(t, "provider", json_string(r->provider));
    if (r->backbone[0]) json_object_set_new(t, "backbone", json_string(r->backbone));
    if (r->unusable) json_object_set_new(t, "unusable", json_string(r->unusable));
    /* a value jansson refused (out of memory, text that is not UTF-8) is a
     * missing key: refuse to store the transcript rather than drop it */
    pf_status st = json_object_size(t) == 8u + (r->backbone[0] != 0) + (r->unusable != NULL)
                       ? pf_msgpack_write_file(path, t)
                       : pf_fail(PF_ERR_INVALID, "cannot store the transcript of request %s: a field could not be "
                                                 "encoded (out of memory, or text that is not UTF-8)", hex);
    json_decref(t);
    return st;
}

bool pf_transcript_exists(const char *dir, const pf_llm_request *q)
{
    char hex[PF_SHA256_HEX], path[4096];
    if (pf_llm_request_hash(q, hex) != PF_OK) return false;
    path_of(path, sizeof path, dir, hex);
    return access(path, F_OK) == 0;
}

pf_status pf_transcript_read(const char *dir, const pf_llm_request *q, pf_llm_response *r)
{
    memset(r, 0, sizeof *r);
    char hex[PF_SHA256_HEX], path[4096];
    PF_TRY(pf_llm_request_hash(q, hex));
    path_of(path, sizeof path, dir, hex);
    FILE *f = fopen(path, "rb");
    if (!f)
        return pf_fail(PF_ERR_IO, "no stored transcript for request %s (slot '%s') in '%s'", hex,
                       q->slot ? q->slot : "", dir);
    fclose(f);
    json_t *t;
    PF_TRY(pf_msgpack_read_file(path, &t));
    /* the stored request must be this one, field for field */
    json_t *want = request_json(q), *got = json_deep_copy(json_object_get(t, "request"));
    if (got) {
        json_object_del(got, "max_tokens");
        json_object_del(got, "context");
    }
    bool same = got && json_equal(want, got);
    json_decref(want);
    json_decref(got);
    const char *text = json_string_value(json_object_get(t, "response"));
    const char *prov = json_string_value(json_object_get(t, "provider"));
    const json_t *bad = json_object_get(t, "unusable"), *who = json_object_get(t, "backbone");
    json_t *u = json_object_get(t, "usage");
    const json_t *pt = json_object_get(u, "prompt_tokens"), *ct = json_object_get(u, "completion_tokens");
    long ptok = 0, ctok = 0;
    pf_status st = PF_OK;
    if (!same)
        st = pf_fail(PF_ERR_INVALID, "'%s' holds another request than the one that hashes to it", path);
    else if (!text || !prov)
        st = pf_fail(PF_ERR_INVALID, "'%s' is not a transcript (no response or provider)", path);
    else if ((pt && !pf_json_int(pt, 0, LONG_MAX, &ptok)) || (ct && !pf_json_int(ct, 0, LONG_MAX, &ctok)))
        st = pf_fail(PF_ERR_INVALID, "'%s': usage.prompt_tokens and usage.completion_tokens need integers >= 0", path);
    else if (bad && !json_is_string(bad))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"unusable\" needs a string", path);
    else if (who && (!json_is_string(who) || json_string_length(who) >= sizeof r->backbone))
        st = pf_fail(PF_ERR_INVALID, "'%s': \"backbone\" needs a name of at most %zu characters", path,
                     sizeof r->backbone - 1);
    else if (!(r->text = strdup(text)) || (bad && !(r->unusable = strdup(json_string_value(bad))))) {
        pf_llm_response_release(r);
        st = pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    if (st == PF_OK) {
        snprintf(r->provider, sizeof r->provider, "%s", prov);
        if (who) snprintf(r->backbone, sizeof r->backbone, "%s", json_string_value(who));
        r->prompt_tokens = ptok;
        r->completion_tokens = ctok;
        r->latency_s = json_number_value(json_object_get(t, "latency_s"));
    }
    json_decref(t);
    return st;
}
