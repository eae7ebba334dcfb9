#!/bin/sh
# Chaos (issue 22): a run killed anywhere resumes to the identical result.
#
# A smoke search of darcy_flow_2d (offline proposer, TRAIN_THREADS=1) is made
# once uninterrupted (the reference), then again while CHAOS_KILLS seeded
# SIGKILLs (default 5, one per phase below but propose and the
# high-fidelity proposals; the full form is CHAOS_KILLS=12, all seven; seed CHAOS_SEED, default
# 22) hit make's whole process group: during low-fidelity training, pf-propose,
# pf-select, pf-posterior, the high-fidelity proposals and trainings, and
# pf-final. The kills come from shims of the stages (make B=SHIM: each shim
# execs the real stage, except the planned invocation, which it starts and
# then, after a seeded delay, kills the group it runs in). After every kill
# each artifact present opens (pf-inspect checks msgpack and the HDF5
# checksums, python the JSON); make is rerun until it completes, and then
# every candidate's MSE and the final MSE equal the reference's bit for bit,
# the run holds exactly the reference's files (no temp, partial or launch
# file left).
# Then LLM=http against tests/llm_loopback_server.py, which answers each
# request with the reference run's recorded answer: make is killed right
# after a completed call, the server is killed and restarted mid-run, and a
# proposal is deleted after the end; the run completes, equals the reference,
# stores exactly its transcripts, and no call whose transcript was stored is
# sent twice. Last, a read-only and a full run folder (tmpfs mounts; root
# only, skipped otherwise): make fails with one error naming the file, leaves
# no temp file, and once the folder is writable or larger, make completes
# with the reference's MSE. Float build only, as t0705 (the pipeline is
# precision-blind; the double build gives the same reference MSE).
# make test: about 140 s
. "$(dirname "$0")/lib.sh"
float_only
PDE=darcy_flow_2d
KILLS=${CHAOS_KILLS:-5}
SEED=${CHAOS_SEED:-22}
field() { "$BIN/pf-inspect" "$1" | sed -n "s/^  \"$2\": \\(.*\\),\$/\\1/p"; }
runf() { echo "$1/$PDE/pinnforge/run0"; }
mounts=
cleanup() {
    for m in $mounts; do umount "$m" 2>/dev/null; done
    [ -f "$tmp/server.pid" ] && kill "$(cat "$tmp/server.pid")" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
# make into RUNS_ROOT $1 in its own process group (pgid in $tmp/pgid), waited
# for: `search R [VAR=...]` makes the whole run, `upto R [VAR=...] FILE` only FILE
upto() {
    r=$1; shift
    setsid -w sh -c 'echo $$ >"$0"; exec "$@"' "$tmp/pgid" \
        make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=$PDE RUN=0 PROFILE=smoke TRAIN_THREADS=1 \
        RUNS_ROOT="$r" -j2 "$@"
}
search() { upto "$@" search; }
# artifacts R: how many of R's msgpack, HDF5 and JSON files do not open
artifacts() {
    n=0
    for f in $(find "$1" -name '*.msgpack' -o -name '*.h5'); do
        "$BIN/pf-inspect" "$f" >/dev/null 2>&1 || { n=$((n + 1)); echo "does not open: $f" >&2; }
    done
    for f in $(find "$1" -name '*.json'); do
        python3 -m json.tool "$f" >/dev/null 2>&1 || { n=$((n + 1)); echo "does not open: $f" >&2; }
    done
    echo "$n"
}
files() { (cd "$1" && find . -type f | sort); }
ys() { for f in $(cd "$1" && find . -name evidence.msgpack | sort); do echo "$f $(field "$1/$f" y)"; done; }

REF=$(runf "$tmp/ref")
search "$tmp/ref" LLM=offline >"$tmp/out" 2>"$tmp/err"
eq "reference run" "$?" 0
hf=$(field "$REF/final.msgpack" hf_mse)
check "reference MSE" test -n "$hf"
echo "$TEST_NAME: reference final MSE $hf"
files "$REF" >"$tmp/ref.files"
ys "$REF" >"$tmp/ref.ys"

# ---- SIGKILLs of make's process group during the stages
S=$tmp/shim C=$tmp/chaos
mkdir -p "$S" "$C"
for s in $(cd "$BIN" && ls pf-*); do # every program a rule may run: the stages shimmed, the rest passed on
    cat >"$S/$s" <<'EOF'
#!/bin/sh
real=$CHAOS_REAL/$(basename "$0")
case $(basename "$0") in
pf-train) case " $* " in *" --generation hifi "*) phase=hf ;; *) phase=train ;; esac ;;
pf-final) case " $* " in *--hifi-proposal*) phase=hifi-proposal ;; *) phase=final ;; esac ;;
pf-propose) phase=propose ;; pf-select) phase=select ;; pf-posterior) phase=posterior ;;
*) exec "$real" "$@" ;;
esac
[ -f "$CHAOS_DIR/target" ] && read -r want n delay <"$CHAOS_DIR/target" && [ "$phase" = "$want" ] || exec "$real" "$@"
k=$(flock "$CHAOS_DIR/lock" sh -c 'k=$(($(cat "$0" 2>/dev/null || echo 0) + 1)); echo $k >"$0"; echo $k' "$CHAOS_DIR/count")
[ "$k" -eq "$n" ] || exec "$real" "$@"
"$real" "$@" &
pid=$!
sleep "$delay"
state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
[ -n "$state" ] && [ "$state" != Z ] && state=running || state=exited
echo "$phase #$n +${delay}s ($state): $(basename "$0") $(echo "$*" | sed 's/.*\(--generation [0-9a-z]* --slot [0-9]*\).*/\1/; s/.*\(--hifi-proposal [0-9]\).*/\1/; s/.*--out [^ ]*\/\([^ ]*\/[^ ]*\) .*/\1/; s/.* --run [^ ]*//')" >"$CHAOS_DIR/killed"
kill -KILL -- "-$(awk '{print $5}' /proc/$$/stat)"
EOF
    chmod +x "$S/$s"
