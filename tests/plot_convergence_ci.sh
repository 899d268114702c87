#!/usr/bin/env bash
# tests/plot_convergence_ci.sh SRCDIR — what analysis/plot_convergence.py
# computes for the paired confidence intervals, on numbers worked by hand:
#   differences 1, 2, 3: mean 2, s = 1, t_{0.975,2} = 4.303, half-width
#   4.303 / sqrt(3) = 2.4843: [-0.4843, 4.4843], no claim;
#   differences -1.0, -1.2, -0.8, -1.1, -0.9 (5 seeds): mean -1, s = 0.15811,
#   t_{0.975,4} = 2.776, half-width 0.19630: [-1.1963, -0.8037], "worse";
#   df 35 takes t_{0.975,30} = 2.042 (conservative), one pair gives no interval.
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
