/* db.c — PINNsAgent's knowledge base CSV (db.h). */
#include "pinnsagent/db.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/names.h"
#include "core/parse.h"
#include "core/sha256.h"

/* ------------------------------------------------------------- vocabulary */

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

/* The mapping of docs/baselines.md, "PINNsAgent: knowledge base". */
static const char *const task_map[][2] = {
    {"Burgers1D", "burgers_1d"},
    {"Burgers2D", "burgers_2d"},
    {"Poisson2D_Classic", "poisson_2d_classic"},
    {"PoissonBoltzmann2D", "poisson_boltzmann_2d"},
    {"Poisson3D_ComplexGeometry", "poisson_3d_complex_geometry"},
    {"Poisson2D_ManyArea", "poisson_2d_many_area"},
    {"Heat2D_VaryingCoef", "heat_2d_varying_coefficient"},
    {"Heat2D_Multiscale", "heat_2d_multiscale"},
    {"Heat2D_ComplexGeometry", "heat_2d_complex_geometry"},
    {"NS2D_LidDriven", "navier_stokes_2d_classic"},
    {"NS2D_BackStep", "navier_stokes_2d_backstep"},
    {"Wave1D", "wave_1d"},
    {"Wave2D_Heterogeneous", "wave_2d_heterogeneous"},
    {"GrayScottEquation", "gray_scott_2d"},
    {"KuramotoSivashinskyEquation", "kuramoto_sivashinsky_1d"},
    {"PoissonND", "poisson_5d"},
    {"HeatND", "heat_5d"},
};

const char *pf_pa_task_pde(const char *task)
{
    for (int i = 0; i < COUNT(task_map); i++)
        if (!strcmp(task_map[i][0], task)) return task_map[i][1];
    return NULL;
}

/* ------------------------------------------------------------- files */

const char *pf_pa_dir(void)
{
    const char *d = getenv(PF_PA_DIR_ENV);
    return d && *d ? d : PF_PA_DIR_DEFAULT;
}

