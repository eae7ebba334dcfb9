#!/bin/sh
# Backbones as a dimension of the study (issue 37; docs/search.md,
# "Backbones"; docs/study.md, "The loopback study"): the smoke study
# 2 PDEs x {pinnforge, no_feedback, vanilla} x backbones a and b, run by
# scripts/loopback-study.sh against two loopback servers of different skill
# (tests/llm_skill_server.py: a good, b poor; started and stopped by PID),
# one run per cell and LLM_MAX_TOKENS=150000 a run (each search stops after
# a generation or a few; the test's time). vanilla is the baseline that
# Kendall's W and the wins/ties/losses need. Checks: every cell's folder
# (method@backbone; vanilla once) and context.json; each backbone's
# transcripts were answered by its own server (the servers' logs) and name
# it and its model; the cross-backbone tables hold the numbers that follow
# from the runs' final MSEs (pf-inspect): Table 1 per backbone, the
# Friedman test across backbones (n, ranks, chi2), Kendall's mean ranks,
# the wins/ties/losses (with one run a side every PDE is untested); the
# progress table, study-status, and a rerun that does nothing; then, the
# servers stopped, `make study LLM=replay` on a copy of the runs: every
# table and every final.msgpack the same, bit for bit but their clocks.
# Also: BACKBONE=nosuch and the other refusals, and the plan of a study
# with a mixture (BACKBONES="a mix:a,b"). Float build only (the pipeline
# is precision-blind).
# make test: about 197 s
. "$(dirname "$0")/lib.sh"
float_only
unset PF_LLM_URL PF_LLM_MODEL PF_LLM_BACKBONE PF_LLM_PROVIDER LLM BACKBONE BACKBONES
if ! command -v python3 >/dev/null 2>&1; then
    echo "$TEST_NAME: skipped: python3 is missing (the loopback LLM servers need it)"
    finish
    exit
fi
PDES="darcy_flow_2d poisson_5d"
CELLS="pinnforge@a pinnforge@b no_feedback@a no_feedback@b vanilla"
BUILD=$(cd "$BUILD" && pwd)
export BUILD
L=$tmp/live C=$tmp/copy
study() { # study DIR [VAR=VALUE...]: the loopback study, one run a cell, capped
    d=$1
    shift
    "$ROOT/scripts/loopback-study.sh" "$d" RUNS=0 LLM_MAX_TOKENS=150000 "$@"
}
inspect_mse() { "$BIN/pf-inspect" "$1" | sed -n 's/^  "hf_mse": \(.*\),$/\1/p'; }

study "$L" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 3 ]; then
    echo "$TEST_NAME: skipped: a loopback LLM server did not start on 127.0.0.1 (tests/llm_skill_server.py)"
    finish
    exit
fi
eq "the loopback study" "$rc" 0
check "the servers are stopped" test ! -e "$L/servers/a.pid" -a ! -e "$L/servers/b.pid"
for t in "Does the backbone matter?" "Kendall's W" "wins / ties / losses per backbone"; do
    check "the script prints '$t'" grep -q "$t" "$tmp/out"
done

# the cells: method@backbone for the LLM-driven methods, vanilla once
for p in $PDES; do
    for c in $CELLS; do
        check "$p/$c/run0 made" test -f "$L/runs/$p/$c/run0/final.msgpack"
        check "$p/$c: the progress table (1 of 1 done)" grep -Eq "^$p +$c +1/1 " "$tmp/out"
    done
    check "$p: no plain pinnforge folder, no vanilla per backbone" sh -c \
        "! ls -d '$L/runs/$p/pinnforge' '$L/runs/$p'/vanilla@* 2>/dev/null | grep -q ."
done
D=darcy_flow_2d
check "context.json records the backbone, asked over http" \
    grep -q '"llm": "http", "eval": "paper", "backbone": "a"' "$L/runs/$D/pinnforge@a/run0/context.json"
