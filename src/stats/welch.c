#include "stats/welch.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "stats/describe.h"

pf_status pf_welch_test(const double *x, int nx, const double *y, int ny, pf_welch *out)
{
    memset(out, 0, sizeof *out);
    if (nx < 2 || ny < 2)
        return pf_fail(PF_ERR_INVALID, "Welch's t-test needs at least 2 values a side, not %d and %d", nx, ny);
    for (int i = 0; i < nx + ny; i++)
        if (!isfinite(i < nx ? x[i] : y[i - nx]))
            return pf_fail(PF_ERR_INVALID, "Welch's t-test: value %d of %s is not a number", i < nx ? i : i - nx,
                           i < nx ? "x" : "y");
    out->mean_x = pf_stats_mean(x, (size_t)nx);
    out->mean_y = pf_stats_mean(y, (size_t)ny);
    double sx = pf_stats_std(x, (size_t)nx), sy = pf_stats_std(y, (size_t)ny);
    double vx = sx * sx / nx, vy = sy * sy / ny, d = out->mean_x - out->mean_y;
    if (vx + vy == 0) {
        out->df = nx + ny - 2;
        out->t = d == 0 ? 0 : copysign(INFINITY, d);
        out->p = d == 0 ? 1 : 0;
        return PF_OK;
    }
    out->t = d / sqrt(vx + vy);
    out->df = (vx + vy) * (vx + vy) / (vx * vx / (nx - 1) + vy * vy / (ny - 1));
    out->p = fmin(1, 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df));
    return PF_OK;
}
