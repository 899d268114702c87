#!/usr/bin/python3
"""scripts/compare_device.py — where the roofline stands against a measured
device: ccsim's own time model, run both ways, in markdown tables.

    scripts/compare_device.py --ccsim build/src/ccsim --measured cpu-measured-epyc-1t \
        [--roofline cpu] [--sizes 65536,1048576] [--out tables.md]

For every model the measured file covers (per precision): ccsim runs one
iteration of that model profile at the measured batch on one worker (nothing
to communicate) on the roofline device and on the measured device, and
compares the compute time in summary.json.  For every compressor it covers
and every size: one worker, one bucket of n elements, timeline on; encode is
the timeline's "compress" row of bucket 0, decode its "decompress" row.  The
measured column is therefore what ccsim charges with the measured device (the
table itself at a measured size, its interpolation between sizes), the roofline
column what it charges with the datasheet device.  Ratio = roofline / measured
(below 1: the roofline is too fast).

Needs only the Python standard library and a built ccsim.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

BOOLEAN = {"refine", "scaled", "warm_start"}  # ccsim's boolean compressor parameters
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(ccsim, tmp, name, exp):
    path = os.path.join(tmp, name + ".json")
    exp["output"] = {"dir": os.path.join(tmp, "out-" + name), "timeline": True}
    with open(path, "w") as f:
        json.dump(exp, f)
    r = subprocess.run([ccsim, "run", "-q", path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("ccsim failed on %s: %s" % (name, r.stdout + r.stderr))
    out = exp["output"]["dir"]
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "timeline.csv")) as f:
        rows = list(csv.DictReader(f))
    return summary, rows


def base(device, workers=1):
    return {"seed": 1, "workers": workers, "iterations": 1,
            "platform": {"generate": "crossbar", "bandwidth": "100Gbps", "latency": "1us"},
            "gradients": {"source": "synthetic", "distribution": "normal", "scale": 0.01},
            "collective": "allgather/ring", "schedule": {"kind": "single"}, "device": device}


def fmt(s):
    if s >= 1:
        return "%.3g s" % s
    if s >= 1e-3:
        return "%.3g ms" % (s * 1e3)
    return "%.3g us" % (s * 1e6)


def main():
    ap = argparse.ArgumentParser(description="Roofline against a measured device, through ccsim.")
    ap.add_argument("--ccsim", default=os.path.join(ROOT, "build", "src", "ccsim"))
    ap.add_argument("--measured", required=True, help="a measured device name or file")
    ap.add_argument("--roofline", help="the built-in device to compare (default: the file's roofline)")
    ap.add_argument("--sizes", default="65536", help="compressor sizes in elements (comma list)")
    ap.add_argument("--precision", help="only this precision")
    ap.add_argument("--out", help="write the tables here too")
    o = ap.parse_args()
    path = o.measured
    if "/" not in path and not path.endswith(".json"):
        d = os.environ.get("CCSIM_DEVICES") or os.path.join(ROOT, "devices")
        path = os.path.join(d, path + ".json")
    path = os.path.abspath(path)
    with open(path) as f:
        dev = json.load(f)
    roof = o.roofline or dev["roofline"]
    sizes = [int(s) for s in o.sizes.split(",") if s]
    lines = ["Roofline `%s` against measured `%s` (%s; %s), through `ccsim run`; command: `%s`" % (
        roof, dev["name"], dev["provenance"].get("device"), dev["provenance"].get("date"),
        " ".join(["scripts/compare_device.py"] + sys.argv[1:])), ""]
    with tempfile.TemporaryDirectory() as tmp:
        lines += ["| model | precision | batch | roofline %s | measured | roofline / measured |" % roof,
                  "|---|---|---:|---:|---:|---:|"]
        for model, precs in sorted(dev["models"].items()):
            for prec, t in sorted(precs.items()):
                if o.precision and prec != o.precision:
                    continue
                got = {}
                for which, device in (("roof", roof), ("meas", {"name": path, "precision": prec})):
                    e = base(device)
                    e["model"] = {"profile": model, "batch": t["batch"], "sample": 1000}
                    e["compressor"] = "none"
                    s, _ = run(o.ccsim, tmp, "%s-%s-%s" % (model, prec, which), e)
                    if which == "meas" and s["time_model"]["compute"] != "measured":
                        sys.exit("%s %s: ccsim did not use the table: %s" % (model, prec, s["time_model"]))
                    got[which] = s["time_breakdown_s"]["compute"]
                lines.append("| %s | %s | %d | %s | %s | %s |" % (model, prec, t["batch"], fmt(got["roof"]),
                                                                  fmt(got["meas"]), "%.3g" % (got["roof"] / got["meas"])))
        lines += ["", "| compressor | op | elements | roofline %s | measured | roofline / measured |" % roof,
                  "|---|---|---:|---:|---:|---:|"]
        for comp, table in sorted(dev["compressors"].items()):
            for n in sizes:
                got = {}
                for which, device in (("roof", roof), ("meas", path)):
                    e = base(device)
                    e["model"] = {"elements": n}
                    # the file keeps every parameter as a number; the experiment
                    # reader wants true/false for ccsim's boolean ones
                    e["compressor"] = {k: (bool(v) if k in BOOLEAN else v) for k, v in table["params"].items()}
                    e["compressor"]["name"] = comp
                    s, rows = run(o.ccsim, tmp, "%s-%d-%s" % (comp, n, which), e)
                    if which == "meas" and s["time_model"]["compression"] != "measured":
                        sys.exit("%s: ccsim did not use the table: %s" % (comp, s["time_model"]))
                    for act, op in (("compress", "encode"), ("decompress", "decode")):
                        r = [float(x["end_s"]) - float(x["start_s"]) for x in rows
                             if x["worker"] == "0" and x["activity"] == act and x["bucket"] == "0"]
                        got[which, op] = r[0] if r else 0.0
                for op in ("encode", "decode"):
                    a, b = got["roof", op], got["meas", op]
                    lines.append("| %s | %s | %d | %s | %s | %s |" % (comp, op, n, fmt(a), fmt(b),
                                                                     "%.3g" % (a / b) if b > 0 else "-"))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if o.out:
        with open(o.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
