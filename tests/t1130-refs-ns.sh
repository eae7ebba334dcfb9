#!/bin/sh
# t1130-refs-ns.sh — the FreeFEM reference of navier_stokes_2d_long_time
# (refs/navier_stokes_2d_long_time.edp and pf-ref-navier_stokes_2d_long_time)
# at coarse resolutions; about 12 s of CPU (33 s with the two cores at load 7).
#
#   tests/t1130-refs-ns.sh BUILD/bin float|double     (make test runs it)
#
# Checks:
# - the script on two manufactured solutions with the PDE's domain,
#   boundary conditions (Dirichlet at the inlet and the walls, a traction
#   at the outlet), scheme and graded mesh, t <= 1:
#   u = g(t) (sin(pi x) cos(pi y), -cos(pi x) sin(pi y)), p = g(t) sin(pi x)
#   sin(pi y), g = cos(2 pi t): relative L2 velocity error below 2e-3 at
#   n 16 (S = 8 steps per 0.1), an order of at least 3.3 from n 8 (S = 4)
#   for the velocity (P2, BDF4) and 1.8 for the pressure (P1) (measured:
#   1.15e-2, 8.2e-4, order 3.80; pressure 1.9e-2, 4.5e-3, 2.11);
#   u = g(t) (2xy - x^2, 2xy - y^2), p = g(t)(x + y), which P2/P1 hold
#   exactly, so only the time stepping errs: at n 4 an order of at least
#   3.5 from S = 4 to S = 8 (measured 1.8e-4, 1.24e-5: 3.85);
# - the program without FreeFem++ on PATH: exit 2 saying to install it;
# - make refs PDE=navier_stokes_2d_long_time at n 8 / 16 (S 4 / 8): the
#   file (98 nodes x 51 times x u, v, p, zero at t = 0), its manifest
#   (SHA-256, the two meshes, a self-convergence figure overall and per
#   field), pf-pde list (data (generated), 4998 points) and pf-pde check.
# Skipped, saying so, when FreeFem++ is not installed.
. "$(dirname "$0")/lib.sh"
float_only
if ! command -v FreeFem++ >/dev/null 2>&1; then
    echo "$TEST_NAME: skipped: FreeFem++ not found on PATH (Debian package freefem++; scripts/install-deps.sh installs it)"
    finish
    exit 0
fi
export OPENBLAS_NUM_THREADS=1
pde=navier_stokes_2d_long_time
edp=$ROOT/refs/$pde.edp

# --- the manufactured solutions
printf '3\n0.5 0.3\n1.2 0.7\n1.9 0.5\n' >"$tmp/pts.txt"
mms() { # mms CASE N S: prints "velocity_rel_l2 pressure_rel_l2 max_at_points"
    FreeFem++ -nw -ne "$edp" -case "$1" -n "$2" -substeps "$3" -T 1 -K 10 \
        -pts "$tmp/pts.txt" -out "$tmp/mms_$1_$2_$3.txt" 2>&1 | sed -n 's/^mms //p'
}
order() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", log(a / b) / log(2); else print 0 }'; }
e8=$(mms mms 8 4)
e16=$(mms mms 16 8)
check "mms: the script ran at n 8" test -n "$e8"
check "mms: the script ran at n 16" test -n "$e16"
check "mms: its values file is whole (3 points x 3 fields x 10 times, 'end')" \
    sh -c "head -1 '$tmp/mms_mms_16_8.txt' | grep -qx '3 30' && tail -1 '$tmp/mms_mms_16_8.txt' | grep -qx end"
set -- $e8
u8=$1 p8=$2
set -- $e16
u16=$1 p16=$2 m16=$3
echo "$TEST_NAME: mms rel L2 at T=1, velocity: n 8 $u8, n 16 $u16, order $(order "$u8" "$u16");" \
    "pressure: $p8, $p16, order $(order "$p8" "$p16")"
