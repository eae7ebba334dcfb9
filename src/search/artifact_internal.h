/*
 * artifact_internal.h — what the artifact_*.c files share: reading a
 * msgpack artifact with its format and version checked, and typed field
 * readers whose errors name the file and the key. Not for use outside
 * src/search/artifact*.c.
 */
#ifndef PF_SEARCH_ARTIFACT_INTERNAL_H
#define PF_SEARCH_ARTIFACT_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* What a reader does with the checked document: fill the typed struct f. */
typedef pf_status (*pf_artifact_parse_fn)(const char *path, const json_t *doc, void *f);

/* The msgpack file at path, a map whose "format" is `format` and whose
 * "version" is PF_ARTIFACT_VERSION, then parse(path, doc, f); the document is dropped
 * either way (f keeps its own references). */
pf_status pf_artifact_load(const char *path, const char *format, pf_artifact_parse_fn parse, void *f);

/* o[key] as a string into buf[cap] ("" and PF_OK when absent and not
 * required); longer than cap - 1 bytes is PF_ERR_INVALID. */
pf_status pf_artifact_str(const char *path, const json_t *o, const char *key, bool required, char *buf, size_t cap);

/* o[key] as a malloc'ed string; NULL when absent or null. */
pf_status pf_artifact_text(const char *path, const json_t *o, const char *key, char **out);

/* o[key] as an integer in lo..hi; *v untouched when absent and not required. */
pf_status pf_artifact_int(const char *path, const json_t *o, const char *key, bool required, long lo, long hi,
                          long *v);

/* o[key] as a number; *v untouched when absent or null (*present false then). */
pf_status pf_artifact_num(const char *path, const json_t *o, const char *key, double *v, bool *present);

/* o[key] as a boolean (required). */
pf_status pf_artifact_bool(const char *path, const json_t *o, const char *key, bool *v);

/* 64 lower-case hex digits. */
bool pf_artifact_is_hash(const char *h);

/* A new map {format, version: PF_ARTIFACT_VERSION} (NULL: out of memory). */
json_t *pf_artifact_begin(const char *format);

/* Write o to path atomically and drop it; PF_ERR_NOMEM when it holds fewer
 * than `keys` keys (a value failed to build). */
pf_status pf_artifact_finish(const char *path, json_t *o, size_t keys);

#endif
