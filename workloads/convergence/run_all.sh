#!/usr/bin/env bash
# workloads/convergence/run_all.sh CCSIM OUT — the runs behind README.md:
# every workload of this directory with seeds 1, 2 and 3 on its own 10 Gbps
# crossbar, and with seed 1 at 1 Gbps and 100 Gbps; then the table
# (OUT/table.md) and the figures (OUT/curves.png, OUT/tta.png).
# 35 runs, about 4 host seconds each.
set -eu
CCSIM=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
METHODS="none marsit sign-ring ef-signsgd topk global-qsgd sbc"
for m in $METHODS; do
  for seed in 1 2 3; do
    "$CCSIM" run "$HERE/$m.json" --out "$OUT/10Gbps/seed$seed/$m" --set seed=$seed --quiet >/dev/null
  done
  for bw in 1Gbps 100Gbps; do
    "$CCSIM" run "$HERE/$m.json" --out "$OUT/$bw/$m" --set platform.bandwidth=$bw --quiet >/dev/null
  done
done
P="$SRC/analysis/py $SRC/analysis/plot_convergence.py"
dirs() { for m in $METHODS; do for d in "$@"; do echo "$d/$m"; done; done; }
$P table $(dirs "$OUT/10Gbps/seed1" "$OUT/10Gbps/seed2" "$OUT/10Gbps/seed3") >"$OUT/table.md"
$P curves $(dirs "$OUT/10Gbps/seed1") -o "$OUT/curves.png"
$P tta --speed 1Gbps $(dirs "$OUT/1Gbps") --speed 10Gbps $(dirs "$OUT/10Gbps/seed1") \
  --speed 100Gbps $(dirs "$OUT/100Gbps") -o "$OUT/tta.png"
cat "$OUT/table.md"
