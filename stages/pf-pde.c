/*
 * pf-pde — inspect the PDE library.
 *
 *   pf-pde list [--json]    name, inputs -> outputs, tags, reference status
 *   pf-pde show NAME        statement, constraints, hard transforms, reference
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/data_dir.h"
#include "registry.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-pde list [--json]\n"
                "       pf-pde show NAME\n"
                "Lists the benchmark PDEs (name, inputs -> outputs, tags, reference) or shows\n"
                "one: its statement, residuals, constraints, hard-constraint transforms and\n"
                "reference. Reference files are looked up in $PF_DATA_DIR (default data/ref).\n");
}

/* "analytic", "data" (file present), "data-missing" (file absent; `path`
 * then holds the message naming file and folder) or "missing". */
static const char *ref_status(const pf_pde *p, char *path, size_t cap)
{
    path[0] = 0;
    if (p->ref == PF_REF_ANALYTIC) return "analytic";
    if (p->ref == PF_REF_MISSING) return "missing";
    if (pf_data_path(p->ref_file, path, cap) == PF_OK) return "data";
    snprintf(path, cap, "%s", pf_errmsg());
    return "data-missing";
}

static void join(char *buf, size_t cap, const char *const *names, int n, const char *sep)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? sep : "", names[i]);
}

static void tags_of(const pf_pde *p, const char **out, int *n)
{
    *n = 0;
    for (int b = 0; b < PF_TAG_COUNT; b++)
        if (p->tags & (1u << b)) out[(*n)++] = pf_pde_tag_name(b);
}

static int list(int json)
{
    if (!json) printf("%-28s %-24s %-52s %s\n", "name", "inputs -> outputs", "tags", "reference");
    for (int i = 0; i < pf_pdes_count(); i++) {
        const pf_pde *p = pf_pdes_at(i);
        char in[128], out[64], tg[256], path[PF_DATA_PATH_MAX];
        const char *tags[PF_TAG_COUNT];
        int nt;
        tags_of(p, tags, &nt);
        const char *ref = ref_status(p, path, sizeof path);
        if (json) {
            json_t *o = json_object(), *ji = json_array(), *jo = json_array(), *jt = json_array();
            for (int k = 0; k < p->d_in; k++) json_array_append_new(ji, json_string(p->inputs[k]));
            for (int k = 0; k < p->d_out; k++) json_array_append_new(jo, json_string(p->outputs[k]));
            for (int k = 0; k < nt; k++) json_array_append_new(jt, json_string(tags[k]));
            json_object_set_new(o, "name", json_string(p->name));
            json_object_set_new(o, "inputs", ji);
            json_object_set_new(o, "outputs", jo);
            json_object_set_new(o, "tags", jt);
            /* "data" only when the file is there: a missing file is "missing" */
            json_object_set_new(o, "reference", json_string(strcmp(ref, "data-missing") ? ref : "missing"));
            char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
            puts(s);
            free(s);
            json_decref(o);
            continue;
        }
        join(in, sizeof in, p->inputs, p->d_in, ",");
        join(out, sizeof out, p->outputs, p->d_out, ",");
        join(tg, sizeof tg, tags, nt, ",");
        char io[200];
        snprintf(io, sizeof io, "%s -> %s", in, out);
        if (strcmp(ref, "data-missing"))
            printf("%-28s %-24s %-52s %s\n", p->name, io, tg, ref);
        else
            printf("%-28s %-24s %-52s missing (%s)\n", p->name, io, tg, path);
    }
    return 0;
}

static int show(const char *name)
{
    const pf_pde *p;
    if (pf_pdes_lookup(name, &p) != PF_OK) {
        fprintf(stderr, "pf-pde: %s\n", pf_errmsg());
        return 2;
    }
    char in[128], out[64], path[PF_DATA_PATH_MAX];
    join(in, sizeof in, p->inputs, p->d_in, ", ");
    join(out, sizeof out, p->outputs, p->d_out, ", ");
    printf("%s — %s\n\n%s\n\nLaTeX: %s\n\n", p->name, p->title, p->statement, p->latex);
    printf("inputs   %s\noutputs  %s\ndomain  ", in, out);
    for (int i = 0; i < p->d_in; i++)
        printf("%s %s in [%g, %g]", i ? "," : "", p->inputs[i], p->lo[i], p->hi[i]);
    printf("\nresidual equations: %d\nconstraints:\n", p->neq);
    for (int k = 0; k < p->ncon; k++)
        printf("  %-10s %-10s on %s\n", p->con[k].name, pf_constraint_kind_name(p->con[k].kind),
               p->con[k].parts ? p->con[k].parts : "the whole boundary");
    printf("hard-constraint transforms:%s\n", p->nhard ? "" : " none");
    for (int k = 0; k < p->nhard; k++) printf("  %-18s %s\n", p->hard[k].name, p->hard[k].what);
    const char *ref = ref_status(p, path, sizeof path);
    printf("reference: %s%s%s\n", ref, path[0] ? " " : "", path);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "list")) return list(0);
    if (argc == 3 && !strcmp(argv[1], "list") && !strcmp(argv[2], "--json")) return list(1);
    if (argc == 3 && !strcmp(argv[1], "show")) return show(argv[2]);
    usage(stderr);
    return 2;
}
