#!/bin/sh
# t1000-bad-input.sh — every stage refuses bad input cleanly (issue 24).
#
#   tests/t1000-bad-input.sh BUILD/bin float|double     (make test runs it)
#
# Integers that a cast used to wrap (an option of 2^32 + 1 ran as 1, a
# context.json "run" of 4294967303 became run 7) are refused with their
# range; corrupt msgpack (a size claiming 4 billion elements) is "corrupt",
# naming the file, never "out of memory"; "" and empty keys survive
# pf-inspect; a reference file whose bad line holds the bytes 0xff 0xfe
# is a set-up failure naming the file (exit 1, no evidence; the sanitiser
# of messages in artifacts is tested in test_artifact.c); and
# every executable meets missing files, bad options and corrupt files.
# Issue 33: what is not a regular file (/dev/zero, a FIFO) or is over its
# kind's limit is refused at once; a link planted under a writer's temp
# name is never followed; a context.json of another run, a key given twice
# (context.json, a spec), a negative std and a damaged pde_labels.tsv are
# refused.
# Under `make test SANITIZE=1` each of these runs with ASan, LSan and UBSan,
# and the Makefile fails the test on any report (a leak on an error path).
. "$(dirname "$0")/lib.sh"

FFFD=$(printf '\357\277\275')

# ------------------------------------------------------------ fixtures
cat >"$tmp/mk.py" <<'PY'
import os, struct, sys

sys.path.insert(0, os.environ["PF_TESTS"])
from msgpack_enc import enc, put  # noqa: E402

# mk.py DIR: a run folder whose files are corrupt in the ways issue 24 lists
d = sys.argv[1]
os.makedirs(d + "/gen00", exist_ok=True)
open(d + "/context.json", "w").write(
    '{"pde": "burgers_1d", "method": "pinnforge", "run": 0, "budget": "quick", "llm": "offline"}\n')
huge_array = b"\xdd\xff\xff\xff\xff"                  # array32 of 4294967295 elements, none there
huge_map = b"\x81\xa6format\xdf\xff\xff\xff\xff"      # a map inside claiming 4294967295 entries
huge_str = b"\x81\xa6format\xdb\xff\xff\xff\xf0abc"   # str32 of ~4 GiB, 3 bytes there
open(d + "/knowledge.msgpack", "wb").write(huge_array)
open(d + "/gen00/select.msgpack", "wb").write(huge_map)
open(d + "/gen00/cand0.proposal.msgpack", "wb").write(huge_str)
open(d + "/huge.msgpack", "wb").write(huge_array)
open(d + "/empty.msgpack", "wb").write(b"\x92\x91\xa0\x81\xa0\xa0")   # [[""], {"": ""}]
open(d + "/final.msgpack", "wb").write(huge_map)
PY
R=$tmp/runs/burgers_1d/pinnforge/run0
python3 "$tmp/mk.py" "$R"
# a run whose number does not fit an int (it used to be read as run 7)
W=$tmp/wrapped
mkdir -p "$W"
echo '{"pde": "burgers_1d", "method": "pinnforge", "run": 4294967303, "budget": "quick", "llm": "offline"}' \
    >"$W/context.json"

spec=$tmp/spec.json
cat >"$spec" <<'EOF'
{"representation": {}, "architecture": {"depth": 2, "width": 8},
 "sampling": {"interior": 64, "boundary": 32},
 "constraints": {}, "loss": {},
 "optimization": {"stages": [{"optimizer": "adam", "steps": 200, "lr": 0.003}]},
 "training": {"log_every": 50, "eval_every": 100}}
EOF

