#!/bin/sh
# t0100-pf-pde-sample.sh — `pf-pde sample` end to end, read back with h5dump.
#
#   tests/t0100-pf-pde-sample.sh BUILD/bin float|double     (make test runs it)
#
# Checks the file layout and attributes an h5dump user sees, exit codes
# (0 ok, 1 runtime failure, 2 usage error), that failures leave no file,
# and that the same seed gives a byte-identical file. Needs h5dump
# (hdf5-tools, installed by scripts/install-deps.sh).
. "$(dirname "$0")/lib.sh"
PF_PDE=$BIN/pf-pde
REAL=H5T_IEEE_F32LE
[ "$PRECISION" = double ] && REAL=H5T_IEEE_F64LE
command -v h5dump >/dev/null 2>&1 || { echo "$0: h5dump not found (apt-get install hdf5-tools)" >&2; exit 1; }

# attr FILE OBJECT/NAME -> the attribute's value, quotes removed
attr() { h5dump -a "$2" "$1" 2>/dev/null | sed -n 's/^ *(0): "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p'; }
# shape FILE DATASET -> "( r, c )"
shape() { h5dump -H -d "$2" "$1" 2>/dev/null | sed -n 's/.*SIMPLE { \(([^)]*)\).*/\1/p'; }
dtype() { h5dump -H -d "$2" "$1" 2>/dev/null | sed -n 's/^ *DATATYPE  *\([A-Z0-9_]*\).*/\1/p' | head -n 1; }

# ---------------------------------------------------------------- wave_1d
f=$tmp/wave.h5
"$PF_PDE" sample wave_1d --n 64 --seed 5 --out "$f" >"$tmp/out" 2>"$tmp/err"
eq "wave_1d: exit code" $? 0
check "wave_1d: the file is there" test -f "$f"
check "wave_1d: no temp file left" test -z "$(find "$tmp" -name '*.tmp.*')"
check "wave_1d: summary names the file" grep -q "^wrote $f" "$tmp/out"
eq "root format" "$(attr "$f" /format)" pinnforge.samples
eq "root version" "$(attr "$f" /version)" 1
eq "root pde" "$(attr "$f" /pde)" wave_1d
eq "root inputs" "$(attr "$f" /inputs)" x,t
eq "root precision" "$(attr "$f" /precision)" "$PRECISION"
eq "root seed" "$(attr "$f" /seed)" 5
eq "root method" "$(attr "$f" /method)" uniform
eq "interior x shape" "$(shape "$f" /interior/x)" "( 64, 2 )"
eq "interior x type" "$(dtype "$f" /interior/x)" "$REAL"
eq "interior x columns" "$(attr "$f" /interior/x/columns)" x,t
eq "interior kind" "$(attr "$f" /interior/kind)" interior
check "interior has no normal" sh -c "! h5dump -H -d /interior/normal '$f'"
eq "ic kind" "$(attr "$f" /constraints/ic/kind)" initial
eq "ic parts" "$(attr "$f" /constraints/ic/parts)" initial
eq "ic normal shape" "$(shape "$f" /constraints/ic/normal)" "( 64, 2 )"
eq "bc kind" "$(attr "$f" /constraints/bc/kind)" dirichlet
eq "bc parts" "$(attr "$f" /constraints/bc/parts)" x_lo,x_hi
eq "bc inputs" "$(attr "$f" /constraints/bc/inputs)" x,t
eq "bc part shape" "$(shape "$f" /constraints/bc/part)" "( 64 )"
eq "bc part type" "$(dtype "$f" /constraints/bc/part)" H5T_STD_I32LE
eq "bc part names" "$(attr "$f" /constraints/bc/part/names)" x_lo,x_hi,initial,final
# every bc point has x = 0 (part 0, x_lo) or x = 1 (part 1, x_hi)
h5dump -y -w 0 -d /constraints/bc/x -o "$tmp/x.txt" "$f" >/dev/null
h5dump -y -w 0 -d /constraints/bc/part -o "$tmp/p.txt" "$f" >/dev/null
tr -d ' ' <"$tmp/x.txt" | sed '/^$/d' | cut -d, -f1 >"$tmp/x0"
tr -s ', ' '\n' <"$tmp/p.txt" | sed '/^$/d' >"$tmp/p0"
eq "bc rows read back" "$(wc -l <"$tmp/x0" | tr -d ' ')" 64
eq "bc points lie on their part" "$(paste -d' ' "$tmp/x0" "$tmp/p0" | awk '$1 != $2 { bad++ } END { print bad + 0 }')" 0

# same seed, same bytes; another seed, other points
"$PF_PDE" sample wave_1d --n 64 --seed 5 --out "$tmp/again.h5" >/dev/null 2>&1
check "same seed gives an identical file" cmp -s "$f" "$tmp/again.h5"
"$PF_PDE" sample wave_1d --n 64 --seed 6 --out "$tmp/other.h5" >/dev/null 2>&1
check "another seed gives another file" sh -c "! cmp -s '$f' '$tmp/other.h5'"

