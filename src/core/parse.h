/*
 * parse.h — numbers from text with range checks.
 *
 * strtol() and friends wrap or saturate silently once a cast narrows their
 * result ("4294967297" as an int is 1) and accept leading blanks, a sign
 * and trailing junk unless every caller checks errno and the end pointer.
 * Every integer that comes from a user (a stage's options, an environment
 * variable) goes through these instead, with the range its use allows:
 *
 *     long g;
 *     if (pf_parse_long(optarg, 0, 99, &g) != PF_OK)
 *         return fprintf(stderr, "pf-x: --generation: %s\n", pf_errmsg()), 2;
 *     // pf_errmsg(): "'4294967297' is outside 0..99"
 *
 * Integers read from JSON or msgpack documents are checked the same way by
 * pf_json_int() in io/msgpack_json.h.
 */
#ifndef PF_CORE_PARSE_H
#define PF_CORE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* text as a decimal integer in lo..hi into *v (untouched on failure).
 * Accepted: an optional '-', then one or more digits 0-9, nothing before
 * or after (no blanks, no '+', no "0x"). PF_ERR_INVALID with the message
 * "'TEXT' is not an integer" or "'TEXT' is outside LO..HI" (which also
 * covers values that do not fit a long). text may be NULL (not an
 * integer). */
pf_status pf_parse_long(const char *text, long lo, long hi, long *v);

/* The same for unsigned 64-bit values in 0..hi: digits only, no sign. */
pf_status pf_parse_u64(const char *text, uint64_t hi, uint64_t *v);

#endif