# ------------------------------------------------------------ integers that wrapped
# expect_range DESCRIPTION COMMAND...: exit 2, the value named on stderr
big=4294967297 # 2^32 + 1: (int) of it is 1
expect_range() {
    d=$1; shift
    expect_rc 2 "$d" "$@"
    check "$d: says why" test -s "$tmp/err"
}
expect_range "pf-posterior --generation 2^32+1" "$BIN/pf-posterior" --run "$R" --generation $big
check "pf-posterior: says the range" grep -q "wants 0..99, not '$big'" "$tmp/err"
expect_range "pf-propose --generation 2^32+1" "$BIN/pf-propose" --run "$R" --generation $big --slot 0
expect_range "pf-propose --slot 2^32" "$BIN/pf-propose" --run "$R" --generation 0 --slot 4294967296
expect_range "pf-select --generation 2^32+1" "$BIN/pf-select" --run "$R" --generation $big
expect_range "pf-select --max-generations 2^32+10" "$BIN/pf-select" --run "$R" --generation 0 --max-generations 4294967306
expect_range "pf-final --last-generation 2^32+1" "$BIN/pf-final" --run "$R" --last-generation $big
expect_range "pf-final --hifi-proposal 2^32" "$BIN/pf-final" --run "$R" --last-generation 0 --hifi-proposal 4294967296
expect_range "pf-knowledge --k 2^32+1" "$BIN/pf-knowledge" --pde burgers_1d --k $big
expect_range "pf-pde sample --n 2^32+1" "$BIN/pf-pde" sample burgers_1d --n $big --out "$tmp/s.h5"
expect_range "pf-pde sample --seed 2^64" "$BIN/pf-pde" sample burgers_1d --n 8 --seed 18446744073709551616 --out "$tmp/s.h5"
expect_range "pf-pde sample --seed -1" "$BIN/pf-pde" sample burgers_1d --n 8 --seed -1 --out "$tmp/s.h5"
expect_range "pf-train --seed 2^63" "$BIN/pf-train" "$spec" --pde burgers_1d --seed 9223372036854775808 --out "$tmp/t"
expect_range "pf-train --seed -1" "$BIN/pf-train" "$spec" --pde burgers_1d --seed -1 --out "$tmp/t"
expect_range "pf-train --threads 2^32+1" "$BIN/pf-train" "$spec" --pde burgers_1d --seed 0 --threads $big --out "$tmp/t"
expect_range "pf-train --progress-every 2^32+1" "$BIN/pf-train" "$spec" --pde burgers_1d --seed 0 --progress-every $big --out "$tmp/t"
expect_range "pf-train --timeout 1e999" "$BIN/pf-train" "$spec" --pde burgers_1d --seed 0 --timeout 1e999 --out "$tmp/t"
for v in " 5" "+5" "0x5" "5 " ""; do
    expect_range "pf-posterior --generation '$v'" "$BIN/pf-posterior" --run "$R" --generation "$v"
done
check "pf-train: nothing written" test ! -e "$tmp/t"

# context.json's run: 4294967303 is refused, not run 7
for stage in "pf-propose --generation 0 --slot 0" "pf-posterior --generation 0" "pf-final --last-generation 0" \
    "pf-plot --out $tmp/plots"; do
    # shellcheck disable=SC2086
    expect_rc 1 "wrapped run: ${stage%% *}" "$BIN/"$stage --run "$W"
    check "wrapped run: ${stage%% *} names context.json and the range" \
        grep -q "$W/context.json.*\"run\" (an integer in 0..2147483647)" "$tmp/err"
done
check "wrapped run: nothing written" test ! -e "$W/gen00" -a ! -e "$tmp/plots"

# ------------------------------------------------------------ corrupt msgpack
expect_rc 1 "pf-inspect: 4 billion elements" "$BIN/pf-inspect" "$R/huge.msgpack"
check "pf-inspect: says corrupt" grep -q "$R/huge.msgpack: corrupt msgpack: the array at offset 0 claims 4294967295 elements" "$tmp/err"
check "pf-inspect: not out of memory" sh -c "! grep -q 'out of memory' '$tmp/err'"
expect_rc 1 "pf-propose: corrupt knowledge.msgpack" "$BIN/pf-propose" --run "$R" --generation 0 --slot 0 --quiet
check "pf-propose: names the file, corrupt" grep -q "'$R/knowledge.msgpack': corrupt msgpack" "$tmp/err"
expect_rc 1 "pf-propose: corrupt select.msgpack" "$BIN/pf-propose" --run "$R" --generation 1 --slot 0 --quiet
check "pf-propose: names select.msgpack" grep -q "'$R/gen00/select.msgpack': corrupt msgpack: the map at offset 8" "$tmp/err"
expect_rc 1 "pf-posterior: corrupt select.msgpack" "$BIN/pf-posterior" --run "$R" --generation 0 --quiet
check "pf-posterior: names select.msgpack" grep -q "'$R/gen00/select.msgpack': corrupt msgpack" "$tmp/err"
expect_rc 1 "pf-final: corrupt select.msgpack" "$BIN/pf-final" --run "$R" --last-generation 0
check "pf-final: names select.msgpack" grep -q "$R/gen00/select.msgpack" "$tmp/err"
expect_rc 1 "pf-select: corrupt proposal" "$BIN/pf-select" --run "$R" --generation 0 --quiet
check "pf-select: names the proposal" grep -q "'$R/gen00/cand0.proposal.msgpack': corrupt msgpack: the string at offset 8" "$tmp/err"
expect_rc 2 "pf-train: corrupt proposal" "$BIN/pf-train" "$R/gen00/cand0.proposal.msgpack" --seed 0 --out "$tmp/t"
check "pf-train: names the proposal" grep -q "$R/gen00/cand0.proposal.msgpack': corrupt msgpack" "$tmp/err"
expect_rc 0 "pf-inspect: empty strings and keys" "$BIN/pf-inspect" "$R/empty.msgpack"
eq "pf-inspect: [[\"\"], {\"\": \"\"}]" "$(tr -d ' \n' <"$tmp/out")" '[[""],{"":""}]'

