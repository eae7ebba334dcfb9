/* h5_print.c — a listing of any HDF5 file (h5_print.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "io/h5_print.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "io/h5.h"

typedef struct {
    const char *file;
    FILE *out;
    bool failed;
    char *err; /* PF_H5_PRINT_ERR bytes shared with the parent: the first failure */
} walk;

#define PF_H5_PRINT_ERR 1024

static void h5_failed(walk *w, const char *what, const char *name)
{
    if (!w->failed) snprintf(w->err, PF_H5_PRINT_ERR, "%s: cannot %s '%s'", w->file, what, name);
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

static void print_json_string(FILE *out, const char *s)
{
    json_t *j = json_string(s);
    char *d = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    fputs(d ? d : "\"?\"", out);
    free(d);
    json_decref(j);
}

/* The value of attribute `a` (type t, n elements) on out; -1 on failure. */
static int print_attr_value(FILE *out, hid_t a, hid_t t, hssize_t n)
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
                if (!scalar_like) fputc('[', out);
                for (hssize_t i = 0; i < n; i++) {
                    if (i) fputs(", ", out);
                    print_json_string(out, v[i] ? v[i] : "");
                }
                if (!scalar_like) fputc(']', out);
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
                if (!scalar_like) fputc('[', out);
                for (hssize_t i = 0; i < n; i++) {
                    if (i) fputs(", ", out);
                    print_json_string(out, v + (size_t)i * (size + 1));
                }
                if (!scalar_like) fputc(']', out);
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
        if (!scalar_like) fputc('[', out);
        for (hssize_t i = 0; i < n; i++) {
            if (i) fputs(", ", out);
            if (cls == H5T_FLOAT) fprintf(out, "%.17g", v[i].d);
            else if (is_unsigned) fprintf(out, "%" PRIu64, v[i].u);
            else fprintf(out, "%" PRId64, v[i].i);
        }
        if (!scalar_like) fputc(']', out);
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
        fprintf(w->out, "  @%s = ", name);
        H5T_class_t cls = H5Tget_class(t);
        bool value = n >= 1 && n <= PF_H5_PRINT_SHORT_ARRAY &&
                     (cls == H5T_STRING || cls == H5T_INTEGER || cls == H5T_FLOAT);
        if (value) {
            rc = print_attr_value(w->out, a, t, n);
        }
        if (!value) fprintf(w->out, "%s %s", tname, shape);
        fputc('\n', w->out);
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
        fprintf(w->out, "%s  link -> %s\n", path, info->type == H5L_TYPE_SOFT ? target : "(external)");
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
        fprintf(w->out, "%s  group\n", path);
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
            fprintf(w->out, "%s  dataset %s %s\n", path, tname, shape);
            rc = print_attrs(w, o, path);
        }
        if (t >= 0 && H5Tclose(t) < 0) rc = -1;
        if (sp >= 0 && H5Sclose(sp) < 0) rc = -1;
    } else if (kind == H5I_DATATYPE) {
        fprintf(w->out, "%s  datatype\n", path);
        rc = print_attrs(w, o, path);
    } else {
        fprintf(w->out, "%s  object\n", path);
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

/* The walk of the file in the child process of pf_h5_isolate(): 0 when
 * every object was printed, else 1 (the first failure in w->err). */
static int walk_file(void *ctx)
{
    walk *w = ctx;
    hid_t f = H5Fopen(w->file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        snprintf(w->err, PF_H5_PRINT_ERR, "%s: cannot open as HDF5", w->file);
        return 1;
    }
    hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
    if (root < 0) {
        h5_failed(w, "open", "/");
    } else {
        fprintf(w->out, "/  group\n");
        if (print_attrs(w, root, "/") == 0) visit_group(w, root, "");
        if (H5Gclose(root) < 0) h5_failed(w, "close", "/");
    }
    if (H5Fclose(f) < 0) h5_failed(w, "close", w->file);
    if (fflush(w->out) != 0 || ferror(w->out)) {
        snprintf(w->err, PF_H5_PRINT_ERR, "cannot write the listing of %s", w->file);
        return 1;
    }
    return w->failed ? 1 : 0;
}

pf_status pf_h5_print(const char *path, const char *buf, size_t len, FILE *out)
{
    PF_TRY(pf_h5_verify_bytes(path, buf, len));
    char *err = mmap(NULL, PF_H5_PRINT_ERR, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (err == MAP_FAILED) return pf_fail(PF_ERR_IO, "%s: cannot map memory for the child: %s", path, strerror(errno));
    err[0] = 0;
    walk w = {.file = path, .out = out, .err = err};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the failures are ours to report */
    int code = 1;
    pf_status st = pf_h5_isolate(path, walk_file, &w, &code);
    if (st == PF_OK && code != 0)
        st = pf_fail(PF_ERR_IO, "%s", err[0] ? err : "the listing failed (no reason given)");
    munmap(err, PF_H5_PRINT_ERR);
    return st;
}
