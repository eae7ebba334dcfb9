/*
 * table.h — a small table model rendered as Markdown and LaTeX (booktabs).
 *
 *     pf_table *t = pf_table_alloc("Main results", 3, (const char *[]){"PDE", "A", "B"});
 *     pf_table_row(t, false);
 *     pf_table_cell(t, false, "%s", "burgers_1d");
 *     pf_table_cell(t, true, "%.2E ± %.2E", mean, std);   // bold: the best
 *     pf_table_cell(t, false, "--");
 *     pf_table_row(t, true);                              // a rule above this row
 *     ...
 *     pf_table_note(t, "Friedman chi2_F = %.3f", chi2);
 *     char *md = pf_table_markdown(t), *tex = pf_table_latex(t);
 *
 * Cell and note text is plain UTF-8; the LaTeX renderer escapes TeX's
 * special characters and writes ± × → ≤ ≥ as math ($\pm$ ...). The first
 * column is left-aligned and the others right-aligned unless
 * pf_table_align says otherwise ("llrr": one letter per column). A row with fewer cells
 * is padded with empty ones. Out of memory: the functions that return
 * pointers return NULL; the others do nothing (the renderers then fail).
 */
#ifndef PF_STATS_TABLE_H
#define PF_STATS_TABLE_H

#include <stdbool.h>

typedef struct pf_table pf_table;

pf_table *pf_table_alloc(const char *title, int ncols, const char *const *head);
void pf_table_row(pf_table *t, bool rule_above);
void pf_table_cell(pf_table *t, bool bold, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void pf_table_note(pf_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pf_table_align(pf_table *t, const char *lr);

/* Rendered text (malloc'ed), or NULL when out of memory. */
char *pf_table_markdown(const pf_table *t);
char *pf_table_latex(const pf_table *t);

void pf_table_free(pf_table *t);

#endif
