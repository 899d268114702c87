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
# SETS="PATH=VALUE ..." (held-out variations): each setting goes into every
# sweep's "set" and into every axis value that sets an enclosing object, so
# SETS="platform.bandwidth=\"25Gbps\"" changes the three networks of the
# wall-time grids alike (VALUE is JSON; a bare word is taken as a string).
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
$PY - "$HERE" "$OUT/sweeps" "$QUICK" "${SETS:-}" <<'PY'
import json, os, shlex, sys
here, dest, quick = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
sets = []
for kv in shlex.split(sys.argv[4]):
    path, _, val = kv.partition("=")
    if not path or not _:
        sys.exit(f"run.sh: SETS: expected PATH=VALUE, got {kv!r}")
    try:
        val = json.loads(val)
    except ValueError:
        pass
    sets.append((path, val))


def put(obj, path, val):
    """obj[path] = val, path dotted, through nested objects."""
    keys = path.split(".")
    for k in keys[:-1]:
        obj = obj.setdefault(k, {})
    obj[keys[-1]] = val

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
    # At n workers B-bit dithering needs 2^(B-1) - 1 >= n (one level per
    # worker): bits below that are raised to it, so SETS="workers=8" keeps the
    # error sweeps' coarsest point (5 bits there) instead of a refused one.
    n = dict(sets).get("workers", 4)
    low = next(b for b in range(2, 17) if (1 << (b - 1)) - 1 >= n)
    for ax in s["axes"]:
        if ax.get("path") == "compressor.bits":
            ax["values"] = sorted({max(b, low) for b in ax["values"]})
    for path, val in sets:
        s.setdefault("set", {})[path] = val
        for ax in s["axes"]:
            for v in ax["values"]:
                for k in list(v.get("set", {})) if isinstance(v, dict) else []:
                    if path.startswith(k + ".") and isinstance(v["set"][k], dict):
                        put(v["set"][k], path[len(k) + 1:], val)
    with open(os.path.join(dest, name + ".json"), "w") as f:
        json.dump(s, f, indent=1)
PY

for s in time exp-time scale error train; do
  "$CCSIM" sweep "$OUT/sweeps/sweep-$s.json" --out "$OUT/$s" --jobs "$JOBS" --quiet
done
$PY "$HERE/analyze.py" "$OUT"