check "mms: velocity error at n 16 below 2e-3" awk -v e="$u16" 'BEGIN { exit !(e + 0 > 0 && e < 2e-3) }'
check "mms: velocity order at least 3.3 from n 8 to 16" awk -v o="$(order "$u8" "$u16")" 'BEGIN { exit !(o >= 3.3) }'
check "mms: pressure order at least 1.8 from n 8 to 16" awk -v o="$(order "$p8" "$p16")" 'BEGIN { exit !(o >= 1.8) }'
check "mms: the point values agree (max error below 2e-3)" awk -v e="$m16" 'BEGIN { exit !(e < 2e-3) }'
t4=$(mms mmst 4 4)
t8=$(mms mmst 4 8)
echo "$TEST_NAME: mmst (exact in space) velocity rel L2 at T=1: S 4 ${t4%% *}, S 8 ${t8%% *}," \
    "order $(order "${t4%% *}" "${t8%% *}")"
check "mmst: velocity error at S 8 below 5e-5" awk -v e="${t8%% *}" 'BEGIN { exit !(e + 0 > 0 && e < 5e-5) }'
check "mmst: order in time at least 3.5 from S 4 to 8" \
    awk -v o="$(order "${t4%% *}" "${t8%% *}")" 'BEGIN { exit !(o >= 3.5) }'

# --- no FreeFem++
expect_rc 2 "without FreeFem++: exit 2" env PATH=/nonexistent "$BIN/pf-ref-$pde" --out "$tmp/x.dat" --manifest "$tmp/x.json"
check "saying to install freefem++" grep -q "FreeFem++ was not found on PATH.*freefem++" "$tmp/err"
expect_rc 0 "--help" "$BIN/pf-ref-$pde" --help
check "--help tells the options" grep -q -- "--substeps" "$tmp/out"

# --- make refs, coarse
data=$tmp/generated
dat=$data/$pde.dat
man=$data/$pde.manifest.json
export TMPDIR="$tmp"
pipeline refs PDE=$pde PF_REFS_DIR="$data" REFS_ARGS="--n 8 --substeps 4" >"$tmp/out" 2>"$tmp/err"
eq "make refs: exit code" $? 0
check "the reference is there" test -s "$dat"
check "no temporary folder left (in TMPDIR)" sh -c "! ls -d '$tmp'/pf-ref-ns-* 2>/dev/null | grep -q ."
eq "the file's rows: 98 nodes" "$(grep -vc '^%' "$dat")" 98
eq "the file's columns: x y and 51 times x u v p" "$(grep -v '^%' "$dat" | head -1 | wc -w)" 155
check "u, v, p are 0 at t = 0" sh -c "grep -v '^%' '$dat' | awk '\$3 != 0 || \$4 != 0 || \$5 != 0 { exit 1 }'"
json() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$man" "$1"; }
eq "manifest: sha256 of the file" "$(json 'm["sha256"]')" "$(sha256sum "$dat" | cut -d' ' -f1)"
eq "manifest: the two meshes" "$(json '[r["n"] for r in m["resolutions"]]')" "[8, 16]"
eq "manifest: self-convergence per field" "$(json 'sorted(m["self_convergence_rel_l2_by_field"])')" "['p', 'u', 'v']"
echo "$TEST_NAME: make refs at n 8/16: self-convergence $(json 'm["self_convergence_rel_l2"]')," \
    "by field $(json 'm["self_convergence_rel_l2_by_field"]'), outlet max |p| $(json 'm["outlet_max_abs_p"]')"
check "manifest: self-convergence below 1e-2 even here" \
    python3 -c "import json,sys; sys.exit(not json.load(open('$man'))['self_convergence_rel_l2'] < 1e-2)"
after=$(PF_REFS_DIR=$data "$BIN/pf-pde" list | grep "^$pde ")
check "pf-pde list says data (generated)" sh -c "echo '$after' | grep -q 'data (generated)\$'"
check "with 4998 evaluation points" sh -c "echo '$after' | grep -q ' 4998 '"
expect_rc 0 "pf-pde check reads the reference" env PF_REFS_DIR="$data" "$BIN/pf-pde" check $pde
finish
