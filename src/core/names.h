/*
 * names.h — enum values by name, with the error every parser should give.
 *
 * Configuration enums (architectures, schedules, ...) each keep a table of
 * canonical lower-case names indexed by value. pf_name_lookup() finds a name
 * in such a table, or fails with one sentence that lists what is allowed —
 * the sentence the spec validator feeds back to the proposer:
 *
 *     static const char *const names[] = {"none", "layerwise", "global"};
 *     int i;
 *     if (pf_name_lookup("adapt", s, names, 3, &i) != PF_OK) return PF_ERR_INVALID;
 *     // pf_errmsg(): "adapt 'local' is unknown; allowed: none, layerwise, global"
 */
#ifndef PF_CORE_NAMES_H
#define PF_CORE_NAMES_H

#include <stddef.h>

#include "core/status.h"

/* Index of `name` in names[0..n) into *out (untouched on failure); NULL
 * names never match. `kind` names the field in the message. */
pf_status pf_name_lookup(const char *kind, const char *name, const char *const *names, int n,
                         int *out);

/* "a, b, c" into buf (truncated to cap); returns buf. */
const char *pf_name_join(char *buf, size_t cap, const char *const *names, int n);

/* The same with another separator ("a,b,c" for sep ","). */
const char *pf_name_join_sep(char *buf, size_t cap, const char *const *names, int n, const char *sep);

#endif
