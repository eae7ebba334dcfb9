#!/bin/sh
# t1125-refs-agreement.sh — our generated references against the COMSOL
# values of PINNacle's lost files, for the three whose text survives in a
# third-party copy (data/checks/<pde>.comsol-sample.tsv; docs/pdes.md R.3);
# about 30 s of CPU on two cores (the coarse Navier-Stokes run is most of it).
#
#   tests/t1125-refs-agreement.sh BUILD/bin float|double     (make test runs it)
#
# Checks (figures measured at writing in brackets):
# - poisson_3d_complex_geometry, refs/poisson_3d_complex_geometry.edp run at
#   the 579 COMSOL nodes, P2, n 8 (docs/pdes.md 17):
#   - the PDE as PINNacle's code states it, four balls: relative L2 gap
#     3% to 6% (4.1%); 0.1 around the small ball (0.6, 0.2, 0.3) ours lower
#     by more than 0.025 on average (0.038); 0.15 and more from every sphere
#     below 2% (0.9%);
#   - the two small balls left out of the domain (-small 0), as the COMSOL
#     file was computed: below 2% everywhere (1.3%), around the small ball
#     below 2% (0.9%) and within 0.005 on average (0.001);
# - heat_2d_complex_geometry and navier_stokes_2d_long_time, make refs at
#   n 8 (as tests t1110 and t1130), interpolated to the COMSOL nodes: heat
#   below 3% at t 0.5, 1, 2, 3 (1.4%); u, v at the 5 nodes inside the grid
#   below 10% at t 0.5 to 5 (6.1%);
# - the full references in PF_REFS_DIR (default data/generated), each when
#   it is there (`make refs PDE=<pde>`), else skipped saying so: poisson
#   3% to 6% (4.0% measured with a P2 n 16 stand-in on the same grid) and
#   below 3% away from the spheres (2.0%: the grid's interpolation error);
#   heat below 2% (1.5%); Navier-Stokes below 10% (not measured: the full
#   reference takes 7 minutes of CPU; 6.1% at n 8 / 16).
# Skipped, saying so, when FreeFem++ or its plugins (Debian libfreefem++)
# are not installed.
. "$(dirname "$0")/lib.sh"
float_only
checks=$ROOT/data/checks
agree() { python3 "$ROOT/tests/refs_agreement.py" "$@" 2>&1; }
field() { # field NAME "LINE": the number after NAME in refs_agreement.py's line
    echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}
