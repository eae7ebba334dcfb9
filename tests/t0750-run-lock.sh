#!/bin/sh
# t0750-run-lock.sh — one make per run folder (issue 33). Two makes on one
# run used to train everything twice (56 + 55 trainings): now the run's
# make holds RUN/.lock (stages/pf-lock.c, pipeline.mk's locked_goal), and a
# second make on the same run says so and waits, then finds the work done.
# The lock goes with the make: killed, nothing stale is left. A vanilla run
# of poisson_5d at the smoke profile, one 100-step training: about 10 s.
#
#   tests/t0750-run-lock.sh BUILD/bin float|double     (make test runs it)
. "$(dirname "$0")/lib.sh"
float_only
R=$tmp/runs/poisson_5d/vanilla/run0
mk() {
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=poisson_5d RUN=0 METHOD=vanilla PROFILE=smoke \
        TRAIN_THREADS=1 RUNS_ROOT="$tmp/runs" -j2 "$@"
}
held() { ! flock -n "$R/.lock" true; } # someone holds the run's lock
now() { date +%s.%N; }

# ---- a make waits for the holder of its run (here flock(1), for 2 s)
mkdir -p "$R"
flock "$R/.lock" sleep 2 &
holder=$!
n=0
until held || [ "$n" -ge 100 ]; do sleep 0.05; n=$((n + 1)); done
t0=$(now)
mk "$R/gen00/cand0.proposal.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "a held run: make" "$?" 0
t1=$(now)
wait "$holder"
check "a held run: make waited for the holder" python3 -c "import sys; sys.exit(not $t1 - $t0 >= 1.0)"
check "a held run: make says why it waits" grep -q "pf-lock: $R is being made by another make" "$tmp/err"
check "a held run: then made its goal" test -f "$R/gen00/cand0.proposal.msgpack"

# ---- two makes on one training: one trains, the other waits and trains nothing
E=$R/gen00/cand1/evidence.msgpack
mk "$E" >"$tmp/a.out" 2>"$tmp/a.err" &
a=$!
n=0 # until the first make's training runs (its launch.txt), at most 60 s
until [ -f "$R/gen00/cand1/launch.txt" ] || [ "$n" -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
check "the first make trains" test -f "$R/gen00/cand1/launch.txt"
check "the first make holds the lock" held
mk "$E" >"$tmp/b.out" 2>"$tmp/b.err"
eq "the second make" "$?" 0
wait "$a"
eq "the first make" "$?" 0
check "the second make said it waits" grep -q "is being made by another make (pid [0-9]* on host" "$tmp/b.err"
eq "trainings by the first make" "$(grep -c 'pf-train: start' "$tmp/a.err")" 1
eq "trainings by the second make" "$(grep -c 'pf-train: start' "$tmp/b.err")" 0
check "the evidence" "$BIN/pf-inspect" "$E"
check "no lock left held" flock -n "$R/.lock" true

# ---- a make killed with its process group leaves no lock behind
setsid sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/pgid" make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" \
    PDE=poisson_5d RUN=0 METHOD=vanilla PROFILE=smoke TRAIN_THREADS=1 RUNS_ROOT="$tmp/runs" -j2 search \
    >"$tmp/k.out" 2>"$tmp/k.err" &
k=$!
n=0
until [ -n "$(find "$R" -name launch.txt 2>/dev/null | head -n 1)" ] || [ "$n" -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
check "the make to kill trains and holds the lock" held
kill -KILL "-$(cat "$tmp/pgid")" # dash: no "--"
wait "$k" 2>/dev/null
n=0
while held && [ "$n" -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
check "killed: the lock is free" flock -n "$R/.lock" true
timeout 60 make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=poisson_5d RUN=0 METHOD=vanilla PROFILE=smoke \
    RUNS_ROOT="$tmp/runs" "$R/gen00/cand4.proposal.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "after the kill, the next make goes on at once" "$?" 0
check "after the kill: no waiting" sh -c "! grep -q 'being made by another make' '$tmp/err'"
finish
