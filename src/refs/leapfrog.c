/* leapfrog.c — see leapfrog.h. */
#include "refs/leapfrog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The neighbour index along one axis, mirrored at the walls. */
static int mirror(int i, int n) { return i < 0 ? 1 : i >= n ? n - 2 : i; }

/* next = 2 u - prev + r c Lap_h u (r = dt^2 / h^2; first: next = u + r/2
 * c Lap_h u, prev unused); true when next is finite everywhere. */
static int step(int n, const double *c, const double *u, const double *prev, double *next, double r, int first)
{
    int finite = 1;
    for (int iy = 0; iy < n; iy++) {
        const double *row = u + (size_t)iy * n, *dn = u + (size_t)mirror(iy - 1, n) * n,
                     *up = u + (size_t)mirror(iy + 1, n) * n;
        for (int ix = 0; ix < n; ix++) {
            size_t p = (size_t)iy * n + ix;
            double lap = row[mirror(ix - 1, n)] + row[mirror(ix + 1, n)] + dn[ix] + up[ix] - 4 * row[ix];
            next[p] = first ? u[p] + 0.5 * r * c[p] * lap : 2 * u[p] - prev[p] + r * c[p] * lap;
            finite &= isfinite(next[p]);
        }
    }
    return finite;
}

pf_status pf_wave_solve(const pf_wave_grid *gr, const double *c, const double *u0, double dt, int steps,
                        int nsamples, pf_wave_sample sample, void *user)
{
    int n = gr->n;
    if (n < 3 || !(gr->side > 0) || !(dt > 0) || steps < 1 || nsamples < 1)
        return pf_fail(PF_ERR_INVALID, "leapfrog: n = %d, side = %g, dt = %g, steps = %d, samples = %d", n,
                       gr->side, dt, steps, nsamples);
    size_t m = (size_t)n * n;
    double h = gr->side / (n - 1), cmax = 0;
    for (size_t p = 0; p < m; p++) {
        if (!(c[p] > 0) || !isfinite(c[p])) return pf_fail(PF_ERR_INVALID, "leapfrog: speed %g at node %zu", c[p], p);
        cmax = fmax(cmax, c[p]);
    }
    if (dt * sqrt(cmax) > h / sqrt(2))
        return pf_fail(PF_ERR_INVALID, "leapfrog: dt = %g over the stability limit h / sqrt(2 max c) = %g", dt,
                       h / sqrt(2 * cmax));
    double *buf = malloc(sizeof(double) * 3 * m);
    if (!buf) return pf_fail(PF_ERR_NOMEM, "leapfrog: out of memory for %d x %d nodes", n, n);
    double *prev = buf, *u = buf + m, *next = buf + 2 * m, r = dt * dt / (h * h);
    memcpy(u, u0, sizeof(double) * m);
    pf_status st = sample(user, 0, u);
    long total = (long)(nsamples - 1) * steps;
    for (long s = 1; st == PF_OK && s <= total; s++) {
        if (!step(n, c, u, prev, next, r, s == 1))
            st = pf_fail(PF_ERR_INVALID, "leapfrog: the solution is not finite at step %ld", s);
        double *t = prev;
        prev = u, u = next, next = t;
        if (st == PF_OK && s % steps == 0) st = sample(user, (int)(s / steps), u);
    }
    free(buf);
    return st;
}

double pf_wave_interp(const pf_wave_grid *gr, const double *u, double x, double y)
{
    int n = gr->n;
    double h = gr->side / (n - 1), sx = (x - gr->lo) / h, sy = (y - gr->lo) / h;
    int ix = (int)floor(sx), iy = (int)floor(sy);
    ix = ix < 0 ? 0 : ix > n - 2 ? n - 2 : ix;
    iy = iy < 0 ? 0 : iy > n - 2 ? n - 2 : iy;
    double wx = sx - ix, wy = sy - iy;
    const double *r0 = u + (size_t)iy * n + ix, *r1 = r0 + n;
    return (1 - wy) * ((1 - wx) * r0[0] + wx * r0[1]) + wy * ((1 - wx) * r1[0] + wx * r1[1]);
}
