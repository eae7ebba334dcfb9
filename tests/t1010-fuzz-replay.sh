#!/bin/sh
# t1010-fuzz-replay.sh — the fuzz harnesses' seeds and regression inputs
# replayed in the normal build (issue 22).
#
#   tests/t1010-fuzz-replay.sh BUILD/bin float|double     (make test runs it)
#
# Every harness tests/fuzz/fuzz_<name>.c is built without libFuzzer as
# BUILD/bin/pf-fuzz-replay-<name> (fuzz.mk); each runs once over its seed
# corpus tests/fuzz/corpus/<name>/ and the inputs of fixed findings in
# tests/fuzz/regressions/<name>/, and must exit 0 having replayed every
# file. Under `make test SANITIZE=1` the replay runs with ASan, LSan and
# UBSan, and the Makefile fails the test on any report. Then the replay
# program's own contract: --help, no arguments, a missing path.
. "$(dirname "$0")/lib.sh"

fuzz=$ROOT/tests/fuzz
for src in "$fuzz"/fuzz_*.c; do
    h=$(basename "$src" .c)
    h=${h#fuzz_}
    bin=$BIN/pf-fuzz-replay-$h
    if [ ! -x "$bin" ]; then
        not_ok "$h: $bin is not built (make fuzz-replay)"
        continue
    fi
    count_in=$(find "$fuzz/corpus/$h" -maxdepth 1 -type f ! -name '.*' | wc -l)
    check "$h: a seed corpus" test "$count_in" -gt 0
    dirs=$fuzz/corpus/$h
    if [ -d "$fuzz/regressions/$h" ]; then
        dirs="$dirs $fuzz/regressions/$h"
        count_in=$((count_in + $(find "$fuzz/regressions/$h" -maxdepth 1 -type f ! -name '.*' | wc -l)))
    fi
    # shellcheck disable=SC2086 # dirs is a list of folders
    expect_rc 0 "$h: replay of $dirs" "$bin" $dirs
    [ -s "$tmp/err" ] && cat "$tmp/err" >&2
    eq "$h: inputs replayed" "$(cat "$tmp/out")" "$count_in inputs replayed"
done

bin=$BIN/pf-fuzz-replay-spec
expect_rc 0 "--help" "$bin" --help
check "--help says what it does" grep -q "once per input file" "$tmp/out"
expect_rc 2 "no arguments" "$bin"
check "no arguments: the usage" grep -q "usage:" "$tmp/err"
expect_rc 1 "a missing path" "$bin" "$tmp/absent"
check "a missing path is named" grep -q "$tmp/absent" "$tmp/err"
finish
