/* msgpack_json.c — JSON <-> msgpack and atomic msgpack files
 * (msgpack_json.h). */
#include "io/msgpack_json.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ JSON -> msgpack */

/* depth: the number of enclosing containers */
static int pack(msgpack_packer *pk, const json_t *v, int depth)
{
    if ((json_is_object(v) || json_is_array(v)) && depth >= PF_MSGPACK_JSON_MAX_NESTING)
        return -1;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (msgpack_pack_map(pk, json_object_size(v))) return -1;
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)v, key, val) {
            size_t n = json_object_iter_key_len(json_object_key_to_iter(key));
            if (msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, key, n) ||
                pack(pk, val, depth + 1))
                return -1;
        }
        return 0;
    }
    case JSON_ARRAY: {
        if (msgpack_pack_array(pk, json_array_size(v))) return -1;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) if (pack(pk, e, depth + 1)) return -1;
        return 0;
    }
    case JSON_STRING: {
        size_t n = json_string_length(v);
        return msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, json_string_value(v), n);
    }
    case JSON_INTEGER: return msgpack_pack_int64(pk, (int64_t)json_integer_value(v));
    case JSON_REAL: return msgpack_pack_double(pk, json_real_value(v));
    case JSON_TRUE: return msgpack_pack_true(pk);
    case JSON_FALSE: return msgpack_pack_false(pk);
    case JSON_NULL: return msgpack_pack_nil(pk);
    }
    return -1;
}

pf_status pf_json_to_msgpack(const json_t *v, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (!v) return pf_fail(PF_ERR_IO, "msgpack: no JSON value to encode");
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    if (pack(&pk, v, 0)) {
        msgpack_sbuffer_destroy(&sb);
        return pf_fail(PF_ERR_IO, "cannot encode JSON as msgpack (containers nested more than "
                                  "%d deep, or out of memory)",
                       PF_MSGPACK_JSON_MAX_NESTING);
    }
    *len = sb.size;
    *buf = msgpack_sbuffer_release(&sb);
    if (!*buf) {
        *len = 0;
        *buf = malloc(1);
        if (!*buf) return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    return PF_OK;
}

/* ------------------------------------------------------------ msgpack -> JSON */

/* The bytes of a str object. msgpack-c leaves ptr NULL for a zero-length
 * str when no earlier str or bin in the same buffer set its cursor (a
 * top-level "" or [""]), and jansson's json_stringn(NULL, 0) is NULL. */
static const char *str_ptr(const msgpack_object *o)
{
    return o->via.str.size ? o->via.str.ptr : "";
}

/* Big-endian unsigned of n bytes at p. */
static uint64_t be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

pf_status pf_msgpack_check(const char *buf, size_t len, size_t *used)
{
    static const char *const kind_name[] = {"value", "string", "bin", "ext", "array", "map"};
    enum { SCALAR, STR, BIN, EXT, ARRAY, MAP };
    const unsigned char *p = (const unsigned char *)buf;
    size_t off = 0;
    /* values still to read: each needs at least one byte, so a container
     * claiming more elements than bytes are left is corrupt, found before
     * msgpack-c allocates room for them */
    uint64_t pending = 1;
    *used = 0;
    while (pending > 0) {
        if (off >= len) return pf_fail(PF_ERR_IO, "truncated msgpack: %zu bytes end inside a value", len);
        size_t at = off;
        unsigned c = p[off++];
        int kind = SCALAR, hdr = 0; /* hdr: bytes of the size field after the type byte */
        uint64_t n = 0;             /* payload bytes (SCALAR, STR, BIN, EXT) or elements (ARRAY, MAP) */
        pending--;
        if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) n = 0;
        else if (c <= 0x8f) kind = MAP, n = c & 0x0f;
        else if (c <= 0x9f) kind = ARRAY, n = c & 0x0f;
        else if (c <= 0xbf) kind = STR, n = c & 0x1f;
        else switch (c) {
            case 0xc4: kind = BIN, hdr = 1; break;
            case 0xc5: kind = BIN, hdr = 2; break;
            case 0xc6: kind = BIN, hdr = 4; break;
            case 0xd9: kind = STR, hdr = 1; break;
            case 0xda: kind = STR, hdr = 2; break;
            case 0xdb: kind = STR, hdr = 4; break;
            case 0xc7: kind = EXT, hdr = 1; break;              /* ext8: size, type, data */
            case 0xc8: kind = EXT, hdr = 2; break;
            case 0xc9: kind = EXT, hdr = 4; break;
            case 0xcc: case 0xd0: n = 1; break;
            case 0xcd: case 0xd1: n = 2; break;
            case 0xca: case 0xce: case 0xd2: n = 4; break;
            case 0xcb: case 0xcf: case 0xd3: n = 8; break;
            case 0xd4: n = 2; break;                            /* fixext 1..16: type, data */
            case 0xd5: n = 3; break;
            case 0xd6: n = 5; break;
            case 0xd7: n = 9; break;
            case 0xd8: n = 17; break;
            case 0xdc: kind = ARRAY, hdr = 2; break;
            case 0xdd: kind = ARRAY, hdr = 4; break;
            case 0xde: kind = MAP, hdr = 2; break;
            case 0xdf: kind = MAP, hdr = 4; break;
            default: return pf_fail(PF_ERR_IO, "corrupt msgpack: byte 0x%02x at offset %zu starts no value", c, at);
            }
        if (hdr) {
            if (len - off < (size_t)hdr)
                return pf_fail(PF_ERR_IO, "truncated msgpack: the %s at offset %zu lacks its size", kind_name[kind],
                               at);
            n = be(p + off, hdr) + (kind == EXT); /* ext: its type byte too */
            off += (size_t)hdr;
        }
        uint64_t left = len - off;
        if (kind == ARRAY || kind == MAP) {
            uint64_t values = kind == MAP ? 2 * n : n;
            if (pending > left || values > left - pending)
                return pf_fail(PF_ERR_IO,
                               "corrupt msgpack: the %s at offset %zu claims %llu %s, but only %llu bytes follow",
                               kind_name[kind], at, (unsigned long long)n, kind == MAP ? "entries" : "elements",
                               (unsigned long long)left);
            pending += values;
        } else {
            if (n > left)
                return pf_fail(PF_ERR_IO, "corrupt msgpack: the %s at offset %zu claims %llu bytes, but only %llu follow",
                               kind_name[kind], at, (unsigned long long)n, (unsigned long long)left);
            off += (size_t)n;
        }
    }
    *used = off;
    return PF_OK;
}

