#!/usr/bin/env bash
# workloads/convergence/run_all.sh CCSIM OUT [JOBS] — the runs behind
# README.md, on seeds 4, 5 and 6 (tune.sh chose every setting on seeds 1-3):
#   - every workload of this directory (marsit-beta1.json: Marsit with the
#     purely global compensation of docs/algorithms.md, at its own tuned setting),
#     with 8, 16 and 32 workers on a 10 Gbps crossbar;
#   - the same with seed 4 and 16 workers at 100 Mbps, 1 Gbps and 100 Gbps;
# then OUT/table-{8,16,32}.md and the figures OUT/curves.png (seed 4, 16
# workers) and OUT/tta.png (time to the target at 0.1, 1, 10 and 100 Gbps).
# 96 runs of about 2 host seconds; JOBS (default: the number of cores) at once.
set -eu
CCSIM=$(realpath "$1")
OUT=$2
JOBS=${3:-$(nproc)}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
METHODS="none marsit marsit-beta1 sign-ring ef-signsgd topk global-qsgd sbc"
mkdir -p "$OUT"
jobs=$OUT/jobs.txt
: >"$jobs"
for m in $METHODS; do
  for w in 8 16 32; do
    for seed in 4 5 6; do
      echo "$OUT/w$w/seed$seed/$m $m workers=$w seed=$seed" >>"$jobs"
    done
  done
  for bw in 100Mbps 1Gbps 100Gbps; do
    echo "$OUT/$bw/$m $m seed=4 platform.bandwidth=$bw" >>"$jobs"
  done
done
. "$HERE/common.sh"
export CCSIM HERE
xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ <"$jobs"
P="$SRC/analysis/py $SRC/analysis/plot_convergence.py"
dirs() { for m in $METHODS; do for d in "$@"; do echo "$d/$m"; done; done; }
for w in 8 16 32; do
  $P table $(dirs "$OUT/w$w/seed4" "$OUT/w$w/seed5" "$OUT/w$w/seed6") >"$OUT/table-$w.md"
done
$P curves $(dirs "$OUT/w16/seed4") -o "$OUT/curves.png"
$P tta --speed 100Mbps $(dirs "$OUT/100Mbps") --speed 1Gbps $(dirs "$OUT/1Gbps") --speed 10Gbps $(dirs "$OUT/w16/seed4") \
  --speed 100Gbps $(dirs "$OUT/100Gbps") -o "$OUT/tta.png"
for w in 8 16 32; do
  echo "## $w workers"
  cat "$OUT/table-$w.md"
  echo
done
