# burgers_1d — PINNacle Burgers1D (docs/pdes.md section 1), the built-in
# pdes/burgers_1d.c written as a file.
pde burgers_1d
title "Viscous Burgers equation with a shock forming at x = 0"

inputs x, t
outputs u
time t in [0, 1]

param nu = 0.01 / pi

domain interval(-1, 1)            # ends: the parts x_lo and x_hi

equation u_t + u*u_x - nu*u_xx

initial ic: u = -sin(pi*x)
dirichlet bc on x_lo, x_hi: u = 0

# the initial condition carried along t (it vanishes at x = +-1, so it is
# also the lift of the walls), plus a factor that is zero on both
hard initial_and_walls satisfies ic, bc: u = -sin(pi*x) + t*(1 - x^2)*net(u)

reference "burgers1d.dat" snapshots   # PINNacle's COMSOL file in PF_DATA_DIR

tags nonlinear, steep
latex "u_t+uu_x-\\frac{0.01}{\\pi}u_{xx}=0;\\ u(x,0)=-\\sin\\pi x,\\ u(\\pm1,t)=0"
statement """
Solve u_t + u u_x = (0.01/pi) u_xx on x in [-1,1], t in [0,1], with
u(x,0) = -sin(pi x) and u(-1,t) = u(1,t) = 0.
"""
