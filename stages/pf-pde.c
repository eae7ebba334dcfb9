/*
 * pf-pde — inspect the PDE library.
 *
 *   pf-pde list [--json] [FILE.pde ...]
 *                           name, inputs -> outputs, tags, reference status:
 *                           the built-ins, then the files named
 *   pf-pde show NAME        statement, constraints, hard transforms, reference
 *   pf-pde check NAME|FILE  a built-in PDE's data files, or a .pde file parsed,
 *                           checked and compiled (src/pdefile/pdefile.h)
 *   pf-pde name NAME|FILE   the PDE's name (a file's declared one)
 *   pf-pde sample NAME --n N --out F.h5 [--seed S] [--method M]
 *                           collocation points of the PDE's geometry, as HDF5
 * NAME may be a path to a .pde file wherever it stands.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/parse.h"
#include "core/real.h"
#include "core/rng.h"
#include "geom/exact_check.h"
#include "geom/geometry.h"
#include "geom/sample.h"
#include "io/data_dir.h"
#include "io/h5.h"
#include "pdefile/compile.h"
#include "pdefile/pdefile.h"
#include "registry.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-pde list [--json] [FILE.pde ...]\n"
                "       pf-pde show NAME\n"
                "       pf-pde check NAME|FILE.pde\n"
                "       pf-pde name NAME|FILE.pde\n"
                "       pf-pde sample NAME --n N --out F.h5 [--seed S] [--method M]\n"
                "Lists the benchmark PDEs (name, inputs -> outputs, tags, reference) or shows\n"
                "one: its statement, residuals, constraints, hard-constraint transforms and\n"
                "reference. Reference files are looked up in $PF_DATA_DIR (default data/ref).\n"
                "list lists the .pde files named after the built-ins, as a built-in (JSON:\n"
                "with \"file\", the path).\n"
                "NAME may also be a path to a PDE written as text (a .pde file: the format is\n"
                "in src/pdefile/pdefile.h, examples in examples/pdes/); name prints the name\n"
                "it declares (what run folders are called).\n"
                "check loads what a run of NAME reads from the data folder (its data files and\n"
                "its reference, each checked against data/pinnacle.sha256) and says so; exit 1\n"
                "naming the file and folder when one is missing or damaged (a search's first\n"
                "step runs it).\n"
                "check FILE (a path ending in .pde, or any existing file) parses and checks a\n"
                "PDE written as text (the format: src/pdefile/pdefile.h, examples/pdes/) and\n"
                "prints what it understood: inputs (time marked), outputs, parameters, domain,\n"
                "boundary parts, each equation's derivative orders, constraints, reference,\n"
                "tags; then compiles it and checks its reference as for a built-in PDE. Exit 1\n"
                "with FILE:LINE:COL messages when it is not valid, or naming what cannot be\n"
                "compiled yet or the missing file.\n"
                "\n"
                "sample writes collocation points of the PDE's geometry to F.h5 (atomically):\n"
                "  /interior               N interior points\n"
                "  /constraints/<name>     N points per constraint (boundary parts or the\n"
                "                          initial slice, with outward normals), or the\n"
                "                          constraint's fixed points\n"
                "each group holding x (n x inputs), normal (n x inputs, where there are\n"
                "normals) and part (n, index into the \"names\" attribute), with attributes\n"
                "naming the PDE, inputs, kind, parts, seeds, method and precision.\n"
                "  --n N        points per set, 1..%d\n"
                "  --out F.h5   the file to write\n"
                "  --seed S     base seed (default 0); each set draws from its own stream\n"
                "  --method M   interior and initial-slice sampler: uniform (default), sobol,\n"
                "               lhs, grid (about N points) or hammersley (DeepXDE's default;\n"
                "               no seed); boundary parts are uniform\n",
            PF_SAMPLE_MAX_POINTS);
}

/* "analytic", "data" (file present), "data (generated)" (a file of `make
 * refs`, present), "data-missing" (file absent; `path` then holds the
 * message naming file and folder, for a generated one what to run) or
 * "missing". */
