#include "stats/table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    char **cell;
    bool *bold;
    int n;
    bool rule_above;
} row;

struct pf_table {
    char *title;
    int ncols;
    char **head;
    row *rows;
    int nrows, cap;
    char **notes;
    int nnotes;
    char *align; /* 'l' or 'r' per column */
    bool failed;
};

pf_table *pf_table_alloc(const char *title, int ncols, const char *const *head)
{
    pf_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->title = strdup(title);
    t->ncols = ncols;
    t->head = calloc((size_t)ncols, sizeof *t->head);
    t->align = malloc((size_t)ncols + 1);
    if (!t->title || !t->head || !t->align) {
        pf_table_free(t);
        return NULL;
    }
    for (int j = 0; j < ncols; j++) t->failed |= !(t->head[j] = strdup(head[j]));
    for (int j = 0; j < ncols; j++) t->align[j] = j ? 'r' : 'l';
    t->align[ncols] = 0;
    return t;
}

void pf_table_align(pf_table *t, const char *lr)
{
    for (int j = 0; j < t->ncols && lr[j]; j++) t->align[j] = lr[j] == 'l' ? 'l' : 'r';
}

void pf_table_row(pf_table *t, bool rule_above)
{
    if (t->nrows == t->cap) {
        int c = t->cap ? 2 * t->cap : 16;
        row *r = realloc(t->rows, (size_t)c * sizeof *r);
        if (!r) {
            t->failed = true;
            return;
        }
        t->rows = r;
        t->cap = c;
    }
    row *r = &t->rows[t->nrows];
    r->cell = calloc((size_t)t->ncols, sizeof *r->cell);
    r->bold = calloc((size_t)t->ncols, sizeof *r->bold);
    r->n = 0;
    r->rule_above = rule_above;
    if (!r->cell || !r->bold) {
        free(r->cell), free(r->bold);
        t->failed = true;
        return;
    }
    t->nrows++;
}

static char *vformat(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

void pf_table_cell(pf_table *t, bool bold, const char *fmt, ...)
{
    if (t->nrows == 0 || t->rows[t->nrows - 1].n >= t->ncols) {
        t->failed = true; /* a cell outside any row, or one too many: a caller bug the renderers report */
        return;
    }
    row *r = &t->rows[t->nrows - 1];
    va_list ap;
    va_start(ap, fmt);
    r->cell[r->n] = vformat(fmt, ap);
    va_end(ap);
    t->failed |= !r->cell[r->n];
    r->bold[r->n++] = bold;
}

void pf_table_note(pf_table *t, const char *fmt, ...)
{
    char **n = realloc(t->notes, (size_t)(t->nnotes + 1) * sizeof *n);
    if (!n) {
        t->failed = true;
        return;
    }
    t->notes = n;
    va_list ap;
    va_start(ap, fmt);
    n[t->nnotes] = vformat(fmt, ap);
    va_end(ap);
    t->failed |= !n[t->nnotes];
    t->nnotes += n[t->nnotes] != NULL;
}

static const char *cell(const row *r, int j) { return j < r->n && r->cell[j] ? r->cell[j] : ""; }

/* Close the stream, then read *buf (open_memstream sets it at the close). */
static char *finish(FILE *f, char **buf, bool failed)
{
    if (fclose(f) != 0 || failed) {
        free(*buf);
        return NULL;
    }
    return *buf;
}

char *pf_table_markdown(const pf_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "### %s\n\n|", t->title);
    for (int j = 0; j < t->ncols; j++) fprintf(f, " %s |", t->head[j]);
    fputs("\n|", f);
    for (int j = 0; j < t->ncols; j++) fputs(t->align[j] == 'l' ? " :--- |" : " ---: |", f);
    fputc('\n', f);
    for (int i = 0; i < t->nrows; i++) {
        fputc('|', f);
        for (int j = 0; j < t->ncols; j++) {
            const char *c = cell(&t->rows[i], j);
            bool b = j < t->rows[i].n && t->rows[i].bold[j] && *c;
            fprintf(f, " %s%s%s |", b ? "**" : "", c, b ? "**" : "");
        }
        fputc('\n', f);
    }
    if (t->nnotes) fputc('\n', f);
    for (int k = 0; k < t->nnotes; k++) fprintf(f, "%s\n\n", t->notes[k]);
    return finish(f, &buf, t->failed);
}

/* TeX-escaped text: specials escaped, the UTF-8 symbols we use as math. */
static void tex(FILE *f, const char *s)
{
    static const struct {
        const char *from, *to;
    } map[] = {{"±", "$\\pm$"}, {"×", "$\\times$"}, {"→", "$\\rightarrow$"}, {"≤", "$\\leq$"}, {"≥", "$\\geq$"},
               {"χ²", "$\\chi^2$"}, {"\\", "\\textbackslash{}"}, {"_", "\\_"}, {"%", "\\%"}, {"&", "\\&"},
               {"#", "\\#"}, {"$", "\\$"}, {"{", "\\{"}, {"}", "\\}"}, {"~", "\\textasciitilde{}"},
               {"^", "\\textasciicircum{}"}};
    while (*s) {
        size_t k = 0, n = sizeof map / sizeof *map;
        for (; k < n; k++)
            if (!strncmp(s, map[k].from, strlen(map[k].from))) break;
        if (k < n) {
            fputs(map[k].to, f);
            s += strlen(map[k].from);
        } else {
            fputc(*s++, f);
        }
    }
}

char *pf_table_latex(const pf_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fputs("% needs \\usepackage{booktabs}\n\\begin{table}[t]\n\\centering\n\\caption{", f);
    tex(f, t->title);
    fprintf(f, "}\n\\begin{tabular}{@{}%s", t->align);
    fputs("@{}}\n\\toprule\n", f);
    for (int j = 0; j < t->ncols; j++) {
        if (j) fputs(" & ", f);
        tex(f, t->head[j]);
    }
    fputs(" \\\\\n\\midrule\n", f);
    for (int i = 0; i < t->nrows; i++) {
        if (t->rows[i].rule_above && i) fputs("\\midrule\n", f);
        for (int j = 0; j < t->ncols; j++) {
            const char *c = cell(&t->rows[i], j);
            bool b = j < t->rows[i].n && t->rows[i].bold[j] && *c;
            if (j) fputs(" & ", f);
            if (b) fputs("\\textbf{", f);
            tex(f, c);
            if (b) fputc('}', f);
        }
        fputs(" \\\\\n", f);
    }
    fputs("\\bottomrule\n\\end{tabular}\n", f);
    if (t->nnotes) fputs("\n\\vspace{2pt}\n{\\scriptsize\n", f);
    for (int k = 0; k < t->nnotes; k++) {
        tex(f, t->notes[k]);
        fputs(k + 1 < t->nnotes ? "\\\\\n" : "\n", f);
    }
    if (t->nnotes) fputs("}\n", f);
    fputs("\\end{table}\n", f);
    return finish(f, &buf, t->failed);
}

void pf_table_free(pf_table *t)
{
    if (!t) return;
    for (int i = 0; i < t->nrows; i++) {
        for (int j = 0; j < t->rows[i].n; j++) free(t->rows[i].cell[j]);
        free(t->rows[i].cell), free(t->rows[i].bold);
    }
    for (int j = 0; t->head && j < t->ncols; j++) free(t->head[j]);
    for (int k = 0; k < t->nnotes; k++) free(t->notes[k]);
    free(t->rows), free(t->head), free(t->notes), free(t->title), free(t->align), free(t);
}
