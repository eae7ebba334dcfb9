#include "io/h5.h"
#include "io/msgpack_json.h" /* pf_tmp_sweep */

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/sha256.h"

struct pf_h5 {
    hid_t file;
    hid_t gcpl, dcpl; /* group and dataset creation: no timestamps */
    char *path; /* the final name */
    char *tmp;  /* "<path>.tmp.<pid>", where the writes go */
    pf_status st; /* the first failure on this handle */
    char *err;    /* its message */
};

#ifdef PF_DOUBLE
#define MEM_REAL H5T_NATIVE_DOUBLE
#define FILE_REAL H5T_IEEE_F64LE
#else
#define MEM_REAL H5T_NATIVE_FLOAT
#define FILE_REAL H5T_IEEE_F32LE
#endif

/* Copies HDF5's most specific error description (the walk goes upward, from
 * the innermost function to the API call). A failed open(2) is described as
 * "unable to open file: name = ..., errno = 2, error message = '...', ...":
 * keep only the system's message, the path is in ours already. */
static herr_t first_desc(unsigned n, const H5E_error2_t *e, void *data)
{
    char *buf = data;
    if (buf[0] || !e->desc || !e->desc[0]) return 0;
    const char *sys = strstr(e->desc, "error message = '"), *end;
    if (sys && (end = strchr(sys += 17, '\'')))
        snprintf(buf, 256, "%.*s", (int)(end - sys), sys);
    else
        snprintf(buf, 256, "%s", e->desc);
    return 0;
}

