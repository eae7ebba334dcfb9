/*
 * h5.h — writing HDF5 artifacts (atomically, self-describing, every call
 * checked) and reading them back (see "reading" at the end).
 *
 * A small layer over the serial HDF5 C library for the files the stages
 * produce (pf-pde sample points, pf-train result.h5, ...). Objects are named
 * by their absolute path in the file ("/" is the root group), datasets and
 * groups are created with their parent groups as needed, and attributes
 * (names, units, seeds, the precision) go on any object so that h5dump and
 * h5py users can read the file without our code.
 *
 *     pf_h5 *f;
 *     PF_TRY(pf_h5_create("run/points.h5", &f));   // writes run/points.h5.tmp.<pid>
 *     pf_h5_attr_str(f, "/", "format", "pinnforge.samples");
 *     pf_h5_attr_i64(f, "/", "version", 1);
 *     pf_h5_write_real(f, "/interior/x", x, n, 3);  // creates /interior too
 *     pf_h5_attr_str(f, "/interior/x", "columns", "x,y,t");
 *     pf_h5_write_int(f, "/bc/part", part, m);
 *     return pf_h5_close(f);  // renames to run/points.h5, or removes the temp
 *
 * ------------------------------------------------------------- atomicity
 *
 * pf_h5_create() makes "<path>.tmp.<pid>" in the same folder (so a missing
 * or read-only folder fails at once); HDF5 builds the file in memory (its
 * core driver, no backing store) and pf_h5_close() writes the bytes into the
 * temp file with checked write(2)s, syncs it and rename(2)s it to `path`, so
 * a reader (or Make) never sees a half-written file and an older file at
 * `path` survives any failure intact. HDF5 itself never writes to a disk: a
 * full disk is our write's ENOSPC ("cannot write 'PATH' (temp file
 * 'TMP'): No space left on device"), never a failed HDF5 close (HDF5 1.10
 * frees a file whose close failed yet keeps its id, and its exit handler
 * then closes it again: a crash at exit). The whole file is in memory until
 * the close (our files are megabytes at most). The handle
 * remembers the FIRST failed call: later calls on it do nothing and return
 * that failure again, and pf_h5_close() then removes the temp file and
 * returns it (with its message), so a sequence of writes may be checked once,
 * at the close — or call by call with PF_TRY, then pf_h5_discard() on the
 * way out. Either way no file is left at `path` nor a temp beside it.
 *
 * ------------------------------------------------------------- checksum
 *
 * HDF5 trusts a file's metadata: one changed byte in it can crash the
 * library, h5dump with it (issue 24). So every file pf_h5_create() makes
 * starts with a 512-byte HDF5 user block (H5Pset_userblock), which HDF5,
 * h5dump and h5py skip, and pf_h5_close() writes it, before the rest and
 * the rename, with one header line and zeros:
 *
 *     offset 0    "PINNFORGE-H5 1 sha256 " (PF_H5_MAGIC: magic, format
 *                 version 1, algorithm), then the SHA-256 of bytes 512 to
 *                 the end of the file as 64 lowercase hex digits, then "\n"
 *     offset 87   zero bytes up to 511
 *     offset 512  the HDF5 file proper (superblock, signature \x89HDF\r\n\x1a\n)
 *
 * so `head -c 87 out.h5` shows the digest and
 * `tail -c +513 out.h5 | sha256sum` recomputes it. Every reader below calls
 * pf_h5_verify() before HDF5 sees the file:
 *
 *   HDF5's signature at offset 0   a file with no user block (written by
 *                                  another tool, or before the header
 *                                  existed): read unchecked, in a child
 *                                  process (see "isolation")
 *   exactly the header above       the digest must match the bytes after it
 *   anything else                  refused; never opened with HDF5
 *
 * and a refusal is PF_ERR_IO naming the file:
 *
 *     'run/result.h5' is corrupt (its checksum does not match)
 *     'run/result.h5' is corrupt (its header is damaged)
 *     cannot open 'notes.txt' for reading: not an HDF5 file
 *
 * "damaged" is a head that starts like ours, or has HDF5's signature at 512,
 * but is not exactly the header (one flipped byte in the first 512 says
 * so). A foreign file with a user block of its own is therefore refused
 * too; HDF5 files from other tools normally have none. The same content
 * still gives the same bytes: the digest is a function of them.
 *
 * The checksum catches damage, not intent: anyone can change a byte and
 * recompute it. So nothing we read follows a reference HDF5 does not bound:
 * our strings are fixed-length (see "types"), never variable-length ones,
 * which live in the file's global heap and which HDF5 1.10 copies by the
 * sizes and indices the file claims (a crash in H5HG_read on a file whose
 * checksum was recomputed).
 *
 * ------------------------------------------------------------- isolation
 *
 * libhdf5 is not safe on hostile files: it can crash, or loop, on damaged
 * metadata. What we cannot check runs in a child process (fork) that
 * sends its result back through a pipe:
 *
 *   a file without our header      every read (pf_h5_read_*, pf_h5_exists,
 *                                  pf_h5_list), whole
 *   a variable-length string       the read of that attribute (our files
 *                                  written before fixed-length strings, and
 *                                  other tools' files; read as before)
 *   pf-inspect                     its whole walk of any HDF5 file
 *                                  (pf_h5_isolate)
 *
 * The child has PF_H5_CHILD_CPU_S seconds of CPU time ($PF_H5_CPU_S, an
 * integer in 1..86400, instead: the tests' sweeps of damaged files meet
 * HDF5 1.10's loops) and no core file; a crash or a loop ends the child
 * only, and becomes PF_ERR_IO naming the file and the object:
 *
 *     'run/x.h5' is damaged: HDF5 crashed reading attribute 'spec' of '/' (Segmentation fault)
 *     'run/x.h5' is damaged: HDF5 was stopped after 30 s of CPU time reading dataset '/u'
 *
 * A checked file of ours is read in the calling process, as fast as before
 * (a fork costs about a millisecond).
 *
 * ------------------------------------------------------------- types
 *
 *   pf_h5_write_real   rows x cols pf_real -> IEEE float32 (float build) or
 *                      float64 (double build), little endian; attribute
 *                      "precision" on the file says which (the caller's job)
 *   pf_h5_write_f64    n doubles -> float64 (curves and statistics, which
 *                      are double in every build)
 *   pf_h5_write_int    n ints -> 32-bit signed integers
 *   attributes         strings as fixed-length UTF-8 scalars of
 *                      strlen + 1 bytes, NUL-terminated (h5dump shows them
 *                      as strings, h5py as bytes: `attrs["k"].decode()`), at
 *                      most PF_H5_ATTR_STR_MAX bytes, held in the
 *                      attribute's own header message (files written before
 *                      this held variable-length strings, in the global heap:
 *                      still read, in a child process, see "isolation");
 *                      numbers as int64, uint64 or float64 scalars
 *
 * Zero-length datasets (rows or n = 0) are valid and written with their
 * shape. Datasets are contiguous and uncompressed. Writing a dataset or group
 * that already exists fails; setting an attribute that exists replaces it.
 * Objects carry no creation or modification times, so the same calls in the
 * same order give a byte-identical file (artifacts can be compared by hash).
 *
 * ------------------------------------------------------------- errors
 *
 * Every HDF5 call is checked; a failure becomes PF_ERR_IO with a message
 * that names the object and the file and carries HDF5's own innermost reason
 * and the failed call, e.g.
 *
 *     cannot create dataset '/interior/x' in 'out.h5': name already exists
 *     (H5Dcreate2 at src/io/h5.c:210)
 *
 * HDF5's automatic error printing is switched off by the first
 * pf_h5_create() (the library prints nothing). Bad arguments (NULL pointers,
 * a relative object path) are contract violations and abort.
 *
 * Serial HDF5 is not thread-safe: use this module from one thread at a time.
 */
