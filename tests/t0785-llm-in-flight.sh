#!/bin/sh
# A backbone's max_in_flight holds across make's jobs (issue 37; docs/llm.md,
# "Backbones file"): `make -j 8` asks for the first proposal of eight smoke
# runs at once (eight pf-propose, one per run, each under its run's lock)
# from the backbone "loop", max_in_flight 2, served by
# tests/llm_loopback_server.py on 127.0.0.1 (started and stopped by PID),
# which holds each answer 0.5 s and counts the requests it has open at once:
# never more than 2, and 2 at some time (else the test proves nothing). The
# answers are an offline run's, recorded first. Float build only.
. "$(dirname "$0")/lib.sh"
float_only
RUNS="0 1 2 3 4 5 6 7"
first() { # first RUNS_ROOT CELL [make args...]: the first proposal of each run of CELL (pinnforge[@backbone])
    root=$1 cell=$2
    shift 2
    goals=
    for r in $RUNS; do goals="$goals $root/poisson_5d/$cell/run$r/gen00/cand0.proposal.msgpack"; done
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=poisson_5d RUNS="$RUNS" PROFILE=smoke \
        RUNS_ROOT="$root" "$@" $goals
}
first "$tmp/ref" pinnforge LLM=offline -j2 >"$tmp/out" 2>"$tmp/err"
eq "the offline proposals" "$?" 0
mkdir "$tmp/llm"
for d in "$tmp"/ref/poisson_5d/pinnforge/run*/llm; do cp "$d"/*.msgpack "$tmp/llm/"; done # the runs ask alike
python3 "$PF_TESTS/llm_loopback_server.py" --answers "$BIN/pf-inspect" "$tmp/llm" >"$tmp/answers.json"
loopback "$tmp/answers.json" --delay 0.5 --in-flight-file "$tmp/in-flight"
check "the loopback server listens" test -n "$port"
cat >"$tmp/llms.json" <<JSON
[{"name": "loop", "url": "http://127.0.0.1:$port/v1", "model": "offline-rules", "max_in_flight": 2}]
JSON
LLMS_FILE=$tmp/llms.json PF_LLM_SLOTS_DIR=$tmp/slots first "$tmp/http" pinnforge@loop LLM=http BACKBONE=loop -j8 \
    >"$tmp/out" 2>"$tmp/err"
eq "eight proposals over http with make -j8" "$?" 0
eq "every call reached the server once" "$(grep -vc "^unknown" "$tmp/llm.log")" "$(find "$tmp/ref" -path "*/llm/*.msgpack" | wc -l)"
eq "no unknown request" "$(grep -c '^unknown' "$tmp/llm.log")" 0
eq "at most 2 requests at once, and 2 at some time" "$(cat "$tmp/in-flight")" 2
loopback_stop
finish
