"""The report of one run: setup, summary, time breakdown, hop error,
convergence (trained runs) and timeline (when recorded)."""
import json
import os

from . import report_html as H
from . import report_plots as P
from .results import flatten


def unit_of(key):
    if key.startswith("host_time"):
        return "host s"
    if key.endswith("_s") or ".time_breakdown_s." in f".{key}" or key.startswith("time_breakdown_s."):
        return "s"
    if "bytes" in key:
        return "bytes"
    if key.endswith("_mb"):
        return "MB"
    return ""


MAX_LANES = 16  # workers drawn in the timeline
FILE_KEYS = ("file", "trace", "data", "program", "profile", "path")


def inputs(experiment):
    """(JSON path, file) for every file the resolved experiment names."""
    out = []
    for k, v in flatten(experiment).items():
        last = k.rsplit(".", 1)[-1]
        if isinstance(v, str) and k != "output.dir" and (
                v.endswith((".json", ".xml", ".csv", ".gz", ".trace", ".bin")) or last in FILE_KEYS):
            out.append((k, v, "present" if os.path.exists(v) else "not found from here"))
    return out


def setup(run):
    s, e = run.summary, run.experiment
    plat = e.get("platform", {})
    where = plat.get("file") or ", ".join(f"{k} {plat[k]}" for k in ("generate", "hosts", "bandwidth", "latency")
                                          if k in plat)
    facts = [("experiment", s.get("name")), ("ccsim version", s.get("ccsim_version")),
             ("experiment hash", s.get("experiment_hash")), ("directory", run.path),
             ("workers", s.get("workers")), ("compressor", s.get("compressor")), ("memory", s.get("memory")),
             ("collective", s.get("collective")), ("elements", s.get("elements")),
             ("iterations", s.get("iterations")), ("platform", where),
             ("network model", s.get("network_model")), ("device", s.get("device")),
             ("seed", e.get("seed", "default")), ("data", s.get("data_mode"))]
    body = H.kv([(k, v) for k, v in facts if v is not None])
    ins = inputs(e)
    body += "<h3>Inputs</h3>" + (H.table(["JSON path", "file", ""], ins) if ins else
                                 "<p>none: generated platform and gradients</p>")
    body += ("<details><summary>the resolved experiment (every default, --set and --cfg applied)</summary>"
             f"<pre>{H.esc(json.dumps(e, indent=2))}</pre></details>")
    return body


def summary_table(run):
    rows = []
    for k, v in flatten({k: v for k, v in run.summary.items() if k not in ("experiment", "schedule")}).items():
        if isinstance(v, (list, dict)):
            continue
        rows.append((k, v, unit_of(k)))
    return H.table(["key", "value", "unit"], rows, numeric={1})