# ------------------------------------------------------------ missing files, bad options
expect_rc 1 "pf-inspect: missing file" "$BIN/pf-inspect" "$tmp/none"
expect_rc 2 "pf-inspect: no file" "$BIN/pf-inspect"
expect_rc 1 "pf-plot: missing run" "$BIN/pf-plot" --run "$tmp/none" --out "$tmp/plots"
expect_rc 1 "pf-propose: missing run" "$BIN/pf-propose" --run "$tmp/none" --generation 0 --slot 0
expect_rc 1 "pf-posterior: missing run" "$BIN/pf-posterior" --run "$tmp/none" --generation 0
expect_rc 1 "pf-select: missing run" "$BIN/pf-select" --run "$tmp/none" --generation 0
expect_rc 1 "pf-final: missing run" "$BIN/pf-final" --run "$tmp/none" --last-generation 0
expect_rc 1 "pf-final --status: missing run" "$BIN/pf-final" --run "$tmp/none" --status
expect_rc 2 "pf-train: missing spec" "$BIN/pf-train" "$tmp/none.json" --pde burgers_1d --seed 0 --out "$tmp/t"
expect_rc 2 "pf-train: missing proposal" "$BIN/pf-train" "$tmp/none.proposal.msgpack" --seed 0 --out "$tmp/t"
printf '{"architecture": ' >"$tmp/cut.json"
expect_rc 2 "pf-train: cut JSON" "$BIN/pf-train" "$tmp/cut.json" --pde burgers_1d --seed 0 --out "$tmp/t"
expect_rc 2 "pf-train: unknown device" "$BIN/pf-train" "$spec" --pde poisson_2d_classic --budget quick --seed 0 \
    --device tpu --out "$tmp/t"
check "pf-train: unknown device: says so" grep -q "unknown device 'tpu'" "$tmp/err"
expect_rc 1 "pf-spec check: missing spec" "$BIN/pf-spec" check "$tmp/none.json" --pde burgers_1d --fidelity low
expect_rc 1 "pf-spec check: cut JSON" "$BIN/pf-spec" check "$tmp/cut.json" --pde burgers_1d --fidelity low
expect_rc 2 "pf-spec: unknown PDE" "$BIN/pf-spec" describe --pde nowhere
expect_rc 1 "pf-knowledge: missing knowledge folder" "$BIN/pf-knowledge" --pde burgers_1d --kb "$tmp/none"
expect_rc 2 "pf-knowledge: unknown PDE" "$BIN/pf-knowledge" --pde nowhere
expect_rc 2 "pf-pde: unknown PDE" "$BIN/pf-pde" show nowhere
expect_rc 2 "pf-pde sample: unknown method" "$BIN/pf-pde" sample burgers_1d --n 8 --method nowhere --out "$tmp/s.h5"
expect_rc 1 "pf-pde sample: unwritable output" "$BIN/pf-pde" sample burgers_1d --n 8 --out "$tmp/none/s.h5"
expect_rc 1 "pf-stats: missing table" "$BIN/pf-stats" --from-table "$tmp/none.csv"
printf 'pde,method,mean,std\nburgers_1d,pinnforge,x,1\n' >"$tmp/bad.csv"
expect_rc 1 "pf-stats: bad table" "$BIN/pf-stats" --from-table "$tmp/bad.csv"
expect_rc 1 "pf-stats: runs with corrupt files" "$BIN/pf-stats" --runs "$tmp/runs" --out "$tmp/reports" --quiet
check "pf-stats: names the corrupt file" grep -q "corrupt msgpack" "$tmp/err"
expect_rc 2 "pf-stats: unknown option" "$BIN/pf-stats" --frobnicate
mkdir -p "$tmp/noruns/burgers_1d/pinnforge/notarun"
expect_rc 0 "pf-stats: a runs tree without runs" "$BIN/pf-stats" --runs "$tmp/noruns" --out "$tmp/reports" --quiet