static const char *ref_status(const pf_pde *p, char *path, size_t cap)
{
    path[0] = 0;
    if (p->ref == PF_REF_ANALYTIC) return "analytic";
    if (p->ref == PF_REF_MISSING) return "missing";
    if (p->ref == PF_REF_TABLE) return "data";
    bool generated = p->ref == PF_REF_GENERATED;
    if (pf_data_path(p->ref_file, path, cap) == PF_OK) return generated ? "data (generated)" : "data";
    if (generated) { /* path: where pf_data_path looked (PF_REFS_DIR, as make refs writes) */
        char looked[PF_DATA_PATH_MAX];
        snprintf(looked, sizeof looked, "%s", path);
        snprintf(path, cap, "%.3900s not built: run make refs PDE=%s", looked, p->name);
    } else
        snprintf(path, cap, "%s", pf_errmsg());
    return "data-missing";
}

/* Points in the PDE's evaluation set, or -1 when it has none here. */
static int eval_points(const pf_pde *p)
{
    pf_reference r;
    int n = pf_pde_reference(p, &r) == PF_OK ? r.n : -1;
    pf_reference_release(&r);
    return n;
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

/* One PDE's line (or JSON object) of `pf-pde list`. */
static void list_one(const pf_pde *p, bool json)
{
    char in[128], out[64], tg[256], path[PF_DATA_PATH_MAX];
    const char *tags[PF_TAG_COUNT];
    int nt;
    tags_of(p, tags, &nt);
    const char *ref = ref_status(p, path, sizeof path);
    int neval = eval_points(p);
    if (json) {
        json_t *o = json_object(), *ji = json_array(), *jo = json_array(), *jt = json_array();
        for (int k = 0; k < p->d_in; k++) json_array_append_new(ji, json_string(p->inputs[k]));
        for (int k = 0; k < p->d_out; k++) json_array_append_new(jo, json_string(p->outputs[k]));
        for (int k = 0; k < nt; k++) json_array_append_new(jt, json_string(tags[k]));
        json_object_set_new(o, "name", json_string(p->name));
        json_object_set_new(o, "inputs", ji);
        json_object_set_new(o, "outputs", jo);
        json_object_set_new(o, "tags", jt);
        /* "data" only when the file is there: a missing file is "missing";
         * a present file of `make refs` is "generated" */
        const char *jref = !strcmp(ref, "data-missing") ? "missing" : p->ref == PF_REF_GENERATED ? "generated" : ref;
        json_object_set_new(o, "reference", json_string(jref));
        json_object_set_new(o, "eval_points", neval >= 0 ? json_integer(neval) : json_null());
        const pf_pdefile *file = pf_pdefile_of(p);
        if (file) json_object_set_new(o, "file", json_string(file->path));
        char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(o);
        return;
    }
    join(in, sizeof in, p->inputs, p->d_in, ",");
    join(out, sizeof out, p->outputs, p->d_out, ",");
    join(tg, sizeof tg, tags, nt, ",");
    char io[200];
    snprintf(io, sizeof io, "%s -> %s", in, out);
    char ne[16] = "-";
    if (neval >= 0) snprintf(ne, sizeof ne, "%d", neval);
    if (strcmp(ref, "data-missing"))
        printf("%-28s %-24s %-52s %7s  %s\n", p->name, io, tg, ne, ref);
    else
        printf("%-28s %-24s %-52s %7s  missing (%s)\n", p->name, io, tg, ne, path);
}

/* The built-in PDEs, then the .pde files named (each compiled: a file that
 * is not valid ends the listing with its errors, exit 1). */
static int list(int argc, char **argv)
{
    bool json = false;
    for (int a = 0; a < argc; a++) json |= !strcmp(argv[a], "--json");
    if (!json) printf("%-28s %-24s %-52s %7s  %s\n", "name", "inputs -> outputs", "tags", "eval", "reference");
    for (int i = 0; i < pf_pdes_count(); i++) list_one(pf_pdes_at(i), json);
    for (int a = 0; a < argc; a++) {
        if (!strcmp(argv[a], "--json")) continue;
        const pf_pde *p;
        if (!pf_pdefile_is_path(argv[a]) || pf_pdefile_open(argv[a], &p) != PF_OK) {
            fflush(stdout);
            fprintf(stderr, "pf-pde list: %s\n",
                    pf_pdefile_is_path(argv[a]) ? pf_errmsg() : "arguments after list are .pde files");
            return 1;
        }
        list_one(p, json);
    }
    return 0;
}

/* Whether each hard transform's lift (the transform with N = 0, built from
 * boundary data only: geom/lift.h) already solves the PDE, and why; the
 * pairs are listed in tests/test_pdes.c (exact_lifts). */
static void lifts(const pf_pde *p)
{
    if (!p->nhard) return;
    puts("boundary-only lifts (each transform with N = 0):");
    unsigned all = (1u << p->d_out) - 1;
    for (int h = 0; h < p->nhard; h++) {
        const pf_hard_transform *t = &p->hard[h];
        printf("  %-18s ", t->name);
        if (!t->lift_exact) {
            puts("not the solution: the network carries the rest");
            continue;
        }
        if ((t->lift_exact & all) == all) {
            printf("solves the PDE exactly: %s\n", t->lift_exact_why);
            continue;
        }
        fputs("exact for", stdout);
        for (int k = 0, n = 0; k < p->d_out; k++)
            if (t->lift_exact & (1u << k)) printf("%s %s", n++ ? "," : "", p->outputs[k]);
        printf(" only: %s\n", t->lift_exact_why);
    }
}

/* The PDE called `name` or the .pde file at that path; the exit code after
 * printing the error otherwise. */
static int lookup(const char *name, const pf_pde **p)
{
    pf_status st = pf_pdes_lookup(name, p);
    if (st == PF_OK) return 0;
    fprintf(stderr, "pf-pde: %s\n", pf_errmsg());
    return pf_status_exit_code(st);
}

static int show(const char *name)
{
    const pf_pde *p;
    int rc = lookup(name, &p);
    if (rc) return rc;
    char *text = pf_pde_describe(p), path[PF_DATA_PATH_MAX];
    if (!text) {
        fprintf(stderr, "pf-pde: out of memory\n");
        return 1;
    }
    fputs(text, stdout);
    free(text);
    lifts(p);
    const char *ref = ref_status(p, path, sizeof path);
    printf("reference: %s%s%s\n", ref, path[0] ? " " : "", path);
    int neval = eval_points(p);
    if (neval >= 0) printf("evaluation points: %d\n", neval);
    if (p->data_files)
        printf("data files: %s (%s)\n", p->data_files,
               pf_pde_data_check(p) == PF_OK ? "present" : pf_errmsg());
    return 0;
}

/* Whether a file's exact solution solves its equations and meets its
 * constraints (geom/exact_check.h): a line on stdout when it does, else
 * FILE:LINE:COL of the equation, constraint or formula at fault on stderr. */
static pf_status check_exact(const pf_pdefile *f, const pf_pde *p)
{
    pf_exact_check r;
    pf_exact_check_opts o = {.equation_terms = pf_pdefile_equation_terms,
                             .constraint_terms = pf_pdefile_constraint_terms};
    pf_status st = pf_pde_exact_check(p, &o, &r);
    if (st == PF_OK) {
        printf("exact solution: satisfies every equation and constraint (largest residual %.2g of the terms' "
               "scale, at most %g)\n",
               r.worst_ratio, PF_EXACT_CHECK_TOL);
        return PF_OK;
    }
    pf_pdefile_pos pos = f->ref.nexact ? f->ref.exact[0].pos : f->end;
    if (r.bad_output >= 0) {
        const pf_pdefile_assign *a = NULL;
        for (int j = 0; j < f->ref.nexact; j++)
            if (f->ref.exact[j].output == r.bad_output) a = &f->ref.exact[j];
        char formula[2048], pt[512];
        size_t n = 0;
        pt[0] = 0;
        for (int i = 0; i < p->d_in && n < sizeof pt; i++)
            n += (size_t)snprintf(pt + n, sizeof pt - n, "%s%s = %.6g", i ? ", " : "", p->inputs[i], r.bad_x[i]);
        double u[PF_PDE_MAX_OUT];
        char value[32];
        p->exact(p, r.bad_x, u);
        if (isnan(u[r.bad_output]))
            snprintf(value, sizeof value, "NaN");
        else
            snprintf(value, sizeof value, "%g", u[r.bad_output]);
        if (a) pos = a->pos;
        fprintf(stderr, "%s:%d:%d: exact %s = %s is not finite (%s) at %s, a point of the domain\n", f->path,
                pos.line, pos.col, p->outputs[r.bad_output],
                a ? pf_pdefile_expr_str(a->e, formula, sizeof formula) : "?", value, pt);
        return st;
    }
    if (r.failed_eq >= 0) pos = f->eq[r.failed_eq].pos;
    if (r.failed_con >= 0) pos = f->con[r.failed_con].pos;
    fprintf(stderr, "%s:%d:%d: %s\n", f->path, pos.line, pos.col, pf_errmsg());
    return st;
}

/* A .pde file: parsed, checked and described; every problem on stderr. */
static int check_file(const char *path)
{
    pf_pdefile *f = NULL;
    pf_status st = pf_pdefile_load(path, &f);
    if (st != PF_OK) {
        if (f && f->errors) {
            fputs(f->errors, stderr);
            if (f->nerrors > PF_PDEFILE_MAX_ERRORS)
                fprintf(stderr, "%s: %d more errors\n", path, f->nerrors - PF_PDEFILE_MAX_ERRORS);
        } else {
            fprintf(stderr, "pf-pde: %s\n", pf_errmsg());
        }
        pf_pdefile_free(f);
        return pf_status_exit_code(st);
    }
    char *text = pf_pdefile_describe(f);
    if (!text) {
        pf_pdefile_free(f);
        fprintf(stderr, "pf-pde: out of memory\n");
        return 1;
    }
    fputs(text, stdout);
    free(text);
    pf_pde *p;
    if ((st = pf_pdefile_compile(f, &p)) != PF_OK) {
        fprintf(stderr, "%s\n", pf_errmsg());
        return pf_status_exit_code(st);
    }
    int neval;
    st = pf_pde_inputs_check(p, &neval);
    if (st != PF_OK)
        fprintf(stderr, "pf-pde: %s: %s\n", p->name, pf_errmsg());
    else if (p->ref == PF_REF_ANALYTIC)
        st = check_exact(pf_pdefile_of(p), p);
    if (st == PF_OK && neval < 0)
        printf("%s: ok; no reference (it trains without an MSE)\n", path);
    else if (st == PF_OK)
        printf("%s: ok; reference ok (%d evaluation points)\n", path, neval);
    pf_pdefile_pde_free(p);
    return pf_status_exit_code(st);
}

static int check(const char *name)
{
    if (pf_pdefile_is_path(name)) return check_file(name);
    const pf_pde *p;
    int rc = lookup(name, &p);
    if (rc) return rc;
    int neval;
    if (pf_pde_inputs_check(p, &neval) != PF_OK) {
        fprintf(stderr, "pf-pde: %s: %s\n", p->name, pf_errmsg());
        return 1;
    }
    if (neval < 0) printf("%s: no reference (it trains without an MSE); data files ok\n", p->name);
    else printf("%s: reference ok (%d evaluation points); data files ok\n", p->name, neval);
    return 0;
}

/* The declared name: what run folders are called (`make PDE=FILE.pde`). */
static int name(const char *arg)
{
    const pf_pde *p;
    int rc = lookup(arg, &p);
    if (!rc) puts(p->name);
    return rc;
}

/* ------------------------------------------------------------------ sample */

typedef struct sample_opts {
    const char *name;          /* the PDE */
    const char *out;           /* the .h5 file */
    int n;                     /* points per set */
    uint64_t seed;
    pf_sample_method method;   /* interior and initial slice */
} sample_opts;

/* "pf-pde: <message>" on stderr and the usage-error exit code 2. */
static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pf-pde: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see pf-pde --help)\n");
    va_end(ap);
    return 2;
}

