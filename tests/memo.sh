#!/usr/bin/env bash
# tests/memo.sh CCSIM SRCDIR — the memo changes nothing but the host time:
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
strip() { grep -v -E '"(host_time_s|peak_rss_mb|simulated_iterations|memo_hits)"' "$1"; }
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
# the memo did its job where traces repeat: the golden ring's iterations
# send the same messages, so only the first is simulated
[ "${hits_golden:-0}" = 2 ] || { echo "FAIL golden: expected 2 memo hits, got ${hits_golden:-none}"; fail=1; }
# MergeComp's probes try other schedules: more than one trace to time
[ "${hits_mergecomp:-9}" -lt 9 ] || { echo "FAIL mergecomp: its probes were never simulated"; fail=1; }
[ $fail = 0 ] && echo "memo: every result file identical with and without the memo"
exit $fail