# ------------------------------------------------------------ what is not a plain file, or too big (issue 33)
# Every reader takes regular files only, each within its kind's limit
# (src/core/file.h): /dev/zero used to grow pf-spec to gigabytes, a FIFO
# given as a spec, a .pde or a table used to block forever (each run under
# timeout here: 124 would be a hang).
mkfifo "$tmp/fifo.json" "$tmp/fifo.pde" "$tmp/fifo.csv"
expect_rc 1 "pf-spec check /dev/zero" timeout 20 "$BIN/pf-spec" check /dev/zero --pde burgers_1d --fidelity low
check "/dev/zero: a device, not a regular file" grep -q "cannot read '/dev/zero': a character device, not a regular file" "$tmp/err"
expect_rc 1 "pf-spec check FIFO" timeout 20 "$BIN/pf-spec" check "$tmp/fifo.json" --pde burgers_1d --fidelity low
check "FIFO spec: says so" grep -q "fifo.json': a FIFO, not a regular file" "$tmp/err"
expect_rc 2 "pf-train FIFO spec" timeout 20 "$BIN/pf-train" "$tmp/fifo.json" --pde burgers_1d --seed 0 --out "$tmp/t"
expect_rc 2 "pf-spec --pde FIFO.pde" timeout 20 "$BIN/pf-spec" describe --pde "$tmp/fifo.pde"
check "FIFO .pde: says so" grep -q "fifo.pde': a FIFO, not a regular file" "$tmp/err"
printf '%s\n' 'pde fifo_ref' 'statement "s"' 'inputs x' 'outputs u' 'domain interval(0, 1)' \
    'equation u_xx = -pi^2*sin(pi*x)' 'reference "fifo.csv"' >"$tmp/ref.pde"
expect_rc 2 "a .pde whose reference table is a FIFO" timeout 20 "$BIN/pf-spec" describe --pde "$tmp/ref.pde"
check "FIFO table: says so" grep -q "fifo.csv': a FIFO, not a regular file" "$tmp/err"
expect_rc 1 "pf-stats --from-table FIFO" timeout 20 "$BIN/pf-stats" --from-table "$tmp/fifo.csv"
head -c 1048577 /dev/zero | tr '\0' ' ' >"$tmp/big.json"
expect_rc 1 "pf-spec check: a spec over 1 MiB" "$BIN/pf-spec" check "$tmp/big.json" --pde burgers_1d --fidelity low
check "big spec: names the limit" grep -q "1048577 bytes, more than the 1 MiB a spec may have" "$tmp/err"
expect_rc 1 "pf-spec check - with endless input" sh -c "timeout 20 cat /dev/zero | '$BIN/pf-spec' check - --pde burgers_1d --fidelity low"
check "endless input: stops at the limit" grep -q "cannot read '-': more than the 1 MiB a spec may have" "$tmp/err"

# ------------------------------------------------------------ temp files never follow a planted link (issue 33)
# The writer's temp file used to be "<out>.tmp.<pid>", opened with O_CREAT |
# O_TRUNC: a link planted under the pid the writer would have (the shell
# execs it, so the pid is the shell's) made pf-knowledge overwrite its target.
echo "keep me" >"$tmp/target"
expect_rc 0 "pf-knowledge beside a planted link" sh -c 'ln -s "$1" "$0.tmp.$$" && exec "$2" --pde burgers_1d --out "$0"' \
    "$tmp/k.msgpack" "$tmp/target" "$BIN/pf-knowledge"
eq "the link's target is untouched" "$(cat "$tmp/target")" "keep me"
check "the knowledge is written" "$BIN/pf-inspect" "$tmp/k.msgpack"

