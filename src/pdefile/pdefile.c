/* pdefile.c — a .pde file read, parsed, checked and described. */
#include "pdefile/pdefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pdefile/check.h"
#include "pdefile/parser.h"

/* Only blanks and comments. */
static bool blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '#')
            while (i < len && s[i] != '\n') i++;
        else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    }
    return true;
}

pf_status pf_pdefile_load_text(const char *path, const char *text, size_t len, pf_pdefile **out)
{
    *out = NULL;
    if (len > PF_PDEFILE_MAX_BYTES)
        return pf_fail(PF_ERR_INVALID, "%s: %zu bytes: a .pde file may have at most %d", path, len,
                       PF_PDEFILE_MAX_BYTES);
    pf_pdefile *f = pf_pdefile_alloc(path);
    if (!f) return pf_fail(PF_ERR_NOMEM, "out of memory reading '%s'", path);
    *out = f;
    pf_status st;
    if (blank(text, len)) {
        pf_pdefile_error(f, (pf_pdefile_pos){1, 1},
                         "the file is empty (a .pde file needs at least pde, statement, inputs, outputs, domain "
                         "and an equation)");
        st = PF_ERR_INVALID;
    } else {
        st = pf_pdefile_parse(f, text, len);
        if (st == PF_OK) st = pf_pdefile_check(f);
    }
    if (st == PF_ERR_NOMEM) return pf_fail(st, "out of memory reading '%s'", path);
    if (st != PF_OK) {
        const char *e = f->errors ? f->errors : "";
        size_t n = strcspn(e, "\n");
        return pf_fail(st, "%.*s", (int)n, e);
    }
    return PF_OK;
}

pf_status pf_pdefile_load(const char *path, pf_pdefile **out)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return pf_fail(PF_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    char *buf = malloc(PF_PDEFILE_MAX_BYTES + 1);
    if (!buf) {
        fclose(fp);
        return pf_fail(PF_ERR_NOMEM, "out of memory reading '%s'", path);
    }
    /* one byte more than allowed tells a file that is too big */
    size_t len = fread(buf, 1, PF_PDEFILE_MAX_BYTES + 1, fp);
    bool err = ferror(fp);
    fclose(fp);
    pf_status st;
    if (err)
        st = pf_fail(PF_ERR_IO, "cannot read '%s'", path);
    else if (len > PF_PDEFILE_MAX_BYTES)
        st = pf_fail(PF_ERR_INVALID, "%s: larger than %d bytes: not a .pde file (they are short text)", path,
                     PF_PDEFILE_MAX_BYTES);
    else
        st = pf_pdefile_load_text(path, buf, len, out);
    free(buf);
    return st;
}

bool pf_pdefile_is_path(const char *arg)
{
    size_t n = strlen(arg);
    struct stat sb;
    return (n > 4 && !strcmp(arg + n - 4, ".pde")) || (stat(arg, &sb) == 0 && S_ISREG(sb.st_mode));
}

/* ------------------------------------------------------------- describe */

typedef struct text {
    char *p;
    size_t len, cap;
    bool nomem;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    if (t->nomem) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = 2 * t->cap + (size_t)n;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->nomem = true;
            return;
        }
        t->p = p, t->cap = cap;
    }
}

static void names(text *t, const pf_pdefile_names *l)
{
    for (int i = 0; i < l->n; i++) add(t, "%s%s", i ? ", " : "", l->v[i]);
}

static void shape(text *t, const pf_pdefile_geom *g)
{
    const double *v = g->v;
    switch (g->kind) {
    case PF_PDEFILE_DIFFERENCE:
    case PF_PDEFILE_UNION:
        add(t, "(");
        shape(t, g->a);
        add(t, g->kind == PF_PDEFILE_UNION ? " + " : " - ");
        shape(t, g->b);
        add(t, ")");
        return;
    case PF_PDEFILE_INTERVAL: add(t, "interval(%g, %g)", v[0], v[1]); return;
    case PF_PDEFILE_BOX:
        add(t, "box(");
        for (int i = 0; i < g->dim; i++) add(t, "%s[%g, %g]", i ? ", " : "", v[2 * i], v[2 * i + 1]);
        add(t, ")");
        return;
    case PF_PDEFILE_DISK: add(t, "disk(%g, %g, %g)", v[0], v[1], v[2]); break;
    case PF_PDEFILE_BALL:
        add(t, "ball([");
        for (int i = 0; i < g->dim; i++) add(t, "%s%g", i ? ", " : "", v[i]);
        add(t, "], %g)", v[g->dim]);
        break;
    case PF_PDEFILE_POLYGON:
        add(t, "polygon(");
        for (int j = 0; j < g->nargs / 2; j++) add(t, "%s(%g, %g)", j ? ", " : "", v[2 * j], v[2 * j + 1]);
        add(t, ")");
        if (g->edges.n) add(t, " edges "), names(t, &g->edges);
        return;
    }
    if (g->name) add(t, " as %s", g->name);
}

static void orders(text *t, const pf_pdefile *f, const int *ord)
{
    int n = 0;
    for (int i = 0; i < f->inputs.n; i++)
        if (ord[i]) add(t, "%s%s %d", n++ ? ", " : "", f->inputs.v[i], ord[i]);
    if (!n) add(t, "none");
}

