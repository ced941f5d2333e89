#!/usr/bin/env bash
# The Slurm check (`make slurm-check`; docs/many-machines.md says what it
# shows). It runs docs/many-machines.md's job array for real, on a one-node
# Slurm it starts on this machine:
#   1. munged, slurmctld and slurmd as the current user, with everything
#      (slurm.conf, the munge key and socket, state, logs, pid files) under
#      SLURM_CHECK_DIR: one node, this host at 127.0.0.1, with the CPUs and
#      memory `slurmd -C` finds;
#   2. the docs' job script, read out of docs/many-machines.md as it stands,
#      submitted with sbatch over bench/slurm/slurm-check.toml (four runs)
#      into one --out, as four array tasks of one CPU (--array=0-3
#      --cpus-per-task=1 on the command line override the script's own);
#   3. one task killed mid-run: its attnzoo process (the pid its shard's
#      lock file records) SIGKILLed, as the kernel's OOM killer would, after
#      its run wrote a checkpoint and before the run finished, so the task
#      ends FAILED; then requeued with scontrol requeue, as the docs say. Its
#      second attempt must resume from that checkpoint (its first progress
#      line at the checkpoint's step + 1);
#   4. attnzoo collect over the shared --out, and a one-process attnzoo run
#      of the same file: summary.csv, summary.md, points.csv,
#      comparisons.csv, and each run's final.json, metrics.jsonl, test.hyp,
#      alignments.jsonl and final checkpoint tensors (tensors_sha256) must
#      be identical, timings aside (CSV columns and JSON keys named
#      *seconds or *per_sec, summary.md's "train s" and "steps/s").
# The requeued task would wait Slurm's credential lifetime (AuthInfo's
# cred_expire, 120 s by default) before it starts again: the check's
# slurm.conf sets 10 s, and schedules every second.
# The daemons are stopped on exit, however it exits. Exit 0: all identical;
# 1: a difference or a failed step; 2: Slurm or munge missing.
#
# Installs nothing: needs Debian's slurm-wlm and munge (as root:
# apt-get install -y slurm-wlm munge) and the attnzoo binary.
#
# Environment:
#   ATTNZOO          the binary (default bin/attnzoo; make slurm-check builds it)
#   SLURM_CHECK_DIR  the scratch folder (default bin/slurm-check; emptied first)
#   SLURM_CHECK_PORT slurmctld's port; slurmd takes the next (default 16817)
#   SLURM_CHECK_WAIT seconds to wait for the array (default 300)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ATTNZOO=${ATTNZOO:-$root/bin/attnzoo}
d=${SLURM_CHECK_DIR:-$root/bin/slurm-check}
port=${SLURM_CHECK_PORT:-16817}
wait_s=${SLURM_CHECK_WAIT:-300}
exp=bench/slurm/slurm-check.toml
name=slurm-check
tasks=4
victim=1 # the array task that is killed and requeued

say() { echo "slurm-check: $*"; }
fail() { echo "slurm-check: FAIL: $*" >&2; exit 1; }

missing=
for c in munged slurmctld slurmd sbatch scontrol squeue scancel; do
	command -v "$c" >/dev/null || missing="$missing $c"
done
if [ -n "$missing" ]; then
	echo "slurm-check: missing:$missing; on Debian: apt-get install -y slurm-wlm munge" >&2
	exit 2
fi
[ -x "$ATTNZOO" ] || { echo "slurm-check: no attnzoo binary at $ATTNZOO: run make build" >&2; exit 2; }
ATTNZOO=$(cd "$(dirname "$ATTNZOO")" && pwd)/$(basename "$ATTNZOO")

# The job script as the docs show it: the block after the marker naming
# make slurm-check.
script=$(awk '/^<!-- doc: .*make slurm-check/ { m = 1; next }
	m == 1 && /^```/ { m = 2; next }
	m == 2 && /^```/ { exit }
	m == 2 { print }' docs/many-machines.md)
case "$script" in
*"#SBATCH --array"*) ;;
*) fail "docs/many-machines.md: no job script (a block with #SBATCH --array) after a marker naming make slurm-check" ;;
esac

sock="$d/munge/munge.socket"
[ "${#sock}" -lt 100 ] || { echo "slurm-check: $sock: too long for a unix socket's path; set SLURM_CHECK_DIR to a shorter folder" >&2; exit 2; }
rm -rf "$d"
mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log" "$d/run"
d=$(cd "$d" && pwd)
chmod 700 "$d/munge"
printf '%s\n' "$script" >"$d/array.sh"

