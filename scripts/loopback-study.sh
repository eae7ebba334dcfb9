#!/bin/sh
# loopback-study.sh — issue 37's loopback study (docs/study.md, "The
# loopback study"): `make study` with two LLM backbones that are local test
# servers, not real LLMs, then its cross-backbone tables.
#
#   scripts/loopback-study.sh DIR [VAR=VALUE | -jN ...]
#
# Starts two OpenAI-compatible servers on 127.0.0.1 (tests/llm_skill_server.py,
# seed 37): backbone a answers good designs, backbone b poor ones (one
# hidden layer of width 2, Adam at lr 10). It names them in DIR/llms.json
# (LLMS_FILE), runs
#   make study PDES="darcy_flow_2d poisson_5d" METHODS="pinnforge no_feedback vanilla"
#        BACKBONES="a b" RUNS="0 1" PROFILE=smoke TRAIN_THREADS=1 -j2
# with the runs in DIR/runs and the tables in DIR/reports (the arguments
# after DIR go to make after these and override them), stops both servers
# by their PIDs, and prints the tables Table 1 per backbone,
# backbones_friedman, backbones_kendall and backbones_wtl. vanilla is there
# because Kendall's W and the wins/ties/losses compare PINNForge with
# another method of Table 1 (no_feedback is an ablation, not in Table 1);
# two runs because a win or a loss needs two runs a side. The two PDEs
# share one spec template (`pf-spec example`), which the servers build on:
# other PDES must have darcy_flow_2d's (no initial condition, loss terms pde and bc).
# The servers log one line per answer to DIR/servers/NAME.log ("good spec",
# "poor spec", "good memory", ...).
#
# With LLM=replay among the arguments no server is started: the study is
# replayed from the transcripts of DIR/runs (a copy of another DIR's runs
# and llms.json, say), which needs no server.
#
# BUILD (environment; default build, as make's) is the build whose programs
# run. Exit status: make's (1 when a cell failed), 2 for bad usage, 3 when
# a server did not start.
set -u
usage() { sed -n '2,32s/^# \{0,1\}//p' "$0"; }
case ${1:-} in
-h | --help) usage; exit 0 ;;
"" | -*) usage >&2; exit 2 ;;
esac
dir=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
replay=
for a in "$@"; do [ "$a" = LLM=replay ] && replay=1; done
mkdir -p "$dir" || exit 2
dir=$(cd "$dir" && pwd)
srv=$dir/servers
stop_servers() {
    for s in a b; do
        [ -f "$srv/$s.pid" ] || continue
        kill "$(cat "$srv/$s.pid")" 2>/dev/null
        wait "$(cat "$srv/$s.pid")" 2>/dev/null
        rm -f "$srv/$s.pid"
    done
}
trap stop_servers EXIT
trap 'exit 130' INT TERM

if [ -z "$replay" ]; then
    command -v python3 >/dev/null 2>&1 || { echo "loopback-study: python3 is missing (the test servers are Python)" >&2; exit 3; }
    [ -x "$build/bin/pf-spec" ] || make -s -C "$root" --no-print-directory BUILD="$build" "$build/bin/pf-spec" || exit 2
    mkdir -p "$srv"
    "$build/bin/pf-spec" example --pde darcy_flow_2d >"$srv/template.json" || exit 2
    for s in a:good b:poor; do
        n=${s%%:*}
        rm -f "$srv/$n.port"
        python3 "$root/tests/llm_skill_server.py" --skill "${s#*:}" --seed 37 --spec "$srv/template.json" \
            --port-file "$srv/$n.port" --log "$srv/$n.log" &
        echo $! >"$srv/$n.pid"
    done
    for _ in $(seq 1 100); do [ -s "$srv/a.port" ] && [ -s "$srv/b.port" ] && break; sleep 0.05; done
    if [ ! -s "$srv/a.port" ] || [ ! -s "$srv/b.port" ]; then
        echo "loopback-study: a test server did not start on 127.0.0.1 (tests/llm_skill_server.py; see above)" >&2
        exit 3
    fi
    cat >"$dir/llms.json" <<EOF
[{"name": "a", "url": "http://127.0.0.1:$(cat "$srv/a.port")/v1", "model": "good-model", "max_in_flight": 2},
 {"name": "b", "url": "http://127.0.0.1:$(cat "$srv/b.port")/v1", "model": "poor-model", "max_in_flight": 2}]
EOF
fi
[ -f "$dir/llms.json" ] || { echo "loopback-study: $dir/llms.json: no backbones file to replay with" >&2; exit 2; }

unset PF_LLM_URL PF_LLM_MODEL PF_LLM_API_KEY PF_LLM_PROVIDER PF_LLM_BACKBONE LLM BACKBONE BACKBONES
LLMS_FILE=$dir/llms.json PF_LLM_SLOTS_DIR=$dir/slots
export LLMS_FILE PF_LLM_SLOTS_DIR
make -s -C "$root" --no-print-directory BUILD="$build" PROFILE=smoke TRAIN_THREADS=1 -j2 \
    PDES="darcy_flow_2d poisson_5d" METHODS="pinnforge no_feedback vanilla" BACKBONES="a b" RUNS="0 1" \
    RUNS_ROOT="$dir/runs" REPORTS_ROOT="$dir/reports" "$@" study
rc=$?
stop_servers
for t in "$dir"/reports/table1@*.md "$dir"/reports/backbones_friedman.md "$dir"/reports/backbones_kendall.md \
    "$dir"/reports/backbones_wtl.md; do
    [ -f "$t" ] && { echo; cat "$t"; }
done
exit $rc
