#!/bin/sh
# A search with a wall-clock budget (TIME_BUDGET; docs/search.md, "Time
# budget"): a poisson_5d smoke search is first run unbounded and timed (about
# 30 s on 2 quiet cores, 300 s on a loaded machine), then given a budget of
# 40% of that, at least 15 s, so that the budget binds on any machine: it
# ends within 1.2 x the budget with a final MSE, some trainings stopped by
# their limit (time_limited in their evidence, scored where they stopped),
# final.msgpack says the budget bound; make again does nothing; a deleted
# high-fidelity result is retrained to the step its record says, with the
# same MSE bit for bit; each make is a session of the clock. Float build only.
# make test: alone (the budget is a fraction of a wall time measured here, so
# no other test may load the cores between the two searches; tests/run.sh)
. "$(dirname "$0")/lib.sh"
float_only
search() { # search RUNS_ROOT [make args...]
    root=$1
    shift
    pipeline PDE=poisson_5d RUN=0 LLM=offline PROFILE=smoke RUNS_ROOT="$root" "$@" search
}
t0=$(date +%s.%N)
search "$tmp/free" >"$tmp/out" 2>"$tmp/err"
eq "the unbounded search" "$?" 0
t1=$(date +%s.%N)
BUDGET=$(awk "BEGIN { b = int(0.4 * ($t1 - $t0)); print b < 15 ? 15 : b }")
check "the unbounded search took longer than the budget ($BUDGET s)" awk "BEGIN { exit !($t1 - $t0 > $BUDGET) }"
run() { search "$tmp/r" TIME_BUDGET=${BUDGET}s "$@"; }
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^ *\"$2\": \\([^,]*\\),*\$/\\1/p" | head -n 1; }
R=$tmp/r/poisson_5d/pinnforge/run0

t0=$(date +%s.%N)
run >"$tmp/out" 2>"$tmp/err"
eq "the budgeted search" "$?" 0
t1=$(date +%s.%N)
wall=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")
check "ended within 1.2 x the budget ($wall s for $BUDGET s)" awk "BEGIN { exit !($wall <= 1.2 * $BUDGET) }"
hf=$(field "$R/final.msgpack" hf_mse)
check "a final MSE ($hf)" sh -c "echo '$hf' | grep -Eq '^[0-9.]+(e-?[0-9]+)?$'"
eq "final.msgpack: the budget" "$(field "$R/final.msgpack" budget_s)" "$BUDGET"
eq "final.msgpack: the budget bound" "$(field "$R/final.msgpack" budget_bound)" true
check "context.json has the budget" grep -q "\"time_budget_s\": $BUDGET" "$R/context.json"
limited=0
for e in "$R"/gen*/cand*/evidence.msgpack "$R"/hifi/top*/evidence.msgpack; do
    [ -f "$e" ] || continue
    if [ "$(field "$e" time_limited)" = true ]; then
        limited=$((limited + 1))
        eq "$e: stopped_at_step is its steps" "$(field "$e" stopped_at_step)" "$(field "$e" steps)"
        eq "$e: scored where it stopped" "$(field "$e" status)" '"ok"'
    fi
done
check "some trainings stopped by their limit ($limited)" test "$limited" -ge 1
check "the proposers were told the time" grep -q "parameter-point-steps per second" "$R/time_budget.json"

eq "one make, one session on the clock" "$(grep -c '"last_at"' "$R/time_budget.json")" 1

# make again: nothing, but a session of its own (the clock skips the time
# between makes: tests/test_time_budget_file.c)
before=$(stat -c %Y "$R/final.msgpack")
run >"$tmp/out" 2>"$tmp/err"
eq "second make" "$?" 0
check "the second make trains nothing" sh -c "! grep -q 'pf-train' '$tmp/err'"
eq "final.msgpack untouched" "$(stat -c %Y "$R/final.msgpack")" "$before"
eq "a second session on the clock" "$(grep -c '"last_at"' "$R/time_budget.json")" 2

# a deleted result: retrained to the recorded step, not by the clock
steps=$(field "$R/hifi/top0/evidence.msgpack" steps)
y=$(field "$R/hifi/top0/evidence.msgpack" y)
rm "$R/hifi/top0/result.h5"
run >"$tmp/out" 2>"$tmp/err"
eq "the retraining" "$?" 0
if [ "$(field "$R/hifi/top0/evidence.msgpack" time_limited)" = true ]; then
    check "it applied the recorded steps" grep -q "pf-train: step limit $steps" "$tmp/err"
fi
eq "the same steps" "$(field "$R/hifi/top0/evidence.msgpack" steps)" "$steps"
eq "the same MSE" "$(field "$R/hifi/top0/evidence.msgpack" y)" "$y"

# a replay (a copy made with LLM=replay) keeps the record, so its trainings
# stop at the recorded steps and its search where the original's stopped;
# another change (here LLM=http) starts the clock and the record afresh
ctx() { # ctx RUNS_ROOT LLM
    "$BIN/pf-context" --run "$1/poisson_5d/pinnforge/run0" --pde poisson_5d --method pinnforge --number 0 \
        --budget smoke --llm "$2" --eval paper --time-budget ${BUDGET}s
}
for v in replay http; do
    mkdir -p "$tmp/$v" && cp -r "$tmp/r/poisson_5d" "$tmp/$v/"
    ctx "$tmp/$v" "$v" 2>"$tmp/err"
    eq "pf-context --llm $v on a copy" "$?" 0
done
n=$(grep -c '"steps"' "$R/time_budget.json")
eq "LLM=replay keeps every training's steps" "$(grep -c '"steps"' "$tmp/replay/poisson_5d/pinnforge/run0/time_budget.json")" "$n"
check "LLM=replay: a replay" grep -q '"replay": true' "$tmp/replay/poisson_5d/pinnforge/run0/time_budget.json"
eq "LLM=http: a new record" "$(grep -c '"steps"' "$tmp/http/poisson_5d/pinnforge/run0/time_budget.json")" 0

# TIME_BUDGET is checked before anything runs
expect_rc 2 "TIME_BUDGET=soon is refused" run TIME_BUDGET=soon
check "the message names it" grep -q "TIME_BUDGET='soon'" "$tmp/err"
expect_rc 2 "pf-context refuses 45x" "$BIN/pf-context" --run "$tmp/x/poisson_5d/pinnforge/run0" --pde poisson_5d \
    --method pinnforge --number 0 --budget smoke --llm offline --eval paper --time-budget 45x
check "naming the value" grep -q "time budget '45x'" "$tmp/err"
finish
