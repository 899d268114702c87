#!/usr/bin/env bash
# workloads/papers/sbc/run.sh [CCSIM] [OUT] — the SBC study (Sattler et al.,
# arXiv 1805.08768): (a) upstream traffic of ccsim's sbc compressor at the
# paper's sparsities p and delays m on the resnet50, lstm and vgg16 profiles,
# from the wire bytes of real runs, against fp32; (b) accuracy of SBC with
# delay against the uncompressed baseline on live Fashion-MNIST LeNet-5,
# paired over seeds. Then analyze.py writes OUT/traffic.md, OUT/accuracy.md,
# OUT/claims.json and the figures OUT/traffic.png, OUT/accuracy.png.
#
# QUICK=1: the bounded mode (a few minutes on 2 cores): traffic on resnet50
# only at m = 1 and 10; training on seeds 4-6, 100 iterations. Without
# QUICK: resnet50 at m = 1, 10, 100, lstm at m = 1, 10, vgg16 at m = 1;
# training on seeds 4-6, 200 iterations. SEEDS (environment) overrides the
# training seeds; SETS="PATH=VALUE ..." adds --set overrides to every
# training run, after the study's own, for held-out variations (e.g.
# SETS="workers=16"; no blanks inside a VALUE; give such a study its own
# OUT); JOBS (default 2) runs in parallel; a run whose directory already
# holds this experiment's finished results (the same experiment hash in its
# summary.json) is not run again; one whose experiment changed is rerun.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
CCSIM=$(realpath "${1:-$SRC/build/src/ccsim}")
OUT=${2:-results/papers/sbc${QUICK:+-quick}}
JOBS=${JOBS:-2}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
if [ -n "${QUICK:-}" ]; then
  TRAFFIC="resnet50:0.01:1 resnet50:0.01:10 resnet50:0.001:1 resnet50:0.001:10"
  SEEDS=${SEEDS:-"4 5 6"}
  ITERS=100
else
  # a delay of m costs m iterations of the data plane; one sending iteration
  # weighs the same at every m (tests/papers_sbc.sh: exactly x10 at m = 10),
  # so the large profiles are run at m = 1 and 10, or 1 only (vgg16: 138M)
  TRAFFIC=""
  for p in 0.01 0.001; do
    for m in 1 10 100; do TRAFFIC="$TRAFFIC resnet50:$p:$m"; done
    for m in 1 10; do TRAFFIC="$TRAFFIC lstm:$p:$m"; done
    TRAFFIC="$TRAFFIC vgg16:$p:1"
  done
  SEEDS=${SEEDS:-"4 5 6"}
  ITERS=200
fi
jobs=$OUT/jobs.txt
: >"$jobs"
models=""
for t in $TRAFFIC; do
  IFS=: read -r mdl p m <<<"$t"
  case " $models " in *" $mdl "*) ;; *) models="$models $mdl" ;; esac
  echo "$OUT/traffic/$mdl-p$p-m$m traffic model.profile=$mdl compressor.ratio=$p compressor.delay=$m iterations=$m" >>"$jobs"
done
for mdl in $models; do echo "$OUT/traffic/$mdl-fp32 traffic-fp32 model.profile=$mdl" >>"$jobs"; done
for seed in $SEEDS; do
  echo "$OUT/train/seed$seed/none train-none seed=$seed iterations=$ITERS${SETS:+ $SETS}" >>"$jobs"
  for p in 0.01 0.001; do
    echo "$OUT/train/seed$seed/sbc-p$p-m10 train-sbc seed=$seed iterations=$ITERS compressor.ratio=$p compressor.delay=10${SETS:+ $SETS}" >>"$jobs"
  done
done
. "$SRC/workloads/convergence/common.sh"
export CCSIM HERE
# the long traffic runs first, so that the two queues finish together
xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ <"$jobs"
"$SRC/analysis/py" "$HERE/analyze.py" "$OUT"
