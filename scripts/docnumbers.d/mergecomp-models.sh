# numbers: quick
# docs/comm-model.md "The wall-time studies under both models": MergeComp
# against layer-wise, single-buffer and DDP-bucket compression, ResNet-50 on
# 16 V100s (roofline) at 10 Gbps, ring all-gather, under comm.model "ideal"
# (workloads/walltime/mergecomp.json) and "nccl" (mergecomp-nccl.json).
# MergeComp's figure is the best iteration its search measured
# (summary.json schedule.best_time_s); the others' are iteration_time_s.
# The second table (also in docs/walltime.md): MergeComp's partition and
# probes, and its gain split into one buffer's and the partition's.
set -eu
"$CCSIM" sweep "$SRC/workloads/walltime/mergecomp.json" --out "$WORK/ideal" --jobs 2 --quiet >/dev/null 2>&1
"$CCSIM" sweep "$SRC/workloads/walltime/mergecomp-nccl.json" --out "$WORK/nccl" --jobs 2 --quiet >/dev/null 2>&1
/usr/bin/python3 - "$WORK/ideal" "$WORK/nccl" <<'PY'
import csv, json, os, statistics, sys
def t(root, comp, kind):
    s = json.load(open(os.path.join(root, f"compressor={comp},schedule.kind={kind}", "summary.json")))
    return s["schedule"]["best_time_s"] if kind == "mergecomp" else s["iteration_time_s"]
kinds = ["layerwise", "single", "buckets", "mergecomp"]
print("Iteration time, ideal → nccl; the last column is MergeComp's speed-up over layer-wise compression:")
print()
print("| compressor | layer-wise | single | DDP buckets | MergeComp | MergeComp over layer-wise |")
print("|---|---|---|---|---|---|")
for comp, label in (("topk", "top-k 1% + residual"), ("ef-signsgd", "EF-signSGD")):
    I = {k: t(sys.argv[1], comp, k) for k in kinds}
    N = {k: t(sys.argv[2], comp, k) for k in kinds}
    cells = [f"{I[k]:.4f} → {N[k]:.4f} s" for k in kinds]
    cells.append(f"{I['layerwise'] / I['mergecomp']:.2f}× → {N['layerwise'] / N['mergecomp']:.2f}×")
    print(f"| {label} | " + " | ".join(cells) + " |")
print()
print("MergeComp's search and where its gain comes from, ideal → nccl (the speed-up over layer-wise is exactly "
      "one buffer's gain over layer-wise × what the partition adds to one buffer):")
print()
print("| compressor | partition (layers, backward order) | probes | layer-wise compression per iteration | "
      "one buffer over layer-wise (one call instead of 161) | MergeComp over one buffer |")
print("|---|---|---|---|---|---|")
def summ(root, comp, kind):
    return json.load(open(os.path.join(root, f"compressor={comp},schedule.kind={kind}", "summary.json")))
for comp, label in (("topk", "top-k 1% + residual"), ("ef-signsgd", "EF-signSGD")):
    cells = []
    for col in range(4):
        vals = []
        for root in sys.argv[1:3]:
            m = summ(root, comp, "mergecomp")["schedule"]
            lw = summ(root, comp, "layerwise")
            if not m["search_finished"]:
                sys.exit(f"mergecomp-models: {root} {comp}: the search did not finish")
            if col == 0:
                vals.append(" + ".join(str(b["layers"]) for b in m["buckets"]))
            elif col == 1:
                vals.append(str(m["probes"]))
            elif col == 2:
                with open(os.path.join(root, f"compressor={comp},schedule.kind=layerwise", "iterations.csv")) as f:
                    c = [float(r["compress_s"]) for r in csv.DictReader(f)]
                vals.append(f"{1e3 * statistics.median(c[-4:]):.1f} ms")
            else:
                vals.append(f"{t(root, comp, 'layerwise') / t(root, comp, 'single'):.2f}× ; "
                            f"{t(root, comp, 'single') / t(root, comp, 'mergecomp'):.3f}×")
        if col < 3:
            cells.append(f"{vals[0]} → {vals[1]}")
        else:
            a, b = (v.split(" ; ") for v in vals)
            cells += [f"{a[0]} → {b[0]}", f"{a[1]} → {b[1]}"]
    print(f"| {label} | " + " | ".join(cells) + " |")
PY
