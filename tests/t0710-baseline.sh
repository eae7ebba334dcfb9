#!/bin/sh
# Baseline runs end to end (pipeline.mk, METHOD=vanilla|ropinn; search/baseline.h):
# smoke runs (quick's sizes, a tenth of its steps) on burgers_1d train five candidates each, final.msgpack lists
# their five MSEs and reports the lowest, the budget is 5 x the baseline
# steps, a second make does nothing, a deleted candidate is retrained alone,
# replay on a copy killed and resumed gives the same answer, make status
# and pf-plot read the runs, and `make tables` on a tree with
# pinnforge, vanilla and ropinn runs gives a three-column main table with
# the Friedman and Wilcoxon rows. Float build only (precision-blind).
. "$(dirname "$0")/lib.sh"
float_only
need_data burgers1d.dat
mk() { # mk METHOD [make args...]
    m=$1; shift
    pipeline PDE=burgers_1d RUN=1 METHOD="$m" PROFILE=smoke RUNS_ROOT="$tmp/runs" "$@"
}
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^  \"$2\": \\(.*\\),\$/\\1/p"; }

for m in vanilla ropinn; do
    R=$tmp/runs/burgers_1d/$m/run1
    mk $m search >"$tmp/out" 2>"$tmp/err"
    eq "$m: the run" "$?" 0
    check "$m: final.msgpack" test -f "$R/final.msgpack"
    check "$m: five proposals, no more" test "$(ls "$R"/gen00/cand*.proposal.msgpack | wc -l)" -eq 5
    check "$m: no search" test ! -e "$R/gen00/select.msgpack" -a ! -e "$R/hifi" -a ! -e "$R/knowledge.msgpack"
    check "$m: five trainings at fidelity baseline" test "$(grep -c "pf-train: start burgers_1d, spec [0-9a-f]*, baseline fidelity (100 steps)" "$tmp/err")" -eq 5
    "$BIN/pf-inspect" "$R/final.msgpack" >"$tmp/final.json"
    check "$m: the numbers of final.msgpack" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
c = f["candidates"]
assert len(c) == 5, c
assert [e["seed"] for e in c] == [100000 + k for k in range(5)], c
ys = [e["y"] for e in c if e["status"] == "ok"]
assert len(ys) == 5 and f["hf_mse"] == min(ys), (f["hf_mse"], ys)
k = [e["y"] for e in c].index(f["hf_mse"])
assert f["found_in"] == "gen00/init%d" % k and f["result"] == "gen00/cand%d/result.h5" % k, f["found_in"]
assert f["lf_mse"] is None and f["top3"] == [] and f["generations"] == 0
b = f["budget"]
assert b["optimizer_steps"] == {"low_fidelity": 0, "high_fidelity": 0, "baseline": 500, "training": 500}, b
assert b["wall_s"]["baseline"] > 0 and b["llm"]["calls"] == 0 and b["candidates"] == 5
assert f["report_mse"] == f["hf_mse"] and "residual_rms" in f["physics_check"]
assert f["spec"]["sampling"]["method"] == "hammersley"
assert ("region_optimization" in f["spec"]["training"]) == (sys.argv[2] == "ropinn")
' "$tmp/final.json" $m
    check "$m: a proposal names the method and asks no one" sh -c "'$BIN/pf-inspect' '$R/gen00/cand3.proposal.msgpack' | grep -q '\"provider\": \"baseline\"'"
done
R=$tmp/runs/burgers_1d/vanilla/run1
hf=$(field "$R/final.msgpack" hf_mse)

