# advection_1d — linear advection with periodic boundaries (the "failure
# modes" convection problem of Krishnapriyan et al. 2021, at a moderate speed):
# u_t + beta u_x = 0 on [0, 2 pi] x [0, 1], u(x, 0) = sin(x), periodic in x;
# exact solution u = sin(x - beta t).
pde advection_1d
title "Linear advection of a sine wave, periodic in space"

inputs x, t
outputs u
time t in [0, 1]

param beta = 5

domain interval(0, 2*pi)

equation u_t + beta*u_x = 0

initial ic: u = sin(x)
periodic px along x: u

exact u = sin(x - beta*t)

statement """
Solve u_t + 5 u_x = 0 on x in [0, 2 pi], t in [0, 1], with u(x,0) = sin(x)
and u periodic in x; the solution is sin(x - 5 t).
"""
