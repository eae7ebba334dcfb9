#!/bin/sh
# t0050-fetch-data.sh — `make data` (scripts/fetch-data.sh) and
# scripts/pinnsagent-labels.py, without a network: the repositories are
# file:// folders (PF_PINNACLE_URL, PF_PINNSAGENT_URL) and the shared
# folder one of ours (PF_SHARED_DATA).
#
#   tests/t0050-fetch-data.sh BUILD/bin float|double     (make test runs it)
#
# Always: pinnsagent-labels.py turns a PDE_LABELS dict, however spaced and
# quoted, into the table, and refuses what is not one; with no source at
# all, fetch-data exits 1 naming every file and where it comes from, and
# leaves nothing behind. With the real files at hand (PF_DATA_DIR,
# PF_PINNSAGENT_DIR): from a shared folder (copied), from the "network"
# (fetched, and pde_labels.tsv derived from a pde_encoder.py written here in
# PINNsAgent's layout, byte for byte the same table), a damaged file
# replaced, a second run that does nothing, a source whose bytes are wrong
# not kept. Float build only (no code of ours is compiled here).
. "$(dirname "$0")/lib.sh"
float_only
F=$ROOT/scripts/fetch-data.sh
L=$ROOT/scripts/pinnsagent-labels.py
PA_FILES="dataset_for_retrieval.csv pde_labels.tsv"
PN_FILES=$(sed -n 's/^[0-9a-f]\{64\}  *//p' "$ROOT/data/pinnacle.sha256")
offline() { # the sources named by the test only
    env PF_SHARED_DATA="$tmp/none" PF_PINNACLE_URL="file://$tmp/none" PF_PINNSAGENT_URL="file://$tmp/none" "$@"
}

# ------------------------------------------------------------ pinnsagent-labels.py
cat >"$tmp/enc.py" <<'EOF'
# a module in pde_encoder.py's layout
PDE_LABELS = {
    'Burgers1D':    ['Burgers', 'parabolic', '1d',  'nonlinear', 'time-dependent',   'dirichlet',  'initial-condition',     'constant-coefficient', 'short-time', 'simple-geometry'], 
    "HeatND": ["Heat", 'parabolic',
               'nd', 'linear', 'time-dependent', 'mixed-boundary',  # spans lines
               'initial-condition', 'constant-coefficient', 'short-time', 'simple-geometry'],
}

feature_encoding = {'Burgers': [1, 0, 0, 0, 0, 0, 0, 0]}
EOF
expect_rc 0 "labels: a dict in PINNsAgent's layout" python3 "$L" "$tmp/enc.py"
printf '%s\n' "# PINNsAgent's ten PDE labels per PINNacle task (the input of its Physics-Guided Knowledge Replay)." \
    "# Columns: task, family, type, dimension, linearity, time, boundary, initial, coefficient, horizon, geometry" \
    "Burgers1D	Burgers	parabolic	1d	nonlinear	time-dependent	dirichlet	initial-condition	constant-coefficient	short-time	simple-geometry" \
    "HeatND	Heat	parabolic	nd	linear	time-dependent	mixed-boundary	initial-condition	constant-coefficient	short-time	simple-geometry" \
    >"$tmp/enc.want"
check "labels: the table, in the dict's order" cmp "$tmp/out" "$tmp/enc.want"
printf "X = 1\n" >"$tmp/none.py"
expect_rc 1 "labels: no PDE_LABELS" python3 "$L" "$tmp/none.py"
check "labels: says so" grep -q "no assignment PDE_LABELS" "$tmp/err"
printf "PDE_LABELS = {'A': ['Burgers', 'parabolic']}\n" >"$tmp/short.py"
expect_rc 1 "labels: two labels, not ten" python3 "$L" "$tmp/short.py"
check "labels: names the task" grep -q "PDE_LABELS\['A'\]: not a list of ten" "$tmp/err"
printf "PDE_LABELS = {'A': [f(x)] * 10}\n" >"$tmp/code.py"
expect_rc 1 "labels: code, not a literal" python3 "$L" "$tmp/code.py"
expect_rc 2 "labels: no argument" python3 "$L"

# ------------------------------------------------------------ no source at all
expect_rc 1 "nothing to be had" offline "$F" "$tmp/n/ref" "$tmp/n/pa"
for f in $PN_FILES $PA_FILES; do
    check "nothing: $f named MISSING" grep -q "^MISSING   $f  (get it from " "$tmp/err"
done
check "nothing: the labels come from pde_encoder.py" grep -q "pde_labels.tsv  (get it from PDE_LABELS of file://.*/database/pde_encoder.py" "$tmp/err"
check "nothing: says the tests skip" grep -q 'the tests that need a missing file skip ("data missing:")' "$tmp/err"
check "nothing: the counts" grep -q "^fetch-data: pinnsagent: 0 of 2 files present" "$tmp/out"
check "nothing: no file left" test -z "$(find "$tmp/n" -type f)"
expect_rc 2 "three arguments" "$F" a b c

# ------------------------------------------------------------ with the real files
D=${PF_DATA_DIR:-data/ref} A=${PF_PINNSAGENT_DIR:-data/ref/pinnsagent}
have=1
for f in $PN_FILES; do has_data "$f" || have=0; done
for f in $PA_FILES; do has_pa_data "$f" || have=0; done
if [ "$have" = 0 ]; then
    data_missing "not every file of data/pinnacle.sha256 in $D and data/pinnsagent.sha256 in $A (the sources of this test)"
    finish
    exit
