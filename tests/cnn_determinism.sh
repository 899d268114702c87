#!/usr/bin/env bash
# tests/cnn_determinism.sh CCSIM SRCDIR — a Fashion-MNIST LeNet-5 training
# run (4 workers, 3 iterations, batch 8, on subsets of 512 training and 256
# test images) gives byte-identical result files when run twice on this
# machine, whatever BLAS the build uses (OpenBLAS single-threaded per worker:
# docs/training.md says what holds across machines).  summary.json is
# compared without its host-time fields and output directory.
set -u
CCSIM=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/lenet.json" <<'JSON'
{
  "name": "cnn-determinism", "seed": 7, "workers": 4, "iterations": 3,
  "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "5us"},
  "device": "v100",
  "gradients": {"source": "train"},
  "train": {"dataset": "fashion-mnist", "train_samples": 512, "test_samples": 256,
            "model": {"kind": "lenet5"}, "batch": 8, "optimizer": {"lr": 0.05, "momentum": 0.9}},
  "compressor": {"name": "topk", "ratio": 0.05, "memory": "residual"},
  "collective": "allgather/ring"
}
JSON
strip() { grep -v -E '"(host_time_s|peak_rss_mb|dir)"' "$1"; }
for k in 1 2; do
  "$CCSIM" run "$T/lenet.json" --out "$T/run$k" --quiet >/dev/null 2>"$T/err$k" ||
    { echo "run $k failed:"; cat "$T/err$k"; exit 1; }
  strip "$T/run$k/summary.json" >"$T/run$k/summary.stripped"
done
bad=0
for f in iterations.csv hops.csv summary.stripped; do
  cmp -s "$T/run1/$f" "$T/run2/$f" || { echo "FAIL: $f differs between two runs"; diff "$T/run1/$f" "$T/run2/$f" | head -5; bad=1; }
done
grep -q '"final_accuracy"' "$T/run1/summary.json" || { echo "FAIL: not a training run"; bad=1; }
[ "$bad" -eq 0 ] && echo "cnn_determinism: two runs byte-identical ($(grep -c . "$T/run1/iterations.csv") lines of iterations.csv)"
exit "$bad"
