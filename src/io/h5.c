#include "io/h5.h"
#include "io/msgpack_json.h" /* pf_tmp_sweep */

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sha256.h"

struct pf_h5 {
    hid_t file;       /* HDF5's file, in memory (the core driver, no backing store) */
    hid_t gcpl, dcpl; /* group and dataset creation: no timestamps */
    int fd;           /* the temp file, open for writing; -1 once closed */
    bool made;        /* the temp file exists (removed on failure) */
    char *path; /* the final name */
    char *tmp;  /* "<path>.tmp.<pid>", where the bytes go */
    pf_status st; /* the first failure on this handle */
    char *err;    /* its message */
};

/* The in-memory file grows by this much at a time (HDF5's core driver). */
#define CORE_INCREMENT ((size_t)1 << 20)

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

/* Close an id in a `done:` block, once: the id is invalid afterwards,
 * whether the close succeeded or not (HDF5 1.10 frees an object whose close
 * failed and keeps its id, so a second close would touch freed memory). A
 * failure is reported only if none was. */
#define H5_CLOSE(fn, id, ...)                                                                    \
    do {                                                                                         \
        hid_t id_ = (id);                                                                        \
        (id) = H5I_INVALID_HID;                                                                  \
        if (id_ >= 0 && fn(id_) < 0 && st == PF_OK)                                              \
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
    /* the temp file is made now, so a folder that is missing or read-only
     * fails here; its bytes are written by pf_h5_close() */
    f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (f->fd < 0) {
        pf_status st = pf_fail(PF_ERR_IO, "cannot create '%s' (as temp file '%s'): %s", path,
                               f->tmp, strerror(errno));
        h5_free(f);
        return st;
    }
    f->made = true;

    pf_status st = PF_OK;
    hid_t fapl = H5I_INVALID_HID, fcpl = H5I_INVALID_HID;
    H5_CHECK(fapl = H5Pcreate(H5P_FILE_ACCESS), "cannot create '%s'", path);
    /* closing the file closes every object still open in it */
    H5_CHECK(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "cannot create '%s'", path);
    /* HDF5 builds the file in memory and never writes to a disk: a full or
     * failing disk is met by our own checked writes in pf_h5_close(), never
     * inside HDF5, whose close of a file it failed to flush leaves freed
     * memory behind an id that its exit handler closes again (a crash at
     * exit) */
    H5_CHECK(H5Pset_fapl_core(fapl, CORE_INCREMENT, 0), "cannot create '%s'", path);
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
    /* the name only identifies the in-memory file: nothing is opened by it */
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

/* SHA-256 of fd's bytes from PF_H5_USERBLOCK to the end, as hex; the file
 * is `path`. */
static pf_status hash_body(int fd, const char *path, char hex[PF_SHA256_HEX])
{
    pf_sha256 *h = pf_sha256_alloc();
    if (!h) return pf_fail(PF_ERR_NOMEM, "out of memory checking '%s'", path);
    unsigned char buf[1 << 16];
    pf_status st = PF_OK;
    off_t off = PF_H5_USERBLOCK;
    for (;;) {
        ssize_t n = pread_full(fd, buf, sizeof buf, off);
        if (n < 0) {
            st = pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
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

/* pf_h5_verify(), telling which kind of head `path` has (*kind_out). */
static pf_status verify_path(const char *path, head_kind *kind_out)
{
    PF_ASSERT(path != NULL);
    *kind_out = HEAD_NOT_HDF5;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pf_fail(PF_ERR_IO, "cannot open '%s' for reading: %s", path, strerror(errno));
    unsigned char head[PF_H5_USERBLOCK + sizeof HDF5_SIG];
    char want[PF_SHA256_HEX] = "", body[PF_SHA256_HEX] = "";
    pf_status st = PF_OK;
    ssize_t n = pread_full(fd, head, sizeof head, 0);
    if (n < 0) st = pf_fail(PF_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    head_kind kind = n < 0 ? HEAD_NOT_HDF5 : head_parse(head, (size_t)n, want);
    if (st == PF_OK && kind == HEAD_OURS) st = hash_body(fd, path, body);
    close(fd);
    *kind_out = kind;
    return st == PF_OK ? head_verdict(path, kind, want, body) : st;
}

pf_status pf_h5_verify(const char *path)
{
    head_kind kind;
    return verify_path(path, &kind);
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

/* The file's bytes after its user block, as HDF5 holds them in memory, into
 * *image (malloc'ed, *len bytes); then every id of the handle is closed,
 * once each, the file last. Closing an in-memory file writes nothing, so it
 * cannot meet a full disk. */
static pf_status take_image(pf_h5 *f, unsigned char **image, size_t *len)
{
    pf_status st = PF_OK;
    unsigned char *buf = NULL;
    ssize_t n = -1;
    *image = NULL;
    *len = 0;
    H5_CHECK(H5Fflush(f->file, H5F_SCOPE_LOCAL), "cannot finish '%s'", f->path);
    H5_CHECK(n = H5Fget_file_image(f->file, NULL, 0), "cannot finish '%s'", f->path);
    if (!(buf = malloc((size_t)n + 1))) {
        st = pf_fail(PF_ERR_NOMEM, "out of memory finishing '%s'", f->path);
        goto done;
    }
    H5_CHECK(H5Fget_file_image(f->file, buf, (size_t)n), "cannot finish '%s'", f->path);
    /* the image starts at the superblock: the user block is ours to write */
    if ((size_t)n < sizeof HDF5_SIG || memcmp(buf, HDF5_SIG, sizeof HDF5_SIG) != 0)
        st = pf_fail(PF_ERR_IO, "cannot finish '%s': HDF5's image does not start with its signature",
                     f->path);
done:
    H5_CLOSE(H5Pclose, f->gcpl, "cannot finish '%s'", f->path);
    H5_CLOSE(H5Pclose, f->dcpl, "cannot finish '%s'", f->path);
    H5_CLOSE(H5Fclose, f->file, "cannot finish '%s'", f->path);
    if (st != PF_OK) {
        free(buf);
        return st;
    }
    *image = buf;
    *len = (size_t)n;
    return PF_OK;
}

/* Writes buf[0..n) at the temp file's current end; 0 or an errno. */
static int write_all(int fd, const unsigned char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return EIO;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The temp file's bytes: the header (its digest that of `image`), then the
 * image; synced (so the rename never exposes an empty file after a crash)
 * and closed. Every failure names the file and the system's reason. */
static pf_status write_file(pf_h5 *f, const unsigned char *image, size_t n)
{
    char hex[PF_SHA256_HEX];
    PF_TRY(pf_sha256_hex(image, n, hex));
    unsigned char ub[PF_H5_USERBLOCK] = {0};
    snprintf((char *)ub, sizeof ub, PF_H5_MAGIC "%s\n", hex);
    const char *what = "write";
    int err = write_all(f->fd, ub, sizeof ub);
    if (!err) err = write_all(f->fd, image, n);
    if (!err && fsync(f->fd) != 0) err = errno, what = "sync";
    int fd = f->fd;
    f->fd = -1;
    if (close(fd) != 0 && !err) err = errno, what = "close";
    if (err)
        return pf_fail(PF_ERR_IO, "cannot %s '%s' (temp file '%s'): %s", what, f->path, f->tmp,
                       strerror(err));
    return PF_OK;
}

pf_status pf_h5_close(pf_h5 *f)
{
    if (!f) return PF_OK;
    pf_status st = h5_ready(f);
    unsigned char *image = NULL;
    size_t n = 0;
    if (st == PF_OK) st = take_image(f, &image, &n);
    if (st == PF_OK) st = write_file(f, image, n);
    free(image);
    if (st == PF_OK && rename(f->tmp, f->path) != 0)
        st = pf_fail(PF_ERR_IO, "cannot rename '%s' to '%s': %s", f->tmp, f->path, strerror(errno));
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
    /* each id once, the file last (an in-memory file: nothing to write) */
    if (f->gcpl >= 0) H5Pclose(f->gcpl);
    if (f->dcpl >= 0) H5Pclose(f->dcpl);
    if (f->file >= 0) H5Fclose(f->file);
    f->gcpl = f->dcpl = f->file = H5I_INVALID_HID;
    H5Eclear2(H5E_DEFAULT);
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->made) unlink(f->tmp);
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
            H5_CLOSE(H5Gclose, g, "cannot close group '%s' in '%s'", prefix, f->path);
            if (st != PF_OK) goto done;
        }
        *s = '/';
    }
done:
    H5_CLOSE(H5Gclose, g, "cannot close group '%s' in '%s'", prefix, f->path);
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

/* A scalar attribute; `type` < 0 builds a fixed-length UTF-8 string type
 * of strlen(value) + 1 bytes, NUL-terminated (mem and file type alike). */
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
        size_t len = strlen(value);
        if (len > PF_H5_ATTR_STR_MAX) {
            st = pf_fail(PF_ERR_IO,
                         "cannot write attribute '%s' on '%s' in '%s': %zu bytes, more than the "
                         "%d a string attribute holds",
                         key, obj, f->path, len, PF_H5_ATTR_STR_MAX);
            f->st = st;
            f->err = strdup(pf_errmsg());
            return st;
        }
        H5_CHECK(str = H5Tcopy(H5T_C_S1), "cannot write attribute '%s' on '%s' in '%s'", key,
                 obj, f->path);
        H5_CHECK(H5Tset_size(str, len + 1), "cannot write attribute '%s' on '%s' in '%s'", key,
                 obj, f->path);
        H5_CHECK(H5Tset_strpad(str, H5T_STR_NULLTERM),
                 "cannot write attribute '%s' on '%s' in '%s'", key, obj, f->path);
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
    return write_attr(f, obj, key, H5I_INVALID_HID, H5I_INVALID_HID, value);
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

/* ================================================================ reading
 *
 * A reader is a struct h5_read: what to read (the kind, the file, the object,
 * the attribute's key) and what it gave. read_here() reads it in this
 * process; read_in_child() runs read_here() in a child process that sends
 * the result back through a pipe (h5.h, "isolation"). run_read() picks:
 * a file of ours whose checksum matches is read here, but for a
 * variable-length string (our files before fixed-length strings, in the
 * global heap, which HDF5 follows unchecked); a file without our header
 * (another tool's) is read in a child, whole. */

typedef enum read_kind { READ_F64, READ_STR, READ_I64, READ_EXISTS, READ_LIST } read_kind;

typedef struct h5_read {
    read_kind kind;
    const char *path, *obj, *key; /* obj: the dataset, object or group; key: an attribute */
    bool in_child;                /* running in the isolating child */
    bool vlen;                    /* read_here() met a variable-length string it did not read */
    double *v;                    /* READ_F64: rows x cols values */
    size_t rows, cols;
    char *s;        /* READ_STR */
    int64_t i;      /* READ_I64 */
    int exists;     /* READ_EXISTS */
    char **names;   /* READ_LIST: n names */
    size_t n;
} h5_read;

/* Frees what a read gave and empties it. */
static void read_clear(h5_read *r)
{
    free(r->v);
    free(r->s);
    pf_h5_names_free(r->names, r->n);
    r->v = NULL;
    r->s = NULL;
    r->names = NULL;
    r->rows = r->cols = r->n = 0;
    r->i = 0;
    r->exists = 0;
}

/* Opens `path` read-only with HDF5's printing off (the caller verified it
 * and closes it). */
static pf_status open_read(const char *path, hid_t *file)
{
    PF_ASSERT(path != NULL);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    pf_h5 *f = NULL; /* H5_CHECK records on a handle; readers have none */
    pf_status st = PF_OK;
    *file = H5I_INVALID_HID;
    H5_CHECK(*file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open '%s' for reading",
             path);
done:
    return st;
}

static pf_status read_f64_here(h5_read *r)
{
    const char *path = r->path, *dataset = r->obj;
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
done:
    H5_CLOSE(H5Tclose, type, "cannot read dataset '%s' in '%s'", dataset, path);
    H5_CLOSE(H5Sclose, space, "cannot read dataset '%s' in '%s'", dataset, path);
    H5_CLOSE(H5Dclose, d, "cannot close dataset '%s' in '%s'", dataset, path);
    H5_CLOSE(H5Fclose, file, "cannot close '%s'", path);
    if (st != PF_OK) {
        free(v);
        return st;
    }
    r->v = v;
    r->rows = (size_t)dims[0];
    r->cols = (size_t)dims[1];
    return PF_OK;
}

/* One attribute, opened for reading: its file, id, type and space. */
typedef struct attr_handle {
    hid_t file, a, type, space;
} attr_handle;

/* Close what attr_open() opened, each id once, the file last; st is the
 * reader's status so far. */
static pf_status attr_close(const char *path, const char *obj, const char *key, attr_handle *h,
                            pf_status st)
{
    pf_h5 *f = NULL;
    H5_CLOSE(H5Sclose, h->space, "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CLOSE(H5Tclose, h->type, "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CLOSE(H5Aclose, h->a, "cannot close attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CLOSE(H5Fclose, h->file, "cannot close '%s'", path);
    return st;
}

/* Open attribute `key` of `obj` and check it holds one value of class
 * `cls` (`what` names it in the refusal); on failure everything is closed. */
static pf_status attr_open(const char *path, const char *obj, const char *key, H5T_class_t cls,
                           const char *what, attr_handle *h)
{
    *h = (attr_handle){H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID};
    PF_TRY(open_read(path, &h->file));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    H5_CHECK(h->a = H5Aopen_by_name(h->file, obj, key, H5P_DEFAULT, H5P_DEFAULT),
             "cannot open attribute '%s' of '%s' in '%s'", key, obj, path);
    H5_CHECK(h->type = H5Aget_type(h->a), "cannot read attribute '%s' of '%s' in '%s'", key, obj,
             path);
    H5_CHECK(h->space = H5Aget_space(h->a), "cannot read attribute '%s' of '%s' in '%s'", key,
             obj, path);
    hssize_t npoints;
    H5_CHECK(npoints = H5Sget_simple_extent_npoints(h->space),
             "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    /* one value is read into one buffer: an array would overflow it */
    if (npoints != 1 || H5Tget_class(h->type) != cls)
        st = pf_fail(PF_ERR_IO, "attribute '%s' of '%s' in '%s' is not a single %s", key, obj,
                     path, what);
done:
    if (st != PF_OK) attr_close(path, obj, key, h, st);
    return st;
}

/* Longest fixed-length string attribute read (its size comes from the file). */
#define ATTR_STR_READ_MAX ((size_t)1 << 24)

static pf_status read_str_here(h5_read *r)
{
    const char *path = r->path, *obj = r->obj, *key = r->key;
    attr_handle h;
    PF_TRY(attr_open(path, obj, key, H5T_STRING, "string", &h));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    hid_t mem = H5I_INVALID_HID;
    char *s = NULL;
    htri_t var;
    H5_CHECK(var = H5Tis_variable_str(h.type), "cannot read attribute '%s' of '%s' in '%s'", key,
             obj, path);
    if (var && !r->in_child) {
        /* the string is in the global heap, which HDF5 follows without
         * checking it: the caller reads it in a child process */
        r->vlen = true;
        goto done;
    }
    H5_CHECK(mem = H5Tcopy(H5T_C_S1), "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    /* HDF5 converts no string between character sets: read in the file's */
    H5_CHECK(H5Tset_cset(mem, H5Tget_cset(h.type)), "cannot read attribute '%s' of '%s' in '%s'",
             key, obj, path);
    if (var) {
        char *vs = NULL;
        H5_CHECK(H5Tset_size(mem, H5T_VARIABLE), "cannot read attribute '%s' of '%s' in '%s'", key,
                 obj, path);
        H5_CHECK(H5Aread(h.a, mem, &vs), "cannot read attribute '%s' of '%s' in '%s'", key, obj,
                 path);
        s = strdup(vs ? vs : "");
        H5free_memory(vs);
    } else {
        size_t n = H5Tget_size(h.type);
        if (n == 0 || n > ATTR_STR_READ_MAX) {
            st = pf_fail(PF_ERR_IO, "attribute '%s' of '%s' in '%s' is a string of %zu bytes; at most %zu are read",
                         key, obj, path, n, ATTR_STR_READ_MAX);
            goto done;
        }
        H5_CHECK(H5Tset_size(mem, n + 1), "cannot read attribute '%s' of '%s' in '%s'", key, obj,
                 path);
        if ((s = calloc(n + 1, 1)))
            H5_CHECK(H5Aread(h.a, mem, s), "cannot read attribute '%s' of '%s' in '%s'", key, obj,
                     path);
    }
    if (!s) st = pf_fail(PF_ERR_NOMEM, "out of memory reading attribute '%s' in '%s'", key, path);
done:
    H5_CLOSE(H5Tclose, mem, "cannot read attribute '%s' of '%s' in '%s'", key, obj, path);
    st = attr_close(path, obj, key, &h, st);
    if (st != PF_OK) {
        free(s);
        return st;
    }
    r->s = s;
    return PF_OK;
}

static pf_status read_i64_here(h5_read *r)
{
    const char *path = r->path, *obj = r->obj, *key = r->key;
    attr_handle h;
    PF_TRY(attr_open(path, obj, key, H5T_INTEGER, "integer", &h));
    pf_h5 *f = NULL;
    pf_status st = PF_OK;
    int64_t v = 0;
    H5_CHECK(H5Aread(h.a, H5T_NATIVE_INT64, &v), "cannot read attribute '%s' of '%s' in '%s'", key,
             obj, path);
done:
    st = attr_close(path, obj, key, &h, st);
    if (st == PF_OK) r->i = v;
    return st;
}

static pf_status exists_here(h5_read *r)
{
    const char *path = r->path, *obj = r->obj;
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
        if (e > 0)
            H5_CHECK(e = H5Oexists_by_name(file, prefix, H5P_DEFAULT),
                     "cannot look up '%s' in '%s'", prefix, path);
        there = e > 0;
        if (!slash) break;
        *slash = '/';
        s = slash + 1;
    }
    r->exists = there;
done:
    free(prefix);
    H5_CLOSE(H5Fclose, file, "cannot close '%s'", path);
    if (st != PF_OK) r->exists = 0;
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

static pf_status list_here(h5_read *r)
{
    const char *path = r->path, *group = r->obj;
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
    r->names = l.v;
    r->n = l.n;
    return PF_OK;
}

/* The read, in this process (the file verified by the caller). */
static pf_status read_here(h5_read *r)
{
    switch (r->kind) {
    case READ_F64: return read_f64_here(r);
    case READ_STR: return read_str_here(r);
    case READ_I64: return read_i64_here(r);
    case READ_EXISTS: return exists_here(r);
    case READ_LIST: return list_here(r);
    }
    PF_ASSERT_MSG(0, "unknown HDF5 read kind %d", (int)r->kind);
    return PF_ERR_IO;
}

/* ------------------------------------------------------------- isolation */

/* The CPU seconds a child may take: $PF_H5_CPU_S when it is an integer in
 * 1..86400, else PF_H5_CHILD_CPU_S. */
static long child_cpu_s(void)
{
    const char *e = getenv("PF_H5_CPU_S");
    char *end;
    errno = 0;
    long v = e ? strtol(e, &end, 10) : 0;
    if (!e || errno || end == e || *end || v < 1 || v > 86400) return PF_H5_CHILD_CPU_S;
    return v;
}

/* The child's limits: no core file, cpu_s seconds of CPU (a damaged file
 * can make HDF5 loop), and the default action for the signals of a crash
 * (a sanitizer's handlers would report HDF5's crash as ours). */
static void child_setup(long cpu_s)
{
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    if (getrlimit(RLIMIT_CPU, &rl) == 0) {
        rlim_t want = (rlim_t)cpu_s;
        if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want) rl.rlim_cur = want;
        else rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_CPU, &rl);
    }
    static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t k = 0; k < sizeof crash / sizeof crash[0]; k++) signal(crash[k], SIG_DFL);
}

/* Runs fn(ctx, fd) in a child process; fd is the write end of a pipe whose
 * bytes come back in *reply (*len bytes, malloc'ed) when reply is not NULL,
 * else -1. *code is the child's exit status. A child ended by a signal is
 * PF_ERR_IO naming `path` and `what`. */
static pf_status in_child(const char *path, const char *what, int (*fn)(void *ctx, int fd),
                          void *ctx, unsigned char **reply, size_t *len, int *code)
{
    int p[2] = {-1, -1};
    if (reply) {
        *reply = NULL;
        *len = 0;
        if (pipe(p) != 0)
            return pf_fail(PF_ERR_IO, "cannot read '%s': no pipe to a reader process: %s", path,
                           strerror(errno));
        fcntl(p[0], F_SETFD, FD_CLOEXEC);
        fcntl(p[1], F_SETFD, FD_CLOEXEC);
    }
    /* what is buffered is written once, by this process */
    fflush(stdout);
    fflush(stderr);
    long cpu_s = child_cpu_s();
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        if (reply) close(p[0]), close(p[1]);
        return pf_fail(PF_ERR_IO, "cannot read '%s': cannot start a reader process: %s", path,
                       strerror(err));
    }
    if (pid == 0) {
        if (reply) close(p[0]);
        child_setup(cpu_s);
        _exit(fn(ctx, p[1]) & 0x7f); /* no exit handlers: HDF5's would close what the child opened */
    }
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0;
    int err = 0;
    if (reply) {
        close(p[1]);
        for (;;) {
            if (n == cap) {
                size_t bigger = cap ? 2 * cap : 4096;
                unsigned char *b = realloc(buf, bigger);
                if (!b) {
                    err = ENOMEM;
                    break;
                }
                buf = b, cap = bigger;
            }
            ssize_t got = read(p[0], buf + n, cap - n);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) err = errno;
            if (got <= 0) break;
            n += (size_t)got;
        }
        close(p[0]);
        if (err) kill(pid, SIGKILL);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) {
            free(buf);
            return pf_fail(PF_ERR_IO, "cannot read '%s': lost its reader process: %s", path,
                           strerror(errno));
        }
    if (err) {
        free(buf);
        return pf_fail(err == ENOMEM ? PF_ERR_NOMEM : PF_ERR_IO,
                       "cannot read '%s': the reply of its reader process: %s", path,
                       strerror(err));
    }
    if (WIFSIGNALED(ws)) {
        free(buf);
        int sig = WTERMSIG(ws);
        if (sig == SIGXCPU)
            return pf_fail(PF_ERR_IO,
                           "'%s' is damaged: HDF5 was stopped after %ld s of CPU time reading %s",
                           path, cpu_s, what);
        return pf_fail(PF_ERR_IO, "'%s' is damaged: HDF5 crashed reading %s (%s)", path, what,
                       strsignal(sig));
    }
    *code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 127;
    if (reply) {
        *reply = buf;
        *len = n;
    }
    return PF_OK;
}

typedef struct isolate_call {
    int (*fn)(void *ctx);
    void *ctx;
} isolate_call;

static int isolate_run(void *c, int fd)
{
    (void)fd;
    const isolate_call *k = c;
    int rc = k->fn(k->ctx);
    fflush(NULL);
    return rc;
}

pf_status pf_h5_isolate(const char *path, int (*fn)(void *ctx), void *ctx, int *code)
{
    PF_ASSERT(path != NULL && fn != NULL && code != NULL);
    *code = 0;
    isolate_call k = {fn, ctx};
    return in_child(path, "it", isolate_run, &k, NULL, NULL, code);
}

/* The reply of a reader process: status, message, then (status PF_OK) the
 * result of the read's kind; integers in this machine's order (the same
 * program reads them). */
typedef struct wbuf {
    unsigned char *b;
    size_t n, cap;
    bool nomem;
} wbuf;

static void put(wbuf *w, const void *p, size_t n)
{
    if (w->nomem || n == 0) return;
    if (w->cap - w->n < n) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap - w->n < n) cap *= 2;
        unsigned char *b = realloc(w->b, cap);
        if (!b) {
            w->nomem = true;
            return;
        }
        w->b = b, w->cap = cap;
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void put_u64(wbuf *w, uint64_t v) { put(w, &v, sizeof v); }

static void put_str(wbuf *w, const char *s)
{
    size_t n = strlen(s);
    put_u64(w, n);
    put(w, s, n);
}

/* In the child: the read, its reply written to fd. Exit 0 when the reply
 * went out whole. */
static int read_child(void *ctx, int fd)
{
    h5_read *r = ctx;
    r->in_child = true;
    pf_status st = read_here(r);
    wbuf w = {0};
    int32_t code = (int32_t)st;
    put(&w, &code, sizeof code);
    put_str(&w, st == PF_OK ? "" : pf_errmsg());
    if (st == PF_OK) switch (r->kind) {
        case READ_F64:
            put_u64(&w, r->rows);
            put_u64(&w, r->cols);
            put(&w, r->v, r->rows * r->cols * sizeof *r->v);
            break;
        case READ_STR: put_str(&w, r->s); break;
        case READ_I64: put(&w, &r->i, sizeof r->i); break;
        case READ_EXISTS: put_u64(&w, (uint64_t)r->exists); break;
        case READ_LIST:
            put_u64(&w, r->n);
            for (size_t k = 0; k < r->n; k++) put_str(&w, r->names[k]);
            break;
        }
    if (w.nomem) return 3;
    return write_all(fd, w.b, w.n) ? 4 : 0;
}

/* Reading a reply: every size checked against the bytes that are left. */
typedef struct rbuf {
    const unsigned char *b;
    size_t n, at;
    bool bad;
} rbuf;

static void get(rbuf *r, void *p, size_t n)
{
    if (n == 0) return;
    if (r->bad || r->n - r->at < n) {
        r->bad = true;
        memset(p, 0, n);
        return;
    }
    memcpy(p, r->b + r->at, n);
    r->at += n;
}

static uint64_t get_u64(rbuf *r)
{
    uint64_t v;
    get(r, &v, sizeof v);
    return v;
}

/* A string of the reply, malloc'ed; NULL when the reply is short (r->bad)
 * or memory is (*nomem). */
static char *get_str(rbuf *r, bool *nomem)
{
    uint64_t n = get_u64(r);
    if (r->bad || n > r->n - r->at) {
        r->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        *nomem = true;
        return NULL;
    }
    get(r, s, (size_t)n);
    s[n] = 0;
    return s;
}

/* What a read is about, for the messages of a crashed reader. */
static void read_what(const h5_read *r, char *buf, size_t cap)
{
    switch (r->kind) {
    case READ_F64: snprintf(buf, cap, "dataset '%s'", r->obj); break;
    case READ_STR:
    case READ_I64: snprintf(buf, cap, "attribute '%s' of '%s'", r->key, r->obj); break;
    case READ_EXISTS: snprintf(buf, cap, "'%s'", r->obj); break;
    case READ_LIST: snprintf(buf, cap, "group '%s'", r->obj); break;
    }
}

/* The read in a child process (h5.h, "isolation"). */
static pf_status read_in_child(h5_read *r)
{
    char what[1024];
    read_what(r, what, sizeof what);
    unsigned char *reply;
    size_t len;
    int code;
    PF_TRY(in_child(r->path, what, read_child, r, &reply, &len, &code));
    rbuf in = {reply, len, 0, false};
    bool nomem = false;
    int32_t st32 = 0;
    get(&in, &st32, sizeof st32);
    char *msg = get_str(&in, &nomem);
    pf_status st = PF_OK;
    if (!in.bad && !nomem && st32 != PF_OK) {
        st = pf_fail(st32 > 0 && st32 <= PF_ERR_EXTERNAL ? (pf_status)st32 : PF_ERR_IO, "%s", msg);
    } else if (!in.bad && !nomem) switch (r->kind) {
        case READ_F64: {
            uint64_t rows = get_u64(&in), cols = get_u64(&in);
            size_t left = in.n - in.at;
            if (in.bad || (rows && cols > left / sizeof(double) / rows) ||
                rows * cols * sizeof(double) != left) {
                in.bad = true;
                break;
            }
            r->rows = (size_t)rows, r->cols = (size_t)cols;
            if (left > 0 && !(r->v = malloc(left))) {
                nomem = true;
                break;
            }
            get(&in, r->v, left);
            break;
        }
        case READ_STR: r->s = get_str(&in, &nomem); break;
        case READ_I64: get(&in, &r->i, sizeof r->i); break;
        case READ_EXISTS: r->exists = get_u64(&in) != 0; break;
        case READ_LIST: {
            uint64_t n = get_u64(&in);
            /* each name takes 8 bytes at least */
            if (in.bad || n > (in.n - in.at) / 8) {
                in.bad = true;
                break;
            }
            if (n && !(r->names = calloc((size_t)n, sizeof *r->names))) {
                nomem = true;
                break;
            }
            for (r->n = 0; r->n < n && !in.bad && !nomem; r->n++)
                if (!(r->names[r->n] = get_str(&in, &nomem))) break;
            break;
        }
        }
    free(msg);
    free(reply);
    if (st == PF_OK && nomem) st = pf_fail(PF_ERR_NOMEM, "out of memory reading '%s'", r->path);
    else if (st == PF_OK && (in.bad || in.at != in.n || code != 0))
        st = pf_fail(PF_ERR_IO, "cannot read %s in '%s': its reader process ended (status %d) without a whole reply",
                     what, r->path, code);
    if (st != PF_OK) read_clear(r);
    return st;
}

static pf_status run_read(h5_read *r)
{
    head_kind kind;
    PF_TRY(verify_path(r->path, &kind));
    /* another tool's file: HDF5 reads what it has never been checked */
    if (kind == HEAD_FOREIGN) return read_in_child(r);
    pf_status st = read_here(r);
    if (st == PF_OK && r->vlen) return read_in_child(r);
    return st;
}

pf_status pf_h5_read_f64(const char *path, const char *dataset, double **out, size_t *rows,
                         size_t *cols)
{
    PF_ASSERT(out != NULL && rows != NULL && cols != NULL);
    check_name(dataset);
    *out = NULL;
    *rows = *cols = 0;
    h5_read r = {.kind = READ_F64, .path = path, .obj = dataset};
    PF_TRY(run_read(&r));
    *out = r.v;
    *rows = r.rows;
    *cols = r.cols;
    return PF_OK;
}

pf_status pf_h5_read_attr_str(const char *path, const char *obj, const char *key, char **out)
{
    PF_ASSERT(key != NULL && out != NULL);
    check_name(obj);
    *out = NULL;
    h5_read r = {.kind = READ_STR, .path = path, .obj = obj, .key = key};
    PF_TRY(run_read(&r));
    *out = r.s;
    return PF_OK;
}

pf_status pf_h5_read_attr_i64(const char *path, const char *obj, const char *key, int64_t *out)
{
    PF_ASSERT(key != NULL && out != NULL);
    check_name(obj);
    *out = 0;
    h5_read r = {.kind = READ_I64, .path = path, .obj = obj, .key = key};
    PF_TRY(run_read(&r));
    *out = r.i;
    return PF_OK;
}

pf_status pf_h5_exists(const char *path, const char *obj, int *exists)
{
    PF_ASSERT(exists != NULL);
    check_name(obj);
    *exists = 0;
    h5_read r = {.kind = READ_EXISTS, .path = path, .obj = obj};
    PF_TRY(run_read(&r));
    *exists = r.exists;
    return PF_OK;
}

pf_status pf_h5_list(const char *path, const char *group, char ***names, size_t *n)
{
    PF_ASSERT(names != NULL && n != NULL);
    check_name(group);
    *names = NULL;
    *n = 0;
    h5_read r = {.kind = READ_LIST, .path = path, .obj = group};
    PF_TRY(run_read(&r));
    *names = r.names;
    *n = r.n;
    return PF_OK;
}

void pf_h5_names_free(char **names, size_t n)
{
    if (!names) return;
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}
