/*
 * pf-inspect — print any of our artifacts in readable form.
 *
 *   pf-inspect FILE    HDF5 (by signature): one line per group and dataset,
 *                      with attributes; otherwise msgpack: each object as JSON
 *
 * Our HDF5 files carry a checksum header (io/h5.h): it is checked before
 * HDF5 reads the file, and a corrupt file is refused (exit 1), never handed
 * to HDF5, which can crash on damaged metadata. A checksum can be
 * recomputed, and another tool's file has none: HDF5 reads the file in a
 * child process, whose crash (or loop) is an error naming the file (exit 1).
 *
 * Exit codes: 0 ok, 1 unreadable file or unknown format, 2 usage error.
 */
#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5.h"
#include "io/msgpack_json.h"

/* Array attributes up to this many elements are printed in full. */
#define SHORT_ARRAY 16

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pf-inspect FILE\n"
            "Prints one of our artifacts in readable form; the format is detected by content.\n"
            "\n"
            "HDF5 (signature \\x89HDF\\r\\n\\x1a\\n): the root attributes, then one line per\n"
            "group and dataset, in name order:\n"
            "  /path  group\n"
            "  /path  dataset TYPE (d1, d2, ...)\n"
            "followed by that object's attributes, one a line, as\n"
            "    @name = value\n"
            "with strings quoted, numbers as is and arrays of up to %d elements as [a, b, ...]\n"
            "(longer ones as TYPE (shape)). Soft and external links are shown as\n"
            "  /path  link -> TARGET\n"
            "Files written by PinnForge start with a checksum header (PINNFORGE-H5, in a\n"
            "512-byte user block); a file whose header is damaged or whose checksum does not\n"
            "match is refused (exit 1) before HDF5 reads it. HDF5 reads every file in a\n"
            "child process: if it crashes (or loops) on a damaged file, that is exit 1 with\n"
            "a message naming the file.\n"
            "\n"
            "msgpack: a file of one or more concatenated objects, each a map or an array at\n"
            "the top level, printed as pretty JSON, one document per object. Map keys that are\n"
            "not strings become strings (numbers in decimal, anything else as compact JSON);\n"
            "bin values become \"base64:<data>\"; ext values {\"ext\": TYPE, \"data\":\n"
            "\"base64:<data>\"}; non-finite floats the strings \"nan\", \"inf\", \"-inf\"; unsigned\n"
            "integers above 2^63-1 become JSON reals.\n"
            "\n"
            "Exit status: 0 ok, 1 unreadable file or unknown format, 2 usage error.\n",
            SHORT_ARRAY);
}

/* ------------------------------------------------------------------ file */


static const char HDF5_SIG[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};

/* HDF5 keeps its signature at 0, or after a user block at 512, 1024, 2048,
 * ...; ours starts with our header (io/h5.h), even when a damaged byte hides
 * the signature behind it. */
static bool is_hdf5(const char *buf, size_t len)
{
    if (len >= 4 && memcmp(buf, PF_H5_MAGIC, 4) == 0) return true;
    for (size_t off = 0; off + sizeof HDF5_SIG <= len; off = off ? off * 2 : 512)
        if (memcmp(buf + off, HDF5_SIG, sizeof HDF5_SIG) == 0) return true;
    return false;
}

/* --------------------------------------------------------------- msgpack */

