#!/bin/sh
# METHOD=pinnsformer end to end (pipeline.mk; search/baseline.h): a run on
# burgers_1d at the smoke profile (quick's sizes, 100 steps a candidate) trains five PINNsFormer candidates (architecture.type
# pinnsformer, the released sizes shrunk to the quick budget) at fidelity
# baseline and reports the lowest MSE; the result's parameters are the
# network's; make tables puts PINNsFormer in the paper's column order and
# says it is a reconstruction. Float build only (precision-blind).
. "$(dirname "$0")/lib.sh"
float_only
need_data burgers1d.dat
R=$tmp/runs/burgers_1d/pinnsformer/run1
pipeline PDE=burgers_1d RUN=1 METHOD=pinnsformer PROFILE=smoke RUNS_ROOT="$tmp/runs" search >"$tmp/out" 2>"$tmp/err"
eq "the run" "$?" 0
check "final.msgpack" test -f "$R/final.msgpack"
check "five trainings at fidelity baseline" test "$(grep -c "pf-train: start burgers_1d, spec [0-9a-f]*, baseline fidelity (100 steps)" "$tmp/err")" -eq 5
"$BIN/pf-inspect" "$R/final.msgpack" >"$tmp/final.json"
check "the numbers of final.msgpack" python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
c = f["candidates"]
ys = [e["y"] for e in c if e["status"] == "ok"]
assert len(c) == 5 and len(ys) == 5 and f["hf_mse"] == min(ys), c
assert all(0 < y < 1 for y in ys), ys
a = f["spec"]["architecture"]
assert a["type"] == "pinnsformer" and a["depth"] == 1 and "activation" not in a, a
q = a["pinnsformer"]
assert q["tokens"] == 5 and q["dt"] == 1e-4 and q["heads"] == 2 and a["width"] % 2 == 0, a
assert f["budget"]["optimizer_steps"]["baseline"] == 500, f["budget"]
' "$tmp/final.json"
check "the rationale says reconstruction" sh -c "'$BIN/pf-inspect' '$R/gen00/cand0.proposal.msgpack' | grep -q 'PINNsFormer (a reconstruction'"
# the trained parameters are the network's: embedding, encoder, decoder, head
check "result.h5 holds the network's parameters" sh -c "'$BIN/pf-inspect' '$R/gen00/cand0/result.h5' | grep -q 'enc0.attn.q.W'"
pipeline PDE=burgers_1d RUN=1 METHOD=pinnsformer PROFILE=smoke RUNS_ROOT="$tmp/runs" status >"$tmp/out" 2>"$tmp/err"
check "status line" grep -q "pinnsformer: 5 of 5 candidates trained, best .* final: MSE" "$tmp/out"

# make tables: the real run beside written ones of three other methods
python3 "$PF_TESTS/fake_finals.py" "$tmp/runs" burgers_1d,poisson_2d_classic,heat_2d_multiscale \
    pinnforge:1,vanilla:30,ropinn:20,pinnsformer:40
make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" RUNS_ROOT="$tmp/runs" REPORTS_ROOT="$tmp/rep" tables >"$tmp/out" 2>"$tmp/err"
eq "make tables" "$?" 0
check "four columns in the paper's order" grep -q "^| PDE | RoPINN | PINNsFormer | Vanilla PINN | PINNForge |$" "$tmp/rep/main.md"
check "says PINNsFormer is a reconstruction" grep -q "PINNsFormer is a reconstruction" "$tmp/rep/main.md"
check "the real run is in" grep -q "^burgers_1d,pinnsformer,2," "$tmp/rep/main.csv"
finish
