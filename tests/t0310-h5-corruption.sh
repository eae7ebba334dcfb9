#!/bin/sh
# t0310-h5-corruption.sh — one changed byte in a real result.h5 (issue 24).
#
#   tests/t0310-h5-corruption.sh BUILD/bin float|double     (make test runs it)
#
# HDF5 trusts a file's metadata, and one byte changed in it could crash
# pf-inspect (and h5dump) inside libhdf5. Our files carry a checksum header
# in a 512-byte user block (src/io/h5.h, "checksum"), checked before HDF5
# reads the file. Here a small result.h5 is trained for real (wave_1d, tiny
# network, 1,000 steps), its header checked (h5dump still reads the file,
# the digest is sha256sum's), then one byte at a time is changed (XOR 0xFB:
# 0x00 becomes 0xFB, as in the issue) at 500 positions: a fifth in the
# header, half in the first 8 KiB after it (superblock and object headers),
# the rest spread over the whole file; or at every byte of a smaller file.
# pf-inspect must exit 1 with a message naming the file, never by a signal.
# Prints the positions tried and the signals seen.
#
# A checksum catches damage, not intent: the second sweep changes one byte
# at 500 positions of HDF5's part and recomputes the digest, so the file
# passes the check and HDF5 reads it (in a child process of pf-inspect;
# io/h5.h, "isolation"). pf-inspect must exit 0 (the change left a well
# formed file: a value in a dataset, padding, ...) or 1 with a message
# naming the file, never by a signal (nor a hang: HDF5's child process is
# stopped after 2 s of CPU, PF_H5_CPU_S). Last, a file written by h5py (no
# header of ours, variable-length strings in its global heap), intact and
# with one byte changed at 150 positions: the same rule. Each sweep prints
# its positions, exit codes, signals and seconds. Float build only: what
# is tested, the checksum before HDF5 opens a file and HDF5's own reading
# of a damaged one in a child process, is the same code in both builds
# (the double build's file differs in its datasets' type, not in how a
# damaged header or object header is met); the double pass took 19 s.
. "$(dirname "$0")/lib.sh"
float_only

spec=$tmp/spec.json
cat >"$spec" <<'JSON'
{"representation": {}, "architecture": {"depth": 2, "width": 8},
 "sampling": {"interior": 64, "boundary": 32, "method": "sobol"},
 "constraints": {}, "loss": {},
 "optimization": {"stages": [{"optimizer": "adam", "steps": 1000, "lr": 0.003}]},
 "training": {"log_every": 100, "eval_every": 500}}
JSON
expect_rc 0 "train a small result.h5" "$BIN/pf-train" "$spec" --pde wave_1d --seed 1 --out "$tmp/a" \
    --threads 1 --quiet
f=$tmp/a/result.h5
[ -s "$f" ] || { not_ok "no result.h5 to damage"; finish; exit 1; }

# ------------------------------------------------------------ the header
eq "header: magic, version, algorithm" "$(head -c 22 "$f")" "PINNFORGE-H5 1 sha256 "
eq "header: the digest is the SHA-256 of bytes 512.." "$(head -c 86 "$f" | tail -c 64)" \
    "$(tail -c +513 "$f" | sha256sum | cut -c 1-64)"
eq "header: zeros after the line" "$(head -c 512 "$f" | tail -c +88 | tr -d '\000' | wc -c)" 0
check "h5dump reads it (HDF5 skips the user block)" h5dump -H "$f"
expect_rc 0 "pf-inspect reads it" "$BIN/pf-inspect" "$f"
check "pf-inspect: the datasets" grep -q '^/predictions/u  dataset' "$tmp/out"

