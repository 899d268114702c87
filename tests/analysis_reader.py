#!/usr/bin/python3
"""tests/analysis_reader.py CCSIM SRCDIR — the Python reader's units, speed-up
and tidy frames.

  - ccsim.units parses what src/units.c parses, to the same values (bandwidths
    in bits/s: 8 x the bytes/s tests/test_units.c expects) and refuses what it
    refuses (the same lists);
  - a real sweep over platform.bandwidth ("1Gbps", "100Gbps", "10Gbps", in
    that order) and method: the axis is read as numbers (1e9 < 1e10 < 1e11)
    with its labels kept, plot_sweep.py draws it sorted with the labels as
    ticks, and its --baseline line is the speed-up;
  - Sweep.speedup for a whole point, AXIS=LABEL and a bare label, computed
    here from sweep.csv; a baseline the sweep lacks is refused, naming it;
  - Sweep.hops() / iterations(): one row per point x iteration (x hop), the
    axis values as columns, equal row by row to each point's own file.
"""
import csv
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

CCSIM, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import ccsim  # noqa: E402
from ccsim import units  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL", what)


def refused(parse, text):
    try:
        parse(text)
    except ValueError:
        return True
    return False


# --- units: tests/test_units.c's cases (bandwidth x 8: bits, not bytes)
good = [(units.bandwidth, "25Gbps", 25e9), (units.bandwidth, "10GBps", 80e9), (units.bandwidth, "100Mbps", 100e6),
        (units.bandwidth, "1.5 TBps", 12e12), (units.bandwidth, "1KiBps", 8192), (units.bandwidth, "8bps", 8),
        (units.bandwidth, "2.5E+1Gbps", 25e9), (units.bandwidth, "10GB/s", 80e9), (units.bandwidth, "1Gib/s", 2**30),
        (units.size, "4MB", 4e6), (units.size, "4MiB", 4194304), (units.size, "512B", 512), (units.size, "1.5GB", 1.5e9),
        (units.size, "4KB", 4000), (units.size, "8b", 1), (units.time, "5us", 5e-6), (units.time, "1.5ms", 1.5e-3),
        (units.time, "2s", 2), (units.time, "100ns", 1e-7), (units.time, "0s", 0), (units.time, "1e-3s", 1e-3),
        (units.time, "2min", 120), (units.time, "2m", 120), (units.time, "1h", 3600), (units.time, " 3 ps ", 3e-12)]
for parse, text, want in good:
    try:
        got = parse(text)
        check(math.isclose(got, want, rel_tol=1e-15, abs_tol=0), f"{parse.__name__}({text!r}) = {got}, expected {want}")
    except ValueError as e:
        check(False, f"{parse.__name__}({text!r}) refused: {e}")
bad = {units.bandwidth: ["", "fast", "25", "25Gb", "25 Gbps x", "Gbps", "25GHz", "nan Gbps", "0x10Gbps", "infGbps",
                         "1e400Gbps", "1eGbps", ".Gbps", "1e300PBps", "1e-330bps", "1e-310Gbps"],
       units.size: ["", "4", "4Mb/s", "4 meg", "MB", "4MBB", "1.7e308KiB", "1e-330b"],
       units.time: ["", "5", "5 sec", "us", "5uss", "inf s", "0x1p-3s", "1e5e5s", "1e307min", "1e306h", "1e-320ps"]}
for parse, texts in bad.items():
    for t in texts:
        check(refused(parse, t), f"{parse.__name__} accepted {t!r}")
check(units.quantity("25Gbps") == (25e9, "bit/s") and units.quantity("4MiB") == (4194304, "B")
      and units.quantity("5us") == (5 * 1e-6, "s") and units.quantity("8") == (8.0, ""), "quantity: the kinds")
check(refused(units.quantity, "marsit") and refused(units.quantity, "nan"), "quantity: a label is no quantity")
check(units.column(["10Gbps", "1Gbps"]) == ([1e10, 1e9], "bit/s"), "column of bandwidths")
check(units.column(["10Gbps", "4MB"]) is None and units.column(["4", "fp16"]) is None, "mixed columns: labels")

# --- a sweep with a bandwidth axis whose labels sort wrong as text
T = tempfile.mkdtemp()
with open(os.path.join(T, "base.json"), "w") as f:
    json.dump({"workers": 4, "iterations": 2, "model": {"elements": 20000},
               "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "5us"},
               "compressor": "none", "collective": "allreduce/ring"}, f)