/* Parses `sample NAME --n N --out F [--seed S] [--method M]` (options in any
 * order, as "--opt VALUE" or "--opt=VALUE"). 0, the exit code 2, or -1 after
 * printing the help for --help. */
static int parse_sample(int argc, char **argv, sample_opts *o)
{
    *o = (sample_opts){.n = -1, .method = PF_SAMPLE_UNIFORM};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return -1;
        }
        if (strncmp(a, "--", 2) != 0) {
            if (o->name) return bad_usage("sample takes one PDE name, got '%s' and '%s'", o->name, a);
            o->name = a;
            continue;
        }
        static const char *const opts[] = {"--n", "--out", "--seed", "--method"};
        const char *val = NULL;
        int which = -1;
        for (int k = 0; k < 4; k++) {
            size_t len = strlen(opts[k]);
            if (!strncmp(a, opts[k], len) && (a[len] == 0 || a[len] == '=')) {
                which = k;
                val = a[len] == '=' ? a + len + 1 : NULL;
            }
        }
        if (which < 0) return bad_usage("unknown option '%s' for sample", a);
        if (!val) {
            if (i + 1 >= argc) return bad_usage("option '%s' needs a value", a);
            val = argv[++i];
        }
        switch (which) {
        case 0: {
            long n;
            if (pf_parse_long(val, 1, PF_SAMPLE_MAX_POINTS, &n) != PF_OK)
                return bad_usage("--n must be an integer from 1 to %d, not '%s'",
                                 PF_SAMPLE_MAX_POINTS, val);
            o->n = (int)n;
            break;
        }
        case 1:
            if (!*val) return bad_usage("--out needs a file name");
            o->out = val;
            break;
        case 2:
            if (pf_parse_u64(val, UINT64_MAX, &o->seed) != PF_OK)
                return bad_usage("--seed must be an integer from 0 to 2^64-1, not '%s'", val);
            break;
        case 3:
            if (pf_sample_method_from_name(val, &o->method) != PF_OK)
                return bad_usage("--method: %s", pf_errmsg());
            break;
        }
    }
    if (!o->name) return bad_usage("sample needs a PDE name; pf-pde list shows them");
    if (o->n < 0) return bad_usage("sample needs --n N");
    if (!o->out) return bad_usage("sample needs --out F.h5");
    return 0;
}

