/*
 * fuzz_pdefile.c — PDE text files (pdefile/pdefile.h) through
 * pf_pdefile_load_text (lexer, parser, checker); a rejected file must say
 * why (errors holds its FILE:LINE:COL lines). For a file that checks:
 * pf_pdefile_describe, the value of every exact solution and hard
 * transform at the centre of the domain's box (pf_pdefile_eval), and
 * pf_pdefile_compile into the PDE contract. Files with `observe`
 * constraints are not compiled: compiling reads the data file they name,
 * and the harness reads no file that its input names.
 */
#include <stdbool.h>
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

static bool observes(const pf_pdefile *f)
{
    for (int i = 0; i < f->ncon; i++)
        if (f->con[i].kind == PF_PDEFILE_CON_OBSERVE) return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pf_pdefile *f = NULL;
    pf_status st = pf_pdefile_load_text("fuzz.pde", (const char *)data, size, &f);
    if (!f) return 0; /* out of memory, or longer than PF_PDEFILE_MAX_BYTES */
    if (st != PF_OK) {
        if (f->nerrors < 1 || !f->errors) abort(); /* a rejection names its lines */
        pf_pdefile_free(f);
        return 0;
    }
    char *text = pf_pdefile_describe(f); /* of a checked file */
    free(text);
    eval_values(f);
    if (observes(f)) {
        pf_pdefile_free(f);
        return 0;
    }
    pf_pde *p = NULL;
    pf_pdefile_compile(f, &p); /* the descriptor owns f, also on failure */
    pf_pdefile_pde_free(p);
    return 0;
}
