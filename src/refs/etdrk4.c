#include "refs/etdrk4.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

#define PI 3.14159265358979323846

/* The contour means of Kassam & Trefethen (2005), eq. (2.5)-(2.6) and their
 * kursiv.m, for one z = h L: q = mean((e^{r/2}-1)/r) and the three weights,
 * r running over z + the circle. Each is real for real z. */
static void coefficients(double z, double *q, double *f1, double *f2, double *f3)
{
    double complex sq = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int j = 0; j < PF_ETDRK4_CONTOUR; j++) {
        double complex r = z + cexp(I * PI * (j + 0.5) / (PF_ETDRK4_CONTOUR / 2));
        double complex er = cexp(r), r3 = r * r * r;
        sq += (cexp(r / 2) - 1) / r;
        s1 += (-4 - r + er * (4 - 3 * r + r * r)) / r3;
        s2 += (2 + r + er * (-2 + r)) / r3;
        s3 += (-4 - 3 * r - r * r + er * (4 - r)) / r3;
    }
    *q = creal(sq) / PF_ETDRK4_CONTOUR;
    *f1 = creal(s1) / PF_ETDRK4_CONTOUR;
    *f2 = creal(s2) / PF_ETDRK4_CONTOUR;
    *f3 = creal(s3) / PF_ETDRK4_CONTOUR;
}

pf_status pf_etdrk4_init(pf_etdrk4 *c, const double *L, size_t n, double h)
{
    memset(c, 0, sizeof *c);
    double *mem = pf_aligned_alloc(sizeof(double) * n * 13);
    if (!mem) return pf_fail(PF_ERR_NOMEM, "out of memory for ETDRK4 coefficients of %zu modes", n);
    c->n = n, c->h = h;
    c->e = mem, c->e2 = mem + n, c->q = mem + 2 * n;
    c->f1 = mem + 3 * n, c->f2 = mem + 4 * n, c->f3 = mem + 5 * n, c->work = mem + 6 * n;
    for (size_t k = 0; k < n; k++) {
        double z = h * L[k];
        c->e[k] = exp(z);
        c->e2[k] = exp(z / 2);
        coefficients(z, &c->q[k], &c->f1[k], &c->f2[k], &c->f3[k]);
        c->q[k] *= h, c->f1[k] *= h, c->f2[k] *= h, c->f3[k] *= h;
    }
    return PF_OK;
}

void pf_etdrk4_step(pf_etdrk4 *c, double *s, pf_etdrk4_nonlin nonlin, void *user)
{
    size_t n = c->n;
    double *nv = c->work, *a = nv + n, *na = a + n, *b = na + n, *nb = b + n, *cc = nb + n, *nc = cc + n;
    nonlin(user, s, nv);
    for (size_t k = 0; k < n; k++) a[k] = c->e2[k] * s[k] + c->q[k] * nv[k];
    nonlin(user, a, na);
    for (size_t k = 0; k < n; k++) b[k] = c->e2[k] * s[k] + c->q[k] * na[k];
    nonlin(user, b, nb);
    for (size_t k = 0; k < n; k++) cc[k] = c->e2[k] * a[k] + c->q[k] * (2 * nb[k] - nv[k]);
    nonlin(user, cc, nc);
    for (size_t k = 0; k < n; k++)
        s[k] = c->e[k] * s[k] + c->f1[k] * nv[k] + 2 * c->f2[k] * (na[k] + nb[k]) + c->f3[k] * nc[k];
}

pf_status pf_etdrk4_check_finite(const pf_etdrk4 *c, const double *s, const char *who, double t)
{
    for (size_t k = 0; k < c->n; k++)
        if (!isfinite(s[k]))
            return pf_fail(PF_ERR_INVALID, "%s: the solution is not finite at t = %g (the grid is too coarse "
                           "for the problem or the time step too long)", who, t);
    return PF_OK;
}

void pf_etdrk4_free(pf_etdrk4 *c)
{
    free(c->e);
    memset(c, 0, sizeof *c);
}