/* What was written, one line per set; printed once the file is in place. */
static char summary[8192];

/* Room for a comma-joined list of part names. */
#define PARTS_MAX 4096

/* The names of the geometry's parts, comma-joined into buf[cap]: every part
 * (all) or those the selection `parts` picks (pf_geom_parts_select). */
static pf_status part_list(const pf_geom *g, bool all, const char *parts, char *buf, size_t cap)
{
    int np = pf_geom_part_count(g);
    bool *sel = calloc((size_t)np + 1, sizeof *sel);
    if (!sel) return pf_fail(PF_ERR_NOMEM, "out of memory for %d part names", np);
    pf_status st = all ? PF_OK : pf_geom_parts_select(g, parts, sel);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; st == PF_OK && i < np; i++) {
        if (!all && !sel[i]) continue;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? "," : "", pf_geom_part_name(g, i));
        if (w < 0 || (size_t)w >= cap - len)
            st = pf_fail(PF_ERR_INVALID, "the names of %d parts do not fit in %zu bytes", np, cap);
        else
            len += (size_t)w;
    }
    free(sel);
    return st;
}

/* Everything a set's group says about itself besides its points. */
typedef struct set_info {
    const char *kind;     /* "interior" or the constraint kind */
    const char *parts;    /* the part names the points lie on ("" for none) */
    const char *method;   /* the sampler used, or "fixed" */
    const char *source;   /* "sampled", "fixed", "observations" or "reference data" */
    uint64_t set_seed;    /* the seed passed to the sampler */
} set_info;

