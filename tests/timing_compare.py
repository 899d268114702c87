#!/usr/bin/env python3
"""tests/timing_compare.py DIR_A DIR_B — two run directories of one experiment,
timed two ways (--timing auto and --timing simgrid), agree: every simulated
time (summary.json's numbers, iterations.csv's and timeline.csv's fields)
within 1e-9 relative, every other result file byte for byte.  Prints up to 8
differences, then "bit-identical" or "within X relative"; exit 1 on any.
Used by tests/timing_paths.sh and scripts/timing_workloads.sh.

tests/timing_compare.py --paths DIR — what each timing path timed in one run:
"analytical_iterations simgrid_iterations analytical_messages
simgrid_messages", from summary.json's "timing" (also bench/scale.sh)."""
import json, math, os, sys
if sys.argv[1] == "--paths":
    t = json.load(open(os.path.join(sys.argv[2], "summary.json")))["timing"]
    print(t["analytical_iterations"], t["simgrid_iterations"], t["analytical_messages"], t["simgrid_messages"])
    sys.exit(0)
a, b = sys.argv[1], sys.argv[2]
bad = []
worst = [0.0]
def close(x, y):
    if x != y: worst[0] = max(worst[0], abs(x - y) / max(abs(x), abs(y)))
    return x == y or abs(x - y) <= 1e-9 * max(abs(x), abs(y))
skip = {"host_time_s", "peak_rss_mb", "timing", "provenance"}
def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        if set(x) != set(y): bad.append(f"summary.json {path}: keys differ")
        for k in x:
            if k in skip or k not in y: continue
            walk(x[k], y[k], f"{path}.{k}")
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y): bad.append(f"summary.json {path}: lengths differ"); return
        for i, (u, v) in enumerate(zip(x, y)): walk(u, v, f"{path}[{i}]")
    elif isinstance(x, float) or isinstance(y, float):
        if not (isinstance(x, (int, float)) and isinstance(y, (int, float)) and close(float(x), float(y))):
            bad.append(f"summary.json {path}: {x!r} vs {y!r}")
    elif x != y:
        bad.append(f"summary.json {path}: {x!r} vs {y!r}")
walk(json.load(open(os.path.join(a, "summary.json"))), json.load(open(os.path.join(b, "summary.json"))), "")
def num(s):
    try: return float(s)
    except ValueError: return None
for f in sorted(os.listdir(a)):
    if f == "summary.json" or f.startswith("."): continue
    A, B = open(os.path.join(a, f), "rb").read(), open(os.path.join(b, f), "rb").read()
    if f not in ("iterations.csv", "timeline.csv"):
        if A != B: bad.append(f"{f} differs")
        continue
    la, lb = A.decode().splitlines(), B.decode().splitlines()
    if len(la) != len(lb): bad.append(f"{f}: {len(la)} vs {len(lb)} lines"); continue
    for i, (x, y) in enumerate(zip(la, lb)):
        for u, v in zip(x.split(","), y.split(",")):
            if u == v: continue
            p, q = num(u), num(v)
            if p is None or q is None or not close(p, q):
                bad.append(f"{f} line {i + 1}: {u} vs {v}")
for line in bad[:8]: print("   ", line)
print("bit-identical" if worst[0] == 0 else "within %.1e relative" % worst[0])
sys.exit(1 if bad else 0)
