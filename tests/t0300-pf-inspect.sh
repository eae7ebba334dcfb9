#!/bin/sh
# t0300-pf-inspect.sh — `pf-inspect FILE` on an HDF5 sample file and on msgpack.
#
#   tests/t0300-pf-inspect.sh BUILD/bin float|double     (make test runs it)
#
# Checks the HDF5 summary (paths, types, shapes, attributes), the JSON printed
# for msgpack (written with python3's msgpack when it is installed, else with
# printf), and the exit codes (0 ok, 1 unreadable or unknown format, 2 usage).
. "$(dirname "$0")/lib.sh"
PF_INSPECT=$BIN/pf-inspect
REAL=float32
[ "$PRECISION" = double ] && REAL=float64

# ---------------------------------------------------------------- HDF5
f=$tmp/s.h5
"$BIN/pf-pde" sample poisson_5d --n 50 --seed 1 --out "$f" >/dev/null 2>&1
eq "pf-pde sample: exit code" $? 0
"$PF_INSPECT" "$f" >"$tmp/out" 2>"$tmp/err"
eq "hdf5: exit code" $? 0
check "hdf5: nothing on stderr" test ! -s "$tmp/err"
eq "hdf5: first line is the root" "$(head -n 1 "$tmp/out")" "/  group"
# root attributes come before any other object
eq "hdf5: root pde attribute" "$(sed -n '2,/^\//p' "$tmp/out" | grep '^  @pde = ')" '  @pde = "poisson_5d"'
eq "hdf5: root seed attribute" "$(sed -n '2,/^\//p' "$tmp/out" | grep '^  @seed = ')" '  @seed = 1'
check "hdf5: interior group" grep -qx '/interior  group' "$tmp/out"
check "hdf5: interior x, type and shape" grep -qx "/interior/x  dataset $REAL (50, 5)" "$tmp/out"
eq "hdf5: interior x columns" "$(sed -n '\#^/interior/x #,$p' "$tmp/out" | sed -n 2p)" '  @columns = "x1,x2,x3,x4,x5"'
check "hdf5: bc part is int32" grep -qx '/constraints/bc/part  dataset int32 (50)' "$tmp/out"
check "hdf5: a large integer attribute" grep -qE '^  @sampler_seed = [0-9]+$' "$tmp/out"

# ---------------------------------------------------------------- msgpack
m=$tmp/a.msgpack
if python3 -c 'import msgpack' 2>/dev/null; then
    python3 -c 'import msgpack, sys
sys.stdout.buffer.write(msgpack.packb({"a": 1, "b": [True, None, "x"]}))
sys.stdout.buffer.write(msgpack.packb([-2, 0.5, b"abc", {7: "seven"}]))' >"$m"
else
    # {"a":1,"b":[true,null,"x"]} then [-2, 0.5, bin "abc", {7:"seven"}]
    printf '\202\241a\001\241b\223\303\300\241x' >"$m"
    printf '\224\376\313\077\340\000\000\000\000\000\000\304\003abc\201\007\245seven' >>"$m"
fi
"$PF_INSPECT" "$m" >"$tmp/out" 2>"$tmp/err"
eq "msgpack: exit code" $? 0
check "msgpack: nothing on stderr" test ! -s "$tmp/err"
eq "msgpack: JSON" "$(cat "$tmp/out")" '{
  "a": 1,
  "b": [
    true,
    null,
    "x"
  ]
}
[
  -2,
  0.5,
  "base64:YWJj",
  {
    "7": "seven"
  }
]'
if python3 -c 'import json' 2>/dev/null; then
    check "msgpack: the first document is valid JSON" sh -c "sed -n '1,/^}/p' '$tmp/out' | python3 -c 'import json, sys; json.load(sys.stdin)'"
fi

# ---------------------------------------------------------------- failures
printf 'this is not msgpack\n' >"$tmp/garbage"
"$PF_INSPECT" "$tmp/garbage" >"$tmp/out" 2>"$tmp/err"
eq "garbage: exit code" $? 1
check "garbage: message names the file" grep -q "$tmp/garbage" "$tmp/err"
check "garbage: nothing on stdout" test ! -s "$tmp/out"
printf '\301\301\301' >"$tmp/bad"
"$PF_INSPECT" "$tmp/bad" >/dev/null 2>&1
eq "invalid msgpack: exit code" $? 1
printf '\202\241a' >"$tmp/trunc"
"$PF_INSPECT" "$tmp/trunc" >/dev/null 2>&1
eq "truncated msgpack: exit code" $? 1
: >"$tmp/empty"
"$PF_INSPECT" "$tmp/empty" >/dev/null 2>&1
eq "empty file: exit code" $? 1
head -c 100 "$f" >"$tmp/cut.h5"
"$PF_INSPECT" "$tmp/cut.h5" >/dev/null 2>"$tmp/err"
eq "truncated HDF5: exit code" $? 1
check "truncated HDF5: message names the file" grep -q "$tmp/cut.h5" "$tmp/err"
check "truncated HDF5: no HDF5 error stack" sh -c "! grep -q 'HDF5-DIAG' '$tmp/err'"
"$PF_INSPECT" "$tmp/no_such_file" >/dev/null 2>"$tmp/err"
eq "missing file: exit code" $? 1
check "missing file: message names the file" grep -q "$tmp/no_such_file" "$tmp/err"
"$PF_INSPECT" >/dev/null 2>&1
eq "no arguments: exit code" $? 2
"$PF_INSPECT" "$f" "$m" >/dev/null 2>&1
eq "two files: exit code" $? 2
"$PF_INSPECT" --bogus "$f" >/dev/null 2>&1
eq "unknown option: exit code" $? 2
"$PF_INSPECT" --help >"$tmp/out" 2>&1
eq "--help: exit code" $? 0
check "--help: describes bin values" grep -q base64 "$tmp/out"

finish
