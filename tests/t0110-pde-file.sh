#!/bin/sh
# t0110-pde-file.sh — `pf-pde check FILE`: a PDE written as a .pde file
# (src/pdefile/pdefile.h), parsed, checked, described and compiled, its
# reference loaded; `pf-pde show` and `pf-pde name` take the path.
#
#   tests/t0110-pde-file.sh BUILD/bin float|double     (make test runs it)
#
# An example from examples/pdes/ is understood (inputs with time marked,
# derivative orders, constraints, reference) with exit 0, or exit 1 naming
# its PINNacle reference file when that is not in PF_DATA_DIR; a broken
# file fails with exit 1 and FILE:LINE:COL messages on stderr, nothing on
# stdout; no argument is a usage error (2). A part with a `where`
# condition compiles, also among other parts; inside another `where` part
# it is named as not compiled yet. An exact solution must solve the
# equations and meet the constraints (else the equation or constraint and
# the worst point are named) and be finite; data files must hold finite
# values at points of the domain, each point once; an expression deeper
# than 256 operations is refused at its line:col.
. "$(dirname "$0")/lib.sh"
PF_PDE=$BIN/pf-pde
# the exit code of checking an example whose reference is PINNacle file $1
data_rc() { if [ -f "${PF_DATA_DIR:-data/ref}/$1" ]; then echo 0; else echo 1; fi; }

expect_rc "$(data_rc burgers1d.dat)" "burgers_1d.pde checks" "$PF_PDE" check "$ROOT/examples/pdes/burgers_1d.pde"
check "name" grep -qx "name: burgers_1d" "$tmp/out"
check "inputs, time marked" grep -qx "inputs: x, t (time)" "$tmp/out"
check "parameter nu" grep -qx "parameter nu = 0.00318309886183791" "$tmp/out"
check "equation's orders" grep -qx "  derivative orders: x 2, t 1" "$tmp/out"
check "initial constraint" grep -q "^constraint ic: initial on initial, order 0" "$tmp/out"
check "dirichlet constraint" grep -q "^constraint bc: dirichlet on x_lo, x_hi, order 0" "$tmp/out"
check "reference" grep -qx "reference: data file burgers1d.dat, PINNacle snapshots, evaluated at its rows" "$tmp/out"
check "tags" grep -qx "tags: time_dependent, steep, nonlinear" "$tmp/out"
if [ "$(data_rc burgers1d.dat)" -eq 0 ]; then
    check "ok line" grep -qx ".*burgers_1d.pde: ok; reference ok (1111 evaluation points)" "$tmp/out"
    check "nothing on stderr" test ! -s "$tmp/err"
else
    check "names the missing reference" grep -q "burgers1d.dat" "$tmp/err"
fi