done
python3 - "$SEED" "$KILLS" >"$C/plan" <<'EOF'
import random, sys
rng = random.Random(int(sys.argv[1]))
order = ["train", "select", "posterior", "hf", "final", "train", "propose", "select", "posterior",
         "hifi-proposal", "hf", "propose"]
plan = [order[i % len(order)] for i in range(int(sys.argv[2]))]
mid = [p for p in plan if p in ("train", "propose", "select", "posterior")]
rng.shuffle(mid)
late = [p for p in ("hifi-proposal", "hf", "final") for _ in range(plan.count(p))]
first_hf = True
for p in mid + late:
    if p == "train":
        n, d = rng.randint(1, 5), rng.uniform(0.02, 0.3)
    elif p == "hf":
        n, d = (rng.randint(1, 2) if first_hf else 1), rng.uniform(0.05, 0.8)
        first_hf = False
    elif p == "final":  # pf-final writes final.msgpack a few ms after it starts
        n, d = 1, rng.uniform(0, 0.004)
    else:
        n, d = 1, rng.uniform(0, 0.015)
    print(p, n, "%.3f" % d)
EOF
X=$(runf "$C/runs")
kills=0 i=0 chaos_started=$(date +%s)
while read -r phase n delay; do
    i=$((i + 1))
    echo "$phase $n $delay" >"$C/target"
    rm -f "$C/count" "$C/killed"
    CHAOS_DIR=$C CHAOS_REAL=$BIN search "$C/runs" LLM=offline B="$S" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ -f "$C/killed" ]; then
        kills=$((kills + 1))
        left=$(find "$X" -name '*.tmp*' -o -name launch.txt | wc -l)
        echo "$TEST_NAME: kill $i: $(cat "$C/killed"); left $left temp/launch file(s)"
        eq "after kill $i ($phase): every artifact present opens" "$(artifacts "$X")" 0
    else
        not_ok "kill $i ($phase #$n) not reached (make exit $rc)"
    fi
done <"$C/plan"
rm -f "$C/target"
CHAOS_DIR=$C CHAOS_REAL=$BIN search "$C/runs" LLM=offline B="$S" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || sed 's/^/  make: /' "$tmp/err" | tail -n 20 >&2
eq "make completes after $kills kills" "$rc" 0
echo "$TEST_NAME: $kills kills, the chaos run took $(($(date +%s) - chaos_started)) s"
check "at least one kill per planned phase" test "$kills" -eq "$(wc -l <"$C/plan")"
eq "after the kills: the reference's final MSE, bit for bit" "$(field "$X/final.msgpack" hf_mse)" "$hf"
ys "$X" >"$tmp/x.ys"
check "after the kills: every candidate's MSE is the reference's" cmp -s "$tmp/x.ys" "$tmp/ref.ys"
files "$X" >"$tmp/x.files"
cmp -s "$tmp/x.files" "$tmp/ref.files" || diff "$tmp/ref.files" "$tmp/x.files" | sed -n 's/^[<>]/  &/p' >&2
check "after the kills: exactly the reference's files (no temp, partial or launch file)" cmp -s "$tmp/x.files" "$tmp/ref.files"
eq "after the kills: every artifact opens" "$(artifacts "$X")" 0

