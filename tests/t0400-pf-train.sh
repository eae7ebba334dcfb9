#!/bin/sh
# t0400-pf-train.sh — `pf-train SPEC --pde P --fidelity F --seed S --out DIR`.
#
#   tests/t0400-pf-train.sh BUILD/bin float|double     (make test runs it)
#
# Exit codes (0 trained, 2 usage / unknown PDE / invalid spec), the two
# artifacts (h5dump and pf-inspect read them; the spec hash agrees with
# pf-spec check), bit-identical datasets for the same seed, progress lines
# when stderr is not a terminal, fidelity scaling (a low-fidelity spec
# run at high fidelity plans 10,000 steps; stopped here by --timeout), and a
# full disk: tmpfs mounts (root only, skipped otherwise) at 10 sizes too
# small for the outputs give exit 1 with a message naming the file, never a
# signal (HDF5 1.10 crashed at exit after failing to close a file it could
# not flush), and no temp file.
. "$(dirname "$0")/lib.sh"
T=$BIN/pf-train

spec=$tmp/spec.json
cat >"$spec" <<'EOF'
{"representation": {}, "architecture": {"depth": 2, "width": 16},
 "sampling": {"interior": 256, "boundary": 128, "method": "sobol"},
 "constraints": {}, "loss": {},
 "optimization": {"stages": [{"optimizer": "adam", "steps": 900, "lr": 0.003},
                             {"optimizer": "lbfgs", "steps": 100}]},
 "training": {"log_every": 50, "eval_every": 250}}
EOF

# ------------------------------------------------------------ usage
expect_rc 0 "--help" "$T" --help
check "--help prints the usage" grep -q '^usage: pf-train SPEC' "$tmp/out"
expect_rc 2 "no arguments" "$T"
expect_rc 2 "unknown PDE" "$T" "$spec" --pde no_such_pde --seed 0 --out "$tmp/x"
check "unknown PDE: says so" grep -q 'no_such_pde' "$tmp/err"
expect_rc 2 "missing --seed" "$T" "$spec" --pde poisson_5d --out "$tmp/x"
expect_rc 2 "bad fidelity" "$T" "$spec" --pde poisson_5d --fidelity medium --seed 0 --out "$tmp/x"
sed 's/"width": 16/"width": 0/' "$spec" >"$tmp/bad.json"
expect_rc 2 "invalid spec" "$T" "$tmp/bad.json" --pde poisson_5d --seed 0 --out "$tmp/x"
check "invalid spec: the reason names the field" grep -q 'architecture.width' "$tmp/err"
check "invalid spec: no output folder" test ! -e "$tmp/x"
expect_rc 2 "unreadable spec" "$T" "$tmp/none.json" --pde poisson_5d --seed 0 --out "$tmp/x"
# a run's training (--run): its settings come from the run, never twice
R=$tmp/runs/poisson_5d/vanilla/run1
expect_rc 0 "pf-context writes a run's settings" "$BIN/pf-context" --run "$R" --pde poisson_5d --method vanilla \
    --number 1 --budget smoke --llm offline --eval paper
expect_rc 2 "--run with --seed" "$T" --run "$R" --generation 0 --slot 0 --seed 5
check "--run with --seed: says where the seed comes from" grep -q -- '--seed comes from the run folder' "$tmp/err"
expect_rc 2 "--run with a SPEC" "$T" "$spec" --run "$R" --generation 0 --slot 0
expect_rc 2 "--run without --slot" "$T" --run "$R" --generation 0
expect_rc 2 "--run: a slot the run has not" "$T" --run "$R" --generation 0 --slot 5
check "--run: a slot the run has not: says how many it has" grep -q 'no slot 5 in generation 0 (it has 5 there)' "$tmp/err"
expect_rc 2 "--run: no proposal yet" "$T" --run "$R" --generation 0 --slot 0
check "--run: no proposal yet: names it" grep -q "$R/gen00/cand0.proposal.msgpack" "$tmp/err"

# ------------------------------------------------------------ a run
expect_rc 0 "train" "$T" "$spec" --pde poisson_5d --seed 3 --out "$tmp/a" --threads 1
check "result.h5 written" test -s "$tmp/a/result.h5"
check "evidence.msgpack written" test -s "$tmp/a/evidence.msgpack"
eq "no temp files left" "$(ls "$tmp/a" | tr '\n' ' ')" "evidence.msgpack result.h5 "
check "progress: a start line" grep -q '^pf-train: start poisson_5d' "$tmp/err"
check "progress: step lines (stderr is no terminal)" grep -q '^pf-train: step 100/1000' "$tmp/err"
check "progress: a done line" grep -q '^pf-train: done poisson_5d: ok' "$tmp/err"
check "h5dump reads result.h5" h5dump -H "$tmp/a/result.h5"
hash=$("$BIN/pf-spec" check "$spec" --pde poisson_5d --fidelity low | sed -n 's/^hash: //p')
"$BIN/pf-inspect" "$tmp/a/result.h5" >"$tmp/h5" 2>&1
eq "result.h5: spec_hash is pf-spec's" "$(sed -n 's/^  @spec_hash = "\(.*\)"$/\1/p' "$tmp/h5")" "$hash"
check "result.h5: loss terms" grep -q '^/loss/terms/bc  dataset float64 (21)' "$tmp/h5"
check "result.h5: eval curve" grep -q '^/eval/mse  dataset float64 (5)' "$tmp/h5"
check "result.h5: predictions" grep -q '^/predictions/u  dataset' "$tmp/h5"
check "result.h5: parameters" grep -q '^/params/00.h1.W  dataset' "$tmp/h5"
"$BIN/pf-inspect" "$tmp/a/evidence.msgpack" >"$tmp/ev" 2>&1
eq "pf-inspect reads evidence.msgpack" $? 0
check "evidence: y" grep -qE '^  "y": [0-9]' "$tmp/ev"
check "evidence: status ok" grep -q '^  "status": "ok",' "$tmp/ev"
check "evidence: spec hash" grep -q "^  \"spec_hash\": \"$hash\"" "$tmp/ev"
for key in loss_reduction stagnation_steps grad_imbalance hotspots constraint_errors steps_per_second parameters; do
    check "evidence: $key" grep -q "^    \"$key\": " "$tmp/ev"
