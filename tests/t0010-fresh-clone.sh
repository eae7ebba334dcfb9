#!/bin/sh
# A new user's first hour: a fresh clone of this checkout (with its
# uncommitted changes and new files, so the test sees the tree as it is),
# nothing built, nothing beside it, none of our PF_* variables set:
# - make -n plans `make study` (every cell's run 0, and one cell's ten
#   runs) and `make refs PDE=kuramoto_sivashinsky_1d`;
# - the README's main command, with PROFILE=smoke in place of quick (its
#   twin in seconds), builds what it needs and ends with a final.msgpack
#   whose hf_mse is a finite number;
# - with no data (PF_DATA_DIR and PF_PINNSAGENT_DIR empty folders, no
#   ../shared beside the clone), the tests that read PINNacle's and
#   PINNsAgent's files skip, naming what is missing and `make data`, and
#   none fails.
# Float build only; skipped, saying why, without git.
# make test: about 142 s
. "$(dirname "$0")/lib.sh"
float_only
if ! command -v git >/dev/null 2>&1; then
    echo "$TEST_NAME: skipped: git not found"
    finish
    exit 0
fi
C=$tmp/fresh
ABS_BIN=$(cd "$BIN" && pwd)
git clone -q "$ROOT" "$C" 2>"$tmp/err"
eq "git clone" "$?" 0
git -C "$ROOT" diff HEAD --binary >"$tmp/tree.patch"
if [ -s "$tmp/tree.patch" ]; then
    (cd "$C" && git apply --whitespace=nowarn "$tmp/tree.patch")
    eq "the working tree's changes apply" "$?" 0
fi
if [ -n "$(cd "$ROOT" && git ls-files --others --exclude-standard | head -1)" ]; then # files not added yet
    (cd "$ROOT" && git ls-files -z --others --exclude-standard | xargs -0 tar cf - | (cd "$C" && tar xf -))
fi
check "no build folder in the clone" test ! -e "$C/build"

# A user's shell: no variables of ours, no make of ours around it (make
# exports its command line's variables, CUDA=0 or BUILD=..., to the tests),
# only what a login shell has.
user() { # user COMMAND... (in the clone)
    (cd "$C" && env -i PATH="$PATH" HOME="${HOME:-/root}" USER="${USER:-root}" LANG="${LANG:-C.UTF-8}" \
        ${TMPDIR:+TMPDIR="$TMPDIR"} "$@")
}

# make -n study in two slices (the whole plan, 2,000 runs, costs make about
# 70 CPU seconds): every cell of the default study, its run 0, and the
# default ten runs of one cell
user make -n study RUNS=0 >"$tmp/study.n" 2>"$tmp/err"
eq "make -n study RUNS=0 plans" "$?" 0
check "the plan reaches pf-stats" grep -q "pf-stats" "$tmp/study.n"
cells=$(grep -o "pf-context --run runs/[^ ]*/run0 " "$tmp/study.n" | sort -u | wc -l)
said=$(sed -n 's/^echo "study: \([0-9]*\) PDEs x \([0-9]*\) methods x 1 runs,.*/\1 \2/p' "$tmp/study.n")
check "the default study: every PDE and every method ($said)" test "$said" = "$("$ABS_BIN/pf-pde" list | sed 1d | grep -c .) $(grep -c "^PF_METHOD(" "$C/src/llm/methods.def")"
np=${said% *} nm=${said#* }
eq "each of its PDE x method cells is planned" "$cells" "$((${np:-0} * ${nm:-0}))"
user make -n study PDES=burgers_1d METHODS=vanilla >"$tmp/study1.n" 2>"$tmp/err"
eq "make -n study of one cell plans" "$?" 0
check "the default study has ten runs" grep -q "study: 1 PDEs x 1 methods x 10 runs" "$tmp/study1.n"
check "... planned up to run9" grep -q "pf-context --run runs/burgers_1d/vanilla/run9 " "$tmp/study1.n"
user make -n refs PDE=kuramoto_sivashinsky_1d >"$tmp/refs.n" 2>"$tmp/err"
eq "make -n refs PDE=kuramoto_sivashinsky_1d plans" "$?" 0
check "the plan runs the solver" grep -q "pf-ref-kuramoto_sivashinsky_1d --out" "$tmp/refs.n"

# The README's main command: its first line starting `make PDE=`.
main=$(sed -n 's/[[:space:]]*#.*//; /^make PDE=/{p;q;}' "$ROOT/README.md")
check "the README has a main command with PROFILE=quick" sh -c "echo '$main' | grep -q 'PROFILE=quick'"
smoke=$(echo "$main" | sed 's/PROFILE=quick/PROFILE=smoke/')
pde=$(echo "$main" | sed -n 's/.*PDE=\([^ ]*\).*/\1/p')
run=$(echo "$main" | sed -n 's/.*RUN=\([^ ]*\).*/\1/p')
# shellcheck disable=SC2086 # the command's own words
user $smoke >"$tmp/main.out" 2>"$tmp/main.err"
rc=$?
eq "the main command (smoke profile) in the fresh clone: $smoke" "$rc" 0
[ "$rc" -eq 0 ] || tail -20 "$tmp/main.err" >&2
F=$C/runs/$pde/pinnforge/run$run/final.msgpack
check "final.msgpack" test -f "$F"
hf=$("$C/build/bin/pf-inspect" "$F" 2>"$tmp/inspect.err" | sed -n 's/^  "hf_mse": \(.*\),$/\1/p')
if awk -v x="$hf" 'BEGIN { exit !(x ~ /^[0-9.eE+-]+$/ && x + 0 == x + 0 && x + 0 < 1e300) }'; then ok; else
    not_ok "hf_mse is a finite number ($hf)"
    cat "$tmp/inspect.err" >&2
    "$C/build/bin/pf-inspect" "$F" 2>&1 | grep -e hf_mse -e stop_reason >&2
fi

# No data at all: the tests that need it skip and say what to run.
mkdir -p "$tmp/nodata" "$tmp/noagent"
(cd "$C" && env PF_DATA_DIR="$tmp/nodata" PF_REFS_DIR="$tmp/nodata" PF_PINNSAGENT_DIR="$tmp/noagent" \
    OMP_NUM_THREADS=1 "$ABS_BIN/pf-tests" --jobs 2 --verbose --filter 'pinnacle_dat/*' >"$tmp/nd.out" 2>&1)
rc=$?
eq "PINNacle reader tests without data: no failure" "$rc" 0
[ "$rc" -eq 0 ] || grep -v -e '^\[RUN \]' -e '^\[====\] Running' -e 'Test is disabled' "$tmp/nd.out" | tail -30 >&2
check "they skip" grep -q '^\[SKIP\]' "$tmp/nd.out"
check "a skip names make data" grep -q 'SKIP.*make data' "$tmp/nd.out"
check "none fails" sh -c "! grep -q '^\[FAIL\]' '$tmp/nd.out'"
finish
