#!/usr/bin/env bash
# tests/memo.sh CCSIM SRCDIR [quick] — the memo changes nothing but the host time:
# every result file of a run with the memo (the default) is byte-identical
# to the same run with --no-memo, which times every iteration in SimGrid
# (summary.json aside from its host-time and memo fields).  Cases: the
# golden ring, a parameter server with top-k both ways, PowerSGD's rounds
# over recursive halving-doubling, MergeComp's probes with a device and a
# timeline, a hierarchical all-reduce on a two-level fat-tree, and
# threshold's data-dependent sizes on the ring all-gather.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
strip() { grep -v -E '"(host_time_s|peak_rss_mb|simulated_iterations|memo_hits|analytical_iterations|analytical_messages|simgrid_iterations|simgrid_messages)"' "$1"; }
field() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1/summary.json"; }
check() { # name experiment [--set ...]
  local name=$1 exp=$2
  shift 2
  "$CCSIM" run "$exp" --quiet --out "$T/$name-memo" "$@" >/dev/null 2>"$T/err" || { echo "FAIL $name: run failed"; cat "$T/err"; fail=1; return; }
  "$CCSIM" run "$exp" --quiet --out "$T/$name-nomemo" --no-memo "$@" >/dev/null 2>"$T/err" || { echo "FAIL $name: --no-memo run failed"; cat "$T/err"; fail=1; return; }
  for f in "$T/$name-memo"/*; do
    b=$(basename "$f")
    if [ "$b" = summary.json ]; then
      cmp -s <(strip "$f") <(strip "$T/$name-nomemo/$b") || { echo "FAIL $name: summary.json differs"; diff <(strip "$f") <(strip "$T/$name-nomemo/$b") | head -5; fail=1; }
    else
      cmp -s "$f" "$T/$name-nomemo/$b" || { echo "FAIL $name: $b differs with and without the memo"; fail=1; }
    fi
  done
  local it sm hm sn hn
  it=$(sed -n 's/.*"iterations": \([0-9]*\).*/\1/p' "$T/$name-memo/summary.json" | head -1)
  sm=$(field "$T/$name-memo" simulated_iterations); hm=$(field "$T/$name-memo" memo_hits)
  sn=$(field "$T/$name-nomemo" simulated_iterations); hn=$(field "$T/$name-nomemo" memo_hits)
  [ "$sn" = "$it" ] && [ "$hn" = 0 ] || { echo "FAIL $name: --no-memo simulated $sn of $it, $hn hits"; fail=1; }
  [ $((sm + hm)) = "$it" ] || { echo "FAIL $name: memo: $sm simulated + $hm hits != $it"; fail=1; }
  echo "$name: $(ls "$T/$name-memo" | wc -l) files identical; memo: $sm of $it iterations simulated, $hm hits"
  eval "hits_$name=$hm"
}
G="$SRC/tests/golden/small.json"
# quick (the test memo-quick, seconds): threshold's sizes change from one
# iteration to the next, so a memo that keyed on anything less than every
# message's size and every duration would reuse a wrong iteration's times
if [ "${3:-}" = quick ]; then
  check threshold "$G" --set 'compressor={"name": "threshold", "tau": 0.05}' --set collective=allgather/ring
  # sampled: the bytes charged are the sample's scaled to the tensor, not
  # whole numbers, so they sit in the trace's values, not in its words
  check threshold_sampled "$G" --set 'compressor={"name": "threshold", "tau": 0.05}' --set collective=allgather/ring \
    --set 'model={"elements": 100003, "sample": 1001}'
  [ $fail = 0 ] && echo "memo-quick: every result file identical with and without the memo"
  exit $fail
fi
check golden "$G"
check ps "$G" --set 'compressor={"name": "topk", "ratio": 0.1}' --set 'collective={"name": "ps", "downlink": true}' --set iterations=4
check powersgd "$G" --set 'compressor={"name": "powersgd", "rank": 2}' --set collective=allreduce/rhd \
  --set workers=8 --set 'model={"elements": 4096}' --set iterations=3
check mergecomp "$SRC/workloads/walltime/resnet50.json" --set 'schedule={"kind": "mergecomp"}' --set iterations=10 \
  --set workers=4 --set model.sample=4096 --set 'compressor={"name": "topk", "ratio": 0.01, "memory": "residual"}' \
  --set collective=allgather/ring --set output.timeline=true
