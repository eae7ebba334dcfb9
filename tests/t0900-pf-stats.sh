#!/bin/sh
# t0900-pf-stats.sh — `pf-stats` from runs and `--from-table`.
#
#   tests/t0900-pf-stats.sh BUILD/bin float|double     (make test runs it)
#
# Exit codes (0 ok; 1 missing runs folder or bad table; 2 usage), the
# paper's Table 1 through --from-table as text and JSON (golden numbers),
# a malformed CSV named with its line, and a two-method runs tree (two
# finished runs and one unfinished) written into OUT: the files, the
# unfinished run reported on stderr and left out, the means in main.csv,
# index.md with --pde; a run of a .pde file (context.json's "pde" is its
# path, the folder its declared name) and one of a name not in the
# registry, tabled under their folders' names after the registry's PDEs;
# a cell whose runs were made with other settings (eval), refused.
# (tests/test_stats.c and test_report.c check the numbers in depth.)
. "$(dirname "$0")/lib.sh"
S=$BIN/pf-stats
T1=$PF_TESTS/fixtures/paper_table1.csv

# ------------------------------------------------------------ usage
expect_rc 0 "--help" "$S" --help
check "--help prints the usage" grep -q '^usage: pf-stats \[--runs DIR\]' "$tmp/out"
expect_rc 2 "unknown option" "$S" --frobnicate
expect_rc 2 "stray argument" "$S" extra
expect_rc 2 "--json without --from-table" "$S" --json
expect_rc 2 "--from-table with --pde" "$S" --from-table "$T1" --pde burgers_1d
expect_rc 1 "no runs folder" "$S" --runs "$tmp/nowhere" --out "$tmp/o"
check "no runs folder: names it" grep -q "no runs folder '$tmp/nowhere'" "$tmp/err"

# ------------------------------------------------------------ --from-table
expect_rc 0 "Table 1 as text" "$S" --from-table "$T1"
check "text: chi2_F and p" grep -q "chi2_F = 42.696, df = 3, p = 2.86e-09 over 25 complete tasks" "$tmp/out"
check "text: RoPINN row" grep -Eq "^ropinn +3.04 +1.79e-07 +1.79e-07 +\+ +0.177" "$tmp/out"
check "text: best-other summary" grep -q "best on 24 of 25; median MSE reduction 59.85%, geometric-mean ratio 2.78x" "$tmp/out"
expect_rc 0 "Table 1 as JSON" "$S" --from-table "$T1" --json
check "json: the golden numbers" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["friedman"]
assert abs(f["chi2"] - 42.696) < 5e-4 and abs(f["p"] / 2.86e-9 - 1) < 5e-3, f
assert [round(f["avg_ranks"][m], 2) for m in ("ropinn", "pinnsformer", "pinnsagent", "pinnforge")] == [3.04, 2.96, 2.96, 1.04]
for m in ("ropinn", "pinnsformer", "pinnsagent"):
    w = d["wilcoxon"][m]
    assert abs(w["p_holm"] / 1.79e-7 - 1) < 5e-3 and w["verdict"] == "+", w
assert [round(d["median_cv"][m], 3) for m in ("ropinn", "pinnsformer", "pinnsagent", "pinnforge")] == [0.177, 0.184, 0.497, 0.182]
' "$tmp/out"
expect_rc 1 "an unknown reference" "$S" --from-table "$T1" --reference nobody
check "unknown reference: says so" grep -q "no method 'nobody'" "$tmp/err"
printf 'pde,method,mean\nburgers_1d,a,1e-3\nburgers_1d,b,oops\n' >"$tmp/bad.csv"
expect_rc 1 "a malformed CSV" "$S" --from-table "$tmp/bad.csv"
check "malformed: file, line and value" grep -q "$tmp/bad.csv:3: column mean: 'oops' is not a number" "$tmp/err"

# ------------------------------------------------------------ from runs
cat >"$tmp/mk.py" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["PF_TESTS"])
from msgpack_enc import put  # noqa: E402

root = sys.argv[1]
def run(method, r, hf, pde="burgers_1d", folder="burgers_1d"):
    d = "%s/%s/%s/run%d" % (root, folder, method, r)
    os.makedirs(d, exist_ok=True)
    json.dump({"pde": pde, "method": method, "run": r, "budget": "quick", "llm": "offline"},
              open(d + "/context.json", "w"))
    for k, y in enumerate([0.5, 0.25]):  # generation 0; pf-select makes its selection
        h = "%064x" % (k + 1)
        put(d + "/gen00/cand%d.proposal.msgpack" % k, {"format": "pinnforge.proposal", "version": 1,
            "pde": folder, "generation": 0, "index": k, "slot": "s", "valid": True,
            "spec": {"architecture": {"width": k}}, "spec_hash": h})
        put(d + "/gen00/cand%d/evidence.msgpack" % k, {"format": "pinnforge.evidence", "version": 1, "y": y,
            "status": "ok", "pde": folder, "spec_hash": h})
    if hf is not None:
        put(d + "/final.msgpack", {"format": "pinnforge.final", "version": 1, "hf_mse": hf,
            "budget": {"optimizer_steps": {"low_fidelity": 1600, "high_fidelity": 3000}}})
