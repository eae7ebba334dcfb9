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
#include "geom/samples_file.h"
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
    const char *name; /* the PDE */
    const char *out;  /* the .h5 file */
    pf_samples_opts s;
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
    *o = (sample_opts){.s = {.n = -1, .method = PF_SAMPLE_UNIFORM}};
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
            o->s.n = (int)n;
            break;
        }
        case 1:
            if (!*val) return bad_usage("--out needs a file name");
            o->out = val;
            break;
        case 2:
            if (pf_parse_u64(val, UINT64_MAX, &o->s.seed) != PF_OK)
                return bad_usage("--seed must be an integer from 0 to 2^64-1, not '%s'", val);
            break;
        case 3:
            if (pf_sample_method_from_name(val, &o->s.method) != PF_OK)
                return bad_usage("--method: %s", pf_errmsg());
            break;
        }
    }
    if (!o->name) return bad_usage("sample needs a PDE name; pf-pde list shows them");
    if (o->s.n < 0) return bad_usage("sample needs --n N");
    if (!o->out) return bad_usage("sample needs --out F.h5");
    return 0;
}

static int sample(int argc, char **argv)
{
    sample_opts o;
    int rc = parse_sample(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc; /* -1: --help */
    const pf_pde *p;
    if ((rc = lookup(o.name, &p))) return rc;
    char summary[8192];
    pf_status st = pf_samples_write(p, &o.s, o.out, summary, sizeof summary);
    if (st != PF_OK) {
        fprintf(stderr, "pf-pde: %s\n", pf_errmsg());
        return pf_status_exit_code(st);
    }
    printf("wrote %s: %s, seed %llu, %s, %s\n%s", o.out, p->name, (unsigned long long)o.s.seed,
           pf_sample_method_name(o.s.method), PF_REAL_NAME, summary);
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
