#!/bin/sh
# t0910-pf-stats-backbones.sh — `pf-stats`' cross-backbone tables (issue 37).
#
#   tests/t0910-pf-stats-backbones.sh BUILD/bin float|double     (make test runs it)
#
# Fake finished runs (tests/fake_finals.py, two runs a cell, MSEs
# scale * 1e-4 * (i + 1) * (1 + 0.1 r) on the i-th PDE) with two backbones,
# a and b: on burgers_1d, poisson_2d_classic and heat_2d_multiscale the
# shared baselines ropinn (scale 2) and vanilla (8), pinnforge@a (1),
# pinnforge@b (2.1), no_feedback@a (3) and no_feedback@b (1.5); on wave_1d
# the same without any b run. By hand:
#   - table1@a / table1@b: the means of a's and b's runs with the shared
#     baselines; main is a's (no "offline" backbone: the first by name),
#     or b's with --backbone b;
#   - Friedman across backbones: pinnforge is better with a on the 3 PDEs
#     with both (ranks 1 and 2), no_feedback with b: chi2 = 3 (k = 2: chi2
#     = n), p = Q(3; 1) = 0.0832645; wave_1d left out;
#   - Kendall's W: a ranks pinnforge, ropinn, vanilla 1, 2, 3 and b ranks
#     them 2, 1, 3: R = 3, 3, 6, S = 6, W = 12 * 6 / (4 * 24) = 0.75,
#     chi2 = 2 * 2 * W = 3 (df 2), p = exp(-1.5) = 0.223130;
#   - wins / ties / losses (Welch's t on log10 MSE, 2 runs a side, df 2,
#     p = 1 - t / sqrt(2 + t^2)): with a, ratios 2 and 8 are wins on all 4
#     PDEs (ratio 2: t = 10.3, p = 0.009); with b, 2.1 against ropinn's 2
#     is a tie (t = 0.72, p = 0.54) and against vanilla a win, on 3 PDEs.
# With --pde, index.md links the tables and Friedman over one PDE says
# why it is not computed. Three backbones, a method run with two of them: left out
# of Kendall's W once. Two mixtures whose names differ after 180 characters: a
# Table 1 file and a column each. Then the errors: an unknown --backbone, a folder whose @backbone is not
# its context.json's, and a run tree with one backbone (no extra tables).
. "$(dirname "$0")/lib.sh"
S=$BIN/pf-stats
F=$PF_TESTS/fake_finals.py
R=$tmp/runs

expect_rc 0 "--help" "$S" --help
check "--help: --backbone and the cross-backbone tables" sh -c "grep -q '^  --backbone B ' '$tmp/out' && grep -q 'backbones_wtl' '$tmp/out'"

python3 "$F" "$R" burgers_1d,poisson_2d_classic,heat_2d_multiscale \
    ropinn:2,vanilla:8,pinnforge@a:1,pinnforge@b:2.1,no_feedback@a:3,no_feedback@b:1.5
python3 "$F" "$R" wave_1d ropinn:2,vanilla:8,pinnforge@a:1,no_feedback@a:3

expect_rc 0 "pf-stats over two backbones" "$S" --runs "$R" --out "$tmp/o"
for f in main table1@a table1@b backbones_friedman backbones_kendall backbones_wtl; do
    for e in md tex csv; do check "wrote $f.$e" test -s "$tmp/o/$f.$e"; done
