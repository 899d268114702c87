#!/usr/bin/env bash
# tests/timing_paths.sh CCSIM SRCDIR — the analytical timing path is exact:
# every experiment below runs with --timing auto and --timing simgrid, and
#  - every simulated time (summary.json's numbers, iterations.csv's and
#    timeline.csv's fields) agrees within 1e-9 relative;
#  - every data result (hops.csv, and every other field) is byte-identical;
#  - the path each run took is the one expected: "fast" cases must be timed
#    analytically in auto mode (so the test fails if the path silently stops
#    applying), "slow" ones (contention) must fall back to SimGrid, "any"
#    may do either; --timing simgrid never times analytically.
# Cases: crossbar rings at several N, a tree, rhd, torus2d, a hierarchical
# all-reduce on multigpu, a compressed ring (Marsit with memory), a fat-tree
# with contention, memo on and off, 1 and 2 threads, the quickstart, LV08,
# a torus and a cloud platform, ResNet-50 walltime points with a device
# (backward overlapping the collective, on hosts of one and two cores), and setups the path does not cover
# (cross-traffic, SMPI's model, a --cfg option, comm.model "nccl").
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
G="$SRC/tests/golden/small.json"
compare() { python3 "$SRC/tests/timing_compare.py" "$1" "$2"; } # dirA dirB: 0 when equal (timing_compare.py)
paths() { # dir: "analytical_iterations simgrid_iterations analytical_messages simgrid_messages"
  python3 "$SRC/tests/timing_compare.py" --paths "$1"
}
check() { # name fast|slow|any experiment [run options and --set ...]
  local name=$1 want=$2 exp=$3
  shift 3
  for m in auto simgrid; do
    "$CCSIM" run "$exp" --quiet --out "$T/$name-$m" --timing $m "$@" >/dev/null 2>"$T/err" ||
      { echo "FAIL $name: --timing $m run failed"; cat "$T/err"; fail=1; return; }
  done
  local how
  how=$(compare "$T/$name-auto" "$T/$name-simgrid") || { echo "FAIL $name: auto and simgrid disagree"; echo "$how"; fail=1; return; }
  read -r fa sa fm sm <<<"$(paths "$T/$name-auto")"
  read -r fs _ _ _ <<<"$(paths "$T/$name-simgrid")"
  [ "$fs" = 0 ] || { echo "FAIL $name: --timing simgrid timed $fs iterations analytically"; fail=1; }
  case $want in
  fast) [ "$fa" -gt 0 ] && [ "$sa" = 0 ] || { echo "FAIL $name: expected the analytical path, got $fa analytical, $sa SimGrid"; fail=1; } ;;
  slow) [ "$sa" -gt 0 ] && [ "$fa" = 0 ] || { echo "FAIL $name: expected SimGrid (contention), got $fa analytical, $sa SimGrid"; fail=1; } ;;
  esac
  echo "$name: $how; auto timed $fa iterations ($fm messages) analytically, $sa ($sm) in SimGrid"
}
ring() { echo "--set workers=$1 --set model={\"elements\":$((1000 * $1))} --set platform={\"generate\":\"crossbar\",\"bandwidth\":\"10Gbps\",\"latency\":\"2us\"}"; }
# shellcheck disable=SC2046
check ring2 fast "$G" $(ring 2)
# shellcheck disable=SC2046
check ring7 fast "$G" $(ring 7)
# shellcheck disable=SC2046
check ring64 fast "$G" $(ring 64) --set iterations=2
# more routes than the path's first table holds
# shellcheck disable=SC2046
check ring520 fast "$G" $(ring 520)
# unequal chunks: a worker's next send can start before its last one ends
# shellcheck disable=SC2046
check ring600-uneven any "$G" $(ring 600) --set 'model={"elements": 60001}'
check golden fast "$G"
check golden-nomemo fast "$G" --no-memo
check golden-1thread fast "$G" --threads 1
check golden-2threads fast "$G" --threads 2
check tree fast "$G" --set collective=allreduce/tree --set workers=13
check rhd fast "$G" --set collective=allreduce/rhd --set workers=12
check torus2d fast "$G" --set 'collective={"name": "allreduce/torus2d", "rows": 3}' --set workers=12
check marsit fast "$G" --set 'compressor={"name": "marsit", "memory": "marsit"}' --set workers=8 --set iterations=4 --no-memo
check lv08 fast "$G" --set platform.network_model=LV08
# setups the path does not cover: SimGrid times them
check crosstraffic slow "$G" --set platform.crosstraffic=true
check smpi-model slow "$G" --set platform.network_model=SMPI
check cfg-option slow "$G" --cfg network/TCP-gamma:65536
check nccl slow "$SRC/workloads/comm/h100-2nodes.json" --set iterations=1 --set workers=8 --set model.sample=4096
check hierarchical any "$G" --set workers=16 --set 'collective={"name": "allreduce/hierarchical", "node_size": 4}' \
  --set 'platform={"generate": "multigpu", "nodes": 4, "gpus_per_node": 4}'
