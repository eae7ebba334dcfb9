#!/bin/sh
# The search pipeline end to end (pipeline.mk): the smoke profile (quick's
# sizes, a tenth of its steps) on poisson_5d with the offline proposer, then: a second make does nothing,
# a deleted result is retrained alone with what depends on it, and
# LLM=replay on a copy, killed mid-run and resumed, reproduces the final MSE
# exactly. Float build only (the pipeline is precision-blind).
# make test: about 70 s
. "$(dirname "$0")/lib.sh"
float_only
run() { # run RUNS_ROOT [make args...]
    r=$1; shift
    pipeline PDE=poisson_5d RUN=0 LLM=offline PROFILE=smoke RUNS_ROOT="$r" "$@" search
}
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^  \"$2\": \\(.*\\),\$/\\1/p"; }
R=$tmp/a/poisson_5d/pinnforge/run0

reference_search poisson_5d "$tmp/a" >"$tmp/out" 2>"$tmp/err" # as run "$tmp/a" (the first test to ask makes it)
eq "first run" "$?" 0
check "final.msgpack" test -f "$R/final.msgpack"
for k in spec spec_hash hf_mse budget; do
    check "final has $k" grep -q "\"$k\"" -- "$("$BIN/pf-inspect" "$R/final.msgpack" >"$tmp/final.json"; echo "$tmp/final.json")"
done
check "8 proposals in generation 0" test "$(ls "$R"/gen00/cand*.proposal.msgpack | wc -l)" -eq 8
check "5 proposals in generation 9" test "$(ls "$R"/gen09/cand*.proposal.msgpack | wc -l)" -eq 5
check "ten selections" test "$(ls "$R"/gen0*/select.msgpack | wc -l)" -eq 10
check "transcripts stored" test "$(ls "$R"/llm | wc -l)" -ge 13
check "a summary line per generation" grep -q "pf-select: gen00: best" "$tmp/err"
check "the offline proposer names itself" sh -c "'$BIN/pf-inspect' '$R/gen00/cand0.proposal.msgpack' | grep -q 'offline'"
hf=$(field "$R/final.msgpack" hf_mse)
check "an MSE" test -n "$hf"

# a second make does nothing
before=$(stat -c %Y.%N "$R/final.msgpack" "$R"/gen00/cand3/evidence.msgpack)
run "$tmp/a" >"$tmp/out" 2>"$tmp/err"
eq "second run" "$?" 0
check "second run trains nothing" sh -c "! grep -q 'pf-train\\|pf-propose' '$tmp/err'"
eq "second run touches nothing" "$(stat -c %Y.%N "$R/final.msgpack" "$R"/gen00/cand3/evidence.msgpack)" "$before"

# a deleted result: that training and what depends on it, nothing else
sleep 1
rm "$R/hifi/top1/result.h5"
keep=$(stat -c %Y "$R/hifi/top0/evidence.msgpack")
run "$tmp/a" >"$tmp/out" 2>"$tmp/err"
check "retrained" test -f "$R/hifi/top1/result.h5"
eq "the other high-fidelity training untouched" "$(stat -c %Y "$R/hifi/top0/evidence.msgpack")" "$keep"
check "only one training" test "$(grep -c 'pf-train: start' "$tmp/err")" -eq 1
eq "same answer after the retraining" "$(field "$R/final.msgpack" hf_mse)" "$hf"
check "status line" sh -c "make -s -C '$ROOT' --no-print-directory BUILD='$BUILD' PDE=poisson_5d RUN=0 RUNS_ROOT='$tmp/a' status | grep -q 'final: HF MSE'"

# replay on a copy, killed mid-run and resumed: the same answer, nothing new asked
mkdir -p "$tmp/c" && cp -r "$tmp/a/poisson_5d" "$tmp/c/"
C=$tmp/c/poisson_5d/pinnforge/run0
ntr=$(ls "$C/llm" | wc -l)
( run "$tmp/c" LLM=replay >/dev/null 2>&1 & echo $! >"$tmp/pid"; wait ) &
for i in $(seq 1 300); do # until generation 1 trains again under the new context, at most 30 s
    grep -q '"llm": "replay"' "$C/context.json" &&
        find "$C/gen01" -name evidence.msgpack -newer "$C/context.json" 2>/dev/null | grep -q . && break
    sleep 0.1
