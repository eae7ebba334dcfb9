#!/bin/sh
# t1100-refs.sh — `make refs PDE=kuramoto_sivashinsky_1d` end to end, at a
# reduced resolution (the fine run n 1024 with 8 steps per 1/250; a second),
# into a fresh PF_REFS_DIR.
#
#   tests/t1100-refs.sh BUILD/bin float|double     (make test runs it)
#
# Checks: the file and its manifest (SHA-256 of the file, two resolutions,
# the self-convergence figure), pf-pde list before (missing, run make refs)
# and after (data (generated), 128,512 evaluation points), pf-pde check, a
# second make that leaves the cached file alone, a read-only folder and
# an unknown PDE refused.
. "$(dirname "$0")/lib.sh"
float_only
data=$tmp/generated
export PF_REFS_DIR=$data
ks=kuramoto_sivashinsky_1d
dat=$data/$ks.dat
man=$data/$ks.manifest.json

before=$("$BIN/pf-pde" list | grep "^$ks ")
check "before: list says missing and what to run" sh -c "echo '$before' | grep -q 'missing (.*run make refs PDE=$ks)'"

pipeline refs PDE=$ks PF_REFS_DIR="$data" REFS_ARGS="--n 512 --substeps 4" >"$tmp/out" 2>"$tmp/err"
eq "make refs: exit code" $? 0
check "the reference is there" test -s "$dat"
check "its manifest is there" test -s "$man"
check "no temp file left" test -z "$(find "$data" -name '*.tmp.*')"
eq "the file's rows: 512 nodes x 251 times" "$(grep -vc '^%' "$dat")" 128512
sha=$(sha256sum "$dat" | cut -d' ' -f1)
json() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$man" "$1"; }
eq "manifest: sha256 of the file" "$(json 'm["sha256"]')" "$sha"
eq "manifest: the two grids" "$(json '[r["n"] for r in m["resolutions"]]')" "[512, 1024]"
check "manifest: self-convergence below 1e-3 even here" \
    python3 -c "import json,sys; sys.exit(not json.load(open('$man'))['self_convergence_rel_l2'] < 1e-3)"

after=$("$BIN/pf-pde" list | grep "^$ks ")
check "after: list says data (generated)" sh -c "echo '$after' | grep -q 'data (generated)\$'"
check "after: 128512 evaluation points" sh -c "echo '$after' | grep -q ' 128512 '"
expect_rc 0 "pf-pde check reads the reference" "$BIN/pf-pde" check $ks
check "check counts its points" grep -q "128512 evaluation points" "$tmp/out"

touch -d '2000-01-01' "$dat"
pipeline refs PDE=$ks PF_REFS_DIR="$data" >"$tmp/out" 2>"$tmp/err"
eq "second make refs: exit code" $? 0
eq "the cached file is not remade" "$(sha256sum "$dat" | cut -d' ' -f1)" "$sha"
check "nor touched" test "$(stat -c %Y "$dat")" -lt 1000000000

ro=$tmp/readonly
mkdir -p "$ro" && chmod 555 "$ro"
pipeline refs PDE=$ks PF_REFS_DIR="$ro" >"$tmp/out" 2>"$tmp/err"
check "a read-only folder is refused" test $? -ne 0
check "saying so" grep -q "PF_REFS_DIR=$ro is not a writable folder" "$tmp/err"
check "and nothing is written there" test -z "$(ls -A "$ro")"

pipeline refs PDE=no_such_pde PF_REFS_DIR="$data" >"$tmp/out" 2>"$tmp/err"
check "an unknown PDE is refused" test $? -ne 0
check "naming the solvers there are" grep -q "no solver for PDE=no_such_pde" "$tmp/err"
finish