#ifndef PF_IO_H5_H
#define PF_IO_H5_H

#include <stddef.h>
#include <stdint.h>

#include "core/real.h"
#include "core/status.h"

/* The user block's size, and the header's first bytes (see "checksum"). */
#define PF_H5_USERBLOCK 512
#define PF_H5_MAGIC "PINNFORGE-H5 1 sha256 "

/* The longest string attribute written, in bytes (its NUL not counted): a
 * fixed-length string lives in the attribute's header message, which HDF5
 * 1.10 caps at 64 KiB. A longer value is refused (PF_ERR_IO). */
#define PF_H5_ATTR_STR_MAX 60000

/* CPU seconds an isolated reader may take (see "isolation"; $PF_H5_CPU_S
 * overrides it). */
#define PF_H5_CHILD_CPU_S 30

/* An HDF5 file being written; opaque. */
typedef struct pf_h5 pf_h5;

/* Start writing `path` (through its temp file, see above). On failure *out is
 * NULL, nothing is left on disk, and the message names `path`. */
pf_status pf_h5_create(const char *path, pf_h5 **out);

/* Finish: close the file, write its checksum header, sync it, rename the
 * temp to `path`. If any call on
 * the handle failed, or finishing fails, the temp file is removed and the
 * (first) failure is returned. Frees the handle in every case; NULL is a
 * no-op that returns PF_OK. */
pf_status pf_h5_close(pf_h5 *f);

/* Abandon the file: close it and remove the temp file; `path` is left as it
 * was. Frees the handle; NULL is a no-op. For the caller's own failures. */
void pf_h5_discard(pf_h5 *f);

/* The final path given to pf_h5_create() (owned by f). */
const char *pf_h5_path(const pf_h5 *f);