/* The group `grp`: x, normal and part where the set has them, and its
 * attributes. The part indices refer to the geometry's parts, whose names
 * the part dataset lists in its "names" attribute. */
static pf_status write_set(pf_h5 *f, const char *grp, const pf_pde *p, const pf_geom *g,
                           const sample_opts *o, const set_info *si, const pf_point_set *ps)
{
    char in[256], path[256], names[PARTS_MAX];
    join(in, sizeof in, p->inputs, p->d_in, ",");
    PF_TRY(part_list(g, true, NULL, names, sizeof names));

    PF_TRY(pf_h5_group(f, grp));
    PF_TRY(pf_h5_attr_str(f, grp, "pde", p->name));
    PF_TRY(pf_h5_attr_str(f, grp, "inputs", in));
    PF_TRY(pf_h5_attr_str(f, grp, "kind", si->kind));
    PF_TRY(pf_h5_attr_str(f, grp, "parts", si->parts));
    PF_TRY(pf_h5_attr_str(f, grp, "method", si->method));
    PF_TRY(pf_h5_attr_str(f, grp, "source", si->source));
    PF_TRY(pf_h5_attr_u64(f, grp, "seed", o->seed));
    if (!strcmp(si->source, "sampled") || !strcmp(si->source, "observations"))
        PF_TRY(pf_h5_attr_u64(f, grp, "sampler_seed", si->set_seed)); /* observations: the noise's */
    PF_TRY(pf_h5_attr_str(f, grp, "precision", PF_REAL_NAME));
    PF_TRY(pf_h5_attr_i64(f, grp, "n", ps->n));

    snprintf(path, sizeof path, "%s/x", grp);
    PF_TRY(pf_h5_write_real(f, path, ps->x, (size_t)ps->n, (size_t)p->d_in));
    PF_TRY(pf_h5_attr_str(f, path, "columns", in));
    if (ps->normal) {
        snprintf(path, sizeof path, "%s/normal", grp);
        PF_TRY(pf_h5_write_real(f, path, ps->normal, (size_t)ps->n, (size_t)p->d_in));
        PF_TRY(pf_h5_attr_str(f, path, "columns", in));
        PF_TRY(pf_h5_attr_str(f, path, "meaning", "outward unit normal of the domain"));
    }
    if (ps->part) {
        snprintf(path, sizeof path, "%s/part", grp);
        PF_TRY(pf_h5_write_int(f, path, ps->part, (size_t)ps->n));
        PF_TRY(pf_h5_attr_str(f, path, "names", names));
    }
    size_t len = strlen(summary);
    snprintf(summary + len, sizeof summary - len, "  %-24s %8d points  %-8s %s%s%s\n", grp,
             ps->n, si->method, si->kind, si->parts[0] ? " on " : "", si->parts);
    return PF_OK;
}

