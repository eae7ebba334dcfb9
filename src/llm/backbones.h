/*
 * backbones.h — the LLM backbones a study may use, from a JSON file
 * (llms.json; docs/llm.md, "Backbones file").
 *
 *     pf_llm_backbones *t;
 *     PF_TRY(pf_llm_backbones_load(NULL, &t));        // $LLMS_FILE, else data/llms.json
 *     const pf_llm_backbone *b;
 *     PF_TRY(pf_llm_backbones_get(t, "local", &b));   // unknown: the error lists the names
 *     pf_llm_options o;
 *     pf_llm_options_default(&o);
 *     pf_llm_backbone_apply(b, &o);                   // o points into t: free t after o's last use
 *     ...
 *     pf_llm_backbones_free(t);
 *
 * The file is a JSON array with one object per backbone:
 *   name           a word (letters, digits, '_', '.', '-'), at most 64
 *                  characters, unique in the file; "offline" is reserved
 *                  for the offline proposer
 *   url            base URL, http:// or https:// (as PF_LLM_URL)
 *   model          the model name sent in requests
 *   key_env        optional: the NAME of the environment variable that
 *                  holds the API key (the key itself is never in the file;
 *                  a field named like a key, "key" or "api_key", is refused)
 *   price_in       optional: price per million prompt tokens, >= 0 (default 0)
 *   price_out      optional: price per million completion tokens, >= 0 (default 0)
 *   max_in_flight  optional: requests at once to this backbone over all
 *                  processes, 1..PF_SLOTS_MAX (default PF_LLM_BACKBONE_IN_FLIGHT)
 *   options        optional: an object of extra request fields (temperature,
 *                  max_tokens, reasoning_effort, ...) merged into every
 *                  chat-completions body, over the request's own; "model",
 *                  "messages" and "stream" are the provider's and refused
 * Anything else (an unknown field, a wrong type, a duplicate name) is
 * PF_ERR_INVALID naming the file, the entry and the field.
 */
#ifndef PF_LLM_BACKBONES_H
#define PF_LLM_BACKBONES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"
#include "llm/provider.h"

#define PF_LLM_BACKBONE_IN_FLIGHT 4 /* max_in_flight when the file does not say */
#define PF_LLM_BACKBONE_NAME_MAX 64

typedef struct pf_llm_backbone {
    char *name, *url, *model;
    char *key_env;      /* NULL: no key */
    double price_in;    /* per million prompt tokens */
    double price_out;   /* per million completion tokens */
    int max_in_flight;  /* >= 1 */
    char *options_json; /* the options object as compact JSON, NULL when none */
} pf_llm_backbone;

typedef struct pf_llm_backbones {
    char *path; /* the file it came from ("" when parsed from text) */
    int n;
    pf_llm_backbone *b;
} pf_llm_backbones;

/* The backbones file: $LLMS_FILE when set and non-empty, else data/llms.json
 * found like the project's other data (io/asset_dir.h). PF_ERR_IO naming
 * where it looked. */
pf_status pf_llm_backbones_path(char *buf, size_t cap);

/* Read and validate the file at path (NULL: pf_llm_backbones_path()). */
pf_status pf_llm_backbones_load(const char *path, pf_llm_backbones **out);

/* The same from text; what names it in messages (a file name). */
pf_status pf_llm_backbones_parse(const char *text, size_t len, const char *what, pf_llm_backbones **out);

void pf_llm_backbones_free(pf_llm_backbones *t);

/* Whether name is a backbone's name as the file allows it: a word of
 * letters, digits, '_', '.', '-', 1 to PF_LLM_BACKBONE_NAME_MAX characters
 * ("offline" included). */
bool pf_llm_backbone_name_ok(const char *name);

/* The backbone called name, NULL when none. */
const pf_llm_backbone *pf_llm_backbones_find(const pf_llm_backbones *t, const char *name);

/* The same, PF_ERR_INVALID naming the file and listing its names when none. */
pf_status pf_llm_backbones_get(const pf_llm_backbones *t, const char *name, const pf_llm_backbone **out);

/* A mixture, BACKBONE=mix:a,b,c (docs/llm.md, "A mixture of backbones"):
 * the names after "mix:", comma-separated, each a backbone's name
 * ("offline" is not one), 2 to PF_LLM_MIX_MAX of them, no repeats, the
 * whole at most PF_LLM_MIX_TEXT_MAX characters. Its folder spelling
 * mix+a+b+c (make's run folder <method>@mix+a+b+c, where ':' and ',' would
 * not do) means the same everywhere a mixture is read.
 * pf_llm_mix_names checks the spelling alone; pf_llm_mix_parse also finds
 * each name in t (arm[i] point into t). PF_ERR_INVALID naming the value,
 * the file and the name at fault. */
#define PF_LLM_MIX_MAX 8
/* so that a run's folder <method>@mix+... (the longest method, 12
 * characters, an '@') stays within a file name's 255 bytes */
#define PF_LLM_MIX_TEXT_MAX 240
typedef struct pf_llm_mix {
    int n;
    const pf_llm_backbone *arm[PF_LLM_MIX_MAX];
} pf_llm_mix;
int pf_llm_is_mix(const char *value); /* value starts with "mix:" or "mix+" */
pf_status pf_llm_mix_names(const char *value, char names[PF_LLM_MIX_MAX][PF_LLM_BACKBONE_NAME_MAX + 1], int *n);
pf_status pf_llm_mix_parse(const pf_llm_backbones *t, const char *value, pf_llm_mix *out);
/* name, one backbone or a mixture of them, checked against t as
 * pf_llm_backbones_get and pf_llm_mix_parse check it; *first is the
 * backbone, or the mixture's first (what answers when no arm is drawn). */
pf_status pf_llm_backbones_first(const pf_llm_backbones *t, const char *name, const pf_llm_backbone **first);
/* A mixture's spelling: "mix:a,b,c", or with folder "mix+a+b+c" (cap >
 * strlen(value)); another value is copied as it is. */
void pf_llm_mix_spell(const char *value, bool folder, char *out, size_t cap);

/* o takes the backbone's settings: kind http, url, model, key_env ("" when
 * the backbone has none: no key is sent, PF_LLM_API_KEY is not read), the
 * prices, max_in_flight, the extra options and the backbone's name (the
 * rest of o is left as it is). The strings point into b. */
void pf_llm_backbone_apply(const pf_llm_backbone *b, pf_llm_options *o);

#endif
