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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/real.h"
#include "geom/pde_summary.h"
#include "geom/sample.h"
#include "geom/samples_file.h"
#include "pdefile/compile.h"
#include "pdefile/exact_report.h"
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

/* One PDE's line (or JSON object) of `pf-pde list`. */
static int list_one(const pf_pde *p, bool json)
{
    pf_pde_summary s;
    pf_pde_summarize(p, &s);
    const pf_pdefile *file = pf_pdefile_of(p);
    if (json && pf_pde_summary_print_json(stdout, &s, file ? file->path : NULL) != PF_OK) {
        fprintf(stderr, "pf-pde list: %s\n", pf_errmsg());
        return 1;
    }
    if (!json) pf_pde_summary_print_line(stdout, &s);
    return 0;
}

/* The built-in PDEs, then the .pde files named (each compiled: a file that
 * is not valid ends the listing with its errors, exit 1). */
static int list(int argc, char **argv)
{
    bool json = false;
    for (int a = 0; a < argc; a++) json |= !strcmp(argv[a], "--json");
    if (!json) pf_pde_summary_print_header(stdout);
    for (int i = 0; i < pf_pdes_count(); i++)
        if (list_one(pf_pdes_at(i), json)) return 1;
    for (int a = 0; a < argc; a++) {
        if (!strcmp(argv[a], "--json")) continue;
        const pf_pde *p;
        if (!pf_pdefile_is_path(argv[a]) || pf_pdefile_open(argv[a], &p) != PF_OK) {
            fflush(stdout);
            fprintf(stderr, "pf-pde list: %s\n",
                    pf_pdefile_is_path(argv[a]) ? pf_errmsg() : "arguments after list are .pde files");
            return 1;
        }
        if (list_one(p, json)) return 1;
    }
    return 0;
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
    char *text = pf_pde_describe(p);
    if (!text) {
        fprintf(stderr, "pf-pde: out of memory\n");
        return 1;
    }
    fputs(text, stdout);
    free(text);
    pf_pde_summary s;
    pf_pde_summarize(p, &s);
    pf_pde_summary_print_details(stdout, &s);
    return 0;
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
    else if (p->ref == PF_REF_ANALYTIC) {
        char msg[PF_EXACT_REPORT_MAX];
        st = pf_pdefile_exact_report(p, msg, sizeof msg);
        fprintf(st == PF_OK ? stdout : stderr, "%s\n", msg);
    }
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

/* `sample NAME --n N --out F [--seed S] [--method M]` (geom/samples_file.h). */
static int sample(int argc, char **argv)
{
    pf_samples_args a;
    if (pf_samples_parse_args(argc - 2, argv + 2, &a) != PF_OK) {
        fprintf(stderr, "pf-pde: %s (see pf-pde --help)\n", pf_errmsg());
        return 2;
    }
    if (a.help) {
        usage(stdout);
        return 0;
    }
    const pf_pde *p;
    int rc = lookup(a.name, &p);
    if (rc) return rc;
    char summary[8192];
    pf_status st = pf_samples_write(p, &a.opts, a.out, summary, sizeof summary);
    if (st != PF_OK) {
        fprintf(stderr, "pf-pde: %s\n", pf_errmsg());
        return pf_status_exit_code(st);
    }
    printf("wrote %s: %s, seed %llu, %s, %s\n%s", a.out, p->name, (unsigned long long)a.opts.seed,
           pf_sample_method_name(a.opts.method), PF_REAL_NAME, summary);
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
