#!/usr/bin/python3
"""scripts/merge_device.py — one device file from several runs of
scripts/measure_device.py (docs/devices.md).

    scripts/merge_device.py --name h100-measured --summary "..." \
        --compressors parts/compressors-r1.json parts/compressors-r2.json ... \
        --out devices/h100-measured.json parts/models-*.json

A GPU's iteration time moves from one process to the next (seen on an H100:
up to 30% for launch-bound models at batch 32), so the device file is made
from several independent runs (separate processes), at several batches:

  reference batch  per model, measure_device.py's default batch (32; GPT-2
                   small 8).  Of the runs at that batch, the one whose
                   iteration (forward + backward) is the median is kept whole,
                   its per-tensor gradient-ready times with it; an even count
                   keeps the run nearest the median of the totals.
  other batches    "batches": forward and backward seconds, each the median
                   over the runs at that batch; ccsim interpolates between
                   batches (src/timemodel/measured.c, measured_totals).
  every batch      "runs" (how many) and the spread of the iteration over the
                   runs ("iteration_s_min", "iteration_s_max").

Compressors, DDP buckets and the launch figure: every figure (operation,
timing, size) the median over the --compressors runs, which must cover the
same compressors and sizes (seen on an H100: a per-call figure below ~4M
elements moves by up to 2x from one process to the next; at 2^25 elements
by a few percent).  The provenance keeps every part's date and command.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from device_batches import DEFAULT_BATCH  # noqa: E402  (measure_device.py's reference batches)


def total(entry):
    return entry["forward_s"] + entry["backward_s"]


def median_figures(what, docs):
    """The median, figure by figure, of the same structure in every doc:
    numbers and lists of numbers are merged, anything else must agree."""
    first = docs[0]
    if isinstance(first, dict):
        if any(not isinstance(d, dict) or set(d) != set(first) for d in docs):
            sys.exit("%s: the compressor runs differ in their keys" % what)
        return {k: median_figures(what + "." + k, [d[k] for d in docs]) for k in first}
    if isinstance(first, list) and first and isinstance(first[0], float):
        if any(len(d) != len(first) for d in docs):
            sys.exit("%s: the compressor runs differ in length" % what)
        return [statistics.median(v) for v in zip(*docs)]
    if isinstance(first, float):
        return statistics.median(docs)
    if any(d != first for d in docs):
        sys.exit("%s: the compressor runs differ: %r vs %r" % (what, first, [d for d in docs if d != first][0]))
    return first


def merge_compressors(paths, comps):
    out = dict(comps[0])
    for k in ("launch", "compressors", "ddp_buckets"):
        out[k] = median_figures(k, [c[k] for c in comps])
    for p, c in zip(paths, comps):
        for k in ("device", "driver", "torch", "cuda"):
            if c["provenance"].get(k) != comps[0]["provenance"].get(k):
                sys.exit("%s was measured differently: provenance.%s" % (p, k))
    return out


def main():
    ap = argparse.ArgumentParser(description="Merge runs of measure_device.py into one device file.")
    ap.add_argument("--name", required=True)
    ap.add_argument("--summary", required=True)
    ap.add_argument("--roofline", default=None, help="default: the parts' own")
    ap.add_argument("--compressors", required=True, nargs="+",
                    help="runs whose compressors, buckets and launch are merged (median per figure)")
    ap.add_argument("--out", required=True)
    ap.add_argument("parts", nargs="+", help="runs with model measurements")
    o = ap.parse_args()
    docs = []
    for p in o.parts:
        with open(p) as f:
            docs.append((p, json.load(f)))
    comps = []
    for p in o.compressors:
        with open(p) as f:
            comps.append(json.load(f))
    comp = merge_compressors(o.compressors, comps)
    same = ("device", "driver", "torch", "cuda")
    for p, d in docs:
        for k in same:
            if d["provenance"].get(k) != comp["provenance"].get(k):
                sys.exit("%s was measured differently: provenance.%s %r vs %r" % (
                    p, k, d["provenance"].get(k), comp["provenance"].get(k)))
    # (model, precision) -> batch -> [(part, entry)]
    runs = {}
    for p, d in docs:
        for model, precs in d["models"].items():
            for prec, e in precs.items():
                runs.setdefault((model, prec), {}).setdefault(e["batch"], []).append((p, e))
    models = {}
    picked = []
    for (model, prec), by_batch in sorted(runs.items()):
        ref = DEFAULT_BATCH[model]
        if ref not in by_batch:
            sys.exit("%s %s: no run at the reference batch %d" % (model, prec, ref))
        rs = sorted(by_batch[ref], key=lambda pe: total(pe[1]))
        med = statistics.median(total(e) for _, e in rs)
        part, keep = min(rs, key=lambda pe: (abs(total(pe[1]) - med), total(pe[1])))
        picked.append("%s/%s batch %d: %s" % (model, prec, ref, os.path.basename(part)))
        entry = dict(keep)
        entry["runs"] = len(rs)
        entry["iteration_s_min"] = total(rs[0][1])
        entry["iteration_s_max"] = total(rs[-1][1])
        others = []
        for b, pes in sorted(by_batch.items()):
            if b == ref:
                continue
            es = [e for _, e in pes]
            others.append({"batch": b, "forward_s": statistics.median(e["forward_s"] for e in es),
                           "backward_s": statistics.median(e["backward_s"] for e in es), "runs": len(es),
                           "iteration_s_min": min(total(e) for e in es),
                           "iteration_s_max": max(total(e) for e in es)})
        if others:
            entry["batches"] = others
        models.setdefault(model, {})[prec] = entry
    prov = dict(comp["provenance"])
    prov["date"] = " ; ".join(sorted({d["provenance"]["date"] for _, d in docs} | {c["provenance"]["date"] for c in comps}))
    prov["command"] = " ; ".join([d["provenance"]["command"] for _, d in docs] + [c["provenance"]["command"] for c in comps])
    prov["notes"] = list(comp["provenance"].get("notes", [])) + [
        "merged by scripts/merge_device.py from %d model runs (%s) and compressors from %s; reference "
        "tensors from: %s" % (len(docs), ", ".join(os.path.basename(p) for p, _ in docs),
                              ", ".join(os.path.basename(p) for p in o.compressors), "; ".join(picked))]
    doc = {
        "format": comp["format"],
        "name": o.name,
        "summary": o.summary,
        "roofline": o.roofline or comp["roofline"],
        "provenance": prov,
        "launch": comp["launch"],
        "models": models,
        "compressors": comp["compressors"],
        "ddp_buckets": comp["ddp_buckets"],
    }
    tmp = o.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, o.out)
    print("wrote %s: %d models, %d compressors" % (o.out, len(models), len(doc["compressors"])), file=sys.stderr)


if __name__ == "__main__":
    main()
