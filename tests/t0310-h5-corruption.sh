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
. "$(dirname "$0")/lib.sh"

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
finish
