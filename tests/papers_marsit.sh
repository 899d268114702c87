#!/usr/bin/env bash
# tests/papers_marsit.sh CCSIM SRCDIR — the Marsit paper study's bounded
# mode (QUICK=1 workloads/papers/marsit/run.sh: LeNet-5 on Fashion-MNIST, 8
# workers on the cloud network at 10 Gbps, seeds 4-6, 100 iterations) and
# the direction of each claim from the numbers it produced
# (OUT/claims.json), as the study's README states them:
#   - simulated time per iteration: Marsit < fp32 on the same topology (one
#     bit per coordinate), the torus < the ring (fewer hops);
#   - "35% less time at the same accuracy" does not hold at fp32's accuracy
#     (minus a point): Marsit misses it in at least one seed; at the highest
#     accuracy every run reaches, Marsit over the torus saves time against
#     fp32 over the torus;
#   - "same convergence as uncompressed" does not hold here: Marsit's paired
#     interval (ring and torus) lies below zero;
#   - "the naive sign ring degrades (where Marsit does not)" does not hold
#     here: Marsit minus the sign ring is not above zero.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
QUICK=1 JOBS=2 bash "$SRC/workloads/papers/marsit/run.sh" "$CCSIM" "$T/out" >"$T/log" 2>&1 ||
  { echo "run.sh failed:"; tail -20 "$T/log"; exit 1; }
for f in table.md curves-8.png claims.json; do
  [ -s "$T/out/$f" ] || { echo "FAIL: no $f"; exit 1; }
done
cat "$T/out/table.md"
/usr/bin/python3 - "$T/out/claims.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["8"]
m = c["methods"]
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad |= not ok
it = {k: v["ms_per_iteration"] for k, v in m.items()}
check(it["marsit-ring"] < it["fp32-ring"] and it["marsit-torus"] < it["fp32-torus"] < it["fp32-ring"],
      "ms per iteration: marsit ring {marsit-ring:.3f} < fp32 ring {fp32-ring:.3f}; "
      "marsit torus {marsit-torus:.3f} < fp32 torus {fp32-torus:.3f}".format(**it))
for k in ("marsit-ring", "marsit-torus"):
    e = m[k]
    check(e["reached_same"] < len(e["seeds"]),
          f"{k} reaches fp32's accuracy {c['targets']['same']:.4f} in {e['reached_same']} of {len(e['seeds'])} seeds")
s = m["marsit-torus"]["saved_common"]
check(s is not None and s > 0, f"Marsit (torus) saves {s} of fp32 (torus)'s time to {c['targets']['common']:.2f}")
for k in ("marsit-ring", "marsit-torus"):
    e = m[k]
    check(e["hi"] is not None and e["hi"] < 0,
          f"{k}: paired difference {100 * e['diff']:+.2f} [{100 * e['lo']:+.2f}, {100 * e['hi']:+.2f}] below zero")
x = c["marsit_minus_sign_ring"]
check(x["lo"] is not None and x["lo"] < 0,
      f"Marsit minus sign ring {100 * x['diff']:+.2f} [{100 * x['lo']:+.2f}, {100 * x['hi']:+.2f}] not above zero")
sys.exit(bad)
PY
