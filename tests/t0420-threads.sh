#!/bin/sh
# t0420-threads.sh — pf-train's threads: --threads auto under make -j N takes
# the free job slots from make's jobserver (a recipe marked '+') up to the
# CPUs it may use, grows into the slots that come free while it trains with
# the same results, bit for bit, as one thread (both precisions), gives them
# back (make ends without a lost token), says so when the jobserver was not
# passed to it, and without make uses every CPU it may use.
#
#   tests/t0420-threads.sh BUILD/bin float|double     (make test runs it)
. "$(dirname "$0")/lib.sh"
command -v h5dump >/dev/null 2>&1 || { echo "$0: h5dump not found (apt-get install hdf5-tools)" >&2; exit 1; }
T=$BIN/pf-train
ev() { "$BIN/pf-inspect" "$1/evidence.msgpack"; }
field() { ev "$1" | sed -n "s/^ *\"$2\": \([0-9.]*\),*$/\1/p"; }
# the evidence but for times and thread counts, and the loss and MSE curves
results() {
    ev "$1" | grep -v 'steps_per_second\|wall_s\|steps_s\|other_s\|cpu_s\|started_unix\|predicted_s\|"threads\|"name": "CPU'
    h5dump -m '%.17g' -d /loss/total -d /eval/mse "$1/result.h5" | grep -v '^HDF5 '
}

# A training that grows: under make -j2 a job that holds the second slot
# ends once the training has done 20 steps; the training then takes the
# slot (pf_threads_regrant, every 0.5 s) and runs its other steps on two
# threads, with the losses and MSE of a --threads 1 run to the last bit.
cpus=$(env -u OMP_NUM_THREADS nproc) # nproc counts the affinity mask (and honours OMP_NUM_THREADS)
grow=$tmp/grow.json
cat >"$grow" <<'EOF'
{"representation": {}, "architecture": {"depth": 3, "width": 40},
 "sampling": {"interior": 1792, "boundary": 256, "method": "sobol"},
 "constraints": {}, "loss": {},
 "optimization": {"stages": [{"optimizer": "adam", "steps": 200, "lr": 0.003}]},
 "training": {"log_every": 10, "eval_every": 50}}
EOF
gtrain="$T $grow --pde poisson_5d --budget quick --seed 3"
cat >"$tmp/Makefile.grow" <<EOF
all: holder grown
holder:
	@timeout 300 sh -c 'until grep -q "step 20/" $tmp/grown.log 2>/dev/null; do sleep 0.05; done'
grown:
	+@$gtrain --threads auto --out $tmp/grown --progress-every 20 2>$tmp/grown.log
EOF
expect_rc 0 "a training under make -j2 beside a job that ends" env -u MAKEFLAGS -u MAKELEVEL make -s -j2 -f "$tmp/Makefile.grow"
check "make lost no token" sh -c "! grep -qi 'jobserver\|tokens' '$tmp/err'"
eq "it started on its own slot" "$(field "$tmp/grown" threads)" 1
if [ "$cpus" -ge 2 ]; then
    eq "it grew to two threads" "$(field "$tmp/grown" threads_max)" 2
    mean=$(field "$tmp/grown" threads_mean)
    check "its steps' mean count lies between ($mean)" awk -v m="$mean" 'BEGIN { exit !(m > 1 && m < 2) }'
    echo "$TEST_NAME: the training grew to $(field "$tmp/grown" threads_max) threads, $mean on average over its steps"
else
    echo "$TEST_NAME: one CPU available: the growth is not checked"
fi
expect_rc 0 "the same training, --threads 1" env -u MAKEFLAGS -u MAKELEVEL $gtrain --threads 1 --quiet --out "$tmp/one"
results "$tmp/grown" >"$tmp/grown.txt"
results "$tmp/one" >"$tmp/one.txt"
check "results were read" sh -c "grep -q '\"y\"' '$tmp/one.txt' && grep -q 'DATASET \"/eval/mse\"' '$tmp/one.txt'"
check "losses, MSE and evidence identical to --threads 1" cmp -s "$tmp/grown.txt" "$tmp/one.txt"

