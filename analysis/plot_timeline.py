#!/usr/bin/python3
"""Draw one iteration of a run, per worker: compute, compression, communication.

usage: analysis/py analysis/plot_timeline.py RESULT_DIR [--iteration I] [--workers 8] [-o timeline.png]

Reads RESULT_DIR/timeline.csv, which `ccsim run` writes when the experiment
sets "output": {"timeline": true} (columns worker, iteration, activity,
bucket, start_s, end_s).  Each worker gets two lanes: the device (forward,
backward, compress, decompress: they share it) and the network (one bar per
bucket's collective).  Times are relative to the iteration's start.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {
    "forward": "#4c72b0",
    "backward": "#55a868",
    "compress": "#dd8452",
    "decompress": "#c44e52",
    "communicate": "#8172b3",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="result directory with timeline.csv")
    ap.add_argument("--iteration", type=int, default=None, help="iteration (default: the last)")
    ap.add_argument("--workers", type=int, default=8, help="draw at most this many workers")
    ap.add_argument("-o", "--output", default="timeline.png")
    a = ap.parse_args()
    path = os.path.join(a.run, "timeline.csv")
    if not os.path.exists(path):
        raise SystemExit(f"{path}: missing; run with --set output.timeline=true")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{path}: no activity recorded")
    it = a.iteration if a.iteration is not None else max(int(r["iteration"]) for r in rows)
    rows = [r for r in rows if int(r["iteration"]) == it and int(r["worker"]) < a.workers]
    if not rows:
        raise SystemExit(f"{path}: nothing for iteration {it}")
    t0 = min(float(r["start_s"]) for r in rows)
    workers = sorted({int(r["worker"]) for r in rows})
    fig, ax = plt.subplots(figsize=(11, 0.9 + 0.75 * len(workers)))
    seen = set()
    for i, w in enumerate(workers):
        base = (len(workers) - 1 - i) * 2
        for r in rows:
            if int(r["worker"]) != w:
                continue
            act = r["activity"]
            lane = base + (0 if act == "communicate" else 1)
            s, e = (float(r["start_s"]) - t0) * 1e3, (float(r["end_s"]) - t0) * 1e3
            label = act if act not in seen else None
            seen.add(act)
            ax.broken_barh([(s, e - s)], (lane + 0.1, 0.8), facecolors=COLORS.get(act, "grey"),
                           edgecolor="white", linewidth=0.3, label=label)
    ax.set_yticks([(len(workers) - 1 - i) * 2 + 1 for i in range(len(workers))])
    ax.set_yticklabels([f"worker {w}" for w in workers])
    ax.set_xlabel(f"ms since the start of iteration {it} (upper lane: device, lower: network)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
