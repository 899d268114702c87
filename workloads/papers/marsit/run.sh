#!/usr/bin/env bash
# workloads/papers/marsit/run.sh [CCSIM] [OUT] — the Marsit study (Wu et al.,
# arXiv 2204.06787) on live Fashion-MNIST LeNet-5 over a cloud-like network
# (the cloud generator: 2 racks, 10 Gbps NICs, 25 us, 2:1 uplinks): fp32
# ring all-reduce and fp32 over the 2-D torus, Marsit over the ring (RAR)
# and over the 2-D torus (TAR), and the naive sign ring, at 8 and 16
# workers on held-out seeds. Then
# analyze.py writes OUT/table.md (paired accuracy differences with 95%
# intervals, simulated time per iteration, time to the target accuracy and
# the time saved against fp32), OUT/claims.json and OUT/curves-W.png.
#
# QUICK=1: the bounded mode (a few minutes on 2 cores): 8 workers, seeds
# 4-6, 100 iterations. Without QUICK: 8 and 16 workers, seeds 4-7, 100
# iterations (the quick runs are the full study's first three seeds at 8
# workers, so a full run after a quick one into the same OUT reuses them).
# WORKERS and SEEDS (environment) override the lists; SETS="PATH=VALUE ..."
# adds --set overrides to every run, after the study's own, for held-out
# variations (e.g. SETS="platform.bandwidth=25Gbps"; no blanks inside a
# VALUE; give such a study its own OUT); JOBS (default 2) runs in parallel;
# a run whose directory already holds this experiment's finished results
# (the same experiment hash in its summary.json) is not run again; one whose
# experiment changed is rerun.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
CCSIM=$(realpath "${1:-$SRC/build/src/ccsim}")
OUT=${2:-results/papers/marsit${QUICK:+-quick}}
JOBS=${JOBS:-2}
if [ -n "${QUICK:-}" ]; then
  WORKERS=${WORKERS:-8}
  SEEDS=${SEEDS:-"4 5 6"}
  ITERS=100
else
  WORKERS=${WORKERS:-"8 16"}
  SEEDS=${SEEDS:-"4 5 6 7"}
  ITERS=100
fi
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
jobs=$OUT/jobs.txt
: >"$jobs"
for w in $WORKERS; do
  # two racks of w/2 hosts; the torus is 2 x w/2 at 8 workers, 4 x 4 at 16
  [ $((w % 2)) -eq 0 ] || { echo "run.sh: workers must be even, got $w" >&2; exit 2; }
  rows=2
  [ "$w" -ge 16 ] && rows=4
  for seed in $SEEDS; do
    for m in fp32-ring fp32-torus marsit-ring marsit-torus sign-ring; do
      extra=""
      case $m in *-torus) extra=" collective.rows=$rows" ;; esac
      echo "$OUT/w$w/seed$seed/$m $m seed=$seed workers=$w iterations=$ITERS platform.hosts_per_rack=$((w / 2))$extra${SETS:+ $SETS}" >>"$jobs"
    done
  done
done
. "$SRC/workloads/convergence/common.sh"
export CCSIM HERE
xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ <"$jobs"
"$SRC/analysis/py" "$HERE/analyze.py" "$OUT"
