#!/bin/sh
# t0600-pf-select.sh — `pf-select --run RUN --generation G [--max-generations N] [--quiet]`.
#
#   tests/t0600-pf-select.sh BUILD/bin float|double     (make test runs it)
#
# Exit codes (0 ok, 1 missing / inconsistent input or a stop before, 2
# usage), a four-generation run built from hand-made proposal and evidence
# files (global-best stagnation after generation 3, so generation 4 is an
# escape, which succeeds), select.msgpack read back by pf-inspect (history,
# Top-3 with the spec and evidence copied, b/B/m/A, next), the summary line,
# determinism, and the failures: an untrained valid candidate, a hash
# mismatch, a missing previous selection, a generation after a stop.
. "$(dirname "$0")/lib.sh"
S=$BIN/pf-select

# The fixtures are msgpack, written with tests/msgpack_enc.py (this python
# has no msgpack module).
cat >"$tmp/mk.py" <<'PY'
import os, struct, sys

sys.path.insert(0, os.environ["PF_TESTS"])
from msgpack_enc import enc, put  # noqa: E402

def h(i): return "%064x" % i

# mk.py RUN G TOKEN...   TOKEN: ID:Y:STATUS (Y '-': no y), inv (no evidence), inv+ev,
#                        ID:Y:ok:EVHASH (evidence names another hash), ID:untrained
run, g, toks = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
d = "%s/gen%02d" % (run, g)
os.makedirs(d, exist_ok=True)
for k, t in enumerate(toks):
    p = t.split(":")
    valid = not t.startswith("inv")
    prop = {"format": "pinnforge.proposal", "version": 1, "pde": "burgers_1d", "generation": g, "index": k,
            "slot": "slot%d" % k, "valid": valid, "rationale": "why"}
    if valid:
        prop["spec"] = {"architecture": {"width": int(p[0])}, "training": {"seed": 0}}
        prop["spec_hash"] = h(int(p[0]))
    else:
        prop["reasons"] = "optimization.stages: steps sum to 900, not 1000"
    open("%s/cand%d.proposal.msgpack" % (d, k), "wb").write(enc(prop))
    if t == "inv" or (len(p) > 1 and p[1] == "untrained"): continue
    os.makedirs("%s/cand%d" % (d, k), exist_ok=True)
    if valid:
        ev = {"format": "pinnforge.evidence", "version": 1}
        if p[1] == "-": ev["y_missing"] = "no reference"
        else: ev["y"] = float(p[1])
        ev.update({"status": p[2], "pde": "burgers_1d",
                   "spec_hash": h(int(p[3])) if len(p) > 3 else h(int(p[0])),
                   "fidelity": "low", "seed": 0,
                   "evidence": {"steps_per_second": 100.0 + k, "id": int(p[0])}})
    else:
        ev = {"format": "pinnforge.evidence", "version": 1, "status": "invalid",
              "y_missing": "the spec is invalid", "pde": "burgers_1d"}
    open("%s/cand%d/evidence.msgpack" % (d, k), "wb").write(enc(ev))
