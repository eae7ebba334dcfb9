#include "stats/kendall.h"

#include <string.h>

#include "stats/friedman.h"

pf_status pf_kendall_w(const double *x, int m, int n, pf_kendall *out)
{
    memset(out, 0, sizeof *out);
    pf_friedman f; /* the raters as blocks: chi2_F = m (n - 1) W (kendall.h) */
    if (pf_friedman_test(x, m, n, &f) != PF_OK)
        return pf_fail(PF_ERR_INVALID, "Kendall's W over %d raters and %d objects: %s", m, n, pf_errmsg());
    pf_friedman_release(&f);
    if (!(f.tie_correction > 0))
        return pf_fail(PF_ERR_INVALID, "Kendall's W: every rater ties all %d objects, so W is undefined", n);
    out->m = m;
    out->n = n;
    out->df = n - 1;
    out->ties = (1 - f.tie_correction) * m * n * ((double)n * n - 1);
    out->chi2 = f.chi2;
    out->w = f.chi2 / ((double)m * (n - 1));
    out->p = f.p; /* the same chi2 on the same n - 1 degrees of freedom */
    return PF_OK;
}
