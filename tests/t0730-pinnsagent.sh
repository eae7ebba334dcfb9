#!/bin/sh
# PINNsAgent end to end (pipeline.mk, METHOD=pinnsagent; pinnsagent/plan.h):
# a smoke offline run (quick's sizes, a tenth of its steps) on burgers_1d plans five iterations, one per
# generation, each after the one before has trained; iteration 1 replays the
# best configuration of the most similar PDE; every planner call is a
# transcript; final.msgpack reports the lowest of the five MSEs; LLM=replay
# on a copy, killed mid-run and resumed, gives the same MSE and asks nothing
# new. Float build only (precision-blind).
. "$(dirname "$0")/lib.sh"
float_only
need_data burgers1d.dat pinnsagent/dataset_for_retrieval.csv pinnsagent/pde_labels.tsv
mk() { # mk RUNS_ROOT [make args...]
    r=$1; shift
    pipeline PDE=burgers_1d RUN=1 METHOD=pinnsagent PROFILE=smoke RUNS_ROOT="$r" "$@" search
}
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^  \"$2\": \\(.*\\),\$/\\1/p"; }
R=$tmp/a/burgers_1d/pinnsagent/run1

mk "$tmp/a" >"$tmp/out" 2>"$tmp/err"
eq "the run" "$?" 0
check "final.msgpack" test -f "$R/final.msgpack"
for g in 0 1 2 3 4; do
    check "iteration $g: one proposal" test "$(ls "$R"/gen0$g/cand*.proposal.msgpack | wc -l)" -eq 1
done
check "no sixth iteration" test ! -e "$R/gen05"
check "five planner calls stored" test "$(ls "$R"/llm | wc -l)" -ge 5
# planned in order: iteration G's proposal after iteration G-1's training
check "in order" python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
pos = lambda pat: next(i for i, l in enumerate(lines) if re.search(pat, l))
for g in range(1, 5):
    assert pos(r"pf-train: done .*gen0%d/cand0" % (g - 1)) < pos(r"pf-propose: start burgers_1d slot gen0%d/plan" % g), g
' "$tmp/err"
"$BIN/pf-inspect" "$R/gen00/cand0.proposal.msgpack" >"$tmp/p0.json"
"$BIN/pf-pinnsagent-db" --pde burgers_1d >"$tmp/db.txt" 2>/dev/null
check "iteration 1 replays the best known configuration" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
# burgers_1d: the replayed row with the lowest MSE is heat_2d_multiscale line 1062
assert (p["activation"], p["net"], p["optimizer"], p["width"], p["depth"], p["initializer"]) == \
    ("sin", "fnn", "lbfgs", 124, 6, "He uniform"), p
' "$tmp/p0.json"
"$BIN/pf-inspect" "$R/final.msgpack" >"$tmp/final.json"
check "final: five candidates, the lowest selected" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
c = f["candidates"]
assert len(c) == 5 and [e["seed"] for e in c] == [100000 + 100 * g for g in range(5)], c
ys = [e["y"] for e in c if e["status"] == "ok"]
assert ys and f["hf_mse"] == min(ys), (f["hf_mse"], ys)
g = [e["y"] for e in c].index(f["hf_mse"])
assert f["found_in"] == "gen%02d/plan" % g and f["result"] == "gen%02d/cand0/result.h5" % g, f["found_in"]
b = f["budget"]
assert b["optimizer_steps"]["baseline"] > 0 and b["optimizer_steps"]["low_fidelity"] == 0, b
assert b["llm"]["calls"] >= 5 and b["candidates"] == 5, b
assert f["method"] == "pinnsagent"
' "$tmp/final.json"
hf=$(field "$R/final.msgpack" hf_mse)
make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=burgers_1d RUN=1 METHOD=pinnsagent RUNS_ROOT="$tmp/a" status >"$tmp/out" 2>&1
check "status line" grep -q "pinnsagent: 5 of 5 candidates trained, best .* final: MSE" "$tmp/out"

# replay on a copy, killed mid-run and resumed
mkdir -p "$tmp/c" && cp -r "$tmp/a/burgers_1d" "$tmp/c/"
C=$tmp/c/burgers_1d/pinnsagent/run1
ntr=$(ls "$C/llm" | wc -l)
touch "$tmp/mark"
( mk "$tmp/c" LLM=replay >/dev/null 2>&1 & echo $! >"$tmp/pid"; wait ) &
until_new "$C" evidence.msgpack "$tmp/mark" # the first of five trainings done
pkill -TERM -P "$(cat "$tmp/pid")" 2>/dev/null; kill "$(cat "$tmp/pid")" 2>/dev/null
wait
check "killed before the end" test ! -f "$C/final.msgpack" -o "$C/final.msgpack" -ot "$C/context.json"
mk "$tmp/c" LLM=replay >"$tmp/out" 2>"$tmp/err"
eq "resumed replay run" "$?" 0
eq "replay: the same final MSE" "$(field "$C/final.msgpack" hf_mse)" "$hf"
eq "replay stores nothing new" "$(ls "$C/llm" | wc -l)" "$ntr"
eq "no temp file of the killed writers is left" "$(find "$C" -name '*.tmp.*' | wc -l)" 0
finish