# ------------------------------------------------------------ one byte at a time
size=$(wc -c <"$f")
positions() { # 500 distinct ones (topped up from the start where the sets overlap)
    if [ "$size" -le 500 ]; then
        seq 0 $((size - 1))
        return
    fi
    { candidates; seq 0 $((size - 1)); } | awk '!seen[$1]++' | head -n 500
}
candidates() {
    seq 0 5 499                                   # 100 in the header
    hi=$((512 + 8192)); [ "$hi" -gt "$size" ] && hi=$size
    step=$(((hi - 512) / 250)); [ "$step" -ge 1 ] || step=1
    seq 512 "$step" $((hi - 1)) | head -n 250     # 250 near the start of HDF5's part
    i=0
    while [ $i -lt 150 ]; do                      # 150 over the whole file
        echo $((i * (size - 1) / 149))
        i=$((i + 1))
    done
}
setbyte() { # setbyte FILE POS VALUE
    printf "\\$(printf %03o "$3")" | dd of="$1" bs=1 seek="$2" count=1 conv=notrunc 2>/dev/null
}
bad=$tmp/bad.h5
cp "$f" "$bad"
tried=0 signals=0 other=0 silent=0 unnamed=0
start=$(date +%s)
# "POSITION BYTE" lines, the bytes read in one pass
positions >"$tmp/pos"
od -An -tu1 -v -w1 "$f" | awk 'NR == FNR { want[$1 + 1] = 1; next } FNR in want { print FNR - 1, $1 }' \
    "$tmp/pos" - >"$tmp/todo"
while read -r p orig; do
    setbyte "$bad" "$p" $((orig ^ 251))
    "$BIN/pf-inspect" "$bad" >/dev/null 2>"$tmp/err"
    rc=$?
    setbyte "$bad" "$p" "$orig"
    tried=$((tried + 1))
    if [ $rc -ge 128 ]; then
        signals=$((signals + 1))
        echo "t0310: byte $p: pf-inspect died by signal $((rc - 128))" >&2
    elif [ $rc -ne 1 ]; then
        other=$((other + 1))
        echo "t0310: byte $p: pf-inspect exit $rc" >&2
    fi
    msg=
    read -r msg <"$tmp/err"
    [ -n "$msg" ] || silent=$((silent + 1))
    case $msg in *"$bad"*) ;; *) unnamed=$((unnamed + 1)) ;; esac
done <"$tmp/todo"
echo "t0310: $size-byte result.h5: $tried positions tried, $signals signals, $other other exit codes, $(($(date +%s) - start)) s"
check "the file is restored after the last flip" cmp -s "$f" "$bad"
check "500 positions tried (or every byte)" test "$tried" -eq 500 -o "$tried" -eq "$size"
eq "no signal (exit code >= 128)" "$signals" 0
eq "every damaged file: exit 1" "$other" 0
eq "every damaged file: a message on stderr" "$silent" 0
eq "every message names the file" "$unnamed" 0

# ------------------------------------------------------------ sweeps of files HDF5 reads
# sweep NAME LIST: pf-inspect on each file named in the file LIST, two at a
# time; exit 0 or 1, never a signal, and on exit 1 a message naming the
# file. Counts and prints. HDF5 1.10 loops on some damaged files: its child
# process is stopped after 2 s of CPU here (30 by default).
PF_H5_CPU_S=2
export PF_H5_CPU_S
sweep() {
    name=$1
    start=$(date +%s)
    xargs -P 2 -n 1 sh -c '"$0" "$1" >/dev/null 2>"$1.err"; echo "$? $1"' "$BIN/pf-inspect" <"$2" >"$tmp/rc"
    n=0 ok0=0 ok1=0 signals=0 other=0 silent=0 unnamed=0
    while read -r rc b; do
        n=$((n + 1))
        case $rc in
        0) ok0=$((ok0 + 1)) ;;
        1)
            ok1=$((ok1 + 1))
            msg=
            read -r msg <"$b.err"
            [ -n "$msg" ] || silent=$((silent + 1))
            case $msg in *"$b"*) ;; *) unnamed=$((unnamed + 1)) ;; esac
            ;;
        *)
            if [ "$rc" -ge 128 ]; then
                signals=$((signals + 1))
                echo "t0310: $name: $b: pf-inspect died by signal $((rc - 128))" >&2
            else
                other=$((other + 1))
                echo "t0310: $name: $b: pf-inspect exit $rc" >&2
            fi
            ;;
        esac
    done <"$tmp/rc"
    echo "t0310: $name: $n positions tried, exit 0 (still well formed) $ok0, exit 1 $ok1, $signals signals, $other other exit codes, $(($(date +%s) - start)) s"
    eq "$name: no signal (exit code >= 128)" "$signals" 0
    eq "$name: exit 0 or 1" "$other" 0
    eq "$name: every exit 1 has a message on stderr" "$silent" 0
    eq "$name: every message names the file" "$unnamed" 0
}

