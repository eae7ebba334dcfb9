#!/bin/sh
# launch.sh — runs one training for pipeline.mk: here (LAUNCH=local) or as a
# Slurm job through srun (LAUNCH=slurm), and records its state in
# OUT/launch.txt for `make study-status` (pf-study):
#   running local <host> <pid> <epoch>     while it runs here
#   submitted slurm <epoch>                 until Slurm starts it
#   running slurm <job id> <host> <epoch>  once it runs on a node
#   failed <rc> <epoch>                     when it exits non-zero (or srun fails)
# The file goes away when the training succeeds; a rerun of make retries a
# failed one. Under Slurm the job's output goes to OUT/slurm-<job id>.log.
#
#   scripts/launch.sh OUT TIME -- COMMAND...
#
# TIME is the Slurm time limit (D-HH:MM:SS or HH:MM:SS; ignored locally).
# Environment (pipeline.mk sets it): LAUNCH (local|slurm), TRAIN_THREADS
# (--cpus-per-task; auto asks for 1, and the training uses what Slurm gives: srun runs
# without MAKEFLAGS, since make's jobserver means nothing on the node), PF_DEVICE (cuda asks for --gres=gpu:1), PF_SLURM_PARTITION,
# PF_SLURM_ACCOUNT, PF_SLURM_ARGS (more srun options, split on spaces). Not
# srun's own SLURM_* names: srun reads those, and an empty one is an error.
set -u
usage() {
    echo "usage: scripts/launch.sh OUT TIME -- COMMAND..." >&2
    echo "  runs COMMAND (a training writing into the folder OUT) here (LAUNCH=local)" >&2
    echo "  or through srun (LAUNCH=slurm, time limit TIME), recording OUT/launch.txt" >&2
    exit 2
}
case ${1:-} in -h | --help) usage ;; esac
[ $# -ge 4 ] && [ "$3" = "--" ] || usage
out=$1 time=$2
shift 3
mkdir -p "$out" || exit 1
state=$out/launch.txt
# The temp files of a launcher killed mid-write: no other launcher runs on
# OUT (pipeline.mk holds the run's lock, stages/pf-lock.c), so they are stale.
rm -f "$state.tmp" "$state".tmp.*
record() { # record LINE: the state, atomically, through a fresh temp file (mktemp: O_EXCL, never a planted one)
    t=$(mktemp "$state.tmp.XXXXXX") || return 1
    if printf '%s\n' "$1" >"$t" && chmod =rw "$t" && mv -f "$t" "$state"; then return 0; fi
    rm -f "$t"
    return 1
}
now() { date +%s; }

case ${LAUNCH:-local} in
local)
    record "running local $(hostname) $$ $(now)"
    "$@"
    rc=$?
    ;;
slurm)
    command -v srun >/dev/null 2>&1 || {
        echo "launch.sh: LAUNCH=slurm, but srun is not on PATH (Debian package slurm-client)" >&2
        record "failed 127 $(now)"
        exit 127
    }
    record "submitted slurm $(now)"
    set -- --job-name="pf-$(echo "$out" | tr '/' '-' | sed 's/^-*//')" --ntasks=1 \
        --cpus-per-task="$(case ${TRAIN_THREADS:-1} in auto) echo 1 ;; *) echo "${TRAIN_THREADS:-1}" ;; esac)" --time="$time" --output="$out/slurm-%j.log" \
        ${PF_SLURM_PARTITION:+--partition="$PF_SLURM_PARTITION"} ${PF_SLURM_ACCOUNT:+--account="$PF_SLURM_ACCOUNT"} \
        $([ "${PF_DEVICE:-}" = cuda ] && echo --gres=gpu:1) ${PF_SLURM_ARGS:-} \
        sh -c 't=$(mktemp "$0.tmp.XXXXXX") &&
               printf "running slurm %s %s %s\n" "$SLURM_JOB_ID" "$(hostname)" "$(date +%s)" >"$t" &&
               chmod =rw "$t" && mv -f "$t" "$0" && exec "$@"' "$state" "$@"
    env -u MAKEFLAGS -u MFLAGS srun "$@"
    rc=$?
    ;;
*)
    echo "launch.sh: LAUNCH must be local or slurm, not '$LAUNCH'" >&2
    exit 2
    ;;
esac
if [ "$rc" -eq 0 ]; then
    rm -f "$state"
else
    record "failed $rc $(now)"
fi
exit "$rc"
