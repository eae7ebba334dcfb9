/*
 * msgpack_json.h — JSON (jansson) <-> msgpack, and msgpack files written
 * atomically.
 *
 * Our msgpack artifacts (the canonical spec, the trainer's evidence, ...)
 * are JSON documents stored as msgpack. The conversion is exact both ways
 * for what JSON can hold, so JSON -> msgpack -> JSON gives back the same
 * bytes under json_dumps(JSON_PRESERVE_ORDER | JSON_COMPACT):
 *
 *     json_t *v = json_pack("{s:i, s:[f, s, b, n]}", "steps", 1000,
 *                           "curve", 0.5, "adam", 1);
 *     PF_TRY(pf_msgpack_write_file("run/evidence.msgpack", v));
 *     json_t *back;
 *     PF_TRY(pf_msgpack_read_file("run/evidence.msgpack", &back));
 *     ...
 *     json_decref(back);
 *
 * ------------------------------------------------------------- mapping
 *
 *   JSON object   -> map, keys as str, in the object's iteration order
 *                    (jansson keeps insertion order), so key order is kept
 *   JSON array    -> array
 *   JSON string   -> str (the bytes as they are, UTF-8)
 *   JSON integer  -> int (the smallest msgpack int encoding of the int64)
 *   JSON real     -> float64, always (also an integral value such as 1.0,
 *                    which therefore comes back as a JSON real)
 *   true / false  -> bool;  null -> nil
 *
 * Back from msgpack: nil, bool, int (an unsigned value above INT64_MAX is
 * rejected), float32/float64 (to a JSON real), str (must be valid UTF-8),
 * array, and map with str keys. bin, ext and non-str map keys have no JSON
 * form and are rejected (pf-inspect shows such files by its own rules).
 * Containers (arrays, maps) nested more than PF_MSGPACK_JSON_MAX_NESTING deep
 * are rejected both ways: that is the fixed parser stack of msgpack-c
 * (MSGPACK_EMBED_STACK_SIZE), so nothing is written that cannot be read.
 * Empty strings, empty keys, empty arrays and maps, and keys holding NUL
 * bytes come back exactly.
 *
 * Corrupt input: before msgpack-c sees the bytes, pf_msgpack_check() walks
 * them and bounds every size a value claims (string and bin bytes, array
 * elements, map entries) by the bytes that are left, so a damaged length
 * ("4 billion elements") is reported as corrupt, with its offset, instead
 * of making the parser allocate for it.
 *
 * Non-finite reals: jansson cannot hold NaN or +-Inf (json_real() refuses
 * them), so a caller with a possibly non-finite number stores JSON null in
 * its place, and readers treat null as "not a finite number". A float NaN
 * or Inf in msgpack written by someone else is rejected by
 * pf_json_from_msgpack() (PF_ERR_IO), since it has no JSON form.
 *
 * ------------------------------------------------------------- files
 *
 * pf_msgpack_write_file() writes through pf_file_write_atomic() and
 * pf_msgpack_read_file() reads through pf_file_read_as(PF_FILE_MSGPACK)
 * (core/file.h, included here: atomic writes through a temp file created
 * O_EXCL | O_NOFOLLOW, regular files only, at most 256 MiB). A file written
 * by pf_msgpack_write_file() holds exactly one msgpack value, and
 * pf_msgpack_read_file() accepts exactly one value (no trailing bytes).
 * A map that holds a key twice has no JSON form and is refused.
 *
 * Errors: PF_ERR_IO with a message naming the file (and strerror for system
 * failures) or saying why the bytes are not one well-formed value;
 * PF_ERR_NOMEM when an allocation fails.
 */
#ifndef PF_IO_MSGPACK_JSON_H
#define PF_IO_MSGPACK_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/file.h"
#include "core/status.h"

/* Most levels of nested containers: a top-level array is one level, an
 * array inside it two, and so on; scalars add no level. msgpack-c's parser
 * cannot read deeper values (its stack is MSGPACK_EMBED_STACK_SIZE = 32). */
#define PF_MSGPACK_JSON_MAX_NESTING 32

/* v as msgpack: *buf malloc'ed (caller frees), *len its size. */
pf_status pf_json_to_msgpack(const json_t *v, char **buf, size_t *len);

/* The JSON value of buf[0..len), which must be exactly one well-formed
 * msgpack value with a JSON form (PF_ERR_IO otherwise: truncated, trailing
 * bytes, invalid, bin/ext/non-str key/non-finite float/nested too deeply).
 * *out is a new reference (caller json_decref's), NULL on failure. */
pf_status pf_json_from_msgpack(const char *buf, size_t len, json_t **out);

/* Walk the one msgpack value at the start of buf[0..len) without building
 * it, checking that every size it claims fits the bytes that are left;
 * *used is the value's length (the next value starts there). PF_ERR_IO
 * "corrupt msgpack: ..." or "truncated msgpack: ..." naming the offset
 * otherwise. Takes any msgpack (bin, ext, non-str keys too); what has no
 * JSON form is pf_json_from_msgpack()'s to refuse. */
pf_status pf_msgpack_check(const char *buf, size_t len, size_t *used);

/* True when v is a JSON integer in lo..hi, then stored in *out (untouched
 * otherwise); false for a real, a string, NULL, ... The one way integers
 * read from JSON and msgpack documents are narrowed: the caller names the
 * file and key in its message, e.g.
 *     long run;
 *     if (!pf_json_int(json_object_get(c, "run"), 0, INT_MAX, &run))
 *         return pf_fail(PF_ERR_INVALID, "'%s': \"run\" needs an integer in 0..%d", path, INT_MAX);
 */
bool pf_json_int(const json_t *v, long lo, long hi, long *out);

/* pf_json_to_msgpack() then pf_file_write_atomic(). */
pf_status pf_msgpack_write_file(const char *path, const json_t *v);

/* Read the whole file and pf_json_from_msgpack() it; PF_ERR_IO naming the
 * path on failure. *out as for pf_json_from_msgpack(). */
pf_status pf_msgpack_read_file(const char *path, json_t **out);

#endif
