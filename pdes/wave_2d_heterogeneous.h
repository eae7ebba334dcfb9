/* wave_2d_heterogeneous's initial pulse, shared by its PDE file and its
 * reference solver (refs/wave_2d_heterogeneous.c): u(x, y, 0) =
 * exp(-((x - W2_X0)^2 + y^2) / (2 W2_SIGMA^2)); the speed field is
 * io/coef_field.h's pf_wave2d_c. */
#ifndef PF_PDES_WAVE_2D_HETEROGENEOUS_H
#define PF_PDES_WAVE_2D_HETEROGENEOUS_H

#define W2_X0 (-0.5)
#define W2_SIGMA 0.3

#endif