/* The points of constraint c into *ps (pf_pde_constraint_points), described
 * by *si (parts into pbuf). */
static pf_status constraint_points(const pf_pde *p, const pf_geom *g, const pf_constraint *c,
                                   const sample_opts *o, set_info *si, char *pbuf, size_t cap,
                                   pf_point_set *ps, pf_real **v)
{
    char tag[128];
    snprintf(tag, sizeof tag, "pf-pde.sample.constraint.%s", c->name);
    si->set_seed = pf_rng_derive(o->seed, tag);
    si->kind = pf_constraint_kind_name(c->kind);
    si->method = "uniform";
    si->source = "sampled";
    si->parts = pbuf;
    pbuf[0] = 0;
    if (c->kind == PF_CON_POINTS) {
        si->method = "fixed";
        si->source = c->observe ? "observations" : c->npoints ? "fixed" : "reference data";
    } else if (pf_constraint_on_initial(c)) {
        si->method = pf_sample_method_name(o->method);
        snprintf(pbuf, cap, "initial");
    } else if (pf_constraint_in_interior(c)) {
        si->method = pf_sample_method_name(o->method);
    } else {
        PF_TRY(part_list(g, false, c->parts, pbuf, cap));
    }
    return pf_pde_constraint_points(p, g, c, o->method, o->n, si->set_seed, ps, v);
}

/* An observation set's target values: grp/v, n x 1. */
static pf_status write_values(pf_h5 *f, const char *grp, const pf_pde *p, int n, const pf_real *v)
{
    char path[256];
    snprintf(path, sizeof path, "%s/v", grp);
    (void)p;
    PF_TRY(pf_h5_write_real(f, path, v, (size_t)n, 1));
    return pf_h5_attr_str(f, path, "meaning", "observed values (with their noise) the fields must match");
}

/* A periodic set's image points: grp/x_image, the points moved from the lo
 * face to the hi face of the periodic input. */
static pf_status write_images(pf_h5 *f, const char *grp, const pf_pde *p, const pf_constraint *c,
                              const pf_point_set *ps)
{
    char in[256], path[256];
    join(in, sizeof in, p->inputs, p->d_in, ",");
    pf_real *xi = pf_pde_periodic_images(p, c, ps->n, ps->x);
    if (!xi) return PF_ERR_NOMEM;
    snprintf(path, sizeof path, "%s/x_image", grp);
    pf_status st = pf_h5_write_real(f, path, xi, (size_t)ps->n, (size_t)p->d_in);
    free(xi);
    PF_TRY(st);
    PF_TRY(pf_h5_attr_str(f, path, "columns", in));
    return pf_h5_attr_str(f, path, "meaning", "image of each point on the opposite face (u(x) = u(x_image))");
}

