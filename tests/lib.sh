# lib.sh — what every shell-level stage test shares (sourced, not run).
#
#   . "$(dirname "$0")/lib.sh"       # in tests/tNNNN-name.sh BUILD/bin float|double
#   check "file exists" test -f "$tmp/x"
#   eq "exit code" "$rc" 0
#   expect_rc 2 "no arguments" "$BIN/pf-x"     # stdout/stderr in $tmp/out, $tmp/err
#   if has_data burgers1d.dat; then ...; else data_missing "burgers1d.dat"; fi
#   need_data burgers1d.dat pinnsagent/pde_labels.tsv   # or the test ends here
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
trap 'loopback_stop; rm -rf "$tmp"' EXIT
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
# reference_search PDE RUNS_ROOT: the offline smoke search of PDE's run 0,
# as `pipeline PDE=PDE RUN=0 LLM=offline PROFILE=smoke RUNS_ROOT=RUNS_ROOT
# search` makes it: its make's output on ours, its exit code. Under
# tests/run.sh (PF_TEST_CACHE, one folder per make test-run) the tests share
# it: the first makes it, holding a lock, and each copies it (cp -a, so the
# times stay and make finds it done) with the output of that make.
reference_search() {
    if [ -z "${PF_TEST_CACHE:-}" ]; then
        pipeline PDE="$1" RUN=0 LLM=offline PROFILE=smoke RUNS_ROOT="$2" search
        return
    fi
    rs_c=$PF_TEST_CACHE/reference-$1
    mkdir -p "$PF_TEST_CACHE" "$2" || return 1
    (
        flock 9 || exit 1
        [ -f "$rs_c.rc" ] && exit 0
        rm -rf "$rs_c.runs"
        pipeline PDE="$1" RUN=0 LLM=offline PROFILE=smoke RUNS_ROOT="$rs_c.runs" search >"$rs_c.out" 2>"$rs_c.err"
        echo $? >"$rs_c.rc"
    ) 9>"$rs_c.lock" || return 1
    [ ! -d "$rs_c.runs" ] || cp -a "$rs_c.runs/." "$2/" || return 1
    cat "$rs_c.out"
    cat "$rs_c.err" >&2
    return "$(cat "$rs_c.rc")"
}
# data_missing WHAT: the checks that need WHAT (a file of PINNacle's or
# PINNsAgent's that is absent) are skipped: one line saying so, with
# "data missing:" and how to get it, also appended to $PF_DATA_SKIPS when
# set (make test counts them; see the Makefile's test-run).
data_missing() {
    echo "$TEST_NAME: data missing: $*; the checks that need it are skipped" \
        "(run \`make data\`, or set PF_DATA_DIR / PF_PINNSAGENT_DIR to the folders with the files)"
    if [ -n "${PF_DATA_SKIPS:-}" ]; then echo "$TEST_NAME: $*" >>"$PF_DATA_SKIPS"; fi
}
# has_data NAME: PINNacle's file NAME is in PF_DATA_DIR (else data/ref, as
# the programs look); has_pa_data NAME: PINNsAgent's in PF_PINNSAGENT_DIR
# (else data/ref/pinnsagent).
has_data() { [ -f "${PF_DATA_DIR:-data/ref}/$1" ]; }
has_pa_data() { [ -f "${PF_PINNSAGENT_DIR:-data/ref/pinnsagent}/$1" ]; }
# need_data FILE...: the whole test needs these files (PINNacle's, or
# PINNsAgent's written pinnsagent/NAME); unless all are there it ends here,
# saying data_missing.
need_data() {
    miss=
    for f in "$@"; do
        case $f in
        pinnsagent/*) has_pa_data "${f#pinnsagent/}" || miss="$miss $f" ;;
        *) has_data "$f" || miss="$miss $f" ;;
        esac
    done
    [ -n "$miss" ] || return 0
    data_missing "${miss# } (PF_DATA_DIR ${PF_DATA_DIR:-data/ref}, PF_PINNSAGENT_DIR ${PF_PINNSAGENT_DIR:-data/ref/pinnsagent})"
    finish
    exit
}
# loopback ANSWERS [OPTION...]: tests/llm_loopback_server.py on 127.0.0.1 in the
# background, answering from ANSWERS (`llm_loopback_server.py --answers`) and
# logging to $tmp/llm.log; its port in $port ("" when it did not start), its
# PID in $tmp/server.pid. loopback_stop (also on exit) stops it by that PID.
loopback() {
    answers=$1
    shift
    python3 "$PF_TESTS/llm_loopback_server.py" "$answers" "$tmp/port" "$tmp/llm.log" "$@" &
    echo $! >"$tmp/server.pid"
    for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
    port=$(cat "$tmp/port" 2>/dev/null)
}
loopback_stop() {
    [ -f "$tmp/server.pid" ] && kill "$(cat "$tmp/server.pid")" 2>/dev/null
    rm -f "$tmp/server.pid"
}
float_only() {
    if [ "$PRECISION" != float ]; then
        echo "$TEST_NAME: runs in the float build only"
        finish
        exit 0
    fi
}
# until_new DIR NAME MARK: wait (at most 2 minutes) until a file NAME under
# DIR is newer than the file MARK (touch it before starting the work): e.g.
# the first training of a run started in the background, to kill it then.
until_new() {
    n=0
    while [ "$n" -lt 1200 ]; do
        [ -n "$(find "$1" -name "$2" -newer "$3" 2>/dev/null | head -n 1)" ] && return 0
        sleep 0.1
        n=$((n + 1))
    done
    return 1
}
finish() {
    echo "$TEST_NAME: $((count - fails))/$count passed ($(($(date +%s) - started)) s)"
    [ "$fails" -eq 0 ]
}
