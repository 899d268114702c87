#!/usr/bin/env bash
# tests/comm_nccl.sh CCSIM SRCDIR — comm.model "nccl" in the timing replay
# (docs/comm-model.md):
#   1. one node of 8 GPUs, 128 MiB all-reduce: the time is the hand-computed
#      ring of NCCL's constants (base 8.4 us; 14 messages of 3.4 us, NCCL's
#      step latency, not the links' 2 us, + S / (eff x 450 GB/s)), to 1e-9
#      relative;
#   2. the data are the ideal model's byte for byte (hops.csv), only time moves;
#      "comm": {"model": "ideal"} written out is today's run byte for byte;
#   3. 3 nodes x 8 GPUs, 4 NICs per node with 4 channels carry the all-reduce
#      at least 3.5x faster than 1 NIC (rails; the bound leaves room for the
#      NVLink steps and latencies that do not scale with NICs);
#   4. the protocol by size: 8 KiB calls go LL, 128 MiB Simple, counted in
#      summary.json; comm.protocol forces one;
#   5. a link-calibration file sets the efficiency: 370 / 450 on NVLink.
set -eu
CCSIM=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail=0
node='"platform": {"generate": "multigpu", "nodes": 1, "gpus_per_node": 8, "intra_bandwidth": "450GBps", "intra_latency": "1us"}'
printf '{"name": "one", "workers": 8, "iterations": 1, %s, "model": {"elements": 33554432, "sample": 4096}, "compressor": "none"}\n' "$node" >one.json
"$CCSIM" run one.json --out ideal --quiet >/dev/null
"$CCSIM" run one.json --out nccl --quiet --set comm.model=nccl >/dev/null
"$CCSIM" run one.json --out ideal2 --quiet --set comm.model=ideal >/dev/null
printf '{"name": "small", "workers": 8, "iterations": 2, %s, "model": {"elements": 2048}, "compressor": "none"}\n' "$node" >small.json
"$CCSIM" run small.json --out small --quiet --set comm.model=nccl >/dev/null
"$CCSIM" run small.json --out forced --quiet --set comm.model=nccl --set comm.protocol=Simple >/dev/null
"$CCSIM" run one.json --out links --quiet --set comm.model=nccl --set comm.links=h100-nvswitch >/dev/null
for K in 1 4; do
  printf '{"name": "rails%d", "workers": 24, "iterations": 1, "platform": {"generate": "multigpu", "nodes": 3, "gpus_per_node": 8, "nics_per_node": %d, "bandwidth": "200Gbps", "latency": "2us", "intra_bandwidth": "300GBps"}, "model": {"elements": 67108864, "sample": 4096}, "compressor": "none", "comm": {"model": "nccl"}}\n' "$K" "$K" >rails$K.json
  "$CCSIM" run rails$K.json --out rails$K --quiet >/dev/null
done
# determinism: threads and memo change nothing; a multi-phase compressor (PowerSGD's rounds, one call each)
printf '{"name": "det", "workers": 8, "iterations": 3, "platform": {"generate": "multigpu", "nodes": 2, "gpus_per_node": 4, "nics_per_node": 2}, "model": {"elements": 4096}, "compressor": "fp16", "comm": {"model": "nccl"}}\n' >det.json
"$CCSIM" run det.json --out det1 --quiet --threads 1 >/dev/null
"$CCSIM" run det.json --out det2 --quiet --threads 2 --no-memo >/dev/null
for f in iterations.csv hops.csv; do
  cmp -s det1/$f det2/$f || { echo "FAIL: nccl: --threads/--no-memo changed $f"; fail=1; }
done
"$CCSIM" run det.json --out psgd --quiet --set compressor=powersgd >/dev/null || { echo "FAIL: powersgd under nccl"; fail=1; }
cmp -s ideal/hops.csv nccl/hops.csv || { echo "FAIL: nccl changed the data (hops.csv)"; fail=1; }
for f in iterations.csv hops.csv; do
  cmp -s ideal/$f ideal2/$f || { echo "FAIL: comm.model=ideal changed $f"; fail=1; }
done
python3 - <<'PY' || fail=1
import json, sys
def s(d): return json.load(open(d + "/summary.json"))
bad = []
# 1. hand-computed ring: 8 ranks, 14 messages of S = 128 MiB / 8
n = s("nccl"); eff = n["comm"]["simple_efficiency"]["nvlink"]
S = 134217728 / 8
want = 8.4e-6 + 14 * (3.4e-6 + S / eff / 450e9)
got = n["iteration_time_s"]
if abs(got - want) > 1e-9 * want: bad.append("one node: %.12g s, hand-computed %.12g s" % (got, want))
if "comm" in s("ideal") or "comm" in s("ideal2"): bad.append("the ideal model reports comm settings")
# 3. rails
r1, r4 = s("rails1"), s("rails4")
ratio = r1["iteration_time_s"] / r4["iteration_time_s"]
if r4["comm"]["channels"] != 4 or ratio < 3.5 or ratio > 4.0001:
    bad.append("4 NICs vs 1: %.3fx (channels %d), expected 3.5-4x" % (ratio, r4["comm"]["channels"]))
# 4. protocols
c = s("small")["comm"]["protocol_calls"]
if c != {"LL": 2, "LL128": 0, "Simple": 0}: bad.append("8 KiB calls: %s, expected 2 LL" % c)
if n["comm"]["protocol_calls"] != {"LL": 0, "LL128": 0, "Simple": 1}: bad.append("128 MiB: %s" % n["comm"]["protocol_calls"])
f = s("forced")
if f["comm"]["protocol_calls"]["Simple"] != 2 or f["iteration_time_s"] <= s("small")["iteration_time_s"]:
    bad.append("comm.protocol=Simple: %s, %g s vs LL %g s" % (f["comm"]["protocol_calls"], f["iteration_time_s"], s("small")["iteration_time_s"]))
# PowerSGD: one call per round per iteration (rank 1: two rounds)
pc = s("psgd")["comm"]["protocol_calls"]
if sum(pc.values()) != 3 * 2: bad.append("powersgd: %s calls, expected 2 rounds x 3 iterations" % pc)
# 5. links
e = s("links")["comm"]["simple_efficiency"]["nvlink"]
if abs(e - 370 / 450) > 1e-12: bad.append("links: efficiency %.15g, expected 370/450" % e)
for b in bad: print("FAIL:", b)
print("rails: 4 NICs %.4gx faster than 1" % ratio)
sys.exit(1 if bad else 0)
PY
[ "$fail" -eq 0 ] && echo "comm_nccl: ok"
exit $fail
