#!/bin/sh
# make gpu-check without a GPU (Makefile, scripts/gpu-check.sh): it stops
# before building anything, exit 1 (make's 2), with one line on stderr naming why: a
# build without the CUDA backend, nvidia-smi missing, nvidia-smi failing
# (its message quoted), nvidia-smi listing no GPU. The GPU is faked away by
# NVIDIA_SMI, so this runs the same on a machine with one. Float build only.
. "$(dirname "$0")/lib.sh"
float_only

# gc RC WHY-PATTERN DESCRIPTION COMMAND...: exit RC, the first line on stderr saying why (make adds its
# own "Error 1" line after it), nothing on stdout, no folder
gc() {
    want=$1 pat=$2 d=$3; shift 3
    expect_rc "$want" "$d" "$@"
    check "$d: one line of its own on stderr" test "$(grep -vc '^make\(\[[0-9]*\]\)\{0,1\}: \*\*\*' "$tmp/err")" -eq 1
    check "$d: saying why" sh -c 'head -n 1 "$1" | grep -q "^gpu-check: $2"' sh "$tmp/err" "$pat"
    check "$d: nothing on stdout (nothing built)" test ! -s "$tmp/out"
    check "$d: no results folder" test ! -e "$tmp/b/gpu-check"
}
gc 2 "this build has no CUDA backend" "make gpu-check CUDA=0" \
    make -s -C "$ROOT" --no-print-directory BUILD="$tmp/b" CUDA=0 gpu-check
gc 2 "" "make gpu-check, nvidia-smi missing" \
    make -s -C "$ROOT" --no-print-directory BUILD="$tmp/b" NVIDIA_SMI="$tmp/none/nvidia-smi" gpu-check
check "... naming a missing backend or nvidia-smi" grep -q "no CUDA backend\|no GPU: $tmp/none/nvidia-smi not found" "$tmp/err"

printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' \
    >"$tmp/smi-fail"
printf '#!/bin/sh\necho "No devices were found"\n' >"$tmp/smi-none"
chmod +x "$tmp/smi-fail" "$tmp/smi-none"
cd "$ROOT" || exit 1
export GPU_CHECK_CUDA=1
NVIDIA_SMI=$tmp/none/nvidia-smi gc 1 "no GPU: $tmp/none/nvidia-smi not found" "nvidia-smi missing" \
    scripts/gpu-check.sh make "$tmp/b" float
NVIDIA_SMI=$tmp/smi-fail gc 1 "no GPU: '$tmp/smi-fail -L' failed: NVIDIA-SMI has failed because it could not" \
    "nvidia-smi failing" scripts/gpu-check.sh make "$tmp/b" float
NVIDIA_SMI=$tmp/smi-none gc 1 "no GPU: '$tmp/smi-none -L' lists none" "no GPU listed" \
    scripts/gpu-check.sh make "$tmp/b" float
expect_rc 0 "--help" scripts/gpu-check.sh --help
expect_rc 2 "no arguments" scripts/gpu-check.sh
finish