pf_status pf_pa_path(const char *name, char *buf, size_t cap)
{
    const char *dir = pf_pa_dir();
    size_t dl = strlen(dir);
    int w = snprintf(buf, cap, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", name);
    if (w < 0 || (size_t)w >= cap)
        return pf_fail(PF_ERR_INVALID, "path of PINNsAgent file '%s' in '%s' is too long", name, dir);
    const char *origin = getenv(PF_PA_DIR_ENV) && *getenv(PF_PA_DIR_ENV)
                             ? PF_PA_DIR_ENV
                             : "the default folder; " PF_PA_DIR_ENV " is not set";
    struct stat st;
    if (stat(buf, &st) != 0)
        return pf_fail(PF_ERR_IO,
                       "PINNsAgent file '%s' not found in '%s' (%s): %s; run `make data`, or set "
                       PF_PA_DIR_ENV " to the folder with PINNsAgent's files",
                       name, dir, origin, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return pf_fail(PF_ERR_IO, "PINNsAgent file '%s' in '%s' (%s) is not a regular file", name, dir, origin);
    return PF_OK;
}

pf_status pf_pa_sha256_check(const char *path, const char *text, size_t len, const char *want, const char *file,
                             const char *how)
{
    char hex[PF_SHA256_HEX];
    PF_TRY(pf_sha256_hex(text, len, hex));
    if (strcmp(hex, want))
        return pf_fail(PF_ERR_IO,
                       "'%s' is not PINNsAgent's released %s (its SHA-256 is %.16s..., the release's is %.16s...): "
                       "another version or a damaged copy; %s",
                       path, file, hex, want, how);
    return PF_OK;
}

static const char *const db_how = "use the file of qingpowuwu/PINNsAgent_Codes at commit 52fb2b1";

pf_status pf_pa_db_verify(const char *path)
{
    char *text;
    size_t len;
    PF_TRY(pf_file_read_as(path, PF_FILE_TABLE, &text, &len));
    pf_status st = pf_pa_sha256_check(path, text, len, PF_PA_DB_SHA256, PF_PA_DB_FILE, db_how);
    free(text);
    return st;
}

/* ------------------------------------------------------------- storage */

typedef struct task_store {
    char *name;
    int nrows, cap;
    int *rows;
} task_store;

struct pf_pa_db {
    int nrows, cap;
    pf_pa_row *row;
    int ntasks, tcap;
    task_store *store;
    pf_pa_task *task;   /* views of store, rebuilt when loading ends */
};

void pf_pa_db_free(pf_pa_db *db)
{
    if (!db) return;
    for (int t = 0; t < db->ntasks; t++) {
        free(db->store[t].name);
        free(db->store[t].rows);
    }
    free(db->store);
    free(db->task);
    free(db->row);
    free(db);
}

int pf_pa_db_row_count(const pf_pa_db *db) { return db->nrows; }
int pf_pa_db_task_count(const pf_pa_db *db) { return db->ntasks; }

const pf_pa_row *pf_pa_db_row(const pf_pa_db *db, int i)
{
    PF_ASSERT(i >= 0 && i < db->nrows);
    return &db->row[i];
}

const pf_pa_task *pf_pa_db_task(const pf_pa_db *db, int t)
{
    PF_ASSERT(t >= 0 && t < db->ntasks);
    return &db->task[t];
}

int pf_pa_db_find(const pf_pa_db *db, const char *name)
{
    for (int t = 0; t < db->ntasks; t++)
        if (!strcmp(db->task[t].name, name) || (db->task[t].pde && !strcmp(db->task[t].pde, name))) return t;
    return -1;
}

int pf_pa_db_best_row(const pf_pa_db *db, int t)
{
    const pf_pa_task *k = pf_pa_db_task(db, t);
    PF_ASSERT(k->nrows > 0);
    int best = k->rows[0];
    for (int i = 1; i < k->nrows; i++)
        if (db->row[k->rows[i]].mse < db->row[best].mse) best = k->rows[i];
    return best;
}

const char *pf_pa_row_format(const pf_pa_row *r, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int p = 0; p < PF_PA_PARAM_COUNT && len < cap; p++) {
        const char *sep = p ? " " : "";
        double v = r->value[p];
        int w;
        if (pf_pa_param_categorical((pf_pa_param)p))
            w = snprintf(buf + len, cap - len, "%s%s=%s", sep, pf_pa_param_name((pf_pa_param)p), pf_pa_value_name((pf_pa_param)p, (int)v));
        else if (isnan(v))
            w = snprintf(buf + len, cap - len, "%s%s=?", sep, pf_pa_param_name((pf_pa_param)p));
        else
            w = snprintf(buf + len, cap - len, "%s%s=%.15g", sep, pf_pa_param_name((pf_pa_param)p), v);
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

/* ------------------------------------------------------------- parsing */

static pf_status nomem(void) { return pf_fail(PF_ERR_NOMEM, "out of memory loading the PINNsAgent table"); }

#define MAX_FIELDS 64

/* Split line (no newline) into fields in place, RFC 4180 quoting; the
 * field count, or -1 with *why set. */
static int split_csv(char *s, char **field, const char **why)
{
    int n = 0;
    for (;;) {
        if (n == MAX_FIELDS) {
            *why = "more than 64 fields";
            return -1;
        }
        char *start = s, *out = s;
        if (*s == '"') {
            for (s++;; s++) {
                if (!*s) {
                    *why = "a quoted field is not closed on its line";
                    return -1;
                }
                if (*s == '"' && s[1] != '"') break;
                if (*s == '"') s++; /* "" is one quote */
                *out++ = *s;
            }
            s++;
            if (*s && *s != ',') {
                *why = "text after the closing quote of a field";
                return -1;
            }
        } else {
            for (; *s && *s != ','; s++, out++)
                if (*s == '"') {
                    *why = "a quote inside an unquoted field";
                    return -1;
                }
        }
        char end = *s;
        *out = 0;
        field[n++] = start;
        if (!end) return n;
        s++;
    }
}

/* The columns the loader reads; COL_TASK.. then the ten parameters. */
enum { COL_TASK, COL_RUN_TIME, COL_MSE, COL_PDE_LIST, COL_PARAM0, NCOLS = COL_PARAM0 + PF_PA_PARAM_COUNT };

static const char *col_name(int c)
{
    static const char *const fixed[COL_PARAM0] = {"task", "run_time", "mse", "pde_list"};
    return c < COL_PARAM0 ? fixed[c] : pf_pa_param_name((pf_pa_param)(c - COL_PARAM0));
}

typedef struct parse_ctx {
    const char *path;
    int line;
    int nfields;       /* the header's */
    int col[NCOLS];    /* field index of each column */
} parse_ctx;

static pf_status read_header(parse_ctx *c, char **field, int n)
{
    c->nfields = n;
    for (int k = 0; k < NCOLS; k++) c->col[k] = -1;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < NCOLS; k++) {
            if (strcmp(field[i], col_name(k))) continue;
            if (c->col[k] >= 0)
                return pf_fail(PF_ERR_INVALID, "%s:1: column '%s' appears twice in the header", c->path, col_name(k));
            c->col[k] = i;
        }
    for (int k = 0; k < NCOLS; k++)
        if (c->col[k] < 0) return pf_fail(PF_ERR_INVALID, "%s:1: the header lacks the column '%s'", c->path, col_name(k));
    return PF_OK;
}

/* A finite number >= lo (> lo when strict). */
static pf_status real_field(const parse_ctx *c, int k, const char *t, double lo, bool strict, double *v)
{
    char *end;
    errno = 0;
    double x = t[0] && !isspace((unsigned char)t[0]) ? strtod(t, &end) : NAN;
    if (isnan(x) || *end || !isfinite(x) || errno == ERANGE)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %s '%s' is not a finite number", c->path, c->line, col_name(k), t);
    if (x < lo || (strict && x == lo))
        return pf_fail(PF_ERR_INVALID, "%s:%d: %s %s must be %s %g", c->path, c->line, col_name(k), t,
                       strict ? ">" : ">=", lo);
    *v = x;
    return PF_OK;
}

static pf_status value_field(const parse_ctx *c, pf_pa_param p, const char *t, const char *pde_list, double *v)
{
    const char *name = pf_pa_param_name((pf_pa_param)p);
    if (pf_pa_param_categorical(p)) {
        int n = pf_pa_value_count(p), i;
        const char *names[16];
        for (int k = 0; k < n && k < 16; k++) names[k] = pf_pa_value_name(p, k);
        if (pf_name_lookup(name, t, names, n, &i) != PF_OK)
            return pf_fail(PF_ERR_INVALID, "%s:%d: %s", c->path, c->line, pf_errmsg());
        *v = i;
        return PF_OK;
    }
    if (p == PF_PA_LR) return real_field(c, COL_PARAM0 + p, t, 0, true, v);
    bool count = p == PF_PA_DOMAIN_POINTS || p == PF_PA_BOUNDARY_POINTS || p == PF_PA_INITIAL_POINTS;
    if (count && *pde_list && !strcmp(t, pde_list)) { /* the released file's shifted column */
        *v = NAN;
        return PF_OK;
    }
    long x;
    if (pf_parse_long(t, count ? 0 : 1, PF_PA_MAX_INT, &x) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %s: %s", c->path, c->line, name, pf_errmsg());
    *v = (double)x;
    return PF_OK;
}

static pf_status add_task(pf_pa_db *db, const char *name, int *t)
{
    for (*t = 0; *t < db->ntasks; (*t)++)
        if (!strcmp(db->store[*t].name, name)) return PF_OK;
    if (db->ntasks == db->tcap) {
        int cap = db->tcap ? 2 * db->tcap : 32;
        task_store *s = realloc(db->store, (size_t)cap * sizeof *s);
        if (!s) return nomem();
        db->store = s;
        db->tcap = cap;
    }
    task_store *s = &db->store[db->ntasks];
    memset(s, 0, sizeof *s);
    if (!(s->name = strdup(name))) return nomem();
    db->ntasks++;
    return PF_OK;
}

static pf_status add_row(pf_pa_db *db, const parse_ctx *c, char **f)
{
    pf_pa_row r = {.line = c->line};
    const char *task = f[c->col[COL_TASK]];
    if (!*task) return pf_fail(PF_ERR_INVALID, "%s:%d: the task is empty", c->path, c->line);
    PF_TRY(real_field(c, COL_RUN_TIME, f[c->col[COL_RUN_TIME]], 0, false, &r.run_time));
    PF_TRY(real_field(c, COL_MSE, f[c->col[COL_MSE]], 0, false, &r.mse));
    for (int p = 0; p < PF_PA_PARAM_COUNT; p++)
        PF_TRY(value_field(c, p, f[c->col[COL_PARAM0 + p]], f[c->col[COL_PDE_LIST]], &r.value[p]));
    PF_TRY(add_task(db, task, &r.task));
    if (db->nrows == db->cap) {
        int cap = db->cap ? 2 * db->cap : 1024;
        pf_pa_row *g = realloc(db->row, (size_t)cap * sizeof *g);
        if (!g) return nomem();
        db->row = g;
        db->cap = cap;
    }
    task_store *s = &db->store[r.task];
    if (s->nrows == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        int *g = realloc(s->rows, (size_t)cap * sizeof *g);
        if (!g) return nomem();
        s->rows = g;
        s->cap = cap;
    }
    s->rows[s->nrows++] = db->nrows;
    db->row[db->nrows++] = r;
    return PF_OK;
}

static pf_status parse_line(pf_pa_db *db, parse_ctx *c, char *text)
{
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) text[--len] = 0;
    if (!len) return pf_fail(PF_ERR_INVALID, "%s:%d: empty line", c->path, c->line);
    char *field[MAX_FIELDS];
    const char *why = NULL;
    int n = split_csv(text, field, &why);
    if (n < 0) return pf_fail(PF_ERR_INVALID, "%s:%d: %s", c->path, c->line, why);
    if (c->line == 1) return read_header(c, field, n);
    if (n != c->nfields)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %d fields, the header has %d", c->path, c->line, n, c->nfields);
    return add_row(db, c, field);
}

/* The table in text (the whole file, parsed in place). */
static pf_status parse_text(const char *path, char *text, pf_pa_db **out)
{
    *out = NULL;
    pf_pa_db *db = calloc(1, sizeof *db);
    pf_status st = db ? PF_OK : nomem();
    parse_ctx c = {.path = path};
    for (char *line = text, *next; st == PF_OK && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        else next = line + strlen(line);
        c.line++;
        st = parse_line(db, &c, line);
    }
    if (st == PF_OK && c.line == 0) st = pf_fail(PF_ERR_INVALID, "%s: the file is empty (no header)", path);
    if (st == PF_OK && db->nrows == 0) st = pf_fail(PF_ERR_INVALID, "%s: a header and no rows", path);
    if (st == PF_OK && !(db->task = calloc((size_t)db->ntasks, sizeof *db->task))) st = nomem();
    for (int t = 0; st == PF_OK && t < db->ntasks; t++)
        db->task[t] = (pf_pa_task){.name = db->store[t].name,
                                   .pde = pf_pa_task_pde(db->store[t].name),
                                   .nrows = db->store[t].nrows,
                                   .rows = db->store[t].rows};
    if (st != PF_OK) {
        pf_pa_db_free(db);
        return st;
    }
    *out = db;
    return PF_OK;
}

pf_status pf_pa_db_load(const char *path, pf_pa_db **out)
{
    *out = NULL;
    char *text;
    size_t len;
    PF_TRY(pf_file_read_as(path, PF_FILE_TABLE, &text, &len));
    pf_status st = parse_text(path, text, out);
    free(text);
    return st;
}

pf_status pf_pa_db_open(pf_pa_db **out)
{
    *out = NULL;
    char path[PF_PA_PATH_MAX];
    PF_TRY(pf_pa_path(PF_PA_DB_FILE, path, sizeof path));
    /* one read: the bytes checked are the bytes parsed */
    char *text;
    size_t len;
    PF_TRY(pf_file_read_as(path, PF_FILE_TABLE, &text, &len));
    pf_status st = pf_pa_sha256_check(path, text, len, PF_PA_DB_SHA256, PF_PA_DB_FILE, db_how);
    if (st == PF_OK) st = parse_text(path, text, out);
    free(text);
    return st;
}
