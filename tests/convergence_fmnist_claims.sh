#!/usr/bin/env bash
# tests/convergence_fmnist_claims.sh CCSIM SRCDIR — a regression pin of the
# Fashion-MNIST LeNet-5 study (workloads/convergence/README.md) on one of
# its runs: seed 4, 8 workers, iid, 150 iterations, the shipped settings.
# Measured there: last-50 test accuracy uncompressed 0.7926, Marsit 0.7616
# (-3.10 points; over seeds 4-8 the paired difference is -3.30 with 95%
# interval [-3.94, -2.67]). Asserted, with margin: uncompressed reaches
# 0.75, and Marsit is at least 1.5 points behind it (it does NOT stay within
# a point here). Runs are deterministic on one machine, so this pins
# behaviour; the evidence is the study's.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
W="$SRC/workloads/convergence/fmnist"
run() { # name workload
  "$CCSIM" run "$W/$2.json" --out "$T/$1" --quiet --set seed=4 --set workers=8 \
    >/dev/null 2>"$T/$1.err" || { echo "run $1 failed:"; cat "$T/$1.err"; return 1; }
}
run none none & a=$!
run marsit marsit & b=$!
wait $a || exit 1
wait $b || exit 1
tail50() { # mean test accuracy of the evaluations in the last 50 iterations
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "test_accuracy") c = i; if ($i == "iteration") it = i } next }
           $c != "" { a[n] = $c; x[n++] = $it } END { s = 0; k = 0; for (i = 0; i < n; i++) if (x[i] + 1 > x[n-1] + 1 - 50) { s += a[i]; k++ } printf "%.6f", s / k }' \
    "$T/$1/iterations.csv"
}
none=$(tail50 none) marsit=$(tail50 marsit)
echo "last-50 test accuracy: none $none, marsit $marsit"
awk -v n="$none" -v m="$marsit" 'BEGIN {
  bad = 0
  if (n < 0.75) { print "FAIL: uncompressed LeNet-5 below 0.75"; bad = 1 }
  if (m > n - 0.015) { print "FAIL: marsit less than 1.5 points behind uncompressed"; bad = 1 }
  exit bad }'