static void expr(text *t, const pf_pdefile_expr *e)
{
    char buf[4096];
    add(t, "%s", pf_pdefile_expr_str(e, buf, sizeof buf));
}

char *pf_pdefile_describe(const pf_pdefile *f)
{
    text t = {.p = malloc(4096), .cap = 4096};
    if (!t.p) return NULL;
    add(&t, "file: %s\nname: %s\n", f->path, f->name);
    if (f->title) add(&t, "title: %s\n", f->title);
    add(&t, "inputs: ");
    for (int i = 0; i < f->inputs.n; i++)
        add(&t, "%s%s%s", i ? ", " : "", f->inputs.v[i], i == f->time_input ? " (time)" : "");
    add(&t, "\noutputs: ");
    names(&t, &f->outputs);
    add(&t, "\n");
    for (int i = 0; i < f->nparams; i++) add(&t, "parameter %s = %.15g\n", f->param_name[i], f->param[i]->value);
    add(&t, "domain: ");
    shape(&t, f->domain);
    if (f->time_input >= 0) add(&t, " x %s in [%g, %g]", f->time, f->lo[f->time_input], f->hi[f->time_input]);
    add(&t, "\nbounding box:");
    for (int i = 0; i < f->inputs.n; i++) add(&t, " %s [%g, %g]", f->inputs.v[i], f->lo[i], f->hi[i]);
    add(&t, "\nboundary parts: ");
    for (int i = 0; i < f->nall_parts; i++) add(&t, "%s%s", i ? ", " : "", f->all_parts[i]);
    add(&t, "\n");
    for (int p = 0; p < f->nparts; p++) {
        add(&t, "part %s = ", f->parts[p].name);
        names(&t, &f->parts[p].of);
        if (f->parts[p].where) add(&t, " where "), expr(&t, f->parts[p].where);
        add(&t, "\n");
    }
    for (int q = 0; q < f->neq; q++) {
        add(&t, "equation %d%s%s: ", q + 1, f->eq[q].name ? " " : "", f->eq[q].name ? f->eq[q].name : "");
        expr(&t, f->eq[q].e);
        add(&t, "\n  derivative orders: ");
        orders(&t, f, f->eq[q].orders);
        if (f->eq[q].uses_lap) add(&t, " (with a Laplacian)");
        add(&t, "\n");
    }
    add(&t, "derivative orders over all equations: ");
    orders(&t, f, f->orders);
    add(&t, "%s\n", f->laplacian_only ? " (second derivatives only as a Laplacian)" : "");
    for (int n = 0; n < f->ncon; n++) {
        const pf_pdefile_constraint *c = &f->con[n];
        add(&t, "constraint %s: %s", c->name, pf_pdefile_con_kind_name(c->kind));
        switch (c->kind) {
        case PF_PDEFILE_CON_INITIAL:
        case PF_PDEFILE_CON_INITIAL_RATE: add(&t, " on initial, "); break;
        case PF_PDEFILE_CON_PERIODIC:
            add(&t, " between %s_lo and %s_hi: %s\n", c->along, c->along, f->outputs.v[c->output]);
            continue;
        case PF_PDEFILE_CON_OBSERVE: add(&t, " of %s from %s\n", f->outputs.v[c->output], c->file); continue;
        default: add(&t, " on "), names(&t, &c->on), add(&t, ", ");
        }
        add(&t, "order %d: ", c->order);
        expr(&t, c->e);
        add(&t, " = 0\n");
    }
    for (int h = 0; h < f->nhard; h++) {
        add(&t, "hard %s satisfies ", f->hard[h].name);
        names(&t, &f->hard[h].satisfies);
        add(&t, ":");
        for (int a = 0; a < f->hard[h].n; a++) add(&t, " %s = ", f->hard[h].set[a].name), expr(&t, f->hard[h].set[a].e);
        add(&t, "\n");
    }
    const pf_pdefile_ref *r = &f->ref;
    if (r->kind == PF_PDEFILE_REF_EXACT) {
        add(&t, "reference: exact");
        for (int a = 0; a < r->nexact; a++)
            add(&t, "%s %s = ", a ? "," : "", r->exact[a].name), expr(&t, r->exact[a].e);
        if (r->grid)
            add(&t, "\n  evaluated on a grid of about %d points%s\n", r->grid,
                r->box ? " over the box of all inputs (time one more axis)" : "");
        else
            add(&t, "\n  evaluated on PINNacle's grid (docs/pdes.md 0.3)%s\n",
                r->box ? " over the box of all inputs (time one more axis)" : "");
    } else if (r->kind == PF_PDEFILE_REF_DATA) {
        add(&t, "reference: data file %s, ", r->file);
        if (r->snapshots)
            add(&t, "PINNacle snapshots");
        else if (r->columns.n)
            add(&t, "columns "), names(&t, &r->columns);
        else
            add(&t, "columns named as the inputs and outputs");
        add(&t, ", evaluated at its rows\n");
    } else {
        add(&t, "reference: none (trains without an error measure)\n");
    }
    add(&t, "tags: ");
    int nt = 0;
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (f->tag_bits & (1u << b)) add(&t, "%s%s", nt++ ? ", " : "", pf_pde_tag_name(b));
    add(&t, "%s\nstatement: %s\n", nt ? "" : "none", f->statement);
    if (t.nomem) {
        free(t.p);
        return NULL;
    }
    return t.p;
}
