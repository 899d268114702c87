#!/usr/bin/env bash
# workloads/convergence/fmnist/run_all.sh CCSIM OUT [JOBS] — the report runs
# of the Fashion-MNIST LeNet-5 study: the workloads of this directory (their
# settings from tune.sh on seeds 1-3) on held-out seeds 4-8, at 8, 16, 32
# and 64 workers, iid and non-iid (2 label shards per worker), a 10 Gbps
# crossbar; then seed 4, 16 workers, iid at 100 Mbps, 1 Gbps and 100 Gbps
# for time to accuracy (10 Gbps is the report run). Tables
# OUT/table-{iid,noniid}-W.md with, per method, the paired difference to
# uncompressed (same seed, workers, platform) and its 95% t-interval over
# the seeds (analysis/plot_convergence.py table); OUT/matrix.md and
# OUT/claims.json, all of them in one table per sharding
# (plot_convergence.py matrix); and OUT/tta.png. METHODS, WORKERS, SEEDS
# and SHARDS (environment) restrict the study (defaults: all methods,
# "8 16 32 64", "4 5 6 7 8", "iid noniid");
# TTA= (empty) skips the time-to-accuracy runs.
set -eu
CCSIM=$(realpath "$1")
OUT=$2
JOBS=${3:-$(nproc)}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
METHODS=${METHODS:-"none marsit sign-ring ef-signsgd topk global-qsgd sbc"}
WORKERS=${WORKERS:-"8 16 32 64"}
SEEDS=${SEEDS:-"4 5 6 7 8"}
SHARDS=${SHARDS:-"iid noniid"}
mkdir -p "$OUT"
jobs=$OUT/jobs.txt
: >"$jobs"
for m in $METHODS; do
  for sh in $SHARDS; do
    extra=""
    [ "$sh" = noniid ] && extra="train.shards=noniid train.shards_per_worker=2"
    for w in $WORKERS; do
      for seed in $SEEDS; do
        # no trailing blank: xargs -L would join the next line to this one
        echo "$OUT/$sh/w$w/seed$seed/$m $m workers=$w seed=$seed${extra:+ $extra}" >>"$jobs"
      done
    done
  done
  if [ -n "${TTA-1}" ]; then
    for bw in 100Mbps 1Gbps 100Gbps; do echo "$OUT/tta-$bw/$m $m seed=4 platform.bandwidth=$bw" >>"$jobs"; done
  fi
done
. "$HERE/../common.sh"
export CCSIM HERE
xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ <"$jobs"
P="$SRC/analysis/py $SRC/analysis/plot_convergence.py"
for sh in $SHARDS; do
  for w in $WORKERS; do
    dirs=$(for m in $METHODS; do for s in $SEEDS; do echo "$OUT/$sh/w$w/seed$s/$m"; done; done)
    # shellcheck disable=SC2086
    $P table $dirs >"$OUT/table-$sh-$w.md"
    echo "## $sh, $w workers"
    cat "$OUT/table-$sh-$w.md"
    echo
  done
done
# the summary: every method at every worker count and sharding, with its
# paired interval, and Marsit minus the naive sign ring
alldirs=$(for sh in $SHARDS; do for w in $WORKERS; do for m in $METHODS; do
  for s in $SEEDS; do echo "$OUT/$sh/w$w/seed$s/$m"; done; done; done; done)
# shellcheck disable=SC2086
$P matrix $alldirs --json "$OUT/claims.json" >"$OUT/matrix.md"
cat "$OUT/matrix.md"
if [ -n "${TTA-1}" ]; then
  d() { for m in $METHODS; do echo "$1/$m"; done; }
  # shellcheck disable=SC2046
  $P tta --speed 100Mbps $(d "$OUT/tta-100Mbps") --speed 1Gbps $(d "$OUT/tta-1Gbps") --speed 10Gbps $(d "$OUT/iid/w16/seed4") \
    --speed 100Gbps $(d "$OUT/tta-100Gbps") -o "$OUT/tta.png"
fi
