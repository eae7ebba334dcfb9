#!/bin/sh
# t0800-pf-plot.sh — `pf-plot --run RUN --out DIR [--time T] [--quiet]`.
#
#   tests/t0800-pf-plot.sh BUILD/bin float|double     (make test runs it)
#
# Exit codes (0 ok, also with plots skipped; 1 unreadable run or artifact,
# no gnuplot; 2 usage), a two-generation run built from hand-made
# proposal/evidence/final files (pf-select makes the selections): trajectory.{png,dat,gp} with the best
# candidate of each generation and the HF stars, the skip lines for the
# curves and fields (the final design's result.h5 is absent), a rerun of the
# kept script by hand, --quiet, and the failures: no gnuplot on PATH, a
# corrupt final.msgpack, a folder without context.json. (tests/test_plot.c
# covers the curves and fields with real HDF5 files.)
. "$(dirname "$0")/lib.sh"
P=$BIN/pf-plot

# msgpack fixtures, written with tests/msgpack_enc.py (this python has no msgpack module).
cat >"$tmp/mk.py" <<'PY'
import os, struct, sys

sys.path.insert(0, os.environ["PF_TESTS"])
from msgpack_enc import enc, put  # noqa: E402

run = sys.argv[1]
open(run + "/context.json", "w").write(
    '{"pde": "burgers_1d", "method": "pinnforge", "run": 0, "budget": "quick", "llm": "offline"}\n')
# generation: [(y, status, loss_final, residual_mean)]
gens = [[(0.5, "ok", 1.0, 2.0), (0.25, "ok", 0.5, 0.75), (0.01, "nan", 9.0, 9.0)],
        [(0.125, "ok", 0.0625, 0.375), (0.2, "ok", 9.0, 9.0)]]
for g, cands in enumerate(gens):
    for k, (y, st, lf, rm) in enumerate(cands):
        h = "%064x" % (10 * g + k)
        put("%s/gen%02d/cand%d.proposal.msgpack" % (run, g, k),
            {"format": "pinnforge.proposal", "version": 1, "pde": "burgers_1d", "generation": g, "index": k,
             "slot": "s", "valid": True, "spec": {"architecture": {"width": 10 * g + k}}, "spec_hash": h})
        put("%s/gen%02d/cand%d/evidence.msgpack" % (run, g, k),
            {"format": "pinnforge.evidence", "version": 1, "y": y, "status": st, "pde": "burgers_1d",
             "spec_hash": h,
             "evidence": {"loss_final": lf, "residual": {"mean": rm, "p95": rm, "max": rm}}})
put(run + "/final.msgpack",
    {"format": "pinnforge.final", "version": 1, "pde": "burgers_1d", "method": "pinnforge", "hf_mse": 0.0625,
     "top3": [{"spec_hash": "%064x" % 10, "y_low": 0.125, "y_high": 0.0625, "status": "ok", "seed": 9900},
              {"spec_hash": "%064x" % 1, "y_low": 0.25, "y_high": 0.5, "status": "ok", "seed": 9901}]})
PY

# ------------------------------------------------------------ usage
expect_rc 0 "--help" "$P" --help
check "--help prints the usage" grep -q '^usage: pf-plot --run RUN --out DIR' "$tmp/out"
expect_rc 2 "no arguments" "$P"
expect_rc 2 "no --out" "$P" --run "$tmp/r"
expect_rc 2 "no --run" "$P" --out "$tmp/o"
expect_rc 2 "bad --time" "$P" --run "$tmp/r" --out "$tmp/o" --time x
expect_rc 2 "unknown option" "$P" --run "$tmp/r" --out "$tmp/o" --frobnicate
expect_rc 2 "stray argument" "$P" --run "$tmp/r" --out "$tmp/o" extra
expect_rc 1 "no context.json" "$P" --run "$tmp/nowhere" --out "$tmp/o"
check "no context.json: names it" grep -q "$tmp/nowhere/context.json" "$tmp/err"

# ------------------------------------------------------------ a run
R=$tmp/run O=$tmp/plots
mkdir -p "$R"
python3 "$tmp/mk.py" "$R"
for g in 0 1; do "$BIN/pf-select" --run "$R" --generation $g --quiet || echo "pf-select failed on generation $g"; done
expect_rc 0 "plot a run" "$P" --run "$R" --out "$O"
check "a start line" grep -q "^pf-plot: plotting $R (burgers_1d, pinnforge run 0) into $O" "$tmp/err"
check "trajectory written" grep -q "^pf-plot: wrote $O/trajectory.png (.dat, .gp): generations 0..1" "$tmp/err"
check "curves skipped: says why" grep -q "^pf-plot: curves: skipped: .*hifi/top0/result.h5' is missing" "$tmp/err"
check "fields skipped" grep -q "^pf-plot: fields: skipped" "$tmp/err"
eq "nothing on stdout" "$(wc -c <"$tmp/out")" 0
eq "files" "$(ls "$O" | tr '\n' ' ')" "trajectory.dat trajectory.gp trajectory.png "
check "a PNG" sh -c "head -c 8 '$O/trajectory.png' | od -An -c | grep -q 'P   N   G'"
check "trajectory.dat: best per generation, loss, residual" python3 -c '
import sys
blocks = open(sys.argv[1]).read().split("\n\n\n")
rows = [l.split() for l in blocks[0].splitlines() if l and l[0] != "#"]
assert rows == [["0", "0.25", "0.5", "0.75", "1"], ["1", "0.125", "0.0625", "0.375", "0"]], rows
stars = [l.split() for l in blocks[1].splitlines() if l and l[0] != "#"]
assert stars == [["2", "0.0625", "0"], ["2", "0.5", "1"]], stars
' "$O/trajectory.dat"
check "the script reruns by hand" sh -c "cd '$O' && gnuplot -e \"outfile='again.png'\" trajectory.gp && test -s again.png"
rm -f "$O/again.png"
expect_rc 0 "--quiet" "$P" --run "$R" --out "$O" --quiet
check "--quiet: nothing on stderr" test ! -s "$tmp/err"

# ------------------------------------------------------------ failures
expect_rc 1 "no gnuplot on PATH" env PATH=/nonexistent "$P" --run "$R" --out "$tmp/o2"
check "no gnuplot: says to install gnuplot-nox" grep -q "gnuplot-nox" "$tmp/err"
check "no gnuplot: nothing written" test ! -e "$tmp/o2"
printf '\223\001' >"$R/final.msgpack"
expect_rc 1 "corrupt final.msgpack" "$P" --run "$R" --out "$O"
check "corrupt: names the file" grep -q "$R/final.msgpack" "$tmp/err"
eq "no temp files left" "$(ls "$O" | grep -c 'tmp')" 0
finish
