/* usage.c — the LLM calls of a run per backbone, and their cost (usage.h). */
#include "llm/usage.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/asset_dir.h"
#include "io/msgpack_json.h"

const char *pf_llm_usage_name(const char *backbone, const char *provider)
{
    if (backbone && *backbone) return backbone;
    return provider && !strcmp(provider, "offline") ? "offline" : "http";
}

pf_status pf_llm_usage_add(pf_llm_usage *u, const char *name, long calls, long prompt_tokens,
                           long completion_tokens, double llm_s)
{
    int i = 0;
    while (i < u->n && strcmp(u->b[i].name, name)) i++;
    if (i == u->n) {
        if (u->n == PF_LLM_USAGE_MAX)
            return pf_fail(PF_ERR_INVALID, "more than %d LLM backbones in one run (at '%s')", PF_LLM_USAGE_MAX, name);
        if (strlen(name) >= sizeof u->b[i].name)
            return pf_fail(PF_ERR_INVALID, "backbone name '%.80s...' is longer than %d characters", name,
                           PF_LLM_NAME_MAX - 1);
        memset(&u->b[i], 0, sizeof u->b[i]);
        snprintf(u->b[i].name, sizeof u->b[i].name, "%s", name);
        u->n++;
    }
    pf_llm_backbone_usage *b = &u->b[i];
    b->calls += calls;
    b->prompt_tokens += prompt_tokens;
    b->completion_tokens += completion_tokens;
    b->llm_s += llm_s;
    return PF_OK;
}

int pf_llm_slot_generation(const char *slot)
{
    int g, at = 0;
    if (!slot || sscanf(slot, "gen%2d/%n", &g, &at) != 1 || at != 6 || g < 0) return -1;
    return g;
}

/* One transcript's call into u, when its slot is of a generation before
 * `before` (or before < 0). */
static pf_status add_transcript(const char *path, int before, pf_llm_usage *u)
{
    json_t *t;
    PF_TRY(pf_msgpack_read_file(path, &t));
    int g = pf_llm_slot_generation(json_string_value(json_object_get(json_object_get(t, "request"), "slot")));
    if (before >= 0 && g >= before) {
        json_decref(t);
        return PF_OK;
    }
    const json_t *us = json_object_get(t, "usage");
    const char *prov = json_string_value(json_object_get(t, "provider"));
    const char *bb = json_string_value(json_object_get(t, "backbone"));
    long pt = 0, ct = 0;
    pf_status st = PF_OK;
    if (!json_is_object(us) || !prov || !pf_json_int(json_object_get(us, "prompt_tokens"), 0, LONG_MAX, &pt) ||
        !pf_json_int(json_object_get(us, "completion_tokens"), 0, LONG_MAX, &ct))
        st = pf_fail(PF_ERR_INVALID, "'%s' is not a transcript (no provider, or no usage with token counts)", path);
    else
        st = pf_llm_usage_add(u, pf_llm_usage_name(bb, prov), 1, pt, ct,
                              json_number_value(json_object_get(t, "latency_s")));
    json_decref(t);
    return st;
}

pf_status pf_llm_usage_of_transcripts(const char *dir, int before, pf_llm_usage *u)
{
    DIR *d = opendir(dir);
    if (!d) return PF_OK; /* no call stored yet */
    struct dirent *e;
    pf_status st = PF_OK;
    while (st == PF_OK && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n != PF_SHA256_HEX - 1 + 8 || strcmp(e->d_name + n - 8, ".msgpack")) continue; /* <sha256>.msgpack */
        char path[4200];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            st = pf_fail(PF_ERR_INVALID, "transcript folder name '%s' is too long", dir);
        else
            st = add_transcript(path, before, u);
    }
    closedir(d);
    return st;
}

pf_status pf_llm_prices(pf_llm_backbones **t)
{
    *t = NULL;
    const char *v = getenv("LLMS_FILE");
    char found[PF_ASSET_PATH_MAX];
    if (!(v && *v) && !pf_asset_find("data", "llms.json", found, sizeof found)) return PF_OK;
    return pf_llm_backbones_load(NULL, t);
}

void pf_llm_usage_price(pf_llm_usage *u, const pf_llm_backbones *t)
{
    for (int i = 0; i < u->n; i++) {
        pf_llm_backbone_usage *b = &u->b[i];
        const pf_llm_backbone *p = strcmp(b->name, "offline") ? pf_llm_backbones_find(t, b->name) : NULL;
        b->priced = p || !strcmp(b->name, "offline");
        b->cost = p ? (p->price_in * (double)b->prompt_tokens + p->price_out * (double)b->completion_tokens) / 1e6 : 0;
    }
}

long pf_llm_usage_calls(const pf_llm_usage *u)
{
    long n = 0;
    for (int i = 0; i < u->n; i++) n += u->b[i].calls;
    return n;
}

long pf_llm_usage_tokens(const pf_llm_usage *u)
{
    long n = 0;
    for (int i = 0; i < u->n; i++) n += u->b[i].prompt_tokens + u->b[i].completion_tokens;
    return n;
}

double pf_llm_usage_cost(const pf_llm_usage *u)
{
    double c = 0;
    for (int i = 0; i < u->n; i++) c += u->b[i].cost;
    return c;
}

bool pf_llm_usage_priced(const pf_llm_usage *u)
{
    for (int i = 0; i < u->n; i++)
        if (u->b[i].calls && !u->b[i].priced) return false;
    return true;
}