done
check "main is backbone a's Table 1" cmp "$tmp/o/main.csv" "$tmp/o/table1@a.csv"
check "main says which backbone it shows" grep -q "their runs with the backbone a;.*(2 backbones: a, b;" "$tmp/o/main.md"
check "table1@b: pinnforge's mean on burgers_1d is b's" grep -q "^burgers_1d,pinnforge,2,2.205000000e-04," "$tmp/o/table1@b.csv"
check "table1@b: the shared ropinn" grep -q "^burgers_1d,ropinn,2,2.100000000e-04," "$tmp/o/table1@b.csv"
check "table1@b: no wave_1d row for pinnforge" sh -c "! grep -q '^wave_1d,pinnforge' '$tmp/o/table1@b.csv'"
check "table1@a: pinnforge on wave_1d" grep -q "^wave_1d,pinnforge,2,1.050000000e-04," "$tmp/o/table1@a.csv"
check "the figures by hand (statistics.json)" python3 -c '
import json, math, sys
x = json.load(open(sys.argv[1]))["backbones"]
assert x["backbones"] == ["a", "b"], x["backbones"]
q31 = math.erfc(math.sqrt(1.5))  # Q(3; 1)
fr = x["friedman"]
assert sorted(fr) == ["no_feedback", "pinnforge"], sorted(fr)
for m, ra in (("pinnforge", 1), ("no_feedback", 2)):
    f = fr[m]
    assert f["pdes"] == 3 and abs(f["chi2"] - 3) < 1e-12 and abs(f["p"] - q31) < 1e-9, (m, f)
    assert f["avg_ranks"] == {"a": ra, "b": 3 - ra} and f["left_out"] == ["wave_1d"], (m, f)
k = x["kendall"]
assert k["methods"] == ["ropinn", "vanilla", "pinnforge"], k["methods"]
assert k["pdes"] == ["burgers_1d", "heat_2d_multiscale", "poisson_2d_classic"], k["pdes"]
assert k["left_out"] == ["wave_1d"] and k["methods_left_out"] == [], k
assert abs(k["w"] - 0.75) < 1e-12 and abs(k["chi2"] - 3) < 1e-12 and k["df"] == 2, k
assert abs(k["p"] - math.exp(-1.5)) < 1e-9, k["p"]  # statistics.json: 10 digits
assert k["avg_ranks"] == {"a": {"ropinn": 2, "vanilla": 3, "pinnforge": 1},
                          "b": {"ropinn": 1, "vanilla": 3, "pinnforge": 2}}, k["avg_ranks"]
w = x["wtl"]
def cell(wins, ties, losses): return {"wins": wins, "ties": ties, "losses": losses, "untested": 0}
assert w["a"] == {"ropinn": cell(4, 0, 0), "vanilla": cell(4, 0, 0)}, w["a"]
assert w["b"] == {"ropinn": cell(0, 3, 0), "vanilla": cell(3, 0, 0)}, w["b"]
' "$tmp/o/statistics.json"
check "friedman.md: PINNForge's row" grep -Eq '^\| PINNForge +\| +3 \| +3\.000 \| +0\.0833 \| +1\.00 \| +2\.00 \|$' "$tmp/o/backbones_friedman.md"
check "friedman.md: the PDEs left out" grep -q "Left out (not every backbone has runs there): w/o Execution Feedback: wave_1d; PINNForge: wave_1d." "$tmp/o/backbones_friedman.md"
check "friedman.csv: a row per method and backbone" grep -q "^pinnforge,3,3,1,0.0832645[0-9]*,b,2$" "$tmp/o/backbones_friedman.csv"
check "kendall.md: W and its test" grep -q "Kendall's W = 0.750 (tie-corrected), χ² = 3.000 with 2 degrees of freedom, p = 0.223, over 2 backbones" "$tmp/o/backbones_kendall.md"
check "kendall.md: RoPINN's ranks" grep -Eq '^\| RoPINN +\| +2\.00 \| +1\.00 \|$' "$tmp/o/backbones_kendall.md"
check "wtl.md: against RoPINN" grep -Eq '^\| RoPINN +\| +4 / 0 / 0 \| +0 / 3 / 0 \|$' "$tmp/o/backbones_wtl.md"
check "wtl.md: against Vanilla PINN" grep -Eq '^\| Vanilla PINN +\| +4 / 0 / 0 \| +3 / 0 / 0 \|$' "$tmp/o/backbones_wtl.md"
check "wtl.csv" grep -q "^b,ropinn,0,3,0,0$" "$tmp/o/backbones_wtl.csv"

expect_rc 0 "--pde burgers_1d" "$S" --runs "$R" --pde burgers_1d --out "$tmp/op" --quiet
check "--pde: index.md links the cross-backbone tables" grep -q "^- \[backbones_wtl\](backbones_wtl.md)" "$tmp/op/index.md"
check "--pde: one PDE is too few for Friedman, said" grep -q "PINNForge: not computed: the Friedman test needs at least 2 tasks" "$tmp/op/backbones_friedman.md"

