#!/usr/bin/env bash
# tests/convergence_claims.sh CCSIM SRCDIR — a regression pin of the
# convergence study (workloads/convergence/README.md) on one of its runs:
# seed 4, 8 workers, 300 iterations, the shipped settings.  Measured there:
# last-50 test accuracy minus uncompressed, Marsit (compensation beta 0.5)
# -0.79 points, Marsit with the purely global compensation (beta 1) -1.96.
# Asserted, with margin: Marsit within 1 point of uncompressed SGD, and
# beta 1 at least half a point behind beta 0.5 (it is behind on all nine
# seed x worker-count runs of the study, by 0.76 to 2.20 points).  Runs are
# deterministic, so this pins behaviour; the evidence is the study's.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W="$SRC/workloads/convergence"
run() { # name workload
  "$CCSIM" run "$W/$2.json" --out "$T/$1" --quiet --set seed=4 --set workers=8 \
    >/dev/null 2>"$T/$1.err" || { echo "run $1 failed:"; cat "$T/$1.err"; exit 1; }
}
run none none
run marsit marsit
run beta1 marsit-beta1
tail50() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "test_accuracy") c = i; next }
           $c != "" { a[n++] = $c } END { s = 0; for (i = n - 50; i < n; i++) s += a[i]; printf "%.6f", s / 50 }' \
    "$T/$1/iterations.csv"
}
none=$(tail50 none) marsit=$(tail50 marsit) beta1=$(tail50 beta1)
echo "last-50 test accuracy: none $none, marsit $marsit, marsit beta 1 $beta1"
awk -v n="$none" -v m="$marsit" -v b="$beta1" 'BEGIN {
  bad = 0
  if (m < n - 0.01) { print "FAIL: marsit more than 1 point behind uncompressed"; bad = 1 }
  if (b > m - 0.005) { print "FAIL: marsit beta 1 not half a point behind beta 0.5"; bad = 1 }
  exit bad }'