fi
mkdir -p "$tmp/shared/pinnacle" "$tmp/shared/pinnsagent" "$tmp/pn/ref" "$tmp/pa/data" "$tmp/pa/database"
for f in $PN_FILES; do ln -s "$(cd "$D" && pwd)/$f" "$tmp/shared/pinnacle/$f"; done
for f in $PN_FILES; do ln -s "$(cd "$D" && pwd)/$f" "$tmp/pn/ref/$f"; done
for f in $PA_FILES; do ln -s "$(cd "$A" && pwd)/$f" "$tmp/shared/pinnsagent/$f"; done
ln -s "$(cd "$A" && pwd)/dataset_for_retrieval.csv" "$tmp/pa/data/dataset_for_retrieval.csv"
# pde_encoder.py as PINNsAgent writes it: the dict, ragged spacing, a trailing blank
awk -F'\t' 'BEGIN { print "# database/pde_encoder.py\n\n# PDE label dictionary\nPDE_LABELS = {" }
    /^#/ { next }
    { printf "    %c%s%c:%s[", 39, $1, 39, substr("      ", 1, NR % 5 + 1)
      for (i = 2; i <= 11; i++) printf "%c%s%c%s", 39, $i, 39, i < 11 ? ",  " : ""
      printf "],%s\n", NR % 3 ? "" : " " }
    END { print "}\n\nfeature_encoding = {\n    '"'"'Burgers'"'"': [1, 0, 0, 0, 0, 0, 0, 0], \n}" }' \
    "$A/pde_labels.tsv" >"$tmp/pa/database/pde_encoder.py"

expect_rc 0 "from the shared folder" offline env PF_SHARED_DATA="$tmp/shared" "$F" "$tmp/s/ref" "$tmp/s/pa"
check "shared: every file copied" test "$(grep -c '^copied ' "$tmp/out")" -eq "$(echo $PN_FILES $PA_FILES | wc -w)"
for f in $PN_FILES; do check "shared: $f" cmp "$tmp/s/ref/$f" "$D/$f"; done
for f in $PA_FILES; do check "shared: $f" cmp "$tmp/s/pa/$f" "$A/$f"; done
check "shared: plain files, not links" test ! -L "$tmp/s/pa/pde_labels.tsv"
check "shared: writable copies" test -w "$tmp/s/ref/burgers1d.dat" -o "$(id -u)" = 0

expect_rc 0 "a second run" offline env PF_SHARED_DATA="$tmp/shared" "$F" "$tmp/s/ref" "$tmp/s/pa"
check "second run: copies nothing" sh -c "! grep -q '^copied' '$tmp/out'"
check "second run: all verified" grep -q "^fetch-data: pinnacle: 12 of 12 files present and verified in $tmp/s/ref$" "$tmp/out"

expect_rc 0 "from the network" offline env PF_PINNACLE_URL="file://$tmp/pn" PF_PINNSAGENT_URL="file://$tmp/pa" \
    "$F" "$tmp/w/ref" "$tmp/w/pa"
check "network: the PINNacle files fetched" test "$(grep -c '^fetched .*\.dat  (from file://' "$tmp/out")" -eq "$(echo $PN_FILES | wc -w)"
check "network: the CSV fetched" grep -q "^fetched   dataset_for_retrieval.csv  (from file://$tmp/pa/data/dataset_for_retrieval.csv)" "$tmp/out"
check "network: the labels derived" grep -q "^derived   pde_labels.tsv  (from file://$tmp/pa/database/pde_encoder.py)" "$tmp/out"
check "network: the derived table is the released one" cmp "$tmp/w/pa/pde_labels.tsv" "$A/pde_labels.tsv"
check "network: burgers1d.dat" cmp "$tmp/w/ref/burgers1d.dat" "$D/burgers1d.dat"
check "network: no part file left" test -z "$(find "$tmp/w" -name '.*' -type f)"

printf 'cut' >"$tmp/w/ref/burgers1d.dat"
rm "$tmp/w/pa/pde_labels.tsv"
expect_rc 0 "a damaged and a missing file" offline env PF_SHARED_DATA="$tmp/shared" "$F" "$tmp/w/ref" "$tmp/w/pa"
check "damaged: replaced, saying so" grep -q "^copied    burgers1d.dat  (replaced a damaged copy: from $tmp/shared/pinnacle)" "$tmp/out"
check "damaged: now the real one" cmp "$tmp/w/ref/burgers1d.dat" "$D/burgers1d.dat"
check "missing: copied" grep -q "^copied    pde_labels.tsv  (from $tmp/shared/pinnsagent)" "$tmp/out"

printf 'cut' >"$tmp/w/ref/burgers1d.dat"
mkdir -p "$tmp/bad/ref"
printf 'not the file' >"$tmp/bad/ref/burgers1d.dat"
expect_rc 1 "a source with other bytes" offline env PF_PINNACLE_URL="file://$tmp/bad" "$F" "$tmp/w/ref" "$tmp/w/pa"
check "other bytes: not kept" test "$(cat "$tmp/w/ref/burgers1d.dat")" = cut
check "other bytes: says the copy fails its SHA-256" grep -q "^MISSING   burgers1d.dat  (the copy in $tmp/w/ref fails its SHA-256; get it from file://$tmp/bad/ref/burgers1d.dat" "$tmp/err"
finish
