/*
 * h5_print.h — a listing of any HDF5 file, for pf-inspect: one line per
 * group, dataset ("dataset float64 (2500, 2)"), datatype and link, each
 * followed by its attributes ("  @pde = \"burgers_1d\""; arrays of up to 16
 * elements in full, longer ones by type and shape).
 *
 *     PF_TRY(pf_h5_print("result.h5", bytes, len, stdout));
 *
 * The file's bytes are checked first (pf_h5_verify_bytes: a damaged file of
 * ours never reaches HDF5), and HDF5 walks the file in a child process
 * (pf_h5_isolate), since a checksum can be recomputed and another tool's
 * file has none: a crash or a loop in HDF5 is PF_ERR_IO naming the file,
 * as is an object that cannot be read ("F: cannot open '/loss/step'").
 * What was listed before a failure stays on out.
 */
#ifndef PF_IO_H5_PRINT_H
#define PF_IO_H5_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "core/status.h"

/* Array attributes up to this many elements are printed in full. */
#define PF_H5_PRINT_SHORT_ARRAY 16

pf_status pf_h5_print(const char *path, const char *buf, size_t len, FILE *out);

#endif
