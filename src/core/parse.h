/*
 * parse.h — numbers from text with range checks, and text made safe to
 * store.
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
 *
 * pf_text_sanitize() makes a message (often one that quotes bytes of a
 * broken input file) fit to be stored in an artifact: valid UTF-8, no
 * control characters, bounded length. jansson refuses strings that are not
 * UTF-8, so an unsanitised message would be dropped from the document.
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

/* Bounds for text stored in artifacts (bytes, without the NUL): */
#define PF_TEXT_LINE_MAX 1024   /* a message: an error, how a run ended, why there is no y */
#define PF_TEXT_BLOCK_MAX 32768 /* several lines: a proposal's reasons or rationale */

/* Copy `in` into out[0..cap) (cap >= 8) as text fit for an artifact,
 * always NUL-terminated:
 *   - each byte that does not start a valid UTF-8 sequence (overlong
 *     forms, surrogates, code points above U+10FFFF, truncated sequences)
 *     becomes U+FFFD (EF BF BD);
 *   - control characters (below 0x20, and 0x7f) other than '\n' and '\t'
 *     become '?';
 *   - when the result does not fit, it is cut at a character boundary and
 *     ends in "..." (strlen(out) <= cap - 1).
 * in == NULL gives "". Returns out. */
char *pf_text_sanitize(const char *in, char *out, size_t cap);

/* pf_text_sanitize() into a malloc'ed buffer of max_len + 1 bytes (max_len
 * >= 7; the result is at most max_len bytes long); NULL when out of
 * memory. */
char *pf_text_sanitize_dup(const char *in, size_t max_len);

#endif
