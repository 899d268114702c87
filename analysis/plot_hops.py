#!/usr/bin/python3
"""Plot the cascading-error curve of one or more ccsim runs.

usage: analysis/py analysis/plot_hops.py RESULT_DIR [RESULT_DIR...] [-o hops.png]

Reads each RESULT_DIR/hops.csv (written by `ccsim run`) and draws, per run, the
relative L2 error of the partial aggregate against the hop it has reached
(mean over iterations, with the min-max band), on a log scale.
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def load(run_dir):
    path = os.path.join(run_dir, "hops.csv")
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault(int(r["hop"]), []).append(float(r["rel_error"]))
    if not rows:
        raise SystemExit(f"{path}: no hops (a single worker, or a one-hop collective)")
    label = run_dir
    summary = os.path.join(run_dir, "summary.json")
    if os.path.exists(summary):
        with open(summary) as f:
            s = json.load(f)
        label = f'{s["compressor"]} / {s["collective"]}, N={s["workers"]}'
    hops = np.array(sorted(rows))
    err = [np.array(rows[h]) for h in hops]
    return label, hops, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="result directories of ccsim run")
    ap.add_argument("-o", "--output", default="hops.png", help="PNG to write")
    a = ap.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for run in a.runs:
        label, hops, err = load(run)
        mean = np.array([e.mean() for e in err])
        ax.plot(hops, mean, marker="o", ms=3, label=label)
        ax.fill_between(hops, [e.min() for e in err], [e.max() for e in err], alpha=0.2)
    ax.set_xlabel("hop (links the partial aggregate has crossed)")
    ax.set_ylabel("relative L2 error vs exact partial sum")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
