#!/bin/sh
# A search over a mixture of backbones (issue 37): make's BACKBONE=mix:good,poor,flaky
# with llms.json naming three loopback servers of different skills
# (tests/llm_skill_server.py: good designs; valid but bad ones; slow and half
# invalid), each started and stopped by PID. A smoke search of poisson_5d
# draws each proposal's backbone by UCB1 (src/search/backbone_mix.h), in the
# run folder pinnforge@mix+good+poor+flaky, whose context.json records the
# mixture. Checks: every proposal says which backbone answered and records the draw, whose
# chosen arm it is; the calls each server logged equal the proposals'
# records (attempts per backbone, plus the posterior summaries, which the
# first backbone writes), and final.msgpack counts them per backbone; the
# good server receives most of the calls; and a
# replay of a copy of the transcripts, the servers stopped, makes the same
# draws and specs and the same final.msgpack, byte for byte but for the
# trainings' measured wall times. A mixture with LLM=offline is an error. Float build only (the pipeline is
# precision-blind).
# make test: about 70 s
. "$(dirname "$0")/lib.sh"
float_only
if ! command -v python3 >/dev/null 2>&1; then
    echo "$TEST_NAME: python3 missing (the loopback servers are Python): skipped"
    finish
    exit
fi
PDE=poisson_5d
MIX=mix:good,poor,flaky
R=$tmp/live/$PDE/pinnforge@mix+good+poor+flaky/run0
C=$tmp/replay/$PDE/pinnforge@mix+good+poor+flaky/run0
SKILLS="good poor flaky"
stop_servers() {
    for s in $SKILLS; do
        if [ -f "$tmp/$s.pid" ]; then
            kill "$(cat "$tmp/$s.pid")" 2>/dev/null
            wait "$(cat "$tmp/$s.pid")" 2>/dev/null
            rm -f "$tmp/$s.pid"
        fi
    done
}
trap 'stop_servers; rm -rf "$tmp"' EXIT
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^  \"$2\": \\(.*\\),\$/\\1/p"; }

"$BIN/pf-spec" example --pde $PDE >"$tmp/template.json"
eq "pf-spec example" "$?" 0
for s in $SKILLS; do
    python3 "$PF_TESTS/llm_skill_server.py" --skill $s --seed 37 --spec "$tmp/template.json" \
        --port-file "$tmp/$s.port" --log "$tmp/$s.log" &
    echo $! >"$tmp/$s.pid"
done
for i in $(seq 1 100); do
    [ -f "$tmp/good.port" ] && [ -f "$tmp/poor.port" ] && [ -f "$tmp/flaky.port" ] && break
    sleep 0.1
done
{
    echo "["
    sep=
    for s in $SKILLS; do
        printf '%s{"name": "%s", "url": "http://127.0.0.1:%s/v1", "model": "%s-model", "max_in_flight": 2}\n' \
            "$sep" $s "$(cat "$tmp/$s.port")" $s
        sep=,
    done
    echo "]"
} >"$tmp/llms.json"
export LLMS_FILE="$tmp/llms.json" PF_LLM_SLOTS_DIR="$tmp/slots" PF_LLM_RETRIES=0
unset PF_LLM_URL PF_LLM_MODEL PF_LLM_API_KEY PF_LLM_PROVIDER PF_LLM_BACKBONE
search() { make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=$PDE RUN=0 PROFILE=smoke TRAIN_THREADS=1 -j2 \
    BACKBONE=$MIX "$@" search; }

search RUNS_ROOT="$tmp/live" LLM=http >"$tmp/out" 2>"$tmp/err"
eq "mix search" "$?" 0
check "final.msgpack" test -f "$R/final.msgpack"
check "context.json records the mixture" grep -q '"backbone": "mix:good,poor,flaky"' "$R/context.json"

# the proposals' records: backbone, the draw, attempts per backbone
for f in "$R"/gen*/cand*.proposal.msgpack; do
    "$BIN/pf-inspect" "$f" | python3 -c '
import json, sys
p = json.load(sys.stdin)
if p.get("skipped"):
    sys.exit(0)
mix = p.get("mix") or {}
ok = p.get("backbone") in ("good", "poor", "flaky") and mix.get("chosen") == p.get("backbone") \
    and mix.get("rule") == "ucb1" and len(mix.get("arms", [])) == 3 and mix.get("reason")
print(p.get("backbone"), p["attempts"], "ok" if ok else "BAD")
with open(sys.argv[1], "w") as f: # the last draw, for the log
    f.write(" ".join("%s %d pulls mean %.3f;" % (a["name"], a["pulls"], a["mean"]) for a in mix.get("arms", [])))' \
        "$tmp/last_draw"
