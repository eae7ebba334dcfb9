/*
 * report_internal.h — what report.c and report_backbones.c share (the
 * report module's files; nothing else includes this).
 */
#ifndef PF_STATS_REPORT_INTERNAL_H
#define PF_STATS_REPORT_INTERNAL_H

#include <jansson.h>
#include <stdio.h>

#include "stats/report.h"
#include "stats/table.h"

/* name.md and name.tex from t, name.csv from csv (both freed), into
 * o->out_dir; counts the files in *written. */
pf_status pf_report_put_table(const pf_report_options *o, const char *name, pf_table *t, char *csv, int *written);

/* A new table with its alignment (pf_table_align) and a memory stream for
 * its CSV (*buf set at the close); PF_ERR_NOMEM. */
pf_status pf_report_start(pf_table **t, const char *title, int ncols, const char *const *head, const char *align,
                          FILE **f, char **buf, size_t *len);
/* Close the stream and return its text (NULL when that failed). */
char *pf_report_memtext(FILE *f, char **buf);

/* Table 1 (main.md's table) of c's runs, c->backbone's when set, as
 * name.{md,tex,csv} and stats[name]. */
pf_status pf_report_main_table(const pf_collection *c, const pf_report_options *o, const char *name, json_t *stats,
                               int *written);

/* The backbone of the main and ablation tables (report.h): o->backbone,
 * which must have finished runs (PF_ERR_INVALID listing the backbones
 * found), else the default; NULL when no run has a backbone. */
pf_status pf_report_main_backbone(const pf_collection *c, const pf_report_options *o, const char **out);

/* Under a Table 1 of c->backbone's runs, when c holds two or more
 * backbones: which backbone it shows and where the others are. */
void pf_report_backbone_note(pf_table *t, const pf_collection *c);

/* The cross-backbone tables (report.h) and stats["backbones"], when c
 * holds two or more backbones; nothing otherwise. */
pf_status pf_report_backbones(const pf_collection *c, const pf_report_options *o, json_t *stats, int *written);

#endif
