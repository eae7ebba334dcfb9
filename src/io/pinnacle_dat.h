/*
 * pinnacle_dat.h — reading PINNacle reference files (.dat) into evaluation
 * points.
 *
 * A reference file becomes a pf_dat: n rows, each with d_in inputs and d_out
 * outputs, in the order PINNacle evaluates them (docs/pdes.md §0.2,
 * src/pde/baseclass.py `load_ref_data` and `trans_time_data_to_dataset`).
 *
 *     pf_dat *ref;
 *     if (pf_dat_load("burgers1d.dat", 2, 1, PF_DAT_LAYOUT_SNAPSHOTS, &ref) != PF_OK)
 *         return ...;       // pf_errmsg(): missing file (names file and
 *                           // PF_DATA_DIR) or "path:line: ..." parse error
 *     // ref->n == 1111; row r = node * 11 + k holds (x_node, t_k, u)
 *     for (size_t r = 0; r < ref->n; r++)
 *         use(ref->inputs + r * ref->d_in, ref->outputs + r * ref->d_out);
 *     pf_dat_free(ref);
 *
 * Text format (what numpy.loadtxt(path, comments="%") accepts for these
 * files):
 *   - Values are separated by whitespace: ' ', '\t', '\v', '\f' and '\r'.
 *     Lines end at '\n', so CRLF files (all copied PINNacle files) and LF
 *     files (the regenerated ones) read the same. Blank lines are skipped.
 *   - '%' starts a comment that runs to the end of the line (the COMSOL
 *     header; its bytes are never interpreted as numbers, so its UTF-8
 *     Chinese text is harmless). A leading UTF-8 byte-order mark is skipped.
 *   - A value is a decimal number with an optional exponent of either case
 *     (6.05E-5), or nan / inf / infinity (any case, optional sign).
 *     Hexadecimal floats, thousands separators and locale decimal commas are
 *     rejected. Parsing is independent of the process locale: the reader
 *     switches its own thread to the "C" locale with uselocale() while it
 *     runs, so a host program that called setlocale(LC_NUMERIC, "de_DE")
 *     still reads "0.5" as one half.
 *   - Every data line has the same number of values.
 *
 * Precision. PINNacle parses each value to float64 (correctly rounded) and
 * then casts the table to float32 (`.astype(np.float32)`). The reader does
 * exactly that — strtod, then (float) — so every stored value is a float32
 * value even when pf_real is double. Note this is double rounding: a decimal
 * just above a float32 rounding tie (1.000000059604644775390625000001) gives
 * 1.0, where strtof would give 1.0000001; we keep PINNacle's answer. The one
 * exception is the snapshot time t_k: PINNacle parses it from the header as
 * a Python float and np.meshgrid keeps it float64, so times[] and the t
 * input column carry the float64 value (rounded to pf_real).
 *
 * Layouts.
 *   PF_DAT_LAYOUT_STEADY (files loaded with t_transpose=False): each data
 *     line is one row; its first d_in values are the inputs and the next
 *     d_out the outputs. The line must have exactly d_in + d_out values;
 *     pass d_out = PF_DAT_REST to take all remaining columns as outputs.
 *     d_in = 0 reads a plain matrix (poisson_a_coef.dat), d_out = 0 a point
 *     list (heatinv_points.dat).
 *   PF_DAT_LAYOUT_SNAPSHOTS (COMSOL time-snapshot files, t_transpose=True):
 *     each of the N data lines is a spatial node: d_in - 1 coordinates, then
 *     K snapshots of d_out fields, interleaved per snapshot
 *     (u@t0, v@t0, p@t0, u@t1, ...). The K times come from the header: as
 *     PINNacle does, the last line that starts with '%' and contains exactly
 *     K * d_out '@' characters; each '@' is followed by "t=<value>" (e.g.
 *     "u (1) @ t=0.1"). The time of snapshot k is that of its first field;
 *     the reader also checks that the other fields of the snapshot agree.
 *     The result has N * K rows (x..., t_k, fields@t_k), node-major and
 *     time-minor: row = node * K + k.
 *
 * Rows containing a NaN (input or output) are dropped after the expansion,
 * as PINNacle's TesterCallback does; n_dropped counts them.
 *
 * Errors carry "path:line: " for malformed text (a ragged row, a token that
 * is not a number, a header whose time count does not match the columns).
 *
 * Speed: one pass over the memory-mapped file, one strtod per value, about
 * 200 MB/s: heat_longtime.dat (2.4 MB, 96,192 rows after expansion) reads in
 * about 11 ms, the 4.9 MB regenerated coefficient files in about 20 ms.
 */
