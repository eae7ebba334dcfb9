/* table.c — named columns from .csv, .h5 and .dat files (table.h). */
#include "pdefile/table.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5.h"
#include "io/pinnacle_dat.h"

#define MAX_COLUMNS 64
#define MAX_LINE 4096

pf_status pf_pdefile_data_path(const pf_pdefile *f, const char *file, char *out, size_t cap)
{
    const char *slash = strrchr(f->path, '/');
    int dir = file[0] == '/' || !slash ? 0 : (int)(slash - f->path + 1);
    int n = snprintf(out, cap, "%.*s%s", dir, f->path, file);
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "%s: the path of '%s' is too long", f->path, file);
    return PF_OK;
}

/* The rows being read: n x nwant values. */
typedef struct table {
    const char *path;
    int nwant, n, cap;
    double *v;
} table;

static pf_status grow(table *t, int rows)
{
    if (rows <= t->cap) return PF_OK;
    int cap = t->cap ? t->cap : 256;
    while (cap < rows) cap = cap > (1 << 29) ? rows : 2 * cap;
    double *v = realloc(t->v, (size_t)cap * (size_t)t->nwant * sizeof *v);
    if (!v) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d rows", t->path, cap);
    t->v = v, t->cap = cap;
    return PF_OK;
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
    for (int j = 0; j < t->nwant; j++) {
        column[j] = -1;
        for (int k = 0; k < *ncol; k++)
            if (!strcmp(field[k], want[j])) column[j] = k;
        if (column[j] < 0) {
            char names[512] = "";
            for (int i = 0; i < t->nwant; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", want[i]);
            return pf_fail(PF_ERR_INVALID, "%s:%d: no column '%s' (the header must name %s)", t->path, lineno, want[j],
                           names);
        }
    }
    return PF_OK;
}

static pf_status row(char *line, int lineno, const int *column, int ncol, table *t)
{
    char *field[MAX_COLUMNS];
    int n = split(line, field);
    if (n != ncol)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %d fields where the header names %d", t->path, lineno, n, ncol);
    PF_TRY(grow(t, t->n + 1));
    for (int j = 0; j < t->nwant; j++) {
        const char *s = field[column[j]];
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (!*s || *end || errno == ERANGE || isnan(v))
            return pf_fail(PF_ERR_INVALID, "%s:%d: '%s' is not a number", t->path, lineno, s);
        t->v[(size_t)t->n * (size_t)t->nwant + (size_t)j] = v;
    }
    t->n++;
    return PF_OK;
}

static pf_status read_csv(const char *const *want, table *t)
{
    FILE *in = fopen(t->path, "r");
    if (!in) return pf_fail(PF_ERR_IO, "cannot open '%s': %s", t->path, strerror(errno));
    char line[MAX_LINE];
    int column[MAX_COLUMNS], ncol = 0;
    bool have_header = false;
    pf_status st = PF_OK;
    for (int lineno = 1; st == PF_OK && fgets(line, sizeof line, in); lineno++) {
        if (!strchr(line, '\n') && !feof(in))
            st = pf_fail(PF_ERR_INVALID, "%s:%d: a line over %d characters", t->path, lineno, MAX_LINE - 2);
        else if (skipped(line))
            continue;
        else if (!have_header)
            st = header(line, lineno, want, column, &ncol, t), have_header = true;
        else
            st = row(line, lineno, column, ncol, t);
    }
    if (st == PF_OK && ferror(in)) st = pf_fail(PF_ERR_IO, "cannot read '%s': %s", t->path, strerror(errno));
    fclose(in);
    return st;
}

/* ------------------------------------------------------------------ HDF5 */

static pf_status read_h5(const char *const *want, table *t)
{
    for (int j = 0; j < t->nwant; j++) {
        char name[PF_PDEFILE_MAX_NAME + 2];
        snprintf(name, sizeof name, "/%s", want[j]);
        int exists;
        PF_TRY(pf_h5_exists(t->path, name, &exists));
        if (!exists) return pf_fail(PF_ERR_INVALID, "%s: no dataset '%s' (one per column at the root)", t->path, name);
        double *v;
        size_t rows, cols;
        PF_TRY(pf_h5_read_f64(t->path, name, &v, &rows, &cols));
        pf_status st = PF_OK;
        if (cols != 1 || rows > (size_t)1 << 30)
            st = pf_fail(PF_ERR_INVALID, "%s: dataset '%s' is %zu x %zu, not one column", t->path, name, rows, cols);
        else if (j && rows != (size_t)t->n)
            st = pf_fail(PF_ERR_INVALID, "%s: dataset '%s' has %zu values where '/%s' has %d", t->path, name, rows,
                         want[0], t->n);
        else if (!j && (st = grow(t, (int)rows)) == PF_OK)
            t->n = (int)rows;
        for (size_t i = 0; st == PF_OK && i < rows; i++) {
            if (isnan(v[i])) st = pf_fail(PF_ERR_INVALID, "%s: dataset '%s' holds a NaN at %zu", t->path, name, i);
            t->v[i * (size_t)t->nwant + (size_t)j] = v[i];
        }
        free(v);
        PF_TRY(st);
    }
    return PF_OK;
}

/* ------------------------------------------------------------------ .dat */

static pf_status read_dat(const char *const *want, const char *const *dat_names, int ndat, table *t)
{
    int column[MAX_COLUMNS];
    for (int j = 0; j < t->nwant; j++) {
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
    else if (d->n > (size_t)1 << 30)
        st = pf_fail(PF_ERR_INVALID, "%s: %zu rows (too many)", t->path, d->n);
    else if ((st = grow(t, (int)d->n)) == PF_OK)
        t->n = (int)d->n;
    for (int i = 0; st == PF_OK && i < t->n; i++)
        for (int j = 0; j < t->nwant; j++)
            t->v[(size_t)i * (size_t)t->nwant + (size_t)j] = (double)d->outputs[(size_t)i * (size_t)ndat + column[j]];
    pf_dat_free(d);
    return st;
}

pf_status pf_pdefile_table_read(const char *path, const char *const *want, int nwant, const char *const *dat_names,
                                int ndat, double **rows, int *n)
{
    *rows = NULL, *n = 0;
    PF_ASSERT(nwant >= 1 && nwant <= MAX_COLUMNS && ndat <= MAX_COLUMNS);
    table t = {.path = path, .nwant = nwant};
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
    if (st == PF_OK && !t.n) st = pf_fail(PF_ERR_INVALID, "%s: no rows", path);
    if (st != PF_OK) {
        free(t.v);
        return st;
    }
    *rows = t.v, *n = t.n;
    return PF_OK;
}
