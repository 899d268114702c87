#!/usr/bin/python3
"""Draw one iteration of a run, per worker: compute, compression, communication.

usage: analysis/py analysis/plot_timeline.py RESULT_DIR [--iteration I] [--workers 8] [-o FILE]

Reads RESULT_DIR/timeline.csv, which `ccsim run` writes when the experiment
sets "output": {"timeline": true} (columns worker, iteration, activity,
bucket, start_s, end_s).  Each worker gets two lanes: the device (forward,
backward, compress, decompress: they share it) and the network (one bar per
bucket's collective).  Times are relative to the iteration's start.  The
figure goes beside the run (RESULT_DIR/timeline.png) unless -o says otherwise.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

import ccsim  # noqa: E402

COLORS = {
    "forward": "#4c72b0",
    "backward": "#55a868",
    "compress": "#dd8452",
    "decompress": "#c44e52",
    "communicate": "#8172b3",
}


def lanes(tl, iteration, workers):
    """The rows drawn: one iteration, the first `workers` workers, with
    lane (2 per worker, top worker highest; the device above the network)
    and start/width in ms since the iteration began."""
    rows = tl[(tl["iteration"] == iteration) & (tl["worker"] < workers)].copy()
    ws = sorted(rows["worker"].unique())
    rank = {w: i for i, w in enumerate(ws)}
    t0 = rows["start_s"].min()
    rows["lane"] = [(len(ws) - 1 - rank[w]) * 2 + (0 if a == "communicate" else 1)
                    for w, a in zip(rows["worker"], rows["activity"])]
    rows["start_ms"] = (rows["start_s"] - t0) * 1e3
    rows["width_ms"] = (rows["end_s"] - rows["start_s"]) * 1e3
    return rows, ws


def draw(run, iteration=None, workers=8):
    """The figure of one iteration (default: the last).  One PolyCollection
    per activity, built from arrays: a handful of artists whatever the number
    of layers and workers."""
    tl = run.timeline
    if tl is None:
        raise SystemExit(f"{run.path}/timeline.csv: missing; run with --set output.timeline=true")
    if tl.empty:
        raise SystemExit(f"{run.path}/timeline.csv: no activity recorded")
    it = int(tl["iteration"].max()) if iteration is None else iteration
    rows, ws = lanes(tl, it, workers)
    if rows.empty:
        raise SystemExit(f"{run.path}/timeline.csv: nothing for iteration {it}")
    fig, ax = plt.subplots(figsize=(11, 0.9 + 0.75 * len(ws)))
    for act in dict.fromkeys(rows["activity"]):
        part = rows[rows["activity"] == act]
        x0 = part["start_ms"].to_numpy()
        x1 = x0 + part["width_ms"].to_numpy()
        y0 = part["lane"].to_numpy() + 0.1
        y1 = y0 + 0.8
        verts = np.stack([np.column_stack(c) for c in ((x0, y0), (x0, y1), (x1, y1), (x1, y0))], axis=1)
        ax.add_collection(PolyCollection(verts, facecolors=COLORS.get(act, "grey"), edgecolors="white",
                                         linewidths=0.3, label=act))
    ax.set_xlim(0, float((rows["start_ms"] + rows["width_ms"]).max()) * 1.01)
    ax.set_ylim(0, 2 * len(ws))
    ax.set_yticks([(len(ws) - 1 - i) * 2 + 1 for i in range(len(ws))])
    ax.set_yticklabels([f"worker {w}" for w in ws])
    ax.set_xlabel(f"ms since the start of iteration {it} (upper lane: device, lower: network)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="result directory with timeline.csv")
    ap.add_argument("--iteration", type=int, default=None, help="iteration (default: the last)")
    ap.add_argument("--workers", type=int, default=8, help="draw at most this many workers")
    ap.add_argument("-o", "--output", help="the image (default: RESULT_DIR/timeline.png)")
    a = ap.parse_args()
    fig = draw(ccsim.load_run(a.run), a.iteration, a.workers)
    out = a.output or os.path.join(a.run, "timeline.png")
    fig.savefig(out, dpi=120)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    ccsim.run_main(main, "plot_timeline.py")
