/*
 * fingerprint.h — what a run records of a PDE written in a .pde file, so
 * that a change to the file or to the data files it names is seen: the
 * file's SHA-256, and one SHA-256 over the data files that its
 * `observe NAME: u from "F"` and `reference "F"` lines name.
 *
 *     pf_pdefile_fingerprint fp;
 *     PF_TRY(pf_pdefile_fingerprint_of("examples/pdes/wave_1d.pde", &fp));
 *     printf("%s %s\n", fp.pde_sha256, fp.has_data ? fp.data_sha256 : "-");
 *
 * The data digest is the SHA-256 of the lines "F\n<hex>\n" (or "F\nmissing\n")
 * for each named file in the order the lines appear in the file, F as
 * written (absolute, or beside the .pde: table.h pf_pdefile_data_path). A
 * named file that is not there is hashed as its name, so creating it
 * changes the digest too (a reference may be a PINNacle file in
 * PF_DATA_DIR, checked by its manifest's SHA-256 when read). A file that
 * does not parse has no data digest: the PDE's check reports its errors.
 * The run's context.json holds both (search/artifact.h).
 */
#ifndef PF_PDEFILE_FINGERPRINT_H
#define PF_PDEFILE_FINGERPRINT_H

#include <stdbool.h>

#include "core/sha256.h"
#include "core/status.h"

typedef struct pf_pdefile_fingerprint {
    char pde_sha256[PF_SHA256_HEX];
    bool has_data;                   /* the file names data files (and parses) */
    char data_sha256[PF_SHA256_HEX];
} pf_pdefile_fingerprint;

/* PF_ERR_IO naming the file when it cannot be read (or is not a regular
 * file within a .pde file's size limit); PF_ERR_NOMEM. */
pf_status pf_pdefile_fingerprint_of(const char *path, pf_pdefile_fingerprint *out);

#endif
