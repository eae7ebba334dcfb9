#!/bin/sh
# Run the libFuzzer harnesses that `make fuzz` built, one after the other.
#
#   scripts/fuzz.sh BUILD SECONDS RUNS HARNESS...     (make fuzz runs it; see fuzz.mk)
#
# Each BUILD/bin/fuzz-HARNESS runs for SECONDS seconds or RUNS executions
# (0: no limit), whichever ends first, over its working corpus
# BUILD/corpus/HARNESS/ (new inputs go there), seeded from
# tests/fuzz/corpus/HARNESS/ and tests/fuzz/regressions/HARNESS/ (read only).
# Crash, leak, timeout and out-of-memory inputs go to BUILD/crashes/HARNESS/,
# the log to BUILD/logs/HARNESS.log. One line per harness:
#
#   fuzz: spec          1000000 execs in 212 s (4716/s), 0 crashes
#   fuzz: dat            831552 execs in 60 s (13859/s), 1 crash: build/fuzz/crashes/dat/crash-5d2...
#
# Exit status 1 when any harness crashed (its inputs then belong in
# tests/fuzz/regressions/HARNESS/ once the defect is fixed), 2 on bad usage.
set -u
[ $# -ge 4 ] || { echo "usage: $0 BUILD SECONDS RUNS HARNESS..." >&2; exit 2; }
build=$1 secs=$2 runs=$3
shift 3
case $secs$runs in *[!0-9]*) echo "$0: SECONDS and RUNS must be whole numbers, not '$secs' '$runs'" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
# Leaks are findings; a UBSan report stops the process (the build has
# -fno-sanitize-recover), so libFuzzer sees it as a crash.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
failed=0
for h in "$@"; do
    bin=$build/bin/fuzz-$h
    [ -x "$bin" ] || { echo "$0: $bin not built (make fuzz builds it)" >&2; exit 2; }
    corpus=$build/corpus/$h crashes=$build/crashes/$h log=$build/logs/$h.log
    mkdir -p "$corpus" "$crashes" "$build/logs"
    seeds=$root/tests/fuzz/corpus/$h
    [ -d "$root/tests/fuzz/regressions/$h" ] && seeds="$seeds $root/tests/fuzz/regressions/$h"
    limit=
    [ "$runs" -gt 0 ] && limit=-runs=$runs
    stamp=$build/logs/$h.start
    : >"$stamp"
    start=$(date +%s)
    # shellcheck disable=SC2086 # $limit and $seeds are word lists
    "$bin" -max_total_time="$secs" $limit -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "$corpus" $seeds >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    found=$(find "$crashes" -type f -newer "$stamp" | sort)
    n=$(printf '%s' "$found" | grep -c .)
    if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
        echo "fuzz: $h: exit status $rc and no crash file; see $log" >&2
        failed=1
    fi
    word=crashes
    [ "$n" -eq 1 ] && word=crash
    printf 'fuzz: %-12s %9s execs in %d s (%s/s), %d %s%s\n' "$h" "${execs:-?}" "$took" "${rate:-?}" "$n" "$word" \
        "$([ "$n" -gt 0 ] && printf ': %s' "$(echo $found)")"
    [ "$n" -gt 0 ] && failed=1
done
exit $failed
