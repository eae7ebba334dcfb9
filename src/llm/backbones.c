/* backbones.c — the backbones file, llms.json (backbones.h). */
#include "llm/backbones.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/file.h"
#include "core/slots.h"
#include "io/asset_dir.h"

static const char *const FIELDS[] = {"name",      "url",       "model",         "key_env",
                                     "price_in",  "price_out", "max_in_flight", "options"};
#define NFIELDS (sizeof FIELDS / sizeof *FIELDS)
#define FIELD_LIST "name, url, model, key_env, price_in, price_out, max_in_flight, options"

/* A name that looks like it would hold a key itself. */
static int key_like(const char *f)
{
    static const char *const exact[] = {"key", "api_key", "apikey", "api-key", "secret", "token", "access_token",
                                        "password", "authorization", "bearer"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strcasecmp(f, exact[i]) == 0) return 1;
    size_t n = strlen(f);
    return n > 4 && (strcasecmp(f + n - 4, "_key") == 0 || strcasecmp(f + n - 4, "-key") == 0);
}

static int is_word(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-')) return 0;
    return 1;
}

bool pf_llm_backbone_name_ok(const char *name)
{
    return name && is_word(name, PF_LLM_BACKBONE_NAME_MAX);
}

static int is_env_name(const char *s)
{
    if (!*s || isdigit((unsigned char)*s) || strlen(s) > 128) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

static int is_url(const char *s)
{
    const char *host = strncmp(s, "http://", 7) == 0 ? s + 7 : strncmp(s, "https://", 8) == 0 ? s + 8 : NULL;
    if (!host || !*host || *host == '/') return 0;
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || *s == 0x7f) return 0;
    return 1;
}

void pf_llm_backbones_free(pf_llm_backbones *t)
{
    if (!t) return;
    for (int i = 0; i < t->n; i++) {
        pf_llm_backbone *b = &t->b[i];
        free(b->name);
        free(b->url);
        free(b->model);
        free(b->key_env);
        free(b->options_json);
    }
    free(t->b);
    free(t->path);
    free(t);
}

/* A string field: *out a copy (NULL when absent and optional). */
static pf_status str_field(json_t *e, const char *f, int required, const char *what, int i, char **out)
{
    *out = NULL;
    json_t *v = json_object_get(e, f);
    if (!v) {
        if (required) return pf_fail(PF_ERR_INVALID, "%s: backbone %d has no '%s'", what, i + 1, f);
        return PF_OK;
    }
    if (!json_is_string(v)) return pf_fail(PF_ERR_INVALID, "%s: backbone %d: '%s' must be a string", what, i + 1, f);
    if (!(*out = strdup(json_string_value(v)))) return pf_fail(PF_ERR_NOMEM, "out of memory");
    return PF_OK;
}

static pf_status price_field(json_t *e, const char *f, const char *what, const char *name, double *out)
{
    *out = 0;
    json_t *v = json_object_get(e, f);
    if (!v) return PF_OK;
    double x = json_number_value(v);
    if (!json_is_number(v) || !isfinite(x) || x < 0)
        return pf_fail(PF_ERR_INVALID, "%s: backbone '%s': '%s' must be a number >= 0 (a price per million tokens)",
                       what, name, f);
    *out = x;
    return PF_OK;
}

