#!/usr/bin/python3
"""Plot cascading-compression error: per hop for runs, or against N for a sweep.

usage: analysis/py analysis/plot_hops.py RESULT_DIR [RESULT_DIR...] [-o FILE]
       analysis/py analysis/plot_hops.py --sweep SWEEP_DIR [--at-n 64] [-o FILE]

The figure goes beside the (first) run, RESULT_DIR/hops.png, or the sweep,
SWEEP_DIR/cascade.png, unless -o says otherwise.

Runs: reads each RESULT_DIR/hops.csv (written by `ccsim run`) and draws, per
run, the relative L2 error of the partial aggregate against the hop it has
reached (mean over iterations, with the min-max band), on a log scale.

Sweep: reads SWEEP_DIR/sweep.csv (written by `ccsim sweep`, e.g. for
workloads/cascade/sweep.json; axes "method" and "workers") and every point's
hops.csv and summary.json, and draws four panels:
  (a) cascading error against hop at N = --at-n: the error of the partial
      aggregate against the sum of the same workers' own decoded payloads,
      i.e. what combining or re-encoding hop by hop adds to compression;
  (b) the same for the final aggregate, against N;
  (c) its gain <y, r>/<r, r> against N: 1 when the combination is unbiased
      for the mean of what the workers compressed;
  (d) the cosine of the final aggregate with the exact mean gradient.
It also prints the numbers it plots as a table (for the README).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import ccsim  # noqa: E402


def load_hops(run_dir, column="rel_error"):
    """Per hop (sorted), the values of `column` over the iterations."""
    h = ccsim.load_run(run_dir).hops
    h = h[h[column].notna()]
    groups = {int(k): g[column].to_numpy(dtype=float) for k, g in h.groupby("hop")}
    hops = np.array(sorted(groups))
    return hops, [groups[k] for k in hops]


def label_of(run_dir):
    s = ccsim.load_run(run_dir).summary
    return ccsim.shown(f'{s["compressor"]} / {s["collective"]}, N={s["workers"]}')


def draw_runs(runs):
    """The figure: error against hop, one line (and min-max band) per run."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for run in runs:
        hops, err = load_hops(run)
        if len(hops) == 0:
            raise SystemExit(f"{run}/hops.csv: no hops (a single worker, or a one-hop collective)")
        mean = np.array([e.mean() for e in err])
        ax.plot(hops, mean, marker="o", ms=3, label=label_of(run))
        ax.fill_between(hops, [e.min() for e in err], [e.max() for e in err], alpha=0.2)
    ax.set_xlabel("hop (links the partial aggregate has crossed)")
    ax.set_ylabel("relative L2 error vs exact partial sum")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def num(s, key):
    v = s.get(key)
    return float("nan") if v is None else float(v)


def draw_sweep(sweep_dir, at_n):
    """The four panels of a cascade sweep (axes method and workers) and the
    table of what they plot."""
    sweep = ccsim.load_sweep(sweep_dir)
    points = sweep.done()
    if points.empty or "method" not in sweep.axes or "workers" not in sweep.axes:
        raise SystemExit(f"{sweep_dir}/sweep.csv: expected a sweep with axes 'method' and 'workers'")
    methods = list(dict.fromkeys(points["method"]))
    data = {}
    for _, p in points.iterrows():
        d = os.path.join(sweep_dir, p["point"])
        data[(p["method"], int(p["workers"]))] = (d, sweep.run(p["point"]).summary)
    ns = sorted({n for (_, n) in data})
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    (a, b), (c, dd) = axes
    table = []
    for m in methods:
        xs = [n for n in ns if (m, n) in data]
        casc = [num(data[(m, n)][1], "agg_cascade_rel_error") for n in xs]
        gain = [num(data[(m, n)][1], "agg_cascade_gain") for n in xs]
        cos = [num(data[(m, n)][1], "agg_cosine") for n in xs]
        rel = [num(data[(m, n)][1], "agg_rel_error") for n in xs]
        for n, e, g, co, r in zip(xs, casc, gain, cos, rel):
            table.append((m, n, e, g, co, r))
        b.plot(xs, casc, marker="o", ms=4, label=ccsim.shown(m))
        c.plot(xs, gain, marker="o", ms=4, label=ccsim.shown(m))
        dd.plot(xs, cos, marker="o", ms=4, label=ccsim.shown(m))
        if (m, at_n) in data:
            hops, err = load_hops(data[(m, at_n)][0], "cascade_rel_error")
            if len(hops):
                a.plot(hops, [e.mean() for e in err], marker=".", ms=3, label=ccsim.shown(m))
    a.set_title(f"(a) cascading error by hop, N = {at_n}")
    a.set_xlabel("hop (links the partial aggregate has crossed)")
    a.set_ylabel("rel. L2 error vs own-decoded sum")
    b.set_title("(b) cascading error of the final aggregate")
    b.set_ylabel("rel. L2 error vs mean of own-decoded payloads")
    c.set_title("(c) gain <y,r>/<r,r> (1 = unbiased combination)")
    c.axhline(1.0, color="k", lw=0.8, ls=":")
    dd.set_title("(d) cosine of the aggregate with the exact mean")
    for ax in (b, c, dd):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("workers N")
    for ax in (a, b):  # fp32 rounding (~1e-7) is the floor of an exact combination
        ax.set_yscale("log")
        ax.set_ylim(bottom=1e-8)
    for ax in axes.flat:
        ax.grid(True, which="both", alpha=0.3)
    a.legend(fontsize=8)
    fig.tight_layout()
    return fig, table


def print_table(table):
    print("| method | N | cascading rel. error | gain | cosine vs exact mean | rel. error vs exact mean |")
    print("|---|---|---|---|---|---|")
    for m, n, e, g, co, r in table:
        fmt = lambda v, f: "n/a" if math.isnan(v) else f % v  # noqa: E731
        print(f"| {ccsim.shown(m)} | {n} | {fmt(e, '%.4g')} | {fmt(g, '%.4f')} | {fmt(co, '%.4f')} | {fmt(r, '%.4g')} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", help="result directories of ccsim run")
    ap.add_argument("--sweep", help="a ccsim sweep output directory (axes method, workers)")
    ap.add_argument("--at-n", type=int, default=64, help="N of the by-hop panel (sweep mode)")
    ap.add_argument("-o", "--output", default=None, help="the image (default: beside the run or sweep)")
    a = ap.parse_args()
    if a.sweep:
        fig, table = draw_sweep(a.sweep, a.at_n)
        out = a.output or os.path.join(a.sweep, "cascade.png")
        fig.savefig(out, dpi=110)
        print_table(table)
    elif a.runs:
        fig = draw_runs(a.runs)
        out = a.output or os.path.join(a.runs[0], "hops.png")
        fig.savefig(out, dpi=120)
    else:
        ap.error("give result directories or --sweep DIR")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    ccsim.run_main(main, "plot_hops.py")
