#!/bin/bash
# gpu-check.sh — `make gpu-check`: every GPU figure from one command, in at
# most GPU_CHECK_SECONDS (default 720) on a machine with one GPU, into one
# folder, BUILD/gpu-check/, with summary.txt (one line per part) first.
#
#   scripts/gpu-check.sh MAKE BUILD PRECISION      (the Makefile runs it)
#
# Before anything is built it checks that the build has the CUDA backend
# (GPU_CHECK_CUDA=1, the Makefile's USE_CUDA) and that nvidia-smi (NVIDIA_SMI)
# lists a GPU; otherwise it stops at once, exit 1, with one line saying why.
# Then, each part under the time left (its own cap, and never past the
# limit; a part that would get under 20 s is skipped, saying so):
#   build      make all, the GPU tests, pf-bench, pf-bench-search (-j nproc)
#   test-gpu   make test-gpu                                      test-gpu.log
#   memcheck   compute-sanitizer's memcheck over a quick burgers_1d training
#                                                                 memcheck.log
#   bench      pf-bench --device cuda beside PyTorch on the same GPU
#                                                       bench.txt, bench.jsonl
#   candidate  data/specs/paper_low.json on burgers_1d, paper budget, low
#              fidelity, seed 0: on the GPU, then on the CPU (nproc threads);
#              both MSEs             candidate-cuda/, candidate-cpu/, *.log
#   search     a quick darcy_flow_2d search, PF_DEVICE=cuda, -j GPU_CHECK_JOBS
#              (default 8), timed by pf-bench-search   search.jsonl, search.log
# Exit 0 when every part passed, 1 otherwise (summary.txt says which).
# Environment: GPU_CHECK_CUDA, GPU_CHECK_SECONDS, GPU_CHECK_JOBS, NVIDIA_SMI,
# COMPUTE_SANITIZER, INSTALL_DEPS, BENCH_ARGS (more pf-bench options).
set -u
usage() {
    echo "usage: scripts/gpu-check.sh MAKE BUILD PRECISION   (run by make gpu-check; docs/gpu.md)" >&2
    exit "$1"
}
case ${1:-} in -h | --help) usage 0 ;; esac
[ $# -eq 3 ] || usage 2
make=$1 build=$2 precision=$3
limit=${GPU_CHECK_SECONDS:-720}
jobs=${GPU_CHECK_JOBS:-8}
smi=${NVIDIA_SMI:-nvidia-smi}
stop() {
    echo "gpu-check: $*" >&2
    exit 1
}

# ---- is there a GPU to check? (nothing is built before this)
[ "${GPU_CHECK_CUDA:-0}" = 1 ] ||
    stop "this build has no CUDA backend (CUDA=0, or no nvcc with its cuBLAS): nothing to run on a GPU"
command -v "$smi" >/dev/null 2>&1 || stop "no GPU: $smi not found (no NVIDIA driver on this machine)"
gpus=$("$smi" -L 2>&1) || stop "no GPU: '$smi -L' failed: $(printf '%s' "$gpus" | head -n 1)"
printf '%s\n' "$gpus" | grep -q '^GPU ' || stop "no GPU: '$smi -L' lists none"

out=$build/gpu-check
rm -rf "$out" && mkdir -p "$out" || stop "cannot make $out"
summary=$out/summary.txt
ncpu=$(nproc)
{
    echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $precision"
    printf '%s\n' "$gpus" | head -n 1
    echo "$ncpu CPUs; limit $limit s"
} >"$summary"
failed=0

# part NAME CAP LOG COMMAND...: COMMAND under min(CAP, time left) seconds,
# its output to LOG; one line in the summary; rc in $part_rc
part() {
    local name=$1 cap=$2 log=$3 left t0
    shift 3
    left=$((limit - SECONDS - 10))
    [ "$cap" -lt "$left" ] || cap=$left
    if [ "$cap" -lt 20 ]; then
        echo "$name: skipped: $SECONDS s of the $limit used, too little left" >>"$summary"
        failed=1 part_rc=124
        return
    fi
    echo "== gpu-check: $name (at most $cap s; output in $log)" >&2
    t0=$SECONDS
    timeout --kill-after=10 "$cap" "$@" >"$log" 2>&1
    part_rc=$?
    case $part_rc in
    0) echo "$name: ok ($((SECONDS - t0)) s)" ;;
    124 | 137) echo "$name: TIMED OUT after $cap s" ;;
    *) echo "$name: FAILED, exit $part_rc ($((SECONDS - t0)) s)" ;;
    esac >>"$summary"
    [ "$part_rc" -eq 0 ] || failed=1
}
# note TEXT: an indented figure under the part's line
note() { for l in "$@"; do [ -z "$l" ] || printf '    %s\n' "$l" >>"$summary"; done; }

