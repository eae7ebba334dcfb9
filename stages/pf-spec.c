/*
 * pf-spec — the AlgorithmSpec's allowed space, checker and default example.
 *
 *   pf-spec describe --pde P                        the allowed space, as prompt text
 *   pf-spec check SPEC --pde P --fidelity low|high  normalized spec + "hash: <hex>" (exit 0),
 *                                                   or the reasons, one per line (exit 1)
 *   pf-spec example --pde P [--fidelity low|high]   PINNacle's default PINN as a valid spec
 *   pf-spec baseline --pde P --method M [--budget B] baseline M's spec (search/baseline.h)
 *   pf-spec methods                                 the methods' table (llm/methods.def)
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "io/msgpack_json.h"
#include "llm/method.h"
#include "registry.h"
#include "search/baseline.h"
#include "spec/spec.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: pf-spec describe --pde P\n"
                "       pf-spec check SPEC --pde P --fidelity low|high\n"
                "       pf-spec example --pde P [--fidelity low|high]\n"
                "       pf-spec baseline --pde P --method vanilla|ropinn|pinnsformer [--budget paper|quick|smoke]\n"
                "       pf-spec methods\n"
                "describe prints the allowed AlgorithmSpec space for P as prompt text (the\n"
                "validator's own table). check reads SPEC (a JSON file, - for stdin), prints the\n"
                "normalized spec and \"hash: <sha256>\" and exits 0, or prints every reason it\n"
                "is rejected, one per line, and exits 1. example prints PINNacle's default PINN\n"
                "(5 x 100 tanh MLP, 8,192 interior, 2,048 boundary and initial points, Adam at\n"
                "lr 1e-3 for the whole budget; default fidelity low = 1,000 steps, high = 10,000).\n"
                "baseline prints the canonical spec that baseline method M trains on P at\n"
                "fidelity baseline within budget B (default paper), as its runs propose it.\n"
                "methods prints the table of methods (src/llm/methods.def): what each sees,\n"
                "its candidates, whether it asks a proposer, its column order and label.\n"
                "Exit codes: 0 ok, 1 spec rejected or unreadable, 2 usage error or unknown PDE.\n");
}

/* pf-spec baseline: the spec of baseline `method` on p within budget `budget`. */
static int baseline(const pf_pde *p, const char *method, const char *budget, const char *fid_name)
{
    pf_method m;
    const pf_budget *b = NULL;
    json_t *spec = NULL;
    if (fid_name) return fprintf(stderr, "pf-spec: baseline takes no --fidelity (it is baseline)\n"), 2;
    if (!method) return fprintf(stderr, "pf-spec: baseline needs --method vanilla|ropinn|pinnsformer\n"), 2;
    if (pf_method_from_name(method, &m) != PF_OK || (budget && pf_budget_lookup(budget, &b) != PF_OK)) {
        fprintf(stderr, "pf-spec: %s\n", pf_errmsg());
        return 2;
    }
    if (pf_baseline_spec(m, p, b, &spec) != PF_OK) {
        fprintf(stderr, "pf-spec: %s: %s\n", method, pf_errmsg());
        return 2;
    }
    char *s = json_dumps(spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    puts(s);
    free(s);
    json_decref(spec);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1], *pde_name = NULL, *fid_name = NULL, *file = NULL, *method = NULL, *budget = NULL;
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--pde") && i + 1 < argc)
            pde_name = argv[++i];
        else if (!strcmp(argv[i], "--fidelity") && i + 1 < argc)
            fid_name = argv[++i];
        else if (!strcmp(argv[i], "--method") && i + 1 < argc)
            method = argv[++i];
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
            budget = argv[++i];
        else if (argv[i][0] != '-' || !strcmp(argv[i], "-")) {
            if (file) {
                fprintf(stderr, "pf-spec: unexpected argument '%s'\n", argv[i]);
                return 2;
            }
            file = argv[i];
        } else {
            fprintf(stderr, "pf-spec: unknown option '%s' (or it lacks its value)\n", argv[i]);
            return 2;
        }
    }
    if (!strcmp(cmd, "methods")) {
        if (argc > 2) return fprintf(stderr, "pf-spec: methods takes no arguments\n"), 2;
        pf_method_print_table(stdout);
        return 0;
    }
    int is_check = !strcmp(cmd, "check"), is_baseline = !strcmp(cmd, "baseline");
    if (strcmp(cmd, "describe") && !is_check && strcmp(cmd, "example") && !is_baseline) {
        fprintf(stderr, "pf-spec: unknown command '%s'; allowed: describe, check, example, baseline, methods\n", cmd);
        return 2;
    }
    if (!is_baseline && (method || budget)) {
        fprintf(stderr, "pf-spec: --method and --budget belong to baseline, not %s\n", cmd);
        return 2;
    }
    if (!pde_name) {
        fprintf(stderr, "pf-spec: %s needs --pde P\n", cmd);
        return 2;
    }
    if (is_check != (file != NULL)) {
        fprintf(stderr, is_check ? "pf-spec: check needs a SPEC file\n" : "pf-spec: unexpected argument '%s'\n",
                file);
        return 2;
    }
    if (is_check && !fid_name) {
        fprintf(stderr, "pf-spec: check needs --fidelity low|high\n");
        return 2;
    }
    if (!strcmp(cmd, "describe") && fid_name) {
        fprintf(stderr, "pf-spec: describe takes no --fidelity\n");
        return 2;
    }
    const pf_pde *p;
    if (pf_pdes_lookup(pde_name, &p) != PF_OK) {
        fprintf(stderr, "pf-spec: %s\n", pf_errmsg());
        return 2;
    }
    pf_fidelity fid = PF_FIDELITY_LOW;
    if (fid_name && pf_fidelity_from_name(fid_name, &fid) != PF_OK) {
        fprintf(stderr, "pf-spec: %s\n", pf_errmsg());
        return 2;
    }

    if (!strcmp(cmd, "describe")) {
        char *s = pf_spec_describe(p);
        fputs(s, stdout);
        free(s);
        return 0;
    }
    if (is_baseline) return baseline(p, method, budget, fid_name);
    if (!strcmp(cmd, "example")) {
        json_t *n = pf_spec_example(p, fid);
        char *s = json_dumps(n, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        puts(s);
        free(s);
        json_decref(n);
        return 0;
    }
    char *text;
    size_t len;
    if (pf_file_read_as(file, PF_FILE_SPEC, &text, &len) != PF_OK) {
        fprintf(stderr, "pf-spec: %s\n", pf_errmsg());
        return 1;
    }
    json_t *raw, *norm;
    pf_status st = pf_spec_parse(text, &raw);
    free(text);
    if (st != PF_OK) {
        printf("%s\n", pf_errmsg());
        return 1;
    }
    pf_spec_report *rep = malloc(sizeof *rep);
    if (!rep) return 1;
    st = pf_spec_check(raw, p, fid, &norm, rep);
    json_decref(raw);
    if (st != PF_OK) {
        for (int i = 0; i < rep->n; i++) printf("%s\n", rep->reason[i]);
        free(rep);
        return 1;
    }
    free(rep);
    char hex[PF_SPEC_HASH_HEX];
    if (pf_spec_hash(norm, hex) != PF_OK) {
        fprintf(stderr, "pf-spec: %s\n", pf_errmsg());
        json_decref(norm);
        return 1;
    }
    char *s = json_dumps(norm, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    printf("%s\nhash: %s\n", s, hex);
    free(s);
    json_decref(norm);
    return 0;
}