done
pkill -TERM -P "$(cat "$tmp/pid")" 2>/dev/null; kill "$(cat "$tmp/pid")" 2>/dev/null
wait
check "killed before the end" test ! -f "$C/final.msgpack" -o "$C/final.msgpack" -ot "$C/context.json"
run "$tmp/c" LLM=replay >"$tmp/out" 2>"$tmp/err"
eq "resumed replay run" "$?" 0
eq "replay: the same final MSE" "$(field "$C/final.msgpack" hf_mse)" "$hf"
eq "replay stores nothing new" "$(ls "$C/llm" | wc -l)" "$ntr"
bad=0
for f in "$C"/gen*/*.msgpack "$C"/gen*/cand*/evidence.msgpack "$C"/hifi/*/evidence.msgpack; do
    "$BIN/pf-inspect" "$f" >/dev/null 2>&1 || bad=$((bad + 1))
done
eq "every artifact reads back" "$bad" 0
left=$(find "$C" -name '*.tmp.*' | wc -l)
eq "no temp file of the killed writers is left" "$left" 0

# EVAL=heldout on a data PDE: decisions on the selection half, the report
# half in report_mse; pf-stats builds the main table from either MSE
if has_data burgers1d.dat; then
    H=$tmp/h/burgers_1d/pinnforge/run0
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=burgers_1d RUN=0 PROFILE=smoke LLM=offline EVAL=heldout \
        TRAIN_THREADS=1 RUNS_ROOT="$tmp/h" -j2 search >"$tmp/out" 2>"$tmp/err"
    eq "heldout run" "$?" 0
    check "heldout: the context says so" grep -q '"eval": "heldout"' "$H/context.json"
    hsel=$(field "$H/final.msgpack" hf_mse)
    hrep=$(field "$H/final.msgpack" report_mse)
    check "heldout: both MSEs" test -n "$hsel" -a -n "$hrep"
    check "heldout: two different numbers" test "$hsel" != "$hrep"
    check "heldout: eval recorded" sh -c "'$BIN/pf-inspect' '$H/final.msgpack' | grep -q '\"eval\": \"heldout\"'"
    check "heldout: the physics check" sh -c "'$BIN/pf-inspect' '$H/final.msgpack' | grep -q '\"residual_rms\"'"
    check "heldout: candidates carry y_report" sh -c "'$BIN/pf-inspect' '$H/gen00/cand0/evidence.msgpack' | grep -q '\"y_report\"'"
    "$BIN/pf-stats" --runs "$tmp/h" --out "$tmp/hrep" --metric report_mse >"$tmp/out" 2>"$tmp/err"
    eq "pf-stats --metric report_mse" "$?" 0
    check "main table from report_mse" grep -q "^burgers_1d,pinnforge,1,$(python3 -c "print('%.9e' % float('$hrep'))")," "$tmp/hrep/main.csv"
    check "main table notes the optimism gap (one run: not enough for it)" grep -q "Optimism gap (report_mse / selection MSE, median over EVAL=heldout runs): not enough runs (n = 1;" "$tmp/hrep/main.md"
else
    data_missing "burgers1d.dat not in ${PF_DATA_DIR:-data/ref} (PF_DATA_DIR): the EVAL=heldout run on burgers_1d"
fi
eq "paper: report_mse is hf_mse" "$(field "$R/final.msgpack" report_mse)" "$(field "$R/final.msgpack" hf_mse)"

# a data folder without the reference: the run stops at its first step,
# naming the file and the folder, before any training
make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=burgers_1d RUN=0 PROFILE=smoke LLM=offline \
    RUNS_ROOT="$tmp/d" PF_DATA_DIR="$tmp/no-data" -j2 search >"$tmp/out" 2>"$tmp/err"
check "no reference: make fails" test "$?" -ne 0
check "no reference: names the file and the folder" grep -q "burgers1d.dat.*$tmp/no-data" "$tmp/err"
check "no reference: nothing trained" sh -c "! grep -q 'pf-train\|pf-propose' '$tmp/err'"
finish