def time_section(run):
    s, it = run.summary, run.iterations
    n = s["iterations"]
    parts = {p: s["time_breakdown_s"][p] / n for p in P.PARTS}
    st = P.stack(s["iteration_time_s"], parts["compute"], parts["exposed_communicate"])
    fig = P.breakdown(["per iteration (mean)"], [st], parts)
    data = {"kind": "breakdown", "iteration_time_s": s["iteration_time_s"],
            "stack": [{"part": k, "label": lab, "value": st[k]} for k, lab, _ in P.STACK],
            "per_iteration": parts}
    rows = [(lab, st[k]) for k, lab, _ in P.STACK] + [("iteration time", s["iteration_time_s"])]
    body = H.figure("time-breakdown", fig,
                    "Where an iteration goes (mean over iterations, worker 0's view): above, the three parts "
                    "add up to the iteration time; below, time_breakdown_s's four figures, which overlap "
                    "(communication during backward is hidden behind compute).",
                    data, (["part", "seconds"], rows))
    body += H.table(["per iteration", "seconds", "meaning"],
                    [("compute", parts["compute"], "forward + backward device time"),
                     ("compress", parts["compress"], "device time of compression (overlaps the rest)"),
                     ("communicate", parts["communicate"], "time inside collectives (overlaps compute)"),
                     ("exposed communicate", parts["exposed_communicate"],
                      "from the end of backward until the aggregate is complete")], numeric={1})
    fig, (ax,) = P.new()
    series = [{"label": c, "x": it["iteration"].tolist(), "y": [H.finite(v) for v in it[c]]}
              for c in ("time_s", "compute_s", "exposed_communicate_s")]
    y_all = [v for sr in series for v in sr["y"]]
    ys = "log" if P.spans_decades(y_all) else "linear"
    P.lines(ax, series, y_scale=ys)
    if ys == "linear" and any(v is not None for v in y_all):  # from 0, room above for the legend
        ax.set_ylim(0, 1.3 * max(v for v in y_all if v is not None) or 1)
    ax.set_xlabel("iteration")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=8)
    fig.tight_layout()
    body += H.figure("iteration-time", fig, "Time per iteration (time_s: the last worker to finish).",
                     {"kind": "lines", "x_label": "iteration", "y_scale": ys, "series": series},
                     (["iteration"] + [sr["label"] for sr in series],
                      [[x] + [sr["y"][i] for sr in series] for i, x in enumerate(series[0]["x"])]))
    return body


