/*
 * table.h — the data files a .pde file names: observations (`observe NAME:
 * u from "F"`) and a reference (`reference "F" [columns a, b, u]`), read
 * as tables of named columns.
 *
 * Three formats, by the file's extension:
 *
 *   .csv         a header naming the columns, then one row a line, numbers
 *                separated by commas; blank lines and lines starting with
 *                # are skipped; other columns are left alone.
 *
 *                    x, t, u
 *                    0.25, 0.5, 0.3679
 *
 *   .h5, .hdf5   one dataset per name at the file's root (/x, /t, /u), of
 *                any numeric type, each with n values (shape (n) or
 *                (n, 1)); other datasets are left alone. h5py writes one
 *                with  f["x"] = x  per column.
 *
 *   .dat         whitespace-separated numbers, '%' comments (PINNacle's
 *                text format, io/pinnacle_dat.h, steady layout: values
 *                rounded to float32 as PINNacle reads them); its columns
 *                carry no names, so the caller gives them in order.
 *
 * A relative F is taken from the .pde file's folder. Rows holding a NaN in
 * a wanted column are an error in .csv and .h5 files; PINNacle's reader
 * drops them in .dat files (as PINNacle does).
 */
#ifndef PF_PDEFILE_TABLE_H
#define PF_PDEFILE_TABLE_H

#include <stddef.h>

#include "core/status.h"
#include "pdefile/ast.h"

/* F as written when absolute, else beside the .pde file f->path, into
 * out[0..cap). PF_ERR_INVALID when it does not fit. */
pf_status pf_pdefile_data_path(const pf_pdefile *f, const char *file, char *out, size_t cap);

/* The columns want[0..nwant) of the table file at `path`, row by row into
 * *rows (n x nwant doubles, malloc'ed; the caller frees) and *n >= 1. For a
 * .dat file, dat_names[0..ndat) name its columns in order (the file must
 * have exactly ndat). Errors name the file (and the line, for text):
 * PF_ERR_IO when it cannot be read, PF_ERR_INVALID for a missing column,
 * a field that is not a number, a short row, columns of different lengths
 * or no rows, PF_ERR_NOMEM. On failure *rows is NULL. */
pf_status pf_pdefile_table_read(const char *path, const char *const *want, int nwant, const char *const *dat_names,
                                int ndat, double **rows, int *n);

#endif
