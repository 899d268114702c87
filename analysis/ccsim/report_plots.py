"""The figures of a report, each drawn from exactly the data it embeds
(report_html.figure): lines, grouped bars and the stacked time breakdown."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

# the time breakdown's three parts of an iteration, in the order they are stacked
STACK = (("compute", "compute (forward + backward)", "#4878a8"),
         ("other", "compression, waits before backward ends", "#e0a030"),
         ("exposed_communicate", "exposed communication", "#c0504d"))
PARTS = ("compute", "compress", "communicate", "exposed_communicate")


def spans_decades(values):
    """True when every value is positive and the largest is at least ten times
    the smallest: such values go on a log scale."""
    v = [x for x in values if x is not None and math.isfinite(x)]
    return bool(v) and min(v) > 0 and max(v) >= 10 * min(v)


def stack(it_time, compute, exposed):
    """An iteration split into the three STACK parts that add up to it:
    compute, exposed communication, and the rest of worker 0's time before
    the end of backward (compression on the device, waits) or spent by a slower
    worker.  The parts sum to it_time exactly up to rounding."""
    return {"compute": compute, "other": it_time - compute - exposed, "exposed_communicate": exposed}


def lines(ax, series, x_scale="linear", y_scale="linear", x_ticks=None, band=False):
    """One line per series {label, x, y[, lo, hi]}; x_ticks: [(value, label)]."""
    for s in series:
        xs = [x for x, y in zip(s["x"], s["y"]) if y is not None]
        ys = [y for y in s["y"] if y is not None]
        ax.plot(xs, ys, marker="o" if len(xs) <= 200 else None, ms=3.5, label=s["label"])
        if band and s.get("lo"):
            ax.fill_between(s["x"], s["lo"], s["hi"], alpha=0.18)
    if x_scale == "log":
        ax.set_xscale("log")
    if y_scale == "log":
        ax.set_yscale("log")
    if not x_ticks and all(isinstance(x, int) for sr in series for x in sr["x"]):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    else:
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4), useOffset=False) if x_scale != "log" \
            and not x_ticks else None
    if x_ticks:
        ax.set_xticks([v for v, _ in x_ticks], [lab for _, lab in x_ticks])
        ax.minorticks_off() if x_scale == "log" else None
    ax.grid(True, which="both", alpha=0.3)


def legend_below(ax, n):
    """A legend under the axes for many lines (n), in columns."""
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=min(3, 1 + n // 6), frameon=False)


def grouped_bars(ax, categories, series, y_scale="linear"):
    """Bars per category, one colour per series {label, y} (None: no bar)."""
    n = max(len(series), 1)
    w = 0.8 / n
    for k, s in enumerate(series):
        xs = [i - 0.4 + w * (k + 0.5) for i, y in enumerate(s["y"]) if y is not None]
        ax.bar(xs, [y for y in s["y"] if y is not None], width=w, label=s["label"])
    ax.set_xticks(range(len(categories)), categories, rotation=20 if len(categories) > 4 else 0, ha="right"
                  if len(categories) > 4 else "center")
    if y_scale == "log":
        ax.set_yscale("log")
    ax.grid(True, axis="y", which="both", alpha=0.3)


def breakdown(names, stacks, parts=None, unit_scale=1e3):
    """Horizontal stacked bars, one per name, of the STACK parts (ms); with
    parts ({compute, compress, communicate, exposed_communicate}), a second
    panel below with those four figures side by side (they overlap in time)."""
    height = 1.5 + 0.36 * len(names) + (2.0 if parts else 0)
    if parts:
        fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8.6, height), gridspec_kw={"height_ratios": [1, 1.6]})
    else:
        fig, ax = plt.subplots(figsize=(8.6, height))
    left = [0.0] * len(names)
    ys = list(range(len(names)))[::-1]
    for key, label, colour in STACK:
        w = [s[key] * unit_scale for s in stacks]
        ax.barh(ys, w, left=left, color=colour, label=label, height=0.62)
        left = [a + b for a, b in zip(left, w)]
    ax.set_yticks(ys, names)
    ax.set_xlabel("time per iteration (ms)")
    fig.legend(*ax.get_legend_handles_labels(), fontsize=8, loc="upper center", ncol=3, frameon=False)
    ax.grid(True, axis="x", alpha=0.3)
    if parts:
        colours = {"compute": "#4878a8", "compress": "#e0a030", "communicate": "#8c6bb1",
                   "exposed_communicate": "#c0504d"}
        ys2 = list(range(len(PARTS)))[::-1]
        ax2.barh(ys2, [parts[p] * unit_scale for p in PARTS], color=[colours[p] for p in PARTS], height=0.62)
        ax2.set_yticks(ys2, [p.replace("_", " ") for p in PARTS])
        ax2.set_xlabel("time_breakdown_s per iteration (ms): each on its own, overlapping in time")
        ax2.grid(True, axis="x", alpha=0.3)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / height))
    return fig


def new(ncols=1, width=8.6, height=3.9):
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def grid(nrows, ncols, width=8.6, height=6.4):
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False)
    return fig, axes