below() { awk -v x="$1" -v b="$2" 'BEGIN { exit !(x != "" && x + 0 == x && x < b) }'; }
between() { awk -v x="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(x != "" && x >= a && x < b) }'; }
away="--away 0.4 0.3 0.6 0.2 0.15 --away 0.6 0.7 0.6 0.2 0.15 --away 0.2 0.8 0.7 0.1 0.15 --away 0.6 0.2 0.3 0.1 0.15"
near="--near 0.6 0.2 0.3 0.1 0.1"

# --- the helper itself: a sample equal to a grid's values agrees exactly
printf '%% x y u\n0 0 1\n1 0 2\n0 1 3\n1 1 4\n' >"$tmp/grid.dat"
printf '# x y u\n0.5 0.5 2.5\n0.25 0 1.25\n' >"$tmp/exact.tsv"
printf '# x y u\n0.5 0.5 5\n' >"$tmp/double.tsv"
eq "refs_agreement.py: bilinear values are exact" "$(field rel_l2 "$(agree grid "$tmp/grid.dat" "$tmp/exact.tsv" 2 0)")" 0
eq "refs_agreement.py: half the COMSOL value is a gap of 0.5" \
    "$(field rel_l2 "$(agree grid "$tmp/grid.dat" "$tmp/double.tsv" 2 0)")" 0.5

if ! command -v FreeFem++ >/dev/null 2>&1; then
    echo "$TEST_NAME: skipped: FreeFem++ not found on PATH (Debian package freefem++; scripts/install-deps.sh installs it)"
    finish
    exit
fi
[ -z "${FF_LOADPATH:-}" ] && [ -f /usr/lib/freefem++/tetgen.so ] && export FF_LOADPATH=/usr/lib/freefem++
printf 'load "msh3"\nload "tetgen"\nload "Element_P3"\n' >"$tmp/probe.edp"
if ! FreeFem++ -nw -ne "$tmp/probe.edp" >"$tmp/probe.log" 2>&1; then
    echo "$TEST_NAME: skipped: FreeFem++ cannot load msh3, tetgen, Element_P3 (Debian package libfreefem++; scripts/install-deps.sh installs it)"
    finish
    exit
fi

# --- poisson_3d_complex_geometry at the COMSOL nodes
pde=poisson_3d_complex_geometry
sample=$checks/$pde.comsol-sample.tsv
{ grep -vc '^#' "$sample"; grep -v '^#' "$sample" | awk '{ print $1, $2, $3 }'; } >"$tmp/pts.txt"
solve() { # solve SMALL: P2, n 8, values at the nodes into $tmp/u_SMALL.txt
    FreeFem++ -nw -ne "$ROOT/refs/$pde.edp" -n 8 -order 2 -small "$1" -pts "$tmp/pts.txt" \
        -out "$tmp/u_$1.txt" >"$tmp/ff_$1.log" 2>&1
}
solve 1
solve 0
all=$(agree points "$tmp/u_1.txt" "$sample" 3)
around=$(agree points "$tmp/u_1.txt" "$sample" 3 $near)
far=$(agree points "$tmp/u_1.txt" "$sample" 3 $away)
echo "$TEST_NAME: $pde, four balls: all $(field rel_l2 "$all"), around the small ball" \
    "$(field rel_l2 "$around") (mean gap $(field mean_diff "$around")), far $(field rel_l2 "$far")"
eq "poisson: all 579 nodes compared" "$(field used "$all")" 579
check "poisson, four balls: gap 3% to 6%" between "$(field rel_l2 "$all")" 0.03 0.06
check "poisson, four balls: ours lower around the small ball (by > 0.025)" below "$(field mean_diff "$around")" -0.025
check "poisson, four balls: below 2% away from the spheres" below "$(field rel_l2 "$far")" 0.02
all=$(agree points "$tmp/u_0.txt" "$sample" 3)
around=$(agree points "$tmp/u_0.txt" "$sample" 3 $near)
echo "$TEST_NAME: $pde, small balls left out: all $(field rel_l2 "$all"), around the small ball" \
    "$(field rel_l2 "$around") (mean gap $(field mean_diff "$around"))"
check "poisson, small balls left out: below 2%" below "$(field rel_l2 "$all")" 0.02
check "poisson, small balls left out: below 2% around the small ball" below "$(field rel_l2 "$around")" 0.02
check "poisson, small balls left out: mean gap there within 0.005" \
    awk -v m="$(field mean_diff "$around")" 'BEGIN { exit !(m != "" && m > -0.005 && m < 0.005) }'

# --- heat and Navier-Stokes, coarse references
heat=heat_2d_complex_geometry ns=navier_stokes_2d_long_time
heat_cols="5 10 20 30"                           # t = 0.5, 1, 2, 3 of 0, 0.1, .., 3
ns_cols="15 16 30 31 45 46 75 76 105 106 150 151" # (u, v) at t = 0.5, 1, 1.5, 2.5, 3.5, 5
export TMPDIR="$tmp"
pipeline refs PDE=$heat PF_REFS_DIR="$tmp/coarse" REFS_ARGS="--n 8 --substeps 1" >"$tmp/out" 2>"$tmp/err"
eq "make refs $heat at n 8: exit code" $? 0
pipeline refs PDE=$ns PF_REFS_DIR="$tmp/coarse" REFS_ARGS="--n 8 --substeps 4" >"$tmp/out" 2>"$tmp/err"
eq "make refs $ns at n 8: exit code" $? 0
h=$(agree grid "$tmp/coarse/$heat.dat" "$checks/$heat.comsol-sample.tsv" 2 $heat_cols)
n=$(agree grid "$tmp/coarse/$ns.dat" "$checks/$ns.comsol-sample.tsv" 2 $ns_cols --within-grid)
echo "$TEST_NAME: coarse: $heat $(field rel_l2 "$h") at $(field used "$h") nodes, $ns $(field rel_l2 "$n") at $(field used "$n")"
eq "heat: all 37 nodes compared" "$(field used "$h")" 37
check "heat (n 8): below 3%" below "$(field rel_l2 "$h")" 0.03
eq "navier-stokes: the 5 nodes inside the grid compared" "$(field used "$n")" 5
check "navier-stokes (n 8): u, v below 10%" below "$(field rel_l2 "$n")" 0.10

# --- the full references, where make refs has built them
refs=${PF_REFS_DIR:-$ROOT/data/generated}
full() { # full PDE: the reference is there, else say so
    [ -f "$refs/$1.dat" ] && return 0
    echo "$TEST_NAME: skipped the full $1: $refs/$1.dat not built (make refs PDE=$1)"
    return 1
}
if full $pde; then
    all=$(agree grid "$refs/$pde.dat" "$sample" 3 0)
    far=$(agree grid "$refs/$pde.dat" "$sample" 3 0 $away)
    echo "$TEST_NAME: full $pde: all $(field rel_l2 "$all"), far $(field rel_l2 "$far")"
    check "full poisson: gap 3% to 6%" between "$(field rel_l2 "$all")" 0.03 0.06
    check "full poisson: below 3% away from the spheres" below "$(field rel_l2 "$far")" 0.03
fi
if full $heat; then
    h=$(agree grid "$refs/$heat.dat" "$checks/$heat.comsol-sample.tsv" 2 $heat_cols)
    echo "$TEST_NAME: full $heat: $(field rel_l2 "$h")"
    check "full heat: below 2%" below "$(field rel_l2 "$h")" 0.02
fi
if full $ns; then
    n=$(agree grid "$refs/$ns.dat" "$checks/$ns.comsol-sample.tsv" 2 $ns_cols --within-grid)
    echo "$TEST_NAME: full $ns: $(field rel_l2 "$n")"
    check "full navier-stokes: u, v below 10%" below "$(field rel_l2 "$n")" 0.10
fi
finish