def hops_section(run):
    h = run.hops
    if h is None or len(h) == 0:
        return H.note(f"no hops: {run.summary.get('collective')} with {run.summary.get('workers')} workers "
                      "measures no partial aggregates (hops.csv has no rows)")
    series = []
    for col, label in (("rel_error", "relative error vs the exact partial sum"),
                       ("cascade_rel_error", "vs the workers' own decoded payloads")):
        g = h[h[col].notna()].groupby("hop")[col]
        if len(g) == 0:
            continue
        mean, lo, hi = g.mean(), g.min(), g.max()
        series.append({"label": label, "column": col, "x": [int(k) for k in mean.index],
                       "y": [H.finite(v) for v in mean], "lo": [H.finite(v) for v in lo],
                       "hi": [H.finite(v) for v in hi]})
    fig, (ax,) = P.new()
    ys = "log" if all(v and v > 0 for sr in series for v in sr["y"]) else "linear"
    P.lines(ax, series, y_scale=ys, band=True)
    ax.set_xlabel("hop (links the partial aggregate has crossed)")
    ax.set_ylabel("relative L2 error (mean, min–max band)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    rows = [[x] + [sr["y"][i] for sr in series] for i, x in enumerate(series[0]["x"])]
    return H.figure("hops", fig, "Cascading error: the partial aggregate after each hop, mean over "
                    f"{h['iteration'].nunique()} iterations (hops.csv).",
                    {"kind": "lines", "x_label": "hop", "y_scale": ys, "series": series},
                    (["hop"] + [sr["column"] + " (mean)" for sr in series], rows))


def convergence_section(run):
    it = run.iterations
    if "test_accuracy" not in it.columns or it["test_accuracy"].notna().sum() == 0:
        return None
    ev = it[it["test_accuracy"].notna()]
    tr = it[it["train_loss"].notna()] if "train_loss" in it.columns else it.iloc[0:0]
    fig, axes = P.grid(2, 2)
    data = {"kind": "convergence", "panels": []}
    for row, (cols, ylabel) in enumerate(((("test_accuracy",), "test accuracy"),
                                          (("train_loss", "test_loss"), "loss"))):
        for k, (xcol, xlabel) in enumerate((("iteration", "iteration"), ("end_s", "simulated time (s)"))):
            series = []
            for c in cols:
                part = ev if c != "train_loss" else tr
                part = part[part[c].notna()]
                series.append({"label": c, "x": [H.finite(v) for v in part[xcol]],
                               "y": [H.finite(v) for v in part[c]]})
            P.lines(axes[row][k], series)
            axes[row][k].set_xlabel(xlabel)
            axes[row][k].set_ylabel(ylabel)
            axes[row][k].legend(fontsize=8)
            data["panels"].append({"x": xcol, "y_label": ylabel, "series": series})
    fig.tight_layout()
    rows = [(int(r["iteration"]), r["end_s"], r.get("train_loss"), r.get("test_loss"), r["test_accuracy"])
            for _, r in ev.iterrows()]
    s = run.summary
    cap = (f"Convergence: final test accuracy {H.num(s.get('final_accuracy'))}, target "
           f"{H.num(s.get('target_accuracy'))}, reached at "
           + (f"{H.num(s['time_to_accuracy_s'])} s (iteration {s['iterations_to_accuracy']})"
              if s.get("time_to_accuracy_s") is not None else "— (not reached)"))
    return H.figure("convergence", fig, cap, data,
                    (["iteration", "end_s", "train_loss", "test_loss", "test_accuracy"], rows))


def timeline_section(run):
    tl = run.timeline
    if tl is None or len(tl) == 0:
        return None
    last = int(tl["iteration"].max())
    rows = tl[tl["iteration"] == last]
    t0 = rows["start_s"].min()
    every = sorted(rows["worker"].unique())
    workers = every[:MAX_LANES]  # a page, not a wall: the first workers
    rows = rows[rows["worker"].isin(workers)]
    colours = {"forward": "#4878a8", "backward": "#7fa7cf", "compress": "#e0a030", "decompress": "#b8860b",
               "communicate": "#c0504d"}
    fig, (ax,) = P.new(height=1.2 + 0.5 * len(workers))
    bars, seen = [], set()
    for _, r in rows.iterrows():
        lane = (len(workers) - 1 - workers.index(r["worker"])) * 2 + (0 if r["activity"] == "communicate" else 1)
        s, w = (r["start_s"] - t0) * 1e3, (r["end_s"] - r["start_s"]) * 1e3
        ax.broken_barh([(s, w)], (lane + 0.1, 0.8), color=colours.get(r["activity"], "grey"),
                       label=None if r["activity"] in seen else r["activity"])
        seen.add(r["activity"])
        bars.append({"worker": int(r["worker"]), "activity": r["activity"], "start_ms": s, "width_ms": w})
    ax.set_yticks([(len(workers) - 1 - i) * 2 + 1 for i in range(len(workers))], [f"worker {w}" for w in workers])
    ax.set_xlabel(f"iteration {last}: simulated time from its start (ms); upper lane device, lower lane network")
    ax.legend(fontsize=8, ncol=5, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    shown = "" if len(workers) == len(every) else f"; workers 0 to {workers[-1]} of {len(every)}"
    return H.figure("timeline", fig, f"Timeline of iteration {last} (timeline.csv{shown}).",
                    {"kind": "timeline", "iteration": last, "bars": bars},
                    (["worker", "activity", "start (ms)", "width (ms)"],
                     [(b["worker"], b["activity"], b["start_ms"], b["width_ms"]) for b in bars]))


def report(run):
    """The whole page of a run, as text."""
    s = run.summary
    sections = [("setup", "Setup", setup(run)), ("summary", "Summary", summary_table(run)),
                ("time", "Time breakdown", time_section(run)), ("hops", "Hop error", hops_section(run))]
    conv = convergence_section(run)
    sections.append(("convergence", "Convergence", conv if conv else
                     H.note("not a training run (gradients.source \"train\"): no loss or accuracy to plot")))
    tl = timeline_section(run)
    if tl:
        sections.append(("timeline", "Timeline", tl))
    sub = (f"ccsim {s.get('ccsim_version')} run: {s.get('workers')} workers, {s.get('compressor')} over "
           f"{s.get('collective')}, {s.get('iterations')} iterations; "
           f"{H.num(s.get('iteration_time_s'))} s per iteration")
    return H.page(f"ccsim report: {s.get('name', os.path.basename(run.path))}", sub, sections, "run")
