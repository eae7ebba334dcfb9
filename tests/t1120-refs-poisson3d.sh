#!/bin/sh
# t1120-refs-poisson3d.sh — the FreeFEM reference of poisson_3d_complex_geometry
# (refs/poisson_3d_complex_geometry.edp and pf-ref-poisson_3d_complex_geometry)
# at coarse resolutions; about 20 s on two cores (the P3 run at n 16 is most of it).
#
#   tests/t1120-refs-poisson3d.sh BUILD/bin float|double     (make test runs it)
#
# Checks:
# - the script on a manufactured solution, u = cos(3x + 5y + 4z) on the same
#   holed cube with the PDE's kappa (64 below z = 0.5, 100 above; f = (50 +
#   kappa) u jumps there, u and its flux do not) and Neumann data du/dn on
#   every boundary, P3: the relative L2 error below 3e-4 at n 8 and an order
#   of at least 3.7 from n 4 to n 8 (measured: 2.5e-3, 1.3e-4, order 4.28;
#   a mesh that did not have z = 0.5 as an interface would lose the order);
# - the program without FreeFem++ on PATH, and with a FreeFem++ that cannot
#   load its plugins: exit 2 saying what to install;
# - make refs PDE=poisson_3d_complex_geometry at n 8 / 16: the file (20108
#   rows x y z u), its manifest (SHA-256, the two meshes, a self-convergence
#   figure), pf-pde list (data (generated), 20108 points) and pf-pde check.
# Skipped, saying so, when FreeFem++ or its plugins (Debian libfreefem++)
# are not installed.
. "$(dirname "$0")/lib.sh"
float_only
pde=poisson_3d_complex_geometry
edp=$ROOT/refs/$pde.edp
if ! command -v FreeFem++ >/dev/null 2>&1; then
    echo "$TEST_NAME: skipped: FreeFem++ not found on PATH (Debian package freefem++; scripts/install-deps.sh installs it)"
    finish
    exit 0
fi
# Debian's plugins folder, as the program sets it (see its DEBIAN_PLUGINS)
[ -z "${FF_LOADPATH:-}" ] && [ -f /usr/lib/freefem++/tetgen.so ] && export FF_LOADPATH=/usr/lib/freefem++
printf 'load "msh3"\nload "tetgen"\nload "Element_P3"\n' >"$tmp/probe.edp"
if ! FreeFem++ -nw -ne "$tmp/probe.edp" >"$tmp/probe.log" 2>&1; then
    echo "$TEST_NAME: skipped: FreeFem++ cannot load msh3, tetgen, Element_P3 (Debian package libfreefem++; scripts/install-deps.sh installs it)"
    finish
    exit 0
fi

# --- the manufactured solution
printf '3\n0.1 0.1 0.1\n0.9 0.5 0.45\n0.3 0.6 0.9\n' >"$tmp/pts.txt"
mms() { # mms N: prints "rel_l2 max_at_points"
    FreeFem++ -nw -ne "$edp" -case mms -order 3 -n "$1" -pts "$tmp/pts.txt" -out "$tmp/mms_$1.txt" 2>&1 |
        sed -n 's/^mms //p'
}
e4=$(mms 4)
e8=$(mms 8)
check "mms: the script ran at n 4" test -n "$e4"
check "mms: the script ran at n 8" test -n "$e8"
check "mms: its values file is whole (3 points x 1, 'end')" \
    sh -c "head -1 '$tmp/mms_8.txt' | grep -qx '3 1' && tail -1 '$tmp/mms_8.txt' | grep -qx end"
echo "$TEST_NAME: mms rel L2: n 4 ${e4%% *}, n 8 ${e8%% *}, order" \
    "$(awk -v a="${e4%% *}" -v b="${e8%% *}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", log(a / b) / log(2) }')"
check "mms: error at n 8 below 3e-4" awk -v e="${e8%% *}" 'BEGIN { exit !(e + 0 > 0 && e < 3e-4) }'
check "mms: order at least 3.7 from n 4 to 8" \
    awk -v a="${e4%% *}" -v b="${e8%% *}" 'BEGIN { exit !(a > 0 && b > 0 && log(a / b) / log(2) >= 3.7) }'
check "mms: the point values agree (max error below 2e-4)" awk -v e="${e8##* }" 'BEGIN { exit !(e < 2e-4) }'

# --- no FreeFem++, no plugins
expect_rc 2 "without FreeFem++: exit 2" env PATH=/nonexistent "$BIN/pf-ref-$pde" --out "$tmp/x.dat" --manifest "$tmp/x.json"
check "saying to install freefem++" grep -q "FreeFem++ was not found on PATH.*freefem++" "$tmp/err"
printf '#!/bin/sh\necho " Load error : msh3"\nexit 1\n' >"$tmp/FreeFem++"
chmod +x "$tmp/FreeFem++"
mkdir "$tmp/fail" # the failed run leaves its log there
expect_rc 2 "without the plugins: exit 2" env PF_FREEFEM="$tmp/FreeFem++" TMPDIR="$tmp/fail" \
    "$BIN/pf-ref-$pde" --out "$tmp/x.dat" --manifest "$tmp/x.json" --n 8
check "saying to install libfreefem++" grep -q "cannot load its plugins.*libfreefem++" "$tmp/err"
expect_rc 2 "an odd --n: exit 2" "$BIN/pf-ref-$pde" --out "$tmp/x.dat" --manifest "$tmp/x.json" --n 9
expect_rc 0 "--help" "$BIN/pf-ref-$pde" --help
check "--help tells the options" grep -q -- "--n N" "$tmp/out"

# --- make refs, coarse
data=$tmp/generated
dat=$data/$pde.dat
man=$data/$pde.manifest.json
export TMPDIR="$tmp"
pipeline refs PDE=$pde PF_REFS_DIR="$data" REFS_ARGS="--n 8" >"$tmp/out" 2>"$tmp/err"
eq "make refs: exit code" $? 0
check "the reference is there" test -s "$dat"
check "no temporary folder left (in TMPDIR)" sh -c "! ls -d '$tmp'/pf-ref-poisson3d-* 2>/dev/null | grep -q ."
eq "the file's header" "$(head -1 "$dat")" "% x y z u"
eq "the file's rows: 20108 points" "$(grep -vc '^%' "$dat")" 20108
eq "the file's columns: x y z u" "$(grep -v '^%' "$dat" | head -1 | wc -w)" 4
check "u within [-1.3, 0.5] (the solution's range is about -1.18 .. 0.41)" \
    awk '!/^%/ { if ($4 < -1.3 || $4 > 0.5) exit 1 }' "$dat"
json() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$man" "$1"; }
eq "manifest: sha256 of the file" "$(json 'm["sha256"]')" "$(sha256sum "$dat" | cut -d' ' -f1)"
eq "manifest: the two meshes" "$(json '[r["n"] for r in m["resolutions"]]')" "[8, 16]"
check "manifest: self-convergence below 1e-2 even here (measured 4.2e-3)" \
    python3 -c "import json,sys; sys.exit(not json.load(open('$man'))['self_convergence_rel_l2'] < 1e-2)"
after=$(PF_REFS_DIR=$data "$BIN/pf-pde" list | grep "^$pde ")
check "pf-pde list says data (generated)" sh -c "echo '$after' | grep -q 'data (generated)\$'"
check "with 20108 evaluation points" sh -c "echo '$after' | grep -q ' 20108 '"
expect_rc 0 "pf-pde check reads the reference" env PF_REFS_DIR="$data" "$BIN/pf-pde" check $pde
finish
