#!/bin/sh
# t0500-pf-knowledge.sh — `pf-knowledge --pde P [--k N] [--json] [--out FILE] [--kb DIR]`
# and `pf-knowledge --list [--json]`.
#
#   tests/t0500-pf-knowledge.sh BUILD/bin float|double     (make test runs it)
#
# Exit codes (0 ok, 1 malformed knowledge base naming file:line, 2 usage /
# unknown PDE), the table and the JSON lines (5 objects with id, title,
# tags, score), --list against the entry count, knowledge.msgpack written
# atomically and read back by pf-inspect, determinism.
. "$(dirname "$0")/lib.sh"
K=$BIN/pf-knowledge

json_ok() { # json_ok FILE: every line a JSON object with id, title, tags (list), score (number)
    python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    assert isinstance(o["id"], str) and isinstance(o["title"], str)
    assert isinstance(o["tags"], list) and o["tags"]
    assert isinstance(o["score"], (int, float))
    assert isinstance(o["rationale"], str) and isinstance(o["text"], str)
' "$1"
}

# ------------------------------------------------------------ usage
expect_rc 0 "--help" "$K" --help
check "--help prints the usage" grep -q '^usage: pf-knowledge --pde P' "$tmp/out"
expect_rc 2 "no arguments" "$K"
expect_rc 2 "unknown PDE" "$K" --pde no_such_pde
check "unknown PDE: says so" grep -q 'no_such_pde' "$tmp/err"
check "unknown PDE: says how to list them" grep -q 'pf-pde list' "$tmp/err"
expect_rc 2 "bad --k" "$K" --pde burgers_1d --k 0
expect_rc 2 "non-numeric --k" "$K" --pde burgers_1d --k five
expect_rc 2 "unknown option" "$K" --pde burgers_1d --frobnicate
expect_rc 2 "--list with --pde" "$K" --list --pde burgers_1d

# ------------------------------------------------------------ retrieval
expect_rc 0 "table" "$K" --pde kuramoto_sivashinsky_1d
check "table: a header" grep -q '^ *rank  *score' "$tmp/out"
eq "table: five ranked rows" "$(grep -cE '^ +[1-5] +[0-9.-]+ ' "$tmp/out")" 5
expect_rc 0 "--json" "$K" --pde kuramoto_sivashinsky_1d --json
cp "$tmp/out" "$tmp/ks.jsonl"
eq "--json: five lines" "$(wc -l <"$tmp/ks.jsonl" | tr -d ' ')" 5
check "--json: each line parses with id, title, tags, score" json_ok "$tmp/ks.jsonl"
check "periodic PDE: a periodic entry" grep -q '"periodic"' "$tmp/ks.jsonl"
"$K" --pde poisson_inverse_2d --json >"$tmp/inv.jsonl"
check "inverse PDE: an inverse entry" grep -q '"inverse"' "$tmp/inv.jsonl"
expect_rc 0 "--k 8" "$K" --pde burgers_1d --json --k 8
eq "--k 8: eight lines" "$(wc -l <"$tmp/out" | tr -d ' ')" 8
"$K" --pde kuramoto_sivashinsky_1d --json >"$tmp/ks2.jsonl"
check "deterministic" cmp -s "$tmp/ks.jsonl" "$tmp/ks2.jsonl"
"$K" --pde poisson_5d --json >"$tmp/p5.jsonl"
check "another class, other entries" test "$(cat "$tmp/p5.jsonl")" != "$(cat "$tmp/ks.jsonl")"

# ------------------------------------------------------------ --list
expect_rc 0 "--list --json" "$K" --list --json
n=$(wc -l <"$tmp/out" | tr -d ' ')
check "--list --json: at least 100 entries" test "$n" -ge 100
eq "--list --json: one line per entry (ids unique)" "$(python3 -c '
import json, sys
print(len({json.loads(l)["id"] for l in open(sys.argv[1])}))' "$tmp/out")" "$n"
expect_rc 0 "--list" "$K" --list
eq "--list: the same count" "$(wc -l <"$tmp/out" | tr -d ' ')" "$n"

# ------------------------------------------------------------ --out
expect_rc 0 "--out" "$K" --pde heat_2d_multiscale --out "$tmp/knowledge.msgpack" --json
check "--out: file written" test -s "$tmp/knowledge.msgpack"
eq "--out: no temp files left" "$(ls "$tmp" | grep -c '\.tmp\.')" 0
"$BIN/pf-inspect" "$tmp/knowledge.msgpack" >"$tmp/inspect.json" 2>&1
eq "pf-inspect reads knowledge.msgpack" $? 0
check "knowledge.msgpack: format, pde, tags, 5 entries, same as stdout" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "pinnforge.knowledge" and d["version"] == 1
assert d["pde"] == "heat_2d_multiscale" and "multiscale" in d["tags"]
lines = [json.loads(l) for l in open(sys.argv[2])]
assert [e["id"] for e in d["entries"]] == [e["id"] for e in lines]
assert len(d["entries"]) == 5
for e in d["entries"]:
    assert set(e) == {"id", "title", "tags", "rationale", "text", "score"}
' "$tmp/inspect.json" "$tmp/out"
expect_rc 1 "--out into a missing folder" "$K" --pde burgers_1d --out "$tmp/none/k.msgpack"

# ------------------------------------------------------------ malformed KB
mkdir "$tmp/kb"
cat >"$tmp/kb/a.kb" <<'KB'
# fine
id: first
title: A title
tags: loss
rationale: Why.
text: What.
KB
expect_rc 0 "--kb DIR" "$K" --pde burgers_1d --kb "$tmp/kb" --json
eq "--kb DIR: one entry" "$(wc -l <"$tmp/out" | tr -d ' ')" 1
cat >"$tmp/kb/b.kb" <<'KB'

id: second
title: Another
tags: loss, shockwaves
rationale: Why.
text: What.
KB
expect_rc 1 "malformed KB" "$K" --pde burgers_1d --kb "$tmp/kb"
check "malformed KB: names file:line" grep -q "b.kb:4: unknown tag 'shockwaves'" "$tmp/err"
expect_rc 1 "malformed KB with --list" "$K" --list --kb "$tmp/kb"
expect_rc 1 "malformed KB via PF_KNOWLEDGE_DIR" env PF_KNOWLEDGE_DIR="$tmp/kb" "$K" --pde burgers_1d
check "PF_KNOWLEDGE_DIR: names file:line" grep -q "b.kb:4:" "$tmp/err"
expect_rc 1 "missing --kb folder" "$K" --pde burgers_1d --kb "$tmp/nope"
finish
