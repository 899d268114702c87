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
#   5. a link-calibration file sets the efficiency: 370 / 450 on NVLink;
#   6. 8 nodes of one GPU, 8 KiB: the ring's call priced as NCCL's tree (the tuner's
#      choice), and as the ring with comm.algorithm=ring, both hand-computed.
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
printf '{"name": "pcie", "workers": 4, "iterations": 1, "platform": {"generate": "pcie-server", "gpus": 4, "gpus_per_switch": 4, "sockets": 1, "bandwidth": "31.5GBps"}, "model": {"elements": 67108864, "sample": 4096}, "compressor": "none", "comm": {"model": "nccl", "links": "pcie4-4090"}}\n' >pcie.json
"$CCSIM" run pcie.json --out pcie --quiet >/dev/null
# 8 nodes of one GPU, 8 KiB: NCCL's tuner prices the ring's call as its tree; comm.algorithm=ring forces the ring
printf '{"name": "tree", "workers": 8, "iterations": 1, "platform": {"generate": "multigpu", "nodes": 8, "gpus_per_node": 1}, "model": {"elements": 2048}, "compressor": "none", "comm": {"model": "nccl"}}\n' >tree.json
"$CCSIM" run tree.json --out tree --quiet >/dev/null
"$CCSIM" run tree.json --out ring --quiet --set comm.algorithm=ring >/dev/null
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
"$CCSIM" validate "$SRC/workloads/comm/h100-2nodes.json" >/dev/null || { echo "FAIL: workloads/comm/h100-2nodes.json"; fail=1; }
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
# tree pricing, hand-computed: NET LL step 5.0 + 9.5 (one GPU per node) = 14.5 us;
# tree: 6.8 + 2 x 3 x 14.5 = 93.8 us, spread over 14 messages of 1 KiB at 3.125e9 x 0.95 x 0.92 / 3.8;
# ring: 6.6 + 14 x (14.5 us + 1 KiB / (3.125e9 x 0.95 x 0.5))
t, r = s("tree"), s("ring")
e = t["comm"]["simple_efficiency"]["nic"]
want_t = 6.8e-6 + 14 * (2 * 3 * 14.5e-6 / 14 + 1024 / (3.125e9 * e * 0.92 / 3.8))
want_r = 6.6e-6 + 14 * (14.5e-6 + 1024 / (3.125e9 * e * 0.5))
# SimGrid settles times to 1 ns (surf/precision): 15 events, 15 ns
if t["comm"]["algorithm_calls"] != {"tree": 1, "ring": 0} or abs(t["iteration_time_s"] - want_t) > 15e-9:
    bad.append("tree-priced: %s %.12g s, hand-computed %.12g s" % (t["comm"]["algorithm_calls"], t["iteration_time_s"], want_t))
if r["comm"]["algorithm_calls"] != {"tree": 0, "ring": 1} or abs(r["iteration_time_s"] - want_r) > 15e-9:
    bad.append("ring-forced: %s %.12g s, hand-computed %.12g s" % (r["comm"]["algorithm_calls"], r["iteration_time_s"], want_r))
# 5. links
e = s("links")["comm"]["simple_efficiency"]["nvlink"]
if abs(e - 370 / 450) > 1e-12: bad.append("links: efficiency %.15g, expected 370/450" % e)
p = s("pcie")["comm"]
if p["intra_node_links"] != "pcie" or abs(p["simple_efficiency"]["pcie"] - 25.9 / 31.5) > 1e-12 or p["protocol_calls"]["LL128"]:
    bad.append("pcie-server with pcie4-4090: %s" % p)
for b in bad: print("FAIL:", b)
print("rails: 4 NICs %.4gx faster than 1" % ratio)
sys.exit(1 if bad else 0)
PY
[ "$fail" -eq 0 ] && echo "comm_nccl: ok"
exit $fail