# ------------------------------------------------------------ settings that are not the run's (issue 33)
C=$tmp/runs/burgers_1d/pinnforge/run1
mkdir -p "$C"
echo '{"pde": "poisson_5d", "method": "pinnforge", "run": 1, "budget": "smoke", "llm": "offline"}' >"$C/context.json"
expect_rc 1 "a context.json of another PDE" "$BIN/pf-propose" --run "$C" --generation 0 --slot 0 --quiet
check "another PDE: says whose" grep -q "context.json' is the settings of another run: its \"pde\" is poisson_5d" "$tmp/err"
check "another PDE: nothing written" test ! -e "$C/gen00"
echo '{"pde": "burgers_1d", "method": "pinnforge", "run": 1, "budget": "smoke", "llm": "offline", "run": 2}' >"$C/context.json"
expect_rc 1 "a context.json with a key twice" "$BIN/pf-propose" --run "$C" --generation 0 --slot 0 --quiet
check "a key twice: says so" grep -q "duplicate object key" "$tmp/err"
printf '{"architecture": {"depth": 2, "width": 8, "depth": 6}}' >"$tmp/dup.json"
expect_rc 1 "a spec with a key twice" "$BIN/pf-spec" check "$tmp/dup.json" --pde burgers_1d --fidelity low
check "a spec with a key twice: says so" grep -q "duplicate object key" "$tmp/out"
printf 'pde,method,mean,std\nburgers_1d,pinnforge,1e-3,-2e-4\nburgers_1d,vanilla,2e-3,1e-4\n' >"$tmp/neg.csv"
expect_rc 1 "pf-stats: a negative std" "$BIN/pf-stats" --from-table "$tmp/neg.csv"
check "a negative std: names the line" grep -q "neg.csv:2: std '-2e-4' is not a standard deviation" "$tmp/err"

# ------------------------------------------------------------ PINNsAgent's labels by their SHA-256 (issue 33)
if has_pa_data pde_labels.tsv && has_pa_data dataset_for_retrieval.csv; then
    pa=${PF_PINNSAGENT_DIR:-data/ref/pinnsagent}
    mkdir -p "$tmp/pa"
    cp "$pa/dataset_for_retrieval.csv" "$tmp/pa/"
    sed 's/^Heat2D_VaryingCoef\t/,eat2D_VaryingCoef\t/' "$pa/pde_labels.tsv" >"$tmp/pa/pde_labels.tsv"
    expect_rc 1 "a damaged pde_labels.tsv" env PF_PINNSAGENT_DIR="$tmp/pa" "$BIN/pf-pinnsagent-db" --pde burgers_1d
    check "damaged labels: not the release" grep -q "pde_labels.tsv' is not PINNsAgent's released pde_labels.tsv" "$tmp/err"
    expect_rc 0 "the released labels" "$BIN/pf-pinnsagent-db" --pde burgers_1d
else
    data_missing "PINNsAgent's pde_labels.tsv or dataset_for_retrieval.csv (PF_PINNSAGENT_DIR): the labels' checksum"
fi

# ------------------------------------------------------------ a reference file with bytes 0xff 0xfe
# poisson_2d_classic reads poisson1_cg_data.dat; line 13 gets the bytes,
# so the file no longer matches data/pinnacle.sha256 and nothing is trained.
ref=${PF_DATA_DIR:-data/ref}/poisson1_cg_data.dat
if has_data poisson1_cg_data.dat; then
    mkdir -p "$tmp/data"
    python3 - "$ref" "$tmp/data/poisson1_cg_data.dat" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
lines[12] = b"-0.5 \xff\xfe0.4 1"
open(sys.argv[2], "wb").write(b"\n".join(lines))
PY
    expect_rc 1 "pf-train: a reference line with 0xff 0xfe" env PF_DATA_DIR="$tmp/data" "$BIN/pf-train" "$spec" \
        --pde poisson_2d_classic --budget quick --seed 1 --threads 1 --out "$tmp/ref" --quiet
    check "bad reference: names the file and its checksum" \
        grep -q "poisson1_cg_data.dat' in '$tmp/data' does not match its SHA-256" "$tmp/err"
    check "bad reference: no evidence written" test ! -e "$tmp/ref/evidence.msgpack"
else
    data_missing "poisson1_cg_data.dat not in ${PF_DATA_DIR:-data/ref} (PF_DATA_DIR)"
fi
finish