/* One entry, e, the i-th of the array, into b (fields freed by the caller). */
static pf_status parse_one(json_t *e, int i, const char *what, pf_llm_backbone *b)
{
    if (!json_is_object(e)) return pf_fail(PF_ERR_INVALID, "%s: backbone %d is not an object", what, i + 1);
    const char *f;
    json_t *v;
    json_object_foreach(e, f, v)
    {
        if (key_like(f))
            return pf_fail(PF_ERR_INVALID,
                           "%s: backbone %d: the field '%s' would hold a key; never put a key in this file: name "
                           "the environment variable that holds it in 'key_env'",
                           what, i + 1, f);
        size_t k = 0;
        while (k < NFIELDS && strcmp(f, FIELDS[k]) != 0) k++;
        if (k == NFIELDS)
            return pf_fail(PF_ERR_INVALID, "%s: backbone %d: unknown field '%s' (expected " FIELD_LIST ")", what,
                           i + 1, f);
    }
    PF_TRY(str_field(e, "name", 1, what, i, &b->name));
    if (!is_word(b->name, PF_LLM_BACKBONE_NAME_MAX))
        return pf_fail(PF_ERR_INVALID,
                       "%s: backbone %d: the name '%s' is not a word of at most %d letters, digits, '_', '.', '-'",
                       what, i + 1, b->name, PF_LLM_BACKBONE_NAME_MAX);
    if (strcmp(b->name, "offline") == 0)
        return pf_fail(PF_ERR_INVALID, "%s: backbone %d: the name 'offline' is reserved for the offline proposer",
                       what, i + 1);
    PF_TRY(str_field(e, "url", 1, what, i, &b->url));
    if (!is_url(b->url))
        return pf_fail(PF_ERR_INVALID,
                       "%s: backbone '%s': 'url' must be an http:// or https:// base URL without spaces, e.g. "
                       "http://localhost:8000/v1",
                       what, b->name);
    PF_TRY(str_field(e, "model", 1, what, i, &b->model));
    if (!*b->model) return pf_fail(PF_ERR_INVALID, "%s: backbone '%s': 'model' is empty", what, b->name);
    PF_TRY(str_field(e, "key_env", 0, what, i, &b->key_env));
    if (b->key_env && !is_env_name(b->key_env))
        return pf_fail(PF_ERR_INVALID,
                       "%s: backbone '%s': 'key_env' must be the NAME of an environment variable (letters, digits, "
                       "'_'), e.g. OPENAI_API_KEY, not the key",
                       what, b->name);
    PF_TRY(price_field(e, "price_in", what, b->name, &b->price_in));
    PF_TRY(price_field(e, "price_out", what, b->name, &b->price_out));
    b->max_in_flight = PF_LLM_BACKBONE_IN_FLIGHT;
    if ((v = json_object_get(e, "max_in_flight"))) {
        json_int_t n = json_integer_value(v);
        if (!json_is_integer(v) || n < 1 || n > PF_SLOTS_MAX)
            return pf_fail(PF_ERR_INVALID, "%s: backbone '%s': 'max_in_flight' must be an integer from 1 to %d", what,
                           b->name, PF_SLOTS_MAX);
        b->max_in_flight = (int)n;
    }
    if ((v = json_object_get(e, "options"))) {
        if (!json_is_object(v))
            return pf_fail(PF_ERR_INVALID, "%s: backbone '%s': 'options' must be an object of request fields", what,
                           b->name);
        json_object_foreach(v, f, e)
        {
            if (strcmp(f, "model") == 0 || strcmp(f, "messages") == 0 || strcmp(f, "stream") == 0)
                return pf_fail(PF_ERR_INVALID, "%s: backbone '%s': options.%s is set by the provider, not here", what,
                               b->name, f);
            if (key_like(f))
                return pf_fail(PF_ERR_INVALID,
                               "%s: backbone '%s': options.%s would hold a key; never put a key in this file: name "
                               "the environment variable that holds it in 'key_env'",
                               what, b->name, f);
        }
        if (json_object_size(v) > 0 &&
            !(b->options_json = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))))
            return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    return PF_OK;
}

