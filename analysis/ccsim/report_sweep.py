"""The report of one sweep: setup, a table of the points, one plot per axis
(numeric axes sorted by value, units parsed), the time breakdown of every
point, speed-up over a named baseline, hop error and convergence."""
import json
import math
import os

from . import report_html as H
from . import report_plots as P

METRIC = "iteration_time_s"


class BadBaseline(ValueError):
    """A --baseline the sweep does not have."""


def _f(v):
    return H.finite(v) if v is not None and not (isinstance(v, str)) else None


def order(sweep, df):
    """df's rows sorted by the axes: numbers by value, labels in the sweep's order."""
    first = {a: {v: i for i, v in enumerate(dict.fromkeys(sweep.points[a]))} for a in sweep.axes}
    keys = [tuple(r[a] if sweep.units[a] is not None else first[a][r[a]] for a in sweep.axes)
            for _, r in df.iterrows()]
    return df.iloc[sorted(range(len(df)), key=lambda i: keys[i])]


def setup(sweep, summ):
    pts = sweep.points
    status = pts["status"].value_counts().to_dict()
    versions = sorted(set(summ["ccsim_version"])) if "ccsim_version" in summ.columns else []
    facts = [("sweep", os.path.basename(sweep.path)), ("directory", sweep.path),
             ("points", f"{len(pts)}: " + ", ".join(f"{n} {k}" for k, n in sorted(status.items()))),
             ("ccsim version", ", ".join(versions) or "—")]
    body = H.kv(facts)
    rows = []
    for a in sweep.axes:
        u = sweep.units[a]
        vals = list(dict.fromkeys(pts[a]))
        ranked = sorted(vals) if u is not None else vals
        rows.append((a, ", ".join(sweep.label(a, v) for v in vals),
                     {None: "labels", "": "numbers"}.get(u, u),
                     ", ".join(f"{v:g}" for v in ranked) if u is not None else "—"))
    body += "<h3>Axes</h3>" + H.table(["axis", "labels (sweep order)", "parsed as", "values, sorted"], rows)
    exp_cols = [c for c in summ.columns if c.startswith("experiment.")]
    common, varying = [], []
    for c in exp_cols:
        vals = [v if isinstance(v, str) else json.dumps(v, default=str) for v in summ[c]]
        uniq = set(str(v) for v in vals)
        (common if len(uniq) == 1 else varying).append((c[len("experiment."):], vals[0]))
    if exp_cols:
        body += ("<h3>Setup shared by every point</h3><details open><summary>"
                 f"{len(common)} settings; {len(varying)} vary between points: "
                 f"{H.esc(', '.join(k for k, _ in varying) or 'none')}</summary>"
                 + H.table(["setting", "value"], [(k, v if isinstance(v, str) else json.dumps(v, default=str))
                                                  for k, v in common]) + "</details>")
    return body


def points_table(sweep, sp):
    cols = ["status", METRIC] + (["speedup"] if sp is not None else []) + [
        "compute_s", "compress_s", "communicate_s", "exposed_communicate_s", "bytes_on_wire",
        "compression_ratio", "agg_rel_error"]
    pts = order(sweep, sp if sp is not None else sweep.points)
    status_of = dict(zip(sweep.points["point"], sweep.points["status"]))
    rows, classes = [], []
    for _, r in pts.iterrows():
        row = [sweep.label(a, r[a]) for a in sweep.axes]
        for c in cols:
            v = r.get(c)
            if c == "speedup" and (v is None or not math.isfinite(v)):
                status = status_of.get(r["baseline"]) if isinstance(r["baseline"], str) else None
                v = ("—" if r["status"] != "done" else f"— (baseline {status})" if status else "— (no baseline)")
            elif isinstance(v, float) and not math.isfinite(v):
                v = None
            row.append(v)
        row.append(r.get("reason") if isinstance(r.get("reason"), str) else "")
        rows.append(row)
        classes.append("failed" if r["status"] != "done" else
                       ("base" if sp is not None and r["baseline"] == r["point"] else ""))
    return H.table(list(sweep.axes) + cols + ["reason"], rows, classes)


def _groups(sweep, done, axis):
    """The other axes' label combinations, in sweep order: [(label, rows)]."""
    others = [b for b in sweep.axes if b != axis]
    keys = list(dict.fromkeys(tuple(r[b] for b in others) for _, r in order(sweep, done).iterrows()))
    out = []
    for k in keys:
        mask = [all(r[b] == v for b, v in zip(others, k)) for _, r in done.iterrows()]
        label = ", ".join(f"{b}={sweep.label(b, v)}" for b, v in zip(others, k)) or METRIC
        out.append((label, done[mask]))
    return out


