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
# OUT (default results/papers/mergecomp/full, or .../quick), JOBS (points at
# a time, default 2), SETS="PATH=VALUE ..." (overrides applied to every point
# before the axes, for held-out variations: SETS="platform.bandwidth=8GBps",
# SETS="workers=4 platform.gpus=4", SETS="model.batch=32"; a VALUE is JSON
# or else a string, as with --set).  Sweeps resume: a point already run with the same
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
# with SETS, the sweeps are copies whose "set" holds the overrides
sweep_file() {
  if [ -z "${SETS:-}" ]; then echo "$HERE/$1"; return; fi
  mkdir -p "$OUT/sweeps"
  /usr/bin/python3 - "$HERE/$1" "$OUT/sweeps/$1" $SETS <<'PY'
import json, os, sys
src, dst, kvs = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.load(open(src))
d["base"] = os.path.join(os.path.dirname(src), d["base"])
for kv in kvs:
    if "=" not in kv:
        sys.exit(f"run.sh: SETS: expected PATH=VALUE, got {kv!r}")
    k, v = kv.split("=", 1)
    try:
        v = json.loads(v)
    except ValueError:
        pass
    d.setdefault("set", {})[k] = v
json.dump(d, open(dst, "w"), indent=1)
PY
  echo "$OUT/sweeps/$1"
}
echo "run.sh: sweeps into $OUT ($JOBS at a time)${SETS:+, with $SETS}" >&2
"$CCSIM" sweep "$(sweep_file "$baselines")" --out "$OUT/baselines" --jobs "$JOBS" --quiet
"$CCSIM" sweep "$(sweep_file "$compressed")" --out "$OUT/compressed" --jobs "$JOBS" --quiet
/usr/bin/python3 "$HERE/analyze.py" "$OUT/compressed" "$OUT/baselines" "$OUT/analysis"