PY
mk() { python3 "$tmp/mk.py" "$@"; }
inspect() { "$BIN/pf-inspect" "$1" >"$tmp/inspect.json" 2>&1; }
jq_py() { # jq_py FILE EXPR: print the python expression over the JSON d
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# ------------------------------------------------------------ usage
expect_rc 0 "--help" "$S" --help
check "--help prints the usage" grep -q '^usage: pf-select --run RUN --generation G' "$tmp/out"
expect_rc 2 "no arguments" "$S"
expect_rc 2 "no --generation" "$S" --run "$tmp/r"
expect_rc 2 "no --run" "$S" --generation 0
expect_rc 2 "bad --generation" "$S" --run "$tmp/r" --generation x
expect_rc 2 "negative --generation" "$S" --run "$tmp/r" --generation -1
expect_rc 2 "bad --max-generations" "$S" --run "$tmp/r" --generation 0 --max-generations 0
expect_rc 2 "generation past the limit" "$S" --run "$tmp/r" --generation 10 --max-generations 10
expect_rc 2 "unknown option" "$S" --run "$tmp/r" --generation 0 --frobnicate
expect_rc 2 "stray argument" "$S" --run "$tmp/r" --generation 0 extra

# ------------------------------------------------------------ missing inputs
expect_rc 1 "no candidates" "$S" --run "$tmp/r" --generation 0
check "no candidates: names cand0" grep -q "$tmp/r/gen00/cand0.proposal.msgpack missing" "$tmp/err"

# ------------------------------------------------------------ a run
R=$tmp/run
mk "$R" 0 1:1.0:ok 2:2.0:ok 3:3.0:ok inv 4:0.001:nan 5:-:ok
expect_rc 0 "generation 0" "$S" --run "$R" --generation 0
check "generation 0: a start line" grep -q '^pf-select: gen00: 6 candidates' "$tmp/err"
check "generation 0: the summary" grep -qx \
    'pf-select: gen00: best 1.00e+00 (all-time 1.00e+00), top-3 1.00e+00 2.00e+00 3.00e+00, next normal (stagnation tests begin after generation 3)' "$tmp/err"
eq "no temp files left" "$(ls "$R/gen00" | grep -c '\.tmp\.')" 0
inspect "$R/gen00/select.msgpack"
eq "pf-inspect reads select.msgpack" $? 0
check "generation 0: content" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "pinnforge.select" and d["version"] == 1 and d["generation"] == 0
assert d["pde"] == "burgers_1d" and d["method"] is None
h = d["history"]
assert [e["index"] for e in h] == list(range(6))
assert [e["ranked"] for e in h] == [True, True, True, False, False, False]
assert h[3]["status"] == "invalid" and h[3]["spec_hash"] is None and not h[3]["valid"]
assert h[4]["status"] == "nan" and h[4]["y"] == 0.001
assert h[5]["y"] is None and h[5]["status"] == "ok"
assert [t["y"] for t in d["top3"]] == [1.0, 2.0, 3.0]
t = d["top3"][0]
assert t["spec"] == {"architecture": {"width": 1}, "training": {"seed": 0}}
assert t["evidence"] == {"steps_per_second": 100.0, "id": 1} and t["slot"] == "slot0"
assert d["b"] == [1.0] and d["B"] == [1.0] and d["m"] == [2.0] and d["A"] == [2.0]
assert d["new_elite"] == [True] and d["next"] == "normal" and d["escape_result"] is None
assert d["state"] == {"window_start": 0, "escape_generation": -1, "stall_generation": -1,
                      "B_stall": None, "A_stall": None}
' "$tmp/inspect.json"
cp "$R/gen00/select.msgpack" "$tmp/sel0"
expect_rc 0 "generation 0 again" "$S" --run "$R" --generation 0 --quiet
check "--quiet: nothing on stderr" test ! -s "$tmp/err"
check "deterministic" cmp -s "$R/gen00/select.msgpack" "$tmp/sel0"

mk "$R" 1 11:0.995:ok 12:0.5:diverged inv+ev
expect_rc 0 "generation 1" "$S" --run "$R" --generation 1
mk "$R" 2 21:0.990025:ok 22:-:timeout
expect_rc 0 "generation 2" "$S" --run "$R" --generation 2
mk "$R" 3 31:0.98507487500000001:ok 2:7.0:ok
expect_rc 0 "generation 3" "$S" --run "$R" --generation 3
check "generation 3: the summary" grep -qx \
    'pf-select: gen03: best 9.85e-01 (all-time 9.85e-01), top-3 9.85e-01 9.90e-01 9.95e-01, next escape (global-best stagnation)' "$tmp/err"
inspect "$R/gen03/select.msgpack"
check "generation 3: escape scheduled" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["next"] == "escape", d["next"]
assert d["reason"] == "global-best stagnation after generation 3: escape generation 4 scheduled", d["reason"]
assert d["stagnation"] == {"global_best": True, "elite_archive": False, "population": False}
s = d["state"]
assert s["escape_generation"] == 4 and s["stall_generation"] == 3 and s["window_start"] == 0
assert abs(s["B_stall"] - 0.985074875) < 1e-12 and abs(s["A_stall"] - 0.990025) < 1e-12
assert [t["spec_hash"][-2:] for t in d["top3"]] == ["1f", "15", "0b"]
assert [t["generation"] for t in d["top3"]] == [3, 2, 1]
assert d["top3"][2]["spec"]["architecture"]["width"] == 11, "carried from generation 1"
assert d["top3"][2]["evidence"]["id"] == 11
assert len(d["history"]) == 13 and d["new_elite"] == [True, True, True, True]
assert d["m"] == [2.0, None, None, None] and d["A"][0] == 2.0
assert sum(e["ranked"] for e in d["history"]) == 7
' "$tmp/inspect.json"

# escape generation 4: a new best, success
mk "$R" 4 41:0.5:ok
expect_rc 0 "escape generation 4" "$S" --run "$R" --generation 4
check "generation 4: the summary" grep -q 'gen04: best 5.00e-01 (all-time 5.00e-01), .*next normal (escape succeeded: new best, new elite)' "$tmp/err"
inspect "$R/gen04/select.msgpack"
check "generation 4: escape succeeded, window restarts" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["escape_result"] == {"new_best": True, "new_elite": True, "archive_improved": False, "success": True}
assert d["state"]["window_start"] == 4 and d["next"] == "normal"
assert [t["y"] for t in d["top3"]] == [0.5, 0.985074875, 0.990025]
' "$tmp/inspect.json"

# ------------------------------------------------------------ failures
F=$tmp/bad
mk "$F" 0 1:untrained
expect_rc 1 "valid but untrained" "$S" --run "$F" --generation 0
check "untrained: says so with the path" grep -q \
    "candidate 0 of generation 0 has not been trained: $F/gen00/cand0/evidence.msgpack missing" "$tmp/err"
rm -rf "$F"
mk "$F" 0 1:1.0:ok 2:2.0:ok:3
expect_rc 1 "hash mismatch" "$S" --run "$F" --generation 0
check "hash mismatch: names both" grep -q "spec_hash 0*3 differs from the proposal's 0*2" "$tmp/err"
rm -rf "$F"
mk "$F" 1 1:1.0:ok
expect_rc 1 "no previous selection" "$S" --run "$F" --generation 1
check "no previous selection: names it" grep -q "$F/gen00/select.msgpack missing" "$tmp/err"
mkdir -p "$F/gen00" && printf '\223\001' >"$F/gen00/select.msgpack"
expect_rc 1 "unreadable previous selection" "$S" --run "$F" --generation 1
check "unreadable: names the file" grep -q "$F/gen00/select.msgpack" "$tmp/err"
rm -rf "$F"
mk "$F" 0 1:1.0:ok
expect_rc 0 "generation 0 of 1" "$S" --run "$F" --generation 0 --max-generations 1
check "the last generation stops" grep -q 'next stop (generation 0 is the last)' "$tmp/err"
mk "$F" 1 2:0.5:ok
expect_rc 0 "after a stop: a no-op" "$S" --run "$F" --generation 1
check "after a stop: says so" grep -q "gen01: skipped (the search stopped" "$tmp/err"
check "after a stop: marked skipped" sh -c "'$BIN/pf-inspect' '$F/gen01/select.msgpack' | grep -q '\"skipped\": true'"
check "after a stop: the decision repeats" sh -c "'$BIN/pf-inspect' '$F/gen01/select.msgpack' | grep -q '\"next\": \"stop\"'"
rm -rf "$F"
mk "$F" 0 1:1.0:ok inv
printf 'garbage' >"$F/gen00/cand1.proposal.msgpack"
expect_rc 1 "unreadable proposal" "$S" --run "$F" --generation 0
check "unreadable proposal: names it" grep -q "$F/gen00/cand1.proposal.msgpack" "$tmp/err"
expect_rc 1 "missing run folder" "$S" --run /proc/nonexistent --generation 0
finish
