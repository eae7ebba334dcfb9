/* report_backbones.c — the cross-backbone tables of the report (report.h;
 * the statistics: backbones.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/backbones.h"
#include "stats/compare.h"
#include "stats/report_internal.h"

/* The backbones of c's finished runs (malloc'ed, pointers into c); NULL
 * when out of memory. */
static const char **backbones(const pf_collection *c, int *n)
{
    const char **bb = malloc(((size_t)c->n + 1) * sizeof *bb);
    *n = bb ? pf_collection_backbones(c, bb, c->n) : 0;
    return bb;
}

static void join_names(char *buf, size_t cap, const char **v, int n)
{
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", v[i]);
    }
}

pf_status pf_report_main_backbone(const pf_collection *c, const pf_report_options *o, const char **out)
{
    int n;
    const char **bb = backbones(c, &n);
    if (!bb) return pf_fail(PF_ERR_NOMEM, "out of memory");
    *out = n ? bb[0] : NULL;
    bool found = false;
    for (int i = 0; i < n; i++) {
        if (!strcmp(bb[i], "offline")) *out = bb[i];
        found |= o->backbone && !strcmp(bb[i], o->backbone);
    }
    pf_status st = PF_OK;
    if (o->backbone && found) {
        *out = o->backbone;
    } else if (o->backbone) {
        char list[1024];
        join_names(list, sizeof list, bb, n);
        st = pf_fail(PF_ERR_INVALID, "no finished run has the backbone '%s' (the runs' backbones: %s)", o->backbone,
                     n ? list : "none");
    }
    free(bb);
    return st;
}

void pf_report_backbone_note(pf_table *t, const pf_collection *c)
{
    int n;
    const char **bb = backbones(c, &n);
    if (bb && n >= 2 && c->backbone) {
        char list[1024];
        join_names(list, sizeof list, bb, n);
        pf_table_note(t, "LLM-driven methods: their runs with the backbone %s; the methods that ask no LLM are shared "
                         "by every backbone (%d backbones: %s; table1@<backbone> has each one's Table 1).",
                      c->backbone, n, list);
    }
    free(bb);
}

/* A per-backbone column's heading: a prefix of a few words and a backbone
 * (a mixture's name is the longest), never cut, so no two columns or
 * files share a name. */
typedef char heading_t[PF_RUN_BACKBONE_CAP + 32];

/* ------------------------------------------------------------ tables */

/* Close the CSV stream, write the table and free open_table's headings. */
static pf_status finish(const pf_report_options *o, const char *name, pf_table *t, FILE *f, char **buf,
                        heading_t *store, int *written)
{
    pf_status st = pf_report_put_table(o, name, t, pf_report_memtext(f, buf), written);
    free(store);
    return st;
}

/* A table with the columns first[0 .. fixed - 1], then one per backbone
 * (prefix + its name), and a memory stream for its CSV; *store holds the
 * headings (free it after the table). */
static pf_status open_table(const json_t *bbs, int fixed, const char *const *first, const char *prefix,
                            const char *title, heading_t **store, pf_table **t, FILE **f, char **buf, size_t *len)
{
    size_t nb = json_array_size(bbs);
    const char **h = malloc((fixed + nb) * sizeof *h);
    *store = malloc((nb ? nb : 1) * sizeof **store);
    pf_status st = h && *store ? PF_OK : pf_fail(PF_ERR_NOMEM, "out of memory");
    for (int i = 0; st == PF_OK && i < fixed; i++) h[i] = first[i];
    for (size_t b = 0; st == PF_OK && b < nb; b++) {
        snprintf((*store)[b], sizeof (*store)[b], "%s%s", prefix, json_string_value(json_array_get(bbs, b)));
        h[fixed + b] = (*store)[b];
    }
    if (st == PF_OK) st = pf_report_start(t, title, fixed + (int)nb, h, "l", f, buf, len);
    free(h);
    if (st != PF_OK) {
        free(*store);
        *store = NULL;
    }
    return st;
}

static void num_cell(pf_table *t, const char *fmt, const json_t *v)
{
    if (json_is_number(v)) pf_table_cell(t, false, fmt, json_number_value(v));
    else pf_table_cell(t, false, "--");
}

/* "a, b" from a JSON array of strings into buf. */
static const char *list_of(const json_t *a, char *buf, size_t cap)
{
    size_t i;
    json_t *s;
    buf[0] = 0;
    json_array_foreach(a, i, s) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", json_string_value(s));
    }
    return buf;
}

