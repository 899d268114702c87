#!/usr/bin/env bash
# tests/plot_convergence_ci.sh SRCDIR — what analysis/plot_convergence.py
# computes for the paired confidence intervals, on numbers worked by hand:
#   differences 1, 2, 3: mean 2, s = 1, t_{0.975,2} = 4.303, half-width
#   4.303 / sqrt(3) = 2.4843: [-0.4843, 4.4843], no claim;
#   differences -1.0, -1.2, -0.8, -1.1, -0.9 (5 seeds): mean -1, s = 0.15811,
#   t_{0.975,4} = 2.776, half-width 0.19630: [-1.1963, -0.8037], "worse";
#   df 35 takes t_{0.975,30} = 2.042 (conservative), one pair gives no interval.
# And `matrix` on made-up result directories (3 seeds, 8 workers, iid;
# accuracy constant over the iterations): Marsit -1, -2, 0 points from
# uncompressed: -1 [-3.484, +1.484] n.s.; the sign ring -10, -9, -8: -9
# [-11.484, -6.516] worse; Marsit minus the sign ring 9, 7, 8: +8 better.
set -u
SRC=$1
"$SRC/analysis/py" - "$SRC/analysis" <<'PY'
import math, sys
sys.path.insert(0, sys.argv[1])
from plot_convergence import paired_ci, verdict, t975
bad = 0
def near(a, b, what, tol=1e-4):
    global bad
    if not abs(a - b) <= tol:
        print(f"FAIL {what}: {a} != {b}"); bad = 1
m, lo, hi = paired_ci([1, 2, 3])
near(m, 2, "mean"); near(lo, 2 - 4.303 / math.sqrt(3), "lo"); near(hi, 2 + 4.303 / math.sqrt(3), "hi")
if verdict(lo, hi) != "n.s.": print("FAIL verdict n.s."); bad = 1
m, lo, hi = paired_ci([-1.0, -1.2, -0.8, -1.1, -0.9])
near(m, -1, "mean5"); near(hi - lo, 2 * 2.776 * 0.158114 / math.sqrt(5), "width5")
if verdict(lo, hi) != "worse": print("FAIL verdict worse"); bad = 1
if verdict(0.1, 0.5) != "better": print("FAIL verdict better"); bad = 1
near(t975(35), 2.042, "t df 35"); near(t975(4), 2.776, "t df 4")
m, lo, hi = paired_ci([0.5])
if not (m == 0.5 and math.isnan(lo) and verdict(lo, hi) == "-"): print("FAIL one pair"); bad = 1
print("plot_convergence CI:", "ok" if not bad else "FAILED")
sys.exit(bad)
PY
ci=$?
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fake() { # method compressor seed accuracy
  local d="$T/$1-$3"
  mkdir -p "$d"
  printf '{"name": "conv-%s", "compressor": "%s", "workers": 8, "final_accuracy": %s, "compression_ratio": 1,
    "experiment": {"seed": %s, "platform": {"generate": "crossbar"}, "train": {"shards": "iid"}}}\n' \
    "$1" "$2" "$4" "$3" >"$d/summary.json"
  printf 'iteration,time_s,test_accuracy\n0,0.001,%s\n1,0.001,%s\n' "$4" "$4" >"$d/iterations.csv"
}
fake none none 1 0.80; fake none none 2 0.80; fake none none 3 0.80
fake marsit marsit 1 0.79; fake marsit marsit 2 0.78; fake marsit marsit 3 0.80
fake sign-ring sign-ring 1 0.70; fake sign-ring sign-ring 2 0.71; fake sign-ring sign-ring 3 0.72
"$SRC/analysis/py" "$SRC/analysis/plot_convergence.py" matrix "$T"/*-? --json "$T/m.json" >"$T/m.md" ||
  { echo "FAIL: matrix exited $?"; exit 1; }
"$SRC/analysis/py" - "$T/m.json" "$T/m.md" <<'PY'
import json, math, sys
m = json.load(open(sys.argv[1]))["iid"]
md = open(sys.argv[2]).read()
bad = 0
def cell(k, mean, lo, hi, claim):
    global bad
    c = m[k]["8"]
    ok = (abs(c["mean"] - mean) < 1e-6 and abs(c["lo"] - lo) < 1e-3 and abs(c["hi"] - hi) < 1e-3
          and c["claim"] == claim and c["n"] == 3)
    print(("ok   " if ok else "FAIL ") + f"{k}: {c}")
    bad |= not ok
h = 4.303 / math.sqrt(3)
cell("marsit", -1, -1 - h, -1 + h, "n.s.")
cell("sign-ring", -9, -9 - h, -9 + h, "worse")
cell("marsit minus sign-ring", 8, 8 - h, 8 + h, "better")
for want in ("| none (last-50 accuracy) | 0.8000 (n=3) |", "| sign-ring | -9.00 [-11.48, -6.52] worse |"):
    if want not in md:
        print("FAIL: the table lacks", want); bad = 1
sys.exit(bad)
PY
mx=$?
[ $ci -eq 0 ] && [ $mx -eq 0 ]