for f in "$ROOT"/examples/pdes/*.pde; do
    case $(basename "$f") in
    burgers_1d.pde) want=$(data_rc burgers1d.dat) ;;
    poisson_2d_classic.pde) want=$(data_rc poisson1_cg_data.dat) ;;
    *) want=0 ;;
    esac
    expect_rc "$want" "$(basename "$f") checks" "$PF_PDE" check "$f"
    [ "$(basename "$f")" != helmholtz_2d.pde ] ||
        check "an exact solution's evaluation points" grep -qx ".*: ok; reference ok (2500 evaluation points)" "$tmp/out"
done
expect_rc 0 "show takes a path" "$PF_PDE" show "$ROOT/examples/pdes/helmholtz_2d.pde"
check "show: the compiled problem" grep -q "^  bc  *dirichlet  on x_lo,x_hi,y_lo,y_hi" "$tmp/out"
check "show: the transform" grep -q "^  box_bubble .*u = (bubble() \* net(u))" "$tmp/out"
check "show: an analytic reference" grep -qx "reference: analytic" "$tmp/out"
expect_rc 0 "name takes a path" "$PF_PDE" name "$ROOT/examples/pdes/helmholtz_2d.pde"
eq "the declared name" "$(cat "$tmp/out")" "helmholtz_2d"
expect_rc 0 "sample takes a path" "$PF_PDE" sample "$ROOT/examples/pdes/advection_1d.pde" --n 50 --out "$tmp/s.h5"
check "sample: the periodic constraint" grep -q "/constraints/px .*periodic on x_lo" "$tmp/out"

cat >"$tmp/where.pde" <<'PDE'
pde w
statement "a part with a condition"
inputs x, y
outputs u
domain box([0, 1], [0, 1])
part inflow = x_lo where y < 0.5
equation lap(u)
dirichlet bc on inflow: u = 1
PDE
expect_rc 0 "a part with a condition compiles" "$PF_PDE" check "$tmp/where.pde"
sed -i 's/^dirichlet bc on inflow:/dirichlet bc on inflow, x_hi:/' "$tmp/where.pde"
expect_rc 0 "among other parts it compiles" "$PF_PDE" check "$tmp/where.pde"
sed -i 's/^dirichlet bc on inflow, x_hi:/part low = inflow where x < 0.5\ndirichlet bc on low:/' "$tmp/where.pde"
expect_rc 1 "what does not compile yet fails" "$PF_PDE" check "$tmp/where.pde"
check "names it at its line:col" grep -qx "$tmp/where.pde:6:6: a part with a .where. condition inside another one cannot be compiled yet: join the two conditions with .and. in one part" "$tmp/err"

cat >"$tmp/bad.pde" <<'PDE'
pde bad
statement "a broken file"
inputs x, t
outputs u
time t in [0, 1]
domain interval(0, 1)
equation u_t + u*q_x - d(u, x, 5)
dirichlet bc on x_left: u = 0
PDE
expect_rc 1 "a broken file fails" "$PF_PDE" check "$tmp/bad.pde"
check "unknown name at its line:col" grep -qx "$tmp/bad.pde:7:18: unknown name 'q_x'.*" "$tmp/err"
check "order above 4" grep -q "^$tmp/bad.pde:7:24: d() is a derivative of order 5" "$tmp/err"
check "unknown part" grep -q "^$tmp/bad.pde:8:17: unknown boundary part 'x_left'" "$tmp/err"
check "nothing on stdout" test ! -s "$tmp/out"

printf 'pde a\nequation (u\n' >"$tmp/syntax.pde"
expect_rc 1 "a syntax error fails" "$PF_PDE" check "$tmp/syntax.pde"
eq "syntax error message" "$(cat "$tmp/err")" "$tmp/syntax.pde:3:1: expected ')' to close the '(' at 2:10, found the end of the file"

# An exact solution is checked against the equations and constraints (the
# jet engine's residuals at u*) and must be finite on the domain; the data
# files beside a file must hold finite values at points of the domain.
expect_rc 0 "helmholtz_2d.pde: its exact solution solves it" "$PF_PDE" check "$ROOT/examples/pdes/helmholtz_2d.pde"
check "says so" grep -q "^exact solution: satisfies every equation and constraint (largest residual .* of the terms' scale, at most 0.001)$" "$tmp/out"
sed 's/^equation -lap(u) - k^2\*u = /equation -lap(u) - k^2*u = -/' "$ROOT/examples/pdes/helmholtz_2d.pde" >"$tmp/flip.pde"
expect_rc 1 "a source term with its sign flipped fails" "$PF_PDE" check "$tmp/flip.pde"
check "names the equation and the worst point" grep -q "^$tmp/flip.pde:16:1: helmholtz_2d: the exact solution does not satisfy equation 1: its residual is .* of the terms' scale .*, the worst .* at x = .*, y = " "$tmp/err"
check "flipped: no ok line" sh -c "! grep -q ': ok;' '$tmp/out'"
cat >"$tmp/bc.pde" <<'PDE'
pde bcw
statement "a boundary value the exact solution does not meet"
inputs x
outputs u
domain interval(0, 1)
equation u_xx = 0
dirichlet bc on x_lo, x_hi: u = 1
exact u = x
PDE
expect_rc 1 "a constraint u* does not meet fails" "$PF_PDE" check "$tmp/bc.pde"
check "names the constraint" grep -q "^$tmp/bc.pde:7:1: bcw: the exact solution does not satisfy constraint bc: .*the worst -1 at x = 0$" "$tmp/err"
sed 's/^exact u = x$/exact u = sqrt(-1 - x)/; s/u = 1$/u = 0/' "$tmp/bc.pde" >"$tmp/nan.pde"
expect_rc 1 "an exact solution that is not finite fails" "$PF_PDE" check "$tmp/nan.pde"
check "names the formula and a point" grep -q "^$tmp/nan.pde:8:7: exact u = sqrt(((-1) - x)) is not finite (NaN) at x = " "$tmp/err"

mkdir "$tmp/obs"
cat >"$tmp/obs/o.pde" <<'PDE'
pde o
statement "observations beside the file"
inputs x
outputs u
domain interval(0, 1)
equation u_xx
observe data: u from "obs.csv"
PDE
for bad in "0.5,inf|obs.csv:2: column 'u': 'inf' is not a finite number" \
    "0.5,1e39|obs.csv:2: column 'u': '1e39' is beyond float32's range" \
    "10,1|obs.csv:2: the point x = 10 lies outside the domain (by 9; points on the boundary may lie outside by 1e-05)"; do
    printf 'x,u\n%s\n' "${bad%%|*}" >"$tmp/obs/obs.csv"
    expect_rc 1 "observations ${bad%%|*} fail" "$PF_PDE" check "$tmp/obs/o.pde"
    check "${bad%%|*}: says where" grep -qF "${bad#*|}" "$tmp/err"
done
printf 'x,x,u\n0.5,0.5,1\n' >"$tmp/obs/obs.csv"
expect_rc 1 "a column named twice fails" "$PF_PDE" check "$tmp/obs/o.pde"
check "names it" grep -qF "obs.csv:1: column 'x' named twice (fields 1 and 2)" "$tmp/err"
printf 'x,u\n0.5,1\n0.25,0\n0.5,2\n' >"$tmp/obs/obs.csv"
expect_rc 1 "a point with two values fails" "$PF_PDE" check "$tmp/obs/o.pde"
check "names both rows" grep -qF "obs.csv:4: the point x = 0.5 is also on line 2, with another value (u = 1 there, 2 here)" "$tmp/err"
printf '\357\273\277x,u\n0.5,1e-310\n1,0\n' >"$tmp/obs/obs.csv"
expect_rc 0 "a byte-order mark, a subnormal and a point on the boundary are read" "$PF_PDE" check "$tmp/obs/o.pde"

# 200,000 terms (400 KB): refused at the operator past the limit, not a crash
{ printf 'pde deep\nstatement "s"\ninputs x\noutputs u\ndomain interval(0, 1)\nequation u_xx\nexact u = x'
  head -c 400000 /dev/zero | tr '\0' '+' | sed 's/+/+x/g'; echo; } >"$tmp/deep.pde"
expect_rc 1 "a 200,000-term expression is refused" "$PF_PDE" check "$tmp/deep.pde"
check "at its line:col, with the limit" grep -qx "$tmp/deep.pde:7:522: expression more than 256 operations deep (.*" "$tmp/err"

head -c 2000000 /dev/zero >"$tmp/huge.pde"
expect_rc 1 "a huge file is refused" "$PF_PDE" check "$tmp/huge.pde"
check "huge: says why" grep -q "larger than 1048576 bytes" "$tmp/err"
expect_rc 1 "a missing file" "$PF_PDE" check "$tmp/none.pde"
check "missing: names it" grep -q "cannot open '$tmp/none.pde'" "$tmp/err"
expect_rc 2 "check without an argument" "$PF_PDE" check
check "--help names check FILE" sh -c "'$PF_PDE' --help | grep -q 'check NAME|FILE.pde'"
finish
