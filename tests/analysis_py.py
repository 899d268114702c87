#!/usr/bin/python3
"""tests/analysis_py.py CCSIM SRCDIR — the Python package and the plots.

Runs real simulations (a 4-worker two-layer model with its timeline, and a
2 x 2 sweep), then checks that
  - ccsim.load_run / load_sweep give exactly what the files hold (read here
    independently with the csv and json modules);
  - each plot draws that data: the lines' x and y, the timeline's bars (one
    per timeline row, at its start, width and lane), the axis labels and
    legend entries, from the matplotlib figure objects (Agg);
  - figures go beside the run or sweep when no -o is given.
"""
import csv
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

CCSIM, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import ccsim  # noqa: E402
import numpy as np  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL", what)


def script(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SRC, "analysis", name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


T = tempfile.mkdtemp()
run_dir = os.path.join(T, "run")
subprocess.run([CCSIM, "run", os.path.join(SRC, "tests/data/two_layers.json"), "--out", run_dir,
                "--set", "output.timeline=true", "--set", "collective=allreduce/ring", "--quiet"],
               check=True, stdout=subprocess.DEVNULL)

# --- the reader on a run
run = ccsim.load_run(run_dir)
with open(os.path.join(run_dir, "summary.json")) as f:
    summary = json.load(f)
check(run.summary == summary, "summary differs from summary.json")
check(run.experiment["workers"] == 4 and run.experiment["output"]["timeline"] is True,
      "experiment: the resolved experiment")
it_rows = rows(os.path.join(run_dir, "iterations.csv"))
it = run.iterations
check(len(it) == len(it_rows) == summary["iterations"], "iterations: row count")
check(list(it["iteration"]) == [int(r["iteration"]) for r in it_rows], "iterations: iteration column")
check(str(it["bytes_on_wire"].dtype) == "int64", "iterations: bytes_on_wire is an integer column")
check(np.allclose(it["time_s"], [float(r["time_s"]) for r in it_rows], rtol=0, atol=0),
      "iterations: time_s")
check(np.isclose(it["end_s"].iloc[-1], summary["sim_time_s"], rtol=1e-9), "iterations: end_s sums to sim_time_s")
hop_rows = rows(os.path.join(run_dir, "hops.csv"))
check(len(run.hops) == len(hop_rows) == 2 * 3, "hops: 2 iterations x 3 hops of a 4-worker ring")
tl_rows = rows(os.path.join(run_dir, "timeline.csv"))
check(len(run.timeline) == len(tl_rows) > 0, "timeline: row count")

# --- the timeline plot draws one bar per row of the iteration, where the row says
pt = script("plot_timeline")
last = max(int(r["iteration"]) for r in tl_rows)
want = [r for r in tl_rows if int(r["iteration"]) == last]
t0 = min(float(r["start_s"]) for r in want)
fig = pt.draw(run)
ax = fig.axes[0]
bars = []
for coll in ax.collections:
    for p in coll.get_paths():
        v = p.vertices
        bars.append((round(v[:, 0].min(), 9), round(v[:, 0].max() - v[:, 0].min(), 9), round(v[:, 1].min(), 6)))
expect = []
for r in want:
    w, act = int(r["worker"]), r["activity"]
    lane = (3 - w) * 2 + (0 if act == "communicate" else 1)
    s, e = (float(r["start_s"]) - t0) * 1e3, (float(r["end_s"]) - t0) * 1e3
    expect.append((round(s, 9), round(e - s, 9), round(lane + 0.1, 6)))
check(sorted(bars) == sorted(expect), f"timeline: {len(bars)} bars drawn, {len(expect)} rows; they differ")
check([t.get_text() for t in ax.get_yticklabels()] == [f"worker {w}" for w in range(4)],
      "timeline: worker labels")
check(sorted(t.get_text() for t in ax.get_legend().get_texts()) == sorted({r["activity"] for r in want}),
      "timeline: legend names the activities drawn")
check(f"iteration {last}" in ax.get_xlabel(), "timeline: x label names the iteration")
subprocess.run(["/usr/bin/python3", os.path.join(SRC, "analysis/plot_timeline.py"), run_dir], check=True,
               cwd=T, stderr=subprocess.DEVNULL)
check(os.path.exists(os.path.join(run_dir, "timeline.png")), "timeline: not written beside the run")

# --- the hops plot: mean error per hop
ph = script("plot_hops")
fig = ph.draw_runs([run_dir])
line = fig.axes[0].get_lines()[0]
per_hop = {}
for r in hop_rows:
    per_hop.setdefault(int(r["hop"]), []).append(float(r["rel_error"]))
check(list(line.get_xdata()) == sorted(per_hop), "hops: x = hops")
check(np.allclose(line.get_ydata(), [np.mean(per_hop[h]) for h in sorted(per_hop)], rtol=1e-12),
      "hops: y = mean error per hop")
check(fig.axes[0].get_legend().get_texts()[0].get_text() == "none / allreduce/ring, N=4", "hops: legend")

# --- a sweep
base = os.path.join(T, "base.json")
with open(base, "w") as f:
    json.dump({"workers": 2, "iterations": 2, "model": {"elements": 5000},
               "platform": {"generate": "crossbar", "hosts": 8}}, f)
sw = os.path.join(T, "sweep.json")
with open(sw, "w") as f:
    json.dump({"name": "t", "base": "base.json", "axes": [
        {"name": "workers", "path": "workers", "values": [2, 4, 8]},
        {"name": "method", "values": [{"label": "none", "set": {"compressor": "none"}},
                                       {"label": "fp16", "set": {"compressor": "fp16"}}]}]}, f)
sweep_dir = os.path.join(T, "sw")
subprocess.run([CCSIM, "sweep", sw, "--out", sweep_dir, "--quiet"], check=True)
sweep = ccsim.load_sweep(sweep_dir)
srows = rows(os.path.join(sweep_dir, "sweep.csv"))
check(sweep.axes == ["workers", "method"], f"sweep: axes {sweep.axes}")
check(len(sweep.done()) == 6, "sweep: 6 points done")
for c in ("compute_s", "compress_s", "communicate_s", "exposed_communicate_s", "bytes_on_wire"):
    check(c in sweep.points.columns, f"sweep.csv lacks {c}")
for r in srows:
    with open(os.path.join(sweep_dir, r["point"], "summary.json")) as f:
        s = json.load(f)
    check(int(r["bytes_on_wire"]) == s["bytes_on_wire"], "sweep.csv bytes_on_wire = the point's")
    check(np.isclose(float(r["communicate_s"]), s["time_breakdown_s"]["communicate"] / s["iterations"],
                     rtol=1e-9), "sweep.csv communicate_s = the point's per iteration")
summ = sweep.summaries()
check("time_breakdown_s.communicate" in summ.columns and "experiment.platform.bandwidth" in summ.columns,
      "summaries: flattened keys")

psw = script("plot_sweep")
fig = psw.draw(sweep, "bytes_on_wire", "workers", "method")
ax = fig.axes[0]
check(ax.get_xlabel() == "workers" and ax.get_ylabel() == "bytes_on_wire", "sweep plot: axis labels")
labels = [t.get_text() for t in ax.get_legend().get_texts()]
check(labels == ["method=none", "method=fp16"], f"sweep plot: legend {labels}")
for line, m in zip(ax.get_lines(), ["none", "fp16"]):
    pts = sorted((int(r["workers"]), int(r["bytes_on_wire"])) for r in srows if r["method"] == m)
    check(list(line.get_xdata()) == [p[0] for p in pts], f"sweep plot {m}: x")
    check(list(line.get_ydata()) == [p[1] for p in pts], f"sweep plot {m}: y")
# fp16 sends half the bytes of none at every N: what the lines show
lines = ax.get_lines()
check(np.allclose(np.array(lines[1].get_ydata()) * 2, lines[0].get_ydata()), "sweep plot: fp16 = none / 2")
# a summary key that sweep.csv does not have
fig = psw.draw(sweep, "agg_cascade_rel_error", "workers", "method")
check(len(fig.axes[0].get_lines()) == 2, "sweep plot of a summary key: two lines")
subprocess.run(["/usr/bin/python3", os.path.join(SRC, "analysis/plot_sweep.py"), sweep_dir, "--y",
                "iteration_time_s", "--x", "workers", "--group", "method"], check=True, cwd=T,
               stderr=subprocess.DEVNULL)
check(os.path.exists(os.path.join(sweep_dir, "sweep-iteration_time_s-vs-workers.png")),
      "sweep plot: not written beside the sweep")
bad = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "analysis/plot_sweep.py"), sweep_dir, "--y",
                      "nonsense", "--x", "workers"], cwd=T, capture_output=True, text=True)
