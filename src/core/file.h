/*
 * file.h — every file we read, bounded; every file we write, atomically
 * and through a temp file that no one else can plant.
 *
 * Reading. A reader names the kind of file it expects, and the kind sets
 * the most bytes it may hold (docs/architecture.md, "Files we read"):
 *
 *     char *text;
 *     size_t len;
 *     PF_TRY(pf_file_read_as(path, PF_FILE_SPEC, &text, &len));   // NUL-terminated
 *     ...
 *     free(text);
 *
 * Only regular files are read (symbolic links to them too): a FIFO, a
 * device (/dev/zero), a socket or a folder is refused before a byte is
 * read, and opening never blocks (O_NONBLOCK until the type is known), so
 * a FIFO given as a spec is an error, not a hang. A file larger than its
 * kind's limit is refused from its size, and one that grows past it while
 * being read is refused at the first byte too many: memory never grows
 * beyond the limit. "-" is standard input (whatever it is), read up to the
 * same limit. Readers that stream (line by line, mmap, a library that takes
 * a path) open through pf_file_open()/pf_file_fopen(), or check the path
 * first with pf_file_check() (HDF5: libhdf5 opens the file itself).
 *
 * Writing. pf_file_write_atomic() writes "<path>.tmp.<pid>.<6 random
 * characters>" in the same folder (pf_tmp_create: O_CREAT | O_EXCL |
 * O_NOFOLLOW, so a symbolic link or any file planted under that name is
 * never followed nor reused), fsyncs it and rename(2)s it over `path`, so a
 * reader (or Make) never sees a half-written file and an older file at
 * `path` survives any failure; on failure the temp file is removed. A
 * writer killed between the two leaves its temp behind: the next write of
 * the same `path` removes every "<path>.tmp.<pid>[.<suffix>]" whose process
 * no longer exists on this machine (pf_tmp_sweep).
 *
 * Errors: PF_ERR_IO with a message naming the file (and strerror for system
 * failures); PF_ERR_NOMEM when an allocation fails.
 */
#ifndef PF_CORE_FILE_H
#define PF_CORE_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"

/* The kinds of files we read, each with its limit in bytes (pf_file_limit;
 * the table in file.c, listed in docs/architecture.md). */
typedef enum pf_file_kind {
    PF_FILE_SPEC,      /* an AlgorithmSpec as JSON (pf-train, pf-spec)                       1 MiB */
    PF_FILE_PDE,       /* a .pde file (src/pdefile: PF_PDEFILE_MAX_BYTES is the parser's own)  1 MiB */
    PF_FILE_SETTINGS,  /* small JSON settings: a run's context.json, a reference manifest      1 MiB */
    PF_FILE_TABLE,     /* a data table: PINNacle's .dat, a .pde's .csv/.dat, PINNsAgent's CSV,
                        * pf-stats --from-table, a FreeFEM table                               1 GiB */
    PF_FILE_MSGPACK,   /* a msgpack artifact: run files, LLM transcripts                     256 MiB */
    PF_FILE_H5,        /* an HDF5 file: result.h5, sample points, a .pde's .h5 table           1 GiB */
    PF_FILE_KNOWLEDGE, /* knowledge files: data/knowledge/NAME.kb, PINNsAgent's PDE labels       16 MiB */
    PF_FILE_PROMPT,    /* a prompt template (data/prompts)                                     1 MiB */
    PF_FILE_LOG,       /* a tool's log read back for a message (FreeFEM, gnuplot)             16 MiB */
    PF_FILE_STATE,     /* a one-line state file: a training's launch.txt                      64 KiB */
    PF_FILE_ANY,       /* a file of no particular kind (pf_file_read; pf-inspect)              1 GiB */
    PF_FILE_KIND_COUNT
} pf_file_kind;

/* The most bytes a file of this kind may hold, and its name in messages
 * ("a spec", "a .pde file", ...). */
size_t pf_file_limit(pf_file_kind kind);
const char *pf_file_kind_name(pf_file_kind kind);

/* path must name a regular file (after links) of at most the kind's limit;
 * *size (may be NULL) gets its size. Nothing is opened: for readers that
 * hand the path to a library (HDF5). PF_ERR_IO:
 *   "cannot read 'PATH': No such file or directory"            (strerror)
 *   "cannot read 'PATH': a FIFO, not a regular file"           (a folder, a character device, ...)
 *   "cannot read 'PATH': N bytes, more than the 1 MiB a spec may have" */
pf_status pf_file_check(const char *path, pf_file_kind kind, size_t *size);

/* Open path read-only (O_CLOEXEC) for reading as `kind`, with the checks of
 * pf_file_check() made on the open file, never blocking on a FIFO; *fd the
 * descriptor (close it), *size (may be NULL) the size. Same errors. */
pf_status pf_file_open(const char *path, pf_file_kind kind, int *fd, size_t *size);

/* pf_file_open() as a stdio stream ("r"); fclose it. */
pf_status pf_file_fopen(const char *path, pf_file_kind kind, FILE **out);

/* The whole file ("-": standard input) into *out, malloc'ed and
 * NUL-terminated (so text can be parsed in place), its length in *len.
 * The errors above, and "cannot read 'PATH': more than the 1 MiB a spec may
 * have" when it grows (or standard input runs) past the limit. */
pf_status pf_file_read_as(const char *path, pf_file_kind kind, char **out, size_t *len);

/* After one of the functions above failed on path: the reason alone (the
 * WHY of "cannot read 'PATH': WHY"), for a caller that words its own
 * message, e.g. "cannot read the PDE labels 'PATH': WHY". */
const char *pf_file_why(const char *path);

/* pf_file_read_as(path, PF_FILE_ANY, ...). */
pf_status pf_file_read(const char *path, char **out, size_t *len);

/* The SHA-256 of a file of this kind (read as pf_file_read_as reads it:
 * the same checks and errors), as lower-case hex into hex[65]. */
pf_status pf_file_sha256(const char *path, pf_file_kind kind, char hex[65]);

/* A fresh temp file for writing `path`: "<path>.tmp.<pid>.<6 characters of
 * [A-Za-z0-9]>" in path's folder, created with O_WRONLY | O_CREAT | O_EXCL |
 * O_NOFOLLOW | O_CLOEXEC and mode 0666 (less the umask). *tmp (malloc'ed;
 * free it) names it, *fd is open on it. Nothing named so is ever reused: a
 * name that exists (a planted file or link) is passed over for another.
 * PF_ERR_IO "cannot create 'PATH' (temp file 'TMP'): strerror". */
pf_status pf_tmp_create(const char *path, char **tmp, int *fd);

/* Write data[0..len) to path atomically (see above). PF_ERR_IO naming the
 * path and strerror on any failure, with the temp file removed. */
pf_status pf_file_write_atomic(const char *path, const void *data, size_t len);

/* Remove the temp files "<path>.tmp.<pid>" and "<path>.tmp.<pid>.<suffix>"
 * of writers of `path` that no longer run on this machine (a killed stage,
 * a zombie not reaped yet among them).
 * Best effort: what cannot be removed stays; *removed (may be NULL) counts
 * what went. */
void pf_tmp_sweep(const char *path, int *removed);

/* Create the folder dir and any missing parents (mkdir -p); PF_ERR_IO
 * naming the first one that cannot be made, or dir when it is not a folder
 * (or is empty). */
pf_status pf_mkdirs(const char *dir);

#endif
