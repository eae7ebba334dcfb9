/*
 * plot_internal.h — what the plot_*.c files share (not a public header).
 */
#ifndef PF_STATS_PLOT_INTERNAL_H
#define PF_STATS_PLOT_INTERNAL_H

#include <stdio.h>

#include "stats/plot.h"

/* Append an item to rep (PF_ASSERT on overflow: the count is fixed by the
 * PDE's outputs). */
void pf_plot_add(pf_plot_report *rep, const char *name, int written, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A growable text buffer (open_memstream). */
typedef struct pf_plot_text {
    FILE *f;
    char *buf;
    size_t len;
} pf_plot_text;

pf_status pf_plot_text_open(pf_plot_text *t);
/* Flush and close the stream: t->buf (owned; free it), t->len valid. */
pf_status pf_plot_text_close(pf_plot_text *t);
void pf_plot_text_free(pf_plot_text *t);

/* v with 10 significant digits, or "NaN" when not finite, or when
 * `log_axis` and v <= 0 (a gap on a log axis). A leading space. */
void pf_plot_num(FILE *f, double v, int log_axis);

/* s as a gnuplot double-quoted string ("\"" and "\\" escaped). */
void pf_plot_str(FILE *f, const char *s);

/* The shared look: grid, key box, fonts. */
void pf_plot_style(FILE *f);

#endif