pf_status pf_llm_backbones_parse(const char *text, size_t len, const char *what, pf_llm_backbones **out)
{
    *out = NULL;
    if (!what) what = "llms.json";
    json_error_t err;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!j) return pf_fail(PF_ERR_INVALID, "%s:%d:%d: %s", what, err.line, err.column, err.text);
    if (!json_is_array(j)) {
        json_decref(j);
        return pf_fail(PF_ERR_INVALID, "%s: expected a JSON array of backbones, one object each", what);
    }
    pf_llm_backbones *t = calloc(1, sizeof *t);
    size_t n = json_array_size(j);
    if (t) t->b = calloc(n ? n : 1, sizeof *t->b);
    if (t && t->b) t->path = strdup(what);
    if (!t || !t->b || !t->path) {
        json_decref(j);
        pf_llm_backbones_free(t);
        return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    pf_status st = PF_OK;
    for (size_t i = 0; i < n && st == PF_OK; i++) {
        st = parse_one(json_array_get(j, i), (int)i, what, &t->b[i]);
        t->n = (int)i + 1; /* what was filled, for free */
        for (size_t k = 0; st == PF_OK && k < i; k++)
            if (strcmp(t->b[k].name, t->b[i].name) == 0)
                st = pf_fail(PF_ERR_INVALID, "%s: backbones %zu and %zu are both named '%s'", what, k + 1, i + 1,
                             t->b[i].name);
    }
    json_decref(j);
    if (st == PF_OK && n == 0) st = pf_fail(PF_ERR_INVALID, "%s: no backbones (an empty array)", what);
    if (st != PF_OK) {
        pf_llm_backbones_free(t);
        return st;
    }
    *out = t;
    return PF_OK;
}

pf_status pf_llm_backbones_path(char *buf, size_t cap)
{
    const char *v = getenv("LLMS_FILE");
    if (v && *v) {
        if ((size_t)snprintf(buf, cap, "%s", v) >= cap) return pf_fail(PF_ERR_INVALID, "LLMS_FILE is too long");
        return PF_OK;
    }
    if (pf_asset_path("data", "llms.json", NULL, buf, cap) != PF_OK)
        return pf_fail(PF_ERR_IO, "no backbones file: set LLMS_FILE to one (see docs/llm.md, \"Backbones file\"); "
                                  "%s", pf_errmsg());
    return PF_OK;
}

pf_status pf_llm_backbones_load(const char *path, pf_llm_backbones **out)
{
    *out = NULL;
    char found[PF_ASSET_PATH_MAX];
    if (!path) {
        PF_TRY(pf_llm_backbones_path(found, sizeof found));
        path = found;
    }
    char *text;
    size_t len;
    if (pf_file_read(path, &text, &len) != PF_OK)
        return pf_fail(PF_ERR_IO, "cannot read the backbones file: %s", pf_errmsg());
    pf_status st = pf_llm_backbones_parse(text, len, path, out);
    free(text);
    return st;
}

const pf_llm_backbone *pf_llm_backbones_find(const pf_llm_backbones *t, const char *name)
{
    for (int i = 0; t && name && i < t->n; i++)
        if (strcmp(t->b[i].name, name) == 0) return &t->b[i];
    return NULL;
}

pf_status pf_llm_backbones_get(const pf_llm_backbones *t, const char *name, const pf_llm_backbone **out)
{
    if ((*out = pf_llm_backbones_find(t, name))) return PF_OK;
    char names[1024] = "";
    size_t used = 0;
    for (int i = 0; i < t->n && used < sizeof names; i++) {
        int k = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", t->b[i].name);
        if (k < 0) break;
        used += (size_t)k;
    }
    return pf_fail(PF_ERR_INVALID, "no backbone '%s' in %s (it has: %s; and 'offline' is the offline proposer)",
                   name ? name : "(null)", t->path, names);
}

int pf_llm_is_mix(const char *value)
{
    return value && (!strncmp(value, "mix:", 4) || !strncmp(value, "mix+", 4));
}