check fattree "$G" --set 'platform={"generate": "fat-tree", "down": [4, 4], "up": [1, 2], "parallel": [1, 1], "bandwidth": "10Gbps", "latency": "2us"}' \
  --set workers=16 --set 'collective={"name": "allreduce/hierarchical", "node_size": 4}' --set 'compressor={"name": "marsit", "memory": "marsit"}'
check threshold "$G" --set 'compressor={"name": "threshold", "tau": 0.05}' --set collective=allgather/ring
# more pairs than the timing executor's first mailbox table holds
check wide "$G" --set workers=600 --set 'model={"elements": 60000}' --set iterations=2 \
  --set 'platform={"generate": "crossbar", "hosts": 600, "bandwidth": "10Gbps", "latency": "2us"}'
# a sweep passes --no-memo and --threads to its points: a fat-tree sweep over
# two compressors and two worker counts, with the memo on 2 threads (two
# points at a time) and without it on 1, gives the same files point by point
# (and the same sweep.csv but for its host-time column); the job script of
# a --slurm submission carries both options to its tasks
cat >"$T/sweep.json" <<SWEEP
{"name": "memo-sweep", "base": "$(realpath "$G")",
 "set": {"platform": {"generate": "fat-tree", "down": [4, 4], "up": [1, 2], "parallel": [1, 1], "bandwidth": "10Gbps", "latency": "2us"}, "iterations": 3},
 "axes": [
   {"name": "method", "values": [
     {"label": "marsit", "set": {"compressor": {"name": "marsit", "memory": "marsit"}}},
     {"label": "topk", "set": {"compressor": {"name": "topk", "ratio": 0.05, "memory": "residual"}, "collective": "allgather/ring"}}]},
   {"path": "workers", "values": [8, 12]}]}
SWEEP
if "$CCSIM" sweep "$T/sweep.json" --quiet --jobs 2 --threads 2 --out "$T/sw-memo" 2>"$T/err" &&
  "$CCSIM" sweep "$T/sweep.json" --quiet --no-memo --threads 1 --out "$T/sw-nomemo" 2>"$T/err"; then
  np=0
  for d in "$T/sw-memo"/*/; do
    p=$(basename "$d")
    for f in "$d"*; do
      b=$(basename "$f")
      if [ "$b" = summary.json ]; then
        cmp -s <(strip "$f") <(strip "$T/sw-nomemo/$p/$b") || { echo "FAIL sweep $p: summary.json differs"; fail=1; }
      else
        cmp -s "$f" "$T/sw-nomemo/$p/$b" || { echo "FAIL sweep $p: $b differs"; fail=1; }
      fi
    done
    [ "$(field "$T/sw-nomemo/$p" memo_hits)" = 0 ] && [ "$(field "$T/sw-memo/$p" memo_hits)" = 2 ] ||
      { echo "FAIL sweep $p: memo hits $(field "$T/sw-memo/$p" memo_hits) with, $(field "$T/sw-nomemo/$p" memo_hits) without"; fail=1; }
    np=$((np + 1))
  done
  [ "$np" = 4 ] || { echo "FAIL sweep: $np points, expected 4"; fail=1; }
  cmp -s <(cut -d, -f1-18 "$T/sw-memo/sweep.csv") <(cut -d, -f1-18 "$T/sw-nomemo/sweep.csv") ||
    { echo "FAIL sweep: sweep.csv differs beyond host time"; fail=1; }
  echo "sweep: $np points identical with and without the memo, on 2 and 1 threads"
else
  echo "FAIL sweep: $(cat "$T/err")"; fail=1
fi
"$CCSIM" sweep "$T/sweep.json" --out "$T/sw-slurm" --slurm --print --cpus-per-task 3 --no-memo 2>&1 |
  grep -q -- ' --threads 3 --no-memo --point "$SLURM_ARRAY_TASK_ID"$' ||
  { echo "FAIL sweep: the --slurm job script does not pass --threads 3 --no-memo"; fail=1; }
# the memo did its job where traces repeat: the golden ring's iterations
# send the same messages, so only the first is simulated
[ "${hits_golden:-0}" = 2 ] || { echo "FAIL golden: expected 2 memo hits, got ${hits_golden:-none}"; fail=1; }
# MergeComp's probes try other schedules: more than one trace to time
[ "${hits_mergecomp:-9}" -lt 9 ] || { echo "FAIL mergecomp: its probes were never simulated"; fail=1; }
[ $fail = 0 ] && echo "memo: every result file identical with and without the memo"
exit $fail