# ------------------------------------------- fixed points, method, options
f=$tmp/kov.h5
"$PF_PDE" sample kovasznay_flow_2d --n=32 --method=sobol --out "$f" >/dev/null 2>&1
eq "kovasznay: exit code" $? 0
eq "gauge kind" "$(attr "$f" /constraints/gauge/kind)" points
eq "gauge source" "$(attr "$f" /constraints/gauge/source)" fixed
eq "gauge x shape" "$(shape "$f" /constraints/gauge/x)" "( 1, 2 )"
check "gauge has no normal" sh -c "! h5dump -H -d /constraints/gauge/normal '$f'"
eq "interior method" "$(attr "$f" /interior/method)" sobol
eq "boundary method" "$(attr "$f" /constraints/bc_u/method)" uniform
eq "bc_u parts (all of them)" "$(attr "$f" /constraints/bc_u/parts)" x_lo,x_hi,y_lo,y_hi

# hammersley: DeepXDE's set, no seed: point 0 of 16 on wave_1d's [0, 1] x [0, 1]
# is (phi_2(1), 1/17) = (0.5, 0.0588...); the interior is the same for any seed
"$PF_PDE" sample wave_1d --n 16 --seed 1 --method hammersley --out "$tmp/h1.h5" >/dev/null 2>&1
eq "hammersley: exit code" $? 0
eq "hammersley: interior method" "$(attr "$tmp/h1.h5" /interior/method)" hammersley
"$PF_PDE" sample wave_1d --n 16 --seed 2 --method hammersley --out "$tmp/h2.h5" >/dev/null 2>&1
h5dump -y -w 0 -d /interior/x -o "$tmp/h1.txt" "$tmp/h1.h5" >/dev/null
h5dump -y -w 0 -d /interior/x -o "$tmp/h2.txt" "$tmp/h2.h5" >/dev/null
check "hammersley: the interior does not depend on the seed" cmp -s "$tmp/h1.txt" "$tmp/h2.txt"
check "hammersley: first point (0.5, 1/17)" awk '
    { for (i = 1; i <= NF; i++) v[n++] = $i }
    END { exit !(v[0] + 0 == 0.5 && v[1] - 1 / 17 < 1e-6 && 1 / 17 - v[1] < 1e-6) }' \
    RS='[,[:space:]]+' "$tmp/h1.txt"

# ------------------------------------------- observations and periodic images
f=$tmp/pinv.h5
"$PF_PDE" sample poisson_inverse_2d --n 16 --seed 5 --out "$f" >/dev/null 2>&1
eq "poisson_inverse_2d: exit code" $? 0
eq "obs source" "$(attr "$f" /constraints/obs/source)" observations
eq "obs x shape" "$(shape "$f" /constraints/obs/x)" "( 2500, 2 )"
eq "obs v shape" "$(shape "$f" /constraints/obs/v)" "( 2500, 1 )"
f=$tmp/b2d.h5
"$PF_PDE" sample burgers_2d --n 16 --seed 5 --out "$f" >/dev/null 2>&1
eq "burgers_2d: exit code" $? 0
eq "periodic_y_u parts" "$(attr "$f" /constraints/periodic_y_u/parts)" y_lo
eq "periodic_y_u x_image shape" "$(shape "$f" /constraints/periodic_y_u/x_image)" "( 16, 3 )"
h5dump -y -w 0 -d /constraints/periodic_y_u/x -o "$tmp/x.txt" "$f" >/dev/null
h5dump -y -w 0 -d /constraints/periodic_y_u/x_image -o "$tmp/xi.txt" "$f" >/dev/null
# the images are the points with y moved from 0 to 4, x and t unchanged
check "periodic images are the points on the opposite face" awk '
    NR == FNR { for (i = 1; i <= NF; i++) a[n++] = $i; next }
    { for (i = 1; i <= NF; i++) b[m++] = $i }
    END { if (n != 48 || m != 48) exit 1
          for (k = 0; k < 48; k++) if (k % 3 == 1 ? (a[k] + 0 != 0 || b[k] + 0 != 4) : a[k] + 0 != b[k] + 0) exit 1 }' \
    RS='[,[:space:]]+' "$tmp/x.txt" "$tmp/xi.txt"

# ---------------------------------------------------------------- failures
"$PF_PDE" sample no_such_pde --n 8 --out "$tmp/bad.h5" >/dev/null 2>"$tmp/err"
eq "unknown PDE: exit code" $? 2
check "unknown PDE: lists the valid names" grep -q "wave_1d" "$tmp/err"
"$PF_PDE" sample wave_1d --n 8 >/dev/null 2>&1
eq "no --out: exit code" $? 2
"$PF_PDE" sample wave_1d --n 8 --method halton --out "$tmp/bad.h5" >/dev/null 2>&1
eq "bad method: exit code" $? 2
"$PF_PDE" sample wave_1d --n 0 --out "$tmp/bad.h5" >/dev/null 2>&1
eq "--n 0: exit code" $? 2
"$PF_PDE" sample wave_1d --n 8 --out "$tmp/no/such/dir/bad.h5" >/dev/null 2>"$tmp/err"
eq "missing folder: exit code" $? 1
check "missing folder: message names the file" grep -q "no/such/dir/bad.h5" "$tmp/err"
mkdir "$tmp/adir"
"$PF_PDE" sample wave_1d --n 8 --out "$tmp/adir" >"$tmp/out" 2>/dev/null
eq "output is a folder: exit code" $? 1
check "failed run prints no summary" test ! -s "$tmp/out"
check "failures leave no file" test -z "$(find "$tmp" -name 'bad.h5*' -o -name '*.tmp.*')"

finish