/* Samples every set of p into the open file f. */
static pf_status sample_into(const pf_pde *p, const pf_geom *g, const sample_opts *o, pf_h5 *f)
{
    char in[256], out[128], all[PARTS_MAX];
    join(in, sizeof in, p->inputs, p->d_in, ",");
    join(out, sizeof out, p->outputs, p->d_out, ",");
    PF_TRY(part_list(g, true, NULL, all, sizeof all));
    PF_TRY(pf_h5_attr_str(f, "/", "format", "pinnforge.samples"));
    PF_TRY(pf_h5_attr_i64(f, "/", "version", 1));
    PF_TRY(pf_h5_attr_str(f, "/", "generator", "pf-pde sample"));
    PF_TRY(pf_h5_attr_str(f, "/", "pde", p->name));
    PF_TRY(pf_h5_attr_str(f, "/", "inputs", in));
    PF_TRY(pf_h5_attr_str(f, "/", "outputs", out));
    PF_TRY(pf_h5_attr_str(f, "/", "parts", all));
    PF_TRY(pf_h5_attr_u64(f, "/", "seed", o->seed));
    PF_TRY(pf_h5_attr_str(f, "/", "method", pf_sample_method_name(o->method)));
    PF_TRY(pf_h5_attr_i64(f, "/", "n", o->n));
    PF_TRY(pf_h5_attr_str(f, "/", "precision", PF_REAL_NAME));

    pf_point_set ps;
    pf_point_set_init(&ps);
    set_info si = {.kind = "interior", .parts = "", .source = "sampled",
                   .method = pf_sample_method_name(o->method),
                   .set_seed = pf_rng_derive(o->seed, "pf-pde.sample.interior")};
    pf_status st = pf_sample_interior(g, o->method, o->n, si.set_seed, &ps);
    if (st != PF_OK) return pf_fail(st, "%s: interior: %s", p->name, pf_errmsg());
    st = write_set(f, "/interior", p, g, o, &si, &ps);
    pf_point_set_release(&ps);
    PF_TRY(st);
    PF_TRY(pf_h5_group(f, "/constraints"));
    for (int k = 0; k < p->ncon && st == PF_OK; k++) {
        const pf_constraint *c = &p->con[k];
        char parts[PARTS_MAX], grp[128];
        pf_real *v = NULL;
        st = constraint_points(p, g, c, o, &si, parts, sizeof parts, &ps, &v);
        if (st != PF_OK) {
            st = pf_fail(st, "%s: constraint '%s': %s", p->name, c->name, pf_errmsg());
        } else {
            snprintf(grp, sizeof grp, "/constraints/%s", c->name);
            st = write_set(f, grp, p, g, o, &si, &ps);
            if (st == PF_OK && v) st = write_values(f, grp, p, ps.n, v);
            if (st == PF_OK && c->kind == PF_CON_PERIODIC) st = write_images(f, grp, p, c, &ps);
        }
        free(v);
        pf_point_set_release(&ps);
    }
    return st;
}

static int sample(int argc, char **argv)
{
    sample_opts o;
    int rc = parse_sample(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc; /* -1: --help */
    const pf_pde *p;
    if ((rc = lookup(o.name, &p))) return rc;
    PF_ASSERT(p->geometry != NULL);
    pf_geom *g = NULL;
    pf_h5 *f = NULL;
    pf_status st = p->geometry(p, &g);
    if (st == PF_OK) st = pf_h5_create(o.out, &f);
    if (st == PF_OK) st = sample_into(p, g, &o, f);
    if (st == PF_OK)
        st = pf_h5_close(f);
    else
        pf_h5_discard(f);
    pf_geom_free(g);
    if (st != PF_OK) {
        fprintf(stderr, "pf-pde: %s\n", pf_errmsg());
        return pf_status_exit_code(st);
    }
    printf("wrote %s: %s, seed %llu, %s, %s\n%s", o.out, p->name, (unsigned long long)o.seed,
           pf_sample_method_name(o.method), PF_REAL_NAME, summary);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "list")) return list(argc - 2, argv + 2);
    if (argc == 3 && !strcmp(argv[1], "show")) return show(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "check")) return check(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "name")) return name(argv[2]);
    if (argc >= 2 && !strcmp(argv[1], "sample")) return sample(argc, argv);
    usage(stderr);
    return 2;
}