#ifndef PF_IO_PINNACLE_DAT_H
#define PF_IO_PINNACLE_DAT_H

#include <stddef.h>

#include "core/real.h"
#include "core/status.h"

typedef enum pf_dat_layout {
    PF_DAT_LAYOUT_STEADY = 0, /* one row per line: inputs, then outputs      */
    PF_DAT_LAYOUT_SNAPSHOTS,  /* COMSOL time snapshots, expanded to N*K rows */
} pf_dat_layout;

/* d_out value meaning "every column after the inputs" (steady layout only). */
#define PF_DAT_REST (-1)

/* A reference table. inputs, outputs and times are owned by the pf_dat and
 * freed by pf_dat_free(); inputs and outputs are views into one allocation
 * aligned to PF_ALIGN. */
typedef struct pf_dat {
    size_t n;         /* rows (after expansion and NaN dropping)             */
    int d_in;         /* inputs per row (snapshot files: space dims + 1 for t)*/
    int d_out;        /* outputs per row                                     */
    pf_real *inputs;  /* [n][d_in], row-major                                */
    pf_real *outputs; /* [n][d_out], row-major                               */
    int n_times;      /* K snapshots; 0 for the steady layout                */
    double *times;    /* [n_times] as in the header (float64); NULL if none  */
    size_t n_nodes;   /* data lines in the file (spatial nodes)              */
    size_t n_dropped; /* rows dropped because they held a NaN                */
} pf_dat;

/* A table of n rows with uninitialised values, n_nodes = n, n_dropped = 0
 * and, when n_times > 0, a zeroed times[n_times]. d_in, d_out, n_times >= 0.
 * PF_ERR_NOMEM (with a message) when memory runs out; *out is set only on
 * success. */
pf_status pf_dat_alloc(size_t n, int d_in, int d_out, int n_times, pf_dat **out);

/* Frees the table and its arrays; NULL is allowed. */
void pf_dat_free(pf_dat *d);

/* Parses text[0..len) (need not be NUL-terminated). `label` names the text in
 * messages ("label:line: ..."). Layout and d_in / d_out as described above:
 * steady needs d_in >= 0 and d_out >= 0 or PF_DAT_REST; snapshots need
 * d_in >= 1 and d_out >= 1. Fails with
 *   PF_ERR_USAGE    bad d_in / d_out / layout arguments;
 *   PF_ERR_INVALID  malformed text, no data line, a column count that does
 *                   not fit the layout, a missing or mismatched time header;
 *   PF_ERR_NOMEM    out of memory.
 * *out is set only on success; the caller frees it with pf_dat_free(). */
pf_status pf_dat_parse(const char *text, size_t len, const char *label, int d_in, int d_out,
                       pf_dat_layout layout, pf_dat **out);

/* pf_dat_parse() of the file at `path` (memory-mapped). PF_ERR_IO, with the
 * path and the system's reason, when it cannot be opened or read. */
pf_status pf_dat_read(const char *path, int d_in, int d_out, pf_dat_layout layout,
                      pf_dat **out);

/* pf_dat_read() of `name` in the data folder (io/data_dir.h): PF_ERR_IO
 * naming the file and PF_DATA_DIR when it is absent. */
pf_status pf_dat_load(const char *name, int d_in, int d_out, pf_dat_layout layout,
                      pf_dat **out);

#endif
