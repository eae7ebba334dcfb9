# lib.sh — what every shell-level stage test shares (sourced, not run).
#
#   . "$(dirname "$0")/lib.sh"       # in tests/tNNNN-name.sh BUILD/bin float|double
#   check "file exists" test -f "$tmp/x"
#   eq "exit code" "$rc" 0
#   expect_rc 2 "no arguments" "$BIN/pf-x"     # stdout/stderr in $tmp/out, $tmp/err
#   finish
#
# Sets BIN, PRECISION, ROOT, BUILD, tmp (removed on exit), exports PF_TESTS (this folder,
# absolute: python fixtures import tests/msgpack_enc.py from it) and counts checks; finish prints
# "tNNNN-name: P/T passed (S s)" and exits non-zero when any check failed.
set -u
BIN=${1:?usage: $0 BUILD/bin float|double}
PRECISION=${2:?usage: $0 BUILD/bin float|double}
case $PRECISION in
float | double) ;;
*) echo "$0: precision must be float or double, not '$PRECISION'" >&2; exit 2 ;;
esac
TEST_NAME=$(basename "$0" .sh)
PF_TESTS=$(cd "$(dirname "$0")" && pwd)
export PF_TESTS
tmp=$(mktemp -d "/tmp/pf_${TEST_NAME}_XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0 count=0 started=$(date +%s)

ok() { count=$((count + 1)); }
not_ok() { count=$((count + 1)); fails=$((fails + 1)); echo "not ok: $*" >&2; }
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@" >/dev/null 2>&1; then ok; else not_ok "$d"; fi
}
eq() { # eq DESCRIPTION GOT EXPECTED
    if [ "$2" = "$3" ]; then ok; else not_ok "$1: got '$2', expected '$3'"; fi
}
expect_rc() { # expect_rc RC DESCRIPTION COMMAND...
    want=$1 d=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -eq "$want" ]; then ok; else not_ok "$d (exit $got, wanted $want)"; fi
}
# The pipeline tests: the float build only (the pipeline is precision-blind),
# with ROOT (the project) and BUILD (the build folder of BIN) set.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(dirname "$BIN")
# make in the project with this build, the quick profile, one thread per
# training, two at once: pipeline PDE=... METHOD=... RUNS_ROOT=... target
pipeline() {
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PROFILE=quick TRAIN_THREADS=1 -j2 "$@"
}
float_only() {
    if [ "$PRECISION" != float ]; then
        echo "$TEST_NAME: runs in the float build only"
        finish
        exit 0
    fi
}
finish() {
    echo "$TEST_NAME: $((count - fails))/$count passed ($(($(date +%s) - started)) s)"
    [ "$fails" -eq 0 ]
}