static json_t *unpack(const msgpack_object *o, int depth)
{
    if ((o->type == MSGPACK_OBJECT_ARRAY || o->type == MSGPACK_OBJECT_MAP) &&
        depth >= PF_MSGPACK_JSON_MAX_NESTING)
        return NULL;
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: return json_null();
    case MSGPACK_OBJECT_BOOLEAN: return json_boolean(o->via.boolean);
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        if (o->via.u64 > (uint64_t)INT64_MAX) return NULL;
        return json_integer((json_int_t)o->via.u64);
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return json_integer((json_int_t)o->via.i64);
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: return json_real(o->via.f64); /* NULL for NaN, Inf */
    case MSGPACK_OBJECT_STR: return json_stringn(str_ptr(o), o->via.str.size);
    case MSGPACK_OBJECT_ARRAY: {
        json_t *a = json_array();
        for (uint32_t i = 0; a && i < o->via.array.size; i++) {
            json_t *e = unpack(&o->via.array.ptr[i], depth + 1);
            if (!e || json_array_append_new(a, e)) {
                json_decref(a);
                return NULL;
            }
        }
        return a;
    }
    case MSGPACK_OBJECT_MAP: {
        json_t *m = json_object();
        for (uint32_t i = 0; m && i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (kv->key.type != MSGPACK_OBJECT_STR) {
                json_decref(m);
                return NULL;
            }
            /* a key twice has no JSON form (jansson would keep the last) */
            if (json_object_getn(m, str_ptr(&kv->key), kv->key.via.str.size)) {
                json_decref(m);
                return NULL;
            }
            /* setn: the key by its length, UTF-8 checked, no copy of our own */
            if (json_object_setn_new(m, str_ptr(&kv->key), kv->key.via.str.size, unpack(&kv->val, depth + 1))) {
                json_decref(m);
                return NULL;
            }
        }
        return m;
    }
    default: return NULL;
    }
}

pf_status pf_json_from_msgpack(const char *buf, size_t len, json_t **out)
{
    *out = NULL;
    size_t used;
    PF_TRY(pf_msgpack_check(buf, len, &used));
    if (used != len)
        return pf_fail(PF_ERR_IO, "msgpack: not exactly one value (%zu bytes follow the first, %zu bytes long)",
                       len - used, used);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, buf, len, &off) != MSGPACK_UNPACK_SUCCESS || off != len) {
        msgpack_unpacked_destroy(&u);
        /* the sizes are sound (checked above): what msgpack-c still refuses
         * is depth, which it reports as MSGPACK_UNPACK_NOMEM_ERROR */
        return pf_fail(PF_ERR_IO, "msgpack: not exactly one well-formed value (%zu of %zu bytes used; "
                                  "containers nest at most %d deep)",
                       off, len, PF_MSGPACK_JSON_MAX_NESTING);
    }
    *out = unpack(&u.data, 0);
    msgpack_unpacked_destroy(&u);
    if (!*out)
        return pf_fail(PF_ERR_IO, "msgpack: a value has no JSON form (binary, ext, non-string key, "
                                  "a key twice in a map, invalid UTF-8, or a non-finite float)");
    return PF_OK;
}

bool pf_json_int(const json_t *v, long lo, long hi, long *out)
{
    if (!json_is_integer(v)) return false;
    json_int_t x = json_integer_value(v);
    if (x < (json_int_t)lo || x > (json_int_t)hi) return false;
    *out = (long)x;
    return true;
}

/* ------------------------------------------------------------ files */

pf_status pf_msgpack_write_file(const char *path, const json_t *v)
{
    char *buf;
    size_t len;
    pf_status st = pf_json_to_msgpack(v, &buf, &len);
    if (st != PF_OK) return pf_fail(st, "cannot write '%s': %s", path, pf_errmsg());
    st = pf_file_write_atomic(path, buf, len);
    free(buf);
    return st;
}

pf_status pf_msgpack_read_file(const char *path, json_t **out)
{
    *out = NULL;
    size_t len = 0;
    char *buf;
    PF_TRY(pf_file_read_as(path, PF_FILE_MSGPACK, &buf, &len));
    pf_status st = pf_json_from_msgpack(buf, len, out);
    free(buf);
    if (st != PF_OK) return pf_fail(st, "'%s': %s", path, pf_errmsg());
    return PF_OK;
}
