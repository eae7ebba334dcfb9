/*
 * data_dir.h — where reference data files are found.
 *
 * Reference files (the PINNacle .dat files, regenerated coefficient fields)
 * are never part of the project. They live in one folder named by the
 * environment variable PF_DATA_DIR; when it is unset or empty the folder is
 * the checkout's "data/ref", which `make data` fills: "data/ref" under the
 * working directory when there is one, else above the executable (as
 * io/asset_dir.h finds the project's files), so a program finds the same
 * files run by make or by hand, from any folder. Our own solutions for PDEs
 * whose PINNacle file is lost, written by `make refs` (refs/, src/refs/),
 * live apart from them, in the folder named by PF_REFS_DIR (default the
 * checkout's "data/generated", found the same way; the Makefile exports
 * it): the PINNacle folder may well be read-only. A reference names such a file
 * "generated/<pde>.dat", and pf_data_path() finds it there.
 * The Makefile exports PF_DATA_DIR: the team's ../shared/data/pinnacle when
 * it holds every file of the manifest, else the checkout's data/ref; `make
 * test` runs `make data` first (scripts/fetch-data.sh: from ../shared when
 * it has a file, else the network).
 *
 *     char path[PF_DATA_PATH_MAX];
 *     if (pf_data_path("burgers1d.dat", path, sizeof path) != PF_OK)
 *         return ...;   // PF_ERR_IO; pf_errmsg() names the file and the folder
 *     ... open path ...
 *
 * A PDE whose reference is missing fails with that message; its tests skip
 * with it (cr_skip_test, "data missing: ...": tests/data_fixture.h), they
 * are never faked.
 */
#ifndef PF_IO_DATA_DIR_H
#define PF_IO_DATA_DIR_H

#include <stddef.h>

#include "core/status.h"

/* The environment variable and its default value. */
#define PF_DATA_DIR_ENV "PF_DATA_DIR"
#define PF_DATA_DIR_DEFAULT "data/ref"

/* A buffer size that holds any path pf_data_path() builds. */
#define PF_DATA_PATH_MAX 4096

/* Where `make refs` writes and the library reads our references. */
#define PF_REFS_DIR_ENV "PF_REFS_DIR"
#define PF_REFS_DIR_DEFAULT "data/generated"

/* The data folder: $PF_DATA_DIR when set and non-empty, else
 * PF_DATA_DIR_DEFAULT. The string belongs to the environment (or is a
 * literal); it stays valid until the environment changes. */
const char *pf_data_dir(void);

/* The folder of our generated references: $PF_REFS_DIR when set and
 * non-empty, else PF_REFS_DIR_DEFAULT (valid like pf_data_dir's). */
const char *pf_refs_dir(void);

/* Writes "<dir>/<name>" into buf[0..cap) and checks that it names a regular
 * file. `name` may contain sub-folders ("regenerated/heat_2d_coef_256.dat");
 * a name "generated/<file>" is <file> in pf_refs_dir() instead.
 * Fails with
 *   PF_ERR_IO       when the file is absent or cannot be examined; the
 *                   message names the file, the folder, whether it came from
 *                   PF_DATA_DIR or the default, and says how to get the files
 *                   (`make data`, or point PF_DATA_DIR at them);
 *   PF_ERR_INVALID  when the path does not fit in cap bytes or name is empty.
 * buf holds the path even on PF_ERR_IO (when it fits). */
pf_status pf_data_path(const char *name, char *buf, size_t cap);

/* The manifest of the data files: "<sha256>  <name>" per line, '#'
 * comments; data/pinnacle.sha256 in the project (found like the other
 * data folders, io/asset_dir.h). */
#define PF_DATA_MANIFEST "pinnacle.sha256"

/* The prefix of `make refs`'s files' names ("generated/<pde>.dat", each
 * with "<pde>.manifest.json" beside it in pf_refs_dir()). */
#define PF_DATA_GENERATED "generated"

/* When the manifest lists `name`, the SHA-256 of the file at `path` must be
 * the listed one: PF_ERR_IO naming the file, the folder and the manifest
 * otherwise (a cut, edited or other version of the file). A name the
 * manifest does not list passes (*listed false; NULL allowed). A file of
 * `make refs` (a name under PF_DATA_GENERATED/) is checked against its own
 * manifest instead, which must exist (*listed true). A file is hashed once
 * per process; later calls for the same path are free. */
pf_status pf_data_verify(const char *name, const char *path, int *listed);

#endif