static pf_status friedman_table(const pf_report_options *o, const json_t *x, int *written)
{
    json_t *bbs = json_object_get(x, "backbones"), *fr = json_object_get(x, "friedman");
    size_t nb = json_array_size(bbs);
    static const char *const first[] = {"Method", "PDEs", "χ²_F", "p"};
    heading_t *store;
    pf_table *t;
    FILE *f;
    char *buf;
    size_t len;
    PF_TRY(open_table(bbs, 4, first, "Mean rank ", "Does the backbone matter? Friedman test across backbones per method",
                      &store, &t, &f, &buf, &len));
    fprintf(f, "method,pdes,chi2,df,p,backbone,avg_rank\n");
    const char *method;
    json_t *e;
    char left[2048] = "", one[1024];
    json_object_foreach(fr, method, e) {
        pf_table_row(t, false);
        pf_table_cell(t, false, "%s", pf_report_label(method));
        num_cell(t, "%.0f", json_object_get(e, "pdes"));
        num_cell(t, "%.3f", json_object_get(e, "chi2"));
        num_cell(t, "%.3g", json_object_get(e, "p"));
        for (size_t b = 0; b < nb; b++) {
            const char *name = json_string_value(json_array_get(bbs, b));
            json_t *r = json_object_get(json_object_get(e, "avg_ranks"), name);
            num_cell(t, "%.2f", r);
            if (json_is_number(r))
                fprintf(f, "%s,%lld,%.9g,%lld,%.9g,%s,%.9g\n", method, (long long)json_integer_value(json_object_get(e, "pdes")),
                        json_number_value(json_object_get(e, "chi2")), (long long)json_integer_value(json_object_get(e, "df")),
                        json_number_value(json_object_get(e, "p")), name, json_number_value(r));
        }
        if (json_object_get(e, "why"))
            pf_table_note(t, "%s: not computed: %s.", pf_report_label(method), json_string_value(json_object_get(e, "why")));
        if (json_array_size(json_object_get(e, "left_out"))) {
            size_t n = strlen(left);
            snprintf(left + n, sizeof left - n, "%s%s: %s", n ? "; " : "", pf_report_label(method),
                     list_of(json_object_get(e, "left_out"), one, sizeof one));
        }
    }
    pf_table_note(t, "Per LLM-driven method: blocks = the PDEs where every backbone has finished runs of the method, "
                     "treatments = the backbones, values = the mean final MSE over the method's runs (rank 1 = the "
                     "lowest); tie-corrected χ²_F with %zu degree(s) of freedom (backbones - 1). A small p: the backbone "
                     "matters.",
                  nb - 1);
    pf_table_note(t, "Left out (not every backbone has runs there): %s.", *left ? left : "none");
    return finish(o, "backbones_friedman", t, f, &buf, store, written);
}

static pf_status kendall_table(const pf_report_options *o, const json_t *x, int *written)
{
    json_t *bbs = json_object_get(x, "backbones"), *k = json_object_get(x, "kendall");
    size_t nb = json_array_size(bbs);
    static const char *const first[] = {"Method"};
    heading_t *store;
    pf_table *t;
    FILE *f;
    char *buf;
    size_t len;
    PF_TRY(open_table(bbs, 1, first, "Mean rank ", "Do the backbones rank the methods alike? Kendall's W", &store, &t,
                      &f, &buf, &len));
    fprintf(f, "method,backbone,avg_rank\n");
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(k, "methods"), i, m) {
        const char *method = json_string_value(m);
        pf_table_row(t, false);
        pf_table_cell(t, false, "%s", pf_report_label(method));
        for (size_t b = 0; b < nb; b++) {
            const char *name = json_string_value(json_array_get(bbs, b));
            json_t *r = json_object_get(json_object_get(json_object_get(k, "avg_ranks"), name), method);
            num_cell(t, "%.2f", r);
            fprintf(f, "%s,%s,%.9g\n", method, name, json_number_value(r));
        }
    }
    char pdes[2048], left[2048], mleft[1024];
    list_of(json_object_get(k, "left_out"), left, sizeof left);
    list_of(json_object_get(k, "methods_left_out"), mleft, sizeof mleft);
    if (json_object_get(k, "why"))
        pf_table_note(t, "Kendall's W: not computed: %s.", json_string_value(json_object_get(k, "why")));
    else
        pf_table_note(t, "Kendall's W = %.3f (tie-corrected), χ² = %.3f with %lld degrees of freedom, p = %.3g, over "
                         "%zu backbones and the PDEs %s.",
                      json_number_value(json_object_get(k, "w")), json_number_value(json_object_get(k, "chi2")),
                      (long long)json_integer_value(json_object_get(k, "df")), json_number_value(json_object_get(k, "p")),
                      nb, list_of(json_object_get(k, "pdes"), pdes, sizeof pdes));
    pf_table_note(t, "Each backbone's Table 1 ranks the methods on every PDE (rank 1 = the lowest mean MSE, ties "
                     "averaged); a method's mean rank is the mean over the PDEs where every backbone has every "
                     "method; W compares these mean ranks across backbones (1: the same order everywhere, 0: none).");
    pf_table_note(t, "Left out: PDEs %s; methods %s.", *left ? left : "none", *mleft ? mleft : "none");
    return finish(o, "backbones_kendall", t, f, &buf, store, written);
}