check(bad.returncode != 0 and "nonsense" in bad.stderr, "sweep plot: an unknown metric is named")

# --- figures that do not exist: null in summary.json (with the reason),
# empty cells in the CSVs; the reader and the plots take them as NaN
nil = os.path.join(T, "nil.json")
with open(nil, "w") as f:
    json.dump({"name": "nil", "workers": 2, "iterations": 2, "model": {"elements": 1000},
               "compressor": {"name": "threshold", "tau": 1e300}, "collective": "allgather/ring"}, f)
nil_sw = os.path.join(T, "nil-sweep.json")
with open(nil_sw, "w") as f:
    json.dump({"name": "nil", "base": "nil.json", "axes": [{"path": "workers", "values": [2, 3]}]}, f)
nil_dir = os.path.join(T, "nil-sw")
subprocess.run([CCSIM, "sweep", nil_sw, "--out", nil_dir, "--quiet"], check=True)
nrun = ccsim.load_sweep(nil_dir).run("workers=2")
check(nrun.summary["compression_ratio"] is None and nrun.summary["agg_cosine"] is None,
      f"nothing sent: ratio {nrun.summary['compression_ratio']}, cosine {nrun.summary['agg_cosine']}")
check(nrun.summary["undefined"]["compression_ratio"] == "nothing was sent: 0 bytes on the wire",
      f"nothing sent: reason {nrun.summary.get('undefined')}")
check(nrun.iterations["compression_ratio"].isna().all() and nrun.iterations["agg_cosine"].isna().all()
      and (nrun.iterations["agg_rel_error"] == 1).all(), "nothing sent: iterations.csv cells")
nsweep = ccsim.load_sweep(nil_dir)
check(nsweep.done()["compression_ratio"].isna().all(), "nothing sent: sweep.csv cells")
check(nsweep.summaries()["agg_cosine"].isna().all(), "nothing sent: summaries")
fig = psw.draw(nsweep, "agg_rel_error", "workers")
check(list(fig.axes[0].get_lines()[0].get_ydata()) == [1.0, 1.0], "nothing sent: the sweep plot of a defined figure")
fig = psw.draw(nsweep, "agg_cosine", "workers")
check(np.isnan(fig.axes[0].get_lines()[0].get_ydata()).all(), "nothing sent: the sweep plot of an undefined one")

subprocess.run(["rm", "-rf", T])
print(f"analysis-py: {'ok' if failures == 0 else f'{failures} failed'}")
sys.exit(1 if failures else 0)