# damage IN OUTDIR OURS POS...: OUTDIR/POS.h5 = IN with byte POS XOR 0xFB and,
# when OURS is 1, the header's digest recomputed (src/io/h5.h, "checksum")
damage() {
    python3 - "$@" <<'PY'
import hashlib, sys
src, out, ours = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
data = open(src, "rb").read()
for p in map(int, sys.argv[4:]):
    b = bytearray(data)
    b[p] ^= 0xFB
    if ours:
        head = b"PINNFORGE-H5 1 sha256 " + hashlib.sha256(bytes(b[512:])).hexdigest().encode() + b"\n"
        b[0:512] = head + bytes(512 - len(head))
    open("%s/%d.h5" % (out, p), "wb").write(b)
PY
}
# spread N LO HI: N distinct positions in LO..HI-1, evenly spaced
spread() { awk -v n="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (hi - lo < n) n = hi - lo; for (i = 0; i < n; i++) print lo + int(i * (hi - lo) / n) }'; }

if ! command -v python3 >/dev/null 2>&1; then
    echo "t0310: the sweeps with a recomputed checksum and of an h5py file are skipped: no python3"
    finish
    exit
fi
# a byte changed and the checksum recomputed: 350 in the first 8 KiB of
# HDF5's part (superblock, object headers, heaps, B-trees), 150 after it
hi=$((512 + 8192)); [ "$hi" -gt "$size" ] && hi=$size
{ spread 350 512 "$hi"; spread 150 "$hi" "$size"; } | sort -n -u >"$tmp/rpos"
mkdir "$tmp/re"
damage "$f" "$tmp/re" 1 $(cat "$tmp/rpos")
one=$tmp/re/$(sed -n 300p "$tmp/rpos").h5
eq "recomputed: a damaged file's digest is its checksum" "$(head -c 86 "$one" | tail -c 64)" \
    "$(tail -c +513 "$one" | sha256sum | cut -c 1-64)"
sed "s|.*|$tmp/re/&.h5|" "$tmp/rpos" >"$tmp/rlist"
sweep "checksum recomputed" "$tmp/rlist"
eq "checksum recomputed: 500 positions" "$n" 500

# another tool's file: h5py writes strings as variable-length ones
py=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import h5py' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
    echo "t0310: the h5py file is skipped: no python3 with h5py (Debian: apt-get install python3-h5py)"
    finish
    exit
fi
g=$tmp/h5py.h5
"$py" - "$g" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "w") as f:
    f.attrs["format"] = "someone.else"
    f.attrs["note"] = "written by h5py, strings in the global heap"
    f.attrs["version"] = 3
    f.attrs["labels"] = ["a", "bb", "ccc"]
    g = f.create_group("curves")
    g.attrs["kind"] = "loss"
    d = g.create_dataset("total", data=np.linspace(1.0, 0.01, 64))
    d.attrs["meaning"] = "weighted total loss"
    f.create_dataset("x", data=np.arange(24, dtype=np.float32).reshape(6, 4)).attrs["columns"] = "x,y,z,t"
    f.create_dataset("names", data=["u", "v", "p"], dtype=h5py.string_dtype())
PY
expect_rc 0 "h5py file: pf-inspect reads it" "$BIN/pf-inspect" "$g"
check "h5py file: a variable-length string attribute" grep -qx '  @note = "written by h5py, strings in the global heap"' "$tmp/out"
check "h5py file: a string array attribute" grep -qx '  @labels = \["a", "bb", "ccc"\]' "$tmp/out"
check "h5py file: a dataset" grep -qx '/x  dataset float32 (6, 4)' "$tmp/out"
gsize=$(wc -c <"$g")
# 150 positions: 100 over the whole file, 50 in its global heap (the strings)
gcol=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().find(b"GCOL"))' "$g")
check "h5py file: it has a global heap" test "$gcol" -ge 0
{ spread 100 0 "$gsize"; spread 50 "$gcol" $((gcol + 256 < gsize ? gcol + 256 : gsize)); } | sort -n -u >"$tmp/gpos"
mkdir "$tmp/fo"
damage "$g" "$tmp/fo" 0 $(cat "$tmp/gpos")
sed "s|.*|$tmp/fo/&.h5|" "$tmp/gpos" >"$tmp/glist"
sweep "h5py file" "$tmp/glist"
check "h5py file: about 150 positions" test "$n" -ge 140
finish
