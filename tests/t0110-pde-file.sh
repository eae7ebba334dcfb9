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
# it is named as not compiled yet.
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

head -c 2000000 /dev/zero >"$tmp/huge.pde"
expect_rc 1 "a huge file is refused" "$PF_PDE" check "$tmp/huge.pde"
check "huge: says why" grep -q "larger than 1048576 bytes" "$tmp/err"
expect_rc 1 "a missing file" "$PF_PDE" check "$tmp/none.pde"
check "missing: names it" grep -q "cannot open '$tmp/none.pde'" "$tmp/err"
expect_rc 2 "check without an argument" "$PF_PDE" check
check "--help names check FILE" sh -c "'$PF_PDE' --help | grep -q 'check NAME|FILE.pde'"
finish