static char *base64(const char *data, size_t n, const char *prefix)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t plen = strlen(prefix);
    char *out = malloc(plen + (n + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    memcpy(out, prefix, plen);
    char *o = out + plen;
    const unsigned char *d = (const unsigned char *)data;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16;
        if (i + 1 < n) v |= (uint32_t)d[i + 1] << 8;
        if (i + 2 < n) v |= d[i + 2];
        *o++ = tab[v >> 18 & 63];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o = 0;
    return out;
}

static json_t *bytes_json(const char *data, size_t n)
{
    char *s = base64(data, n, "base64:");
    json_t *j = s ? json_string(s) : NULL;
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

/* 0 after printing every object, 1 when the bytes are not our msgpack. */
static int inspect_msgpack(const char *path, const char *buf, size_t len)
{
    json_t *docs = json_array();
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    const char *why = NULL;
    size_t used;
    while (docs && !why && off < len) {
        /* sizes bounded by the bytes present first: a corrupt length is reported, never allocated */
        if (pf_msgpack_check(buf + off, len - off, &used) != PF_OK) {
            fprintf(stderr, "pf-inspect: %s: %s (object at byte %zu)\n", path, pf_errmsg(), off);
            json_decref(docs);
            msgpack_unpacked_destroy(&u);
            return 1;
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
        fprintf(stderr, "pf-inspect: %s: %s\n", path, why);
        json_decref(docs);
        return 1;
    }
    size_t i;
    json_t *d;
    json_array_foreach(docs, i, d)
    {
        json_dumpf(d, stdout, JSON_INDENT(2) | JSON_ENCODE_ANY);
        fputc('\n', stdout);
    }
    json_decref(docs);
    return 0;
}

/* ------------------------------------------------------------------ HDF5 */

typedef struct {
    const char *file;
    bool failed;
} walk;

static void h5_failed(walk *w, const char *what, const char *name)
{
    if (!w->failed) fprintf(stderr, "pf-inspect: %s: cannot %s '%s'\n", w->file, what, name);
    w->failed = true;
}

/* "float32", "int32", "string", ... */
static void type_name(hid_t t, char *buf, size_t cap)
{
    size_t size = H5Tget_size(t);
    switch (H5Tget_class(t)) {
    case H5T_INTEGER:
        snprintf(buf, cap, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", size * 8);
        break;
    case H5T_FLOAT: snprintf(buf, cap, "float%zu", size * 8); break;
    case H5T_STRING: snprintf(buf, cap, "string"); break;
    case H5T_COMPOUND: snprintf(buf, cap, "compound"); break;
    case H5T_ENUM: snprintf(buf, cap, "enum"); break;
    case H5T_ARRAY: snprintf(buf, cap, "array"); break;
    case H5T_VLEN: snprintf(buf, cap, "vlen"); break;
    case H5T_OPAQUE: snprintf(buf, cap, "opaque"); break;
    case H5T_BITFIELD: snprintf(buf, cap, "bitfield"); break;
    case H5T_REFERENCE: snprintf(buf, cap, "reference"); break;
    default: snprintf(buf, cap, "unknown"); break;
    }
}

/* "(d1, d2)" or "()" for a scalar; the element count in *n, -1 on failure. */
static int shape_of(hid_t space, char *buf, size_t cap, hssize_t *n)
{
    hsize_t dims[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_ndims(space);
    *n = H5Sget_simple_extent_npoints(space);
    if (rank < 0 || *n < 0 || H5Sget_simple_extent_dims(space, dims, NULL) < 0) return -1;
    size_t len = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < rank && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%llu", i ? ", " : "",
                                (unsigned long long)dims[i]);
    if (len < cap) snprintf(buf + len, cap - len, ")");
    return 0;
}

static void print_json_string(const char *s)
{
    json_t *j = json_string(s);
    char *d = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    fputs(d ? d : "\"?\"", stdout);
    free(d);
    json_decref(j);
}

/* The value of attribute `a` (type t, n elements) on stdout; -1 on failure. */
static int print_attr_value(hid_t a, hid_t t, hssize_t n)
{
    H5T_class_t cls = H5Tget_class(t);
    bool scalar_like = n == 1;
    if (cls == H5T_STRING) {
        htri_t var = H5Tis_variable_str(t);
        if (var < 0) return -1;
        hid_t mem = H5Tcopy(H5T_C_S1);
        if (mem < 0) return -1;
        int rc = 0;
        size_t size = H5Tget_size(t);
        /* same character set as the file's: HDF5 does not convert between them */
        H5T_cset_t cset = H5Tget_cset(t);
        if (cset < 0 || H5Tset_cset(mem, cset) < 0) rc = -1;
        if ((var ? H5Tset_size(mem, H5T_VARIABLE) : H5Tset_size(mem, size + 1)) < 0) rc = -1;
        if (!rc && var) {
            char **v = calloc((size_t)n, sizeof *v);
            if (!v || H5Aread(a, mem, v) < 0) {
                rc = -1;
            } else {
                if (!scalar_like) fputc('[', stdout);
                for (hssize_t i = 0; i < n; i++) {
                    if (i) fputs(", ", stdout);
                    print_json_string(v[i] ? v[i] : "");
                }
                if (!scalar_like) fputc(']', stdout);
                hid_t sp = H5Aget_space(a);
#if H5_VERSION_GE(1, 12, 0)
                if (sp < 0 || H5Treclaim(mem, sp, H5P_DEFAULT, v) < 0) rc = -1;
#else
                if (sp < 0 || H5Dvlen_reclaim(mem, sp, H5P_DEFAULT, v) < 0) rc = -1;
#endif
                if (sp >= 0 && H5Sclose(sp) < 0) rc = -1;
            }
            free(v);
        } else if (!rc) {
            char *v = calloc((size_t)n, size + 1);
            if (!v || H5Aread(a, mem, v) < 0) {
                rc = -1;
            } else {
                if (!scalar_like) fputc('[', stdout);
                for (hssize_t i = 0; i < n; i++) {
                    if (i) fputs(", ", stdout);
                    print_json_string(v + (size_t)i * (size + 1));
                }
                if (!scalar_like) fputc(']', stdout);
            }
            free(v);
        }
        if (H5Tclose(mem) < 0) rc = -1;
        return rc;
    }
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        bool is_unsigned = cls == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_NONE;
        hid_t mem = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
                                     : is_unsigned ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64;
        union {
            double d;
            int64_t i;
            uint64_t u;
        } *v = calloc((size_t)n, sizeof *v);
        if (!v || H5Aread(a, mem, v) < 0) {
            free(v);
            return -1;
        }
        if (!scalar_like) fputc('[', stdout);
        for (hssize_t i = 0; i < n; i++) {
            if (i) fputs(", ", stdout);
            if (cls == H5T_FLOAT) printf("%.17g", v[i].d);
            else if (is_unsigned) printf("%" PRIu64, v[i].u);
            else printf("%" PRId64, v[i].i);
        }
        if (!scalar_like) fputc(']', stdout);
        free(v);
        return 0;
    }
    return 1; /* not printable as a value */
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    walk *w = data;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) {
        h5_failed(w, "open attribute", name);
        return -1;
    }
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    char tname[32], shape[256];
    hssize_t n = -1;
    int rc = t < 0 || sp < 0 || shape_of(sp, shape, sizeof shape, &n) < 0 ? -1 : 0;
    if (!rc) {
        type_name(t, tname, sizeof tname);
        printf("  @%s = ", name);
        H5T_class_t cls = H5Tget_class(t);
        bool value = n >= 1 && n <= SHORT_ARRAY &&
                     (cls == H5T_STRING || cls == H5T_INTEGER || cls == H5T_FLOAT);
        if (value) {
            rc = print_attr_value(a, t, n);
        }
        if (!value) printf("%s %s", tname, shape);
        fputc('\n', stdout);
    }
    if (t >= 0 && H5Tclose(t) < 0) rc = -1;
    if (sp >= 0 && H5Sclose(sp) < 0) rc = -1;
    if (H5Aclose(a) < 0) rc = -1;
    if (rc < 0) h5_failed(w, "read attribute", name);
    return rc < 0 ? -1 : 0;
}

static int print_attrs(walk *w, hid_t obj, const char *path)
{
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, w) < 0) {
        h5_failed(w, "list the attributes of", path);
        return -1;
    }
    return 0;
}

