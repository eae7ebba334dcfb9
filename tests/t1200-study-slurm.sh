#!/bin/sh
# make study through a real Slurm cluster (study.mk, scripts/launch.sh): a
# one-node cluster (munged, slurmctld, slurmd; 2 CPUs, everything under the
# test's folder, stopped by PID) runs a tiny study, 2 PDEs x 2 methods x 1
# run at the smoke profile, with LAUNCH=slurm -j 4 (TRAIN_THREADS=auto, the
# default), while the same study runs with LAUNCH=local (TRAIN_THREADS=1);
# one running training is scancel'ed on the way.
#
# Checks: every training went through Slurm (a slurm-<job>.log beside each
# result, and the cluster's job record); the cancelled training fails its
# cell, the rest of the study goes on, make study-status counts it failed;
# rerunning make study resubmits exactly it and completes the study; the
# final MSEs are bit-identical to the local study's; no Slurm job was
# handed make's jobserver; make tables.
#
# The local study always runs (its progress table, tables, no launch.txt
# left, its runs stale when the status asks another profile or EVAL); the Slurm part is skipped, naming what is missing, without root or
# without the Debian packages slurm-wlm and munge (scripts/install-deps.sh
# installs them), or when the cluster does not come up. Float build only.
. "$(dirname "$0")/lib.sh"
float_only
need_data burgers1d.dat poisson1_cg_data.dat
stop_cluster() { :; }
# --- the same study, locally (always)
study() { # study RUNS_ROOT LAUNCH [make args]: the tiny study
    r=$1 l=$2
    shift 2
    pipeline study PDES="burgers_1d poisson_2d_classic" METHODS="pinnforge vanilla" RUNS=0 PROFILE=smoke \
        RUNS_ROOT="$r" REPORTS_ROOT="$r.reports" LAUNCH="$l" -j4 "$@"
}
msg_mses() { # the four final MSEs, exactly, one "cell mse" a line
    for f in "$1"/*/*/run0/final.msgpack; do
        cell=${f#"$1"/}
        printf '%s %s\n' "${cell%/run0/final.msgpack}" \
            "$("$BIN/pf-inspect" "$f" | python3 -c 'import json,sys; print(repr(json.load(sys.stdin)["hf_mse"]))')"
    done
}

# --- local
t0=$(date +%s)
study "$tmp/local" local >"$tmp/local.out" 2>"$tmp/local.err"
rc=$?
eq "local study: exit code" "$rc" 0
[ "$rc" -eq 0 ] || grep -e '\*\*\*' -e 'rror' -e 'cannot' "$tmp/local.err" | tail -20 >&2
t_local=$(($(date +%s) - t0))
check "local: four final.msgpack" test "$(ls "$tmp/local"/*/*/run0/final.msgpack | wc -l)" -eq 4
check "local: the progress table says all done" grep -q "^total: 4 of 4 runs done, 0 running, 0 failed" "$tmp/local.out"
check "local: a done cell's line" grep -q "^burgers_1d  *vanilla  *1/1  *0  *0  *0  *[0-9.e+-]*  *[0-9.e+-]*  *500 / 500" "$tmp/local.out"
check "local: no launch.txt left" sh -c "! ls '$tmp/local'/*/*/run0/*/*/launch.txt 2>/dev/null | grep -q ."
check "local: make tables ran" test -s "$tmp/local.reports/main.md"
# the status of the same runs asked at another profile: stale, not done
# (issue 35, item 7: it said 4 of 4, 100%, though make study would redo them)
pipeline study-status PDES="burgers_1d poisson_2d_classic" METHODS="pinnforge vanilla" RUNS=0 PROFILE=quick \
    RUNS_ROOT="$tmp/local" >"$tmp/status-quick" 2>&1
check "study-status at another profile: none done, 4 stale" grep -q "^total: 0 of 4 runs done, 0 running, 0 failed, 4 stale" "$tmp/status-quick"
check "study-status at another profile: says what differs" grep -q "^stale: $tmp/local/burgers_1d/vanilla/run0: its settings differ (profile smoke vs quick" "$tmp/status-quick"
pipeline study-status PDES="burgers_1d" METHODS="vanilla" RUNS=0 PROFILE=smoke EVAL=heldout \
    RUNS_ROOT="$tmp/local" >"$tmp/status-heldout" 2>&1
check "study-status under another EVAL: stale" grep -q "^burgers_1d  *vanilla  *0/1  *0  *0  *1 " "$tmp/status-heldout"

missing=""
for p in munged slurmctld slurmd srun scancel squeue sinfo; do
    command -v $p >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "$TEST_NAME: the Slurm part skipped: not found:$missing (Debian packages slurm-wlm and munge; scripts/install-deps.sh installs them)"
    finish
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "$TEST_NAME: the Slurm part skipped: starting slurmd and munged here needs root"
    finish
    exit 0
fi

# --- the cluster
c=$tmp/cluster
mkdir -p "$c/munge" "$c/state" "$c/spool" "$c/log"
dd if=/dev/urandom of="$c/munge/key" bs=1024 count=1 2>/dev/null && chmod 400 "$c/munge/key"
port=$((20000 + $$ % 20000))
cat >"$c/slurm.conf" <<EOF
ClusterName=pftest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$c/munge/sock
CredType=cred/munge
StateSaveLocation=$c/state
SlurmdSpoolDir=$c/spool
SlurmctldPidFile=$c/slurmctld.pid
SlurmdPidFile=$c/slurmd.pid
SlurmctldLogFile=$c/log/slurmctld.log
SlurmdLogFile=$c/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/filetxt
JobCompLoc=$c/jobs.txt
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
MpiDefault=none
NodeName=localhost CPUs=2 State=UNKNOWN
PartitionName=pf Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$c/slurm.conf"
stop_cluster() {
    for f in "$c/slurmd.pid" "$c/slurmctld.pid" "$c/munge/pid"; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
    done
    sleep 1
}
trap 'stop_cluster; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
munged --key-file="$c/munge/key" --socket="$c/munge/sock" --pid-file="$c/munge/pid" \
    --log-file="$c/munge/log" --seed-file="$c/munge/seed" --force 2>"$c/log/munged.err" &&
    slurmctld -f "$c/slurm.conf" -i 2>"$c/log/slurmctld.err" &&
    slurmd -f "$c/slurm.conf" 2>"$c/log/slurmd.err"
up=""
for i in 1 2 3 4 5 6 7 8 9 10; do
    sinfo -h -o %t 2>/dev/null | grep -q idle && { up=1; break; }
    sleep 1
done
if [ -z "$up" ] || ! srun -n1 true 2>"$c/log/srun.err"; then
    echo "$TEST_NAME: the Slurm part skipped: the one-node cluster did not come up:" \
        "$(cat "$c/log/"*.err 2>/dev/null | tail -3 | tr '\n' ' ')"
    finish
    exit 0
fi

# --- Slurm, one training cancelled on the way
t0=$(date +%s)
study "$tmp/slurm" slurm TRAIN_THREADS=auto >"$tmp/slurm.out" 2>"$tmp/slurm.err" &
mk=$!
victim=""
for i in $(seq 1 600); do # a running low-fidelity training of burgers_1d's search
    victim=$(squeue -h -t R -o "%i %j" 2>/dev/null | grep "burgers_1d-pinnforge-run0-gen0[1-9]" | head -1 | cut -d' ' -f1)
    [ -n "$victim" ] && break
    kill -0 $mk 2>/dev/null || break
    sleep 0.1
done
check "a running training to cancel was seen in squeue" test -n "$victim"
[ -n "$victim" ] && scancel "$victim"
wait $mk
rc=$?
t_slurm1=$(($(date +%s) - t0))
check "with a training cancelled, make study fails (exit $rc)" test "$rc" -ne 0
check "... saying some cells failed" grep -q "some cells failed" "$tmp/slurm.err"
failed=$(grep -l "^failed" "$tmp/slurm"/*/*/run0/gen*/cand*/launch.txt 2>/dev/null)
eq "one training is recorded failed" "$(echo "$failed" | grep -c .)" 1
check "the other three cells finished" test "$(ls "$tmp/slurm"/*/*/run0/final.msgpack | wc -l)" -eq 3
pipeline study-status PDES="burgers_1d poisson_2d_classic" METHODS="pinnforge vanilla" RUNS=0 PROFILE=smoke \
    RUNS_ROOT="$tmp/slurm" >"$tmp/status1" 2>&1
check "study-status: burgers_1d pinnforge failed" grep -q "^burgers_1d  *pinnforge  *0/1  *0  *1 " "$tmp/status1"
check "study-status: 3 of 4 runs done, 1 failed" grep -q "^total: 3 of 4 runs done, 0 running, 1 failed" "$tmp/status1"

t0=$(date +%s)
study "$tmp/slurm" slurm TRAIN_THREADS=auto >"$tmp/slurm2.out" 2>"$tmp/slurm2.err"
eq "rerunning make study: exit code" $? 0
t_slurm2=$(($(date +%s) - t0))
check "no training is recorded failed or running any more" \
    sh -c "! ls '$tmp/slurm'/*/*/run0/*/*/launch.txt 2>/dev/null | grep -q ."
pipeline study-status PDES="burgers_1d poisson_2d_classic" METHODS="pinnforge vanilla" RUNS=0 PROFILE=smoke \
    RUNS_ROOT="$tmp/slurm" >"$tmp/status2" 2>&1
check "study-status: 4 of 4 done" grep -q "^total: 4 of 4 runs done, 0 running, 0 failed" "$tmp/status2"

# every training went through Slurm
trainings=$(ls "$tmp/slurm"/*/*/run0/*/*/evidence.msgpack | wc -l)
logs=$(ls "$tmp/slurm"/*/*/run0/*/*/slurm-*.log | wc -l)
completed=$(grep -c "JobState=COMPLETED" "$c/jobs.txt")
echo "$TEST_NAME: $trainings trainings; local $t_local s, slurm $t_slurm1 s + $t_slurm2 s after scancel of job $victim"
eq "as many trainings as the local study" "$trainings" "$(ls "$tmp/local"/*/*/run0/*/*/evidence.msgpack | wc -l)"
check "a Slurm log beside every training's result ($logs logs)" test "$logs" -ge "$trainings"
check "the cluster completed every training ($completed jobs)" test "$completed" -ge "$trainings"
check "the cancelled job is on record" grep -q "JobId=$victim .*JobState=CANCELLED" "$c/jobs.txt"
check "no training ran here: pf-train never started outside Slurm" sh -c "! grep -q 'pf-train: start' '$tmp/slurm.err' '$tmp/slurm2.err'"
check "TRAIN_THREADS=auto on Slurm: no jobserver passed to the jobs" \
    sh -c "! grep -l 'jobserver' '$tmp/slurm'/*/*/run0/*/*/slurm-*.log | grep -q ."

# the same numbers
msg_mses "$tmp/local" >"$tmp/mse.local"
msg_mses "$tmp/slurm" >"$tmp/mse.slurm"
eq "four final MSEs" "$(wc -l <"$tmp/mse.local")" 4
check "bit-identical to the local study" cmp -s "$tmp/mse.local" "$tmp/mse.slurm"
sed "s/^/$TEST_NAME: final MSE /" "$tmp/mse.slurm"
check "make tables ran" test -s "$tmp/slurm.reports/main.md"
finish
