/* kuramoto_sivashinsky_1d's coefficients and initial data, shared by its
 * PDE file and its reference solver (refs/kuramoto_sivashinsky_1d.c). */
#ifndef PF_PDES_KURAMOTO_SIVASHINSKY_1D_H
#define PF_PDES_KURAMOTO_SIVASHINSKY_1D_H

#include <math.h>

#define KS_ALPHA 6.25             /* 100 / 16 */
#define KS_BETA 0.390625          /* 100 / 16^2 */
#define KS_GAMMA 0.00152587890625 /* 100 / 16^4 */

/* u(x, 0) = cos(x)(1 + sin x), in double (the PDE file builds the same
 * formula as graph nodes). */
static inline double ks_initial(double x) { return cos(x) * (1 + sin(x)); }

#endif