float_only
spec=$tmp/spec.json
cat >"$spec" <<'EOF'
{"representation": {}, "architecture": {"depth": 2, "width": 8},
 "sampling": {"interior": 64, "boundary": 32, "method": "sobol"},
 "constraints": {}, "loss": {},
 "optimization": {"stages": [{"optimizer": "adam", "steps": 20, "lr": 0.003}]},
 "training": {"log_every": 10, "eval_every": 10}}
EOF
train="$T $spec --pde poisson_5d --budget smoke --seed 0 --quiet --threads auto"
threads() { field "$1" threads; }

expect_rc 2 "--threads: a word other than auto" "$T" "$spec" --pde poisson_5d --seed 0 --out "$tmp/x" --threads many
check "--threads: says what it wants" grep -q "wants auto or an integer" "$tmp/err"

# without make: every CPU this process may use
expect_rc 0 "auto without make" env -u MAKEFLAGS -u MAKELEVEL $train --out "$tmp/alone"
eq "auto without make: every CPU" "$(threads "$tmp/alone")" "$cpus"

cat >"$tmp/Makefile" <<EOF
plus:
	+$train --out $tmp/plus
plain:
	$train --out $tmp/plain
EOF
most=4
[ "$cpus" -lt 4 ] && most=$cpus
expect_rc 0 "auto under make -j4, recipe marked '+'" env -u MAKEFLAGS -u MAKELEVEL make -s -j4 -f "$tmp/Makefile" plus
eq "its own slot and the free ones, up to the CPUs" "$(threads "$tmp/plus")" "$most"
check "make lost no token" sh -c "! grep -qi 'jobserver\|tokens' '$tmp/err'"
expect_rc 0 "auto under make -j4, recipe not marked '+'" env -u MAKEFLAGS -u MAKELEVEL make -s -j4 -f "$tmp/Makefile" plain
eq "one thread" "$(threads "$tmp/plain")" 1
check "says the jobserver was not passed" grep -q "did not inherit it: make passes it only to a recipe marked '+'" "$tmp/err"
# two at once under -j2: the slots go round, and all come back
cat >"$tmp/Makefile2" <<EOF
all: one two
one two:
	+$train --out $tmp/\$@
EOF
expect_rc 0 "two trainings under make -j2" env -u MAKEFLAGS -u MAKELEVEL make -s -j2 -f "$tmp/Makefile2"
check "both trained" test -s "$tmp/one/result.h5" -a -s "$tmp/two/result.h5"
check "make lost no token" sh -c "! grep -qi 'jobserver\|tokens' '$tmp/err'"

# the pipeline: TRAIN_THREADS=auto gives a TRAIN_THREADS=1 run's results, bit for bit
search() { # search THREADS ROOT [MAKE OPTION]
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=poisson_5d RUN=0 METHOD=vanilla PROFILE=smoke \
        TRAIN_THREADS="$1" RUNS_ROOT="$2" -j2 ${3:-} search
}
expect_rc 2 "TRAIN_THREADS: a word other than auto" search many "$tmp/rx"
check "TRAIN_THREADS: says what it may be" grep -q "TRAIN_THREADS='many': a number of threads, 1 or more, or auto" "$tmp/err"
expect_rc 0 "make -n with TRAIN_THREADS=auto" search auto "$tmp/rn" -n
check "make -n with TRAIN_THREADS=auto: no training ran" sh -c "! find '$tmp/rn' -name evidence.msgpack 2>/dev/null | grep -q ."
expect_rc 0 "a vanilla smoke run, TRAIN_THREADS=1" search 1 "$tmp/r1"
expect_rc 0 "the same, TRAIN_THREADS=auto" search auto "$tmp/ra"
check "TRAIN_THREADS=auto: make lost no token" sh -c "! grep -qi 'jobserver\|tokens' '$tmp/err'"
same=0
for k in 0 1 2 3 4; do
    for r in r1 ra; do
        "$BIN/pf-inspect" "$tmp/$r/poisson_5d/vanilla/run0/gen00/cand$k/evidence.msgpack" |
            grep -v 'steps_per_second\|wall_s\|steps_s\|other_s\|cpu_s\|started_unix\|predicted_s\|"threads\|"name": "CPU' >"$tmp/$r.$k"
    done
    [ -s "$tmp/r1.$k" ] && cmp -s "$tmp/r1.$k" "$tmp/ra.$k" && same=$((same + 1))
done
eq "the five candidates' evidence, but for times and thread counts, identical" "$same" 5
finish
