# helmholtz_2d — the Helmholtz equation with a manufactured source (DeepXDE's
# Helmholtz example): -Lap u - k^2 u = f on [-1,1]^2, u = 0 on the square,
# exact solution u = sin(a1 pi x) sin(a2 pi y).
pde helmholtz_2d
title "Helmholtz equation on a square with a two-scale manufactured solution"

inputs x, y
outputs u

param a1 = 1
param a2 = 4
param k = 1

domain box([-1, 1], [-1, 1])

equation -lap(u) - k^2*u = ((a1*pi)^2 + (a2*pi)^2 - k^2)*sin(a1*pi*x)*sin(a2*pi*y)

dirichlet bc on x_lo, x_hi, y_lo, y_hi: u = 0

hard box_bubble satisfies bc: u = bubble()*net(u)   # (x+1)(1-x)(y+1)(1-y) N

exact u = sin(a1*pi*x)*sin(a2*pi*y)

tags multiscale
statement """
Solve -Lap u - u = (17 pi^2 - 1) sin(pi x) sin(4 pi y) on [-1,1]^2 with u = 0
on the boundary; the solution is sin(pi x) sin(4 pi y).
"""
