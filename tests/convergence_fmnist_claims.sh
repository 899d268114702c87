#!/usr/bin/env bash
# tests/convergence_fmnist_claims.sh CCSIM SRCDIR — a regression pin of the
# Fashion-MNIST LeNet-5 study (workloads/convergence/README.md) on one of
# its runs: seed 4, 8 workers, iid, 150 iterations, the shipped (tuned)
# settings. Measured there: last-50 test accuracy uncompressed 0.7926,
# Marsit 0.7728 (-1.98 points), naive sign ring 0.7662 (-2.64). Asserted,
# with margin for another machine's BLAS: uncompressed reaches 0.77; Marsit
# reaches 0.75 and is less than 4 points behind; the sign ring is at least
# one point behind. Runs are deterministic on one machine, so this pins
# behaviour; the claims and their intervals are the study's (run_all.sh).
# The study ran on OpenBLAS's Haswell kernels (AVX2 + FMA). OpenBLAS picks
# its kernel by CPU, and another kernel sums in another order: on an AVX-512
# EPYC it picks Cooperlake and the sign ring scored 0.7848 here, less than a
# point behind. So the runs pin the study's kernels where the CPU has them
# (docs/training.md, Determinism); measured, they then give the study's
# three figures to the digit on that EPYC too.
set -u
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=Haswell
fi
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
run sign-ring sign-ring & c=$!
wait $b || exit 1
wait $c || exit 1
tail50() { # mean test accuracy of the evaluations in the last 50 iterations
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "test_accuracy") c = i; if ($i == "iteration") it = i } next }
           $c != "" { a[n] = $c; x[n++] = $it } END { s = 0; k = 0; for (i = 0; i < n; i++) if (x[i] + 1 > x[n-1] + 1 - 50) { s += a[i]; k++ } printf "%.6f", s / k }' \
    "$T/$1/iterations.csv"
}
none=$(tail50 none) marsit=$(tail50 marsit) sign=$(tail50 sign-ring)
echo "last-50 test accuracy: none $none, marsit $marsit, sign ring $sign"
awk -v n="$none" -v m="$marsit" -v s="$sign" 'BEGIN {
  bad = 0
  if (n < 0.77) { print "FAIL: uncompressed LeNet-5 below 0.77"; bad = 1 }
  if (m < 0.75 || m < n - 0.04) { print "FAIL: marsit below 0.75 or 4 points or more behind uncompressed"; bad = 1 }
  if (s > n - 0.01) { print "FAIL: the naive sign ring less than a point behind uncompressed"; bad = 1 }
  exit bad }'
