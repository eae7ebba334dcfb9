#!/bin/sh
# make bench-search (Makefile; bench/pf-bench-search.c, search/search_time.h):
# the vanilla_quick case at the smoke profile into the test's own runs folder
# writes one JSON line whose figures agree with the trainings' evidence
# (train_s is the sum of their wall times as pf-inspect reads them, the busy
# time lies between the longest training and that sum, 0 <= cpu_use <= 1,
# outside_s = wall_s - busy_s); an unknown case stops make before anything
# runs; a failing command appends nothing. No timing is asserted. Float
# build only (precision-blind).
. "$(dirname "$0")/lib.sh"
float_only
need_data burgers1d.dat

bs() { make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" BENCH_SEARCH_DIR="$tmp/runs" \
    BENCH_SEARCH_OUT="$tmp/search.jsonl" "$@"; }

expect_rc 0 "--help" "$BIN/pf-bench-search" --help
check "--help names the fields" grep -q "outside_s" "$tmp/out"

bs bench-search BENCH_SEARCH_CASES=vanilla_quick BENCH_SEARCH_PROFILE=smoke -j2 >"$tmp/out" 2>"$tmp/err"
eq "make bench-search" "$?" 0
check "a progress line" grep -q "^bench-search: vanilla_quick: wall .* 5 trainings" "$tmp/err"
check "the case's log" test -s "$tmp/runs/vanilla_quick.log"
R=$tmp/runs/vanilla_quick/burgers_1d/vanilla/run0
check "the run made in the test's folder" test -f "$R/final.msgpack"
for k in 0 1 2 3 4; do "$BIN/pf-inspect" "$R/gen00/cand$k/evidence.msgpack" >"$tmp/ev$k.json"; done
check "one line, figures agreeing with the evidence" python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
lines = open(t + "/search.jsonl").read().splitlines()
assert len(lines) == 1, lines
j = json.loads(lines[0])
for k in ("case", "wall_s", "train_s", "cpu_use", "outside_s"):
    assert k in j, k
assert j["case"] == "vanilla_quick" and j["profile"] == "smoke", j
assert j["trainings"] == 5 and j["earlier"] == 0 and j["jobs"] == 2 and j["threads"] == "auto" and j["cores"] == 2, j
walls, cpus = [], []
for k in range(5):
    tm = json.load(open("%s/ev%d.json" % (t, k)))["evidence"]["time"]
    walls.append(tm["wall_s"]); cpus.append(tm["cpu_s"])
assert abs(j["train_s"] - sum(walls)) <= 1e-4 * sum(walls) + 1e-6, (j, walls)
assert abs(j["cpu_s"] - sum(cpus)) <= 1e-4 * sum(cpus) + 1e-6, (j, cpus)
assert 0 < j["cpu_use"] <= 1, j
assert abs(j["cpu_use"] - j["cpu_s"] / (j["wall_s"] * j["cores"])) <= 1e-4 * j["cpu_use"], j
assert 0 <= j["outside_s"] <= j["wall_s"], j
assert abs(j["busy_s"] + j["outside_s"] - j["wall_s"]) <= 1e-4 * j["wall_s"], j
assert max(walls) - 1e-3 <= j["busy_s"] <= sum(walls) + 1e-3, (j, walls)
PY

bs bench-search BENCH_SEARCH_CASES=nope >"$tmp/out" 2>"$tmp/err"
check "an unknown case: make fails" test $? -ne 0
check "... naming it" grep -q "no case 'nope'" "$tmp/err"

rm -f "$tmp/o.jsonl"
expect_rc 1 "a failing command" "$BIN/pf-bench-search" --case x --runs "$tmp" --out "$tmp/o.jsonl" -- false
check "... appends nothing" test ! -e "$tmp/o.jsonl"
check "... says it failed" grep -q "bench-search: x: false failed (exit 1)" "$tmp/err"
expect_rc 2 "no command" "$BIN/pf-bench-search" --case x --runs "$tmp" --out "$tmp/o.jsonl"
finish