typedef struct {
    walk *w;
    const char *prefix; /* "" for the root */
} level;

static int visit_group(walk *w, hid_t g, const char *prefix);

static herr_t link_cb(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    level *lv = data;
    walk *w = lv->w;
    size_t plen = strlen(lv->prefix) + strlen(name) + 2;
    char *path = malloc(plen);
    if (!path) {
        h5_failed(w, "allocate for", name);
        return -1;
    }
    snprintf(path, plen, "%s/%s", lv->prefix, name);
    int rc = 0;
    if (info->type != H5L_TYPE_HARD) {
        char target[1024] = "?";
        if (info->type == H5L_TYPE_SOFT &&
            H5Lget_val(group, name, target, sizeof target, H5P_DEFAULT) < 0)
            snprintf(target, sizeof target, "?");
        target[sizeof target - 1] = 0;
        printf("%s  link -> %s\n", path, info->type == H5L_TYPE_SOFT ? target : "(external)");
        free(path);
        return 0;
    }
    hid_t o = H5Oopen(group, name, H5P_DEFAULT);
    if (o < 0) {
        h5_failed(w, "open", path);
        free(path);
        return -1;
    }
    H5I_type_t kind = H5Iget_type(o);
    if (kind == H5I_GROUP) {
        printf("%s  group\n", path);
        rc = print_attrs(w, o, path);
        if (!rc) rc = visit_group(w, o, path);
    } else if (kind == H5I_DATASET) {
        hid_t t = H5Dget_type(o), sp = H5Dget_space(o);
        char tname[32], shape[256];
        hssize_t n;
        if (t < 0 || sp < 0 || shape_of(sp, shape, sizeof shape, &n) < 0) {
            h5_failed(w, "read the type and shape of", path);
            rc = -1;
        } else {
            type_name(t, tname, sizeof tname);
            printf("%s  dataset %s %s\n", path, tname, shape);
            rc = print_attrs(w, o, path);
        }
        if (t >= 0 && H5Tclose(t) < 0) rc = -1;
        if (sp >= 0 && H5Sclose(sp) < 0) rc = -1;
    } else if (kind == H5I_DATATYPE) {
        printf("%s  datatype\n", path);
        rc = print_attrs(w, o, path);
    } else {
        printf("%s  object\n", path);
    }
    if (H5Oclose(o) < 0) rc = -1;
    if (rc < 0) h5_failed(w, "read", path);
    free(path);
    return rc < 0 ? -1 : 0;
}

