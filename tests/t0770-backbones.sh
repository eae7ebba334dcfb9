#!/bin/sh
# Backbones as a dimension of the study (issue 37; docs/search.md,
# "Backbones"): two loopback OpenAI-compatible servers (tests/
# llm_loopback_server.py, started and stopped by PID), each named in a
# backbones file. A smoke search with BACKBONE=a is made in
# pinnforge@a/run0, asks server a only and ends where the offline
# reference does; a replay of a copy with both servers stopped gives the
# same final.msgpack (its timings aside) from the stored answers;
# BACKBONE=nosuch stops make as it reads the makefiles, naming the file's
# backbones; `make study BACKBONES="a b" METHODS="pinnforge vanilla"`
# makes pinnforge@b beside pinnforge@a (untouched) and one vanilla run,
# its plan and progress table name the cells with their backbone, and
# its tables are one Table 1 per backbone (the shared vanilla in each). Float build only (the pipeline is precision-blind).
. "$(dirname "$0")/lib.sh"
float_only
unset PF_LLM_URL PF_LLM_MODEL PF_LLM_BACKBONE PF_LLM_PROVIDER LLM BACKBONE BACKBONES
P=poisson_5d
mk() { # mk RUNS_ROOT [make args...]: the smoke profile, run 0 of P
    r=$1; shift
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PROFILE=smoke TRAIN_THREADS=1 -j2 PDE=$P RUN=0 \
        RUNS_ROOT="$r" "$@"
}
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^  \"$2\": \\(.*\\),\$/\\1/p"; }
stop_servers() {
    for s in a b; do
        [ -f "$tmp/$s.pid" ] || continue
        kill "$(cat "$tmp/$s.pid")" 2>/dev/null
        wait "$(cat "$tmp/$s.pid")" 2>/dev/null
        rm -f "$tmp/$s.pid"
    done
}
trap 'stop_servers; rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
    echo "$TEST_NAME: skipped: python3 is missing (the loopback LLM servers need it)"
    finish
    exit
fi

# the reference: the offline proposer, in the plain folder
mk "$tmp/ref" LLM=offline search >"$tmp/out" 2>"$tmp/err"
eq "the offline reference run" "$?" 0
REF=$tmp/ref/$P/pinnforge/run0
hf=$(field "$REF/final.msgpack" hf_mse)
check "the reference has a final MSE" test -n "$hf"
check "an offline proposal records the backbone offline" sh -c \
    "'$BIN/pf-inspect' '$REF/gen00/cand0.proposal.msgpack' | grep -q '\"backbone\": \"offline\"'"

# its answers, served by two loopback servers (a and b), named in a backbones file
python3 "$PF_TESTS/llm_loopback_server.py" --answers "$BIN/pf-inspect" "$REF/llm" >"$tmp/answers.json"
serve() { # serve NAME [--port P]: a loopback server in the background, its PID in NAME.pid
    n=$1; shift
    rm -f "$tmp/$n.port"
    python3 "$PF_TESTS/llm_loopback_server.py" "$tmp/answers.json" "$tmp/$n.port" "$tmp/$n.log" "$@" &
    echo $! >"$tmp/$n.pid"
    for _ in $(seq 1 100); do [ -s "$tmp/$n.port" ] && return 0; sleep 0.05; done
    return 1
}
if ! serve a || ! serve b; then
    echo "$TEST_NAME: skipped: a loopback LLM server did not start on 127.0.0.1 (tests/llm_loopback_server.py)"
    finish
    exit
fi
pa=$(cat "$tmp/a.port") pb=$(cat "$tmp/b.port")
cat >"$tmp/llms.json" <<EOF
[{"name": "a", "url": "http://127.0.0.1:$pa/v1", "model": "model-a", "max_in_flight": 2},
 {"name": "b", "url": "http://127.0.0.1:$pb/v1", "model": "model-b", "max_in_flight": 2}]
EOF
LLMS_FILE=$tmp/llms.json
PF_LLM_SLOTS_DIR=$tmp/slots
export LLMS_FILE PF_LLM_SLOTS_DIR

