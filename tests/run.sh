#!/bin/bash
# run.sh — runs the shell tests for make test (Makefile, test-run), JOBS at a
# time, and prints each test's whole output in one piece when it ends, so
# two tests' lines never mix, and how long it took.
#
#   tests/run.sh [-j JOBS] [--after COMMAND] BUILD/bin float|double TEST...
#
# A test whose file has a line "# make test: alone" (its checks compare
# wall times, which a test beside it would change) runs by itself, before
# the others. Then the tests with a line "# make test: about N s" (N: its
# time in a recent run, as this runner prints it) start, the longest
# first, so that no long test is left running alone at the end; then the
# rest, in the order given. COMMAND (sh -c, the test's path as $1) runs after
# each test, in the runner; non-zero fails the test (the sanitizer check).
# After a failure no new test starts; the running ones finish, and the
# runner exits 1 naming the failed tests. Each test sees the environment
# as given (PF_DATA_SKIPS, OMP_NUM_THREADS, ...) and PF_TEST_CACHE, a
# folder of this run where tests share the runs they all make first
# (tests/lib.sh, reference_search); stdin is /dev/null.
set -u
jobs=1 after=''
while [ $# -gt 0 ]; do
    case $1 in
    -j) jobs=${2:?}; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --after) after=${2:?}; shift 2 ;;
    -h | --help)
        sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"
        exit 0
        ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || { echo "usage: tests/run.sh [-j JOBS] [--after COMMAND] BUILD/bin float|double TEST..." >&2; exit 2; }
case $jobs in '' | *[!0-9]* | 0) echo "tests/run.sh: -j wants a positive number, not '$jobs'" >&2; exit 2 ;; esac
bin=$1 precision=$2
shift 2
logs=$(mktemp -d "${TMPDIR:-/tmp}/pf_run_XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
# what tests share within this run (tests/lib.sh, reference_search)
PF_TEST_CACHE=$logs/cache
export PF_TEST_CACHE
running=0 failed='' stop=''
# reap: wait for one running test to end, print its output, run COMMAND
reap() {
    local f r name rc
    wait -n 2>/dev/null || true
    while :; do
        for f in "$logs"/*.rc; do
            [ -f "$f" ] || continue
            r=${f%.rc}
            name=$(cat "$r.name")
            rc=$(cat "$f")
            cat "$r.out"
            echo "tests/run.sh: $name ($precision) took $(cat "$r.sec" 2>/dev/null || echo ?) s"
            if [ "$rc" -eq 0 ] && [ -n "$after" ]; then sh -c "$after" sh "$name" || rc=1; fi
            if [ "$rc" -ne 0 ]; then failed="$failed $name" stop=1; fi
            rm -f "$f" "$r.out" "$r.name" "$r.sec"
            running=$((running - 1))
            return
        done
        sleep 0.2
    done
}
# the start order: alone first, then by "about N s", longest first (sort -s
# keeps the given order among equals)
start_order() {
    local t n
    for t in "$@"; do
        if grep -q '^# make test: alone' "$t"; then n=999999
        else n=$(sed -n 's/^# make test: about \([0-9][0-9]*\) s.*/\1/p' "$t" | head -n 1); fi
        printf '%s %s\n' "${n:-0}" "$t"
    done | sort -s -k1,1nr | cut -d' ' -f2-
}
set -- $(start_order "$@")
i=0
for t in "$@"; do
    [ -z "$stop" ] || break
    alone=
    grep -q '^# make test: alone' "$t" && alone=1
    while [ "$running" -gt 0 ] && { [ -n "$alone" ] || [ "$running" -ge "$jobs" ]; }; do reap; done
    [ -z "$stop" ] || break
    i=$((i + 1))
    n=$logs/$i
    echo "$t" >"$n.name"
    (
        start=$SECONDS
        "$t" "$bin" "$precision" </dev/null >"$n.out" 2>&1
        rc=$?
        echo $((SECONDS - start)) >"$n.sec"
        echo $rc >"$n.tmp" && mv "$n.tmp" "$n.rc"
    ) &
    running=$((running + 1))
    if [ -n "$alone" ]; then reap; fi
done
while [ "$running" -gt 0 ]; do reap; done
if [ -n "$failed" ]; then
    echo "tests/run.sh: failed:$failed" >&2
    exit 1
fi
