#!/bin/sh
# The baselines' step 0 against PyTorch (docs/baselines.md, "Parity with
# PyTorch at step 0"): for vanilla (PINNacle's 5 x 100 tanh MLP) on
# burgers_1d, wave_1d (a Neumann condition, u_t = 0 at t = 0) and
# poisson_2d_classic (two Dirichlet boundaries, one of them four circles),
# and PINNsFormer at its released sizes (453,561 parameters) on burgers_1d,
# `pf-spec baseline` gives the spec, the point counts are cut (the networks
# stay the paper's), `pf-train --step0` writes the initial parameters, the
# points, every loss and the gradient of the total, and tests/torch_parity.py
# rebuilds the network in torch, loads them and recomputes every loss and
# the gradient in float64: each loss and the total within a relative error
# of TOL_LOSS, each parameter tensor's gradient within a relative L2 error
# of TOL_GRAD (tighter in the double build). Then the comparison is shown to
# fail: the same file with one gradient tensor scaled by 1.001, and with
# one loss's recorded value moved by 1e-5 relative, is refused (exit 1).
# Skipped, naming what is missing, when torch or h5py cannot be imported.
. "$(dirname "$0")/lib.sh"

# what needs no torch: the baselines' specs and --step0's refusals
expect_rc 0 "pf-spec baseline" "$BIN/pf-spec" baseline --pde burgers_1d --method ropinn
cp "$tmp/out" "$tmp/ropinn.json"
check "... prints ropinn's spec" grep -q '"region_optimization"' "$tmp/ropinn.json"
expect_rc 2 "pf-spec baseline: pinnsagent has no fixed spec" "$BIN/pf-spec" baseline --pde burgers_1d --method pinnsagent
check "... saying so" grep -q "no fixed spec" "$tmp/err"
expect_rc 1 "--step0 refuses region optimization" "$BIN/pf-train" "$tmp/ropinn.json" --pde burgers_1d \
    --fidelity baseline --seed 1 --step0 "$tmp/ropinn.h5" --quiet
check "... naming it" grep -q "region_optimization" "$tmp/err"
check "... and writes nothing" test ! -e "$tmp/ropinn.h5"
expect_rc 2 "--step0 with --out" "$BIN/pf-train" "$tmp/ropinn.json" --pde burgers_1d --fidelity baseline --seed 1 \
    --step0 "$tmp/x.h5" --out "$tmp/x"

# the interpreter as pf-bench picks it: $PF_PYTHON, else python3 if it has
# torch, else Debian's /usr/bin/python3
py=${PF_PYTHON:-}
if [ -z "$py" ]; then
    py=python3
    "$py" -c 'import torch' >/dev/null 2>&1 || py=/usr/bin/python3
fi
missing=
for m in torch h5py; do
    "$py" -c "import $m" >/dev/null 2>&1 || missing="$missing $m"
done
if [ -n "$missing" ]; then
    echo "$TEST_NAME: skipped: $py cannot import:$missing (Debian packages python3-torch and python3-h5py;" \
        "scripts/install-deps.sh bench installs them; PF_PYTHON names another interpreter)"
    finish
    exit 0
fi

# Tolerances (docs/baselines.md says why): the reference is torch in
# float64. Float build: the engine's float32 step erred by at most 2.2e-7
# (a loss) and 3.2e-6 (a gradient tensor), torch's own float32 step by
# 2.7e-7 and 1.6e-4; double build: 1.4e-15 and 4.6e-13.
if [ "$PRECISION" = float ]; then
    TOL_LOSS=1e-6 TOL_GRAD=1e-4
else
    TOL_LOSS=1e-12 TOL_GRAD=1e-10
fi

# step0 NAME METHOD PDE INTERIOR BOUNDARY INITIAL SEED: spec, file, comparison
step0() {
    name=$1 method=$2 pde=$3
    "$BIN/pf-spec" baseline --pde "$pde" --method "$method" >"$tmp/$name.full.json" 2>"$tmp/err"
    check "$name: pf-spec baseline" test -s "$tmp/$name.full.json"
    "$py" - "$tmp/$name.full.json" "$4" "$5" "$6" >"$tmp/$name.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for k, v in zip(("interior", "boundary", "initial"), sys.argv[2:5]):
    if s["sampling"].get(k):
        s["sampling"][k] = int(v)
print(json.dumps(s))
EOF
    expect_rc 0 "$name: pf-train --step0" "$BIN/pf-train" "$tmp/$name.json" --pde "$pde" --fidelity baseline \
        --seed "$7" --step0 "$tmp/$name.h5" --threads 1 --quiet
    [ -s "$tmp/err" ] && cat "$tmp/err" >&2
    expect_rc 0 "$name: torch parity" "$py" "$PF_TESTS/torch_parity.py" "$tmp/$name.h5" \
        --tol-loss "$TOL_LOSS" --tol-grad "$TOL_GRAD"
    cat "$tmp/out"
    [ -s "$tmp/err" ] && cat "$tmp/err" >&2
}

step0 vanilla_burgers vanilla burgers_1d 512 128 128 3
step0 vanilla_wave vanilla wave_1d 512 128 128 4
step0 vanilla_poisson vanilla poisson_2d_classic 512 256 0 5
step0 pinnsformer_burgers pinnsformer burgers_1d 64 32 32 6

# the file says what the test trained: the paper's sizes
nparams() { "$py" -c 'import h5py, sys; print(int(h5py.File(sys.argv[1])["/"].attrs["nparams"]))' "$1"; }
eq "vanilla's parameters (5 x 100 on 2 inputs)" "$(nparams "$tmp/vanilla_burgers.h5")" 40801
eq "PINNsFormer's parameters (the released sizes)" "$(nparams "$tmp/pinnsformer_burgers.h5")" 453561
check "h5dump reads a step-0 file" sh -c "h5dump -a /format '$tmp/vanilla_burgers.h5' | grep -q pinnforge.step0"

# the comparison fails when the engine's numbers are off
"$py" - "$tmp/vanilla_burgers.h5" "$tmp/grad_off.h5" "$tmp/loss_off.h5" <<'EOF'
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    f["grad"]["h3.W"][...] = f["grad"]["h3.W"][...] * 1.001
shutil.copy(sys.argv[1], sys.argv[3])
with h5py.File(sys.argv[3], "r+") as f:
    a = f["losses"]["01"].attrs
    a["value"] = a["value"] * (1 + 1e-5)
EOF
expect_rc 1 "a gradient tensor 0.1% off is refused" "$py" "$PF_TESTS/torch_parity.py" "$tmp/grad_off.h5" \
    --tol-loss "$TOL_LOSS" --tol-grad "$TOL_GRAD"
check "... naming it" grep -q "FAIL grad h3.W" "$tmp/out"
expect_rc 1 "a loss 1e-5 off is refused" "$py" "$PF_TESTS/torch_parity.py" "$tmp/loss_off.h5" \
    --tol-loss "$TOL_LOSS" --tol-grad "$TOL_GRAD"
finish
