#!/bin/sh
# A PDE written as a .pde file through the search pipeline (pipeline.mk,
# issue 21): make PDE=path/to/file.pde runs a smoke search end to end in a
# folder named after the file's declared name, context.json records the
# file's SHA-256, a second make does nothing, and editing one coefficient
# of the file, or of its observations or reference table, reruns what depends
# on it. The file lies in a deep folder:
# context.json holds its path, however long. Float build only (the pipeline is
# precision-blind).
. "$(dirname "$0")/lib.sh"
float_only
F=$tmp/equations/kept/in/a/folder/deep/enough/that/the/path/is/over/sixty-four/characters/my_helmholtz.pde
mkdir -p "$(dirname "$F")"
cp "$ROOT/examples/pdes/helmholtz_2d.pde" "$F"
run() { # run TARGET: the smoke profile on the copy, runs in $tmp/runs
    make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PROFILE=smoke TRAIN_THREADS=1 -j2 LLM=offline \
        PDE="$F" RUN=0 RUNS_ROOT="$tmp/runs" "$@"
}
R=$tmp/runs/helmholtz_2d/pinnforge/run0

run search >"$tmp/out" 2>"$tmp/err"
eq "a smoke search on the file" "$?" 0
check "the folder takes the declared name" test -f "$R/final.msgpack"
check "context.json names the file" grep -q "\"pde\": \"$F\"" "$R/context.json"
sha=$(sha256sum <"$F" | cut -c1-64)
check "context.json records its SHA-256" grep -q "\"pde_sha256\": \"$sha\"" "$R/context.json"
check "an MSE" sh -c "'$BIN/pf-inspect' '$R/final.msgpack' | grep -q '\"hf_mse\": [0-9]'"

before=$(stat -c %Y.%N "$R/context.json" "$R/knowledge.msgpack")
run "$R/knowledge.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "an unchanged file: make" "$?" 0
eq "an unchanged file reruns nothing" "$(stat -c %Y.%N "$R/context.json" "$R/knowledge.msgpack")" "$before"

sleep 1
sed -i 's/^param k = 1$/param k = 2/' "$F"
run "$R/knowledge.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "an edited coefficient: make" "$?" 0
check "context.json has the new SHA-256" sh -c "! grep -q '$sha' '$R/context.json'"
check "what depends on the file reruns" test "$R/knowledge.msgpack" -nt "$R/final.msgpack"

# observations and a reference: their files are part of the context too
# (pf-context; src/pdefile/fingerprint.h)
O=$tmp/obs/observed_1d.pde
mkdir -p "$tmp/obs"
printf '%s\n' 'pde observed_1d' 'statement "s"' 'inputs x' 'outputs u' 'domain interval(0, 1)' \
    'equation u_xx = -pi^2*sin(pi*x)' 'observe data: u from "obs.csv"' 'reference "ref.csv"' >"$O"
printf 'x,u\n0.25,0.7071067811865476\n0.5,1\n' >"$tmp/obs/obs.csv"
printf 'u,x\n0,0\n0.7071067811865476,0.25\n1,0.5\n0.7071067811865476,0.75\n0,1\n' >"$tmp/obs/ref.csv"
RO=$tmp/runs/observed_1d/pinnforge/run0
run PDE="$O" "$RO/knowledge.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "a file with observations: make" "$?" 0
sleep 1
touch "$O.stamp"
check "context.json records the data files' SHA-256" grep -q '"data_sha256": "[0-9a-f]\{64\}"' "$RO/context.json"
check "pf-pde list counts the reference's rows" sh -c "'$BIN/pf-pde' list '$O' | grep -q 'observed_1d .* 5  data$'"
before=$(stat -c %Y.%N "$RO/context.json" "$RO/knowledge.msgpack")
run PDE="$O" "$RO/knowledge.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "unchanged observations rerun nothing" "$(stat -c %Y.%N "$RO/context.json" "$RO/knowledge.msgpack")" "$before"
sleep 1
printf '0.75,0.7071067811865476\n' >>"$tmp/obs/obs.csv"
run PDE="$O" "$RO/knowledge.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "an edited CSV: make" "$?" 0
check "an edited CSV reruns what depends on it" test "$RO/knowledge.msgpack" -nt "$O.stamp"
check "context.json's other fields are unchanged" grep -q "\"pde_sha256\": \"$(sha256sum <"$O" | cut -c1-64)\"" "$RO/context.json"
sleep 1
touch "$O.stamp"
printf '0.9510565162951535,0.4\n' >>"$tmp/obs/ref.csv"
run PDE="$O" "$RO/knowledge.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "an edited reference: make" "$?" 0
check "an edited reference reruns what depends on it" test "$RO/knowledge.msgpack" -nt "$O.stamp"

run PDE="$tmp/none.pde" search >"$tmp/out" 2>"$tmp/err"
check "a missing file: make fails" test $? -ne 0
check "a missing file: says so" grep -q "PDE=$tmp/none.pde: pf-pde: cannot open '$tmp/none.pde'" "$tmp/err"
printf 'pde broken\nequation u_xx = \n' >"$tmp/broken.pde"
run PDE="$tmp/broken.pde" search >"$tmp/out" 2>"$tmp/err"
check "a file that does not check: make fails" test $? -ne 0
check "a file that does not check: its error, as make reads the variables" grep -q "PDE=$tmp/broken.pde: pf-pde: $tmp/broken.pde:[0-9]*:[0-9]*: " "$tmp/err"
finish
