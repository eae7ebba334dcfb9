/* pde_summary.c — a PDE's tags, reference status and evaluation points, as
 * `pf-pde list` and `show` print them (pde_summary.h). */
#include "geom/pde_summary.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"

/* The reference status (pde_summary.h); note holds the file's path, the
 * message of an absent file, or "". */
static const char *ref_status(const pf_pde *p, char *note, size_t cap)
{
    note[0] = 0;
    if (p->ref == PF_REF_ANALYTIC) return "analytic";
    if (p->ref == PF_REF_MISSING) return "missing";
    if (p->ref == PF_REF_TABLE) return "data";
    bool generated = p->ref == PF_REF_GENERATED;
    if (pf_data_path(p->ref_file, note, cap) == PF_OK) return generated ? "data (generated)" : "data";
    if (generated) { /* note: where pf_data_path looked (PF_REFS_DIR, as make refs writes) */
        char looked[PF_DATA_PATH_MAX];
        snprintf(looked, sizeof looked, "%s", note);
        snprintf(note, cap, "%.3900s not built: run make refs PDE=%s", looked, p->name);
    } else
        snprintf(note, cap, "%s", pf_errmsg());
    return "data-missing";
}

void pf_pde_summarize(const pf_pde *p, pf_pde_summary *s)
{
    s->pde = p;
    s->ntags = 0;
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (p->tags & (1u << b)) s->tags[s->ntags++] = pf_pde_tag_name(b);
    s->ref = ref_status(p, s->ref_note, sizeof s->ref_note);
    pf_reference r;
    s->eval_points = pf_pde_reference(p, &r) == PF_OK ? r.n : -1;
    pf_reference_release(&r);
}

#define COLUMNS "%-28s %-24s %-52s %7s  "

void pf_pde_summary_print_header(FILE *out)
{
    fprintf(out, COLUMNS "%s\n", "name", "inputs -> outputs", "tags", "eval", "reference");
}

void pf_pde_summary_print_line(FILE *out, const pf_pde_summary *s)
{
    const pf_pde *p = s->pde;
    char in[128], outs[64], tags[256], io[200], ne[16] = "-";
    pf_name_join_sep(in, sizeof in, p->inputs, p->d_in, ",");
    pf_name_join_sep(outs, sizeof outs, p->outputs, p->d_out, ",");
    pf_name_join_sep(tags, sizeof tags, s->tags, s->ntags, ",");
    snprintf(io, sizeof io, "%s -> %s", in, outs);
    if (s->eval_points >= 0) snprintf(ne, sizeof ne, "%d", s->eval_points);
    fprintf(out, COLUMNS, p->name, io, tags, ne);
    if (strcmp(s->ref, "data-missing"))
        fprintf(out, "%s\n", s->ref);
    else
        fprintf(out, "missing (%s)\n", s->ref_note);
}

static json_t *names_json(const char *const *names, int n)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++) json_array_append_new(a, json_string(names[k]));
    return a;
}

pf_status pf_pde_summary_print_json(FILE *out, const pf_pde_summary *s, const char *file)
{
    const pf_pde *p = s->pde;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "inputs", names_json(p->inputs, p->d_in));
    json_object_set_new(o, "outputs", names_json(p->outputs, p->d_out));
    json_object_set_new(o, "tags", names_json(s->tags, s->ntags));
    /* "data" only when the file is there: a missing file is "missing";
     * a present file of `make refs` is "generated" */
    const char *ref = !strcmp(s->ref, "data-missing") ? "missing" : p->ref == PF_REF_GENERATED ? "generated" : s->ref;
    json_object_set_new(o, "reference", json_string(ref));
    json_object_set_new(o, "eval_points", s->eval_points >= 0 ? json_integer(s->eval_points) : json_null());
    if (file) json_object_set_new(o, "file", json_string(file));
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text) return pf_fail(PF_ERR_NOMEM, "out of memory for %s's JSON", p->name);
    fprintf(out, "%s\n", text);
    free(text);
    return PF_OK;
}

/* Whether each hard transform's lift already solves the PDE, and why; the
 * pairs are listed in tests/test_pdes.c (exact_lifts). */
static void print_lifts(FILE *out, const pf_pde *p)
{
    if (!p->nhard) return;
    fputs("boundary-only lifts (each transform with N = 0):\n", out);
    unsigned all = (1u << p->d_out) - 1;
    for (int h = 0; h < p->nhard; h++) {
        const pf_hard_transform *t = &p->hard[h];
        fprintf(out, "  %-18s ", t->name);
        if (!t->lift_exact) {
            fputs("not the solution: the network carries the rest\n", out);
            continue;
        }
        if ((t->lift_exact & all) == all) {
            fprintf(out, "solves the PDE exactly: %s\n", t->lift_exact_why);
            continue;
        }
        fputs("exact for", out);
        for (int k = 0, n = 0; k < p->d_out; k++)
            if (t->lift_exact & (1u << k)) fprintf(out, "%s %s", n++ ? "," : "", p->outputs[k]);
        fprintf(out, " only: %s\n", t->lift_exact_why);
    }
}

void pf_pde_summary_print_details(FILE *out, const pf_pde_summary *s)
{
    const pf_pde *p = s->pde;
    print_lifts(out, p);
    fprintf(out, "reference: %s%s%s\n", s->ref, s->ref_note[0] ? " " : "", s->ref_note);
    if (s->eval_points >= 0) fprintf(out, "evaluation points: %d\n", s->eval_points);
    if (p->data_files)
        fprintf(out, "data files: %s (%s)\n", p->data_files, pf_pde_data_check(p) == PF_OK ? "present" : pf_errmsg());
}
