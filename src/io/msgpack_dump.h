/*
 * msgpack_dump.h — any msgpack file as JSON, for pf-inspect: each top-level
 * object (a map or an array) one document, keys as strings (integer keys
 * in decimal, other keys as compact JSON), NaN and infinities as the
 * strings "nan", "inf", "-inf", bytes (bin, ext data, str that is not
 * UTF-8) as "base64:...", an ext as {"ext": type, "data": ...}.
 *
 *     json_t *docs;
 *     PF_TRY(pf_msgpack_dump_json("evidence.msgpack", bytes, len, &docs));
 *
 * Every size an object claims is checked against the bytes present before
 * anything is allocated (pf_msgpack_check). PF_ERR_INVALID naming the file
 * and the byte offset for what is not msgpack, truncated or nested deeper
 * than msgpack-c's 32 levels.
 */
#ifndef PF_IO_MSGPACK_DUMP_H
#define PF_IO_MSGPACK_DUMP_H

#include <jansson.h>
#include <stddef.h>

#include "core/status.h"

/* *docs: a new array of the file's documents, in order. */
pf_status pf_msgpack_dump_json(const char *path, const char *buf, size_t len, json_t **docs);

#endif
