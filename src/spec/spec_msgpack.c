/* spec_msgpack.c — canonical spec JSON <-> msgpack (spec.h). Key order is
 * kept, integers stay integers and reals stay float64, so
 * JSON -> msgpack -> JSON reproduces the canonical bytes. */
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"

static int pack(msgpack_packer *pk, const json_t *v, int depth)
{
    if (depth > 64) return -1;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (msgpack_pack_map(pk, json_object_size(v))) return -1;
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)v, key, val) {
            size_t n = strlen(key);
            if (msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, key, n) || pack(pk, val, depth + 1))
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

pf_status pf_spec_to_msgpack(const json_t *norm, char **buf, size_t *len)
{
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    if (pack(&pk, norm, 0)) {
        msgpack_sbuffer_destroy(&sb);
        return pf_fail(PF_ERR_IO, "cannot encode the spec as msgpack");
    }
    *len = sb.size;
    *buf = msgpack_sbuffer_release(&sb);
    if (!*buf) {
        *buf = malloc(1);
        if (!*buf) return pf_fail(PF_ERR_NOMEM, "out of memory");
    }
    return PF_OK;
}

static json_t *unpack(const msgpack_object *o, int depth)
{
    if (depth > 64) return NULL;
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: return json_null();
    case MSGPACK_OBJECT_BOOLEAN: return json_boolean(o->via.boolean);
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        if (o->via.u64 > (uint64_t)INT64_MAX) return NULL;
        return json_integer((json_int_t)o->via.u64);
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return json_integer((json_int_t)o->via.i64);
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: return json_real(o->via.f64);
    case MSGPACK_OBJECT_STR: return json_stringn(o->via.str.ptr, o->via.str.size);
    case MSGPACK_OBJECT_ARRAY: {
        json_t *a = json_array();
        for (uint32_t i = 0; i < o->via.array.size; i++) {
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
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (kv->key.type != MSGPACK_OBJECT_STR) {
                json_decref(m);
                return NULL;
            }
            char *key = strndup(kv->key.via.str.ptr, kv->key.via.str.size);
            json_t *e = unpack(&kv->val, depth + 1);
            if (!key || !e || json_object_set_new(m, key, e)) {
                free(key);
                json_decref(m);
                return NULL;
            }
            free(key);
        }
        return m;
    }
    default: return NULL;
    }
}

pf_status pf_spec_from_msgpack(const char *buf, size_t len, json_t **out)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    *out = NULL;
    if (msgpack_unpack_next(&u, buf, len, &off) != MSGPACK_UNPACK_SUCCESS || off != len) {
        msgpack_unpacked_destroy(&u);
        return pf_fail(PF_ERR_IO, "spec msgpack: not exactly one well-formed value (%zu of %zu bytes used)", off, len);
    }
    *out = unpack(&u.data, 0);
    msgpack_unpacked_destroy(&u);
    if (!*out) return pf_fail(PF_ERR_IO, "spec msgpack: a value has no JSON form (binary, ext or non-string key)");
    return PF_OK;
}
