/*
 * etdrk4.h — exponential time differencing, fourth order (ETDRK4), for
 * u_t = L u + N(u) with L diagonal in the solver's basis (Fourier or cosine
 * modes): Cox & Matthews (2002), with the coefficients computed as Kassam &
 * Trefethen (2005) do, by a contour integral around each h L, which avoids
 * the cancellation of the closed forms (e^z - 1 - z ...)/z^3 near z = 0.
 *
 * The state is n real numbers (a complex spectrum counts as its real and
 * imaginary parts, each with the L of its mode); N maps a state to n reals.
 *
 *     pf_etdrk4 c;
 *     if (pf_etdrk4_init(&c, L, n, h) != PF_OK) ...;   // PF_ERR_NOMEM
 *     for (step...) pf_etdrk4_step(&c, s, nonlin, user);
 *     pf_etdrk4_free(&c);
 */
#ifndef PF_REFS_ETDRK4_H
#define PF_REFS_ETDRK4_H

#include <stddef.h>

#include "core/status.h"

/* Contour points (the full circle of radius 1 around each h L); 64 gives
 * the coefficients to rounding for any h L (Kassam & Trefethen use 32 on
 * the upper half, the same by symmetry for real L). */
#define PF_ETDRK4_CONTOUR 64

/* out = N(s), both n reals. */
typedef void (*pf_etdrk4_nonlin)(void *user, const double *s, double *out);

typedef struct pf_etdrk4 {
    size_t n;
    double h;
    double *e, *e2;       /* exp(h L), exp(h L / 2)                   */
    double *q;            /* h ((e^{z/2} - 1) / z), z = h L           */
    double *f1, *f2, *f3; /* h (the three ETDRK4 weights of Cox-Matthews) */
    double *work;         /* 7 n: nv, a, na, b, nb, c, nc            */
} pf_etdrk4;

/* Coefficients for step h > 0 and L[0..n). PF_ERR_NOMEM with a message;
 * on failure c holds nothing to free. */
pf_status pf_etdrk4_init(pf_etdrk4 *c, const double *L, size_t n, double h);

/* One step of s (n reals) in place. */
void pf_etdrk4_step(pf_etdrk4 *c, double *s, pf_etdrk4_nonlin nonlin, void *user);

/* PF_OK when every one of the n reals of s is finite, else PF_ERR_INVALID
 * naming `who` and the time t: the solution blew up (a grid too coarse for
 * the problem, or a step too long for its explicit part). */
pf_status pf_etdrk4_check_finite(const pf_etdrk4 *c, const double *s, const char *who, double t);

void pf_etdrk4_free(pf_etdrk4 *c);

#endif
