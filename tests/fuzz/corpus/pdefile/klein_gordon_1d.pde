# klein_gordon_1d — the nonlinear Klein-Gordon equation with a manufactured
# solution (Wang, Teng and Perdikaris 2021): u_tt - alpha u_xx + beta u +
# gamma u^3 = f on [0,1] x [0,1] with alpha = -1, beta = 0, gamma = 1 and
# exact solution u = x cos(5 pi t) + (x t)^3.
pde klein_gordon_1d
title "Nonlinear Klein-Gordon equation with a manufactured solution"

inputs x, t
outputs u
time t in [0, 1]

param alpha = -1
param beta = 0
param gamma = 1
param w = 5*pi

domain interval(0, 1)

# f = u*_tt - alpha u*_xx + beta u* + gamma u*^3
equation u_tt - alpha*u_xx + beta*u + gamma*u^3 =
    -w^2*x*cos(w*t) + 6*x^3*t - alpha*6*x*t^3
    + beta*(x*cos(w*t) + (x*t)^3) + gamma*(x*cos(w*t) + (x*t)^3)^3

initial ic: u = x
initial_rate ic_rate: u_t = 0
dirichlet left on x_lo: u = 0
dirichlet right on x_hi: u = cos(w*t) + t^3

exact u = x*cos(w*t) + (x*t)^3

tags nonlinear
statement """
Solve u_tt + u_xx + u^3 = f on x in [0,1], t in [0,1], with f such that the
solution is u = x cos(5 pi t) + (x t)^3: u(x,0) = x, u_t(x,0) = 0, u(0,t) = 0
and u(1,t) = cos(5 pi t) + t^3.
"""
