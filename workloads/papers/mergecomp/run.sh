#!/usr/bin/env bash
# workloads/papers/mergecomp/run.sh — the MergeComp study, whole: the sweeps,
# the table and the figures (README.md says what they show).
#
#   bash workloads/papers/mergecomp/run.sh            # all of it: 2 models x 2 platforms x
#                                                     # 2 devices x 9 compressors x 4 schedules
#   QUICK=1 bash workloads/papers/mergecomp/run.sh    # bounded: ResNet-50/CIFAR-10, V100,
#                                                     # 4 compressors, 3 schedules (a few minutes)
#
# Environment: CCSIM (the binary; default build/src/ccsim, built if missing),
# OUT (default results/papers/mergecomp, or .../quick), JOBS (points at a
# time, default 2).  Sweeps resume: a point already run with the same
# experiment is reused.  Ends with table.csv, numbers.json, speedup.png and
# scaling.png in OUT/analysis.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CCSIM=${CCSIM:-$ROOT/build/src/ccsim}
JOBS=${JOBS:-2}
if [ ! -x "$CCSIM" ]; then
  echo "run.sh: building ccsim into $ROOT/build" >&2
  bash "$ROOT/scripts/build.sh" build
  CCSIM=$ROOT/build/src/ccsim
fi
if [ "${QUICK:-0}" = 1 ]; then
  OUT=${OUT:-$ROOT/results/papers/mergecomp/quick}
  compressed=quick.json baselines=quick-baselines.json
else
  OUT=${OUT:-$ROOT/results/papers/mergecomp/full}
  compressed=sweep.json baselines=baselines.json
fi
mkdir -p "$OUT"
echo "run.sh: sweeps into $OUT ($JOBS at a time)" >&2
"$CCSIM" sweep "$HERE/$baselines" --out "$OUT/baselines" --jobs "$JOBS" --quiet
"$CCSIM" sweep "$HERE/$compressed" --out "$OUT/compressed" --jobs "$JOBS" --quiet
/usr/bin/python3 "$HERE/analyze.py" "$OUT/compressed" "$OUT/baselines" "$OUT/analysis"
