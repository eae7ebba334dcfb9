/* labels.c — PINNsAgent's PDE labels and their cosine (labels.h). */
#include "pinnsagent/labels.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/names.h"
#include "io/asset_dir.h"
#include "pinnsagent/db.h"
#include "registry.h"

/* ------------------------------------------------------------- the scheme */

typedef struct field_def {
    const char *name;
    int width;                 /* one-hot width */
    int nlabels;               /* width, plus the boundary's two special labels */
    const char *const *labels;
} field_def;

static const char *const families[] = {"Burgers", "Poisson", "Heat", "NS", "Wave", "Chaotic", "Inverse", "Darcy"};
static const char *const types[] = {"parabolic", "elliptic", "hyperbolic", "mixed"};
static const char *const dimensions[] = {"1d", "2d", "3d", "nd", "inverse"};
static const char *const linearities[] = {"linear", "nonlinear"};
static const char *const times[] = {"time-independent", "time-dependent"};
static const char *const boundaries[] = {"dirichlet", "neumann", "robin", "periodic", "no-boundary-condition",
                                         "mixed-boundary"};
static const char *const initials[] = {"initial-condition", "no-initial-condition"};
static const char *const coefficients[] = {"constant-coefficient", "variable-coefficient", "inverse-coefficient"};
static const char *const horizons[] = {"short-time", "long-time"};
static const char *const geometries[] = {"simple-geometry", "complex-geometry"};

#define FIELD(n, arr, w) {n, w, (int)(sizeof arr / sizeof arr[0]), arr}
static const field_def fields[PF_PA_FIELD_COUNT] = {
    FIELD("family", families, 8),      FIELD("type", types, 4),         FIELD("dimension", dimensions, 5),
    FIELD("linearity", linearities, 2), FIELD("time", times, 2),        FIELD("boundary", boundaries, 4),
    FIELD("initial", initials, 2),     FIELD("coefficient", coefficients, 3), FIELD("horizon", horizons, 2),
    FIELD("geometry", geometries, 2),
};
#define BOUNDARY_NONE 4
#define BOUNDARY_MIXED 5

_Static_assert(8 + 4 + 5 + 2 + 2 + 4 + 2 + 3 + 2 + 2 == PF_PA_LABEL_DIM, "the encoding has 34 numbers");

const char *pf_pa_field_name(pf_pa_field f) { return f >= 0 && f < PF_PA_FIELD_COUNT ? fields[f].name : NULL; }

int pf_pa_field_label_count(pf_pa_field f) { return f >= 0 && f < PF_PA_FIELD_COUNT ? fields[f].nlabels : 0; }

const char *pf_pa_field_label(pf_pa_field f, int i)
{
    if (f < 0 || f >= PF_PA_FIELD_COUNT || i < 0 || i >= fields[f].nlabels) return NULL;
    return fields[f].labels[i];
}

void pf_pa_label_encode(const pf_pa_label *l, double v[PF_PA_LABEL_DIM])
{
    int at = 0;
    for (int f = 0; f < PF_PA_FIELD_COUNT; f++) {
        int w = fields[f].width, k = l->label[f];
        for (int j = 0; j < w; j++)
            v[at + j] = f == PF_PA_BOUNDARY && k == BOUNDARY_MIXED ? 1.0 : (j == k ? 1.0 : 0.0);
        at += w;
    }
}

double pf_pa_label_cosine(const pf_pa_label *a, const pf_pa_label *b)
{
    double x[PF_PA_LABEL_DIM], y[PF_PA_LABEL_DIM], xy = 0, xx = 0, yy = 0;
    pf_pa_label_encode(a, x);
    pf_pa_label_encode(b, y);
    for (int i = 0; i < PF_PA_LABEL_DIM; i++) {
        xy += x[i] * y[i];
        xx += x[i] * x[i];
        yy += y[i] * y[i];
    }
    return xx > 0 && yy > 0 ? xy / sqrt(xx * yy) : 0.0;
}

/* ------------------------------------------------------------- the set */

typedef struct entry {
    pf_pa_label l;
    char *name;   /* owned; l.name points here */
} entry;

struct pf_pa_labels {
    int n, cap;
    entry *e;
    char *files[2];   /* owned copies of the paths; l.file points here */
};

void pf_pa_labels_free(pf_pa_labels *ls)
{
    if (!ls) return;
    for (int i = 0; i < ls->n; i++) free(ls->e[i].name);
    free(ls->e);
    free(ls->files[0]);
    free(ls->files[1]);
    free(ls);
}

int pf_pa_labels_count(const pf_pa_labels *ls) { return ls->n; }

const pf_pa_label *pf_pa_labels_at(const pf_pa_labels *ls, int i)
{
    PF_ASSERT(i >= 0 && i < ls->n);
    return &ls->e[i].l;
}

const pf_pa_label *pf_pa_labels_find(const pf_pa_labels *ls, const char *name)
{
    for (int i = 0; i < ls->n; i++) {
        const pf_pa_label *l = &ls->e[i].l;
        if (!strcmp(l->name, name) || (l->pde && !strcmp(l->pde, name))) return l;
    }
    return NULL;
}