expect_rc 0 "--backbone b" "$S" --runs "$R" --out "$tmp/ob" --backbone b --quiet
check "--backbone b: main is b's Table 1" cmp "$tmp/ob/main.csv" "$tmp/o/table1@b.csv"
expect_rc 1 "an unknown --backbone" "$S" --runs "$R" --out "$tmp/oz" --backbone zz
check "unknown --backbone: names it and the backbones found" grep -q "no finished run has the backbone 'zz' (the runs' backbones: a, b)" "$tmp/err"
expect_rc 2 "--backbone with --from-table" "$S" --from-table "$PF_TESTS/fixtures/paper_table1.csv" --backbone a

# a folder of backbone c whose context.json says d: refused, naming the run
mkdir -p "$R/burgers_1d/pinnforge@c/run0"
printf '{"pde": "burgers_1d", "method": "pinnforge", "run": 0, "budget": "quick", "llm": "http", "backbone": "d"}\n' \
    >"$R/burgers_1d/pinnforge@c/run0/context.json"
expect_rc 1 "a folder's backbone not its context.json's" "$S" --runs "$R" --out "$tmp/oc"
check "the mismatch named" grep -q "$R/burgers_1d/pinnforge@c/run0/context.json' is the settings of another run: its \"backbone\" is d, but the folder is burgers_1d/pinnforge@c/run0" "$tmp/err"

# three backbones, pinnsagent run with b and c only: left out of Kendall's W once
python3 "$F" "$tmp/three" burgers_1d,poisson_2d_classic \
    ropinn:2,pinnforge@a:1,pinnforge@b:2,pinnforge@c:3,pinnsagent@b:3,pinnsagent@c:1
expect_rc 0 "pf-stats over three backbones" "$S" --runs "$tmp/three" --out "$tmp/o3" --quiet
eq "three backbones: pinnsagent left out of Kendall's W once" "$(python3 -c "import json,sys
print(json.load(open(sys.argv[1]))['backbones']['kendall']['methods_left_out'])" "$tmp/o3/statistics.json")" "['pinnsagent']"

# two mixtures of four backbones of 60 characters that differ only in their last: each its own
# Table 1 file and column, the names whole (no cut at a fixed length)
L1=$(printf '%060d' 1) L2=$(printf '%060d' 2) L3=$(printf '%060d' 3)
M1=mix+$L1+$L2+$L3+x M2=mix+$L1+$L2+$L3+y
python3 "$F" "$tmp/mix" burgers_1d,poisson_2d_classic ropinn:2,pinnforge@$M1:1,pinnforge@$M2:3
expect_rc 0 "pf-stats over two long mixtures" "$S" --runs "$tmp/mix" --out "$tmp/om" --quiet
check "long mixtures: a Table 1 each, named whole" test -s "$tmp/om/table1@$M1.csv" -a -s "$tmp/om/table1@$M2.csv"
check "long mixtures: their Table 1s differ" sh -c "! cmp -s '$tmp/om/table1@$M1.csv' '$tmp/om/table1@$M2.csv'"
check "long mixtures: a Friedman column each, named whole" sh -c \
    "grep -qF 'Mean rank $M1' '$tmp/om/backbones_friedman.md' && grep -qF 'Mean rank $M2' '$tmp/om/backbones_friedman.md'"

# one backbone: main alone, no cross-backbone tables
python3 "$F" "$tmp/one" burgers_1d,poisson_2d_classic ropinn:2,pinnforge@a:1
expect_rc 0 "pf-stats over one backbone" "$S" --runs "$tmp/one" --out "$tmp/o1" --quiet
check "one backbone: main written" test -s "$tmp/o1/main.md"
check "one backbone: no cross-backbone tables" sh -c "! ls '$tmp/o1' | grep -q -e backbones_ -e table1@"
check "one backbone: no backbone note" sh -c "! grep -q 'their runs with the backbone' '$tmp/o1/main.md'"
finish
