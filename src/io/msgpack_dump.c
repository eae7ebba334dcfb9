/* msgpack_dump.c — any msgpack file as JSON documents (msgpack_dump.h). */
#include "io/msgpack_dump.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <msgpack.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/msgpack_json.h"

/* "base64:..." (libcrypto's encoder) */
static json_t *bytes_json(const char *data, size_t n)
{
    if (n > (size_t)INT_MAX / 2) return NULL;
    char *s = malloc(7 + (n + 2) / 3 * 4 + 1);
    if (!s) return NULL;
    memcpy(s, "base64:", 7);
    EVP_EncodeBlock((unsigned char *)s + 7, (const unsigned char *)data, (int)n);
    json_t *j = json_string(s);
    free(s);
    return j;
}

static json_t *to_json(const msgpack_object *o);

/* A str's bytes: msgpack-c may leave ptr NULL for a zero-length str. */
static const char *str_ptr(const msgpack_object *o)
{
    return o->via.str.size ? o->via.str.ptr : "";
}

/* A map key as a string (malloc'd). */
static char *key_string(const msgpack_object *k)
{
    char tmp[32];
    switch (k->type) {
    case MSGPACK_OBJECT_STR: return strndup(str_ptr(k), k->via.str.size);
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        snprintf(tmp, sizeof tmp, "%" PRIu64, k->via.u64);
        return strdup(tmp);
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        snprintf(tmp, sizeof tmp, "%" PRId64, k->via.i64);
        return strdup(tmp);
    default: {
        json_t *j = to_json(k);
        char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        json_decref(j);
        return s;
    }
    }
}

static json_t *to_json(const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: return json_null();
    case MSGPACK_OBJECT_BOOLEAN: return json_boolean(o->via.boolean);
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        if (o->via.u64 <= (uint64_t)INT64_MAX) return json_integer((json_int_t)o->via.u64);
        return json_real((double)o->via.u64);
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return json_integer((json_int_t)o->via.i64);
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: {
        double v = o->via.f64;
        if (isnan(v)) return json_string("nan");
        if (isinf(v)) return json_string(v > 0 ? "inf" : "-inf");
        return json_real(v);
    }
    case MSGPACK_OBJECT_STR: {
        json_t *j = json_stringn(str_ptr(o), o->via.str.size);
        /* not UTF-8: show the bytes */
        return j ? j : bytes_json(o->via.str.ptr, o->via.str.size);
    }
    case MSGPACK_OBJECT_BIN: return bytes_json(o->via.bin.ptr, o->via.bin.size);
    case MSGPACK_OBJECT_EXT: {
        json_t *j = json_object();
        if (!j || json_object_set_new(j, "ext", json_integer(o->via.ext.type)) ||
            json_object_set_new(j, "data", bytes_json(o->via.ext.ptr, o->via.ext.size))) {
            json_decref(j);
            return NULL;
        }
        return j;
    }
    case MSGPACK_OBJECT_ARRAY: {
        json_t *j = json_array();
        for (uint32_t i = 0; j && i < o->via.array.size; i++)
            if (json_array_append_new(j, to_json(&o->via.array.ptr[i]))) {
                json_decref(j);
                j = NULL;
            }
        return j;
    }
    case MSGPACK_OBJECT_MAP: {
        json_t *j = json_object();
        for (uint32_t i = 0; j && i < o->via.map.size; i++) {
            char *k = key_string(&o->via.map.ptr[i].key);
            if (!k || json_object_set_new(j, k, to_json(&o->via.map.ptr[i].val))) {
                json_decref(j);
                j = NULL;
            }
            free(k);
        }
        return j;
    }
    }
    return NULL;
}

pf_status pf_msgpack_dump_json(const char *path, const char *buf, size_t len, json_t **out)
{
    *out = NULL;
    json_t *docs = json_array();
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0, used;
    const char *why = NULL;
    while (docs && !why && off < len) {
        /* sizes bounded by the bytes present first: a corrupt length is reported, never allocated */
        if (pf_msgpack_check(buf + off, len - off, &used) != PF_OK) {
            pf_status st = pf_fail(PF_ERR_INVALID, "%s: %s (object at byte %zu)", path, pf_errmsg(), off);
            json_decref(docs);
            msgpack_unpacked_destroy(&u);
            return st;
        }
        msgpack_unpack_return r = msgpack_unpack_next(&u, buf, len, &off);
        if (r == MSGPACK_UNPACK_CONTINUE) why = "truncated msgpack";
        else if (r == MSGPACK_UNPACK_NOMEM_ERROR) /* sizes are checked: this is msgpack-c's depth limit */
            why = "msgpack containers nested more than 32 deep (or out of memory)";
        else if (r != MSGPACK_UNPACK_SUCCESS) why = "not HDF5 or msgpack";
        else if (u.data.type != MSGPACK_OBJECT_MAP && u.data.type != MSGPACK_OBJECT_ARRAY)
            why = "not HDF5 or msgpack (a top-level msgpack object is not a map or an array)";
        else if (json_array_append_new(docs, to_json(&u.data)))
            why = "out of memory";
    }
    msgpack_unpacked_destroy(&u);
    if (!docs) why = "out of memory";
    if (!why && len == 0) why = "empty file, not HDF5 or msgpack";
    if (why) {
        json_decref(docs);
        return pf_fail(PF_ERR_INVALID, "%s: %s", path, why);
    }
    *out = docs;
    return PF_OK;
}