/* Create the group `name` ("/a/b") and any missing parents. */
pf_status pf_h5_group(pf_h5 *f, const char *name);

/* The rows x cols row-major matrix x as dataset `name` of shape (rows, cols),
 * parents created as needed. x may be NULL when rows * cols == 0. */
pf_status pf_h5_write_real(pf_h5 *f, const char *name, const pf_real *x, size_t rows,
                           size_t cols);

/* n doubles as the 1-D float64 dataset `name`. */
pf_status pf_h5_write_f64(pf_h5 *f, const char *name, const double *v, size_t n);

/* n ints as the 1-D int32 dataset `name`. */
pf_status pf_h5_write_int(pf_h5 *f, const char *name, const int *v, size_t n);

/* Scalar attribute `key` on the object `obj` ("/" for the file, a group or a
 * dataset path), replacing one of that name. */
pf_status pf_h5_attr_str(pf_h5 *f, const char *obj, const char *key, const char *value);
pf_status pf_h5_attr_i64(pf_h5 *f, const char *obj, const char *key, int64_t value);
pf_status pf_h5_attr_u64(pf_h5 *f, const char *obj, const char *key, uint64_t value);
pf_status pf_h5_attr_f64(pf_h5 *f, const char *obj, const char *key, double value);

/* ================================================================ reading
 *
 * Reading artifacts back (pf-plot, pf-stats): each call checks `path` with
 * pf_h5_verify(), opens it read-only (in a child process for a file without
 * our header, see "isolation"), reads one thing and closes the file
 * again, so no handle outlives a call (and a file is checked, whole, at
 * every call: about a millisecond per megabyte). Errors are PF_ERR_IO naming
 * the file and the object, with HDF5's reason, as for writing:
 *
 *     double *mse;
 *     size_t n, one;
 *     PF_TRY(pf_h5_read_f64("run/result.h5", "/eval/mse", &mse, &n, &one));
 *     ...
 *     free(mse);
 */

/* PF_OK when `path` may be handed to HDF5: its header is ours and its
 * checksum matches, or it has no user block (HDF5's signature at offset 0).
 * Otherwise PF_ERR_IO: the file cannot be opened or read, is no HDF5 file,
 * or is corrupt (see "checksum" at the top). Reads the whole file. */
pf_status pf_h5_verify(const char *path);

/* The same check on a file already in memory: buf[0..len) holds all of
 * `path` (named in messages only). For tools that read the file anyway
 * (pf-inspect) before they open it with HDF5. */
pf_status pf_h5_verify_bytes(const char *path, const void *buf, size_t len);

/* The dataset `dataset` of any integer or floating-point type, converted to
 * double by HDF5, row-major into *out (malloc'ed; the caller frees; NULL
 * for an empty dataset). Shapes: scalar -> 1 x 1, (n) -> n x 1,
 * (rows, cols) -> rows x cols; rank 3 and up, strings and compounds are
 * refused. On failure *out is NULL and *rows = *cols = 0. */
pf_status pf_h5_read_f64(const char *path, const char *dataset, double **out, size_t *rows,
                         size_t *cols);

/* The string attribute `key` of the object `obj` (fixed length; variable
 * length in a child process, see "isolation") into *out (malloc'ed,
 * NUL-terminated; the caller frees). */
pf_status pf_h5_read_attr_str(const char *path, const char *obj, const char *key, char **out);

/* The integer attribute `key` of the object `obj` (any integer type that
 * fits int64), e.g. a file's "version". */
pf_status pf_h5_read_attr_i64(const char *path, const char *obj, const char *key, int64_t *out);

/* *exists = 1 when the object `obj` ("/a/b/c") is in the file (every
 * component a link that resolves), else 0. A missing or unreadable file is
 * an error, not "absent". */
pf_status pf_h5_exists(const char *path, const char *obj, int *exists);

/* The names of the members of the group `group`, sorted by name, into
 * *names (an array of *n malloc'ed strings; free with pf_h5_names_free). */
pf_status pf_h5_list(const char *path, const char *group, char ***names, size_t *n);

/* Frees what pf_h5_list() returned; NULL is a no-op. */
void pf_h5_names_free(char **names, size_t n);

/* Runs fn(ctx) in a child process and sets *code to its return value
 * (0..127), for a tool that reads `path` with HDF5 itself (pf-inspect).
 * stdout and stderr are flushed before the fork, the child's streams after
 * fn. A crash of the child, or more than PF_H5_CHILD_CPU_S seconds of CPU
 * (or $PF_H5_CPU_S),
 * is PF_ERR_IO naming `path` ("'F' is damaged: HDF5 crashed reading it
 * (Segmentation fault)"); failing to start the child too. */
pf_status pf_h5_isolate(const char *path, int (*fn)(void *ctx), void *ctx, int *code);

#endif