FT='platform={"generate": "fat-tree", "down": [4, 4], "up": [1, 2], "parallel": [1, 1], "bandwidth": "10Gbps", "latency": "2us"}'
# every worker pushes to one server at once: they share its link
check fattree-ps slow "$G" --set "$FT" --set workers=16 --set 'collective={"name": "ps", "servers": 1}' \
  --set 'compressor={"name": "topk", "ratio": 0.1}'
check fattree-hier any "$G" --set "$FT" --set workers=16 --set 'collective={"name": "allreduce/hierarchical", "node_size": 4}' \
  --set 'compressor={"name": "marsit", "memory": "marsit"}'
check fattree-ring any "$G" --set "$FT" --set workers=16 --set collective=allgather/ring --set 'compressor={"name": "topk", "ratio": 0.1}'
check torus any "$G" --set workers=27 --set 'platform={"generate": "torus", "dims": [3, 3, 3], "bandwidth": "10Gbps", "latency": "2us"}'
check torus-t2d any "$G" --set workers=16 --set 'collective={"name": "allreduce/torus2d", "rows": 4}' \
  --set 'platform={"generate": "torus", "dims": [4, 4], "bandwidth": "10Gbps", "latency": "2us"}'
check cloud any "$G" --set workers=16 --set 'platform={"generate": "cloud", "racks": 2, "hosts_per_rack": 8, "oversubscription": 4}'
check quickstart fast "$SRC/workloads/quickstart.json" --set iterations=2
R50="$SRC/workloads/walltime/resnet50.json"
# backward's kernels and the buckets' encodes share a host's device: its
# executions share its speed (processor sharing, one core or several)
check resnet50-device fast "$R50" --set workers=4 --set model.sample=4096 --set iterations=2
check resnet50-single fast "$R50" --set workers=4 --set model.sample=4096 --set iterations=2 --set 'schedule={"kind": "single"}'
check resnet50-marsit fast "$R50" --set workers=16 --set model.sample=4096 --set iterations=2 \
  --set 'compressor={"name": "marsit", "memory": "marsit"}'
sed 's/speed="1Gf"/speed="1Gf" core="2"/' "$T/resnet50-marsit-auto/platform.xml" >"$T/two-cores.xml"
grep -q 'core="2"' "$T/two-cores.xml" || { echo "FAIL no two-core platform made"; fail=1; }
check resnet50-2cores fast "$R50" --set workers=16 --set model.sample=4096 --set iterations=2 --set platform="$T/two-cores.xml"
check resnet50-fp16 fast "$R50" --set workers=6 --set model.sample=4096 --set iterations=2 --set compressor=fp16 --set output.timeline=true
# a mode that is neither: exit 2, one line naming the option
# `ccsim sweep --timing` reaches every point's run (and a Slurm task's line)
printf '{"name": "tp", "base": "%s", "axes": [{"path": "workers", "values": [3, 5]}]}\n' "$(realpath "$G")" >"$T/sweep.json"
for m in auto simgrid; do
  "$CCSIM" sweep "$T/sweep.json" --quiet --out "$T/sw-$m" --timing $m >/dev/null 2>"$T/err" ||
    { echo "FAIL sweep --timing $m failed: $(cat "$T/err")"; fail=1; }
done
for w in 3 5; do
  how=$(compare "$T/sw-auto/workers=$w" "$T/sw-simgrid/workers=$w") || { echo "FAIL sweep workers=$w: auto and simgrid disagree: $how"; fail=1; }
  read -r fa _ _ _ <<<"$(paths "$T/sw-auto/workers=$w")"
  read -r fs _ _ _ <<<"$(paths "$T/sw-simgrid/workers=$w")"
  [ "$fa" -gt 0 ] && [ "$fs" = 0 ] || { echo "FAIL sweep workers=$w: --timing not passed on (auto $fa, simgrid $fs analytical iterations)"; fail=1; }
done
"$CCSIM" sweep "$T/sweep.json" --out "$T/sw-slurm" --slurm --print --timing simgrid 2>"$T/err" | grep -q -- ' --timing simgrid --point ' ||
  { echo "FAIL sweep --slurm --timing simgrid: the task line does not pass it on"; fail=1; }
"$CCSIM" run "$G" --quiet --out "$T/bad" --timing fast >/dev/null 2>"$T/err"
rc=$?
{ [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- '--timing: expected "auto" or "simgrid", got "fast"' "$T/err"; } ||
  { echo "FAIL --timing fast: exit $rc: $(cat "$T/err")"; fail=1; }
[ $fail -eq 0 ] && echo "timing_paths: --timing auto equals --timing simgrid on every case"
exit $fail