with open(os.path.join(T, "sweep.json"), "w") as f:
    json.dump({"name": "u", "base": "base.json", "axes": [
        {"path": "platform.bandwidth", "values": ["1Gbps", "100Gbps", "10Gbps"]},
        {"name": "method", "values": [{"label": "none", "set": {"compressor": "none"}},
                                       {"label": "fp16", "set": {"compressor": "fp16"}}]},
        {"path": "workers", "values": [2, 4]}]}, f)
sw_dir = os.path.join(T, "sw")
subprocess.run([CCSIM, "sweep", os.path.join(T, "sweep.json"), "--out", sw_dir, "--quiet", "--jobs", "2"], check=True)
sweep = ccsim.load_sweep(sw_dir)
with open(os.path.join(sw_dir, "sweep.csv"), newline="") as f:
    srows = list(csv.DictReader(f))
check(sweep.units == {"platform.bandwidth": "bit/s", "method": None, "workers": ""}, f"units {sweep.units}")
bw = sweep.points["platform.bandwidth"]
check(str(bw.dtype) == "float64" and sorted(set(bw)) == [1e9, 1e10, 1e11], "bandwidth axis as numbers")
check(str(sweep.points["workers"].dtype) == "int64", "workers axis: integers")
check([sweep.label("platform.bandwidth", v) for v in sorted(set(bw))] == ["1Gbps", "10Gbps", "100Gbps"],
      "labels kept, in numeric order")
check(list(sweep.points["point"]) == [r["point"] for r in srows], "points in sweep.csv's order")
it = {r["point"]: float(r["iteration_time_s"]) for r in srows}

# plot_sweep: sorted by value, labels as ticks; --baseline draws the speed-up
spec = importlib.util.spec_from_file_location("plot_sweep", os.path.join(SRC, "analysis", "plot_sweep.py"))
psw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(psw)
sub = ccsim.load_sweep(sw_dir)
sub.points = sub.points[sub.points["workers"] == 4]
fig = psw.draw(sub, "iteration_time_s", "platform.bandwidth", "method")
ax = fig.axes[0]
check([t.get_text() for t in ax.get_xticklabels()] == ["1Gbps", "10Gbps", "100Gbps"], "plot: tick labels in order")
for line, m in zip(ax.get_lines(), ["none", "fp16"]):
    check(list(line.get_xdata()) == [1e9, 1e10, 1e11], f"plot {m}: x sorted by value")
    check(list(line.get_ydata()) == [it[f"platform.bandwidth={b},method={m},workers=4"] for b in ("1Gbps", "10Gbps", "100Gbps")]
          or all(math.isclose(a, b, rel_tol=1e-15) for a, b in zip(
              line.get_ydata(), [it[f"platform.bandwidth={b},method={m},workers=4"] for b in ("1Gbps", "10Gbps", "100Gbps")])),
          f"plot {m}: y")
check(ax.get_xlabel() == "platform.bandwidth (bit/s)", f"plot: x label {ax.get_xlabel()}")
fig = psw.draw(sub, "iteration_time_s", "platform.bandwidth", "method", baseline="none")
lines = fig.axes[0].get_lines()
check(list(lines[0].get_ydata()) == [1.0, 1.0, 1.0], "plot --baseline none: the baseline's line is 1")
check(all(math.isclose(y, it[f"platform.bandwidth={b},method=none,workers=4"] / it[f"platform.bandwidth={b},method=fp16,workers=4"],
                       rel_tol=1e-12) for y, b in zip(lines[1].get_ydata(), ("1Gbps", "10Gbps", "100Gbps"))),
      "plot --baseline none: fp16's speed-up")

# --- speed-up: a whole point, AXIS=LABEL, a bare label
whole = "platform.bandwidth=10Gbps,method=none,workers=2"
up = sweep.speedup(whole)
check(all(math.isclose(u, it[whole] / it[p], rel_tol=1e-12) for p, u in zip(up["point"], up["speedup"])),
      "speed-up over one point")
check(up.loc[up["point"] == whole, "speedup"].iloc[0] == 1.0 and set(up["baseline"]) == {whole}, "the point itself: 1")
for b in ("method=none", "none"):
    up = sweep.speedup(b)
    for p, base, u in zip(up["point"], up["baseline"], up["speedup"]):
        want_base = p.replace("method=fp16", "method=none")
        check(base == want_base, f"speed-up {b}: {p}'s baseline is {base}")
        check(u == 1.0 if p == want_base else math.isclose(u, it[want_base] / it[p], rel_tol=1e-12),
              f"speed-up {b}: {p} = {u}")
