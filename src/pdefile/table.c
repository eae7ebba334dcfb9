/* table.c — named columns from .csv, .h5 and .dat files (table.h). */
#include "pdefile/table.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "geom/geometry.h"
#include "io/h5.h"
#include "io/pinnacle_dat.h"

#define MAX_COLUMNS 64
#define MAX_LINE 4096
#define MAX_ROWS (1 << 30)

pf_status pf_pdefile_data_path(const pf_pdefile *f, const char *file, char *out, size_t cap)
{
    const char *slash = strrchr(f->path, '/');
    int dir = file[0] == '/' || !slash ? 0 : (int)(slash - f->path + 1);
    int n = snprintf(out, cap, "%.*s%s", dir, f->path, file);
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "%s: the path of '%s' is too long", f->path, file);
    return PF_OK;
}

void pf_pdefile_table_free(pf_pdefile_table *t)
{
    if (!t) return;
    free(t->v);
    free(t->line);
    memset(t, 0, sizeof *t);
}

const char *pf_pdefile_table_where(const char *path, const pf_pdefile_table *t, int i, char *buf, size_t cap)
{
    if (t->line)
        snprintf(buf, cap, "%s:%d", path, t->line[i]);
    else
        snprintf(buf, cap, "%s: row %d", path, i + 1);
    return buf;
}

/* Why v cannot be kept (NULL when it can): not finite, or infinite once
 * stored as a float (table.h). NaN is each reader's own case. */
static const char *not_finite(double v)
{
    if (!isfinite(v)) return "is not a finite number";
    if (!isfinite((float)v)) return "is beyond float32's range (|v| <= 3.4e38)";
    return NULL;
}

/* The rows being read: n x ncol values, and their lines. */
typedef struct table {
    const char *path;
    int ncol, n, cap;
    double *v;
    int *line; /* NULL: no lines (.h5) */
    bool lines;
} table;

static pf_status grow(table *t, int rows)
{
    if (rows <= t->cap) return PF_OK;
    int cap = t->cap ? t->cap : 256;
    while (cap < rows) cap = cap > (1 << 29) ? rows : 2 * cap;
    double *v = realloc(t->v, (size_t)cap * (size_t)t->ncol * sizeof *v);
    if (!v) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d rows", t->path, cap);
    t->v = v;
    if (t->lines) {
        int *line = realloc(t->line, (size_t)cap * sizeof *line);
        if (!line) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d rows", t->path, cap);
        t->line = line;
    }
    t->cap = cap;
    return PF_OK;
}

static void table_release(table *t)
{
    free(t->v);
    free(t->line);
    t->v = NULL, t->line = NULL, t->n = t->cap = 0;
}

/* ------------------------------------------------------------------ CSV */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1])) s[--n] = 0;
    return s;
}

/* The line's comma-separated fields, trimmed, in place; the count (the
 * first MAX_COLUMNS are kept). */
static int split(char *line, char **field)
{
    int n = 0;
    for (char *s = line;; s++) {
        char *comma = strchr(s, ',');
        if (comma) *comma = 0;
        if (n < MAX_COLUMNS) field[n] = trim(s);
        n++;
        if (!comma) return n;
        s = comma;
    }
}

static bool skipped(const char *line)
{
    const char *s = line + strspn(line, " \t\r\n");
    return !*s || *s == '#';
}