static pf_status wtl_table(const pf_report_options *o, const json_t *x, int *written)
{
    json_t *bbs = json_object_get(x, "backbones"), *wtl = json_object_get(x, "wtl");
    size_t nb = json_array_size(bbs);
    static const char *const first[] = {"Against"};
    heading_t *store;
    char title[256];
    pf_table *t;
    FILE *f;
    char *buf;
    size_t len;
    snprintf(title, sizeof title, "%s's wins / ties / losses per backbone", pf_report_label(o->reference));
    PF_TRY(open_table(bbs, 1, first, "", title, &store, &t, &f, &buf, &len));
    fprintf(f, "backbone,method,wins,ties,losses,untested\n");
    /* the rows: every method any backbone compares with, in the first backbone's order, then the others' */
    json_t *rows = json_array();
    for (size_t b = 0; b < nb; b++) {
        const char *method;
        json_t *e;
        json_object_foreach(json_object_get(wtl, json_string_value(json_array_get(bbs, b))), method, e) {
            bool seen = false;
            for (size_t r = 0; r < json_array_size(rows) && !seen; r++)
                seen = !strcmp(json_string_value(json_array_get(rows, r)), method);
            if (!seen) json_array_append_new(rows, json_string(method));
        }
    }
    bool untested = false;
    for (size_t r = 0; r < json_array_size(rows); r++) {
        const char *method = json_string_value(json_array_get(rows, r));
        pf_table_row(t, false);
        pf_table_cell(t, false, "%s", pf_report_label(method));
        for (size_t b = 0; b < nb; b++) {
            const char *name = json_string_value(json_array_get(bbs, b));
            json_t *e = json_object_get(json_object_get(wtl, name), method);
            if (!e) {
                pf_table_cell(t, false, "--");
                continue;
            }
            long long w = json_integer_value(json_object_get(e, "wins")), ti = json_integer_value(json_object_get(e, "ties")),
                      l = json_integer_value(json_object_get(e, "losses")), u = json_integer_value(json_object_get(e, "untested"));
            if (u) pf_table_cell(t, false, "%lld / %lld / %lld (%lld untested)", w, ti, l, u);
            else pf_table_cell(t, false, "%lld / %lld / %lld", w, ti, l);
            untested |= u > 0;
            fprintf(f, "%s,%s,%lld,%lld,%lld,%lld\n", name, method, w, ti, l, u);
        }
    }
    json_decref(rows);
    pf_table_note(t, "Per PDE where both have runs: Welch's t-test on log10 of the final MSEs of the runs (the "
                     "reference's with the backbone against the other method's, with the same backbone when it asks "
                     "an LLM); a tie when p >= %.2f, else a win when %s's mean log10 MSE is the lower and a loss when "
                     "it is the higher; no correction across PDEs.",
                  PF_STATS_ALPHA, pf_report_label(o->reference));
    if (untested)
        pf_table_note(t, "Untested: a side with fewer than 2 finished runs (or an MSE that is not positive) on that PDE.");
    return finish(o, "backbones_wtl", t, f, &buf, store, written);
}

/* ------------------------------------------------------------ all */

pf_status pf_report_backbones(const pf_collection *c, const pf_report_options *o, json_t *stats, int *written)
{
    int n;
    const char **bb = backbones(c, &n);
    if (!bb) return pf_fail(PF_ERR_NOMEM, "out of memory");
    pf_status st = PF_OK;
    for (int b = 0; n >= 2 && st == PF_OK && b < n; b++) {
        pf_collection one = *c;
        one.backbone = bb[b];
        char name[PF_RUN_BACKBONE_CAP + 16];
        snprintf(name, sizeof name, "table1@%s", bb[b]);
        st = pf_report_main_table(&one, o, name, stats, written);
    }
    free(bb);
    if (st != PF_OK || n < 2) return st;
    json_t *x;
    PF_TRY(pf_backbones_compare(c, o->reference, &x));
    st = friedman_table(o, x, written);
    if (st == PF_OK) st = kendall_table(o, x, written);
    if (st == PF_OK) st = wtl_table(o, x, written);
    json_object_set_new(stats, "backbones", x);
    return st;
}