static int visit_group(walk *w, hid_t g, const char *prefix)
{
    level lv = {w, prefix};
    hsize_t idx = 0;
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, link_cb, &lv) < 0) {
        h5_failed(w, "list the members of", *prefix ? prefix : "/");
        return -1;
    }
    return 0;
}

/* The walk of the file `ctx` (its path), in the child process of
 * pf_h5_isolate(): 0 when every object was printed, else 1. */
static int walk_file(void *ctx)
{
    const char *path = ctx;
    walk w = {path, false};
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        fprintf(stderr, "pf-inspect: %s: cannot open as HDF5\n", path);
        return 1;
    }
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    if (root < 0) {
        h5_failed(&w, "open", "/");
    } else {
        printf("/  group\n");
        if (print_attrs(&w, root, "/") == 0) visit_group(&w, root, "");
        if (H5Gclose(root) < 0) h5_failed(&w, "close", "/");
    }
    if (H5Fclose(f) < 0) h5_failed(&w, "close", path);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pf-inspect: cannot write the output\n");
        return 1;
    }
    return w.failed ? 1 : 0;
}

/* buf[0..len): the file's bytes, checked before HDF5 reads them (a damaged
 * file can crash HDF5; io/h5.h, "checksum"). A checksum can be recomputed
 * and a file of another tool has none, so HDF5 reads the file in a child
 * process (io/h5.h, "isolation"): its crash, or a loop, is an error naming
 * the file, exit 1. */
static int inspect_hdf5(const char *path, const char *buf, size_t len)
{
    if (pf_h5_verify_bytes(path, buf, len) != PF_OK) {
        fprintf(stderr, "pf-inspect: %s\n", pf_errmsg());
        return 1;
    }
    int code = 1;
    if (pf_h5_isolate(path, walk_file, (void *)path, &code) != PF_OK) {
        fprintf(stderr, "pf-inspect: %s\n", pf_errmsg());
        return 1;
    }
    return code == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *file = NULL;
    bool opts = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
            usage(stdout);
            return 0;
        }
        if (opts && !strcmp(a, "--")) {
            opts = false;
        } else if (opts && a[0] == '-' && a[1]) {
            fprintf(stderr, "pf-inspect: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (file) {
            fprintf(stderr, "pf-inspect: one FILE only\n");
            usage(stderr);
            return 2;
        } else {
            file = a;
        }
    }
    if (!file) {
        usage(stderr);
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    size_t len = 0;
    char *buf;
    if (pf_file_read(file, &buf, &len) != PF_OK) {
        fprintf(stderr, "pf-inspect: %s\n", pf_errmsg());
        return 1;
    }
    int rc = is_hdf5(buf, len) ? inspect_hdf5(file, buf, len) : inspect_msgpack(file, buf, len);
    free(buf);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pf-inspect: cannot write the output\n");
        return 1;
    }
    return rc;
}
