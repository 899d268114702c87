"""Speed-up of a sweep's points over a baseline the user names.

A baseline is written one of three ways:
  - a whole point, as sweep.csv's `point` column writes it
    ("platform.bandwidth=10Gbps,method=none"): every point is compared with it;
  - some axes fixed, "method=none" or "method=none,workers=8": every point is
    compared with the point that has these labels on these axes and its own
    labels on the others (speed-up over no compression at each bandwidth);
  - a bare label, "none", that exactly one axis has: as "method=none".
The speed-up is the baseline's metric over the point's (iteration_time_s by
default): above 1 the point is faster, the baseline's own is exactly 1.
"""
import math

import pandas as pd


def _labels(sweep, row):
    return tuple(sweep.label(a, row[a]) for a in sweep.axes)


def resolve(sweep, baseline):
    """{axis: label} fixed by `baseline`; ValueError naming what is wrong."""
    known = {a: list(dict.fromkeys(sweep.label(a, v) for v in sweep.points[a])) for a in sweep.axes}
    choices = "; ".join(f"{a}: {', '.join(v)}" for a, v in known.items())
    hit = sweep.points[sweep.points["point"] == baseline]
    if len(hit):
        return dict(zip(sweep.axes, _labels(sweep, hit.iloc[0])))
    if "=" not in baseline:
        axes = [a for a in sweep.axes if baseline in known[a]]
        if len(axes) == 1:
            return {axes[0]: baseline}
        if len(axes) > 1:
            raise ValueError(f'"{baseline}" is a label of axes {" and ".join(axes)}: '
                             f'write AXIS=LABEL, e.g. {axes[0]}={baseline}')
        raise ValueError(f'"{baseline}" is no point and no label of the sweep ({choices})')
    fixed = {}
    for part in baseline.split(","):
        axis, eq, label = part.partition("=")
        if not eq or axis not in known:
            raise ValueError(f'"{part}": expected AXIS=LABEL with AXIS one of {", ".join(sweep.axes)}')
        if label not in known[axis]:
            raise ValueError(f'"{part}": axis {axis} has no label "{label}" ({", ".join(known[axis])})')
        if axis in fixed:
            raise ValueError(f'"{baseline}": axis {axis} is named twice')
        fixed[axis] = label
    return fixed


def speedup(sweep, baseline, metric="iteration_time_s"):
    """sweep.points with two more columns: `baseline` (the point each is
    compared with) and `speedup` (its metric over the point's; NaN where
    either point did not finish or has no positive, finite value)."""
    fixed = resolve(sweep, baseline)
    pts = sweep.points
    if metric not in pts.columns:
        raise ValueError(f"no column {metric} in sweep.csv")
    by_labels = {_labels(sweep, r): r for _, r in pts.iterrows()}
    bases, ups = [], []
    for _, r in pts.iterrows():
        want = tuple(fixed.get(a, l) for a, l in zip(sweep.axes, _labels(sweep, r)))
        b = by_labels.get(want)
        bases.append(None if b is None else b["point"])
        up = math.nan
        if b is not None and r["status"] == "done" and b["status"] == "done":
            x, y = float(b[metric]), float(r[metric])
            if math.isfinite(x) and math.isfinite(y) and x > 0 and y > 0:
                up = 1.0 if b["point"] == r["point"] else x / y
        ups.append(up)
    out = pts.copy()
    out["baseline"] = pd.Series(bases, index=pts.index, dtype=object)
    out["speedup"] = pd.Series(ups, index=pts.index, dtype=float)
    return out
