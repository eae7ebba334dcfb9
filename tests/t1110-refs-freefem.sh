#!/bin/sh
# t1110-refs-freefem.sh — the FreeFEM reference of heat_2d_complex_geometry
# (refs/heat_2d_complex_geometry.edp and pf-ref-heat_2d_complex_geometry)
# at coarse resolutions; about 10 s on two cores.
#
#   tests/t1110-refs-freefem.sh BUILD/bin float|double     (make test runs it)
#
# Checks:
# - the script on a manufactured solution, u = cos(0.5 x + 0.3 y - t) on the
#   same holed domain with its Robin data and forcing, T = 1: the relative
#   L2 error at T below 1e-3 at n = 16 (h = 1, circles h/4) and an order of
#   at least 2.3 from n = 8 (S = 2 steps per 0.1) to n = 16 (S = 4): P2 on
#   polygonal circles, BDF2 (measured: 2.1e-3, 3.6e-4, order 2.54);
# - the program without FreeFem++ on PATH: exit 2 saying to install it;
# - make refs PDE=heat_2d_complex_geometry at n 8 / 16: the file (1448
#   nodes x 31 times), its manifest (SHA-256, the two meshes, a
#   self-convergence figure), pf-pde list (data (generated), 44888 points)
#   and pf-pde check.
# Skipped, saying so, when FreeFem++ is not installed.
. "$(dirname "$0")/lib.sh"
float_only
if ! command -v FreeFem++ >/dev/null 2>&1; then
    echo "$TEST_NAME: skipped: FreeFem++ not found on PATH (Debian package freefem++; scripts/install-deps.sh installs it)"
    finish
    exit 0
fi
pde=heat_2d_complex_geometry
edp=$ROOT/refs/$pde.edp

# --- the manufactured solution
printf '3\n-6 -10.5\n1.7 4.5\n5.5 -1.2\n' >"$tmp/pts.txt"
mms() { # mms N S: prints "rel_l2 max_at_points"
    FreeFem++ -nw -ne "$edp" -case mms -n "$1" -substeps "$2" -first 8 -holes 4 -T 1 -K 10 \
        -pts "$tmp/pts.txt" -out "$tmp/mms_$1.txt" 2>&1 | sed -n 's/^mms //p'
}
e8=$(mms 8 2)
e16=$(mms 16 4)
check "mms: the script ran at n 8" test -n "$e8"
check "mms: the script ran at n 16" test -n "$e16"
check "mms: its values file is whole (3 points x 10 times, 'end')" \
    sh -c "head -1 '$tmp/mms_16.txt' | grep -qx '3 10' && tail -1 '$tmp/mms_16.txt' | grep -qx end"
echo "$TEST_NAME: mms rel L2 at T=1: n 8 ${e8%% *}, n 16 ${e16%% *}, order" \
    "$(awk -v a="${e8%% *}" -v b="${e16%% *}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", log(a / b) / log(2) }')"
check "mms: error at n 16 below 1e-3" awk -v e="${e16%% *}" 'BEGIN { exit !(e + 0 > 0 && e < 1e-3) }'
check "mms: order at least 2.3 from n 8 to 16" \
    awk -v a="${e8%% *}" -v b="${e16%% *}" 'BEGIN { exit !(a > 0 && b > 0 && log(a / b) / log(2) >= 2.3) }'
check "mms: the point values agree (max error below 2e-3)" awk -v e="${e16##* }" 'BEGIN { exit !(e < 2e-3) }'

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
pipeline refs PDE=$pde PF_REFS_DIR="$data" REFS_ARGS="--n 8 --substeps 1" >"$tmp/out" 2>"$tmp/err"
eq "make refs: exit code" $? 0
check "the reference is there" test -s "$dat"
check "no temporary folder left (in TMPDIR)" sh -c "! ls -d '$tmp'/pf-ref-heat-* 2>/dev/null | grep -q ."
eq "the file's rows: 1448 nodes" "$(grep -vc '^%' "$dat")" 1448
eq "the file's columns: x y and 31 times" "$(grep -v '^%' "$dat" | head -1 | wc -w)" 33
json() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$man" "$1"; }
eq "manifest: sha256 of the file" "$(json 'm["sha256"]')" "$(sha256sum "$dat" | cut -d' ' -f1)"
eq "manifest: the two meshes" "$(json '[r["n"] for r in m["resolutions"]]')" "[8, 16]"
check "manifest: self-convergence below 5e-2 even here" \
    python3 -c "import json,sys; sys.exit(not json.load(open('$man'))['self_convergence_rel_l2'] < 5e-2)"
after=$(PF_REFS_DIR=$data "$BIN/pf-pde" list | grep "^$pde ")
check "pf-pde list says data (generated)" sh -c "echo '$after' | grep -q 'data (generated)\$'"
check "with 44888 evaluation points" sh -c "echo '$after' | grep -q ' 44888 '"
expect_rc 0 "pf-pde check reads the reference" env PF_REFS_DIR="$data" "$BIN/pf-pde" check $pde
finish
