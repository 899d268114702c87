"""Loading one run or one sweep (docs/outputs.md describes every column)."""
import csv
import json
import os

import pandas as pd

from . import baseline as _baseline
from . import units

# pandas reads an integer column with empty cells as float: these stay integers
_INT_COLUMNS = {"iteration", "hop", "workers", "worker", "bucket", "bytes_on_wire"}


# the columns that make each file what it is (docs/outputs.md has them all);
# a file without one of them is not a ccsim result file, and says so by name
_REQUIRED = {
    "iterations.csv": ["iteration", "time_s"],
    "hops.csv": ["iteration", "hop"],
    "timeline.csv": ["worker", "iteration", "start_s", "end_s"],
}


def _read_csv(path):
    df = pd.read_csv(path)
    missing = [c for c in _REQUIRED.get(os.path.basename(path), []) if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: lacks the column{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)} (not a ccsim result file, or a damaged one)")
    for c in df.columns:
        if c in _INT_COLUMNS and df[c].notna().all():
            df[c] = df[c].astype("int64")
    return df


def flatten(d, prefix=""):
    """{"a": {"b": 1}} -> {"a.b": 1}: nested summary keys as dotted names."""
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


class Run:
    """One `ccsim run` result directory."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        sp = os.path.join(path, "summary.json")
        if not os.path.exists(sp):
            raise FileNotFoundError(f"{sp}: missing (not a ccsim result directory, or the run failed)")
        with open(sp) as f:
            try:
                self.summary = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{sp}: not JSON ({e})") from None
        self._frames = {}

    @property
    def experiment(self):
        """The resolved experiment that ran (every default and --set applied)."""
        return self.summary.get("experiment", {})

    @property
    def name(self):
        return self.summary.get("name", os.path.basename(self.path))

    def _frame(self, name, required):
        if name not in self._frames:
            p = os.path.join(self.path, name)
            if not os.path.exists(p):
                if required:
                    raise FileNotFoundError(f"{p}: missing")
                self._frames[name] = None
            else:
                self._frames[name] = _read_csv(p)
        return self._frames[name]

    @property
    def iterations(self):
        """iterations.csv; adds `end_s`, the simulated time at the end of each iteration."""
        df = self._frame("iterations.csv", True)
        if "end_s" not in df.columns:
            df["end_s"] = df["time_s"].cumsum()
        return df

    @property
    def hops(self):
        """hops.csv (no rows for collectives without hops)."""
        return self._frame("hops.csv", True)

    @property
    def timeline(self):
        """timeline.csv, or None when the run did not record it (output.timeline)."""
        return self._frame("timeline.csv", False)

    def __repr__(self):
        return f"Run({self.path!r})"


class Sweep:
    """One `ccsim sweep` output directory (its sweep.csv and point directories)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        p = os.path.join(path, "sweep.csv")
        if not os.path.exists(p):
            raise FileNotFoundError(f"{p}: missing (not a ccsim sweep directory)")
        with open(p, newline="") as f:
            cols = next(csv.reader(f), [])
        if "status" not in cols or cols[0] != "point":
            raise ValueError(f"{p}: expected columns point, AXES..., status, ...")
        self.axes = cols[1:cols.index("status")]
        # labels as written ("10Gbps", "08"), then each axis as numbers where it can be
        # (labels are never empty: only an empty cell is missing; "None" is a label)
        df = pd.read_csv(p, dtype={c: str for c in ["point"] + self.axes}, keep_default_na=False,
                         na_values=[""])
        self.units, self._labels = {}, {}
        for a in self.axes:
            labels = df[a].to_list()
            parsed = units.column(labels)
            if parsed is None:  # labels (method=marsit): kept as strings
                self.units[a] = None
                continue
            values, self.units[a] = parsed
            if self.units[a] == units.NUMBER:  # workers=4: an integer column where it can be
                df[a] = pd.to_numeric(df[a])
            else:  # platform.bandwidth=10Gbps: bits per second
                df[a] = pd.Series(values, index=df.index, dtype=float)
            self._labels[a] = dict(zip(df[a].to_list(), labels))
        for c in ("workers", "bytes_on_wire"):
            if c in df.columns and df[c].notna().all():
                df[c] = df[c].astype("int64")
        self.points = df

    def label(self, axis, value):
        """The label a value of `axis` was written with in sweep.csv
        (the number 1e10 of platform.bandwidth -> "10Gbps")."""
        return self._labels.get(axis, {}).get(value, str(value))

    def speedup(self, baseline, metric="iteration_time_s"):
        """`points` with `baseline` and `speedup` columns: baseline's metric over
        each point's.  baseline: a point ("workers=8,method=none"), some axes
        ("method=none") or a label one axis has ("none"); see ccsim.baseline."""
        return _baseline.speedup(self, baseline, metric)

    def _tidy(self, frame):
        """Every done point's `frame` (hops, iterations) stacked: one row per
        point and row of its file, the point and the axis values first.  A file
        column named as an axis is renamed FILE.COLUMN (hops.workers)."""
        parts = []
        for _, p in self.done().iterrows():
            f = getattr(self.run(p["point"]), frame).copy()
            f = f.rename(columns={c: f"{frame}.{c}" for c in f.columns if c in self.axes or c == "point"})
            for k, a in enumerate(["point"] + self.axes):
                f.insert(k, a, p[a])
            parts.append(f)
        if not parts:
            return pd.DataFrame(columns=["point"] + self.axes)
        return pd.concat(parts, ignore_index=True)

    def hops(self):
        """hops.csv of every done point: one row per point x iteration x hop."""
        return self._tidy("hops")

    def iterations(self):
        """iterations.csv of every done point (with end_s): one row per point x iteration."""
        return self._tidy("iterations")

    def done(self):
        """The points that finished, as rows of `points`."""
        return self.points[self.points["status"] == "done"]

    def run(self, point):
        """One point as a Run (point: its directory name, or a row of `points`)."""
        if not isinstance(point, str):
            point = point["point"]
        return Run(os.path.join(self.path, point))

    def summaries(self):
        """Every done point's summary.json, flattened (time_breakdown_s.compute,
        experiment.platform.bandwidth, ...), with the point and its axes."""
        rows = []
        for _, p in self.done().iterrows():
            r = {"point": p["point"]}
            r.update({a: p[a] for a in self.axes})
            r.update(flatten(self.run(p["point"]).summary))
            rows.append(r)
        return pd.DataFrame(rows)

    def __repr__(self):
        return f"Sweep({self.path!r}, axes={self.axes})"


def load_run(path):
    """A run's result directory as a Run."""
    return Run(path)


def load_sweep(path):
    """A sweep's output directory as a Sweep."""
    return Sweep(path)