# ---- LLM=http against a loopback server that dies and comes back
python3 "$PF_TESTS/llm_loopback_server.py" --answers "$BIN/pf-inspect" "$REF/llm" >"$tmp/answers.json"
H=$(runf "$tmp/http")
ntr=$(ls "$REF/llm" | wc -l)
kill_after=$(python3 -c "import random; r = random.Random($SEED); print(r.randint(8, 24), '%.3f' % r.uniform(0, 0.02), r.randint(8, 20))")
set -- $kill_after
serve() { # serve [--port P] [...]: the loopback server in the background
    python3 "$PF_TESTS/llm_loopback_server.py" "$tmp/answers.json" "$tmp/port" "$tmp/llm.log" "$@" &
    echo $! >"$tmp/server.pid"
    for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
}
serve --kill-after "$1" --kill-delay "$2" --pgid-file "$tmp/pgid"
port=$(cat "$tmp/port")
check "the loopback server listens" test -n "$port"
PF_LLM_URL=http://127.0.0.1:$port/v1
PF_LLM_MODEL=offline-rules
export PF_LLM_URL PF_LLM_MODEL
search "$tmp/http" LLM=http >"$tmp/out" 2>"$tmp/err"
check "http: make killed after call $1 (+$2 s)" test "$(wc -l <"$tmp/llm.log")" -ge "$1" -a ! -f "$H/final.msgpack"
ls "$H/llm" >"$tmp/stored-at-kill"
answered_at_kill=$(wc -l <"$tmp/llm.log")
echo "$TEST_NAME: http: make killed $2 s after call $1; $(wc -l <"$tmp/stored-at-kill") transcripts stored"
kill "$(cat "$tmp/server.pid")"
wait "$(cat "$tmp/server.pid")" 2>/dev/null
serve --port "$port"
# the resumed run; the server is killed $3 calls later and back 1.5 s after
search "$tmp/http" LLM=http >"$tmp/out" 2>"$tmp/err" &
mk=$!
for _ in $(seq 1 600); do
    [ "$(wc -l <"$tmp/llm.log")" -ge $((answered_at_kill + $3)) ] && break
    sleep 0.05
done
kill -KILL "$(cat "$tmp/server.pid")"
down_at=$(wc -l <"$tmp/llm.log")
sleep 1.5
serve --port "$port"
wait "$mk"
eq "http: the resumed run completes through the server's outage" "$?" 0
echo "$TEST_NAME: http: server killed after call $down_at, back 1.5 s later; $(grep -c 'retrying' "$tmp/err") retries"
check "http: the outage was during the run (calls after it)" test "$(wc -l <"$tmp/llm.log")" -gt "$down_at"
check "http: the client retried through the outage" grep -q "attempt 1 of .* failed" "$tmp/err"
eq "http: the reference's final MSE" "$(field "$H/final.msgpack" hf_mse)" "$hf"
ls "$H/llm" >"$tmp/http.llm"
ls "$REF/llm" | diff - "$tmp/http.llm" | sed -n 's/^[<>]/  &/p' >&2
check "http: exactly the reference's transcripts (nothing lost, nothing extra)" sh -c "ls '$REF/llm' | cmp -s - '$tmp/http.llm'"
eq "http: no unknown request" "$(grep -c '^unknown' "$tmp/llm.log")" 0
# a call answered before the kill whose transcript was stored is never sent again
twice=$(python3 - "$tmp/answers.json" "$tmp/llm.log" "$tmp/stored-at-kill" "$answered_at_kill" <<'EOF'
import collections, json, sys
file_of = {a["key"]: a["file"] for a in json.load(open(sys.argv[1]))}
log = [l.split()[0] for l in open(sys.argv[2]) if not l.startswith("unknown")]
stored = set(open(sys.argv[3]).read().split())
lost = {k for k in log[:int(sys.argv[4])] if file_of[k] not in stored}
n = collections.Counter(log)
print(sum(1 for k, c in n.items() if c > (2 if k in lost else 1)))
EOF
)
eq "http: no stored call is sent twice" "$twice" 0
# the state a kill between a stored call and its proposal leaves: the rerun asks nothing
before=$(wc -l <"$tmp/llm.log")
cp "$H/gen09/cand2.proposal.msgpack" "$tmp/proposal.msgpack"
rm "$H/gen09/cand2.proposal.msgpack"
search "$tmp/http" LLM=http >"$tmp/out" 2>"$tmp/err"
eq "http: the proposal remade" "$?" 0
eq "http: remade from the stored transcript, no new call" "$(wc -l <"$tmp/llm.log")" "$before"
check "http: the same proposal" cmp -s "$H/gen09/cand2.proposal.msgpack" "$tmp/proposal.msgpack"
eq "http: still the reference's final MSE" "$(field "$H/final.msgpack" hf_mse)" "$hf"
kill "$(cat "$tmp/server.pid")"
rm -f "$tmp/server.pid"
unset PF_LLM_URL PF_LLM_MODEL

