/* burgers_2d's viscosity, shared by its PDE file and its reference solver
 * (refs/burgers_2d.c); the initial fields are io/coef_field.h's closed
 * form (pf_burgers2d_ic_eval). */
#ifndef PF_PDES_BURGERS_2D_H
#define PF_PDES_BURGERS_2D_H

#define B2_NU 1e-3

#endif