pf_status pf_llm_mix_names(const char *value, char names[PF_LLM_MIX_MAX][PF_LLM_BACKBONE_NAME_MAX + 1], int *n)
{
    *n = 0;
    if (!pf_llm_is_mix(value))
        return pf_fail(PF_ERR_INVALID, "'%s' is not a mixture (mix:NAME,NAME,...)", value ? value : "(null)");
    if (strlen(value) > PF_LLM_MIX_TEXT_MAX)
        return pf_fail(PF_ERR_INVALID, "'%.64s...': a mixture is at most %d characters", value, PF_LLM_MIX_TEXT_MAX);
    const char sep = value[3] == ':' ? ',' : '+';
    for (const char *p = value + 4;;) {
        const char *end = strchr(p, sep);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[PF_LLM_BACKBONE_NAME_MAX + 1];
        if (len == 0 || len > PF_LLM_BACKBONE_NAME_MAX)
            return pf_fail(PF_ERR_INVALID, "'%s': an empty or too long backbone name in the mixture (mix:a,b,c)",
                           value);
        memcpy(name, p, len);
        name[len] = 0;
        if (!pf_llm_backbone_name_ok(name))
            return pf_fail(PF_ERR_INVALID, "'%s': '%s' is not a backbone's name (letters, digits, '_', '.', '-')",
                           value, name);
        if (strcmp(name, "offline") == 0)
            return pf_fail(PF_ERR_INVALID, "'%s': 'offline' cannot be an arm of a mixture (the arms are the "
                           "backbones file's)", value);
        for (int i = 0; i < *n; i++)
            if (!strcmp(names[i], name)) return pf_fail(PF_ERR_INVALID, "'%s': backbone '%s' is named twice", value, name);
        if (*n == PF_LLM_MIX_MAX)
            return pf_fail(PF_ERR_INVALID, "'%s': at most %d backbones in a mixture", value, PF_LLM_MIX_MAX);
        memcpy(names[(*n)++], name, len + 1);
        if (!end) break;
        p = end + 1;
    }
    if (*n < 2)
        return pf_fail(PF_ERR_INVALID, "'%s': a mixture needs at least 2 backbones (for one, BACKBONE=NAME)", value);
    return PF_OK;
}

pf_status pf_llm_mix_parse(const pf_llm_backbones *t, const char *value, pf_llm_mix *out)
{
    memset(out, 0, sizeof *out);
    char names[PF_LLM_MIX_MAX][PF_LLM_BACKBONE_NAME_MAX + 1];
    int n;
    PF_TRY(pf_llm_mix_names(value, names, &n));
    for (int i = 0; i < n; i++)
        if (pf_llm_backbones_get(t, names[i], &out->arm[i]) != PF_OK)
            return pf_fail(PF_ERR_INVALID, "'%s': %s", value, pf_errmsg());
    out->n = n;
    return PF_OK;
}

pf_status pf_llm_backbones_first(const pf_llm_backbones *t, const char *name, const pf_llm_backbone **first)
{
    if (!pf_llm_is_mix(name)) return pf_llm_backbones_get(t, name, first);
    pf_llm_mix mix;
    PF_TRY(pf_llm_mix_parse(t, name, &mix));
    *first = mix.arm[0];
    return PF_OK;
}

void pf_llm_mix_spell(const char *value, bool folder, char *out, size_t cap)
{
    snprintf(out, cap, "%s", value);
    if (!pf_llm_is_mix(value)) return;
    out[3] = folder ? '+' : ':';
    for (char *p = out + 4; *p; p++)
        if (*p == ',' || *p == '+') *p = folder ? '+' : ',';
}

void pf_llm_backbone_apply(const pf_llm_backbone *b, pf_llm_options *o)
{
    o->kind = PF_LLM_HTTP;
    o->backbone = b->name;
    o->url = b->url;
    o->model = b->model;
    o->key_env = b->key_env ? b->key_env : ""; /* no key_env: no key (not PF_LLM_API_KEY) */
    o->price_in = b->price_in;
    o->price_out = b->price_out;
    o->max_in_flight = b->max_in_flight;
    o->extra_json = b->options_json;
}