# a second make does nothing; a deleted candidate is retrained alone
before=$(stat -c %Y.%N "$R/final.msgpack" "$R"/gen00/cand2/evidence.msgpack)
mk vanilla search >"$tmp/out" 2>"$tmp/err"
eq "second run" "$?" 0
check "second run trains nothing" sh -c "! grep -q 'pf-train\\|pf-propose' '$tmp/err'"
eq "second run touches nothing" "$(stat -c %Y.%N "$R/final.msgpack" "$R"/gen00/cand2/evidence.msgpack)" "$before"
sleep 1
rm "$R/gen00/cand4/result.h5"
mk vanilla search >"$tmp/out" 2>"$tmp/err"
check "only one training" test "$(grep -c 'pf-train: start' "$tmp/err")" -eq 1
eq "same answer after the retraining" "$(field "$R/final.msgpack" hf_mse)" "$hf"
mk vanilla status >"$tmp/out" 2>"$tmp/err"
check "status line" grep -q "vanilla: 5 of 5 candidates trained, best .* final: MSE" "$tmp/out"
expect_rc 2 "pf-final --last-generation on a baseline run" "$BIN/pf-final" --run "$R" --last-generation 9
check "says why" grep -q "a baseline" "$tmp/err"
expect_rc 2 "pf-propose past the five slots" "$BIN/pf-propose" --run "$R" --generation 0 --slot 5

# replay on a copy, killed mid-run and resumed: the same answer (every
# training is a pure function of its seed), no temp file left
mkdir -p "$tmp/c" && cp -r "$tmp/runs/burgers_1d" "$tmp/c/"
C=$tmp/c/burgers_1d/vanilla/run1
touch "$tmp/mark"
( mk vanilla RUNS_ROOT="$tmp/c" LLM=replay search >/dev/null 2>&1 & echo $! >"$tmp/pid"; wait ) &
until_new "$C" evidence.msgpack "$tmp/mark" # the first of five trainings done
pkill -TERM -P "$(cat "$tmp/pid")" 2>/dev/null; kill "$(cat "$tmp/pid")" 2>/dev/null
wait
check "killed before the end" test ! -f "$C/final.msgpack" -o "$C/final.msgpack" -ot "$C/context.json"
mk vanilla RUNS_ROOT="$tmp/c" LLM=replay search >"$tmp/out" 2>"$tmp/err"
eq "resumed replay run" "$?" 0
eq "replay: the same final MSE" "$(field "$C/final.msgpack" hf_mse)" "$hf"
eq "no temp file of the killed writers is left" "$(find "$C" -name '*.tmp.*' | wc -l)" 0
if command -v gnuplot >/dev/null 2>&1; then
    expect_rc 0 "pf-plot on a baseline run" "$BIN/pf-plot" --run "$R" --out "$tmp/plot"
    check "the selected candidate's fields" test -s "$tmp/plot/fields_u.png"
    check "no trajectory, saying why" grep -q "a baseline): no search" "$tmp/err"
fi

# make tables: pinnforge, vanilla and ropinn runs (the two real ones above,
# the others written here), three columns and the statistics rows
python3 "$PF_TESTS/fake_finals.py" "$tmp/runs" \
    burgers_1d,poisson_2d_classic,heat_2d_multiscale,wave_1d,poisson_5d,allen_cahn_1d,darcy_flow_2d,kovasznay_flow_2d \
    pinnforge:1,vanilla:30,ropinn:20
make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" RUNS_ROOT="$tmp/runs" REPORTS_ROOT="$tmp/rep" tables >"$tmp/out" 2>"$tmp/err"
eq "make tables" "$?" 0
check "three columns in the paper's order" grep -q "^| PDE | RoPINN | Vanilla PINN | PINNForge |$" "$tmp/rep/main.md"
# PINNForge first on all 8 PDEs; RoPINN below vanilla on the 7 written here
check "the Friedman row" grep -Eq "^\| Friedman avg. rank \| (1.88|2.00) \| (2.88|3.00) \| 1.00 \|$" "$tmp/rep/main.md"
check "the Wilcoxon row" grep -q "^| Wilcoxon vs. PINNForge | + | + | -- |$" "$tmp/rep/main.md"
check "says RoPINN is a reconstruction" grep -q "RoPINN is a reconstruction" "$tmp/rep/main.md"
check "the real baseline runs are in" grep -q "^burgers_1d,vanilla,2," "$tmp/rep/main.csv"
check "budget: the baseline steps (no backbone)" grep -q "| burgers_1d | Vanilla PINN | none | 2 | .* | 250 |" "$tmp/rep/budget_pde.md"
finish
