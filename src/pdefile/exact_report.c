/* exact_report.c — a .pde file's exact solution checked, with FILE:LINE:COL
 * (exact_report.h). */
#include "pdefile/exact_report.h"

#include <math.h>
#include <stdio.h>

#include "geom/exact_check.h"
#include "pdefile/compile.h"

pf_status pf_pdefile_exact_report(const pf_pde *p, char *msg, size_t cap)
{
    const pf_pdefile *f = pf_pdefile_of(p);
    PF_ASSERT(f);
    pf_exact_check r;
    pf_exact_check_opts o = {.equation_terms = pf_pdefile_equation_terms,
                             .constraint_terms = pf_pdefile_constraint_terms};
    pf_status st = pf_pde_exact_check(p, &o, &r);
    if (st == PF_OK) {
        snprintf(msg, cap,
                 "exact solution: satisfies every equation and constraint (largest residual %.2g of the terms' "
                 "scale, at most %g)",
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
        snprintf(msg, cap, "%s:%d:%d: exact %s = %s is not finite (%s) at %s, a point of the domain", f->path, pos.line,
                 pos.col, p->outputs[r.bad_output], a ? pf_pdefile_expr_str(a->e, formula, sizeof formula) : "?", value,
                 pt);
        return st;
    }
    if (r.failed_eq >= 0) pos = f->eq[r.failed_eq].pos;
    if (r.failed_con >= 0) pos = f->con[r.failed_con].pos;
    snprintf(msg, cap, "%s:%d:%d: %s", f->path, pos.line, pos.col, pf_errmsg());
    return st;
}
