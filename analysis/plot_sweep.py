#!/usr/bin/python3
"""Plot any metric of a sweep against any axis, one line per value of another.

usage: analysis/py analysis/plot_sweep.py SWEEP_DIR --y METRIC --x AXIS [--group AXIS]
                                          [--baseline POINT] [--logx] [--logy] [-o FILE]

METRIC is a column of sweep.csv (iteration_time_s, compute_s, bytes_on_wire,
agg_rel_error, ...) or any key of the points' summary.json, nested keys dotted
(time_breakdown_s.exposed_communicate, final_accuracy).  AXIS is one of the
sweep's axes (or a summary key); --group draws one line per value of another
axis.  An axis whose labels are quantities ("10Gbps", "4MB", "5us") is
plotted at their values (bits/s, bytes, seconds), sorted, with the labels as
ticks.  --baseline draws the speed-up over a point instead (the baseline's
METRIC over each point's; POINT as sweep.csv names it, AXIS=LABEL for the point
with the same other labels, or a label one axis has; docs/python.md).
Points that did not finish are left out.  The figure goes beside the
sweep (SWEEP_DIR/sweep-METRIC-vs-AXIS.png) unless -o says otherwise.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import ccsim  # noqa: E402


def table(sweep, columns):
    """The done points with the wanted columns: sweep.csv first, summary.json
    keys only when sweep.csv lacks one."""
    df = sweep.done()
    missing = [c for c in columns if c and c not in df.columns]
    if missing:
        s = sweep.summaries()
        unknown = [c for c in missing if c not in s.columns]
        if unknown:
            raise SystemExit(f"{sweep.path}: no column or summary key {', '.join(unknown)} "
                             f"(axes: {', '.join(sweep.axes)})")
        df = df[["point"] + [c for c in columns if c in df.columns]].merge(
            s[["point"] + missing], on="point")
    return df


def draw(sweep, y, x, group=None, logx=False, logy=False, baseline=None):
    """The figure: y against x, one line per value of `group` (numbers sorted,
    labels in the sweep's order); with baseline, the speed-up in y over it."""
    df = table(sweep, [y, x, group])
    if df.empty:
        raise SystemExit(f"{sweep.path}: no finished points")
    ylabel = y
    if baseline is not None:
        if y not in sweep.points.columns:
            raise SystemExit(f"{sweep.path}: --baseline needs a sweep.csv column, not {y}")
        try:
            up = sweep.speedup(baseline, y)
        except ValueError as e:
            raise SystemExit(f"{sweep.path}: --baseline {baseline}: {e}")
        df = df.merge(up[["point", "speedup"]], on="point")
        y, ylabel = "speedup", f"speed-up in {y} over {baseline}"
    fig, ax = plt.subplots(figsize=(7, 4.2))
    values = list(dict.fromkeys(df[group])) if group else []
    if group and sweep.units.get(group) is not None:
        values.sort()
    groups = [(None, df)] if not group else [(g, df[df[group] == g]) for g in values]
    for g, part in groups:
        part = part.sort_values(x) if sweep.units.get(x) is not None or x not in sweep.axes else part
        ax.plot(part[x].to_list(), part[y].to_list(), marker="o", ms=4,
                label=None if g is None else ccsim.shown(f"{group}={sweep.label(group, g)}"))
    unit = sweep.units.get(x)
    ax.set_xlabel(x + (f" ({unit})" if unit else ""))
    ax.set_ylabel(ylabel)
    ax.set_title(os.path.basename(sweep.path))
    if logx:
        ax.set_xscale("log", base=2)
    if unit:  # quantities: ticks at the values, named by their labels
        ticks = sorted(set(df[x]))
        ax.set_xticks(ticks, [sweep.label(x, v) for v in ticks])
        ax.minorticks_off()
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    if group:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep", help="a ccsim sweep output directory (with sweep.csv)")
    ap.add_argument("--y", required=True, help="the metric: a sweep.csv column or a summary key")
    ap.add_argument("--x", required=True, help="the axis on the x axis")
    ap.add_argument("--group", help="one line per value of this axis")
    ap.add_argument("--baseline", help="draw the speed-up over this point (or AXIS=LABEL, or LABEL)")
    ap.add_argument("--logx", action="store_true")
    ap.add_argument("--logy", action="store_true")
    ap.add_argument("-o", "--output", help="the image (default: beside the sweep)")
    a = ap.parse_args()
    sweep = ccsim.load_sweep(a.sweep)
    fig = draw(sweep, a.y, a.x, a.group, a.logx, a.logy, a.baseline)
    name = f"speedup-{a.y}" if a.baseline is not None else a.y
    out = a.output or os.path.join(a.sweep, f"sweep-{name}-vs-{a.x}.png")
    fig.savefig(out, dpi=120)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    ccsim.run_main(main, "plot_sweep.py")