run("pinnforge", 0, 0.001)
run("pinnforge", 1, 0.003)
run("pinnforge", 2, None)
run("ropinn", 0, 0.004)
run("pinnforge", 0, 0.02, "/home/someone/a/rather/long/path/to/where/the/equations/live/my_heat.pde", "my_heat")
run("pinnforge", 0, 0.03, "aardvark_2d", "aardvark_2d")
PY
python3 "$tmp/mk.py" "$tmp/runs"
for d in "$tmp"/runs/*/*/run*; do "$BIN/pf-select" --run "$d" --generation 0 --quiet || echo "pf-select failed in $d"; done
expect_rc 0 "tables from runs" "$S" --runs "$tmp/runs" --out "$tmp/rep"
check "counts the runs" grep -q "^pf-stats: 6 runs under $tmp/runs, 5 finished" "$tmp/err"
check "names the unfinished run" grep -q "left out of the means (no final.msgpack yet): $tmp/runs/burgers_1d/pinnforge/run2" "$tmp/err"
check "a line per file written (the library's log through pf-stats's sink)" grep -q "^pf-stats: wrote $tmp/rep/main.md$" "$tmp/err"
eq "files" "$(ls "$tmp/rep" | tr '\n' ' ')" "budget.csv budget.md budget.tex budget_pde.csv budget_pde.md budget_pde.tex main.csv main.md main.tex statistics.json trajectory.csv trajectory.md trajectory.tex "
check "main.csv: the means" grep -q "^burgers_1d,pinnforge,2,2.000000000e-03,1.414213562e-03$" "$tmp/rep/main.csv"
eq "main.csv: the PDEs, the registry's first" "$(cut -d, -f1 "$tmp/rep/main.csv" | uniq | tr '\n' ' ')" "pde burgers_1d aardvark_2d my_heat "
check "main.csv: the file PDE's run under its declared name" grep -q "^my_heat,pinnforge,1,2.000000000e-02," "$tmp/rep/main.csv"
check "main.md: the best in bold" grep -q "| burgers_1d | 4.00E-03 | \*\*2.00E-03 ± 1.41E-03\*\* |" "$tmp/rep/main.md"
check "main.tex: booktabs" grep -q '^\\toprule$' "$tmp/rep/main.tex"
expect_rc 0 "one PDE, quiet" "$S" --runs "$tmp/runs" --pde burgers_1d --out "$tmp/rep1" --quiet
check "--quiet: nothing on stderr" test ! -s "$tmp/err"
check "index.md: the unfinished run" grep -q "not finished (no final.msgpack)" "$tmp/rep1/index.md"
check "index.md: links the tables" grep -q "^- \[main\](main.md)" "$tmp/rep1/index.md"
expect_rc 0 "the file PDE alone" "$S" --runs "$tmp/runs" --pde my_heat --out "$tmp/rep2" --quiet
check "index.md: the file PDE's run" grep -q "final high-fidelity MSE 2.000e-02" "$tmp/rep2/index.md"
eq "no temp files left" "$(ls "$tmp/rep" "$tmp/rep1" | grep -c '\.tmp\.')" 0

# ------------------------------------------------------------ a cell of runs made otherwise
# A held-out run1 beside a paper-mode run0: no cell averages a full-set and a
# half-set MSE; pf-stats refuses, naming both runs and what differs.
cp -r "$tmp/runs" "$tmp/mixed"
python3 -c '
import json, sys
p = sys.argv[1] + "/burgers_1d/pinnforge/run1/context.json"
c = json.load(open(p)); c["eval"] = "heldout"; json.dump(c, open(p, "w"))
' "$tmp/mixed"
expect_rc 1 "a cell of runs with other settings" "$S" --runs "$tmp/mixed" --out "$tmp/repm"
check "names both runs and what differs" grep -q "$tmp/mixed/burgers_1d/pinnforge/run0 and $tmp/mixed/burgers_1d/pinnforge/run1 were made with other settings (eval paper vs heldout)" "$tmp/err"
check "no main table written" test ! -e "$tmp/repm/main.md"
expect_rc 0 "the other PDE's cells alone" "$S" --runs "$tmp/mixed" --pde my_heat --out "$tmp/repm2" --quiet
finish