def axis_plot(sweep, done, axis, sp):
    """One figure: the metric (and speed-up) against this axis, a line (numbers)
    or a bar colour (labels) per combination of the other axes."""
    numeric = sweep.units[axis] is not None
    xs = sorted(set(done[axis])) if numeric else list(dict.fromkeys(done[axis]))
    labels = [sweep.label(axis, v) for v in xs]
    ups = dict(zip(sp["point"], sp["speedup"])) if sp is not None else {}
    series = []
    for label, part in _groups(sweep, done, axis):
        at = {r[axis]: r for _, r in part.iterrows()}
        series.append({"label": label,
                       "y": [_f(at[x][METRIC]) if x in at else None for x in xs],
                       "speedup": [_f(ups.get(at[x]["point"])) if x in at and ups else None for x in xs]})
    x_scale = "log" if numeric and P.spans_decades(xs) else "linear"
    y_scale = "log" if P.spans_decades([v for s in series for v in s["y"]]) else "linear"
    fig, axes = P.new(2 if sp is not None else 1)
    panels = [(METRIC, "iteration time (s)", y_scale)] + ([("speedup", "speed-up over the baseline", "linear")]
                                                           if sp is not None else [])
    for ax, (key, ylabel, ys) in zip(axes, panels):
        ser = [{"label": s["label"], "x": xs, "y": s["y" if key == METRIC else "speedup"]} for s in series]
        if numeric:
            P.lines(ax, ser, x_scale=x_scale, y_scale=ys, x_ticks=list(zip(xs, labels)))
        else:
            P.grouped_bars(ax, labels, ser, y_scale=ys)
        if key == "speedup":
            ax.axhline(1.0, color="black", lw=0.8)
        unit = sweep.units[axis]
        ax.set_xlabel(axis + (f" ({unit})" if unit else ""))
        ax.set_ylabel(ylabel)
    if len(series) > 8:
        P.legend_below(axes[0], len(series))
    elif len(series) > 1 or series[0]["label"] != METRIC:
        axes[-1].legend(fontsize=7)
    fig.tight_layout()
    data = {"kind": "axis", "axis": axis, "unit": sweep.units[axis], "numeric": numeric, "x": xs,
            "x_labels": labels, "x_scale": x_scale, "y": METRIC, "y_scale": y_scale, "series": series}
    head = [axis] + [f"{s['label']}: {METRIC}" for s in series] + (
        [f"{s['label']}: speed-up" for s in series] if sp is not None else [])
    rows = [[labels[i]] + [s["y"][i] for s in series] + ([s["speedup"][i] for s in series] if sp is not None else [])
            for i in range(len(xs))]
    how = ("numbers from the labels, sorted" + (", log scale" if x_scale == "log" else "")) if numeric else \
        "labels, in the sweep's order"
    return H.figure(f"axis-{axis}", fig, f"{METRIC} against {axis} ({how})"
                    + (", and the speed-up over the baseline" if sp is not None else "") + ".", data, (head, rows))


def breakdown_plot(sweep, done):
    stacks, rows = [], []
    for _, r in done.iterrows():
        st = P.stack(r[METRIC], r["compute_s"], r["exposed_communicate_s"])
        stacks.append({"point": r["point"], METRIC: r[METRIC], "stack": st})
        rows.append([r["point"]] + [st[k] for k, _, _ in P.STACK] + [r[METRIC]])
    fig = P.breakdown([s["point"] for s in stacks], [s["stack"] for s in stacks])
    return H.figure("time-breakdown", fig, "Where an iteration goes, per point (sweep.csv, per iteration): the "
                    "three parts add up to the point's iteration time.", {"kind": "breakdown", "points": stacks},
                    (["point"] + [lab for _, lab, _ in P.STACK] + [METRIC], rows))


def speedup_plot(sp, baseline):
    d = sp[sp["status"] == "done"]
    if not d["speedup"].notna().any():
        return H.note(f'no point has a speed-up over "{baseline}": its baseline point(s) did not finish')
    names = d["point"].tolist()
    vals = [_f(v) for v in d["speedup"]]
    fig, (ax,) = P.new(height=1.2 + 0.36 * len(names))
    ys = list(range(len(names)))[::-1]
    ax.barh([y for y, v in zip(ys, vals) if v is not None], [v for v in vals if v is not None], color="#4878a8")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(ys, names)
    ax.set_xlabel(f"speed-up over the baseline ({METRIC} of the baseline / the point's)")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    pts = [{"point": p, "baseline": b, "speedup": v} for p, b, v in zip(names, d["baseline"], vals)]
    return H.figure("speedup", fig, f'Speed-up over the baseline "{baseline}" (1: as fast; above 1: faster).',
                    {"kind": "speedup", "baseline": baseline, "metric": METRIC, "points": pts},
                    (["point", "baseline point", "speed-up"], [(p["point"], p["baseline"], p["speedup"]) for p in pts]))