static pf_status header(char *line, int lineno, const char *const *want, int *column, int *ncol, table *t)
{
    char *field[MAX_COLUMNS];
    *ncol = split(line, field);
    if (*ncol > MAX_COLUMNS)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %d columns (at most %d)", t->path, lineno, *ncol, MAX_COLUMNS);
    for (int k = 0; k < *ncol; k++)
        for (int j = 0; j < k; j++)
            if (field[k][0] && !strcmp(field[j], field[k]))
                return pf_fail(PF_ERR_INVALID, "%s:%d: column '%s' named twice (fields %d and %d)", t->path, lineno,
                               field[k], j + 1, k + 1);
    for (int j = 0; j < t->ncol; j++) {
        column[j] = -1;
        for (int k = 0; k < *ncol; k++)
            if (!strcmp(field[k], want[j])) column[j] = k;
        if (column[j] < 0) {
            char names[512] = "";
            for (int i = 0; i < t->ncol; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", want[i]);
            return pf_fail(PF_ERR_INVALID, "%s:%d: no column '%s' (the header must name %s)", t->path, lineno, want[j],
                           names);
        }
    }
    return PF_OK;
}

static pf_status row(char *line, int lineno, const char *const *want, const int *column, int ncol, table *t)
{
    char *field[MAX_COLUMNS];
    int n = split(line, field);
    if (n != ncol)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %d fields where the header names %d", t->path, lineno, n, ncol);
    if (t->n == MAX_ROWS) return pf_fail(PF_ERR_INVALID, "%s:%d: more than %d rows", t->path, lineno, MAX_ROWS);
    PF_TRY(grow(t, t->n + 1));
    for (int j = 0; j < t->ncol; j++) {
        const char *s = field[column[j]];
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        /* ERANGE also says that a value underflowed: a subnormal, or 0
         * below the smallest one, kept as strtod rounded it */
        bool overflow = errno == ERANGE && fabs(v) > DBL_MIN;
        if (!*s || *end || isnan(v)) return pf_fail(PF_ERR_INVALID, "%s:%d: '%s' is not a number", t->path, lineno, s);
        const char *why = overflow ? "is not a finite number" : not_finite(v);
        if (why) return pf_fail(PF_ERR_INVALID, "%s:%d: column '%s': '%s' %s", t->path, lineno, want[j], s, why);
        t->v[(size_t)t->n * (size_t)t->ncol + (size_t)j] = v;
    }
    t->line[t->n++] = lineno;
    return PF_OK;
}

static pf_status read_csv(const char *const *want, table *t)
{
    FILE *in; /* a regular file of at most 1 GiB: never a FIFO or a device (core/file.h) */
    if (pf_file_fopen(t->path, PF_FILE_TABLE, &in) != PF_OK)
        return pf_fail(PF_ERR_IO, "cannot open '%s': %s", t->path, pf_file_why(t->path));
    t->lines = true;
    char line[MAX_LINE];
    int column[MAX_COLUMNS], ncol = 0;
    bool have_header = false;
    pf_status st = PF_OK;
    for (int lineno = 1; st == PF_OK && fgets(line, sizeof line, in); lineno++) {
        char *s = line;
        if (lineno == 1 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3; /* a UTF-8 byte-order mark */
        if (!strchr(s, '\n') && !feof(in))
            st = pf_fail(PF_ERR_INVALID, "%s:%d: a line over %d characters", t->path, lineno, MAX_LINE - 2);
        else if (skipped(s))
            continue;
        else if (!have_header)
            st = header(s, lineno, want, column, &ncol, t), have_header = true;
        else
            st = row(s, lineno, want, column, ncol, t);
    }
    if (st == PF_OK && ferror(in)) st = pf_fail(PF_ERR_IO, "cannot read '%s': %s", t->path, strerror(errno));
    fclose(in);
    return st;
}

/* ------------------------------------------------------------------ HDF5 */

static pf_status read_h5(const char *const *want, table *t)
{
    for (int j = 0; j < t->ncol; j++) {
        char name[PF_PDEFILE_MAX_NAME + 2];
        snprintf(name, sizeof name, "/%s", want[j]);
        int exists;
        PF_TRY(pf_h5_exists(t->path, name, &exists));
        if (!exists) return pf_fail(PF_ERR_INVALID, "%s: no dataset '%s' (one per column at the root)", t->path, name);
        double *v;
        size_t rows, cols;
        PF_TRY(pf_h5_read_f64(t->path, name, &v, &rows, &cols));
        pf_status st = PF_OK;
        if (cols != 1 || rows > (size_t)MAX_ROWS)
            st = pf_fail(PF_ERR_INVALID, "%s: dataset '%s' is %zu x %zu, not one column", t->path, name, rows, cols);
        else if (j && rows != (size_t)t->n)
            st = pf_fail(PF_ERR_INVALID, "%s: dataset '%s' has %zu values where '/%s' has %d", t->path, name, rows,
                         want[0], t->n);
        else if (!j && (st = grow(t, (int)rows)) == PF_OK)
            t->n = (int)rows;
        for (size_t i = 0; st == PF_OK && i < rows; i++) {
            const char *why = not_finite(v[i]);
            if (isnan(v[i]))
                st = pf_fail(PF_ERR_INVALID, "%s: dataset '%s' holds a NaN at row %zu", t->path, name, i + 1);
            else if (why)
                st = pf_fail(PF_ERR_INVALID, "%s: dataset '%s' at row %zu: %g %s", t->path, name, i + 1, v[i], why);
            else
                t->v[i * (size_t)t->ncol + (size_t)j] = v[i];
        }
        free(v);
        PF_TRY(st);
    }
    return PF_OK;
}

/* ------------------------------------------------------------------ .dat */

/* The whole file, NUL-terminated (*len without the NUL). */
static pf_status slurp(const char *path, char **out, size_t *len)
{
    /* a regular file of at most 1 GiB: never a FIFO or a device (core/file.h) */
    if (pf_file_read_as(path, PF_FILE_TABLE, out, len) != PF_OK)
        return pf_fail(PF_ERR_IO, "cannot open '%s': %s", path, pf_file_why(path));
    return PF_OK;
}

/* What the .dat reader made rows of, line by line (io/pinnacle_dat.c's
 * rules): a leading byte-order mark, '%' header lines, '%' comments,
 * blanks. `ns` inputs then `nf` fields per row; a snapshot file's line
 * holds ns coordinates and K groups of nf fields (K = 0: one row of all
 * the line's values, a steady file). The rows the reader dropped (a NaN)
 * are skipped; a kept value that is not finite as a float32 is an error
 * naming the line and the column names[] (a snapshot's with its time
 * times[k]). Fills t->line for the t->n rows when the count agrees (else
 * leaves t->line NULL: the rows are then named by number). */
typedef struct dat_scan {
    const char *path;
    const char *const *names;
    int ns, nf, K;
    const double *times;
} dat_scan;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static pf_status scan_dat(const dat_scan *s, table *t)
{
    char *text;
    size_t len;
    PF_TRY(slurp(s->path, &text, &len));
    int *line = malloc((size_t)(t->n ? t->n : 1) * sizeof *line);
    double *val = malloc(MAX_COLUMNS * 64 * sizeof *val);
    char(*tok)[64] = malloc(MAX_COLUMNS * 64 * sizeof *tok);
    pf_status st = line && val && tok ? PF_OK : pf_fail(PF_ERR_NOMEM, "%s: out of memory", s->path);
    locale_t c_loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = c_loc ? uselocale(c_loc) : (locale_t)0;
    size_t pos = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    int lineno = 0, r = 0;
    bool agree = true;
    while (st == PF_OK && pos < len) {
        lineno++;
        size_t start = pos;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        pos = nl ? end + 1 : len;
        if (text[start] == '%') continue;
        int cols = 0;
        for (size_t p = start;;) {
            while (p < end && is_space(text[p])) p++;
            if (p >= end || text[p] == '%') break;
            size_t q = p;
            while (q < end && !is_space(text[q]) && text[q] != '%') q++;
            if (cols < MAX_COLUMNS * 64) {
                size_t n = q - p < 63 ? q - p : 63;
                memcpy(tok[cols], text + p, n);
                tok[cols][n] = 0;
                val[cols] = strtod(tok[cols], NULL);
            }
            cols++;
            p = q;
        }
        if (!cols) continue;
        int per_row = s->K ? s->ns + s->nf : cols, rows = s->K ? s->K : 1;
        if (cols > MAX_COLUMNS * 64 || (s->K && cols != s->ns + s->K * s->nf) || (!s->K && cols != s->nf)) {
            agree = false; /* not what the reader took: leave the lines out */
            break;
        }
        for (int k = 0; k < rows; k++) {
            /* row k of the line: the coordinates, then snapshot k's fields */
            int idx[MAX_COLUMNS];
            for (int j = 0; j < per_row; j++) idx[j] = !s->K || j < s->ns ? j : s->ns + k * s->nf + (j - s->ns);
            bool nan = false;
            for (int j = 0; j < per_row; j++) nan |= isnan((float)val[idx[j]]);
            if (nan) continue; /* dropped by the reader, as PINNacle does */
            for (int j = 0; j < per_row && st == PF_OK; j++) {
                const char *why = not_finite(val[idx[j]]);
                if (!why) continue;
                /* the snapshot's time is a column of its own, after the coordinates */
                const char *name = s->names[!s->K || j < s->ns ? j : j + 1];
                if (s->K)
                    st = pf_fail(PF_ERR_INVALID, "%s:%d: column '%s' at %s = %g: '%s' %s", s->path, lineno, name,
                                 s->names[s->ns], s->times[k], tok[idx[j]], why);
                else
                    st =
                        pf_fail(PF_ERR_INVALID, "%s:%d: column '%s': '%s' %s", s->path, lineno, name, tok[idx[j]], why);
            }
            if (r < t->n) line[r] = lineno;
            r++;
        }
    }
    if (old) uselocale(old);
    if (c_loc) freelocale(c_loc);
    free(text);
    free(val);
    free(tok);
    if (st == PF_OK && agree && r == t->n) {
        free(t->line);
        t->line = line;
    } else {
        free(line);
    }
    return st;
}

static pf_status read_dat(const char *const *want, const char *const *dat_names, int ndat, table *t)
{
    int column[MAX_COLUMNS];
    for (int j = 0; j < t->ncol; j++) {
        column[j] = -1;
        for (int k = 0; k < ndat; k++)
            if (!strcmp(dat_names[k], want[j])) column[j] = k;
        if (column[j] < 0) return pf_fail(PF_ERR_INVALID, "%s: no column is named '%s'", t->path, want[j]);
    }
    pf_dat *d;
    PF_TRY(pf_dat_read(t->path, 0, PF_DAT_REST, PF_DAT_LAYOUT_STEADY, &d));
    pf_status st = PF_OK;
    if (d->d_out != ndat)
        st = pf_fail(PF_ERR_INVALID, "%s: %d columns where %d are named", t->path, d->d_out, ndat);
    else if (d->n > (size_t)MAX_ROWS)
        st = pf_fail(PF_ERR_INVALID, "%s: %zu rows (too many)", t->path, d->n);
    else if ((st = grow(t, (int)d->n)) == PF_OK)
        t->n = (int)d->n;
    for (int i = 0; st == PF_OK && i < t->n; i++)
        for (int j = 0; j < t->ncol; j++)
            t->v[(size_t)i * (size_t)t->ncol + (size_t)j] = (double)d->outputs[(size_t)i * (size_t)ndat + column[j]];
    pf_dat_free(d);
    if (st == PF_OK) st = scan_dat(&(dat_scan){.path = t->path, .names = dat_names, .nf = ndat}, t);
    return st;
}

/* ------------------------------------------------------------- reading */

/* Every value finite as a float32: what the readers above promise, checked
 * again for a row the line scan could not place. */
static pf_status all_finite(const char *path, const pf_pdefile_table *t, const char *const *names)
{
    for (int i = 0; i < t->n; i++)
        for (int j = 0; j < t->ncol; j++) {
            double v = t->v[(size_t)i * (size_t)t->ncol + (size_t)j];
            const char *why = isnan(v) ? "is not a number" : not_finite(v);
            if (!why) continue;
            char where[1200];
            return pf_fail(PF_ERR_INVALID, "%s: column '%s': %g %s",
                           pf_pdefile_table_where(path, t, i, where, sizeof where), names[j], v, why);
        }
    return PF_OK;
}

static pf_status finish(table *t, const char *const *names, pf_status st, pf_pdefile_table *out)
{
    if (st == PF_OK && !t->n) st = pf_fail(PF_ERR_INVALID, "%s: no rows", t->path);
    if (st == PF_OK && t->lines && !t->line) st = pf_fail(PF_ERR_NOMEM, "%s: out of memory", t->path);
    *out = (pf_pdefile_table){.n = t->n, .ncol = t->ncol, .v = t->v, .line = t->line};
    if (st == PF_OK) st = all_finite(t->path, out, names);
    if (st != PF_OK) {
        table_release(t);
        memset(out, 0, sizeof *out);
    }
    return st;
}

pf_status pf_pdefile_table_read(const char *path, const char *const *want, int nwant, const char *const *dat_names,
                                int ndat, pf_pdefile_table *out)
{
    memset(out, 0, sizeof *out);
    PF_ASSERT(nwant >= 1 && nwant <= MAX_COLUMNS && ndat <= MAX_COLUMNS);
    table t = {.path = path, .ncol = nwant};
    const char *dot = strrchr(path, '.');
    pf_status st;
    if (dot && !strcmp(dot, ".csv"))
        st = read_csv(want, &t);
    else if (dot && (!strcmp(dot, ".h5") || !strcmp(dot, ".hdf5")))
        st = read_h5(want, &t);
    else if (dot && !strcmp(dot, ".dat"))
        st = read_dat(want, dat_names, ndat, &t);
    else
        st = pf_fail(PF_ERR_INVALID, "%s: a data file is .csv, .h5 or .dat", path);
    return finish(&t, want, st, out);
}

pf_status pf_pdefile_table_read_snapshots(const char *path, int d, int m, const char *const *names,
                                          pf_pdefile_table *out)
{
    memset(out, 0, sizeof *out);
    PF_ASSERT(d >= 1 && m >= 1 && d + m <= MAX_COLUMNS);
    table t = {.path = path, .ncol = d + m};
    pf_dat *dat = NULL;
    pf_status st = pf_dat_read(path, d, m, PF_DAT_LAYOUT_SNAPSHOTS, &dat);
    if (st == PF_OK && dat->n > (size_t)MAX_ROWS) st = pf_fail(PF_ERR_INVALID, "%s: too many rows", path);
    if (st == PF_OK && (st = grow(&t, (int)dat->n)) == PF_OK) t.n = (int)dat->n;
    for (size_t i = 0; st == PF_OK && i < dat->n; i++)
        for (int j = 0; j < d + m; j++)
            t.v[i * (size_t)(d + m) + (size_t)j] = j < d ? (double)dat->inputs[i * (size_t)d + (size_t)j]
                                                         : (double)dat->outputs[i * (size_t)m + (size_t)(j - d)];
    if (st == PF_OK)
        st = scan_dat(
            &(dat_scan){.path = path, .names = names, .ns = d - 1, .nf = m, .K = dat->n_times, .times = dat->times},
            &t);
    pf_dat_free(dat);
    return finish(&t, names, st, out);
}

/* --------------------------------------------------------------- points */

double pf_pdefile_domain_tol(const pf_pdefile *f)
{
    double s = 0;
    for (int i = 0; i < f->inputs.n && i < PF_PDE_MAX_IN; i++)
        s = fmax(s, fmax(f->hi[i] - f->lo[i], fmax(fabs(f->lo[i]), fabs(f->hi[i]))));
    return PF_PDEFILE_DOMAIN_TOL * s;
}

/* "x = 0.5, t = 1" */
static void point_str(const double *x, int d, const char *const *names, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int j = 0; j < d && n < cap; j++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s = %.7g", j ? ", " : "", names[j], x[j]);
}

typedef struct key {
    const double *row;
    int d, i;
} key;

static int by_point(const void *pa, const void *pb)
{
    const key *a = pa, *b = pb;
    for (int j = 0; j < a->d; j++)
        if (a->row[j] != b->row[j]) return a->row[j] < b->row[j] ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

pf_status pf_pdefile_table_check_points(const char *path, const pf_pdefile_table *t, int d, const char *const *names,
                                        const struct pf_geom *g, double tol)
{
    PF_ASSERT(d >= 1 && d <= t->ncol && d <= PF_GEOM_MAX_DIM);
    char where[1200], pt[512];
    for (int i = 0; g && i < t->n; i++) {
        const double *x = t->v + (size_t)i * (size_t)t->ncol;
        double s = pf_geom_sdf(g, x);
        if (s <= tol) continue;
        point_str(x, d, names, pt, sizeof pt);
        return pf_fail(PF_ERR_INVALID,
                       "%s: the point %s lies outside the domain (by %.3g; points on the boundary may lie "
                       "outside by %.3g)",
                       pf_pdefile_table_where(path, t, i, where, sizeof where), pt, s, tol);
    }
    key *k = malloc((size_t)t->n * sizeof *k);
    if (!k) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d rows", path, t->n);
    for (int i = 0; i < t->n; i++) k[i] = (key){t->v + (size_t)i * (size_t)t->ncol, d, i};
    qsort(k, (size_t)t->n, sizeof *k, by_point);
    pf_status st = PF_OK;
    for (int i = 1; i < t->n && st == PF_OK; i++) {
        const key *a = &k[i - 1], *b = &k[i];
        if (by_point(&(key){a->row, d, 0}, &(key){b->row, d, 0})) continue; /* another point */
        for (int j = d; j < t->ncol; j++) {
            if (a->row[j] == b->row[j]) continue;
            char first[32];
            if (t->line)
                snprintf(first, sizeof first, "line %d", t->line[a->i]);
            else
                snprintf(first, sizeof first, "row %d", a->i + 1);
            point_str(b->row, d, names, pt, sizeof pt);
            st = pf_fail(
                PF_ERR_INVALID, "%s: the point %s is also on %s, with another value (%s = %.9g there, %.9g here)",
                pf_pdefile_table_where(path, t, b->i, where, sizeof where), pt, first, names[j], a->row[j], b->row[j]);
            break;
        }
    }
    free(k);
    return st;
}
