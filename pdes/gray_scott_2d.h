/* gray_scott_2d's coefficients and initial data, shared by its PDE file
 * and its reference solver (refs/gray_scott_2d.c). */
#ifndef PF_PDES_GRAY_SCOTT_2D_H
#define PF_PDES_GRAY_SCOTT_2D_H

#include <math.h>

#define GS_B 0.04
#define GS_D 0.1
#define GS_EPS1 1e-5
#define GS_EPS2 5e-6

/* u0 = 1 - bump at (-0.05, -0.02), v0 = bump at (0.05, 0.02), bump =
 * exp(-80 r^2), in double (the PDE file builds the same formulas as graph
 * nodes). */
static inline double gs_initial_u(double x, double y)
{
    return 1 - exp(-80 * ((x + 0.05) * (x + 0.05) + (y + 0.02) * (y + 0.02)));
}
static inline double gs_initial_v(double x, double y)
{
    return exp(-80 * ((x - 0.05) * (x - 0.05) + (y - 0.02) * (y - 0.02)));
}

#endif