done >"$tmp/records"
check "every proposal names its backbone and its draw" sh -c "! grep -q BAD '$tmp/records'"
check "proposals were made" test -s "$tmp/records"
calls() { awk -v b="$1" '$1 == b { n += $2 } END { print n + 0 }' "$tmp/records"; }
served() { grep -c "^$1 \\(spec\\|invalid\\)\$" "$tmp/$1.log"; }
memories=$(for m in "$R"/gen*/memory.msgpack; do "$BIN/pf-inspect" "$m" | grep -c '^  "provider": "http"'; done |
    awk '{ n += $1 } END { print n + 0 }') # the summaries asked (none after a stop)
for s in $SKILLS; do eq "$s: the proposals' calls are the server's" "$(calls $s)" "$(served $s)"; done
eq "the posterior summaries go to the first backbone" "$(grep -c '^good memory$' "$tmp/good.log")" "$memories"
eq "final.msgpack: the calls per backbone, the servers'" "$("$BIN/pf-inspect" "$R/final.msgpack" | python3 -c '
import json, sys
by = {u["name"]: u["calls"] for u in json.load(sys.stdin)["budget"]["llm_backbones"]}
print(" ".join("%s:%d" % (b, by.get(b, 0)) for b in sys.argv[1:]))' $SKILLS)" \
    "good:$(($(served good) + $(grep -c '^good memory$' "$tmp/good.log"))) poor:$(served poor) flaky:$(served flaky)"
check "nobody else wrote a summary" sh -c "! grep -q memory '$tmp/poor.log' '$tmp/flaky.log'"
g=$(calls good) p=$(calls poor) f=$(calls flaky)
echo "$TEST_NAME: proposal calls good $g, poor $p, flaky $f; proposals per backbone:" \
    "$(awk '{ print $1 }' "$tmp/records" | sort | uniq -c | tr -s ' \n' ' ');" \
    "posterior summaries $memories (good); final $(field "$R/final.msgpack" stop_reason)"
echo "$TEST_NAME: the last draw saw: $(cat "$tmp/last_draw")"
check "the good server receives most of the calls ($g of $((g + p + f)))" test "$g" -gt $((p + f))
hf=$(field "$R/final.msgpack" hf_mse)
check "a final MSE" test -n "$hf"

# replay: a copy of the context and the transcripts, the servers stopped
stop_servers
mkdir -p "$C" && cp -r "$R/llm" "$R/context.json" "$C/"
search RUNS_ROOT="$tmp/replay" LLM=replay >"$tmp/out" 2>"$tmp/err"
eq "replay" "$?" 0
# final.msgpack: every byte but the trainings' measured wall times (budget.wall_s low_fidelity,
# high_fidelity, baseline and their sum, training), which no rerun repeats; the LLM's wall time is the transcripts' and
# repeats
final_json() {
    "$BIN/pf-inspect" "$1/final.msgpack" | python3 -c '
import json, sys
f = json.load(sys.stdin)
for k in ("low_fidelity", "high_fidelity", "baseline", "training"):
    del f["budget"]["wall_s"][k]
print(json.dumps(f, sort_keys=True))'
}
final_json "$R" >"$tmp/final.live"
final_json "$C" >"$tmp/final.replay"
check "final.msgpack read" test -s "$tmp/final.live"
check "replay: the same final.msgpack but the training wall times" cmp "$tmp/final.live" "$tmp/final.replay"
eq "replay: the same final MSE" "$(field "$C/final.msgpack" hf_mse)" "$hf"
draws() {
    for f in "$1"/gen*/cand*.proposal.msgpack; do
        "$BIN/pf-inspect" "$f" | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(p.get("backbone"), json.dumps(p.get("mix"), sort_keys=True), p.get("spec_hash"))'
    done
}
draws "$R" >"$tmp/draws.live"
draws "$C" >"$tmp/draws.replay"
check "replay: the same draws and specs" cmp "$tmp/draws.live" "$tmp/draws.replay"

# a mixture asks backbones: with the offline proposer it is an error that says so
search RUNS_ROOT="$tmp/off" LLM=offline >"$tmp/out" 2>"$tmp/err"
check "a mixture with LLM=offline fails" test "$?" -ne 0
check "naming the mixture and what to use" grep -q 'BACKBONE=mix+good+poor+flaky: LLM=offline asks no backbone' "$tmp/err"
finish
