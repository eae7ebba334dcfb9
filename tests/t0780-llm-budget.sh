#!/bin/sh
# The LLM budget of a run (issue 37; docs/search.md, "LLM budget"). A
# poisson_5d smoke search with the offline proposer is the reference; its
# transcripts are served by tests/llm_loopback_server.py on 127.0.0.1 (started
# and stopped by PID) as the backbone "loop" of a backbones file with prices.
# With LLM_MAX_TOKENS just above generation 0's proposals, the http search
# stops after generation 1 asked nothing: final.msgpack says stopped "llm
# budget", has a Top-3 and a final MSE, and counts the calls, tokens and cost
# per backbone. Raised, the cap resumes the run: generation 0's trainings
# stay, the run ends as the reference (the same final MSE, every transcript),
# and the server never sees a request twice. Float build only.
# make test: about 49 s
. "$(dirname "$0")/lib.sh"
float_only
search() { # search RUNS_ROOT [make args...]
    root=$1
    shift
    pipeline PDE=poisson_5d RUN=0 PROFILE=smoke RUNS_ROOT="$root" "$@" search
}
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^ *\"$2\": \\([^,]*\\),*\$/\\1/p" | head -n 1; }
backbones() { # final.msgpack $1's backbones: name:calls:priced:cost each
    "$BIN/pf-inspect" "$1" | python3 -c '
import json, sys
print(" ".join("%s:%d:%s:%g" % (u["name"], u["calls"], u["priced"], u["cost"])
               for u in json.load(sys.stdin)["budget"]["llm_backbones"]))'
}
REF=$tmp/ref/poisson_5d/pinnforge/run0
H=$tmp/http/poisson_5d/pinnforge@loop/run0 # BACKBONE=loop's folder

reference_search poisson_5d "$tmp/ref" >"$tmp/out" 2>"$tmp/err" # as search "$tmp/ref" LLM=offline (shared with t0700)
eq "the reference search (offline)" "$?" 0
hf=$(field "$REF/final.msgpack" hf_mse)
eq "the reference's calls count under the backbone offline, free" "$(backbones "$REF/final.msgpack")" \
    "offline:$(ls "$REF/llm" | wc -l):True:0"
eq "the reference did not stop early" "$(field "$REF/final.msgpack" stopped)" null

python3 "$PF_TESTS/llm_loopback_server.py" --answers "$BIN/pf-inspect" "$REF/llm" >"$tmp/answers.json"
# the cap: one token more than generation 0's proposals, so that they all run
# and the posterior summary after them spends the rest
cap=$(for t in "$REF"/llm/*.msgpack; do "$BIN/pf-inspect" "$t"; done | python3 -c '
import json, sys
dec, text, n, i = json.JSONDecoder(), sys.stdin.read(), 0, 0
while i < len(text):
    t, i = dec.raw_decode(text, i)
    while i < len(text) and text[i].isspace():
        i += 1
    if t["request"]["slot"].startswith("gen00/") and "posterior" not in t["request"]["slot"]:
        n += t["usage"]["prompt_tokens"] + t["usage"]["completion_tokens"]
print(n + 1)')
check "a cap from generation 0's calls ($cap tokens)" test "$cap" -gt 1
loopback "$tmp/answers.json"
check "the loopback server listens" test -n "$port"
cat >"$tmp/llms.json" <<JSON
[{"name": "loop", "url": "http://127.0.0.1:$port/v1", "model": "offline-rules", "price_in": 1.5,
  "price_out": 4, "max_in_flight": 2}]
JSON
LLMS_FILE=$tmp/llms.json PF_LLM_SLOTS_DIR=$tmp/slots
export LLMS_FILE PF_LLM_SLOTS_DIR

# ---- the cap stops the search after generation 1 asked nothing
search "$tmp/http" LLM=http BACKBONE=loop LLM_MAX_TOKENS="$cap" >"$tmp/out" 2>"$tmp/err"
eq "the capped search" "$?" 0
check "context.json records the cap" grep -q "\"llm_max_tokens\": $cap" "$H/context.json"
eq "final.msgpack: stopped" "$(field "$H/final.msgpack" stopped)" '"llm budget"'
check "final.msgpack: a final MSE" sh -c "echo '$(field "$H/final.msgpack" hf_mse)' | grep -Eq '^[0-9.]+(e-?[0-9]+)?$'"
eq "final.msgpack: a Top-3" "$("$BIN/pf-inspect" "$H/final.msgpack" | grep -c '"y_high"')" 3
eq "final.msgpack: one generation ran" "$(field "$H/final.msgpack" generations)" 1
eq "generation 1's proposals were stopped by the budget" "$(for p in "$H"/gen01/cand*.proposal.msgpack; do field "$p" stopped; done | sort -u)" '"llm budget"'
calls=$(wc -l <"$tmp/llm.log")
ntr=$(ls "$H/llm" | wc -l)
eq "the server answered every stored call, once" "$calls" "$ntr"
bb=$(backbones "$H/final.msgpack")
case $bb in
"loop:$calls:True:"*) ok ;;
*) not_ok "final.msgpack: the $calls calls under the backbone loop, priced: $bb" ;;
esac
cost=$("$BIN/pf-inspect" "$H/final.msgpack" | python3 -c '
import json, sys
b = json.load(sys.stdin)["budget"]
l, (u,) = b["llm"], b["llm_backbones"]
want = (1.5 * l["prompt_tokens"] + 4 * l["completion_tokens"]) / 1e6
print("ok" if abs(l["cost"] - want) <= 1e-12 * want and u["cost"] == l["cost"] and u["priced"] and l["priced"]
      and u["prompt_tokens"] == l["prompt_tokens"] and l["prompt_tokens"] + l["completion_tokens"] >= '"$cap"'
      else "cost %r, want %r: %r" % (l["cost"], want, b))')
eq "final.msgpack: the cost at the file's prices, past the cap" "$cost" ok
stat -c %Y.%y "$H"/gen00/cand*/evidence.msgpack >"$tmp/gen00.times"

# ---- a higher cap resumes the run; nothing trained is redone, no call is repeated
search "$tmp/http" LLM=http BACKBONE=loop LLM_MAX_TOKENS=$((cap * 1000)) >"$tmp/out" 2>"$tmp/err"
eq "the resumed search" "$?" 0
check "pf-context says the budget changed" grep -q "its LLM budget changed" "$tmp/err"
check "generation 0's trainings were kept" sh -c "stat -c %Y.%y '$H'/gen00/cand*/evidence.msgpack | cmp -s - '$tmp/gen00.times'"
eq "final.msgpack: not stopped early" "$(field "$H/final.msgpack" stopped)" null
eq "the reference's final MSE" "$(field "$H/final.msgpack" hf_mse)" "$hf"
check "exactly the reference's transcripts" sh -c "ls '$REF/llm' | cmp -s - '$(ls "$H/llm" >"$tmp/h.llm"; echo "$tmp/h.llm")'"
eq "no unknown request" "$(grep -c '^unknown' "$tmp/llm.log")" 0
eq "no request sent twice" "$(sort "$tmp/llm.log" | uniq -d | wc -l)" 0
eq "every call sent once" "$(wc -l <"$tmp/llm.log")" "$(ls "$REF/llm" | wc -l)"
search "$tmp/http" LLM=http BACKBONE=loop LLM_MAX_TOKENS=$((cap * 1000)) >"$tmp/out" 2>"$tmp/err"
eq "make again does nothing" "$(grep -c 'pf-propose\|pf-train\|pf-final' "$tmp/err")" 0
loopback_stop
finish
