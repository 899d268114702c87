#!/usr/bin/env bash
# workloads/convergence/fmnist/tune.sh CCSIM OUT [JOBS] — the settings grid
# of the Fashion-MNIST LeNet-5 study, on tuning seeds 1, 2, 3 only
# (run_all.sh reports on seeds 4-8, which the grid never sees).
#
# Sized for a 2-core host: 16 workers, iid, 150 iterations, 6,000 training
# and 1,000 test images (the workloads' train_samples / test_samples).
# Every method but Marsit: lr in {0.02, 0.05, 0.1} x momentum 0.9 (the
# sign ring's and EF-signSGD's aggregates are in gradient units, so one grid
# serves). Marsit (its aggregate is +-1; effective lr = lr x eta): eta in
# {30, 100} x lr in {0.0003, 0.001, 0.003}, momentum 0.5, beta 0.5.
# METHODS, LRS, ETAS and MARSIT_LRS (environment) restrict the methods and
# the grid (defaults: all methods, "0.02 0.05 0.1", "30 100",
# "0.0003 0.001 0.003"). Score: the mean over the three
# seeds of the mean test accuracy over the last 50 iterations' evaluations.
# Writes OUT/grid.txt (best first per method) and OUT/best.txt.
set -eu
CCSIM=$(realpath "$1")
OUT=$2
JOBS=${3:-$(nproc)}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
METHODS=${METHODS:-"none marsit sign-ring ef-signsgd topk global-qsgd sbc"}
LRS=${LRS:-"0.02 0.05 0.1"}
ETAS=${ETAS:-"30 100"}
MARSIT_LRS=${MARSIT_LRS:-"0.0003 0.001 0.003"}
mkdir -p "$OUT"
jobs=$OUT/jobs.txt
: >"$jobs"
add() { # method tag sets...
  local m=$1 tag=$2
  shift 2
  for seed in 1 2 3; do echo "$OUT/$m/$tag/seed$seed $m seed=$seed $*" >>"$jobs"; done
}
for m in $METHODS; do
  if [ "$m" = marsit ]; then
    for eta in $ETAS; do
      for lr in $MARSIT_LRS; do
        add marsit "eta$eta-lr$lr" compressor.memory.eta=$eta train.optimizer.lr=$lr
      done
    done
  else
    for lr in $LRS; do add "$m" "lr$lr" train.optimizer.lr=$lr; done
  fi
done
. "$HERE/../common.sh"
export CCSIM HERE
xargs -P "$JOBS" -L 1 bash -c 'one "$@" || true' _ <"$jobs"
"$SRC/analysis/py" - "$OUT" "$SRC/analysis" <<'PY'
import os, sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from plot_convergence import Run
with open(os.path.join(out, "grid.txt"), "w") as g, open(os.path.join(out, "best.txt"), "w") as b:
    for m in sorted(os.listdir(out)):
        md = os.path.join(out, m)
        if not os.path.isdir(md):
            continue
        rows = []
        for tag in sorted(os.listdir(md)):
            sc = [Run(os.path.join(md, tag, f"seed{s}")).tail_accuracy() for s in (1, 2, 3)
                  if os.path.exists(os.path.join(md, tag, f"seed{s}", "summary.json"))]
            if len(sc) == 3:
                rows.append((sum(sc) / 3, tag, sc))
        rows.sort(key=lambda r: -r[0])
        for mean, tag, sc in rows:
            g.write(f"{m:12s} {tag:20s} {mean:.4f}  ({' '.join(f'{x:.4f}' for x in sc)})\n")
        if rows:
            b.write(f"{m:12s} {rows[0][1]:20s} {rows[0][0]:.4f}\n")
print(open(os.path.join(out, "best.txt")).read(), end="")
PY
