/*
 * table.h — the data files a .pde file names: observations (`observe NAME:
 * u from "F"`) and a reference (`reference "F" [columns a, b, u]`), read
 * as tables of named columns.
 *
 * Three formats, by the file's extension:
 *
 *   .csv         a header naming the columns, then one row a line, numbers
 *                separated by commas; blank lines and lines starting with
 *                # are skipped; other columns are left alone; a leading
 *                UTF-8 byte-order mark is skipped. A header names each
 *                column once.
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
 *                (pf_pdefile_table_read_snapshots reads PINNacle's COMSOL
 *                snapshot layout.)
 *
 * A relative F is taken from the .pde file's folder. Rows holding a NaN in
 * a wanted column are an error in .csv and .h5 files; PINNacle's reader
 * drops them in .dat files (as PINNacle does). Every value kept must be
 * finite and within float32's range (|v| <= 3.4028235e38, so that a file
 * reads the same in the float and the double build): inf, -inf, Infinity,
 * 1e999 and, in any format, 1e39 are refused, naming the file, the row
 * (its line in a text file) and the column. A value below the normal
 * range (a subnormal such as 1e-310) is kept as strtod rounds it (the
 * subnormal double; 0 below 4.9e-324); where it is stored as a float (a
 * .dat file, as PINNacle reads it, or any value in the float build) it
 * becomes the nearest float: a subnormal float down to 1.4e-45, below
 * that a zero of its sign.
 */
#ifndef PF_PDEFILE_TABLE_H
#define PF_PDEFILE_TABLE_H

#include <stddef.h>

#include "core/status.h"
#include "pdefile/ast.h"

struct pf_geom;

/* A table read from a file. */
typedef struct pf_pdefile_table {
    int n;     /* rows, >= 1 */
    int ncol;  /* values per row */
    double *v; /* n x ncol, malloc'ed */
    int *line; /* the text line each row comes from (.csv, .dat), or NULL (.h5: row i is index i) */
} pf_pdefile_table;

/* Points of a data file that lie outside the domain by more than this
 * fraction of the domain's scale (the largest |lo|, |hi| or hi - lo of
 * its bounding box, time included) are refused: points on the boundary,
 * rounded to float32 or printed with a few digits, stay in. */
#define PF_PDEFILE_DOMAIN_TOL 1e-5

/* F as written when absolute, else beside the .pde file f->path, into
 * out[0..cap). PF_ERR_INVALID when it does not fit. */
pf_status pf_pdefile_data_path(const pf_pdefile *f, const char *file, char *out, size_t cap);

/* The columns want[0..nwant) of the table file at `path`, row by row, into
 * *out (free with pf_pdefile_table_free), out->n >= 1. For a .dat file,
 * dat_names[0..ndat) name its columns in order (the file must have exactly
 * ndat). Errors name the file (and the line, for text; the column):
 * PF_ERR_IO when it cannot be read, PF_ERR_INVALID for a missing or
 * repeated column, a field that is not a number or not finite, a short
 * row, columns of different lengths or no rows, PF_ERR_NOMEM. On failure
 * *out is empty. */
pf_status pf_pdefile_table_read(const char *path, const char *const *want, int nwant, const char *const *dat_names,
                                int ndat, pf_pdefile_table *out);

/* A PINNacle snapshot .dat file (io/pinnacle_dat.h's snapshot layout: d
 * inputs with time last, m outputs) as a table of d + m columns named
 * names[0..d+m) in messages, each row with its node's line: the values
 * checked as above. */
pf_status pf_pdefile_table_read_snapshots(const char *path, int d, int m, const char *const *names,
                                          pf_pdefile_table *out);

void pf_pdefile_table_free(pf_pdefile_table *t);

/* Where row i (0-based) of a table read from `path` is: "F:LINE" for a
 * text file, "F: row I+1" for an .h5 file. Returns buf. */
const char *pf_pdefile_table_where(const char *path, const pf_pdefile_table *t, int i, char *buf, size_t cap);

/* The points of a table: the first d columns of each row are a point
 * (named names[0..d)), the rest its values (names[d..ncol)). PF_OK, or
 * PF_ERR_INVALID naming the row of the first point outside the domain g
 * (a signed distance above tol) or of a point given twice with different
 * values (both rows). The same point with the same values is allowed. */
pf_status pf_pdefile_table_check_points(const char *path, const pf_pdefile_table *t, int d, const char *const *names,
                                        const struct pf_geom *g, double tol);

/* The distance outside f's domain that data points may lie (checked f):
 * PF_PDEFILE_DOMAIN_TOL times its scale. */
double pf_pdefile_domain_tol(const pf_pdefile *f);

#endif