static pf_status nomem(void) { return pf_fail(PF_ERR_NOMEM, "out of memory loading PDE labels"); }

/* One data line of file `which` (0 shared, 1 ours), cut at tabs in place. */
static pf_status parse_line(pf_pa_labels *ls, int which, int line, char *text)
{
    const char *path = ls->files[which];
    char *col[PF_PA_FIELD_COUNT + 2];
    int n = 0;
    for (char *s = text;; s++) {
        if (n < PF_PA_FIELD_COUNT + 2) col[n] = s;
        n++;
        s = strchr(s, '\t');
        if (!s) break;
        *s = 0;
    }
    if (n != PF_PA_FIELD_COUNT + 1)
        return pf_fail(PF_ERR_INVALID, "%s:%d: %d tab-separated columns, not %d (name and ten labels)", path, line,
                       n, PF_PA_FIELD_COUNT + 1);
    pf_pa_label l = {.file = path, .line = line};
    for (int f = 0; f < PF_PA_FIELD_COUNT; f++)
        if (pf_name_lookup(fields[f].name, col[f + 1], fields[f].labels, fields[f].nlabels, &l.label[f]) != PF_OK)
            return pf_fail(PF_ERR_INVALID, "%s:%d: %s", path, line, pf_errmsg());
    const char *name = col[0];
    if (which == 0) {
        l.pde = pf_pa_task_pde(name);
    } else {
        const pf_pde *p;
        if (pf_pdes_lookup(name, &p) != PF_OK)
            return pf_fail(PF_ERR_INVALID, "%s:%d: '%s' is not one of our PDEs (pf-pde list)", path, line, name);
        l.pde = p->name;
    }
    const pf_pa_label *dup = pf_pa_labels_find(ls, name);
    if (!dup && l.pde) dup = pf_pa_labels_find(ls, l.pde);
    if (dup)
        return pf_fail(PF_ERR_INVALID, "%s:%d: '%s' is labelled twice (first at %s:%d)", path, line, name, dup->file,
                       dup->line);
    if (ls->n == ls->cap) {
        int cap = ls->cap ? 2 * ls->cap : 32;
        entry *g = realloc(ls->e, (size_t)cap * sizeof *g);
        if (!g) return nomem();
        ls->e = g;
        ls->cap = cap;
    }
    entry *e = &ls->e[ls->n];
    if (!(e->name = strdup(name))) return nomem();
    e->l = l;
    e->l.name = e->name;
    ls->n++;
    return PF_OK;
}

/* File `which` into ls; the shared one (0) checked against
 * PF_PA_LABELS_SHA256 first when verify. */
static pf_status load_file(pf_pa_labels *ls, int which, bool verify)
{
    const char *path = ls->files[which];
    char *text;
    size_t len;
    if (pf_file_read_as(path, PF_FILE_KNOWLEDGE, &text, &len) != PF_OK)
        return pf_fail(PF_ERR_IO, "cannot read the PDE labels '%s': %s", path, pf_file_why(path));
    pf_status st = PF_OK;
    if (verify && which == 0)
        st = pf_pa_sha256_check(path, text, len, PF_PA_LABELS_SHA256, PF_PA_LABEL_FILE,
                                "`make data` derives it again (scripts/pinnsagent-labels.py; data/pinnsagent.sha256)");
    int line = 1;
    for (char *s = text, *next; st == PF_OK && *s; s = next, line++) {
        next = strchr(s, '\n');
        if (next) *next++ = 0;
        else next = s + strlen(s);
        size_t n = strlen(s);
        while (n && (s[n - 1] == '\n' || s[n - 1] == '\r')) s[--n] = 0;
        if (n && s[0] != '#') st = parse_line(ls, which, line, s);
    }
    free(text);
    return st;
}

static pf_status load(const char *shared_tsv, const char *own_tsv, bool verify, pf_pa_labels **out)
{
    *out = NULL;
    pf_pa_labels *ls = calloc(1, sizeof *ls);
    if (!ls) return nomem();
    pf_status st = PF_OK;
    if (!(ls->files[0] = strdup(shared_tsv)) || !(ls->files[1] = strdup(own_tsv))) st = nomem();
    for (int which = 0; st == PF_OK && which < 2; which++) st = load_file(ls, which, verify);
    if (st != PF_OK) {
        pf_pa_labels_free(ls);
        return st;
    }
    *out = ls;
    return PF_OK;
}

pf_status pf_pa_labels_load(const char *shared_tsv, const char *own_tsv, pf_pa_labels **out)
{
    return load(shared_tsv, own_tsv, false, out);
}

pf_status pf_pa_labels_open(pf_pa_labels **out)
{
    *out = NULL;
    char shared[PF_PA_PATH_MAX], dir[PF_ASSET_PATH_MAX], own[PF_ASSET_PATH_MAX + 64];
    PF_TRY(pf_pa_path(PF_PA_LABEL_FILE, shared, sizeof shared));
    PF_TRY(pf_asset_dir("pinnsagent", NULL, dir, sizeof dir));
    snprintf(own, sizeof own, "%s/%s", dir, PF_PA_OWN_LABELS);
    return load(shared, own, true, out);
}