# a smoke search with BACKBONE=a: its own folder, server a only
mk "$tmp/r" BACKBONE=a search >"$tmp/out" 2>"$tmp/err"
eq "BACKBONE=a: the search" "$?" 0
A=$tmp/r/$P/pinnforge@a/run0
check "BACKBONE=a: made in pinnforge@a/run0" test -f "$A/final.msgpack"
check "BACKBONE=a: no plain pinnforge folder" test ! -e "$tmp/r/$P/pinnforge"
check "BACKBONE=a: context.json records the backbone, asked over http" \
    grep -q '"llm": "http", "eval": "paper", "backbone": "a"' "$A/context.json"
check "BACKBONE=a: a proposal records that a answered" sh -c \
    "'$BIN/pf-inspect' '$A/gen03/cand1.proposal.msgpack' | grep -q '\"backbone\": \"a\"'"
check "BACKBONE=a: a transcript records it too, and a's model" sh -c \
    "'$BIN/pf-inspect' \"\$(ls -d '$A'/llm/* | head -n 1)\" | grep -q '\"backbone\": \"a\"' &&
     '$BIN/pf-inspect' \"\$(ls -d '$A'/llm/* | head -n 1)\" | grep -q '\"model\": \"model-a\"'"
ntr=$(ls "$A/llm" | wc -l)
check "BACKBONE=a: calls stored" test "$ntr" -ge 13
eq "BACKBONE=a: server a answered every stored call" "$(grep -vc '^unknown' "$tmp/a.log")" "$ntr"
eq "BACKBONE=a: server b was never asked" "$(cat "$tmp/b.log" 2>/dev/null | wc -l)" 0
eq "BACKBONE=a: the offline reference's final MSE (the same answers)" "$(field "$A/final.msgpack" hf_mse)" "$hf"
mk "$tmp/r" BACKBONE=a search >"$tmp/out" 2>"$tmp/err"
check "BACKBONE=a again: nothing to do" sh -c "! grep -q 'pf-train\\|pf-propose' '$tmp/err'"

# a replay of a copy with both servers stopped: the same final.msgpack
stop_servers
mkdir -p "$tmp/c/$P" && cp -r "$tmp/r/$P/pinnforge@a" "$tmp/c/$P/"
C=$tmp/c/$P/pinnforge@a/run0
mk "$tmp/c" BACKBONE=a LLM=replay search >"$tmp/out" 2>"$tmp/err"
eq "replay with the servers stopped" "$?" 0
check "replay: context.json says so, with the backbone" grep -q '"llm": "replay", "eval": "paper", "backbone": "a"' \
    "$C/context.json"
check "replay: the candidates were trained again" grep -q "pf-train: start" "$tmp/err"
eq "replay: stores nothing new" "$(ls "$C/llm" | wc -l)" "$ntr"
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
final_json "$A/final.msgpack" >"$tmp/final.a"
final_json "$C/final.msgpack" >"$tmp/final.c"
check "replay: final.msgpack the same, bit for bit but its clocks" cmp -s "$tmp/final.a" "$tmp/final.c"
eq "replay: the same final MSE" "$(field "$C/final.msgpack" hf_mse)" "$hf"

# an unknown backbone stops make as it reads the makefiles, naming the file's
mk "$tmp/n" BACKBONE=nosuch search >"$tmp/out" 2>"$tmp/err"
check "BACKBONE=nosuch: make fails" test "$?" -ne 0
check "BACKBONE=nosuch: names the file and its backbones" \
    grep -q "BACKBONE=nosuch: backbone 'nosuch': no backbone 'nosuch' in $tmp/llms.json (it has: a, b;" "$tmp/err"
check "BACKBONE=nosuch: nothing made" test ! -e "$tmp/n"
mk "$tmp/n" BACKBONE=a LLM=offline search >"$tmp/out" 2>"$tmp/err"
check "BACKBONE=a LLM=offline: refused" grep -q "BACKBONE=a: LLM=offline asks no backbone" "$tmp/err"
mk "$tmp/n" BACKBONE="a b" search >"$tmp/out" 2>"$tmp/err"
check "BACKBONE=\"a b\": one backbone" grep -q "one backbone (a study takes several" "$tmp/err"
check "a refused BACKBONE makes nothing" test ! -e "$tmp/n"

