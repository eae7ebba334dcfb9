# poisson_2d_classic — PINNacle Poisson2D_Classic(scale=1) (docs/pdes.md
# section 14): Laplace's equation on a square with four holes, the built-in
# pdes/poisson_2d_classic.c written as a file.
pde poisson_2d_classic
title "Laplace equation on a square with four circular holes"

inputs x, y
outputs u

param r = 0.1     # the holes' radius
param c = 0.3     # their centres' distance from the axes

# the four circles share one name, so they form one boundary part
domain box([-0.5, 0.5], [-0.5, 0.5])
    - disk(c, c, r) as hole_r01 - disk(-c, c, r) as hole_r01
    - disk(c, -c, r) as hole_r01 - disk(-c, -c, r) as hole_r01
part outer = x_lo, x_hi, y_lo, y_hi

equation lap(u) = 0

dirichlet bc_outer on outer: u = 1
dirichlet bc_holes on hole_r01: u = 0

reference "poisson1_cg_data.dat" columns x, y, u   # COMSOL rows X Y u

tags complex_geometry
statement """
Solve Lap u = 0 on [-0.5,0.5]^2 minus the four disks of radius 0.1 centred at
(+-0.3, +-0.3), with u = 1 on the outer square and u = 0 on the four circles.
"""