# Stop whatever this script started, however it exits.
# An array still running is cancelled first (its tasks are slurmstepd's
# children, not slurmd's).
job=
stop() {
	local f i alive pids=
	if [ -n "$job" ]; then
		scancel "$job" 2>/dev/null || true
		for i in $(seq 50); do
			[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
			sleep 0.2
		done
	fi
	for f in "$d/run/slurmd.pid" "$d/run/slurmctld.pid" "$d/munge/munged.pid"; do
		i=$(cat "$f" 2>/dev/null || true)
		if [ -n "$i" ] && kill "$i" 2>/dev/null; then pids="$pids $i"; fi
	done
	for i in $(seq 50); do # until they are gone, so that a rerun finds the ports free
		alive=
		for f in $pids; do # a zombie (no init reaps it in a container) is gone too
			if [ -r "/proc/$f/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$f/stat"; then alive=1; fi
		done
		[ -z "$alive" ] && break
		sleep 0.1
	done
}
trap stop EXIT

# munge: a fresh key, its socket in the scratch folder.
head -c 1024 /dev/urandom >"$d/munge/munge.key"
chmod 400 "$d/munge/munge.key"
munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
	--pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
	--seed-file="$d/munge/munged.seed" ||
	fail "munged did not start: $d/log/munged.log"

# One node: this host, as slurmd -C describes it, at 127.0.0.1.
host=$(uname -n)
host=${host%%.*}
node=$(slurmd -C | head -n1 | sed -e 's/^NodeName=[^ ]*//' -e 's/UpTime=.*//')
user=$(id -un)
export SLURM_CONF="$d/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=attnzoo-check
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=5
InactiveLimit=0
PropagateResourceLimits=NONE
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

# A daemon left from another check would take this one's jobs: the ports
# must be free.
for p in "$port" $((port + 1)); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		fail "port $p is taken (a slurmctld or slurmd still running?): stop it, or set SLURM_CHECK_PORT"
	fi
done
slurmctld -c || fail "slurmctld did not start: $d/log/slurmctld.log"
slurmd -N "$host" || fail "slurmd did not start: $d/log/slurmd.log"
for _ in $(seq 100); do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
	[ "$state" = idle ] && break
	sleep 0.2
done
[ "$state" = idle ] || fail "node $host is '$state', not idle, after 20 s: $d/log/slurmctld.log, $d/log/slurmd.log"
for f in run/slurmctld.pid run/slurmd.pid munge/munged.pid; do
	i=$(cat "$d/$f" 2>/dev/null || true)
	[ -n "$i" ] && kill -0 "$i" 2>/dev/null || fail "the daemon of $d/$f is not running: see $d/log/"
done
say "Slurm up: node $host ($node), $d"

# The array: the docs' script, one shard per task, into one --out.
out="$d/shards"
export PATH="$(dirname "$ATTNZOO"):$PATH"
job=$(sbatch --parsable --array=0-$((tasks - 1)) --cpus-per-task=1 --chdir="$root" \
	--output="$d/log/task-%a.out" --open-mode=append "$d/array.sh" "$exp" "$out")
job=${job%%;*}
say "submitted job array $job: sbatch --array=0-$((tasks - 1)) --cpus-per-task=1 array.sh $exp $out"

jobstate() { scontrol show job "$1" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n1 | cut -d= -f2; }
waitfor() { # waitfor SECONDS WHAT COMMAND...
	local s=$1 what=$2 i
	shift 2
	for i in $(seq $((s * 10))); do
		"$@" && return 0
		sleep 0.1
	done
	fail "$what, after $s s (logs in $d/log)"
}

# Kill task $victim once its run has written a checkpoint.
vlog="$d/log/task-$victim.out"
vrun() { grep -o '^[^ ]*: step 1/' "$vlog" 2>/dev/null | head -n1 | sed 's/: step 1\/$//'; }
started() { [ -n "$(vrun)" ]; }
waitfor 120 "task $victim never started its run" started
run=$(vrun)
waitfor 60 "task $victim's run $run wrote no checkpoint" test -f "$out/$name/runs/$run/checkpoint.json"
pid=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' "$out/$name/.lock-shard-$victim-of-$tasks")
[ -n "$pid" ] || fail "no pid in $out/$name/.lock-shard-$victim-of-$tasks"
kill -KILL "$pid"
stopped() { [ "$(jobstate "${job}_$victim")" != RUNNING ]; }
waitfor 30 "task $victim still runs after SIGKILL" stopped
[ -f "$out/$name/runs/$run/final.json" ] && fail "task $victim's run $run finished before the kill: raise steps in $exp"
step=$(grep -o '"step": *[0-9]*' "$out/$name/runs/$run/checkpoint.json" | grep -o '[0-9]*$')
say "killed task $victim's attnzoo (pid $pid, run $run) with SIGKILL at checkpoint step $step: task $(jobstate "${job}_$victim")"
mark=$(wc -l <"$vlog")
scontrol requeue "${job}_$victim"
say "requeued task $victim"

# The whole array, the requeued task included, to its end.
ended() { [ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; }
waitfor "$wait_s" "the array has not finished" ended
for i in $(seq 0 $((tasks - 1))); do
	st=$(jobstate "${job}_$i")
	[ "$st" = COMPLETED ] || fail "array task $i ended $st: $d/log/task-$i.out"
done
first=$(tail -n +$((mark + 1)) "$vlog" | grep -o "^$run: step [0-9]*" | head -n1 | grep -o '[0-9]*$' || true)
[ "$first" = $((step + 1)) ] ||
	fail "task $victim's second attempt did not resume $run from its checkpoint (its first step: '$first', not $((step + 1))): $vlog"
say "every task completed; task $victim's second attempt resumed $run at step $first"

"$ATTNZOO" collect "$out/$name" >"$d/log/collect.out" || fail "attnzoo collect $out/$name: $d/log/collect.out"
"$ATTNZOO" run "$exp" --out "$d/one" --workers 2 >"$d/log/one.out" 2>&1 || fail "attnzoo run $exp --out $d/one: $d/log/one.out"

# Compare, timings aside.
a="$out/$name" b="$d/one/$name"
diffs=0
same() { # same FILTER FILE: FILE of both folders, through FILTER
	local filter=$1 f=$2
	if ! diff <($filter "$a/$f") <($filter "$b/$f") >"$d/diff.txt" 2>&1; then
		echo "slurm-check: DIFFERENT: $f ($filter; < the shards, > one process):" >&2
		head -n 10 "$d/diff.txt" | cut -c 1-200 >&2
		diffs=$((diffs + 1))
	fi
}
# Timings aside: CSV columns and JSON keys named *seconds or *per_sec.
untimed_csv() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i ~ /(seconds|per_sec)$/) }
	{ s = ""; for (i = 1; i <= NF; i++) if (!drop[i]) s = s (s == "" ? "" : ",") $i; print s }' "$1"; }
untimed_json() { grep -v -E '^ *"[a-z_]*(seconds|per_sec)":' "$1"; }
untimed_jsonl() { sed -E 's/,?"[a-z_]*(seconds|per_sec)":[0-9.eE+-]+//g' "$1"; }
# summary.md: the table columns headed "train s" or "steps/s" aside.
untimed_md() { awk -F'|' '/^\|/ { if (!table) { table = 1; for (i = 1; i <= NF; i++) { c = $i; gsub(/^ +| +$/, "", c); drop[i] = (c == "train s" || c == "steps/s") } }
		s = ""; for (i = 1; i < NF; i++) if (!drop[i]) s = s $i "|"; print s; next }
	{ table = 0; split("", drop); print }' "$1"; }
tensors_sha256() { grep '"tensors_sha256"' "$1"; }
for f in summary.csv points.csv comparisons.csv; do same untimed_csv "$f"; done
same untimed_md summary.md
n=0
for r in "$b"/runs/*/; do
	r=runs/$(basename "$r")
	[ -f "$a/$r/final.json" ] || { echo "slurm-check: DIFFERENT: $r: not finished in the shards' folder" >&2; diffs=$((diffs + 1)); continue; }
	same untimed_json "$r/final.json"
	same untimed_jsonl "$r/metrics.jsonl"
	same cat "$r/test.hyp"
	same cat "$r/alignments.jsonl"
	same tensors_sha256 "$r/checkpoint.json"
	n=$((n + 1))
done
[ "$n" = 4 ] || fail "the one-process run finished $n runs, not 4"
[ "$(ls "$a/runs" | wc -l)" = 4 ] || fail "the shards' folder holds $(ls "$a/runs" | wc -l) runs, not 4"
[ "$diffs" = 0 ] || fail "$diffs files differ between the shards' collected folder and the one-process run"
say "PASS: $tasks array tasks, task $victim SIGKILLed at step $step and requeued, collected: summary.csv, summary.md, points.csv, comparisons.csv and $n runs' final.json, metrics.jsonl, test.hyp, alignments.jsonl and final tensors identical to one process's, timings aside"