# a study over both backbones: pinnforge once per backbone, vanilla once
serve a --port "$pa" && serve b --port "$pb"
check "the servers are back" test -s "$tmp/a.port" -a -s "$tmp/b.port"
: >"$tmp/a.log"
: >"$tmp/b.log"
study() { # study TARGET [make args...]
    t=$1; shift
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PROFILE=smoke TRAIN_THREADS=1 -j2 PDES=$P RUNS=0 \
        METHODS="pinnforge vanilla" BACKBONES="a b" RUNS_ROOT="$tmp/r" REPORTS_ROOT="$tmp/rep" "$@" "$t"
}
keep=$(stat -c %Y.%N "$A/final.msgpack" "$A/gen00/cand0/evidence.msgpack")
study study -n >"$tmp/plan" 2>&1
eq "make -n study" "$?" 0
check "the plan makes pinnforge@b's run" grep -q "$tmp/r/$P/pinnforge@b/run0" "$tmp/plan"
check "the plan makes vanilla's run" grep -q "$tmp/r/$P/vanilla/run0" "$tmp/plan"
check "the plan's progress line names the cells" grep -q -- '--methods "pinnforge@a pinnforge@b vanilla"' "$tmp/plan"
check "the plan makes no plain pinnforge run" sh -c "! grep -q '$tmp/r/$P/pinnforge/' '$tmp/plan'"
check "make -n made nothing" test ! -e "$tmp/r/$P/pinnforge@b" -a ! -e "$tmp/r/$P/vanilla"
study study >"$tmp/out" 2>"$tmp/err"
eq "make study BACKBONES=\"a b\"" "$?" 0
check "study: pinnforge@b's run" test -f "$tmp/r/$P/pinnforge@b/run0/final.msgpack"
check "study: one vanilla run" test -f "$tmp/r/$P/vanilla/run0/final.msgpack"
check "study: no vanilla per backbone" sh -c "! ls -d '$tmp/r/$P'/vanilla@* 2>/dev/null | grep -q ."
eq "study: pinnforge@a was already made: untouched" \
    "$(stat -c %Y.%N "$A/final.msgpack" "$A/gen00/cand0/evidence.msgpack")" "$keep"
eq "study: server a not asked again" "$(cat "$tmp/a.log" | wc -l)" 0
eq "study: server b answered pinnforge@b's calls" "$(grep -vc '^unknown' "$tmp/b.log")" \
    "$(ls "$tmp/r/$P/pinnforge@b/run0/llm" | wc -l)"
check "study: pinnforge@b's context names b" grep -q '"backbone": "b"' "$tmp/r/$P/pinnforge@b/run0/context.json"
check "study: vanilla's context names none" sh -c "! grep -q backbone '$tmp/r/$P/vanilla/run0/context.json'"
for c in pinnforge@a pinnforge@b vanilla; do
    check "study: the progress table's line for $c (1 of 1 done)" grep -Eq "^$P +$c +1/1 " "$tmp/out"
done
check "study: a Table 1 per backbone, the vanilla run shared" sh -c \
    "grep -q '^$P,pinnforge,1,' '$tmp/rep/table1@a.csv' && grep -q '^$P,pinnforge,1,' '$tmp/rep/table1@b.csv' &&
     grep -q '^$P,vanilla,1,' '$tmp/rep/table1@a.csv' && grep -q '^$P,vanilla,1,' '$tmp/rep/table1@b.csv'"
check "study: the budget per method and backbone" sh -c \
    "grep -q '^pinnforge,a,1,' '$tmp/rep/budget.csv' && grep -q '^pinnforge,b,1,' '$tmp/rep/budget.csv' &&
     grep -q '^vanilla,,1,' '$tmp/rep/budget.csv'"
check "study: the main table is one backbone's (a: the first by name)" cmp "$tmp/rep/main.csv" "$tmp/rep/table1@a.csv"
study study-status >"$tmp/status" 2>&1
eq "study-status" "$?" 0
check "study-status: 3 of 3 runs done, none stale" grep -q "^total: 3 of 3 runs done, 0 running, 0 failed, 0 stale" \
    "$tmp/status"
study study-status LLM=replay >"$tmp/status" 2>&1
check "study-status LLM=replay: the backbones' runs were asked over http" grep -q \
    "^stale: $tmp/r/$P/pinnforge@a/run0: its settings differ (llm http vs replay" "$tmp/status"
stop_servers
finish
