#!/usr/bin/env bash
# tests/papers_sbc.sh CCSIM SRCDIR — the SBC paper study's bounded mode
# (QUICK=1 workloads/papers/sbc/run.sh: ResNet-50 traffic at p = 1% and
# 0.1%, m = 1 and 10; LeNet-5 on Fashion-MNIST, seeds 4-6, 100 iterations)
# and the direction of each claim from the numbers it produced
# (OUT/claims.json), as the study's README states them:
#   - the delay m divides the upstream by m: ratio(p, 10) / ratio(p, 1) in
#     [9.5, 10.5] for both p;
#   - one step at 0.1% is the Golomb table's x2,784 less the per-tensor
#     overhead of ResNet-50's 161 tensors: in [2,500, 2,900];
#   - p 1% with m 10 is beyond the paper's x3,531, and p 0.1% with m 10 is
#     more than four orders of magnitude but short of the paper's x37,208;
#   - on LeNet-5 neither SBC setting reaches the baseline's accuracy: both
#     paired intervals lie below zero, and 0.1% is below 1%.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
QUICK=1 JOBS=2 bash "$SRC/workloads/papers/sbc/run.sh" "$CCSIM" "$T/out" >"$T/log" 2>&1 ||
  { echo "run.sh failed:"; tail -20 "$T/log"; exit 1; }
for f in traffic.md accuracy.md traffic.png accuracy.png claims.json; do
  [ -s "$T/out/$f" ] || { echo "FAIL: no $f"; exit 1; }
done
cat "$T/out/traffic.md" "$T/out/accuracy.md"
/usr/bin/python3 - "$T/out/claims.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
t, a = c["traffic"], c["accuracy"]
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok
for p in ("0.01", "0.001"):
    r = t[f"resnet50-p{float(p):g}-m10"]["x"] / t[f"resnet50-p{float(p):g}-m1"]["x"]
    check(9.5 <= r <= 10.5, f"p {p}: delay 10 multiplies the saving by {r:.3f}")
x = t["resnet50-p0.001-m1"]["x"]
check(2500 <= x <= 2900, f"p 0.1%, m 1: x{x:.0f} (Golomb table x2,784)")
x = t["resnet50-p0.01-m10"]["x"]
check(x > c["paper"]["baseline_x"], f"p 1%, m 10: x{x:.0f} > paper's x3,531")
x = t["resnet50-p0.001-m10"]["x"]
check(1e4 < x < c["paper"]["minus1_x"], f"p 0.1%, m 10: x{x:.0f} in (x10,000, paper's x37,208)")
for m in ("sbc-p0.01-m10", "sbc-p0.001-m10"):
    e = a[m]
    check(e["hi"] is not None and e["hi"] < 0,
          f"{m}: paired difference {100 * e['diff']:+.2f} [{100 * e['lo']:+.2f}, {100 * e['hi']:+.2f}] below zero")
check(a["sbc-p0.001-m10"]["tail_accuracy"] < a["sbc-p0.01-m10"]["tail_accuracy"],
      "p 0.1% below p 1% in last-50 accuracy")
sys.exit(bad)
PY
