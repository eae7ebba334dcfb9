/*
 * fuzz_pdefile.c — PDE text files (pdefile/pdefile.h) through
 * pf_pdefile_load_text (lexer, parser, checker); a rejected file must say
 * why (errors holds its FILE:LINE:COL lines). For a file that checks:
 * pf_pdefile_describe, the value of every exact solution and hard
 * transform at the centre of the domain's box (pf_pdefile_eval), and
 * pf_pdefile_compile into the PDE contract. The input is said to lie in
 * the harness's empty temporary folder, so the data files it names
 * (observations, a reference table) are looked up there and missing; a
 * file naming one by an absolute path is not compiled, so the harness
 * opens no file of the machine's that its input names.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "input.h"
#include "pdefile/check.h"
#include "pdefile/compile.h"
#include "pdefile/eval.h"
#include "pdefile/pdefile.h"

static void eval_values(const pf_pdefile *f)
{
    double x[PF_PDE_MAX_IN], u[PF_PDE_MAX_OUT] = {0}, v;
    for (int i = 0; i < f->inputs.n && i < PF_PDE_MAX_IN; i++) x[i] = 0.5 * (f->lo[i] + f->hi[i]);
    for (int i = 0; i < f->ref.nexact; i++) pf_pdefile_eval(f, f->ref.exact[i].e, x, NULL, &v);
    for (int h = 0; h < f->nhard; h++)
        for (int i = 0; i < f->hard[h].n; i++) pf_pdefile_eval(f, f->hard[h].set[i].e, x, u, &v);
}

/* Whether f names a data file by an absolute path (observations, a
 * reference table). Relative names resolve in the harness's own empty
 * folder, where the input is said to lie; an absolute one is not opened. */
static bool names_absolute_files(const pf_pdefile *f)
{
    if (f->ref.kind == PF_PDEFILE_REF_DATA && f->ref.file[0] == '/') return true;
    for (int i = 0; i < f->ncon; i++)
        if (f->con[i].kind == PF_PDEFILE_CON_OBSERVE && f->con[i].file[0] == '/') return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[4200];
    if (!path[0]) snprintf(path, sizeof path, "%s/fuzz.pde", pf_fuzz_dir());
    pf_pdefile *f = NULL;
    pf_status st = pf_pdefile_load_text(path, (const char *)data, size, &f);
    if (!f) return 0; /* out of memory, or longer than PF_PDEFILE_MAX_BYTES */
    if (st != PF_OK) {
        if (f->nerrors < 1 || !f->errors) abort(); /* a rejection names its lines */
        pf_pdefile_free(f);
        return 0;
    }
    char *text = pf_pdefile_describe(f); /* of a checked file */
    free(text);
    eval_values(f);
    if (names_absolute_files(f)) {
        pf_pdefile_free(f);
        return 0;
    }
    pf_pde *p = NULL;
    pf_pdefile_compile(f, &p); /* the descriptor owns f, also on failure */
    pf_pdefile_pde_free(p);
    return 0;
}
