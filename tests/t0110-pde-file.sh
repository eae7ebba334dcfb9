#!/bin/sh
# t0110-pde-file.sh — `pf-pde check FILE`: a PDE written as a .pde file
# (src/pdefile/pdefile.h), parsed, checked and described.
#
#   tests/t0110-pde-file.sh BUILD/bin float|double     (make test runs it)
#
# An example from examples/pdes/ is understood (inputs with time marked,
# derivative orders, constraints, reference) with exit 0; a broken file
# fails with exit 1 and FILE:LINE:COL messages on stderr, nothing on
# stdout; no argument is a usage error (2).
. "$(dirname "$0")/lib.sh"
PF_PDE=$BIN/pf-pde

expect_rc 0 "burgers_1d.pde checks" "$PF_PDE" check "$ROOT/examples/pdes/burgers_1d.pde"
check "name" grep -qx "name: burgers_1d" "$tmp/out"
check "inputs, time marked" grep -qx "inputs: x, t (time)" "$tmp/out"
check "parameter nu" grep -qx "parameter nu = 0.00318309886183791" "$tmp/out"
check "equation's orders" grep -qx "  derivative orders: x 2, t 1" "$tmp/out"
check "initial constraint" grep -q "^constraint ic: initial on initial, order 0" "$tmp/out"
check "dirichlet constraint" grep -q "^constraint bc: dirichlet on x_lo, x_hi, order 0" "$tmp/out"
check "reference" grep -qx "reference: data file burgers1d.dat, PINNacle snapshots, evaluated at its rows" "$tmp/out"
check "tags" grep -qx "tags: time_dependent, steep, nonlinear" "$tmp/out"
check "ok line" grep -q "burgers_1d.pde: ok$" "$tmp/out"
check "nothing on stderr" test ! -s "$tmp/err"

for f in "$ROOT"/examples/pdes/*.pde; do
    expect_rc 0 "$(basename "$f") checks" "$PF_PDE" check "$f"
done

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
