#!/usr/bin/env bash
# workloads/papers/global-qsgd/run.sh — the Global-QSGD study (README.md here):
# runs its five sweeps, then analyze.py writes table.csv, claims.json and the
# figures into OUT.
#
#   bash workloads/papers/global-qsgd/run.sh            # the whole study
#   QUICK=1 bash workloads/papers/global-qsgd/run.sh    # bounded: fewer points
#
# Environment: CCSIM (the binary; default build/src/ccsim, built if missing),
# OUT (default results/papers/global-qsgd), JOBS (points at a time, default 2).
# QUICK keeps every claim's points but drops the second model from the
# wall-time grids, the 8- and 32-worker points of the scale-out and the 6-bit
# points of the error sweep; the sweep files it runs are written to
# OUT/sweeps/.  Sweeps resume: a point already done is reused.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PY=/usr/bin/python3
CCSIM=${CCSIM:-$ROOT/build/src/ccsim}
if [ ! -x "$CCSIM" ]; then
  bash "$ROOT/scripts/build.sh" build
  CCSIM=$ROOT/build/src/ccsim
fi
OUT=${OUT:-$ROOT/results/papers/global-qsgd}
JOBS=${JOBS:-2}
QUICK=${QUICK:-0}
mkdir -p "$OUT/sweeps"

# The sweep files as run: bases made absolute; in QUICK mode, axes cut.
$PY - "$HERE" "$OUT/sweeps" "$QUICK" <<'PY'
import json, os, sys
here, dest, quick = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
cut = {  # sweep -> {axis name or path: values kept (labels or plain values)}
    "sweep-time": {"model": ["resnet101"]},
    "sweep-exp-time": {"model": ["resnet101"]},
    "sweep-scale": {"workers": [4, 16]},
    "sweep-error": {"compressor.bits": [4, 8]},
    "sweep-train": {},
}
for name in cut:
    with open(os.path.join(here, name + ".json")) as f:
        s = json.load(f)
    s["base"] = os.path.join(here, s["base"])
    if quick:
        for ax in s["axes"]:
            keep = cut[name].get(ax.get("name", ax.get("path")))
            if keep is not None:
                ax["values"] = [v for v in ax["values"]
                                if (v["label"] if isinstance(v, dict) else v) in keep]
    with open(os.path.join(dest, name + ".json"), "w") as f:
        json.dump(s, f, indent=1)
PY

for s in time exp-time scale error train; do
  "$CCSIM" sweep "$OUT/sweeps/sweep-$s.json" --out "$OUT/$s" --jobs "$JOBS" --quiet
done
$PY "$HERE/analyze.py" "$OUT"
