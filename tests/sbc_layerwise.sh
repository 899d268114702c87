#!/usr/bin/env bash
# tests/sbc_layerwise.sh CCSIM SRCDIR — SBC binarizes per layer in its accuracy
# studies (Sattler et al., arXiv 1805.08768: one mean per tensor), i.e. the
# workloads run it with the "layerwise" schedule.  For each accuracy workload
# (workloads/convergence/sbc.json, workloads/convergence/fmnist/sbc.json,
# workloads/papers/sbc/train-sbc.json) its schedule is checked, and for the
# digits one the wire format too: one iteration is run with 4 workers, its
# gradients recorded (--record-trace), and the bytes on the wire of iteration 0
# recomputed from them, payload by payload: every worker sends, for each
# layer l of n_l elements, one fp32 mean and k_l = ceil(ratio n_l) Golomb-Rice
# coded positions of the side with the larger mean (compressors/sbc.c,
# compressors/golomb.h), all-gathered over N - 1 hops.  The total must match
# exactly; the same recomputation with one payload for the whole model (one
# mean, the "single" schedule) must not, and must match a single-schedule
# run, so the check tells the two apart.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0
for w in convergence/sbc.json convergence/fmnist/sbc.json papers/sbc/train-sbc.json; do
  "$SRC/analysis/py" - "$SRC/workloads/$w" <<'PY' || bad=1
import json, sys
e = json.load(open(sys.argv[1]))
k = e.get("schedule", {}).get("kind", "single")
if k != "layerwise":
    sys.exit(f"FAIL: {sys.argv[1]}: schedule.kind {k!r}, expected 'layerwise' (one SBC mean per layer)")
PY
done
W="$SRC/workloads/convergence/sbc.json"
for kind in layerwise single; do
  "$CCSIM" run "$W" --out "$T/$kind" --quiet --set iterations=1 --set workers=4 \
    --set "schedule={\"kind\": \"$kind\"}" --record-trace "$T/trace-$kind" >/dev/null 2>"$T/$kind.err" ||
    { echo "run $kind failed:"; cat "$T/$kind.err"; exit 1; }
done
"$SRC/analysis/py" - "$T" <<'PY' || bad=1
import csv, json, math, os, sys
import numpy as np
T = sys.argv[1]

def rice(k, n):
    q = (k + 1) / (n + 1)
    if not q < 1:
        return 0
    r = math.log((math.sqrt(5) + 1) / 2 - 1) / math.log1p(-q)
    if not r >= 0.5:
        return 0
    return min(30, int(1 + math.floor(math.log2(r))))

def key(x, neg):
    """compressors/select.h's ccsel_key: an order on float bits."""
    u = x.view(np.uint32).astype(np.uint64)
    if neg:
        u ^= 0x80000000
    return np.where(u >> 31 == 1, (~u) & 0xffffffff, u | 0x80000000)

def payload(x, ratio=0.01):
    """Bytes of one SBC payload of x: fp32 mean + Golomb-coded positions."""
    n = len(x)
    k = min(n, max(1, math.ceil(ratio * n - 1e-9)))
    sides = []
    for neg in (False, True):
        kk = key(x, neg)
        order = np.lexsort((np.arange(n), -kk.astype(np.int64)))  # larger key, then lower index
        pos = np.sort(order[:k])
        s = -x[pos].astype(np.float64).sum() if neg else x[pos].astype(np.float64).sum()
        sides.append((s / k, pos))
    pos = sides[0][1] if sides[0][0] >= sides[1][0] else sides[1][1]
    b = rice(k, n)
    g1 = np.diff(np.concatenate(([-1], pos))) - 1
    bits = int(((g1 >> b) + 1 + b).sum())
    return 4 + (bits + 7) // 8

def expected(trace, per_layer):
    idx = json.load(open(os.path.join(T, trace, "index.json")))
    counts = [l["count"] for l in idx["layers"]]
    N = idx["workers"]
    total = 0
    for w in range(N):
        g = np.load(os.path.join(T, trace, f"w{w}", "it0.npy")).astype(np.float32)
        if per_layer:
            off = np.concatenate(([0], np.cumsum(counts)))
            total += sum(payload(g[off[i]:off[i + 1]]) for i in range(len(counts)))
        else:
            total += payload(g)
    return (N - 1) * total, len(counts)

def measured(run):
    with open(os.path.join(T, run, "iterations.csv")) as f:
        return float(next(csv.DictReader(f))["bytes_on_wire"])

lw, L = expected("trace-layerwise", True)
one, _ = expected("trace-layerwise", False)
ml, ms = measured("layerwise"), measured("single")
sched = json.load(open(os.path.join(T, "layerwise", "summary.json")))["schedule"]["buckets"]
print(f"sbc wire, iteration 0, 4 workers: layerwise measured {ml:.0f}, recomputed with one mean per "
      f"layer ({L} layers) {lw}; one mean for the model {one}; single-schedule run {ms:.0f}")
ok = True
if len(sched) != L:
    print(f"FAIL: {len(sched)} buckets, {L} layers"); ok = False
if ml != lw:
    print("FAIL: the layerwise run's bytes are not one SBC payload (one mean) per layer"); ok = False
if lw == one:
    print("FAIL: the check cannot tell one mean per layer from one per model"); ok = False
if ms != expected("trace-single", False)[0]:
    print("FAIL: the single-schedule run's bytes are not one payload per worker"); ok = False
sys.exit(0 if ok else 1)
PY
[ "$bad" -eq 0 ] && echo "sbc: one binarization mean per layer in the accuracy studies" || exit 1