# ---- a read-only and a full run folder
if ! mkdir -p "$tmp/ro" || ! mount -t tmpfs -o size=64m tmpfs "$tmp/ro" 2>/dev/null; then
    echo "$TEST_NAME: read-only and full run folders skipped: cannot mount a tmpfs here (needs root)"
    finish
    exit
fi
mounts="$tmp/ro"
RO=$(runf "$tmp/ro")
upto "$tmp/ro" LLM=offline "$RO/gen01/memory.msgpack" >"$tmp/out" 2>"$tmp/err"
eq "read-only: the first generations" "$?" 0
check "read-only: only the first generations" test ! -e "$RO/gen02"
mount -o remount,ro "$tmp/ro"
search "$tmp/ro" LLM=offline >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -ne 0 ] || sed 's/^/  make: /' "$tmp/err" | tail -n 20 >&2
check "read-only: make fails" test "$rc" -ne 0
check "read-only: an error naming a file of the run folder" grep -q "$RO/[^ ']*'\{0,1\}: Read-only file system" "$tmp/err"
sed -n "1,/Read-only file system/p" "$tmp/err" | grep "Read-only" | head -n 1 | sed "s|$tmp|TMP|g; s/^/$TEST_NAME: read-only: /"
eq "read-only: every error is that one (no other failure)" "$(grep -i 'error\|cannot\|fail' "$tmp/err" | grep -v 'Read-only file system\|\*\*\*' | wc -l)" 0
mount -o remount,rw "$tmp/ro"
search "$tmp/ro" LLM=offline >"$tmp/out" 2>"$tmp/err"
eq "read-only, then writable: make completes" "$?" 0
eq "read-only, then writable: the reference's final MSE" "$(field "$RO/final.msgpack" hf_mse)" "$hf"

mkdir -p "$tmp/full"
mount -t tmpfs -o size=3m tmpfs "$tmp/full"
mounts="$tmp/full $mounts"
FU=$(runf "$tmp/full")
search "$tmp/full" LLM=offline >"$tmp/out" 2>"$tmp/err"
check "full: make fails" test "$?" -ne 0
check "full: an error naming a file of the run folder" grep -q "'$FU/[^']*'.*No space left on device" "$tmp/err"
sed -n "1,/No space left/p" "$tmp/err" | grep "No space left" | head -n 1 | sed "s|$tmp|TMP|g; s/^/$TEST_NAME: full: /"
eq "full: every error is such a one (no other failure)" "$(grep -i 'error\|cannot\|fail' "$tmp/err" | grep -v 'No space left on device\|\*\*\*' | wc -l)" 0
eq "full: no temp file left" "$(find "$FU" -name '*.tmp*' | wc -l)" 0
eq "full: every artifact present opens" "$(artifacts "$FU")" 0
mount -o remount,size=64m "$tmp/full"
search "$tmp/full" LLM=offline >"$tmp/out" 2>"$tmp/err"
eq "full, then enlarged: make completes" "$?" 0
eq "full, then enlarged: the reference's final MSE" "$(field "$FU/final.msgpack" hf_mse)" "$hf"
files "$FU" >"$tmp/fu.files"
cmp -s "$tmp/fu.files" "$tmp/ref.files" || diff "$tmp/ref.files" "$tmp/fu.files" | sed -n 's/^[<>]/  &/p' >&2
check "full, then enlarged: exactly the reference's files" cmp -s "$tmp/fu.files" "$tmp/ref.files"
finish
