#!/usr/bin/python3
"""scripts/check_device.py — a measured device file held against runs it was
not made from: what ccsim charges with the device, beside what the held-out
run measured.

    scripts/check_device.py --ccsim build/src/ccsim --measured h100-measured \
        [--model-bound 0.25] [--compressor-bound 0.30 --large 1000000] \
        [--out table.md] devices/h100-heldout/*.json

Models: for every model, precision and batch in the held-out runs, ccsim runs
one iteration of that profile at that batch on one worker with the measured
device; its compute time (summary.json) is compared with the held-out
forward + backward.  Batches between the measured ones are interpolated by
ccsim, the others are measured batches timed by another process.
Compressors: for every compressor and size in the held-out runs, ccsim's
encode and decode (the timeline, as scripts/compare_device.py reads it)
against the held-out "isolated_s" (one call between two synchronizes, the
figure ccsim's default timing uses).

Prints markdown tables with the ratio ccsim / held-out, then one line per
kind: how many figures lie within the bound.  Exit 1 when, for models or for
compressor figures at >= --large elements, the fraction within the bound is
below --min-within (default 1: every one), 0 otherwise.

Needs only the Python standard library and a built ccsim.
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_device import BOOLEAN, ROOT, base, fmt, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description="A measured device against held-out runs, through ccsim.")
    ap.add_argument("--ccsim", default=os.path.join(ROOT, "build", "src", "ccsim"))
    ap.add_argument("--measured", required=True, help="a measured device name or file")
    ap.add_argument("--model-bound", type=float, default=0.25, help="relative bound per model iteration")
    ap.add_argument("--compressor-bound", type=float, default=0.30, help="relative bound per compressor op")
    ap.add_argument("--large", type=int, default=1000000, help="compressor sizes held to the bound")
    ap.add_argument("--sizes", help="only these compressor sizes (comma list; default every held-out size)")
    ap.add_argument("--precisions", help="only these precisions (comma list; default all)")
    ap.add_argument("--min-within", type=float, default=1.0,
                    help="least fraction of figures within their bound, per kind (default 1)")
    ap.add_argument("--out", help="write the tables here too")
    ap.add_argument("heldout", nargs="+", help="measure_device.py outputs not merged into the device")
    o = ap.parse_args()
    path = o.measured
    if "/" not in path and not path.endswith(".json"):
        path = os.path.join(os.environ.get("CCSIM_DEVICES") or os.path.join(ROOT, "devices"), path + ".json")
    path = os.path.abspath(path)
    with open(path) as f:
        dev = json.load(f)
    held = []
    for p in o.heldout:
        with open(p) as f:
            held.append((os.path.basename(p), json.load(f)))
    lines = ["Measured device `%s` against held-out runs (%s), through `ccsim run`; command: `%s`" % (
        dev["name"], ", ".join(n for n, _ in held), " ".join(["scripts/check_device.py"] + sys.argv[1:])), ""]
    outside = []
    counts = {"model": [0, 0], "compressor": [0, 0]}
    with tempfile.TemporaryDirectory() as tmp:
        lines += ["| model | precision | batch | ccsim | held-out | ccsim / held-out | batch in the device |",
                  "|---|---|---:|---:|---:|---:|---|"]
        rows = []
        for name, d in held:
            for model, precs in d.get("models", {}).items():
                for prec, t in precs.items():
                    if o.precisions and prec not in o.precisions.split(","):
                        continue
                    rows.append((model, prec, t["batch"], t["forward_s"] + t["backward_s"], name))
        for model, prec, batch, want, name in sorted(rows):
            e = base({"name": path, "precision": prec})
            e["model"] = {"profile": model, "batch": batch, "sample": 1000}
            e["compressor"] = "none"
            s, _ = run(o.ccsim, tmp, "%s-%s-%d-%s" % (model, prec, batch, name), e)
            tm = s["time_model"]
            if tm["compute"] != "measured":
                sys.exit("%s %s: ccsim did not use the table: %s" % (model, prec, tm))
            got = s["time_breakdown_s"]["compute"]
            ratio = got / want
            ok = abs(ratio - 1) <= o.model_bound
            counts["model"][0] += ok
            counts["model"][1] += 1
            if not ok:
                outside.append("%s %s batch %d: %.3g" % (model, prec, batch, ratio))
            lines.append("| %s | %s | %d | %s | %s | %.3f%s | %s |" % (
                model, prec, batch, fmt(got), fmt(want), ratio, "" if ok else " **out**",
                "measured" if batch in tm["measured_batches"] else "interpolated"))
        lines += ["", "| compressor | op | elements | ccsim | held-out | ccsim / held-out |",
                  "|---|---|---:|---:|---:|---:|"]
        for name, d in held:
            for comp, table in sorted(d.get("compressors", {}).items()):
                for i, n in enumerate(table["sizes"]):
                    if o.sizes and n not in [int(v) for v in o.sizes.split(",")]:
                        continue
                    e = base(path)
                    # the data plane on a sample of the vector (the device is charged for all n
                    # elements: tests/measured_device.sh checks that), so that 2^25 is quick
                    e["model"] = {"elements": n}
                    if comp != "powersgd":  # its payload follows the whole tensor's shape
                        e["model"]["sample"] = min(n, 65536)
                    e["compressor"] = {k: (bool(v) if k in BOOLEAN else v) for k, v in table["params"].items()}
                    e["compressor"]["name"] = comp
                    s, trows = run(o.ccsim, tmp, "%s-%d-%s" % (comp, n, name), e)
                    if s["time_model"]["compression"] != "measured":
                        sys.exit("%s: ccsim did not use the table: %s" % (comp, s["time_model"]))
                    for act, op in (("compress", "encode"), ("decompress", "decode")):
                        r = [float(x["end_s"]) - float(x["start_s"]) for x in trows
                             if x["worker"] == "0" and x["activity"] == act and x["bucket"] == "0"]
                        got, want = (r[0] if r else 0.0), table[op]["isolated_s"][i]
                        ratio = got / want
                        held_to = n >= o.large
                        ok = abs(ratio - 1) <= o.compressor_bound
                        if held_to:
                            counts["compressor"][0] += ok
                            counts["compressor"][1] += 1
                            if not ok:
                                outside.append("%s %s %d: %.3g" % (comp, op, n, ratio))
                        lines.append("| %s | %s | %d | %s | %s | %.3f%s |" % (
                            comp, op, n, fmt(got), fmt(want), ratio, " **out**" if held_to and not ok else ""))
    lines += ["", "Within the bounds: model iterations %d of %d (|ratio - 1| <= %g); compressor operations at "
              ">= %d elements %d of %d (<= %g)." % (counts["model"][0], counts["model"][1], o.model_bound, o.large,
                                                  counts["compressor"][0], counts["compressor"][1],
                                                  o.compressor_bound)]
    if outside:
        lines.append("Outside: " + "; ".join(outside) + ".")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if o.out:
        with open(o.out, "w") as f:
            f.write(text)
    short = [k for k, (w, n) in counts.items() if n and w < o.min_within * n]
    sys.exit(1 if short else 0)


if __name__ == "__main__":
    main()
