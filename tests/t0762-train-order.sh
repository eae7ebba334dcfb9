#!/bin/sh
# Longest first (docs/search.md, "Longest first"; src/search/train_order.h):
# a poisson_5d smoke search made up to generation 1. The offline proposer's
# eight generation-0 designs all reach the smoke profile's limits, so two of
# them are first made smaller (their interior points cut to 100 and 400, the
# proposals rewritten with their new spec hashes), and generation 0's plan
# (gen00/plan.json) is then not slot order: the plan lists the slots by
# decreasing predicted time, every evidence carries the plan's prediction,
# its cost model and the measured time, and with one job (-j1) the
# trainings started in the plan's order (time.started_unix). Generation 1
# (-j2) is planned with the cost model fitted to generation 0's eight
# trainings, and its rank 0 started before ranks 2..4. Then: a rank mark
# deleted trains nothing again; a deleted result retrains that slot alone;
# make -n changes no file. Float build only.
. "$(dirname "$0")/lib.sh"
float_only
R=$tmp/runs/poisson_5d/pinnforge/run0
upto() { # upto JOBS [MAKE ARGS...] FILE: make the run up to FILE with -jJOBS
    j=$1
    shift
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=poisson_5d RUN=0 LLM=offline PROFILE=smoke \
        TRAIN_THREADS=1 RUNS_ROOT="$tmp/runs" -j"$j" "$@"
}
# facts G: one line per rank of genG's plan: rank slot predicted_s started_unix evidence.predicted_s
# evidence.cost_model.trainings, then "model N" (the plan's cost model's trainings)
facts() {
    d=$R/gen0$1
    for k in 0 1 2 3 4 5 6 7; do
        [ -f "$d/cand$k/evidence.msgpack" ] && "$BIN/pf-inspect" "$d/cand$k/evidence.msgpack" >"$tmp/ev$k.json"
    done
    python3 - "$d/plan.json" "$tmp" <<'EOF'
import json, sys
plan = json.load(open(sys.argv[1]))
for e in plan["order"]:
    t = json.load(open("%s/ev%d.json" % (sys.argv[2], e["slot"])))["evidence"]["time"]
    print(e["rank"], e["slot"], repr(e["predicted_s"]), repr(t["started_unix"]), repr(t["predicted_s"]),
          t["cost_model"]["trainings"])
print("model", plan["cost_model"]["trainings"])
EOF
}

# generation 0's proposals, two of them made smaller: slot 1 (100 interior points) and slot 4 (400)
upto 1 "$R/gen00/plan.json" >"$tmp/out" 2>"$tmp/err"
eq "generation 0's proposals" "$?" 0
for ki in 1:100 4:400; do
    k=${ki%:*}
    P=$R/gen00/cand$k.proposal.msgpack
    "$BIN/pf-inspect" "$P" >"$tmp/p.json"
    python3 -c "import json, sys; p = json.load(open(sys.argv[1])); p['spec']['sampling']['interior'] = int(sys.argv[2]);
json.dump(p['spec'], open(sys.argv[3], 'w'))" "$tmp/p.json" "${ki#*:}" "$tmp/s.json"
    "$BIN/pf-train" "$tmp/s.json" --pde poisson_5d --fidelity low --budget smoke --seed 0 --out "$tmp/h$k" --quiet
    "$BIN/pf-inspect" "$tmp/h$k/evidence.msgpack" >"$tmp/h.json"
    python3 -c "import json, os, sys; sys.path.insert(0, os.environ['PF_TESTS']); from msgpack_enc import put
p = json.load(open(sys.argv[1])); p['spec'] = json.load(open(sys.argv[2])); p['spec_hash'] = json.load(open(sys.argv[3]))['spec_hash']
put(sys.argv[4], p)" "$tmp/p.json" "$tmp/s.json" "$tmp/h.json" "$P"
    check "slot $k made smaller" "$BIN/pf-inspect" "$P"
done
upto 1 "$R/gen00/select.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "generation 0 at -j1" "$?" 0
check "gen00/plan.json" test -f "$R/gen00/plan.json"
facts 0 >"$tmp/f0"
cat "$tmp/f0" | sed "s/^/$TEST_NAME: gen00 rank slot predicted started evidence-predicted trainings: /"
eq "eight ranks" "$(grep -c -v '^model' "$tmp/f0")" 8
eq "generation 0: the default cost model" "$(sed -n 's/^model //p' "$tmp/f0")" 0
eq "the plan: the two smaller last" "$(grep -v '^model' "$tmp/f0" | awk '{printf "%s", $2}' | cut -c7-8)" 41
check "the plan by decreasing prediction" awk '!/^model/ { if (NR > 1 && $3 > p) exit 1; p = $3 }' "$tmp/f0"
check "the predictions differ (x2 or more)" awk '!/^model/ { if (NR == 1) a = $3; b = $3 } END { exit !(a >= 2 * b) }' "$tmp/f0"
check "every evidence has the plan's prediction" awk '!/^model/ { if ($3 != $5 || $6 != 0) exit 1 }' "$tmp/f0"
check "-j1: started in the plan's order" awk '!/^model/ { if (NR > 1 && $4 <= s) exit 1; s = $4 }' "$tmp/f0"

upto 2 "$R/gen01/select.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "generation 1 at -j2" "$?" 0
facts 1 >"$tmp/f1"
cat "$tmp/f1" | sed "s/^/$TEST_NAME: gen01 rank slot predicted started evidence-predicted trainings: /"
eq "generation 1: the cost model of generation 0's trainings" "$(sed -n 's/^model //p' "$tmp/f1")" 8
check "the plan by decreasing prediction" awk '!/^model/ { if (NR > 1 && $3 > p) exit 1; p = $3 }' "$tmp/f1"
check "every evidence has the plan's prediction and model" awk '!/^model/ { if ($3 != $5 || $6 != 8) exit 1 }' "$tmp/f1"
check "-j2: rank 0 started before ranks 2..4" awk '$1 == 0 { s = $4 } $1 >= 2 && $1 <= 4 { if ($4 <= s) exit 1 }' "$tmp/f1"

# a rank's mark deleted: nothing is trained again (its slot's outputs are in place)
rm "$R/gen01/rank3.done"
upto 2 "$R/gen01/select.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "rerun without a rank mark" "$?" 0
check "trains nothing" sh -c "! grep -q 'pf-train: start' '$tmp/err'"
check "the mark is back" test -f "$R/gen01/rank3.done"
# a deleted result: that slot alone
k=$(sed -n 's/^2 \([0-9]\) .*/\1/p' "$tmp/f1")
rm "$R/gen01/cand$k/result.h5"
find "$R" -type f | sort >"$tmp/before"
upto 2 -n "$R/gen01/select.msgpack" >"$tmp/out" 2>"$tmp/err" || true
find "$R" -type f | sort >"$tmp/after"
check "make -n: no file added or removed" cmp "$tmp/before" "$tmp/after"
upto 2 "$R/gen01/select.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "rerun after a deleted result" "$?" 0
eq "one training" "$(grep -c 'pf-train: start' "$tmp/err")" 1
check "that slot's result is back" test -f "$R/gen01/cand$k/result.h5"
finish