# the project's make for this build (a command, so that timeout can run it)
sub_make=("$make" --no-print-directory BUILD="$build" PRECISION="$precision")

part build "$limit" "$out/build.log" "${sub_make[@]}" -j"$ncpu" all "$build/bin/pf-gpu-tests" "$build/bin/pf-bench" \
    "$build/bin/pf-bench-search"
if [ "$part_rc" -ne 0 ]; then
    cat "$summary"
    stop "the build failed (see $out/build.log)"
fi

part test-gpu 200 "$out/test-gpu.log" "${sub_make[@]}" test-gpu
note "$(grep -a 'Synthesis' "$out/test-gpu.log" | tail -n 1)"
skips=$(grep -ac 'SKIP' "$out/test-gpu.log")
[ "$skips" -eq 0 ] || note "$skips tests skipped (test-gpu.log says why)"

if [ -n "${COMPUTE_SANITIZER:-}" ]; then
    part memcheck 120 "$out/memcheck.log" "$COMPUTE_SANITIZER" --tool memcheck --error-exitcode 1 \
        "$build/bin/pf-train" data/specs/quick.json --pde burgers_1d --seed 0 --out "$out/memcheck" \
        --device cuda --budget quick --quiet
    note "$(grep -a 'ERROR SUMMARY' "$out/memcheck.log" | tail -n 1)"
else
    echo "memcheck: skipped: compute-sanitizer not found (CUDA's toolkit has it; COMPUTE_SANITIZER=path)" >>"$summary"
    failed=1
fi

# PyTorch: as pf-bench looks for it ($PF_PYTHON, else python3); only when it
# is not there, Debian's (scripts/install-deps.sh bench, at most 2 minutes)
torch=
"${PF_PYTHON:-python3}" -c 'import torch' >/dev/null 2>&1 ||
    timeout 120 env INSTALL_DEPS="${INSTALL_DEPS:-ask}" scripts/install-deps.sh bench >"$out/bench-deps.log" 2>&1 ||
    { torch=--no-torch; note "bench: PyTorch not found nor installed (bench-deps.log): our side only"; }
# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
part bench 180 "$out/bench.log" sh -c '"$@" > "'"$out/bench.txt"'"' sh "$build/bin/pf-bench" --device cuda \
    --candidates none --rounds 3 --out "$out/bench.jsonl" $torch ${BENCH_ARGS:-}
[ ! -f "$out/bench.txt" ] || while IFS= read -r l; do note "$l"; done <"$out/bench.txt"

cand() { # cand DEVICE [pf-train options]: the paper-profile low-fidelity candidate
    local dev=$1
    shift
    part "candidate-$dev" "$cap_cand" "$out/candidate-$dev.log" "$build/bin/pf-train" data/specs/paper_low.json \
        --pde burgers_1d --fidelity low --budget paper --seed 0 --device "$dev" --out "$out/candidate-$dev" "$@"
    note "$(grep -a 'pf-train: done' "$out/candidate-$dev.log" | sed 's/; wrote .*//')"
}
cap_cand=60
cand cuda
cap_cand=200
cand cpu --threads "$ncpu"

left=$((limit - SECONDS - 10))
part search "$left" "$out/search-bench.log" "$build/bin/pf-bench-search" --case darcy_quick_cuda \
    --runs "$out/search-runs" --out "$out/search.jsonl" --jobs "$jobs" --profile quick --log "$out/search.log" -- \
    env PF_DEVICE=cuda "$make" --no-print-directory -j"$jobs" BUILD="$build" PRECISION="$precision" \
    PDE=darcy_flow_2d RUN=0 PROFILE=quick RUNS_ROOT="$out/search-runs" REPORTS_ROOT="$out/search-reports"
note "$(grep -a 'bench-search: darcy_quick_cuda: wall' "$out/search-bench.log")" \
    "$(grep -a 'pf-final:' "$out/search.log" | tail -n 1)"

echo "total: $SECONDS s of $limit" >>"$summary"
cat "$summary"
[ "$failed" -eq 0 ] || stop "some parts did not pass (above; $summary)"
echo "gpu-check: every part passed; $out/"