/* The HDF5 function a checked statement calls ("H5Dcreate2"), for messages. */
static void call_name(const char *stmt, char *buf, size_t cap)
{
    const char *s = strstr(stmt, "H5");
    size_t n = 0;
    if (s)
        while (n + 1 < cap && (s[n] == '_' || (s[n] >= '0' && s[n] <= '9') ||
                               (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z')))
            n++;
    memcpy(buf, s ? s : "", n);
    buf[n] = 0;
}

/* Records a failed HDF5 call: "<what>: <HDF5's reason> (<call> at file:line)",
 * on the handle (first failure only) and in pf_errmsg(); clears HDF5's stack. */
static pf_status h5_fail(pf_h5 *f, const char *stmt, const char *file, int line, const char *fmt,
                         ...) __attribute__((format(printf, 5, 6)));
static pf_status h5_fail(pf_h5 *f, const char *stmt, const char *file, int line, const char *fmt,
                         ...)
{
    char what[768], reason[256] = "", call[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_desc, reason);
    H5Eclear2(H5E_DEFAULT);
    call_name(stmt, call, sizeof call);
    pf_fail(PF_ERR_IO, "%s: %s (%s at %s:%d)", what, reason[0] ? reason : "HDF5 call failed",
            call, file, line);
    if (f && f->st == PF_OK) {
        f->st = PF_ERR_IO;
        f->err = strdup(pf_errmsg());
    }
    return PF_ERR_IO;
}

/* Evaluate an HDF5 call (its value is checked: < 0 is failure); on failure
 * record a message naming the object and jump to the function's `done:`
 * label, which closes what is open. Needs `f` and `pf_status st` in scope. */
#define H5_CHECK(stmt, ...)                                                                      \
    do {                                                                                         \
        if ((stmt) < 0) {                                                                        \
            st = h5_fail(f, #stmt, __FILE__, __LINE__, __VA_ARGS__);                             \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

/* Close an id in a `done:` block; a failure is reported only if none was. */
#define H5_CLOSE(fn, id, ...)                                                                    \
    do {                                                                                         \
        if ((id) >= 0 && fn(id) < 0 && st == PF_OK)                                              \
            st = h5_fail(f, #fn, __FILE__, __LINE__, __VA_ARGS__);                               \
    } while (0)

/* A handle that already failed repeats its failure (and message). */
static pf_status h5_ready(pf_h5 *f)
{
    PF_ASSERT(f != NULL);
    if (f->st != PF_OK) return pf_fail(f->st, "%s", f->err ? f->err : "earlier HDF5 call failed");
    return PF_OK;
}

static void h5_free(pf_h5 *f)
{
    free(f->path);
    free(f->tmp);
    free(f->err);
    free(f);
}

pf_status pf_h5_create(const char *path, pf_h5 **out)
{
    PF_ASSERT(path != NULL && out != NULL);
    *out = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    pf_h5 *f = calloc(1, sizeof *f);
    size_t cap = strlen(path) + 32;
    if (!f || !(f->path = strdup(path)) || !(f->tmp = malloc(cap))) {
        if (f) h5_free(f);
        return pf_fail(PF_ERR_NOMEM, "out of memory creating '%s'", path);
    }
    snprintf(f->tmp, cap, "%s.tmp.%ld", path, (long)getpid());
    pf_tmp_sweep(path, NULL); /* temps of killed writers of this file */
    f->file = f->gcpl = f->dcpl = H5I_INVALID_HID;

    pf_status st = PF_OK;
    hid_t fapl = H5I_INVALID_HID, fcpl = H5I_INVALID_HID;
    H5_CHECK(fapl = H5Pcreate(H5P_FILE_ACCESS), "cannot create '%s'", path);
    /* closing the file closes every object still open in it, so the rename
     * below never races a lingering handle */
    H5_CHECK(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "cannot create '%s'", path);
    /* objects carry no creation times, so the same content gives the same
     * bytes (reproducible artifacts, comparable by hash) */
    H5_CHECK(fcpl = H5Pcreate(H5P_FILE_CREATE), "cannot create '%s'", path);
    H5_CHECK(H5Pset_obj_track_times(fcpl, 0), "cannot create '%s'", path);
    /* room for the checksum header that pf_h5_close() writes */
    H5_CHECK(H5Pset_userblock(fcpl, PF_H5_USERBLOCK), "cannot create '%s'", path);
    H5_CHECK(f->gcpl = H5Pcreate(H5P_GROUP_CREATE), "cannot create '%s'", path);
    H5_CHECK(H5Pset_obj_track_times(f->gcpl, 0), "cannot create '%s'", path);
    H5_CHECK(f->dcpl = H5Pcreate(H5P_DATASET_CREATE), "cannot create '%s'", path);
    H5_CHECK(H5Pset_obj_track_times(f->dcpl, 0), "cannot create '%s'", path);
    H5_CHECK(f->file = H5Fcreate(f->tmp, H5F_ACC_TRUNC, fcpl, fapl),
             "cannot create '%s' (as temp file '%s')", path, f->tmp);
done:
    H5_CLOSE(H5Pclose, fcpl, "cannot create '%s'", path);
    H5_CLOSE(H5Pclose, fapl, "cannot create '%s'", path);
    if (st != PF_OK) {
        pf_h5_discard(f);
        return st;
    }
    *out = f;
    return PF_OK;
}

/* ================================================================ checksum
 *
 * The user block (h5.h, "checksum"): 512 bytes before HDF5's superblock,
 * which HDF5 leaves alone; ours holds the header line and zeros. */

static const unsigned char HDF5_SIG[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
#define MAGIC_NAME "PINNFORGE-H5 " /* the header's first word, whatever its version */

/* The header line (magic, 64 hex digits, newline) leaves zeros after it. */
_Static_assert(PF_H5_USERBLOCK >= sizeof PF_H5_MAGIC + 64 + 1, "the header fits the user block");

/* Like pread(2), but reads until `n` bytes or the end of the file (short
 * reads and EINTR retried); the count read, or -1 with errno set. */
static ssize_t pread_full(int fd, void *buf, size_t n, off_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* "'tmp' (temp file of 'path')" or "'path'" (tmp NULL), for messages. */
#define FILE_FMT "'%s'%s%s%s"
#define FILE_ARGS(path, tmp) (tmp) ? (tmp) : (path), (tmp) ? " (temp file of '" : "", \
                             (tmp) ? (path) : "", (tmp) ? "')" : ""

/* SHA-256 of fd's bytes from PF_H5_USERBLOCK to the end, as hex; the file
 * is `path` (or its temp file `tmp`, when not NULL). */
static pf_status hash_body(int fd, const char *path, const char *tmp, char hex[PF_SHA256_HEX])
{
    pf_sha256 *h = pf_sha256_alloc();
    if (!h) return pf_fail(PF_ERR_NOMEM, "out of memory checking " FILE_FMT, FILE_ARGS(path, tmp));
    unsigned char buf[1 << 16];
    pf_status st = PF_OK;
    off_t off = PF_H5_USERBLOCK;
    for (;;) {
        ssize_t n = pread_full(fd, buf, sizeof buf, off);
        if (n < 0) {
            st = pf_fail(PF_ERR_IO, "cannot read " FILE_FMT ": %s", FILE_ARGS(path, tmp),
                         strerror(errno));
            break;
        }
        if (n == 0) break;
        if ((st = pf_sha256_update(h, buf, (size_t)n)) != PF_OK) break;
        off += n;
    }
    if (st == PF_OK) st = pf_sha256_final(h, hex);
    pf_sha256_free(h);
    return st;
}

/* What the first bytes of a file (n of them, n <= PF_H5_USERBLOCK + 8) are. */
typedef enum head_kind {
    HEAD_FOREIGN,  /* HDF5's signature at 0: no user block, not written by us */
    HEAD_OURS,     /* our header, well formed; its digest in hex */
    HEAD_DAMAGED,  /* ours by its first word or HDF5's signature after it, yet malformed */
    HEAD_NOT_HDF5, /* neither */
} head_kind;

static head_kind head_parse(const unsigned char *b, size_t n, char hex[PF_SHA256_HEX])
{
    const size_t m = sizeof PF_H5_MAGIC - 1;
    if (n >= sizeof HDF5_SIG && memcmp(b, HDF5_SIG, sizeof HDF5_SIG) == 0) return HEAD_FOREIGN;
    int ours = n >= PF_H5_USERBLOCK && memcmp(b, PF_H5_MAGIC, m) == 0;
    for (size_t i = 0; ours && i < 64; i++) {
        unsigned char c = b[m + i];
        ours = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
        hex[i] = (char)c;
    }
    ours = ours && b[m + 64] == '\n';
    for (size_t i = m + 65; ours && i < PF_H5_USERBLOCK; i++) ours = b[i] == 0;
    if (ours) {
        hex[64] = 0;
        return HEAD_OURS;
    }
    size_t w = sizeof MAGIC_NAME - 1;
    if (n > 0 && memcmp(b, MAGIC_NAME, n < w ? n : w) == 0) return HEAD_DAMAGED;
    if (n >= PF_H5_USERBLOCK + sizeof HDF5_SIG &&
        memcmp(b + PF_H5_USERBLOCK, HDF5_SIG, sizeof HDF5_SIG) == 0)
        return HEAD_DAMAGED;
    return HEAD_NOT_HDF5;
}

/* The verdict on a file whose head is `kind` and whose body hashes to
 * `body` (HEAD_OURS only). */
static pf_status head_verdict(const char *path, head_kind kind, const char *want,
                              const char *body)
{
    switch (kind) {
    case HEAD_FOREIGN: return PF_OK;
    case HEAD_OURS:
        if (strcmp(want, body) == 0) return PF_OK;
        return pf_fail(PF_ERR_IO, "'%s' is corrupt (its checksum does not match)", path);
    case HEAD_DAMAGED: return pf_fail(PF_ERR_IO, "'%s' is corrupt (its header is damaged)", path);
    case HEAD_NOT_HDF5: break;
    }
    return pf_fail(PF_ERR_IO, "cannot open '%s' for reading: not an HDF5 file", path);
}

pf_status pf_h5_verify(const char *path)
{
    PF_ASSERT(path != NULL);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return pf_fail(PF_ERR_IO, "cannot open '%s' for reading: %s", path, strerror(errno));
    unsigned char head[PF_H5_USERBLOCK + sizeof HDF5_SIG];
    char want[PF_SHA256_HEX] = "", body[PF_SHA256_HEX] = "";
    pf_status st = PF_OK;
    ssize_t n = pread_full(fd, head, sizeof head, 0);
    if (n < 0) st = pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    head_kind kind = n < 0 ? HEAD_NOT_HDF5 : head_parse(head, (size_t)n, want);
    if (st == PF_OK && kind == HEAD_OURS) st = hash_body(fd, path, NULL, body);
    close(fd);
    return st == PF_OK ? head_verdict(path, kind, want, body) : st;
}

pf_status pf_h5_verify_bytes(const char *path, const void *buf, size_t len)
{
    PF_ASSERT(path != NULL && (buf != NULL || len == 0));
    char want[PF_SHA256_HEX] = "", body[PF_SHA256_HEX] = "";
    size_t n = len < PF_H5_USERBLOCK + sizeof HDF5_SIG ? len : PF_H5_USERBLOCK + sizeof HDF5_SIG;
    head_kind kind = head_parse(buf, n, want);
    if (kind == HEAD_OURS)
        PF_TRY(pf_sha256_hex((const unsigned char *)buf + PF_H5_USERBLOCK, len - PF_H5_USERBLOCK,
                             body));
    return head_verdict(path, kind, want, body);
}

/* After H5Fclose: hash the closed temp file, write the header into its
 * user block, and fsync it, so the rename never exposes an empty file after
 * a crash (delayed allocation). */
static pf_status seal_file(const char *tmp, const char *path)
{
    int fd = open(tmp, O_RDWR);
    if (fd < 0)
        return pf_fail(PF_ERR_IO, "cannot finish " FILE_FMT ": %s", FILE_ARGS(path, tmp),
                       strerror(errno));
    unsigned char ub[PF_H5_USERBLOCK + sizeof HDF5_SIG];
    char hex[PF_SHA256_HEX];
    pf_status st = PF_OK;
    ssize_t n = pread_full(fd, ub, sizeof ub, 0);
    if (n < 0)
        st = pf_fail(PF_ERR_IO, "cannot read " FILE_FMT ": %s", FILE_ARGS(path, tmp),
                     strerror(errno));
    else if ((size_t)n < sizeof ub || memcmp(ub + PF_H5_USERBLOCK, HDF5_SIG, sizeof HDF5_SIG))
        st = pf_fail(PF_ERR_IO, "cannot finish " FILE_FMT ": HDF5 left no %d-byte user block",
                     FILE_ARGS(path, tmp), PF_H5_USERBLOCK);
    if (st == PF_OK) st = hash_body(fd, path, tmp, hex);
    if (st == PF_OK) {
        memset(ub, 0, PF_H5_USERBLOCK);
        snprintf((char *)ub, PF_H5_USERBLOCK, PF_H5_MAGIC "%s\n", hex);
        size_t done = 0;
        while (st == PF_OK && done < PF_H5_USERBLOCK) {
            ssize_t w = pwrite(fd, ub + done, PF_H5_USERBLOCK - done, (off_t)done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0)
                st = pf_fail(PF_ERR_IO, "cannot write the header of " FILE_FMT ": %s",
                             FILE_ARGS(path, tmp), w < 0 ? strerror(errno) : "nothing written");
            else done += (size_t)w;
        }
    }
    if (st == PF_OK && fsync(fd) != 0)
        st = pf_fail(PF_ERR_IO, "cannot sync " FILE_FMT ": %s", FILE_ARGS(path, tmp),
                     strerror(errno));
    if (close(fd) != 0 && st == PF_OK)
        st = pf_fail(PF_ERR_IO, "cannot finish " FILE_FMT ": %s", FILE_ARGS(path, tmp),
                     strerror(errno));
    return st;
}

pf_status pf_h5_close(pf_h5 *f)
{
    if (!f) return PF_OK;
    pf_status st = PF_OK;
    if (f->st == PF_OK) {
        H5_CHECK(H5Pclose(f->gcpl), "cannot finish '%s' (temp file '%s')", f->path, f->tmp);
        f->gcpl = H5I_INVALID_HID;
        H5_CHECK(H5Pclose(f->dcpl), "cannot finish '%s' (temp file '%s')", f->path, f->tmp);
        f->dcpl = H5I_INVALID_HID;
        hid_t file = f->file;
        f->file = H5I_INVALID_HID; /* a failed close is not retried by the discard */
        H5_CHECK(H5Fclose(file), "cannot finish '%s' (temp file '%s')", f->path, f->tmp);
        st = seal_file(f->tmp, f->path);
        if (st == PF_OK && rename(f->tmp, f->path) != 0)
            st = pf_fail(PF_ERR_IO, "cannot rename '%s' to '%s': %s", f->tmp, f->path,
                         strerror(errno));
    }
done:
    if (f->st != PF_OK) st = h5_ready(f);
    if (st != PF_OK) {
        char *msg = strdup(pf_errmsg());
        pf_h5_discard(f); /* may overwrite pf_errmsg() */
        if (msg) pf_fail(st, "%s", msg);
        free(msg);
        return st;
    }
    h5_free(f);
    return PF_OK;
}

void pf_h5_discard(pf_h5 *f)
{
    if (!f) return;
    if (f->file >= 0) H5Fclose(f->file);
    if (f->gcpl >= 0) H5Pclose(f->gcpl);
    if (f->dcpl >= 0) H5Pclose(f->dcpl);
    H5Eclear2(H5E_DEFAULT);
    unlink(f->tmp);
    h5_free(f);
}

const char *pf_h5_path(const pf_h5 *f) { return f->path; }

static void check_name(const char *name)
{
    PF_ASSERT_MSG(name && name[0] == '/', "HDF5 object path '%s' is not absolute",
                  name ? name : "(null)");
}

/* Creates the missing groups on the way to `name` ("/a/b/x": /a, /a/b).
 * By hand rather than with HDF5's intermediate-group flag, which would give
 * them the default, timestamped creation properties. */
static pf_status make_parents(pf_h5 *f, const char *name)
{
    pf_status st = PF_OK;
    hid_t g = H5I_INVALID_HID;
    char *prefix = strdup(name);
    if (!prefix) return pf_fail(PF_ERR_NOMEM, "out of memory for the path '%s'", name);
    for (char *s = strchr(prefix + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        htri_t there;
        H5_CHECK(there = H5Lexists(f->file, prefix, H5P_DEFAULT),
                 "cannot create group '%s' in '%s'", prefix, f->path);
        if (!there) {
            H5_CHECK(g = H5Gcreate2(f->file, prefix, H5P_DEFAULT, f->gcpl, H5P_DEFAULT),
                     "cannot create group '%s' in '%s'", prefix, f->path);
            H5_CHECK(H5Gclose(g), "cannot close group '%s' in '%s'", prefix, f->path);
            g = H5I_INVALID_HID;
        }
        *s = '/';
    }
done:
    if (g >= 0) H5Gclose(g);
    free(prefix);
    return st;
}

pf_status pf_h5_group(pf_h5 *f, const char *name)
{
    PF_TRY(h5_ready(f));
    check_name(name);
    PF_TRY(make_parents(f, name));
    pf_status st = PF_OK;
    hid_t g = H5I_INVALID_HID;
    H5_CHECK(g = H5Gcreate2(f->file, name, H5P_DEFAULT, f->gcpl, H5P_DEFAULT),
             "cannot create group '%s' in '%s'", name, f->path);
done:
    H5_CLOSE(H5Gclose, g, "cannot close group '%s' in '%s'", name, f->path);
    return st;
}

static pf_status write_dataset(pf_h5 *f, const char *name, int rank, const hsize_t *dims,
                               hid_t mem_type, hid_t file_type, const void *data)
{
    PF_TRY(h5_ready(f));
    check_name(name);
    hsize_t count = 1;
    for (int k = 0; k < rank; k++) count *= dims[k];
    PF_ASSERT_MSG(count == 0 || data != NULL, "dataset '%s': no data for %llu values", name,
                  (unsigned long long)count);
    PF_TRY(make_parents(f, name));
    pf_status st = PF_OK;
    hid_t space = H5I_INVALID_HID, d = H5I_INVALID_HID;
    H5_CHECK(space = H5Screate_simple(rank, dims, NULL), "cannot create dataset '%s' in '%s'",
             name, f->path);
    H5_CHECK(d = H5Dcreate2(f->file, name, file_type, space, H5P_DEFAULT, f->dcpl, H5P_DEFAULT),
             "cannot create dataset '%s' in '%s'", name, f->path);
    /* an empty dataset has nothing to write (and H5Dwrite refuses a NULL buffer) */
    if (count > 0)
        H5_CHECK(H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
                 "cannot write dataset '%s' in '%s'", name, f->path);
done:
    H5_CLOSE(H5Dclose, d, "cannot close dataset '%s' in '%s'", name, f->path);
    H5_CLOSE(H5Sclose, space, "cannot create dataset '%s' in '%s'", name, f->path);
    return st;
}

pf_status pf_h5_write_real(pf_h5 *f, const char *name, const pf_real *x, size_t rows,
                           size_t cols)
{
    const hsize_t dims[2] = {rows, cols};
    return write_dataset(f, name, 2, dims, MEM_REAL, FILE_REAL, x);
}

pf_status pf_h5_write_f64(pf_h5 *f, const char *name, const double *v, size_t n)
{
    const hsize_t dims[1] = {n};
    return write_dataset(f, name, 1, dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, v);
}

pf_status pf_h5_write_int(pf_h5 *f, const char *name, const int *v, size_t n)
{
    _Static_assert(sizeof(int) == 4, "pf_h5_write_int stores int as int32");
    const hsize_t dims[1] = {n};
    return write_dataset(f, name, 1, dims, H5T_NATIVE_INT, H5T_STD_I32LE, v);
}

/* A scalar attribute; `type` < 0 builds the variable-length UTF-8 string
 * type (mem and file type alike). */
static pf_status write_attr(pf_h5 *f, const char *obj, const char *key, hid_t mem_type,
                            hid_t file_type, const void *value)
{
    PF_TRY(h5_ready(f));
    check_name(obj);
    PF_ASSERT(key != NULL && key[0]);
    pf_status st = PF_OK;
    hid_t o = H5I_INVALID_HID, space = H5I_INVALID_HID, a = H5I_INVALID_HID;
    hid_t str = H5I_INVALID_HID;
    htri_t exists = 0;
    if (mem_type < 0) {
        H5_CHECK(str = H5Tcopy(H5T_C_S1), "cannot write attribute '%s' on '%s' in '%s'", key,
                 obj, f->path);
        H5_CHECK(H5Tset_size(str, H5T_VARIABLE), "cannot write attribute '%s' on '%s' in '%s'",
                 key, obj, f->path);
        H5_CHECK(H5Tset_cset(str, H5T_CSET_UTF8), "cannot write attribute '%s' on '%s' in '%s'",
                 key, obj, f->path);
        mem_type = file_type = str;
    }
    H5_CHECK(o = H5Oopen(f->file, obj, H5P_DEFAULT),
             "cannot open '%s' in '%s' to write its attribute '%s'", obj, f->path, key);
    H5_CHECK(exists = H5Aexists(o, key), "cannot write attribute '%s' on '%s' in '%s'", key, obj,
             f->path);
    if (exists)
        H5_CHECK(H5Adelete(o, key), "cannot replace attribute '%s' on '%s' in '%s'", key, obj,
                 f->path);
    H5_CHECK(space = H5Screate(H5S_SCALAR), "cannot write attribute '%s' on '%s' in '%s'", key,
             obj, f->path);
    H5_CHECK(a = H5Acreate2(o, key, file_type, space, H5P_DEFAULT, H5P_DEFAULT),
             "cannot create attribute '%s' on '%s' in '%s'", key, obj, f->path);
    H5_CHECK(H5Awrite(a, mem_type, value), "cannot write attribute '%s' on '%s' in '%s'", key, obj,
             f->path);
done:
    H5_CLOSE(H5Aclose, a, "cannot close attribute '%s' on '%s' in '%s'", key, obj, f->path);
    H5_CLOSE(H5Sclose, space, "cannot write attribute '%s' on '%s' in '%s'", key, obj, f->path);
    H5_CLOSE(H5Oclose, o, "cannot close '%s' in '%s'", obj, f->path);
    H5_CLOSE(H5Tclose, str, "cannot write attribute '%s' on '%s' in '%s'", key, obj, f->path);
    return st;
}

pf_status pf_h5_attr_str(pf_h5 *f, const char *obj, const char *key, const char *value)
{
    PF_ASSERT(value != NULL);
    return write_attr(f, obj, key, H5I_INVALID_HID, H5I_INVALID_HID, &value);
}

pf_status pf_h5_attr_i64(pf_h5 *f, const char *obj, const char *key, int64_t value)
{
    return write_attr(f, obj, key, H5T_NATIVE_INT64, H5T_STD_I64LE, &value);
}

pf_status pf_h5_attr_u64(pf_h5 *f, const char *obj, const char *key, uint64_t value)
{
    return write_attr(f, obj, key, H5T_NATIVE_UINT64, H5T_STD_U64LE, &value);
}

pf_status pf_h5_attr_f64(pf_h5 *f, const char *obj, const char *key, double value)
{
    return write_attr(f, obj, key, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, &value);
}

/* ================================================================ reading */

/* Opens `path` read-only with HDF5's printing off, after pf_h5_verify();
 * the caller closes. */
static pf_status open_read(const char *path, hid_t *file)
{
    PF_ASSERT(path != NULL);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    pf_h5 *f = NULL; /* H5_CHECK records on a handle; readers have none */
    pf_status st = PF_OK;
    *file = H5I_INVALID_HID;
    /* HDF5 trusts a file's metadata and can crash on a damaged one: no
     * file of ours reaches H5Fopen unless its checksum matches */
    PF_TRY(pf_h5_verify(path));
    H5_CHECK(*file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open '%s' for reading",
             path);
done:
    return st;
}

pf_status pf_h5_read_f64(const char *path, const char *dataset, double **out, size_t *rows,
                         size_t *cols)
{
    PF_ASSERT(out != NULL && rows != NULL && cols != NULL);
    check_name(dataset);
    *out = NULL;
    *rows = *cols = 0;
    hid_t file;
    PF_TRY(open_read(path, &file));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    hid_t d = H5I_INVALID_HID, space = H5I_INVALID_HID, type = H5I_INVALID_HID;
    double *v = NULL;
    H5_CHECK(d = H5Dopen2(file, dataset, H5P_DEFAULT), "cannot open dataset '%s' in '%s'", dataset,
             path);
    H5_CHECK(type = H5Dget_type(d), "cannot read dataset '%s' in '%s'", dataset, path);
    H5T_class_t cls = H5Tget_class(type);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        st = pf_fail(PF_ERR_IO, "dataset '%s' in '%s' is not numeric (HDF5 type class %d)", dataset,
                     path, (int)cls);
        goto done;
    }
    H5_CHECK(space = H5Dget_space(d), "cannot read dataset '%s' in '%s'", dataset, path);
    int rank;
    hsize_t dims[2] = {1, 1};
    H5_CHECK(rank = H5Sget_simple_extent_ndims(space), "cannot read dataset '%s' in '%s'",
             dataset, path);
    if (rank > 2) {
        st = pf_fail(PF_ERR_IO, "dataset '%s' in '%s' has rank %d; 0, 1 or 2 expected", dataset,
                     path, rank);
        goto done;
    }
    if (rank > 0)
        H5_CHECK(H5Sget_simple_extent_dims(space, dims, NULL), "cannot read dataset '%s' in '%s'",
                 dataset, path);
    if (rank < 2) dims[1] = 1;
    /* extents come from the file: their product must not wrap the buffer's size */
    if (dims[0] > SIZE_MAX / sizeof *v || (dims[0] && dims[1] > SIZE_MAX / sizeof *v / dims[0])) {
        st = pf_fail(PF_ERR_IO, "dataset '%s' in '%s' has shape %llu x %llu, too large to read",
                     dataset, path, (unsigned long long)dims[0], (unsigned long long)dims[1]);
        goto done;
    }
    size_t count = (size_t)dims[0] * (size_t)dims[1];
    if (count > 0) {
        if (!(v = malloc(count * sizeof *v))) {
            st = pf_fail(PF_ERR_NOMEM, "out of memory reading dataset '%s' in '%s'", dataset, path);
            goto done;
        }
        H5_CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v),
                 "cannot read dataset '%s' in '%s'", dataset, path);
    }
    *rows = (size_t)dims[0];
    *cols = (size_t)dims[1];
done:
    H5_CLOSE(H5Tclose, type, "cannot read dataset '%s' in '%s'", dataset, path);
    H5_CLOSE(H5Sclose, space, "cannot read dataset '%s' in '%s'", dataset, path);
    H5_CLOSE(H5Dclose, d, "cannot close dataset '%s' in '%s'", dataset, path);
    H5_CLOSE(H5Fclose, file, "cannot close '%s'", path);
    if (st != PF_OK) {
        free(v);
        *rows = *cols = 0;
        return st;
    }
    *out = v;
    return PF_OK;
}

/* One attribute, opened for reading: its file, id, type and space. */
typedef struct attr_handle {
    hid_t file, a, type, space;
} attr_handle;

/* Open attribute `key` of `obj` and check it holds one value of class
 * `cls` (`what` names it in the refusal); on failure everything is closed. */
static pf_status attr_open(const char *path, const char *obj, const char *key, H5T_class_t cls, const char *what,
                           attr_handle *h)
{
    *h = (attr_handle){H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID};
    PF_TRY(open_read(path, &h->file));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    H5_CHECK(h->a = H5Aopen_by_name(h->file, obj, key, H5P_DEFAULT, H5P_DEFAULT),
             "cannot open attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CHECK(h->type = H5Aget_type(h->a), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CHECK(h->space = H5Aget_space(h->a), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    hssize_t npoints;
    H5_CHECK(npoints = H5Sget_simple_extent_npoints(h->space), "cannot read attribute '%s' of '%s' in '%s'", key,
             obj, path);
    /* one value is read into one buffer: an array would overflow it */
    if (npoints != 1 || H5Tget_class(h->type) != cls)
        st = pf_fail(PF_ERR_IO, "attribute '%s' of '%s' in '%s' is not a single %s", key, obj, path, what);
done:
    if (st != PF_OK) {
        H5Sclose(h->space);
        H5Tclose(h->type);
        H5Aclose(h->a);
        H5Fclose(h->file);
    }
    return st;
}

/* Close what attr_open() opened; st is the reader's status so far. */
static pf_status attr_close(const char *path, const char *obj, const char *key, attr_handle *h, pf_status st)
{
    pf_h5 *f = NULL;
    H5_CLOSE(H5Sclose, h->space, "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CLOSE(H5Tclose, h->type, "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CLOSE(H5Aclose, h->a, "cannot close attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CLOSE(H5Fclose, h->file, "cannot close '%s'", path);
    return st;
}

pf_status pf_h5_read_attr_str(const char *path, const char *obj, const char *key, char **out)
{
    PF_ASSERT(key != NULL && out != NULL);
    check_name(obj);
    *out = NULL;
    attr_handle h;
    PF_TRY(attr_open(path, obj, key, H5T_STRING, "string", &h));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    hid_t mem = H5I_INVALID_HID;
    char *s = NULL;
    htri_t var;
    H5_CHECK(var = H5Tis_variable_str(h.type), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CHECK(mem = H5Tcopy(H5T_C_S1), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    /* HDF5 converts no string between character sets: read in the file's */
    H5_CHECK(H5Tset_cset(mem, H5Tget_cset(h.type)), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    if (var) {
        char *vs = NULL;
        H5_CHECK(H5Tset_size(mem, H5T_VARIABLE), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
        H5_CHECK(H5Aread(h.a, mem, &vs), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
        s = strdup(vs ? vs : "");
        H5free_memory(vs);
    } else {
        size_t n = H5Tget_size(h.type);
        H5_CHECK(H5Tset_size(mem, n + 1), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
        if ((s = calloc(n + 1, 1)))
            H5_CHECK(H5Aread(h.a, mem, s), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    }
    if (!s) st = pf_fail(PF_ERR_NOMEM, "out of memory reading attribute '%s' in '%s'", key, path);
done:
    H5_CLOSE(H5Tclose, mem, "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    st = attr_close(path, obj, key, &h, st);
    if (st != PF_OK) {
        free(s);
        return st;
    }
    *out = s;
    return PF_OK;
}

pf_status pf_h5_read_attr_i64(const char *path, const char *obj, const char *key, int64_t *out)
{
    PF_ASSERT(key != NULL && out != NULL);
    check_name(obj);
    *out = 0;
    attr_handle h;
    PF_TRY(attr_open(path, obj, key, H5T_INTEGER, "integer", &h));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    int64_t v = 0;
    H5_CHECK(H5Aread(h.a, H5T_NATIVE_INT64, &v), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
done:
    st = attr_close(path, obj, key, &h, st);
    if (st == PF_OK) *out = v;
    return st;
}

pf_status pf_h5_exists(const char *path, const char *obj, int *exists)
{
    PF_ASSERT(exists != NULL);
    check_name(obj);
    *exists = 0;
    hid_t file;
    PF_TRY(open_read(path, &file));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    char *prefix = strdup(obj);
    if (!prefix) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory for the path '%s'", obj);
        goto done;
    }
    /* H5Lexists fails on a missing intermediate group: test each prefix */
    int there = 1;
    for (char *s = prefix + 1; there && *s;) {
        char *slash = strchr(s, '/');
        if (slash) *slash = 0;
        htri_t e;
        H5_CHECK(e = H5Lexists(file, prefix, H5P_DEFAULT), "cannot look up '%s' in '%s'", prefix,
                 path);
        if (e > 0) H5_CHECK(e = H5Oexists_by_name(file, prefix, H5P_DEFAULT),
                            "cannot look up '%s' in '%s'", prefix, path);
        there = e > 0;
        if (!slash) break;
        *slash = '/';
        s = slash + 1;
    }
    *exists = there;
done:
    free(prefix);
    H5_CLOSE(H5Fclose, file, "cannot close '%s'", path);
    if (st != PF_OK) *exists = 0;
    return st;
}

typedef struct name_list {
    char **v;
    size_t n, cap;
    int nomem;
} name_list;

static herr_t collect_name(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g, (void)info;
    name_list *l = data;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) return l->nomem = 1, -1;
        l->v = v, l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(name))) return l->nomem = 1, -1;
    l->n++;
    return 0;
}

pf_status pf_h5_list(const char *path, const char *group, char ***names, size_t *n)
{
    PF_ASSERT(names != NULL && n != NULL);
    check_name(group);
    *names = NULL;
    *n = 0;
    hid_t file;
    PF_TRY(open_read(path, &file));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    hid_t g = H5I_INVALID_HID;
    name_list l = {0};
    hsize_t idx = 0;
    H5_CHECK(g = H5Gopen2(file, group, H5P_DEFAULT), "cannot open group '%s' in '%s'", group, path);
    H5_CHECK(H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, &l),
             "cannot list group '%s' in '%s'", group, path);
done:
    if (l.nomem) st = pf_fail(PF_ERR_NOMEM, "out of memory listing '%s' in '%s'", group, path);
    H5_CLOSE(H5Gclose, g, "cannot close group '%s' in '%s'", group, path);
    H5_CLOSE(H5Fclose, file, "cannot close '%s'", path);
    if (st != PF_OK) {
        pf_h5_names_free(l.v, l.n);
        return st;
    }
    *names = l.v;
    *n = l.n;
    return PF_OK;
}

void pf_h5_names_free(char **names, size_t n)
{
    if (!names) return;
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}
