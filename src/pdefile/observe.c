/* observe.c — an observation constraint's CSV file (observe.h). */
#include "pdefile/observe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS 64
#define MAX_LINE 4096

/* F as written when absolute, else beside the .pde file. */
static pf_status resolve_path(const pf_pdefile *f, const char *file, char *out, size_t cap)
{
    const char *slash = strrchr(f->path, '/');
    int dir = file[0] == '/' || !slash ? 0 : (int)(slash - f->path + 1);
    int n = snprintf(out, cap, "%.*s%s", dir, f->path, file);
    if (n < 0 || (size_t)n >= cap) return pf_fail(PF_ERR_INVALID, "%s: the path of '%s' is too long", f->path, file);
    return PF_OK;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1])) s[--n] = 0;
    return s;
}

/* The line's comma-separated fields, trimmed, in place; the count. */
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

typedef struct table {
    const char *path;
    int column[PF_PDE_MAX_IN + 1]; /* the inputs', then the output's */
    int ncol;                      /* the header's count */
    int n, cap;
    double *row; /* n x (inputs + 1) */
} table;

static pf_status header(const pf_pdefile *f, const pf_pdefile_constraint *c, char *line, int lineno, table *t)
{
    char *field[MAX_COLUMNS];
    t->ncol = split(line, field);
    if (t->ncol > MAX_COLUMNS)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %d columns (at most %d)", t->path, lineno, t->ncol, MAX_COLUMNS);
    int want = f->inputs.n + 1;
    for (int j = 0; j < want; j++) {
        const char *name = j < f->inputs.n ? f->inputs.v[j] : f->outputs.v[c->output];
        t->column[j] = -1;
        for (int k = 0; k < t->ncol; k++)
            if (!strcmp(field[k], name)) t->column[j] = k;
        if (t->column[j] < 0)
            return pf_fail(PF_ERR_INVALID, "%s:%d: no column '%s' (the header must name the inputs and %s)", t->path,
                           lineno, name, f->outputs.v[c->output]);
    }
    return PF_OK;
}

static pf_status row(const pf_pdefile *f, char *line, int lineno, table *t)
{
    char *field[MAX_COLUMNS];
    int n = split(line, field);
    if (n != t->ncol)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %d fields where the header names %d", t->path, lineno, n, t->ncol);
    int want = f->inputs.n + 1;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        double *v = realloc(t->row, (size_t)t->cap * want * sizeof *v);
        if (!v) return pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d observations", t->path, t->cap);
        t->row = v;
    }
    for (int j = 0; j < want; j++) {
        const char *s = field[t->column[j]];
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (!*s || *end || errno == ERANGE)
            return pf_fail(PF_ERR_INVALID, "%s:%d: '%s' is not a number", t->path, lineno, s);
        t->row[(size_t)t->n * want + j] = v;
    }
    t->n++;
    return PF_OK;
}

static pf_status read_table(const pf_pdefile *f, const pf_pdefile_constraint *c, FILE *in, table *t)
{
    char line[MAX_LINE];
    bool have_header = false;
    for (int lineno = 1; fgets(line, sizeof line, in); lineno++) {
        if (!strchr(line, '\n') && !feof(in))
            return pf_fail(PF_ERR_INVALID, "%s:%d: a line over %d characters", t->path, lineno, MAX_LINE - 2);
        if (skipped(line)) continue;
        if (!have_header) {
            PF_TRY(header(f, c, line, lineno, t));
            have_header = true;
        } else {
            PF_TRY(row(f, line, lineno, t));
        }
    }
    if (ferror(in)) return pf_fail(PF_ERR_IO, "cannot read '%s': %s", t->path, strerror(errno));
    if (!t->n) return pf_fail(PF_ERR_INVALID, "%s: no observations (a header, then one row each)", t->path);
    return PF_OK;
}

pf_status pf_pdefile_read_observations(pf_pdefile *f, pf_pdefile_constraint *c)
{
    char path[2048];
    PF_TRY(resolve_path(f, c->file, path, sizeof path));
    FILE *in = fopen(path, "r");
    if (!in)
        return pf_fail(PF_ERR_IO, "%s:%d:%d: cannot open the observations '%s': %s", f->path, c->file_pos.line,
                       c->file_pos.col, path, strerror(errno));
    table t = {.path = path};
    pf_status st = read_table(f, c, in, &t);
    fclose(in);
    int d = f->inputs.n;
    if (st == PF_OK) {
        c->obs_x = pf_pdefile_arena(f, (size_t)t.n * d * sizeof *c->obs_x);
        c->obs_v = pf_pdefile_arena(f, (size_t)t.n * sizeof *c->obs_v);
        if (!c->obs_x || !c->obs_v) st = pf_fail(PF_ERR_NOMEM, "%s: out of memory for %d observations", path, t.n);
    }
    if (st == PF_OK) {
        for (int i = 0; i < t.n; i++) {
            memcpy(c->obs_x + (size_t)i * d, t.row + (size_t)i * (d + 1), (size_t)d * sizeof *c->obs_x);
            c->obs_v[i] = t.row[(size_t)i * (d + 1) + d];
        }
        c->nobs = t.n;
    }
    free(t.row);
    return st;
}