check "vanilla's context names no backbone" sh -c "! grep -q backbone '$L/runs/$D/vanilla/run0/context.json'"
check "an LLM cap stopped a search" sh -c \
    "'$BIN/pf-inspect' '$L/runs/$D/pinnforge@a/run0/final.msgpack' | grep -q '\"stopped\": \"llm budget\"'"

# each backbone's transcripts: under its runs, answered by its own server, naming it and its model
for b in a:good b:poor; do
    n=${b%%:*} s=${b#*:}
    ntr=$(ls "$L"/runs/*/*@"$n"/run0/llm | grep -c msgpack)
    check "$n: calls stored" test "$ntr" -ge 40
    eq "$n: its server ($s) answered every stored call" "$(wc -l <"$L/servers/$n.log")" "$ntr"
    eq "$n: and only it" "$(grep -vc "^$s " "$L/servers/$n.log")" 0
    bad=$(for f in "$L"/runs/*/*@"$n"/run0/llm/*.msgpack; do
        "$BIN/pf-inspect" "$f" | grep -q "\"backbone\": \"$n\"" &&
            "$BIN/pf-inspect" "$f" | grep -q "\"model\": \"$s-model\"" || echo "$f"
    done)
    eq "$n: every transcript names backbone $n and model $s-model" "$bad" ""
done

# the tables, against the runs' final MSEs
for p in $PDES; do for c in $CELLS; do
    echo "$p $c $(inspect_mse "$L/runs/$p/$c/run0/final.msgpack")"
done; done >"$tmp/mses"
python3 - "$tmp/mses" "$L/reports" >"$tmp/tables" 2>&1 <<'EOF'
import csv, math, sys
mse = {}
for line in open(sys.argv[1]):
    p, c, v = line.split()
    mse[p, c] = float(v)
pdes = sorted({p for p, _ in mse})
rep = sys.argv[2]
rows = lambda n: list(csv.DictReader(open("%s/%s.csv" % (rep, n))))
bad = lambda *a: print("BAD", *a)
close = lambda x, y: abs(x - y) <= 1e-6 * max(abs(x), abs(y), 1e-300)
def ranks(vals): # rank 1 = the lowest, ties averaged
    return [sum(1 for w in vals if w < v) + (sum(1 for w in vals if w == v) + 1) / 2 for v in vals]
for b in "ab":
    t1 = {(r["pde"], r["method"]): r for r in rows("table1@" + b)}
    for p in pdes:
        for m, c in (("pinnforge", "pinnforge@" + b), ("vanilla", "vanilla")):
            r = t1.get((p, m))
            if not r or r["runs"] != "1" or not close(float(r["mean"]), mse[p, c]):
                bad("table1@%s %s %s: %s, run's MSE %g" % (b, p, m, r, mse[p, c]))
# Friedman across backbones per method: blocks the PDEs, treatments a and b
fr = {(r["method"], r["backbone"]): r for r in rows("backbones_friedman")}
for m in ("pinnforge", "no_feedback"):
    rk = [ranks([mse[p, m + "@a"], mse[p, m + "@b"]]) for p in pdes]
    n, k = len(pdes), 2
    R = [sum(r[j] for r in rk) for j in range(k)]
    ties = sum(1 for r in rk if r[0] == r[1]) * (2 ** 3 - 2)
    den = 1 - ties / (n * (k ** 3 - k))
    chi2 = (12 / (n * k * (k + 1)) * sum(x * x for x in R) - 3 * n * (k + 1)) / den if den > 0 else float("nan")
    for j, b in enumerate("ab"):
        r = fr.get((m, b))
        if not r or int(r["pdes"]) != n or not close(float(r["avg_rank"]), R[j] / n) or \
                not (math.isnan(chi2) or close(float(r["chi2"]), chi2)):
            bad("friedman %s %s: %s, expected n %d rank %g chi2 %g" % (m, b, r, n, R[j] / n, chi2))
# Kendall: each backbone's mean rank of pinnforge and vanilla over the PDEs
kd = {(r["method"], r["backbone"]): float(r["avg_rank"]) for r in rows("backbones_kendall")}
for b in "ab":
    rk = [ranks([mse[p, "pinnforge@" + b], mse[p, "vanilla"]]) for p in pdes]
    for i, m in enumerate(("pinnforge", "vanilla")):
        want = sum(r[i] for r in rk) / len(pdes)
        if (m, b) not in kd or not close(kd[m, b], want):
            bad("kendall %s %s: %s, expected %g" % (m, b, kd.get((m, b)), want))
# wins/ties/losses: one run a side, so every PDE is untested
wtl = {(r["backbone"], r["method"]): r for r in rows("backbones_wtl")}
for b in "ab":
    r = wtl.get((b, "vanilla"))
    if not r or (r["wins"], r["ties"], r["losses"], r["untested"]) != ("0", "0", "0", str(len(pdes))):
        bad("wtl %s vanilla: %s" % (b, r))
print("checked", len(mse), "runs")
EOF
check "the cross-backbone tables follow from the runs ($(cat "$tmp/tables" | tr '\n' ' '))" \
    sh -c "! grep -q BAD '$tmp/tables' && grep -q 'checked 10 runs' '$tmp/tables'"
check "the main table is one backbone's (a: the first by name)" cmp "$L/reports/main.csv" "$L/reports/table1@a.csv"
check "the budget per method and backbone" sh -c \
    "grep -q '^pinnforge,a,2,' '$L/reports/budget.csv' && grep -q '^no_feedback,b,2,' '$L/reports/budget.csv' &&
     grep -q '^vanilla,,2,' '$L/reports/budget.csv'"

# study-status; a rerun does nothing (new servers, never asked)
export LLMS_FILE="$L/llms.json"
mk() { make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PROFILE=smoke TRAIN_THREADS=1 -j2 RUNS=0 \
    LLM_MAX_TOKENS=150000 RUNS_ROOT="$L/runs" REPORTS_ROOT="$L/reports" "$@"; }
mk PDES="$PDES" METHODS="pinnforge no_feedback vanilla" BACKBONES="a b" study-status >"$tmp/status" 2>&1
check "study-status: 10 of 10 runs done, none stale" grep -q "^total: 10 of 10 runs done, 0 running, 0 failed, 0 stale" \
    "$tmp/status"
mk PDES="$PDES" METHODS="pinnforge no_feedback vanilla" BACKBONES="a b" study-status LLM=replay >"$tmp/status" 2>&1
check "study-status LLM=replay: the backbones' runs were asked over http" grep -q \
    "^stale: $L/runs/$D/pinnforge@a/run0: its settings differ (llm http vs replay" "$tmp/status"
keep=$(stat -c %Y.%N "$L"/runs/*/*/run0/final.msgpack "$L/runs/$D/pinnforge@b/run0/gen00/cand0/evidence.msgpack")
cp "$L/servers/a.log" "$tmp/a.log.1"
study "$L" >"$tmp/out" 2>"$tmp/err"
eq "the study again" "$?" 0
check "the study again: nothing to do" sh -c "! grep -q 'pf-train\\|pf-propose\\|pf-final' '$tmp/err'"
check "the study again: no server asked" cmp "$tmp/a.log.1" "$L/servers/a.log"
eq "the study again: the runs untouched" \
    "$(stat -c %Y.%N "$L"/runs/*/*/run0/final.msgpack "$L/runs/$D/pinnforge@b/run0/gen00/cand0/evidence.msgpack")" "$keep"

# refusals, as make reads the makefiles
mk PDE=$D RUN=0 RUNS_ROOT="$tmp/n" BACKBONE=nosuch search >"$tmp/out" 2>"$tmp/err"
check "BACKBONE=nosuch: make fails" test "$?" -ne 0
check "BACKBONE=nosuch: names the file and its backbones" \
    grep -q "BACKBONE=nosuch: backbone 'nosuch': no backbone 'nosuch' in $L/llms.json (it has: a, b;" "$tmp/err"
mk PDE=$D RUN=0 RUNS_ROOT="$tmp/n" BACKBONE=a LLM=offline search >"$tmp/out" 2>"$tmp/err"
check "BACKBONE=a LLM=offline: refused" grep -q "BACKBONE=a: LLM=offline asks no backbone" "$tmp/err"
mk PDE=$D RUN=0 RUNS_ROOT="$tmp/n" BACKBONE="a b" search >"$tmp/out" 2>"$tmp/err"
check "BACKBONE=\"a b\": one backbone" grep -q "one backbone (a study takes several" "$tmp/err"
check "a refused BACKBONE makes nothing" test ! -e "$tmp/n"

# a mixture in a study: its own cell beside a's
mk PDES=$D METHODS="pinnforge vanilla" BACKBONES="a mix:a,b" RUNS_ROOT="$tmp/m" study -n >"$tmp/plan" 2>&1
eq "make -n study BACKBONES=\"a mix:a,b\"" "$?" 0
check "the plan names the cells" grep -q -- '--methods "pinnforge@a pinnforge@mix+a+b vanilla"' "$tmp/plan"
check "the plan makes the mixture's run" grep -q "$tmp/m/$D/pinnforge@mix+a+b/run0" "$tmp/plan"
check "make -n made nothing" test ! -e "$tmp/m"

# the replay: a copy of the runs, the servers stopped
mkdir -p "$C" && cp -r "$L/runs" "$L/llms.json" "$C/"
ls "$C"/runs/*/*/run0/llm | grep -c msgpack >"$tmp/ntr"
study "$C" LLM=replay >"$tmp/out" 2>"$tmp/err"
eq "the study replayed" "$?" 0
check "replay: no server started" test ! -e "$C/servers"
check "replay: the candidates were trained again" grep -q "pf-train: start" "$tmp/err"
eq "replay: stores nothing new" "$(ls "$C"/runs/*/*/run0/llm | grep -c msgpack)" "$(cat "$tmp/ntr")"
check "replay: context.json says so, with the backbone" \
    grep -q '"llm": "replay", "eval": "paper", "backbone": "b"' "$C/runs/$D/pinnforge@b/run0/context.json"
# final.msgpack without its clocks (wall times, the trainings' and the stages')
final_json() { "$BIN/pf-inspect" "$1" | python3 -c '
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if not (k.startswith("wall") or k.endswith("wall_s") or k in ("used_s",))}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
print(json.dumps(strip(json.load(sys.stdin)), sort_keys=True))'; }
for p in $PDES; do for c in $CELLS; do
    final_json "$L/runs/$p/$c/run0/final.msgpack" >"$tmp/final.l"
    final_json "$C/runs/$p/$c/run0/final.msgpack" >"$tmp/final.c"
    check "replay: $p/$c's final.msgpack the same, bit for bit but its clocks" \
        sh -c "test -s '$tmp/final.l' && cmp -s '$tmp/final.l' '$tmp/final.c'"
done; done
# every table: budget.csv and budget_pde.csv carry the trainings' measured wall times
# (training_s_*, wall_*_s), which no rerun repeats: those columns are left out
no_clocks() { python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, h in enumerate(rows[0]) if not (h.startswith("training_s") or h.startswith("wall_"))]
for r in rows:
    print(",".join(r[i] for i in keep))' "$1"; }
n=0
for f in "$L"/reports/*.csv; do
    t=$(basename "$f")
    no_clocks "$f" >"$tmp/t.l"
    no_clocks "$C/reports/$t" >"$tmp/t.c" 2>&1
    check "replay: $t the same$(case $t in budget*) echo " but its clocks" ;; esac)" cmp -s "$tmp/t.l" "$tmp/t.c"
    n=$((n + 1))
done
check "replay: the tables compared ($n)" test "$n" -ge 10
finish