up = sweep.speedup("platform.bandwidth=1Gbps,workers=4")
check(all(b == "platform.bandwidth=1Gbps,method=" + p.split("method=")[1].split(",")[0] + ",workers=4"
          for p, b in zip(up["point"], up["baseline"])), "speed-up over two fixed axes")
for b, words in (("zip", "no point and no label"), ("method=zip", 'has no label "zip"'),
                 ("colour=red", "expected AXIS=LABEL"), ("method=none,method=fp16", "named twice")):
    try:
        sweep.speedup(b)
        check(False, f"speed-up over {b!r} accepted")
    except ValueError as e:
        check(words in str(e), f"speed-up over {b!r}: {e}")

# --- tidy frames
hops = sweep.hops()
n_hops = 0
for r in srows:
    with open(os.path.join(sw_dir, r["point"], "hops.csv"), newline="") as f:
        own = list(csv.DictReader(f))
    n_hops += len(own)
    mine = hops[hops["point"] == r["point"]]
    check(len(mine) == len(own), f"hops of {r['point']}: {len(mine)} rows, its file {len(own)}")
    check(set(mine["method"]) == {r["method"]} and set(mine["workers"]) == {int(r["workers"])}
          and set(mine["platform.bandwidth"]) == {units.bandwidth(r["platform.bandwidth"])},
          f"hops of {r['point']}: the axis columns")
    check([(int(o["iteration"]), int(o["hop"]), int(o["workers"]), float(o["rel_error"])) for o in own] ==
          [(int(a), int(b), int(c), float(d)) for a, b, c, d in
           zip(mine["iteration"], mine["hop"], mine["hops.workers"], mine["rel_error"])], f"hops of {r['point']}: rows")
check(len(hops) == n_hops > 0, "hops: one row per point x iteration x hop")
check(list(hops.columns[:4]) == ["point", "platform.bandwidth", "method", "workers"] and "hops.workers" in hops.columns,
      f"hops columns {list(hops.columns)}")
its = sweep.iterations()
check(len(its) == 2 * len(srows), "iterations: one row per point x iteration")
for r in srows:
    mine = its[its["point"] == r["point"]]
    check(math.isclose(mine["time_s"].mean(), float(r["iteration_time_s"]), rel_tol=1e-9),
          f"iterations of {r['point']}: mean time_s = sweep.csv's iteration_time_s")
    check(math.isclose(mine["end_s"].iloc[-1], mine["time_s"].sum(), rel_tol=1e-12), "iterations: end_s")

# --- the report's axis plot draws exactly the data it embeds (the figure
# caught before it becomes a PNG)
from ccsim import report_html, report_sweep  # noqa: E402
caught = []
report_html.png = lambda fig, dpi=110: caught.append(fig) or ""
sub = ccsim.load_sweep(sw_dir)
sub.points = sub.points[sub.points["workers"] == 4]
done = report_sweep.order(sub, sub.done())
page = report_sweep.axis_plot(sub, done, "platform.bandwidth", sub.speedup("none"))
data = json.loads(page.split('class="plot-data">', 1)[1].split("</script>", 1)[0])
left, right = caught[0].axes
check(data["x"] == [1e9, 1e10, 1e11] and data["x_labels"] == ["1Gbps", "10Gbps", "100Gbps"], "report axis: x")
check(left.get_xscale() == "log" and data["x_scale"] == "log", "report axis: log x over two decades")
check([t.get_text() for t in left.get_xticklabels()] == data["x_labels"], "report axis: tick labels")
for line, s in zip(left.get_lines(), data["series"]):
    check(list(line.get_xdata()) == data["x"] and list(line.get_ydata()) == s["y"], f"report axis {s['label']}: drawn = embedded")
for line, s in zip([ln for ln in right.get_lines() if len(ln.get_xdata()) == 3], data["series"]):
    check(list(line.get_ydata()) == s["speedup"], f"report axis {s['label']}: speed-up drawn = embedded")
check(data["series"][0]["speedup"] == [1.0, 1.0, 1.0], "report axis: the baseline's speed-up is 1")

subprocess.run(["rm", "-rf", T])
print(f"analysis-reader: {'ok' if failures == 0 else f'{failures} failed'}")
sys.exit(1 if failures else 0)