done

# ------------------------------------------------------------ determinism
"$T" "$spec" --pde poisson_5d --seed 3 --out "$tmp/b" --threads 1 --quiet
"$T" "$spec" --pde poisson_5d --seed 4 --out "$tmp/c" --threads 1 --quiet
data() { h5dump -d "$2" "$1/result.h5" | sed 1d; }
for d in /loss/total /loss/terms/pde /eval/mse /predictions/u /params/00.h1.W /params/05.out.b; do
    eq "same seed: $d is identical" "$(data "$tmp/a" "$d" | md5sum)" "$(data "$tmp/b" "$d" | md5sum)"
done
check "another seed: a different loss curve" test "$(data "$tmp/a" /loss/total | md5sum)" != "$(data "$tmp/c" /loss/total | md5sum)"

# ------------------------------------------------------------ fidelity
expect_rc 0 "high fidelity, stopped by --timeout" "$T" "$spec" --pde poisson_5d --fidelity high --seed 0 \
    --out "$tmp/h" --timeout 0.5
check "high fidelity: the start line says scaled" grep -q '(10000 steps, scaled)' "$tmp/err"
"$BIN/pf-inspect" "$tmp/h/evidence.msgpack" >"$tmp/ev" 2>&1
check "high fidelity: budget 10000" grep -q '^    "budget": 10000,' "$tmp/ev"
check "high fidelity: status timeout" grep -q '^  "status": "timeout",' "$tmp/ev"

# ------------------------------------------------------------ a full disk
smoke=$tmp/smoke.json
cat >"$smoke" <<'EOF'
{"representation": {}, "architecture": {"depth": 2, "width": 16},
 "sampling": {"interior": 256, "boundary": 128, "method": "sobol"},
 "constraints": {}, "loss": {},
 "optimization": {"stages": [{"optimizer": "adam", "steps": 20, "lr": 0.003}]},
 "training": {"log_every": 5, "eval_every": 10}}
EOF
expect_rc 0 "full disk: the smoke run fits a large disk" "$T" "$smoke" --pde poisson_5d --budget smoke --seed 1 \
    --out "$tmp/s" --threads 1 --quiet
need=$(cat "$tmp/s/result.h5" "$tmp/s/evidence.msgpack" | wc -c)
mnt=$tmp/mnt
mkdir "$mnt"
if ! mount -t tmpfs -o size=4k tmpfs "$mnt" 2>/dev/null; then
    echo "$TEST_NAME: full disk skipped: cannot mount a tmpfs here (needs root)"
    finish
    exit
fi
umount "$mnt"
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
# 10 sizes, 4 KiB to a few pages short of the outputs
sizes=$(awk -v need="$need" 'BEGIN { m = int(need / 4096) - 3; for (i = 0; i < 10; i++) print 4 * (1 + int(i * (m - 1) / 9)) }')
signals=0 other=0 unnamed=0 left=0
for kb in $sizes; do
    mount -t tmpfs -o size="${kb}k" tmpfs "$mnt"
    "$T" "$smoke" --pde poisson_5d --budget smoke --seed 1 --out "$mnt/o" --threads 1 --quiet >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc -ge 128 ]; then
        signals=$((signals + 1))
        echo "$TEST_NAME: full disk: ${kb} KiB: pf-train died by signal $((rc - 128))" >&2
    elif [ $rc -ne 1 ]; then
        other=$((other + 1))
        echo "$TEST_NAME: full disk: ${kb} KiB: pf-train exit $rc" >&2
    fi
    grep -q "'$mnt/o/[^']*'.*No space left on device" "$tmp/err" || unnamed=$((unnamed + 1))
    [ -z "$(find "$mnt" -name '*.tmp.*')" ] || left=$((left + 1))
    umount "$mnt"
done
echo "$TEST_NAME: full disk: tmpfs of $(echo $sizes | sed 's/ /, /g') KiB (the outputs take $need bytes): $signals signals, $other other exit codes"
eq "full disk: no signal" "$signals" 0
eq "full disk: exit 1" "$other" 0
eq "full disk: a message naming the file and the full disk" "$unnamed" 0
eq "full disk: no temp file left" "$left" 0
mount -t tmpfs -o size=$((need / 1024 + 64))k tmpfs "$mnt"
expect_rc 0 "full disk: a disk just large enough" "$T" "$smoke" --pde poisson_5d --budget smoke --seed 1 \
    --out "$mnt/o" --threads 1 --quiet
eq "full disk: just large enough: both outputs" "$(ls "$mnt/o" | tr '\n' ' ')" "evidence.msgpack result.h5 "
umount "$mnt"
finish
