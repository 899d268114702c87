#!/usr/bin/env bash
# tests/timeline.sh CCSIM SRCDIR — iteration times recomputed by hand for a
# 2-layer model (tests/data/two_layers.json): layers a (1M parameters, 1
# GFLOP forward per sample) and b (3M, 2 GFLOPs), backward 2x forward, batch
# 4, on V100s at efficiency 0.5 (R = 15.7 TFLOPS x 0.5; NVIDIA V100
# datasheet), 4 workers, ring all-reduce, 10 Gbps crossbar (B = 1.25e9
# bytes/s, alpha = 2 x 5 us), compressor none, whose only device work is the
# element-wise add of each combine: one launch (5 us), 12 bytes per element
# at 900 GB/s and one flop per element at peak (src/timemodel/device.c's formula).
#
#   forward          4 x 3e9 / R
#   backward         b first (4 x 4e9 / R), then a (4 x 2e9 / R)
#   ring of S bytes  6 (alpha + S / 4 / B) plus 3 combines of S/16 elements
#   layerwise        b's ring starts when b's backward ends; a's ring waits
#                    for it (one communication actor per worker), so
#                    T = fwd + bwd_b + ring(12 MB) + ring(4 MB)
#   single           T = fwd + bwd_b + bwd_a + ring(16 MB)
#   buckets 14 MB    b alone fills a bucket (12 MB < 14 MB: b and a together,
#                    16 MB): the same as single
# The exposed communication is T minus the end of backward.
set -u
CCSIM=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
want() {
  awk -v k="$1" 'BEGIN {
    R = 15.7e12 * 0.5; B = 1.25e9; a = 1e-5
    fwd = 4 * 3e9 / R; bb = 4 * 4e9 / R; ba = 4 * 2e9 / R
    # ring of n elements over 4 workers: 6 steps of n/4 elements, 3 combines
    #   of n/4 elements each (one per reduce-scatter hop)
    if (k == "layerwise") T = fwd + bb + ring(3e6) + ring(1e6)
    else T = fwd + bb + ba + ring(4e6)
    printf "%.12g %.12g", T, T - (fwd + bb + ba)
  }
  function comb(n) { return 5e-6 + 12 * n / 900e9 + n / 15.7e12 }
  function ring(n) { return 6 * (a + 4 * n / 4 / B) + 3 * comb(n / 4) }'
}
for kind in layerwise single buckets; do
  "$CCSIM" run "$SRC/tests/data/two_layers.json" --quiet --out "$T/$kind" \
    --set "schedule={\"kind\": \"$kind\", \"bucket_mb\": 14}" >/dev/null 2>"$T/err" || { cat "$T/err"; exit 1; }
  read -r wt we <<<"$(want $kind)"
  row=$(sed -n 2p "$T/$kind/iterations.csv")
  got=$(echo "$row" | cut -d, -f2); exposed=$(echo "$row" | cut -d, -f6)
  if awk -v g="$got" -v w="$wt" -v ge="$exposed" -v we="$we" \
       'BEGIN { exit !(g / w - 1 < 1e-9 && w / g - 1 < 1e-9 && (ge - we) < 1e-9 * w && (we - ge) < 1e-9 * w) }'; then
    echo "ok: $kind: iteration $got s (hand: $wt), exposed $exposed s (hand: $we)"
  else
    echo "FAIL: $kind: iteration $got s, hand $wt; exposed $exposed, hand $we"; fail=1
  fi
done
# A training run's compute comes from the trained model's tensors: softmax
# regression on digits (64 x 10 weight, 10 bias), batch 32, per sample
# forward 2 x 640 + 2 x 10 flops, backward 2 x 640 (the first layer's input
# gradient is not computed) + 10; on a V100 at efficiency 0.5:
#   compute = 32 x (1300 + 1290) / R per iteration
"$CCSIM" run "$SRC/workloads/convergence/none.json" --quiet --out "$T/train" --set workers=2 \
  --set iterations=2 --set 'train.model={"kind": "softmax"}' \
  --set 'device={"name": "v100", "efficiency": 0.5}' --set schedule.kind=layerwise >/dev/null 2>"$T/err" ||
  { cat "$T/err"; exit 1; }
got=$(sed -n 2p "$T/train/iterations.csv" | cut -d, -f3)
wt=$(awk 'BEGIN { printf "%.12g", 32 * (1300 + 1290) / (15.7e12 * 0.5) }')
if awk -v g="$got" -v w="$wt" 'BEGIN { exit !(g / w - 1 < 1e-9 && w / g - 1 < 1e-9) }'; then
  echo "ok: training compute $got s per iteration (hand: $wt)"
else
  echo "FAIL: training compute $got s per iteration, hand $wt"; fail=1
fi
# the timeline: forward, backward per bucket, communicate, compress rows
grep -q '^0,0,forward,-1,0,' "$T/layerwise/timeline.csv" &&
  [ "$(grep -c ',backward,' "$T/layerwise/timeline.csv")" -eq 16 ] ||
  { echo "FAIL: timeline.csv rows"; fail=1; }
exit $fail