def hops_plot(sweep):
    h = sweep.hops()
    if len(h) == 0 or "rel_error" not in h.columns or h["rel_error"].notna().sum() == 0:
        return H.note("no hops in any point (hops.csv has no rows)")
    series = []
    h = h[h["rel_error"].notna()]
    for p in order(sweep, sweep.done())["point"]:
        g = h[h["point"] == p]
        if len(g) == 0:
            continue
        m = g.groupby("hop")["rel_error"].mean()
        series.append({"label": p, "x": [int(k) for k in m.index], "y": [_f(v) for v in m]})
    fig, (ax,) = P.new(height=4.2 + 0.1 * len(series))
    ys = "log" if all(v and v > 0 for s in series for v in s["y"]) else "linear"
    P.lines(ax, series, y_scale=ys)
    ax.set_xlabel("hop (links the partial aggregate has crossed)")
    ax.set_ylabel("relative L2 error (mean over iterations)")
    P.legend_below(ax, len(series))
    fig.tight_layout()
    rows = [(s["label"], x, y) for s in series for x, y in zip(s["x"], s["y"])]
    return H.figure("hops", fig, "Cascading error per point: mean over iterations of the partial aggregate's "
                    "error after each hop (every point's hops.csv).", {"kind": "lines", "y_scale": ys, "series": series},
                    (["point", "hop", "rel_error (mean)"], rows))


def convergence_plot(sweep):
    it = sweep.iterations()
    if "test_accuracy" not in it.columns or it["test_accuracy"].notna().sum() == 0:
        return None
    ev = it[it["test_accuracy"].notna()]
    fig, axes = P.new(2)
    data = {"kind": "convergence", "panels": []}
    for ax, (xcol, xlabel) in zip(axes, (("iteration", "iteration"), ("end_s", "simulated time (s)"))):
        series = [{"label": p, "x": [_f(v) for v in g[xcol]], "y": [_f(v) for v in g["test_accuracy"]]}
                  for p, g in ev.groupby("point", sort=False)]
        P.lines(ax, series)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("test accuracy")
        data["panels"].append({"x": xcol, "series": series})
    P.legend_below(axes[0], len(series)) if len(series) > 4 else axes[-1].legend(fontsize=7)
    fig.tight_layout()
    rows = [(r["point"], int(r["iteration"]), r["end_s"], r["test_accuracy"]) for _, r in ev.iterrows()]
    return H.figure("convergence", fig, "Test accuracy against iteration and simulated time, per point.", data,
                    (["point", "iteration", "end_s", "test_accuracy"], rows))


def report(sweep, baseline=None):
    """The whole page of a sweep, as text; BadBaseline for a baseline it lacks."""
    sp = None
    if baseline is not None:
        try:
            sp = sweep.speedup(baseline, METRIC)
        except ValueError as e:
            raise BadBaseline(str(e)) from None
    done = order(sweep, sweep.done())
    summ = sweep.summaries()
    sections = [("setup", "Setup", setup(sweep, summ)),
                ("summary", "Points", points_table(sweep, sp))]
    if len(done) == 0:
        sections.append(("plots", "Plots", H.note("no point has finished: nothing to plot")))
    else:
        sections.append(("axes", "One plot per axis", "".join(axis_plot(sweep, done, a, sp) for a in sweep.axes)))
        sections.append(("time", "Time breakdown", breakdown_plot(sweep, done)))
        sections.append(("speedup", "Speed-up", speedup_plot(order(sweep, sp), baseline) if sp is not None else H.note(
            "no baseline named: `ccsim report DIR --baseline POINT` (a point, AXIS=LABEL or a label) "
            "adds the speed-up of every point over it")))
        sections.append(("hops", "Hop error", hops_plot(sweep)))
        conv = convergence_plot(sweep)
        if conv:
            sections.append(("convergence", "Convergence", conv))
    name = os.path.basename(sweep.path)
    sub = (f"ccsim sweep: {len(sweep.points)} points over {', '.join(sweep.axes)}"
           + (f"; speed-up over {baseline}" if baseline else ""))
    return H.page(f"ccsim report: sweep {name}", sub, sections, "sweep")
