# wave_1d — PINNacle Wave1D(C=2, a=4) (docs/pdes.md section 20), the built-in
# pdes/wave_1d.c written as a file.
pde wave_1d
title "One-dimensional wave equation with two modes"

inputs x, t
outputs u
time t in [0, 1]

domain interval(0, 1)

equation u_tt - 4*u_xx

initial ic: u = sin(pi*x) + 0.5*sin(4*pi*x)
initial_rate ic_rate: u_t = 0
dirichlet bc on x_lo, x_hi: u = 0

# the initial shape carried along t, plus x(1-x) t^2 N: u, u_t at t = 0 and
# the walls hold exactly
hard initial_and_walls satisfies ic, ic_rate, bc:
    u = sin(pi*x) + 0.5*sin(4*pi*x) + x*(1 - x)*t^2*net(u)

exact u = sin(pi*x)*cos(2*pi*t) + 0.5*sin(4*pi*x)*cos(8*pi*t)
# PINNacle codes wave_1d as a box in (x, t): its grid rule on that box
# (50 x 50 at k/51), not the rule's space-time levels
evaluate box grid

tags multiscale
statement """
Solve u_tt = 4 u_xx on x in [0,1], t in [0,1], with u(x,0) = sin(pi x) +
0.5 sin(4 pi x), u_t(x,0) = 0 and u(0,t) = u(1,t) = 0.
"""
