#!/usr/bin/env bash
# tests/slurm.sh CCSIM SRCDIR — a sweep run through a real single-node Slurm
# gives the same results as the same sweep run locally.
#   Starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm) on
#   localhost with a key, a slurm.conf and state directories of its own in a
#   temporary directory; submits a 2 x 2 sweep with `ccsim sweep --slurm`
#   (throttle 2, 1 CPU and 300 MB per point), waits for the job array,
#   gathers it with `ccsim sweep --collect`, and compares every result file
#   byte for byte with the local run (summary.json and sweep.csv aside from
#   the host-time fields).  Then the resume rule: a point whose result is
#   removed is the only one submitted again, and --collect calls it pending.
#   Where Slurm cannot start (not root, no binaries, ports taken), it says
#   why and exits 77 (skip).  The daemons are stopped on exit.
set -u
CCSIM=$(readlink -f "$1")
SRC=$2
skip() { echo "slurm: $*; skipped"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (slurmd and munged run as root here)"
for b in munged mungekey slurmctld slurmd sbatch squeue sinfo; do
  command -v $b >/dev/null || skip "no $b (Debian: munge, slurm-wlm)"
done
T=$(mktemp -d /tmp/ccsim-slurm.XXXXXX)
chmod 755 "$T"
stop() {
  for f in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munge/munged.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 1
  rm -rf "$T"
}
trap stop EXIT
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log"
mungekey --create --keyfile="$T/munge/munge.key" --force >/dev/null 2>&1 || skip "mungekey failed"
chmod 600 "$T/munge/munge.key"
munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" \
  --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" \
  >/dev/null 2>&1 || skip "munged does not start: $(tail -1 "$T/log/munged.log" 2>/dev/null)"
# ports: two free ones, chosen from the process id
free_port() {
  local p=$1
  while ss -ltn 2>/dev/null | awk '{print $4}' | grep -q ":$p\$"; do p=$((p + 1)); done
  echo $p
}
P1=$(free_port $((20000 + $$ % 20000)))
P2=$(free_port $((P1 + 1)))
H=$(hostname)
cat >"$T/slurm.conf" <<CONF
ClusterName=ccsimtest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$P1
SlurmdPort=$P2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
InactiveLimit=0
KillWait=5
MinJobAge=600
NodeName=$H NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=ccsim Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
slurmctld -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmctld does not start: $(tail -1 "$T/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmd does not start: $(tail -1 "$T/log/slurmd.log" 2>/dev/null)"
up=0
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && { up=1; break; }
  sleep 1
done
[ $up = 1 ] || skip "the node never came up: $(tail -2 "$T/log/slurmctld.log" | tr '\n' ' ')"

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# the sweep: 2 worker counts x 2 methods, small
cat >"$T/base.json" <<'JSON'
{"workers": 2, "iterations": 2, "model": {"elements": 3000},
 "gradients": {"distribution": "laplace", "correlation": 0.5},
 "platform": {"generate": "crossbar", "hosts": 8}}
JSON
cat >"$T/sweep.json" <<'JSON'
{"name": "slurmtest", "base": "base.json",
 "axes": [{"name": "workers", "path": "workers", "values": [2, 5]},
          {"name": "method", "values": [{"label": "fp16", "set": {"compressor": "fp16"}},
                                        {"label": "topk", "set": {"compressor": {"name": "topk", "ratio": 0.1},
                                                                  "collective": "allgather/ring"}}]}]}
JSON
"$CCSIM" sweep "$T/sweep.json" --out "$T/local" --jobs 2 --quiet || bad "local sweep"

# the script, printed
"$CCSIM" sweep "$T/sweep.json" --out "$T/cluster" --slurm --throttle 2 --mem 300M --time 5 --dry-run >"$T/script" ||
  bad "--slurm --dry-run"
grep -qx '#SBATCH --array=0,1,2,3%2' "$T/script" && grep -qx '#SBATCH --mem=300M' "$T/script" &&
  grep -qx '#SBATCH --time=5' "$T/script" && grep -qx '#SBATCH --cpus-per-task=1' "$T/script" && ok ||
  bad "job script: $(cat "$T/script")"
[ ! -e "$T/cluster/slurm/sweep.sbatch" ] && ok || bad "--dry-run wrote the script"

wait_job() {
  for _ in $(seq 300); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 1
  done
  return 1
}
job=$("$CCSIM" sweep "$T/sweep.json" --out "$T/cluster" --slurm --throttle 2 --mem 300M --time 5 2>"$T/err") ||
  bad "--slurm submit: $(cat "$T/err")"
[ -n "$job" ] && wait_job "$job" && ok || bad "job $job did not finish: $(squeue 2>&1)"
"$CCSIM" sweep --collect "$T/cluster" 2>"$T/err" && ok || bad "--collect: $(cat "$T/err") $(cat "$T"/cluster/slurm/*.out 2>/dev/null | head -5)"

# byte for byte, host-time fields aside
strip() { grep -v -E '"(host_time_s|peak_rss_mb)"' "$1"; }
# sweep.csv without its host-time column (the last one; point ids hold commas)
nocol() { head -1 "$1" | grep -q ',host_time_s$' || echo "no host_time_s column last"; sed 's/,[^,]*$//' "$1"; }
n=0
for d in "$T/local"/*=*/; do
  p=$(basename "$d")
  n=$((n + 1))
  for f in iterations.csv hops.csv platform.xml; do
    cmp -s "$d/$f" "$T/cluster/$p/$f" && ok || bad "$p/$f differs between Slurm and local"
  done
  cmp -s <(strip "$d/summary.json") <(strip "$T/cluster/$p/summary.json") && ok ||
    bad "$p/summary.json differs: $(diff <(strip "$d/summary.json") <(strip "$T/cluster/$p/summary.json") | head -5)"
done
[ $n = 4 ] && ok || bad "$n points locally, expected 4"
cmp -s <(nocol "$T/local/sweep.csv") <(nocol "$T/cluster/sweep.csv") && ok ||
  bad "sweep.csv differs: $(diff <(nocol "$T/local/sweep.csv") <(nocol "$T/cluster/sweep.csv") | tr "\n" " ")"

# resume: only the point without a result is submitted again
rm "$T/cluster/workers=5,method=fp16/summary.json"
"$CCSIM" sweep --collect "$T/cluster" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "3 done, 0 failed, 1 pending" "$T/err" &&
  grep -q '"workers=5,method=fp16",5,fp16,pending' "$T/cluster/sweep.csv" && ok ||
  bad "collect with a point missing: exit $rc, $(cat "$T/err")"
"$CCSIM" sweep "$T/sweep.json" --out "$T/cluster" --slurm --print | grep -qx '#SBATCH --array=2' && ok ||
  bad "resubmission does not hold only point 2"
job=$("$CCSIM" sweep "$T/sweep.json" --out "$T/cluster" --slurm 2>"$T/err") || bad "resubmit: $(cat "$T/err")"
wait_job "$job" && "$CCSIM" sweep --collect "$T/cluster" 2>/dev/null && ok || bad "resubmitted job"
cmp -s "$T/local/workers=5,method=fp16/hops.csv" "$T/cluster/workers=5,method=fp16/hops.csv" && ok ||
  bad "the point run again differs"
# a task of a sweep that changed since submission refuses to run
sed -i 's/\[2, 5\]/[3, 5]/' "$T/sweep.json"
"$CCSIM" sweep "$T/sweep.json" --out "$T/cluster" --point 0 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "changed since it was submitted" "$T/err" && ok || bad "changed sweep: exit $rc $(cat "$T/err")"
echo "slurm: $pass passed, $fail failed"
[ $fail -eq 0 ]
